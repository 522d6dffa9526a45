"""Gold-corrected scores: a judge's scores on every item, a person's labels on a random subset.

:func:`gold_corrected` estimates each model's mean *gold* score (what the person would give on every item)
from both, with the estimators of :mod:`._estimators`, and puts the estimates through the same verdict
machinery as the arena: one covariance matrix of all models' estimates, the stepdown max-|t| over all pairs
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
from .._validate import SeedLike
from .._kernel import is_binary, normal_quantile, t_quantile, wilson_bounds
from .._random import child, root
from ..errors import ArgumentError, DataError
from ..preference._maxt import pair_index, stepdown
from ..ranking._ranksets import layers
from ..results import Result, jsonable
from ._estimators import ppi_plus, rogan_gladen, stratified

__all__ = ["Ranked", "RankedRow", "pairs_and_ranks", "GoldCorrected", "GoldCorrectedJSON", "JudgedRow", "JudgedPairRow", "gold_corrected", "labels_needed", "model_intervals", "METHODS"]

METHODS = ("auto", "ppi++", "stratified", "rogan-gladen")
_MIN_LABELS = 10          # below this many labelled items no interval is given
_MIN_INFORMATION = 0.05   # rogan-gladen: refused where sensitivity + specificity - 1 is below this


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


def _labelled_items(gold: np.ndarray, models: tuple[str, ...], items: tuple[str, ...]) -> np.ndarray:
    has = ~np.isnan(gold)                     # (M, N)
    some, every = has.any(axis=0), has.all(axis=0)
    bad = np.flatnonzero(some & ~every)
    if bad.size:
        i = bad[0]
        missing = [models[j] for j in np.flatnonzero(~has[:, i])]
        raise DataError(
            f"item {items[i]!r} has a gold label for some models but not for {', '.join(map(repr, missing[:3]))}"
            f"{' and more' if len(missing) > 3 else ''} ({bad.size} such items): the labelled items must be the same "
            "for every model; label those models too or leave the item unlabelled for all", param="gold")
    return every


def _gold_matrix(judge: Any, gold: Any) -> np.ndarray:
    """The gold labels as an ``(M, N)`` array in the judge's model and item order (NaN = not labelled)."""
    from ..data._matrix import ScoreMatrix

    if not isinstance(gold, ScoreMatrix):
        raise TypeError(f"`gold` must be a ScoreMatrix of the same models and items, got {type(gold).__name__}")
    known_m, known_i = set(judge.models), set(judge.items)
    extra_m = [x for x in gold.models if x not in known_m]
    extra_i = [x for x in gold.items if x not in known_i]
    if extra_m or extra_i:
        what = f"model {extra_m[0]!r}" if extra_m else f"item {extra_i[0]!r}"
        raise DataError(f"`gold` has {what}, which the judge did not score: gold labels pair with judged items",
                        param="gold")
    out = np.full((judge.n_models, judge.n_items), np.nan)
    mi = {x: k for k, x in enumerate(judge.models)}
    ii = {x: k for k, x in enumerate(judge.items)}
    rows = np.array([mi[x] for x in gold.models], dtype=np.intp)
    cols = np.array([ii[x] for x in gold.items], dtype=np.intp)
    out[np.ix_(rows, cols)] = gold.scores
    return out


def _method(method: str, f: np.ndarray, y: np.ndarray) -> str:
    method = _validate.choice(method, "method", METHODS)
    binary = is_binary(f) and is_binary(y)
    if method == "auto":
        return "stratified" if binary else "ppi++"
    if method in ("stratified", "rogan-gladen") and not binary:
        raise ArgumentError(f"`method`={method!r} needs 0/1 judge scores and 0/1 gold labels; "
                            "use `method`='ppi++' for other scores", param="method")
    return method


def gold_corrected(judge: Any, gold: Any, *, method: str = "auto", confidence_level: float = 0.95,
                   n_resamples: int = 10_000, rng: SeedLike = 0) -> GoldCorrected:
    """Each model's mean gold score from a judge's scores on every item and gold labels on some.

    Parameters
    ----------
    judge : ScoreMatrix
        The judge's scores, complete (every model on every item).
    gold : ScoreMatrix
        Gold labels of the same models on a subset of the items (NaN or absent where not labelled); an item is
        labelled for every model or for none.
    method : {"auto", "ppi++", "stratified", "rogan-gladen"}
        ``auto``: ``stratified`` when judge and gold are 0/1, else ``ppi++`` (see :mod:`._estimators`).
    confidence_level : float
        Of the intervals, and the family-wise level of the pairs and rank sets.
    n_resamples : int
        Normal draws of the stepdown max-|t| (one pair needs none).
    rng : None, int or Generator

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
    from ..data._matrix import ScoreMatrix

    if not isinstance(judge, ScoreMatrix):
        raise TypeError(f"`judge` must be a ScoreMatrix, got {type(judge).__name__}")
    level = _validate.confidence_level(confidence_level)
    n_resamples = _validate.count(n_resamples, "n_resamples")
    seed_root = root(rng)
    f_mn = judge.scores
    if np.isnan(f_mn).any():
        j, i = np.argwhere(np.isnan(f_mn))[0]
        raise DataError(f"the judge did not score model {judge.models[j]!r} on item {judge.items[i]!r}: the judge's "
                        "scores must be complete (gold-corrected means read the judge on every item)", param="judge")
    y_mn = _gold_matrix(judge, gold)
    L = _labelled_items(y_mn, judge.models, judge.items)
    n, N, M = int(L.sum()), judge.n_items, judge.n_models
    if n < _MIN_LABELS:
        raise DataError(f"{n} labelled item{'s' if n != 1 else ''}: gold-corrected intervals need at least "
                        f"{_MIN_LABELS} (label a random subset of the items)", param="gold")
    if n == N:
        raise DataError("every item is labelled: there is nothing for the judge to add; use the gold labels as the "
                        "scores (`rt.report(gold)`)", param="gold")
    f, y = f_mn.T.astype(float), np.nan_to_num(y_mn.T)
    how = _method(method, f, y[L])
    est = model_intervals(f, y, L, how, level, covariance=True)
    if how == "rogan-gladen":
        info = est["se_judge"] + est["sp_judge"] - 1
        if not np.all(info >= _MIN_INFORMATION):
            k = int(np.flatnonzero(~(info >= _MIN_INFORMATION))[0])
            raise DataError(f"the judge's sensitivity + specificity - 1 for {judge.models[k]!r} is "
                            f"{info[k]:.3g} on the labelled items: too little information to correct; "
                            "use `method`='stratified'", param="method")
    V, se, lo, hi = est["covariance"], est["se"], est["ci_low"], est["ci_high"]
    var_judge, var_label = est["var_judge"], est["var_label"]
    z = normal_quantile(level)
    # beside it: the judge alone (all items) and the gold labels alone (the labelled items)
    jm, gm = f.mean(axis=0), y[L].mean(axis=0)
    if is_binary(f):
        jlo, jhi = wilson_bounds(jm, N, z)
    else:
        jse = f.std(axis=0, ddof=1) / math.sqrt(N)
        jlo, jhi = jm - float(t_quantile(level, N - 1)) * jse, jm + float(t_quantile(level, N - 1)) * jse
    if is_binary(y[L]):
        glo, ghi = wilson_bounds(gm, n, z)
    else:
        gse = y[L].std(axis=0, ddof=1) / math.sqrt(n)
        glo, ghi = gm - float(t_quantile(level, n - 1)) * gse, gm + float(t_quantile(level, n - 1)) * gse
    theta = est["estimate"]
    pairs, better, draws = pairs_and_ranks(theta, V, judge.models, level, n_resamples,
                                  np.random.default_rng(child(seed_root, "judges", "stepdown")))
    tier, _, _ = layers(better, theta)
    return GoldCorrected(
        models=judge.models, score=theta, se=se, ci_low=lo, ci_high=hi, judge_score=jm, judge_ci_low=jlo,
        judge_ci_high=jhi, gold_score=gm, gold_ci_low=glo, gold_ci_high=ghi,
        lam=est["lam"] if how == "ppi++" else None, rank_low=1 + better.sum(axis=0),
        rank_high=M - better.sum(axis=1), tier=tier, better=better, covariance=V, var_judge=var_judge,
        var_label=var_label, pairs=pairs, method=how,
        confidence_level=level, n_items=N, n_labelled=n, n_resamples=draws,
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


def model_intervals(f: np.ndarray, y: np.ndarray, labelled: np.ndarray, method: str, level: float, *,
                    covariance: bool = False) -> dict[str, Any]:
    """Every model's estimate and interval (columns of ``f``, ``y``: items x models) by ``method``.

    Adds to the estimator's output ``se, ci_low, ci_high, var_judge, var_label`` and, with ``covariance``, the
    ``covariance`` of all models' estimates (``M x M``; the per-model figures need only its diagonal, which is
    all ``bench/bench_judge.py`` computes for its thousands of replicate columns).
    """
    L = np.asarray(labelled, dtype=bool)
    n = int(L.sum())
    est = {"ppi++": ppi_plus, "stratified": stratified, "rogan-gladen": rogan_gladen}[method](f, y, L)
    c = n / max(n - 1, 1)        # the labels' part from n residuals: the usual n - 1
    var_judge = (est["w_judge"] ** 2).sum(axis=0)
    var_label = (est["w_label"] ** 2).sum(axis=0) * c + est.get("extra", 0.0)
    cross = 2 * (est["w_judge"] * est["w_label"]).sum(axis=0)
    var = var_judge + var_label + cross
    if covariance:
        w = est["w_judge"] + est["w_label"] * np.sqrt(c)
        V = w.T @ w
        if "extra" in est:
            V[np.diag_indices_from(V)] += est["extra"]
        est["covariance"] = V
        var = np.diag(V).copy()
    se = np.sqrt(np.clip(var, 0, None))
    q = float(t_quantile(level, n - 1)) if method == "ppi++" else normal_quantile(level)
    lo, hi = est["centre"] - q * se, est["centre"] + q * se
    if is_binary(y[L]):
        lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
    est.update(se=se, ci_low=lo, ci_high=hi, var_judge=var_judge, var_label=var_label)
    return est
