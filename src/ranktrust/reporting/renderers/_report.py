"""The leaderboard report (LeaderboardReport) in every format: a loop over its sections.

Each section of :data:`SECTIONS` is drawn by the renderers registered for its type: the micro-benchmark,
repeats, sensitivity, stability and split-half sections by the very renderers of ``ranktrust microbench``,
``repeats``, ``sensitivity``, ``stability`` and ``split-half``; the parts only the report has (its headline,
leaderboard table, pair table, tiers, questions-needed table and notes) by the renderers below. The HTML page
is :mod:`ranktrust.reporting._html` (one template partial per section). A new section is its builder
(``@section(name)`` in ``leaderboard/_sections.py``) and its renderers (``@renderer(Type, fmt)``); a line in
:data:`SECTIONS` only to place it before the others or to draw it from more than its own JSON.
"""

from __future__ import annotations

from typing import Any, Callable

from .._fmt import count, gap_points, number, percent, plural, points
from .._headline import headline_sentence, report_dict
from .._html import FOREST_MAX_MODELS, report_page
from .._markdown import md_escape as _esc
from .._notes import note_text
from .._registry import LEADERBOARD_REPORT
from . import renderer, renderer_named
from ._csv import table_csv


class ReportHeadline:
    """The report's verdict block: a part of the report (not a result) with renderers of its own."""


class ReportNotes:
    """The report's notes: a part of the report (not a result) with renderers of its own."""


renderer(LEADERBOARD_REPORT, "headline")(headline_sentence)


@renderer(LEADERBOARD_REPORT, "html")
def render_html(report: Any, meta: dict[str, Any] | None = None, *, max_forest: int = FOREST_MAX_MODELS) -> str:
    """Render the leaderboard report as one self-contained HTML page.

    Parameters
    ----------
    report : LeaderboardReport or dict
        ``rt.report(m)`` or its ``to_dict()``. Sections that are absent or None are left out.
    meta : dict, optional
        The JSON ``meta`` block (``format, kind, version, seed, input_hash, command, created``), shown in the
        footer; default: a fresh one from :func:`ranktrust.reporting.meta`.
    max_forest : int, default: ``50``
        The forest and rank-range figures show at most this many models (the table shows all of them).

    Returns
    -------
    str
        The HTML document. It loads nothing from the network: styles, script and figures are inline.

    Examples
    --------
    >>> import ranktrust as rt
    >>> from ranktrust.reporting import render_html
    >>> page = render_html(rt.report(m), meta)       # doctest: +SKIP
    >>> open("report.html", "w").write(page)          # doctest: +SKIP
    """
    from ...errors import ArgumentError
    from .._meta import meta as make_meta
    from ._ranking import lead_phrase
    from ._scores import adjust_family_label
    from ._subsets import recommendation_sentences

    if not (isinstance(report, dict) or hasattr(report, "to_dict")):
        raise TypeError(f"`report` must be a LeaderboardReport or its to_dict(), got {type(report).__name__}")
    d = report_dict(report)                 # with the headline's and the notes' sentences
    if not isinstance(d.get("models"), list):
        raise ArgumentError("`report` has no `models` list: pass rt.report(...) or its to_dict()", param="report")
    if meta is None:
        meta = make_meta("report", seed=(d.get("settings") or {}).get("seed"))
    rec = (d.get("microbench") or {}).get("recommendation")
    words = {"p_adj_family": adjust_family_label(d), "sh_lead": lead_phrase(d["split_half"]) if d.get("split_half")
             else "", "recommendation": recommendation_sentences(rec) if rec else None}
    from ...leaderboard import SECTIONS

    partial = {s.name: s.partial for s in SECTIONS}   # a section without a partial shows its Markdown
    extra = [(s["name"], fn(d[s["name"]])) for s in d.get("sections") or []
             if partial.get(s["name"]) is None and d.get(s["name"])
             and (fn := renderer_named(s["type"], "md")) is not None]
    return report_page(d, meta, max_forest=max_forest, words=words, extra=extra)


def _own(d: dict[str, Any], key: str) -> Any:
    return d.get(key)


def _power(d: dict[str, Any], key: str) -> Any:
    return {**d["power"], "binary": d.get("binary", True)} if d.get("power") else None


def _models(d: dict[str, Any], key: str) -> dict[str, Any]:
    """The leaderboard table in the layout of ScoreIntervals (its rows carry rank, tier and rank range)."""
    s = d["settings"]
    return {"title": d["title"], "n_items": d["n_items"], "confidence_level": s["confidence_level"],
            "clustered": s.get("clustered"), "models": d["models"], "provenance": d.get("provenance"),
            "tiers_method": (d.get("tiers") or {}).get("method")}


def _pairs(d: dict[str, Any], key: str) -> dict[str, Any] | None:
    """The pair table in the layout of PairTable (p-values adjusted as the report's settings say)."""
    if not d.get("pairs"):
        return None
    return {"pairs": d["pairs"], "pairs_scope": d["pairs_scope"], "adjust_family": d.get("adjust_family"),
            "settings": d["settings"], "n_models": d["n_models"], "confidence_level": d["settings"]["confidence_level"]}


def _tiers(d: dict[str, Any], key: str) -> Any:
    return d.get("tiers") if d["n_models"] >= 2 else None


#: how the report dict gives a section its part, where the part is more than the JSON under the section's name
#: (a part that is empty or None leaves the section out)
PARTS: dict[str, Callable[[dict[str, Any], str], Any]] = {"intervals": _models, "pairs": _pairs, "tiers": _tiers,
                                                          "power": _power}


def known_sections() -> frozenset[str]:
    """The report's sections that the section spec (``leaderboard.SECTIONS``) places."""
    from ...leaderboard import SECTIONS

    return frozenset(s.name for s in SECTIONS)


#: a heading the terminal report puts above a section whose command's own text output has none
TEXT_HEADINGS = {"MDADResult": "Micro-benchmarks", "Repeats": "Repeats", "Sensitivity": "Conditions"}


def _sections(d: dict[str, Any], fmt: str) -> list[Any]:
    """Every section the report has, in page order: the headline, each section of the spec drawn on its own (in
    its ``order``, by the renderers of its type), any other section of the report (``d["sections"]``: name and
    type, e.g. one read back from a JSON file) from its own JSON, then the notes."""
    from ...leaderboard import SECTIONS

    types = {s["name"]: s["type"] for s in d.get("sections") or []}
    spec = sorted((s for s in SECTIONS if s.alone and s.order is not None), key=lambda s: s.order)  # type: ignore
    parts: list[tuple[Any, Any]] = [(ReportHeadline, d)]
    parts += [(s.type or types.get(s.name), PARTS.get(s.name, _own)(d, s.name)) for s in spec]
    known = known_sections()
    parts += [(t, d.get(name)) for name, t in types.items() if name not in known]
    out: list[Any] = []
    for kind, part in parts + [(ReportNotes, d)]:
        fn = renderer_named(kind, fmt) if kind else None
        if part and fn is not None:
            drawn = fn(part)
            if fmt == "text" and kind in TEXT_HEADINGS:
                from rich.text import Text

                drawn = [Text(TEXT_HEADINGS[kind], style="bold"), *drawn]
            out.append(drawn)
    return out


@renderer(LEADERBOARD_REPORT, "text")
def report_text(d: dict[str, Any]) -> list[Any]:
    """The terminal report: the verdict first, then every section the report has."""
    return [r for part in _sections(d, "text") for r in part]


@renderer(LEADERBOARD_REPORT, "md")
def report_markdown(d: dict[str, Any]) -> str:
    return f"# {_esc(d['title'])}\n\n" + "\n".join(part.rstrip("\n") + "\n" for part in _sections(d, "md"))


@renderer(LEADERBOARD_REPORT, "csv")
def report_csv(d: dict[str, Any]) -> str:
    """The leaderboard table: one row per model."""
    cols = ["rank", "model", "score", "ci_low", "ci_high", "n_items", "tier", "rank_low", "rank_high"]
    return table_csv(cols, ([r.get(c) for c in cols] for r in d["models"]))


# ---- headline ---------------------------------------------------------------------------------------------
@renderer(ReportHeadline, "text")
def headline_rich(d: dict[str, Any]) -> list[Any]:
    from rich.panel import Panel
    from rich.text import Text

    return [Panel(Text(headline_sentence(d)), title="Is #1 really #1?", expand=False)]


@renderer(ReportHeadline, "md")
def headline_markdown(d: dict[str, Any]) -> str:
    return f"**Is #1 really #1?** {_esc(headline_sentence(d))}\n"


# ---- questions needed (PowerSection) ----------------------------------------------------------------------
def at_n_sentence(pw: dict[str, Any]) -> str:
    """'At n = 500 items the detectable gap is ...'; says so when no gap is detectable at that n."""
    at = pw["at_n"]
    n = plural(at["n"], "item")
    g, q = at.get("detectable_gap"), pw.get("disagreement")
    if g is None:
        return f"At n = {n} the detectable gap is undefined."
    if g >= 1 or (q is not None and g > q and pw.get("binary", True)):
        return (f"At n = {n} no possible gap is detectable with {percent(pw.get('power', 0.8))} power (the formula "
                f"asks for {points(g)} points, more than two such models can differ by); a paired CI is "
                f"±{points(at['ci_half_width'])} points.")
    return (f"At n = {n} the detectable gap is {points(g)} points and a paired CI is "
            f"±{points(at['ci_half_width'])} points.")


def _power_title(pw: dict[str, Any]) -> str:
    return (f"q = {number(pw['disagreement'], 2)}: {pw.get('q_meaning', 'disagreement')}; "
            f"α = {pw['alpha']:g}, power {percent(pw['power'])}")


@renderer("ranktrust.leaderboard._sections:PowerSection", "text")
def power_rich(pw: dict[str, Any]) -> list[Any]:
    from rich.text import Text

    from ._scores import titled_table

    right = {"justify": "right"}
    return [*titled_table(f"Questions needed to detect a gap ({_power_title(pw)})",
                          {"gap (pts)": right, "items needed": right},
                          ((gap_points(row["gap"]), count(row["items_needed"])) for row in pw["table"])),
            Text(at_n_sentence(pw))]


@renderer("ranktrust.leaderboard._sections:PowerSection", "md")
def power_markdown(pw: dict[str, Any]) -> str:
    lines = [f"## Questions needed ({_power_title(pw)})", "", "| gap (pts) | items needed |", "|--:|--:|"]
    lines += [f"| {gap_points(row['gap'])} | {count(row['items_needed'])} |" for row in pw["table"]]
    return "\n".join(lines + ["", at_n_sentence(pw)]) + "\n"


# ---- notes ------------------------------------------------------------------------------------------------
@renderer(ReportNotes, "text")
def notes_rich(d: dict[str, Any]) -> list[Any]:
    from rich.text import Text

    return [Text(f"note: {note_text(n)}", style="yellow") for n in d.get("notes") or []]


@renderer(ReportNotes, "md")
def notes_markdown(d: dict[str, Any]) -> str:
    if not d.get("notes"):
        return ""
    return "\n".join(["## Notes", ""] + [f"- {_esc(note_text(n))}" for n in d["notes"]]) + "\n"
