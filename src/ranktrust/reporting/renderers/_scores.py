"""Renderers of the score path's tables: per-model intervals (ScoreIntervals), the pair table (PairTable) and the
tiers (Tiers). The leaderboard report draws its models, pairs and tiers sections with these same renderers
(``renderers/_report.py`` hands each the part of the report dict in that type's layout), so a table is laid out
once for ``rt.intervals(m)``, ``rt.all_pairs(m)``, ``rt.tiers(m)`` and the report alike."""

from __future__ import annotations

from typing import Any

from .._fmt import (
    OUT_OF_ORDER,
    OUT_OF_ORDER_NOTE,
    adjust_phrase,
    count,
    interval,
    level,
    names,
    out_of_order,
    p_clause,
    p_value,
    plural,
    points,
    provenance_lines,
    rank_range,
    tier_phrase,
)
from .._markdown import md_escape as _esc
from . import renderer


# ---- per-model intervals (and the report's leaderboard table) -------------------------------------------
def _ranked(d: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows in leaderboard order: as given when they carry their rank (the report's), else by score."""
    rows = list(d["models"])
    if rows and "rank" in rows[0]:
        return rows
    order = sorted(range(len(rows)), key=lambda k: (rows[k]["score"] is None, -(rows[k]["score"] or 0.0), k))
    return [{**rows[k], "rank": n} for n, k in enumerate(order, 1)]


def _ranked_table(d: dict[str, Any]) -> bool:
    """Whether the rows carry tiers and rank ranges (the report's table) or intervals only."""
    return bool(d["models"]) and "rank_low" in d["models"][0]


def _tier_header(d: dict[str, Any]) -> str:
    """The tier column says what its tiers are: 'tier' (of the rank ranges) or 'tier (adjacent)'."""
    return "tier (adjacent)" if d.get("tiers_method") == "adjacent" else "tier"


def _columns(d: dict[str, Any]) -> list[tuple[str, str]]:
    cols = [("#", "right"), ("model", "left"), ("score", "right"), ("CI", "right"), ("items", "right")]
    return cols + ([(_tier_header(d), "right"), ("rank range", "right")] if _ranked_table(d) else [])


def _model_cells(d: dict[str, Any], r: dict[str, Any], marked: bool = False) -> list[str]:
    """A row's cells; ``marked``: its score is higher than a row's above it (:data:`OUT_OF_ORDER`)."""
    score = points(r["score"]) + (f" {OUT_OF_ORDER}" if marked else "")
    cells = [str(r["rank"]), r["model"], score, interval(r["ci_low"], r["ci_high"]), count(r["n_items"])]
    if _ranked_table(d):
        cells += [str(r.get("tier") or "-"), rank_range(r.get("rank_low"), r.get("rank_high"))]
    return cells


def _marks(d: dict[str, Any], rows: list[dict[str, Any]]) -> list[bool]:
    """Which rows of the report's table (ordered by tier) score higher than a row above them; none in a table of
    intervals alone (ordered by score)."""
    return out_of_order(rows) if _ranked_table(d) else [False] * len(rows)


def _name_width(names: list[str], cap: int = 48) -> int:
    """A name column wide enough that no name up to ``cap`` characters is broken inside a word."""
    return min(max((len(n) for n in names), default=5), cap)


def _size(d: dict[str, Any]) -> str:
    """'6 models × 120 items' (the report's), '6 models' where the items differ by model."""
    return plural(len(d["models"]), "model") + (f" × {plural(d['n_items'], 'item')}" if d.get("n_items") else "")


@renderer("ranktrust.stats._intervals:ScoreIntervals", "headline")
def intervals_headline(d: dict[str, Any]) -> str:
    """'ada scores highest: 68.75 (95% CI [57.93, 77.85]) of 4 models; the intervals are per model, not a ranking.'"""
    rows = _ranked(d)
    if not rows:
        return "No model has a score."
    top = rows[0]
    return (f"{top['model']} scores highest: {points(top['score'])} ({level(d['confidence_level'])} CI "
            f"{interval(top['ci_low'], top['ci_high'])}) of {plural(len(rows), 'model')}; each interval is for "
            "one model on its own, not a ranking.")


def _clustered_by(d: dict[str, Any], sep: str) -> str:
    """How the intervals were clustered, in words (nothing when they were not)."""
    if d.get("method") == "twoway":
        return sep + "two-way clustered by item and judge"
    return sep + "clustered by item group" if d.get("clustered") else ""


@renderer("ranktrust.stats._intervals:ScoreIntervals", "text")
def intervals_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=(f"{d['title']} — " if d.get("title") else "") + f"{_size(d)} ({level(d['confidence_level'])} "
                    f"CI{_clustered_by(d, ', ')})")
    width = _name_width([r["model"] for r in d["models"]])
    for c, j in _columns(d):
        if c == "model":
            t.add_column(c, justify="left", overflow="fold", min_width=width)
        else:
            t.add_column(c, justify=j, no_wrap=True)  # type: ignore[arg-type]
    rows = _ranked(d)
    marks = _marks(d, rows)
    for r, marked in zip(rows, marks):
        t.add_row(*_model_cells(d, r, marked))
    out: list[Any] = [t]
    if any(marks):
        out.append(Text(OUT_OF_ORDER_NOTE))
    out += [Text(f"read from {line}", style="dim") for line in provenance_lines(d.get("provenance"))]
    return out


@renderer("ranktrust.stats._intervals:ScoreIntervals", "md")
def intervals_markdown(d: dict[str, Any]) -> str:
    cols = _columns(d)
    lines = [f"{_size(d)}; {level(d['confidence_level'])} confidence intervals"
             + _clustered_by(d, ", ") + ".", "",
             "| " + " | ".join(c for c, _ in cols) + " |", "|" + "|".join(":--" if j == "left" else "--:"
                                                                        for _, j in cols) + "|"]
    rows = _ranked(d)
    marks = _marks(d, rows)
    for r, marked in zip(rows, marks):
        cells = _model_cells(d, r, marked)
        cells[1] = _esc(cells[1])
        lines.append("| " + " | ".join(cells) + " |")
    if any(marks):
        lines += ["", _esc(OUT_OF_ORDER_NOTE)]
    prov = provenance_lines(d.get("provenance"))
    if prov:
        lines += [""] + [f"Read from {_esc(x)}." for x in prov]
    return "\n".join(lines) + "\n"


# ---- pairs ----------------------------------------------------------------------------------------------
def _pairs_title(d: dict[str, Any]) -> str:
    return "Each model vs the next one down" if d["pairs_scope"] == "adjacent" else "All pairs"


def adjust_family_label(d: dict[str, Any]) -> str:
    """The pairs the table's adjusted p-values are adjusted over, for its column header: ``"all pairs"``
    in the report (its adjacent rows keep the all-pairs adjustment), ``"adjacent pairs"`` for a table
    adjusted over its ``M - 1`` neighbours only (``rt.all_pairs(m, pairs="adjacent")``)."""
    fam = d.get("adjust_family") or d.get("pairs_scope")
    return "all pairs" if fam == "all" else "adjacent pairs"


#: the terminal shows at most this many pairs (the JSON has all of them)
TEXT_MAX_PAIRS = 200


def _significant(d: dict[str, Any], p: dict[str, Any]) -> bool:
    return p["p_adjusted"] is not None and p["p_adjusted"] < 1 - d["confidence_level"]


@renderer("ranktrust.stats._paired:PairTable", "headline")
def pairs_headline(d: dict[str, Any]) -> str:
    """'2 of 6 pairs differ at 95% (Holm over all 6 pairs); the closest pair that differs: ...'."""
    pairs = d["pairs"]
    if not pairs:
        return "No pair to compare."
    found = [p for p in pairs if _significant(d, p)]
    alpha = 1 - d["confidence_level"]
    lead = f"{len(found)} of {plural(len(pairs), 'pair')} differ at α = {alpha:g} ({adjust_phrase(d)})"
    if not found:
        return lead + ": no pair is told apart."
    big = max(found, key=lambda p: abs(p["diff"] or 0.0))
    a, b = (big["a"], big["b"]) if (big["diff"] or 0) > 0 else (big["b"], big["a"])
    return (f"{lead}; the largest such gap: {a} over {b} by {points(abs(big['diff']))} points "
            f"({p_clause(big['p_adjusted'], 'adjusted p')}).")


@renderer("ranktrust.stats._paired:PairTable", "text")
def pairs_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    if not d.get("pairs"):
        return []
    pairs = d["pairs"][:TEXT_MAX_PAIRS]
    pt = Table(title=f"{_pairs_title(d)} (paired on shared items; p adj: {adjust_phrase(d)}; CI unadjusted)")
    # the two names stacked in one column: a name breaks only when it alone is wider than the column
    pt.add_column("A\nB", justify="left", overflow="fold",
                  min_width=_name_width([p[k] for p in pairs for k in ("a", "b")]))
    for c in ("A − B (pts)", "CI", "only A", "only B", "p", f"p adj\n({adjust_family_label(d)})"):
        pt.add_column(c, justify="right", no_wrap=True)
    for p in pairs:
        pt.add_row(f"{p['a']}\n{p['b']}", points(p["diff"], signed=True),
                   interval(p["ci_low"], p["ci_high"], signed=True), count(p.get("only_a")), count(p.get("only_b")),
                   p_value(p["p_value"]), p_value(p["p_adjusted"]), style="bold" if _significant(d, p) else None)
    out: list[Any] = [pt]
    if len(d["pairs"]) > TEXT_MAX_PAIRS:
        out.append(Text(f"... {len(d['pairs']) - TEXT_MAX_PAIRS} more pairs in the JSON output"))
    return out


@renderer("ranktrust.stats._paired:PairTable", "md")
def pairs_markdown(d: dict[str, Any]) -> str:
    if not d.get("pairs"):
        return ""
    lines = [f"## {_pairs_title(d)}", "",
             f"Paired on shared items; p adj: {adjust_phrase(d)}; the CI is unadjusted.", "",
             f"| A | B | A − B (pts) | CI | only A | only B | p | p adj ({adjust_family_label(d)}) |",
             "|:--|:--|--:|--:|--:|--:|--:|--:|"]
    for p in d["pairs"]:
        lines.append(f"| {_esc(p['a'])} | {_esc(p['b'])} | {points(p['diff'], signed=True)} | "
                     f"{interval(p['ci_low'], p['ci_high'], signed=True)} | {count(p.get('only_a'))} | "
                     f"{count(p.get('only_b'))} | {p_value(p['p_value'])} | {p_value(p['p_adjusted'])} |")
    return "\n".join(lines) + "\n"


# ---- tiers ----------------------------------------------------------------------------------------------
@renderer("ranktrust.ranking._tiers:Tiers", "headline")
def tiers_headline(d: dict[str, Any]) -> str:
    """'2 tiers; tier 1 (could be #1): ada, cy, bo.'"""
    tiers = d["tiers"]
    if not tiers:
        return "No tiers: there is no model."
    top = tiers[0]["models"]
    return f"{plural(len(tiers), 'tier')}; tier 1: {names(top, 6)}."


def titled_table(title: str, columns: dict[str, dict[str, Any]], rows: Any) -> list[Any]:
    """A small table under its title for the terminal: the title on its own line, in italics (a narrow table
    would wrap a title of its own into a column of fragments); ``columns`` maps each header to its
    ``Table.add_column`` options, ``rows`` are the cells."""
    from rich.table import Table
    from rich.text import Text

    t = Table()
    for head, options in columns.items():
        t.add_column(head, **options)
    for row in rows:
        t.add_row(*row)
    return [Text(title, style="italic"), t]


@renderer("ranktrust.ranking._tiers:Tiers", "text")
def tiers_text(d: dict[str, Any]) -> list[Any]:
    return titled_table(tier_phrase(d), {"tier": {"justify": "right"}, "models": {"overflow": "fold"}},
                        ((str(row["tier"]), ", ".join(row["models"])) for row in d["tiers"]))


@renderer("ranktrust.ranking._tiers:Tiers", "md")
def tiers_markdown(d: dict[str, Any]) -> str:
    lines = ["## Tiers", "", tier_phrase(d) + ".", ""]
    lines += [f"- **Tier {row['tier']}**: " + ", ".join(_esc(m) for m in row["models"]) for row in d["tiers"]]
    return "\n".join(lines) + "\n"
