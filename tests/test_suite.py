"""rt.suite and ``ranktrust suite`` (issue 34): rules against hand computation, the step-down and the conformal
sets against naive reference implementations, the bundled MMLU-Pro by subject, properties, a small coverage
simulation (slow), every output format and one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranktrust as rt
from ranktrust import _random
from conftest import run_cli
from ranktrust.errors import ArgumentError, DataError
from ranktrust.ranking._suite import _aggregate, _conformal, _in_set, _stepdown, _task_ranks


def _suite_from_means(means: np.ndarray, n: int = 200, rng: int = 0) -> dict[str, rt.ScoreMatrix]:
    """{task: 0/1 ScoreMatrix} whose task scores are exactly ``means`` (K, M) (multiples of 1/n)."""
    g = np.random.default_rng(rng)
    out = {}
    k_, m_ = means.shape
    for t in range(k_):
        s = np.zeros((m_, n))
        for j in range(m_):
            s[j, g.permutation(n)[: int(round(means[t, j] * n))]] = 1.0
        out[f"t{t}"] = rt.ScoreMatrix.from_array(s, models=[f"m{j}" for j in range(m_)])
    return out


# ----------------------------------------------------------------------------------------- rules by hand
MEANS = np.array([[0.9, 0.5, 0.5],     # task 0: m0 best, m1 = m2 tie
                  [0.4, 0.8, 0.6],     # task 1: m1 > m2 > m0
                  [0.7, 0.6, 0.8]])    # task 2: m2 > m0 > m1


def test_rules_match_hand_computation():
    pres = np.ones(MEANS.shape, dtype=bool)
    w = np.full(3, 1 / 3)
    assert np.allclose(_aggregate(MEANS, pres, w, "mean"), [2.0 / 3, 1.9 / 3, 1.9 / 3])
    # beaten (ties half): t0 [2, .5, .5], t1 [0, 2, 1], t2 [1, 0, 2]
    assert np.allclose(_aggregate(MEANS, pres, w, "mean-win-rate"), np.array([3, 2.5, 3.5]) / 2 / 3)
    # mid-ranks: t0 [1, 2.5, 2.5], t1 [3, 1, 2], t2 [2, 3, 1] -> goodness = -mean rank
    assert np.allclose(-_aggregate(MEANS, pres, w, "mean-rank"), [2.0, 6.5 / 3, 5.5 / 3])
    assert np.allclose(_aggregate(MEANS, pres, w, "borda"), [3, 2.5, 3.5])
    # head to head (tasks won): m0-m1 2:1, m0-m2 1:2, m1-m2 1:1 (t0 tie) -> m0 +1-1, m1 -1+0, m2 +1+0
    assert np.allclose(_aggregate(MEANS, pres, w, "copeland"), [0, -1, 1])


def test_rt_suite_scores_follow_the_rule_and_weights():
    tasks = _suite_from_means(MEANS)
    r = rt.suite(tasks, n_resamples=50)
    assert np.allclose(r.score, MEANS.mean(axis=0))
    r = rt.suite(tasks, rule="mean", weights={"t0": 2.0, "t1": 1.0, "t2": 1.0}, n_resamples=50)
    assert np.allclose(r.score, (2 * MEANS[0] + MEANS[1] + MEANS[2]) / 4)
    r = rt.suite(tasks, rule="mean-rank", n_resamples=50)
    assert np.allclose(r.score, [2.0, 6.5 / 3, 5.5 / 3]) and not r.higher_is_better
    assert r.models[r.order[0]] == "m2"        # lowest mean rank first
    r = rt.suite(tasks, normalise="random-baseline", chance=0.5, n_resamples=50)
    assert np.allclose(r.score, np.maximum(0, (MEANS - 0.5) / 0.5).mean(axis=0))


def test_per_task_contributions_sum_to_the_adjacent_difference():
    r = rt.suite(_suite_from_means(MEANS), n_resamples=50)
    d = r.to_dict()
    for c, (a, b) in zip(d["contributions"], zip(d["models"], d["models"][1:])):
        assert (c["a"], c["b"]) == (a["model"], b["model"])
        assert sum(c["by_task"]) == pytest.approx(a["score"] - b["score"])


# ----------------------------------------------------------------------------------------- reference values
def _stepdown_naive(g, gb, level):
    """Romano-Wolf step-down, one pair at a time (the textbook loop): adjusted p-values."""
    m = len(g)
    pairs = [(j, k) for j in range(m) for k in range(j + 1, m)]
    z = gb - g
    cov = np.cov(z, rowvar=False, bias=True)
    sig = np.array([np.sqrt(cov[j, j] + cov[k, k] - 2 * cov[j, k]) for j, k in pairs])
    t = np.array([abs(g[j] - g[k]) for j, k in pairs]) / sig
    tb = np.array([np.abs(z[:, j] - z[:, k]) for j, k in pairs]).T / sig
    order = np.argsort(-t, kind="stable")
    padj = np.empty(len(pairs))
    prev = 0.0
    for r, i in enumerate(order):
        rest = order[r:]
        p = np.mean(tb[:, rest].max(axis=1) >= t[i] * (1 - 1e-6))
        prev = max(prev, p)
        padj[i] = prev
    return padj, np.quantile(tb.max(axis=1), level)


@pytest.mark.parametrize("chunk", [4096, 3])
def test_the_step_down_matches_the_textbook_loop(chunk, monkeypatch):
    """Also in chunks of 3 pairs, where whole chunks are settled from the later chunks' maxima."""
    from ranktrust.ranking import _suite

    monkeypatch.setattr(_suite, "_PAIR_CHUNK", chunk)
    g = np.random.default_rng(3)
    theta = np.array([0.0, 0.05, 0.1, 0.1, 0.3, 0.31, 0.6, 0.62])
    gb = theta + g.normal(0, 0.04, (400, 8)) + g.normal(0, 0.02, (400, 1))
    ia, ib, d, lo, hi, p, padj, crit = _stepdown(theta, gb, 0.95)
    ref, ref_crit = _stepdown_naive(theta, gb, 0.95)
    assert np.allclose(padj, ref, atol=1e-12)
    assert crit == pytest.approx(ref_crit, rel=1e-5)
    assert np.allclose(hi - d, d - lo)


def _conformal_naive(ranks, n_ranks, level, u):
    k = len(ranks)
    keep = []
    for y in range(1, n_ranks + 1):
        c = (sum(ranks) + y) / (k + 1)
        s_new = abs(y - c)
        gt = sum(abs(r - c) > s_new + 1e-9 for r in ranks)
        eq = sum(abs(abs(r - c) - s_new) <= 1e-9 for r in ranks)
        if (gt + u * (1 + eq)) / (k + 1) > 1 - level + 1e-12:
            keep.append(y)
    return min(keep), max(keep)


def test_the_conformal_sets_match_the_definition():
    g = np.random.default_rng(1)
    x = np.round(g.random((7, 9)), 1)                 # ties on a task share the best rank
    r = _task_ranks(x, np.ones(x.shape, dtype=bool))
    assert r.min() == 1 and np.all(r == 1 + (x[:, None, :] > x[:, :, None]).sum(axis=2))
    u = g.random(9)
    for level in (0.8, 7 / 8):
        lo, hi = _conformal(r, 9, level, u)
        for j in range(9):
            assert (lo[j], hi[j]) == _conformal_naive(list(r[:, j]), 9, level, u[j])


def test_the_conformal_set_covers_at_its_level_exactly():
    """Exchangeable ranks (i.i.d. tasks): the smoothed set holds a new task's rank with probability equal to
    K / (K + 1), ties and all (seeded simulation, 4,000 draws; 3 SE)."""
    g = np.random.default_rng(5)
    k, m, reps = 5, 6, 4000
    x = np.round(g.random((reps, k + 1, m)) + np.linspace(0.4, 0, m), 1)   # ties common
    hits = 0
    for i in range(reps):                      # the test's own loop over simulated boards, not the code's
        r = _task_ranks(x[i], np.ones((k + 1, m), dtype=bool))
        hits += int(_in_set(r[:k], r[k], k / (k + 1), g.random(m))[0])
    se = (k / (k + 1) * (1 / (k + 1)) / reps) ** 0.5
    assert abs(hits / reps - k / (k + 1)) < 3 * se


def test_scope_a_intervals_are_the_engine_resamples():
    """The per-model interval of the mean is the percentile interval of the engine's resamples, task by task
    (one named stream per task), recomputed here from ``rt.resample.resample_means``."""
    tasks = _suite_from_means(MEANS, n=120)
    r = rt.suite(tasks, n_resamples=300, rng=7)
    root = _random.root(7)
    boot = sum(rt.resample.resample_means(tasks[f"t{i}"].scores, n_resamples=300, rng=_random.child(root, "suite", i))
               for i in range(3)) / 3
    assert np.allclose(r.ci_low, np.quantile(boot, 0.025, axis=0))
    assert np.allclose(r.ci_high, np.quantile(boot, 0.975, axis=0))


# ----------------------------------------------------------------------------------------- shared data
@pytest.fixture(scope="module")
def mmlupro():
    from ranktrust import datasets

    m = rt.read(datasets.path(), align="pairwise")
    return m


def test_mmlupro_by_subject_mean_is_the_mean_of_subject_scores(mmlupro):
    r = rt.suite(mmlupro, by="group", align="pairwise", n_resamples=50)
    assert len(r.tasks) == 14
    groups = np.asarray(mmlupro.groups, dtype=object)
    for j, name in enumerate(r.models):
        row = mmlupro.scores[mmlupro.index_of(name)]
        subj = [np.nanmean(row[groups == t]) for t in r.tasks]
        assert r.score[j] == pytest.approx(np.mean(subj), abs=1e-12)
    nt = r.to_dict()["new_task"]
    assert nt["attainable"] == pytest.approx(14 / 15) and nt["level"] == pytest.approx(0.9333333333333333)
    assert 0.8 <= nt["coverage"] <= 1.0 and nt["coverage_level"] == pytest.approx(13 / 14)


# ----------------------------------------------------------------------------------------- properties
@settings(max_examples=8, deadline=None)
@given(st.permutations(list(range(5))), st.integers(0, 2**16))
def test_invariant_to_model_order(perm, seed):
    g = np.random.default_rng(seed)
    means = g.uniform(0.2, 0.8, (4, 5))
    tasks = _suite_from_means(means, n=60, rng=seed)
    a = rt.suite(tasks, n_resamples=40, rng=1)
    shuffled = {t: m.select(models=[m.models[i] for i in perm]) for t, m in tasks.items()}
    b = rt.suite(shuffled, n_resamples=40, rng=1)
    ia = {x: i for i, x in enumerate(a.models)}
    for j, x in enumerate(b.models):
        k = ia[x]
        assert b.score[j] == pytest.approx(a.score[k])
        assert (b.rank_low[j], b.rank_high[j]) == (a.rank_low[k], a.rank_high[k])
        assert b.ci_low[j] == pytest.approx(a.ci_low[k])
        assert (b.new_task_low[j], b.new_task_high[j]) == (a.new_task_low[k], a.new_task_high[k])


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**16), st.sampled_from(["mean", "mean-win-rate", "borda"]))
def test_rank_sets_hold_the_display_rank_and_pairs_agree(seed, rule):
    g = np.random.default_rng(seed)
    tasks = _suite_from_means(g.uniform(0.2, 0.8, (3, 6)), n=50, rng=seed)
    r = rt.suite(tasks, rule=rule, n_resamples=40, rng=seed)
    d = r.to_dict()
    for row in d["models"]:
        assert row["rank_low"] <= row["rank"] <= row["rank_high"]
    sep = {(p["a"], p["b"]) for p in d["pairs"] if p["separated"]}
    if rule == "mean":      # the step-down: separated exactly when the adjusted p is below 1 - level
        assert sep == {(p["a"], p["b"]) for p in d["pairs"] if p["p_adjusted"] < 0.05}
        assert all(p["p_adjusted"] >= p["p_value"] - 1e-12 for p in d["pairs"])
    else:                   # the bounds: separated exactly when the pair's bound interval excludes 0
        assert sep == {(p["a"], p["b"]) for p in d["pairs"] if p["ci_low"] > 0 or p["ci_high"] < 0}
        assert all(p["p_value"] is None and p["p_adjusted"] is None for p in d["pairs"])
        assert all(row["ci_low"] - 1e-12 <= row["score"] <= row["ci_high"] + 1e-12 for row in d["models"])
    top1 = [row["model"] for row in d["models"] if row["rank_low"] == 1]
    assert top1 == d["headline"]["could_be_first"]


def test_rank_rules_claim_nothing_when_every_model_ties():
    """All models equal on every task (the case where a bootstrap of ranks claims orderings on 15% of boards):
    the bounds claim none on 20 seeded boards (a false claim on more than 3 would be far above 5%)."""
    g = np.random.default_rng(8)
    false = 0
    for _ in range(20):
        tasks = {f"t{t}": rt.ScoreMatrix.from_array((g.random((6, 120)) < 0.5).astype(float),
                                                     models=[f"m{j}" for j in range(6)]) for t in range(4)}
        for rule in ("mean-win-rate", "copeland"):
            false += bool(rt.suite(tasks, rule=rule, n_resamples=100, rng=int(g.integers(1 << 30))).better.any())
    assert false <= 3


# ----------------------------------------------------------------------------------------- missing cells
def _with_missing():
    tasks = _suite_from_means(MEANS)
    tasks["t2"] = tasks["t2"].select(models=["m0", "m1"])
    return tasks


def test_missing_cells_are_refused_then_handled():
    with pytest.raises(DataError, match="model 'm2' has no results on task 't2'.*`missing`='drop-model'"):
        rt.suite(_with_missing(), n_resamples=30)
    r = rt.suite(_with_missing(), missing="drop-model", n_resamples=30)
    assert r.models == ("m0", "m1") and [n.code for n in r.notes] == ["suite_dropped_models"]
    r = rt.suite(_with_missing(), missing="drop-task", n_resamples=30)
    assert r.tasks == ("t0", "t1") and r.notes[0].code == "suite_dropped_tasks"
    r = rt.suite(_with_missing(), missing="pairwise", n_resamples=30)
    assert r.score[2] == pytest.approx(MEANS[:2, 2].mean()) and r.to_dict()["settings"]["missing"] == "pairwise"


def test_bad_arguments_are_argument_errors():
    tasks = _suite_from_means(MEANS)
    with pytest.raises(ArgumentError, match="`rule`"):
        rt.suite(tasks, rule="median")
    with pytest.raises(ArgumentError, match="`chance`"):
        rt.suite(tasks, normalise="random-baseline")
    with pytest.raises(DataError, match="no task 'x'"):
        rt.suite(tasks, tasks=["x"])
    with pytest.raises(DataError, match="`by`='group'"):
        rt.suite(tasks["t0"])


# ----------------------------------------------------------------------------------------- coverage (slow)
def _sim(g, m_, k_, n, top_tie=True):
    """A suite with correlated tasks and items: true task means, and 0/1 draws around them."""
    ability = np.sort(g.normal(0, 0.6, m_))[::-1]
    if top_tie:
        ability[1] = ability[0]
    task_eff = g.normal(0, 0.3, (k_, m_)) * 0.0   # scope (a): the truth is the mean over these tasks
    tasks, truth = {}, np.zeros((k_, m_))
    for t in range(k_):
        diff = g.normal(0, 1, n)
        p = 1 / (1 + np.exp(-(ability[None, :, None] + task_eff[t][None, :, None] - diff)))[0]
        truth[t] = p.mean(axis=1)
        u = g.random(n)[None, :] * 0.5 + g.random((m_, n)) * 0.5     # items correlated across models
        tasks[f"t{t}"] = rt.ScoreMatrix.from_array((u < p).astype(float), models=[f"m{j}" for j in range(m_)])
    return tasks, truth


@pytest.mark.slow
def test_scope_a_covers_true_ranks_on_a_tiny_grid():
    g = np.random.default_rng(11)
    reps, miss, false_claim = 40, 0, 0
    for _ in range(reps):
        tasks, truth = _sim(g, 6, 4, 150)
        r = rt.suite(tasks, n_resamples=200, rng=int(g.integers(1 << 30)))
        mu = truth.mean(axis=0)
        true_rank = 1 + (mu[None, :] > mu[:, None] + 1e-12).sum(axis=1)     # the tied top: both rank 1
        miss += bool(np.any((r.rank_low > true_rank) | (r.rank_high < true_rank)))
        false_claim += bool(np.any(r.better & ~(mu[:, None] > mu[None, :] + 1e-12)))
    # 95% joint level; 40 boards: a board fails at most 6 times (about 2 Monte Carlo SE above 5%)
    assert miss <= 6 and false_claim <= 6, (miss, false_claim)


# ----------------------------------------------------------------------------------------- command line
@pytest.fixture(scope="module")
def long_csv(tmp_path_factory):
    tasks = _suite_from_means(MEANS, n=100)
    rows = []
    for t, m in tasks.items():
        df = m.to_long()
        df["task"] = t
        rows.append(df)
    p = tmp_path_factory.mktemp("suite") / "suite.csv"
    pd.concat(rows).to_csv(p, index=False)
    return str(p)


@pytest.mark.parametrize("fmt", ["text", "md", "json", "html", "csv"])
def test_cli_formats(long_csv, fmt, tmp_path, capsys):
    out = tmp_path / f"o.{'txt' if fmt == 'text' else fmt}"
    code, _, err = run_cli(capsys, "suite", long_csv, "--n-resamples", "50", "-f", fmt, "-o", str(out))
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    if fmt == "json":
        d = json.loads(text)
        assert d["meta"]["kind"] == "suite" and d["meta"]["seed"] == 0
        assert set(d["models"][0]) >= {"model", "score", "ci_low", "ci_high", "rank_low", "rank_high", "tier"}
        assert set(d["pairs"][0]) == {"a", "b", "diff", "ci_low", "ci_high", "p_value", "p_adjusted", "separated"}
        assert d["headline"]["text"] and d["settings"]["missing"] == "error" and len(d["rules"]) == 5
        import jsonschema

        jsonschema.validate(d, rt.json_schema("suite"))
    elif fmt == "csv":
        assert text.splitlines()[0].startswith("rule,missing,rank,model,score")
    else:
        assert "Scope (a)" in text and "Scope (b)" in text and "Missing cells" in text
    if fmt == "html":
        assert 'class="heat"' in text and "tier 1" in text


def test_cli_missing_cell_is_one_line(long_csv, tmp_path, capsys):
    df = pd.read_csv(long_csv)
    df = df[~((df["task"] == "t1") & (df["model"] == "m2"))]
    p = tmp_path / "holes.csv"
    df.to_csv(p, index=False)
    code, out, err = run_cli(capsys, "suite", str(p), "--n-resamples", "30")
    assert code == 1 and out == ""
    line = err.strip()
    assert "\n" not in line and line.startswith("error: model 'm2' has no results on task 't1'")
    assert "--missing drop-model" in line
    code, out, err = run_cli(capsys, "suite", str(p), "--n-resamples", "30", "--missing", "drop-task", "-f", "md")
    assert code == 0 and "drop-task" in out and "left out" in out


def test_clustered_and_pairwise_tasks_use_the_engine_weights():
    """cluster=True redraws item groups where a task has them (items elsewhere, with a note); align='pairwise'
    averages each model over its own items in every resample: both against rt.resample.weights by hand."""
    g = np.random.default_rng(2)
    s0 = (g.random((3, 60)) < [[0.7], [0.5], [0.4]]).astype(float)
    grouped = rt.ScoreMatrix.from_array(s0, models=["a", "b", "c"])
    grouped = grouped._replace(groups=tuple(f"g{i // 6}" for i in range(60)))
    s1 = (g.random((3, 80)) < 0.5).astype(float)
    s1[1, :10] = np.nan                                     # b lacks 10 items of t1
    holes = rt.ScoreMatrix.from_array(s1, models=["a", "b", "c"])
    r = rt.suite({"t0": grouped, "t1": holes}, cluster=True, align="pairwise", n_resamples=200, rng=3)
    assert r.task_clustered.tolist() == [True, False] and r.n_clusters[0] == 10
    assert [n.code for n in r.notes] == ["suite_few_items", "suite_unclustered_tasks"]   # 10 groups < 30
    root = _random.root(3)
    w0 = rt.resample.weights(60, n_resamples=200, groups=grouped.group_codes, rng=_random.child(root, "suite", 0))
    w1 = rt.resample.weights(80, n_resamples=200, rng=_random.child(root, "suite", 1))
    b0 = w0 @ s0.T / w0.sum(axis=1, keepdims=True)
    ok = np.isfinite(s1)
    b1 = (w1 @ np.where(ok, s1, 0).T) / (w1 @ ok.T)
    boot = (b0 + b1) / 2
    assert np.allclose(r.ci_low, np.quantile(boot, 0.025, axis=0))
    assert r.score[1] == pytest.approx((s0[1].mean() + np.nanmean(s1[1])) / 2)
    with pytest.raises(DataError, match="task 't1': models are scored on different items"):
        rt.suite({"t0": grouped, "t1": holes}, n_resamples=30)


def test_cli_weights_and_normalisation(long_csv, capsys):
    code, out, err = run_cli(capsys, "suite", long_csv, "--n-resamples", "30", "--weight", "t0=2", "--normalise",
                             "random-baseline", "--chance", "0.25", "-f", "json")
    assert code == 0, err
    d = json.loads(out)
    assert [t["weight"] for t in d["tasks"]] == pytest.approx([0.5, 0.25, 0.25])
    assert d["settings"]["normalise"] == "random-baseline"
    assert [t["chance"] for t in d["tasks"]] == pytest.approx([0.25] * 3)
    x = np.maximum(0, (MEANS - 0.25) / 0.75)
    want = dict(zip(["m0", "m1", "m2"], 0.5 * x[0] + 0.25 * x[1] + 0.25 * x[2]))
    for row in d["models"]:
        assert row["score"] == pytest.approx(want[row["model"]])
    code, out, err = run_cli(capsys, "suite", long_csv, "--normalise", "random-baseline")
    assert code == 1 and err.startswith("error: ") and "--chance" in err and "\n" not in err.strip()


def test_a_gap_no_resample_moves_needs_enough_items():
    """A model right on every item another gets wrong: no resample moves the gap, so it is ordered only when the
    two differ on at least 5 items (an exact sign test's floor at 95%), over the suite (mean) or on a task (the
    rank rules' orderings)."""
    one = rt.ScoreMatrix.from_array(np.array([[1.0], [0.0]]), models=["a", "b"])
    three = rt.ScoreMatrix.from_array(np.array([[1.0, 1, 1], [0, 0, 0]]), models=["a", "b"])
    assert rt.suite({"t": one, "u": one}, n_resamples=30).could_be_first == ["a", "b"]      # 2 items
    assert rt.suite({"t": three, "u": three}, n_resamples=30).could_be_first == ["a"]      # 6 items
    assert rt.suite({"t": three, "u": three}, rule="mean-win-rate", n_resamples=30).could_be_first == ["a", "b"]
