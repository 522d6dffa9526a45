"""Coverage of the default intervals, exact where the data enter through a binomial count.

Full-size tables: ``.venv/bin/python bench/bench_coverage.py`` (see docs/statistics.md).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ranktrust as rt
from ranktrust.stats._intervals import cluster_variance, score_ci
from ranktrust.stats._paired import mcnemar_ci, mcnemar_exact

pytestmark = pytest.mark.filterwarnings("ignore:clustered SE from only")


# ------------------------------------------------------------------ per-model default (Wilson), exact
def _exact_binary_coverage(method: str, n: int, p: float) -> tuple[float, float]:
    k = np.arange(n + 1)
    x = (np.arange(n)[None, :] < k[:, None]).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == "auto":
            iv = rt.intervals(rt.ScoreMatrix.from_array(x))
            lo, hi = iv.ci_low, iv.ci_high
        else:
            r = score_ci(x, method=method)
            lo, hi = r.low, r.high
    w = stats.binom.pmf(k, n, p)
    return float(w[(lo <= p) & (p <= hi)].sum()), float(w[np.isnan(lo)].sum())


@pytest.mark.parametrize("n", [30, 100, 500, 2000])
@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.7, 0.97])
def test_default_interval_exact_coverage(n, p):
    cov, missing = _exact_binary_coverage("auto", n, p)
    assert missing == 0.0
    # Wilson's coverage oscillates around 0.95; on this grid it stays within [0.929, 0.97]
    assert 0.925 <= cov <= 0.975, cov


@pytest.mark.parametrize("n,p", [(30, 0.05), (30, 0.97), (100, 0.97)])
def test_wald_is_what_the_default_replaced(n, p):
    cov, _ = _exact_binary_coverage("clt", n, p)
    assert cov < 0.90  # audit table 1a: 0.78 / 0.60 / 0.80


# ------------------------------------------------------------------ paired 0/1: exact coverage and duality
def _paired_exact_coverage(q: float, d: float, n: int, interval: str = "exact") -> float:
    """Exact coverage: m = b + c ~ Bin(n, q), b | m ~ Bin(m, (q + d) / 2q)."""
    pi = (q + d) / (2 * q)
    m = np.arange(n + 1)
    pm = stats.binom.pmf(m, n, q)
    keep = m[pm > 1e-13]
    bb = np.concatenate([np.arange(k + 1) for k in keep])
    mm = np.concatenate([np.full(k + 1, k) for k in keep])
    w = pm[mm] * stats.binom.pmf(bb, mm, pi)
    if interval == "exact":
        lo, hi = mcnemar_ci(bb, mm - bb, n)
    else:
        dd = (2 * bb - mm) / n
        with np.errstate(invalid="ignore"):
            se = np.sqrt(np.maximum(mm / n - dd**2, 0) / n)
        lo, hi = dd - 1.959963984540054 * se, dd + 1.959963984540054 * se
        lo = np.where(se > 0, lo, np.nan)
    return float(w[(lo <= d) & (d <= hi)].sum())


GRID_2B = [(0.10, 0.0), (0.10, 0.04), (0.30, 0.0), (0.30, 0.10), (0.04, 0.02), (0.02, 0.0)]


@pytest.mark.slow
@pytest.mark.parametrize("q,d", GRID_2B)
def test_paired_interval_exact_coverage_audit_grid(q, d):
    for n in (30, 100, 500, 2000):
        cov = _paired_exact_coverage(q, d, n)
        assert cov >= 0.95, (q, d, n, cov)


def test_paired_wald_undercovers_with_few_discordant_items():
    # audit table 2b: 0.70 (q = 0.04, d = 0.02, n = 30) and 0.86 (q = 0.02, n = 100)
    assert _paired_exact_coverage(0.04, 0.02, 30, "wald") < 0.75
    assert _paired_exact_coverage(0.04, 0.02, 30) >= 0.95


@pytest.mark.slow
@pytest.mark.parametrize("q,f", [(0.2, 1.0), (0.02, 0.99), (0.5, 0.5), (0.01, 0.5), (0.8, 0.25)])
def test_paired_interval_exact_coverage_edges(q, f):
    # d = q (B never beats A) needs the q bound at the full level
    for n in (30, 500, 2000):
        cov = _paired_exact_coverage(q, f * q, n)
        assert cov >= 0.95, (q, f, n, cov)


@pytest.mark.slow
@pytest.mark.parametrize("q,f,n", [(0.5, 0.9, 30), (0.1, 0.75, 100), (0.01, 0.75, 2000), (0.05, 0.75, 500),
                                   (0.3, 0.9, 30), (0.8, 0.0, 2000), (0.05, 0.95, 100)])
def test_paired_interval_exact_coverage_hardest_cells(q, f, n):
    # the cells where a q interval without the safety factor 2 fell to 0.940-0.950 (q = 0.01...0.8,
    # d/q = 0...1, n = 30...2,000 was searched; the minimum with the factor is 0.953)
    assert _paired_exact_coverage(q, f * q, n) >= 0.95


@pytest.mark.parametrize("cl", [0.90, 0.95, 0.99])
def test_paired_interval_agrees_with_exact_test_everywhere(cl):
    # every (b, c) with b + c <= 200, at n = 200...2,000 (and n = 100 for b + c <= 100)
    b, c = np.meshgrid(np.arange(201), np.arange(201), indexing="ij")
    b, c = b.ravel(), c.ravel()
    p = mcnemar_exact(b, c)
    for n in (100, 200, 500, 1000, 2000):
        ok = b + c <= min(n, 200)
        lo, hi = mcnemar_ci(b[ok], c[ok], n, confidence_level=cl)
        excl = (lo > 0) | (hi < 0)
        np.testing.assert_array_equal(excl, p[ok] < 1 - cl)
        d = (b[ok] - c[ok]) / n
        assert np.all((lo <= d) & (d <= hi)) and np.all((lo >= -1) & (hi <= 1))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 400), st.integers(0, 400), st.integers(0, 3000), st.floats(0.5, 0.999))
def test_paired_interval_property(b, c, extra, cl):
    n = b + c + extra
    if n == 0:
        return
    lo, hi = mcnemar_ci(b, c, n, confidence_level=cl)
    p = float(mcnemar_exact(b, c))
    assert bool((lo > 0) or (hi < 0)) == (p < 1 - cl)
    assert lo <= (b - c) / n <= hi and -1 <= lo and hi <= 1
    lo2, hi2 = mcnemar_ci(c, b, n, confidence_level=cl)  # swapping the models negates the interval
    assert (float(lo2), float(hi2)) == pytest.approx((-float(hi), -float(lo)), abs=1e-12)
    wider = mcnemar_ci(b, c, n, confidence_level=min(cl + 0.0005, 0.9995))
    assert wider[0] <= lo + 1e-12 and hi <= wider[1] + 1e-12


def test_compare_and_all_pairs_use_the_dual_interval(gpqa):
    t = rt.all_pairs(gpqa, adjust="none")  # 87,990 pairs
    assert t.ci_method == "exact-mcnemar"
    excl = (t.ci_low > 0) | (t.ci_high < 0)
    np.testing.assert_array_equal(excl, t.p_value < 0.05)


# ------------------------------------------------------------------ clustered
def _clustered(rng, R, sizes, p, rho=0.1):
    codes = np.repeat(np.arange(len(sizes)), sizes)
    a, b = p * (1 - rho) / rho, (1 - p) * (1 - rho) / rho
    prob = rng.beta(a, b, (R, len(sizes)))[:, codes]
    return (rng.random((R, codes.size)) < prob).astype(float), codes


@pytest.mark.slow
@pytest.mark.parametrize("G,per", [(12, 25), (14, 40), (60, 10)])
def test_clustered_interval_coverage(G, per):
    rng = np.random.default_rng(100 + G)
    R, p = 2000, 0.4
    x, codes = _clustered(rng, R, [per] * G, p)
    r = score_ci(x, method="cluster", group_codes=codes)
    hits = int(np.sum((r.low <= p) & (p <= r.high)))
    # at least 95% (one-sided), at most 0.975: from 10 clusters the skewness-corrected arm (issue 30 §4) widens a
    # mid-range interval by a few percent (measured 0.9635 at 12 clusters of 25)
    assert stats.binomtest(hits, R, 0.95, alternative="less").pvalue > 0.01 and hits / R <= 0.975, hits / R
    old = score_ci(x, method="cluster", group_codes=codes, cluster_correction="none")
    if G < 20:
        assert np.mean((old.low <= p) & (p <= old.high)) < hits / R


@pytest.mark.slow
def test_clustered_interval_coverage_unequal_clusters():
    # 14 clusters of very different sizes: CR2 with the Bell-McCaffrey df
    rng = np.random.default_rng(7)
    sizes = [2, 3, 5, 8, 10, 12, 15, 20, 25, 30, 40, 60, 80, 120]
    R, p = 2000, 0.5
    x, codes = _clustered(rng, R, sizes, p)
    r = score_ci(x, method="cluster", group_codes=codes)
    hits = int(np.sum((r.low <= p) & (p <= r.high)))
    assert np.all(r.df < 13)  # unequal sizes: fewer effective df than G - 1
    # measured 0.9375 (CR1 + t(G-1) 0.895, uncorrected 0.842): better, still short of 0.95 when one
    # cluster holds 28% of the items (the working model of the df ignores the within-cluster correlation)
    cr1 = score_ci(x, method="cluster", group_codes=codes, cluster_correction="cr1")
    none = score_ci(x, method="cluster", group_codes=codes, cluster_correction="none")
    c1 = np.mean((cr1.low <= p) & (p <= cr1.high))
    c0 = np.mean((none.low <= p) & (p <= none.high))
    assert hits / R >= 0.92 and hits / R >= c1 >= c0, (hits / R, c1, c0)


def test_cr1_equals_statsmodels_and_cr2_closed_form():
    import statsmodels.api as sm

    rng = np.random.default_rng(1)
    sizes = np.array([3, 7, 2, 15, 9, 4, 11])
    codes = np.repeat(np.arange(sizes.size), sizes)
    y = rng.random(codes.size)
    fit = sm.OLS(y, np.ones((y.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": codes}, use_t=True)
    r1 = score_ci(y, method="cluster", group_codes=codes, cluster_correction="cr1")
    assert float(r1.se) == pytest.approx(float(fit.bse[0]), rel=1e-10)
    assert float(r1.df) == sizes.size - 1
    lo, hi = fit.conf_int(0.05)[0]
    assert (float(r1.low), float(r1.high)) == pytest.approx((lo, hi), rel=1e-10)
    # CR2 and the Bell-McCaffrey df by the matrix formulas (Imbens and Kolesar 2016)
    n = y.size
    X = np.ones((n, 1))
    H = X @ X.T / n
    e = y - y.mean()
    V = 0.0
    cols = []
    for g in range(sizes.size):
        idx = np.flatnonzero(codes == g)
        w, U = np.linalg.eigh(np.eye(idx.size) - H[np.ix_(idx, idx)])
        A = U @ np.diag(w**-0.5) @ U.T
        u = X[idx].T @ A @ e[idx]
        V += float(u @ u) / n**2
        col = np.zeros(n)
        col += (np.eye(n) - H)[:, idx] @ A @ X[idx, 0] / n
        cols.append(col)
    Gm = np.stack(cols, axis=1)
    lam = np.linalg.eigvalsh(Gm.T @ Gm)
    df_bm = lam.sum() ** 2 / (lam**2).sum()
    r2 = score_ci(y, method="cluster", group_codes=codes)
    assert float(r2.se) ** 2 == pytest.approx(V, rel=1e-10)
    assert float(r2.df) == pytest.approx(df_bm, rel=1e-10)
    # equal clusters: CR2 = CR1 and df = G - 1
    eq = np.repeat(np.arange(6), 5)
    v2, df2 = cluster_variance(np.arange(6.0)[None, :] ** 2, np.full((1, 6), 5.0), np.array([30.0]), "cr2")
    v1, df1 = cluster_variance(np.arange(6.0)[None, :] ** 2, np.full((1, 6), 5.0), np.array([30.0]), "cr1")
    assert v2 == pytest.approx(v1) and df2 == pytest.approx(5) and df1 == 5
    del eq


@pytest.mark.slow
def test_cluster_bootstrap_correction_widens():
    rng = np.random.default_rng(3)
    x, codes = _clustered(rng, 1, [30] * 14, 0.4)
    m = rt.ScoreMatrix.from_array(np.vstack([x, x[:, ::-1]]), groups=[str(c) for c in codes])
    a = rt.stats.bootstrap_ci(m, cluster=True, n_resamples=2000, rng=0)
    b = rt.stats.bootstrap_ci(m, cluster=True, n_resamples=2000, rng=0, cluster_correction="none")
    f = np.sqrt(14 / 13) * stats.t.ppf(0.975, 13) / stats.norm.ppf(0.975)
    np.testing.assert_allclose(a.ci_high - a.score, f * (b.ci_high - b.score), rtol=1e-12)


# ------------------------------------------------------------------ runs-aware score CI (t quantile)
@pytest.mark.slow
def test_repeats_score_ci_coverage_at_30_items():
    rng = np.random.default_rng(12)
    R, n, K, a, b = 2000, 30, 8, 0.6, 1.4
    d = (rng.random((R, n, K)) < rng.beta(a, b, (R, n, 1))).astype(float)
    m = rt.ScoreMatrix(d, tuple(map(str, range(R))), tuple(map(str, range(n))), runs=tuple(map(str, range(K))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = rt.repeats(m)
    truth = a / (a + b)
    hits = int(np.sum((r.ci_low <= truth) & (truth <= r.ci_high)))
    assert stats.binomtest(hits, R, 0.95).pvalue > 0.01, hits / R
    half = (r.ci_high - r.score)[0]
    assert half == pytest.approx(stats.t.ppf(0.975, n - 1) * r.se[0], rel=1e-12)


def test_clustered_interval_with_missing_cells_uses_each_models_own_items():
    rng = np.random.default_rng(4)
    codes = np.repeat(np.arange(9), [3, 5, 8, 2, 6, 7, 4, 9, 6])
    x = (rng.random((2, codes.size)) < 0.6).astype(float)
    x[0, [0, 4, 11, 30]] = np.nan
    full = score_ci(x, method="cluster", group_codes=codes)
    keep = ~np.isnan(x[0])
    own = score_ci(x[0, keep], method="cluster", group_codes=codes[keep])
    assert (float(full.se[0]), float(full.df[0])) == pytest.approx((float(own.se), float(own.df)), rel=1e-12)
    assert (float(full.low[0]), float(full.high[0])) == pytest.approx((float(own.low), float(own.high)), rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("n,G,p", [(100, 14, 0.05), (500, 14, 0.97), (500, 60, 0.05), (30, 12, 0.97)])
def test_clustered_binary_interval_near_0_and_1(n, G, p):
    # 0/1 scores: Wilson with the effective sample size p(1-p)/SE_C^2 and the t quantile. The Wald-type
    # clustered interval covered 0.57-0.92 here (and had no interval for all-0 / all-1 samples).
    rng = np.random.default_rng(int(1000 * p) + n + G)
    R = 2000
    x, codes = _clustered(rng, R, [n // G] * G, p)
    r = score_ci(x, method="cluster", group_codes=codes)
    assert not np.isnan(r.low).any()
    cov = np.mean((r.low <= p) & (p <= r.high))
    half = stats.t.ppf(0.975, r.df) * r.se
    wald = np.mean((x.mean(1) - half <= p) & (p <= x.mean(1) + half) & (r.se > 0))
    assert cov >= 0.90 and cov > wald + 0.02, (cov, wald)


def _wilson_neff_before(x, codes):
    """The 0.2 clustered 0/1 interval (Wilson with n_eff = p(1-p)/SE_CR2^2 and t(df)), from its formula."""
    from ranktrust._kernel import wilson_bounds
    from ranktrust.stats._intervals import cluster_sums

    mean, sums, counts, n = cluster_sums(x, codes)
    var, df = cluster_variance(sums * sums, counts, n, "cr2")
    pq = mean * (1 - mean)
    neff = np.where((pq > 0) & (var > 0), pq / np.where(var > 0, var, 1.0), np.sum(counts > 0, axis=-1))
    return wilson_bounds(mean, np.minimum(neff, n), stats.t.ppf(0.975, df))


@pytest.mark.slow
@pytest.mark.parametrize("G,rho,p,floor", [(12, 0.1, 0.02, 0.93), (12, 0.1, 0.95, 0.93), (20, 0.3, 0.05, 0.93),
                                           (5, 0.3, 0.05, None), (8, 0.3, 0.95, None)])
def test_clustered_binary_interval_edges_few_clusters(G, rho, p, floor):
    # issue 30 §4 (audit 2026-12b defect 8), the audit's design at 600 items: beta-binomial clusters with ICC rho.
    # From 10 clusters the interval (logit with the kurtosis df, Hall's arm) reaches 0.93 (bench/bench_cluster_edges.py:
    # 0.925-0.977 at 12-30 clusters, ICC 0.1-0.3); at 5 clusters, and at 8 with ICC 0.3 and p = 0.05 / 0.95, no
    # interval from the data does, and the cluster_edge note says so (here: better than the 0.2 interval, and the
    # note is on most samples)
    from ranktrust.stats._intervals import EDGE_BAND

    rng = np.random.default_rng(int(1000 * p) + G + int(10 * rho))
    R = 1500
    x, codes = _clustered(rng, R, [600 // G] * G, p, rho)
    r = score_ci(x, method="cluster", group_codes=codes)
    hits = int(np.sum((r.low <= p) & (p <= r.high)))
    lo0, hi0 = _wilson_neff_before(x, codes)
    before = np.mean((lo0 <= p) & (p <= hi0))
    assert hits / R > before, (hits / R, before)
    if floor is not None:
        assert stats.binomtest(hits, R, floor, alternative="less").pvalue > 0.01, hits / R
    else:
        warned = np.mean((r.score <= EDGE_BAND) | (r.score >= 1 - EDGE_BAND))
        assert hits / R < 0.93 and warned > 0.8, (hits / R, warned)


def test_clustered_binary_interval_all_zero_counts_each_cluster_once():
    codes = np.repeat(np.arange(10), 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = score_ci(np.zeros((1, 200)), method="cluster", group_codes=codes)
    t9 = stats.t.ppf(0.975, 9)  # Wilson for 0 of 10 (each cluster once) with t(9) instead of z
    assert r.low[0] == 0 and r.high[0] == pytest.approx(t9**2 / (10 + t9**2), rel=1e-12)
