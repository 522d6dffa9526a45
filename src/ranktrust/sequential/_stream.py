"""Betting and empirical-Bernstein e-processes for bounded streams, advanced a block of items at a time.

Everything here works on values in ``[0, 1]`` with time on the last axis and any number of streams on
the first axis, so one call advances every pair (or every model's "is it the best?" test) over a whole
block of items with cumulative sums, and no Python loop runs per item.

For a stream ``y_1, y_2, ...`` with predictable centres ``m_i`` (the null conditional mean: a constant with
replacement, the mean of what is left of a finite population without replacement), two one-sided
test supermartingales are kept:

- ``up``: evidence that the mean is above the centre, ``W = prod(1 + lam_i (y_i - m_i))``, ``lam_i >= 0``;
- ``dn``: evidence that it is below, ``W = prod(1 - lam_i (y_i - m_i))``.

``kind="betting"`` uses those products (Waudby-Smith & Ramdas 2024, hedged capital, Sec. 4); ``kind="eb"`` uses
the predictable plug-in empirical-Bernstein supermartingale
``exp(sum lam_i (y_i - m_i) - sum (y_i - mu_{i-1})^2 (-log(1 - lam_i) - lam_i))`` (ibid., Thm. 2;
Howard, Ramdas, McAuliffe & Sekhon 2021). By Ville's inequality ``P(sup_t W_t >= 1/alpha) <= alpha`` under the null.

Bet sizes (all predictable: they use items ``1..i-1`` only):

- ``"agrapa"``: approximate growth-rate adaptive plug-in, ``lam = (mu - m) / (var + (mu - m)^2)`` clipped to
  ``[0, c/m]`` (``[0, c/(1-m)]`` for ``dn``); the Kelly bet with plug-in moments (ibid., Sec. 5.1).
- ``"prpl"``: ``lam = sqrt(2 log(1/alpha) / (var * i * log(1 + i)))``, clipped the same way (ibid., eq. (26)-(27)).

``mu`` and ``var`` are the regularised running mean and variance of the stream,
``mu_i = (1/2 + sum y) / (i + 1)``, ``var_i = (1/4 + sum (y_j - mu_j)^2) / (i + 1)``.

References
----------
.. [1] I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random variables by betting",
   JRSS-B 86(1), 2024.
.. [2] S. R. Howard, A. Ramdas, J. McAuliffe and J. Sekhon, "Time-uniform, nonparametric, nonasymptotic
   confidence sequences", Annals of Statistics 49(2), 2021.
.. [3] I. Waudby-Smith and A. Ramdas, "Confidence sequences for sampling without replacement", NeurIPS 2020.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ArgumentError

__all__ = ["StreamState", "advance", "log_wealth", "LAMBDA_RULES", "KINDS"]

LAMBDA_RULES = ("agrapa", "prpl")
KINDS = ("betting", "eb")
_EPS = 1e-12
HORIZON_WEIGHT = 0.5   # share of the initial capital on the horizon-tuned bets
HORIZON_RAMP = 1.0     # horizon-tuned bets grow as (i / N) ** HORIZON_RAMP (see ``bet_sizes``)


@dataclass
class StreamState:
    """Running statistics of ``S`` streams (arrays of shape ``(S,)``)."""

    n: np.ndarray        # items seen (int)
    sy: np.ndarray       # sum of y
    sv: np.ndarray       # sum of (y_i - mu_i)^2
    logw_up: np.ndarray  # log wealth of the "mean > centre" bet
    logw_dn: np.ndarray  # log wealth of the "mean < centre" bet
    hz_up: np.ndarray    # log wealth of the horizon-tuned component (used when a horizon is given)
    hz_dn: np.ndarray

    @classmethod
    def zeros(cls, s: int) -> "StreamState":
        z = np.zeros(s)
        return cls(np.zeros(s, dtype=np.int64), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), z.copy())

    def take(self, idx: np.ndarray) -> "StreamState":
        return StreamState(self.n[idx], self.sy[idx], self.sv[idx], self.logw_up[idx], self.logw_dn[idx],
                           self.hz_up[idx], self.hz_dn[idx])

    def put(self, idx: np.ndarray, other: "StreamState") -> None:
        self.n[idx] = other.n
        self.sy[idx] = other.sy
        self.sv[idx] = other.sv
        self.logw_up[idx] = other.logw_up
        self.logw_dn[idx] = other.logw_dn
        self.hz_up[idx] = other.hz_up
        self.hz_dn[idx] = other.hz_dn

    def copy(self) -> "StreamState":
        return self.take(slice(None))


def log_wealth(st: StreamState, horizon: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The log-wealth ``(up, dn)`` of each stream as :func:`advance` reports it (with a horizon, the mixture of the
    adaptive and the end-tuned halves)."""
    if horizon is None:
        return st.logw_up, st.logw_dn
    a, b = np.log1p(-HORIZON_WEIGHT), np.log(HORIZON_WEIGHT)
    with np.errstate(invalid="ignore"):
        return np.logaddexp(st.logw_up + a, st.hz_up + b), np.logaddexp(st.logw_dn + a, st.hz_dn + b)


def _shift_cumsum(a: np.ndarray, start: np.ndarray) -> np.ndarray:
    """``start + (sum of a over items before i)``, for each i (exclusive cumulative sum)."""
    c = np.cumsum(a, axis=-1)
    out = np.empty_like(c)
    out[..., 0] = 0.0
    out[..., 1:] = c[..., :-1]
    return out + start[..., None]


def running_moments(st: StreamState, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Predictable ``(i, mu_{i-1}, var_{i-1})`` for each item of the block (``i`` is 1-based), and the
    squared deviations ``(y_i - mu_i)^2`` that update the variance."""
    b = y.shape[-1]
    n_prev = st.n[:, None] + np.arange(b)[None, :]
    sy_prev = _shift_cumsum(y, st.sy)
    mu_prev = (0.5 + sy_prev) / (n_prev + 1)
    mu_incl = (0.5 + sy_prev + y) / (n_prev + 2)
    sq = (y - mu_incl) ** 2
    sv_prev = _shift_cumsum(sq, st.sv)
    var_prev = (0.25 + sv_prev) / (n_prev + 1)
    return n_prev + 1, mu_prev, var_prev, sq


def bet_sizes(i: np.ndarray, mu: np.ndarray, var: np.ndarray, m: np.ndarray, log_inv_alpha: np.ndarray | float,
              *, rule: str, kind: str, c: float, horizon: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Predictable bet sizes ``(lam_up, lam_dn)`` (both >= 0) against centres ``m``."""
    mc = np.clip(m, _EPS, 1 - _EPS)
    if rule == "agrapa":
        g = mu - mc
        raw = g / (var + g * g)
        up, dn = np.maximum(raw, 0.0), np.maximum(-raw, 0.0)
    elif rule == "prpl":
        la = np.asarray(log_inv_alpha, dtype=float)
        if la.ndim == 1:
            la = la[:, None]
        raw = np.sqrt(2.0 * la / (var * i * np.log1p(i)))
        up = dn = raw
    elif rule == "horizon":
        # the fixed-n bet sqrt(2 log(1/a) / (var N)), shaped by a deterministic ramp h_i = sqrt(2p + 1) (i/N)^p
        # (mean of h^2 over the N items is 1, so the total bet matches the constant one). A ramp puts the stake
        # where the evidence is: a test whose rival is chosen from the data (the leader so far) bets on a poor
        # rival early on. h depends on i and N only, so the bets stay predictable.
        la = np.asarray(log_inv_alpha, dtype=float)
        if la.ndim == 1:
            la = la[:, None]
        n_h = float(horizon)  # type: ignore[arg-type]
        ramp = np.sqrt(2 * HORIZON_RAMP + 1) * (np.minimum(i, n_h) / n_h) ** HORIZON_RAMP
        raw = ramp * np.sqrt(2.0 * la / (var * n_h))
        up = dn = raw
    else:  # pragma: no cover - validated by callers
        raise ArgumentError(f"`rule` must be one of {LAMBDA_RULES}, got {rule!r}", param="rule")
    if kind == "eb":
        return np.minimum(up, c), np.minimum(dn, c)
    return np.minimum(up, c / mc), np.minimum(dn, c / (1 - mc))


def advance(st: StreamState, y: np.ndarray, m: np.ndarray | float, log_inv_alpha: np.ndarray | float, *,
            rule: str = "agrapa", kind: str = "betting", c: float = 0.5,
            impossible_up: np.ndarray | None = None, impossible_dn: np.ndarray | None = None,
            horizon: int | None = None) -> tuple[StreamState, np.ndarray, np.ndarray]:
    """Advance ``S`` streams over a block ``y`` of shape ``(S, B)``.

    Parameters
    ----------
    m : array (S, B) or float
        Predictable null centre of each item.
    impossible_up, impossible_dn : bool arrays (S, B), optional
        Where the "mean <= centre" (resp. ">= centre") null is already impossible (a finite population whose
        remaining items cannot bring the mean there): the wealth becomes infinite.
    horizon : int, optional
        When the number of items that can come is known, the wealth is the average of two test
        supermartingales (so still one): the adaptive bets of ``rule`` and bets tuned to be strongest at the
        horizon, ``lam_i = h_i sqrt(2 log(2/alpha) / (var * horizon))`` ([1], the fixed-n choice, ramped by
        ``h_i = sqrt(3) i / horizon``). The average costs at most ``log 2`` against either one.

    Returns
    -------
    new_state, logw_up, logw_dn
        The state after the block and the log-wealth after each item, shape ``(S, B)``.
    """
    y = np.asarray(y, dtype=float)
    m = np.broadcast_to(np.asarray(m, dtype=float), y.shape)
    i, mu, var, sq = running_moments(st, y)
    lu, ld = bet_sizes(i, mu, var, m, log_inv_alpha, rule=rule, kind=kind, c=c)
    r = y - np.clip(m, 0.0, 1.0)

    def incs(lu: np.ndarray, ld: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if impossible_up is not None:
            lu = np.where(impossible_up | (m >= 1), 0.0, lu)
        if impossible_dn is not None:
            ld = np.where(impossible_dn | (m <= 0), 0.0, ld)
        if kind == "betting":
            return np.log1p(lu * r), np.log1p(-ld * r)
        pen = (y - mu) ** 2
        return lu * r - pen * (-np.log1p(-lu) - lu), -ld * r - pen * (-np.log1p(-ld) - ld)

    inc_up, inc_dn = incs(lu, ld)
    wu = st.logw_up[:, None] + np.cumsum(inc_up, axis=-1)
    wd = st.logw_dn[:, None] + np.cumsum(inc_dn, axis=-1)
    if horizon is not None:
        # tuned to this half's own threshold, log(1/alpha) + log(1/weight)
        la_h = np.asarray(log_inv_alpha, dtype=float) + np.log(1 / HORIZON_WEIGHT)
        hu, hd = bet_sizes(i, mu, var, m, la_h, rule="horizon", kind=kind, c=c, horizon=horizon)
        h_up, h_dn = incs(hu, hd)
        zu = st.hz_up[:, None] + np.cumsum(h_up, axis=-1)
        zd = st.hz_dn[:, None] + np.cumsum(h_dn, axis=-1)
        a, b = np.log1p(-HORIZON_WEIGHT), np.log(HORIZON_WEIGHT)
        out_u = np.logaddexp(wu + a, zu + b)
        out_d = np.logaddexp(wd + a, zd + b)
    else:
        zu, zd = np.broadcast_to(st.hz_up[:, None], wu.shape), np.broadcast_to(st.hz_dn[:, None], wd.shape)
        out_u, out_d = wu, wd
    if impossible_up is not None:
        out_u = np.where(np.logical_or.accumulate(impossible_up, axis=-1), np.inf, out_u)
    if impossible_dn is not None:
        out_d = np.where(np.logical_or.accumulate(impossible_dn, axis=-1), np.inf, out_d)
    dead_u = np.isinf(out_u[:, -1])
    dead_d = np.isinf(out_d[:, -1])
    new = StreamState(st.n + y.shape[-1], st.sy + y.sum(-1), st.sv + sq.sum(-1),
                      np.where(dead_u, np.inf, wu[:, -1]), np.where(dead_d, np.inf, wd[:, -1]),
                      np.where(dead_u, np.inf, zu[:, -1]), np.where(dead_d, np.inf, zd[:, -1]))
    return new, out_u, out_d
