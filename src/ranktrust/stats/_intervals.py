"""Per-model score intervals: CLT, t, Wilson and clustered standard errors.

The array-level core (:func:`score_ci`) takes a ``(n_models, n_items)`` float array
(``NaN`` = not scored; each model uses its own scored items) and returns arrays. The
labelled layer (:func:`intervals`) takes a :class:`~ranktrust.ScoreMatrix`.

References
----------
.. [A] "Is the #1 AI Model Really #1?", Towards Data Science (2026), section on error bars.
.. [M] E. Miller, "Adding Error Bars to Evals: A Statistical Approach to Language Model
   Evaluations", arXiv:2411.00640 (2024), eqs. 1-4.
.. [W] E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
   JASA 22 (1927) 209-212.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Sequence, TypedDict

import numpy as np

from .._analysis import analysis
from .. import _validate
from .._validate import Progress, SeedLike
from .._kernel import is_binary, nan_mean, normal_quantile, t_quantile, warn_zero_spread, wilson_bounds, zero_spread
from ..errors import ArgumentError, DataError, SmallSampleWarning
from ..results import Note, NoteJSON, Result

if TYPE_CHECKING:  # pragma: no cover
    from ..data import ScoreMatrix
    from ..resample import BootstrapIntervals

__all__ = ["ScoreIntervals", "ScoreCI", "intervals", "bootstrap_ci", "score_ci", "cluster_se"]

IntervalMethod = Literal["auto", "clt", "t", "wilson", "cluster", "percentile", "bca"]
_METHODS = ("auto", "clt", "t", "wilson", "cluster", "percentile", "bca")


# ---------------------------------------------------------------- shared checks

from .._validate import confidence_level as check_confidence_level  # noqa: E402  (one validator)


MIN_CLUSTERS = 20


def warn_few_clusters(n_clusters: int, stacklevel: int = 3) -> None:
    """Warn that a clustered SE from fewer than :data:`MIN_CLUSTERS` groups is unreliable."""
    if n_clusters < MIN_CLUSTERS:
        warnings.warn(
            f"clustered SE from only {n_clusters} item groups: with fewer than {MIN_CLUSTERS} clusters "
            "it is itself very noisy (Cameron and Miller 2015); intervals and tests use the small-cluster "
            "correction (CR2 with a t reference on at most G - 1 df), so they are wide; compare with "
            "`cluster`=False",
            SmallSampleWarning, stacklevel=stacklevel,
        )


#: a clustered 0/1 interval from fewer groups than this, with its score within :data:`EDGE_BAND` of 0 or 1, is
#: approximate: the 95% interval covered 0.84-0.92 at 5 groups and 0.88-0.95 at 8 (ICC 0.1-0.3,
#: true accuracy 2-5% or 95%), and 0.91-0.94 at 10-12 groups with ICC 0.5; from 20 groups 0.93-0.98 in every cell
#: measured (``bench/bench_cluster_edges.py``, R = 1,500). The threshold is :data:`MIN_CLUSTERS`'s
EDGE_MIN_CLUSTERS = 20
EDGE_BAND = 0.1
#: the lowest coverage of the 95% interval measured in that region (5 groups, ICC 0.3, accuracy 5%)
EDGE_COVERAGE_LOW = 0.84


def edge_note(models: Sequence[str], score: np.ndarray, n_clusters: int, confidence_level: float,
              stacklevel: int = 3) -> Note | None:
    """The ``cluster_edge`` note (and its warning, which carries the record as ``.note``) for the clustered 0/1
    intervals that are approximate.

    A model's clustered interval is approximate when its items come from fewer than :data:`EDGE_MIN_CLUSTERS`
    groups and its score lies within :data:`EDGE_BAND` of 0 or 1: the mean of a few cluster proportions near a
    bound is skewed (many clusters hold no success, or no failure), its variance and skewness are poorly
    estimated from them, and the interval can cover less than stated (down to :data:`EDGE_COVERAGE_LOW`).
    """
    if n_clusters >= EDGE_MIN_CLUSTERS:
        return None
    s = np.atleast_1d(np.asarray(score, dtype=np.float64))
    near = (s <= EDGE_BAND) | (s >= 1 - EDGE_BAND)
    if not np.any(near):
        return None
    who = [str(models[j]) for j in np.flatnonzero(near)]
    note = Note("cluster_edge", {"models": who, "n_clusters": int(n_clusters), "min_clusters": EDGE_MIN_CLUSTERS,
                                 "band": EDGE_BAND, "confidence_level": float(confidence_level),
                                 "coverage_low": EDGE_COVERAGE_LOW})
    w = SmallSampleWarning(
        f"clustered SE from only {n_clusters} item groups, and {_who(near, models)} a score of at most "
        f"{EDGE_BAND:.0%} or at least {1 - EDGE_BAND:.0%}: the clustered {confidence_level:.0%} interval is "
        f"approximate there (with fewer than {EDGE_MIN_CLUSTERS} groups the groups' scores near a bound are "
        f"skewed and many hold no success or no failure; a 95% interval covered as little as "
        f"{EDGE_COVERAGE_LOW:g} in simulations); more groups give a firm interval, and `cluster`=False describes "
        "these groups only")
    w.note = note       # type: ignore[attr-defined]  # the record, for a caller that collects warnings as notes
    warnings.warn(w, stacklevel=stacklevel)
    return note


# ---------------------------------------------------------------- array core
class ScoreCI(NamedTuple):
    """Arrays returned by :func:`score_ci` (one entry per model)."""

    score: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: np.ndarray
    df: np.ndarray | None = None
    """Degrees of freedom of the t quantile (``"t"``: n - 1; ``"cluster"``: the small-cluster df;
    ``None`` for ``"clt"`` and ``"wilson"``)."""


ClusterCorrection = Literal["cr2", "cr1", "none"]
_CORRECTIONS = ("cr2", "cr1", "none")


def _check_correction(correction: Any) -> str:
    return str(_validate.choice(correction, "cluster_correction", _CORRECTIONS))


def cluster_sums(values: np.ndarray, group_codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-row cluster sums of residuals and per-row cluster sizes.

    Returns ``(mean, sums, counts, n)``: ``sums[..., g] = sum_{i in g} (s_i - mean)`` and
    ``counts[..., g]`` = scored items of the row in cluster ``g`` (NaN cells left out).
    """
    x = np.asarray(values, dtype=np.float64)
    codes = np.asarray(group_codes)
    if codes.shape != (x.shape[-1],):
        raise ArgumentError(
            f"`group_codes` must have one code per item ({x.shape[-1]}), got shape {codes.shape}"
        )
    scored = ~np.isnan(x)
    n = scored.sum(axis=-1)
    mean = nan_mean(x)
    with np.errstate(invalid="ignore"):
        resid = np.where(scored, x - mean[..., None], 0.0)
    perm = np.argsort(codes, kind="stable")
    sorted_codes = codes[perm]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    sums = np.add.reduceat(resid[..., perm], starts, axis=-1)
    counts = np.add.reduceat(scored[..., perm].astype(np.float64), starts, axis=-1)
    return mean, sums, counts, n


def cluster_variance(
    sums2: np.ndarray, counts: np.ndarray, n: np.ndarray, correction: str
) -> tuple[np.ndarray, np.ndarray]:
    """Clustered variance of a mean and its degrees of freedom, from per-cluster pieces.

    Parameters
    ----------
    sums2 : ndarray, shape (..., G)
        Squared cluster sums of residuals, ``(sum_{i in g} (s_i - mean))^2``.
    counts : ndarray, shape (..., G)
        Items per cluster (0 for a cluster the row does not have).
    n : ndarray, shape (...)
        Items per row.
    correction : {"cr2", "cr1", "none"}
        ``"none"``: [M, eq. 4] (CR0) with infinite df (normal quantile). ``"cr1"``: CR0 x
        ``G/(G-1)`` with ``G - 1`` df, equal to statsmodels' cluster covariance with
        ``use_correction=True`` for a mean. ``"cr2"``: the bias-reduced linearisation of Bell and
        McCaffrey (each cluster sum divided by ``1 - n_g/n``, the leverage of the cluster) with
        their Satterthwaite df; both reduce to CR1 and ``G - 1`` when clusters have equal size.

    Returns
    -------
    (var, df) : ndarrays of shape (...)
        NaN where a row has fewer than 2 non-empty clusters.

    Notes
    -----
    For a mean (an intercept-only regression) the CR2 adjustment matrix ``(I - H_gg)^{-1/2}``
    acts on a cluster sum as the factor ``(1 - p_g)^{-1/2}`` with ``p_g = n_g/n``, and the
    Bell-McCaffrey df ``(sum lambda)^2 / sum lambda^2`` (Imbens and Kolesar 2016, eq. for
    ``K_BM``, with a homoskedastic working model) has the closed form
    ``1 / (sum_g p_g^2 + (sum_g w_g)^2 - sum_g w_g^2)`` with ``w_g = p_g^2 / (1 - p_g)``.
    """
    n = np.asarray(n, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    G = np.sum(counts > 0, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        v0 = np.sum(sums2, axis=-1) / (n * n)
        if correction == "none":
            var, df = v0, np.full(np.shape(v0), np.inf)
        elif correction == "cr1":
            var, df = v0 * G / (G - 1), (G - 1).astype(np.float64)
        else:
            p = counts / n[..., None]
            one = p >= 1.0
            w1 = np.where(one, 0.0, 1.0 / np.where(one, 1.0, 1.0 - p))
            var = np.sum(sums2 * w1, axis=-1) / (n * n)
            w = p * p * w1
            sw = np.sum(w, axis=-1)
            df = 1.0 / (np.sum(p * p, axis=-1) + sw * sw - np.sum(w * w, axis=-1))
    bad = G < 2
    return np.where(bad, np.nan, var), np.where(bad, np.nan, df)


def cluster_se(values: np.ndarray, group_codes: np.ndarray, *, correction: ClusterCorrection = "none") -> np.ndarray:
    """Clustered standard error of the mean of each row [M, eq. 4].

    ``SE_C = sqrt( sum_c ( sum_{i in c} (s_i - mean) )^2 ) / n``, with NaN cells left
    out (each row uses its own scored items).

    Parameters
    ----------
    values : ndarray, shape (..., n_items)
        Scores (or paired differences); NaN = not scored.
    group_codes : ndarray of int, shape (n_items,)
        Cluster code of every item.
    correction : {"none", "cr1", "cr2"}, default: ``"none"``
        Small-cluster correction (see :func:`cluster_variance`); ``"none"`` is [M, eq. 4] as
        printed. :func:`score_ci` uses ``"cr2"``.

    Returns
    -------
    ndarray, shape (...)
        The clustered SE per row (NaN where a row has no scored item).

    Notes
    -----
    With one item per cluster this is ``sd/sqrt(n)`` with the population (``ddof=0``)
    standard deviation, i.e. the ``"clt"`` SE.

    References
    ----------
    .. [1] E. Miller, arXiv:2411.00640 (2024), eq. 4.
    """
    _check_correction(correction)
    mean, sums, counts, n = cluster_sums(values, group_codes)
    if correction == "none":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, np.sqrt(np.sum(sums * sums, axis=-1)) / n, np.nan)
    var, _df = cluster_variance(sums * sums, counts, n, correction)
    return np.sqrt(var)


def _clip_unit(x: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Clip bounds to [0, 1] when every scored value lies in [0, 1] (a mean cannot leave it)."""
    v = x[~np.isnan(x)]
    if v.size and np.all((v >= 0) & (v <= 1)):
        with np.errstate(invalid="ignore"):
            return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    return low, high


#: degrees of freedom of the clustered SE (``G - 1`` for equal clusters, the Bell-McCaffrey df otherwise) from
#: which the skewness-corrected arm joins a clustered 0/1 interval: below them the skewness of the cluster sums
#: is too noisy to use (at 5 equal clusters it widened mid-range intervals by a quarter; with SWE-bench's 12
#: very unequal repositories, df 3.3, by 40% for no gain in coverage)
SKEW_MIN_DF = 9


def _hall_bounds(mean: np.ndarray, se: np.ndarray, tq: np.ndarray, sums: np.ndarray, counts: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Hall's (1992) skewness-corrected t interval of a mean from its cluster sums of residuals.

    ``T = (mean - mu) / se`` is mapped by the monotone ``g(T) = T + a T^2 + a^2 T^3 / 3 + b`` with
    ``a = gamma / (3 sqrt(G))``, ``b = gamma / (6 sqrt(G))`` and ``gamma`` the skewness of the cluster sums;
    ``g(T)`` is referred to the t quantile ``tq``, so ``mu`` lies in ``[mean - g^-1(tq) se, mean - g^-1(-tq) se]``.
    """
    has = counts > 0
    G = np.sum(has, axis=-1).astype(np.float64)
    e = np.where(has, sums, 0.0)
    m2 = np.sum(e * e, axis=-1) / G
    m3 = np.sum(e * e * e, axis=-1) / G
    gamma = np.where(m2 > 0, m3 / np.where(m2 > 0, m2, 1.0) ** 1.5, 0.0)
    a = gamma / (3 * np.sqrt(G))
    b = gamma / (6 * np.sqrt(G))
    tiny = np.abs(a) < 1e-12
    a_ = np.where(tiny, 1.0, a)

    def g_inv(c: np.ndarray) -> np.ndarray:
        return np.where(tiny, c - b, (np.cbrt(1 + 3 * a_ * (c - b)) - 1) / a_)

    return mean - g_inv(tq) * se, mean - g_inv(-tq) * se


def kurtosis_df(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Satterthwaite's degrees of freedom of a clustered variance from the kurtosis of its cluster sums.

    ``nu = 2 G / (kappa - 1)`` with ``kappa = G sum e_g^4 / (sum e_g^2)^2`` the (population) kurtosis of the
    cluster sums of residuals ``e_g``: the df of a chi-square with the variance of ``sum e_g^2`` (Satterthwaite
    1946; ``Var(s^2) ~ sigma^4 (kappa - 1) / G``). It is ``G`` for normal sums (kappa = 3) and falls towards 1
    when a few clusters hold most of the variance (near 0 or 1: most clusters have no success). At least 1;
    ``inf`` where every sum is 0.
    """
    has = counts > 0
    G = np.sum(has, axis=-1).astype(np.float64)
    e2 = np.where(has, sums * sums, 0.0)
    s2 = np.sum(e2, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = G * np.sum(e2 * e2, axis=-1) / (s2 * s2)
        nu = np.where(kappa > 1, 2 * G / (kappa - 1), np.inf)
    return np.where(s2 > 0, np.maximum(nu, 1.0), np.inf)


def _binary_cluster_bounds(mean: np.ndarray, var: np.ndarray, df: np.ndarray, sums: np.ndarray,
                           counts: np.ndarray, n: np.ndarray, cl: float) -> tuple[np.ndarray, np.ndarray]:
    """The clustered interval of a 0/1 mean: logit scale, t quantile, and a skewness-corrected arm.

    The interval is ``expit(logit(p) -/+ t_nu SE_C / (p (1 - p)))`` (the clustered SE carried to the logit
    scale by the delta method, as Stata's ``svy: proportion``) with ``nu`` the smaller of the correction's df
    and the kurtosis-based df of the clustered variance (:func:`kurtosis_df`), joined from :data:`SKEW_MIN_DF`
    degrees of freedom (10 equal clusters) by Hall's skewness-corrected t interval (:func:`_hall_bounds`, with
    the correction's df): near 0 or 1 the mean of a few cluster proportions is skewed and heavy-tailed (a few
    clusters hold most successes), so the clustered variance is far noisier than its df say and the far arm
    must reach further. At 0% or 100%, and where the
    clustered SE is 0, it is the Wilson interval with the effective sample size ``p(1-p)/SE_C^2`` capped at
    ``n`` (each cluster counted once when there is no spread), as before; a clustered SE below the iid one
    (design effect below 1) is raised to it. NaN with fewer than 2 clusters.
    """
    n_cl = np.sum(counts > 0, axis=-1)
    pq = mean * (1 - mean)
    ok = (pq > 0) & (var > 1e-12 * pq / n)       # a clustered SE of 0 up to rounding: no spread between clusters
    neff = np.where(ok, pq / np.where(ok, var, 1.0), n_cl.astype(np.float64))
    neff = np.minimum(neff, n)
    tq = t_quantile(cl, np.where(np.isfinite(df), df, np.maximum(n_cl - 1, 1)))
    w_low, w_high = wilson_bounds(mean, neff, tq)
    se = np.sqrt(np.maximum(var, pq / n))        # a design effect below 1 is taken as 1 (n_eff at most n)
    pq_ = np.where(ok, pq, 0.25)
    logit = np.log(np.where(ok, mean, 0.5) / (1 - np.where(ok, mean, 0.5)))
    half = t_quantile(cl, np.minimum(np.where(np.isfinite(df), df, np.maximum(n_cl - 1, 1)),
                                     kurtosis_df(sums, counts))) * se / pq_
    low = 1 / (1 + np.exp(-(logit - half)))
    high = 1 / (1 + np.exp(-(logit + half)))
    skew = ok & (np.nan_to_num(df, nan=0.0) >= SKEW_MIN_DF - 1e-9)
    if np.any(skew):
        h_low, h_high = _hall_bounds(mean, se, tq, sums, counts)
        low = np.where(skew, np.minimum(low, np.clip(h_low, 0.0, 1.0)), low)
        high = np.where(skew, np.maximum(high, np.clip(h_high, 0.0, 1.0)), high)
    low, high = np.where(ok, low, w_low), np.where(ok, high, w_high)
    bad_g = n_cl < 2
    return np.where(bad_g, np.nan, low), np.where(bad_g, np.nan, high)


def score_ci(
    scores: np.ndarray,
    *,
    method: Literal["clt", "t", "wilson", "cluster"] = "clt",
    group_codes: np.ndarray | None = None,
    confidence_level: float = 0.95,
    names: Sequence[str] | None = None,
    cluster_correction: ClusterCorrection = "cr2",
) -> ScoreCI:
    """Mean score, standard error and two-sided CI of each row (array level).

    Parameters
    ----------
    scores : array_like, shape (n_items,) or (n_models, n_items)
        Per-item scores; NaN = not scored (each row uses its own scored items).
    method : {"clt", "t", "wilson", "cluster"}, default: ``"clt"``
        ``"clt"``: mean ± z·SE with ``SE = sd/sqrt(n)`` (population sd, so for 0/1 scores
        ``SE = sqrt(p(1-p)/n)``). ``"t"``: sample sd (``ddof=1``) and the t quantile with
        ``n - 1`` df. ``"wilson"``: Wilson score interval (0/1 scores only). ``"cluster"``:
        clustered SE of [M, eq. 4] with the small-cluster correction ``cluster_correction``
        and a t quantile with the matching df (needs ``group_codes``); for 0/1 scores (and a
        correction other than ``"none"``) the interval is the logit-scale interval with that t
        quantile, joined from 9 df by Hall's skewness-corrected t (:func:`_binary_cluster_bounds`;
        the Wilson interval with the effective sample size ``p(1-p)/SE_C^2`` at 0% and 100%), which
        stays in [0, 1], always exists and covers far better near 0 or 1 than mean ± t SE; with
        fewer than 20 groups and a score near 0 or 1 it is still approximate (:func:`edge_note`).
        Bounds of ``"clt"``, ``"t"`` and ``"cluster"`` are clipped to [0, 1] when every score lies
        in [0, 1].
    group_codes : ndarray of int, optional
        Cluster code per item (for ``method="cluster"``).
    confidence_level : float, default: ``0.95``
    names : sequence of str, optional
        Model name of each row, used in warnings (default: ``model_0``, ``model_1``, ...).
    cluster_correction : {"cr2", "cr1", "none"}, default: ``"cr2"``
        ``"cr2"``: Bell-McCaffrey bias-reduced SE with Satterthwaite df; ``"cr1"``:
        ``SE_C sqrt(G/(G-1))`` with ``G - 1`` df (statsmodels ``use_correction=True``); the two
        are equal when clusters have equal size. ``"none"``: [M, eq. 4] with the normal quantile
        (the 0.1.0 behaviour; under-covers with few clusters). See :func:`cluster_variance`.

    Returns
    -------
    ScoreCI
        ``(score, se, low, high, n, df)`` arrays (scalars become 0-d arrays).

    Warns
    -----
    SmallSampleWarning
        A model has fewer than 2 scored items (its SE and CI are NaN; a Wilson CI exists from 1 item).
    DegenerateDataWarning
        A model has zero spread for a normal-approximation method (its SE is 0, so its CI
        would have zero width; the CI is NaN instead). The warning names the models; for
        0/1 scores a Wilson interval (``method="wilson"``, the ``"auto"`` choice of
        :func:`intervals`) is not degenerate.

    References
    ----------
    .. [1] [A] section "error bars"; E. Miller, arXiv:2411.00640 (2024), eqs. 1-4.
    .. [2] E. B. Wilson, JASA 22 (1927) 209-212.
    .. [3] R. M. Bell and D. F. McCaffrey, "Bias reduction in standard errors for linear regression
       with multi-stage samples", Survey Methodology 28 (2002) 169-181.
    .. [4] G. W. Imbens and M. Kolesar, "Robust standard errors in small samples: some practical
       advice", Rev. Econ. Stat. 98 (2016) 701-712.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.r_[np.ones(1436), np.zeros(564)]      # 71.8% of 2,000 items
    >>> r = score_ci(s)
    >>> round(float(r.high - r.score) * 100, 2)      # half-width in points
    1.97
    """
    cl = check_confidence_level(confidence_level)
    if method not in ("clt", "t", "wilson", "cluster"):
        raise ArgumentError(f"`method` must be 'clt', 't', 'wilson' or 'cluster', got {method!r}")
    corr = _check_correction(cluster_correction)
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim == 0:
        raise ArgumentError("`scores` must have an item axis (1-D or 2-D), got a scalar")
    scored = ~np.isnan(x)
    n = scored.sum(axis=-1)
    mean = nan_mean(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        ss = np.sum(np.where(scored, (x - mean[..., None]) ** 2, 0.0), axis=-1)
    z = normal_quantile(cl)
    small = n < 2
    df = None
    wilson_like = False
    with np.errstate(invalid="ignore", divide="ignore"):
        if method == "clt":
            se = np.sqrt(ss / n) / np.sqrt(n)
            half = z * se
            low, high = _clip_unit(x, mean - half, mean + half)
        elif method == "t":
            se = np.sqrt(ss / (n - 1)) / np.sqrt(n)
            df = (n - 1).astype(np.float64)
            half = t_quantile(cl, df) * se
            low, high = _clip_unit(x, mean - half, mean + half)
        elif method == "cluster":
            if group_codes is None:
                raise ArgumentError("`method`='cluster' needs `group_codes` (one cluster code per item)")
            _m, sums, counts, _n = cluster_sums(x, group_codes)
            var, df = cluster_variance(sums * sums, counts, n, corr)
            se = np.sqrt(var)
            wilson_like = corr != "none" and is_binary(x)
            if wilson_like:
                low, high = _binary_cluster_bounds(mean, var, df, sums, counts, n, cl)
            else:
                half = t_quantile(cl, df) * se
                low, high = _clip_unit(x, mean - half, mean + half)
        else:  # wilson
            if not is_binary(x):
                raise DataError(
                    "Wilson intervals need 0/1 scores; these scores are continuous: use `method`='clt' or 't'"
                )
            se = np.sqrt(mean * (1 - mean) / n)
            low, high = wilson_bounds(mean, n, z)
    # a Wilson interval exists from one item (1/1 -> [0.21, 1] at 95%); the others need two
    no_ci = n < 1 if method == "wilson" else small
    se = np.where(small, np.nan, se)
    low = np.where(no_ci, np.nan, low)
    high = np.where(no_ci, np.nan, high)
    if np.any(small):
        who = _who(np.atleast_1d(small), names)
        what = ("SE is NaN (a Wilson interval needs 1 item: it is wide; with none it is NaN too)"
                if method == "wilson" else "SE and CI are NaN (an interval needs at least 2 items)")
        warnings.warn(f"{who} fewer than 2 scored items: {what}", SmallSampleWarning, stacklevel=2)
    if method != "wilson" and not (method == "cluster" and wilson_like):
        flat = ~small & (zero_spread(x) | (se == 0))  # the kernel's rule; se == 0 also for clusters
        if np.any(flat):
            low = np.where(flat, np.nan, low)
            high = np.where(flat, np.nan, high)
            se = np.where(flat, np.nan, se)
            hint = (". For 0/1 scores a Wilson interval (`method`='wilson') gives a "
                    "non-degenerate one" if is_binary(x) else "")
            rows = np.atleast_1d(flat).size
            warn_zero_spread(flat, names=list(names) if names is not None else [f"model_{j}" for j in range(rows)],
                             values=mean, interval=_LABEL.get(method, method), hint=hint)
    return ScoreCI(mean, se, low, high, n, df)


_LABEL = {"clt": "CLT", "t": "t", "cluster": "clustered"}


def _name(names: Sequence[str] | None, j: Any) -> str:
    j = int(j)
    return str(names[j]) if names is not None and j < len(names) else f"model_{j}"


def _who(mask: np.ndarray, names: Sequence[str] | None) -> str:
    """``"model 'a' has"`` / ``"models 'a', 'b' have"`` for the rows in ``mask`` (first 6 named)."""
    rows = np.flatnonzero(mask)
    listed = ", ".join(repr(_name(names, j)) for j in rows[:6]) + (
        f" and {rows.size - 6} more" if rows.size > 6 else "")
    return (f"model {listed} has" if rows.size == 1 else f"models {listed} have")


# ---------------------------------------------------------------- labelled layer
class ScoreIntervalRow(TypedDict):
    """One model of :meth:`ScoreIntervals.to_dict` ``"models"``."""

    model: str
    n_items: int
    score: float
    se: float
    ci_low: float
    ci_high: float


class _ScoreIntervalsJSON(TypedDict):
    """The keys of every :meth:`ScoreIntervals.to_dict`."""

    method: str
    confidence_level: float
    clustered: bool
    n_clusters: int | None
    cluster_correction: str | None
    models: list[ScoreIntervalRow]
    notes: list[NoteJSON]


class ScoreIntervalsJSON(_ScoreIntervalsJSON, total=False):
    """Layout of :meth:`ScoreIntervals.to_dict`: settings, then one row per model; with ``gold`` also the labels'
    count, PPI++'s weights and the judge-only and gold-only intervals beside them."""

    n_labelled: int
    lam: list[float] | None
    judge_only: _ScoreIntervalsJSON
    gold_only: _ScoreIntervalsJSON


@dataclass(frozen=True, eq=False)
class ScoreIntervals(Result):
    """Per-model scores with standard errors and confidence intervals.

    Attributes
    ----------
    models : tuple of str
        Model names, in the matrix's order.
    n_items : ndarray of int
        Items each model was scored on.
    score, se, ci_low, ci_high : ndarray of float
        Mean score (fraction), standard error and CI bounds per model.
    method : str
        ``"clt"``, ``"t"``, ``"wilson"``, ``"cluster"``, ``"percentile"`` or ``"bca"`` (the
        method actually used; ``"auto"`` resolves to ``"wilson"`` for 0/1 scores, ``"clt"`` for
        continuous scores and ``"cluster"`` when clustered).
    confidence_level : float
    clustered : bool
        Whether the SE is clustered by item group [M, eq. 4].
    n_clusters : int or None
        Number of item groups used for clustering.
    cluster_correction : str or None
        Small-cluster correction of a clustered interval (``"cr2"``, ``"cr1"`` or ``"none"``);
        None when not clustered.
    df : ndarray or None
        Degrees of freedom of the t quantile per model (``"t"`` and ``"cluster"``), else None.
    n_resamples : int or None
        Bootstrap resamples (``"percentile"``/``"bca"``), else None.
    bootstrap_distribution : ndarray, shape (n_resamples, M), or None
        The bootstrap means (``"percentile"``/``"bca"``), else None; not in the JSON.
    dropped : dict
        Items dropped per model to make the matrix complete (``rt.bootstrap_ci`` on a matrix with gaps).
    notes : tuple of Note
        What the reader must know about these intervals: ``cluster_edge`` (a clustered 0/1 interval near 0% or
        100% from fewer than :data:`EDGE_MIN_CLUSTERS` groups is approximate; :func:`edge_note`).
    n_labelled : int or None
        With ``gold`` (:func:`intervals`): the labelled items. ``score`` then estimates each model's mean gold
        label, ``method`` names the estimator (``"ppi++"``, ``"stratified"``, ``"rogan-gladen"``), and
        ``judge_only`` (the judge's scores alone) and ``gold_only`` (the labels alone) stand beside it.
    lam : ndarray or None
        PPI++'s weight per model (``"ppi++"`` only).
    judge_only, gold_only : ScoreIntervals or None
    """

    _table = ("models", "score", "se", "ci_low", "ci_high", "n_items")

    models: tuple[str, ...]
    n_items: np.ndarray
    score: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    method: str
    confidence_level: float
    clustered: bool
    n_clusters: int | None = None
    cluster_correction: str | None = None
    df: np.ndarray | None = None
    n_resamples: int | None = None
    bootstrap_distribution: np.ndarray | None = field(default=None, repr=False)
    dropped: dict = field(default_factory=dict)
    notes: tuple[Note, ...] = ()
    n_labelled: int | None = None
    lam: np.ndarray | None = None
    judge_only: "ScoreIntervals | None" = None
    gold_only: "ScoreIntervals | None" = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "notes", tuple(self.notes))
        super().__post_init__()

    def to_dict(self) -> ScoreIntervalsJSON:
        from ..results import jsonable

        rows = [
            {"model": m, "n_items": int(n), "score": s, "se": e, "ci_low": lo, "ci_high": hi}
            for m, n, s, e, lo, hi in zip(
                self.models, self.n_items.tolist(), self.score.tolist(), self.se.tolist(),
                self.ci_low.tolist(), self.ci_high.tolist(),
            )
        ]
        gold = {} if self.n_labelled is None else {
            "n_labelled": self.n_labelled, "lam": self.lam,
            "judge_only": self.judge_only.to_dict() if self.judge_only is not None else None,
            "gold_only": self.gold_only.to_dict() if self.gold_only is not None else None}
        return jsonable({
            "method": self.method,
            "confidence_level": self.confidence_level,
            "clustered": self.clustered,
            "n_clusters": self.n_clusters,
            "cluster_correction": self.cluster_correction,
            "models": rows,
            "notes": [n.to_dict() for n in self.notes],
            **gold,
        })

    def __len__(self) -> int:
        return len(self.models)


def resolve_cluster(m: "ScoreMatrix", cluster: bool, method: str) -> bool:
    """Whether to cluster: the one rule of :func:`ranktrust._validate.cluster` (``cluster=True``
    or ``method="cluster"``; clustering needs item groups)."""
    return _validate.cluster(cluster, m.groups, method=method)


@analysis
def intervals(
    m: "ScoreMatrix",
    *,
    method: IntervalMethod = "auto",
    cluster: bool = False,
    confidence_level: float = 0.95,
    n_resamples: int = 9999,
    rng: SeedLike = 0,
    cluster_correction: ClusterCorrection = "cr2",
    gold: "ScoreMatrix | None" = None,
    judges: Literal["auto", "random", "fixed"] | None = None,
) -> ScoreIntervals:
    """Score and confidence interval of every model.

    Parameters
    ----------
    m : ScoreMatrix
        Per-item scores; each model uses its own scored items (NaN cells are skipped).
    method : {"auto", "clt", "t", "wilson", "cluster", "percentile", "bca"}, default: ``"auto"``
        ``"auto"`` = ``"wilson"`` when every score is 0 or 1 (never a missing interval, also at
        0% or 100%), ``"clt"`` for continuous scores, and ``"cluster"`` with ``cluster=True``.
        ``"wilson"`` needs 0/1 scores. ``"cluster"`` forces the clustered SE [M, eq. 4]. See :func:`score_ci`.
        ``"percentile"`` and ``"bca"`` are bootstrap intervals from the resampling engine
        (:func:`ranktrust.bootstrap_ci`; items, or item groups when clustered, are resampled;
        they need every model scored on the same items).
    cluster : bool, default: ``False``
        Cluster the SE by item group; ``method="cluster"`` also clusters. Clustering is opt-in
        and needs item groups (:class:`~ranktrust.DataError` otherwise).
    confidence_level : float, default: ``0.95``
    n_resamples : int, default: ``9999``
        Bootstrap resamples (``"percentile"``/``"bca"`` only).
    rng : None, int or numpy.random.Generator, default: 0
        Seed of the bootstrap (``"percentile"``/``"bca"`` only).
    cluster_correction : {"cr2", "cr1", "none"}, default: ``"cr2"``
        Small-cluster correction when clustered (see :func:`score_ci`); for a cluster bootstrap
        anything but ``"none"`` widens the interval as described in
        :func:`ranktrust.bootstrap_ci`.
    gold : ScoreMatrix, optional
        Gold labels (a person's) of the same models on a random subset of the items, NaN (or absent) where not
        labelled; ``m`` is then the judge's scores, complete. Each interval is then that of the model's mean
        *gold* label, from the judge on every item and the labels on the few (:mod:`._ppi`): ``method`` is
        ``"auto"`` (``"stratified"`` for 0/1 judge and labels, else ``"ppi++"``), ``"ppi++"``, ``"stratified"``
        or ``"rogan-gladen"`` (a 0/1 judge's sensitivity and specificity, measured on the labels); with
        ``cluster`` the influence terms are summed within item groups. ``judge_only`` and ``gold_only`` hold
        the score path's intervals of the judge alone and of the labels alone.
    judges : {"auto", "random", "fixed"}, optional
        The matrix's runs are judges (or repeats of one judge: a long table read with ``run`` naming the judge
        column): each model's score is the mean of its judgments, and the interval counts the judges
        (:mod:`._twoway`). ``"random"``: two-way clustering by item and judge (Cameron, Gelbach & Miller), the
        interval covers the mean over the population of judges these are drawn from; ``"fixed"``: clustered by
        item, the mean over these judges; ``"auto"``: random with 10 judges or more, fixed below (a
        ``judges_fixed`` note says so). With ``cluster`` the item dimension is the item group. ``method`` must be
        ``"auto"`` (or ``"cluster"``) and ``gold`` absent. Without ``judges`` the runs are averaged first.

    Returns
    -------
    ScoreIntervals

    Raises
    ------
    ValueError
        Unknown ``method``, ``confidence_level`` outside (0, 1), or clustering asked for
        together with ``"t"``/``"wilson"``.
    DataError
        Clustering asked for without item groups; Wilson on continuous scores.

    Notes
    -----
    Wilson [3]_: the set of p with ``|p_hat - p| <= z sqrt(p (1 - p)/n)``; exact coverage
    0.93-0.97 at n = 30...2,000 for accuracies 0.05-0.97, where the Wald (CLT) interval covers
    0.60-0.88 near 0 or 1 at n <= 100 (``bench/bench_coverage.py``).
    CLT: ``SE = sd(s)/sqrt(n)``, CI = mean ± z·SE (clipped to [0, 1]). Clustered [M, eq. 4]:
    ``SE_C = sqrt(sum_c (sum_{i in c} (s_i - mean))^2) / n``; it equals the CLT SE when
    every cluster has one item and grows when items in a cluster are correlated. With the
    default ``"cr2"`` correction each cluster sum is divided by ``sqrt(1 - n_g/n)`` and the
    quantile is a t with the Bell-McCaffrey df (``G - 1`` for equal clusters) [4]_. For 0/1 scores
    the clustered interval is built on the logit scale, joined from 9 df by Hall's skewness-corrected
    t [5]_; a model whose score is at most 10% or at least 90%, clustered by fewer than 20 groups,
    gets a ``cluster_edge`` note (``notes``) and a :class:`~ranktrust.errors.SmallSampleWarning`: its
    interval is approximate there (docs/statistics.md).

    References
    ----------
    .. [1] [A] "Is the #1 AI Model Really #1?" (2026): a 71.8% model at n = 2,000 has a CI
       half-width of about ±1.97 points.
    .. [2] E. Miller, arXiv:2411.00640 (2024), eqs. 1-4.
    .. [3] E. B. Wilson, JASA 22 (1927) 209-212.
    .. [4] R. M. Bell and D. F. McCaffrey, Survey Methodology 28 (2002) 169-181; G. W. Imbens and
       M. Kolesar, Rev. Econ. Stat. 98 (2016) 701-712.
    .. [5] P. Hall, "On the removal of skewness by transformation", JRSS B 54 (1992) 221-228.
    """
    cl = check_confidence_level(confidence_level)
    corr = _check_correction(cluster_correction)
    if judges is not None:
        return _judged_intervals(m, judges, method=method, cluster=cluster, gold=gold, confidence_level=cl)
    if gold is not None:
        return _gold_intervals(m, gold, method=method, cluster=bool(cluster), confidence_level=cl,
                               cluster_correction=corr)
    _validate.choice(method, "method", _METHODS)
    clustered = resolve_cluster(m, cluster, method)
    if clustered and method in ("t", "wilson"):
        raise ArgumentError(
            f"`method`={method!r} cannot be clustered; use `method`='cluster' (or 'auto'), or `cluster`=False"
        )
    if clustered:
        warn_few_clusters(len(set(m.groups)))  # type: ignore[arg-type]
    if method in ("percentile", "bca"):
        if not m.is_complete:
            from ..errors import DataError

            raise DataError(
                "bootstrap intervals need every model scored on the same items; read the data with "
                "`align`='intersect' or use a normal-theory `method`", param="align"
            )
        return _bootstrap_scores(m, method=method, n_resamples=n_resamples, confidence_level=cl, cluster=clustered,
                                 rng=rng, cluster_correction=corr)
    if clustered:
        core = "cluster"
    elif method == "auto":
        core = "wilson" if is_binary(m.scores) else "clt"
    else:
        core = method
    codes = m.group_codes if clustered else None
    r = score_ci(m.scores, method=core, group_codes=codes, confidence_level=cl,  # type: ignore[arg-type]
                 names=m.models, cluster_correction=corr)
    note = edge_note(m.models, r.score, len(set(m.groups)), cl) if clustered and is_binary(m.scores) else None  # type: ignore[arg-type]
    return ScoreIntervals(
        models=m.models,
        n_items=np.asarray(r.n, dtype=np.int64),
        score=r.score,
        se=r.se,
        ci_low=r.low,
        ci_high=r.high,
        method=core,
        confidence_level=cl,
        clustered=clustered,
        n_clusters=len(set(m.groups)) if clustered and m.groups is not None else None,
        cluster_correction=corr if clustered else None,
        df=r.df,
        notes=(note,) if note is not None else (),
    )


def _judged_intervals(m: "ScoreMatrix", judges: str, *, method: str, cluster: bool, gold: Any,
                      confidence_level: float) -> ScoreIntervals:
    """:func:`intervals` with ``judges``: the runs of ``m`` are the judges (:mod:`._twoway`)."""
    from ._twoway import check_judges, judged_ci

    check_judges(judges)
    if gold is not None:
        raise ArgumentError("`judges` and `gold` cannot be combined: `gold` corrects one judge's scores with "
                            "labels, `judges` counts several judges' variance; give one", param="judges")
    if method not in ("auto", "cluster"):
        raise ArgumentError(f"with `judges`, `method` must be 'auto' (or 'cluster'): the interval is the "
                            f"two-way clustered one, got {method!r}", param="method")
    if m.n_runs < 2:
        raise DataError("`judges` needs a matrix whose runs are the judges (or repeats): this one has one run; "
                        "read the judge column as the run (`run`='judge')", param="judges", code="no_judges",
                        data={"n_runs": m.n_runs})
    if m.conditions is not None:
        raise DataError("`judges` reads the runs as judges, but this matrix's runs carry conditions (a design "
                        "over runs): select the runs of one condition, or read without conditions",
                        param="judges", code="judges_ambiguous", data={"n_runs": m.n_runs})
    clustered = resolve_cluster(m, cluster, method)
    data = np.asarray(m.data, dtype=float)
    mi, ii, ri = np.nonzero(~np.isnan(data))
    if mi.size == 0:
        raise DataError("no model has a score", param="m")
    codes = np.asarray(m.group_codes)[ii] if clustered else None
    r = judged_ci(data[mi, ii, ri], mi, ii, ri, len(m.models), cluster=codes, judges=judges,
                  confidence_level=confidence_level, stacklevel=5)
    return ScoreIntervals(
        models=m.models, n_items=r.n_items, score=r.score, se=r.se, ci_low=r.low, ci_high=r.high,
        method="twoway" if r.random else "cluster", confidence_level=confidence_level, clustered=True,
        n_clusters=r.n_clusters, cluster_correction="cr1", df=r.df, notes=r.notes)


def _gold_intervals(m: "ScoreMatrix", gold: Any, *, method: str, cluster: bool, confidence_level: float,
                    cluster_correction: str) -> ScoreIntervals:
    """:func:`intervals` with ``gold``: the gold-corrected means (:mod:`._ppi`) with the judge-only and gold-only
    intervals beside them."""
    from ._ppi import METHODS, gold_fit

    if method not in METHODS:
        raise ArgumentError(f"with `gold`, `method` must be one of {', '.join(map(repr, METHODS))} (the gold "
                            f"estimator), got {method!r}", param="method")
    fit = gold_fit(m, gold, method=method, confidence_level=confidence_level, cluster=cluster)
    M = len(fit.models)
    corr = cluster_correction if cluster else None

    def side(x: np.ndarray) -> ScoreIntervals:
        """The score path's interval of ``x`` (the judge on every item, or the labels where given): Wilson for
        0/1 scores, t otherwise, clustered where the fit is."""
        how = "cluster" if cluster else ("wilson" if is_binary(x) else "t")
        r = score_ci(x, method=how, group_codes=fit.group_codes,  # type: ignore[arg-type]
                     confidence_level=confidence_level, names=fit.models, cluster_correction=cluster_correction)
        return ScoreIntervals(models=fit.models, n_items=np.asarray(r.n, dtype=np.int64), score=r.score, se=r.se,
                              ci_low=r.low, ci_high=r.high, method=how, confidence_level=confidence_level,
                              clustered=fit.clustered, n_clusters=fit.n_clusters, cluster_correction=corr, df=r.df)

    return ScoreIntervals(
        models=fit.models, n_items=np.full(M, fit.n_items, dtype=np.int64), score=fit.score, se=fit.se,
        ci_low=fit.ci_low, ci_high=fit.ci_high, method=fit.method, confidence_level=confidence_level,
        clustered=fit.clustered, n_clusters=fit.n_clusters, cluster_correction=None,
        df=np.full(M, fit.df) if np.isfinite(fit.df) else None, n_labelled=fit.n_labelled, lam=fit.lam,
        judge_only=side(np.asarray(m.scores, dtype=float)), gold_only=side(fit.gold_labels),
    )


def _bootstrap_scores(m: Any, *, method: str, n_resamples: int, confidence_level: float, cluster: bool, rng: Any,
                      batch: int | None = None, cluster_correction: str = "cr2", progress: Any = None) -> ScoreIntervals:
    """Per-model bootstrap intervals as :class:`ScoreIntervals` (the resampling engine's numbers)."""
    from ..resample import bootstrap_intervals, matrix_input

    b = bootstrap_intervals(m, method=method, n_resamples=n_resamples, confidence_level=confidence_level,
                            cluster=cluster, rng=rng, batch=batch, cluster_correction=cluster_correction,
                            progress=progress)
    inp = matrix_input(m)
    clustered = bool(cluster) and inp.group_codes is not None
    note = (edge_note(b.labels, b.estimate, int(np.unique(inp.group_codes).size), confidence_level, stacklevel=4)
            if clustered and is_binary(inp.scores) else None)
    return ScoreIntervals(
        models=tuple(b.labels), n_items=np.full(len(b.labels), inp.scores.shape[1], dtype=np.int64),
        score=b.estimate, se=b.se, ci_low=b.ci_low, ci_high=b.ci_high, method=b.method,
        confidence_level=b.confidence_level, clustered=clustered,
        n_clusters=int(np.unique(inp.group_codes).size) if clustered else None,
        cluster_correction=cluster_correction if clustered else None, n_resamples=b.n_resamples,
        bootstrap_distribution=b.bootstrap_distribution, dropped=dict(b.dropped),
        notes=(note,) if note is not None else (),
    )


@analysis
def bootstrap_ci(
    m: Any,
    *,
    method: str = "percentile",
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    pair: tuple[str, str] | None = None,
    cluster: bool = False,
    rng: SeedLike = 0,
    batch: int | None = None,
    cluster_correction: ClusterCorrection = "cr2",
    progress: Progress = None,
) -> "ScoreIntervals | BootstrapIntervals":
    """Bootstrap intervals for each model's mean score, or for a paired difference.

    Per-model intervals are the :class:`ScoreIntervals` that ``rt.intervals(m, method="percentile" | "bca")``
    returns (one result type for one job), with the bootstrap distribution on ``bootstrap_distribution``;
    ``pair=(a, b)`` gives the interval of ``score(a) - score(b)`` as a
    :class:`~ranktrust.resample.BootstrapIntervals`. Unlike ``rt.intervals``, a matrix with gaps is reduced to
    the items every model has (recorded in ``dropped``). The parameters, the numbers and the conventions
    (``scipy.stats.bootstrap``'s percentile and BCa) are those of
    :func:`ranktrust.resample._intervals.bootstrap_intervals`.

    Parameters
    ----------
    m : ScoreMatrix, DataFrame, path or ndarray (M, N)
    method : {"percentile", "bca"}, default: ``"percentile"``
    n_resamples : int, default: 9999
    confidence_level : float, default: 0.95
    pair : (str, str), optional
    cluster : bool, default: False
        Resample whole item groups (``m.groups``) instead of items.
    rng : None, int or numpy.random.Generator, default: 0
    batch : int, optional
        Passed to the engine; does not change the result.
    cluster_correction : {"cr1", "cr2", "none"}, default: ``"cr2"``
        With ``cluster=True``: ``"cr1"``/``"cr2"`` widen the interval by ``sqrt(G/(G-1)) t_{G-1}/z``.
    progress : callable(done, total), optional

    Returns
    -------
    ScoreIntervals, or BootstrapIntervals with ``pair``

    Examples
    --------
    >>> import numpy as np
    >>> s = np.random.default_rng(0).integers(0, 2, size=(2, 400)).astype(float)
    >>> res = bootstrap_ci(s, n_resamples=999, rng=0)
    >>> bool(np.all(res.ci_low < res.score)) and bool(np.all(res.score < res.ci_high))
    True
    >>> res.bootstrap_distribution.shape
    (999, 2)
    """
    if pair is not None:
        from ..resample import bootstrap_intervals

        return bootstrap_intervals(m, method=method, n_resamples=n_resamples, confidence_level=confidence_level,
                                   pair=pair, cluster=cluster, rng=rng, batch=batch,
                                   cluster_correction=cluster_correction, progress=progress)
    return _bootstrap_scores(m, method=method, n_resamples=n_resamples, confidence_level=confidence_level,
                             cluster=cluster, rng=rng, batch=batch, cluster_correction=cluster_correction,
                             progress=progress)
