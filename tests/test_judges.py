"""Gold-corrected scores (ranktrust.judges): reference values, refusals, seeded coverage, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranktrust as rt
from ranktrust.errors import ArgumentError, DataError
from ranktrust.judges import gold_corrected, labels_needed, model_intervals


def board(p, *, acc=0.85, N=600, n=150, seed=0, binary=True):
    """Truth (gold) of M models on N items, a judge right with probability ``acc`` (0/1) or a noisy copy
    (continuous), gold labels on the first n items."""
    g = np.random.default_rng(seed)
    p = np.asarray(p, dtype=float)[:, None]
    if binary:
        truth = (g.random((len(p), N)) < p).astype(float)
        judge = np.where(g.random(truth.shape) < acc, truth, 1 - truth)
    else:
        truth = np.clip(p + 0.15 * g.standard_normal((len(p), N)), 0, 1)
        judge = np.clip(0.8 * truth + 0.1 + 0.1 * g.standard_normal(truth.shape), 0, 1)
    models = [f"m{k}" for k in range(len(p))]
    gold = np.where(np.arange(N) < n, truth, np.nan)
    return rt.ScoreMatrix.from_array(judge, models=models), rt.ScoreMatrix.from_array(gold, models=models), truth


# ---------------------------------------------------------------- reference values (hand formulas)
def test_stratified_is_the_post_stratified_mean():
    j, g, _ = board([0.7, 0.4])
    r = gold_corrected(j, g)
    assert r.method == "stratified"
    f, y = j.scores, g.scores[:, :150]
    for k in range(2):
        q = f[k].mean()
        fl, yl = f[k, :150], y[k]
        a, b = yl[fl == 1].mean(), yl[fl == 0].mean()
        assert r.score[k] == pytest.approx(q * a + (1 - q) * b, rel=1e-12)
        # the interval's variance: q^2 a(1-a)/(n1+1) + (1-q)^2 b(1-b)/(n0+1) + (a-b)^2 q(1-q)/N at the
        # pseudo-count shares, within the pseudo-observations' own small share
        n1, n0 = (fl == 1).sum(), (fl == 0).sum()
        at, bt = (yl[fl == 1].sum() + 0.5) / (n1 + 1), (yl[fl == 0].sum() + 0.5) / (n0 + 1)
        var = q**2 * at * (1 - at) / (n1 + 1) + (1 - q)**2 * bt * (1 - bt) / (n0 + 1) + (at - bt)**2 * q * (1 - q) / 600
        assert r.se[k] == pytest.approx(math.sqrt(var), rel=0.05)


def test_ppi_plus_is_the_regression_estimator_with_the_slope_as_lambda():
    j, g, _ = board([0.6, 0.5], binary=False)
    r = gold_corrected(j, g)
    assert r.method == "ppi++"
    f, y = j.scores, g.scores[:, :150]
    for k in range(2):
        lam = np.cov(y[k], f[k, :150], ddof=1)[0, 1] / f[k].var(ddof=1)
        assert r.lam[k] == pytest.approx(lam, rel=1e-10)
        # lambda * mean_all(f) + mean_L(y - lambda f) = mean_L(y) + lambda (mean_all(f) - mean_L(f))
        assert r.score[k] == pytest.approx(y[k].mean() + lam * (f[k].mean() - f[k, :150].mean()), rel=1e-12)


def test_ppi_plus_variance_matches_a_brute_force_bootstrap():
    # the linearised variance against a bootstrap of the whole procedure (items redrawn, labels kept labelled)
    j, g, _ = board([0.6], binary=False, N=800, n=200, seed=3)
    r = gold_corrected(j, g)
    f, y = j.scores[0], g.scores[0]
    L = ~np.isnan(y)
    gen = np.random.default_rng(1)
    est = []
    for _ in range(2000):
        iu = gen.choice(np.flatnonzero(~L), (~L).sum())
        il = gen.choice(np.flatnonzero(L), L.sum())
        ff, fl, yl = np.concatenate([f[iu], f[il]]), f[il], y[il]
        lam = np.cov(yl, fl, ddof=1)[0, 1] / ff.var(ddof=1)
        est.append(lam * ff.mean() + (yl - lam * fl).mean())
    assert r.se[0] == pytest.approx(np.std(est, ddof=1), rel=0.1)


def test_rogan_gladen_is_the_sensitivity_specificity_correction():
    j, g, _ = board([0.7, 0.4], seed=2)
    r = gold_corrected(j, g, method="rogan-gladen")
    f, y = j.scores, g.scores[:, :150]
    for k in range(2):
        fl, yl = f[k, :150], y[k]
        se, sp = fl[yl == 1].mean(), 1 - fl[yl == 0].mean()
        assert r.score[k] == pytest.approx((f[k].mean() + sp - 1) / (se + sp - 1), rel=1e-12)


def test_judge_only_and_gold_only_stand_beside_it():
    j, g, _ = board([0.7, 0.4])
    r = gold_corrected(j, g)
    np.testing.assert_allclose(r.judge_score, j.scores.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(r.gold_score, g.scores[:, :150].mean(axis=1), rtol=1e-12)
    d = r.to_dict()
    assert {"judge_score", "gold_score", "rank_low", "rank_high", "tier"} <= set(d["models"][0])
    assert set(d["pairs"][0]) == {"a", "b", "diff", "se", "ci_low", "ci_high", "p_value", "p_adjusted", "separated"}


def test_one_pair_needs_no_draws_and_its_adjusted_p_is_its_p():
    j, g, _ = board([0.7, 0.4])
    r = gold_corrected(j, g)
    assert r.n_resamples == 0
    assert r.pairs[0]["p_adjusted"] == r.pairs[0]["p_value"]


def test_a_clear_gap_is_separated_and_ranked():
    j, g, _ = board([0.9, 0.5, 0.1], N=2000, n=300)
    r = gold_corrected(j, g)
    assert list(r.rank_low) == [1, 2, 3] and list(r.rank_high) == [1, 2, 3]
    assert r.could_be_first == ["m0"]


# ---------------------------------------------------------------- refusals, one line each
def test_labels_on_some_models_only_are_refused_naming_the_item():
    j, g, _ = board([0.7, 0.4])
    a = g.scores.copy()
    a[1, 3] = np.nan
    with pytest.raises(DataError, match=r"item '.*' has a gold label for some models but not for 'm1'"):
        gold_corrected(j, rt.ScoreMatrix.from_array(a, models=g.models, items=g.items))


def test_too_few_labels_all_labels_an_incomplete_judge_and_a_wrong_method_are_refused():
    j, g, truth = board([0.7, 0.4])
    few = rt.ScoreMatrix.from_array(np.where(np.arange(600) < 5, truth, np.nan), models=g.models)
    with pytest.raises(DataError, match="5 labelled items"):
        gold_corrected(j, few)
    with pytest.raises(DataError, match="every item is labelled"):
        gold_corrected(j, rt.ScoreMatrix.from_array(truth, models=g.models))
    holes = j.scores.copy()
    holes[0, 7] = np.nan
    with pytest.raises(DataError, match="did not score model 'm0' on item"):
        gold_corrected(rt.ScoreMatrix.from_array(holes, models=j.models), g)
    jc, gc, _ = board([0.6, 0.5], binary=False)
    with pytest.raises(ArgumentError, match="needs 0/1 judge scores"):
        gold_corrected(jc, gc, method="stratified")
    with pytest.raises(ArgumentError, match="`method`"):
        gold_corrected(j, g, method="nope")


def test_rogan_gladen_refuses_a_judge_that_carries_no_information():
    g0 = np.random.default_rng(0)
    truth = (g0.random((2, 600)) < 0.5).astype(float)
    judge = (g0.random((2, 600)) < 0.5).astype(float)       # unrelated to the truth
    gold = np.where(np.arange(600) < 150, truth, np.nan)
    with pytest.raises(DataError, match="too little information"):
        gold_corrected(rt.ScoreMatrix.from_array(judge), rt.ScoreMatrix.from_array(gold), method="rogan-gladen")


def test_gold_with_a_model_the_judge_did_not_score_is_refused():
    j, g, truth = board([0.7, 0.4])
    other = rt.ScoreMatrix.from_array(np.where(np.arange(600) < 150, truth, np.nan), models=["m0", "zz"])
    with pytest.raises(DataError, match="model 'zz'"):
        gold_corrected(j, other)


# ---------------------------------------------------------------- label budget
def test_labels_needed_reaches_the_width_it_promises():
    j, g, _ = board([0.7], N=20000, n=200, seed=5)
    r = gold_corrected(j, g)
    plan = labels_needed(r, 0.03)
    n_new = plan["per_model"]["m0"]
    assert n_new > 200
    # with that many labels on a fresh board the half-width lands near 0.03
    j2, g2, _ = board([0.7], N=20000, n=n_new, seed=6)
    r2 = gold_corrected(j2, g2)
    assert (r2.ci_high[0] - r2.ci_low[0]) / 2 == pytest.approx(0.03, rel=0.15)
    assert labels_needed(r, 0.0001)["per_model"]["m0"] is None   # the judge's part alone is wider


# ---------------------------------------------------------------- seeded coverage (small grid; the full one is bench/bench_judge.py)
@pytest.mark.slow
@pytest.mark.parametrize("p, se, sp, n", [(0.1, 0.8, 0.9, 100), (0.5, 0.7, 0.7, 100), (0.9, 0.95, 0.7, 300)])
def test_stratified_interval_covers(p, se, sp, n):
    g = np.random.default_rng(11)
    R, N = 1500, 2000
    y = (g.random((N, R)) < p).astype(float)
    f = np.where(y == 1, g.random((N, R)) < se, g.random((N, R)) >= sp).astype(float)
    L = np.zeros(N, bool)
    L[g.choice(N, n, replace=False)] = True
    est = model_intervals(f, y, L, "stratified", 0.95)
    cov = np.mean((est["ci_low"] <= p) & (p <= est["ci_high"]))
    assert cov >= 0.94 - 2 * math.sqrt(0.95 * 0.05 / R), cov


@pytest.mark.slow
def test_no_false_separation_among_tied_models_beyond_alpha():
    # 4 models, top two tied at 0.6: a board claims a false order when it separates the tied pair
    false = 0
    R = 150
    for s in range(R):
        j, g, _ = board([0.6, 0.6, 0.45, 0.3], N=1000, n=200, seed=100 + s)
        r = gold_corrected(j, g, n_resamples=2000, rng=s)
        false += any(p["separated"] and {p["a"], p["b"]} == {"m0", "m1"} for p in r.pairs)
    assert false / R <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / R)


# ---------------------------------------------------------------- properties
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.sampled_from(["stratified", "ppi++", "rogan-gladen"]))
def test_properties(seed, M, method):
    g0 = np.random.default_rng(seed)
    j, g, _ = board(g0.uniform(0.2, 0.8, M), N=300, n=60, seed=seed)
    try:
        r = gold_corrected(j, g, method=method, n_resamples=500)
    except DataError:            # rogan-gladen may find too little information on a small board
        assert method == "rogan-gladen"
        return
    assert np.all(r.ci_low <= r.ci_high)
    assert np.all((r.ci_low >= 0) & (r.ci_high <= 1))
    assert all(p["p_adjusted"] >= p["p_value"] for p in r.pairs)
    assert all(p["diff"] >= 0 for p in r.pairs)
    assert np.all(r.rank_low <= r.rank_high)
    # the order of the models changes nothing but the order
    perm = g0.permutation(M)
    jp = rt.ScoreMatrix.from_array(j.scores[perm], models=[j.models[k] for k in perm])
    gp = rt.ScoreMatrix.from_array(g.scores[perm], models=[g.models[k] for k in perm])
    rp = gold_corrected(jp, gp, method=method, n_resamples=500)
    np.testing.assert_allclose(rp.score, r.score[perm], rtol=1e-9)
    np.testing.assert_allclose(rp.se, r.se[perm], rtol=1e-9)


# ---------------------------------------------------------------- every format
def test_every_format_says_the_headline_and_the_scope():
    from ranktrust.reporting.renderers import to_string

    j, g, _ = board([0.9, 0.5, 0.1], N=2000, n=300)
    r = gold_corrected(j, g)
    for fmt in ("text", "md", "html"):
        s = to_string(r, fmt)
        assert "By the gold standard, m0 is #1 (300 gold labels on 2,000 items; 95% simultaneous)." in s, fmt
        assert "random sample of the items" in s, fmt
    import json

    d = json.loads(to_string(r, "json"))
    assert d["headline"]["text"].startswith("By the gold standard, m0 is #1")
    assert [m["model"] for m in d["models"]] == ["m0", "m1", "m2"]
    assert to_string(r, "csv").splitlines()[0].startswith("model,score,se,ci_low,ci_high")
    jc, gc, _ = board([0.6, 0.5], binary=False)
    assert "Approximate: a normal-theory interval" in to_string(gold_corrected(jc, gc), "md")


def test_the_judges_docs_example_runs():
    """docs/judges.md's Python block runs as written, and its sentence is the one the renderers print."""
    from test_gold import run_docs_block

    from ranktrust.reporting.renderers import to_string

    text, ns = run_docs_block("judges.md", "gold_corrected(")
    r = ns["r"]
    assert r.method == "stratified" and r.could_be_first == ["a"]
    sentence = "By the gold standard, a is #1 (300 gold labels on 2,000 items; 95% simultaneous)."
    assert sentence in text and sentence in to_string(r, "md")
    assert set(ns["plan"]["per_model"]) == {"a", "b", "c"}


# ================================================================ the judge audit
from conftest import run_cli, shared_file          # noqa: E402
from ranktrust.judges import judge_audit           # noqa: E402


def _bench(name):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_position_on_the_shared_mtbench_judgments():
    import pandas as pd

    g = pd.read_json(shared_file("arena/mtbench_gpt-4_pair_phi3.jsonl.gz"), lines=True)
    r = judge_audit(g)
    pos, con = r.probes["position"], r.probes["consistency"]
    ok = ~g.g1_winner.eq("error") & ~g.g2_winner.eq("error")
    s = {"model_1": 1.0, "model_2": 0.0, "tie": 0.5}
    g1, g2 = g.g1_winner[ok].map(s), g.g2_winner[ok].map(s)
    assert pos["n_questions"] == 73 and pos["n_errors"] == 2
    assert pos["rate"] == pytest.approx(((g1 + 1 - g2) / 2).mean(), rel=1e-12)
    assert (pos["first_slot_won_both"], pos["second_slot_won_both"]) == (16, 2)
    assert pos["flagged"] and pos["p_value"] < 0.01 and pos["ci_low"] > 0.5
    assert con["rate"] == pytest.approx((g1 == g2).mean(), rel=1e-12) and con["flagged"] is None
    assert r.flagged == ["position"]


@pytest.mark.slow   # reads 2 x 26,919 battles
def test_agreement_is_statsmodels_kappa_and_self_preference_the_mean_difference():
    import pandas as pd
    from statsmodels.stats.inter_rater import cohens_kappa

    h = pd.read_json(shared_file("judges/ppr_human.jsonl.gz"), lines=True)
    j = pd.read_json(shared_file("judges/ppr_gpt-4-0125-preview.jsonl.gz"), lines=True)
    fam = ["gpt-4", "gpt-3.5-turbo"]
    r = judge_audit(battles=j, reference=h, family=fam)
    cat = {"model_a": 2, "model_b": 0, "tie": 1, "tie (bothbad)": 1}
    table = pd.crosstab(j.winner.map(cat), h.winner.map(cat)).to_numpy()
    ref = cohens_kappa(table)
    ag = r.probes["agreement"]
    assert ag["kappa"] == pytest.approx(ref.kappa, rel=1e-10)
    assert (ag["ci_high"] - ag["ci_low"]) / 2 == pytest.approx(1.959964 * ref.std_kappa, rel=0.05)
    one = j.model_a.isin(fam) ^ j.model_b.isin(fam)
    sc = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}
    fa = j.model_a.isin(fam)[one]
    fj = j.winner[one].map(sc).where(fa, 1 - j.winner[one].map(sc))
    fr = h.winner[one].map(sc).where(fa, 1 - h.winner[one].map(sc))
    sp = r.probes["self_preference"]
    assert sp["n_battles"] == int(one.sum()) == 6670
    assert sp["rate"] == pytest.approx((fj - fr).mean(), rel=1e-12)
    assert sp["ci_low"] <= sp["rate"] <= sp["ci_high"]


def test_audit_refusals():
    import pandas as pd

    with pytest.raises(DataError, match="nothing to audit"):
        judge_audit()
    with pytest.raises(DataError, match="no 'g2_winner' column"):
        judge_audit(pd.DataFrame({"g1_winner": ["model_1"]}))
    with pytest.raises(DataError, match=r"row 1: verdict 'A>B' is not one of"):
        judge_audit(pd.DataFrame({"g1_winner": ["model_1", "A>B"], "g2_winner": ["tie", "tie"]}))
    a = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "x"], "winner": ["model_a", "tie"]})
    b = a.assign(model_b=["y", "z"])
    with pytest.raises(DataError, match=r"row 1: battles has 'y' vs 'x' and reference 'y' vs 'z'"):
        judge_audit(battles=a, reference=b)
    with pytest.raises(DataError, match="2 rows and reference 1"):
        judge_audit(battles=a, reference=a.iloc[:1])
    with pytest.raises(DataError, match="no battle has exactly one model of the family"):
        judge_audit(battles=a, reference=a, family=["q"])


@pytest.mark.slow
def test_planted_boards_flag_their_defect_and_not_the_noise():
    b = _bench("bench_judge_audit")
    R = 60
    flags = {k: 0 for k in ("clean_pos", "pos", "clean_self", "self")}
    for s in range(R):
        g = np.random.default_rng([7, s])
        flags["clean_pos"] += judge_audit(b.swapped(g, 0.0)).probes["position"]["flagged"]
        flags["pos"] += judge_audit(b.swapped(g, 0.15)).probes["position"]["flagged"]
        for bias, key in ((0.0, "clean_self"), (0.12, "self")):
            jud, ref = b.with_reference(g, bias)
            flags[key] += judge_audit(battles=jud, reference=ref, family=["m0", "m1"]).probes["self_preference"]["flagged"]
    se = math.sqrt(0.05 * 0.95 / R)
    assert flags["clean_pos"] / R <= 0.05 + 2 * se and flags["clean_self"] / R <= 0.05 + 2 * se, flags
    assert flags["pos"] / R >= 0.9 - 2 * math.sqrt(0.09 / R) and flags["self"] / R >= 0.9 - 2 * math.sqrt(0.09 / R), flags


def test_judge_command(capsys, tmp_path):
    import json

    mt = str(shared_file("arena/mtbench_gpt-4_pair_phi3.jsonl.gz"))
    code, out, err = run_cli(capsys, "judge", mt, "-f", "md")
    assert code == 0, err
    assert "The judge shows position bias (95% finite-sample test)." in out
    assert "2 questions with an error verdict" in out
    code, out, _ = run_cli(capsys, "judge", mt, "-f", "json")
    d = json.loads(out)
    assert d["meta"]["kind"] == "judge" and d["position"]["flagged"] is True
    assert d["not_run"] == {"agreement": "no_reference", "self_preference": "no_reference"}
    human = str(shared_file("judges/ppr_human.jsonl.gz"))
    code, _, err = run_cli(capsys, "judge", human)
    assert code == 1 and "give --reference" in err
    code, _, err = run_cli(capsys, "judge", mt, "--family", "gpt-4")
    assert code == 1 and "--family needs --reference" in err
    code, _, err = run_cli(capsys, "judge", str(tmp_path / "nope.jsonl"))
    assert code == 1 and "no such file" in err and "Traceback" not in err
    bad = tmp_path / "x.csv"
    bad.write_text("foo,bar\n1,2\n")
    code, _, err = run_cli(capsys, "judge", str(bad))
    assert code == 1 and "found foo, bar" in err


# ================================================================ prediction-powered Bradley-Terry
from ranktrust.judges import gold_corrected_battles             # noqa: E402
from ranktrust.judges._battles import ppi_bradley_terry         # noqa: E402


def _bt_board(seed=0, M=5, N=3000, n=600, judge_acc=0.8):
    g = np.random.default_rng(seed)
    theta = np.linspace(-1, 1, M)
    a = g.integers(0, M, N)
    b = (a + g.integers(1, M, N)) % M
    y = (g.random(N) < 1 / (1 + np.exp(theta[b] - theta[a]))).astype(float)
    f = np.where(g.random(N) < judge_acc, y, 1 - y)
    L = np.zeros(N, bool)
    L[g.choice(N, n, replace=False)] = True
    return a, b, f, y, L, M, theta


def test_lambda_zero_is_the_logistic_fit_of_the_labels_with_its_robust_covariance():
    from statsmodels.discrete.discrete_model import Logit

    a, b, f, y, L, M, _ = _bt_board()
    th, V, lam = ppi_bradley_terry(a, b, f, y, L, M, lam=0.0)
    assert lam == 0.0
    X = np.zeros((L.sum(), M))
    X[np.arange(L.sum()), a[L]] += 1
    X[np.arange(L.sum()), b[L]] -= 1
    fit = Logit(y[L], X[:, 1:]).fit(disp=0, cov_type="HC0")
    ref = np.concatenate([[0.0], fit.params])
    np.testing.assert_allclose(th, ref - ref.mean(), atol=1e-8)
    # the covariance of the differences to model 0 (statsmodels' parameters), n/(n-1) apart
    P = np.eye(M)[1:] - np.eye(M)[0]
    n = L.sum()
    np.testing.assert_allclose(P @ V @ P.T, fit.cov_params() * n / (n - 1), rtol=1e-6)


def test_ppi_with_a_perfect_judge_is_the_fit_of_every_battle():
    a, b, f, y, L, M, _ = _bt_board()
    th_all, _, _ = ppi_bradley_terry(a, b, y, y, np.ones(len(y), bool), M, lam=0.0)
    th, V, lam = ppi_bradley_terry(a, b, y, y, L, M)      # the judge agrees with the people everywhere
    assert lam == 1.0
    np.testing.assert_allclose(th, th_all, atol=1e-8)


def test_gold_corrected_battles_matches_by_id_and_refuses_what_does_not_match():
    import pandas as pd

    a, b, f, y, L, M, _ = _bt_board()
    name = np.array([f"m{k}" for k in range(M)])
    lab = np.array(["model_b", "model_a"])
    judge = pd.DataFrame({"num": np.arange(len(a)), "model_a": name[a], "model_b": name[b], "winner": lab[f.astype(int)]})
    gold = judge.assign(winner=lab[y.astype(int)])[L].sample(frac=1.0, random_state=0)   # any row order
    r = gold_corrected_battles(judge, gold, n_resamples=2000)
    th, _, lam = ppi_bradley_terry(a, b, f, y, L, M)
    np.testing.assert_allclose(r.rating, 1000 + 400 / np.log(10) * th, atol=1e-6)
    assert r.lam == lam and r.n_labelled == L.sum() and r.could_be_first == ["m4"]
    assert all(p["p_adjusted"] >= p["p_value"] for p in r.pairs)
    with pytest.raises(DataError, match="gold battle 99999 is not among the judged battles"):
        gold_corrected_battles(judge, pd.concat([gold, gold.iloc[:1].assign(num=99999)]))
    swapped = gold.copy()
    swapped.iloc[0, swapped.columns.get_loc("model_a")] = "zz"
    with pytest.raises(DataError, match=r"gold battle .* is 'zz' vs"):
        gold_corrected_battles(judge, swapped)
    with pytest.raises(DataError, match="two gold verdicts"):
        gold_corrected_battles(judge, pd.concat([gold, gold.iloc[:1]]))
    with pytest.raises(DataError, match="5 gold battles"):
        gold_corrected_battles(judge, gold.iloc[:5])
    with pytest.raises(DataError, match="no 'qid' column"):
        gold_corrected_battles(judge, gold, battle_id="qid")


@pytest.mark.slow
def test_prediction_powered_rank_sets_cover_on_simulated_boards():
    # 6 models, two tied at the top; the judge right 80% of the time; 500 labels of 4,000 battles
    R, covered = 40, 0
    for s in range(R):
        g = np.random.default_rng([3, s])
        M, N = 6, 4000
        theta = np.array([0.5, 0.5, 0.2, 0.0, -0.3, -0.9])
        a = g.integers(0, M, N)
        b = (a + g.integers(1, M, N)) % M
        y = (g.random(N) < 1 / (1 + np.exp(theta[b] - theta[a]))).astype(float)
        f = np.where(g.random(N) < 0.8, y, 1 - y)
        L = np.zeros(N, bool)
        L[g.choice(N, 500, replace=False)] = True
        th, V, _ = ppi_bradley_terry(a, b, f, y, L, M)
        from ranktrust.judges._core import pairs_and_ranks

        _, better, _ = pairs_and_ranks(th, V, tuple("abcdef"), 0.95, 2000, g)
        lo, hi = 1 + better.sum(axis=0), M - better.sum(axis=1)
        # the true rank sets: the tied pair may hold ranks 1-2
        true_lo = np.array([1, 1, 3, 4, 5, 6])
        true_hi = np.array([2, 2, 3, 4, 5, 6])
        covered += bool(np.all((lo <= true_lo) & (hi >= true_hi)))
    assert covered / R >= 0.95 - 2 * math.sqrt(0.05 * 0.95 / R)


def test_gold_corrected_battles_refuses_a_battle_without_a_verdict():
    import pandas as pd

    a, b, f, y, L, M, _ = _bt_board()
    name = np.array([f"m{k}" for k in range(M)])
    lab = np.array(["model_b", "model_a"])
    judge = pd.DataFrame({"num": np.arange(len(a)), "model_a": name[a], "model_b": name[b], "winner": lab[f.astype(int)]})
    gold = judge.assign(winner=lab[y.astype(int)])[L]
    broken = judge.copy()
    broken.loc[3, "winner"] = "error"
    with pytest.raises(DataError, match=r"battles: row 3: verdict 'error' is not model_a, model_b or a tie"):
        gold_corrected_battles(broken, gold)
    with pytest.raises(DataError, match=r"battles has no 'winner' column"):
        gold_corrected_battles(judge.drop(columns="winner"), gold)
