"""Paired comparison of models scored on the same items.

:func:`compare` compares two models; :func:`all_pairs` compares every pair (or each
model with the next one down) at once. Counts, means and variances of the paired
differences for all pairs come from a few matrix products over the
``(n_models, n_items)`` score array, so there is no Python object or loop per pair.

References
----------
.. [A] "Is the #1 AI Model Really #1?", Towards Data Science (2026): b, c, the paired SE
   ``sqrt((b + c)/n - d^2)/sqrt(n)`` and the exact McNemar test.
.. [M] E. Miller, "Adding Error Bars to Evals", arXiv:2411.00640 (2024): paired
   differences and clustered standard errors (eq. 4).
.. [N] Q. McNemar, "Note on the sampling error of the difference between correlated
   proportions or percentages", Psychometrika 12 (1947) 153-157.
.. [P] B. Phipson and G. K. Smyth, "Permutation p-values should never be zero",
   Stat. Appl. Genet. Mol. Biol. 9 (2010): the +1 correction of the sign-flip p-value.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from scipy import special

from ..errors import DataError, DegenerateDataWarning, SmallSampleWarning
from ..results import Result, jsonable
from .intervals import (
    _check_correction, check_confidence_level, cluster_se, t_value, warn_few_clusters, z_value,
)
from .multiplicity import ADJUST_METHODS, adjust_pvalues

if TYPE_CHECKING:  # pragma: no cover
    from ..data.matrix import ScoreMatrix

__all__ = [
    "PairedComparison",
    "PairTable",
    "compare",
    "all_pairs",
    "mcnemar_exact",
    "mcnemar_ci",
    "pair_stats",
]

PairMethod = Literal["auto", "mcnemar", "t", "sign-flip", "cluster"]


# ------------------------------------------------------------------ exact McNemar
def mcnemar_exact(b: Any, c: Any) -> np.ndarray:
    """Exact two-sided McNemar p-value for discordant counts ``b`` and ``c``.

    Parameters
    ----------
    b, c : array_like of int
        Items only A got right, items only B got right (broadcast together).

    Returns
    -------
    ndarray of float
        ``min(1, 2 * BinomCDF(min(b, c); b + c, 1/2))``; 1 where ``b + c = 0``.

    Notes
    -----
    The lower binomial tail is evaluated directly with the regularised incomplete beta
    function (``scipy.special.bdtr``), never as ``1 - cdf``, so it stays exact in the far
    tail and costs the same for ``b + c`` in the hundreds of thousands as for 10 (values
    below about 1e-308 underflow to 0). Equal to
    ``statsmodels.stats.contingency_tables.mcnemar(table, exact=True).pvalue``.

    References
    ----------
    .. [1] Q. McNemar, Psychometrika 12 (1947) 153-157.
    .. [2] [A] "Is the #1 AI Model Really #1?" (2026): b = 219, c = 182 gives p = 0.0721.

    Examples
    --------
    >>> round(float(mcnemar_exact(219, 182)), 4)
    0.0721
    """
    bb = np.asarray(b)
    cc = np.asarray(c)
    for name, v in (("b", bb), ("c", cc)):
        if v.dtype.kind not in "iuf" or (v.size and (np.any(v < 0) or np.any(v != np.floor(v)))):
            raise ValueError(f"`{name}` must hold non-negative integer counts, got {v!r}")
    bb, cc = np.broadcast_arrays(bb.astype(np.int64), cc.astype(np.int64))
    return _mcnemar_p(np.minimum(bb, cc), bb + cc)


def _mcnemar_p(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``min(1, 2 BinomCDF(k; n, 1/2))`` for int arrays, each distinct ``(k, n)`` evaluated once."""
    k = np.asarray(k, dtype=np.int64)
    n = np.asarray(n, dtype=np.int64)
    if k.size == 0:
        return np.ones(k.shape)
    width = int(n.max()) + 1
    key = k * width + n  # many pairs share (k, n): evaluate the incomplete beta once per key
    top = int(key.max()) + 1
    if top <= 1 << 22:  # dense marks: O(top) memory, no sort
        mark = np.zeros(top, dtype=bool)
        mark[key] = True
        u = np.flatnonzero(mark)
        table = np.empty(top)
        with np.errstate(invalid="ignore"):
            table[u] = special.bdtr((u // width).astype(np.float64), u % width, 0.5)
        cdf = table[key]
    else:
        u, inv = np.unique(key, return_inverse=True)
        with np.errstate(invalid="ignore"):
            cdf = special.bdtr((u // width).astype(np.float64), u % width, 0.5)[inv.reshape(key.shape)]
    p = np.minimum(1.0, 2.0 * cdf)
    # rounding can leave 0.9999999999999999 for a p that is exactly 1 (b == c): report it as 1
    return np.where((n == 0) | (p > 1.0 - 1e-12), 1.0, p)


def _wilson_bounds(k: np.ndarray, n: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score bounds for ``k`` successes in ``n`` trials (NaN where ``n = 0``)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        den = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / den
        half = z / den * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        # at k = 0 or k = n the bound is exactly 0 or 1 (rounding can miss it by 1e-16)
        return (np.where(p <= 0, 0.0, np.clip(centre - half, 0.0, 1.0)),
                np.where(p >= 1, 1.0, np.clip(centre + half, 0.0, 1.0)))


def mcnemar_ci(b: Any, c: Any, n: Any, *, confidence_level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Confidence interval for a paired 0/1 difference that agrees with the exact McNemar test.

    Parameters
    ----------
    b, c : array_like of int
        Items only A got right, items only B got right.
    n : array_like of int
        Items both models scored (``n >= b + c``).
    confidence_level : float, default: ``0.95``
        ``1 - alpha``, where ``alpha`` is the level of the test the interval agrees with.

    Returns
    -------
    (low, high) : ndarrays (floats for scalar input)
        Bounds for ``d = P(only A right) - P(only B right)``, in [-1, 1]; never NaN for
        ``n >= 1`` (also when ``b + c = 0``).

    Notes
    -----
    Write ``d = q (2 pi - 1)`` with the discordance ``q = P(the two results differ)`` and
    ``pi = P(A is the one right | they differ)``. Given ``m = b + c``, ``b ~ Bin(m, pi)``:

    1. ``[pi_L, pi_U]`` is the Clopper-Pearson interval for ``pi`` from ``b`` of ``m``, the
       interval dual to the doubled-tail exact binomial test that :func:`mcnemar_exact` runs:
       ``pi_L > 1/2`` exactly when ``b > c`` and ``p < alpha``, and ``pi_U < 1/2`` exactly when
       ``c > b`` and ``p < alpha`` (the sign is also enforced in floating point).
    2. ``[q_L, q_U]`` is the Wilson interval for ``q`` from ``m`` of ``n`` with the quantile
       ``z_q = min(z, 2 z s_q / (sqrt(s_pi^2 + s_q^2) + s_pi))``, where ``s_pi = 2 q sqrt(pi (1 - pi)
       / m)`` and ``s_q = |2 pi - 1| sqrt(q (1 - q) / n)`` are the two parts of the SE of ``d``
       (plug-in estimates). The box in step 3 adds the two uncertainties linearly, so ``q`` needs
       its full ``z`` only when it dominates (``pi`` near 0 or 1, or ``m = 0``, where ``z_q = z``);
       the factor 2 is a safety margin chosen with the exact coverage computation below.
    3. ``low = (2 pi_L - 1) q_L`` if ``pi_L > 1/2`` else ``(2 pi_L - 1) q_U``; ``high = (2 pi_U - 1)
       q_U`` if ``pi_U >= 1/2`` else ``(2 pi_U - 1) q_L``: each bound is moved outwards by the
       end of the ``q`` interval that widens it, which accounts for the randomness of ``m``
       without changing the sign of either bound.

    Hence the interval excludes 0 exactly when the exact McNemar p-value is below
    ``alpha = 1 - confidence_level``. Its exact coverage (summing over ``m ~ Bin(n, q)`` and
    ``b | m``) is at least 0.95 on the audit's grid (n = 30...2,000, q = 0.02...0.30) and on
    q = 0.01...0.8, d/q = 0...1 (min 0.953), where the Wald interval of [A] covers 0.45-0.93
    when few items are discordant; see ``bench/bench_coverage.py``. With many discordant items
    it is a few percent wider than the Wald interval (article example: [-0.16, +3.86] points
    against [-0.10, +3.80]).

    References
    ----------
    .. [1] C. J. Clopper and E. S. Pearson, Biometrika 26 (1934) 404-413.
    .. [2] E. B. Wilson, JASA 22 (1927) 209-212.
    .. [3] Q. McNemar, Psychometrika 12 (1947) 153-157.

    Examples
    --------
    >>> lo, hi = mcnemar_ci(5, 0, 100)          # p = 0.0625: the interval includes 0
    >>> bool(lo <= 0 <= hi)
    True
    >>> lo, hi = mcnemar_ci(6, 0, 100)          # p = 0.03125: it excludes 0
    >>> bool(lo > 0)
    True
    """
    cl = check_confidence_level(confidence_level)
    bb, cc, nn = np.broadcast_arrays(np.asarray(b), np.asarray(c), np.asarray(n))
    top = int(max(bb.max(initial=0), cc.max(initial=0), nn.max(initial=0))) + 1 if bb.size else 1
    if bb.size > 4096 and top < 1 << 21:  # many pairs share (b, c, n): one evaluation per distinct triple
        key = (bb.astype(np.int64).ravel() * top + cc.astype(np.int64).ravel()) * top + nn.astype(np.int64).ravel()
        u, inv = np.unique(key, return_inverse=True)
        lo_u, hi_u = _mcnemar_ci(u // (top * top), (u // top) % top, (u % top).astype(np.float64), cl)
        inv = inv.reshape(-1)
        return lo_u[inv].reshape(bb.shape), hi_u[inv].reshape(bb.shape)
    low, high = _mcnemar_ci(bb, cc, nn, cl)
    if low.ndim == 0:
        return float(low), float(high)  # type: ignore[return-value]
    return low, high


def _mcnemar_ci(bb: np.ndarray, cc: np.ndarray, nn: np.ndarray, cl: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = 1.0 - cl
    bb = bb.astype(np.int64)
    cc = cc.astype(np.int64)
    nn = nn.astype(np.float64)
    m = bb + cc
    with np.errstate(invalid="ignore", divide="ignore"):
        pl = np.where(bb > 0, special.betaincinv(np.maximum(bb, 1), cc + 1.0, alpha / 2), 0.0)
        pu = np.where(cc > 0, special.betaincinv(bb + 1.0, np.maximum(cc, 1), 1 - alpha / 2), 1.0)
    sig = _mcnemar_p(np.minimum(bb, cc), m) < alpha
    half_up, half_dn = np.nextafter(0.5, 1.0), np.nextafter(0.5, 0.0)
    # exact duality with the test, also in floating point
    pl = np.where(bb > cc, np.where(sig, np.maximum(pl, half_up), np.minimum(pl, 0.5)), np.minimum(pl, 0.5))
    pu = np.where(cc > bb, np.where(sig, np.minimum(pu, half_dn), np.maximum(pu, 0.5)), np.maximum(pu, 0.5))
    # level of the q interval: the full z where the q uncertainty dominates (pi near 0 or 1, or no
    # discordant item); less where the pi uncertainty does, since the box adds the two linearly
    z = z_value(cl)
    with np.errstate(invalid="ignore", divide="ignore"):
        mf = np.maximum(m, 1).astype(np.float64)
        pih = np.where(m > 0, bb / mf, 0.5)
        qh = m / nn
        a_pi = 2.0 * qh * np.sqrt(pih * (1.0 - pih) / mf)
        b_q = np.abs(2.0 * pih - 1.0) * np.sqrt(qh * (1.0 - qh) / nn)
        zq = np.where((m > 0) & (b_q > 0),
                      np.minimum(z, 2.0 * z * b_q / (np.sqrt(a_pi * a_pi + b_q * b_q) + a_pi)), z)
    ql, qu = _wilson_bounds(m.astype(np.float64), nn, zq)
    ql = np.where(m > 0, np.maximum(ql, np.finfo(np.float64).tiny), 0.0)
    lo, hi = 2.0 * pl - 1.0, 2.0 * pu - 1.0
    low = np.where(lo > 0, lo * ql, lo * qu)
    high = np.where(hi >= 0, hi * qu, hi * ql)
    bad = ~(nn >= 1)
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


# ------------------------------------------------------------------ pair engine
def _is_binary(S: np.ndarray) -> bool:
    v = S[~np.isnan(S)]
    return bool(np.all((v == 0) | (v == 1)))


def _group_slices(codes: np.ndarray) -> list[np.ndarray]:
    order = np.argsort(codes, kind="stable")
    sc = codes[order]
    starts = np.flatnonzero(np.r_[True, sc[1:] != sc[:-1]])
    return np.split(order, starts[1:])


def pair_stats(
    S: np.ndarray,
    ii: np.ndarray,
    jj: np.ndarray,
    *,
    binary: bool,
    group_codes: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Sufficient statistics of the paired differences ``S[ii] - S[jj]`` for many pairs.

    Each pair uses the items both rows scored (non-NaN in both). Everything comes from
    matrix products over all rows, then is gathered at ``(ii, jj)``.

    Parameters
    ----------
    S : ndarray, shape (n_models, n_items)
        Scores, NaN = not scored.
    ii, jj : ndarray of int, shape (n_pairs,)
        Row indices of the first (A) and second (B) model of every pair.
    binary : bool
        Scores are 0/1: also return the discordant counts ``b`` and ``c``.
    group_codes : ndarray of int, optional
        Item cluster codes: also return ``cl_ss``, the clustered sum of squares of [M, eq. 4].

    Returns
    -------
    dict
        ``n`` (shared items), ``sum_d`` (sum of differences), ``ss`` (sum of squared
        deviations of the differences from their mean); with ``binary`` also ``b``, ``c``;
        with ``group_codes`` also ``cl_ss = sum_c (sum_{i in c} (d_i - mean d))^2``, the CR2
        version ``cl_ss2`` (each cluster's term divided by ``1 - n_c/n``), ``n_clusters`` (non-empty
        clusters of the pair) and ``cl_df`` (Bell-McCaffrey degrees of freedom; see
        :func:`ranktrust.stats.intervals.cluster_variance`).
    """
    S = np.asarray(S, dtype=np.float64)
    n_items = S.shape[1]
    nan = np.isnan(S)
    complete = not bool(nan.any())
    out: dict[str, np.ndarray] = {}
    if binary:
        # counts are exact in float32 while partial sums stay below 2**24
        dt = np.float32 if n_items < 2**24 else np.float64
        A = (S == 1).astype(dt)
        if complete:
            G = A @ A.T  # both right (symmetric product: BLAS syrk)
            r = np.sum(S == 1, axis=1).astype(np.float64)
            g = np.rint(G[ii, jj].astype(np.float64))
            b = r[ii] - g
            c = r[jj] - g
            n = np.full(ii.shape, float(n_items))
        else:
            K = (~nan).astype(dt)
            B = A @ (K - A).T  # B[i, j] = items i right and j wrong, both scored
            b = np.rint(B[ii, jj].astype(np.float64))
            c = np.rint(B[jj, ii].astype(np.float64))
            n = np.rint((K @ K.T)[ii, jj].astype(np.float64))
        out.update(b=b.astype(np.int64), c=c.astype(np.int64), n=n, sum_d=b - c)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["ss"] = (b + c) - (b - c) ** 2 / n
    if binary and group_codes is None:
        return out
    with np.errstate(invalid="ignore", divide="ignore"):
        cnt = (~nan).sum(axis=1)
        mu = np.where(cnt > 0, np.nansum(S, axis=1) / np.maximum(cnt, 1), 0.0)
    X0 = np.where(nan, 0.0, S - mu[:, None])  # centred by each row's own mean
    if not binary:
        if complete:
            C = X0 @ X0.T
            dg = np.diag(C)
            n = np.full(ii.shape, float(n_items))
            ss = dg[ii] + dg[jj] - 2.0 * C[ii, jj]
            sd_c = np.zeros(ii.shape)
        else:
            K = (~nan).astype(np.float64)
            Sx = X0 @ K.T
            Sxx = (X0 * X0) @ K.T
            P = X0 @ X0.T
            n = np.rint((K @ K.T)[ii, jj])
            sd_c = Sx[ii, jj] - Sx[jj, ii]
            with np.errstate(invalid="ignore", divide="ignore"):
                ss = Sxx[ii, jj] + Sxx[jj, ii] - 2.0 * P[ii, jj] - sd_c**2 / n
        out.update(n=n, sum_d=sd_c + n * (mu[ii] - mu[jj]), ss=np.maximum(ss, 0.0))
    if group_codes is not None:
        codes = np.asarray(group_codes)
        if complete:
            # mean of the centred differences is 0 for every pair
            sl = _group_slices(codes)
            Cg = np.stack([X0[:, s].sum(axis=1) for s in sl], axis=1)  # (M, G): loop over groups
            Q = Cg @ Cg.T
            dq = np.diag(Q)
            cl = dq[ii] + dq[jj] - 2.0 * Q[ii, jj]
            # CR2 / Bell-McCaffrey pieces: every pair has the same cluster sizes
            pg = np.array([x.size for x in sl], dtype=np.float64) / n_items
            one = pg >= 1.0
            w1 = np.where(one, 0.0, 1.0 / np.where(one, 1.0, 1.0 - pg))
            Cw = Cg * np.sqrt(w1)
            Q2 = Cw @ Cw.T
            dq2 = np.diag(Q2)
            cl2 = dq2[ii] + dq2[jj] - 2.0 * Q2[ii, jj]
            w = pg * pg * w1
            df_bm = 1.0 / (np.sum(pg * pg) + w.sum() ** 2 - np.sum(w * w))
            n_cl = np.full(ii.shape, float(len(sl)))
            df2 = np.full(ii.shape, df_bm)
        else:
            K = (~nan).astype(np.float64)
            n_all = np.rint((K @ K.T)[ii, jj])
            Sx = X0 @ K.T
            with np.errstate(invalid="ignore", divide="ignore"):
                dbar_c = (Sx[ii, jj] - Sx[jj, ii]) / n_all
            cl = np.zeros(ii.shape)
            cl2 = np.zeros(ii.shape)
            sp2 = np.zeros(ii.shape)
            sw = np.zeros(ii.shape)
            sw2 = np.zeros(ii.shape)
            n_cl = np.zeros(ii.shape)
            for s in _group_slices(codes):  # one product per group, never per pair
                Kg = K[:, s]
                Sg = X0[:, s] @ Kg.T
                ng = (Kg @ Kg.T)[ii, jj]
                R = Sg[ii, jj] - Sg[jj, ii] - dbar_c * ng
                cl += np.where(ng > 0, R * R, 0.0)
                with np.errstate(invalid="ignore", divide="ignore"):
                    pg = np.where(n_all > 0, ng / n_all, 0.0)
                    w1 = np.where(pg < 1.0, 1.0 / np.where(pg < 1.0, 1.0 - pg, 1.0), 0.0)
                cl2 += np.where(ng > 0, R * R * w1, 0.0)
                w = pg * pg * w1
                sp2 += pg * pg
                sw += w
                sw2 += w * w
                n_cl += ng > 0
            with np.errstate(invalid="ignore", divide="ignore"):
                df2 = 1.0 / (sp2 + sw * sw - sw2)
        out["cl_ss"] = np.maximum(cl, 0.0)
        out["cl_ss2"] = np.maximum(cl2, 0.0)
        out["n_clusters"] = n_cl
        out["cl_df"] = df2
    return out


def _finish(
    st: dict[str, np.ndarray], method: str, confidence_level: float, *,
    interval: str = "exact", cluster_correction: str = "cr2",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """diff, se, ci_low, ci_high, p_value from :func:`pair_stats` output.

    ``interval`` (``"mcnemar"`` only): ``"exact"`` = :func:`mcnemar_ci`, ``"wald"`` = d ± z SE
    of [A]. ``cluster_correction`` (``"cluster"`` only): ``"cr2"``, ``"cr1"`` or ``"none"``.
    """
    n = st["n"]
    exact = method == "mcnemar" and interval == "exact"
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = st["sum_d"] / n
        if method == "mcnemar":
            se = np.sqrt(st["ss"] / n) / np.sqrt(n)  # = sqrt((b+c)/n - d^2)/sqrt(n) [A]
            half = z_value(confidence_level) * se
            p = _mcnemar_p(np.minimum(st["b"], st["c"]), st["b"] + st["c"])
        elif method in ("t", "sign-flip"):
            se = np.sqrt(st["ss"] / (n - 1)) / np.sqrt(n)
            half = t_value(confidence_level, n - 1) * se
            p = 2.0 * special.stdtr(np.where(n > 1, n - 1, np.nan), -np.abs(diff / se))
        else:  # cluster: [M, eq. 4] with a small-cluster correction and a t reference
            G = st["n_clusters"]
            if cluster_correction == "none":
                se = np.sqrt(st["cl_ss"]) / n
                df = np.full(np.shape(n), np.inf)
            elif cluster_correction == "cr1":
                se = np.sqrt(st["cl_ss"] * G / (G - 1)) / n
                df = G - 1.0
            else:
                se = np.sqrt(st["cl_ss2"]) / n
                df = st["cl_df"]
            df = np.where(G >= 2, df, np.nan)
            se = np.where(G >= 2, se, np.nan)
            half = t_value(confidence_level, df) * se
            tdf = np.where(np.isfinite(df), df, np.nan)
            p = np.where(np.isinf(df), 2.0 * special.ndtr(-np.abs(diff / se)),
                         2.0 * special.stdtr(tdf, -np.abs(diff / se)))
    small = n < 2
    flat = ~small & ~(se > 0) & ~exact
    if method != "mcnemar":
        p = np.where(small | flat, np.nan, p)
    se = np.where(small, np.nan, se)
    bad = small | flat
    if exact:
        low, high = mcnemar_ci(st["b"], st["c"], np.where(n >= 1, n, 1), confidence_level=confidence_level)
    else:
        low, high = diff - half, diff + half
    low = np.where(bad, np.nan, low)
    high = np.where(bad, np.nan, high)
    if "b" in st:
        # a difference of two proportions lies in [-1, 1]; a Wald interval can overshoot on few items
        low, high = np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)
    if np.any(small):
        warnings.warn(
            f"{int(np.sum(small))} pair(s) share fewer than 2 scored items: their CI is NaN",
            SmallSampleWarning, stacklevel=3,
        )
    if np.any(flat):
        warnings.warn(
            f"{int(np.sum(flat))} pair(s) have paired differences with zero spread (the two models "
            "score identically, or differ by the same amount, on every shared item): their CI is NaN",
            DegenerateDataWarning, stacklevel=3,
        )
    return diff, se, low, high, p


def _resolve(
    m: "ScoreMatrix", method: str, cluster: bool | None, binary: bool, allowed: tuple[str, ...]
) -> tuple[str, bool]:
    if method not in allowed:
        raise ValueError(
            f"`method` must be one of {', '.join(repr(x) for x in allowed)}, got {method!r}"
        )
    if cluster is not None and not isinstance(cluster, (bool, np.bool_)):
        raise TypeError(f"`cluster` must be None, True or False, got {cluster!r}")
    if method in ("mcnemar", "t") and cluster:
        raise ValueError(
            f"`method`={method!r} assumes independent items and cannot be clustered; "
            "use method='cluster' (or 'auto'), or cluster=False"
        )
    if method == "cluster" and cluster is False:
        raise ValueError("`method`='cluster' contradicts `cluster`=False")
    if cluster is None:
        clustered = method == "cluster"  # clustering is opt-in, as in intervals()
    else:
        clustered = bool(cluster)
    if clustered and m.groups is None:
        raise DataError(
            "clustered standard errors need item groups, but the data has none: "
            "read the file with --cluster-by COLUMN (group='subject')"
        )
    if method == "mcnemar" and not binary:
        raise DataError("McNemar's test needs 0/1 scores; these scores are continuous: use method='t'")
    if clustered:
        warn_few_clusters(len(set(m.groups)), stacklevel=4)  # type: ignore[arg-type]
    if method == "auto":
        method = "cluster" if clustered else ("mcnemar" if binary else "t")
    return method, clustered


def _check_interval(interval: Any) -> str:
    if interval not in ("auto", "exact", "wald"):
        raise ValueError(f"`interval` must be 'auto', 'exact' or 'wald', got {interval!r}")
    return "exact" if interval == "auto" else str(interval)


def _ci_method(method: str, interval: str, correction: str) -> str:
    """Name of the interval that goes with ``method`` (recorded as ``ci_method``)."""
    if method == "mcnemar":
        return "exact-mcnemar" if interval == "exact" else "wald"
    if method == "cluster":
        return f"cluster-{correction}"
    return "t"


# ------------------------------------------------------------------ compare
@dataclass(frozen=True, eq=False)
class PairedComparison(Result):
    """Paired comparison of model ``a`` with model ``b`` on the items both scored.

    Attributes
    ----------
    a, b : str
        Model names; ``diff = score(a) - score(b)`` on the shared items.
    n_items : int
        Items both models scored.
    only_a, only_b : int or None
        For 0/1 scores: items only ``a`` got right (b in [A]) and only ``b`` got right (c).
    score_a, score_b : float
        Each model's mean on the shared items.
    diff, se, ci_low, ci_high : float
        Mean paired difference (fraction), its SE and CI.
    p_value : float
        Two-sided p-value of the method used.
    method : str
        ``"mcnemar"`` (exact McNemar test), ``"t"`` (paired t), ``"sign-flip"`` (sign-flip
        permutation p; CI as for ``"t"``) or ``"cluster"`` (clustered paired SE [M, eq. 4]
        with a small-cluster correction, t p-value).
    confidence_level : float
    clustered : bool
    unpaired_half_width : float
        ``z * sqrt(SE_A^2 + SE_B^2)``: the half-width the two separate error bars would
        give; wider than the paired one when the models agree on many items.
    n_resamples : int or None
        Sign-flip draws (``"sign-flip"`` only).
    ci_method : str
        The interval: ``"exact-mcnemar"`` (:func:`mcnemar_ci`, the default for 0/1 scores; it
        excludes 0 exactly when ``p_value < 1 - confidence_level``), ``"wald"`` (``diff ± z se``
        of [A], ``interval="wald"``), ``"t"``, or ``"cluster-cr2"`` / ``"cluster-cr1"`` /
        ``"cluster-none"``. ``se`` is always the SE of the method ([A]'s paired SE for 0/1
        scores), whichever interval is used.
    df : float or None
        Degrees of freedom of the t reference (``"t"``, ``"sign-flip"`` CI, ``"cluster"``).
    n_clusters : int or None
        Clusters the two models share (clustered only).
    """

    a: str
    b: str
    n_items: int
    only_a: int | None
    only_b: int | None
    score_a: float
    score_b: float
    diff: float
    se: float
    ci_low: float
    ci_high: float
    p_value: float
    method: str
    confidence_level: float
    clustered: bool
    unpaired_half_width: float
    n_resamples: int | None = None
    ci_method: str = "exact-mcnemar"
    df: float | None = None
    n_clusters: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return jsonable({
            "a": self.a, "b": self.b, "n_items": self.n_items,
            "only_a": self.only_a, "only_b": self.only_b,
            "diff": self.diff, "ci_low": self.ci_low, "ci_high": self.ci_high,
            "p_value": self.p_value, "p_adjusted": None, "se": self.se,
            "method": self.method, "ci_method": self.ci_method, "df": self.df,
            "n_clusters": self.n_clusters, "confidence_level": self.confidence_level,
            "clustered": self.clustered, "score_a": self.score_a, "score_b": self.score_b,
            "unpaired_half_width": self.unpaired_half_width, "n_resamples": self.n_resamples,
        })


def _sign_flip_p(
    d: np.ndarray, codes: np.ndarray | None, n_resamples: int, batch: int, rng: np.random.Generator
) -> float:
    """Two-sided sign-flip permutation p of the mean difference (clusters flip together)."""
    units = d if codes is None else np.stack([d[s].sum() for s in _group_slices(codes)])
    obs = abs(units.sum())
    tol = 1e-9 * max(1.0, obs)
    hits = 0
    done = 0
    while done < n_resamples:
        k = min(batch, n_resamples - done)
        signs = rng.integers(0, 2, size=(k, units.size), dtype=np.int8) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ units) >= obs - tol))
        done += k
    return (hits + 1) / (n_resamples + 1)  # +1 correction [P]


def compare(
    m: "ScoreMatrix",
    a: str,
    b: str,
    *,
    method: PairMethod = "auto",
    confidence_level: float = 0.95,
    cluster: bool | None = None,
    n_resamples: int = 9999,
    batch: int = 1000,
    rng: Any = None,
    interval: Literal["auto", "exact", "wald"] = "auto",
    cluster_correction: Literal["cr2", "cr1", "none"] = "cr2",
) -> PairedComparison:
    """Compare two models on the items both scored.

    Parameters
    ----------
    m : ScoreMatrix
    a, b : str
        Model names; the difference is ``a - b``.
    method : {"auto", "mcnemar", "t", "sign-flip", "cluster"}, default: ``"auto"``
        ``"auto"``: ``"cluster"`` when item groups apply, else ``"mcnemar"`` for 0/1 scores
        and ``"t"`` for continuous scores. ``"sign-flip"`` permutes the signs of the paired
        differences (of whole clusters when clustered).
    confidence_level : float, default: ``0.95``
    cluster : bool or None, default: ``None``
        ``None`` clusters only for ``method="cluster"``; ``True`` clusters by ``m.groups``
        (Miller eq. 4). Clustering is opt-in: a ``subject`` column alone does not turn it on.
    n_resamples : int, default: ``9999``
        Sign-flip draws.
    batch : int, default: ``1000``
        Sign-flip draws per array operation.
    rng : None, int or numpy.random.Generator
        For ``"sign-flip"``.
    interval : {"auto", "exact", "wald"}, default: ``"auto"``
        Interval for 0/1 scores with ``method="mcnemar"``: ``"auto"`` = ``"exact"``
        (:func:`mcnemar_ci`: agrees with the exact test, nominal coverage with few discordant
        items); ``"wald"`` = ``diff ± z se`` of [A] (reproduces the article's ±1.96 points).
    cluster_correction : {"cr2", "cr1", "none"}, default: ``"cr2"``
        Small-cluster correction of the clustered SE, CI and p-value (t reference with the
        matching df); ``"none"`` is [M, eq. 4] with a normal reference.

    Returns
    -------
    PairedComparison

    Raises
    ------
    DataError
        Unknown model (with close names), the same model twice, McNemar on continuous scores.
    ValueError
        Bad ``method``, ``confidence_level``, ``n_resamples``.

    Notes
    -----
    0/1 scores [A]: ``b`` = items only A got right, ``c`` = only B, ``d = (b - c)/n``,
    ``SE = sqrt((b + c)/n - d^2)/sqrt(n)``; exact McNemar p (:func:`mcnemar_exact`) and the
    interval of :func:`mcnemar_ci` that agrees with it (or ``d ± z SE`` with
    ``interval="wald"``). Continuous: mean and SE (``ddof=1``) of the per-item differences,
    t quantile, paired t p. Clustered: ``SE_C`` of [M, eq. 4] applied to the differences with
    the CR2 (Bell-McCaffrey) correction, t quantile and t p-value with the Bell-McCaffrey df
    (``G - 1`` for equal clusters).

    References
    ----------
    .. [1] [A] "Is the #1 AI Model Really #1?" (2026): b = 219, c = 182, n = 2,000 gives
       d = 1.85 points, ±1.96, p = 0.0721.
    .. [2] E. Miller, arXiv:2411.00640 (2024), section 4 and eq. 4.
    .. [3] Q. McNemar, Psychometrika 12 (1947) 153-157.
    """
    cl = check_confidence_level(confidence_level)
    iv_kind = _check_interval(interval)
    corr = _check_correction(cluster_correction)
    ia, ib = m.index_of(a), m.index_of(b)
    if ia == ib:
        raise DataError(f"cannot compare model {a!r} with itself: give two different models")
    S = np.asarray(m.scores)[[ia, ib]]
    binary = _is_binary(S)
    meth, clustered = _resolve(m, method, cluster, binary, ("auto", "mcnemar", "t", "sign-flip", "cluster"))
    shared = ~np.isnan(S).any(axis=0)
    if not shared.any():
        raise DataError(f"models {a!r} and {b!r} share no scored item: nothing to compare")
    S = S[:, shared]
    codes = m.group_codes[shared] if clustered else None  # type: ignore[index]
    if meth == "sign-flip":
        if int(n_resamples) != n_resamples or n_resamples < 1:
            raise ValueError(f"`n_resamples` must be a positive integer, got {n_resamples!r}")
        if int(batch) != batch or batch < 1:
            raise ValueError(f"`batch` must be a positive integer, got {batch!r}")
    st = pair_stats(S, np.array([0]), np.array([1]), binary=binary, group_codes=codes)
    stat_method = "cluster" if clustered else meth
    diff, se, low, high, p = _finish(st, stat_method, cl, interval=iv_kind, cluster_correction=corr)
    p_value = float(p[0])
    if meth == "sign-flip":
        gen = np.random.default_rng(rng)
        p_value = _sign_flip_p(S[0] - S[1], codes, int(n_resamples), int(batch), gen)
    # what two separate error bars would say
    n = S.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        if clustered:
            se_ab = cluster_se(S, codes)  # type: ignore[arg-type]
        else:
            se_ab = S.std(axis=1) / np.sqrt(n)
    unpaired = z_value(cl) * float(np.sqrt(np.sum(se_ab**2)))
    return PairedComparison(
        a=m.models[ia], b=m.models[ib], n_items=int(n),
        only_a=int(st["b"][0]) if binary else None,
        only_b=int(st["c"][0]) if binary else None,
        score_a=float(S[0].mean()), score_b=float(S[1].mean()),
        diff=float(diff[0]), se=float(se[0]), ci_low=float(low[0]), ci_high=float(high[0]),
        p_value=p_value, method=meth,
        confidence_level=cl, clustered=clustered, unpaired_half_width=unpaired,
        n_resamples=int(n_resamples) if meth == "sign-flip" else None,
        ci_method=_ci_method(stat_method, iv_kind, corr),
        df=_df_of(st, stat_method, corr, 0),
        n_clusters=int(st["n_clusters"][0]) if clustered else None,
    )


def _df_of(st: dict[str, np.ndarray], method: str, corr: str, k: int) -> float | None:
    if method in ("t", "sign-flip"):
        return float(st["n"][k] - 1)
    if method == "cluster":
        if corr == "none":
            return float("inf")
        return float(st["n_clusters"][k] - 1) if corr == "cr1" else float(st["cl_df"][k])
    return None


# ------------------------------------------------------------------ all pairs
@dataclass(frozen=True, eq=False)
class PairTable(Result):
    """Paired comparisons of many pairs, kept as arrays (one entry per pair).

    Attributes
    ----------
    models : tuple of str
        All model names, in the matrix's order.
    score : ndarray
        Each model's mean over its own scored items.
    order : ndarray of int
        Model indices sorted by score, highest first (ties keep the matrix order).
    i, j : ndarray of int
        Indices into ``models`` of the two models of each pair; ``i`` (model A) is the
        higher-ranked one and ``diff = A - B``.
    n_items, only_a, only_b : ndarray of int
        Shared items and, for 0/1 scores, the discordant counts (-1 for continuous scores).
    diff, se, ci_low, ci_high, p_value, p_adjusted : ndarray of float
    method : str
        ``"mcnemar"``, ``"t"`` or ``"cluster"``.
    ci_method : str
        The per-pair interval, as in :class:`PairedComparison` (``"exact-mcnemar"`` for 0/1
        scores by default). The intervals are unadjusted (per pair, at ``confidence_level``),
        while ``p_adjusted`` is adjusted for multiplicity.
    adjust : str
        Multiplicity adjustment over the pairs in this table.
    pairs : str
        ``"all"`` or ``"adjacent"``.
    confidence_level : float
    clustered : bool
    binary : bool
    """

    models: tuple[str, ...]
    score: np.ndarray
    order: np.ndarray
    i: np.ndarray
    j: np.ndarray
    n_items: np.ndarray
    only_a: np.ndarray
    only_b: np.ndarray
    diff: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray
    p_adjusted: np.ndarray
    method: str
    adjust: str
    pairs: str
    confidence_level: float
    clustered: bool
    binary: bool
    ci_method: str = "exact-mcnemar"

    def __len__(self) -> int:
        return int(self.i.size)

    def to_dict(self) -> dict[str, Any]:
        names = np.asarray(self.models, dtype=object)
        cols = {
            "a": names[self.i].tolist(),
            "b": names[self.j].tolist(),
            "n_items": self.n_items.tolist(),
            "only_a": self.only_a.tolist() if self.binary else [None] * len(self),
            "only_b": self.only_b.tolist() if self.binary else [None] * len(self),
            "diff": self.diff.tolist(),
            "se": self.se.tolist(),
            "ci_low": self.ci_low.tolist(),
            "ci_high": self.ci_high.tolist(),
            "p_value": self.p_value.tolist(),
            "p_adjusted": self.p_adjusted.tolist(),
        }
        keys = list(cols)
        rows = [dict(zip(keys, vals)) for vals in zip(*cols.values())]
        return jsonable({
            "adjust": self.adjust,
            "pairs_scope": self.pairs,
            "method": self.method,
            "ci_method": self.ci_method,
            "ci_adjusted": False,
            "clustered": self.clustered,
            "confidence_level": self.confidence_level,
            "pairs": rows,
        })

    def matrix(self, field: str = "p_adjusted") -> np.ndarray:
        """``(n_models, n_models)`` array of ``field``; entry ``[x, y]`` reads "x vs y".

        ``diff``, ``ci_low``/``ci_high`` and ``only_a``/``only_b`` are mirrored as for the
        swapped pair (negated / exchanged); the others are symmetric. Pairs not in the
        table and the diagonal are NaN.
        """
        fields = ("n_items", "only_a", "only_b", "diff", "se", "ci_low", "ci_high", "p_value", "p_adjusted")
        if field not in fields:
            raise ValueError(f"`field` must be one of {', '.join(repr(f) for f in fields)}, got {field!r}")
        k = len(self.models)
        out = np.full((k, k), np.nan)
        v = np.asarray(getattr(self, field), dtype=np.float64)
        mirror = {
            "diff": -v, "ci_low": -np.asarray(self.ci_high, dtype=np.float64),
            "ci_high": -np.asarray(self.ci_low, dtype=np.float64),
            "only_a": np.asarray(self.only_b, dtype=np.float64),
            "only_b": np.asarray(self.only_a, dtype=np.float64),
        }.get(field, v)
        out[self.i, self.j] = v
        out[self.j, self.i] = mirror
        return out

    def significant(self, alpha: float = 0.05) -> np.ndarray:
        """Boolean array per pair: ``p_adjusted < alpha``."""
        if not (0 < float(alpha) < 1):
            raise ValueError(f"`alpha` must be in the open interval (0, 1), got {alpha!r}")
        with np.errstate(invalid="ignore"):
            return np.asarray(self.p_adjusted < alpha)


def score_order(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean over own items per row, and row indices sorted by it (highest first, NaN last)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        cnt = (~np.isnan(S)).sum(axis=1)
        score = np.where(cnt > 0, np.nansum(S, axis=1) / np.maximum(cnt, 1), np.nan)
    key = np.where(np.isnan(score), np.inf, -score)
    return score, np.argsort(key, kind="stable")


def all_pairs(
    m: "ScoreMatrix",
    *,
    pairs: Literal["all", "adjacent"] = "all",
    adjust: Literal["holm", "bonferroni", "bh", "none"] = "holm",
    confidence_level: float = 0.95,
    cluster: bool | None = None,
    method: Literal["auto", "mcnemar", "t", "cluster"] = "auto",
    interval: Literal["auto", "exact", "wald"] = "auto",
    cluster_correction: Literal["cr2", "cr1", "none"] = "cr2",
) -> PairTable:
    """Paired comparisons of every pair of models (or of each model with the next one down).

    Parameters
    ----------
    m : ScoreMatrix
        NaN cells allowed: each pair uses the items both models scored.
    pairs : {"all", "adjacent"}, default: ``"all"``
        ``"all"``: every pair, ``M (M - 1) / 2``; ``"adjacent"``: each model vs the next one
        down when sorted by score (``M - 1`` pairs).
    adjust : {"holm", "bonferroni", "bh", "none"}, default: ``"holm"``
        Multiplicity adjustment over the pairs in the table (:func:`adjust_pvalues`).
    confidence_level : float, default: ``0.95``
        Of the (unadjusted) per-pair CIs.
    cluster : bool or None, default: ``None``
        As in :func:`compare`.
    method : {"auto", "mcnemar", "t", "cluster"}, default: ``"auto"``
        As in :func:`compare` (sign-flip is only offered for a single pair).
    interval : {"auto", "exact", "wald"}, default: ``"auto"``
        As in :func:`compare`.
    cluster_correction : {"cr2", "cr1", "none"}, default: ``"cr2"``
        As in :func:`compare`.

    Returns
    -------
    PairTable
        Arrays with one entry per pair; model A (``i``) is the higher-scored model.

    Notes
    -----
    For 0/1 scores with indicator matrices ``A = [s == 1]`` and ``K = [scored]``, the
    discordant counts of every pair are one product ``B = A (K - A)^T`` (``b = B[i, j]``,
    ``c = B[j, i]``) and the shared counts ``K K^T``; for complete data a single
    symmetric product ``A A^T`` suffices. Continuous scores use the centred Gram matrix
    for the variance of the differences. Exact McNemar p-values for all pairs are one
    vectorised call to the regularised incomplete beta function.

    References
    ----------
    .. [1] [A] "Is the #1 AI Model Really #1?" (2026).
    .. [2] E. Miller, arXiv:2411.00640 (2024).
    .. [3] S. Holm, Scand. J. Statist. 6 (1979) 65-70.
    """
    cl = check_confidence_level(confidence_level)
    iv_kind = _check_interval(interval)
    corr = _check_correction(cluster_correction)
    if pairs not in ("all", "adjacent"):
        raise ValueError(f"`pairs` must be 'all' or 'adjacent', got {pairs!r}")
    if adjust not in ADJUST_METHODS:
        raise ValueError(
            f"`adjust` must be one of {', '.join(repr(x) for x in ADJUST_METHODS)}, got {adjust!r}"
        )
    if method == "sign-flip":
        raise ValueError("`method`='sign-flip' is offered for one pair only: use compare(m, a, b, method='sign-flip')")
    S = np.asarray(m.scores)
    binary = _is_binary(S)
    meth, clustered = _resolve(m, method, cluster, binary, ("auto", "mcnemar", "t", "cluster"))
    score, order = score_order(S)
    k = S.shape[0]
    if pairs == "all":
        p, q = np.triu_indices(k, 1)
        ii, jj = order[p], order[q]
    else:
        ii, jj = order[:-1], order[1:]
    ii = ii.astype(np.intp)
    jj = jj.astype(np.intp)
    if ii.size:
        st = pair_stats(S, ii, jj, binary=binary, group_codes=m.group_codes if clustered else None)
        diff, se, low, high, pv = _finish(st, meth, cl, interval=iv_kind, cluster_correction=corr)
    else:
        st = {"n": np.zeros(0)}
        diff = se = low = high = pv = np.zeros(0)
    neg = np.full(ii.shape, -1, dtype=np.int64)
    return PairTable(
        models=m.models, score=score, order=order.astype(np.intp), i=ii, j=jj,
        n_items=np.asarray(st["n"]).astype(np.int64),
        only_a=st.get("b", neg), only_b=st.get("c", neg),
        diff=diff, se=se, ci_low=low, ci_high=high, p_value=pv,
        p_adjusted=adjust_pvalues(pv, adjust), method=meth, adjust=adjust, pairs=pairs,
        confidence_level=cl, clustered=clustered, binary=binary,
        ci_method=_ci_method(meth, iv_kind, corr),
    )
