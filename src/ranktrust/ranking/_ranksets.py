"""Confidence sets for ranks: marginal and simultaneous (Mogstad, Romano, Shaikh, Wilhelm).

For every model the range of ranks it could hold: a *marginal* set covers that model's
true rank with probability about ``confidence_level``; the *simultaneous* sets cover
the true ranks of all models at once with that probability. Rank 1 is the best.

Procedure ([1]_, Algorithm 3.1 with the stepwise improvement; same steps as the
authors' R package csranks): for every ordered pair ``(j, k)`` test
``H_jk: theta_j <= theta_k`` with ``t_jk = (theta_j - theta_k) / sigma_jk``. The critical
value is the ``confidence_level`` quantile of the bootstrap distribution of
``max_{(j,k) in I} [(theta*_j - theta*_k) - (theta_j - theta_k)] / sigma_jk`` over the
pairs ``I`` not yet rejected; rejected pairs leave ``I`` and the step repeats until
nothing new is rejected. Then, with ``N-_j`` the models found better than ``j`` and
``N+_j`` those found worse, the set is ``[1 + N-_j, M - N+_j]``. Marginal sets run the
same steps for each model on the pairs involving it only.

A pair is found ordered only when the two models differ on at least ``k_min`` items
(clusters with ``cluster=True``), the smallest ``k`` with ``0.5^k <= 1 - confidence_level``
(5 at 95%): with fewer, even an exact sign-flip test of the paired differences cannot reach
the level (its smallest one-sided p-value is ``0.5^k``), and a bootstrap of so few values
would claim more than the data hold. So with fewer than ``k_min`` items every set is
``[1, M]`` (with a :class:`~ranktrust.errors.SmallSampleWarning`).

Here ``theta`` are mean scores on shared items, ``sigma_jk`` is the SE of the paired
difference (sd of per-item differences / sqrt(N)) and the bootstrap is the item (or
cluster) bootstrap of :mod:`ranktrust.resample._engine` rather than csranks' parametric
normal draws; both are valid to first order ([1]_ section 3).

References
----------
.. [1] M. Mogstad, J. P. Romano, A. M. Shaikh and D. Wilhelm, "Inference for Ranks with
   Applications to Mobility across Neighbourhoods and Academic Achievement across
   Countries", Review of Economic Studies 91(1), 476-518 (2024).
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from .._analysis import analysis
from .. import _validate
from .._validate import Progress, SeedLike
from ..errors import ArgumentError, SmallSampleWarning
from ..resample import matrix_input, resample_means, weights
from ..results import Result, jsonable
from ._mrsw import (
    _STUDENT_CELLS,
    _STUDENT_MAX_UNITS,
    _marginal,
    _n_differ,
    _Scaled,
    _simultaneous,
    _Studentized,
    min_units,
)

__all__ = ["RankSets", "rank_sets", "layers"]

_FEW_UNITS = 30      # below this many items (clusters) the bootstrap sets are warned about as approximate


class RankRow(TypedDict):
    """One model of :meth:`RankSets.to_dict` ``"models"``, in display order (tier, then score)."""

    model: str
    score: float
    rank: int
    rank_low: int
    rank_high: int
    marginal_low: int
    marginal_high: int
    tier: int


class RankSetsJSON(TypedDict):
    """Layout of :meth:`RankSets.to_dict`."""

    confidence_level: float
    simultaneous: bool
    method: str
    studentized: bool
    adjust: str | None
    n_resamples: int | None
    n_items: int | None
    models: list[RankRow]
    could_be_first: list[str]
    consistent: bool
    dropped: dict[str, int]


@dataclass(frozen=True, eq=False)
class RankSets(Result):
    """Rank confidence sets (see :func:`rank_sets`).

    Attributes
    ----------
    models : tuple of str
    scores : ndarray (M,)
        Mean scores (fractions).
    rank : ndarray of int (M,)
        Estimated rank, 1 = best (ties share the best rank).
    rank_low, rank_high : ndarray of int (M,)
        The reported sets: simultaneous when ``simultaneous`` is True, else marginal.
    marginal_low, marginal_high : ndarray of int (M,)
        Marginal sets (each covers its own model's rank).
    simultaneous_low, simultaneous_high : ndarray of int (M,)
        Simultaneous sets (jointly cover every model's rank).
    confidence_level : float
    simultaneous : bool
    n_resamples : int
    better : ndarray of bool (M, M)
        ``better[j, k]``: j is found better than k (simultaneous procedure).
    dropped : dict
    """

    _table = ("models", "scores", "rank", "rank_low", "rank_high", "marginal_low", "marginal_high",
              "simultaneous_low", "simultaneous_high")

    models: tuple[str, ...]
    scores: np.ndarray
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    marginal_low: np.ndarray
    marginal_high: np.ndarray
    simultaneous_low: np.ndarray
    simultaneous_high: np.ndarray
    confidence_level: float
    simultaneous: bool
    n_resamples: int
    better: np.ndarray
    dropped: dict
    method: str = "bootstrap"
    studentized: bool = False
    adjust: str | None = None
    n_items: int | None = None

    @functools.cached_property
    def _layers(self) -> tuple[np.ndarray, np.ndarray, bool]:
        # tiers, order and acyclicity are read many times (report rows, headline, JSON): compute once
        return layers(self.better, self.scores)

    @property
    def tier(self) -> np.ndarray:
        """Tier per model (1 = could be #1), from :func:`layers` of ``better``."""
        return self._layers[0]

    @property
    def order(self) -> np.ndarray:
        """Display order: by tier, then by score (a linear extension of ``better``)."""
        return self._layers[1]

    @property
    def consistent(self) -> bool:
        """False when the "found better" relation has a cycle (see :func:`layers`)."""
        return bool(self._layers[2])

    @property
    def could_be_first(self) -> list[str]:
        """Models whose rank set contains 1, in display order."""
        return [self.models[k] for k in self.order if self.rank_low[k] == 1]

    def to_dict(self) -> RankSetsJSON:
        tier, order, acyclic = self._layers
        rows = [
            {
                "model": self.models[k], "score": self.scores[k], "rank": self.rank[k],
                "rank_low": self.rank_low[k], "rank_high": self.rank_high[k],
                "marginal_low": self.marginal_low[k], "marginal_high": self.marginal_high[k],
                "tier": tier[k],
            }
            for k in order
        ]
        return jsonable({
            "confidence_level": self.confidence_level,
            "simultaneous": self.simultaneous,
            "method": self.method,
            "studentized": self.studentized,
            "adjust": self.adjust,
            "n_resamples": self.n_resamples,
            "n_items": self.n_items,
            "models": rows,
            "could_be_first": self.could_be_first,
            "consistent": bool(acyclic),
            "dropped": self.dropped,
        })


def rank_bounds(better: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rank sets of a "found better" relation (``better[j, k]``: model j is found above model k):
    ``[1 + #found better, M - #found worse]`` for each model: the simultaneous rank sets of the score path,
    arena and the gold-corrected battles."""
    return 1 + better.sum(axis=0), len(better) - better.sum(axis=1)


def layers(better: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Tiers and display order from a "found better" relation.

    ``better[j, k]``: model j is found better than model k (after multiplicity control).
    Tier 1 = the models no model is found better than (exactly the models that could be
    #1); tier ``t + 1`` = the models no *remaining* model is found better than, once tiers
    ``1..t`` are removed. So no two models of one tier are told apart, every model of
    tier ``t + 1`` is found worse than at least one model of tier ``t``, and the order
    "by tier, then by score" places every model below all models found better than it:
    each model's position lies inside its rank range ``[1 + #better than it,
    M - #worse than it]``.

    Returns ``(tier, order, acyclic)``; ``acyclic`` is False when the relation has a cycle
    (possible only with pairwise-complete data, where each pair uses its own items); the
    cycle is then broken at the highest-scored model, and a position may leave its range.
    """
    b = np.asarray(better, dtype=bool)
    m = b.shape[0]
    sc = np.nan_to_num(np.asarray(scores, dtype=float), nan=-np.inf)
    tier = np.zeros(m, dtype=np.int64)
    indeg = b.sum(axis=0).astype(np.int64)
    rest = np.ones(m, dtype=bool)
    acyclic = True
    t = 1
    while rest.any():
        take = rest & (indeg == 0)
        if not take.any():  # a cycle: break it at the best-scored remaining model
            acyclic = False
            cand = np.flatnonzero(rest)
            take = np.zeros(m, dtype=bool)
            take[cand[np.argmax(sc[cand])]] = True
        tier[take] = t
        rest &= ~take
        indeg -= b[take].sum(axis=0)
        t += 1
    order = np.lexsort((np.arange(m), -sc, tier))
    return tier, order, acyclic


def _rank_sets_iv(method, confidence_level, n_resamples, studentize, progress):
    """Validated ``(method, confidence_level, n_resamples, studentize, progress)``."""
    return (_validate.choice(method, "method", ("pairs", "bootstrap")),
            _validate.confidence_level(confidence_level),
            _validate.count(n_resamples, "n_resamples", minimum=10) if method == "bootstrap" else n_resamples,
            _validate.choice(studentize, "studentize", (True, False, "auto")),
            _validate.progress(progress))


def _holm_rows(p: np.ndarray, adjust: str) -> np.ndarray:
    """Each row's off-diagonal p-values adjusted over that row (a model's own M - 1 pairs)."""
    from ..stats import adjust_pvalues

    out = np.full(p.shape, np.nan)
    k = p.shape[0]
    off = ~np.eye(k, dtype=bool)
    rows = p[off].reshape(k, k - 1)
    if k > 1 and np.all((rows >= 0) & (rows <= 1)):
        # every pair tested (no NaN): all rows at once, the same steps as adjust_pvalues on each row
        out[off] = _adjust_rows(rows, adjust).ravel()
        return out
    for j in range(k):   # one adjustment per model (M calls, vectorised inside)
        row = p[j, off[j]]
        ok = np.isfinite(row)
        adj = np.full(row.shape, np.nan)
        if ok.any():
            adj[ok] = adjust_pvalues(row[ok], adjust)
        out[j, off[j]] = adj
    return out


def _adjust_rows(rows: np.ndarray, adjust: str) -> np.ndarray:
    """:func:`~ranktrust.stats._multiplicity.adjust_pvalues` of each row of ``rows`` (p-values in [0, 1], no
    NaN), all rows at once: the same sorted sums and running extremes, so the same bits."""
    n = rows.shape[1]
    if adjust == "none":
        return rows.copy()
    if adjust == "bonferroni":
        return np.minimum(1.0, rows * n)
    # any sort: tied p-values get the same adjusted value whichever comes first (the running max / min
    # carries the first one's), so the result is adjust_pvalues's bit for bit; the default sort is SIMD
    order = np.argsort(rows, axis=1)
    s = np.take_along_axis(rows, order, axis=1)
    kk = np.arange(1, n + 1, dtype=np.float64)
    if adjust == "holm":
        a = np.maximum.accumulate((n - kk + 1) * s, axis=1)
    elif adjust == "bh":
        a = np.minimum.accumulate((s * n / kk)[:, ::-1], axis=1)[:, ::-1]
    else:
        raise ArgumentError(f"`adjust` must be one of holm, bonferroni, bh, none; got {adjust!r}", param="adjust")
    a = np.minimum(a, 1.0)
    out = np.empty_like(a)
    np.put_along_axis(out, order, a, axis=1)
    return out


def _from_pairs(m, *, confidence_level, simultaneous, adjust, cluster, pair_table, screen=True):
    """Rank sets from the paired tests of every pair (exact McNemar for 0/1 scores).

    Without ``pair_table``, complete 0/1 matrices go through the screen-then-refine path
    (:mod:`._screen`, same sets); ``screen=False`` forces the full all-pairs table.
    """
    from ..data import ScoreMatrix
    from ..stats import ADJUST_METHODS, all_pairs
    from ._screen import screened_pairs

    if not isinstance(m, ScoreMatrix):
        m = ScoreMatrix.from_array(np.asarray(m, dtype=float))
    level = float(confidence_level)
    alpha = 1.0 - level
    k = m.n_models
    pt = pair_table
    got = None
    if pt is None:
        _validate.choice(adjust, "adjust", ADJUST_METHODS)
        if screen and k > 1:
            got = screened_pairs(m, level, adjust, cluster)
        if got is None:
            pt = all_pairs(m, pairs="all", adjust=adjust, confidence_level=level, cluster=cluster)
    elif pt.alternative != "two-sided":
        raise ArgumentError("`pair_table` must hold two-sided tests (`all_pairs` with `alternative`='two-sided'): "
                            f"rank sets order a pair either way; got {pt.alternative!r}", param="pair_table")
    elif pt.pairs_scope != "all" or tuple(pt.models) != tuple(m.models):
        raise ArgumentError("`pair_table` must hold all pairs of the models of `m` (`all_pairs` with `pairs`='all')",
                            param="pair_table")
    if got is None:
        adjust = pt.adjust
        got = (np.asarray(pt.score, dtype=float), pt.matrix("diff"), pt.matrix("p_value"),
               pt.matrix("p_adjusted"))
    theta, d, pval, padj = got
    if k == 1:
        one = np.ones(1, dtype=np.int64)
        return RankSets(m.models, theta, one, one, one, one, one, one, one, level, bool(simultaneous), 0,
                        np.zeros((1, 1), bool), dict(m.dropped), method="pairs", adjust=adjust,
                        n_items=m.n_items)
    with np.errstate(invalid="ignore"):
        better = (padj < alpha) & (d > 0)
    better = np.nan_to_num(better, nan=False).astype(bool)
    np.fill_diagonal(better, False)
    sim_low, sim_high = rank_bounds(better)
    prow = _holm_rows(pval, adjust)
    with np.errstate(invalid="ignore"):
        sig = np.nan_to_num(prow < alpha, nan=False).astype(bool)
        # each model's own row of tests (Holm within the row): not one relation, so not rank_bounds
        mar_low = 1 + (sig & (d < 0)).sum(axis=1)
        mar_high = k - (sig & (d > 0)).sum(axis=1)
    low, high = (sim_low, sim_high) if simultaneous else (mar_low, mar_high)
    _, order, _ = layers(better, theta)
    rank = np.empty(k, dtype=np.int64)
    rank[order] = np.arange(1, k + 1)
    return RankSets(
        models=m.models, scores=theta, rank=rank, rank_low=low, rank_high=high,
        marginal_low=mar_low, marginal_high=mar_high, simultaneous_low=sim_low, simultaneous_high=sim_high,
        confidence_level=level, simultaneous=bool(simultaneous), n_resamples=0, better=better,
        dropped=dict(m.dropped), method="pairs", studentized=False, adjust=adjust, n_items=m.n_items,
    )


@analysis
def rank_sets(
    m,
    *,
    method: str = "pairs",
    confidence_level: float = 0.95,
    simultaneous: bool = True,
    adjust: str = "holm",
    n_resamples: int = 1000,
    cluster: bool = False,
    studentize: bool | str = "auto",
    rng: SeedLike = 0,
    batch: int | None = None,
    pair_table=None,
    progress: Progress = None,
) -> RankSets:
    """Confidence sets for every model's rank, marginal and simultaneous.

    Parameters
    ----------
    m : ScoreMatrix or ndarray (M, N)
        Per-item scores. ``method="pairs"`` takes missing cells (each pair on the items both
        models scored); ``method="bootstrap"`` uses the items every model shares (``dropped``).
    method : {"pairs", "bootstrap"}, default: ``"pairs"``
        ``"pairs"``: model j is found better than model k when their paired test (exact
        McNemar for 0/1 scores, paired t for continuous, clustered with ``cluster=True``)
        rejects after ``adjust`` over all ``M (M - 1) / 2`` pairs, in j's favour. With Holm or
        Bonferroni this controls the family-wise error over all pairs, so the sets hold every
        model's rank jointly with probability at least ``confidence_level`` (MRSW [1]_,
        section 3, any FWER-controlling test of the pairwise hypotheses) at any number of
        items; the marginal sets adjust over each model's own ``M - 1`` pairs. Nothing is
        random and the tests are the ones the pair table shows, so tiers, rank ranges and
        the pair table never disagree. ``"bootstrap"``: the stepwise max-t procedure of [1]_
        (csranks), with item-bootstrap critical values, studentized (bootstrap-t) by default
        (see ``studentize``); sharper with many correlated models, asymptotic.
    confidence_level : float, default: ``0.95``
    simultaneous : bool, default: ``True``
        Which sets ``rank_low``/``rank_high`` (and ``could_be_first``) report; both
        kinds are always computed.
    adjust : {"holm", "bonferroni", "bh", "none"}, default: ``"holm"``
        ``method="pairs"``: the multiplicity adjustment (only Holm and Bonferroni give joint
        coverage; BH gives sets whose orderings are false at a controlled rate).
    n_resamples : int, default: ``1000``
        Bootstrap resamples (csranks' ``R``; ``method="bootstrap"``).
    cluster : bool, default: ``False``
        Clustered paired tests (``"pairs"``) or resampling of item groups (``"bootstrap"``;
        ``sigma_jk`` is then the bootstrap SD of the difference and no studentization is done).
    studentize : bool or "auto", default: ``"auto"``
        ``method="bootstrap"``: recompute the SE of every pair difference in every resample
        (bootstrap-t). Without it the joint coverage is 0.90-0.94 instead of 0.95 when models
        tie at 30-100 items (statistics audit, section 3). ``"auto"`` studentizes when the
        ``n_resamples x M x M`` statistics fit in 256 MB and there are at most 2,000 items
        (above that the two agree).
    rng : None, int or numpy.random.Generator, default: 0
    batch : int, optional
        Passed to the engine; does not change the result.
    pair_table : PairTable, optional
        ``method="pairs"``: reuse ``all_pairs(m, pairs="all", ...)`` already computed.
    progress : callable(done, total), optional
        Called as the bootstrap resamples are drawn (``total = n_resamples``); once with
        ``(1, 1)`` for ``method="pairs"``, which does not loop.

    Returns
    -------
    RankSets

    Warns
    -----
    SmallSampleWarning
        ``method="bootstrap"`` with fewer shared items (clusters) than a paired test needs to
        order two models at ``confidence_level`` (5 at 0.95; see the module docstring): every
        set is ``[1, M]``, ``better`` is all False. Also fewer than 30 items (clusters): the
        bootstrap sets are approximate.

    Notes
    -----
    ``rank`` is the model's position in the display order (by tier, then score), which
    always lies inside its simultaneous set. With ``method="pairs"`` on complete 0/1 scores
    (no ``pair_table``, no clusters), pairs whose exact McNemar p-value is bounded below
    ``alpha / P`` by the two models' correct counts alone are rejected without their exact
    test (screen-then-refine, :mod:`ranktrust.ranking._screen`): the sets, ``better``, tiers
    and order are exactly those of the full all-pairs computation. The bootstrap costs ``O(n_resamples * M^2)`` per
    step of the stepwise procedure (memory is bounded by chunking); studentizing adds
    ``O(n_resamples * M^2 * N)`` once.

    References
    ----------
    .. [1] Mogstad, Romano, Shaikh and Wilhelm, Rev. Econ. Stud. 91(1) (2024).

    Examples
    --------
    >>> import numpy as np
    >>> s = (np.random.default_rng(0).random((3, 2000)) < [[0.8], [0.5], [0.49]]).astype(float)
    >>> res = rank_sets(s)
    >>> res.could_be_first, res.rank_low.tolist(), res.rank_high.tolist()
    (['model_0'], [1, 2, 2], [1, 3, 3])
    """
    method, confidence_level, n_resamples, studentize, progress = _rank_sets_iv(
        method, confidence_level, n_resamples, studentize, progress)
    if method == "pairs":
        res = _from_pairs(m, confidence_level=confidence_level, simultaneous=simultaneous, adjust=adjust,
                          cluster=cluster, pair_table=pair_table)
        if progress is not None:
            progress(1, 1)
        return res
    rng = _validate.rng(rng)
    inp = matrix_input(m)
    s, models = inp.scores, inp.models
    n_models, n_items = s.shape
    theta = s.mean(axis=1)
    groups = inp.group_codes if _validate.cluster(cluster, inp.group_codes) else None

    def _result(low, high, mlow, mhigh, slow, shigh, better, student):
        _, order, _ = layers(better, theta)
        rank = np.empty(n_models, dtype=np.int64)
        rank[order] = np.arange(1, n_models + 1)
        return RankSets(
            models=models, scores=theta, rank=rank, rank_low=low, rank_high=high, marginal_low=mlow,
            marginal_high=mhigh, simultaneous_low=slow, simultaneous_high=shigh,
            confidence_level=float(confidence_level), simultaneous=bool(simultaneous),
            n_resamples=int(n_resamples), better=better, dropped=inp.dropped, method="bootstrap",
            studentized=bool(student), adjust=None, n_items=int(n_items),
        )

    if n_models == 1:
        one = np.ones(1, dtype=np.int64)
        return _result(one, one, one, one, one, one, np.zeros((1, 1), bool), False)
    k_min = min_units(float(confidence_level))
    if groups is not None:  # the units are clusters: compare cluster totals
        perm = np.argsort(groups, kind="stable")
        g = groups[perm]
        units = np.add.reduceat(s[:, perm], np.flatnonzero(np.r_[True, g[1:] != g[:-1]]), axis=1)
    else:
        units = s
    n_units = units.shape[1]
    if n_units < k_min:
        what = "item groups" if groups is not None else "items"
        warnings.warn(
            f"rank sets from only {n_units} {what[:-1] if n_units == 1 else what} (shared by all models): a paired test needs at least "
            f"{k_min} {what} on which two models differ to order them at {confidence_level:.0%}, so every "
            f"model's rank set is 1-{n_models} (no model is known to be #1)",
            SmallSampleWarning, stacklevel=2,
        )
        lo, hi = np.ones(n_models, dtype=np.int64), np.full(n_models, n_models, dtype=np.int64)
        return _result(lo, hi, lo.copy(), hi.copy(), lo.copy(), hi.copy(),
                       np.zeros((n_models, n_models), bool), False)
    if n_units < _FEW_UNITS:
        what = "item groups" if groups is not None else "items"
        warnings.warn(
            f"rank sets from only {n_units} {what}: the bootstrap is approximate with fewer than {_FEW_UNITS}; "
            "read them as rough (`method`='pairs' uses exact tests at any size)",
            SmallSampleWarning, stacklevel=2,
        )
    can = _n_differ(units) >= k_min
    student = (groups is None) and (
        studentize is True
        or (studentize == "auto" and n_units <= _STUDENT_MAX_UNITS
            and int(n_resamples) * n_models * n_models <= _STUDENT_CELLS))
    if cluster:     # bootstrap covariance of the means
        boot = resample_means(s, n_resamples=int(n_resamples), groups=groups, rng=rng, batch=batch,
                              progress=progress)
        z = boot - theta
        cov = np.atleast_2d(np.cov(z, rowvar=False))
    else:           # sample covariance of the per-item scores / N
        cov = np.atleast_2d(np.cov(s)) / n_items if n_items > 1 else np.zeros((n_models, n_models))
    v = np.diag(cov)
    var_d = v[:, None] + v[None, :] - 2 * cov
    # identical models (or a constant per-item gap): the variance of the difference is 0 up
    # to rounding; treat it as exactly 0 so the pair neither inflates the critical value
    # with rounding noise nor is ever rejected by it (only a nonzero gap can reject it)
    var_d[var_d <= 1e-12 * (v[:, None] + v[None, :])] = 0.0
    sigma = np.sqrt(var_d)
    np.fill_diagonal(sigma, 0.0)
    if not cluster:
        if student:
            w = weights(n_items, n_resamples=int(n_resamples), rng=rng)
            sc = _Studentized(s, w, theta, sigma)
            if progress is not None:
                progress(int(n_resamples), int(n_resamples))
        else:
            boot = resample_means(s, n_resamples=int(n_resamples), rng=rng, batch=batch, progress=progress)
            sc = _Scaled(boot - theta, sigma)
    else:
        sc = _Scaled(z, sigma)
    level = float(confidence_level)
    better = _simultaneous(theta, sigma, sc, level, can)
    sim_low, sim_high = rank_bounds(better)
    mar_low, mar_high = _marginal(theta, sigma, sc, level, can)
    low, high = (sim_low, sim_high) if simultaneous else (mar_low, mar_high)
    return _result(low, high, mar_low, mar_high, sim_low, sim_high, better, student)
