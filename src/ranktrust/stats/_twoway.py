"""Score intervals that count the judge: two-way clustering by item and judge (Cameron, Gelbach & Miller 2011).

A *judgment* is one score of one model's answer to one item by one judge (or one repeat of the same judge).
The score of a model is the mean of its judgments; its variance counts the judges as follows.

* ``judges="random"``: two-way cluster-robust variance (Cameron, Gelbach & Miller 2011, eq. 2.11)
  ``V_item + V_judge - V_item∩judge``, each the CR1 one-way variance of the mean (``G / (G - 1)`` times the
  sum of squared cluster sums of the deviations, over ``n²``), t with ``min(G_item, G_judge) - 1`` df; where
  the sum is not positive, the larger one-way variance. The interval covers the score the model would get
  from the *population* of judges these are drawn from. With ``G_judge`` under about 10 the judge component
  rests on a handful of sums: the t quantile on ``G_judge - 1`` df keeps the coverage where judge effects are
  normal, at a large price in width, and says little where they are not (CGM 2011 §2.5).
* ``judges="fixed"``: the judges are the ones that will always judge: the interval covers the mean over
  *these* judges, clustered by item (every judgment of an item in one cluster, so repeat noise and the
  judge-by-item disagreement enter through the item sums), CR1 with ``G_item - 1`` df.
* ``judges="auto"``: random with :data:`MIN_RANDOM_JUDGES` judges or more, fixed below.

The item dimension is the item, or its group where the intervals are clustered by item group.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._kernel import t_quantile
from ..errors import ArgumentError, SmallSampleWarning, warn
from ..results import Note

__all__ = ["MIN_RANDOM_JUDGES", "JUDGES", "twoway_variance", "judged_ci", "JudgedCI"]

#: with fewer judges than this, ``judges="auto"`` takes them as fixed (see the module docstring)
MIN_RANDOM_JUDGES = 10

#: the values of ``judges``
JUDGES = ("auto", "random", "fixed")


def _dense(codes: np.ndarray) -> np.ndarray:
    return np.unique(np.asarray(codes), return_inverse=True)[1].ravel().astype(np.int64)


def twoway_variance(y: np.ndarray, g1: np.ndarray, g2: np.ndarray) -> tuple[float, float, float, float]:
    """CR1 variances of the mean of ``y`` clustered by ``g1``, by ``g2`` and by their intersection, and the
    two-way ``V1 + V2 - V12`` (Cameron, Gelbach & Miller 2011): ``(v_two_way, v1, v2, v12)``.

    ``g1`` and ``g2`` are labels of any kind, one per value of ``y``; a one-way variance with a single cluster
    is NaN.
    """
    y = np.asarray(y, dtype=float)
    e = y - y.mean()
    n = y.size

    def one(c: np.ndarray) -> float:
        sums = np.bincount(c, weights=e)
        sums = sums[np.bincount(c) > 0]
        G = sums.size
        return float(G / (G - 1) * np.sum(sums * sums) / (n * n)) if G > 1 else math.nan

    c1, c2 = _dense(g1), _dense(g2)
    v1, v2 = one(c1), one(c2)
    v12 = one(_dense(c1 * (int(c2.max()) + 1) + c2))
    return v1 + v2 - v12, v1, v2, v12


class JudgedCI(NamedTuple):
    """Per-model arrays of :func:`judged_ci` and how the judges were taken."""

    score: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    df: np.ndarray
    n_items: np.ndarray
    random: bool
    n_judges: int
    n_clusters: int
    notes: tuple[Note, ...]


def check_judges(judges: object) -> str:
    if judges not in JUDGES:
        raise ArgumentError(f"`judges` must be 'auto', 'random' or 'fixed', got {judges!r}", param="judges")
    return str(judges)


def judged_ci(y: np.ndarray, model: np.ndarray, item: np.ndarray, judge: np.ndarray, n_models: int, *,
              cluster: np.ndarray | None = None, judges: str = "auto", confidence_level: float = 0.95,
              stacklevel: int = 3) -> JudgedCI:
    """Each model's mean judgment with an interval whose variance counts the judges (module docstring).

    ``y``: the judgments (no NaN); ``model``: each judgment's model, an integer in ``0..n_models-1``;
    ``item``, ``judge``: integer codes; ``cluster``: the item's cluster code (default: the item). A model with no
    judgment gets NaN. Emits a ``few_judges`` :class:`~ranktrust.errors.SmallSampleWarning` where
    ``judges="random"`` is asked with fewer than :data:`MIN_RANDOM_JUDGES` judges, and returns a
    ``judges_fixed`` note where the judges were taken as fixed.
    """
    judges = check_judges(judges)
    y = np.asarray(y, dtype=float)
    model = np.asarray(model, dtype=np.int64)
    jc = _dense(judge)
    cc = _dense(item if cluster is None else cluster)
    ic = _dense(item)
    n_judges = int(jc.max()) + 1 if jc.size else 0
    random = judges == "random" or (judges == "auto" and n_judges >= MIN_RANDOM_JUDGES)
    if judges == "random" and n_judges < MIN_RANDOM_JUDGES:
        warn(f"`judges`='random' with only {n_judges} judges: the judge part of the variance rests on "
             f"{n_judges} sums, so the interval is wide where judge effects are normal and can cover less than "
             f"stated where they are not; with fewer than {MIN_RANDOM_JUDGES} judges `judges`='fixed' describes "
             "these judges", SmallSampleWarning, code="few_judges",
             data={"n_judges": n_judges, "min_judges": MIN_RANDOM_JUDGES}, stacklevel=stacklevel)
    score, var, df, n_items = (np.full(n_models, np.nan) for _ in range(4))
    for k in range(n_models):
        r = model == k
        if not r.any():
            n_items[k] = 0
            continue
        yk = y[r]
        score[k] = yk.mean()
        n_items[k] = np.unique(ic[r]).size
        v, vi, vj, _ = twoway_variance(yk, cc[r], jc[r])
        gi, gj = np.unique(cc[r]).size, np.unique(jc[r]).size
        if random:
            var[k] = v if v > 0 else max(vi, vj)
            df[k] = min(gi, gj) - 1
        else:
            var[k], df[k] = vi, gi - 1
    with np.errstate(invalid="ignore"):
        df = np.where(df >= 1, df, np.nan)
        se = np.sqrt(var)
        tq = np.asarray(t_quantile(confidence_level, np.where(np.isnan(df), 1.0, df)), dtype=float)
        lo, hi = score - tq * se, score + tq * se
    if y.size and np.all((y >= 0) & (y <= 1)):
        lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
    notes = () if random else (Note("judges_fixed", {"n_judges": n_judges, "judges": judges,
                                                     "min_judges": MIN_RANDOM_JUDGES}),)
    return JudgedCI(score=score, se=se, low=lo, high=hi, df=df, n_items=n_items.astype(np.int64), random=random,
                    n_judges=n_judges, n_clusters=int(cc.max()) + 1 if cc.size else 0, notes=notes)
