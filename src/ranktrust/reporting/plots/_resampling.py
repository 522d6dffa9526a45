"""Figures of benchmark size: rank stability against size, and the items needed to detect a gap."""

from __future__ import annotations

import math
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from .._fmt import percent
from ._figure import figure_for
from ._style import (
    MARKERS,
    OKABE_ITO,
    NothingToPlot,
    PlainLogFormatter,
    as_dict,
    new_figure,
    num,
    plain_log_axis,
    pts,
    report_section,
    short,
    tip,
)

__all__ = ["stability_curve", "power_curve"]

def _familiar_sizes() -> dict[str, int]:
    from ...ranking import FAMILIAR_SIZES  # defined once, by the analysis whose JSON carries it

    return FAMILIAR_SIZES


@figure_for("ranktrust.ranking._stability:Stability", slot="stability")
def stability_curve(result: Any, *, familiar_sizes: dict[str, int] | None = None) -> Figure:
    """P(#1 stays #1) and P(top-k keep their order) against benchmark size.

    Parameters
    ----------
    result : result or dict
        ``rt.stability`` (``"by_size": [{"n", "p_top_stays_top", "p_topk_order": {"2": .., "3": ..}}]``)
        or a report (uses ``"stability"``).
    familiar_sizes : dict, optional
        Sizes to mark with a dashed line; default the result's ``familiar_sizes``, else
        :data:`ranktrust.ranking._stability.FAMILIAR_SIZES` (AIME 30, HumanEval 164, SWE-bench Verified 500).

    Returns
    -------
    matplotlib.figure.Figure
        One line per series (gid ``rt-series-*``) and one vertical mark per familiar size
        (gid ``rt-familiar-*``).
    """
    d = as_dict(result)
    st = report_section(d, "stability", "by_size", "stability curve")
    sizes = sorted(st.get("by_size", []), key=lambda s: s["n"])
    if not sizes:
        raise NothingToPlot("nothing to plot: the stability result has no `by_size` rows")
    marks = familiar_sizes if familiar_sizes is not None else (st.get("familiar_sizes") or _familiar_sizes())
    ns = [s["n"] for s in sizes]
    series: list[tuple[str, list[float]]] = [("P(#1 stays #1)", [num(s.get("p_top_stays_top")) for s in sizes])]
    ks = sorted({k for s in sizes for k in (s.get("p_topk_order") or {})}, key=lambda k: int(k))
    for k in ks:
        series.append((f"P(top {k} keep their order)", [num((s.get("p_topk_order") or {}).get(k)) for s in sizes]))
    fig = new_figure(8.0, 4.6)
    ax = fig.add_subplot()
    for idx, (label, ys) in enumerate(series):
        colour, marker = OKABE_ITO[idx % 7], MARKERS[idx % len(MARKERS)]
        (line,) = ax.plot(ns, ys, color=colour, marker=marker, ms=5, lw=1.8, label=label)
        tip(fig, line, "series", label + ": " + ", ".join(
            f"n={n_}: {percent(y)}" for n_, y in zip(ns, ys) if math.isfinite(y)))
    lo, hi = min(ns), max(ns)
    full = [s for s in sizes if s.get("label") == "full"]
    n_items = full[0]["n"] if full else d.get("n_items")
    same_as: list[str] = []
    labels: list[tuple[float, str, str, str]] = []  # (x, text, colour, ha); "this benchmark" first
    for name, size in marks.items():
        vl = ax.axvline(size, color="#777777", ls="--", lw=1, zorder=0)
        tip(fig, vl, "familiar", f"{name}: {size} items")
        if bool(n_items) and abs(math.log(size / n_items)) < 0.15:  # its label would overlap "this benchmark"
            same_as.append(name)
            continue
        if lo / 1.5 <= size <= hi * 1.5:
            labels.append((float(size), f"{name}\n{size}", "#555555", "center"))
    if n_items:
        ax.axvline(n_items, color="#D55E00", lw=1.2, zorder=0)
        like = f" (≈ {', '.join(same_as)})" if same_as else ""
        labels.insert(0, (float(n_items), f"this benchmark{like}\n{n_items}", "#D55E00", "right"))
    if hi > 3 * max(lo, 1):
        ax.set_xscale("log")
        plain_log_axis(ax.xaxis, ns)
    levels = _place_size_labels(fig, ax, labels)
    ax.set_ylim(0, 1.02)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("benchmark size (items drawn with replacement)")
    ax.set_ylabel("probability")
    ax.grid(color="#e5e5e5", lw=0.6)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    ax.legend(fontsize=8, loc="best")
    top = st.get("top_model")
    ax.set_title("Does #1 stay #1 on a smaller benchmark?" + (f" (#1 = {short(top, 36)})" if top else ""),
                 fontsize=11, loc="left", pad=28 + _LABEL_STEP * max(levels - 1, 0))
    return fig


_LABEL_STEP = 22.0  # points between two rows of size labels above the stability curve


def _place_size_labels(fig: Figure, ax: Any, labels: list[tuple[float, str, str, str]], *,
                       max_levels: int = 2, gap: float = 0.01) -> int:
    """Write the size labels above ``ax`` so that none overlap; returns the number of rows used.

    The first label ("this benchmark") goes on the lowest row; each other label, from left to right,
    on the lowest row where it clears every label already there by ``gap`` (axes fraction). A label
    that fits on no row is left out (its dashed line keeps its tooltip). Widths are measured with the
    renderer in axes fractions, with a margin for the axes shrinking under the constrained layout.
    """
    if not labels:
        return 0
    renderer = fig.canvas.get_renderer()
    ax_w = ax.get_window_extent(renderer).width * 0.92
    xmin, xmax = ax.get_xlim()
    log = ax.get_xscale() == "log"

    def frac(x: float) -> float:
        if log:
            return (math.log(x) - math.log(xmin)) / (math.log(xmax) - math.log(xmin))
        return (x - xmin) / (xmax - xmin)

    placed: list[list[tuple[float, float]]] = [[] for _ in range(max_levels)]
    used = 0
    order = [labels[0]] + sorted(labels[1:], key=lambda t: t[0]) if labels[0][3] == "right" else \
        sorted(labels, key=lambda t: t[0])
    for x, text, colour, ha in order:
        probe = ax.text(0, 0, text, fontsize=7.5, linespacing=1.1)
        w = probe.get_window_extent(renderer).width / ax_w
        probe.remove()
        f = frac(x)
        span = (f - w, f) if ha == "right" else (f - w / 2, f + w / 2)
        for level in range(max_levels):
            if all(span[1] + gap <= a or b + gap <= span[0] for a, b in placed[level]):
                placed[level].append(span)
                used = max(used, level + 1)
                t = ax.annotate(text, xy=(x, 1.01), xycoords=ax.get_xaxis_transform(),
                                xytext=(0, _LABEL_STEP * level), textcoords="offset points", ha=ha, va="bottom",
                                fontsize=7.5, color=colour, linespacing=1.1, annotation_clip=False)
                t.set_gid(f"rt-sizelabel-{len(ax.texts)}")
                break
    return used


@figure_for("ranktrust.stats._power:PowerTable", slot="power")
def power_curve(result: Any) -> Figure:
    """Items needed to detect a gap between two models, for the observed disagreement rate.

    Parameters
    ----------
    result : result or dict
        ``rt.power`` / a report's ``"power"``: ``{"table": [{"gap", "items_needed"}], "disagreement", "alpha",
        "power", "at_n": {"n", "detectable_gap"}}``; gaps are fractions.

    Returns
    -------
    matplotlib.figure.Figure
        The curve is the line with gid ``rt-power``.
    """
    d = as_dict(result)
    pw = report_section(d, "power", "table", "power curve")
    table = [r for r in pw.get("table", []) if r.get("gap") is not None and r.get("items_needed") is not None]
    if not table:
        raise NothingToPlot("nothing to plot: the power result has no `table`")
    table.sort(key=lambda r: r["gap"])
    fig = new_figure(7.0, 4.2)
    ax = fig.add_subplot()
    xs = [pts(r["gap"]) for r in table]
    ys = [float(r["items_needed"]) for r in table]
    (line,) = ax.plot(xs, ys, color="#0072B2", marker="o", ms=5, lw=1.8)
    tip(fig, line, "power", "; ".join(f"{x:g} pts: {y:,.0f} items" for x, y in zip(xs, ys)))
    line.set_gid("rt-power")
    at = pw.get("at_n") or {}
    label = None
    if at.get("n"):
        ax.axhline(at["n"], color="#D55E00", lw=1.2, ls="--")
        label = f"this benchmark: {at['n']:,} items"
        if at.get("detectable_gap") is not None:
            gx = pts(at["detectable_gap"])
            ax.plot([gx], [at["n"]], marker="D", color="#D55E00", ms=6)
            label += f" detect gaps ≥ {gx:.2g} pts"
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax.xaxis, xs)
    from matplotlib.ticker import FuncFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
    ax.yaxis.set_minor_formatter(PlainLogFormatter(labelOnlyBase=False, minor_thresholds=(2, 0.4)))  # 400, not 4×10²
    if label is not None:
        # keep the label inside the axes: below the line when the line runs near the top
        y0, y1 = ax.get_ylim()
        near_top = (math.log(at["n"]) - math.log(y0)) / (math.log(y1) - math.log(y0)) > 0.85
        t = ax.annotate(label, xy=(1.0, at["n"]), xycoords=("axes fraction", "data"),
                        xytext=(-2, -3 if near_top else 3), textcoords="offset points", ha="right",
                        va="top" if near_top else "bottom", fontsize=8, color="#D55E00")
        t.set_gid("rt-power-label")
    ax.set_xlabel("gap to detect (points)")
    ax.set_ylabel("items needed")
    ax.grid(which="both", color="#eeeeee", lw=0.6)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    bits = []
    if pw.get("disagreement") is not None:
        bits.append(f"disagreement {percent(pw['disagreement'])}")
    if pw.get("alpha") is not None:
        bits.append(f"α = {pw['alpha']:g}")
    if pw.get("power") is not None:
        bits.append(f"power {percent(pw['power'])}")
    ax.set_title("Questions needed" + (f" ({', '.join(bits)})" if bits else ""), fontsize=11, loc="left")
    return fig

