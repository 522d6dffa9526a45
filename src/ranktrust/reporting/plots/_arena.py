"""The arena figure: each model's rating with its interval, coloured by tier, its simultaneous rank set
written beside it and LMArena's overlap-rule set for comparison."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from .._fmt import level, number, rank_range
from ._figure import figure_for
from ._style import as_dict, label_size, model_figure, num, short, tier_colour, tip

__all__ = ["arena_ratings"]


@figure_for("ranktrust.preference._result:ArenaResult", slot="arena", trims=True, report=False)
def arena_ratings(result: Any, *, max_models: int | None = 40) -> Figure:
    """Ratings (Elo) with their marginal intervals, in display order, coloured by tier; the text at the right
    is the simultaneous rank set and, in grey, the overlap rule's (marginal, not simultaneous).

    Parameters
    ----------
    result : ArenaResult or its dict
    max_models : int, optional
        Draw only the first models of the display order (default 40; None: all).

    Returns
    -------
    matplotlib.figure.Figure
        One errorbar per model (gid ``rt-model-*``).
    """
    d = as_dict(result)
    rows, total, fig, ax = model_figure(list(d.get("models") or []), max_models, "the arena result has no models")
    n = len(rows)
    ys = list(range(n))[::-1]
    lo = min(num(r["ci_low"]) for r in rows)
    hi = max(num(r["ci_high"]) for r in rows)
    for y, r in zip(ys, rows):
        c = tier_colour(r.get("tier"))
        x = num(r["rating"])
        eb = ax.errorbar([x], [y], xerr=[[x - num(r["ci_low"])], [num(r["ci_high"]) - x]], fmt="o", color=c,
                         ms=4, capsize=2, lw=1.4)
        iv = f"{number(x, 1)} [{number(num(r['ci_low']), 1)}, {number(num(r['ci_high']), 1)}]"
        tip(fig, eb.lines[0], "model", f"{r['model']}: {iv}, "
                                       f"rank set {rank_range(r['rank_low'], r['rank_high'])}, overlap rule "
                                       f"{rank_range(r['overlap_rank_low'], r['overlap_rank_high'])}")
        ax.text(1.01, y, rank_range(r["rank_low"], r["rank_high"]), transform=ax.get_yaxis_transform(),
                va="center", fontsize=label_size(n), color=c)
        ax.text(1.14, y, rank_range(r["overlap_rank_low"], r["overlap_rank_high"]),
                transform=ax.get_yaxis_transform(), va="center", fontsize=label_size(n), color="#888888")
    ax.set_yticks(ys, [short(r["model"]) for r in rows], fontsize=label_size(n))
    pad = 0.05 * (hi - lo or 1.0)
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("rating (Elo scale; board mean 1000)")
    more = f" (top {n} of {total})" if total > n else ""
    ax.set_title(f"Ratings with {level(d['confidence_level'])} intervals{more}; right: simultaneous rank set, "
                 "overlap rule (grey)", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return fig
