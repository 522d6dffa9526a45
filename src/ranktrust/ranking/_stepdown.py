"""The one two-sided max-|t| stepdown over all pairs of models (numerics only).

Romano & Wolf (2005) stepdown over the ``M (M - 1) / 2`` two-sided hypotheses ``theta_j = theta_k``, with
statistics ``T_jk = (theta_j - theta_k) / se_jk`` and critical values from centred draws of the estimates
(normal draws ``Z ~ N(0, V)``, the parametric version of csranks, or bootstrap draws). A rejected pair is
claimed in the direction of its sign, as the score path's Holm-adjusted paired tests are. Run one pair at a
time in the order of decreasing ``|T|``, this gives every pair its stepdown-adjusted p-value (the largest,
over the pairs ranked at or above it, of the share of draws whose max over the pairs not yet claimed reaches
that pair's ``|T|``); "separated" is ``p_adjusted < alpha``, the same claims as the block stepdown.

Mogstad, Romano, Shaikh & Wilhelm (2024) state the procedure on ordered pairs, where the reverse direction of
a claimed pair stays in every later max; that keeps the critical value at the one-sided max over all pairs
(about 3 for 20 models) however many pairs are settled (``_mrsw.py``: the rank sets of
``rank_sets(method="bootstrap")``, a different procedure that shares :func:`inverse_se`). The two-sided form
used here drops a pair once it is claimed; its family-wise error over the equality hypotheses is controlled by
the stepdown argument, and the directional errors (a claim in the wrong direction) are measured in
bench/bench_arena_coverage.py.

Layers: :func:`maxt_counts` is the kernel (draws, pairs, ``1/se`` and thresholds in; exceedance counts out);
:func:`stepdown` is its front for an estimate and its covariance (the arena and the gold-corrected judges),
``ranking._suite._stepdown`` its front for bootstrap draws of a suite's aggregate. Each front keeps its own
p-value convention: ``(1 + count) / (1 + B)`` for the arena, ``count / B`` for the suite.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MaxT", "inverse_se", "maxt_counts", "normal_equivalent", "pair_index", "pair_se", "stepdown",
           "t_tail"]

#: float32 cells of one chunk of pair statistics (pairs x draws): 1 MB, the chunk stays in cache (measured best
#: between 2**17 and 2**19 at 250 models and 2,000 draws)
_CELLS = 2**18


def pair_index(M: int) -> tuple[np.ndarray, np.ndarray]:
    """Unordered pairs ``j < k``."""
    return np.triu_indices(M, 1)


def pair_se(V: np.ndarray, J: np.ndarray, K: np.ndarray) -> np.ndarray:
    """The standard error of ``theta_j - theta_k`` under covariance ``V``, per pair (0 where not positive)."""
    d = np.diag(V)
    return np.sqrt(np.maximum(d[J] + d[K] - 2 * V[J, K], 0.0))


def inverse_se(se: np.ndarray) -> np.ndarray:
    """``1 / se`` where ``se > 0``, else 0: a pair whose difference has no spread counts 0 in every draw's
    max (it never raises a critical value; whether its gap is claimed is the caller's rule)."""
    se = np.asarray(se, dtype=float)
    pos = se > 0
    return np.where(pos, 1.0 / np.where(pos, se, 1.0), 0.0)


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


def _up32(x: np.ndarray) -> np.ndarray:
    """The smallest float32 at or above each float64 ``x``: for a float32 ``s``, ``s >= x`` exactly when
    ``s >= _up32(x)``, so the draws' float32 statistics are compared in float32 with no change of outcome."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore"):
        c = x.astype(np.float32)
    low = c.astype(np.float64) < x
    c[low] = np.nextafter(c[low], np.float32(np.inf))
    return c


@dataclass(frozen=True)
class MaxT:
    """What :func:`maxt_counts` returns.

    ``max_abs``: per draw, the max of ``|T*|`` over all pairs (the single-step distribution; float32 values
    held in float64). ``exceed``: per pair (input order), the stepdown-adjusted count, that is the largest,
    over the pairs ranked at or above it by threshold, of the number of draws whose max over the pairs ranked
    at or below that one reaches that one's threshold. ``marginal``: per pair, the number of draws whose own
    ``|T*|`` reaches its threshold (None unless asked for)."""

    max_abs: np.ndarray
    exceed: np.ndarray
    marginal: np.ndarray | None


def maxt_counts(draws: np.ndarray, J: np.ndarray, K: np.ndarray, inv: np.ndarray, threshold: np.ndarray, *,
                marginal: bool = False, cells: int = _CELLS) -> MaxT:
    """The stepdown max-|t| over the pairs ``(J, K)`` as counts of draws.

    ``draws``: ``(B, M)`` centred draws of the estimates. ``inv``: per pair ``1 / se`` (0: the pair takes no
    part in any max, see :func:`inverse_se`). ``threshold``: per pair the ``|t|`` its draws' ``|T*|`` are
    compared with (``>=``; inf: never reached; a caller's tolerance goes in here). The draws' statistics
    ``|Z_j - Z_k| * inv`` are computed in float32 (7 significant digits; a critical value needs 3), half the
    memory traffic of float64; thresholds are rounded up to float32 (:func:`_up32`), which changes no
    comparison.

    Work: one pass over chunks of pairs (``cells`` float32 at a time), from the smallest threshold to the
    largest, so that the max over every later pair is known when a chunk is reached; each pair's statistics
    are computed once. A chunk whose thresholds all lie at or below every draw's max over the later pairs
    counts ``B`` throughout, one whose thresholds all exceed every draw's max over it and the later pairs
    counts 0; only the chunks in between take the running max pair by pair (a loop over the chunk's rows:
    numpy's ``maximum.accumulate`` along the pairs' axis is ten times slower).
    """
    draws = np.asarray(draws)
    B = draws.shape[0]
    P = len(J)
    threshold = np.asarray(threshold, dtype=np.float64)
    if P == 0:
        return MaxT(np.zeros(B), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64) if marginal else None)
    order = np.argsort(-threshold, kind="stable")
    Jo, Ko = J[order], K[order]
    inv_o = np.asarray(inv, dtype=float)[order].astype(np.float32)[:, None]
    thr_o = _up32(threshold[order])[:, None]
    zt = np.ascontiguousarray(draws.T, dtype=np.float32)         # (M, B): a pair's draws are two contiguous rows
    step = max(1, int(cells) // max(B, 1))
    buf = np.empty((min(step, P), B), dtype=np.float32)
    after = np.full(B, -np.inf, dtype=np.float32)                  # per draw: the max over the pairs done so far
    raw_o = np.empty(P, dtype=np.int64)
    marg_o = np.empty(P, dtype=np.int64) if marginal else None
    for lo in range(((P - 1) // step) * step, -1, -step):          # the chunks, last (smallest |t|) first
        sl = slice(lo, min(lo + step, P))
        tb = buf[:sl.stop - lo]
        np.subtract(zt[Jo[sl]], zt[Ko[sl]], out=tb)
        np.abs(tb, out=tb)
        tb *= inv_o[sl]                                              # (chunk, B): |T*| in stepdown order
        thr = thr_o[sl]
        if marg_o is not None:
            marg_o[sl] = np.count_nonzero(tb >= thr, axis=1)
        if thr.max() <= after.min():                                 # every draw's later max reaches them all
            raw_o[sl] = B
            np.maximum(after, tb.max(axis=0), out=after)
            continue
        np.maximum(tb[-1], after, out=tb[-1])
        for i in range(len(tb) - 2, -1, -1):                         # tb[i]: the max over pair i and every later one
            np.maximum(tb[i], tb[i + 1], out=tb[i])
        after[:] = tb[0]
        if thr.min() > after.max():                                  # no draw reaches any of them
            raw_o[sl] = 0
        else:
            raw_o[sl] = np.count_nonzero(tb >= thr, axis=1)
    exceed = np.empty(P, dtype=np.int64)
    exceed[order] = np.maximum.accumulate(raw_o)
    marg = None
    if marg_o is not None:
        marg = np.empty(P, dtype=np.int64)
        marg[order] = marg_o
    return MaxT(after.astype(np.float64), exceed, marg)


def stepdown(theta: np.ndarray, V: np.ndarray, *, n_draws: int, rng: np.random.Generator,
             batch: int | None = None, draws: np.ndarray | None = None, df: np.ndarray | None = None,
             valid: np.ndarray | None = None) -> dict[str, np.ndarray | float | None]:
    """Adjusted p-values of every pair and the single-step draws of ``max |T*|``, for estimates ``theta`` with
    covariance ``V``.

    Returns ``J, K, diff, se, t, p_adjusted`` (one entry per unordered pair, ``J < K``), ``max_abs``
    (the ``n_draws`` draws of ``max |T*|`` over all pairs: the single-step distribution) and ``floor``
    (``1 / (n_draws + 1)``, the smallest p-value). ``draws``: centred bootstrap draws ``(n_draws, M)`` of the
    strengths to use instead of ``N(0, V)``. ``df``: per pair, the degrees of freedom of its t reference (inf:
    normal); each |t| then enters the max as its normal equivalent (:func:`normal_equivalent`). ``valid``: per
    pair, False where its variance is not estimable (such a pair is never claimed and takes no part in the max;
    its p-values are NaN). A pair whose ``se`` is 0 takes no part in the max either; a nonzero gap then has
    ``|t| = inf`` and the floor p-value. With one pair there are no draws: its adjusted p-value is its
    p-value. ``batch``: pairs x draws float32 cells per chunk (default :data:`_CELLS`); no effect on the
    numbers.
    """
    M = len(theta)
    J, K = pair_index(M)
    P = len(J)
    diff = theta[J] - theta[K]
    se = pair_se(V, J, K)
    ok = np.ones(P, dtype=bool) if valid is None else np.asarray(valid, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, diff / se, np.where(diff == 0, 0.0, np.inf * np.sign(diff)))
    inv = inverse_se(np.where(ok, se, 0.0))
    t = np.where(ok, t, 0.0)
    if df is not None:
        t = normal_equivalent(t, df)
    if P == 1:
        p1 = np.where(ok, 2 * np.exp(t_tail(t, np.inf)), np.nan)
        return {"J": J, "K": K, "diff": diff, "se": se, "t": t, "p_adjusted": p1, "max_abs": np.abs(t),
                "floor": None}
    if draws is None:
        Z = rng.standard_normal((n_draws, M)) @ _factor(V).T
    else:
        Z = np.asarray(draws, dtype=float)
    res = maxt_counts(Z, J, K, inv, np.abs(t), cells=batch or _CELLS)
    B = len(Z)
    p_adj = (1.0 + res.exceed) / (1.0 + B)
    p_adj[~ok] = np.nan
    return {"J": J, "K": K, "diff": diff, "se": se, "t": t, "p_adjusted": p_adj, "max_abs": res.max_abs,
            "floor": 1.0 / (1.0 + B)}
