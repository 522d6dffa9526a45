"""The exact McNemar searches (items needed for a gap, detectable gap at n items) against the searches they
replaced, kept below verbatim as references: the same integers, the same detectable gaps and the same achieved
powers, over a seeded grid and a hypothesis property."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import special

from ranktrust.errors import SolverError
from ranktrust.stats import _power as PW
from ranktrust.stats._power import STAY_WINDOW, _Curve, mcnemar_power


# ------------------------------------------------------------------ references: the code before the speed-up
# (src/ranktrust/stats/_power.py at commit e24f2c2), verbatim but for the names of the functions
def ref_reject_k(m: np.ndarray, alpha: float) -> np.ndarray:
    m = np.asarray(m, dtype=np.int64)

    def rejects(k: np.ndarray) -> np.ndarray:
        ok = (k >= 0) & (2 * k < m)
        with np.errstate(invalid="ignore"):
            p = 2.0 * special.bdtr(np.where(ok, k, 0).astype(np.float64), np.where(ok, m, 1), 0.5)
        return ok & (p < alpha)

    k = np.floor(m / 2.0 + special.ndtri(alpha / 2) * np.sqrt(m) / 2.0).astype(np.int64)
    k = np.clip(k, -1, None)
    for _ in range(64):  # rejection is monotone in k: step up while k + 1 rejects ...
        up = rejects(k + 1)
        if not up.any():
            break
        k = np.where(up, k + 1, k)
    for _ in range(64):  # ... and down while k does not
        down = (k >= 0) & ~rejects(k)
        if not down.any():
            break
        k = np.where(down, k - 1, k)
    return k


def ref_exact_items(gap: float, q: float, alpha: float, target: float, start: int) -> tuple[int, float]:
    """Smallest n from which the exact power stays >= target for STAY_WINDOW consecutive n."""
    W = STAY_WINDOW
    curve = _Curve(gap, q, alpha)

    def ok(n: int) -> bool:
        # the power at n alone first: most failing windows fail there (the power grows with n, the saw-tooth aside),
        # and one n costs a twentieth of the window (the window is then computed whole, as always)
        if curve(np.array([n]))[0] < target:
            return False
        return bool(np.all(curve(np.arange(n, n + W)) >= target))

    hi = max(int(start), 1)
    while not ok(hi):
        hi = int(math.ceil(hi * 1.05)) + 1
        if hi > 10**9:
            raise SolverError(f"the exact McNemar power search found no item count up to 10^9 with power >= "
                              f"{target:g} for `gap` {gap:g}; use `method`='normal'", param="method")
    lo = max(1, int(0.85 * hi))
    while lo > 1 and ok(lo):
        lo = max(1, lo // 2)
    if ok(lo):
        return lo, float(curve(np.array([lo]))[0])
    while hi - lo > 1:  # invariant: not ok(lo), ok(hi)
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    # the saw-tooth can make an earlier start valid: scan a window below the bisection's answer
    a = max(1, hi - 4 * W)
    f = curve(np.arange(a, hi + W)) >= target
    for n0 in range(a, hi + 1):
        if f[n0 - a:n0 - a + W].all():
            hi = n0
            break
    return hi, float(curve(np.array([hi]))[0])


def ref_exact_gap(n: int, q: float, alpha: float, target: float) -> float:
    """Smallest gap d in (0, q] whose exact power at n items is >= target (NaN if none)."""
    if mcnemar_power(n, gap=q, disagreement=q, alpha=alpha)[0] < target:
        return float("nan")
    lo, hi = 0.0, q
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mcnemar_power(n, gap=mid, disagreement=q, alpha=alpha)[0] >= target:
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-9:
            break
    return hi


def _start(gap: float, q: float, alpha: float, target: float) -> int:
    z = special.ndtri(1 - alpha / 2) + special.ndtri(target)
    return int(math.ceil(round(z * z * q / (gap * gap), 9)))


def _same_items(gap: float, q: float, alpha: float, target: float) -> None:
    start = _start(gap, q, alpha, target)
    got, want = PW._exact_items(gap, q, alpha, target, start), ref_exact_items(gap, q, alpha, target, start)
    # the same n, and there the same one-n computation of the power: the same float
    assert got == want, (gap, q, alpha, target)


def _same_gap(n: int, q: float, alpha: float, target: float) -> None:
    got, want = PW._exact_gap(n, q, alpha, target), ref_exact_gap(n, q, alpha, target)
    # the same bisection (its verdicts outside the computed bracket follow from the power rising with the gap)
    assert got == want or (math.isnan(got) and math.isnan(want)), (n, q, alpha, target)


# ------------------------------------------------------------------ grids
#: the report's gaps and very small / very large ones, at disagreements from 0.05 to 1 (q near 1: the saw-tooth
#: the fast search hands to the bisection search)
_QS = (0.05, 0.3, 0.3638392857142857, 0.5, 0.9, 0.995, 1.0)
_GAPS = (0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5)


@pytest.mark.parametrize("q", _QS)
def test_items_needed_are_the_reference_searchs(q):
    for gap in _GAPS:
        if gap > q or gap >= 1 or q / gap ** 2 * 8 > 400_000:   # (the largest n: a slow reference)
            continue
        for alpha, target in ((0.05, 0.8), (0.01, 0.9), (0.1, 0.5)):
            _same_items(gap, q, alpha, target)


def test_items_needed_on_a_seeded_grid():
    rng = np.random.default_rng(20261206)
    done = 0
    while done < 120:
        q = float(rng.uniform(0.02, 1.0))
        gap = float(q * 10 ** rng.uniform(-2.5, 0.0))
        alpha = float(rng.choice([0.001, 0.01, 0.05, 0.1, 0.2]))
        target = float(rng.choice([0.3, 0.5, 0.8, 0.9, 0.95]))
        if gap >= 1 or q / gap ** 2 * 15 > 200_000:
            continue
        _same_items(gap, q, alpha, target)
        done += 1


def test_detectable_gaps_on_a_seeded_grid():
    rng = np.random.default_rng(7)
    for n, q in ((448, 0.3638392857142857), (50, 0.05), (3000, 0.6), (20000, 0.1), (30, 0.9), (10, 1.0)):
        _same_gap(n, q, 0.05, 0.8)
    for _ in range(25):
        _same_gap(int(rng.integers(5, 20_000)), float(rng.uniform(0.02, 1.0)), float(rng.choice([0.01, 0.05, 0.1])),
                  float(rng.choice([0.5, 0.8, 0.9])))


@settings(max_examples=30, deadline=None)
@given(st.floats(0.03, 1.0), st.floats(0.05, 1.0), st.sampled_from([0.01, 0.05, 0.1]),
       st.sampled_from([0.5, 0.8, 0.9]))
def test_searches_agree_with_the_references(q, share, alpha, target):
    gap = max(q * share, math.sqrt(q * 15 / 100_000))    # (at most some 100,000 items: a slow reference)
    assume(gap <= q and gap < 1)
    _same_items(gap, q, alpha, target)
    _same_gap(max(5, _start(gap, q, alpha, target)), q, alpha, target)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 300_000), st.integers(1, 3000), st.sampled_from([1e-6, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 0.9]))
def test_rejection_boundaries_are_the_references(lo, width, alpha):
    m = np.arange(lo, lo + width)
    assert PW._reject_k(m, alpha).tolist() == ref_reject_k(m, alpha).tolist()


def test_the_answer_is_a_run_of_stay_window_n_after_a_shortfall():
    """The documented meaning, at the report's inputs: the power reaches the target at each of STAY_WINDOW n
    from the answer on and falls short just below it (computed n by n)."""
    q = 0.3638392857142857
    for gap in (0.01, 0.02, 0.03, 0.05, 0.1):
        n, achieved = PW._exact_items(gap, q, 0.05, 0.8, _start(gap, q, 0.05, 0.8))
        c = _Curve(gap, q, 0.05)
        each = [float(c(np.array([x]))[0]) for x in range(n - 1, n + STAY_WINDOW)]
        assert each[0] < 0.8 <= min(each[1:]) and each[1] == achieved


def test_pmf_tables_are_shared_and_equal_to_fresh_ones():
    PW._TABLES.clear()
    a = PW._pmf_tables(0.3, 100)
    b = PW._pmf_tables(0.3, 5000)          # grown: the first entries unchanged, bit for bit
    assert b[0].size >= 5000 and all(x.tobytes() == y[:x.size].tobytes() for x, y in zip(a, b))
    assert PW._pmf_tables(0.3, 10) is b
    j = np.arange(b[0].size, dtype=np.float64)
    assert b[0].tobytes() == special.gammaln(j + 1).tobytes()
    assert b[1].tobytes() == special.xlogy(j, 0.3).tobytes() and b[2].tobytes() == special.xlog1py(j, -0.3).tobytes()


def test_the_search_that_finds_nothing_raises_on_both_paths(monkeypatch):
    monkeypatch.setattr(PW, "_Curve", lambda *a: (lambda n: np.zeros(np.shape(n))))
    for q in (0.3, 1.0):     # the secant search, and the bisection search (q near 1)
        with pytest.raises(SolverError, match="found no item count up to 10\\^9"):
            PW._exact_items(0.02, q, 0.05, 0.8, 1000)
