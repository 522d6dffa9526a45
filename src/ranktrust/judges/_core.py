"""Gold-corrected scores: a judge's scores on every item, a person's labels on a random subset.

:func:`gold_corrected` estimates each model's mean *gold* score (what the person would give on every item)
from both, with the estimators of ``ranktrust.stats`` (PPI++, post-stratification, Rogan–Gladen), and puts the
estimates through the same verdict machinery as the arena: one covariance matrix of all models' estimates, the stepdown max-|t| over all pairs
(Romano & Wolf 2005; :func:`ranktrust.preference` uses the same function), the "found better" relation, its
rank sets and tiers (:func:`ranktrust.ranking.layers`). Beside each model stand the judge-only score (biased
for the gold target: what a leaderboard that trusts its judge prints) and the gold-only score (unbiased, and
as wide as the few labels make it).

Scope and what is approximate: the labelled items are a simple random sample of the items, the same items for
every model; the intervals are normal (t with ``n - 1`` degrees of freedom for ``ppi++``) and their coverage
was measured on the grid of ``bench/bench_judge.py`` (0/1 judges, accuracy 0.1-0.9, sensitivity and specificity
0.7-0.95, 2,000 items, 100 or 300 labels). Labels chosen by the judge's score, or only on hard items, void it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, TypedDict

import numpy as np

from .. import _validate
from .._analysis import analysis
from .._validate import SeedLike
from .._kernel import normal_quantile
from .._random import child, root
from ..data import ScoreMatrix
from ..ranking import layers, pair_index, stepdown
from ..results import Result, jsonable
from ..stats import intervals
from ..stats import PPI_METHODS as METHODS
from ..stats import gold_fit, model_intervals

__all__ = ["Ranked", "RankedRow", "pairs_and_ranks", "GoldCorrected", "GoldCorrectedJSON", "JudgedRow",
           "JudgedPairRow", "gold_corrected", "labels_needed", "model_intervals", "METHODS"]


class RankedRow(TypedDict):
    """What every model row of a judged result holds: its interval, simultaneous rank set and tier."""

    model: str
    se: float
    ci_low: float
    ci_high: float
    rank_low: int
    rank_high: int
    tier: int


class _JudgedRow(RankedRow):
    score: float
    judge_score: float
    judge_ci_low: float
    judge_ci_high: float
    gold_score: float
    gold_ci_low: float
    gold_ci_high: float


class JudgedRow(_JudgedRow, total=False):
    """One model of ``"models"``, in display order (tier, then score); ``lam`` with ``ppi++``."""

    lam: float


class JudgedPairRow(TypedDict):
    """One pair: ``a`` scored above ``b``; ``diff`` with its marginal interval; ``p_adjusted`` from the stepdown
    max-|t| over all pairs (at least ``p_value``); ``separated`` = ``p_adjusted < 1 - confidence_level``."""

    a: str
    b: str
    diff: float
    se: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    separated: bool


class GoldCorrectedJSON(TypedDict):
    """Layout of :meth:`GoldCorrected.to_dict`."""

    method: str
    confidence_level: float
    n_items: int
    n_labelled: int
    n_resamples: int
    models: list[JudgedRow]
    pairs: list[JudgedPairRow]
    could_be_first: list[str]


class Ranked:
    """The display order and "could be #1" of a result with a ``better`` relation, ``rank_low`` and the values
    it sorts by (``_sort_by``, a field name), read as the score path reads them (:func:`ranking.layers`)."""

    _sort_by = "score"

    @property
    def order(self) -> np.ndarray:
        """Display order: by tier, then by the estimate."""
        return layers(self.better, getattr(self, self._sort_by))[1]   # type: ignore[attr-defined]

    @property
    def could_be_first(self) -> list[str]:
        """Models whose simultaneous rank set contains 1, in display order."""
        return [self.models[k] for k in self.order if self.rank_low[k] == 1]   # type: ignore[attr-defined]


@dataclass(frozen=True, eq=False)
class GoldCorrected(Ranked, Result):
    """Gold-corrected scores of every model (see :func:`gold_corrected`).

    Attributes
    ----------
    models : tuple of str
    score, se, ci_low, ci_high : ndarray (M,)
        The gold-corrected estimate, its standard error and interval (fractions).
    judge_score, judge_ci_low, judge_ci_high : ndarray (M,)
        The judge's own mean over all items (what trusting the judge gives) and its interval.
    gold_score, gold_ci_low, gold_ci_high : ndarray (M,)
        The mean gold label over the labelled items alone, and its interval (Wilson for 0/1 labels).
    lam : ndarray (M,) or None
        PPI++'s power-tuning weight per model (``ppi++`` only).
    rank_low, rank_high, tier : ndarray of int (M,)
        Simultaneous rank sets and tiers from the stepdown over all pairs.
    pairs : tuple of dict
        One row per pair (``a`` scored above ``b``): ``diff, se, ci_low, ci_high, p_value, p_adjusted,
        separated``.
    """

    _table = ("models", "score", "se", "ci_low", "ci_high", "judge_score", "gold_score", "rank_low",
              "rank_high", "tier")

    models: tuple[str, ...]
    score: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    judge_score: np.ndarray
    judge_ci_low: np.ndarray
    judge_ci_high: np.ndarray
    gold_score: np.ndarray
    gold_ci_low: np.ndarray
    gold_ci_high: np.ndarray
    lam: np.ndarray | None
    rank_low: np.ndarray
    rank_high: np.ndarray
    tier: np.ndarray
    better: np.ndarray = field(repr=False)
    covariance: np.ndarray = field(repr=False)
    var_judge: np.ndarray = field(repr=False, default=None)
    var_label: np.ndarray = field(repr=False, default=None)
    pairs: tuple = ()
    method: str = "ppi++"
    confidence_level: float = 0.95
    n_items: int = 0
    n_labelled: int = 0
    n_resamples: int = 0

    def to_dict(self) -> GoldCorrectedJSON:
        rows = [{
            "model": self.models[k], "score": self.score[k], "se": self.se[k], "ci_low": self.ci_low[k],
            "ci_high": self.ci_high[k], "rank_low": self.rank_low[k], "rank_high": self.rank_high[k],
            "tier": self.tier[k], "judge_score": self.judge_score[k], "judge_ci_low": self.judge_ci_low[k],
            "judge_ci_high": self.judge_ci_high[k], "gold_score": self.gold_score[k],
            "gold_ci_low": self.gold_ci_low[k], "gold_ci_high": self.gold_ci_high[k],
            **({"lam": self.lam[k]} if self.lam is not None else {}),
        } for k in self.order]
        return jsonable({
            "method": self.method, "confidence_level": self.confidence_level, "n_items": self.n_items,
            "n_labelled": self.n_labelled, "n_resamples": self.n_resamples,
            "models": rows, "pairs": [dict(p) for p in self.pairs], "could_be_first": self.could_be_first,
        })


@analysis
def gold_corrected(judge: Any, gold: Any, *, method: str = "auto", confidence_level: float = 0.95,
                   n_resamples: int = 10_000, rng: SeedLike = 0, cluster: bool = False) -> GoldCorrected:
    """Each model's mean gold score from a judge's scores on every item and gold labels on some.

    Parameters
    ----------
    judge : ScoreMatrix, DataFrame or path
        The judge's scores, complete (every model on every item); read as :func:`ranktrust.read` does.
    gold : ScoreMatrix
        Gold labels of the same models on a subset of the items (NaN or absent where not labelled); an item is
        labelled for every model or for none.
    method : {"auto", "ppi++", "stratified", "rogan-gladen"}
        ``auto``: ``stratified`` when judge and gold are 0/1, else ``ppi++`` (docs/judges.md, "The estimators").
    confidence_level : float
        Of the intervals, and the family-wise level of the pairs and rank sets.
    n_resamples : int
        Normal draws of the stepdown max-|t| (one pair needs none).
    rng : None, int or Generator
    cluster : bool
        Sum each item's influence within its item group (``judge.groups``) before squaring: the cluster-robust
        covariance, with a t reference on ``G - 1`` df.

    Returns
    -------
    GoldCorrected

    Examples
    --------
    >>> import numpy as np, ranktrust as rt
    >>> from ranktrust.judges import gold_corrected
    >>> g = np.random.default_rng(0)
    >>> truth = (g.random((2, 400)) < [[0.7], [0.5]]).astype(float)
    >>> judge = np.where(g.random((2, 400)) < 0.85, truth, 1 - truth)        # a judge right 85% of the time
    >>> gold = np.where(np.arange(400) < 100, truth, np.nan)                  # 100 items labelled
    >>> r = gold_corrected(rt.ScoreMatrix.from_array(judge, models=["a", "b"]),
    ...                    rt.ScoreMatrix.from_array(gold, models=["a", "b"]))
    >>> r.method, r.n_labelled
    ('stratified', 100)
    """
    if not isinstance(judge, ScoreMatrix):
        raise TypeError(f"`judge` must be a ScoreMatrix, got {type(judge).__name__}")
    level = _validate.confidence_level(confidence_level)
    n_resamples = _validate.count(n_resamples, "n_resamples")
    seed_root = root(rng)
    fit = gold_fit(judge, gold, method=method, confidence_level=level, cluster=cluster)
    # beside it: the judge alone (all items) and the labels alone (the labelled items), as the score path gives them
    iv = intervals(judge, gold=gold, method=fit.method, cluster=cluster, confidence_level=level)
    j, g = iv.judge_only, iv.gold_only
    theta, M = fit.score, judge.n_models
    pairs, better, draws = pairs_and_ranks(theta, fit.covariance, judge.models, level, n_resamples,
                                           np.random.default_rng(child(seed_root, "judges", "stepdown")))
    tier, _, _ = layers(better, theta)
    return GoldCorrected(
        models=judge.models, score=theta, se=fit.se, ci_low=fit.ci_low, ci_high=fit.ci_high,
        judge_score=j.score, judge_ci_low=j.ci_low, judge_ci_high=j.ci_high,
        gold_score=g.score, gold_ci_low=g.ci_low, gold_ci_high=g.ci_high, lam=fit.lam,
        rank_low=1 + better.sum(axis=0), rank_high=M - better.sum(axis=1), tier=tier, better=better,
        covariance=fit.covariance, var_judge=fit.var_judge, var_label=fit.var_label, pairs=pairs, method=fit.method,
        confidence_level=level, n_items=fit.n_items, n_labelled=fit.n_labelled, n_resamples=draws,
    )


def pairs_and_ranks(theta: np.ndarray, V: np.ndarray, models: tuple[str, ...], level: float, n_resamples: int,
           gen: np.random.Generator) -> tuple[tuple, np.ndarray, int]:
    """Every pair's difference, marginal interval and p, and the stepdown-adjusted p (max-|t| over all pairs;
    one pair: the marginal p itself, no draws)."""
    from scipy import special

    M = len(theta)
    better = np.zeros((M, M), dtype=bool)
    if M < 2:
        return (), better, 0
    J, K = pair_index(M)
    d = theta[J] - theta[K]
    s = np.sqrt(np.clip(V[J, J] + V[K, K] - 2 * V[J, K], 0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(s > 0, d / s, 0.0)
    p = 2 * special.ndtr(-np.abs(t))
    if len(J) == 1:
        padj, draws = p.copy(), 0
    else:
        sd = stepdown(theta, V, n_draws=n_resamples, rng=gen)
        padj, draws = np.maximum(np.asarray(sd["p_adjusted"], dtype=float), p), n_resamples
    alpha = 1 - level
    z = normal_quantile(level)
    rows = []
    for x in range(len(J)):
        j, k, dd = int(J[x]), int(K[x]), float(d[x])
        if dd < 0:
            j, k, dd = k, j, -dd
        sep = bool(padj[x] < alpha and dd > 0)
        if sep:
            better[j, k] = True
        rows.append({"a": models[j], "b": models[k], "diff": dd, "se": float(s[x]), "ci_low": dd - z * float(s[x]),
                     "ci_high": dd + z * float(s[x]), "p_value": float(p[x]), "p_adjusted": float(padj[x]),
                     "separated": sep})
    rows.sort(key=lambda r: (r["p_adjusted"], -r["diff"]))
    return tuple(rows), better, draws


def labels_needed(result: GoldCorrected, half_width: float) -> dict[str, Any]:
    """How many labelled items each model's interval needs to reach ``half_width`` (a fraction: 0.02 = ±2
    points), from the variance split of the labels so far.

    The estimate's variance is ``A / N + B / n``: the judge's part over all ``N`` items and the labels' part over
    the ``n`` labelled ones (``result.var_judge`` and ``result.var_label`` at the current ``n``); ``n`` is solved
    for with ``A`` and ``B`` held at their current values. A model whose judge part alone is wider than the target,
    or that needs more labels than there are items, gets None (more labels cannot reach it; more items or a better
    judge can). Returns ``{"half_width", "per_model": {model: n or None}, "n_labelled", "n_items", "more"}``,
    ``more`` = labels to add so that every model reaches the target (None when one cannot).
    """
    hw = _validate.probability(half_width, "half_width", low_open=True, high_open=True)
    z = normal_quantile(result.confidence_level)
    n, N = result.n_labelled, result.n_items
    A = np.asarray(result.var_judge, dtype=float) * N
    B = np.asarray(result.var_label, dtype=float) * n
    room = (hw / z) ** 2 - A / N
    need: dict[str, int | None] = {}
    for k, name in enumerate(result.models):
        v = None if room[k] <= 0 else int(math.ceil(B[k] / room[k]))
        need[name] = v if v is not None and v <= N else None
    known = [v for v in need.values() if v is not None]
    more = max(0, max(known) - n) if known and len(known) == len(need) else None
    return {"half_width": hw, "per_model": need, "n_labelled": n, "n_items": N, "more": more}
