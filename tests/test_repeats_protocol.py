"""Choosing the number of runs per [E]: N_required = ceil((z s / eps)^2) and the iterative rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ranktrust as rt
from ranktrust import DataError, ScoreMatrix
from ranktrust.runs import n_required


def _runs_matrix(run_score_offsets, n_items=40, seed=0):
    """A matrix whose per-run scores are known: every item scores base + offset[r]."""
    off = np.asarray(run_score_offsets, dtype=float)
    d = np.broadcast_to(0.5 + off[None, None, :], (1, n_items, off.size)).copy()
    return ScoreMatrix(d, ("m",), tuple(map(str, range(n_items))))


def test_n_required_formula_against_scipy_quantile():
    offs = [0.00, 0.03, -0.02, 0.01, -0.04]
    m = _runs_matrix(offs)
    r = rt.choose_n(m, margin=0.01, confidence_level=0.9)
    s = np.std(offs, ddof=1)
    want = math.ceil((stats.norm.ppf(0.95) * s / 0.01) ** 2)
    assert r.run_sd[0] == pytest.approx(s)
    assert r.n_required[0] == want
    assert r.enough[0] == (want <= 5)
    assert r.more[0] == max(0, want - 5)
    d = r.to_dict()["models"][0]
    assert d["n_required"] == want and d["runs"] == 5


def test_enough_when_noise_is_small():
    m = _runs_matrix([0.0, 0.001, -0.001, 0.0005])
    r = rt.choose_n(m, margin=0.01, confidence_level=0.9)
    assert r.n_required[0] == 1 and bool(r.enough[0])


@pytest.mark.parametrize("kw, match", [
    (dict(margin=1.0), r"`margin` is a fraction .* for 1 points give 0.01"),
    (dict(margin=-0.01), r"`margin` must be a positive fraction"),
    (dict(margin=0.01, confidence_level=1.5), r"`confidence_level` must be in the open interval \(0, 1\)"),
    (dict(margin=None), r"`margin` is required"),
])
def test_bad_arguments(kw, match):
    with pytest.raises(ValueError, match=match):
        rt.choose_n(_runs_matrix([0, 0.01]), **kw)


def test_single_run_is_an_error():
    with pytest.raises(DataError, match="nothing to decompose"):
        rt.choose_n(_runs_matrix([0.0]), margin=0.01)


@settings(max_examples=30, deadline=None)
@given(st.floats(1e-4, 0.2), st.floats(0.002, 0.05), st.floats(0.01, 0.5))
def test_property_n_required_brackets_the_real_value(s, eps, alpha):
    n = float(n_required(s, margin=eps, confidence_level=1 - alpha))
    raw = (stats.norm.ppf(1 - alpha / 2) * s / eps) ** 2
    assert n >= 1 and n >= raw - 1e-6 and (n - 1 < raw + 1e-6 or n == 1)


def _reference_loop(draw, n0, eps, alpha, max_runs):
    """[E]'s rule written out plainly, one model."""
    z = stats.norm.ppf(1 - alpha / 2)
    xs = list(draw(n0))
    steps = []
    while True:
        s = np.std(xs, ddof=1)
        n1 = max(1, math.ceil((z * s / eps) ** 2 - 1e-9))
        steps.append((len(xs), n1))
        if n1 <= len(xs) or len(xs) >= max_runs:
            return xs, steps
        xs += list(draw(min(n1, max_runs) - len(xs)))


def test_loop_follows_the_rule_step_by_step():
    sigma, eps, alpha = 0.02, 0.01, 0.1
    g1, g2 = np.random.default_rng(11), np.random.default_rng(11)
    calls = []

    def produce(n):
        calls.append(n)
        return g1.normal(0.6, sigma, n)

    res = rt.run_until_enough(produce, n0=3, margin=eps, confidence_level=1 - alpha, max_runs=500)
    xs, steps = _reference_loop(lambda n: g2.normal(0.6, sigma, n), 3, eps, alpha, 500)
    np.testing.assert_allclose(res.run_scores[0], xs)
    assert [tuple(s) for s in zip(res.trace_runs.tolist(), res.trace_required[:, 0].astype(int).tolist())] == steps
    assert res.stopped == "rule"
    # the stop condition holds at the end, and each batch asked for exactly N1 - N more
    assert res.trace_required[-1, 0] <= res.runs
    for t in range(1, len(calls)):
        assert calls[t] == res.trace_required[t - 1, 0] - res.trace_runs[t - 1]
    assert res.to_dict()["stopped"] == "rule"


def test_loop_with_score_matrices_and_max_runs_cap():
    rng = np.random.default_rng(5)

    def produce(n):
        p = rng.uniform(0.3, 0.7, size=(2, 30, 1))
        d = (rng.random((2, 30, n)) < p).astype(float)
        return ScoreMatrix(d, ("a", "b"), tuple(map(str, range(30))))

    res = rt.run_until_enough(produce, n0=2, margin=0.001, confidence_level=0.9, max_runs=12)
    assert res.stopped == "max_runs" and res.runs == 12
    assert res.models == ("a", "b")
    # plain run scores get ScoreMatrix.from_array's labels, one model or several
    one = rt.run_until_enough(lambda n: rng.normal(0.5, 0.01, n), n0=4, margin=0.05, max_runs=8)
    two = rt.run_until_enough(lambda n: rng.normal(0.5, 0.01, (2, n)), n0=4, margin=0.05, max_runs=8)
    assert one.models == ("model_0",) and two.models == ("model_0", "model_1")
    with pytest.raises(ValueError, match="returned 3 runs; it must return exactly 2"):
        rt.run_until_enough(lambda n: np.zeros(3), n0=2, margin=0.01)
    with pytest.raises(ValueError, match="`n0` must be an integer >= 2"):
        rt.run_until_enough(lambda n: np.zeros(n), n0=1, margin=0.01)


@pytest.mark.slow
def test_loop_reaches_the_margin_simulation():
    # many independent loops with a known run sd: the final N is close to (z sigma / eps)^2 and the
    # mean of the collected run scores lands within eps of the truth about 1 - alpha of the time
    sigma, eps, alpha, mu = 0.03, 0.01, 0.1, 0.55
    target = (stats.norm.ppf(1 - alpha / 2) * sigma / eps) ** 2  # 24.35
    rng = np.random.default_rng(2025)
    R = 400
    finals, hits = [], 0
    for _ in range(R):  # each loop is a handful of vectorised steps
        res = rt.run_until_enough(lambda n: rng.normal(mu, sigma, n), n0=5, margin=eps, confidence_level=1 - alpha)
        finals.append(res.runs)
        hits += abs(res.score[0] - mu) <= eps
    assert target <= np.median(finals) <= target + 6  # N1 is a ceiling; s varies (median 28 in 2,000 loops)
    # the sequential rule reaches about 1 - alpha (0.892 over 2,000 loops with this setting)
    assert stats.binomtest(int(hits), R, 1 - alpha).pvalue > 0.01, hits / R
