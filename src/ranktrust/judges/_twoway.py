"""Repeat-judgment variance, judge shifts, and score intervals that count the judge (two-way clustering).

All three read a long table, one row per judgment: ``model``, ``item``, ``judge`` (a judge's name or a repeat's
number) and ``score``. A *cell* is one (model, item): its rows are the same answer judged more than once.

``repeats`` (a figure, never flagged: noise is not bias): the share of the variance of one judgment that lies
between repeats of the same cell, ``1 - ICC(1)``, with ICC(1) the one-way random-effects intra-class correlation
of Shrout & Fleiss (1979), ``(MSB - MSW) / (MSB + (k - 1) MSW)``, cells as the targets and their judgments as the
raters, and its F-based interval (their eq. for ICC(1,1); ``k`` the mean number of judgments a cell, Searle's
``k0`` where cells have different numbers). The interval assumes normal cell and repeat effects: approximate for
0/1 or 1-10 scores.

``judge_shift`` (a test): do the judges (or runs) differ in level? Each judge's mean deviation from the cell
mean, on the cells every judge scored, averaged per item cluster; H0 "every judge's offset is 0", Hotelling's
T² over the item clusters (exact F under normality; robust to judges of different noise, since each cluster's
vector of offsets is one observation). A judge that is only noisy has offset 0 and is not flagged; a judge (or a
run, a version) that scores higher throughout is. ``rate`` is the offset furthest from 0 (points of the score),
with a Bonferroni t interval over the judges.

:func:`judged_intervals`: each model's mean score over its judgments, with a variance that counts the judges:
two-way clustering by item and judge where the judges are random, by item where they are fixed (the statistics,
with their sources, are :mod:`ranktrust.stats._twoway`'s; ``rt.intervals(m, judges=...)`` gives the same
intervals from a matrix whose runs are the judges). This reader keeps what a matrix cannot hold: the same judge
judging one answer several times.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats as _st

from .._kernel import t_quantile
from ..errors import DataError
from ..stats import ScoreIntervals, check_judges, judged_ci

__all__ = ["judged_intervals", "repeat_variance", "judge_shift", "icc_oneway", "hotelling_one_sample"]


def _col(table: Any, name: str, what: str) -> np.ndarray:
    try:
        return np.asarray(table[name])
    except (KeyError, IndexError, TypeError):
        raise DataError(f"{what} has no {name!r} column", param=what) from None


def _codes(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unique labels, integer code per row), labels in sorted order of their string form."""
    labels, codes = np.unique(np.asarray(x).astype(str), return_inverse=True)
    return labels, codes.astype(np.int64).ravel()


def _read_long(table: Any, model_col: str, item_col: str, judge_col: str, score_col: str,
               cluster_by: str | None, what: str = "scores") -> dict[str, np.ndarray]:
    y = _col(table, score_col, what)
    try:
        y = y.astype(float)
    except (TypeError, ValueError):
        raise DataError(f"{what}: column {score_col!r} is not numeric", param=what) from None
    cols = {"model": _col(table, model_col, what), "item": _col(table, item_col, what),
            "judge": _col(table, judge_col, what)}
    grp = _col(table, cluster_by, what) if cluster_by is not None else None
    ok = ~np.isnan(y)
    if not ok.any():
        raise DataError(f"{what}: no row has a score", param=what)
    out = {k: v[ok] for k, v in cols.items()}
    out["score"] = y[ok]
    if grp is not None:
        g = grp[ok]
        _, ic = _codes(out["item"])
        _, gc = _codes(g)
        first = np.full(ic.max() + 1, -1)
        first[ic[::-1]] = gc[::-1]
        bad = np.flatnonzero(first[ic] != gc)
        if bad.size:
            raise DataError(f"{what}: item {out['item'][bad[0]]!r} is in more than one {cluster_by!r} group: "
                            "a cluster holds whole items", param="cluster_by")
        out["cluster"] = g
    else:
        out["cluster"] = out["item"]
    for k in ("model", "item", "judge", "cluster"):
        out[k + "_labels"], out[k + "_code"] = _codes(out[k])
    cells = out["model_code"] * (int(out["item_code"].max()) + 1) + out["item_code"]
    out["cell_code"] = np.unique(cells, return_inverse=True)[1].ravel()
    return out


# ---- repeat variance: one-way random-effects ICC ---------------------------------------------------------
def icc_oneway(cell: np.ndarray, y: np.ndarray, confidence_level: float = 0.95) -> dict[str, float]:
    """One-way random-effects ICC(1) of Shrout & Fleiss (1979) with its F-based interval.

    ``cell``: the target of each judgment (an integer code); ``y``: the judgments. Unbalanced cells use
    Searle's ``k0 = (N - sum n_c^2 / N) / (C - 1)``. Returns ``icc``, ``ci_low``, ``ci_high``, ``f``, ``df1``,
    ``df2``, ``msb``, ``msw``, ``k``.
    """
    _, c = np.unique(cell, return_inverse=True)
    y = np.asarray(y, dtype=float)
    C, N = int(c.max()) + 1, y.size
    n = np.bincount(c, minlength=C).astype(float)
    means = np.bincount(c, weights=y, minlength=C) / n
    grand = y.mean()
    df1, df2 = C - 1, N - C
    if df1 < 1 or df2 < 1:
        raise DataError("repeat variance needs at least 2 cells and one cell judged more than once", param="scores")
    msb = float(np.sum(n * (means - grand) ** 2) / df1)
    msw = float(np.sum((y - means[c]) ** 2) / df2)
    k = float((N - np.sum(n * n) / N) / df1)
    a = 1 - confidence_level
    if msw == 0:
        return {"icc": 1.0, "ci_low": 1.0, "ci_high": 1.0, "f": math.inf, "df1": df1, "df2": df2, "msb": msb,
                "msw": msw, "k": k}
    f = msb / msw
    fl = f / _st.f.ppf(1 - a / 2, df1, df2)
    fu = f * _st.f.ppf(1 - a / 2, df2, df1)
    icc = (msb - msw) / (msb + (k - 1) * msw)
    return {"icc": float(icc), "ci_low": float((fl - 1) / (fl + k - 1)), "ci_high": float((fu - 1) / (fu + k - 1)),
            "f": float(f), "df1": df1, "df2": df2, "msb": msb, "msw": msw, "k": k}


def repeat_variance(d: dict[str, np.ndarray], confidence_level: float) -> dict:
    """The ``repeats`` record: the between-repeat share ``1 - ICC(1)`` of one judgment's variance."""
    cc = d["cell_code"]
    counts = np.bincount(cc)
    r = icc_oneway(cc, d["score"], confidence_level)
    lo, hi = min(max(1 - r["ci_high"], 0.0), 1.0), min(max(1 - r["ci_low"], 0.0), 1.0)
    return {"rate": float(1 - r["icc"]), "ci_low": lo, "ci_high": hi, "p_value": None, "flagged": None,
            "icc": r["icc"], "n_cells": int(counts.size), "n_repeated_cells": int(np.sum(counts > 1)),
            "n_judgments": int(d["score"].size), "judgments_per_cell": r["k"],
            "n_judges": int(d["judge_labels"].size),
            "repeat_sd": math.sqrt(r["msw"])}


# ---- judge shift: Hotelling's T² on the judges' offsets ------------------------------------------------------
def hotelling_one_sample(u: np.ndarray) -> tuple[float, float, int, int]:
    """Hotelling's one-sample T² of H0 "mean vector 0" on the rows of ``u`` (n x p): ``(T², p-value, df1,
    df2)`` with ``F = (n - p) / (p (n - 1)) T² ~ F(p, n - p)``."""
    u = np.asarray(u, dtype=float)
    n, p = u.shape
    if n <= p:
        raise DataError(f"judge shift needs more item clusters than judges ({n} clusters, {p + 1} judges)",
                        param="scores")
    m = u.mean(axis=0)
    s = np.cov(u, rowvar=False, ddof=1).reshape(p, p)
    sol = np.linalg.lstsq(s, m, rcond=None)[0]
    t2 = float(n * m @ sol)
    if not np.allclose(s @ sol, m, atol=1e-12 * max(1.0, float(np.abs(m).max()))):
        return math.inf, 0.0, p, n - p         # an offset with no spread at all
    f = (n - p) / (p * (n - 1)) * t2
    return t2, float(_st.f.sf(f, p, n - p)), p, n - p


def judge_shift(d: dict[str, np.ndarray], confidence_level: float) -> dict:
    """The ``judge_shift`` record (see the module docstring)."""
    jl, jc = d["judge_labels"], d["judge_code"]
    J = jl.size
    if J < 2:
        raise DataError("judge shift needs at least 2 judges (or repeats)", param="scores")
    cc = d["cell_code"]
    C = int(cc.max()) + 1
    s = np.zeros((C, J))
    n = np.zeros((C, J))
    np.add.at(s, (cc, jc), d["score"])
    np.add.at(n, (cc, jc), 1.0)
    full = np.all(n > 0, axis=1)
    if full.sum() < 2:
        raise DataError("judge shift needs cells (model, item) scored by every judge", param="scores")
    mj = s[full] / n[full]                              # each judge's mean in each complete cell
    dev = mj - mj.mean(axis=1, keepdims=True)           # offsets from the cell mean; each row sums to 0
    gcell = np.zeros(C, dtype=np.int64)
    gcell[cc] = d["cluster_code"]
    gl, gcode = np.unique(gcell[full], return_inverse=True)
    G = gl.size
    u = np.zeros((G, J))
    np.add.at(u, gcode, dev)
    u /= np.bincount(gcode, minlength=G)[:, None]
    if np.max(np.abs(u)) <= 1e-9 * max(float(np.std(d["score"])), 1e-300):
        t2, p = 0.0, 1.0            # no judge differs from the others on any cluster (rounding aside)
    else:
        t2, p, _, _ = hotelling_one_sample(u[:, :-1])
    off = u.mean(axis=0)
    se = u.std(axis=0, ddof=1) / math.sqrt(G)
    k = int(np.argmax(np.abs(off)))
    tq = float(t_quantile(1 - (1 - confidence_level) / J, G - 1))
    return {"rate": float(off[k]), "ci_low": float(off[k] - tq * se[k]), "ci_high": float(off[k] + tq * se[k]),
            "p_value": p, "flagged": bool(p < 1 - confidence_level), "judge": str(jl[k]),
            "offsets": {str(a): float(b) for a, b in zip(jl, off)}, "n_judges": int(J),
            "n_cells": int(full.sum()), "n_clusters": int(G), "t2": t2}


# ---- score intervals with the judge's variance (the statistics are stats._twoway's) ------------------
def judged_intervals(scores: Any, *, model_col: str = "model", item_col: str = "item", judge_col: str = "judge",
                     score_col: str = "score", cluster_by: str | None = None, judges: str = "auto",
                     confidence_level: float = 0.95) -> ScoreIntervals:
    """Per-model score intervals from judged scores, with the judges' variance in them.

    Parameters
    ----------
    scores : table
        One row per judgment: model, item, judge (or repeat) and score columns (names below). An item may be
        judged once or more by each judge; NaN scores are dropped.
    model_col, item_col, judge_col, score_col : str
    cluster_by : str, optional
        A column of item groups (each item in one group): the item dimension is clustered by group.
    judges : {"auto", "random", "fixed"}, default ``"auto"``
        ``"random"``: two-way clustering by item and judge (the interval covers the judge population's mean
        score); ``"fixed"``: clustered by item only (the mean over these judges); ``"auto"``: random with
        :data:`ranktrust.stats._twoway.MIN_RANDOM_JUDGES` (10) judges or more, else fixed. See the module docstring.
    confidence_level : float

    Returns
    -------
    ScoreIntervals
        ``method`` is ``"twoway"`` (judges random) or ``"cluster"`` (judges fixed, clustered by item);
        ``cluster_correction`` ``"cr1"``; ``df`` per model; ``n_clusters`` the item clusters.
    """
    from .. import _validate

    level = _validate.confidence_level(confidence_level)
    check_judges(judges)
    d = _read_long(scores, model_col, item_col, judge_col, score_col, cluster_by)
    ml = d["model_labels"]
    r = judged_ci(d["score"], d["model_code"], d["item_code"], d["judge_code"], ml.size, cluster=d["cluster_code"],
                  judges=judges, confidence_level=level, stacklevel=3)
    return ScoreIntervals(models=tuple(str(m) for m in ml), n_items=r.n_items, score=r.score, se=r.se,
                          ci_low=r.low, ci_high=r.high, method="twoway" if r.random else "cluster",
                          confidence_level=level, clustered=True, n_clusters=r.n_clusters, cluster_correction="cr1",
                          df=r.df, notes=r.notes)
