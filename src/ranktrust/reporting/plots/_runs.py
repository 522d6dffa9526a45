"""Figures of repeated runs and conditions: scores per condition, and runs against items."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from .._fmt import points
from ._figure import figure_for
from ._style import (
    MARKERS,
    OKABE_ITO,
    as_dict,
    label_size,
    new_figure,
    num,
    pts,
    row_height,
    score_axis_limits,
    short,
    take_rows,
    tip,
)

__all__ = ["condition_spread", "runs_vs_items"]

@figure_for("ranktrust.runs._sensitivity:Sensitivity", slot="sensitivity")
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
    d = as_dict(result)
    src = d.get("sensitivity") if isinstance(d.get("sensitivity"), dict) else d
    rows, total = take_rows([r for r in src.get("models", []) if r.get("conditions")], max_models,
                             "the result has no models with `conditions`")
    n = len(rows)
    labels: list[str] = []
    for r in rows:
        for c in r["conditions"]:
            if c not in labels:
                labels.append(c)
    m = len(labels)
    fig = new_figure(8.0, 1.5 + max(0.3, 0.1 * m + 0.12) * n)
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
            (line,) = ax.plot([pts(v.get("ci_low")), pts(v.get("score")), pts(v.get("ci_high"))],
                              [y + offs[j]] * 3, color=OKABE_ITO[j % 7], marker=MARKERS[j % len(MARKERS)],
                              markevery=[1], ms=4, lw=1.3, zorder=3, label=c if i == 0 else None)
            tip(fig, line, "cond", f"{r['model']} under {c}: {points(v.get('score'))} "
                 f"[{points(v.get('ci_low'))}, {points(v.get('ci_high'))}]")
    ax.set_yticks(range(n), [short(r["model"]) for r in reversed(rows)], fontsize=label_size(n))
    ax.set_ylim(-0.7, n - 0.3)
    score_axis_limits(ax, [pts(v.get(k)) for r in rows for v in r["conditions"].values() if v
                            for k in ("ci_low", "score", "ci_high")])
    ax.set_xlabel("score (points) by condition")
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    from matplotlib.lines import Line2D

    fig.legend([Line2D([], [], color=OKABE_ITO[j % 7], marker=MARKERS[j % len(MARKERS)], lw=1.3, ms=4)
                for j in range(m)], [short(c, 30) for c in labels], fontsize=8, loc="outside lower center",
               ncols=min(m, 4), frameon=False)
    title = "Scores under each condition"
    if total > n:
        title += f" (first {n} of {total})"
    ax.set_title(title, fontsize=11, loc="left")
    return fig


@figure_for("ranktrust.runs:Repeats", "ranktrust.runs._variance:VarianceComponents", slot="repeats")
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
    d = as_dict(result)
    src = d.get("repeats") if isinstance(d.get("repeats"), dict) else d
    rows, total = take_rows([r for r in src.get("models", []) if r.get("between_item_var") is not None],
                             max_models, "the result has no models with `between_item_var`")
    n = len(rows)
    fig = new_figure(8.0, 1.5 + max(0.34, row_height(n) * 1.4) * n)
    ax = fig.add_subplot()
    ys = [n - 1 - i for i in range(n)]
    h = 0.38
    b1 = ax.barh([y + h / 2 for y in ys], [num(r.get("between_item_var")) for r in rows], height=h,
                 color="#0072B2", label="between items (more items shrink it)")
    b2 = ax.barh([y - h / 2 for y in ys], [num(r.get("within_item_var")) for r in rows], height=h,
                 color="#E69F00", label="within items, across runs (more runs shrink it)")
    for r, p1, p2 in zip(rows, b1.patches, b2.patches):
        text = (f"{r['model']}: between-item variance {num(r.get('between_item_var')):.4g}, "
                f"within-item variance {num(r.get('within_item_var')):.4g}, runs {r.get('runs')}")
        tip(fig, p1, "var", text)
        tip(fig, p2, "var", text)
    ax.set_yticks(ys, [short(r["model"]) + (f" ({r['runs']} runs)" if r.get("runs") else "") for r in rows],
                  fontsize=label_size(n))
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

