"""Unbiased pass@k, avg@N and maj@N from repeated 0/1 samples per item.

The sampling unit is the item: each item gets its own estimate (pass@k from its
``n_i`` samples with ``c_i`` correct), the model's score is the mean over items and
its confidence interval is a Wilson-type interval for a mean of values in [0, 1]
(:func:`bounded_mean_ci`), which stays valid near 0 and 1 where pass@k often lies.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .._analysis import analysis
from .. import _validate
from ..data import ScoreMatrix
from ..errors import ArgumentError, DataError, SmallSampleWarning
from ..results import Result
from .._kernel import clt_interval, nan_mean, normal_quantile, wilson_bounds

__all__ = ["pass_at_k", "pass_at_k_matrix", "PassAtK", "majority_at_n", "MajorityAtN", "item_mean_ci", "bounded_mean_ci"]


def _log_ratio(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """``log(C(n-c, k) / C(n, k))`` for ``n - c >= k``, as ``sum_{i=n-c+1}^{n} log1p(-k/i)``.

    The product form of Chen et al. (2021); the sum runs over a cumulative table so
    that every item is handled in one array operation.
    """
    top = int(n.max()) if n.size else 0
    i = np.arange(top + 1, dtype=np.float64)
    terms = np.zeros(top + 1)
    ok = i > k
    terms[ok] = np.log1p(-k / i[ok])
    table = np.cumsum(terms)  # table[j] = sum_{i=k+1}^{j} log1p(-k/i)  (0 for j <= k)
    return table[n] - table[n - c]


def pass_at_k(n: Any, c: Any, k: Any) -> Any:
    """Unbiased pass@k estimator ``1 - C(n-c, k) / C(n, k)`` for ``n`` samples with ``c`` correct.

    Scalars or arrays (broadcast), computed stably in log space as a product (no large
    binomial coefficients), exact to about 1e-12 for ``n`` up to millions. ``n - c < k``
    gives 1; ``c == 0`` gives 0. For the per-model pass@k of a :class:`~ranktrust.ScoreMatrix`
    with its interval over items, use :func:`pass_at_k_matrix`.

    Parameters
    ----------
    n : int or array_like
        Samples per item.
    c : int or array_like
        Correct samples per item.
    k : int or array_like
        The ``k`` of pass@k; ``1 <= k <= n``.

    Returns
    -------
    ndarray or float

    Raises
    ------
    ValueError
        ``c`` outside ``[0, n]`` or ``k`` outside ``[1, n]``.
    TypeError
        ``n`` is a ScoreMatrix (that is :func:`pass_at_k_matrix`).

    Notes
    -----
    ``C(n-c, k)/C(n, k) = prod_{i=n-c+1}^{n} (1 - k/i)`` [1]_. pass@1 equals the
    fraction correct ``c/n``.

    References
    ----------
    .. [1] M. Chen et al., "Evaluating Large Language Models Trained on Code",
       arXiv:2107.03374 (2021), eq. 1 and its numerically stable form.

    Examples
    --------
    >>> round(float(pass_at_k(10, 3, 1)), 12)
    0.3
    >>> round(float(pass_at_k(10, 3, 5)), 6)
    0.916667
    """
    if isinstance(n, ScoreMatrix):
        raise TypeError("pass_at_k(n, c, k) takes sample counts; for a ScoreMatrix use pass_at_k_matrix(m, k)")
    n_a, c_a, k_a = np.broadcast_arrays(np.asarray(n), np.asarray(c), np.asarray(k))
    for name, a in (("n", n_a), ("c", c_a), ("k", k_a)):
        if a.size and not np.all(np.asarray(a, dtype=np.float64) == np.round(np.asarray(a, dtype=np.float64))):
            raise ArgumentError(f"`{name}` must hold integers, got {a.ravel()[:3].tolist()}")
    n_a = n_a.astype(np.int64)
    c_a = c_a.astype(np.int64)
    k_a = k_a.astype(np.int64)
    if np.any((c_a < 0) | (c_a > n_a)):
        raise ArgumentError("`c` must lie in [0, n] (correct samples out of n)")
    if np.any((k_a < 1) | (k_a > n_a)):
        bad = int(k_a[(k_a < 1) | (k_a > n_a)].ravel()[0])
        raise ArgumentError(f"`k` must lie in [1, n]; got k={bad} with n={int(n_a.max())}")
    out = np.ones(n_a.shape, dtype=np.float64)
    need = (n_a - c_a) >= k_a
    for kk in np.unique(k_a[need]):
        sel = need & (k_a == kk)
        out[sel] = -np.expm1(_log_ratio(n_a[sel], c_a[sel], int(kk)))
    return out if out.ndim else float(out)


def item_mean_ci(
    values: np.ndarray,
    confidence_level: float,
    *,
    names: Sequence[str] | None = None,
    what: str = "score",
    quantile: str = "z",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean over items (last axis, NaN ignored) with its CLT (``quantile="z"``) or t
    (``quantile="t"``: ``n - 1`` df, as the SD is estimated) interval.

    Returns ``(mean, se, low, high, n)``; fewer than 2 items gives NaN SE and interval.
    A row whose items all have the same value (zero spread) would get a zero-width
    interval; its SE and interval are NaN instead, with a
    :class:`~ranktrust.errors.DegenerateDataWarning` (as in
    :func:`ranktrust.stats._intervals.score_ci`). ``names`` label the first axis (the
    models) and ``what`` the statistic in that warning.
    """
    return clt_interval(values, confidence_level, ddof=1, quantile=quantile, names=names,  # type: ignore[arg-type]
                        what=what, stacklevel=4)


def bounded_mean_ci(
    values: np.ndarray, confidence_level: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean over items of per-item values in [0, 1] with a Wilson-type interval.

    Returns ``(mean, se, low, high, n)`` over the last axis (NaN ignored); ``se`` is the
    usual ``sd / sqrt(n)``. Never NaN for ``n >= 1``, also when every value is 1.

    Notes
    -----
    A quasi-binomial Wilson interval: the Wilson score interval with the effective number of
    items ``n / phi``, where ``phi = s^2 / (m (1 - m))`` is the dispersion relative to 0/1
    values (``phi <= 1`` for any values in [0, 1], with equality for 0/1 values). Near 0 or 1
    the sample rarely shows the items that carry the variance, so ``s^2`` (and the CLT
    interval) is too small; ``phi`` (from the ``ddof=0`` variance, so exactly 1 for 0/1 values)
    is therefore shrunk towards the 0/1 bound 1 with weight ``z^2`` against ``n_info``
    informative items (values strictly inside (0, 1), plus the smaller of the counts of 0s and
    1s): ``phi~ = (n_info phi + z^2) / (n_info + z^2)``. For 0/1 values this is exactly the
    Wilson interval; far from 0 and 1, with many informative items, it is close to the CLT
    interval. Coverage (``bench/bench_coverage.py``, 2,000 replications, 8 runs per item):
    0.94-0.99 for pass@1/4/8 at 30-500 items, including pass@4 = 0.96 and pass@8 = 0.99, where
    the CLT interval covered 0.24-0.90.

    References
    ----------
    .. [1] E. B. Wilson, JASA 22 (1927) 209-212.
    .. [2] L. D. Brown, T. T. Cai and A. DasGupta, "Interval estimation for a binomial
       proportion", Statist. Sci. 16 (2001) 101-133.
    """
    v = np.asarray(values, dtype=np.float64)
    ok = ~np.isnan(v)
    n = ok.sum(axis=-1)
    z = normal_quantile(confidence_level)
    mean = nan_mean(v)
    with np.errstate(invalid="ignore", divide="ignore"):
        dev = np.where(ok, v - mean[..., None], 0.0)
        var = np.where(n > 1, (dev**2).sum(axis=-1) / np.maximum(n - 1, 1), np.nan)
        se = np.sqrt(var / n)
        pq = mean * (1 - mean)
        var0 = (dev**2).sum(axis=-1) / np.maximum(n, 1)  # <= m (1 - m) for values in [0, 1]
        phi = np.where((pq > 0) & (var0 > 0), np.minimum(var0 / np.where(pq > 0, pq, 1.0), 1.0), 1.0)
        inner = np.sum(ok & (v > 0) & (v < 1), axis=-1) + np.minimum(
            np.sum(ok & (v == 0), axis=-1), np.sum(ok & (v == 1), axis=-1))
        phi = (inner * phi + z * z) / (inner + z * z)
        neff = n / phi
        low, high = wilson_bounds(mean, neff, z)
    bad = n < 1
    return mean, se, np.where(bad, np.nan, low), np.where(bad, np.nan, high), n


def _binary_counts(m: ScoreMatrix, what: str) -> tuple[np.ndarray, np.ndarray]:
    if not m.is_binary:
        raise DataError(
            f"{what} needs 0/1 scores (correct or not per sample), but the scores of "
            f"{m.source or 'this matrix'} are not all 0 or 1; use the mean score (avg@N) instead"
        )
    d = m.data
    n = np.sum(~np.isnan(d), axis=2)
    c = np.nansum(d, axis=2).astype(np.int64)
    return n, c


@dataclass(frozen=True, eq=False)
class PassAtK(Result):
    """pass@k per model, items as the sampling unit.

    Attributes
    ----------
    models : tuple of str
    k : ndarray, shape (n_k,)
    estimate, se, ci_low, ci_high : ndarray, shape (n_models, n_k)
        Mean over items of the per-item unbiased pass@k, its SE over items and the
        Wilson-type interval of :func:`bounded_mean_ci` (in [0, 1]; never NaN, also when
        every item is solved).
    n_items : ndarray, shape (n_models, n_k)
        Items with at least ``k`` samples (the others are left out).
    confidence_level : float
    """

    models: tuple[str, ...]
    k: np.ndarray
    estimate: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n_items: np.ndarray
    confidence_level: float = 0.95

    def to_dict(self) -> dict[str, Any]:
        from ..results import jsonable

        return jsonable({
            "confidence_level": self.confidence_level,
            "models": [
                {
                    "model": mod,
                    "pass_at": {
                        str(int(kk)): {
                            "estimate": self.estimate[j, q], "ci_low": self.ci_low[j, q],
                            "ci_high": self.ci_high[j, q], "n_items": int(self.n_items[j, q]),
                        }
                        for q, kk in enumerate(self.k)
                    },
                }
                for j, mod in enumerate(self.models)
            ],
        })


@analysis
def pass_at_k_matrix(m: ScoreMatrix, k: Any, *, confidence_level: float = 0.95) -> PassAtK:
    """pass@k per model from 0/1 scores with runs, with a confidence interval over items.

    Per model, the mean over items of the per-item unbiased estimate (:func:`pass_at_k` on
    the item's ``n_i`` samples with ``c_i`` correct), items with fewer than ``k`` samples left
    out, with the Wilson-type interval of :func:`bounded_mean_ci`.

    Parameters
    ----------
    m : ScoreMatrix
        0/1 scores ``(models, items, runs)``; NaN = not sampled.
    k : int or sequence of int
        The ``k`` values of pass@k.
    confidence_level : float, default: ``0.95``

    Returns
    -------
    PassAtK

    Raises
    ------
    DataError
        Scores that are not 0/1.

    Warns
    -----
    SmallSampleWarning
        No item has ``k`` samples (that ``k``'s estimate is NaN).
    """
    confidence_level = _validate.confidence_level(confidence_level)
    k_list = [k] if np.ndim(k) == 0 else list(k)
    if not k_list:
        raise ArgumentError("`k` must name at least one k")
    k_arr = np.asarray(_validate.counts(k_list, "k"), dtype=np.int64)
    n, c = _binary_counts(m, "pass@k")
    est = np.full((m.n_models, k_arr.size), np.nan)
    se, lo, hi = est.copy(), est.copy(), est.copy()
    n_items = np.zeros((m.n_models, k_arr.size), dtype=np.int64)
    for q, kk in enumerate(k_arr):  # one pass per k (a handful), vectorised over models x items
        ok = n >= kk
        if not ok.any():
            warnings.warn(
                f"pass@{kk} needs at least {kk} samples per item, but no item has that many "
                f"(most: {int(n.max())}); the estimate is NaN",
                SmallSampleWarning, stacklevel=2,
            )
            continue
        vals = np.full(n.shape, np.nan)
        vals[ok] = pass_at_k(n[ok], c[ok], kk)
        mean, s, low, high, cnt = bounded_mean_ci(vals, confidence_level)
        est[:, q], se[:, q] = mean, s
        lo[:, q], hi[:, q] = low, high
        n_items[:, q] = cnt
    return PassAtK(tuple(m.models), k_arr, est, se, lo, hi, n_items, confidence_level)


@dataclass(frozen=True, eq=False)
class MajorityAtN(Result):
    """maj@N per model (see :func:`majority_at_n`), items as the sampling unit.

    Attributes
    ----------
    models : tuple of str
    estimate, se, ci_low, ci_high : ndarray, shape (n_models,)
        Mean over items of the per-item majority value (1, 1/2 for a tie, or 0), its SE over
        items and the Wilson-type interval of :func:`bounded_mean_ci`.
    n_items : ndarray of int, shape (n_models,)
        Items with at least one sample.
    confidence_level : float
    """

    models: tuple[str, ...]
    estimate: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n_items: np.ndarray
    confidence_level: float = 0.95


def majority_at_n(m: ScoreMatrix, *, confidence_level: float = 0.95) -> MajorityAtN:
    """maj@N per model from 0/1 samples: an item counts as solved when a strict
    majority of its samples is correct (a tie counts 1/2).

    Returns a :class:`MajorityAtN` (``estimate``, ``ci_low``, ``ci_high`` ... over models); the
    interval is that of :func:`bounded_mean_ci` (per-item values 0, 1/2 or 1).

    Notes
    -----
    Only correctness is known, not the answers themselves, so this is the
    "the correct answer wins a strict majority" version of majority voting; a
    plurality vote over answers can be correct more often (when the wrong answers
    disagree with each other), so read it as a lower bound of answer-level maj@N.
    """
    confidence_level = _validate.confidence_level(confidence_level)
    n, c = _binary_counts(m, "maj@N")
    with np.errstate(invalid="ignore"):
        vals = np.where(n > 0, np.sign(2 * c - n) * 0.5 + 0.5, np.nan)
    mean, se, low, high, cnt = bounded_mean_ci(vals, confidence_level)
    return MajorityAtN(tuple(m.models), mean, se, low, high, cnt, confidence_level)
