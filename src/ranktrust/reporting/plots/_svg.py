"""Figures out: inline SVG with hover tooltips (the HTML report, notebooks) and files (``--plots``)."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path
from typing import Any, Iterable

import matplotlib
from matplotlib.figure import Figure

from ..._text import display_name
from ...errors import ArgumentError
from ._figure import figures_for, report_figures
from ._style import NothingToPlot, as_dict, glyph_fallback, say_missing_once

__all__ = ["figure_svg", "save_figures"]

_ID_RE = re.compile(r'\sid="([^"]+)"')


def figure_svg(fig: Figure, *, salt: str = "fig") -> str:
    """The figure as an inline ``<svg>`` element (no XML prolog), with hover tooltips.

    Every artist registered in ``fig.rt_tooltips`` gets a ``<title>`` child, which browsers show on hover.
    Element ids that nothing references are dropped, and the others are unique per ``salt``, so several
    figures can share one HTML page. Text stays text (``svg.fonttype = "none"``).
    """
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": f"rt-{salt}"}), glyph_fallback(fig):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    s = buf.getvalue()
    s = s[s.index("<svg"):]
    s = re.sub(r"<metadata>.*?</metadata>\s*", "", s, flags=re.S)
    tips: dict[str, str] = getattr(fig, "rt_tooltips", {})
    referenced = set(re.findall(r"#([^\s\"')]+)", s))

    def _keep(m: re.Match[str]) -> str:
        i = m.group(1)
        if i in tips or i in referenced:
            return m.group(0)
        return ""

    s = _ID_RE.sub(_keep, s)
    for gid, text in tips.items():
        s = s.replace(f'<g id="{gid}">', f'<g id="{gid}" class="rt-tip"><title>{html.escape(display_name(text))}</title>',
                      1)
    mw = re.search(r'width="([\d.]+)pt"', s)
    style = f' style="max-width:{float(mw.group(1)) * 4 / 3:.0f}px"' if mw else ""
    s = re.sub(r'\swidth="[\d.]+pt" height="[\d.]+pt"', f' class="rt-fig" role="img"{style}', s, count=1)
    return s


def save_figures(result: Any, directory: str | Path, formats: Iterable[str] = ("png", "svg"), *,
                 dpi: int = 150) -> list[Path]:
    """Write every figure the result has data for, as ``<directory>/<name>.<format>``.

    The figures are the ones registered for the result's type (the ``figure`` entries of ``reporting/_registry.py``); a dict is read
    as a report's ``to_dict()``. A figure whose section is absent or empty is skipped, and a result with
    no figure writes nothing.

    Parameters
    ----------
    result : LeaderboardReport, a result with figures, or dict
        ``rt.report(...)`` or its ``to_dict()``; or e.g. ``rt.stability(m)``.
    directory : str or Path
        Created if missing.
    formats : iterable of str, default: ``("png", "svg")``
        Any format matplotlib writes (png, svg, pdf).
    dpi : int, default: ``150``
        Resolution of raster formats.

    Returns
    -------
    list of Path
        The files written, in a fixed order (for a report: forest, pair_heatmap, rank_ranges,
        stability_curve, power_curve, mdad_curve, agreement_curve, condition_spread, runs_vs_items).
    """
    formats = tuple(formats)
    bad = [f for f in formats if f not in ("png", "svg", "pdf")]
    if bad:
        raise ArgumentError(f"`formats` must be among 'png', 'svg', 'pdf', got {bad!r}", param="formats")
    specs = report_figures() if isinstance(result, dict) else figures_for(result)
    d = as_dict(result)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    missing: set[str] = set()
    for spec in specs:
        try:
            fig = spec(d)
        except NothingToPlot:
            continue
        for fmt in formats:
            p = out / f"{spec.name}.{fmt}"
            with matplotlib.rc_context({"svg.hashsalt": f"rt-{spec.name}"}), glyph_fallback(fig) as fonts:
                fig.savefig(p, format=fmt, dpi=dpi, metadata={"Date": None} if fmt == "svg" else None)
            if fonts.missing and fmt != "svg":
                missing |= fonts.missing
            paths.append(p)
    if missing:
        say_missing_once(missing)
    return paths
