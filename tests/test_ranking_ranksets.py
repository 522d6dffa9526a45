"""Rank confidence sets [R], ``method="bootstrap"``: a loop version of the csranks steps, coverage by
simulation, real data. (``method="pairs"``, the default, is tested in tests/test_verdicts.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ranktrust.ranking import _ranksets as R
import functools

from ranktrust.ranking._ranksets import layers
from ranktrust.ranking._tiers import tiers_from_rank_sets

rank_sets = functools.partial(R.rank_sets, method="bootstrap")


def tiers_from_sets(res):
    return layers(res.better, res.scores)[0]


def loop_csranks(theta, sigma, z, level, indices):
    """The stepwise procedure of csranks (csdiffmeans 'lower' + csranks_simul), pair by pair.

    Pairs (j, k) with j or k in ``indices``; returns L, U (1-based) for ``indices``.
    """
    m = len(theta)
    pairs = [(j, k) for j in range(m) for k in range(m) if j != k and (j in indices or k in indices)]
    active = set(pairs)
    lower = {}
    while True:
        if not active:
            break
        act = sorted(active)
        tmax = np.array([max((zb[j] - zb[k]) / sigma[j, k] for j, k in act) for zb in z])
        c = np.quantile(tmax, level)
        new = [(j, k) for j, k in act if theta[j] - theta[k] - sigma[j, k] * c > 0]
        if not new:
            break
        for p in new:
            lower[p] = True
            active.discard(p)
    L = [1 + sum(lower.get((k, j), False) for k in range(m)) for j in indices]
    U = [m - sum(lower.get((j, k), False) for k in range(m)) for j in indices]
    return L, U


@pytest.fixture(scope="module")
def toy():
    r = np.random.default_rng(3)
    m, b = 5, 300
    theta = np.array([0.0, 0.08, 0.1, 0.3, 0.31])
    a = r.random((m, m)) * 0.02 + 0.03
    sigma = (a + a.T) / 2
    np.fill_diagonal(sigma, 0)
    z = r.normal(0, 0.04, (b, m))
    return theta, sigma, z


def test_simultaneous_steps_match_loop(toy):
    theta, sigma, z = toy
    better = R._simultaneous(theta, sigma, R._Scaled(z, sigma), 0.9)
    L, U = loop_csranks(theta, sigma, z, 0.9, list(range(5)))
    assert list(1 + better.sum(0)) == L
    assert list(5 - better.sum(1)) == U


def test_marginal_steps_match_loop(toy):
    theta, sigma, z = toy
    low, high = R._marginal(theta, sigma, R._Scaled(z, sigma), 0.9)
    for j in range(5):
        L, U = loop_csranks(theta, sigma, z, 0.9, [j])
        assert (low[j], high[j]) == (L[0], U[0])


def _simulate(reps, n_items, ability, seed, n_resamples):
    r = np.random.default_rng(seed)
    true_rank = 1 + (ability[None, :] > ability[:, None]).sum(1)
    joint = np.zeros(reps, bool)
    marg = np.zeros((reps, len(ability)), bool)
    width = np.zeros(reps)
    for i in range(reps):
        s = (r.random((len(ability), n_items)) < ability[:, None]).astype(float)
        res = rank_sets(s, n_resamples=n_resamples, rng=r)
        joint[i] = np.all((res.simultaneous_low <= true_rank) & (true_rank <= res.simultaneous_high))
        marg[i] = (res.marginal_low <= true_rank) & (true_rank <= res.marginal_high)
        width[i] = np.mean(res.simultaneous_high - res.simultaneous_low)
    return joint, marg, width


@pytest.mark.slow
def test_coverage_at_the_least_favourable_configuration():
    """Equal abilities (every true rank is 1) is where coverage is tightest: the joint
    coverage of the simultaneous sets must be 95% (two-sided binomial test), each marginal
    set at least 95% (its lower end is one-sided here, so about 97.5% is expected)."""
    reps = 500
    joint, marg, _ = _simulate(reps, 300, np.full(5, 0.6), seed=7, n_resamples=1000)
    assert stats.binomtest(int(joint.sum()), reps, 0.95).pvalue > 0.01
    for k in range(5):
        assert stats.binomtest(int(marg[:, k].sum()), reps, 0.95, alternative="less").pvalue > 0.01


@pytest.mark.slow
def test_coverage_with_distinct_abilities():
    """Known abilities about 1 SE apart: coverage >= 95% and the sets are informative."""
    reps = 200
    ability = np.array([0.70, 0.66, 0.62, 0.58, 0.54])
    joint, marg, width = _simulate(reps, 300, ability, seed=1, n_resamples=300)
    assert stats.binomtest(int(joint.sum()), reps, 0.95, alternative="less").pvalue > 0.01
    for k in range(5):
        assert stats.binomtest(int(marg[:, k].sum()), reps, 0.95, alternative="less").pvalue > 0.01
    assert width.mean() < 3.0          # not the trivial [1, 5]


def test_separated_models_give_single_ranks():
    r = np.random.default_rng(0)
    s = (r.random((4, 3000)) < np.array([[0.9], [0.7], [0.5], [0.3]])).astype(float)
    res = rank_sets(s, rng=0)
    assert res.rank_low.tolist() == [1, 2, 3, 4] and res.rank_high.tolist() == [1, 2, 3, 4]
    assert res.could_be_first == ["model_0"]


def test_swebench_top_two_share_a_tier(swebench):
    res = rank_sets(swebench, rng=0)
    top2 = ["Claude 4.5 Opus medium (20251101)", "Gemini 3 Pro Preview (2025-11-18)"]
    assert set(top2) <= set(res.could_be_first)
    d = res.to_dict()
    assert d["models"][0]["model"] == top2[0] and d["models"][0]["rank"] == 1
    assert {"model", "score", "rank", "rank_low", "rank_high", "marginal_low", "marginal_high"} <= set(d["models"][0])
    t = tiers_from_rank_sets(swebench, rng=0, method="bootstrap")
    i, j = (swebench.models.index(x) for x in top2)
    assert t.tier[i] == t.tier[j] == 1 and t.method == "rank-sets"


def test_tiers_via_tiers_function(swebench):
    import ranktrust as rt

    t = rt.tiers(swebench, method="rank-sets")
    assert t.groups()[0][:2] == ["Claude 4.5 Opus medium (20251101)", "Gemini 3 Pro Preview (2025-11-18)"]


def test_tier_rule_is_the_layers_of_found_better():
    # a > c, b > d, c > d: tier 1 = {a, b} (nobody above them), tier 2 = {c}, tier 3 = {d}
    better = np.zeros((4, 4), bool)
    better[0, 2] = better[1, 3] = better[2, 3] = True
    tier, order, acyclic = layers(better, np.array([0.9, 0.5, 0.8, 0.1]))
    assert tier.tolist() == [1, 1, 2, 3] and order.tolist() == [0, 1, 2, 3] and acyclic
    # a low-scored model nobody is found better than is in tier 1 (it could be #1) and is shown there
    better = np.zeros((3, 3), bool)
    better[0, 1] = True
    tier, order, _ = layers(better, np.array([0.8, 0.75, 0.5]))
    assert tier.tolist() == [1, 2, 1] and order.tolist() == [0, 2, 1]
    # a cycle (only possible with pairwise-complete data) is broken at the highest score
    cyc = np.zeros((3, 3), bool)
    cyc[0, 1] = cyc[1, 2] = cyc[2, 0] = True
    tier, order, acyclic = layers(cyc, np.array([0.5, 0.6, 0.4]))
    assert not acyclic and order[0] == 1


def test_same_seed_any_batch_and_one_model(swebench):
    a = rank_sets(swebench, rng=5, batch=1, n_resamples=200)
    b = rank_sets(swebench, rng=5, batch=4096, n_resamples=200)
    assert a.to_dict() == b.to_dict()
    one = rank_sets(np.ones((1, 10)))
    assert one.rank_low.tolist() == [1] and one.could_be_first == ["model_0"]


def test_cluster_sets_are_wider(swebench):
    iid = rank_sets(swebench, rng=0, n_resamples=400)
    from ranktrust.errors import SmallSampleWarning

    with pytest.warns(SmallSampleWarning, match="rank sets from only 12 item groups: the bootstrap is approximate"):
        cl = rank_sets(swebench, rng=0, n_resamples=400, cluster=True)
    assert np.mean(cl.rank_high - cl.rank_low) >= np.mean(iid.rank_high - iid.rank_low)


@pytest.mark.parametrize("kw, msg", [
    (dict(confidence_level=0), "`confidence_level` must be in"),
    (dict(n_resamples=5), "`n_resamples` must be an integer >= 10"),
    (dict(cluster=True), "needs item groups"),
])
def test_argument_errors(kw, msg):
    with pytest.raises(ValueError, match=msg):
        rank_sets(np.ones((2, 5)), **kw)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000))
def test_properties(seed):
    r = np.random.default_rng(seed)
    s = (r.random((5, 200)) < r.uniform(0.3, 0.7, (5, 1))).astype(float)
    res = rank_sets(s, rng=seed, n_resamples=200)
    # sets contain the estimated rank; simultaneous sets contain the marginal ones
    assert np.all((res.rank_low <= res.rank) & (res.rank <= res.rank_high))
    assert np.all(res.simultaneous_low <= res.marginal_low)
    assert np.all(res.simultaneous_high >= res.marginal_high)
    wider = rank_sets(s, rng=seed, n_resamples=200, confidence_level=0.99)
    assert np.all(wider.rank_low <= res.rank_low) and np.all(wider.rank_high >= res.rank_high)


def test_tiers_reuse_computed_sets(swebench):
    rs = rank_sets(swebench, rng=0, n_resamples=200)
    t = tiers_from_rank_sets(swebench, rank_sets=rs)
    assert t.tier.tolist() == tiers_from_sets(rs).tolist()


def _irt_scores(r, ability, n_items):
    """0/1 scores of a 2PL-like benchmark: item difficulties shared by all models, so the
    models' results are correlated item by item as on real leaderboards."""
    b = r.normal(0.0, 1.5, n_items)
    p = 1.0 / (1.0 + np.exp(-(ability[:, None] - b[None, :])))
    return (r.random(p.shape) < p).astype(float)


@pytest.mark.slow
def test_coverage_realistic_correlated_models():
    """8 models with distinct abilities, correlated through shared item difficulties; each
    replication draws a fresh item set (the noise the item bootstrap describes). The true rank
    comes from the expected accuracy over the item population. Joint coverage of the
    simultaneous sets and each marginal set's coverage are >= 95% within Monte Carlo error."""
    ability = np.array([1.0, 0.85, 0.7, 0.6, 0.5, 0.3, 0.2, 0.0])
    big = np.random.default_rng(99).normal(0.0, 1.5, 400_000)
    true_acc = (1.0 / (1.0 + np.exp(-(ability[:, None] - big[None, :])))).mean(1)
    true_rank = 1 + (true_acc[None, :] > true_acc[:, None]).sum(1)
    assert true_rank.tolist() == list(range(1, 9))
    r = np.random.default_rng(2024)
    reps = 300
    joint = np.zeros(reps, bool)
    marg = np.zeros((reps, 8), bool)
    width = np.zeros(reps)
    for i in range(reps):
        res = rank_sets(_irt_scores(r, ability, 400), n_resamples=300, rng=r)
        joint[i] = np.all((res.simultaneous_low <= true_rank) & (true_rank <= res.simultaneous_high))
        marg[i] = (res.marginal_low <= true_rank) & (true_rank <= res.marginal_high)
        width[i] = np.mean(res.simultaneous_high - res.simultaneous_low)
    assert stats.binomtest(int(joint.sum()), reps, 0.95, alternative="less").pvalue > 0.01, joint.mean()
    for k in range(8):
        assert stats.binomtest(int(marg[:, k].sum()), reps, 0.95, alternative="less").pvalue > 0.01, marg.mean(0)
    assert 0.5 < width.mean() < 5.0     # informative, not the trivial [1, 8]


@pytest.mark.slow
def test_marginal_critical_value_is_calibrated():
    """At equal abilities every pair is a true null, so the chance that model j's marginal
    procedure rejects anything (its set is not [1, M]) is the test's size: 5% (two-sided
    binomial test, per model). This pins the marginal sets to nominal, not just >= 95%."""
    r = np.random.default_rng(11)
    reps, m = 400, 4
    any_rej = np.zeros((reps, m), bool)
    for i in range(reps):
        s = (r.random((m, 300)) < 0.6).astype(float)
        res = rank_sets(s, n_resamples=400, rng=r)
        any_rej[i] = (res.marginal_low > 1) | (res.marginal_high < m)
    pooled = int(any_rej.sum())
    assert stats.binomtest(pooled, reps * m, 0.05).pvalue > 0.001, any_rej.mean(0)
    for k in range(m):
        assert stats.binomtest(int(any_rej[:, k].sum()), reps, 0.05).pvalue > 0.001, any_rej.mean(0)


@pytest.mark.parametrize("cluster", [False, True])
def test_identical_models_share_sets_and_tier(cluster):
    import warnings

    from ranktrust.data._matrix import ScoreMatrix

    r = np.random.default_rng(5)
    n = 700
    base = (r.random((3, n)) < np.array([[0.75], [0.6], [0.45]])).astype(float)
    s = np.vstack([base[0], base[1], base[1], base[1], base[2]])
    s[:, :9] = s[:, :9] * 0.37 + 0.11           # non-integer scores: rounding can differ
    m = ScoreMatrix(s, ("a", "b1", "b2", "b3", "c"), tuple(f"i{k}" for k in range(n)),
                    groups=tuple(f"g{k // 7}" for k in range(n)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = rank_sets(m, rng=0, cluster=cluster)
    for lo, hi in ((res.simultaneous_low, res.simultaneous_high), (res.marginal_low, res.marginal_high)):
        assert lo[1] == lo[2] == lo[3] and hi[1] == hi[2] == hi[3]
        assert hi[1] - lo[1] >= 2                # each could hold any of the three tied ranks
    assert not res.better[1:4, 1:4].any()
    assert sorted(res.rank.tolist()[1:4]) == list(range(min(res.rank[1:4]), min(res.rank[1:4]) + 3))
    t = tiers_from_rank_sets(m, rank_sets=res)
    assert t.tier[1] == t.tier[2] == t.tier[3]
    # only identical models: every set is [1, M], one tier, no crash
    same = rank_sets(np.tile(base[:1], (3, 1)), rng=0)
    assert same.rank_low.tolist() == [1, 1, 1] and same.rank_high.tolist() == [3, 3, 3]
    assert tiers_from_sets(same).tolist() == [1, 1, 1]


def test_constant_gap_is_exact():
    """sigma = 0 with a nonzero gap (one model right on every item the other gets wrong):
    the order is certain and is rejected in the first step."""
    s = np.vstack([np.ones(40), np.zeros(40), np.zeros(40)])
    res = rank_sets(s, rng=0)
    assert res.rank_low.tolist() == [1, 2, 2] and res.rank_high.tolist() == [1, 3, 3]


# --- QA: one (or a few) items must not give "#1 with 95% confidence"
@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_min_units_is_where_an_exact_sign_test_can_first_reject(level):
    k = R.min_units(level)
    # smallest k whose one-sided exact sign test (k of k items in one direction) reaches 1 - level
    assert stats.binomtest(k, k, 0.5, alternative="greater").pvalue <= 1 - level + 1e-12
    if k > 1:
        assert stats.binomtest(k - 1, k - 1, 0.5, alternative="greater").pvalue > 1 - level
    assert R.min_units(0.95) == 5


@pytest.mark.parametrize("n_items", [1, 2, 3, 4])
def test_too_few_items_give_uninformative_sets_with_warning(n_items):
    from ranktrust.errors import SmallSampleWarning

    s = np.zeros((3, n_items))
    s[0] = 1.0                              # model_0 right on every item, the others on none
    with pytest.warns(SmallSampleWarning, match=rf"only {n_items} item.*rank set is 1-3"):
        res = rank_sets(s, rng=0)
    for lo, hi in ((res.rank_low, res.rank_high), (res.marginal_low, res.marginal_high),
                   (res.simultaneous_low, res.simultaneous_high)):
        assert lo.tolist() == [1, 1, 1] and hi.tolist() == [3, 3, 3]
    assert not res.better.any() and res.could_be_first == ["model_0", "model_1", "model_2"]
    assert res.rank.tolist() == [1, 2, 3]   # the display position is still reported
    assert tiers_from_sets(res).tolist() == [1, 1, 1]


def test_pairs_differing_on_few_items_are_not_ordered():
    import warnings

    from ranktrust.errors import SmallSampleWarning

    # six items: a beats b on all six (sign test p = 1/64), a and c differ on three only (p >= 1/8)
    s = np.array([[1.0] * 6, [0.0] * 6, [0, 1, 0, 1, 0, 1]])
    with pytest.warns(SmallSampleWarning, match="only 6 items: the bootstrap is approximate"):
        res = rank_sets(s, rng=0)
    assert res.better[0, 1] and not res.better[0, 2] and not res.better[2, 1]
    assert res.rank_low.tolist() == [1, 2, 1] and res.rank_high.tolist() == [2, 3, 3]
    # 1,000 items: a and b differ on 4 items only (all for a): never ordered; on 60 items: ordered
    r = np.random.default_rng(11)
    base = (r.random(1000) < 0.5).astype(float)
    for n_diff, ordered in ((4, False), (60, True)):
        a, b = base.copy(), base.copy()
        zeros = np.flatnonzero(base == 0)[:n_diff]
        a[zeros] = 1.0
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            res = rank_sets(np.vstack([a, b]), rng=0)
        assert bool(res.better[0, 1]) is ordered and not res.better[1, 0]


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_n_differ_matches_brute_force(seed, binary):
    r = np.random.default_rng(seed)
    u = r.random((5, 30))
    if binary:
        u = (u < 0.5).astype(float)
    u[3] = u[1]
    u[4, :25] = u[0, :25]
    got = R._n_differ(u)
    assert np.array_equal(got, (u[:, None, :] != u[None, :, :]).sum(axis=2))
    assert got[1, 3] == 0 and got[0, 4] <= 5


@pytest.mark.parametrize("adjust", ["holm", "bonferroni", "bh", "none"])
def test_rows_adjusted_at_once_equal_adjust_pvalues_row_by_row(adjust):
    """The marginal rank sets adjust every row of p-values at once (any sort: tied p-values share their
    adjusted value); each row equals adjust_pvalues on that row bit for bit, ties, 0s and 1s included, and a
    table with an untested pair (NaN) takes the row-by-row path."""
    from ranktrust.ranking._ranksets import _holm_rows
    from ranktrust.stats._multiplicity import adjust_pvalues

    g = np.random.default_rng(3)
    for k, digits in ((2, 6), (7, 2), (60, 2), (60, 8)):
        p = np.round(g.random((k, k)) ** 3, digits)
        p[g.random((k, k)) < 0.2] = 1.0
        p[g.random((k, k)) < 0.1] = 0.0
        np.fill_diagonal(p, np.nan)
        for holes in (False, True):
            if holes and k > 2:
                p[0, 1] = p[1, 0] = np.nan
            off = ~np.eye(k, dtype=bool)
            want = np.full(p.shape, np.nan)
            for j in range(k):
                row = p[j, off[j]]
                ok = np.isfinite(row)
                adj = np.full(row.shape, np.nan)
                adj[ok] = adjust_pvalues(row[ok], adjust)
                want[j, off[j]] = adj
            assert np.array_equal(_holm_rows(p, adjust), want, equal_nan=True), (k, digits, holes)
