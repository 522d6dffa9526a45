"""Screen-then-refine for the all-pairs rank sets (``rank_sets(method="pairs")``).

The default rank sets reject a pair when its exact McNemar p-value survives Holm (or
Bonferroni, BH, none) over all ``P = M (M - 1) / 2`` pairs. On a large leaderboard most
pairs are far apart and are rejected whatever the other pairs' p-values are. This module
finds those pairs from the row sums alone, in ``O(M N + P)``, and computes the exact test
only for the rest, from popcounts of bit-packed rows over the band of the score order that
holds them (``O(N / 64)`` words per pair).

Why the result is exactly the full computation's
------------------------------------------------
1. *Bound.* For complete 0/1 scores on ``N`` items, let ``r_j`` be model j's correct
   count. For the pair ``(j, k)`` the difference ``b - c = r_j - r_k = d`` is known, and
   the discordant count ``n = b + c`` is at most ``n_max = min(r_j + r_k, 2N - r_j - r_k)``
   (same parity as ``d``). The two-sided exact McNemar p-value ``min(1, 2 F(min(b, c); n,
   1/2))`` with ``min(b, c) = (n - |d|) / 2`` is non-decreasing in ``n`` for fixed
   ``|d| >= 1``: with ``t = (n - |d|) / 2``, going from ``n`` to ``n + 2`` adds
   ``(f(t + 1) - f(t)) / 4 >= 0`` to ``F`` (``f`` the Bin(n, 1/2) mass, increasing below
   ``n / 2``). So ``p <= p_bound = min(1, 2 F((n_max - |d|) / 2; n_max, 1/2))``, and by
   Hoeffding's inequality ``p_bound <= 2 exp(-d^2 / (2 n_max))``, which settles most far-apart
   pairs without the incomplete beta function.
2. *Screen.* A pair with ``p_bound < alpha / P`` (less a relative margin of 1e-9 for
   rounding) is rejected by Holm over the ``P`` pairs, and by each model's own Holm over its
   ``M - 1`` pairs (the marginal sets), whatever the other p-values are: every Holm threshold
   is at least ``alpha / P``. The same holds for Bonferroni, BH and no adjustment.
3. *Refine.* Every other pair gets its exact p-value. The screened ones enter the
   adjustment with ``p_bound``. All values below ``alpha / P`` pass at any position of
   Holm's step-down, and the pairs at or above it keep their values and positions, so the
   set of rejected pairs, hence ``better``, the rank sets, tiers and order, are those of the
   full computation. (The *adjusted* p-values of rejected pairs may differ; they are not
   kept.)

Only complete 0/1 matrices, unclustered two-sided McNemar, are screened; anything else
(missing cells: each pair has its own shared items; continuous scores: a pair whose
per-item difference is constant has no p-value, which the row statistics cannot see;
clusters) takes the full computation. Equality is tested in ``tests/test_ranking_ranksets.py``.
"""

from __future__ import annotations

import numpy as np

from .._kernel import is_binary
from ..stats import adjust_pvalues, mcnemar_exact, score_order

__all__ = ["discordant_counts", "mcnemar_bound", "screen_pairs", "screened_pairs", "threshold"]

_MARGIN = 1e-9     # relative: a screened bound is below alpha / P by more than rounding


def mcnemar_bound(r: np.ndarray, n_items: int, ii: np.ndarray, jj: np.ndarray, *,
                  below: float | None = None) -> np.ndarray:
    """Upper bound of the exact two-sided McNemar p-value of pairs ``(ii, jj)`` from the
    correct counts ``r`` on ``n_items`` shared items (module docstring, point 1).

    With ``below``, pairs whose Hoeffding bound ``2 exp(-d^2 / (2 n_max))`` (itself at least
    the exact bound) is already below ``below`` keep that value and skip the incomplete beta:
    the exact bound is evaluated only where it decides ``bound < below``.
    """
    a = r[ii].astype(np.int64)
    b = r[jj].astype(np.int64)
    d = np.abs(a - b)
    n_max = np.minimum(a + b, 2 * int(n_items) - a - b)
    if below is None:
        return mcnemar_exact((n_max + d) // 2, (n_max - d) // 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(n_max > 0, 2.0 * np.exp(-(d * d) / (2.0 * np.maximum(n_max, 1))) * (1.0 + _MARGIN), 1.0)
    exact = np.flatnonzero(~(out < below))
    out[exact] = mcnemar_exact((n_max[exact] + d[exact]) // 2, (n_max[exact] - d[exact]) // 2)
    return out


def threshold(alpha: float, n_tests: int) -> float:
    """``alpha / P`` less the rounding margin: a p-value bound below it settles the pair."""
    return (float(alpha) / max(int(n_tests), 1)) * (1.0 - _MARGIN)


def screen_pairs(bound: np.ndarray, alpha: float, n_tests: int) -> np.ndarray:
    """Pairs rejected by any of the adjustments whatever the others' p-values: bound < alpha / P."""
    return bound < threshold(alpha, n_tests)


def discordant_counts(S: np.ndarray, r: np.ndarray, order: np.ndarray, p: np.ndarray,
                      q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``b, c`` of pairs ``(order[p], order[q])``, ``p < q`` positions in the score order,
    sorted by ``p`` (as :func:`numpy.triu_indices` gives them); ``S`` 0/1 rows, ``r`` row sums.

    The rows are packed to bits once, in score order (``N / 64`` words each). For each
    position ``p`` with a pair left, the both-right counts with positions ``p + 1 .. max q``
    are one popcount of an AND against a contiguous slice: the pairs left after the screen
    are close in score, so this is a narrow band of the ``M x M`` product, exact at any ``N``.
    """
    b = np.empty(p.shape, dtype=np.int64)
    c = np.empty(p.shape, dtype=np.int64)
    if p.size == 0:
        return b, c
    bits = np.packbits(np.asarray(S) == 1, axis=1)[order]
    pad = (-bits.shape[1]) % 8
    if pad:
        bits = np.pad(bits, ((0, 0), (0, pad)))
    words = np.ascontiguousarray(bits).view(np.uint64)          # (M, ceil(N / 64)), score order
    ro = r[order]
    starts = np.flatnonzero(np.r_[True, p[1:] != p[:-1]])
    for s, e in zip(starts, np.r_[starts[1:], p.size]):
        a = int(p[s])
        qs = q[s:e]
        hi = int(qs.max()) + 1
        g = np.bitwise_count(words[a + 1:hi] & words[a]).sum(axis=1, dtype=np.int64)[qs - a - 1]
        b[s:e] = ro[a] - g
        c[s:e] = ro[qs] - g
    return b, c


def screened_pairs(m, level: float, adjust: str, cluster) -> tuple | None:
    """``(theta, diff, p_value, p_adjusted)`` (M x M) by screen-then-refine (module docstring),
    or None where it does not apply (missing cells, continuous scores, clusters, < 2 items)."""
    S = np.asarray(m.scores)
    k, n = S.shape
    if cluster is not False or k < 2 or n < 2 or not m.is_complete or not is_binary(S):
        return None
    theta, order = score_order(S)
    r = np.count_nonzero(S == 1, axis=1).astype(np.int64)
    p, q = np.triu_indices(k, 1)                 # the pairs of all_pairs, in its order
    ii, jj = order[p], order[q]
    alpha = 1.0 - level
    bound = mcnemar_bound(r, n, ii, jj, below=threshold(alpha, len(ii)))
    done = screen_pairs(bound, alpha, len(ii))
    pv = bound.copy()
    need = np.flatnonzero(~done)
    b, c = discordant_counts(S, r, order, p[need], q[need])
    pv[need] = mcnemar_exact(b, c)
    padj = adjust_pvalues(pv, adjust)
    dv = (r[ii] - r[jj]) / n                     # = (b - c) / N, the pair's difference

    def mat(v, mirror):
        out = np.full((k, k), np.nan)
        out[ii, jj] = v
        out[jj, ii] = mirror
        return out

    return theta, mat(dv, -dv), mat(pv, pv), mat(padj, padj)
