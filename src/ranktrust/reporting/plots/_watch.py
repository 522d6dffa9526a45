"""The watch figure: each decision's confidence sequence against the items scored, with the item where it was
certified marked (the ``ranktrust watch --html`` page draws one per decision)."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

from .._fmt import count, level
from ._figure import figure_for
from ._style import NothingToPlot, as_dict, new_figure, short, tip

__all__ = ["WATCH_STATUS", "decision_bands"]

#: the result class the figure draws (with the bands added to its dict)
WATCH_STATUS = "ranktrust.sequential._status:WatchStatus"

#: at most this many points per band are drawn (the sequence is evaluated after every item)
_MAX_POINTS = 400


@figure_for(WATCH_STATUS, slot="bands", report=False)
def decision_bands(result: Any, *, titles: bool = True) -> Figure:
    """Each decision's confidence band (points) against the items scored, one panel per decision.

    Parameters
    ----------
    result : dict
        A status's ``to_dict()`` with the key ``"bands"`` added: ``Watch.bands()`` (the bands are not part of
        the status: they are drawn from the watch itself).
    titles : bool, default: ``True``
        Whether each panel carries its title (the pair, the level, the method); the watch HTML page puts that
        title in the figure's caption instead, once.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per band: the band (shaded), the running difference (line), zero (dashed) and the item at
        which the decision was certified (red line, labelled).
    """
    d = as_dict(result)
    bands = [b for b in d.get("bands") or [] if len(b.get("t", ()))]
    if not bands:
        raise NothingToPlot("nothing to plot: no decisions to show yet (pass the status with Watch.bands())")
    fig = new_figure(7.0, 1.9 * len(bands))
    axes = fig.subplots(len(bands), 1, squeeze=False)[:, 0]
    for ax, b in zip(axes, bands):
        _band(fig, ax, b, titles)
    return fig


def _band(fig: Figure, ax: Any, b: dict[str, Any], titles: bool = True) -> None:
    t = np.asarray(b["t"], dtype=float)
    lo, hi, est = (np.asarray(b[k], dtype=float) * 100 for k in ("low", "high", "estimate"))
    keep = np.unique(np.linspace(0, t.size - 1, min(t.size, _MAX_POINTS)).round().astype(int))
    t, lo, hi, est = t[keep], lo[keep], hi[keep], est[keep]
    # the first items give bands as wide as the scale: frame the part where they have narrowed
    ymin = float(min(np.nanpercentile(lo, 15), np.nanmin(est), 0.0))
    ymax = float(max(np.nanpercentile(hi, 85), np.nanmax(est), 0.0))
    pad = 0.05 * max(ymax - ymin, 1e-9)
    ax.fill_between(t, np.clip(lo, ymin, ymax), np.clip(hi, ymin, ymax), color="#9ecae1", alpha=0.6, lw=0)
    line, = ax.plot(t, est, color="#08519c", lw=1.2)
    tip(fig, line, "band", f"{b['a']} − {b['b']}: running difference and its {level(b['level'])} band")
    ax.axhline(0.0, color="#555555", lw=0.8, ls=(0, (4, 3)))
    at = b.get("at_item")
    if at:
        ax.axvline(at, color="#d62728", lw=1.5)
        right = at > 0.6 * float(max(t.max(), 1.0))   # near the right edge the label goes left of the line
        ax.text(at, 0.97, f" certified at item {count(int(at))}" if not right else f"certified at item {count(int(at))} ",
                transform=ax.get_xaxis_transform(), ha="right" if right else "left", va="top", fontsize=8,
                color="#d62728")
    ax.set_ylim(ymin - pad, ymax + pad)
    ax.set_xlim(0, float(max(t.max(), 1.0)))
    ax.set_ylabel("points", fontsize=8)
    if titles:
        ax.set_title(f"{short(b['a'])} − {short(b['b'])}: {level(b['level'])} confidence sequence ({b['method']})",
                     fontsize=9, loc="left")
    ax.tick_params(labelsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.set_xlabel("items scored", fontsize=8)
