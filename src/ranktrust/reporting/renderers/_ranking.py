"""Renderers of the ranking results: ``ranks`` (RankSets), ``stability`` (Stability), ``splithalf`` (SplitHalf)."""

from __future__ import annotations

from typing import Any

from .._fmt import (
    ADJUST_NAMES,
    dropped_sentence,
    level,
    percent,
    percent_se,
    points,
    probability,
    rank_range,
    stability_title,
    tier_phrase,
)
from .._markdown import _esc
from . import renderer
from ._csv import table_csv


# ---- ranks ----------------------------------------------------------------------------------------------
def _rank_columns(d: dict[str, Any]) -> list[tuple[str, str]]:
    kind = "joint" if d["simultaneous"] else "marginal"
    cols = [("tier", "right"), ("model", "left"), ("score", "right"), ("rank", "right"),
            (f"rank range ({kind})", "right")]
    if d["simultaneous"]:  # with --marginal the range column already is the marginal one
        cols.append(("marginal", "right"))
    return cols


def _rank_cells(d: dict[str, Any], row: dict[str, Any]) -> list[str]:
    tier = (d.get("tiers") or {}).get("model_tier", {})
    out = [str(tier.get(row["model"], "")), row["model"], points(row["score"]), str(row["rank"]),
           rank_range(row["rank_low"], row["rank_high"])]
    if d["simultaneous"]:
        out.append(rank_range(row["marginal_low"], row["marginal_high"]))
    return out


@renderer("ranktrust.ranking._ranksets:RankSets", "headline")
def could_be_first_sentence(d: dict[str, Any]) -> str:
    first = d["could_be_first"]
    if len(d["models"]) < 2:
        return f"{first[0]} is the only model: there is nothing to rank."
    return (f"Could be #1: {', '.join(first)}." if len(first) > 1
            else f"{first[0]} is #1 with {level(d['confidence_level'])} confidence.")


def rank_method_sentence(d: dict[str, Any]) -> str:
    how = (f"from the paired tests of all pairs ({ADJUST_NAMES.get(d.get('adjust'), d.get('adjust'))})"
           if d.get("method") == "pairs" else
           f"from the {'studentized ' if d.get('studentized') else ''}bootstrap ({d['n_resamples']:,} resamples)")
    return (f"Rank ranges {how}; Mogstad, Romano, Shaikh & Wilhelm (2024). "
            + tier_phrase({"method": "rank-sets"}) + ".")


@renderer("ranktrust.ranking._ranksets:RankSets", "text")
def ranks_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    kind = "joint" if d["simultaneous"] else "marginal"
    t = Table(title=f"Rank ranges with {level(d['confidence_level'])} {kind} confidence")
    for c, j in _rank_columns(d):
        t.add_column(c, justify=j, overflow="fold")  # type: ignore[arg-type]
    for row in d["models"]:
        t.add_row(*_rank_cells(d, row))
    out = [t, Text(could_be_first_sentence(d)), Text(rank_method_sentence(d))]
    if d.get("dropped"):
        out.append(Text(dropped_sentence(d)))
    return out


@renderer("ranktrust.ranking._ranksets:RankSets", "md")
def ranks_markdown(d: dict[str, Any]) -> str:
    kind = "joint" if d["simultaneous"] else "marginal"
    cols = _rank_columns(d)
    lines = [f"## Rank ranges ({level(d['confidence_level'])} {kind} confidence)", "",
             "| " + " | ".join(c for c, _ in cols) + " |",
             "|" + "|".join("---" if j == "left" else "--:" for _, j in cols) + "|"]
    for row in d["models"]:
        lines.append("| " + " | ".join(_esc(c) for c in _rank_cells(d, row)) + " |")
    lines += ["", could_be_first_sentence(d), "", rank_method_sentence(d)]
    if d.get("dropped"):
        lines += ["", dropped_sentence(d)]
    return "\n".join(lines) + "\n"


@renderer("ranktrust.ranking._ranksets:RankSets", "csv")
def ranks_csv(d: dict[str, Any]) -> str:
    tier = (d.get("tiers") or {}).get("model_tier", {})
    cols = ["model", "score", "rank", "rank_low", "rank_high", "marginal_low", "marginal_high"]
    return table_csv(["tier"] + cols, ([tier.get(r["model"])] + [r.get(c) for c in cols] for r in d["models"]))


# ---- stability ------------------------------------------------------------------------------------------
def _pct_se(x: Any, se: Any = None) -> str:
    return probability(x, se)


def _familiar(d: dict[str, Any], n: int) -> str:
    return ", ".join(k for k, v in (d.get("familiar_sizes") or {}).items() if v == n)


def _likely_first(row: dict[str, Any]) -> str:
    vals = [(k, v) for k, v in row["p_first"].items() if v is not None]
    if not vals:
        return percent(None)
    name, p = max(vals, key=lambda kv: kv[1])
    return f"{name} ({probability(p)})"


def _size_label(row: dict[str, Any], star: str) -> str:
    return f"{row['n']:,}" + (" (full)" if row["label"] == "full" else "") + (f" {star}" if row["beyond_data"] else "")


@renderer("ranktrust.ranking._stability:Stability", "text")
def stability_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=stability_title(d))
    t.add_column("items", justify="right", no_wrap=True)
    t.add_column("P(#1 is #1)", justify="right", no_wrap=True)
    for k in d["top_k"]:
        t.add_column(f"P(top {k}\nin order)", justify="right", no_wrap=True)
    # the name column no narrower than its longest name (up to 40): a name is never cut inside a word; the
    # other columns give way (their headers wrap between words)
    longest = max((len(_likely_first(r)) for r in d["by_size"]), default=13)
    t.add_column("most often #1", overflow="fold", min_width=min(longest, 40))
    t.add_column("like", max_width=10)
    for row in d["by_size"]:
        t.add_row(_size_label(row, "*"), _pct_se(row["p_top_stays_top"], row["p_top_stays_top_se"]),
                  *[probability(row["p_topk_order"][str(k)]) for k in d["top_k"]],
                  _likely_first(row), _familiar(d, row["n"]))
    out: list[Any] = [t, Text("± is the Monte Carlo standard error. Items are drawn with replacement from "
                              "the benchmark; exact ties are broken at random.")]
    if any(r["beyond_data"] for r in d["by_size"]):
        out.append(Text("* more items than the benchmark has: draws repeat items, so this overstates stability."))
    if d.get("dropped"):
        out.append(Text(dropped_sentence(d)))
    return out


@renderer("ranktrust.ranking._stability:Stability", "md")
def stability_markdown(d: dict[str, Any]) -> str:
    ks = d["top_k"]
    lines = ["## #1 in resamples of these items", "", _esc(stability_title(d)) + ".", "",
             "| items | P(#1 is #1) | " + " | ".join(f"P(top {k} in order)" for k in ks) + " | most often #1 | like |",
             "|--:|--:|" + "--:|" * len(ks) + "---|---|"]
    for row in d["by_size"]:
        lines.append(f"| {_size_label(row, chr(92) + '*')} | "
                     f"{_pct_se(row['p_top_stays_top'], row['p_top_stays_top_se'])} | "
                     + " | ".join(probability(row["p_topk_order"][str(k)]) for k in ks)
                     + f" | {_esc(_likely_first(row))} | {_familiar(d, row['n'])} |")
    lines += ["", "± is the Monte Carlo standard error; exact ties are broken at random."]
    if any(r["beyond_data"] for r in d["by_size"]):
        lines.append("\\* more items than the benchmark has: draws repeat items.")
    return "\n".join(lines) + "\n"


@renderer("ranktrust.ranking._stability:Stability", "csv")
def stability_csv(d: dict[str, Any]) -> str:
    ks = [str(k) for k in d["top_k"]]
    return table_csv(["n", "label", "beyond_data", "p_top_stays_top", "p_top_stays_top_se"]
                     + [f"p_top{k}_order" for k in ks],
                     ([r["n"], r["label"], r["beyond_data"], r["p_top_stays_top"], r["p_top_stays_top_se"]]
                      + [r["p_topk_order"].get(k) for k in ks] for r in d["by_size"]))


@renderer("ranktrust.ranking._stability:Stability", "headline")
def stability_headline(d: dict[str, Any]) -> str:
    """'On resamples of 40 items, ada stays #1 in 77% of draws (optimistic for close races).'"""
    rows = d["by_size"]
    if not rows or d.get("top_model") is None:
        return "No resampling to show."
    row = next((r for r in rows if r["label"] == "full"), rows[-1])
    return (f"On resamples of {row['n']:,} items, {d['top_model']} stays #1 in {probability(row['p_top_stays_top'])} "
            "of draws (optimistic for close races: the rank ranges are the joint statement).")


# ---- split-half -----------------------------------------------------------------------------------------
def _winners(d: dict[str, Any], k: int = 3) -> str:
    """'Who wins a half: A 54%, B 46%.' (the models that win a half most often)."""
    wins = sorted(((p, m) for m, p in (d.get("p_wins_half") or {}).items() if p), reverse=True)
    if not wins:
        return ""
    shown = ", ".join(f"{m} {percent(p)}" if p >= 0.005 else f"{m} <1%" for p, m in wins[:k])
    return f"Who wins a half: {shown}" + (f" (and {len(wins) - k} more)" if len(wins) > k else "") + "."


def lead_phrase(sh: dict[str, Any]) -> str:
    """The winner's-curse sentence of the split-half check."""
    a, b = sh.get("lead_selecting_half"), sh.get("lead_other_half")
    if a is None or b is None:
        return ""
    if b < 0:
        return (f"its lead of {points(a)} points in the half that picked it turns into a deficit of {points(-b)} "
                "points in the other half: the top models are too close for a half to pick a winner.")
    if a > 0 and b >= 0.9 * a:
        return f"its lead holds up: {points(a)} points in the half that picked it, {points(b)} in the other."
    return (f"its lead shrinks from {points(a)} points in the half that picked it to {points(b)} in the other "
            "(the winner's curse).")


def _splithalf_notes(d: dict[str, Any]) -> list[str]:
    out = []
    lead = lead_phrase(d)
    if lead:
        out.append(f"The winner of one half also wins the other {probability(d['p_same_winner'])} of the time; {lead}")
    w = _winners(d)
    if w:
        out.append(w)
    if d.get("dropped"):
        out.append(dropped_sentence(d))
    return out


@renderer("ranktrust.ranking._splithalf:SplitHalf", "headline")
def splithalf_headline(d: dict[str, Any]) -> str:
    """'The winner of one half also wins the other 62% of the time; its lead ...'."""
    lead = lead_phrase(d)
    return (f"The winner of one half also wins the other {probability(d['p_same_winner'])} of the time"
            + (f"; {lead}" if lead else "."))


def _splithalf_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        ("winner of one half also wins the other",
         probability(d['p_same_winner'], d['p_same_winner_se'])),
        ("winner's lead in the half that picked it",
         f"{points(d['lead_selecting_half'])} pts ±{points(d['lead_selecting_half_se'])}"),
        ("its lead in the other half", f"{points(d['lead_other_half'])} pts ±{points(d['lead_other_half_se'])}"),
        ("shrinkage (winner's curse)", percent(None) if d["shrinkage"] is None else
         f"{percent(d['shrinkage'])} ±{percent_se(d['shrinkage_se'])}"),
    ]


def _n_splits(d: dict[str, Any]) -> int:
    return d["n_resamples"]


@renderer("ranktrust.ranking._splithalf:SplitHalf", "text")
def splithalf_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"Split-half check: {_n_splits(d):,} random halves")
    t.add_column("")
    t.add_column("value", justify="right")
    for a, b in _splithalf_rows(d):
        t.add_row(a, b)
    return [t, *(Text(n) for n in _splithalf_notes(d)),
            Text("± is the Monte Carlo standard error. A lead that shrinks in the other half is the "
                 "winner's curse: picking the best of noisy scores overstates its lead.")]


@renderer("ranktrust.ranking._splithalf:SplitHalf", "md")
def splithalf_markdown(d: dict[str, Any]) -> str:
    lines = [f"## Split-half check ({_n_splits(d):,} random halves)", "", "| | value |", "|---|--:|"]
    lines += [f"| {a} | {b} |" for a, b in _splithalf_rows(d)]
    notes = _splithalf_notes(d)
    if notes:
        lines += [""] + [_esc(n) for n in notes]
    return "\n".join(lines) + "\n"
