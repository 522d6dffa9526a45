"""Stepdown max-|t| over all pairwise contrasts of an estimated covariance (numerics only).

Romano & Wolf (2005) stepdown over the ``M (M - 1) / 2`` two-sided hypotheses ``theta_j = theta_k``, with
statistics ``T_jk = (theta_j - theta_k) / se_jk`` and critical values from draws ``Z ~ N(0, V)`` (the
parametric version of csranks; or bootstrap draws). A rejected pair is claimed in the direction of its sign,
as the score path's Holm-adjusted paired tests are. Run one pair at a time in the order of decreasing
``|T|``, this gives every pair its stepdown-adjusted p-value (the largest, over the pairs ranked at or above
it, of the share of draws whose max over the pairs not yet claimed reaches that pair's ``|T|``);
"separated" is ``p_adjusted < alpha``, the same claims as the block stepdown.

Mogstad, Romano, Shaikh & Wilhelm (2024) state the procedure on ordered pairs, where the reverse direction of
a claimed pair stays in every later max; that keeps the critical value at the one-sided max over all pairs
(about 3 for 20 models) however many pairs are settled. The two-sided form used here drops a pair once it is
claimed; its family-wise error over the equality hypotheses is controlled by the stepdown argument, and the
directional errors (a claim in the wrong direction) are measured in bench/bench_arena_coverage.py.
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
    """A factor L with L L' = V + c 1 1' (c > 0): the common shift leaves every difference Z_j - Z_k as under
    V and makes the matrix positive definite (V 1 = 0 for sum-to-zero strengths), so Cholesky works; eigh is
    the fallback."""
    S = (V + V.T) / 2
    c = float(np.mean(np.diag(S))) or 1.0
    try:
        return np.linalg.cholesky(S + c)
    except np.linalg.LinAlgError:
        w, U = np.linalg.eigh(S)
        return U * np.sqrt(np.clip(w, 0.0, None))


def t_tail(t: np.ndarray, df: np.ndarray | float) -> np.ndarray:
    """log P(T > |t|) for Student's t with ``df`` degrees of freedom (inf: the normal), without underflow of
    the normal tail.

    ``scipy.special`` directly: the values of ``stats.t.logsf`` / ``stats.norm.logsf`` bit for bit (they call
    ``stdtr`` and ``log_ndtr``; NaN for df <= 0 or NaN as there) without importing ``scipy.stats``, which costs
    more than a second of start-up on every command."""
    from scipy import special

    a = np.abs(np.asarray(t, dtype=float))
    df = np.broadcast_to(np.asarray(df, dtype=float), a.shape)
    fin = np.isfinite(df)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = np.where(fin, np.log(special.stdtr(np.where(fin, df, 1.0), -a)), special.log_ndtr(-a))
    return out


def normal_equivalent(t: np.ndarray, df: np.ndarray | float) -> np.ndarray:
    """The normal deviate with the same two-sided tail as ``t`` under t(df), with its sign: a t statistic of a
    contrast whose variance rests on few clusters, put on the scale of the N(0, V) draws."""
    from scipy import special

    z = -special.ndtri_exp(t_tail(t, df))
    return np.sign(t) * np.where(np.isfinite(z), z, np.abs(t))


def stepdown(theta: np.ndarray, V: np.ndarray, *, n_draws: int, rng: np.random.Generator,
             batch: int | None = None, draws: np.ndarray | None = None, df: np.ndarray | None = None,
             valid: np.ndarray | None = None) -> dict[str, np.ndarray | float]:
    """Adjusted p-values of every pair and the first-step critical value quantiles.

    Returns ``J, K, diff, se, t, p_adjusted`` (one entry per unordered pair, ``J < K``), ``max_abs``
    (the ``n_draws`` draws of ``max |T*|`` over all pairs: the single-step distribution). ``draws``:
    centred bootstrap draws ``(n_draws, M)`` of the strengths to use instead of ``N(0, V)``. ``df``: per pair,
    the degrees of freedom of its t reference (inf: normal); each |t| then enters the max as its normal
    equivalent (:func:`normal_equivalent`). ``valid``: per pair, False where its variance is not estimable
    (such a pair is never claimed and takes no part in the max; its p-values are NaN). With one pair there
    are no draws: its adjusted p-value is its p-value.
    """
    M = len(theta)
    J, K = pair_index(M)
    P = len(J)
    diff = theta[J] - theta[K]
    se = pair_se(V, J, K)
    ok = np.ones(P, dtype=bool) if valid is None else np.asarray(valid, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, diff / se, np.where(diff == 0, 0.0, np.inf * np.sign(diff)))
        inv = np.where((se > 0) & ok, 1.0 / se, 0.0)
    t = np.where(ok, t, 0.0)
    if df is not None:
        t = normal_equivalent(t, df)
    if P == 1:
        p1 = np.where(ok, 2 * np.exp(t_tail(t, np.inf)), np.nan)
        return {"J": J, "K": K, "diff": diff, "se": se, "t": t, "p_adjusted": p1, "max_abs": np.abs(t),
                "floor": None}
    order = np.argsort(-np.abs(t), kind="stable")
    Jo, Ko, inv_o = J[order], K[order], inv[order]
    absto = np.abs(t[order])
    if draws is None:
        L = _factor(V)
        Z_all = rng.standard_normal((n_draws, M)) @ L.T
    else:
        Z_all = np.asarray(draws, dtype=float)
    # the draws' statistics in float32 (7 significant digits; a critical value needs 3): half the memory traffic
    Z_all = Z_all.astype(np.float32)
    inv_o = inv_o.astype(np.float32)
    if batch is None:
        batch = max(1, min(n_draws, int(4_000_000 // max(P, 1))))
    # pass 1: the single-step max |T*| of every draw
    max_abs = np.empty(n_draws)
    for lo in range(0, n_draws, batch):
        Z = Z_all[lo:lo + batch]
        max_abs[lo:lo + len(Z)] = np.abs((Z[:, Jo] - Z[:, Ko]) * inv_o).max(axis=1)
    # screen: a pair whose |t| exceeds every draw's max over all pairs is exceeded by no step's max (each step's
    # statistic is a max over a subset of the pairs), so its raw p is 1 / (B + 1): only the rest is accumulated
    n_s = int(np.searchsorted(-absto, -float(max_abs.max()), side="left")) if P else 0
    exceed = np.zeros(P, dtype=np.int64)
    rest = slice(n_s, P)
    for lo in range(0, n_draws if n_s < P else 0, batch):
        Z = Z_all[lo:lo + batch]
        A = np.abs((Z[:, Jo[rest]] - Z[:, Ko[rest]]) * inv_o[rest])          # b x (P - n_s), stepdown order
        tail = np.maximum.accumulate(A[:, ::-1], axis=1)[:, ::-1]           # max over pairs ranked >= k
        exceed[rest] += (tail >= absto[rest]).sum(axis=0)
    raw = (1.0 + exceed) / (1.0 + n_draws)
    adj_o = np.maximum.accumulate(raw)
    p_adj = np.empty(P)
    p_adj[order] = adj_o
    p_adj[~ok] = np.nan
    return {"J": J, "K": K, "diff": diff, "se": se, "t": t, "p_adjusted": p_adj, "max_abs": max_abs,
            "floor": 1.0 / (1.0 + n_draws)}
