"""Plots: result in, matplotlib Figure out.

Every function takes a result object (anything with ``to_dict()``) or the dict itself, reads only the
documented JSON keys, and returns a :class:`matplotlib.figure.Figure`. No statistics happen here: the
numbers drawn are the numbers in the result. Figures are created without ``pyplot`` (Agg canvas), so
nothing is shown and no global figure state is kept.

>>> import ranktrust as rt
>>> fig = rt.plot.forest(rt.intervals(m))          # doctest: +SKIP
>>> fig.savefig("forest.png")                       # doctest: +SKIP

Each figure carries ``fig.rt_tooltips``: ``{gid: text}`` for the artists that get a hover tooltip when
the figure is written as inline SVG with :func:`figure_svg` (the HTML report does this).

References
----------
.. [1] Okabe, M. and Ito, K., "Color Universal Design (CUD): how to make figures and presentations that
   are friendly to colorblind people" (2008): the palette used here.
"""

from __future__ import annotations

import html
import io
import math
import re
from pathlib import Path
from typing import Any, Callable, Iterable

import matplotlib

matplotlib.use("Agg", force=False)

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import LogFormatter, PercentFormatter  # noqa: E402

__all__ = [
    "OKABE_ITO",
    "TIER_COLOURS",
    "FAMILIAR_SIZES",
    "forest",
    "pair_heatmap",
    "rank_ranges",
    "stability_curve",
    "power_curve",
    "mdad_curve",
    "agreement_curve",
    "condition_spread",
    "runs_vs_items",
    "figure_svg",
    "save_figures",
]

#: Okabe-Ito colour-blind-safe palette (blue first; yellow last because it is faint on white).
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: Benchmark sizes people know, marked on the stability curve.
FAMILIAR_SIZES = {"AIME": 30, "HumanEval": 164, "SWE-bench Verified": 500}
_MAX_LABEL = 42


# --------------------------------------------------------------------------- helpers

def _as_dict(result: Any) -> dict[str, Any]:
    if isinstance(result, dict):
        return result
    to_dict = getattr(result, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    raise TypeError(f"`result` must be a result object with to_dict() or a dict, got {type(result).__name__}")


def _section(d: dict[str, Any], key: str, marker: str, what: str) -> Any:
    """``d[key]`` when ``d`` is a whole report, else ``d`` itself when it holds ``marker``."""
    if isinstance(d.get(key), dict):
        return d[key]
    if marker in d:
        return d
    raise ValueError(f"nothing to plot: the result has no `{key}` section (or `{marker}` key) for the {what}")


def _num(x: Any) -> float:
    return float("nan") if x is None else float(x)


def _pts(x: Any) -> float:
    """A fraction as points (0.718 -> 71.8); None -> NaN."""
    return _num(x) * 100.0


def _fmt_pts(x: Any, nd: int = 1) -> str:
    v = _pts(x)
    return "n/a" if not math.isfinite(v) else f"{v:.{nd}f}"


def _short(name: Any, n: int = _MAX_LABEL) -> str:
    s = str(name)
    return s if len(s) <= n else s[: n - 1] + "…"


def _new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    fig.rt_tooltips = {}  # type: ignore[attr-defined]
    return fig


def _tip(fig: Figure, artist: Any, kind: str, text: str) -> None:
    tips: dict[str, str] = fig.rt_tooltips  # type: ignore[attr-defined]
    gid = f"rt-{kind}-{len(tips)}"
    artist.set_gid(gid)
    tips[gid] = text


def _row_height(n: int) -> float:
    return 0.24 if n <= 60 else 0.17


def _label_size(n: int) -> float:
    return 9.0 if n <= 60 else 7.0


#: Tier colours: Okabe-Ito without black (unreadable as text on dark backgrounds, and the tier label
#: is drawn in it) and without the faint yellow. Six colours in a cycle: adjacent tiers always differ;
#: tiers 1 and 7 share a colour, and the tier labels tell them apart.
TIER_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7")


def _tier_colour(tier: Any) -> str:
    if tier is None:
        return "#555555"
    return TIER_COLOURS[(int(tier) - 1) % len(TIER_COLOURS)]


def _score_axis_limits(ax: Any, values: Iterable[Any]) -> None:
    """Keep a score axis (points) within 0–100 and at least 2 points wide.

    Matplotlib pads the data range both ways, so a model at 0 (or 100) gives an axis past the bound,
    and an all-zero leaderboard gives an axis from -0.04 to 0.04. Scores are fractions shown as points,
    so nothing can lie outside 0–100: the view is widened to 2 points and shifted inside the bounds
    (a 2% margin keeps the dots off the spine).
    """
    vals = [v for v in (_num(x) for x in values) if math.isfinite(v)]
    if not vals or min(vals) < 0 or max(vals) > 100:
        return
    lo, hi = ax.get_xlim()
    span = max(hi - lo, 2.0)
    mid = (lo + hi) / 2
    lo, hi = mid - span / 2, mid + span / 2
    pad = 0.02 * span
    if lo < -pad:
        lo, hi = -pad, hi + (-pad - lo)
    if hi > 100 + pad:
        lo, hi = max(-pad, lo - (hi - 100 - pad)), 100 + pad
    ax.set_xlim(lo, hi)


def _plain_log_axis(axis: Any, values: Iterable[float]) -> None:
    """Log axis with plain-number tick labels (30, 100, 1,000) at the given values."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    vals = sorted({float(v) for v in values if v and math.isfinite(float(v)) and float(v) > 0})
    axis.set_major_locator(FixedLocator(vals))
    axis.set_minor_locator(NullLocator())
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}" if v >= 1 else f"{v:g}"))


class _PlainLogFormatter(LogFormatter):
    """Log-axis labels as plain numbers with thousands separators (2,000), on the ticks matplotlib picks."""

    def _num_to_string(self, x: float, vmin: float, vmax: float) -> str:
        return f"{x:,.0f}" if x >= 1 else f"{x:g}"


def _alpha_of(d: dict[str, Any], default: float = 0.05) -> float:
    cl = (d.get("settings") or {}).get("confidence_level") or d.get("confidence_level")
    return 1.0 - float(cl) if cl else default


# --------------------------------------------------------------------------- leaderboard

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
    d = _as_dict(result)
    rows, total, fig, ax = _model_figure(list(d.get("models") or []), max_models, "the result has no `models`")
    n = len(rows)
    fs = _label_size(n)
    top = rows[0]
    if top.get("ci_low") is not None and top.get("ci_high") is not None:
        ax.axvspan(_pts(top["ci_low"]), _pts(top["ci_high"]), color="#0072B2", alpha=0.08, lw=0, zorder=0)
    tiers_seen: dict[Any, str] = {}
    for i, r in enumerate(rows):
        y = n - 1 - i
        tier = r.get("tier")
        text = (f"{r['model']}: {_fmt_pts(r.get('score'))} "
                f"[{_fmt_pts(r.get('ci_low'))}, {_fmt_pts(r.get('ci_high'))}]")
        if r.get("rank") is not None:
            text += f"; rank {r['rank']}"
        if r.get("rank_low") is not None:
            text += f" (could be {r['rank_low']}–{r['rank_high']})"
        if tier is not None:
            text += f"; tier {tier}"
        if i % 2 == 0:
            band = ax.axhspan(y - 0.5, y + 0.5, color="#f2f2f2", lw=0, zorder=0.5)
            _tip(fig, band, "row", text)
        colour = _tier_colour(tier)
        (line,) = ax.plot([_pts(r.get("ci_low")), _pts(r.get("score")), _pts(r.get("ci_high"))], [y, y, y],
                          color=colour, lw=1.8, marker="o", markevery=[1], ms=4.5, solid_capstyle="butt", zorder=3)
        _tip(fig, line, "forest", text)
        if tier is not None and tier not in tiers_seen:
            tiers_seen[tier] = colour
            if i > 0:  # a new tier starts: separator line
                sep = ax.axhline(y + 0.5, color="#8a8a8a", lw=0.7, ls=(0, (2, 2)), zorder=1)
                sep.set_gid(f"rt-tiersep-{i}")
            ax.text(1.01, y, f"tier {tier}", transform=ax.get_yaxis_transform(), fontsize=fs - 1, color=colour,
                    va="center", ha="left", fontweight="bold")
    ax.set_yticks(range(n), [_short(r["model"]) for r in reversed(rows)], fontsize=fs)
    ax.set_ylim(-0.7, n - 0.3)
    _score_axis_limits(ax, [_pts(r.get(k)) for r in rows for k in ("ci_low", "score", "ci_high")])
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


def _take_rows(rows: list[dict[str, Any]], max_models: int | None, empty: str) -> tuple[list, int]:
    """The first ``max_models`` rows and their total; no rows is a one-line ValueError."""
    if not rows:
        raise ValueError(f"nothing to plot: {empty}")
    return (rows if max_models is None else rows[:max_models]), len(rows)


def _model_figure(rows: list[dict[str, Any]], max_models: int | None, empty: str) -> tuple[list, int, Figure, Any]:
    """The first ``max_models`` rows, their total, and a figure one row tall per model."""
    rows, total = _take_rows(rows, max_models, empty)
    fig = _new_figure(8.0, 1.3 + _row_height(len(rows)) * len(rows))
    return rows, total, fig, fig.add_subplot()


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
        d = _num(p.get("diff"))
        diff[i, j], diff[j, i] = d, -d
        padj[i, j] = padj[j, i] = _num(p.get("p_adjusted"))
    return {"models": models, "diff": diff.tolist(), "p_adjusted": padj.tolist()}


def pair_heatmap(result: Any, *, max_models: int = 60, annotate: bool | None = None) -> Figure:
    """Heatmap of pairwise score differences (row minus column, points) with significance marks.

    Parameters
    ----------
    result : result or dict
        A report (``"pair_matrix"``), a :class:`~ranktrust.stats.paired.PairTable` from
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
    if callable(getattr(result, "matrix", None)) and hasattr(result, "order"):  # a PairTable: no statistics, a view
        o = list(result.order)
        d = {"pair_matrix": {"models": [result.models[k] for k in o],
                             "diff": result.matrix("diff")[np.ix_(o, o)].tolist(),
                             "p_adjusted": result.matrix("p_adjusted")[np.ix_(o, o)].tolist()},
             "settings": {"confidence_level": result.confidence_level}}
    else:
        d = _as_dict(result)
        if "pair_matrix" not in d and "diff" not in d and isinstance(d.get("pairs"), list) and d["pairs"]:
            d = {**d, "pair_matrix": _matrix_from_pairs(d["pairs"])}  # PairTable.to_dict(): arrange, no statistics
    pm = _section(d, "pair_matrix", "diff", "pair heatmap")
    alpha = _alpha_of(d)
    models = list(pm["models"])[:max_models]
    n = len(models)
    diff = np.array([[_pts(v) for v in row[:n]] for row in pm["diff"][:n]], dtype=float).reshape(n, n)
    padj = pm.get("p_adjusted")
    p = (np.array([[_num(v) for v in row[:n]] for row in padj[:n]], dtype=float).reshape(n, n)
         if padj is not None else np.full((n, n), np.nan))
    side = max(4.5, 2.6 + 0.2 * n)
    fig = _new_figure(side + 1.2, side)
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
    fs = _label_size(n) if n <= 40 else 6.0
    labels = [_short(m, 32) for m in models]
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
                _tip(fig, rect, "cell",
                     f"{models[i]} − {models[j]}: {diff[i, j]:+.2f} points"
                     + (f"; adjusted p = {pv:.3g}" if math.isfinite(pv) else ""))
    cb = fig.colorbar(im, ax=ax, shrink=0.6, pad=0.02)
    cb.set_label("row − column (points)")
    ax.set_title(f"Pairwise differences; ● adjusted p < {alpha:g}", fontsize=11, loc="left")
    return fig


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
    d = _as_dict(result)
    src = d.get("rank_sets") or d
    rows, total, fig, ax = _model_figure([r for r in src.get("models", []) if r.get("rank_low") is not None],
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
        _tip(fig, bar, "rank", text)
    ax.set_yticks(range(n), [_short(r["model"]) for r in reversed(rows)], fontsize=_label_size(n))
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
    title = "Rank ranges" + (f" ({cl:.0%} confidence)" if cl else "")
    if total > n:
        title += f", top {n} of {total}"
    ax.set_title(title, fontsize=11, loc="left")
    return fig


# --------------------------------------------------------------------------- size and power

def stability_curve(result: Any, *, familiar_sizes: dict[str, int] | None = None) -> Figure:
    """P(#1 stays #1) and P(top-k keep their order) against benchmark size.

    Parameters
    ----------
    result : result or dict
        ``rt.stability`` (``"sizes": [{"n", "p_top_stays_top", "p_topk_order": {"2": .., "3": ..}}]``)
        or a report (uses ``"stability"``).
    familiar_sizes : dict, optional
        Sizes to mark with a dashed line; default the result's ``familiar_sizes`` or
        ``{"AIME": 30, "HumanEval": 164, "SWE-bench Verified": 500}``.

    Returns
    -------
    matplotlib.figure.Figure
        One line per series (gid ``rt-series-*``) and one vertical mark per familiar size
        (gid ``rt-familiar-*``).
    """
    d = _as_dict(result)
    st = _section(d, "stability", "sizes", "stability curve")
    sizes = sorted(st.get("sizes", []), key=lambda s: s["n"])
    if not sizes:
        raise ValueError("nothing to plot: the stability result has no `sizes`")
    marks = familiar_sizes if familiar_sizes is not None else (st.get("familiar_sizes") or FAMILIAR_SIZES)
    ns = [s["n"] for s in sizes]
    series: list[tuple[str, list[float]]] = [("P(#1 stays #1)", [_num(s.get("p_top_stays_top")) for s in sizes])]
    ks = sorted({k for s in sizes for k in (s.get("p_topk_order") or {})}, key=lambda k: int(k))
    for k in ks:
        series.append((f"P(top {k} keep their order)", [_num((s.get("p_topk_order") or {}).get(k)) for s in sizes]))
    fig = _new_figure(8.0, 4.6)
    ax = fig.add_subplot()
    for idx, (label, ys) in enumerate(series):
        colour, marker = OKABE_ITO[idx % 7], MARKERS[idx % len(MARKERS)]
        (line,) = ax.plot(ns, ys, color=colour, marker=marker, ms=5, lw=1.8, label=label)
        _tip(fig, line, "series", label + ": " + ", ".join(
            f"n={n_}: {y:.0%}" for n_, y in zip(ns, ys) if math.isfinite(y)))
    lo, hi = min(ns), max(ns)
    full = [s for s in sizes if s.get("label") == "full"]
    n_items = full[0]["n"] if full else d.get("n_items")
    same_as: list[str] = []
    labels: list[tuple[float, str, str, str]] = []  # (x, text, colour, ha); "this benchmark" first
    for name, size in marks.items():
        vl = ax.axvline(size, color="#777777", ls="--", lw=1, zorder=0)
        _tip(fig, vl, "familiar", f"{name}: {size} items")
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
        _plain_log_axis(ax.xaxis, ns)
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
    ax.set_title("Does #1 stay #1 on a smaller benchmark?" + (f" (#1 = {_short(top, 36)})" if top else ""),
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
    d = _as_dict(result)
    pw = _section(d, "power", "table", "power curve")
    table = [r for r in pw.get("table", []) if r.get("gap") is not None and r.get("items_needed") is not None]
    if not table:
        raise ValueError("nothing to plot: the power result has no `table`")
    table.sort(key=lambda r: r["gap"])
    fig = _new_figure(7.0, 4.2)
    ax = fig.add_subplot()
    xs = [_pts(r["gap"]) for r in table]
    ys = [float(r["items_needed"]) for r in table]
    (line,) = ax.plot(xs, ys, color="#0072B2", marker="o", ms=5, lw=1.8)
    _tip(fig, line, "power", "; ".join(f"{x:g} pts: {y:,.0f} items" for x, y in zip(xs, ys)))
    line.set_gid("rt-power")
    at = pw.get("at_n") or {}
    label = None
    if at.get("n"):
        ax.axhline(at["n"], color="#D55E00", lw=1.2, ls="--")
        label = f"this benchmark: {at['n']:,} items"
        if at.get("detectable_gap") is not None:
            gx = _pts(at["detectable_gap"])
            ax.plot([gx], [at["n"]], marker="D", color="#D55E00", ms=6)
            label += f" detect gaps ≥ {gx:.2g} pts"
    ax.set_xscale("log")
    ax.set_yscale("log")
    _plain_log_axis(ax.xaxis, xs)
    from matplotlib.ticker import FuncFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
    ax.yaxis.set_minor_formatter(_PlainLogFormatter(labelOnlyBase=False, minor_thresholds=(2, 0.4)))  # 400, not 4×10²
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
        bits.append(f"disagreement {pw['disagreement']:.0%}")
    if pw.get("alpha") is not None:
        bits.append(f"α = {pw['alpha']:g}")
    if pw.get("power") is not None:
        bits.append(f"power {pw['power']:.0%}")
    ax.set_title("Questions needed" + (f" ({', '.join(bits)})" if bits else ""), fontsize=11, loc="left")
    return fig


# --------------------------------------------------------------------------- micro-benchmarks

def _rows(d: dict[str, Any], section: str, key: str, what: str) -> list[dict[str, Any]]:
    src = d.get(section) if isinstance(d.get(section), dict) else d
    rows = src.get(key) if isinstance(src, dict) else None
    if not rows:
        raise ValueError(f"nothing to plot: the result has no `{key}` rows for the {what}")
    return list(rows)


def _by_method(rows: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(str(r.get("method")), []).append(r)
    return out


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
    d = _as_dict(result)
    rows = _rows(d, "microbench", "mdad", "MDAD curve")
    fig = _new_figure(7.5, 4.4)
    ax = fig.add_subplot()
    for idx, (method, rs) in enumerate(_by_method(rows).items()):
        rs = sorted(rs, key=lambda r: r["size"])
        xs = [r["size"] for r in rs]
        ys = [_pts(r.get("mdad")) for r in rs]
        lo = [max(0.0, y - _pts(r.get("ci_low"))) if r.get("ci_low") is not None else 0.0 for y, r in zip(ys, rs)]
        hi = [max(0.0, _pts(r.get("ci_high")) - y) if r.get("ci_high") is not None else 0.0 for y, r in zip(ys, rs)]
        cont = ax.errorbar(xs, ys, yerr=[lo, hi], color=OKABE_ITO[idx % 7], marker=MARKERS[idx % len(MARKERS)],
                           ms=5, lw=1.6, capsize=3, label=method)
        _tip(fig, cont.lines[0], "method", f"{method}: " + ", ".join(
            f"{x} items → {y:.1f} pts" for x, y in zip(xs, ys) if math.isfinite(y)))
    ax.set_xscale("log")
    _plain_log_axis(ax.xaxis, [r["size"] for r in rows])
    ax.set_xlabel("micro-benchmark size (items)")
    ax.set_ylabel("MDAD (points)")
    ax.grid(which="both", color="#eeeeee", lw=0.6)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    ax.legend(fontsize=8)
    ax.set_title("Smallest gap a micro-benchmark orders correctly (MDAD)", fontsize=11, loc="left")
    return fig


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
    d = _as_dict(result)
    rows = _rows(d, "microbench", "agreement", "agreement curve")
    if threshold is None:
        src = d.get("microbench") if isinstance(d.get("microbench"), dict) else d
        threshold = float((src.get("settings") or {}).get("agreement_level") or 0.8)
    rows = [r for r in rows if r.get("pairs") is None or r["pairs"] >= min_pairs]
    if not rows:
        raise ValueError(
            f"nothing to plot: no |Δ| bin has `min_pairs`={min_pairs} target pairs; use more target models "
            "(fewer source models) or a lower `min_pairs`"
        )
    all_sizes = sorted({r["size"] for r in rows})
    chosen = [s for s in all_sizes if sizes is None or s in set(sizes)][:8]
    if not chosen:
        raise ValueError(f"nothing to plot: none of `sizes` is in the result (sizes present: {all_sizes})")
    ncol = min(4, len(chosen))
    nrow = math.ceil(len(chosen) / ncol)
    fig = _new_figure(3.0 * ncol + 0.6, 2.6 * nrow + 0.6)
    axes = fig.subplots(nrow, ncol, squeeze=False, sharey=True)
    methods = list(_by_method(rows))
    for k, size in enumerate(chosen):
        ax = axes[k // ncol][k % ncol]
        for idx, method in enumerate(methods):
            rs = sorted((r for r in rows if r["size"] == size and str(r.get("method")) == method),
                        key=lambda r: r["delta_bin"])
            if not rs:
                continue
            (line,) = ax.plot([_pts(r["delta_bin"]) for r in rs], [_num(r.get("agreement")) for r in rs],
                              color=OKABE_ITO[idx % 7], marker=MARKERS[idx % len(MARKERS)],
                              ms=3.5 if len(rs) <= 20 else 2.0, lw=1.4, label=method)
            _tip(fig, line, "agree", f"{method}, {size} items: " + ", ".join(
                f"Δ {_pts(r['delta_bin']):.1f}: {_num(r.get('agreement')):.0%} of {r.get('pairs')} pairs" for r in rs))
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
    fig.suptitle(f"Pair ordering agreement ({threshold:.0%} line defines MDAD)", fontsize=11, x=0.02,
                 ha="left")
    return fig


# --------------------------------------------------------------------------- repeats and conditions

def condition_spread(result: Any, *, max_models: int | None = 60) -> Figure:
    """Each model's score under each condition (prompt, option order, seed set...), with intervals.

    Parameters
    ----------
    result : result or dict
        ``rt.sensitivity`` / a report's ``"sensitivity"``: ``{"models": [{"model", "conditions":
        {label: {"score", "ci_low", "ci_high"}}, "spread", "p_value"}]}``.
    max_models : int, optional, default: ``60``

    Returns
    -------
    matplotlib.figure.Figure
        One line artist per (model, condition) (gid ``rt-cond-*``).
    """
    d = _as_dict(result)
    src = d.get("sensitivity") if isinstance(d.get("sensitivity"), dict) else d
    rows, total = _take_rows([r for r in src.get("models", []) if r.get("conditions")], max_models,
                             "the result has no models with `conditions`")
    n = len(rows)
    labels: list[str] = []
    for r in rows:
        for c in r["conditions"]:
            if c not in labels:
                labels.append(c)
    m = len(labels)
    fig = _new_figure(8.0, 1.5 + max(0.3, 0.1 * m + 0.12) * n)
    ax = fig.add_subplot()
    offs = [(j - (m - 1) / 2) * min(0.7 / max(m, 1), 0.2) for j in range(m)]
    for i, r in enumerate(rows):
        y = n - 1 - i
        if i % 2 == 0:
            ax.axhspan(y - 0.5, y + 0.5, color="#f2f2f2", lw=0, zorder=0.5)
        for j, c in enumerate(labels):
            v = r["conditions"].get(c)
            if not v:
                continue
            (line,) = ax.plot([_pts(v.get("ci_low")), _pts(v.get("score")), _pts(v.get("ci_high"))],
                              [y + offs[j]] * 3, color=OKABE_ITO[j % 7], marker=MARKERS[j % len(MARKERS)],
                              markevery=[1], ms=4, lw=1.3, zorder=3, label=c if i == 0 else None)
            _tip(fig, line, "cond", f"{r['model']} under {c}: {_fmt_pts(v.get('score'))} "
                 f"[{_fmt_pts(v.get('ci_low'))}, {_fmt_pts(v.get('ci_high'))}]")
    ax.set_yticks(range(n), [_short(r["model"]) for r in reversed(rows)], fontsize=_label_size(n))
    ax.set_ylim(-0.7, n - 0.3)
    _score_axis_limits(ax, [_pts(v.get(k)) for r in rows for v in r["conditions"].values() if v
                            for k in ("ci_low", "score", "ci_high")])
    ax.set_xlabel("score (points) by condition")
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    from matplotlib.lines import Line2D

    fig.legend([Line2D([], [], color=OKABE_ITO[j % 7], marker=MARKERS[j % len(MARKERS)], lw=1.3, ms=4)
                for j in range(m)], [_short(c, 30) for c in labels], fontsize=8, loc="outside lower center",
               ncols=min(m, 4), frameon=False)
    title = "Scores under each condition"
    if total > n:
        title += f" (first {n} of {total})"
    ax.set_title(title, fontsize=11, loc="left")
    return fig


def runs_vs_items(result: Any, *, max_models: int | None = 60) -> Figure:
    """Where a score's variance comes from: differences between items vs run-to-run noise within items.

    More items shrink the first; more runs per item shrink only the second [1]_.

    Parameters
    ----------
    result : result or dict
        ``rt.repeats`` / a report's ``"repeats"``: ``{"models": [{"model", "runs", "between_item_var",
        "within_item_var", ...}]}``.
    max_models : int, optional, default: ``60``

    Returns
    -------
    matplotlib.figure.Figure
        Two bar containers (between-item, within-item), one bar per model each.

    References
    ----------
    .. [1] E. Miller, "Adding Error Bars to Evals", arXiv:2411.00640 (2024).
    """
    d = _as_dict(result)
    src = d.get("repeats") if isinstance(d.get("repeats"), dict) else d
    rows, total = _take_rows([r for r in src.get("models", []) if r.get("between_item_var") is not None],
                             max_models, "the result has no models with `between_item_var`")
    n = len(rows)
    fig = _new_figure(8.0, 1.5 + max(0.34, _row_height(n) * 1.4) * n)
    ax = fig.add_subplot()
    ys = [n - 1 - i for i in range(n)]
    h = 0.38
    b1 = ax.barh([y + h / 2 for y in ys], [_num(r.get("between_item_var")) for r in rows], height=h,
                 color="#0072B2", label="between items (more items shrink it)")
    b2 = ax.barh([y - h / 2 for y in ys], [_num(r.get("within_item_var")) for r in rows], height=h,
                 color="#E69F00", label="within items, across runs (more runs shrink it)")
    for r, p1, p2 in zip(rows, b1.patches, b2.patches):
        text = (f"{r['model']}: between-item variance {_num(r.get('between_item_var')):.4g}, "
                f"within-item variance {_num(r.get('within_item_var')):.4g}, runs {r.get('runs')}")
        _tip(fig, p1, "var", text)
        _tip(fig, p2, "var", text)
    ax.set_yticks(ys, [_short(r["model"]) + (f" ({r['runs']} runs)" if r.get("runs") else "") for r in rows],
                  fontsize=_label_size(n))
    ax.set_xlabel("variance of a per-item score")
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    fig.legend(fontsize=8, loc="outside lower center", ncols=2, frameon=False)
    title = "More items or more runs?"
    if total > n:
        title += f" (first {n} of {total})"
    ax.set_title(title, fontsize=11, loc="left")
    return fig


# --------------------------------------------------------------------------- output

_ID_RE = re.compile(r'\sid="([^"]+)"')


def figure_svg(fig: Figure, *, salt: str = "fig") -> str:
    """The figure as an inline ``<svg>`` element (no XML prolog), with hover tooltips.

    Every artist registered in ``fig.rt_tooltips`` gets a ``<title>`` child, which browsers show on hover.
    Element ids that nothing references are dropped, and the others are unique per ``salt``, so several
    figures can share one HTML page. Text stays text (``svg.fonttype = "none"``).
    """
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": f"rt-{salt}"}):
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
        s = s.replace(f'<g id="{gid}">', f'<g id="{gid}" class="rt-tip"><title>{html.escape(text)}</title>', 1)
    mw = re.search(r'width="([\d.]+)pt"', s)
    style = f' style="max-width:{float(mw.group(1)) * 4 / 3:.0f}px"' if mw else ""
    s = re.sub(r'\swidth="[\d.]+pt" height="[\d.]+pt"', f' class="rt-fig" role="img"{style}', s, count=1)
    return s


_FIGURES: dict[str, tuple[Callable[..., Figure], Callable[[dict[str, Any]], bool]]] = {
    "forest": (forest, lambda d: bool(d.get("models"))),
    "pair_heatmap": (pair_heatmap, lambda d: bool(d.get("pair_matrix"))),
    "rank_ranges": (rank_ranges, lambda d: any(r.get("rank_low") is not None
                                               for r in ((d.get("rank_sets") or d).get("models") or []))),
    "stability_curve": (stability_curve, lambda d: bool((d.get("stability") or {}).get("sizes"))),
    "power_curve": (power_curve, lambda d: bool((d.get("power") or {}).get("table"))),
    "mdad_curve": (mdad_curve, lambda d: bool((d.get("microbench") or {}).get("mdad"))),
    "agreement_curve": (agreement_curve, lambda d: bool((d.get("microbench") or {}).get("agreement"))),
    "condition_spread": (condition_spread, lambda d: bool((d.get("sensitivity") or {}).get("models"))),
    "runs_vs_items": (runs_vs_items, lambda d: any(r.get("between_item_var") is not None
                                                   for r in (d.get("repeats") or {}).get("models") or [])),
}


def save_figures(report: Any, directory: str | Path, formats: Iterable[str] = ("png", "svg"), *,
                 dpi: int = 150) -> list[Path]:
    """Write every figure the report has data for, as ``<directory>/<name>.<format>``.

    Parameters
    ----------
    report : LeaderboardReport or dict
        ``rt.report(...)`` or its ``to_dict()``.
    directory : str or Path
        Created if missing.
    formats : iterable of str, default: ``("png", "svg")``
        Any format matplotlib writes (png, svg, pdf).
    dpi : int, default: ``150``
        Resolution of raster formats.

    Returns
    -------
    list of Path
        The files written, in a fixed order (forest, pair_heatmap, rank_ranges, stability_curve,
        power_curve, mdad_curve, agreement_curve, condition_spread, runs_vs_items).
    """
    d = _as_dict(report)
    formats = tuple(formats)
    bad = [f for f in formats if f not in ("png", "svg", "pdf")]
    if bad:
        raise ValueError(f"`formats` must be among 'png', 'svg', 'pdf', got {bad!r}")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for name, (fn, present) in _FIGURES.items():
        if not present(d):
            continue
        fig = fn(d)
        for fmt in formats:
            p = out / f"{name}.{fmt}"
            with matplotlib.rc_context({"svg.hashsalt": f"rt-{name}"}):
                fig.savefig(p, format=fmt, dpi=dpi, metadata={"Date": None} if fmt == "svg" else None)
            paths.append(p)
    return paths
