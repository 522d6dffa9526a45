"""Jupyter display of result objects (``_repr_html_``).

Every result shows itself as its figure (inline SVG with hover tooltips) when there is one for its shape
(intervals -> forest plot, stability -> stability curve, rank sets -> rank ranges, power -> power curve,
MDAD -> MDAD curve, sensitivity -> condition spread), followed by its numbers as tables. The whole
leaderboard report shows as the HTML report in an isolated frame.
"""

from __future__ import annotations

import html
from typing import Any, Callable

MAX_ROWS = 50


def _cell(v: Any) -> str:
    if isinstance(v, float):
        v = f"{v:.4g}"
    elif isinstance(v, dict):
        v = ", ".join(f"{k}: {_cell(x)}" for k, x in v.items())
    elif isinstance(v, list):
        v = ", ".join(_cell(x) for x in v[:10]) + (" …" if len(v) > 10 else "")
    return html.escape(str(v))


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
        body.append("<tr>" + "".join(f"<td>{_cell(r.get(c))}</td>" for c in cols) + "</tr>")
    more = f"<p><i>{len(rows) - max_rows} more rows in to_dict()</i></p>" if len(rows) > max_rows else ""
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{more}"


def _figure_for(d: dict[str, Any]) -> Callable[..., Any] | None:
    from . import plots

    models = d.get("models")
    if isinstance(models, list) and models and isinstance(models[0], dict):
        first = models[0]
        if "conditions" in first:
            return plots.condition_spread
        if "between_item_var" in first:
            return plots.runs_vs_items
        if "ci_low" in first and "score" in first:
            return lambda x: plots.forest(x, max_models=MAX_ROWS)
        if "rank_low" in first:
            return lambda x: plots.rank_ranges(x, max_models=MAX_ROWS)
    if d.get("sizes"):
        return plots.stability_curve
    if d.get("mdad"):
        return plots.mdad_curve
    if isinstance(d.get("table"), list) and d["table"] and "items_needed" in d["table"][0]:
        return plots.power_curve
    if "diff" in d and "models" in d and isinstance(d.get("diff"), list):
        return plots.pair_heatmap
    return None


def figure_html(d: dict[str, Any]) -> str:
    """The result's figure as inline SVG, or '' when its shape has none (or it cannot be drawn)."""
    from .plots import figure_svg

    fn = _figure_for(d)
    if fn is None:
        return ""
    try:
        return figure_svg(fn(d), salt=f"nb{id(d)}")
    except (ValueError, TypeError, KeyError):
        return ""


def result_html(result: Any) -> str:
    """Render a result as HTML for Jupyter: its figure (if any), then its ``to_dict()`` as tables."""
    d = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    if "headline" in d and "models" in d and "settings" in d:  # the leaderboard report: the full page
        from .html import render_html

        from .render import meta

        page = render_html(d, meta("report", seed=(d.get("settings") or {}).get("seed")))
        return (f'<iframe srcdoc="{html.escape(page, quote=True)}" style="width:100%;height:900px;'
                f'border:1px solid #ddd" title="the ranktrust leaderboard report"></iframe>')
    parts = [f"<b>{html.escape(type(result).__name__)}</b>"]
    fig = figure_html(d)
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
