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
cluster) bootstrap of :mod:`ranktrust.resample.engine` rather than csranks' parametric
normal draws; both are valid to first order ([1]_ section 3).

References
----------
.. [1] M. Mogstad, J. P. Romano, A. M. Shaikh and D. Wilhelm, "Inference for Ranks with
   Applications to Mobility across Neighbourhoods and Academic Achievement across
   Countries", Review of Economic Studies 91(1), 476-518 (2024).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import SmallSampleWarning
from ..results import Result, jsonable
from ..resample.engine import matrix_input, resample_means

__all__ = ["RankSets", "rank_sets", "tiers_from_rank_sets", "tiers_from_sets", "tiers_of"]

_CHUNK_CELLS = 2**23  # bound on resamples x M x M cells held at once
_FEW_UNITS = 30      # below this many items (clusters) the bootstrap sets are warned about as approximate


@dataclass(frozen=True)
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

    @property
    def could_be_first(self) -> list[str]:
        """Models whose rank set contains 1, best score first."""
        order = np.lexsort((np.arange(len(self.models)), -self.scores))
        return [self.models[k] for k in order if self.rank_low[k] == 1]

    def to_dict(self) -> dict[str, Any]:
        order = np.lexsort((np.arange(len(self.models)), -self.scores))
        rows = [
            {
                "model": self.models[k], "score": self.scores[k], "rank": self.rank[k],
                "rank_low": self.rank_low[k], "rank_high": self.rank_high[k],
                "marginal_low": self.marginal_low[k], "marginal_high": self.marginal_high[k],
            }
            for k in order
        ]
        return jsonable({
            "confidence_level": self.confidence_level,
            "simultaneous": self.simultaneous,
            "n_resamples": self.n_resamples,
            "models": rows,
            "could_be_first": self.could_be_first,
            "dropped": self.dropped,
        })


class _Scaled:
    """Bootstrap-scaled pair differences ``(z_j - z_k) / sigma_jk``, computed chunk by chunk.

    float32 and in-place operations: this is the O(n_resamples * M^2) inner loop.
    Pairs with ``sigma_jk = 0`` (identical per-item scores up to a constant) count as 0:
    they never raise the critical value, and they are rejected only when their gap is
    nonzero (then it is exact: the models differ by the same amount on every item).
    """

    def __init__(self, z: np.ndarray, sigma: np.ndarray) -> None:
        self.z = z.astype(np.float32)
        with np.errstate(divide="ignore"):
            self.inv = np.where(sigma > 0, 1.0 / np.where(sigma > 0, sigma, 1.0), 0.0).astype(np.float32)
        m = sigma.shape[0]
        self.step = max(1, _CHUNK_CELLS // (m * m))
        self.buf = np.empty((min(self.step, len(z)), m, m), dtype=np.float32)

    def chunks(self):
        for a in range(0, len(self.z), self.step):
            zc = self.z[a:a + self.step]
            buf = self.buf[: len(zc)]
            np.subtract(zc[:, :, None], zc[:, None, :], out=buf)
            np.multiply(buf, self.inv, out=buf)
            yield a, buf


def _mask_add(active: np.ndarray) -> np.ndarray:
    return np.where(active, 0.0, -np.inf).astype(np.float32)


def _max_over(sc: _Scaled, active: np.ndarray) -> np.ndarray:
    """Bootstrap max of the scaled differences over ``active`` pairs: (B,)."""
    add = _mask_add(active)
    out = np.empty(len(sc.z))
    for a, buf in sc.chunks():
        np.add(buf, add, out=buf)
        out[a:a + len(buf)] = buf.reshape(len(buf), -1).max(axis=1)
    return out


def _max_per_model(sc: _Scaled, row: np.ndarray, col: np.ndarray) -> np.ndarray:
    """(B, M): for model j the max over its active pairs (j, k) [row] and (k, j) [col]."""
    add_row, add_col_t = _mask_add(row), _mask_add(col).T     # col[j, k] is pair (k, j)
    out = np.empty(sc.z.shape)
    for a, buf in sc.chunks():
        c = (buf + add_col_t).max(axis=1)                        # over k of pair (k, j)
        np.add(buf, add_row, out=buf)
        out[a:a + len(buf)] = np.maximum(buf.max(axis=2), c)
    return out


def min_units(level: float) -> int:
    """Fewest items on which two models must differ before a paired test at ``level`` can
    order them: the smallest ``k`` with ``0.5^k <= 1 - level`` (5 at 0.95)."""
    return max(1, int(math.ceil(math.log2(1.0 / (1.0 - level)) - 1e-9)))


def _n_differ(u: np.ndarray) -> np.ndarray:
    """(M, M) number of units (items or cluster totals, columns of ``u``) on which two rows differ."""
    m, n = u.shape
    if np.all((u == 0) | (u == 1)):  # 0/1: #(1,0) + #(0,1) = a_j + a_k - 2 <u_j, u_k>, one matrix product
        a = u.sum(axis=1)
        return np.rint(a[:, None] + a[None, :] - 2.0 * (u @ u.T)).astype(np.int64)
    scale = np.maximum(np.abs(u).max(initial=0.0), 1.0)
    tol = 1e-9 * scale
    out = np.empty((m, m), dtype=np.int64)
    step = max(1, _CHUNK_CELLS // max(1, m * n))
    for a in range(0, m, step):  # chunks of rows (memory), vectorised over pairs and units
        out[a:a + step] = (np.abs(u[a:a + step, None, :] - u[None, :, :]) > tol).sum(axis=2)
    return out


def _simultaneous(theta, sigma, z, level, can=None):
    sc = _Scaled(z, sigma)
    m = len(theta)
    diff = theta[:, None] - theta[None, :]
    if can is not None:  # pairs that differ on too few items can never be ordered
        diff = np.where(can, diff, -np.inf)
    active = ~np.eye(m, dtype=bool)
    rejected = np.zeros((m, m), dtype=bool)
    while active.any():
        c = np.quantile(_max_over(sc, active), level)
        new = active & (diff > sigma * c)
        if not new.any():
            break
        rejected |= new
        active &= ~new
    return rejected


def _marginal(theta, sigma, z, level, can=None):
    sc = _Scaled(z, sigma)
    m = len(theta)
    diff = theta[:, None] - theta[None, :]
    if can is not None:
        diff = np.where(can, diff, -np.inf)
    off = ~np.eye(m, dtype=bool)
    row, col = off.copy(), off.copy()          # row[j,k]: (j,k) in j's problem; col[j,k]: (k,j)
    rej_row = np.zeros((m, m), dtype=bool)
    rej_col = np.zeros((m, m), dtype=bool)
    while row.any() or col.any():
        c = np.quantile(_max_per_model(sc, row, col), level, axis=0)     # (M,)
        c = np.where(np.isfinite(c), c, 0.0)   # -inf: model j has no open pair left (masked below)
        new_row = row & (diff > sigma * c[:, None])
        new_col = col & (diff.T > sigma * c[:, None])
        if not (new_row.any() or new_col.any()):
            break
        rej_row |= new_row
        rej_col |= new_col
        row &= ~new_row
        col &= ~new_col
    return 1 + rej_col.sum(axis=1), m - rej_row.sum(axis=1)


def _rank_sets_iv(confidence_level, n_resamples):
    if not (0 < float(confidence_level) < 1):
        raise ValueError(f"`confidence_level` must be in (0, 1); got {confidence_level!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 10:
        raise ValueError(f"`n_resamples` must be an integer >= 10; got {n_resamples!r}")


def rank_sets(
    m,
    *,
    confidence_level: float = 0.95,
    simultaneous: bool = True,
    n_resamples: int = 1000,
    cluster: bool = False,
    rng=None,
    batch: int | None = None,
) -> RankSets:
    """Confidence sets for every model's rank, marginal and simultaneous.

    Parameters
    ----------
    m : ScoreMatrix or ndarray (M, N)
        Per-item scores; with missing scores the shared items are used (``dropped``).
    confidence_level : float, default: ``0.95``
    simultaneous : bool, default: ``True``
        Which sets ``rank_low``/``rank_high`` (and ``could_be_first``) report; both
        kinds are always computed.
    n_resamples : int, default: ``1000``
        Bootstrap resamples (csranks' ``R``).
    cluster : bool, default: ``False``
        Resample item groups (``m.groups``); ``sigma_jk`` is then the bootstrap SD of
        the difference.
    rng : None, int or numpy.random.Generator
    batch : int, optional
        Passed to the engine; does not change the result.

    Returns
    -------
    RankSets

    Warns
    -----
    SmallSampleWarning
        Fewer shared items (clusters) than a paired test needs to order two models at
        ``confidence_level`` (5 at 0.95; see the module docstring): every set is
        ``[1, M]``, ``better`` is all False. Also fewer than 30 items (clusters): the
        bootstrap sets are approximate and tend to be too narrow (about 10% instead of 5%
        wrong orderings among 3 equal models at 10-20 items, seeded simulation).

    Notes
    -----
    Cost is ``O(n_resamples * M^2)`` per step of the stepwise procedure (memory is
    bounded by chunking). See the module docstring for the procedure. A pair of models
    that differ on fewer than ``k_min`` items is never ordered.

    References
    ----------
    .. [1] Mogstad, Romano, Shaikh and Wilhelm, Rev. Econ. Stud. 91(1) (2024).

    Examples
    --------
    >>> import numpy as np
    >>> s = (np.random.default_rng(0).random((3, 2000)) < [[0.8], [0.5], [0.49]]).astype(float)
    >>> res = rank_sets(s, rng=0)
    >>> res.could_be_first, res.rank_low.tolist(), res.rank_high.tolist()
    (['model_0'], [1, 2, 2], [1, 3, 3])
    """
    _rank_sets_iv(confidence_level, n_resamples)
    inp = matrix_input(m)
    s, models = inp.scores, inp.models
    n_models, n_items = s.shape
    theta = s.mean(axis=1)
    rank = 1 + (theta[None, :] > theta[:, None]).sum(axis=1)
    groups = None
    if cluster:
        if inp.group_codes is None:
            raise ValueError("`cluster=True` needs item groups (ScoreMatrix.groups); the input has none")
        groups = inp.group_codes
    if n_models == 1:
        one = np.ones(1, dtype=np.int64)
        return RankSets(models, theta, rank, one, one, one, one, one, one, float(confidence_level),
                        bool(simultaneous), int(n_resamples), np.zeros((1, 1), bool), inp.dropped)
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
        return RankSets(
            models=models, scores=theta, rank=rank, rank_low=lo, rank_high=hi, marginal_low=lo.copy(),
            marginal_high=hi.copy(), simultaneous_low=lo.copy(), simultaneous_high=hi.copy(),
            confidence_level=float(confidence_level), simultaneous=bool(simultaneous),
            n_resamples=int(n_resamples), better=np.zeros((n_models, n_models), bool), dropped=inp.dropped,
        )
    if n_units < _FEW_UNITS:
        what = "item groups" if groups is not None else "items"
        warnings.warn(
            f"rank sets from only {n_units} {what}: the bootstrap is approximate with fewer than {_FEW_UNITS} "
            "and the sets tend to be too narrow (simulated with 3 equal models at 10-20 items: a pair is "
            "wrongly ordered about 10% of the time at 95%, not 5%); read them as rough",
            SmallSampleWarning, stacklevel=2,
        )
    can = _n_differ(units) >= k_min
    boot = resample_means(s, n_resamples=int(n_resamples), groups=groups, rng=rng, batch=batch)
    z = boot - theta
    if cluster:     # bootstrap covariance of the means
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
    level = float(confidence_level)
    better = _simultaneous(theta, sigma, z, level, can)
    sim_low = 1 + better.sum(axis=0)
    sim_high = n_models - better.sum(axis=1)
    mar_low, mar_high = _marginal(theta, sigma, z, level, can)
    low, high = (sim_low, sim_high) if simultaneous else (mar_low, mar_high)
    return RankSets(
        models=models, scores=theta, rank=rank, rank_low=low, rank_high=high,
        marginal_low=mar_low, marginal_high=mar_high, simultaneous_low=sim_low,
        simultaneous_high=sim_high, confidence_level=level, simultaneous=bool(simultaneous),
        n_resamples=int(n_resamples), better=better, dropped=inp.dropped,
    )


_rank_sets = rank_sets


def tiers_from_sets(rank_low: np.ndarray) -> np.ndarray:
    """Tier per model (1-based) from the lower ends of rank confidence sets.

    Rule: tier 1 = the models whose set contains rank 1 ("could be #1"). With ``K``
    models placed in tiers so far, the next tier = the remaining models whose set
    contains rank ``K + 1`` (``rank_low <= K + 1``); if none does, the remaining
    models with the smallest ``rank_low``. Repeat until every model is placed.
    """
    rank_low = np.asarray(rank_low)
    tier = np.zeros(len(rank_low), dtype=np.int64)
    placed, t = 0, 1
    while (tier == 0).any():
        rest = tier == 0
        take = rest & (rank_low <= placed + 1)
        if not take.any():
            take = rest & (rank_low == rank_low[rest].min())
        tier[take] = t
        placed += int(take.sum())
        t += 1
    return tier


def tiers_from_rank_sets(m, *, confidence_level: float = 0.95, rng=None, rank_sets: RankSets | None = None,
                         **kw: Any):
    """Tiers from simultaneous rank confidence sets (see :func:`tiers_from_sets`).

    Parameters
    ----------
    m : ScoreMatrix or ndarray (M, N)
    confidence_level : float, default: ``0.95``
    rng : None, int or numpy.random.Generator
    rank_sets : RankSets, optional
        Sets already computed for ``m`` (reused; nothing is resampled).
    **kw
        Passed to :func:`rank_sets` (``n_resamples``, ``cluster``, ``simultaneous``, ``batch``).

    Returns
    -------
    ranktrust.ranking.tiers.Tiers
        ``method="rank-sets"``.
    """
    if rank_sets is None:
        rank_sets = _rank_sets(m, confidence_level=confidence_level, rng=rng, **kw)
    return tiers_of(rank_sets)


def tiers_of(rs: RankSets):
    """The :class:`~ranktrust.ranking.tiers.Tiers` of computed rank sets (no new resampling)."""
    from .tiers import Tiers

    order = np.lexsort((np.arange(len(rs.models)), -rs.scores))
    return Tiers(models=rs.models, tier=tiers_from_sets(rs.rank_low), method="rank-sets",
                 order=order, confidence_level=rs.confidence_level)
