"""Leaderboard figures: scores with intervals (forest), pairwise differences (heatmap), rank ranges."""

from __future__ import annotations

import math
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from .._fmt import p_clause, percent, points
from ._figure import figure_for
from ._style import (
    alpha_of,
    as_dict,
    label_size,
    model_figure,
    new_figure,
    num,
    pts,
    report_section,
    score_axis_limits,
    short,
    tier_colour,
    tip,
)

__all__ = ["forest", "pair_heatmap", "rank_ranges"]

@figure_for("ranktrust.stats._intervals:ScoreIntervals", slot="forest", trims=True)
def forest(result: Any, *, max_models: int | None = None, title: str | None = None) -> Figure:
    """Forest plot: each model's score with its confidence interval, coloured by tier.

    Parameters
    ----------
    result : result or dict
        Anything whose ``to_dict()`` has ``"models": [{"model", "score", "ci_low", "ci_high", ...}]``
        (``rt.intervals``, ``rt.report``); optional ``"tier"``/``"rank"`` per model.
    max_models : int, optional
        Draw only the first ``max_models`` rows (the list is in leaderboard order); the title says so.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One line artist per model (gid ``rt-forest-*``) from ``ci_low`` to ``ci_high`` with a dot at the score.
    """
    d = as_dict(result)
    rows, total, fig, ax = model_figure(list(d.get("models") or []), max_models, "the result has no `models`")
    n = len(rows)
    fs = label_size(n)
    top = rows[0]
    if top.get("ci_low") is not None and top.get("ci_high") is not None:
        ax.axvspan(pts(top["ci_low"]), pts(top["ci_high"]), color="#0072B2", alpha=0.08, lw=0, zorder=0)
    tiers_seen: dict[Any, str] = {}
    for i, r in enumerate(rows):
        y = n - 1 - i
        tier = r.get("tier")
        text = (f"{r['model']}: {points(r.get('score'))} "
                f"[{points(r.get('ci_low'))}, {points(r.get('ci_high'))}]")
        if r.get("rank") is not None:
            text += f"; rank {r['rank']}"
        if r.get("rank_low") is not None:
            text += f" (could be {r['rank_low']}–{r['rank_high']})"
        if tier is not None:
            text += f"; tier {tier}"
        if i % 2 == 0:
            band = ax.axhspan(y - 0.5, y + 0.5, color="#f2f2f2", lw=0, zorder=0.5)
            tip(fig, band, "row", text)
        colour = tier_colour(tier)
        (line,) = ax.plot([pts(r.get("ci_low")), pts(r.get("score")), pts(r.get("ci_high"))], [y, y, y],
                          color=colour, lw=1.8, marker="o", markevery=[1], ms=4.5, solid_capstyle="butt", zorder=3)
        tip(fig, line, "forest", text)
        if tier is not None and tier not in tiers_seen:
            tiers_seen[tier] = colour
            if i > 0:  # a new tier starts: separator line
                sep = ax.axhline(y + 0.5, color="#8a8a8a", lw=0.7, ls=(0, (2, 2)), zorder=1)
                sep.set_gid(f"rt-tiersep-{i}")
            ax.text(1.01, y, f"tier {tier}", transform=ax.get_yaxis_transform(), fontsize=fs - 1, color=colour,
                    va="center", ha="left", fontweight="bold")
    ax.set_yticks(range(n), [short(r["model"]) for r in reversed(rows)], fontsize=fs)
    ax.set_ylim(-0.7, n - 0.3)
    score_axis_limits(ax, [pts(r.get(k)) for r in rows for k in ("ci_low", "score", "ci_high")])
    ax.set_xlabel("score (points) with confidence interval")
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if title is None:
        title = "Scores with confidence intervals"
        if total > n:
            title += f" (top {n} of {total})"
    ax.set_title(title, fontsize=11, loc="left")
    return fig


def _matrix_from_pairs(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"models", "diff", "p_adjusted"}`` laid out from a list of pair records (missing pairs NaN)."""
    models: list[str] = []
    for p in pairs:
        for k in (p["a"], p["b"]):
            if k not in models:
                models.append(k)
    pos = {k: i for i, k in enumerate(models)}
    n = len(models)
    diff = np.full((n, n), np.nan)
    padj = np.full((n, n), np.nan)
    for p in pairs:
        i, j = pos[p["a"]], pos[p["b"]]
        d = num(p.get("diff"))
        diff[i, j], diff[j, i] = d, -d
        padj[i, j] = padj[j, i] = num(p.get("p_adjusted"))
    return {"models": models, "diff": diff.tolist(), "p_adjusted": padj.tolist()}


@figure_for("ranktrust.stats._paired:PairTable", slot="heatmap")
def pair_heatmap(result: Any, *, max_models: int = 60, annotate: bool | None = None) -> Figure:
    """Heatmap of pairwise score differences (row minus column, points) with significance marks.

    Parameters
    ----------
    result : result or dict
        A report (``"pair_matrix"``), a :class:`~ranktrust.stats._paired.PairTable` from
        ``rt.all_pairs(m)`` (rows and columns in score order), or the matrix itself:
        ``{"models", "diff", "p_adjusted"}``.
    max_models : int, default: ``60``
        Draw at most this many rows/columns (the first ones).
    annotate : bool, optional
        Write the difference in each cell; default when there are 12 models or fewer.

    Returns
    -------
    matplotlib.figure.Figure
        The marks (one scatter point per cell whose adjusted p-value is below ``1 - confidence_level``)
        are the ``PathCollection`` with gid ``rt-significant``.
    """
    from ...stats import PairTable

    if isinstance(result, PairTable):  # its matrices in score order: no statistics, a view
        o = list(result.order)
        d = {"pair_matrix": {"models": [result.models[k] for k in o],
                             "diff": result.matrix("diff")[np.ix_(o, o)].tolist(),
                             "p_adjusted": result.matrix("p_adjusted")[np.ix_(o, o)].tolist()},
             "settings": {"confidence_level": result.confidence_level}}
    else:
        d = as_dict(result)
        if "pair_matrix" not in d and "diff" not in d and isinstance(d.get("pairs"), list) and d["pairs"]:
            d = {**d, "pair_matrix": _matrix_from_pairs(d["pairs"])}  # PairTable.to_dict(): arrange, no statistics
    pm = report_section(d, "pair_matrix", "diff", "pair heatmap")
    alpha = alpha_of(d)
    models = list(pm["models"])[:max_models]
    n = len(models)
    diff = np.array([[pts(v) for v in row[:n]] for row in pm["diff"][:n]], dtype=float).reshape(n, n)
    padj = pm.get("p_adjusted")
    p = (np.array([[num(v) for v in row[:n]] for row in padj[:n]], dtype=float).reshape(n, n)
         if padj is not None else np.full((n, n), np.nan))
    side = max(4.5, 2.6 + 0.2 * n)
    fig = new_figure(side + 1.2, side)
    ax = fig.add_subplot()
    finite = diff[np.isfinite(diff)]
    vmax = float(np.max(np.abs(finite))) if finite.size else 1.0
    vmax = vmax if vmax > 0 else 1.0
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#e8e8e8")
    im = ax.imshow(np.ma.masked_invalid(diff), cmap=cmap, vmin=-vmax, vmax=vmax, aspect="equal",
                   interpolation="nearest")
    sig = np.isfinite(p) & (p < alpha)
    ys, xs = np.nonzero(sig)
    sc = ax.scatter(xs, ys, s=(14 if n <= 30 else 5), marker="o", facecolor="black", edgecolor="white", lw=0.4,
                    zorder=3)
    sc.set_gid("rt-significant")
    fs = label_size(n) if n <= 40 else 6.0
    labels = [short(m, 32) for m in models]
    ax.set_xticks(range(n), labels, rotation=90, fontsize=fs)
    ax.set_yticks(range(n), labels, fontsize=fs)
    ax.tick_params(length=0)
    if annotate is None:
        annotate = n <= 12
    if annotate:
        for i in range(n):
            for j in range(n):
                if math.isfinite(diff[i, j]):
                    ax.text(j, i + 0.32, f"{diff[i, j]:+.1f}", ha="center", va="center", fontsize=6.5,
                            color="white" if abs(diff[i, j]) > 0.6 * vmax else "black")
    if n <= 30:
        from matplotlib.patches import Rectangle

        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                rect = Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="white", alpha=0.0, lw=0)
                ax.add_patch(rect)
                pv = p[i, j]
                tip(fig, rect, "cell",
                     f"{models[i]} − {models[j]}: {diff[i, j]:+.2f} points"
                     + (f"; {p_clause(pv, 'adjusted p')}" if math.isfinite(pv) else ""))
    cb = fig.colorbar(im, ax=ax, shrink=0.6, pad=0.02)
    cb.set_label("row − column (points)")
    ax.set_title(f"Pairwise differences; ● adjusted p < {alpha:g}", fontsize=11, loc="left")
    return fig


@figure_for("ranktrust.ranking._ranksets:RankSets", slot="ranks", trims=True)
def rank_ranges(result: Any, *, max_models: int | None = None) -> Figure:
    """Rank ranges: for each model, the ranks it could hold (simultaneous set, and marginal if given).

    Parameters
    ----------
    result : result or dict
        ``rt.rank_sets`` (``"models": [{"model", "rank", "rank_low", "rank_high", "marginal_low",
        "marginal_high"}]``) or a report (uses ``"rank_sets"``, else the leaderboard's rank ranges).
    max_models : int, optional

    Returns
    -------
    matplotlib.figure.Figure
        One thick line per model (gid ``rt-rank-*``) from ``rank_low`` to ``rank_high``.
    """
    d = as_dict(result)
    src = d.get("rank_sets") or d
    rows, total, fig, ax = model_figure([r for r in src.get("models", []) if r.get("rank_low") is not None],
                                         max_models, "the result has no models with `rank_low`/`rank_high`")
    n = len(rows)
    has_marginal = any(r.get("marginal_low") is not None for r in rows)
    for i, r in enumerate(rows):
        y = n - 1 - i
        lo, hi = float(r["rank_low"]), float(r["rank_high"])
        text = f"{r['model']}: rank {r.get('rank')}, could be {r['rank_low']}–{r['rank_high']}"
        if i % 2 == 0:
            ax.axhspan(y - 0.5, y + 0.5, color="#f2f2f2", lw=0, zorder=0.5)
        (bar,) = ax.plot([lo - 0.35, hi + 0.35], [y, y], color="#56B4E9", lw=7 if n <= 60 else 4,
                         solid_capstyle="butt", zorder=2)
        if has_marginal and r.get("marginal_low") is not None:
            text += f" (one at a time: {r['marginal_low']}–{r['marginal_high']})"
            ax.plot([float(r["marginal_low"]) - 0.35, float(r["marginal_high"]) + 0.35], [y, y],
                    color="#0072B2", lw=2, solid_capstyle="butt", zorder=3)
        if r.get("rank") is not None:
            ax.plot([float(r["rank"])], [y], marker="|", ms=9, mew=2, color="black", zorder=4)
        tip(fig, bar, "rank", text)
    ax.set_yticks(range(n), [short(r["model"]) for r in reversed(rows)], fontsize=label_size(n))
    ax.set_ylim(-0.7, n - 0.3)
    max_rank = max(float(r["rank_high"]) for r in rows)
    ax.set_xlim(0.3, max_rank + 0.7)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("rank (1 = best)")
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="#56B4E9", lw=6), Line2D([], [], color="black", marker="|", lw=0, ms=9, mew=2)]
    labels = ["ranks it could hold (all models at once)", "observed rank"]
    if has_marginal:
        handles.insert(1, Line2D([], [], color="#0072B2", lw=2))
        labels.insert(1, "one model at a time")
    fig.legend(handles, labels, fontsize=8, loc="outside lower center", ncols=len(handles), frameon=False)
    cl = src.get("confidence_level") or (d.get("settings") or {}).get("confidence_level")
    title = "Rank ranges" + (f" ({percent(cl)} confidence)" if cl else "")
    if total > n:
        title += f", top {n} of {total}"
    ax.set_title(title, fontsize=11, loc="left")
    return fig

