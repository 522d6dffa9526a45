"""Jupyter display of result objects (``Result._repr_html_``).

Every result shows itself as its figure (inline SVG with hover tooltips) when one is registered for its
type (its ``figure`` entries in ``reporting/_registry.py``: intervals -> forest plot, stability -> stability curve, ...),
followed by its numbers as tables. The whole leaderboard report shows as the HTML report in an isolated
frame. Importing this module registers :func:`result_html` (Jupyter) and :func:`result_text` (``str(result)``,
``to_markdown()``, ``to_html()``, ``save()``) with ``ranktrust.results`` and the report's
wording (``str(report)``, ``report.verdict``: :func:`present`) with
``ranktrust.leaderboard._result`` (the first display or the first ``str(report)`` imports it), so the base
result type never imports the presentation layer; matplotlib and jinja load on the first display.
"""

from __future__ import annotations

import html
from typing import Any

from .. import results
from .. import leaderboard
from ._registry import LEADERBOARD_REPORT, REGISTRY
from ._headline import headline_text
from .renderers import headline_of, payload_of, renderer_for

MAX_ROWS = 50


def _cell(v: Any, key: str = "") -> str:
    """One value of a table, by its key through the one number rule (fmt.value: a score prints as in the
    terminal and the HTML report)."""
    from ._fmt import value

    if isinstance(v, dict):
        return ", ".join(f"{html.escape(str(k))}: {_cell(x, str(k))}" for k, x in v.items())
    if isinstance(v, list):
        return ", ".join(_cell(x, key) for x in v[:10]) + (" …" if len(v) > 10 else "")
    return html.escape(value(key, v))


def _table(rows: list[dict[str, Any]], max_rows: int = MAX_ROWS) -> str:
    if not rows:
        return "<p>(empty)</p>"
    cols: list[str] = []
    for r in rows[:max_rows]:
        for c in r:
            if c not in cols:
                cols.append(c)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in cols)
    body = []
    for r in rows[:max_rows]:
        body.append("<tr>" + "".join(f"<td>{_cell(r.get(c), c)}</td>" for c in cols) + "</tr>")
    more = f"<p><i>{len(rows) - max_rows} more rows in to_dict()</i></p>" if len(rows) > max_rows else ""
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{more}"


def figure_html(result: Any, d: dict[str, Any] | None = None) -> str:
    """The result's first registered figure as inline SVG; '' when its type has none (or it cannot be drawn).

    ``d`` is the result's ``to_dict()`` when the caller has it already (the figure draws from it).
    """
    from . import plots

    specs = plots.figures_for(result)
    if not specs:
        return ""
    data = result.to_dict() if d is None else d
    try:
        return plots.figure_svg(specs[0](data, max_models=MAX_ROWS), salt=f"nb{id(data)}")
    except (ValueError, TypeError, KeyError):
        return ""


def present(report: Any, what: str) -> str:
    """``str(report)`` (``what="text"``: the terminal report) and ``report.verdict`` (``"verdict"``)."""
    if what == "verdict":
        s = report.settings
        return headline_text(report._headline(), s.get("confidence_level", 0.95), adjust=s.get("adjust", "holm"),
                             n_pairs=s.get("n_pairs"))
    from .renderers import to_string

    return to_string(report, "text", kind="report")


def _report_page(result: Any) -> str:
    """The leaderboard report: the whole HTML report, in a frame."""
    from ._meta import meta
    from .renderers._report import render_html

    d = result.to_dict()
    page = render_html(d, meta("report", seed=(d.get("settings") or {}).get("seed")))
    return (f'<iframe srcdoc="{html.escape(page, quote=True)}" style="width:100%;height:900px;'
            f'border:1px solid #ddd" title="the ranktrust leaderboard report"></iframe>')


REGISTRY.add(LEADERBOARD_REPORT, "page", _report_page)    # shown as a page of its own, not figure and tables


def result_html(result: Any) -> str:
    """Render a result as HTML for Jupyter: its figure (if any), then its ``to_dict()`` as tables."""
    page = REGISTRY.first(result, "page")
    if page is not None:
        return page(result)
    d = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    parts = [f"<b>{html.escape(type(result).__name__)}</b>"]
    fig = figure_html(result, d)
    if fig:
        parts.append(f'<div style="max-width:800px">{fig}</div>')
    scalars = {k: v for k, v in d.items() if not isinstance(v, (list, dict))}
    if scalars:
        parts.append(_table([scalars]))
    for k, v in d.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            parts.append(f"<p>{html.escape(k)}</p>" + _table(v))
        elif isinstance(v, dict) and v and all(not isinstance(x, (list, dict)) for x in v.values()):
            parts.append(f"<p>{html.escape(k)}</p>" + _table([v]))
    return "\n".join(parts)


def result_text(result: Any, fmt: str) -> str | None:
    """``result`` in ``fmt`` (text, md, html, json, csv) as the command line writes it, in a Python user's words
    (``renderers.to_string``): what ``str(result)``, ``to_markdown()``, ``to_html()`` and ``save()`` give.
    None for text where no text renderer is registered for the result's type (``str`` is then its repr)."""
    from .renderers import renderer_for, to_string

    if fmt == "text" and renderer_for(result, "text") is None:
        return None
    kind = "report" if REGISTRY.first(result, "page") else None     # the leaderboard report's JSON kind, as its command's
    return to_string(result, fmt, kind=kind)


def result_payload(result: Any, layout: dict[str, Any]) -> dict[str, Any]:
    """``result.to_dict()``, which is what every command writes as JSON (less ``meta``): the ``layout`` with its
    sentences (:func:`~ranktrust.reporting.renderers.payload_of`) and, where the layout has no ``"headline"`` and
    a ``"headline"`` renderer is registered for the result's type, ``{"text": ...}`` first under ``"headline"``.
    So every command's JSON carries the one sentence ``result.headline["text"]`` holds, written here once for all
    of them rather than in each result's layout."""
    d = payload_of(result, layout)
    if "headline" not in d:
        words = renderer_for(result, "headline")
        if words is not None:
            d = {"headline": {"text": words(d)}, **d}
    return d


results.set_html_display(result_html)
results.set_format_display(result_text)                    # str(result), to_markdown(), to_html(), save()
results.set_payload_display(result_payload, headline_of)   # to_dict(), result.headline
leaderboard.set_presenter(present)     # str(report), report.verdict
