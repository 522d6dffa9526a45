"""The final look: a fixed-n test of "j is a best model" at the last item, spent as an e-value.

Used for the best set (``target="best"``, portfolio) at scope population with a known benchmark size N,
and only without elimination (``eliminate=False``: every model is scored on every item, so every rival has
its statistic at N). The best-set test of model j holds back a share ``f`` (:data:`FINAL_LOOK`) of alpha for
the last item, like a group-sequential trial with a final analysis. Its e-process is
``E_t = (1 - f) W_t + f F_t``: ``W`` is the betting test supermartingale (so the bets certify at
``1/((1 - f) alpha)`` before N), ``F_t = 0`` for ``t < N`` and ``F_N = 1{phi_j rejects at level f alpha} /
(f alpha)``. ``E[F_tau] <= E[F_N] <= 1`` for every stopping time ``tau <= N`` when ``phi_j`` is a level-``f alpha``
test of "j is a best model", so ``E`` is an e-process and ``P(E ever reaches 1/alpha) <= alpha`` (stop at the
first crossing and apply Markov). At N, j is excluded when ``phi_j`` rejects or ``W_j`` reached
``1/((1 - f) alpha)``.

``phi_j`` (Berger and Boos 1994): the statistic is ``T_j = max_k Z_kj`` over the other models k, ``Z_kj`` the
paired t statistic of "k beats j" on the N items. Under "j is a best model" every standardized mean
difference ``theta_k = sqrt(N) (mu_k - mu_j) / sigma_kj`` is ``<= 0``, and ``P(T_j >= c) <= sum_k
Fbar(c - theta_k)`` (``Fbar`` the t tail). The thetas are unknown; a confidence set ``C`` holding all of them with
probability ``1 - beta`` (one-sided, Bonferroni over the K - 1 rivals) replaces each by its upper bound
``min(0, upper_k)``, and ``c`` solves ``sum_k Fbar(c - min(0, upper_k)) = f alpha - beta``. Then
``P(reject) <= P(theta not in C) + (f alpha - beta) <= f alpha`` (Berger and Boos's p-value, maximised over
``C``). A rival clearly below j (upper bound far below 0) costs almost nothing, so the test pays only for the
rivals that could plausibly beat j: Holm's step-down effect, without relying on the sample leader. The t tails
make ``phi_j`` valid asymptotically, like the paired t test of ``rt.all_pairs``; the bets before it are exact.

With elimination the final look is off: a model eliminated early has no statistic at N, and a valid
``phi_j`` would have to bound its theta from its few items, which costs about a Bonferroni over every
eliminated rival (measured: docs/watch.md). docs/statistics.md section 7 has the argument; the
simulations are in ``tests/test_sequential_final.py`` and ``bench/bench_watch_final.py``.

References
----------
.. [1] R. L. Berger and D. D. Boos, "P values maximised over a confidence set for the nuisance parameter",
   JASA 89(427), 1994.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["FINAL_LOOK", "final_look_rejects"]

#: share of alpha held back for the final look (without elimination); the bets get the rest
FINAL_LOOK = 0.4
#: share of the final look's level spent on the confidence set for the thetas
BETA_SHARE = 0.04


def _paired_t(X: np.ndarray, live: np.ndarray, riv: np.ndarray) -> np.ndarray:
    """``Z[a, b]``: paired t statistic of "riv[b] beats live[a]" on every item of ``X``."""
    n = X.shape[1]
    D = X[riv][None, :, :] - X[live][:, None, :]
    mu = D.mean(axis=-1)
    sd = D.std(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = mu / (sd / np.sqrt(n))
    return np.where(sd > 0, z, np.where(mu > 0, np.inf, np.where(mu < 0, -np.inf, 0.0)))


def final_look_rejects(X: np.ndarray, live: np.ndarray, level: float) -> np.ndarray:
    """For each model in ``live`` (not excluded), whether the final-look test of "it is a best model" rejects
    at ``level``; ``X`` holds every model's scores in [0, 1] on all N items (no elimination)."""
    K, N = X.shape
    if live.size == 0 or K < 2 or N < 2:
        return np.zeros(live.size, dtype=bool)
    beta = BETA_SHARE * level
    a = level - beta
    df = N - 1
    q = stats.t.isf(beta / (K - 1), df)
    Z = _paired_t(X, live, np.arange(K))                     # (L, K)
    Z[live[:, None] == np.arange(K)[None, :]] = -np.inf     # j against itself: no term
    T = Z.max(axis=1)
    th = np.minimum(0.0, Z + q)                              # upper bounds on theta, at most 0 under the null
    th[~np.isfinite(Z)] = -np.inf
    # c solves sum_k Fbar(c - th_k) = a (decreasing in c): bisection, all models at once
    lo = np.full(live.size, -50.0)
    hi = np.full(live.size, 50.0)
    for _ in range(60):
        mid = (lo + hi) / 2
        big = stats.t.sf(mid[:, None] - th, df).sum(axis=1) > a
        lo = np.where(big, mid, lo)
        hi = np.where(big, hi, mid)
    return T >= hi
