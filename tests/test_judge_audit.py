"""The judge audit's length, repeats and judge_shift probes and judged_intervals (two-way clustering by item and
judge): each statistical function against a published figure where one exists, a reference computation
(scipy / statsmodels), a seeded coverage or type-I simulation, and hypothesis properties."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_cli, shared_file
from ranktrust.errors import ArgumentError, DataError
from ranktrust.judges import judge_audit, judged_intervals
from ranktrust.judges._length import answer_lengths, within_pair_slope
from ranktrust.judges._twoway import hotelling_one_sample, icc_oneway
from ranktrust.stats._twoway import twoway_variance


def _bench():
    from test_judges import _bench as load

    return load("bench_judge_audit")


# Shrout & Fleiss (1979), Table 2: 6 targets rated by 4 judges
SF = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)


# ================================================================ ICC(1) and the repeats record
def test_icc_reproduces_shrout_and_fleiss_table_4():
    r = icc_oneway(np.repeat(np.arange(6), 4), SF.ravel())
    # their Table 3: between-targets MS 11.24, within-target MS 6.26; Table 4: ICC(1,1) = .17
    assert round(r["msb"], 2) == 11.24 and round(r["msw"], 2) == 6.26
    assert round(r["icc"], 2) == 0.17
    # the F interval of their ICC(1,1) formula: F = 1.8 on (5, 18) df, bounds -0.13 and 0.72
    assert (round(r["f"], 1), r["df1"], r["df2"]) == (1.8, 5, 18)
    assert (round(r["ci_low"], 2), round(r["ci_high"], 2)) == (-0.13, 0.72)


def test_icc_f_is_scipy_one_way_anova_and_bounds_the_direct_formula():
    from scipy import stats

    g = np.random.default_rng(3)
    y = g.normal(size=(25, 3)) + g.normal(size=(25, 1))
    r = icc_oneway(np.repeat(np.arange(25), 3), y.ravel(), 0.9)
    assert r["f"] == pytest.approx(stats.f_oneway(*y).statistic, rel=1e-12)     # each row (cell) a group
    fl = r["f"] / stats.f.ppf(0.95, 24, 50)
    fu = r["f"] * stats.f.ppf(0.95, 50, 24)
    assert r["ci_low"] == pytest.approx((fl - 1) / (fl + 2), rel=1e-12)
    assert r["ci_high"] == pytest.approx((fu - 1) / (fu + 2), rel=1e-12)


def test_icc_interval_covers_in_a_seeded_simulation():
    g = np.random.default_rng(11)
    R, C, k, rho = 400, 30, 3, 0.4
    hits = 0
    for _ in range(R):
        y = g.normal(0, math.sqrt(rho), (C, 1)) + g.normal(0, math.sqrt(1 - rho), (C, k))
        r = icc_oneway(np.repeat(np.arange(C), k), y.ravel())
        hits += r["ci_low"] <= rho <= r["ci_high"]
    assert hits / R >= 0.95 - 2 * math.sqrt(0.05 * 0.95 / R)
    assert hits / R <= 0.95 + 3 * math.sqrt(0.05 * 0.95 / R)   # and not trivially wide


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.1, 10), st.floats(-5, 5))
def test_repeats_share_is_affine_and_order_invariant_and_inside_its_interval(seed, a, b):
    g = np.random.default_rng(seed)
    C, k = 12, 3
    y = g.normal(size=(C, 1)) + g.normal(size=(C, k))
    rows = {"model": np.repeat(["m"], C * k), "item": np.repeat(np.arange(C), k),
            "judge": np.tile(["x", "y", "z"], C), "score": y.ravel()}
    r0 = judge_audit(scores=rows).probes["repeats"]
    perm = g.permutation(C * k)
    moved = {key: (a * v + b if key == "score" else v)[perm] for key, v in rows.items()}
    r1 = judge_audit(scores=moved).probes["repeats"]
    assert r1["rate"] == pytest.approx(r0["rate"], rel=1e-9, abs=1e-12)
    assert 0 <= r0["ci_low"] <= r0["ci_high"] <= 1
    assert r0["ci_low"] - 1e-12 <= min(max(r0["rate"], 0), 1) <= r0["ci_high"] + 1e-12
    assert r0["flagged"] is None and r0["p_value"] is None


# ================================================================ judge shift (Hotelling's T²)
def test_hotelling_is_statsmodels_test_mvmean():
    from statsmodels.stats.multivariate import test_mvmean

    u = np.random.default_rng(5).normal(0.1, 1, (40, 3))
    t2, p, df1, df2 = hotelling_one_sample(u)
    ref = test_mvmean(u)
    assert t2 == pytest.approx(ref.t2, rel=1e-10) and p == pytest.approx(ref.pvalue, rel=1e-10)
    assert (df1, df2) == tuple(ref.df)


def test_judge_shift_two_judges_is_the_paired_t_test():
    from scipy import stats

    g = np.random.default_rng(2)
    I = 60
    y = g.normal(size=(I, 1)) + g.normal(size=(I, 2)) + np.array([0, 0.3])
    rows = {"model": np.repeat("m", 2 * I), "item": np.repeat(np.arange(I), 2), "judge": np.tile(["a", "b"], I),
            "score": y.ravel()}
    r = judge_audit(scores=rows).probes["judge_shift"]
    assert r["p_value"] == pytest.approx(stats.ttest_rel(y[:, 0], y[:, 1]).pvalue, rel=1e-9)
    assert r["offsets"]["b"] == pytest.approx((y[:, 1] - y[:, 0]).mean() / 2, rel=1e-12)


def test_a_noisy_judge_is_not_flagged_and_a_shifted_one_is():
    """One judge five times noisier than the others, no shift: type-I at 5% within 2 MC SE (Hotelling's T² on the
    item clusters' offset vectors does not assume equal noise); the same judge shifted by 0.9: flagged."""
    g = np.random.default_rng(8)
    R, I = 300, 60
    flags = [0, 0]
    for _ in range(R):
        for k, shift in enumerate((0.0, 0.9)):
            y = g.normal(size=(I, 1)) + g.normal(size=(I, 3)) * np.array([0.3, 0.3, 1.5]) + np.array([0, 0, shift])
            rows = {"model": np.repeat("m", 3 * I), "item": np.repeat(np.arange(I), 3),
                    "judge": np.tile(["a", "b", "c"], I), "score": y.ravel()}
            flags[k] += judge_audit(scores=rows).probes["judge_shift"]["flagged"]
    assert flags[0] / R <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / R), flags
    assert flags[1] / R >= 0.9, flags


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.1, 10), st.floats(-5, 5))
def test_hotelling_is_invariant_to_affine_maps(seed, a, b):
    g = np.random.default_rng(seed)
    u = g.normal(size=(15, 2)) + 0.3
    A = np.array([[a, 0.5], [0.0, 1.0]])
    t0 = hotelling_one_sample(u)[0]
    t1 = hotelling_one_sample(u @ A.T)[0]
    assert t1 == pytest.approx(t0, rel=1e-7)
    # relabelling the judges leaves the shift test unchanged
    y = g.normal(size=(20, 3)) + np.array([0, b / 10, 0])
    rows = {"model": np.repeat("m", 60), "item": np.repeat(np.arange(20), 3), "judge": np.tile(["a", "b", "c"], 20),
            "score": y.ravel()}
    relabel = dict(rows, judge=np.tile(["z", "x", "y"], 20))
    p0 = judge_audit(scores=rows).probes["judge_shift"]["p_value"]
    p1 = judge_audit(scores=relabel).probes["judge_shift"]["p_value"]
    assert p1 == pytest.approx(p0, rel=1e-8, abs=1e-15)


# ================================================================ two-way clustering and judged_intervals
def _long(g, models=3, items=40, judges=12, judge_sd=1.0):
    m, i, j = (x.ravel() for x in np.meshgrid(np.arange(models), np.arange(items), np.arange(judges), indexing="ij"))
    y = (g.normal(size=(models, items))[m, i] + g.normal(0, judge_sd, judges)[j] + g.normal(size=m.size))
    return {"model": np.array([f"m{k}" for k in m]), "item": i, "judge": j, "score": y}


def test_twoway_variance_is_statsmodels_two_way_cluster_covariance():
    import statsmodels.api as sm

    g = np.random.default_rng(1)
    n = 500
    item, judge = g.integers(0, 60, n), g.integers(0, 12, n)
    y = g.normal(size=n) + 0.4 * (item % 7) + 0.3 * judge
    v, v1, v2, v12 = twoway_variance(y, item, judge)
    X = np.ones((n, 1))
    two = sm.OLS(y, X).fit(cov_type="cluster", cov_kwds={"groups": np.column_stack([item, judge])})
    assert v == pytest.approx(two.cov_params()[0, 0], rel=1e-10)
    one = sm.OLS(y, X).fit(cov_type="cluster", cov_kwds={"groups": item})
    assert v1 == pytest.approx(one.cov_params()[0, 0], rel=1e-10)
    # judged_intervals' random-judge SE and df on one model are statsmodels'
    d = _long(g, models=1)
    r = judged_intervals(d, judges="random")
    ref = sm.OLS(d["score"], np.ones((d["score"].size, 1))).fit(
        cov_type="cluster", cov_kwds={"groups": np.column_stack([d["item"], d["judge"]])}, use_t=True)
    assert r.se[0] == pytest.approx(ref.bse[0], rel=1e-10) and r.df[0] == ref.df_resid_inference == 11
    lo, hi = ref.conf_int()[0]
    assert (r.ci_low[0], r.ci_high[0]) == pytest.approx((lo, hi), rel=1e-10)


def test_fixed_judges_cluster_by_item_as_statsmodels_and_auto_picks_by_count():
    import statsmodels.api as sm

    g = np.random.default_rng(4)
    d = _long(g, models=2, judges=3)
    r = judged_intervals(d)
    assert r.method == "cluster" and r.cluster_correction == "cr1"
    k = d["model"] == "m1"
    ref = sm.OLS(d["score"][k], np.ones((k.sum(), 1))).fit(cov_type="cluster", cov_kwds={"groups": d["item"][k]})
    assert r.models == ("m0", "m1") and r.se[1] == pytest.approx(ref.bse[0], rel=1e-10) and r.df[1] == 39
    assert judged_intervals(_long(g, judges=10)).method == "twoway"
    grouped = dict(d, subject=d["item"] // 8)
    rg = judged_intervals(grouped, cluster_by="subject")
    assert rg.n_clusters == 5 and rg.df[0] == 4
    with pytest.raises(ArgumentError, match="`judges` must be"):
        judged_intervals(d, judges="mixed")
    with pytest.raises(DataError, match="in more than one 'subject' group"):
        judged_intervals(dict(d, subject=np.arange(d["item"].size) % 2), cluster_by="subject")


@pytest.mark.slow
def test_judged_intervals_cover_where_judge_ignorant_intervals_do_not():
    """The bench's boards, 60 seeds each: 20 random judges (the two-way interval against the item-clustered one)
    and 3 fixed judges (clustered by item against every judgment taken as an item)."""
    assert_boards_covered(judged_intervals, seeds=60)


def assert_boards_covered(interval_of, seeds: int) -> None:
    """``interval_of(table)`` covers the truth of the bench's interval boards (20 random judges, 3 fixed) at 95%
    within 2 MC SE over ``seeds`` boards each, where the interval that ignores the judges covers less than 0.9."""
    b = _bench()
    for J in (20, 3):
        hit = naive = n = 0
        for s in range(seeds):
            table, truth, (lo, hi) = b.interval_board(np.random.default_rng([9, s, J]), J)
            r = interval_of(table)
            hit += int(np.sum((r.ci_low <= truth) & (truth <= r.ci_high)))
            naive += int(np.sum((lo <= truth) & (truth <= hi)))
            n += truth.size
        se = math.sqrt(0.05 * 0.95 / n)
        assert hit / n >= 0.95 - 2 * se, (J, hit / n)
        assert naive / n < 0.9, (J, naive / n)


@pytest.mark.filterwarnings("ignore::ranktrust.errors.SmallSampleWarning")   # random with 4 judges: few_judges
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.1, 10), st.floats(-5, 5), st.sampled_from(["fixed", "random"]))
def test_judged_intervals_shift_scale_and_order(seed, a, b, judges):
    g = np.random.default_rng(seed)
    d = _long(g, models=2, items=15, judges=4)
    r0 = judged_intervals(d, judges=judges)
    perm = g.permutation(d["score"].size)
    moved = {k: (a * v + b if k == "score" else v)[perm] for k, v in d.items()}
    r1 = judged_intervals(moved, judges=judges)
    assert r1.score == pytest.approx(a * r0.score + b, rel=1e-9, abs=1e-9)
    assert r1.se == pytest.approx(a * r0.se, rel=1e-9)
    assert np.all(r0.ci_low <= r0.score) and np.all(r0.score <= r0.ci_high)
    if judges == "random":   # never narrower than the item-clustered interval's variance or the judge-clustered one
        fixed = judged_intervals(d, judges="fixed")
        for k in range(2):
            rows = d["model"] == f"m{k}"
            _, vi, vj, _ = twoway_variance(d["score"][rows], d["item"][rows], d["judge"][rows])
            assert r0.se[k] ** 2 >= min(vi, vj) - 1e-15 and fixed.se[k] ** 2 == pytest.approx(vi, rel=1e-12)


# ================================================================ length
def _battles(g, B=600, M=5, taste=0.0):
    th = g.normal(0, 0.7, M)
    a = g.integers(0, M, B)
    b = (a + g.integers(1, M, B)) % M
    la, lb = 2 ** (9 + th[a] + g.normal(0, 0.7, B)), 2 ** (9 + th[b] + g.normal(0, 0.7, B))
    p = 1 / (1 + np.exp(th[b] - th[a] - taste * np.log2(la / lb)))
    s = np.where(g.random(B) < 0.2, 0.5, (g.random(B) < p).astype(float))
    names = np.array([f"m{k}" for k in range(M)])
    return names[a], names[b], la, lb, s


def test_length_slope_is_statsmodels_ols_with_pair_dummies_and_clusters():
    import pandas as pd
    import statsmodels.formula.api as smf

    g = np.random.default_rng(6)
    a, b, la, lb, s = _battles(g, taste=0.3)
    q = g.integers(0, 150, a.size)
    labels = np.array(["model_b", "tie", "model_a"])
    battles = {"model_a": a, "model_b": b, "winner": labels[(2 * s).astype(int)], "length_a": la, "length_b": lb,
               "question_id": q}
    r = judge_audit(battles=battles).probes["length"]
    first = a <= b   # the rows oriented to the pair's first model (sorted)
    df = pd.DataFrame({"y": np.where(first, s, 1 - s), "x": np.where(first, 1, -1) * np.log2((la + 1) / (lb + 1)),
                       "pair": np.where(first, np.char.add(a.astype(str), b.astype(str)),
                                        np.char.add(b.astype(str), a.astype(str))), "q": q})
    ref = smf.ols("y ~ C(pair) + x", df).fit(cov_type="cluster", cov_kwds={"groups": df.q}, use_t=True)
    assert r["slope"] == pytest.approx(ref.params["x"], rel=1e-10)
    lo, hi = ref.conf_int().loc["x"]
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((lo, hi), rel=1e-9)
    assert r["p_value"] == pytest.approx(ref.pvalues["x"] / 2 if ref.params["x"] > 0 else 1 - ref.pvalues["x"] / 2,
                                         rel=1e-8)
    assert r["n_clusters"] == np.unique(q).size and r["versus"] == "none"


def test_length_on_the_shared_mtbench_judgments():
    """GPT-4 judging phi-3 against phi-3-dpo: the answers' lengths read from the judge prompts; model_1's score
    averaged over both orders (position cancels) regressed on log2 of the length ratio."""
    import pandas as pd

    g = pd.read_json(shared_file("arena/mtbench_gpt-4_pair_phi3.jsonl.gz"), lines=True)
    la, lb = answer_lengths(g.g1_user_prompt)
    assert la.min() > 0 and lb.min() > 0
    r = judge_audit(g).probes["length"]
    s = {"model_1": 1.0, "model_2": 0.0, "tie": 0.5}
    ok = ~g.g1_winner.eq("error") & ~g.g2_winner.eq("error")
    y = ((g.g1_winner[ok].map(s) + g.g2_winner[ok].map(s)) / 2).to_numpy()
    x = np.log2((la[ok] + 1) / (lb[ok] + 1))
    assert r["n_battles"] == 73 and r["n_pairs"] == 1
    assert r["slope"] == pytest.approx(np.polyfit(x, y, 1)[0], rel=1e-10)
    assert r["flagged"] is False and r["ci_low"] < 0 < r["ci_high"]


@pytest.mark.slow
def test_length_type_one_error_and_power_on_planted_boards():
    """60 seeds a board (the bench runs 200): the clean judge and a judge that shares the people's taste for
    length are not flagged against the reference; a judge that picks the longer answer in 8% of battles is."""
    b = _bench()
    R = 60
    hits = {"clean": 0, "taste": 0, "biased": 0, "taste_alone": 0}
    for s in range(R):
        for key, bias, taste in (("clean", 0, 0), ("taste", 0, 0.3), ("biased", 0.08, 0)):
            jud, ref = b.with_lengths(np.random.default_rng([4, s, len(key)]), bias, taste)
            hits[key] += judge_audit(battles=jud, reference=ref).probes["length"]["flagged"]
            if key == "taste":
                hits["taste_alone"] += judge_audit(battles=jud).probes["length"]["flagged"]
    se = math.sqrt(0.05 * 0.95 / R)
    assert hits["clean"] / R <= 0.05 + 2 * se and hits["taste"] / R <= 0.05 + 2 * se, hits
    assert hits["biased"] / R >= 0.9 - 2 * math.sqrt(0.09 / R), hits
    assert hits["taste_alone"] / R >= 0.9, hits     # without the reference the people's taste counts


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_length_slope_ignores_which_model_is_named_first_and_the_row_order(seed):
    g = np.random.default_rng(seed)
    a, b, la, lb, s = _battles(g, B=120, M=4)
    q = np.arange(a.size)
    base = within_pair_slope(*_rows(a, b, la, lb, s), q)
    flip = g.random(a.size) < 0.5        # name the two models the other way round on some rows
    a2, b2 = np.where(flip, b, a), np.where(flip, a, b)
    la2, lb2 = np.where(flip, lb, la), np.where(flip, la, lb)
    s2 = np.where(flip, 1 - s, s)
    perm = g.permutation(a.size)
    moved = within_pair_slope(*_rows(a2[perm], b2[perm], la2[perm], lb2[perm], s2[perm]), q[perm])
    assert moved["slope"] == pytest.approx(base["slope"], rel=1e-9, abs=1e-12)
    assert moved["se"] == pytest.approx(base["se"], rel=1e-9)


def _rows(a, b, la, lb, s):
    from ranktrust.judges._length import _oriented

    key, sign = _oriented(a, b)
    return np.where(sign > 0, s, 1 - s), sign * np.log2((la + 1) / (lb + 1)), key


def test_length_refusals_and_not_run():
    mt = {"g1_winner": ["model_1", "tie"], "g2_winner": ["tie", "model_2"]}
    assert judge_audit(mt).not_run["length"] == "no_lengths"
    same = {"model_a": ["x", "x", "y"], "model_b": ["y", "y", "x"], "winner": ["model_a", "tie", "model_b"],
            "length_a": [10, 10, 10], "length_b": [10, 10, 10]}
    with pytest.raises(DataError, match="does not vary within any model pair"):
        judge_audit(battles=same)
    with pytest.raises(DataError, match="must be numbers"):
        judge_audit(battles=dict(same, length_a=["a", "b", "c"]))
    one = {"model": ["m", "m"], "item": [1, 2], "judge": ["a", "a"], "score": [1.0, 2.0]}
    with pytest.raises(DataError, match="nothing to audit"):     # no answer judged twice: no probe can run
        judge_audit(scores=one)
    r = judge_audit(mt, scores={"model": ["m"] * 4, "item": [1, 1, 2, 2], "judge": ["a"] * 4,
                                "score": [1.0, 2.0, 3.0, 5.0]})
    assert "repeats" in r.probes and r.not_run["judge_shift"] == "no_repeats"
    few = judge_audit(scores={"model": ["m"] * 4, "item": [1, 1, 2, 2], "judge": ["a", "b", "a", "c"],
                              "score": [1.0, 2.0, 3.0, 5.0]})
    assert "repeats" in few.probes and few.not_run["judge_shift"] == "too_few_items"


# ================================================================ planted boards, command line
@pytest.mark.slow
def test_planted_repeat_boards_and_the_noisy_judge():
    """60 seeds: the judge-shift test at 5% on repeat noise alone and >= 90% with a judge shifted by 0.25; the
    repeats interval covers the planted share; a noisy but unbiased judge is flagged by no probe beyond 5%."""
    b = _bench()
    R = 60
    se = math.sqrt(0.05 * 0.95 / R)
    shift = [0, 0]
    cover = 0
    noisy = {"position": 0, "self_preference": 0, "length": 0, "judge_shift": 0}
    for s in range(R):
        for k, d in enumerate((0.0, 0.25)):
            table, truth = b.judged_scores(np.random.default_rng([5, s, k]), d)
            r = judge_audit(scores=table)
            shift[k] += r.probes["judge_shift"]["flagged"]
            if k == 0:
                cover += r.probes["repeats"]["ci_low"] <= truth <= r.probes["repeats"]["ci_high"]
        g = np.random.default_rng([6, s])
        jud, ref = b.with_lengths(g, 0.0, 0.0, copy=0.0)
        r = judge_audit(b.swapped(g, 0.0), battles=jud, reference=ref, family=["m0", "m1"],
                        scores=b.judged_scores(g)[0])
        for k in noisy:
            noisy[k] += r.probes[k]["flagged"]
    assert shift[0] / R <= 0.05 + 2 * se and shift[1] / R >= 0.9, shift
    assert cover / R >= 0.95 - 2 * se, cover
    assert all(v / R <= 0.05 + 2 * se for v in noisy.values()), noisy


def test_judge_command_prints_the_new_records(capsys, tmp_path):
    import pandas as pd

    b = _bench()
    g = np.random.default_rng(0)
    table, _ = b.judged_scores(g, 0.25)
    sc = tmp_path / "scores.csv"
    pd.DataFrame(table).rename(columns={"judge": "run"}).to_csv(sc, index=False)
    code, out, err = run_cli(capsys, "judge", str(sc), "--judge-col", "run", "-f", "md")
    assert code == 0, err
    assert "The judge shows judge-shift bias (95% tests)." in out and "| repeats |" in out
    assert "is the judge's noise, not a bias" in out
    jud, ref = b.with_lengths(g, 0.08)
    jp, rp = tmp_path / "judge.csv", tmp_path / "people.csv"
    pd.DataFrame(jud).to_csv(jp, index=False)
    pd.DataFrame(ref).to_csv(rp, index=False)
    code, out, err = run_cli(capsys, "judge", str(jp), "--reference", str(rp), "--scores", str(sc), "--judge-col",
                             "run", "-f", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["length"]["versus"] == "reference" and d["length"]["flagged"] is True
    assert set(d["flagged"]) == {"length", "judge_shift"} and d["repeats"]["flagged"] is None
    code, out, err = run_cli(capsys, "judge", str(jp), "-f", "md")      # lengths alone: the length probe
    assert code == 0, err
    assert "without reference verdicts" in out
    mt = str(shared_file("arena/mtbench_gpt-4_pair_phi3.jsonl.gz"))
    code, out, _ = run_cli(capsys, "judge", mt, "-f", "json")
    assert json.loads(out)["length"]["n_battles"] == 73


def test_judge_shift_is_not_flagged_when_every_offset_is_zero():
    """Pairwise verdicts in the long table (the first model s, the second 1 - s, for every judge): each cluster's
    offsets cancel to rounding error, which must not be read as a shift with no spread."""
    g = np.random.default_rng(0)
    B = 300
    s = g.choice([0.0, 0.5, 1.0], (B, 3))
    rows = {"model": np.concatenate([np.repeat("a", 3 * B), np.repeat("b", 3 * B)]),
            "item": np.tile(np.repeat(np.arange(B), 3), 2), "judge": np.tile(["x", "y", "z"], 2 * B),
            "score": np.concatenate([s.ravel(), 1 - s.ravel()]) / 3}
    r = judge_audit(scores=rows).probes["judge_shift"]
    assert r["p_value"] == 1.0 and r["flagged"] is False


def test_the_judged_intervals_example_in_docs_judges_md():
    from test_gold import run_docs_block

    _, ns = run_docs_block("judges.md", "judged_intervals(")
    r, same = ns["r"], ns["same"]
    assert r.method == "cluster" and r.models == ("a", "b", "c") and np.all(r.df == 199)
    assert [n.code for n in r.notes] == ["judges_fixed"]
    np.testing.assert_allclose(same.ci_low, r.ci_low, rtol=1e-12)
