"""Jupyter display of result objects (``_repr_html_``)."""

from __future__ import annotations

import html
from typing import Any


def _table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "<p>(empty)</p>"
    cols = list(rows[0].keys())
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in cols)
    body = []
    for r in rows:
        cells = []
        for c in cols:
            v = r.get(c)
            if isinstance(v, float):
                v = f"{v:.4g}"
            cells.append(f"<td>{html.escape(str(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def result_html(result: Any) -> str:
    """Render a result's ``to_dict()`` as HTML: lists of records become tables."""
    d = result.to_dict()
    parts = [f"<b>{html.escape(type(result).__name__)}</b>"]
    scalars = {k: v for k, v in d.items() if not isinstance(v, (list, dict))}
    if scalars:
        parts.append(_table([scalars]))
    for k, v in d.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            parts.append(f"<p>{html.escape(k)}</p>" + _table(v))
    return "\n".join(parts)
