"""Condition sensitivity: per-condition scores, the paired test, best-of-k inflation, flips."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ranktrust as rt
from ranktrust import DataError, ScoreMatrix
from ranktrust.reporting import note_text
from ranktrust.runs import expected_best_of, hotelling_conditions


def _cond_matrix(d4, conds=None, models=None):
    """d4: (models, items, conditions, seeds) -> ScoreMatrix with (condition, seed) run slots."""
    M, N, C, S = d4.shape
    conds = conds or [f"c{q}" for q in range(C)]
    runs = [f"{c}/{s}" for c in conds for s in range(S)]
    return ScoreMatrix(d4.reshape(M, N, C * S), tuple(models or [f"m{j}" for j in range(M)]),
                       tuple(map(str, range(N))), runs=tuple(runs),
                       conditions=tuple(c for c in conds for _ in range(S)))


def test_two_conditions_equal_paired_t_test():
    rng = np.random.default_rng(1)
    y = rng.normal(0, 1, (60, 2)) + np.array([0, 0.3])
    F, df1, df2, p = hotelling_conditions(y)
    t = stats.ttest_rel(y[:, 1], y[:, 0])
    assert F == pytest.approx(t.statistic**2, rel=1e-10)
    assert p == pytest.approx(t.pvalue, rel=1e-9)
    assert (df1, df2) == (1, 59)


def test_four_conditions_equal_statsmodels_manova_intercept_test():
    pd = pytest.importorskip("pandas")
    from statsmodels.multivariate.manova import MANOVA

    rng = np.random.default_rng(2)
    y = rng.normal(0, 1, (80, 4)) + np.array([0, 0.1, 0.25, -0.1]) + rng.normal(0, 1, (80, 1))
    F, df1, df2, p = hotelling_conditions(y)
    d = pd.DataFrame(y[:, 1:] - y[:, :1], columns=["d1", "d2", "d3"])
    res = MANOVA.from_formula("d1 + d2 + d3 ~ 1", data=d).mv_test()
    row = res.results["Intercept"]["stat"].loc["Hotelling-Lawley trace"]
    assert F == pytest.approx(float(row["F Value"]), rel=1e-8)
    assert p == pytest.approx(float(row["Pr > F"]), rel=1e-6)
    assert (df1, df2) == (3, 77)


def test_degenerate_differences():
    y = np.tile(np.array([[0.5, 0.5, 0.7]]), (10, 1)) + np.linspace(0, 0.2, 10)[:, None]
    assert hotelling_conditions(y)[3] == 0.0  # condition 3 is always 0.2 higher: a sure difference
    y = np.tile(np.linspace(0, 1, 10)[:, None], (1, 3))
    assert hotelling_conditions(y)[3] == 1.0  # identical under every condition


def test_expected_best_of_matches_brute_force():
    x = np.array([0.61, 0.55, 0.70, 0.58, 0.66])
    for k in range(1, 6):
        brute = np.mean([max(c) for c in itertools.combinations(x, k)])
        assert expected_best_of(x, k) == pytest.approx(brute, rel=1e-12)
    with pytest.raises(ValueError, match=r"`k` must lie in \[1, 5\]"):
        expected_best_of(x, 6)


def _flip_data(seed=0, N=400, S=3):
    rng = np.random.default_rng(seed)
    base = rng.beta(2, 2, N)
    # model a gains 8 points when the answer comes first ("c0"), model b is steady
    eff = np.array([[0.08, -0.03, -0.03, -0.03], [0.0, 0.0, 0.0, 0.0], [-0.15] * 4])
    p = np.clip(base[None, :, None] + eff[:, None, :], 0, 1)
    return (rng.random((3, N, 4, S)) < p[..., None]).astype(float)


def test_flip_detected_and_reported():
    s = rt.sensitivity(_cond_matrix(_flip_data()), by="condition")
    out = s.to_dict()
    assert out["ranking_flips"] and out["top_changes"]
    assert out["top_by_condition"]["c0"] == "m0"
    assert out["top_by_condition"]["c1"] == "m1"
    flip = out["flips"][0]
    assert {flip["a"], flip["b"]} == {"m0", "m1"} and "c0" in (flip["a_ahead"] + flip["b_ahead"])
    rows = {r["model"]: r for r in out["models"]}
    assert rows["m0"]["p_value"] < 1e-6 and rows["m0"]["spread"] > 0.08
    assert rows["m2"]["p_value"] > 0.001  # no condition effect
    gap = next(g for g in out["gaps"] if {g["a"], g["b"]} == {"m0", "m1"})
    assert gap["within_spread"]
    assert out["best_of_k_inflation"]["conditions"]["k"] == 4
    infl = out["best_of_k_inflation"]["conditions"]["models"]["m0"]
    sc = [rows["m0"]["conditions"][c]["score"] for c in ("c0", "c1", "c2", "c3")]
    assert infl == pytest.approx(max(sc) - np.mean(sc))
    assert rows["m0"]["stable"] == pytest.approx(np.mean(sc))
    assert out["best_of_k_inflation"]["seeds"]["k"] == 3
    assert set(out["models"][0]["conditions"]["c0"]) >= {"score", "ci_low", "ci_high"}
    assert "plot" not in out  # figures read the result's own fields (reporting/plots/_runs.py)


def test_condition_score_ci_against_scipy_sem():
    d = _flip_data(N=100)
    s = rt.sensitivity(_cond_matrix(d))
    y = d[1, :, 2].mean(axis=1)  # model 1, condition 2: per-item mean over seeds
    assert s.score[1, 2] == pytest.approx(y.mean())
    z = stats.norm.ppf(0.975)
    assert s.ci_high[1, 2] == pytest.approx(min(1, y.mean() + z * stats.sem(y)))


def test_bad_condition_input():
    d = _flip_data(N=50)
    m = _cond_matrix(d)
    with pytest.raises(DataError, match="no condition column"):
        rt.sensitivity(ScoreMatrix(m.data, m.models, m.items, runs=m.runs))
    one = _cond_matrix(d[:, :, :1])
    with pytest.raises(DataError, match="only one condition \\('c0'\\)"):
        rt.sensitivity(one)
    # conditions present for some models only: rows without a condition -> error naming the model
    data = m.data.copy()
    conds = list(m.conditions)
    conds[:3] = ["nan"] * 3
    data[:2, :, :3] = np.nan
    bad = ScoreMatrix(data, m.models, m.items, runs=m.runs, conditions=tuple(conds))
    with pytest.raises(DataError, match="rows of model\\(s\\) 'm2' have an empty condition"):
        rt.sensitivity(bad)
    # a model that lacks a whole condition: kept for its own rows, left out of rankings, reported
    data = m.data.copy()
    data[2, :, :3] = np.nan  # m2 has no c0
    part = ScoreMatrix(data, m.models, m.items, runs=m.runs, conditions=m.conditions)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # explicit, reported handling: no warning, a note
        s = rt.sensitivity(part)
    (rec,) = s.notes   # a record (issue 23 §1), worded in reporting/
    assert dict(rec.data) == {"model": "m2", "by": "condition", "missing": ["c0"], "n_missing": 1}
    assert note_text(rec) == ("m2 has no rows for condition(s) c0; those conditions are left out of the rankings, "
                              "flips and stable scores")
    assert not s.shared[0] and "c0" not in s.to_dict()["rankings"]
    assert np.isnan(s.score[2, 0]) and np.isfinite(s.p_value[2])


def test_by_run_compares_seeds():
    d = _flip_data(N=80)
    s = rt.sensitivity(_cond_matrix(d), by="run")
    assert len(s.conditions) == 12
    with pytest.raises(ValueError, match="`by` must be 'condition' or 'run'"):
        rt.sensitivity(_cond_matrix(d), by="seed")


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_property_invariances(seed):
    rng = np.random.default_rng(seed)
    y = rng.normal(0, 1, (25, 4)) + rng.normal(0, 0.5, 4)
    p = hotelling_conditions(y)[3]
    assert 0 <= p <= 1
    # the reference condition and the item order do not matter
    assert hotelling_conditions(y[:, [2, 0, 3, 1]])[3] == pytest.approx(p, rel=1e-8, abs=1e-14)
    assert hotelling_conditions(y[rng.permutation(25)])[3] == pytest.approx(p, rel=1e-8, abs=1e-14)


@pytest.mark.slow
@pytest.mark.parametrize("seeds", [1, 3])
def test_type_one_error_under_no_condition_effect(seeds):
    # known per-item probabilities, identical under every condition; 0/1 samples
    rng = np.random.default_rng(900 + seeds)
    R, N, C = 3000, 120, 4
    p = rng.beta(1.5, 1.5, (R, N, 1, 1))
    y = (rng.random((R, N, C, seeds)) < p).mean(axis=3)
    pv = hotelling_conditions(y)[3]
    rejections = int(np.sum(pv < 0.05))
    assert stats.binomtest(rejections, R, 0.05).pvalue > 0.01, rejections / R
    # and the test has power against a 15-point shift of one condition
    y2 = (rng.random((R, N, C, seeds)) < np.clip(p + np.array([0.15, 0, 0, 0])[:, None], 0, 1)).mean(axis=3)
    assert np.mean(hotelling_conditions(y2[:300])[3] < 0.05) > 0.6
