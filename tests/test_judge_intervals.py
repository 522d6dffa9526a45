"""``rt.intervals(m, judges=...)``: a matrix whose runs are judges (or repeats), intervals that count the judges
(two-way clustering by item and judge where they are random, by item where fixed), and ``ranktrust report
--judge-col``. The two-way variance itself is checked against statsmodels in tests/test_judge_audit.py."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_cli

import ranktrust as rt
from ranktrust.errors import ArgumentError, DataError, SmallSampleWarning
from ranktrust.judges import judged_intervals


def _table(g, models=3, items=30, judges=4, groups=None):
    m, i, j = (x.ravel() for x in np.meshgrid(np.arange(models), np.arange(items), np.arange(judges), indexing="ij"))
    y = g.normal(0, 1, (models, items))[m, i] + g.normal(0, 1, judges)[j] + g.normal(0, 1, m.size)
    y = 1 / (1 + np.exp(-y))                    # a score in (0, 1), as a reader takes it
    t = {"model": np.array([f"m{k}" for k in m]), "item": np.array([f"q{k:03d}" for k in i]),
         "judge": np.array([f"j{k:02d}" for k in j]), "score": y}
    if groups:
        t["subject"] = np.array([f"s{k % groups}" for k in i])
    return t


def _matrix(t, **kw):
    """The long table read as a matrix whose runs are the judges (``rt.read(..., run="judge")``)."""
    return rt.read(pd.DataFrame(t), run="judge", **kw)


def _board_matrix(t):
    """A bench board (scores on the real line, which the reader refuses) as the same matrix, built directly."""
    models, mc = np.unique(t["model"], return_inverse=True)
    _, ic = np.unique(t["item"], return_inverse=True)
    _, jc = np.unique(t["judge"], return_inverse=True)
    data = np.full((models.size, ic.max() + 1, jc.max() + 1), np.nan)
    data[mc, ic, jc] = t["score"]
    return rt.ScoreMatrix(data, models=list(models), items=[str(k) for k in range(ic.max() + 1)],
                          runs=[f"j{k}" for k in range(jc.max() + 1)])


@pytest.mark.parametrize("judges, n_judges", [("fixed", 4), ("random", 12), ("auto", 4), ("auto", 12)])
def test_intervals_with_judges_equal_judged_intervals(judges, n_judges):
    t = _table(np.random.default_rng(n_judges), judges=n_judges)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # neither warns: random is asked only with 12 judges
        r = rt.intervals(_matrix(t), judges=judges)
        ref = judged_intervals(t, judges=judges)
    assert r.models == ref.models and r.method == ref.method
    for f in ("score", "se", "ci_low", "ci_high", "df", "n_items"):
        np.testing.assert_allclose(getattr(r, f), getattr(ref, f), rtol=1e-12, err_msg=f)
    assert r.method == ("twoway" if judges == "random" or (judges == "auto" and n_judges >= 10) else "cluster")
    assert [n.code for n in r.notes] == ([] if r.method == "twoway" else ["judges_fixed"])


def test_intervals_with_judges_cluster_by_item_group():
    t = _table(np.random.default_rng(5), items=40, judges=12, groups=8)
    r = rt.intervals(_matrix(t, group="subject"), judges="random", cluster=True)
    ref = judged_intervals(t, judges="random", cluster_by="subject")
    np.testing.assert_allclose(r.se, ref.se, rtol=1e-12)
    assert r.n_clusters == 8 and np.all(r.df == 7)
    # unclustered, the item is the cluster: a different (here narrower: groups share nothing) variance
    assert rt.intervals(_matrix(t, group="subject"), judges="random").n_clusters == 40


def test_fixed_judges_are_statsmodels_item_clustered_mean():
    import statsmodels.api as sm

    t = _table(np.random.default_rng(8), models=2, judges=3)
    r = rt.intervals(_matrix(t), judges="fixed")
    k = t["model"] == "m1"
    ref = sm.OLS(t["score"][k], np.ones((k.sum(), 1))).fit(cov_type="cluster", cov_kwds={"groups": t["item"][k]})
    assert r.se[1] == pytest.approx(ref.bse[0], rel=1e-10) and r.df[1] == 29


def test_random_counts_the_judges_fixed_and_plain_runs_do_not():
    """A shared judge shift moves every model's score: only the random-judges interval is wider for it."""
    t = _table(np.random.default_rng(3), judges=12)
    t["score"] = np.where(t["judge"] == "j00", 1.0, t["score"])   # one judge gives every answer full marks
    m = _matrix(t)
    rand, fixed, plain = rt.intervals(m, judges="random"), rt.intervals(m, judges="fixed"), rt.intervals(m)
    assert np.all(rand.se > 1.5 * fixed.se)
    np.testing.assert_allclose(fixed.score, plain.score, rtol=1e-12)   # the same means: over the judgments


def test_few_judges_warns_with_a_code_and_auto_says_fixed():
    t = _table(np.random.default_rng(1), judges=4)
    with pytest.warns(SmallSampleWarning) as rec:
        rt.intervals(_matrix(t), judges="random")
    w = [x.message for x in rec if getattr(x.message, "code", None) == "few_judges"]
    assert w and w[0].data == {"n_judges": 4, "min_judges": 10}
    r = rt.intervals(_matrix(t), judges="auto")
    assert r.notes[0].code == "judges_fixed" and r.notes[0].data["n_judges"] == 4
    from ranktrust.reporting._notes import note_text

    assert "taken as fixed" in note_text(r.notes[0])


def test_ambiguous_or_wrong_input_is_refused():
    g = np.random.default_rng(2)
    t = _table(g, judges=3)
    m = _matrix(t)
    with pytest.raises(DataError) as e:
        rt.intervals(m.select(runs=[0]), judges="auto")
    assert e.value.code == "no_judges"
    with pytest.raises(ArgumentError, match="`judges` must be"):
        rt.intervals(m, judges="mixed")
    with pytest.raises(ArgumentError, match="`method` must be 'auto'"):
        rt.intervals(m, judges="fixed", method="wilson")
    gold = rt.ScoreMatrix(np.full((3, 30), np.nan), models=m.models, items=m.items)
    with pytest.raises(ArgumentError, match="`judges` and `gold`"):
        rt.intervals(m, judges="fixed", gold=gold)
    with_conditions = rt.ScoreMatrix(m.data, models=m.models, items=m.items, runs=m.runs,
                                      conditions=("a", "b", "a"))
    with pytest.raises(DataError) as e:
        rt.intervals(with_conditions, judges="fixed")
    assert e.value.code == "judges_ambiguous"


@pytest.mark.filterwarnings("ignore::ranktrust.errors.SmallSampleWarning")
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.1, 10), st.floats(-5, 5), st.sampled_from(["fixed", "random"]))
def test_judges_order_shift_and_scale(seed, a, b, judges):
    """Relabelling the judges' order changes nothing; an affine map of the scores moves the intervals with it."""
    g = np.random.default_rng(seed)
    m = _matrix(_table(g, models=2, items=12, judges=5))
    r0 = rt.intervals(m, judges=judges)
    perm = g.permutation(m.n_runs)
    moved = rt.ScoreMatrix(a * m.data[:, :, perm] + b, models=m.models, items=m.items,
                           runs=[m.runs[k] for k in perm])
    r1 = rt.intervals(moved, judges=judges)
    np.testing.assert_allclose(r1.score, a * r0.score + b, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(r1.se, a * r0.se, rtol=1e-9)
    assert np.all(r0.ci_low <= r0.score) and np.all(r0.score <= r0.ci_high)


@pytest.mark.slow
def test_intervals_with_judges_cover_on_the_bench_boards():
    """bench/bench_judge_audit.py's interval boards (``--only intervals``), read as a matrix whose runs are the
    judges, 40 seeds each: 20 random judges and 3 fixed judges; the judge-ignorant intervals fail beside them."""
    from test_judge_audit import assert_boards_covered

    assert_boards_covered(lambda table: rt.intervals(_board_matrix(table), judges="auto"), seeds=40)


def test_report_judge_col_round_trip(tmp_path, capsys):
    t = _table(np.random.default_rng(4), judges=4)
    path = tmp_path / "judged.csv"
    pd.DataFrame(t).to_csv(path, index=False)
    code, out, err = run_cli(capsys, "report", path, "--judge-col", "judge", "--no-stability", "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    ref = rt.intervals(rt.read(str(path), run="judge"), judges="auto")
    rows = {r["model"]: r for r in d["models"]}
    for k, name in enumerate(ref.models):
        assert rows[name]["ci_low"] == pytest.approx(ref.ci_low[k], rel=1e-12)
        assert rows[name]["ci_high"] == pytest.approx(ref.ci_high[k], rel=1e-12)
    assert "judges_fixed" in [n["code"] for n in d["notes"]]
    plain = json.loads(run_cli(capsys, "report", path, "--run-col", "judge", "--no-stability", "--format", "json")[1])
    assert [r["ci_low"] for r in plain["models"]] != [r["ci_low"] for r in d["models"]]
    code, out, err = run_cli(capsys, "report", path, "--judge-col", "judge", "--judges", "random", "--no-stability")
    said = out + err      # the report keeps the warning as a note in its output
    assert code == 0 and "only 4 judges" in said and "--judges random" in said, said
    for extra in (["--run-col", "item"], ["--gold-col", "score"]):
        code, out, err = run_cli(capsys, "report", path, "--judge-col", "judge", *extra)
        assert code != 0 and "give one of them" in err, err


def test_report_with_judges_is_what_the_command_does():
    """``rt.report(m, judges=...)``: its intervals are ``rt.intervals(m, judges=...)``, its settings and notes say
    how the judges were taken, and the command's JSON is the same report; gold with judges is refused."""
    t = _table(np.random.default_rng(4), judges=4)
    m = _matrix(t)
    rep = rt.report(m, judges="auto", stability=False)
    ref = rt.intervals(m, judges="auto")
    iv = dict(rep.sections)["intervals"]
    np.testing.assert_allclose(iv.ci_low, ref.ci_low, rtol=1e-12)   # one code path: equal up to rounding
    np.testing.assert_allclose(iv.ci_high, ref.ci_high, rtol=1e-12)
    assert iv.method == "cluster" and rep.settings["judges"] == "auto"
    assert "judges_fixed" in [n.code for n in rep.notes]
    plain = rt.report(m, stability=False)
    assert "judges" not in plain.settings and not np.allclose(dict(plain.sections)["intervals"].ci_low, ref.ci_low)
    gold = rt.ScoreMatrix.from_array(np.full((m.n_models, m.n_items), np.nan), models=list(m.models),
                                     items=list(m.items))
    with pytest.raises(rt.ArgumentError, match="`judges` and `gold`"):
        rt.report(m, judges="auto", gold=gold)
