"""gold= on rt.intervals, rt.compare, rt.all_pairs and rt.report, and --gold-col on the command line.

Reference values (the PPI++ formula of Angelopoulos, Duchi & Zrnic 2023, arXiv:2311.01453, computed directly with
NumPy; scipy's t interval and statsmodels' cluster-robust OLS where lambda = 0), seeded coverage simulations (a
clustered board; a pair), hypothesis properties (every item labelled: the gold mean; lambda = 0: gold only), the
command line round trip, and the refusals.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranktrust as rt
from conftest import run_cli
from test_judges import board as judges_board
from ranktrust.errors import ArgumentError, DataError
from ranktrust.stats._ppi import gold_fit, model_intervals, ppi_plus, stratified

pytestmark = pytest.mark.filterwarnings("ignore:clustered SE from only")


def board(p, *, n=150, groups=None, **kw):
    """test_judges' board (truth of M models, a judge right with probability ``acc`` or a noisy copy, gold labels
    on the first ``n`` items, a random subset since items are exchangeable), with the labelled mask and, where
    given, item groups."""
    J, G, truth = judges_board(p, n=n, **kw)
    if groups is not None:
        J, G = (rt.ScoreMatrix.from_array(x.scores, models=list(x.models), groups=groups) for x in (J, G))
    return J, G, truth, np.arange(J.n_items) < n


# ------------------------------------------------------------------------------------- reference values
def test_ppi_plus_mean_is_the_papers_formula_computed_directly():
    """theta = lambda mean_N(f) + mean_n(Y - lambda f), lambda = Cov_n(Y, f) / Var_N(f), and its variance the
    sum of squared influence terms (labelled: (r_i - mean r) / n, every item: lambda (f_i - mean f) / N)."""
    J, G, _, lab = board([0.6, 0.45], binary=False, n=120)
    iv = rt.intervals(J, gold=G)
    assert iv.method == "ppi++" and iv.n_labelled == 120
    f, y = J.scores, G.scores
    for k in range(2):
        fk, yk = f[k], y[k, lab]
        lam = np.cov(yk, fk[lab], ddof=1)[0, 1] / fk.var(ddof=1)
        r = yk - lam * fk[lab]
        theta = lam * fk.mean() + r.mean()
        N, n = fk.size, lab.sum()
        w = lam * (fk - fk.mean()) / N
        w[lab] += (r - r.mean()) / n * math.sqrt(n / (n - 1))
        se = math.sqrt(np.sum(w ** 2))
        t = __import__("scipy").stats.t.ppf(0.975, n - 1)
        assert iv.lam[k] == pytest.approx(lam, rel=1e-12)
        assert iv.score[k] == pytest.approx(theta, rel=1e-12)
        assert iv.se[k] == pytest.approx(se, rel=1e-9)
        assert iv.ci_low[k] == pytest.approx(theta - t * se, rel=1e-9)


def test_classic_ppi_with_lambda_one_is_the_rectified_mean():
    """lambda = 1 (Angelopoulos et al., Science 2023): mean of the judge over all items plus the mean rectifier."""
    J, G, _, lab = board([0.6], binary=False, n=80, seed=3)
    fit = gold_fit(J, G, method="ppi++", lam=1.0)
    f, y = J.scores[0], G.scores[0]
    assert fit.score[0] == pytest.approx(f.mean() + np.mean(y[lab] - f[lab]), rel=1e-12)


def test_lambda_zero_is_scipys_t_interval_of_the_labels():
    from scipy import stats

    J, G, _, lab = board([0.55, 0.4], binary=False, n=60, seed=4)
    for k in range(2):
        est = model_intervals(J.scores.T, np.nan_to_num(G.scores.T), lab, "ppi++", 0.95, lam=0.0)
        ci = stats.ttest_1samp(G.scores[k, lab], 0.0).confidence_interval(0.95)
        assert est["estimate"][k] == pytest.approx(G.scores[k, lab].mean(), rel=1e-12)
        assert (est["ci_low"][k], est["ci_high"][k]) == pytest.approx((ci.low, ci.high), rel=1e-10)


def test_clustered_lambda_zero_is_statsmodels_cluster_robust_mean():
    """With lambda = 0 the clustered variance is that of the labels' mean, summed within groups:
    statsmodels' OLS on a constant with cov_type='cluster' (G / (G - 1), t on G - 1 df)."""
    sm = pytest.importorskip("statsmodels.api")
    groups = [f"g{i % 30}" for i in range(600)]
    J, G, _, lab = board([0.5], binary=False, n=200, seed=5, groups=groups)
    codes = np.asarray(J.group_codes)
    est = model_intervals(J.scores.T, np.nan_to_num(G.scores.T), lab, "ppi++", 0.95, lam=0.0, group_codes=codes)
    y = G.scores[0, lab]
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": codes[lab]})
    G_lab = np.unique(codes[lab]).size
    # statsmodels' small-sample factor is G/(G-1) (N-1)/(N-K) = G/(G-1) with K = 1; ours sums over every group
    assert est["se"][0] == pytest.approx(float(fit.bse[0]) * math.sqrt((G_lab - 1) / G_lab * 30 / 29), rel=1e-9)


def test_stratified_and_the_pair_difference_come_from_one_covariance():
    J, G, _, lab = board([0.7, 0.5, 0.45], n=200)
    iv = rt.intervals(J, gold=G)
    assert iv.method == "stratified"
    pc = rt.compare(J, "m0", "m1", gold=G)
    fit = gold_fit(J, G)
    V = fit.covariance
    assert pc.diff == pytest.approx(iv.score[0] - iv.score[1], rel=1e-12)
    assert pc.se == pytest.approx(math.sqrt(V[0, 0] + V[1, 1] - 2 * V[0, 1]), rel=1e-12)
    assert pc.method == "stratified" and pc.n_labelled == 200
    # beside it, the score path's answers on the judge alone and on the labels alone
    assert pc.judge_only.method == "mcnemar" and pc.judge_only.n_items == 600
    assert pc.gold_only.n_items == 200
    assert pc.gold_only.diff == pytest.approx(G.scores[0, lab].mean() - G.scores[1, lab].mean())
    d = pc.to_dict()
    assert d["n_labelled"] == 200 and d["judge_only"]["method"] == "mcnemar" and d["gold_only"]["n_items"] == 200
    pt = rt.all_pairs(J, gold=G)
    row = np.flatnonzero((pt.i == 0) & (pt.j == 1))[0]
    assert pt.diff[row] == pytest.approx(pc.diff) and pt.p_value[row] == pytest.approx(pc.p_value)
    assert pt.method == "stratified" and pt.to_dict()["n_labelled"] == 200
    # printed, it says so: the estimator and the labels, and the two answers beside it with their intervals
    text, md = str(pc), pc.to_markdown()
    for shown in (text, md):
        assert "gold-corrected (stratified, 200 labels)" in shown
        assert "judge only: difference [CI]" in shown and "gold labels only: difference [CI]" in shown


def test_one_sided_p_values_of_the_gold_corrected_difference():
    J, G, _, _ = board([0.7, 0.55], n=200, seed=9)
    two = rt.compare(J, "m0", "m1", gold=G)
    up = rt.compare(J, "m0", "m1", gold=G, alternative="greater")
    down = rt.compare(J, "m0", "m1", gold=G, alternative="less")
    assert two.diff > 0 and up.p_value == pytest.approx(two.p_value / 2, rel=1e-9)
    assert down.p_value == pytest.approx(1 - up.p_value, rel=1e-9)
    assert (up.ci_low, up.ci_high) == (two.ci_low, two.ci_high)      # the interval stays two-sided


def test_rogan_gladen_is_the_sensitivity_specificity_correction():
    J, G, _, lab = board([0.7, 0.4], n=300, seed=2)
    iv = rt.intervals(J, gold=G, method="rogan-gladen")
    f, y = J.scores, G.scores
    for k in range(2):
        fl, yl = f[k, lab], y[k, lab]
        se, sp = fl[yl == 1].mean(), 1 - fl[yl == 0].mean()
        assert iv.score[k] == pytest.approx((f[k].mean() + sp - 1) / (se + sp - 1), rel=1e-12)
    assert iv.to_dict()["method"] == "rogan-gladen"


# ------------------------------------------------------------------------------------- coverage
def _clustered_board(seed: int, *, G_n=40, per=25, n=250, p0=0.65, sd=0.9):
    g = np.random.default_rng(seed)
    N = G_n * per
    u = np.repeat(g.normal(0, sd, G_n), per)
    p_item = 1 / (1 + np.exp(-(math.log(p0 / (1 - p0)) + u)))
    truth = (g.random(N) < p_item).astype(float)[None, :]
    judge = np.where(g.random(truth.shape) < 0.85, truth, 1 - truth)
    lab = np.zeros(N, bool)
    lab[g.choice(N, n, replace=False)] = True
    groups = [f"g{i // per}" for i in range(N)]
    J = rt.ScoreMatrix.from_array(judge, models=["m"], groups=groups)
    Gm = rt.ScoreMatrix.from_array(np.where(lab, truth, np.nan), models=["m"], groups=groups)
    return J, Gm


def _population_mean(p0=0.65, sd=0.9) -> float:
    z = np.random.default_rng(123).normal(0, sd, 2_000_000)
    return float(np.mean(1 / (1 + np.exp(-(math.log(p0 / (1 - p0)) + z)))))


@pytest.mark.slow
def test_clustered_coverage_on_a_clustered_board():
    """Items in 40 groups with a group effect: the clustered gold-corrected interval covers the population mean
    at the nominal level (within 2 MC SE); the interval that ignores the groups covers less."""
    truth = _population_mean()
    R = 300
    hit_c = hit_u = 0
    for s in range(R):
        J, Gm = _clustered_board(s)
        c = gold_fit(J, Gm, cluster=True)
        u = gold_fit(J, Gm, cluster=False)
        hit_c += c.ci_low[0] <= truth <= c.ci_high[0]
        hit_u += u.ci_low[0] <= truth <= u.ci_high[0]
    se = math.sqrt(0.95 * 0.05 / R)
    assert hit_c / R >= 0.95 - 2 * se, (hit_c / R, hit_u / R)
    assert hit_u / R < hit_c / R - 0.05, (hit_c / R, hit_u / R)


def test_seeded_coverage_of_the_gold_corrected_pair_difference():
    """200 boards, two models 5 points apart, 150 labels of 800 items, a judge right 80% of the time: the
    compare(gold=) interval covers the true difference at 95% within 2 MC SE; the judge-only one does not."""
    R, hit, hit_j = 200, 0, 0
    for s in range(R):
        J, G, truth, _ = board([0.62, 0.57], acc=0.8, N=800, n=150, seed=100 + s)
        # the estimand: the difference of the gold labels' means over the items (a finite population here)
        d = 0.62 - 0.57
        pc = rt.compare(J, "m0", "m1", gold=G)
        hit += pc.ci_low <= d <= pc.ci_high
        hit_j += pc.judge_only.ci_low <= d <= pc.judge_only.ci_high
    se = math.sqrt(0.95 * 0.05 / R)
    assert hit / R >= 0.95 - 2 * se
    assert hit_j / R < hit / R


def test_tied_models_are_separated_at_most_at_the_level():
    """200 boards of four models, two of them tied (0.60 and 0.60, beside 0.75 and 0.40), 1,000 items, 200
    labels: the gold-corrected pair table (Holm over all pairs) separates the tied pair in at most 5% of boards
    within 2 MC SE."""
    R, false = 200, 0
    for s in range(R):
        J, G, _, _ = board([0.75, 0.6, 0.6, 0.4], N=1000, n=200, seed=500 + s)
        pt = rt.all_pairs(J, gold=G, interval="none")
        row = np.flatnonzero(((pt.i == 1) & (pt.j == 2)) | ((pt.i == 2) & (pt.j == 1)))[0]
        false += pt.p_adjusted[row] < 0.05
    assert false / R <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / R)


# ------------------------------------------------------------------------------------- properties
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(12, 60), st.booleans())
def test_every_item_labelled_gives_the_gold_mean(seed, N, binary):
    g = np.random.default_rng(seed)
    y = (g.random((N, 3)) < 0.5).astype(float) if binary else g.random((N, 3))
    f = np.where(g.random((N, 3)) < 0.8, y, 1 - y) if binary else np.clip(y + 0.2 * g.standard_normal((N, 3)), 0, 1)
    allL = np.ones(N, bool)
    assert np.allclose(ppi_plus(f, y, allL)["estimate"], y.mean(axis=0), atol=1e-12)
    if binary:
        assert np.allclose(stratified(f, y, allL)["estimate"], y.mean(axis=0), atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(12, 80))
def test_lambda_zero_is_gold_only(seed, n):
    J, G, _, lab = board([0.6, 0.5], binary=False, N=200, n=n, seed=seed)
    fit = gold_fit(J, G, method="ppi++", lam=0.0)
    assert np.allclose(fit.score, G.scores[:, lab].mean(axis=1), atol=1e-12)
    iv = rt.intervals(J, gold=G, method="ppi++")
    # the gold-only answer beside it is the same mean
    assert np.allclose(iv.gold_only.score, G.scores[:, lab].mean(axis=1), atol=1e-12)


# ------------------------------------------------------------------------------------- the report
def test_report_verdicts_come_from_the_gold_corrected_estimates():
    J, G, _, _ = board([0.75, 0.6, 0.45], N=1000, n=250)
    rep = rt.report(J, gold=G)
    iv = rt.intervals(J, gold=G)
    assert np.allclose(rep.intervals.score, iv.score)
    assert rep.pairs_all.method == "stratified" and rep.settings["gold_method"] == "stratified"
    assert rep.settings["n_labelled"] == 250
    # nothing silently on the judge's raw scores: those sections are left out and named
    assert rep.stability is None and rep.power is None and rep.quality is None
    gs = rep.section("gold")
    assert gs.method == "stratified" and gs.n_labelled == 250
    assert {s for s, _ in gs.omitted} >= {"stability", "power"}
    d = rep.to_dict()
    assert d["gold"]["n_labelled"] == 250 and d["models"][0]["model"] == d["gold"]["models"][0]["model"]
    assert d["headline"]["top"] == d["gold"]["models"][0]["model"]
    jsonschema = pytest.importorskip("jsonschema")
    from ranktrust.reporting.renderers import to_string

    jsonschema.validate(json.loads(to_string(rep, "json", kind="report")), rt.json_schema("report"))
    md = to_string(rep, "md")
    assert "250 gold labels on 1,000 judged items" in md and "post-stratified" in md


def test_report_with_gold_refuses_score_path_settings():
    J, G, _, _ = board([0.7, 0.5])
    with pytest.raises(ArgumentError, match="`rank_method`='pairs'"):
        rt.report(J, gold=G, rank_method="bootstrap")
    with pytest.raises(ArgumentError, match="`ci_method`='wilson' is a score-path interval"):
        rt.report(J, gold=G, ci_method="wilson")
    rep = rt.report(J, gold=G, gold_method="rogan-gladen")
    assert rep.intervals.method == "rogan-gladen"


# ------------------------------------------------------------------------------------- refusals
def test_refusals_name_what_is_wrong():
    J, G, truth, lab = board([0.7, 0.5])
    other = rt.ScoreMatrix.from_array(G.scores, models=["m0", "zz"])
    with pytest.raises(DataError, match="`gold` has model 'zz', which the judge's scores do not have"):
        rt.intervals(J, gold=other)
    extra = rt.ScoreMatrix.from_array(np.c_[G.scores, [1.0, 1.0]], models=["m0", "m1"],
                                      items=[*J.items, "q-extra"])
    with pytest.raises(DataError, match="`gold` has item 'q-extra'"):
        rt.compare(J, "m0", "m1", gold=extra)
    empty = rt.ScoreMatrix.from_array(np.full(G.scores.shape, np.nan), models=["m0", "m1"])
    with pytest.raises(DataError, match="`gold` holds no label"):
        rt.intervals(J, gold=empty)
    with pytest.raises(ArgumentError, match="with `gold`, `method` must be one of"):
        rt.intervals(J, gold=G, method="wilson")
    with pytest.raises(ArgumentError, match="with `gold`, `method` must be one of"):
        rt.compare(J, "m0", "m1", gold=G, method="t")
    with pytest.raises(TypeError, match="`gold` must be a ScoreMatrix"):
        rt.intervals(J, gold=G.scores)
    with pytest.raises(DataError, match="needs item groups|item groups"):
        rt.intervals(J, gold=G, cluster=True)


# ------------------------------------------------------------------------------------- command line
def _run(args, capsys):
    return run_cli(capsys, *args)


@pytest.fixture
def judged_csv(tmp_path):
    import pandas as pd

    J, G, truth, lab = board([0.75, 0.6, 0.45], N=400, n=120, seed=7)
    rows = []
    for k, m in enumerate(J.models):
        for i, item in enumerate(J.items):
            rows.append({"model": m, "item": item, "score": int(J.scores[k, i]),
                         "human": int(truth[k, i]) if lab[i] else None, "subject": f"s{i % 25}"})
    path = tmp_path / "judged.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path, J, G


def test_cli_round_trip_with_gold_col(judged_csv, capsys):
    path, J, G = judged_csv
    code, out, err = _run(["report", str(path), "--gold-col", "human", "--format", "json"], capsys)
    assert code == 0, err
    d = json.loads(out)
    iv = rt.intervals(J, gold=G)
    by = {r["model"]: r for r in d["models"]}
    for k, m in enumerate(J.models):
        assert by[m]["score"] == pytest.approx(iv.score[k], rel=1e-12)
    assert d["gold"]["method"] == "stratified" and d["gold"]["n_labelled"] == 120
    assert d["settings"]["gold_method"] == "stratified"
    code, out, err = _run(["compare", str(path), "--a", "m0", "--b", "m1", "--gold-col", "human", "-f", "json"],
                          capsys)
    assert code == 0, err
    d = json.loads(out)
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(d, rt.json_schema("compare"))
    pc = rt.compare(J, "m0", "m1", gold=G)
    assert d["diff"] == pytest.approx(pc.diff) and d["n_labelled"] == 120 and d["method"] == "stratified"
    assert d["judge_only"]["method"] == "mcnemar" and d["gold_only"]["n_items"] == 120
    code, out, err = _run(["ranks", str(path), "--gold-col", "human", "--gold-method", "ppi++", "-f", "json"],
                          capsys)
    assert code == 0, err
    d = json.loads(out)
    jsonschema.validate(d, rt.json_schema("ranks"))
    assert d["gold"]["method"] == "ppi++" and len(d["gold"]["judge_only"]) == 3
    code, out, err = _run(["report", str(path), "--gold-col", "human", "--cluster-by", "subject", "-f", "md"], capsys)
    assert code == 0, err
    assert "120 gold labels on 400 judged items" in out and "clustered by item group" in out


def test_cli_refusals(judged_csv, capsys):
    path, _, _ = judged_csv
    code, out, err = _run(["report", str(path), "--gold-col", "nope"], capsys)
    assert code == 1 and "no gold-label column 'nope'" in err
    code, out, err = _run(["compare", str(path), "--a", "m0", "--b", "m1", "--gold-col", "human", "--method", "t"],
                          capsys)
    assert code == 1 and "with --gold-col the estimator is --gold-method" in err
    code, out, err = _run(["report", str(path), "--gold-col", "human", "--ci-method", "wilson"], capsys)
    assert code == 1 and "--ci-method wilson" in err


@pytest.mark.slow
def test_the_gold_docs_example_runs_and_gives_its_table():
    """docs/judges.md's gold= block runs as written and gives the figures its table prints."""
    text, ns = run_docs_block("judges.md", "gold=G")
    iv, m = ns["iv"], ns["m"]
    assert m.n_items == 10_326 and iv.method == "stratified" and iv.n_labelled == 400
    k = list(m.models).index("Llama-2-7b-hf")
    assert f"{100 * iv.score[k]:.2f} [{100 * iv.ci_low[k]:.2f}, {100 * iv.ci_high[k]:.2f}]" in text
    assert f"{100 * iv.judge_only.score[k]:.2f}" in text and f"{100 * iv.gold_only.score[k]:.2f}" in text
    truth = ns["truth"].mean(axis=1)
    assert np.all((truth < iv.judge_only.ci_low) | (truth > iv.judge_only.ci_high))   # the judge alone misses
    assert np.mean((truth >= iv.ci_low) & (truth <= iv.ci_high)) == pytest.approx(5 / 6)
    assert ns["rep"].verdict.startswith("Yes: DeepSeek-Coder-V2 is #1")


def run_docs_block(name: str, marker: str) -> tuple[str, dict]:
    """The text of ``docs/NAME`` and the namespace of its one ```python block holding ``marker``, run as written."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / name).read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.DOTALL) if marker in b]
    assert len(blocks) == 1
    ns: dict = {}
    exec(compile(blocks[0], f"docs/{name}", "exec"), ns)   # noqa: S102 - our own documentation
    return text, ns


def test_a_bad_label_names_its_file_and_line(tmp_path, capsys):
    """A label that is not a number is named by the file and line it is on, as a bad score is, not by its
    position among the labelled rows ("DataFrame: row 1"); the message names the gold column."""
    import pandas as pd

    from ranktrust.data._gold import read_with_gold

    path = tmp_path / "judged.csv"
    path.write_text("model,item,score,human\na,q1,1,1\na,q2,0,\nb,q1,1,x\nb,q2,1,\n")
    code, _, err = run_cli(capsys, "report", path, "--gold-col", "human")
    assert code == 1 and f"{path}: line 4: score 'x' is not a number; column 'human'" in err, err
    df = pd.read_csv(path)
    with pytest.raises(DataError, match=r"^judged\.csv: line 4: score 'x'"):
        read_with_gold(df, "human", source_name="judged.csv", line_numbers=2)
    with pytest.raises(DataError, match=r"^t\.csv: line 9: score 'x'"):
        read_with_gold(df.set_index(pd.Index([3, 5, 9, 11])), "human", source_name="t.csv", line_numbers="index")
    with pytest.raises(ArgumentError, match="`options` or as keywords"):
        read_with_gold(df, "human", model="m", options=rt.data.readers.ReadOptions())
