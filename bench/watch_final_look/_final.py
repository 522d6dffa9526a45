"""The final look: a fixed-n test of "j is a best model" at the last item, spent as an e-value.

When the benchmark size N is known (scope population), the best-set test of model j can hold back a share
``f`` of alpha for the last item, like a group-sequential trial with a final analysis. Its e-process is
``E_t = (1 - f) W_t + f F_t``: ``W`` is the betting test supermartingale (certifying at ``1/((1 - f) alpha)``
before N), ``F_t = 0`` for ``t < N`` and ``F_N = 1{phi_j rejects at level f alpha} / (f alpha)``. ``E[F_tau] <=
E[F_N] <= 1`` for every stopping time ``tau <= N`` when ``phi_j`` is a level-``f alpha`` test of "j is a best
model", so ``E`` is an e-process and ``P(E ever reaches 1/alpha) <= alpha`` (stop at the first crossing and
apply Markov). At N, j is excluded when ``phi_j`` rejects or ``W_j`` reached ``1/((1 - f) alpha)``.

``phi_j`` (Berger and Boos 1994): the statistic is ``T_j = max_k Z_kj`` over the rivals k still in play, ``Z_kj``
the paired t statistic of "k beats j" on the N items. Under "j is a best model" every standardized mean
difference ``theta_k = sqrt(N) (mu_k - mu_j) / sigma_kj`` is ``<= 0``, and ``P(T_j >= c) <= sum_k
Fbar(c - theta_k)`` (``Fbar`` the t tail). The thetas are unknown; a confidence set ``C`` holding all of them with
probability ``1 - beta`` (one-sided, Bonferroni over the K - 1 rivals) replaces each by its upper bound
``min(0, upper_k)``, and ``c`` solves ``sum_k Fbar(c - min(0, upper_k)) = f alpha - beta``. Then
``P(reject) <= P(theta not in C) + (f alpha - beta) <= f alpha``. A rival clearly below j (upper bound far
below 0) costs almost nothing, so the test pays only for the rivals that could plausibly beat j: Holm's
step-down effect, without relying on the sample leader. Rivals excluded earlier (not scored up to N) have no
``Z_kj`` at N; they stay in the sum with an upper bound from a time-uniform PrPl-EB confidence sequence at their
exclusion time (a stopping time, so a fixed-n bound would not do), and ``sigma_kj <= 1`` (scores in [0, 1]).
The t tail and the normal bounds make ``phi_j`` valid asymptotically, like the paired t test of ``rt.all_pairs``.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ._cs import _eb_bounds

__all__ = ["final_look_rejects"]

IN_PLAY_ONLY = False   # measurement only: ignore rivals out of play (not valid in general)
BETA_SHARE = 0.04   # share of the final look's level spent on the confidence set for the thetas


def _paired_t(X: np.ndarray, live: np.ndarray, riv: np.ndarray) -> np.ndarray:
    """``Z[a, b]``: paired t statistic of "riv[b] beats live[a]" on every item of ``X``."""
    n = X.shape[1]
    D = X[riv][None, :, :] - X[live][:, None, :]
    mu = D.mean(axis=-1)
    sd = D.std(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = mu / (sd / np.sqrt(n))
    return np.where(sd > 0, z, np.where(mu > 0, np.inf, np.where(mu < 0, -np.inf, 0.0)))


def final_look_rejects(X: np.ndarray, live: np.ndarray, in_play: np.ndarray, scored_until: np.ndarray,
                       level: float) -> np.ndarray:
    """For each model in ``live`` (in play, not excluded), whether the final-look test of "it is a best model"
    rejects at ``level`` (scores ``X`` in [0, 1], models x the N items in processing order)."""
    K, N = X.shape
    if live.size == 0 or K < 2 or N < 2:
        return np.zeros(live.size, dtype=bool)
    beta = BETA_SHARE * level
    a = level - beta
    b1 = beta / (K - 1)
    df = N - 1
    q = stats.t.isf(b1, df)
    play = np.flatnonzero(in_play)
    out_ = np.flatnonzero(~in_play)
    Zp = _paired_t(X, live, play)                          # (L, P)
    Zp[live[:, None] == play[None, :]] = -np.inf          # j against itself: no term
    T = Zp.max(axis=1)
    up = np.minimum(0.0, Zp + q)                           # upper bounds on theta, rivals in play
    up[~np.isfinite(Zp)] = -np.inf
    ups = [up]
    if out_.size and not IN_PLAY_ONLY:
        tk = scored_until[out_]
        Xn = np.nan_to_num(X)
        last = int(max(tk.max(), 1))
        y = (Xn[out_][None, :, :last] - Xn[live][:, None, :last] + 1) / 2     # (L, O, t)
        _, hi = _eb_bounds(y, 0.0, b1, None, 0.5)
        idx = np.maximum(tk - 1, 0)
        d_up = 2 * hi[:, np.arange(out_.size), idx] - 1                          # (L, O)
        ups.append(np.where(tk[None, :] > 0, np.minimum(0.0, d_up * np.sqrt(N)), 0.0))
    th = np.concatenate(ups, axis=1)
    # c solves sum_k Fbar(c - th_k) = a (decreasing in c): bisection, all models at once
    lo = np.full(live.size, -50.0)
    hi_c = np.full(live.size, 50.0)
    for _ in range(60):
        mid = (lo + hi_c) / 2
        s = stats.t.sf(mid[:, None] - th, df).sum(axis=1)
        big = s > a
        lo = np.where(big, mid, lo)
        hi_c = np.where(big, hi_c, mid)
    return T >= hi_c
