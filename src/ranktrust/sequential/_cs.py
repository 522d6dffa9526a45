"""Confidence sequences for the mean of a bounded stream, and for a paired difference.

Two constructions, both valid uniformly over time (any stopping rule, any amount of peeking):

- ``method="eb"``: the predictable plug-in empirical-Bernstein (PrPl-EB) sequence, in closed form from cumulative
  sums (Waudby-Smith & Ramdas 2024, Thm. 2; Howard et al. 2021).
- ``method="betting"``: the hedged-capital betting sequence, ``{m : max(W+_t(m), W-_t(m)) < 2/alpha}`` on a grid of
  candidate means (Waudby-Smith & Ramdas 2024, Thm. 3), usually the tighter of the two.

With ``population_size=N`` the items are the draws *without replacement* from a finite population of ``N`` (a
fixed benchmark scored in a random order): the centres become the mean of what is left, and the sequence is
intersected with the deterministic range the unseen items allow, so at ``t = N`` it is the exact mean
(Waudby-Smith & Ramdas 2020).

References
----------
.. [1] I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random variables by betting", JRSS-B 2024.
.. [2] S. R. Howard, A. Ramdas, J. McAuliffe and J. Sekhon, "Time-uniform, nonparametric, nonasymptotic
   confidence sequences", Annals of Statistics 49(2), 2021.
.. [3] I. Waudby-Smith and A. Ramdas, "Confidence sequences for sampling without replacement", NeurIPS 2020.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .. import _validate
from ..errors import ArgumentError
from ..results import Result
from ._stream import LAMBDA_RULES, StreamState, advance, running_moments

__all__ = ["ConfidenceSequence", "confidence_sequence", "paired_confidence_sequence"]

Method = Literal["betting", "eb"]


@dataclass(frozen=True, eq=False)
class ConfidenceSequence(Result):
    """A confidence sequence: bounds after each item, valid simultaneously over time.

    Attributes
    ----------
    ci_low, ci_high : ndarray, shape (..., n)
        Bounds on the mean after items ``1..t`` (running intersection over time), on the original scale.
    estimate : ndarray, shape (..., n)
        Running mean.
    method : str
        ``"betting"`` or ``"eb"``.
    confidence_level : float
    population_size : int or None
        ``N`` for sampling without replacement; ``None`` with replacement.
    bounds : tuple of float
        The range the values were known to lie in.
    """

    ci_low: np.ndarray
    ci_high: np.ndarray
    estimate: np.ndarray
    method: str
    confidence_level: float
    population_size: int | None
    bounds: tuple[float, float]
    alternative: str = "two-sided"

    def to_dict(self) -> dict[str, Any]:
        from ..results import jsonable

        return {"method": self.method, "confidence_level": self.confidence_level,
                "population_size": self.population_size, "alternative": self.alternative,
                "bounds": list(self.bounds), "ci_low": jsonable(self.ci_low), "ci_high": jsonable(self.ci_high),
                "estimate": jsonable(self.estimate)}


def _cs_iv(x: Any, method: str, confidence_level: float, population_size: int | None, bounds: tuple[float, float],
           alternative: str, rule: str) -> np.ndarray:
    _validate.choice(method, "method", ("betting", "eb"))
    _validate.confidence_level(confidence_level)
    _validate.alternative(alternative)
    _validate.choice(rule, "rule", LAMBDA_RULES)
    lo, hi = bounds
    if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
        raise ArgumentError(f"`bounds` must be two finite numbers low < high, got {bounds!r}", param="bounds")
    a = np.asarray(x, dtype=float)
    if a.ndim == 0 or a.shape[-1] == 0:
        raise ArgumentError("`x` must have at least one item on its last axis", param="x")
    if np.isnan(a).any():
        raise ArgumentError("`x` has NaN: a confidence sequence needs every item scored (drop unscored items first)",
                            param="x")
    if a.min() < lo - 1e-12 or a.max() > hi + 1e-12:
        raise ArgumentError(f"values must lie within `bounds` {bounds}, got [{a.min():g}, {a.max():g}]; "
                            "pass the range the score can take", param="bounds")
    if population_size is not None:
        if int(population_size) != population_size or population_size < a.shape[-1]:
            raise ArgumentError(f"`population_size` must be an integer >= the number of items ({a.shape[-1]}), "
                                f"got {population_size!r}", param="population_size")
    return (a - lo) / (hi - lo)


def _eb_bounds(y: np.ndarray, alpha_lo: float, alpha_hi: float, N: int | None, c: float) -> tuple[np.ndarray, np.ndarray]:
    """PrPl-EB lower/upper bounds after each item (closed form from cumulative sums), on [0, 1]."""
    s = y.reshape(-1, y.shape[-1])
    st = StreamState.zeros(s.shape[0])
    i, mu, var, _ = running_moments(st, s)
    out = []
    for alpha in (alpha_lo, alpha_hi):
        if alpha <= 0:
            out.append(None)
            continue
        la = np.log(1 / alpha)
        lam = np.minimum(np.sqrt(2 * la / (var * i * np.log1p(i))), c)
        pen = np.cumsum((s - mu) ** 2 * (-np.log1p(-lam) - lam), axis=-1)
        if N is None:
            num = np.cumsum(lam * s, axis=-1)
            den = np.cumsum(lam, axis=-1)
        else:
            s_prev = np.cumsum(s, axis=-1) - s
            num = np.cumsum(lam * (s + s_prev / (N - i + 1)), axis=-1)
            den = np.cumsum(lam * N / (N - i + 1), axis=-1)
        out.append((num, den, pen, la))
    lower = np.zeros_like(s)
    upper = np.ones_like(s)
    if out[0] is not None:
        num, den, pen, la = out[0]
        lower = np.maximum.accumulate((num - pen - la) / den, axis=-1)
    if out[1] is not None:
        num, den, pen, la = out[1]
        upper = np.minimum.accumulate((num + pen + la) / den, axis=-1)
    return lower.reshape(y.shape), upper.reshape(y.shape)


@dataclass
class IntervalState:
    """The PrPl-EB bounds of :func:`_eb_bounds` kept as running sums, so a new item updates them in constant
    time (the Watch's all-pairs intervals): ``advance`` over a block gives the same bounds as ``_eb_bounds`` over
    the whole stream (equal lower and upper levels). Values on [0, 1]."""

    moments: StreamState
    num: np.ndarray
    den: np.ndarray
    pen: np.ndarray
    low: np.ndarray       # running intersection (lower bound), clipped to the range the unseen items allow
    high: np.ndarray

    @classmethod
    def zeros(cls, s: int) -> "IntervalState":
        z = np.zeros(s)
        return cls(StreamState.zeros(s), z.copy(), z.copy(), z.copy(), z.copy(), np.ones(s))

    @property
    def n(self) -> np.ndarray:
        return self.moments.n

    def mean(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.n > 0, 2 * self.moments.sy / np.maximum(self.n, 1) - 1, np.nan)

    def advance(self, idx: np.ndarray, y: np.ndarray, alpha: float, N: int | None, c: float = 0.5) -> None:
        """Add the block ``y`` (len(idx) x B) to the streams ``idx``; ``alpha`` per side."""
        st = self.moments.take(idx)
        i, mu, var, sq = running_moments(st, y)
        la = np.log(1 / alpha)
        lam = np.minimum(np.sqrt(2 * la / (var * i * np.log1p(i))), c)
        pen = self.pen[idx][:, None] + np.cumsum((y - mu) ** 2 * (-np.log1p(-lam) - lam), axis=-1)
        csum = np.cumsum(y, axis=-1)
        if N is None:
            num = self.num[idx][:, None] + np.cumsum(lam * y, axis=-1)
            den = self.den[idx][:, None] + np.cumsum(lam, axis=-1)
            dl, dh = np.zeros_like(y), np.ones_like(y)
        else:
            s_prev = st.sy[:, None] + csum - y
            num = self.num[idx][:, None] + np.cumsum(lam * (y + s_prev / (N - i + 1)), axis=-1)
            den = self.den[idx][:, None] + np.cumsum(lam * N / (N - i + 1), axis=-1)
            tot = st.sy[:, None] + csum
            dl, dh = tot / N, (tot + (N - i)) / N
        lo = np.maximum(self.low[idx], ((num - pen - la) / den).max(axis=-1))
        hi = np.minimum(self.high[idx], ((num + pen + la) / den).min(axis=-1))
        self.low[idx] = np.clip(lo, dl[:, -1], dh[:, -1])
        self.high[idx] = np.maximum(np.clip(hi, dl[:, -1], dh[:, -1]), self.low[idx])
        self.num[idx], self.den[idx], self.pen[idx] = num[:, -1], den[:, -1], pen[:, -1]
        self.moments.put(idx, StreamState(st.n + y.shape[-1], st.sy + y.sum(-1), st.sv + sq.sum(-1), st.logw_up,
                                          st.logw_dn, st.hz_up, st.hz_dn))


def _betting_bounds(y: np.ndarray, alpha_lo: float, alpha_hi: float, N: int | None, c: float, rule: str,
                    grid: int) -> tuple[np.ndarray, np.ndarray]:
    """Hedged betting bounds on a grid of candidate means, after each item, on [0, 1]."""
    s = y.reshape(-1, y.shape[-1])
    S, n = s.shape
    g = np.linspace(0.0, 1.0, grid)
    G = g.size
    st = StreamState.zeros(S * G)
    lower = np.empty((S, n))
    upper = np.empty((S, n))
    lo_thr = np.log(1 / alpha_lo) if alpha_lo > 0 else np.inf
    hi_thr = np.log(1 / alpha_hi) if alpha_hi > 0 else np.inf
    rej = np.zeros((S, G), dtype=bool)
    cum = np.zeros(S)
    block = max(1, min(n, 2_000_000 // max(1, S * G)))
    la = np.full(S * G, np.log(1 / max(min(a for a in (alpha_lo, alpha_hi) if a > 0), 1e-300)))
    for b0 in range(0, n, block):
        yb = s[:, b0:b0 + block]
        B = yb.shape[1]
        yy = np.repeat(yb, G, axis=0)
        if N is None:
            m = np.repeat(np.broadcast_to(g, (S, G)).reshape(-1, 1), B, axis=1)
            imp_up = imp_dn = None
        else:
            t_prev = b0 + np.arange(B)
            s_prev = cum[:, None] + np.cumsum(yb, axis=1) - yb
            m = (N * g[None, :, None] - s_prev[:, None, :]) / (N - t_prev)[None, None, :]
            m = m.reshape(S * G, B)
            imp_up, imp_dn = m < 0, m > 1
        st, wu, wd = advance(st, yy, m, la, rule=rule, kind="betting", c=c, impossible_up=imp_up, impossible_dn=imp_dn)
        r = (wu >= lo_thr) | (wd >= hi_thr)
        r = r.reshape(S, G, B)
        r = np.logical_or.accumulate(r, axis=2) | rej[:, :, None]
        rej = r[:, :, -1]
        ok = ~r  # (S, G, B): grid points still in the set
        anyok = ok.any(axis=1)
        first = np.argmax(ok, axis=1)
        last = G - 1 - np.argmax(ok[:, ::-1, :], axis=1)
        # conservative: the set can reach halfway to the next rejected grid point, so widen by one step
        lo_b = g[np.maximum(first - 1, 0)]
        hi_b = g[np.minimum(last + 1, G - 1)]
        est = (cum[:, None] + np.cumsum(yb, axis=1)) / (b0 + np.arange(1, B + 1))
        lower[:, b0:b0 + B] = np.where(anyok, lo_b, est)
        upper[:, b0:b0 + B] = np.where(anyok, hi_b, est)
        cum = cum + yb.sum(axis=1)
    return lower.reshape(y.shape), upper.reshape(y.shape)


def _wor_range(y: np.ndarray, N: int | None) -> tuple[np.ndarray, np.ndarray]:
    t = np.arange(1, y.shape[-1] + 1)
    cs = np.cumsum(y, axis=-1)
    if N is None:
        return np.zeros_like(cs), np.ones_like(cs)
    return cs / N, (cs + (N - t)) / N


def confidence_sequence(x: Any, *, method: Method = "betting", confidence_level: float = 0.95,
                        population_size: int | None = None, bounds: tuple[float, float] = (0.0, 1.0),
                        alternative: Literal["two-sided", "less", "greater"] = "two-sided",
                        rule: Literal["agrapa", "prpl"] = "prpl", grid: int = 1001, c: float = 0.5,
                        ) -> ConfidenceSequence:
    """Time-uniform confidence sequence for the mean of bounded values observed one at a time.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Values in their order of arrival on the last axis; leading axes are independent streams.
    method : {"betting", "eb"}, default: ``"betting"``
        Hedged-capital betting (on a grid of candidate means) or predictable plug-in empirical Bernstein.
    confidence_level : float, default: ``0.95``
        ``P(the mean is inside the bounds at every t) >= confidence_level``.
    population_size : int, optional
        ``N``: the items are a uniformly random order of a finite population of ``N`` (sampling without
        replacement); the bounds then close on the exact population mean at ``t = N``.
    bounds : (float, float), default: ``(0, 1)``
        The range the values can take.
    alternative : {"two-sided", "less", "greater"}, default: ``"two-sided"``
        ``"greater"`` gives only a lower bound (the upper is the range's top), ``"less"`` only an upper bound.
    rule : {"prpl", "agrapa"}, default: ``"prpl"``
        Bet sizes for ``method="betting"`` (``"eb"`` always uses ``"prpl"``).
    grid : int, default: ``1001``
        Candidate means for ``method="betting"``; each bound is widened by one grid step.
    c : float, default: ``0.5``
        Largest fraction of the wealth bet on one item.

    Returns
    -------
    ConfidenceSequence

    Notes
    -----
    Two-sided sequences put ``alpha/2`` on each side. PrPl-EB (``[1]``, Thm. 2): with
    ``lam_i = min(c, sqrt(2 log(1/a) / (var_{i-1} i log(1 + i))))``, the lower bound is
    ``(sum lam_i y_i - sum (y_i - mu_{i-1})^2 (-log(1 - lam_i) - lam_i) - log(1/a)) / sum lam_i``; without
    replacement ``y_i`` gains ``S_{i-1}/(N - i + 1)`` and ``lam_i`` the weight ``N/(N - i + 1)`` ([3]).

    References
    ----------
    .. [1] I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random variables by betting", JRSS-B 2024.
    .. [2] S. R. Howard, A. Ramdas, J. McAuliffe and J. Sekhon, Annals of Statistics 49(2), 2021.
    .. [3] I. Waudby-Smith and A. Ramdas, "Confidence sequences for sampling without replacement", NeurIPS 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from ranktrust.sequential import confidence_sequence
    >>> x = np.random.default_rng(0).binomial(1, 0.7, 2000)
    >>> cs = confidence_sequence(x, method="eb")
    >>> bool(cs.ci_low[-1] < 0.7 < cs.ci_high[-1])
    True
    """
    y = _cs_iv(x, method, confidence_level, population_size, bounds, alternative, rule)
    alpha = 1 - confidence_level
    a_lo = alpha / 2 if alternative == "two-sided" else (alpha if alternative == "greater" else 0.0)
    a_hi = alpha / 2 if alternative == "two-sided" else (alpha if alternative == "less" else 0.0)
    N = None if population_size is None else int(population_size)
    if method == "eb":
        lo, hi = _eb_bounds(y, a_lo, a_hi, N, c)
    else:
        lo, hi = _betting_bounds(y, a_lo, a_hi, N, c, rule, grid)
    dlo, dhi = _wor_range(y, N)
    lo = np.maximum.accumulate(np.clip(lo, 0, 1), axis=-1)
    hi = np.minimum.accumulate(np.clip(hi, 0, 1), axis=-1)
    hi = np.maximum(hi, lo)
    # the range the unseen items allow is certain: it wins over a (rare) miss of the random bounds
    lo = np.clip(lo, dlo, dhi)
    hi = np.clip(hi, dlo, dhi)
    L, H = bounds
    est = np.cumsum(y, axis=-1) / np.arange(1, y.shape[-1] + 1)
    f = H - L
    return ConfidenceSequence(ci_low=L + f * lo, ci_high=L + f * hi, estimate=L + f * est, method=method,
                              confidence_level=confidence_level, population_size=N, bounds=(float(L), float(H)),
                              alternative=alternative)


def paired_confidence_sequence(a: Any, b: Any, **kw: Any) -> ConfidenceSequence:
    """Confidence sequence for the mean paired difference ``a - b`` (items on the last axis).

    ``a`` and ``b`` are per-item scores in ``[0, 1]`` (each the mean over its runs), in their order of arrival;
    the differences lie in ``[-1, 1]``. Keywords as :func:`confidence_sequence` (except ``bounds``).

    Examples
    --------
    >>> import numpy as np
    >>> from ranktrust.sequential import paired_confidence_sequence
    >>> rng = np.random.default_rng(1)
    >>> a = rng.binomial(1, 0.75, 3000); b = np.where(rng.random(3000) < 0.8, a, 1 - a)
    >>> cs = paired_confidence_sequence(a, b, population_size=3000)
    >>> bool(np.isclose(cs.ci_low[-1], (a - b).mean()) and np.isclose(cs.ci_high[-1], (a - b).mean()))
    True
    """
    if "bounds" in kw:
        raise TypeError("paired_confidence_sequence() takes no `bounds`: the difference of [0, 1] scores is in [-1, 1]")
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    return confidence_sequence(d, bounds=(-1.0, 1.0), **kw)
