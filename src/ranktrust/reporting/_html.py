"""The self-contained HTML pages: the report's (:func:`report_page`) and every other command's
(:func:`markdown_page`).

``ranktrust.reporting.render_html(report, meta)`` (``renderers/_report.py``) turns a ``LeaderboardReport`` (or its ``to_dict()``) into one HTML file that
makes no network request: CSS and JavaScript are inlined from ``reporting/templates/``, figures are inline SVG
(with ``<title>`` hover tooltips), fonts are the system's. Nothing is computed here beyond formatting:
every number shown is a number of the JSON report, and the key DOM elements carry the exact JSON values
in ``data-*`` attributes (``data-score="0.7183..."``) so the page can be checked against the JSON.
"""

from __future__ import annotations

import html as _html
import json
import math
from functools import lru_cache
from importlib import resources
from typing import Any

from markupsafe import Markup

from ..errors import ArgumentError
from . import _fmt as fmt

__all__ = ["report_page", "markdown_page", "FOREST_MAX_MODELS", "REPORT_SECTIONS"]

#: Above this many models the forest and rank-range figures show the top ones (the table lists all).
FOREST_MAX_MODELS = 50
#: Embed the whole JSON report in the page when it is at most this many characters.
EMBED_JSON_MAX = 1_500_000
#: Show the full pair table (in a collapsed block) when there are at most this many pairs.
ALL_PAIRS_TABLE_MAX = 2_000


def _read_template_file(name: str) -> str:
    return resources.files("ranktrust.reporting").joinpath("templates", name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _env() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: _read_template_file(name)),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        finalize=_shown,
    )
    from ._fmt import (
        adjust_phrase,
        provenance_lines,
        rank_range,
        stability_title,
        tier_phrase,
    )

    env.filters.update(_filters(), tier_phrase=tier_phrase, stability_title=stability_title,
                       adjust_phrase=adjust_phrase, provenance_lines=provenance_lines, rank_range=rank_range)
    from . import plots   # matplotlib: only a page with figures needs it, not the JSON of a command

    env.globals.update(tier_colour=plots.tier_colour)
    return env


# --------------------------------------------------------------------------- formatting filters
# every number through reporting/_fmt.py with the digits fmt chooses (no filter takes a number of digits): the
# page prints each number exactly as the terminal and Markdown do

def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _js(x: Any) -> Markup:
    """The exact JSON text of a value (floats round-trip), for data-* attributes (escaped here, so the
    page's display rule for names, :func:`_shown`, leaves it exact)."""
    text = json.dumps(x, allow_nan=False, ensure_ascii=False) if not isinstance(x, float) or math.isfinite(x) \
        else "null"
    return Markup(_html.escape(text, quote=True))


def _exact(x: Any) -> Markup:
    """A name exactly as in the JSON, for a data-* attribute (not the displayed form)."""
    return Markup(_html.escape(str(x), quote=True))


def _shown(x: Any) -> Any:
    """Every value the page shows: a name or sentence with bidirectional or control characters shows them
    escaped, as the terminal does (``gpt\\u202e4``), so a right-to-left override cannot reverse what
    follows it; the data-* attributes (:func:`_js`, :func:`_exact`) keep the exact text."""
    if isinstance(x, str) and not isinstance(x, Markup):
        from .._text import display_name, needs_escaping

        return display_name(x) if needs_escaping(x) else x
    return x


def _filters() -> dict[str, Any]:
    from ._notes import note_text

    return {
        "pts": lambda x: fmt.points(x),                  # a score or bound in points: '74.40'
        "spts": lambda x: fmt.points(x, signed=True),    # a difference: '+1.85'
        "pct": lambda x: fmt.percent(x),                 # a setting or share as a whole percentage: '80%'
        "prob": fmt.probability,                         # a resampling share: '55.4%'
        "pval": fmt.p_value,
        "gap": fmt.gap_points,                           # a planned gap as typed: '2'
        "tau": lambda x: fmt.number(x, 2),
        "num": lambda x: fmt.value("", x),               # a count or other number: '12,032', '0.123'
        "js": _js,
        "exact": _exact,
        "note_text": note_text,
    }


# --------------------------------------------------------------------------- view model

def _figures(d: dict[str, Any], max_forest: int) -> dict[str, Markup | None]:
    """Every figure registered for the report (the ``figure`` entries of ``reporting/_registry.py``), keyed by its slot; None where the
    report lacks what the figure needs."""
    from . import plots

    figs: dict[str, Markup | None] = {}
    for spec in plots.report_figures():
        try:
            fig = spec(d, max_models=max_forest)
        except ValueError:  # the section is absent or lacks what the figure needs: show no figure
            figs[spec.slot] = None
            continue
        figs[spec.slot] = Markup(plots.figure_svg(fig, salt=spec.slot))
    return figs


#: The report's HTML partials: (id, navigation label or None, shown when). Each is templates/sections/<id>.html.j2;
#: the page shows them in the order of the sections that name them (``leaderboard.SECTIONS``). A partial of a new
#: section needs no entry here: it is shown when the section has data, with no navigation link.
REPORT_SECTIONS: tuple[tuple[str, str | None, Any], ...] = (
    ("headline", "Headline", lambda c: True),
    ("leaderboard", "Leaderboard", lambda c: True),
    ("pairs", "Pairs", lambda c: bool(c["pairs"] or c["d"].get("pair_matrix"))),
    ("ranks", "Rank ranges", lambda c: bool(c["figs"].get("ranks"))),
    ("stability", "Stability", lambda c: bool(c["st"])),
    ("power", "Questions needed", lambda c: bool(c["pw"])),
    ("microbench", "Micro-benchmarks", lambda c: bool(c["mb"])),
    ("repeats", "Repeats", lambda c: bool(c["rep"])),
    ("sensitivity", "Sensitivity", lambda c: bool(c["sens"])),
    ("notes", None, lambda c: bool(c["d"].get("notes") or c["d"].get("dropped"))),
    ("methods", "Methods", lambda c: True),
)


def _sections(ctx: dict[str, Any]) -> list[dict[str, Any]]:
    """The partials the page shows, in the order of the report's sections (``leaderboard.SECTIONS``: each names
    its partial), between the headline and the notes and methods."""
    from ..leaderboard import SECTIONS

    nav = {sid: (label, shown) for sid, label, shown in REPORT_SECTIONS}
    order = ["headline"]
    for s in sorted((s for s in SECTIONS if s.order is not None), key=lambda s: s.order):  # type: ignore[arg-type]
        if s.partial and s.partial not in order:
            order.append(s.partial)
            # a partial not listed above: no navigation entry, shown when its section has data
            nav.setdefault(s.partial, (None, lambda c, name=s.name: bool(c["d"].get(name))))
    order += ["notes", "methods"]
    return [{"id": sid, "nav": nav[sid][0]} for sid in order if sid in nav and nav[sid][1](ctx)]


def _context(d: dict[str, Any], meta: dict[str, Any], max_forest: int, words: dict[str, Any],
             extra: list[tuple[str, str]]) -> dict[str, Any]:
    ctx = {**_base_context(d, meta, max_forest), **words}
    # the report's parts under the short names the section partials use
    ctx.update(h=d.get("headline") or {}, st=d.get("stability"), pw=d.get("power"), mb=d.get("microbench"),
               rep=d.get("repeats"), sens=d.get("sensitivity"), rs=d.get("rank_sets"), sh=d.get("split_half"),
               tiers=d.get("tiers"))
    ctx["sections"] = _sections(ctx)
    # a section without a partial here (one added by a builder and its renderers only): its Markdown, as HTML
    for name, md in extra:
        at = next(i for i, sec in enumerate(ctx["sections"]) if sec["id"] in ("notes", "methods"))
        ctx["sections"].insert(at, {"id": "extra", "nav": None, "key": name, "html": Markup(markdown_html(md))})
    return ctx


def _base_context(d: dict[str, Any], meta: dict[str, Any], max_forest: int) -> dict[str, Any]:
    from ..leaderboard import display_pair_rows    # the report's one rule for the pairs it shows

    settings = d.get("settings") or {}
    cl = settings.get("confidence_level") or 0.95
    models = d.get("models") or []
    n_models = d.get("n_models") or len(models)
    figs = _figures(d, max_forest)
    mb = d.get("microbench") or {}

    pairs = d.get("pairs") or []
    rep = d.get("repeats") or {}
    pass_keys = sorted({k for r in rep.get("models") or [] for k in (r.get("pass_at") or {})},
                       key=lambda k: (len(str(k)), str(k)))
    sens = d.get("sensitivity") or {}
    cond_labels: list[str] = []
    for r in sens.get("models") or []:
        for c in r.get("conditions") or {}:
            if c not in cond_labels:
                cond_labels.append(c)
    topk = sorted({k for s in (d.get("stability") or {}).get("by_size") or [] for k in (s.get("p_topk_order") or {})},
                  key=lambda k: int(k) if str(k).isdigit() else 0)
    embed = None
    text = json.dumps({"meta": meta, **d}, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    if len(text) <= EMBED_JSON_MAX:
        # "<" escaped so no "</script>" can end the block early
        embed = Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
    title = d.get("title") or "Leaderboard"
    if title == d.get("source"):  # a path: show its file name
        title = str(title).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or title
    return {
        "title": title, "d": d, "meta": meta, "settings": settings, "cl": cl, "alpha": 1 - cl,
        "models": models, "n_models": n_models, "max_forest": max_forest, "figs": figs,
        "adjacent": display_pair_rows(d), "pairs": pairs, "show_all_pairs": d.get("pairs_scope") == "all"
        and len(pairs) <= ALL_PAIRS_TABLE_MAX, "pass_keys": pass_keys,
        "cond_labels": cond_labels, "topk": topk, "embed": embed,
        "out_of_order": fmt.out_of_order(models), "out_of_order_mark": fmt.OUT_OF_ORDER,
        "out_of_order_note": fmt.OUT_OF_ORDER_NOTE,
        "css": Markup(_read_template_file("report.css")), "js": Markup(_read_template_file("report.js")),
    }


def report_page(d: dict[str, Any], meta: dict[str, Any], *, max_forest: int, words: dict[str, Any],
                extra: list[tuple[str, str]]) -> str:
    """The report page of a report dict (with its sentences): ``words`` are the sentences the section partials
    show beside the numbers (``p_adj_family``, ``sh_lead``, ``recommendation``), ``extra`` the ``(name, Markdown)``
    of each section without a partial of its own. :func:`ranktrust.reporting.render_html` is the public entry."""
    if max_forest < 1:
        raise ArgumentError(f"`max_forest` must be a positive integer, got {max_forest}", param="max_forest")
    return _env().get_template("report.html.j2").render(**_context(d, dict(meta), max_forest, words, extra))


# --------------------------------------------------------------------------- every other command

def _md_inline(text: str) -> str:
    """Inline Markdown of ranktrust's own renderers to HTML: escapes, `code`, **bold**, <sub>."""
    import html as _html
    import re

    # undo the Markdown backslash escapes, keep the entities the renderer wrote for < and >
    raw = re.sub(r"\\([\\|*`])", r"\1", text)
    raw = raw.replace("&lt;", "<").replace("&gt;", ">")
    sub = re.fullmatch(r"<sub>(.*)</sub>", raw.strip())
    if sub:
        return "<sub>" + _md_inline(sub.group(1)) + "</sub>"
    out = _html.escape(raw, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)
    return out


def _split_row(line: str) -> list[str]:
    """The cells of a Markdown table row; an escaped ``\\|`` inside a cell does not split it."""
    import re

    row = line.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [c.strip() for c in re.split(r"(?<!\\)\|", row)]


def markdown_html(md: str) -> str:
    """The HTML of ranktrust's own Markdown (headings, tables, lists, code blocks, paragraphs): the body of
    :func:`markdown_page`, and of a report section that has Markdown renderers but no template partial."""
    import html as _html
    import re

    body: list[str] = []
    lines = md.splitlines()
    k = 0
    para: list[str] = []

    def flush() -> None:
        if para:
            body.append("<p>" + " ".join(_md_inline(x) for x in para) + "</p>")
            para.clear()

    while k < len(lines):
        line = lines[k]
        h = re.match(r"^(#{1,4}) (.*)$", line)
        if h:
            flush()
            n = len(h.group(1))
            body.append(f"<h{n}>{_md_inline(h.group(2))}</h{n}>")
        elif line.startswith("|") and k + 1 < len(lines) and re.match(r"^\|[-:| ]+\|$", lines[k + 1].strip()):
            flush()
            head = _split_row(line)
            aligns = ["right" if c.strip().endswith(":") else "left" for c in _split_row(lines[k + 1])]
            rows = []
            k += 2
            while k < len(lines) and lines[k].startswith("|"):
                rows.append(_split_row(lines[k]))
                k += 1
            t = ["<table><thead><tr>" + "".join(f"<th>{_md_inline(c)}</th>" for c in head) + "</tr></thead><tbody>"]
            for r in rows:
                t.append("<tr>" + "".join(
                    f'<td style="text-align:{aligns[i] if i < len(aligns) else "left"}">{_md_inline(c)}</td>'
                    for i, c in enumerate(r)) + "</tr>")
            t.append("</tbody></table>")
            body.append("".join(t))
            continue
        elif line.startswith("- "):
            flush()
            items = []
            while k < len(lines) and lines[k].startswith("- "):
                items.append(f"<li>{_md_inline(lines[k][2:])}</li>")
                k += 1
            body.append("<ul>" + "".join(items) + "</ul>")
            continue
        elif line.startswith("```"):
            flush()
            k += 1
            code = []
            while k < len(lines) and not lines[k].startswith("```"):
                code.append(lines[k])
                k += 1
            body.append("<pre>" + _html.escape("\n".join(code)) + "</pre>")
        elif not line.strip():
            flush()
        else:
            para.append(line)
        k += 1
    flush()
    return "\n".join(body)


def markdown_page(md: str, *, title: str, payload: dict[str, Any] | None = None,
                  meta: dict[str, Any] | None = None) -> str:
    """One self-contained HTML page with the content of a command's Markdown output.

    Every command's ``--format html`` (or ``--out FILE.html``) except ``report`` (which has its own
    page) goes through here, so all of them say the same thing in every format. The JSON payload is
    embedded (``<script type="application/json" id="ranktrust-data">``) when it is small enough.
    """
    import html as _html

    body = markdown_html(md)
    data = ""
    if payload is not None:
        text = json.dumps({"meta": meta or {}, **payload}, allow_nan=False, ensure_ascii=False)
        if len(text) <= EMBED_JSON_MAX:
            text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            data = f'<script type="application/json" id="ranktrust-data">{text}</script>'
    css = ("body{font:15px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
           "table{border-collapse:collapse;margin:1em 0;display:block;overflow-x:auto}"
           "th,td{border-bottom:1px solid #ddd;padding:.25em .6em;unicode-bidi:isolate}"
           "th{background:#f4f4f4}code{background:#f4f4f4;padding:0 .2em}sub{color:#666}")
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f'<meta name="generator" content="ranktrust {_html.escape(str((meta or {}).get("version", "")))}">'
            f"<title>{_html.escape(title)}</title><style>{css}</style></head><body>"
            + body + data + "</body></html>\n")
