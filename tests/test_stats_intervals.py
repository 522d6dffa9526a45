"""Per-model intervals: published figures, statsmodels/scipy references, coverage, properties."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ranktrust as rt
from ranktrust.errors import DataError, DegenerateDataWarning, SmallSampleWarning
from ranktrust.stats._intervals import cluster_se, score_ci

# few-cluster warnings are tested in test_stats_intervals.py::test_few_clusters_warn
pytestmark = pytest.mark.filterwarnings("ignore:clustered SE from only")


def _binary(k: int, n: int) -> np.ndarray:
    return np.r_[np.ones(k), np.zeros(n - k)]


# ------------------------------------------------------------ published figures
def test_article_half_width_71_8_at_2000():
    # METHODS.md section 1 [A]: a 71.8% model at n = 2,000 has a CI half-width of about ±1.97 points
    r = score_ci(_binary(1436, 2000))
    assert float(r.score) == pytest.approx(0.718)
    assert round(float(r.high - r.score) * 100, 2) == 1.97
    assert float(r.se) == pytest.approx(np.sqrt(0.718 * 0.282 / 2000), rel=1e-12)


def test_swebench_scores_equal_resolved_over_500(swebench):
    # SOURCES.md: every model's score equals its resolved count / 500 (Claude 4.5 Opus 372/500)
    iv = rt.intervals(swebench)
    resolved = np.nansum(swebench.scores, axis=1)
    assert np.all(iv.n_items == 500)
    np.testing.assert_allclose(iv.score, resolved / 500, rtol=0, atol=1e-15)
    k = swebench.index_of("Claude 4.5 Opus medium (20251101)")
    assert resolved[k] == 372 and iv.score[k] == pytest.approx(0.744)
    assert not iv.clustered and iv.method == "wilson"  # clustering is opt-in; 0/1 scores -> Wilson
    cl = rt.intervals(swebench, cluster=True)
    assert cl.clustered and cl.method == "cluster" and cl.n_clusters == 12
    # docs/statistics.md: 12 very unequal repositories (django 45%), Bell-McCaffrey df 3.3: below 9 df the clustered
    # 0/1 interval is the logit one alone, [62.8, 83.3] for Claude 4.5 Opus (0.2's Wilson-type: [63.0, 83.2])
    assert float(cl.df[k]) == pytest.approx(3.3, abs=0.05)
    half = stats.t.ppf(0.975, cl.df[k]) * cl.se[k] / (0.744 * 0.256)
    lg = np.log(0.744 / 0.256)
    assert (cl.ci_low[k], cl.ci_high[k]) == pytest.approx((1 / (1 + np.exp(-(lg - half))), 1 / (1 + np.exp(-(lg + half)))),
                                                          rel=1e-10)
    assert round(100 * cl.ci_low[k], 1) == 62.8 and round(100 * cl.ci_high[k], 1) == 83.3
    assert [n.data["models"] for n in cl.notes] == [["Qwen2.5-Coder 32B Instruct"]]     # 9.0%: the one near 0
    assert np.all(iv.ci_low < iv.score) and np.all(iv.score < iv.ci_high)


# ------------------------------------------------------------ references
@pytest.mark.parametrize("k,n", [(0, 10), (1, 10), (7, 20), (1436, 2000), (999, 1000), (50, 50), (3, 7)])
@pytest.mark.parametrize("cl", [0.8, 0.95, 0.99])
def test_wilson_equals_statsmodels(k, n, cl):
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(k, n, alpha=1 - cl, method="wilson")
    r = score_ci(_binary(k, n), method="wilson", confidence_level=cl)
    assert float(r.low) == pytest.approx(lo, abs=1e-10)
    assert float(r.high) == pytest.approx(hi, abs=1e-10)


@pytest.mark.parametrize("k,n", [(6, 20), (1436, 2000), (250, 448)])  # no clipping at 0 or 1
def test_clt_equals_statsmodels_normal(k, n):
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(k, n, alpha=0.05, method="normal")
    r = score_ci(_binary(k, n), method="clt")
    assert float(r.low) == pytest.approx(lo, abs=1e-12)
    assert float(r.high) == pytest.approx(hi, abs=1e-12)


def test_t_interval_equals_scipy():
    x = np.random.default_rng(3).random(37)
    lo, hi = stats.t.interval(0.9, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    r = score_ci(x, method="t", confidence_level=0.9)
    assert float(r.low) == pytest.approx(lo, rel=1e-12)
    assert float(r.high) == pytest.approx(hi, rel=1e-12)


def test_cluster_se_singletons_equal_clt_and_formula():
    rng = np.random.default_rng(1)
    x = rng.random((3, 50))
    # one item per cluster: Miller eq. 4 reduces to the (ddof=0) CLT SE
    np.testing.assert_allclose(cluster_se(x, np.arange(50)), x.std(axis=1) / np.sqrt(50), rtol=1e-12)
    # eq. 4 written out with a loop over clusters
    codes = rng.integers(0, 6, 50)
    want = [
        np.sqrt(sum((row[codes == c] - row.mean()).sum() ** 2 for c in range(6))) / 50 for row in x
    ]
    np.testing.assert_allclose(cluster_se(x, codes), want, rtol=1e-12)


def test_clustered_wider_when_items_in_cluster_correlate():
    rng = np.random.default_rng(2)
    codes = np.repeat(np.arange(40), 25)
    effect = rng.normal(0, 1.2, 40)[codes]
    x = (rng.random((1, 1000)) < 1 / (1 + np.exp(-effect))).astype(float)
    assert cluster_se(x, codes)[0] > 1.5 * score_ci(x).se[0]


def test_nan_each_model_uses_own_items():
    x = np.array([[1, 0, 1, np.nan, 1], [0, 0, 1, 1, np.nan]], dtype=float)
    m = rt.ScoreMatrix.from_array(x)
    iv = rt.intervals(m, method="wilson")
    assert iv.n_items.tolist() == [4, 4]
    np.testing.assert_allclose(iv.score, [0.75, 0.5])
    ref = score_ci(np.array([1, 0, 1, 1.0]), method="wilson")
    assert iv.ci_low[0] == pytest.approx(float(ref.low))


# ------------------------------------------------------------ labelled layer, to_dict
def test_intervals_to_dict_keys(gpqa):
    iv = rt.intervals(gpqa)
    d = iv.to_dict()
    assert {"method", "confidence_level", "clustered", "models"} <= set(d)
    assert set(d["models"][0]) == {"model", "n_items", "score", "se", "ci_low", "ci_high"}
    # GPQA has one group ("gpqa_main"): nothing to cluster
    assert d["clustered"] is False and d["method"] == "wilson"  # auto: 0/1 scores -> Wilson
    assert len(d["models"]) == 420


def test_cluster_flag_and_methods(swebench):
    iid = rt.intervals(swebench, cluster=False)
    assert iid.method == "wilson" and not iid.clustered
    np.testing.assert_allclose(iid.se, rt.intervals(swebench).se)  # the default does not cluster
    assert rt.intervals(swebench, method="wilson").method == "wilson"
    forced = rt.intervals(swebench, method="cluster")
    np.testing.assert_allclose(forced.se, rt.intervals(swebench, cluster=True).se)


# ------------------------------------------------------------ bad input
def test_bad_confidence_level():
    m = rt.ScoreMatrix.from_array(np.random.default_rng(0).integers(0, 2, (2, 30)))
    for bad in (0, 1, 1.5, -0.1):
        with pytest.raises(ValueError, match=r"`confidence_level` must be in the open interval \(0, 1\)"):
            rt.intervals(m, confidence_level=bad)
    with pytest.raises(TypeError, match="`confidence_level` must be in the open interval"):
        rt.intervals(m, confidence_level="high")


def test_bad_method_and_cluster_combinations(swebench):
    m = rt.ScoreMatrix.from_array(np.random.default_rng(0).integers(0, 2, (2, 30)))
    with pytest.raises(ValueError, match="`method` must be one of"):
        rt.intervals(m, method="bootstrap")
    with pytest.raises(DataError, match="clustering needs item groups"):
        rt.intervals(m, cluster=True)
    with pytest.raises(ValueError, match="cannot be clustered"):
        rt.intervals(swebench, method="wilson", cluster=True)
    cont = rt.ScoreMatrix.from_array(np.random.default_rng(0).random((2, 30)))
    with pytest.raises(DataError, match="Wilson intervals need 0/1 scores"):
        rt.intervals(cont, method="wilson")


def test_degenerate_and_small_give_nan_with_warning():
    with pytest.warns(DegenerateDataWarning, match="zero spread"):
        r = score_ci(np.ones(50))
    assert np.isnan(r.low) and np.isnan(r.se) and float(r.score) == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = score_ci(np.ones(50), method="wilson")  # Wilson is fine at 100%
    assert 0.9 < float(w.low) < 1.0
    with pytest.warns(SmallSampleWarning, match="fewer than 2"):
        r = score_ci(np.array([1.0, np.nan]))
    assert np.isnan(r.high)



def test_degenerate_warning_names_the_models_and_the_wilson_alternative():
    # QA: the note named "row(s)" and gave only API wording; it must name each model and its value
    rng = np.random.default_rng(2)
    x = (rng.random((3, 40)) < 0.6).astype(float)
    x[0], x[2] = 1.0, 0.0
    m = rt.ScoreMatrix.from_array(x, models=["always right", "mixed", "always wrong"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auto = rt.intervals(m)  # auto = Wilson for 0/1 scores: never a missing interval
    assert auto.method == "wilson" and np.isfinite(auto.ci_low).all()
    with pytest.warns(DegenerateDataWarning) as rec:
        iv = rt.intervals(m, method="clt")
    assert iv.method == "clt"
    msg = str(rec[0].message)
    assert msg.startswith("models 'always right' (all 1), 'always wrong' (all 0): every item has the same score")
    assert "row(s)" not in msg and "their SE and CI are NaN" in msg
    assert "a Wilson interval (`method`='wilson') gives a non-degenerate one" in msg
    assert np.isnan(iv.ci_low[[0, 2]]).all() and np.isfinite(iv.ci_low[1])
    w = rt.intervals(m, method="wilson")  # the suggested call works and is not degenerate
    assert 0 < w.ci_low[0] < 1 == w.ci_high[0] and w.ci_low[2] == 0 < w.ci_high[2]
    # one model: singular wording; continuous scores: no Wilson hint
    with pytest.warns(DegenerateDataWarning, match=r"^model 'solo' \(all 0\.5\): .* its SE and CI are NaN$"):
        score_ci(np.full((1, 10), 0.5), names=["solo"])
    with pytest.warns(SmallSampleWarning, match=r"^model 'tiny' has fewer than 2 scored items"):
        score_ci(np.array([[1.0, np.nan], [1.0, 0.0]]), names=["tiny", "ok"])

# ------------------------------------------------------------ properties
scores_st = st.lists(st.integers(0, 1), min_size=5, max_size=60).filter(lambda v: 0 < sum(v) < len(v))


@settings(max_examples=30, deadline=None)
@given(scores_st, st.randoms(use_true_random=False), st.sampled_from(["clt", "t", "wilson"]))
def test_item_order_does_not_matter(v, rnd, method):
    x = np.array(v, dtype=float)
    perm = np.array(rnd.sample(range(len(v)), len(v)))
    a, b = score_ci(x, method=method), score_ci(x[perm], method=method)
    np.testing.assert_allclose([a.low, a.high], [b.low, b.high], rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(scores_st, st.floats(0.5, 0.98), st.sampled_from(["clt", "t", "wilson"]))
def test_ci_contains_estimate_and_widens_with_confidence(v, cl, method):
    x = np.array(v, dtype=float)
    lo = score_ci(x, method=method, confidence_level=cl)
    hi = score_ci(x, method=method, confidence_level=min(cl + 0.01, 0.999))
    assert lo.low <= lo.score <= lo.high
    assert 0 <= hi.low <= lo.low and lo.high <= hi.high <= 1  # nested, and inside [0, 1] (clipped)
    if 0 < hi.low and hi.high < 1:
        assert hi.high - hi.low > lo.high - lo.low


# ------------------------------------------------------------ coverage (seeded, vectorised)
def _covers(low, high, truth, level=0.95):
    hits = int(np.count_nonzero((low <= truth) & (truth <= high)))
    n = low.size
    return hits / n, stats.binomtest(hits, n, level).pvalue


@pytest.mark.slow
@pytest.mark.parametrize("method,p,n", [("clt", 0.7, 400), ("wilson", 0.7, 400), ("wilson", 0.1, 40)])
def test_coverage_binary(method, p, n):
    rng = np.random.default_rng(11)
    x = (rng.random((4000, n)) < p).astype(float)  # 4,000 replications as one array
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        r = score_ci(x, method=method)
    cov, pv = _covers(r.low, r.high, p)
    assert pv > 0.01, cov


@pytest.mark.slow
def test_coverage_clt_continuous():
    rng = np.random.default_rng(12)
    x = rng.beta(2, 5, size=(4000, 300))
    r = score_ci(x, method="clt")
    cov, pv = _covers(r.low, r.high, 2 / 7)
    assert pv > 0.01, cov


@pytest.mark.slow
def test_coverage_clustered_and_iid_undercovers():
    # 100 clusters of 10 items with a shared cluster effect: the clustered CI covers ~95%,
    # the iid CI covers far less.
    rng = np.random.default_rng(13)
    reps, G, k = 3000, 100, 10
    codes = np.repeat(np.arange(G), k)
    effect = rng.normal(0, 0.15, (reps, G))[:, codes]
    x = np.clip(0.6 + effect + rng.normal(0, 0.2, (reps, G * k)), 0, 1)
    # true mean of a clipped normal with sd sqrt(0.15^2 + 0.2^2) = 0.25 around 0.6
    sd = 0.25
    a, b = (0 - 0.6) / sd, (1 - 0.6) / sd
    truth = 0.6 * (stats.norm.cdf(b) - stats.norm.cdf(a)) + sd * (stats.norm.pdf(a) - stats.norm.pdf(b)) + (
        1 - stats.norm.cdf(b)
    )
    r = score_ci(x, method="cluster", group_codes=codes)
    cov, pv = _covers(r.low, r.high, truth)
    assert pv > 0.01, cov
    iid = score_ci(x, method="clt")
    cov_iid, _ = _covers(iid.low, iid.high, truth)
    assert cov_iid < 0.85


@pytest.mark.filterwarnings("error")
def test_few_clusters_warn(swebench):
    with pytest.warns(SmallSampleWarning, match="clustered SE from only 12 item groups"):
        rt.intervals(swebench, cluster=True)
    with pytest.warns(SmallSampleWarning, match="only 12 item groups"):
        rt.compare(swebench, "Claude 4.5 Opus medium (20251101)", "Gemini 3 Pro Preview (2025-11-18)",
                   cluster=True)
    rt.intervals(swebench, cluster=False)  # no warning
    many = rt.ScoreMatrix.from_array(np.random.default_rng(0).integers(0, 2, (2, 200)),
                                     groups=[f"g{k % 40}" for k in range(200)])
    rt.intervals(many, cluster=True)  # 40 clusters: no warning


def test_bootstrap_methods_come_from_the_engine(swebench):
    import ranktrust as rt

    for method in ("percentile", "bca"):
        iv = rt.intervals(swebench, method=method, n_resamples=2000, rng=1)
        b = rt.stats.bootstrap_ci(swebench, method=method, n_resamples=2000, rng=1)   # rt.bootstrap_ci: deprecated
        np.testing.assert_array_equal(iv.ci_low, b.ci_low)
        np.testing.assert_array_equal(iv.ci_high, b.ci_high)
        assert iv.method == method
        # close to the CLT interval on 500 items (both are ~95% intervals of the same mean)
        clt = rt.intervals(swebench, method="clt", cluster=False)
        assert np.max(np.abs(iv.ci_low - clt.ci_low)) < 0.01


def test_bootstrap_interval_needs_complete_matrix(mmlupro_path):
    import ranktrust as rt

    m = rt.read(mmlupro_path, align="pairwise")
    with pytest.raises(rt.DataError, match="same items"):
        rt.intervals(m, method="bca", n_resamples=100)


def test_a_wilson_interval_exists_for_one_item():
    """Issue 21 D22: a model scored on 1 item has a Wilson CI (statsmodels' proportion_confint), not n/a;
    its SE stays NaN and the CLT and t intervals stay NaN (they need two items)."""
    from statsmodels.stats.proportion import proportion_confint

    m = rt.ScoreMatrix.from_array(np.array([[1.0, np.nan, np.nan], [0.0, np.nan, np.nan], [1.0, 0.0, 1.0]]),
                                  models=["one right", "one wrong", "three"])
    with pytest.warns(SmallSampleWarning, match=r"fewer than 2 scored items: SE is NaN \(a Wilson interval"):
        w = rt.intervals(m, method="wilson")
    for row, k in ((0, 1), (1, 0)):
        lo, hi = proportion_confint(k, 1, alpha=0.05, method="wilson")
        np.testing.assert_allclose([w.ci_low[row], w.ci_high[row]], [lo, hi], rtol=1e-12)  # two formulas
    assert np.isnan(w.se[:2]).all()
    with pytest.warns(SmallSampleWarning, match="SE and CI are NaN"):
        c = rt.intervals(m, method="clt")
    assert np.isnan(c.ci_low[:2]).all()


# ------------------------------------------------------------ clustered 0/1 intervals near 0 and 1 (issue 30 §4)
def _beta_binomial(rng, R, G, per, p, rho):
    codes = np.repeat(np.arange(G), per)
    a, b = p * (1 - rho) / rho, (1 - p) * (1 - rho) / rho
    return (rng.random((R, codes.size)) < rng.beta(a, b, (R, G))[:, codes]).astype(float), codes


def test_clustered_binary_is_the_logit_interval_with_statsmodels_se():
    # fewer than 10 clusters: expit(logit p -/+ t(nu) SE / (p (1 - p))), the SE being statsmodels' cluster-robust
    # SE with the small-sample factor (equal clusters: CR2 = CR1), as Stata's svy: proportion, and nu the smaller
    # of G - 1 and Satterthwaite's 2 G / (kappa - 1), kappa the kurtosis of the cluster sums (scipy)
    import statsmodels.api as sm
    from scipy.special import expit, logit

    rng = np.random.default_rng(3)
    x, codes = _beta_binomial(rng, 6, 6, 40, 0.15, 0.3)
    one = np.zeros(240)
    one[:10] = 1                       # every success in one cluster: kappa 4.2, nu = 12 / 3.2 = 3.75
    x = np.vstack([x, one])
    r = score_ci(x, method="cluster", group_codes=codes)
    nus = []
    for j in range(7):
        fit = sm.OLS(x[j], np.ones((x.shape[1], 1))).fit(cov_type="cluster", cov_kwds={"groups": codes},
                                                         use_correction=True, use_t=True)
        p, se = float(fit.params[0]), float(fit.bse[0])
        assert float(r.se[j]) == pytest.approx(se, rel=1e-10) and float(r.df[j]) == pytest.approx(5)
        sums = np.bincount(codes, weights=x[j] - p)
        nu = min(5.0, max(2 * 6 / (stats.kurtosis(sums, fisher=False, bias=True) - 1), 1.0))
        nus.append(nu)
        half = stats.t.ppf(0.975, nu) * se / (p * (1 - p))
        assert (float(r.low[j]), float(r.high[j])) == pytest.approx((expit(logit(p) - half), expit(logit(p) + half)),
                                                                    rel=1e-10)
    assert min(nus) < 5 and max(nus) == 5        # both cases occur: the kurtosis df binds on some rows only


def test_clustered_binary_from_10_clusters_adds_halls_skewness_corrected_arm():
    # 12 equal clusters: the hull of the logit interval (t with the smaller of G - 1 and the kurtosis df) and Hall's
    # (1992) skewness-corrected t interval (t with G - 1 df), here computed from its definition:
    # g(T) = T + a T^2 + a^2 T^3 / 3 + b, a = gamma / (3 sqrt(G)), b = gamma / (6 sqrt(G)), gamma the (population)
    # skewness of the cluster means (scipy), g^-1 by root finding (scipy)
    from scipy.optimize import brentq
    from scipy.special import expit, logit

    x, codes = _beta_binomial(np.random.default_rng(12), 40, 12, 20, 0.1, 0.1)
    r = score_ci(x, method="cluster", group_codes=codes)
    t = stats.t.ppf(0.975, 11)
    arms = set()
    for j in range(40):
        p, se = x[j].mean(), float(r.se[j])
        if not 0 < p < 1:
            continue
        se = max(se, np.sqrt(p * (1 - p) / 240))      # a design effect below 1 is taken as 1
        gam = stats.skew(x[j].reshape(12, 20).mean(1), bias=True)
        a, b = gam / (3 * np.sqrt(12)), gam / (6 * np.sqrt(12))

        def g_inv(c):
            return brentq(lambda T: T + a * T**2 + a**2 * T**3 / 3 + b - c, -1e3, 1e3, xtol=1e-14)

        hall = (max(p - g_inv(t) * se, 0.0), min(p - g_inv(-t) * se, 1.0))
        kappa = stats.kurtosis(np.bincount(codes, weights=x[j] - p), fisher=False, bias=True)
        nu = min(11.0, 2 * 12 / (kappa - 1))
        half = stats.t.ppf(0.975, nu) * se / (p * (1 - p))
        lg = (expit(logit(p) - half), expit(logit(p) + half))
        assert (float(r.low[j]), float(r.high[j])) == pytest.approx((min(lg[0], hall[0]), max(lg[1], hall[1])),
                                                                    rel=1e-9, abs=1e-15)
        arms.add(("hall" if hall[1] > lg[1] else "logit", "kurtosis df" if nu < 11 else "G - 1"))
    # each arm is the far one on some rows, and the kurtosis df binds on some rows only
    assert {a for a, _ in arms} == {"hall", "logit"} and {d for _, d in arms} == {"kurtosis df", "G - 1"}, arms


def test_clustered_binary_at_0_and_without_spread_counts_each_cluster_once():
    codes = np.repeat(np.arange(4), 10)
    t3 = stats.t.ppf(0.975, 3)
    one = np.tile(np.r_[1.0, np.zeros(9)], 4)    # 10% in every cluster: clustered SE 0, Wilson with n_eff = G
    r = score_ci(np.vstack([np.zeros(40), np.ones(40), one]), method="cluster", group_codes=codes)
    w_lo, w_hi = (float(v) for v in _wilson(0.1, 4, t3))
    assert r.low[0] == 0 and r.high[0] == pytest.approx(t3**2 / (4 + t3**2), rel=1e-12)
    assert r.high[1] == 1 and r.low[1] == pytest.approx(4 / (4 + t3**2), rel=1e-12)
    assert (r.low[2], r.high[2]) == pytest.approx((w_lo, w_hi), rel=1e-12)
    # a design effect below 1 (clusters more alike than chance) is taken as 1: never narrower than iid Wilson-width
    even = np.tile(np.r_[np.ones(3), np.zeros(7)], 4) + 0.0
    even[:10] = np.r_[np.ones(4), np.zeros(6)]
    even[10:20] = np.r_[np.ones(2), np.zeros(8)]
    e = score_ci(even, method='cluster', group_codes=codes)
    p = even.mean()
    assert e.se < np.sqrt(p * (1 - p) / 40)
    half = t3 * np.sqrt(p * (1 - p) / 40) / (p * (1 - p))
    assert (float(e.low), float(e.high)) == pytest.approx((1 / (1 + np.exp(-(np.log(p / (1 - p)) - half))),
                                                          1 / (1 + np.exp(-(np.log(p / (1 - p)) + half)))), rel=1e-12)


def _wilson(p, n, z):
    from statsmodels.stats.proportion import proportion_confint

    # statsmodels' Wilson at level 1 - alpha with z = the t quantile: alpha = 2 (1 - Phi(z))
    return proportion_confint(p * n, n, alpha=2 * stats.norm.sf(z), method="wilson")


@st.composite
def _clustered_binary(draw):
    G = draw(st.integers(2, 14))
    sizes = draw(st.lists(st.integers(1, 12), min_size=G, max_size=G))
    codes = np.repeat(np.arange(G), sizes)
    p = draw(st.sampled_from([0.01, 0.05, 0.3, 0.5, 0.9, 0.99]))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    x = (rng.random(codes.size) < rng.beta(p * 3, (1 - p) * 3, G)[codes]).astype(float)
    return x, codes


@settings(max_examples=60, deadline=None)
@given(_clustered_binary(), st.floats(0.5, 0.98))
def test_clustered_binary_interval_properties(data, cl):
    # inside [0, 1], contains the estimate, nested in the level, item order irrelevant
    x, codes = data
    a = score_ci(x, method="cluster", group_codes=codes, confidence_level=cl)
    b = score_ci(x, method="cluster", group_codes=codes, confidence_level=min(cl + 0.01, 0.999))
    assert 0 <= a.low <= a.score <= a.high <= 1
    assert b.low <= a.low + 1e-12 and a.high <= b.high + 1e-12
    perm = np.random.default_rng(0).permutation(x.size)
    c = score_ci(x[perm], method="cluster", group_codes=codes[perm], confidence_level=cl)
    np.testing.assert_allclose([c.low, c.high], [a.low, a.high], rtol=1e-9, atol=1e-12)


def test_cluster_edge_note_and_warning():
    from ranktrust.reporting import note_text
    from ranktrust.stats._intervals import EDGE_MIN_CLUSTERS

    rng = np.random.default_rng(5)
    x, codes = _beta_binomial(rng, 1, 8, 50, 0.5, 0.1)
    x = np.vstack([x, np.r_[np.ones(12), np.zeros(388)], np.r_[np.ones(390), np.zeros(10)]])
    m = rt.ScoreMatrix.from_array(x, models=["mid", "low", "high"], groups=[f"g{c}" for c in codes])
    with pytest.warns(SmallSampleWarning) as rec:
        iv = rt.intervals(m, cluster=True)
    edge = [w.message for w in rec if "approximate" in str(w.message)]
    assert len(edge) == 1 and str(edge[0]).startswith("clustered SE from only 8 item groups, and models 'low', "
                                                      "'high' have")
    (note,) = iv.notes
    assert edge[0].note is note        # the warning carries the record (a report can keep the record, not the text)
    assert note.code == "cluster_edge" and note.data["models"] == ["low", "high"] and note.data["n_clusters"] == 8
    text = note_text(note)
    assert iv.to_dict()["notes"] == [{**note.to_dict(), "text": text}]   # to_dict() is the CLI's JSON: worded
    assert text.startswith("models 'low', 'high': the clustered 95% interval is approximate, a score of at most 10% "
                           "or at least 90% from only 8 item groups (fewer than 20)")
    assert "`cluster`=False" in text and "0.84" in text
    # the cluster bootstrap says the same
    with pytest.warns(SmallSampleWarning, match="approximate"):
        b = rt.intervals(m, cluster=True, method="percentile", n_resamples=200)
    assert [n.code for n in b.notes] == ["cluster_edge"]
    # no note: mid-range only, unclustered, continuous scores, or enough groups
    with pytest.warns(SmallSampleWarning, match="clustered SE from only 8") as rec:
        assert rt.intervals(m.select(models=["mid"]), cluster=True).notes == ()
    assert not any("approximate" in str(w.message) for w in rec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rt.intervals(m).notes == ()
        many = rt.ScoreMatrix.from_array(x, models=["mid", "low", "high"],
                                         groups=[f"g{k % EDGE_MIN_CLUSTERS}" for k in range(400)])
        assert rt.intervals(many, cluster=True).notes == ()
    cont = rt.ScoreMatrix.from_array(np.clip(x * 0.9 + 0.05, 0, 1), groups=[f"g{c}" for c in codes])
    with pytest.warns(SmallSampleWarning, match="clustered SE from only 8") as rec:
        assert rt.intervals(cont, cluster=True).notes == ()


def test_cluster_edge_is_said_in_every_format_of_the_report():
    # issue 30 §4: the approximate interval is said in the report's text, Markdown, HTML and JSON
    import json

    from ranktrust.reporting.renderers import to_string

    rng = np.random.default_rng(8)
    codes = np.repeat(np.arange(6), 40)
    x = np.vstack([rng.random(240) < 0.04, rng.random(240) < 0.5, rng.random(240) < 0.6]).astype(float)
    m = rt.ScoreMatrix.from_array(x, models=["rare", "mid", "other"], groups=[f"g{c}" for c in codes])
    rep = rt.report(m, cluster=True, stability=False, split_half=False, quality=False)
    for fmt in ("text", "md", "html"):
        page = " ".join(to_string(rep, fmt, kind="report").split())
        assert "model 'rare': the clustered 95% interval is approximate" in page, fmt
        assert "at most 10% or at least 90%" in page, fmt
    notes = json.loads(to_string(rep, "json", kind="report"))["notes"]
    assert any("model 'rare'" in n["text"] and "approximate" in n["text"] for n in notes)
    # the report keeps the warning's record, not only its text
    assert any(n["code"] == "cluster_edge" and n["data"]["models"] == ["rare"] for n in notes), notes
