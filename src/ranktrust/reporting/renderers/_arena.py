"""Renderers of ``ranktrust arena`` (:class:`ranktrust.arena.ArenaResult`): the headline "Is #1 really #1?",
the ratings with their simultaneous rank sets beside LMArena's overlap rule, the separated neighbours, the
style coefficients; text, Markdown, HTML (a page with the figure) and CSV (one row per model).

Every sentence is composed from the numbers of the payload (``to_dict()`` plus ``headline.text``): the headline by
the score path's own headline function in Elo (:func:`.._headline.headline_text`), the others here."""

from __future__ import annotations

from typing import Any

from .._fmt import adjusted_p as fmt_adjusted_p
from .._fmt import count, interval, level, names, number, p_value, plural, points, rank_range, rating
from .._headline import headline_text
from .._markdown import md_escape as _esc
from .._notes import note_text
from . import renderer
from ._csv import table_csv

_OVERLAP = "overlap rule (LMArena; marginal, not simultaneous)"
#: where the HTML page puts the figure (a paragraph of the Markdown, replaced)
_FIGURE = "RANKTRUST-ARENA-FIGURE"


def _ci(lo: Any, hi: Any, signed: bool = False) -> str:
    return f"[{rating(lo, signed)}, {rating(hi, signed)}]"


def adjusted_p(d: dict[str, Any], p_adj: Any, p: Any) -> str:
    """An adjusted p-value as the table shows it: '<0.0005' at the draws' floor (never the floor as a number)."""
    return fmt_adjusted_p(p_adj, p, d["settings"].get("p_adjusted_floor"))


@renderer("ranktrust.preference._result:ArenaResult", "headline")
def arena_headline(d: dict[str, Any]) -> str:
    """"Is #1 really #1?" in one or two sentences: the shared headline (:func:`.._headline.headline_text`) in Elo
    points, with the stepdown's p floor and LMArena's overlap rule."""
    return headline_text(d["headline"], d["confidence_level"], unit="Elo",
                         p_floor=d["settings"].get("p_adjusted_floor"))


def _all_pairs(n: int) -> str:
    return "the one pair" if n == 1 else f"all {count(n)} pairs"


def method_sentence(d: dict[str, Any]) -> str:
    s = d["settings"]
    ties = ("a tie counts as half a win" if s["ties"] == "half"
            else f"Davidson's tie model (nu = {number(s['davidson_nu'], 3)})")
    clus = (f"clustered by the column {s['cluster_by']} ({count(s['n_clusters'])} clusters)" if s["cluster_by"]
            else "per battle (no clustering)")
    g = s.get("gold")
    cov = ("the cluster-robust sandwich" if s["method"] == "sandwich" else
           f"the prediction-powered sandwich (PPI++: the judge's verdicts on every battle corrected by "
           f"{count(g['n_gold'])} gold verdicts, lambda = {number(g['lam'], 2)})" if s["method"] == "ppi" else
           f"the cluster bootstrap ({count(s['n_resamples'])} refits)")
    w = " Weights are analytic (one weighted battle is one battle)." if s["weighted"] else ""
    corr = s.get("cluster_correction")
    if s["method"] == "sandwich" and corr == "cr2":
        cov += (" with the small-cluster correction (CR2-type; t references"
                + (f", the fewest degrees of freedom {number(s['min_df'], 1)}" if s.get("min_df") is not None
                   and s["min_df"] < 1000 else "") + ")")
    elif s["method"] == "sandwich" and corr == "cr1":
        cov += " (CR1, normal reference)"
    elif s["method"] == "sandwich" and corr == "none":
        cov += " (no small-cluster correction, normal reference)"
    floor = s.get("p_adjusted_floor")
    fl = (f" An adjusted p shown as <{p_value(floor).lstrip('<')} is below the floor "
          f"1/({count(s['n_resamples'])} + 1) of the "
          "draws." if floor is not None and s["method"] == "sandwich" else "")
    n_pairs = s["n_models"] * (s["n_models"] - 1) // 2
    claims = ("Rank sets and 'separated' come from the pair's own test (one pair: no draws, the adjusted p is its "
              "p)" if n_pairs == 1 else
              f"Rank sets and 'separated' come from a stepdown max-|t| over {_all_pairs(n_pairs)} "
              f"({level(d['confidence_level'])} joint; Mogstad, Romano, Shaikh & Wilhelm 2024)")
    return (f"Bradley-Terry on {count(s['n_battles'])} battles ({ties}), Elo scale 400/ln 10 with the mean rating "
            f"at 1000; covariance from {cov}, {clus}. {claims}.{w}{fl}")


def gold_sentence(d: dict[str, Any]) -> str | None:
    """With gold battles: who could be #1 from the judge's verdicts alone and from the gold verdicts alone,
    beside the prediction-powered answer of the headline."""
    if "judge_only" not in d:
        return None
    g = d["settings"]["gold"]
    out = (f"Prediction-powered: {count(g['n_gold'])} gold verdicts (matched by {g['battle_id']}) correct the "
           f"judge's verdicts on {count(d['settings']['n_battles'])} battles. Could be #1 from the judge alone: "
           f"{names(d['judge_only']['headline']['could_be_first'], 6)} (its intervals take the judge as if it were the people)")
    if d.get("gold_only") is not None:
        out += f"; from the gold verdicts alone: {names(d['gold_only']['headline']['could_be_first'], 6)}."
    else:
        out += "; the gold verdicts alone cannot be rated (a model is missing from them, or won or lost all of them)."
    return out


def baseline_sentence(d: dict[str, Any]) -> str | None:
    """What the win-rate column is: against which model, and (where the battles are not all against it) how
    it is estimated."""
    s = d["settings"]
    if not d.get("baseline"):
        return None
    head = f"Win rate: against {d['baseline']}, in percent (a tie counts half)"
    if s.get("baseline_star", True):
        return head + ", with its interval clustered as the ratings are." if s["cluster_by"] else head + "."
    never = [r["model"] for r in d["models"] if r["model"] != d["baseline"] and not r.get("n_vs_baseline")]
    out = (f"{head}. Only {count(s['baseline_battles'])} of the {count(s['n_battles'])} battles are against "
           f"{d['baseline']}: the win rates against it are Bradley-Terry estimates from all battles, not the "
           "share of wins in those battles.")
    if never:
        out += (f" {plural(len(never), 'model')} never met it ({names(never, 6)}): "
                + ("its win rate rests" if len(never) == 1 else "their win rates rest")
                + " on the model's transitivity alone.")
    return out


def ties_sentence(d: dict[str, Any]) -> str | None:
    tc = d["settings"].get("ties_check")
    if not tc:
        return None
    name = "Davidson's tie model" if tc["convention"] == "davidson" else "ties as half a win"
    n = len(tc["top"])
    if n >= len(d["models"]):           # the check covers the whole board (two or three models): say "the order"
        if tc["differs"]:
            return f"Note: with {name} the order is {', '.join(tc['top'])}: the tie convention changes it."
        return f"With {name} the order is the same."
    top = {1: "#1 is", 2: "top two are", 3: "top three are"}.get(n, f"top {n} are")
    if tc["differs"]:
        return f"Note: with {name} the {top} {', '.join(tc['top'])}: the tie convention changes the order."
    return f"With {name} the {top} the same."


#: the baseline's own win-rate cells in text, Markdown and HTML: it is the reference, not an estimate (its 50% against
#: itself holds by definition); the JSON keeps 0.5 with a zero-width interval, the CSV leaves the cells empty
BASELINE_CELLS = ("baseline", "—")


def win_rate_cells(d: dict[str, Any], r: dict[str, Any]) -> list[str]:
    """A model's win rate against the baseline and its interval, as shown; the baseline's own row says so."""
    if r["model"] == d.get("baseline"):
        return list(BASELINE_CELLS)
    return [points(r["win_rate"]), interval(r["win_rate_ci_low"], r["win_rate_ci_high"])]


def _columns(d: dict[str, Any]) -> list[str]:
    cols = ["tier", "model", "rating", "95% CI" if d["confidence_level"] == 0.95 else "CI", "rank set",
            "overlap rule", "battles"]
    if d.get("baseline"):
        cols[5:5] = ["win rate %", "win-rate CI"]
    if d.get("style"):
        cols += ["raw rating", "raw rank"]
    return cols


def _cells(d: dict[str, Any], r: dict[str, Any]) -> list[str]:
    out = [str(r["tier"]), r["model"], rating(r["rating"]), _ci(r["ci_low"], r["ci_high"]),
           rank_range(r["rank_low"], r["rank_high"]), rank_range(r["overlap_rank_low"], r["overlap_rank_high"]),
           count(r["n_battles"])]
    if d.get("baseline"):
        out[5:5] = win_rate_cells(d, r)
    if d.get("style"):
        out += [rating(r["rating_raw"]), str(r["rank_raw"])]
    return out


def _neighbours(d: dict[str, Any], k: int = 12) -> tuple[str, list[list[str]]]:
    """The title and rows (a, b, then the cells of the other columns) of the pairs of models next to each
    other in the display order (the first ``k``, taken from the all-pairs table)."""
    shown = [r["model"] for r in d["models"]]
    want = {(shown[i], shown[i + 1]) for i in range(len(shown) - 1)}
    nb = [p for p in d["pairs"] if (p["a"], p["b"]) in want or (p["b"], p["a"]) in want]
    title = "Neighbours in this order" + (f" (the first {k} of {len(nb)}; every pair is in the JSON output)"
                                          if len(nb) > k else "")
    return title, [[x["a"], x["b"], rating(x["diff"]), _ci(x["ci_low"], x["ci_high"]), p_value(x["p_value"]),
                    adjusted_p(d, x["p_adjusted"], x["p_value"]), "yes" if x["separated"] else "no"] for x in nb[:k]]


#: the win-rate columns (with a baseline): a table of their own in text
_WIN_COLUMNS = ("win rate %", "win-rate CI")
#: text headers stacked on two lines (never cut inside a word)
_STACKED = {"rank set": "rank\nset", "overlap rule": "overlap\nrule", "raw rating": "raw\nrating",
            "raw rank": "raw\nrank"}

_NEIGHBOUR_COLUMNS = ("pair", "diff", "marginal CI", "p", "adjusted p", "separated")


def _style_lines(d: dict[str, Any]) -> list[str]:
    st = d.get("style")
    if not st:
        return []
    out = ["Style coefficients (log-odds per root-mean-square unit of the normalised feature; no penalty): " + "; ".join(
        f"{f['feature']} {number(f['gamma'], 3)} [{number(f['ci_low'], 3)}, {number(f['ci_high'], 3)}]"
        for f in st["features"]) + "."]
    ch = st["rank_changes"]
    out.append("Rank changes from style control: " + (", ".join(
        f"{c['model']} {c['rank_raw']}→{c['rank']}" for c in ch[:12]) + (f" and {len(ch) - 12} more" if len(ch) > 12
                                                                         else "") if ch else "none") + ".")
    return out


@renderer("ranktrust.preference._result:ArenaResult", "text")
def arena_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    out: list[Any] = [Text("Is #1 really #1? " + (d["headline"].get("text") or arena_headline(d)), style="bold")]
    # piped text is 110 columns: numbers never wrap, the model column is as wide as its longest name (up to
    # 40), two-word headers are stacked, and the win rates come as a table of their own, so that no model
    # name or header is cut inside a word
    width = min(max((len(r["model"]) for r in d["models"]), default=5), 40)
    cols = [c for c in _columns(d) if c not in _WIN_COLUMNS]
    keep = [i for i, c in enumerate(_columns(d)) if c not in _WIN_COLUMNS]
    t = Table(title=f"Ratings (Elo) with {level(d['confidence_level'])} simultaneous rank sets", title_justify="left")
    for c in cols:
        if c == "model":
            t.add_column(c, justify="left", overflow="fold", min_width=width)
        else:
            t.add_column(_STACKED.get(c, c), justify="right", no_wrap=True)
    for r in d["models"]:
        cells = _cells(d, r)
        t.add_row(*[cells[i] for i in keep])
    out.append(t)
    if d.get("baseline"):
        w = Table(title=f"Win rate against {d['baseline']}", title_justify="left")
        w.add_column("model", justify="left", overflow="fold", min_width=width)
        for c in _WIN_COLUMNS:
            w.add_column(c, justify="right", no_wrap=True)
        for r in d["models"]:
            w.add_row(r["model"], *win_rate_cells(d, r))
        out.append(w)
    title, nb = _neighbours(d)
    if nb:
        p = Table(title=title, title_justify="left")
        for c in _NEIGHBOUR_COLUMNS:
            if c == "pair":
                p.add_column(c, justify="left", overflow="fold", min_width=min(width + 2, 42))
            else:
                p.add_column(c, justify="right", no_wrap=True)
        for cells in nb:
            p.add_row(f"{cells[0]} >\n{cells[1]}" if len(cells[0]) + len(cells[1]) + 3 > 2 * width
                      else f"{cells[0]} > {cells[1]}", *cells[2:])
        out.append(p)
    out.append(Text(f"Overlap column: the {_OVERLAP} on the same intervals, for comparison."))
    for sentence in (baseline_sentence(d), gold_sentence(d)):
        if sentence:
            out.append(Text(sentence))
    out += [Text(s) for s in _style_lines(d)]
    ts = ties_sentence(d)
    if ts:
        out.append(Text(ts))
    out.append(Text(method_sentence(d)))
    out += [Text(f"note: {note_text(n)}", style="yellow") for n in d.get("notes") or []]
    return out


@renderer("ranktrust.preference._result:ArenaResult", "md")
def arena_markdown(d: dict[str, Any], figure: bool = False) -> str:
    cols = _columns(d)
    lines = ["## Is #1 really #1?", "", _esc(d["headline"].get("text") or arena_headline(d)), "",
             f"### Ratings (Elo) with {level(d['confidence_level'])} simultaneous rank sets", "",
             "| " + " | ".join(cols) + " |", "|" + "|".join("---" if c == "model" else "--:" for c in cols) + "|"]
    for r in d["models"]:
        cells = _cells(d, r)
        cells[1] = _esc(cells[1])
        lines.append("| " + " | ".join(cells) + " |")
    if figure:
        lines += ["", _FIGURE]
    title, nb = _neighbours(d)
    if nb:
        lines += ["", f"### {title}", "", "| " + " | ".join(_NEIGHBOUR_COLUMNS) + " |", "|---|--:|--:|--:|--:|:-:|"]
        lines += ["| " + " | ".join([f"{_esc(cells[0])} > {_esc(cells[1])}", *cells[2:]]) + " |" for cells in nb]
    lines += ["", f"Overlap column: the {_OVERLAP} on the same intervals, for comparison."]
    for sentence in (baseline_sentence(d), gold_sentence(d)):
        if sentence:
            lines += ["", _esc(sentence)]
    lines += ["", *(_esc(s) for s in _style_lines(d))] if d.get("style") else []
    ts = ties_sentence(d)
    if ts:
        lines += ["", _esc(ts)]
    lines += ["", _esc(method_sentence(d))]
    if d.get("notes"):
        lines += ["", "### Notes", ""] + [f"- {_esc(note_text(n))}" for n in d["notes"]]
    return "\n".join(lines) + "\n"


@renderer("ranktrust.preference._result:ArenaResult", "html")
def arena_html(d: dict[str, Any], meta: dict[str, Any]) -> str:
    """One self-contained page: the Markdown content plus the ratings figure as inline SVG."""
    from .._html import markdown_page

    md = arena_markdown(d, figure=True)
    try:
        from ..plots._arena import arena_ratings
        from ..plots._svg import figure_svg

        svg = figure_svg(arena_ratings(d))
    except Exception:   # no figure (e.g. matplotlib missing): the page without it
        svg = ""
    page = markdown_page(md + f"\n<sub>ranktrust {meta.get('version')} · seed {meta.get('seed')}</sub>\n",
                         title=meta.get("command") or "Preference leaderboard", payload=d, meta=meta)
    page = page.replace(f"<p>{_FIGURE}</p>", f"<figure class=\"rt-arena\">{svg}</figure>" if svg else "", 1)
    # an interval or a rank set never breaks inside a cell; the names (the first two columns: tier and model,
    # pair and diff) may, so that a table of long names still fits the page
    return page.replace("</style>", "td{white-space:nowrap}td:nth-child(-n+2){white-space:normal}</style>", 1)


#: one row per model, full precision
CSV_COLUMNS = ("model", "rating", "se", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "tier",
               "overlap_rank_low", "overlap_rank_high", "n_battles")


@renderer("ranktrust.preference._result:ArenaResult", "csv")
def arena_csv(d: dict[str, Any]) -> str:
    cols = list(CSV_COLUMNS)
    if d.get("baseline"):
        cols += ["win_rate", "win_rate_ci_low", "win_rate_ci_high", "n_vs_baseline"]
    if d.get("style"):
        cols += ["rating_raw", "rank_raw"]
    own = ("win_rate", "win_rate_ci_low", "win_rate_ci_high")     # the baseline's: empty (BASELINE_CELLS)
    return table_csv(cols, ([None if c in own and r["model"] == d.get("baseline") else r.get(c) for c in cols]
                            for r in d["models"]))


__all__ = ["arena_headline", "method_sentence", "ties_sentence", "baseline_sentence", "gold_sentence",
           "adjusted_p"]
