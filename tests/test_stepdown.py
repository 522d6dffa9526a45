"""The one stepdown max-|t| over all pairs (``ranking._stepdown``) against the two it replaced.

The arena's stepdown (``preference._maxt.stepdown`` then) and the suite's ``ranking._suite._stepdown`` are kept below as they
were (``_old_arena``, ``_old_suite``) and run on the same seeded inputs as the kernel's two fronts: ties, pairs
whose difference has no spread, one pair, pairs marked not valid, t references (df), given bootstrap draws.

Tolerance: both old and new compute the draws' statistics ``|Z_j - Z_k| / se`` in float32 from the same float32
draws with the same operations, and compare them with the same thresholds (the kernel rounds a float64 threshold
up to float32, which changes no comparison of a float32 value), so the counts behind every p-value are the same
integers and the p-values agree to the last bit; ``rtol=4 eps`` only leaves room for float64 arithmetic done in
another order. The critical value is a quantile of float32 maxima: ``rtol=1e-6`` (float32 has 7 significant
digits). Claims (``p_adjusted < alpha``) and rank sets are compared exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranktrust import ranking as _maxt   # the one stepdown's arena front
from ranktrust.ranking import _stepdown as sd
from ranktrust.ranking import _suite

EPS = 4 * np.finfo(float).eps


# ------------------------------------------------------------------ the two implementations this one replaced
def _old_arena(theta, V, *, n_draws, rng, batch=None, draws=None, df=None, valid=None):
    """preference/_maxt.py's stepdown before the one kernel (verbatim but for names)."""
    M = len(theta)
    J, K = np.triu_indices(M, 1)
    P = len(J)
    diff = theta[J] - theta[K]
    se = sd.pair_se(V, J, K)
    ok = np.ones(P, dtype=bool) if valid is None else np.asarray(valid, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, diff / se, np.where(diff == 0, 0.0, np.inf * np.sign(diff)))
        inv = np.where((se > 0) & ok, 1.0 / se, 0.0)
    t = np.where(ok, t, 0.0)
    if df is not None:
        t = sd.normal_equivalent(t, df)
    if P == 1:
        p1 = np.where(ok, 2 * np.exp(sd.t_tail(t, np.inf)), np.nan)
        return {"J": J, "K": K, "diff": diff, "se": se, "t": t, "p_adjusted": p1, "max_abs": np.abs(t),
                "floor": None}
    order = np.argsort(-np.abs(t), kind="stable")
    Jo, Ko, inv_o = J[order], K[order], inv[order]
    absto = np.abs(t[order])
    if draws is None:
        L = sd._factor(V)
        Z_all = rng.standard_normal((n_draws, M)) @ L.T
    else:
        Z_all = np.asarray(draws, dtype=float)
    Z_all = Z_all.astype(np.float32)
    inv_o = inv_o.astype(np.float32)
    if batch is None:
        batch = max(1, min(n_draws, int(4_000_000 // max(P, 1))))
    max_abs = np.empty(n_draws)
    for lo in range(0, n_draws, batch):
        Z = Z_all[lo:lo + batch]
        max_abs[lo:lo + len(Z)] = np.abs((Z[:, Jo] - Z[:, Ko]) * inv_o).max(axis=1)
    n_s = int(np.searchsorted(-absto, -float(max_abs.max()), side="left")) if P else 0
    exceed = np.zeros(P, dtype=np.int64)
    rest = slice(n_s, P)
    for lo in range(0, n_draws if n_s < P else 0, batch):
        Z = Z_all[lo:lo + batch]
        A = np.abs((Z[:, Jo[rest]] - Z[:, Ko[rest]]) * inv_o[rest])
        tail = np.maximum.accumulate(A[:, ::-1], axis=1)[:, ::-1]
        exceed[rest] += (tail >= absto[rest]).sum(axis=0)
    raw = (1.0 + exceed) / (1.0 + n_draws)
    adj_o = np.maximum.accumulate(raw)
    p_adj = np.empty(P)
    p_adj[order] = adj_o
    p_adj[~ok] = np.nan
    return {"J": J, "K": K, "diff": diff, "se": se, "t": t, "p_adjusted": p_adj, "max_abs": max_abs,
            "floor": 1.0 / (1.0 + n_draws)}


def _old_suite(g, gb, level, enough=None, chunk=4096):
    """ranking/_suite.py's _stepdown before the one kernel (verbatim but for names)."""
    m = len(g)
    ia, ib = np.triu_indices(m, 1)
    n_pairs = len(ia)
    z = (gb - g).astype(np.float64)
    if n_pairs == 0:
        e = np.empty(0)
        return ia, ib, e, e, e, e, e, float("nan")
    cov = np.atleast_2d(np.cov(z, rowvar=False, bias=True))
    v = np.diag(cov)
    var_d = v[ia] + v[ib] - 2.0 * cov[ia, ib]
    var_d[var_d <= 1e-12 * (v[ia] + v[ib])] = 0.0
    sigma = np.sqrt(np.maximum(var_d, 0.0))
    d = g[ia] - g[ib]
    inv = np.where(sigma > 0, 1.0 / np.where(sigma > 0, sigma, 1.0), 0.0)
    gap = np.abs(d) > 1e-12 * max(1.0, float(np.abs(g).max(initial=0.0)))
    exact = (sigma == 0) & gap
    if enough is not None and exact.any():
        gap[exact] = enough(ia[exact], ib[exact])
    t = np.where(sigma > 0, np.abs(d) * inv, np.where(gap, np.inf, 0.0))
    order = np.argsort(-t, kind="stable")
    zt = np.ascontiguousarray(z.T, dtype=np.float32)
    bsz = z.shape[0]
    p_raw = np.empty(n_pairs)
    p_step = np.empty(n_pairs)
    tol = 1e-6
    starts = list(range(0, n_pairs, chunk))

    def scaled(start):
        idx = order[start:start + chunk]
        tb = zt[ia[idx]]
        tb -= zt[ib[idx]]
        np.abs(tb, out=tb)
        tb *= inv[idx].astype(np.float32)[:, None]
        return tb, (t[idx] * (1 - tol)).astype(np.float32)[:, None]

    cmax = np.empty((len(starts) + 1, bsz), dtype=np.float32)
    cmax[-1] = -np.inf
    for c, start in enumerate(starts):
        tb, tt = scaled(start)
        p_raw[start:start + chunk] = (tb >= tt).mean(axis=1)
        cmax[c] = tb.max(axis=0)
    suffix = np.maximum.accumulate(cmax[::-1], axis=0)[::-1]
    for c, start in enumerate(starts):
        sl = slice(start, start + chunk)
        tt = (t[order[sl]] * (1 - tol)).astype(np.float32)
        if tt.min() > suffix[c].max():
            p_step[sl] = 0.0
        elif tt.max() <= suffix[c + 1].min():
            p_step[sl] = 1.0
        else:
            tb, tt2 = scaled(start)
            tail = np.maximum.accumulate(tb[::-1], axis=0)[::-1]
            np.maximum(tail, suffix[c + 1][None, :], out=tail)
            p_step[sl] = (tail >= tt2).mean(axis=1)
    running = suffix[0]
    p_adj_sorted = np.maximum.accumulate(p_step)
    p_adj = np.empty(n_pairs)
    p_adj[order] = p_adj_sorted
    p = np.empty(n_pairs)
    p[order] = p_raw
    crit = float(np.quantile(running.astype(np.float64), level))
    return ia, ib, d, d - crit * sigma, d + crit * sigma, p, p_adj, crit


# ------------------------------------------------------------------ inputs
def _cov(g, M, tie_pair=None):
    A = g.normal(size=(M, 3 * M))
    V = A @ A.T / (3 * M) / 100
    if tie_pair is not None:                      # two models with the same row: their difference has no spread
        a, b = tie_pair
        V[b, :] = V[a, :]
        V[:, b] = V[:, a]
    C = np.eye(M) - 1.0 / M
    return C @ V @ C


def _same_arena(old, new):
    for key in ("J", "K", "diff", "se", "t"):
        np.testing.assert_array_equal(old[key], new[key])
    np.testing.assert_allclose(new["p_adjusted"], old["p_adjusted"], rtol=EPS, atol=0)
    np.testing.assert_array_equal(np.isnan(new["p_adjusted"]), np.isnan(old["p_adjusted"]))
    np.testing.assert_allclose(new["max_abs"], old["max_abs"], rtol=1e-6, atol=0)
    assert new["floor"] == old["floor"]
    for alpha in (0.01, 0.05, 0.2):
        np.testing.assert_array_equal(new["p_adjusted"] < alpha, old["p_adjusted"] < alpha)


ARENA_CASES = [
    # (M, spread, tie theta, zero-se pair, df, invalid share, given draws, n_draws)
    (2, 0.3, False, False, False, 0.0, False, 500),
    (3, 0.0, True, False, False, 0.0, False, 400),
    (8, 0.05, True, True, False, 0.0, False, 1000),
    (12, 0.3, False, False, True, 0.0, False, 800),
    (15, 1.0, False, True, True, 0.2, False, 700),
    (20, 0.2, True, False, False, 0.1, True, 900),
    (40, 2.0, False, False, True, 0.0, True, 600),
    (60, 0.5, False, True, False, 0.05, False, 300),
]


@pytest.mark.parametrize("case", ARENA_CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_arena_stepdown_equals_the_old_one(case, seed):
    M, spread, tie, zero, use_df, bad, given_draws, B = case
    g = np.random.default_rng([seed, M])
    theta = np.sort(g.normal(0, spread, M))
    if tie:
        theta[1:3] = theta[1]
    V = _cov(g, M, tie_pair=(0, M - 1) if zero else None)
    P = M * (M - 1) // 2
    df = g.choice([2.0, 5.0, 30.0, np.inf], size=P) if use_df else None
    valid = g.random(P) >= bad if bad else None
    draws = g.standard_normal((B, M)) @ np.linalg.cholesky(V + np.mean(np.diag(V))).T if given_draws else None
    seed_g = np.random.SeedSequence([seed, M, 7])
    old = _old_arena(theta, V, n_draws=B, rng=np.random.default_rng(seed_g), draws=draws, df=df, valid=valid)
    new = _maxt.stepdown(theta, V, n_draws=B, rng=np.random.default_rng(seed_g), draws=draws, df=df, valid=valid)
    _same_arena(old, new)
    # the chunk size changes no number
    small = sd.stepdown(theta, V, n_draws=B, rng=np.random.default_rng(seed_g), draws=draws, df=df, valid=valid,
                        batch=B * 3 + 1)
    np.testing.assert_array_equal(small["p_adjusted"], new["p_adjusted"])


def test_arena_one_pair_and_zero_se_gap():
    """One pair: no draws, the marginal p. A pair without spread and a nonzero gap: |t| = inf, the floor p."""
    g = np.random.default_rng(5)
    th, V = np.array([0.1, -0.1]), np.array([[0.01, -0.01], [-0.01, 0.01]])
    _same_arena(_old_arena(th, V, n_draws=100, rng=g), sd.stepdown(th, V, n_draws=100, rng=g))
    th = np.array([0.3, 0.3 + 1e-3, 0.0, -0.6])
    V = _cov(np.random.default_rng(2), 4, tie_pair=(0, 1))
    new = sd.stepdown(th, V, n_draws=300, rng=np.random.default_rng(1))
    _same_arena(_old_arena(th, V, n_draws=300, rng=np.random.default_rng(1)), new)
    x = int(np.flatnonzero((new["J"] == 0) & (new["K"] == 1))[0])
    assert new["se"][x] < 1e-8 and np.isinf(new["t"][x]) and new["p_adjusted"][x] == new["floor"]


def _suite_inputs(g, M, B, *, tie=False, exact=False, shift=0.0):
    g0 = g.normal(0.6, 0.1, M)
    gb = g0 + g.normal(0, 0.02, (B, M)) * g.uniform(0.2, 2.0, M)
    if tie:
        g0[1] = g0[2]
    if exact:                                         # model M-1 moves with model 0 in every resample
        gb[:, M - 1] = gb[:, 0] - g0[0] + g0[M - 1]
    if shift:
        gb[:, 0] = gb[:, 1] - g0[1] + g0[0] + shift * g.normal(size=B)   # pair (0, 1) with little spread
    return g0, gb


SUITE_CASES = [(2, 200, False, False), (3, 300, True, False), (10, 500, False, True), (25, 400, True, True),
               (70, 300, False, False)]


@pytest.mark.parametrize("case", SUITE_CASES)
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("with_enough", [False, True])
def test_suite_stepdown_equals_the_old_one(case, seed, with_enough):
    M, B, tie, exact = case
    g = np.random.default_rng([seed, M, B])
    g0, gb = _suite_inputs(g, M, B, tie=tie, exact=exact, shift=1e-4 if M > 5 else 0.0)
    enough = (lambda a, b: (a + b) % 2 == 0) if with_enough else None
    old = _old_suite(g0, gb, 0.95, enough, chunk=7 if M > 20 else 4096)   # a small chunk: several passes' branches
    new = _suite._stepdown(g0, gb, 0.95, enough)
    for o, n in zip(old[:3], new[:3]):
        np.testing.assert_array_equal(o, n)
    for o, n in zip(old[5:7], new[5:7]):                                   # marginal and adjusted p
        np.testing.assert_allclose(n, o, rtol=EPS, atol=0)
    np.testing.assert_allclose(new[7], old[7], rtol=1e-6)
    np.testing.assert_allclose(new[3], old[3], rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(new[4], old[4], rtol=1e-6, atol=1e-12)
    np.testing.assert_array_equal(new[6] < 0.05, old[6] < 0.05)


def test_suite_claims_and_rank_sets_unchanged():
    """rt.suite through the new kernel: the same claims and rank sets as the old step-down gives on its inputs."""
    g = np.random.default_rng(11)
    M = 12
    g0, gb = _suite_inputs(g, M, 400, exact=True)
    ia, ib, d, *_r, padj_new, _c = _suite._stepdown(g0, gb, 0.95)
    padj_old = _old_suite(g0, gb, 0.95)[6]
    b_new = _suite._better(M, ia, ib, d, padj_new, 0.05)
    b_old = _suite._better(M, ia, ib, d, padj_old, 0.05)
    np.testing.assert_array_equal(b_new, b_old)
    np.testing.assert_array_equal(1 + b_new.sum(axis=0), 1 + b_old.sum(axis=0))
    assert b_new.any()


def test_suite_no_pair():
    out = _suite._stepdown(np.array([0.5]), np.full((10, 1), 0.5), 0.95)
    assert len(out[0]) == 0 and np.isnan(out[7])


# ------------------------------------------------------------------ the kernel on its own
def _brute(draws, J, K, inv, thr):
    """Every pair's stepdown count the long way: (B, P) statistics, a loop over pairs."""
    z = np.asarray(draws, dtype=np.float32)
    S = np.abs(z[:, J] - z[:, K]) * np.asarray(inv, dtype=np.float32)
    order = np.argsort(-thr, kind="stable")
    raw = np.array([(S[:, order[r:]].max(axis=1) >= thr[order[r]]).sum() for r in range(len(J))])
    out = np.empty(len(J), dtype=np.int64)
    out[order] = np.maximum.accumulate(raw)
    return out, (S >= thr).sum(axis=0), S.max(axis=1)


@settings(max_examples=40, deadline=None)
@given(M=st.integers(2, 9), B=st.integers(1, 60), seed=st.integers(0, 2**31 - 1), cells=st.integers(1, 400),
       ties=st.booleans())
def test_kernel_equals_brute_force_and_orders_its_p_values(M, B, seed, cells, ties):
    """Against the long way, for any chunk size; adjusted >= marginal; adjusted counts fall as |t| rises."""
    g = np.random.default_rng(seed)
    J, K = sd.pair_index(M)
    draws = g.standard_normal((B, M))
    se = np.where(g.random(len(J)) < 0.15, 0.0, g.uniform(0.3, 2.0, len(J)))
    thr = np.abs(g.normal(0, 2.5, len(J)))
    if ties:
        thr = np.round(thr)
    thr[se == 0] = np.where(g.random(int((se == 0).sum())) < 0.5, np.inf, 0.0)
    res = sd.maxt_counts(draws, J, K, sd.inverse_se(se), thr, marginal=True, cells=cells)
    exceed, marg, mx = _brute(draws, J, K, sd.inverse_se(se), thr)
    np.testing.assert_array_equal(res.exceed, exceed)
    np.testing.assert_array_equal(res.marginal, marg)
    np.testing.assert_array_equal(res.max_abs, mx.astype(float))
    assert (res.exceed >= res.marginal).all()
    o = np.argsort(-thr, kind="stable")
    assert (np.diff(res.exceed[o]) >= 0).all()
    assert ((res.exceed >= 0) & (res.exceed <= B)).all()


def test_threshold_rounding_changes_no_comparison():
    """A float32 value reaches a float64 threshold exactly when it reaches the threshold rounded up."""
    g = np.random.default_rng(0)
    x = np.concatenate([g.normal(0, 3, 5000), [0.0, np.inf, 1e39, 2.0, np.float32(2.0)]])
    c = sd._up32(x)
    with np.errstate(over="ignore"):
        s = x.astype(np.float32)
    s = np.concatenate([s, np.nextafter(s, np.float32(-np.inf)), np.nextafter(s, np.float32(np.inf))])
    xx = np.tile(x, 3)
    np.testing.assert_array_equal(s >= np.tile(c, 3), s.astype(np.float64) >= xx)
