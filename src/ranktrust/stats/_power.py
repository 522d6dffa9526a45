"""How many items a benchmark needs to tell two models apart (and the inverse).

For a paired comparison of two models, let ``d_i`` be the per-item difference of their
scores and ``q = E[d_i^2]`` (the disagreement: for 0/1 scores the share of items on which
the two results differ, for continuous scores the mean squared per-item difference). With
a true gap ``d = E[d_i]`` the variance of one item's difference is ``q - d^2``, which the
formulas below approximate by ``q`` (slightly conservative, as in [A, M]), so

    n = (z_{1-alpha/2} + z_{power})^2 q / d^2          (items needed for gap d)
    d = (z_{1-alpha/2} + z_{power}) sqrt(q / n)       (detectable gap at n items)
    h = z_{1-alpha/2} sqrt(q / n)                      (paired CI half-width at n items)

For 0/1 scores (``binary=True``) the items needed are, by default, those of the **exact
McNemar test** the package runs (:func:`ranktrust.mcnemar_exact`), computed exactly: the
formula above delivers 76.6-79.6% power for that test, not 80%. The formula stays available
as ``method="normal"`` (it reproduces [A]'s figures).

A gap is possible only when ``q - d^2 >= 0``, i.e. ``d <= sqrt(q)`` (any scores in
[0, 1]); for 0/1 scores ``|d_i| = d_i^2``, so ``d = E[d_i] <= E|d_i| = q``, the tighter
limit ``d <= q``.

References
----------
.. [A] "Is the #1 AI Model Really #1?", Towards Data Science (2026): at q = 0.27 a gap of
   1 / 2 / 3 / 5 / 10 points needs about 21,200 / 5,300 / 2,350 / 850 / 210 items; at
   q = 0.20 the half-width is ±6 / ±4 / ±2 points at n = 200 / 500 / 2,000.
.. [M] E. Miller, "Adding Error Bars to Evals", arXiv:2411.00640 (2024), section on power.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypedDict

import numpy as np
from scipy import special

from .._analysis import analysis
from .._kernel import normal_quantile
from .. import _validate
from ..errors import ArgumentError, DataError, SolverError
from ..results import Note, NoteJSON, Result, jsonable

if TYPE_CHECKING:  # pragma: no cover
    from ..data import ScoreMatrix

__all__ = ["PowerResult", "PowerTable", "power", "power_table", "estimate_disagreement", "mcnemar_power", "TABLE_GAPS"]

#: consecutive item counts over which the exact power must stay at or above the target
STAY_WINDOW = 20


def _unit(name: str, value: Any, *, closed_high: bool = False, hint: str = "") -> float:
    return _validate.probability(value, name, low_open=True, high_open=not closed_high, hint=hint)


def _max_gap(q: float, binary: bool) -> float:
    """Largest possible gap at disagreement ``q``: ``q`` for 0/1 scores, ``sqrt(q)`` otherwise."""
    return q if binary else math.sqrt(q)


def _z_sum(alpha: float, power: float) -> tuple[float, float]:
    # the kernel's quantile at the one-sided levels 1 - alpha/2 and power (bit-identical to ndtri of them)
    z_a = normal_quantile(1.0 - alpha / 2.0, alternative="greater")
    z_b = normal_quantile(power, alternative="greater")
    return z_a, z_b


# ------------------------------------------------------------------ exact McNemar power
def _reject_k(m: np.ndarray, alpha: float) -> np.ndarray:
    """Largest ``k`` with ``mcnemar_exact`` p < ``alpha`` when ``min(b, c) = k`` of ``m`` (-1: none).

    Starts from the normal approximation of the binomial quantile and then moves to the exact
    boundary with the package's own p-value formula (``min(1, 2 BinomCDF(k; m, 1/2))``, the
    same ``scipy.special.bdtr`` call as :func:`ranktrust.mcnemar_exact`), so the rejection
    region is exactly that of the test the package runs.
    """
    m = np.asarray(m, dtype=np.int64)

    def rejects(k: np.ndarray, mm: np.ndarray) -> np.ndarray:
        # integer k and m: scipy's integer loop, the same values as its float loop (which only floors them) at
        # half the cost
        ok = (k >= 0) & (2 * k < mm)
        p = 2.0 * special.bdtr(np.where(ok, k, 0), np.where(ok, mm, 1), 0.5)
        return ok & (p < alpha)

    # the normal approximation with a continuity correction: off by one for about 0.1-0.7% of m
    k = np.ceil(m / 2.0 + special.ndtri(alpha / 2) * np.sqrt(m) / 2.0 - 0.5).astype(np.int64) - 1
    k = np.clip(k, -1, None)
    # rejection is monotone in k, so the boundary is where k rejects and k + 1 does not: both are checked for every
    # m, then only the m whose start was off step move (up while k + 1 rejects, down while k does not). The p-value
    # falls as m grows at a fixed k, so over a run of rising m with one start k, k + 1 rejecting at none of them is
    # known from the run's last m and k rejecting at all of them from its first (the others are computed where
    # not: a run whose start was off)
    if m.size == 0:
        return k
    start = np.ones(m.size, dtype=bool)
    start[1:] = (k[1:] != k[:-1]) | (m[1:] <= m[:-1])
    run = np.cumsum(start) - 1
    first, last = np.flatnonzero(start), np.append(np.flatnonzero(start)[1:] - 1, m.size - 1)
    up = rejects(k[last] + 1, m[last])[run]
    some = np.flatnonzero(up)
    up[some] = rejects(k[some] + 1, m[some])
    r0 = rejects(k[first], m[first])[run]
    some = np.flatnonzero(~r0)
    r0[some] = rejects(k[some], m[some])
    down = (k >= 0) & ~up & ~r0
    for moved, step in ((up, 1), (down, -1)):
        idx = np.flatnonzero(moved)
        if idx.size == 0:
            continue
        kk, mm = k[idx] + step, m[idx]
        for _ in range(64):
            if step > 0:
                more = rejects(kk + 1, mm)
            else:
                more = (kk >= 0) & ~rejects(kk, mm)
            if not more.any():
                break
            kk = np.where(more, kk + step, kk)
        k[idx] = kk
    return k


#: alpha -> (first m, _reject_k of m = first m, first m + 1, ...): the last range asked for at each level
_REJECT_KEPT: dict[float, tuple[int, np.ndarray]] = {}


def _reject_range(lo: int, hi: int, alpha: float) -> np.ndarray:
    """``_reject_k(np.arange(lo, hi + 1), alpha)``, kept: the searches over the gap (:func:`_exact_gap`) ask for
    the same m at every gap, and a search over n (:func:`_exact_items`) for ranges that overlap (each k depends on
    its own m and alpha alone, so a range near the kept one is joined to it: only the m outside it are computed)."""
    kept = _REJECT_KEPT.get(alpha)
    if kept is None and len(_REJECT_KEPT) >= 8:   # a few levels at most
        _REJECT_KEPT.clear()
    kept = _REJECT_KEPT[alpha] = _kept_range(kept, lo, hi, lambda a, b: _reject_k(np.arange(a, b + 1), alpha))
    return kept[1][lo - kept[0]:hi - kept[0] + 1]


def _kept_range(kept: tuple[int, np.ndarray] | None, lo: int, hi: int,
                compute: Callable[[int, int], np.ndarray]) -> tuple[int, np.ndarray]:
    """Values of a function of each integer, kept over one range as ``(first integer, values)``, made to cover
    ``lo..hi`` (``compute(a, b)``: the values at ``a..b``): as kept when it covers them; joined with the integers
    outside it when that computes no more than asked for and keeps at most ``_KEEP_MAX`` values; else ``lo..hi``
    alone (a search probes far-apart ranges at first). Each value depends on its own integer alone, so the kept
    values are those a fresh computation gives, bit for bit."""
    if kept is not None and kept[1].size:
        m0, vals = kept
        m1 = m0 + vals.size - 1
        if m0 <= lo and hi <= m1:
            return kept
        extra = max(hi, m1) - min(lo, m0) + 1 - vals.size     # values the join computes
        if extra <= hi - lo + 1 and vals.size + extra <= _KEEP_MAX:
            parts = ([compute(lo, m0 - 1)] if lo < m0 else []) + [vals] + ([compute(m1 + 1, hi)] if hi > m1 else [])
            return min(lo, m0), np.concatenate(parts)
    return lo, compute(lo, hi)


def _conditional_power(m: np.ndarray, pi: float, k: np.ndarray) -> np.ndarray:
    """P(exact McNemar rejects | m discordant items), with b ~ Bin(m, pi) and ``k = _reject_k(m, alpha)``."""
    ok = k >= 0
    kk = np.where(ok, k, 0)
    with np.errstate(invalid="ignore"):
        both = special.bdtr(kk, m, pi) + special.bdtrc(m - kk - 1, m, pi)
    return np.where(ok, both, 0.0)


def mcnemar_power(items: Any, *, gap: float, disagreement: float, alpha: float = 0.05) -> np.ndarray:
    """Exact power of the two-sided exact McNemar test (:func:`ranktrust.mcnemar_exact`).

    Parameters
    ----------
    items : int or array_like of int
        Number of items ``n``.
    gap : float
        True difference ``d = P(only A right) - P(only B right)``.
    disagreement : float
        True discordance ``q = P(the two results differ)``; ``0 < d <= q``.
    alpha : float, default: ``0.05``

    Returns
    -------
    ndarray
        ``sum_m Bin(m; n, q) P(min(b, m - b) in the rejection region)`` with
        ``b | m ~ Bin(m, (q + d) / (2 q))``: an exact sum, no simulation (the ``m`` beyond 10
        standard deviations of ``n q`` are left out).

    Examples
    --------
    >>> round(float(mcnemar_power(848, gap=0.05, disagreement=0.27)[0]), 4)   # the formula's n: 78%
    0.7843
    """
    return _Curve(float(gap), float(disagreement), float(alpha))(np.atleast_1d(np.asarray(items, dtype=np.int64)))


#: most conditional powers a curve keeps, and the largest n whose pmf it reads from tables of its terms
_KEEP_MAX = 1_000_000
_TABLE_MAX = 200_000


def _binom_pmf(k: np.ndarray, n: np.ndarray, p: float) -> np.ndarray:
    """Binomial pmf from log-gamma (scipy.special only; 0 outside 0 <= k <= n)."""
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    ok = (k >= 0) & (k <= n)
    kk, nn = np.where(ok, k, 0.0), np.where(ok, n, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = (special.gammaln(nn + 1) - special.gammaln(kk + 1) - special.gammaln(nn - kk + 1)
                + special.xlogy(kk, p) + special.xlog1py(nn - kk, -p))
    return np.where(ok, np.exp(logp), 0.0)


#: q -> (log j!, j log q, j log(1 - q)) at j = 0, 1, ...: the pmf's terms, shared by the curves at one q (a
#: table's gaps, a search over the gap); each value depends on its own j alone
_TABLES: dict[float, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def _pmf_tables(q: float, top: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pmf's term tables at ``q`` over at least ``0 <= j < top`` (``top <= _TABLE_MAX``), kept per q."""
    kept = _TABLES.get(q)
    if kept is None or kept[0].size < top:
        # a tenth to spare (a search's next n are near), or half as much again as kept
        j = np.arange(min(max(top + top // 10 + 64, 3 * (kept[0].size if kept else 0) // 2), _TABLE_MAX),
                      dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            kept = (special.gammaln(j + 1), special.xlogy(j, q), special.xlog1py(j, -q))
        if len(_TABLES) >= 4:   # a few disagreements at most
            _TABLES.clear()
        _TABLES[q] = kept
    return kept


class _Curve:
    """Exact McNemar power as a function of n at one (gap, q, alpha).

    A search calls it many times over overlapping ranges of n, so it keeps what does not depend on
    the call: the conditional power at each number ``m`` of discordant items, and the log-gamma and
    ``x log p`` terms of the binomial pmf at each integer (:func:`_pmf_tables`, shared by the curves at one
    ``q``), over ranges that grow as asked for. Every
    value depends on its own ``m`` (or integer) alone, so the kept values are those a fresh
    computation gives, bit for bit. What is kept stays small: a range far from the kept one replaces
    it (a search probes far-apart n at first), and the pmf's tables are used up to ``_TABLE_MAX`` items
    (the pmf is computed directly above).
    """

    def __init__(self, gap: float, q: float, alpha: float) -> None:
        self.q, self.alpha = q, alpha
        self.pi = (q + gap) / (2 * q)
        self._m0 = 0
        self._cp = np.empty(0)
        self._lg = self._xa = self._xb = np.empty(0)

    def _cp_at(self, lo: int, hi: int) -> np.ndarray:
        return _conditional_power(np.arange(lo, hi + 1), self.pi, _reject_range(lo, hi, self.alpha))

    def _cond_power(self, lo: int, hi: int) -> np.ndarray:
        """The conditional power at m = lo..hi (kept over the union of nearby ranges asked for)."""
        self._m0, self._cp = _kept_range((self._m0, self._cp), lo, hi, self._cp_at)
        return self._cp[lo - self._m0:hi - self._m0 + 1].copy()

    def _pmf(self, m: np.ndarray, n: np.ndarray) -> np.ndarray:
        """``_binom_pmf(m[None, :], n[:, None], q)`` from tables of its terms at each integer."""
        top = int(n.max()) + 1
        if top > _TABLE_MAX:
            return _binom_pmf(m[None, :], n[:, None], self.q)
        if self._lg.size < top:
            self._lg, self._xa, self._xb = _pmf_tables(self.q, top)
        k, nn = m[None, :], n[:, None]
        lg, xa, xb = self._lg, self._xa, self._xb
        if int(m[-1]) <= int(n.min()):
            # every m <= every n (a search's windows): no cell to zero, and the terms of m and of n are read once
            # each and broadcast (the same values, term by term, as the general case below)
            rest = nn - k
            return np.exp(lg[nn] - lg[k] - lg[rest] + xa[k] + xb[rest])
        ok = k <= nn   # m >= 0 here
        kk, rest = np.where(ok, k, 0), np.where(ok, nn - k, 0)
        nn = np.where(ok, nn, 0)
        logp = lg[nn] - lg[kk] - lg[rest] + xa[kk] + xb[rest]
        return np.where(ok, np.exp(logp), 0.0)

    def __call__(self, n: np.ndarray) -> np.ndarray:
        q = self.q
        sd = math.sqrt(float(n.max()) * q * (1 - q))
        # beyond 10 sd of n q the binomial mass is below 1e-22
        lo = int(max(0, math.floor(float(n.min()) * q - 10 * sd - 5)))
        hi = int(min(int(n.max()), math.ceil(float(n.max()) * q + 10 * sd + 5)))
        m = np.arange(lo, hi + 1)
        cp = self._cond_power(lo, hi)
        out = np.empty(n.shape)
        for s0 in range(0, n.size, 256):  # chunks keep the (n, m) pmf table small
            nn = n[s0:s0 + 256]
            out[s0:s0 + 256] = self._pmf(m, nn) @ cp
        return out


def _sawtooth(q: float, alpha: float) -> float:
    """Share of the exact power's long saw-tooth in n that the spread of the discordant count leaves.

    The rejection boundary ``k(m) ~ m/2 - z sqrt(m)/2`` (``z = z_{1-alpha/2}``) makes the conditional power
    oscillate in m with a period of about ``2 sqrt(m) / z``; averaging over ``m ~ Bin(n, q)`` (standard deviation
    ``sqrt(n q (1 - q))``) damps it by ``exp(-2 pi^2 r^2)`` with ``r = z sqrt(1 - q) / 2``, whatever n. Near
    ``q = 1`` little is damped and the power rises with n in long steps.
    """
    r = float(special.ndtri(1.0 - alpha / 2.0)) * math.sqrt(max(0.0, 1.0 - q)) / 2.0
    return math.exp(-2.0 * math.pi ** 2 * r * r)


def _items_by_bisection(curve: "_Curve", gap: float, target: float, start: int) -> tuple[int, float]:
    """The search over n by growth, halving and bisection on whole windows, then a scan of ``4 STAY_WINDOW`` n
    below: what :func:`_exact_items` falls back to where the power is a saw-tooth at the crossing (there the
    answer depends on which windows a search computes, and this search's answers are kept)."""
    W = STAY_WINDOW

    def ok(n: int) -> bool:
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
    a = max(1, hi - 4 * W)
    f = curve(np.arange(a, hi + W)) >= target
    for n0 in range(a, hi + 1):
        if f[n0 - a:n0 - a + W].all():
            hi = n0
            break
    return hi, float(curve(np.array([hi]))[0])


def _exact_items(gap: float, q: float, alpha: float, target: float, start: int) -> tuple[int, float]:
    """Smallest n from which the exact power stays >= target for STAY_WINDOW consecutive n.

    Three steps, each on few n near the answer (so the conditional powers and rejection boundaries computed stay
    those of a narrow range of m):

    1. a crossing ``f, f + 1`` (power below the target at ``f``, at or above it at ``f + 1``): secant steps on
       the power's normal score against ``sqrt(n)`` (nearly a line: the normal formula's), from ``start``, kept
       inside the bracket of n known to fall short and n known to reach the target, halving it when a step
       would not;
    2. the run of STAY_WINDOW n at or above the target from ``f + 1`` (a window computed whole);
    3. no earlier run within ``4 STAY_WINDOW`` n below it: every run of STAY_WINDOW consecutive n below the
       run's start ``s`` (all of them below ``s - 1``, which falls short) holds one of ``s - 2, s - 2 - W, ...``,
       so the power at those four n alone rules the runs out.

    Where the power is not smooth at the crossing, the answer depends on which n a search computes; there the
    answers of the growth-halving-bisection search are kept (:func:`_items_by_bisection`): where the saw-tooth is
    little damped (:func:`_sawtooth` above 0.2: ``q`` near 1), and where the run from the crossing is broken, one
    of the four n reaches the target, or the power at them does not fall going down.
    """
    W = STAY_WINDOW
    curve = _Curve(gap, q, alpha)
    if _sawtooth(q, alpha) > 0.2:
        return _items_by_bisection(curve, gap, target, start)
    one: dict[int, float] = {}

    def at(n: int) -> float:
        v = one.get(n)
        if v is None:
            v = one[n] = float(curve(np.array([n]))[0])
        return v

    def too_many(n: int) -> None:
        if n > 10**9:
            raise SolverError(f"the exact McNemar power search found no item count up to 10^9 with power >= "
                              f"{target:g} for `gap` {gap:g}; use `method`='normal'", param="method")

    # 1. a crossing
    z_t = float(special.ndtri(target))

    def score(v: float) -> float:
        return float(special.ndtri(min(max(v, 1e-300), 1.0 - 1e-16)))

    slope0 = gap / math.sqrt(q)          # the normal formula's d z / d sqrt(n)
    short, reach = 0, 0                  # largest n known short of the target, smallest known to reach it (0: none)
    n = max(int(start), 1)
    prev: tuple[float, float] | None = None
    while reach == 0 or reach - short > 1:
        too_many(n)
        v = at(n)
        if v >= target:
            reach = n if reach == 0 else min(reach, n)
        else:
            short = max(short, n)
        if reach == 1:
            break
        s, z = math.sqrt(n), score(v)
        slope = slope0
        if prev is not None and prev[0] != s:
            sl = (z - prev[1]) / (s - prev[0])
            if math.isfinite(sl) and sl > 0:
                slope = sl
        prev = (s, z)
        guess = (s + (z_t - z) / slope) ** 2
        if not math.isfinite(guess):
            guess = 2.0 * n
        # probe the n just at or above the predicted crossing (a pass there and a shortfall just below end it)
        nxt = int(math.ceil(guess - 1e-9)) if v < target else int(math.floor(guess + 1e-9))
        if reach == 0:
            nxt = max(nxt, n + 1, short + 1)
            nxt = min(nxt, 2 * n + 1)    # no more than doubling when nothing reaches the target yet
        else:
            lo_ = short + 1
            nxt = min(max(nxt, lo_), reach - 1)
            if nxt in one:                 # the prediction is no help: halve the bracket
                nxt = (short + reach) // 2
        n = nxt
    # 2. the run of W n from the crossing, and 3. no n reaching the target at the four n below that rule out an
    # earlier run; else (a saw-tooth at the crossing) the bisection search
    s0 = reach
    too_many(s0)
    below = [at(x) for x in range(s0 - 2, max(1, s0 - 4 * W) - 1, -W)]
    if not bool(np.all(curve(np.arange(s0, s0 + W)) >= target)) or any(v >= target for v in below) \
            or any(v <= w for v, w in zip(below, below[1:])):
        return _items_by_bisection(curve, gap, target, start)
    return s0, at(s0)


def _exact_gap(n: int, q: float, alpha: float, target: float) -> float:
    """Smallest gap d in (0, q] whose exact power at n items is >= target (NaN if none).

    The answer is that of a bisection of (0, q] down to a width of 1e-9 (the ``hi`` it ends on). The power rises
    with the gap, so each step's verdict is known without computing it once the step's midpoint lies outside a
    bracket of gaps whose powers were computed (one short of the target, one reaching it); a regula falsi on the
    power's normal score (nearly a line in the gap) narrows that bracket to 1e-12 in a few powers first, and the
    bisection then computes the power only at midpoints inside it (or within 1e-13 of it).
    """
    def pw(g: float) -> float:
        return float(mcnemar_power(n, gap=g, disagreement=q, alpha=alpha)[0])

    top = pw(q)
    if top < target:
        return float("nan")
    z_t = float(special.ndtri(target))

    def score(v: float) -> float:
        return float(special.ndtri(min(max(v, 1e-300), 1.0 - 1e-16))) - z_t

    # the bracket: a (short of the target; 0 is taken as short, as the bisection does) and b (reaching it)
    a, fa = 0.0, None
    b, fb = q, score(top)
    z_a = float(special.ndtri(1.0 - alpha / 2.0))
    g = (z_a + z_t) * math.sqrt(q / n)           # the normal formula's gap
    side = 0
    for _ in range(60):
        if b - a <= 1e-12:
            break
        if not a < g < b:   # a step onto or past an end (one end's power met the target to the bit): just inside it
            g = b - 4e-13 if fa is None or abs(fb) <= abs(fa) else a + 4e-13
            if not a < g < b:
                g = 0.5 * (a + b)
        v = pw(g)
        if v >= target:
            b, fb = g, score(v)
            if side == 1 and fa is not None:
                fa *= 0.5                            # Illinois: the end kept twice counts half
            side = 1
        else:
            a, fa = g, score(v)
            if side == -1:
                fb *= 0.5
            side = -1
        if fa is None:                               # one end computed: a step of the normal formula's slope
            g = b - fb / math.sqrt(n / q)
        else:
            g = b - fb * (b - a) / (fb - fa) if fb != fa else 0.5 * (a + b)
    lo, hi = 0.0, q
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid >= b + 1e-13:
            reach = True
        elif mid <= a - 1e-13:
            reach = False
        else:
            reach = pw(mid) >= target
        if reach:
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-9:
            break
    return hi


@dataclass(frozen=True, eq=False)
class PowerResult(Result):
    """Items needed for a gap, or the gap detectable with a number of items.

    Attributes
    ----------
    solved_for : str
        ``"items"`` or ``"gap"``.
    disagreement : float
        ``q = E[d_i^2]``: the share of items on which the two models differ (0/1 scores),
        or the mean squared per-item difference (continuous scores).
    alpha, power : float
        Two-sided significance level and power.
    gap : float or None
        The gap (fraction) asked about (``solved_for="items"``) or the detectable gap.
    items : int or None
        The number of items given (``solved_for="gap"``) or needed.
    items_needed : int or None
        ``method="normal"``: ``ceil((z_{1-alpha/2} + z_power)^2 q / gap^2)``. ``method="exact"``:
        the smallest n from which the exact McNemar test's power stays at or above ``power``
        (for :data:`STAY_WINDOW` consecutive item counts).
    detectable_gap : float or None
        ``method="normal"``: ``(z_{1-alpha/2} + z_power) sqrt(q / items)``. ``method="exact"``:
        the smallest gap the exact test detects with probability ``power`` at ``items`` items
        (NaN when no gap up to ``q`` is).
    ci_half_width : float
        ``z_{1-alpha/2} sqrt(q / n)`` at the given or needed number of items (approximate).
    method : str
        ``"exact"`` (exact McNemar power; the default for ``binary=True``) or ``"normal"``
        (the formula of [A, M]; the default for continuous scores).
    items_needed_normal : int or None
        The formula's items (solved for items); equal to ``items_needed`` for ``"normal"``.
    achieved_power : float or None
        Exact power of the exact McNemar test at the answer (``"exact"`` only).
    note : Note or None
        Why there is no answer, when ``detectable_gap`` is NaN (``"exact"``: even a gap of ``q``
        does not reach the power at this many items): ``Note("no_detectable_gap", {"items", "disagreement",
        "best_power", "power"})``, with ``best_power`` the exact test's power at a gap of ``q``; its sentence
        is ``ranktrust.reporting.note_text(result.note)`` (the JSON keeps the record and, from the command
        line, its ``"text"``).
    binary : bool
        Whether ``q`` was read as a share of discordant 0/1 items (see :func:`power`).
    table : PowerTable
        The items needed for the gaps :data:`TABLE_GAPS` at this disagreement, level, power and
        method: the table ``ranktrust power`` prints (computed on first use, then kept).
    """

    solved_for: str
    disagreement: float
    alpha: float
    power: float
    gap: float | None
    items: int | None
    items_needed: int | None
    detectable_gap: float | None
    ci_half_width: float
    method: str = "normal"
    items_needed_normal: int | None = None
    achieved_power: float | None = None
    note: Note | None = None
    binary: bool = True

    @functools.cached_property
    def table(self) -> "PowerTable":
        return power_table(self.disagreement, TABLE_GAPS, alpha=self.alpha, power=self.power, binary=self.binary,
                           method=self.method)

    def to_dict(self) -> PowerJSON:
        """Every field under its own name (whichever was solved for), and the table's rows."""
        return jsonable({**{f: getattr(self, f) for f in self.__dataclass_fields__},
                         "table": self.table.to_dict()["table"]})


#: the gaps of :attr:`PowerResult.table` and of :func:`power_table` by default (fractions)
TABLE_GAPS = (0.01, 0.02, 0.03, 0.05, 0.10)


def power(
    *,
    gap: float | None = None,
    items: int | None = None,
    disagreement: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    binary: bool = True,
    method: str = "auto",
) -> PowerResult:
    """Items needed to detect a gap, or the gap detectable with a number of items.

    Exactly one of ``gap`` and ``items`` is ``None``: that one is solved for.

    Parameters
    ----------
    gap : float, optional
        Difference in score to detect, as a fraction (0.02 = 2 points).
    items : int, optional
        Number of items in the benchmark.
    disagreement : float
        Share ``q`` in (0, 1] of items on which the two models' results differ (for
        continuous scores, the mean squared per-item difference). Estimate it from data with
        :func:`estimate_disagreement`.
    alpha : float, default: ``0.05``
        Two-sided significance level.
    power : float, default: ``0.8``
        Probability of detecting a true gap of ``gap``.
    binary : bool, default: True
        True for 0/1 scores (what ``ranktrust power --disagreement Q`` assumes): ``q`` is then the
        share of discordant items and a gap can be at most ``q``. False (any scores in [0, 1]):
        ``q = E[d_i^2]`` and a gap can be at most ``sqrt(q)``.
    method : {"auto", "exact", "normal"}, default: ``"auto"``
        ``"exact"``: the exact power of the exact McNemar test (0/1 scores only);
        ``"normal"``: the formula of [A, M] (reproduces [A]'s 21,192 / 5,298 / 2,355 / 848 /
        212 items); ``"auto"`` = ``"exact"`` with ``binary=True`` (the default), else ``"normal"``.
        The command line has the same default (``--method auto``) and the same choices.

    Returns
    -------
    PowerResult

    Raises
    ------
    ValueError
        Both or neither of ``gap``/``items`` given; values out of range; a gap that the
        disagreement does not allow: ``gap > sqrt(q)`` (the variance ``q - gap^2`` of a
        paired difference would be negative), or for ``binary=True`` ``gap > q``
        (``|b - c|/n`` cannot exceed ``(b + c)/n``).

    Notes
    -----
    ``n = (z_{1-alpha/2} + z_power)^2 q / d^2`` [A, M]. With ``d_i`` the per-item paired
    difference, ``q = E[d_i^2]`` and ``d = E[d_i]``, its variance is ``q - d^2``; the formula
    approximates it by ``q`` (this gives [A]'s published figures). At ``alpha = 0.05`` and
    80% power the factor is ``(1.960 + 0.842)^2 = 7.849``. The exact McNemar test is discrete
    and conservative, so at the formula's n it has only 76.6-79.6% power (q = 0.02...0.5);
    ``method="exact"`` sums the power over ``b + c ~ Bin(n, q)`` and
    ``b | b + c ~ Bin(b + c, (q + d)/(2q))`` (:func:`mcnemar_power`) and returns 2-7% more items,
    e.g. 881 instead of 848 at q = 0.27, d = 5 points.

    References
    ----------
    .. [1] [A] "Is the #1 AI Model Really #1?" (2026), section on how many questions are needed.
    .. [2] E. Miller, arXiv:2411.00640 (2024).

    Examples
    --------
    >>> power(gap=0.02, disagreement=0.27).items_needed                    # the exact test
    5390
    >>> power(gap=0.02, disagreement=0.27, method="normal").items_needed   # the formula
    5298
    >>> round(power(items=500, disagreement=0.20).ci_half_width * 100, 1)
    3.9
    >>> power(gap=0.02, disagreement=0.27).table.items_needed.tolist()     # what the command prints
    [21385, 5390, 2413, 881, 223]
    """
    if (gap is None) == (items is None):
        raise ArgumentError(
            "give exactly one of `gap` and `items` (the other is solved for); got "
            + ("both" if gap is not None else "neither")
        )
    if disagreement is None:
        raise ArgumentError(
            "`disagreement` is required: the share of items on which the two models differ "
            "(estimate it from data with estimate_disagreement(m))"
        )
    q = _unit("disagreement", disagreement, closed_high=True)
    a = _unit("alpha", alpha)
    pw = _unit("power", power)
    if method not in ("auto", "exact", "normal"):
        raise ArgumentError(f"`method` must be 'auto', 'exact' or 'normal', got {method!r}")
    if method == "exact" and not binary:
        raise ArgumentError("`method`='exact' is the exact McNemar test for 0/1 scores: pass `binary`=True, "
                         "or use `method`='normal' for continuous scores")
    exact = method == "exact" or (method == "auto" and bool(binary))
    z_a, z_b = _z_sum(a, pw)
    if gap is not None:
        d = _unit("gap", gap, hint=" (a fraction: 0.02 = 2 points)")
        if d > _max_gap(q, bool(binary)):
            if binary:
                raise ArgumentError(
                    f"`gap` {d:g} is larger than `disagreement` {q:g}: two models with 0/1 scores that differ "
                    "on a share q of items cannot differ in score by more than q"
                )
            raise ArgumentError(
                f"`gap` {d:g} is larger than sqrt(`disagreement`) = {math.sqrt(q):.4g}: with a mean squared "
                f"per-item difference q = {q:g} the gap can be at most sqrt(q) (its variance q - gap^2 "
                "would be negative); give a smaller gap or a larger disagreement"
            )
        n_float = (z_a + z_b) ** 2 * q / (d * d)
        # guard against 5298.000000001 from rounding: round to 9 digits before ceil
        n_norm = int(math.ceil(round(n_float, 9)))
        if exact:
            n_need, achieved = _exact_items(d, q, a, pw, n_norm)
        else:
            n_need, achieved = n_norm, None
        return PowerResult(
            solved_for="items", disagreement=q, alpha=a, power=pw, gap=d, items=None,
            items_needed=n_need, detectable_gap=None, ci_half_width=z_a * math.sqrt(q / n_need),
            method="exact" if exact else "normal", items_needed_normal=n_norm, achieved_power=achieved,
            binary=bool(binary),
        )
    n = _validate.count(items, "items")
    if exact:
        g = _exact_gap(n, q, a, pw)
        achieved = None if math.isnan(g) else float(mcnemar_power(n, gap=g, disagreement=q, alpha=a)[0])
        note = None
        if math.isnan(g):   # even the largest possible gap (q) falls short of the power: say by how much
            best = float(mcnemar_power(n, gap=q, disagreement=q, alpha=a)[0])
            note = Note("no_detectable_gap", {"items": n, "disagreement": q, "best_power": best, "power": pw})
        return PowerResult(
            solved_for="gap", disagreement=q, alpha=a, power=pw, gap=None, items=n, items_needed=None,
            detectable_gap=g, ci_half_width=z_a * math.sqrt(q / n), method="exact", achieved_power=achieved,
            note=note, binary=bool(binary),
        )
    return PowerResult(
        solved_for="gap", disagreement=q, alpha=a, power=pw, gap=None, items=n, items_needed=None,
        detectable_gap=(z_a + z_b) * math.sqrt(q / n), ci_half_width=z_a * math.sqrt(q / n), binary=bool(binary),
    )


_solve = power


class PowerRow(TypedDict):
    """One row of :meth:`PowerTable.to_dict` ``"table"``: items needed for one gap."""

    gap: float
    items_needed: int


class PowerJSON(TypedDict):
    """Layout of :meth:`PowerResult.to_dict`: the fields, and the table's rows."""

    solved_for: str
    disagreement: float
    alpha: float
    power: float
    gap: float | None
    items: int | None
    items_needed: int | None
    detectable_gap: float | None
    ci_half_width: float
    method: str
    items_needed_normal: int | None
    achieved_power: float | None
    note: NoteJSON | None
    binary: bool
    table: list[PowerRow]


class PowerTableJSON(TypedDict):
    """Layout of :meth:`PowerTable.to_dict` (the gaps and their items needed as rows)."""

    disagreement: float
    alpha: float
    power: float
    method: str
    table: list[PowerRow]


@dataclass(frozen=True, eq=False)
class PowerTable(Result):
    """Items needed for several gaps at one disagreement.

    Attributes
    ----------
    disagreement, alpha, power : float
    gaps : ndarray
        Gaps (fractions).
    items_needed : ndarray of int
    method : str
        ``"exact"`` or ``"normal"``, as in :func:`power`.
    """

    _table = ("gaps", "items_needed")

    disagreement: float
    alpha: float
    power: float
    gaps: np.ndarray
    items_needed: np.ndarray
    method: str = "normal"

    def to_dict(self) -> PowerTableJSON:
        return jsonable({
            "disagreement": self.disagreement, "alpha": self.alpha, "power": self.power, "method": self.method,
            "table": [{"gap": g, "items_needed": n} for g, n in zip(self.gaps.tolist(), self.items_needed.tolist())],
        })


def power_table(
    disagreement: float,
    gaps: Sequence[float] = TABLE_GAPS,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    binary: bool = True,
    method: str = "auto",
) -> PowerTable:
    """Items needed for each gap in ``gaps`` (fractions) at one disagreement.

    Gaps the disagreement does not allow are left out: those above ``sqrt(q)``, or above
    ``q`` with ``binary=True`` (0/1 scores); see :func:`power`. ``method`` as in
    :func:`power`: with ``binary=True`` the default is the exact McNemar test's items.

    Examples
    --------
    >>> power_table(0.27).items_needed.tolist()                     # the exact test
    [21385, 5390, 2413, 881, 223]
    >>> power_table(0.27, method="normal").items_needed.tolist()    # the formula
    [21192, 5298, 2355, 848, 212]
    """
    q = _unit("disagreement", disagreement, closed_high=True)
    top = _max_gap(q, bool(binary))
    g = np.asarray([x for x in gaps if 0 < float(x) <= top and float(x) < 1], dtype=np.float64)
    rs = [_solve(gap=x, disagreement=q, alpha=alpha, power=power, binary=bool(binary), method=method)
          for x in g.tolist()]
    used = rs[0].method if rs else ("exact" if method == "exact" or (method == "auto" and binary) else "normal")
    return PowerTable(disagreement=q, alpha=float(alpha), power=float(power), gaps=g,
                      items_needed=np.asarray([int(r.items_needed) for r in rs], dtype=np.int64),  # type: ignore[arg-type]
                      method=used)


@analysis
def estimate_disagreement(m: "ScoreMatrix", *, pair: tuple[str, str] | None = None) -> float:
    """Disagreement ``q`` estimated from data.

    Parameters
    ----------
    m : ScoreMatrix
        At least two models.
    pair : (str, str), optional
        Two model names: their disagreement. Default: the median over all pairs.

    Returns
    -------
    float
        Share of shared items on which the two models' results differ; for continuous
        scores the mean squared per-item difference (the same quantity for 0/1 scores).

    Raises
    ------
    DataError
        Fewer than two models, unknown models, or no shared items.
    """
    from .._kernel import is_binary as _is_binary
    from ._pairs import pair_stats

    S = np.asarray(m.scores)
    if pair is not None:
        if len(pair) != 2:
            raise ArgumentError(f"`pair` must be two model names, got {pair!r}")
        ia, ib = m.index_of(pair[0]), m.index_of(pair[1])
        if ia == ib:
            raise DataError(f"`pair` names model {pair[0]!r} twice: give two different models")
        ii, jj = np.array([ia]), np.array([ib])
    else:
        if S.shape[0] < 2:
            raise DataError("estimating the disagreement needs at least two models; the data has one")
        ii, jj = np.triu_indices(S.shape[0], 1)
    st = pair_stats(S, ii, jj, binary=_is_binary(S))
    n = st["n"]
    with np.errstate(invalid="ignore", divide="ignore"):
        q = (st["ss"] + st["sum_d"] ** 2 / n) / n
    q = q[n > 0]
    if q.size == 0:
        raise DataError("no pair of models shares a scored item: cannot estimate the disagreement")
    return float(np.median(q))
