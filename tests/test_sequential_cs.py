"""Confidence sequences (ranktrust.sequential): time-uniform coverage, without-replacement closure, validation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ranktrust.sequential import confidence_sequence, paired_confidence_sequence
from ranktrust.sequential._stream import StreamState, advance


def _miss_anytime(cs, mu):
    mu = np.asarray(mu)[..., None] if np.ndim(mu) else mu
    return ((cs.ci_low > mu) | (cs.ci_high < mu)).any(axis=-1)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["eb", "betting"])
@pytest.mark.parametrize("kind", ["binary", "continuous"])
def test_time_uniform_coverage_with_replacement(method, kind):
    # peeking after every item: the sequence must contain the mean at *every* t with prob >= 90%
    rng = np.random.default_rng(11)
    reps, n, mu = 400, 300, 0.3
    x = rng.binomial(1, mu, (reps, n)) if kind == "binary" else rng.beta(3 * mu / 0.7 * 0.7, 3 * 0.7, (reps, n))
    true = mu if kind == "binary" else (3 * mu / 0.7 * 0.7) / (3 * mu / 0.7 * 0.7 + 3 * 0.7)
    cs = confidence_sequence(x, method=method, confidence_level=0.9, grid=201)
    miss = _miss_anytime(cs, true)
    assert stats.binomtest(int(miss.sum()), reps, 0.10, alternative="greater").pvalue > 0.01, miss.mean()
    assert (cs.ci_low <= cs.ci_high).all()
    # the running intersection only shrinks
    assert (np.diff(cs.ci_low, axis=-1) >= 0).all() and (np.diff(cs.ci_high, axis=-1) <= 0).all()


@pytest.mark.slow
@pytest.mark.parametrize("method", ["eb", "betting"])
def test_without_replacement_closes_on_exact_mean_and_covers(method):
    rng = np.random.default_rng(5)
    N, reps = 300, 300
    pop = rng.binomial(1, 0.62, N).astype(float)
    x = np.stack([pop[rng.permutation(N)] for _ in range(reps)])
    cs = confidence_sequence(x, method=method, population_size=N, confidence_level=0.9, grid=201)
    np.testing.assert_allclose(cs.ci_low[:, -1], pop.mean(), atol=1e-12)
    np.testing.assert_allclose(cs.ci_high[:, -1], pop.mean(), atol=1e-12)
    miss = _miss_anytime(cs, pop.mean())
    assert stats.binomtest(int(miss.sum()), reps, 0.10, alternative="greater").pvalue > 0.01, miss.mean()
    # without replacement is never wider than with replacement at the same t
    wr = confidence_sequence(x[:20], method=method, confidence_level=0.9, grid=201)
    assert ((cs.ci_high[:20] - cs.ci_low[:20]) <= (wr.ci_high - wr.ci_low) + 1e-9).all()


def test_paired_difference_closes_on_benchmark_difference_and_swaps():
    rng = np.random.default_rng(1)
    a = rng.binomial(1, 0.75, 1500).astype(float)
    b = np.where(rng.random(1500) < 0.8, a, 1 - a)
    cs = paired_confidence_sequence(a, b, population_size=1500, method="eb")
    assert cs.ci_low[-1] == pytest.approx((a - b).mean()) and cs.ci_high[-1] == pytest.approx((a - b).mean())
    sw = paired_confidence_sequence(b, a, method="eb")
    ab = paired_confidence_sequence(a, b, method="eb")
    np.testing.assert_allclose(sw.ci_low, -ab.ci_high, atol=1e-12)
    np.testing.assert_allclose(sw.ci_high, -ab.ci_low, atol=1e-12)
    wide = paired_confidence_sequence(a, b, method="eb", confidence_level=0.99)
    assert (wide.ci_high - wide.ci_low >= ab.ci_high - ab.ci_low - 1e-12).all()


def test_block_advance_equals_item_by_item():
    # the vectorised block update is the same as advancing one item at a time
    rng = np.random.default_rng(3)
    y = rng.random((4, 50))
    for kind, rule in (("betting", "agrapa"), ("betting", "prpl"), ("eb", "prpl")):
        st_all, wu, wd = advance(StreamState.zeros(4), y, 0.5, 3.0, rule=rule, kind=kind)
        st = StreamState.zeros(4)
        for t in range(50):
            st, u1, d1 = advance(st, y[:, t:t + 1], 0.5, 3.0, rule=rule, kind=kind)
            np.testing.assert_allclose(u1[:, 0], wu[:, t], rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(d1[:, 0], wd[:, t], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(st.sv, st_all.sv)


@pytest.mark.parametrize("kw, match", [
    ({"method": "bootstrap"}, "`method` must be one of 'betting', 'eb'"),
    ({"confidence_level": 1.0}, "`confidence_level` must be in the open interval"),
    ({"alternative": "larger"}, "`alternative` must be"),
    ({"rule": "kelly"}, "`rule` must be one of"),
    ({"bounds": (1, 0)}, "`bounds` must be two finite numbers"),
    ({"population_size": 3}, "`population_size` must be an integer >="),
])
def test_validation_messages(kw, match):
    with pytest.raises(ValueError, match=match):
        confidence_sequence(np.full(10, 0.5), **kw)


def test_values_outside_bounds_and_nan_refused():
    with pytest.raises(ValueError, match="values must lie within `bounds`"):
        confidence_sequence([0.2, 1.4])
    with pytest.raises(ValueError, match="has NaN"):
        confidence_sequence([0.2, np.nan])
    with pytest.raises(TypeError, match="takes no `bounds`"):
        paired_confidence_sequence([1, 0], [0, 1], bounds=(0, 1))
