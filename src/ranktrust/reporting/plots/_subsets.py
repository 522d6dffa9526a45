"""Micro-benchmark figures: MDAD against subset size, and pair-ordering agreement against the gap."""

from __future__ import annotations

import math
from typing import Any, Iterable

from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from .._fmt import gap_points, percent, points
from ._figure import figure_for
from ._style import (
    MARKERS,
    OKABE_ITO,
    NothingToPlot,
    as_dict,
    by_method,
    new_figure,
    num,
    plain_log_axis,
    pts,
    section_rows,
    tip,
)

__all__ = ["mdad_curve", "agreement_curve"]

@figure_for("ranktrust.subsets._mdad:MDADResult", slot="mdad")
def mdad_curve(result: Any) -> Figure:
    """MDAD (minimum detectable ability difference) against micro-benchmark size, one line per method.

    Parameters
    ----------
    result : result or dict
        ``rt.mdad`` / a report's ``"microbench"``: ``{"mdad": [{"method", "size", "mdad", "ci_low", "ci_high"}]}``.

    Returns
    -------
    matplotlib.figure.Figure
        One errorbar container per method (gid ``rt-method-*`` on its line).

    References
    ----------
    .. [1] "How Reliable is Language Model Micro-Benchmarking?", ICLR 2026.
    """
    d = as_dict(result)
    rows = section_rows(d, "microbench", "mdad", "MDAD curve")
    fig = new_figure(7.5, 4.4)
    ax = fig.add_subplot()
    for idx, (method, rs) in enumerate(by_method(rows).items()):
        rs = sorted(rs, key=lambda r: r["size"])
        xs = [r["size"] for r in rs]
        ys = [pts(r.get("mdad")) for r in rs]
        lo = [max(0.0, y - pts(r.get("ci_low"))) if r.get("ci_low") is not None else 0.0 for y, r in zip(ys, rs)]
        hi = [max(0.0, pts(r.get("ci_high")) - y) if r.get("ci_high") is not None else 0.0 for y, r in zip(ys, rs)]
        cont = ax.errorbar(xs, ys, yerr=[lo, hi], color=OKABE_ITO[idx % 7], marker=MARKERS[idx % len(MARKERS)],
                           ms=5, lw=1.6, capsize=3, label=method)
        tip(fig, cont.lines[0], "method", f"{method}: " + ", ".join(
            f"{r['size']} items → {points(r.get('mdad'))} pts" for r in rs if r.get("mdad") is not None))
    ax.set_xscale("log")
    plain_log_axis(ax.xaxis, [r["size"] for r in rows])
    ax.set_xlabel("micro-benchmark size (items)")
    ax.set_ylabel("MDAD (points)")
    ax.grid(which="both", color="#eeeeee", lw=0.6)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    ax.legend(fontsize=8)
    ax.set_title("Smallest gap a micro-benchmark orders correctly (MDAD)", fontsize=11, loc="left")
    return fig


@figure_for("ranktrust.subsets._mdad:MDADResult", slot="agreement")
def agreement_curve(result: Any, *, sizes: Iterable[int] | None = None, threshold: float | None = None,
                    min_pairs: int = 10) -> Figure:
    """Share of model pairs ordered as on the full benchmark, by full-benchmark gap; one panel per size.

    Parameters
    ----------
    result : result or dict
        ``{"agreement": [{"method", "size", "delta_bin", "agreement", "pairs"}]}`` or a report's
        ``"microbench"``; ``delta_bin`` is a fraction.
    sizes : iterable of int, optional
        Panels to draw; default every size present (at most 8, smallest first).
    threshold : float, optional
        The agreement level that defines MDAD (drawn as a dashed line); default the result's
        ``settings.agreement_level``, else 0.8.
    min_pairs : int, default: ``10``
        Bins with fewer pairs are not drawn (their agreement is too noisy to read).

    Returns
    -------
    matplotlib.figure.Figure
        One axes per size, one line per method in each.
    """
    d = as_dict(result)
    rows = section_rows(d, "microbench", "agreement", "agreement curve")
    if threshold is None:
        src = d.get("microbench") if isinstance(d.get("microbench"), dict) else d
        threshold = float((src.get("settings") or {}).get("agreement_level") or 0.8)
    rows = [r for r in rows if r.get("pairs") is None or r["pairs"] >= min_pairs]
    if not rows:
        raise NothingToPlot(
            f"nothing to plot: no |Δ| bin has `min_pairs`={min_pairs} target pairs; use more target models "
            "(fewer source models) or a lower `min_pairs`"
        )
    all_sizes = sorted({r["size"] for r in rows})
    chosen = [s for s in all_sizes if sizes is None or s in set(sizes)][:8]
    if not chosen:
        raise NothingToPlot(f"nothing to plot: none of `sizes` is in the result (sizes present: {all_sizes})")
    ncol = min(4, len(chosen))
    nrow = math.ceil(len(chosen) / ncol)
    fig = new_figure(3.0 * ncol + 0.6, 2.6 * nrow + 0.6)
    axes = fig.subplots(nrow, ncol, squeeze=False, sharey=True)
    methods = list(by_method(rows))
    for k, size in enumerate(chosen):
        ax = axes[k // ncol][k % ncol]
        for idx, method in enumerate(methods):
            rs = sorted((r for r in rows if r["size"] == size and str(r.get("method")) == method),
                        key=lambda r: r["delta_bin"])
            if not rs:
                continue
            (line,) = ax.plot([pts(r["delta_bin"]) for r in rs], [num(r.get("agreement")) for r in rs],
                              color=OKABE_ITO[idx % 7], marker=MARKERS[idx % len(MARKERS)],
                              ms=3.5 if len(rs) <= 20 else 2.0, lw=1.4, label=method)
            tip(fig, line, "agree", f"{method}, {size} items: " + ", ".join(
                f"Δ {gap_points(r['delta_bin'])}: {percent(r.get('agreement'))} of {r.get('pairs')} pairs" for r in rs))
        ax.axhline(threshold, color="#777777", ls="--", lw=1)
        ax.set_title(f"{size} items", fontsize=9, loc="left")
        ax.set_ylim(0, 1.02)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.grid(color="#eeeeee", lw=0.6)
        for s in ("top", "right"):
            ax.spines[s].set_visible(False)
    for k in range(len(chosen), nrow * ncol):
        axes[k // ncol][k % ncol].set_visible(False)
    fig.supxlabel("full-benchmark gap between the two models (points)", fontsize=9)
    fig.supylabel("pairs ordered correctly", fontsize=9)
    axes[0][0].legend(fontsize=7, loc="lower right")
    fig.suptitle(f"Pair ordering agreement ({percent(threshold)} line defines MDAD)", fontsize=11, x=0.02,
                 ha="left")
    return fig

