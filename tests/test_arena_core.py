"""rt.arena: the Bradley-Terry fit, its sandwich, the star design's win rates, style control, the max-|t|
rank sets and the JSON contract. Tested four ways: reference values (statsmodels Logit, scipy.optimize),
hypothesis properties (swapping a and b; relabelling), seeded coverage (slow, tests/test_arena_coverage.py)
and the genuine Arena-Hard sample (../shared)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, special

import ranktrust as rt
from _cr2_reference import assert_exposure_is_dense, dense_meat
from conftest import require, shared_file
from ranktrust.preference import ELO_SCALE
from ranktrust.errors import DataError

TIE_P = 0.15


def board(M=6, n=6000, spread=1.0, n_prompts=800, seed=0, ties=True, prompt_sd=0.0, binary=False):
    """A parametric BT board: half-win ties drawn as a share of the battles, optional prompt effects."""
    g = np.random.default_rng(seed)
    th = np.linspace(0, spread, M)
    a = g.integers(0, M, n)
    b = (a + g.integers(1, M, n)) % M
    c = g.integers(0, n_prompts, n)
    u = g.normal(0, prompt_sd, n_prompts)[c] * (g.random(n) < 0.5)
    p = special.expit(th[a] - th[b] + u)
    r = g.random(n)
    if ties and not binary:
        y = np.where(r < TIE_P, 0.5, (g.random(n) < p).astype(float))
    else:
        y = (r < p).astype(float)
    return pd.DataFrame({"model_a": [f"m{i}" for i in a], "model_b": [f"m{i}" for i in b], "score": y,
                         "cluster": c.astype(str)})


def _theta(r):
    return (r.rating - 1000.0) / ELO_SCALE


# ---------------------------------------------------------------- reference values
def test_fit_and_cluster_sandwich_match_statsmodels_logit():
    """Binary outcomes: the BT MLE is a no-intercept logit on e_a - e_b; its cluster-robust covariance
    (statsmodels, no small-sample correction) times G/(G-1) is ours, for every contrast against model m0."""
    require("statsmodels")
    import statsmodels.api as sm

    df = board(M=5, n=4000, binary=True, seed=1)
    r = rt.arena(df, rng=0, n_resamples=200, cluster_correction="cr1")
    models = list(r.models)
    X = np.zeros((len(df), len(models)))
    ia = df.model_a.map(models.index).to_numpy()
    ib = df.model_b.map(models.index).to_numpy()
    X[np.arange(len(df)), ia] += 1
    X[np.arange(len(df)), ib] -= 1
    X = X[:, 1:]                        # m0 is the reference
    groups = pd.factorize(df.cluster)[0]
    res = sm.Logit(df.score.to_numpy(), X).fit(disp=0, tol=1e-12, method="newton", cov_type="cluster",
                                               cov_kwds={"groups": groups, "use_correction": False})
    th = _theta(r)
    np.testing.assert_allclose(th[1:] - th[0], res.params, rtol=1e-8, atol=1e-10)   # both converged to 1e-12
    G = len(np.unique(groups))
    V = r.covariance / ELO_SCALE ** 2
    k = np.arange(1, len(models))
    ours = V[k, k] + V[0, 0] - 2 * V[k, 0]
    np.testing.assert_allclose(ours, np.diag(res.cov_params()) * G / (G - 1), rtol=1e-6)


def test_ties_as_half_wins_match_scipy_and_gradient_is_tiny():
    df = board(M=5, n=3000, seed=2)
    r = rt.arena(df, cluster_by=None, rng=0, n_resamples=100)
    models = list(r.models)
    ia = df.model_a.map(models.index).to_numpy()
    ib = df.model_b.map(models.index).to_numpy()
    y = df.score.to_numpy()

    def nll(t):
        th = np.r_[0.0, t]
        d = th[ia] - th[ib]
        return np.sum(y * np.logaddexp(0, -d) + (1 - y) * np.logaddexp(0, d))

    ref = optimize.minimize(nll, np.zeros(len(models) - 1), method="BFGS", options={"gtol": 1e-10}).x
    th = _theta(r)
    np.testing.assert_allclose(th[1:] - th[0], ref, atol=1e-5)
    assert r.settings["gradient"] < 1e-8


def test_davidson_matches_scipy():
    df = board(M=4, n=3000, seed=3)
    r = rt.arena(df, ties="davidson", cluster_by=None, rng=0, n_resamples=100)
    models = list(r.models)
    ia = df.model_a.map(models.index).to_numpy()
    ib = df.model_b.map(models.index).to_numpy()
    y = df.score.to_numpy()

    def nll(x):
        th = np.r_[0.0, x[:-1]]
        u = (th[ia] - th[ib]) / 2
        lz = np.logaddexp(np.logaddexp(u, -u), x[-1])
        ll = np.where(y == 1, u, np.where(y == 0, -u, x[-1])) - lz
        return -ll.sum()

    ref = optimize.minimize(nll, np.zeros(len(models)), method="BFGS", options={"gtol": 1e-10}).x
    th = _theta(r)
    np.testing.assert_allclose(th[1:] - th[0], ref[:-1], atol=1e-5)
    assert r.settings["davidson_nu"] == pytest.approx(np.exp(ref[-1]), rel=1e-4)
    assert r.settings["ties_check"]["convention"] == "half"


def test_style_fit_and_joint_sandwich_match_statsmodels():
    require("statsmodels")
    import statsmodels.api as sm

    g = np.random.default_rng(4)
    df = board(M=4, n=5000, binary=True, seed=4)
    la, lb = g.poisson(300, len(df)), g.poisson(300, len(df))
    df["style_a_len"], df["style_b_len"] = la, lb
    r = rt.arena(df, style=True, rng=0, n_resamples=100, cluster_correction="cr1")
    models = list(r.models)
    f = (la - lb) / (la + lb + 1.0)
    f = f / np.sqrt(np.mean(f * f))
    X = np.zeros((len(df), len(models)))
    X[np.arange(len(df)), df.model_a.map(models.index)] += 1
    X[np.arange(len(df)), df.model_b.map(models.index)] -= 1
    X = np.column_stack([X[:, 1:], f])
    groups = pd.factorize(df.cluster)[0]
    res = sm.Logit(df.score.to_numpy(), X).fit(disp=0, method="newton", tol=1e-12, cov_type="cluster",
                                               cov_kwds={"groups": groups, "use_correction": False})
    G = len(np.unique(groups))
    assert r.style.gamma[0] == pytest.approx(res.params[-1], rel=1e-7)
    assert r.style.se[0] == pytest.approx(res.bse[-1] * np.sqrt(G / (G - 1)), rel=1e-6)
    th = _theta(r)
    np.testing.assert_allclose(th[1:] - th[0], res.params[:-1], rtol=1e-7, atol=1e-10)
    # the ratings' variances are the theta block of the joint sandwich: they include gamma's uncertainty
    V = r.covariance / ELO_SCALE ** 2
    k = np.arange(1, len(models))
    np.testing.assert_allclose(V[k, k] + V[0, 0] - 2 * V[k, 0], np.diag(res.cov_params())[:-1] * G / (G - 1),
                               rtol=1e-6)


# ---------------------------------------------------------------- star designs (Arena-Hard, AlpacaEval)
def star(seed=5, n_q=60, weights=True):
    g = np.random.default_rng(seed)
    rows = []
    for m, pwin in (("x", 0.8), ("y", 0.6), ("z", 0.55)):
        for q in range(n_q):
            for game in range(2):
                u = g.random()
                s = 1.0 if u < pwin - 0.05 else (0.5 if u < pwin + 0.05 else 0.0)
                w = 3.0 if (weights and s != 0.5 and g.random() < 0.5) else 1.0
                rows.append(("base", m, 1 - s, w, str(q)))
    return pd.DataFrame(rows, columns=["model_a", "model_b", "score", "weight", "cluster"])


@pytest.mark.parametrize("cluster_by", ["cluster", None])
def test_star_win_rate_is_the_weighted_mean_with_its_interval(cluster_by):
    """Only baseline battles: the win rate is the weighted share of wins (ties half) and its interval is the
    ratio estimator's on the log-odds scale (delta method), mapped back through expit, clustered by question,
    or per battle with w^2 (a weight-3 verdict is one battle). With CR1 (normal reference) exactly that; the
    default (CR2, t reference) is wider on both sides and stays inside (0, 1)."""
    df = star()
    r = rt.arena(df, baseline="base", cluster_by=cluster_by, rng=0, n_resamples=200, cluster_correction="cr1")
    r2 = rt.arena(df, baseline="base", cluster_by=cluster_by, rng=0, n_resamples=200)
    z = 1.959963984540054
    for m in ("x", "y", "z"):
        s = df[df.model_b == m]
        y, w = 1 - s.score.to_numpy(), s.weight.to_numpy()
        p = np.sum(w * y) / np.sum(w)
        e = w * (y - p)
        if cluster_by is None:
            var = np.sum(e ** 2) / np.sum(w) ** 2 * len(df) / (len(df) - 1)
        else:
            G = df.cluster.nunique()
            sums = pd.Series(e).groupby(s.cluster.to_numpy()).sum().reindex(df.cluster.unique(), fill_value=0)
            var = np.sum(sums.to_numpy() ** 2) / np.sum(w) ** 2 * G / (G - 1)
        k = r.models.index(m)
        assert r.win_rate[k] == pytest.approx(p, rel=1e-10)
        h = z * np.sqrt(var) / (p * (1 - p))
        assert r.win_rate_ci_high[k] == pytest.approx(special.expit(special.logit(p) + h), rel=1e-6)
        assert r.win_rate_ci_low[k] == pytest.approx(special.expit(special.logit(p) - h), rel=1e-6)
        assert r2.win_rate_ci_low[k] < r.win_rate_ci_low[k] and r2.win_rate_ci_high[k] > r.win_rate_ci_high[k]
        assert 0 < r2.win_rate_ci_low[k] and r2.win_rate_ci_high[k] < 1
    assert r.win_rate[r.models.index("base")] == 0.5


def test_a_weight_3_verdict_is_one_battle_not_three():
    """Same point estimate as three copies of the row; a wider (correct) per-battle interval."""
    df = star(weights=True)
    exploded = df.loc[df.index.repeat(df.weight.astype(int))].assign(weight=1.0)
    r1 = rt.arena(df, baseline="base", cluster_by=None, rng=0, n_resamples=100)
    r3 = rt.arena(exploded, baseline="base", cluster_by=None, rng=0, n_resamples=100)
    np.testing.assert_allclose(r1.win_rate, r3.win_rate, rtol=1e-10)
    w1 = r1.win_rate_ci_high - r1.win_rate_ci_low
    w3 = r3.win_rate_ci_high - r3.win_rate_ci_low
    k = [r1.models.index(m) for m in "xyz"]
    assert (w1[k] > 1.1 * w3[k]).all()


# ---------------------------------------------------------------- properties
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), flip=st.floats(0.0, 1.0))
def test_swapping_a_and_b_with_one_minus_score_changes_nothing(seed, flip):
    df = board(M=4, n=800, n_prompts=100, seed=seed)
    g = np.random.default_rng(seed + 1)
    sw = g.random(len(df)) < flip
    df2 = df.copy()
    df2.loc[sw, "model_a"], df2.loc[sw, "model_b"] = df.loc[sw, "model_b"], df.loc[sw, "model_a"]
    df2.loc[sw, "score"] = 1 - df.loc[sw, "score"]
    r1 = rt.arena(df, rng=0, n_resamples=50)
    r2 = rt.arena(df2, rng=0, n_resamples=50)
    # same numbers up to the order of floating-point sums (a few ulps amplified by the solve)
    np.testing.assert_allclose(r1.rating, r2.rating, rtol=1e-10)
    np.testing.assert_allclose(r1.covariance, r2.covariance, rtol=1e-7, atol=1e-9)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_relabelling_models_permutes_the_result(seed):
    df = board(M=4, n=600, n_prompts=80, seed=seed)
    ren = {"m0": "zeta", "m1": "alpha", "m2": "mu", "m3": "beta"}
    r1 = rt.arena(df, rng=0, n_resamples=50)
    r2 = rt.arena(df.assign(model_a=df.model_a.map(ren), model_b=df.model_b.map(ren)), rng=0, n_resamples=50)
    for m, new in ren.items():
        one, two = dict(zip(r1.models, r1.ratings.score)), dict(zip(r2.models, r2.ratings.score))
        assert one[m] == pytest.approx(two[new], rel=1e-10)


# ---------------------------------------------------------------- the one relation
def test_rank_sets_tiers_and_headline_read_one_relation():
    df = board(M=8, n=20000, spread=1.2, seed=6)
    r = rt.arena(df, rng=0)
    M = len(r.models)
    assert (r.rank_low == 1 + r.better.sum(0)).all() and (r.rank_high == M - r.better.sum(1)).all()
    assert ((r.rank >= r.rank_low) & (r.rank <= r.rank_high)).all()
    for a, b, s in zip(r.pair_a, r.pair_b, r.separated):
        assert r.better[a, b] == s and not r.better[b, a]
    assert r.headline["could_be_first"] == r.could_be_first
    assert r.headline["separable"] == (len(r.could_be_first) == 1)
    assert (r.p_adjusted >= r.p_value - 1e-12).all()
    alpha = 1 - r.confidence_level
    assert (r.separated == (r.p_adjusted < alpha)).all()


def test_overlap_rule_is_the_marginal_interval_overlap():
    r = rt.arena(board(M=6, n=3000, seed=7), rng=0, n_resamples=200)
    for i in range(len(r.models)):
        assert r.overlap_rank_low[i] == 1 + np.sum(r.ci_low > r.ci_high[i])
        assert r.overlap_rank_high[i] == len(r.models) - np.sum(r.ci_high < r.ci_low[i])


def test_seeded_and_reproducible():
    df = board(seed=8)
    a, b = rt.arena(df, rng=3, n_resamples=300), rt.arena(df, rng=3, n_resamples=300)
    assert (a.p_adjusted == b.p_adjusted).all()


def test_bootstrap_method_agrees_with_the_sandwich():
    df = board(M=5, n=6000, n_prompts=600, seed=9)
    s = rt.arena(df, rng=0, n_resamples=200)
    b = rt.arena(df, method="bootstrap", rng=0, n_resamples=150)
    np.testing.assert_allclose(b.rating, s.rating, rtol=0)   # same point estimate
    assert np.all(np.abs(b.se / s.se - 1) < 0.3)               # 150 refits: MC error about 6%


# ---------------------------------------------------------------- errors, one line each
@pytest.mark.parametrize("change, match", [
    (lambda d: d.assign(model_b=np.where(d.index == 3, d.model_a, d.model_b)), r"row 4: model_a and model_b"),
    (lambda d: d.assign(score=np.where(d.index == 0, 1.5, d.score)), r"row 1: score 1.5 is not in \[0, 1\]"),
    (lambda d: d.drop(columns="score").assign(winner="bogus"), r"row 1: winner 'bogus' is not one of"),
    (lambda d: d.assign(weight=np.where(d.index == 2, 0.0, 1.0)), r"row 3: weight 0.0 must be a positive"),
])
def test_bad_rows_are_named(change, match):
    with pytest.raises(DataError, match=match):
        rt.arena(change(board(M=3, n=300)), n_resamples=20)


def test_other_refusals():
    df = board(M=3, n=300)
    with pytest.raises(DataError, match="`baseline`='m9' is not a model"):
        rt.arena(df, baseline="m9")
    with pytest.raises(DataError, match="`cluster_by`='prompt': the battles have no such column"):
        rt.arena(df, cluster_by="prompt")
    two = pd.concat([df, df.assign(model_a=df.model_a + "x", model_b=df.model_b + "x")])
    with pytest.raises(DataError, match="never met each other"):
        rt.arena(two)
    prob = df.assign(score=np.where(df.index == 0, 0.7, df.score))
    with pytest.raises(DataError, match="needs win / tie / loss"):
        rt.arena(prob, ties="davidson")
    allwin = pd.DataFrame({"model_a": ["a", "a", "b"], "model_b": ["b", "c", "c"], "score": [1.0, 1.0, 0.5]})
    with pytest.raises(DataError, match="'a' won every battle"):
        rt.arena(allwin)
    with pytest.raises(ValueError, match="`ties` must be one of"):
        rt.arena(df, ties="rk")


def test_winner_labels_are_read_when_there_is_no_score():
    df = board(M=3, n=500, seed=10)
    lab = df.score.map({1.0: "model_a", 0.0: "model_b", 0.5: "tie"})
    r1 = rt.arena(df, rng=0, n_resamples=50)
    r2 = rt.arena(df.drop(columns="score").assign(winner=lab), rng=0, n_resamples=50)
    np.testing.assert_allclose(r1.rating, r2.rating, rtol=1e-12)


# ---------------------------------------------------------------- JSON contract and renderers
def test_json_matches_the_schema_and_formats_render():
    require("jsonschema")
    import jsonschema

    from ranktrust.reporting.renderers import to_string

    g = np.random.default_rng(11)
    df = board(M=4, n=2000, seed=11)
    df["style_a_len"], df["style_b_len"] = g.poisson(200, len(df)), g.poisson(200, len(df))
    for kw in ({}, {"baseline": "m0"}, {"style": True}):
        r = rt.arena(df, rng=0, n_resamples=100, **kw)
        d = json.loads(to_string(r, "json", kind="arena", seed=0))
        jsonschema.validate(d, rt.json_schema("arena"), cls=jsonschema.Draft202012Validator)
        assert {"model", "rating", "ci_low", "ci_high", "rank_low", "rank_high", "n_battles"} <= set(d["models"][0])
        assert set(d["pairs"][0]) == {"a", "b", "diff", "ci_low", "ci_high", "p_value", "p_adjusted", "separated"}
        assert len(d["pairs"]) == 6 and d["headline"]["text"].startswith(("Yes: ", "No: "))
        if "baseline" in kw:
            assert {"win_rate", "win_rate_ci_low", "win_rate_ci_high"} <= set(d["models"][0])
        for fmt in ("text", "md", "csv") + (("html",) if "baseline" in kw else ()):   # html (a figure) once
            assert d["headline"]["top"] in to_string(r, fmt, kind="arena")


def test_the_figure_draws():
    require("matplotlib")
    from ranktrust.reporting.plots._arena import arena_ratings

    fig = arena_ratings(rt.arena(board(M=5, n=1500), rng=0, n_resamples=50))
    assert len(fig.rt_tooltips) == 5


# ---------------------------------------------------------------- genuine data
def test_arena_hard_sample_win_rates():
    """The shared Arena-Hard sample (100 questions, baseline claude-3-haiku, strong verdicts weight 3): win rates
    are the weighted shares of SOURCES.md's table (0.909, 0.823, 0.910); clustering by question widens them."""
    df = pd.read_csv(shared_file("arenahard_battles.csv.gz"))
    df = df.assign(cluster=df.question_id.astype(str))
    base = "claude-3-haiku-20240307"
    r = rt.arena(df, baseline=base, rng=0)
    rb = rt.arena(df, baseline=base, cluster_by=None, rng=0)
    wr = dict(zip(r.models, r.win_rate))
    assert round(wr["claude-3-5-sonnet-20240620"], 3) == 0.909
    assert round(wr["claude-3-opus-20240229"], 3) == 0.823
    assert round(wr["gpt-4o"], 3) == 0.910
    k = [r.models.index(m) for m in r.models if m != base]
    ratio = (r.win_rate_ci_high - r.win_rate_ci_low)[k] / (rb.win_rate_ci_high - rb.win_rate_ci_low)[k]
    assert (ratio > 1.0).all()
    assert r.headline["top"] == "gpt-4o" and not r.headline["separable"]


# ---------------------------------------------------------------- the stepdown against a plain implementation
def _block_stepdown(theta, V, Z, alpha):
    """Romano-Wolf block stepdown over unordered pairs, written plainly: reject every active pair with |t| above
    the (1 - alpha) quantile of max |T*| over the active pairs; repeat until nothing new is rejected."""
    M = len(theta)
    J, K = np.triu_indices(M, 1)
    se = np.sqrt(V[J, J] + V[K, K] - 2 * V[J, K])
    t = (theta[J] - theta[K]) / se
    T = np.abs(Z[:, J] - Z[:, K]) / se
    active = np.ones(len(J), bool)
    while active.any():
        c = np.quantile(T[:, active].max(axis=1), 1 - alpha, method="inverted_cdf")
        new = active & (np.abs(t) > c)
        if not new.any():
            break
        active &= ~new
    return ~active


def test_stepdown_claims_equal_the_plain_block_stepdown():
    """Same draws, same claims: the one-pair-at-a-time adjusted p-values (below alpha) reproduce the block
    stepdown, on boards where many, few and no pairs are separated."""
    from ranktrust import ranking as _maxt   # the one stepdown

    g = np.random.default_rng(3)
    for M, spread in ((6, 0.02), (12, 0.3), (25, 2.0)):
        th = np.sort(g.normal(0, spread, M))
        A = g.normal(size=(M, 3 * M))
        V = A @ A.T / (3 * M) / 100
        C = np.eye(M) - 1.0 / M
        V = C @ V @ C
        Z = g.standard_normal((4000, M)) @ np.linalg.cholesky(V + np.mean(np.diag(V))).T
        sd = _maxt.stepdown(th, V, n_draws=4000, rng=g, draws=Z)
        ours = sd["p_adjusted"] < 0.05
        ref = _block_stepdown(th, V, Z, 0.05)
        # a pair sitting exactly at the critical value can fall either side of the (1 + count) / (1 + B) rule
        assert (ours != ref).sum() <= 1, (M, (ours != ref).sum())
        assert ours.sum() > 0 or M == 6



# ---------------------------------------------------------------- CR2 exposure and the clustered meat
def _clustered_board(g, M, G, big):
    """Random battles in G clusters whose sizes run from 1 to past the pairs path's limit (the first ``big``
    clusters get 20-40 battles each), with models repeated inside a cluster (pairs of battles that share a
    model) and clusters that never occur."""
    sizes = g.integers(1, 6, G)
    sizes[:big] = g.integers(20, 41, big)
    sizes[g.random(G) < 0.1] = 0
    cluster = g.permutation(np.repeat(np.arange(G), sizes))
    n = len(cluster)
    a = g.integers(0, M, n)
    b = (a + g.integers(1, M, n)) % M
    return a, b, cluster, n


@pytest.mark.parametrize("seed", range(4))
def test_cr2_exposure_and_the_meat_on_cluster_pairs_match_a_per_cluster_model_computation(seed):
    """The exposure (per battle its CR2 scaling, per model its cluster count, Kish effective number of clusters
    and largest leverage) found from the clusters' battle pairs, and the meat reusing those pairs
    (``pairs=Exposure.pairs``), equal a brute-force computation on the dense (cluster, model) table."""
    from ranktrust.preference import _fit

    g = np.random.default_rng(seed)
    M, G = int(g.integers(3, 9)), int(g.integers(30, 120))
    a, b, cluster, n = _clustered_board(g, M, G, big=int(g.integers(0, 3)))
    q = g.uniform(0.05, 0.25, n)
    h = g.uniform(0.01, 0.5, M)
    expo = _fit.exposure(a, b, q, cluster, G, h)
    assert_exposure_is_dense(expo, a, b, q, cluster, G, h, M)
    assert expo.pairs is not None and len(expo.pairs.left) > 0
    assert (len(expo.pairs.big) > 0) == bool((np.bincount(cluster, minlength=G) > 16).any())
    r = g.normal(size=n) * expo.scale
    ref = dense_meat(a, b, r, cluster, G, M)
    with_pairs = _fit.meat_clusters(a, b, r, cluster, G, M, pairs=expo.pairs)
    np.testing.assert_allclose(with_pairs, ref, rtol=1e-11, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_array_equal(with_pairs, _fit.meat_clusters(a, b, r, cluster, G, M))   # the pairs it finds
    extra = g.normal(size=(n, 2))
    ref_x = dense_meat(a, b, r, cluster, G, M, extra)
    got_x = _fit.meat_clusters(a, b, r, cluster, G, M, extra, pairs=expo.pairs)
    np.testing.assert_allclose(got_x, ref_x, rtol=1e-11, atol=1e-12 * np.abs(ref_x).max())
    # without clusters every battle is its own: v is the battle's own q
    solo = _fit.exposure(a, b, q, None, n, h)
    np.testing.assert_allclose(solo.scale, 1 / np.sqrt(1 - np.minimum(np.maximum(q * h[a], q * h[b]), 0.99)))
    assert solo.pairs is None


def test_the_components_of_the_met_pairs_are_scipys():
    """The check that every model is connected to the rest (label propagation with pointer jumping) finds
    scipy's connected components, numbered as scipy numbers them, on random graphs and long chains."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    from ranktrust.preference._core import _components

    g = np.random.default_rng(8)
    for t in range(400):
        M = int(g.integers(1, 60))
        E = int(g.integers(0, 3 * M + 1))
        a, b = g.integers(0, M, E), g.integers(0, M, E)
        if t % 3 == 0:   # a path through the models in random order: the longest distances
            perm = g.permutation(M)
            a, b = perm[:-1], perm[1:]
        k, lab = connected_components(coo_matrix((np.ones(len(a)), (a, b)), shape=(M, M)), directed=False)
        ours_k, ours = _components(a, b, M)
        assert ours_k == k
        np.testing.assert_array_equal(ours, lab)


def test_the_readers_codes_are_the_codes_battles_arrays_finds(tmp_path):
    """rt.arena(path) rates from the reader's codes (read_battle_table): the same models, codes and clusters as
    coding the table again, for prompt ids that are whole numbers and for mixed text ids (1 and "1" one
    cluster); a table stacked from two files carries none."""
    from ranktrust.data.battles import read_battle_table
    from ranktrust.preference._input import battles_arrays

    g = np.random.default_rng(5)
    n = 600
    a = g.choice(["zeta", "alpha", "mid", "b"], n)
    b = np.where(a == "alpha", "b", "alpha")
    ids = [(1, 2, "1", "2", "x", 3.0, "3")[k] for k in g.integers(0, 7, n)]
    paths = []
    for k, cl in enumerate((g.integers(0, 90, n), ids)):
        df = pd.DataFrame({"model_a": a, "model_b": b, "winner": g.choice(["model_a", "model_b", "tie"], n),
                           "question_id": cl})
        paths.append(str(tmp_path / f"b{k}.jsonl"))
        df.to_json(paths[-1], orient="records", lines=True)
    for path in paths:
        got = read_battle_table(path)
        df, coded = got.table, got.codes
        assert coded is not None
        ours, ref = battles_arrays(df, cluster_by="auto", coded=coded), battles_arrays(df, cluster_by="auto")
        assert ours.models == ref.models and ours.n_clusters == ref.n_clusters
        for k in ("a", "b", "cluster"):
            np.testing.assert_array_equal(getattr(ours, k), getattr(ref, k))
    assert battles_arrays(read_battle_table(paths[1]).table, cluster_by="auto").n_clusters == 4   # 1, 2, x, 3
    stacked = read_battle_table(paths)
    assert stacked.codes is None and len(stacked.table) == 2 * n


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=3), kids, max_size=4)
                    | st.lists(st.dictionaries(st.text(max_size=3), st.floats() | st.text(), min_size=1),
                               min_size=1, max_size=3),
                    max_leaves=30))
def test_the_commands_indented_json_is_json_dumps_text(obj):
    """The command's JSON writer (C encoder, indented) writes json.dumps(indent=2)'s text, and refuses NaN."""
    from ranktrust.reporting._render import dumps_indented

    try:
        ref = json.dumps(obj, indent=2, allow_nan=False)
    except ValueError:
        with pytest.raises(ValueError):
            dumps_indented(obj)
        return
    assert dumps_indented(obj) == ref


# ---------------------------------------------------------------- the command line
def test_cli_json_matches_the_schema(tmp_path, capsys):
    require("jsonschema")
    import jsonschema

    from conftest import run_cli

    p = tmp_path / "battles.csv"
    board(M=4, n=1500, seed=12).to_csv(p, index=False)
    out = tmp_path / "a.json"
    code, _, err = run_cli(capsys, "arena", str(p), "--n-resamples", "100", "--out", str(out))
    assert code == 0, err
    d = json.loads(out.read_text())
    assert d["meta"]["kind"] == "arena" and d["meta"]["seed"] == 0
    jsonschema.validate(d, rt.json_schema("arena"), cls=jsonschema.Draft202012Validator)
    assert d["settings"]["cluster_by"] == "cluster"
    code, text, err = run_cli(capsys, "arena", str(p), "--cluster-by", "none", "--ties", "davidson",
                              "--n-resamples", "100")
    assert code == 0 and "Davidson" in text, err
    code, _, err = run_cli(capsys, "arena", str(p), "--baseline", "nobody")
    assert code == 1 and err.startswith("error: ") and "is not a model" in err and len(err.strip().splitlines()) == 1


def test_the_arena_docs_example_runs(tmp_path, monkeypatch):
    """docs/arena.md's Python block runs as written (it builds its own battles)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "arena.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert blocks
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    for code in blocks:
        exec(compile(code, "docs/arena.md", "exec"), ns)   # noqa: S102 - our own documentation
    assert ns["r"].headline["top"] == "m4"


def test_too_few_clusters():
    from ranktrust.errors import SmallSampleWarning

    df = board(M=3, n=400, seed=13)
    with pytest.raises(DataError, match="every battle is in one cluster"):
        rt.arena(df.assign(cluster="q"))
    with pytest.warns(SmallSampleWarning, match="only 5 clusters") as rec:
        rt.arena(df.assign(cluster=(np.arange(len(df)) % 5).astype(str)), n_resamples=50)
    (w,) = [w.message for w in rec if isinstance(w.message, SmallSampleWarning)]
    # found by cluster_by='auto' (the default): the warning names the column it found, not an option not given
    assert "the prompt-id column 'cluster' (found by `cluster_by`='auto')" in str(w)
    assert w.code == "small_sample" and w.data == {"n_clusters": 5, "column": "cluster", "auto": True}
    with pytest.warns(SmallSampleWarning, match=r"only 5 clusters in `cluster_by`='q5'") as rec:
        rt.arena(df.assign(q5=(np.arange(len(df)) % 5).astype(str)), cluster_by="q5", n_resamples=50)
    assert [w.message.data["auto"] for w in rec if isinstance(w.message, SmallSampleWarning)] == [False]


def test_style_options_and_sentences():
    from ranktrust.reporting.renderers._arena import arena_headline, ties_sentence

    g = np.random.default_rng(14)
    df = board(M=4, n=3000, seed=14)
    df["style_a_len"], df["style_b_len"] = g.poisson(300, len(df)), g.poisson(300, len(df))
    df["style_a_bold"], df["style_b_bold"] = g.poisson(3, len(df)), g.poisson(3, len(df))
    r = rt.arena(df, style=["len"], rng=0, n_resamples=100)
    assert r.style.features == ("len",) and r.settings["style_features"] == ["len"]
    d = r.to_dict()
    assert d["style"]["rank_changes"] == [c for c in d["style"]["rank_changes"] if c["rank"] != c["rank_raw"]]
    with pytest.raises(DataError, match="the battles have the style features 'len', 'bold'"):
        rt.arena(df, style=["tokens"])
    with pytest.raises(DataError, match="style control needs style counts"):
        rt.arena(board(M=3, n=300), style=True)
    d["settings"]["ties_check"] = {"convention": "davidson", "top": ["m1", "m3", "m2"], "differs": True, "nu": 0.5}
    assert ties_sentence(d).startswith("Note: with Davidson's tie model the top three are m1, m3, m2")
    assert arena_headline(d).startswith(("Yes: ", "No: "))


def test_the_ties_sentence_counts_the_models_a_board_has():
    # a 2-model board has no "top three" (newcomer QA D20)
    from ranktrust.reporting.renderers._arena import ties_sentence

    two = {"settings": {"ties_check": {"convention": "davidson", "differs": False, "top": ["a", "b"]}},
           "models": [{"model": "a"}, {"model": "b"}]}
    assert ties_sentence(two) == "With Davidson's tie model the order is the same."   # the whole board: the order
    five = {**two, "models": [{"model": m} for m in "abcde"]}
    assert ties_sentence(five) == "With Davidson's tie model the top two are the same."


def test_names_that_look_the_same_are_warned_about():
    """Model names kept apart that a reader cannot tell apart (case, whitespace, control characters, Unicode
    form: 'é' as one character or as e and a combining accent) give one `similar_names` warning naming them;
    distinct names give none."""
    g = np.random.default_rng(0)
    names = ["\u00e9", "e\u0301", "nl\nname", "nl name", "Model A", "model a", "x", "\uff59"]   # last: full-width y
    a = g.choice(names, 400)
    b = np.array([names[(names.index(x) + 1 + int(g.integers(0, 7))) % 8] for x in a])
    df = pd.DataFrame({"model_a": a, "model_b": b, "winner": g.choice(["model_a", "model_b", "tie"], 400)})
    with pytest.warns(rt.errors.RanktrustWarning, match="differ only by case, whitespace or Unicode form") as rec:
        rt.arena(df, cluster_by=None, n_resamples=100)
    got = [w.message for w in rec if getattr(w.message, "code", None) == "similar_names"]
    assert len(got) == 1
    groups = sorted(sorted(gr) for gr in got[0].data["groups"])
    assert groups == [["Model A", "model a"], ["e\u0301", "\u00e9"], ["nl\nname", "nl name"]]
    plain = df.replace({"e\u0301": "e2", "model a": "m2", "nl\nname": "n2"})
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        rt.arena(plain, cluster_by=None, n_resamples=100)
    assert not [w for w in seen if getattr(w.message, "code", None) == "similar_names"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=300), st.integers(0, 2**32))
def test_the_battles_sorted_by_cluster_are_a_stable_argsorts(codes, seed):
    """The packed sort of (cluster code, row) gives the order and codes of a stable argsort of the codes of the
    rows chosen, and so does its fallback."""
    from ranktrust.preference import _fit

    cluster = np.asarray(codes, dtype=np.int64)
    sel = np.flatnonzero(np.random.default_rng(seed).random(len(cluster)) < 0.7)
    want = sel[np.argsort(cluster[sel], kind="stable")]
    for pack in (True, False):
        order, got = _fit._by_cluster(cluster, sel, int(cluster.max()) + 1, pack=pack)
        np.testing.assert_array_equal(order, want)
        np.testing.assert_array_equal(got, cluster[want])


@pytest.mark.parametrize("M", [2, 2**15, 2**15 + 1, 2**31 + 5])
def test_the_models_of_the_cluster_pairs_in_a_small_type_are_the_codes(M):
    """The model codes gathered in cluster order in the smallest type that holds codes below M: the same values."""
    from ranktrust.preference import _fit

    g = np.random.default_rng(M)
    a, b = g.integers(0, M, 50), g.integers(0, M, 50)
    o = g.permutation(50)[:30]
    ao, bo = _fit._small_codes(a, b, o, M)
    assert ao.dtype.itemsize == (2 if M <= 2**15 else 4 if M <= 2**31 else 8)
    np.testing.assert_array_equal(ao, a[o])
    np.testing.assert_array_equal(bo, b[o])
