"""Stepdown max-|t| over all pairwise contrasts of an estimated covariance (numerics only).

Romano & Wolf (2005) stepdown, in the ordered-pair form of Mogstad, Romano, Shaikh & Wilhelm (2024,
Algorithm 3.1): hypotheses ``H_jk: theta_j <= theta_k`` for every ordered pair, statistics
``T_jk = (theta_j - theta_k) / se_jk``, critical values from draws ``Z ~ N(0, V)`` (csranks' parametric
version). Run one pair at a time in the order of decreasing ``|T|``, which gives every unordered pair its
stepdown-adjusted p-value; "separated" is ``p_adjusted < alpha``, the same relation as the block stepdown.
When pair ``(j, k)`` has been claimed ``j > k``, the reverse hypothesis ``H_kj`` stays in the max (as in the
ordered-pair algorithm), so the family-wise error of the directional claims is controlled.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pair_index", "pair_se", "stepdown"]


def pair_index(M: int) -> tuple[np.ndarray, np.ndarray]:
    """Unordered pairs ``j < k``."""
    return np.triu_indices(M, 1)


def pair_se(V: np.ndarray, J: np.ndarray, K: np.ndarray) -> np.ndarray:
    d = np.diag(V)
    return np.sqrt(np.maximum(d[J] + d[K] - 2 * V[J, K], 0.0))


def _factor(V: np.ndarray) -> np.ndarray:
    w, U = np.linalg.eigh((V + V.T) / 2)
    return U * np.sqrt(np.clip(w, 0.0, None))


def stepdown(theta: np.ndarray, V: np.ndarray, *, n_draws: int, rng: np.random.Generator,
             batch: int | None = None, draws: np.ndarray | None = None) -> dict[str, np.ndarray | float]:
    """Adjusted p-values of every pair and the first-step critical value quantiles.

    Returns ``J, K, diff, se, t, p_adjusted`` (one entry per unordered pair, ``J < K``), ``max_abs``
    (the ``n_draws`` draws of ``max |T*|`` over all pairs: the single-step distribution). ``draws``:
    centred bootstrap draws ``(n_draws, M)`` of the strengths to use instead of ``N(0, V)``.
    """
    M = len(theta)
    J, K = pair_index(M)
    P = len(J)
    diff = theta[J] - theta[K]
    se = pair_se(V, J, K)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, diff / se, np.where(diff == 0, 0.0, np.inf * np.sign(diff)))
        inv = np.where(se > 0, 1.0 / se, 0.0)
    order = np.argsort(-np.abs(t), kind="stable")
    Jo, Ko, inv_o, sign_o = J[order], K[order], inv[order], np.sign(t[order])
    absto = np.abs(t[order])
    L = _factor(V) if draws is None else None
    if batch is None:
        batch = max(1, min(n_draws, int(4_000_000 // max(P, 1))))
    exceed = np.zeros(P, dtype=np.int64)
    max_abs = np.empty(n_draws)
    done = 0
    while done < n_draws:
        b = min(batch, n_draws - done)
        Z = rng.standard_normal((b, M)) @ L.T if draws is None else draws[done:done + b]
        Tst = (Z[:, Jo] - Z[:, Ko]) * inv_o          # b x P, pairs in stepdown order
        A = np.abs(Tst)
        tail = np.maximum.accumulate(A[:, ::-1], axis=1)[:, ::-1]      # max over pairs ranked >= k
        max_abs[done:done + b] = tail[:, 0]
        if P > 1:
            rev = -sign_o * Tst                        # the reverse direction of an already-claimed pair
            head = np.maximum.accumulate(rev, axis=1)  # max over pairs ranked <= k
            tail[:, 1:] = np.maximum(tail[:, 1:], head[:, :-1])
        exceed += (tail >= absto).sum(axis=0)
        done += b
    raw = (1.0 + exceed) / (1.0 + n_draws)
    adj_o = np.maximum.accumulate(raw)
    p_adj = np.empty(P)
    p_adj[order] = adj_o
    return {"J": J, "K": K, "diff": diff, "se": se, "t": t, "p_adjusted": p_adj, "max_abs": max_abs}
