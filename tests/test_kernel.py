"""The array kernel (ranktrust._kernel), tested once against NumPy/SciPy and with properties."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

from ranktrust import _kernel as K
from ranktrust.errors import DegenerateDataWarning

cells = st.one_of(st.just(np.nan), st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False))
arrays = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6), elements=cells)


# ------------------------------------------------------------ moments
@settings(max_examples=80, deadline=None)
@given(arrays, st.integers(0, 2), st.integers(0, 1))
def test_nan_moments_match_numpy(x, axis, ddof):
    axis = axis % x.ndim
    n, mean, var = K.nan_mean_var(x, axis, ddof=ddof)
    assert np.array_equal(n, np.sum(~np.isnan(x), axis=axis))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref_mean = np.nanmean(x, axis=axis)
        ref_var = np.nanvar(x, axis=axis, ddof=ddof)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-12, atol=1e-9)
    ok = n > ddof
    np.testing.assert_allclose(var[ok], ref_var[ok], rtol=1e-9, atol=1e-9)
    assert np.isnan(var[~ok]).all() and np.isnan(mean[n == 0]).all()
    np.testing.assert_array_equal(K.nan_mean(x, axis), mean)
    np.testing.assert_array_equal(K.nan_var(x, axis, ddof=ddof), var)
    np.testing.assert_array_equal(K.nan_count(x, axis), n)


def test_nan_mean_empty_value_and_no_warning():
    x = np.array([[np.nan, np.nan], [1.0, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(K.nan_mean(x)[0]) and K.nan_mean(x)[1] == 1.0
        assert K.nan_mean(x, empty=0.5)[0] == 0.5


# ------------------------------------------------------------ quantiles
@pytest.mark.parametrize("cl", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_quantiles_match_scipy(cl):
    assert K.normal_quantile(cl) == pytest.approx(stats.norm.ppf(0.5 + cl / 2), rel=1e-14)
    assert K.normal_quantile(cl, alternative="greater") == pytest.approx(stats.norm.ppf(cl), rel=1e-14)
    df = np.array([1.0, 2.5, 10.0, 1000.0])
    np.testing.assert_allclose(K.t_quantile(cl, df), stats.t.ppf(0.5 + cl / 2, df), rtol=1e-12)
    np.testing.assert_allclose(K.t_quantile(cl, df, alternative="less"), stats.t.ppf(cl, df), rtol=1e-12)
    out = K.t_quantile(cl, np.array([0.0, -1.0, np.nan, np.inf]))
    assert np.isnan(out[:3]).all() and out[3] == pytest.approx(K.normal_quantile(cl))
    with pytest.raises(ValueError, match="`alternative` must be"):
        K.normal_quantile(cl, alternative="two")  # type: ignore[arg-type]


# ------------------------------------------------------------ 0/1
def test_is_binary():
    assert K.is_binary(np.array([0.0, 1.0, np.nan]))
    assert K.is_binary(np.array([[0, 1], [1, 1]]))
    assert K.is_binary(np.array([np.nan]))  # nothing scored: vacuously 0/1
    assert not K.is_binary(np.array([0.0, 0.5]))
    assert not K.is_binary(np.array([2, 1]))


# ------------------------------------------------------------ Wilson
@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (71, 100), (1436, 2000)])
def test_wilson_bounds_match_scipy(k, n):
    ref = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    lo, hi = K.wilson_bounds(k / n, n, K.normal_quantile(0.95))
    assert (float(lo), float(hi)) == pytest.approx((ref.low, ref.high), abs=1e-12)
    if k == 0:
        assert lo == 0.0
    if k == n:
        assert hi == 1.0


# ------------------------------------------------------------ the CLT interval and its degenerate rule
@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(2, 30)),
                  elements=st.integers(0, 1000).map(lambda k: k / 1000)))
def test_clt_interval_matches_scipy_t_interval(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        mean, se, lo, hi, n = K.clt_interval(x, 0.9, quantile="t")
    for j in range(x.shape[0]):
        if np.ptp(x[j]) == 0:
            assert np.isnan(se[j]) and np.isnan(lo[j]) and np.isnan(hi[j])  # never a zero-width interval
            continue
        ref = stats.t.interval(0.9, x.shape[1] - 1, loc=x[j].mean(), scale=stats.sem(x[j]))
        assert (lo[j], hi[j]) == pytest.approx(ref, rel=1e-9, abs=1e-12)
        assert lo[j] < mean[j] < hi[j]


def test_clt_interval_z_ddof0_and_small_samples():
    x = np.array([[1.0, 0.0, 1.0, 1.0], [1.0, np.nan, np.nan, np.nan]])
    mean, se, lo, hi, n = K.clt_interval(x, 0.95, ddof=0)
    assert se[0] == pytest.approx(np.std(x[0]) / 2) and hi[0] - mean[0] == pytest.approx(1.959964 * se[0], 1e-6)
    assert n.tolist() == [4, 1] and np.isnan(se[1]) and np.isnan(lo[1]) and mean[1] == 1.0


def test_zero_spread_has_one_warning_text():
    x = np.array([[1.0, 1.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    with pytest.warns(DegenerateDataWarning) as rec:
        K.clt_interval(x, 0.95, names=["a", "b", "c"])
    assert len(rec) == 1
    assert str(rec[0].message) == (
        "models 'a', 'c': every item has the same score (zero spread), so the CLT interval would have "
        "zero width; their SE and CI are NaN")
    with pytest.warns(DegenerateDataWarning, match=r"^2 pairs: every shared item has the same paired difference"):
        K.warn_zero_spread(np.array([True, False, True]), subject="pair", unit="shared item",
                           what="paired difference", interval="t")
    with pytest.warns(DegenerateDataWarning, match=r"^model 'a' \(all 1\): .* its SE and CI are NaN$"):
        K.warn_zero_spread(np.array([True, False]), names=["a", "b"], values=np.array([1.0, 0.5]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        K.warn_zero_spread(np.zeros(3, dtype=bool))  # nothing flat: silent


def test_zero_spread_is_tested_on_the_values():
    x = np.array([[0.9733999] * 3, [0.1, 0.2, 0.3], [1.0, np.nan, np.nan], [0.5, np.nan, 0.5]])
    assert K.zero_spread(x).tolist() == [True, False, False, True]
    # the sum of squares of the first row is not exactly 0, yet its interval is NaN
    with pytest.warns(DegenerateDataWarning, match="zero spread"):
        r = __import__("ranktrust").stats.score_ci(x[:1], method="t")
    assert np.isnan(r.low[0]) and np.isnan(r.se[0])
