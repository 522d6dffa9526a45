"""Paired comparisons: published figures, statsmodels/scipy references, simulations, properties."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ranktrust as rt
from ranktrust.errors import DataError, DegenerateDataWarning
from ranktrust.stats._paired import all_pairs, compare, mcnemar_exact, pair_stats

# few-cluster warnings are tested in test_stats_intervals.py::test_few_clusters_warn
pytestmark = pytest.mark.filterwarnings("ignore:clustered SE from only")


def _article_matrix(b=219, c=182, n=2000, a_right=1436):
    """Two 0/1 rows with b items only A right, c only B right, and A at 71.8% [A]."""
    both = a_right - b
    A = np.r_[np.ones(both), np.ones(b), np.zeros(c), np.zeros(n - both - b - c)]
    B = np.r_[np.ones(both), np.zeros(b), np.ones(c), np.zeros(n - both - b - c)]
    return rt.ScoreMatrix.from_array(np.vstack([A, B]), models=["A", "B"])


# ------------------------------------------------------------ published figures [A]
def test_article_paired_figures():
    # [A]'s Wald interval stays reproducible with interval="wald"
    r = compare(_article_matrix(), "A", "B", interval="wald")
    assert (r.only_a, r.only_b, r.n_items) == (219, 182, 2000)
    assert round(r.diff * 100, 2) == 1.85
    assert round((r.ci_high - r.diff) * 100, 2) == 1.96
    assert round(r.ci_low * 100, 1) == -0.1 and round(r.ci_high * 100, 1) == 3.8
    assert round(r.p_value, 4) == 0.0721
    assert r.method == "mcnemar" and not r.clustered and r.ci_method == "wald"
    # the default interval agrees with the exact test (p = 0.072 > 0.05: it includes 0) and
    # keeps [A]'s paired SE in `se`
    ex = compare(_article_matrix(), "A", "B")
    assert ex.ci_method == "exact-mcnemar" and ex.se == r.se and ex.p_value == r.p_value
    assert ex.ci_low < 0 < ex.ci_high
    assert round(ex.ci_low * 100, 2) == -0.16 and round(ex.ci_high * 100, 2) == 3.86
    # the unpaired comparison of the two error bars is wider: with B at 1399/2000 = 69.95%
    # (b - c = 37) it is ±2.82, the figure the article prints; ±2.81 is for 70.0% exactly (next test)
    assert round(r.unpaired_half_width * 100, 2) == 2.82
    assert r.unpaired_half_width > r.ci_high - r.diff


def test_article_unpaired_half_width_formula():
    # METHODS.md: 71.8% vs 70.0% at n = 2,000 -> 1.96 sqrt(SE_A^2 + SE_B^2) = ±2.81 points
    z = stats.norm.ppf(0.975)
    hw = z * math.sqrt(0.718 * 0.282 / 2000 + 0.700 * 0.300 / 2000)
    assert round(hw * 100, 2) == 2.81


def test_swebench_top_pair(swebench):
    # SOURCES.md: Claude 4.5 Opus (372) vs Gemini 3 Pro (371): discordant 29 vs 28
    t = all_pairs(swebench, pairs="adjacent")
    a, b = swebench.models[t.i[0]], swebench.models[t.j[0]]
    assert (a, b) == ("Claude 4.5 Opus medium (20251101)", "Gemini 3 Pro Preview (2025-11-18)")
    assert (t.only_a[0], t.only_b[0]) == (29, 28)
    r = compare(swebench, a, b, cluster=False)
    assert (r.only_a, r.only_b) == (29, 28)
    assert r.p_value == pytest.approx(1.0)
    r2 = compare(swebench, "Claude 4.5 Opus medium (20251101)", "Claude 4.5 Sonnet (20250929)")
    assert (r2.only_a, r2.only_b) == (42, 23)


def test_gpqa_top_pair(gpqa):
    r = compare(gpqa, "mistralai__Mistral-Large-Instruct-2411", "Qwen__Qwen2-72B")
    assert (r.only_a, r.only_b, r.n_items) == (68, 54, 448)


# ------------------------------------------------------------ references
def test_mcnemar_equals_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar

    rng = np.random.default_rng(0)
    bs = np.r_[rng.integers(0, 60, 40), [0, 0, 5, 219, 3000, 12]]
    cs = np.r_[rng.integers(0, 60, 40), [0, 9, 5, 182, 2500, 40]]
    ours = mcnemar_exact(bs, cs)
    for b, c, p in zip(bs, cs, ours):
        ref = mcnemar([[10, b], [c, 10]], exact=True).pvalue
        assert p == pytest.approx(ref, abs=1e-10)


def test_mcnemar_exact_in_far_tail_and_large_counts():
    # b + c = 1000, min = 0: p = 2 * 2**-1000 exactly (no 1 - cdf cancellation)
    assert mcnemar_exact(0, 1000) == pytest.approx(2.0**-999, rel=1e-10)
    # against exact rational arithmetic (Python big ints: the slow reference)
    for b, c in [(1400, 1600), (100, 400), (30, 170)]:
        k, n = min(b, c), b + c
        exact = 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n
        assert mcnemar_exact(b, c) == pytest.approx(min(1.0, exact), rel=1e-10)
    # hundreds of thousands of discordant items, vectorised
    p = mcnemar_exact(np.array([150_000, 149_000, 200_000]), np.array([150_000, 151_000, 210_000]))
    assert p[0] == pytest.approx(1.0) and 0 < p[1] < 1e-3 and 0 < p[2] < 1e-50
    assert mcnemar_exact(0, 0) == 1.0
    with pytest.raises(ValueError, match="`b` must hold non-negative integer counts"):
        mcnemar_exact(-1, 3)


def test_paired_t_equals_scipy():
    rng = np.random.default_rng(4)
    x = rng.random((2, 120))
    x[1] = np.clip(x[0] * 0.7 + rng.random(120) * 0.3, 0, 1)
    m = rt.ScoreMatrix.from_array(x, models=["A", "B"])
    r = compare(m, "A", "B", method="t")          # the asymptotic test, on request (default: betting)
    ref = stats.ttest_rel(x[0], x[1])
    assert r.method == "t" and r.only_a is None
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    ci = ref.confidence_interval(0.95)
    assert (r.ci_low, r.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-10)


def test_sign_flip_matches_exact_enumeration():
    d = np.array([0.3, -0.1, 0.25, 0.4, 0.05, -0.2, 0.15, 0.35, 0.1, -0.05])
    x = np.vstack([0.5 + d / 2, 0.5 - d / 2])
    m = rt.ScoreMatrix.from_array(x, models=["A", "B"])
    signs = np.array(list(itertools.product([-1, 1], repeat=d.size)))
    exact = np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-12)
    r = compare(m, "A", "B", method="sign-flip", n_resamples=20000, rng=0)
    se = math.sqrt(exact * (1 - exact) / 20000)
    assert abs(r.p_value - exact) < 4 * se + 1e-4
    assert r.method == "sign-flip" and r.n_resamples == 20000
    assert compare(m, "A", "B", method="sign-flip", rng=5).p_value == compare(
        m, "A", "B", method="sign-flip", rng=5).p_value


def test_clustered_paired_se_matches_formula(swebench):
    a, b = "Claude 4.5 Opus medium (20251101)", "Claude 4.5 Sonnet (20250929)"
    assert compare(swebench, a, b).method == "mcnemar"  # clustering is opt-in
    r0 = compare(swebench, a, b, cluster=True, cluster_correction="none")
    assert r0.clustered and r0.method == "cluster" and r0.ci_method == "cluster-none"
    d = swebench.scores[swebench.index_of(a)] - swebench.scores[swebench.index_of(b)]
    g = np.asarray(swebench.groups)
    se = math.sqrt(sum(((d[g == c] - d.mean()).sum()) ** 2 for c in set(g))) / d.size
    assert r0.se == pytest.approx(se, rel=1e-12)
    assert r0.p_value == pytest.approx(2 * stats.norm.sf(abs(d.mean()) / se), rel=1e-10)
    # CR1: x sqrt(G/(G-1)), t(G-1) p-value (statsmodels OLS on the differences, use_correction=True)
    import statsmodels.api as sm

    codes = np.unique(g, return_inverse=True)[1]
    fit = sm.OLS(d, np.ones((d.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": codes, "use_correction": True,
                                                                            "df_correction": True}, use_t=True)
    r1 = compare(swebench, a, b, cluster=True, cluster_correction="cr1")
    assert r1.se == pytest.approx(float(fit.bse[0]), rel=1e-10)
    assert r1.df == 11 and r1.n_clusters == 12
    assert r1.p_value == pytest.approx(float(fit.pvalues[0]), rel=1e-8)
    # CR2 (default): each cluster's sum over sqrt(1 - n_g/n), Bell-McCaffrey df
    r2 = compare(swebench, a, b, cluster=True)
    assert r2.ci_method == "cluster-cr2"
    ng = np.array([np.sum(g == c) for c in sorted(set(g))])
    sums = np.array([(d[g == c] - d.mean()).sum() for c in sorted(set(g))])
    assert r2.se == pytest.approx(math.sqrt(np.sum(sums**2 / (1 - ng / d.size))) / d.size, rel=1e-12)
    assert r2.p_value == pytest.approx(2 * stats.t.sf(abs(d.mean()) / r2.se, r2.df), rel=1e-10)
    assert r2.p_value > r0.p_value  # the correction makes the few-cluster test less liberal


# ------------------------------------------------------------ all pairs = compare, loop-free
@pytest.mark.parametrize("with_nan", [False, True])
@pytest.mark.parametrize("kind", ["binary", "continuous"])
@pytest.mark.parametrize("clustered", [False, True])
def test_all_pairs_equals_compare_loop(with_nan, kind, clustered):
    rng = np.random.default_rng(5)
    n_models, n_items = 6, 90
    ability = rng.normal(0, 1, (n_models, 1))
    diff = rng.normal(0, 1, (1, n_items))
    prob = 1 / (1 + np.exp(-(ability - diff)))
    x = (rng.random((n_models, n_items)) < prob).astype(float) if kind == "binary" else prob * rng.random(
        (n_models, n_items))
    if with_nan:
        x[rng.random(x.shape) < 0.1] = np.nan
    groups = [f"g{k % 9}" for k in range(n_items)] if clustered else None
    m = rt.ScoreMatrix.from_array(x, groups=groups)
    t = all_pairs(m, pairs="all", adjust="none", cluster=clustered)
    assert len(t) == 15 and t.clustered == clustered
    for k in range(len(t)):
        r = compare(m, m.models[t.i[k]], m.models[t.j[k]], cluster=clustered)
        assert r.n_items == t.n_items[k]
        assert r.diff == pytest.approx(t.diff[k], abs=1e-12)
        assert r.se == pytest.approx(t.se[k], rel=1e-9)
        assert r.p_value == pytest.approx(t.p_value[k], rel=1e-9)
        assert (r.ci_low, r.ci_high) == pytest.approx((t.ci_low[k], t.ci_high[k]), rel=1e-9, abs=1e-12)
        if kind == "binary":
            assert (r.only_a, r.only_b) == (t.only_a[k], t.only_b[k])


def test_pair_stats_counts_by_boolean_sums(gpqa):
    S = np.asarray(gpqa.scores)[:40]
    ii, jj = np.triu_indices(40, 1)
    st_ = pair_stats(S, ii, jj, binary=True)
    A = S.astype(bool)
    np.testing.assert_array_equal(st_["b"], (A[ii] & ~A[jj]).sum(axis=1))
    np.testing.assert_array_equal(st_["c"], (~A[ii] & A[jj]).sum(axis=1))


def test_all_pairs_order_adjust_matrix_and_dict(gpqa):
    from statsmodels.stats.multitest import multipletests

    sub = gpqa.select(models=list(range(30)))
    t = all_pairs(sub, pairs="all", adjust="holm")
    assert len(t) == 30 * 29 // 2
    assert np.all(t.score[t.i] >= t.score[t.j])  # A is the higher-scored model
    np.testing.assert_allclose(t.p_adjusted, multipletests(t.p_value, method="holm")[1], atol=1e-12)
    adj = all_pairs(sub, pairs="adjacent", adjust="bonferroni")
    assert len(adj) == 29
    np.testing.assert_array_equal(adj.i, adj.order[:-1])
    np.testing.assert_array_equal(adj.j, adj.order[1:])
    np.testing.assert_allclose(adj.p_adjusted, np.minimum(1, adj.p_value * 29))
    D = t.matrix("diff")
    np.testing.assert_allclose(D, -D.T, equal_nan=True)
    lo, hi = t.matrix("ci_low"), t.matrix("ci_high")
    np.testing.assert_allclose(lo, -hi.T, equal_nan=True)
    assert np.isnan(np.diag(D)).all()
    assert t.significant(0.05).dtype == bool and t.significant(0.05).shape == (len(t),)
    d = t.to_dict()
    assert {"adjust", "pairs_scope", "confidence_level", "pairs"} <= set(d)
    assert set(d["pairs"][0]) >= {"a", "b", "n_items", "only_a", "only_b", "diff", "ci_low", "ci_high",
                                  "p_value", "p_adjusted"}
    assert d["pairs"][0]["a"] == sub.models[t.i[0]]


def test_single_model_has_no_pairs():
    m = rt.ScoreMatrix.from_array(np.ones((1, 10)))
    t = all_pairs(m)
    assert len(t) == 0 and t.to_dict()["pairs"] == []


# ------------------------------------------------------------ bad input
def test_bad_input_messages(swebench):
    with pytest.raises(DataError, match=r"unknown model 'Gemini 3 Pro'; did you mean .*'Gemini 3 Pro Preview \(2025-11-18\)'"):
        compare(swebench, "Gemini 3 Pro", "Claude 4.5 Opus medium (20251101)")
    with pytest.raises(DataError, match="cannot compare model .* with itself"):
        compare(swebench, "Gemini 3 Pro Preview (2025-11-18)", "Gemini 3 Pro Preview (2025-11-18)")
    with pytest.raises(ValueError, match=r"`confidence_level` must be in the open interval"):
        compare(swebench, "Gemini 3 Pro Preview (2025-11-18)", "Claude 4.5 Opus medium (20251101)",
                confidence_level=95)
    with pytest.raises(ValueError, match="cannot be clustered"):
        compare(swebench, "Gemini 3 Pro Preview (2025-11-18)", "Claude 4.5 Opus medium (20251101)",
                method="mcnemar", cluster=True)
    cont = rt.ScoreMatrix.from_array(np.random.default_rng(0).random((2, 30)))
    with pytest.raises(DataError, match="McNemar's test needs 0/1 scores"):
        compare(cont, "model_0", "model_1", method="mcnemar")
    with pytest.raises(ValueError, match="offered for one pair only"):
        all_pairs(cont, method="sign-flip")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`pairs` must be one of 'all', 'adjacent'"):
        all_pairs(cont, pairs="top")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`adjust` must be one of"):
        all_pairs(cont, adjust="fdr")  # type: ignore[arg-type]
    gap = rt.ScoreMatrix.from_array(np.array([[1, 0, np.nan], [np.nan, np.nan, 1.0]]))
    with pytest.raises(DataError, match="share no scored item"):
        compare(gap, "model_0", "model_1")


def test_identical_models_degenerate():
    x = np.random.default_rng(0).integers(0, 2, 50).astype(float)
    m = rt.ScoreMatrix.from_array(np.vstack([x, x]))
    # the exact interval exists without discordant items: [-q_U, q_U], q_U the Wilson bound for 0/50
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = compare(m, "model_0", "model_1")
    z = stats.norm.ppf(0.975)
    assert r.diff == 0 and r.p_value == 1.0
    assert r.ci_high == pytest.approx((z * z / 50) / (1 + z * z / 50)) and r.ci_low == -r.ci_high
    with pytest.warns(DegenerateDataWarning, match="zero spread"):
        w = compare(m, "model_0", "model_1", interval="wald")
    assert math.isnan(w.ci_low)


# ------------------------------------------------------------ properties
pair_st = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=8, max_size=80).filter(
    lambda v: sum(a != b for a, b in v) >= 2 and len({a - b for a, b in v}) > 1
)


def _m(v):
    return rt.ScoreMatrix.from_array(np.array(v, dtype=float).T, models=["A", "B"])


@settings(max_examples=30, deadline=None)
@given(pair_st, st.randoms(use_true_random=False))
def test_item_order_does_not_matter(v, rnd):
    w = list(v)
    rnd.shuffle(w)
    r1, r2 = compare(_m(v), "A", "B"), compare(_m(w), "A", "B")
    assert (r1.diff, r1.p_value, r1.only_a) == (pytest.approx(r2.diff), pytest.approx(r2.p_value), r2.only_a)
    assert r1.ci_low == pytest.approx(r2.ci_low)


@settings(max_examples=30, deadline=None)
@given(pair_st, st.sampled_from(["mcnemar", "t"]))
def test_swap_negates_diff_keeps_p(v, method):
    r1, r2 = compare(_m(v), "A", "B", method=method), compare(_m(v), "B", "A", method=method)
    assert r2.diff == pytest.approx(-r1.diff)
    assert r2.p_value == pytest.approx(r1.p_value)
    assert (r2.ci_low, r2.ci_high) == pytest.approx((-r1.ci_high, -r1.ci_low))
    if method == "mcnemar":
        assert (r2.only_a, r2.only_b) == (r1.only_b, r1.only_a)


@settings(max_examples=30, deadline=None)
@given(pair_st, st.floats(0.5, 0.98))
def test_ci_contains_diff_and_widens(v, cl):
    r1 = compare(_m(v), "A", "B", confidence_level=cl)
    r2 = compare(_m(v), "A", "B", confidence_level=min(cl + 0.01, 0.999))
    assert r1.ci_low <= r1.diff <= r1.ci_high
    assert r2.ci_high - r2.ci_low > r1.ci_high - r1.ci_low


# ------------------------------------------------------------ simulations (seeded, vectorised)
def _sim_pairs(rng, reps, n, p_a, p_b, rho_share):
    """reps x n paired 0/1 results: A right w.p. p_a, B right w.p. p_b, correlated."""
    u = rng.random((reps, n))
    shared = rng.random((reps, n)) < rho_share
    a = (u < p_a).astype(float)
    b = np.where(shared, (u < p_b), rng.random((reps, n)) < p_b).astype(float)
    return a, b


@pytest.mark.slow
def test_paired_ci_coverage():
    rng = np.random.default_rng(21)
    reps, n = 3000, 500
    a, b = _sim_pairs(rng, reps, n, 0.72, 0.70, 0.8)
    S = np.empty((2 * reps, n))
    S[0::2], S[1::2] = a, b
    ii, jj = np.arange(0, 2 * reps, 2), np.arange(1, 2 * reps, 2)
    st_ = pair_stats(S, ii, jj, binary=True)
    from ranktrust.stats._paired import _finish

    diff, se, lo, hi, p = _finish(st_, "mcnemar", 0.95, interval="wald")
    hits = int(np.count_nonzero((lo <= 0.02) & (0.02 <= hi)))
    assert stats.binomtest(hits, reps, 0.95).pvalue > 0.01, hits / reps


@pytest.mark.slow
def test_clustered_paired_ci_coverage():
    rng = np.random.default_rng(22)
    reps, G, k = 2000, 80, 8
    n = G * k
    codes = np.repeat(np.arange(G), k)
    # cluster-level shared shift in the difference: correlated within clusters
    shift = rng.normal(0, 0.25, (reps, G))[:, codes]
    d = 0.02 + shift + rng.normal(0, 0.3, (reps, n))
    S = np.empty((2 * reps, n))
    S[0::2], S[1::2] = d, 0.0
    ii, jj = np.arange(0, 2 * reps, 2), np.arange(1, 2 * reps, 2)
    from ranktrust.stats._paired import _finish

    st_ = pair_stats(S, ii, jj, binary=False, group_codes=codes)
    _, _, lo, hi, _ = _finish(st_, "cluster", 0.95)
    hits = int(np.count_nonzero((lo <= 0.02) & (0.02 <= hi)))
    assert stats.binomtest(hits, reps, 0.95).pvalue > 0.01, hits / reps
    _, _, lo_t, hi_t, _ = _finish(st_, "t", 0.95)
    assert np.count_nonzero((lo_t <= 0.02) & (0.02 <= hi_t)) / reps < 0.85  # iid CI undercovers


@pytest.mark.slow
@pytest.mark.parametrize("n,q", [(60, 0.3), (500, 0.2)])
def test_mcnemar_type_one_error_at_most_alpha(n, q):
    rng = np.random.default_rng(23)
    reps = 20000
    # under H0 the discordant items split 50/50
    disc = rng.binomial(n, q, reps)
    b = rng.binomial(disc, 0.5)
    p = mcnemar_exact(b, disc - b)
    rejections = int(np.count_nonzero(p < 0.05))
    # the exact test is conservative: rejection rate <= alpha (one-sided binomial check)
    assert stats.binomtest(rejections, reps, 0.05, alternative="greater").pvalue > 0.01, rejections / reps


def test_all_pairs_warns_once_for_degenerate_pairs():
    x = np.random.default_rng(0).integers(0, 2, (1, 40)).astype(float)
    m = rt.ScoreMatrix.from_array(np.vstack([x, x, 1 - x]))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = all_pairs(m, interval="wald")
    assert sum(issubclass(x.category, DegenerateDataWarning) for x in w) == 1
    assert np.isnan(t.ci_low).sum() == 1  # the identical pair
    assert t.p_value[np.isnan(t.ci_low)][0] == 1.0


def test_binary_difference_ci_stays_within_minus_one_one():
    import warnings

    import ranktrust as rt

    m = rt.ScoreMatrix.from_array([[1, 1, 0], [0, 0, 0]], models=["A", "B"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = rt.compare(m, "A", "B")
        t = rt.all_pairs(m)
    assert -1.0 <= r.ci_low <= r.diff <= r.ci_high <= 1.0
    assert np.all(t.ci_high <= 1.0) and np.all(t.ci_low >= -1.0)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 9), st.integers(1, 60), st.integers(0, 2**31 - 1), st.booleans(),
       st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_interval_none_keeps_the_tests_and_gives_the_exact_intervals_on_demand(k, n, seed, holes, level):
    """all_pairs(interval="none") leaves the (expensive) exact intervals out and changes no test;
    PairTable.exact_intervals gives, for any rows, exactly what interval="exact" gives."""
    g = np.random.default_rng(seed)
    s = (g.random((k, n)) < g.uniform(0, 1, (k, 1))).astype(float)
    if holes:
        s[g.random((k, n)) < 0.2] = np.nan
    m = rt.ScoreMatrix.from_array(s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = all_pairs(m, confidence_level=level)
        lean = all_pairs(m, confidence_level=level, interval="none")
    assert lean.ci_method == "none" and np.isnan(lean.ci_low).all() and np.isnan(lean.ci_high).all()
    for f in ("i", "j", "n_items", "only_a", "only_b", "diff", "se", "p_value", "p_adjusted"):
        assert np.array_equal(getattr(full, f), getattr(lean, f), equal_nan=True), f
    lo, hi = lean.exact_intervals()
    assert np.array_equal(lo, full.ci_low, equal_nan=True) and np.array_equal(hi, full.ci_high, equal_nan=True)
    rows = g.permutation(len(full))[: max(1, len(full) // 2)]
    lo, hi = lean.exact_intervals(rows)
    assert np.array_equal(lo, full.ci_low[rows], equal_nan=True)
    assert np.array_equal(hi, full.ci_high[rows], equal_nan=True)
    for got, want in zip(lean.intervals(rows) + lean.intervals(), full.intervals(rows) + full.intervals()):
        assert np.array_equal(got, want, equal_nan=True)     # stored or computed: the same intervals


def test_interval_none_is_refused_where_it_means_nothing():
    s = np.random.default_rng(0).random((3, 40))
    m = rt.ScoreMatrix.from_array(s)
    with pytest.raises(ValueError, match="`interval` must be 'auto', 'exact' or 'wald', got 'none'"):
        compare(m, m.models[0], m.models[1], interval="none")
    t = all_pairs(m, interval="none")   # continuous: betting intervals (interval= is for 0/1 scores)
    assert t.ci_method == "betting" and np.isfinite(t.ci_low).all()
    with pytest.raises(ValueError, match="exact_intervals\\(\\) needs a table of exact McNemar tests"):
        t.exact_intervals()


# ------------------------------------------------------------ the betting interval (issue 30 §1)
from ranktrust.stats._bounded import (  # noqa: E402
    TRUNCATION, TUNE_ALPHA, betting_bounds, identical_items_needed, item_order,
)


def _brute_log_capital(d: np.ndarray, mu: float, side: int) -> float:
    """log sup_t K_t(mu) of the hedged capital, item by item in plain Python (Waudby-Smith & Ramdas 2024, Theorem 3
    with the fixed-n predictable plug-in stakes), with the module's sample-mean rule; differences in [-1, 1]."""
    x = [(v + 1.0) / 2.0 for v in d]
    m = (mu + 1.0) / 2.0
    n = len(x)
    if (side > 0 and m >= sum(x) / n) or (side < 0 and m <= sum(x) / n):
        return 0.0
    s_sum, dev, logk, best = 0.0, 0.0, 0.0, 0.0
    s2_prev = 0.25
    for t, xi in enumerate(x, start=1):
        lam = math.sqrt(2.0 * math.log(2.0 / TUNE_ALPHA) / (n * s2_prev))
        stake = min(lam, TRUNCATION / m) if side > 0 else min(lam, TRUNCATION / (1.0 - m))
        logk += math.log1p(side * stake * (xi - m))
        best = max(best, logk)
        s_sum += xi
        mu_t = (0.5 + s_sum) / (t + 1)
        dev += (xi - mu_t) ** 2
        s2_prev = (0.25 + dev) / (t + 1)
    return best


@pytest.mark.parametrize("seed,n", [(0, 7), (1, 30), (2, 120)])
def test_betting_bound_equals_a_brute_force_capital(seed, n):
    """Each end of the interval is where the item-by-item capital crosses 2/alpha; the p-value is 2 / max capital
    at 0."""
    g = np.random.default_rng(seed)
    d = np.clip(np.where(g.random(n) < 0.1, -0.7, 0.05 + g.normal(0, 0.1, n)), -1, 1)
    lo, hi, p = betting_bounds(d, confidence_level=0.9)
    thr = math.log(2.0 / 0.1)
    assert lo <= d.mean() <= hi
    for end, side, step in ((lo, +1, -1), (hi, -1, +1)):
        if abs(end) < 1 - 1e-6:     # an end not at the range's edge: the capital crosses 2/alpha there
            assert _brute_log_capital(d, end + step * 1e-7, side) > thr
            assert _brute_log_capital(d, end - step * 1e-7, side) <= thr
    k = max(_brute_log_capital(d, 0.0, +1), _brute_log_capital(d, 0.0, -1))
    assert p == pytest.approx(min(1.0, 2.0 * math.exp(-k)), rel=1e-9)


def test_betting_special_cases():
    # identical models: p = 1, a symmetric interval that clears a 1-point margin from the items the plan names
    need = identical_items_needed(0.01, 0.05)
    lo, hi, p = betting_bounds(np.zeros(need))
    assert p == 1.0 and lo == pytest.approx(-hi, abs=1e-12) and -0.01 < lo < 0
    assert betting_bounds(np.zeros(need - 1))[0] <= -0.01
    assert identical_items_needed(0.0, 0.05) is None
    assert identical_items_needed(0.02, 0.05) < need < identical_items_needed(0.01, 0.05 / 12)
    # every item won by the whole range: the capital grows geometrically, p falls below any level
    lo, hi, p = betting_bounds(np.ones(40))
    assert hi == 1.0 and lo > 0.5 and p < 1e-6
    # one item: an interval (wide), no NaN
    lo, hi, p = betting_bounds(np.array([0.3]))
    assert -1 <= lo < 0 < 0.3 <= hi <= 1 and p == 1.0
    # differences outside the range are refused; half_range widens it
    with pytest.raises(ValueError, match="must lie in"):
        betting_bounds(np.array([1.5, 0.0]))
    lo2, hi2, _ = betting_bounds(np.array([1.5, 0.0]), half_range=2.0)
    assert -2 <= lo2 < hi2 <= 2


def test_betting_contains_the_t_centre_and_is_wider_than_t_on_spread_data():
    g = np.random.default_rng(3)
    for n in (50, 400, 3000):
        d = np.clip(g.normal(0.02, 0.15, n), -1, 1)
        lo, hi, _ = betting_bounds(d)
        t = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
        assert lo <= d.mean() <= hi
        assert hi - lo > t.high - t.low             # the price of holding at every n
        if n >= 400:                                # ... near sqrt(2 log 40) / 1.96 = 1.39 at large n
            assert hi - lo < 1.6 * (t.high - t.low)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=1, max_size=60), st.floats(0.5, 0.99), st.floats(0.5, 0.99))
def test_betting_properties(vals, c1, c2):
    """Inside [-1, 1], contains the sample mean, nested in the level, symmetric under d -> -d, dual to its p."""
    d = np.array(vals)
    lo1, hi1, p = betting_bounds(d, confidence_level=min(c1, c2))
    lo2, hi2, _ = betting_bounds(d, confidence_level=max(c1, c2))
    tol = 1e-7           # the ends: found to 1e-9 of the range, snapped outwards to a grid of 2**-26
    assert -1 <= lo2 <= lo1 + tol and lo1 <= d.mean() + 1e-12 and d.mean() - 1e-12 <= hi1 <= hi2 + tol and hi2 <= 1
    nlo, nhi, np_ = betting_bounds(-d, confidence_level=min(c1, c2))
    assert (nlo, nhi, np_) == pytest.approx((-hi1, -lo1, p), abs=tol)
    a = 1 - min(c1, c2)
    assert (lo1 > 0 or hi1 < 0) == (p < a)
    assert 0 <= p <= 1


def test_compare_and_all_pairs_give_the_same_betting_numbers_whatever_the_item_order():
    g = np.random.default_rng(11)
    s = g.beta(2, 5, (4, 90))
    s[g.random(s.shape) < 0.1] = np.nan
    m = rt.ScoreMatrix.from_array(s, items=[f"q{i}" for i in range(90)])
    t = all_pairs(m)
    assert t.method == "betting" and t.ci_method == "betting"
    perm = g.permutation(90)
    mp = rt.ScoreMatrix.from_array(s[:, perm], items=[f"q{i}" for i in perm])      # the file's rows reordered
    for k in range(len(t)):
        a, b = t.models[t.i[k]], t.models[t.j[k]]
        for mm in (m, mp):
            r = compare(mm, a, b)
            assert (r.ci_low, r.ci_high, r.p_value) == pytest.approx((t.ci_low[k], t.ci_high[k], t.p_value[k]),
                                                                     rel=1e-12, abs=1e-15)
    # the order depends on the names alone: not on rng, nor on which other items are there
    r0 = compare(m, "model_0", "model_1", rng=0)
    r1 = compare(m, "model_0", "model_1", rng=1)
    assert (r0.ci_low, r0.ci_high, r0.p_value) == (r1.ci_low, r1.ci_high, r1.p_value)
    names = np.asarray(m.items)
    half = set(names[::2])
    assert [x for x in names[item_order(names)] if x in half] == list(names[::2][item_order(names[::2])])
    assert compare(m, "model_0", "model_1", method="t").ci_method == "t"
    assert r0.method == "betting" and r0.df is None


def test_scores_outside_0_1_warn_that_the_level_is_approximate():
    s = np.array([[0.2, 1.4, 0.5], [0.1, 0.3, 0.6]])
    m = rt.ScoreMatrix.from_array(s)
    with pytest.warns(DegenerateDataWarning, match="scores outside \\[0, 1\\].*approximate"):
        r = compare(m, "model_0", "model_1")
    assert -1.4 <= r.ci_low <= r.diff <= r.ci_high <= 1.4


@pytest.mark.slow
@pytest.mark.parametrize("case", ["skewed", "rare-loss", "mirror"])
def test_betting_keeps_its_level_at_50_items_where_the_t_does_not(case):
    """Seeded type-I rates at 50 items (the audit's cells): each side of the 95% interval misses the true mean
    at most 2.5% of runs, within 2 Monte Carlo SE; the paired t misses far more often on these shapes."""
    g = np.random.default_rng({"skewed": 1, "rare-loss": 2, "mirror": 3}[case])
    R, n = 4000, 50
    if case == "rare-loss":      # 98% of items +0.2 points, 2% -60 points: mean -1 point (audit g5)
        d = np.where(g.random((R, n)) < 0.02, -0.6, 0.002 + g.normal(0, 0.01, (R, n)))
        mu = 0.98 * 0.002 - 0.02 * 0.6
    else:                        # candidate Beta(0.1, 0.9) against a steady Beta(20, 180): both mean 0.1 (g4)
        c, b = g.beta(0.1, 0.9, (R, n)), g.beta(20, 180, (R, n))
        d, mu = (c - b, 0.0) if case == "skewed" else (b - c, 0.0)
    lo, hi, p = betting_bounds(d)
    se = math.sqrt(0.025 * 0.975 / R)
    miss_low, miss_high = np.mean(lo > mu), np.mean(hi < mu)
    assert miss_low <= 0.025 + 2 * se and miss_high <= 0.025 + 2 * se
    tl = d.mean(1) - stats.t.ppf(0.975, n - 1) * d.std(1, ddof=1) / math.sqrt(n)
    th = d.mean(1) + stats.t.ppf(0.975, n - 1) * d.std(1, ddof=1) / math.sqrt(n)
    assert max(np.mean(tl > mu), np.mean(th < mu)) > 0.06      # what the asymptotic interval does here
    if mu == 0.0:
        assert np.mean(p < 0.05) <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / R)


@pytest.mark.slow
def test_betting_items_needed_is_near_its_power():
    """items_needed: equal models with normal differences (sd 10 points) clear a 1-point margin at the figure it
    gives in about 80% of runs (measured 83%; the docstring's table: 68-89% for sd 2-20 points)."""
    from ranktrust.stats._bounded import items_needed

    n = items_needed(0.01, 0.05, 0.01)
    assert n == 1266 and items_needed(0.01, 0.05, 0.0) == identical_items_needed(0.01, 0.05)
    g = np.random.default_rng(1)
    lo, _, _ = betting_bounds(np.clip(g.normal(0, 0.1, (200, n)), -1, 1))
    assert 0.7 <= np.mean(lo > -0.01) <= 0.95
