"""Prediction-powered Bradley-Terry numerics: a judge's verdicts on every battle, a person's on a random subset.

The rectified M-estimator of PPI (Angelopoulos et al., Science 2023) and its power-tuned form (PPI++,
arXiv:2311.01453) for the Bradley-Terry model, the setting of prediction-powered ranking (Chatzi et al.,
NeurIPS 2024, arXiv:2402.17826); ``ranktrust.judges`` documents the estimator (its ``_battles`` module).
``rt.arena(judged, gold=human)`` and ``ranktrust.judges.gold_corrected_battles`` both fit it here, after matching
the gold battles to the judged ones by battle id (:func:`match_gold`). Numerics only: no pandas, no words.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scipy import special

from ..errors import DataError, SolverError
from ..ranking import pair_index

__all__ = ["ppi_bradley_terry", "match_gold", "MIN_GOLD"]

#: the tuning grid: lambda = 0 (ignore the judge) is left out, since the judge's verdicts on every battle are what
#: keeps a model identified when its few labelled battles are all wins or all losses
_LAMBDAS = np.linspace(0.05, 1.0, 20)
_MAX_STEP = 2.0      # damped Newton: no strength moves by more than this (natural scale) in one step


def _rectified_fit(a, b, f, y, L, M, lam, theta0=None, iters=100):
    """Newton on the rectified score equations (model 0 fixed at 0); returns theta (sum to zero) and the parts
    of the sandwich."""
    N, n = len(a), int(L.sum())
    w_all = np.full(N, lam / N)
    theta = np.zeros(M) if theta0 is None else theta0.copy()
    aL, bL = a[L], b[L]
    for _ in range(iters):
        s = special.expit(theta[a] - theta[b])
        sL = s[L]
        # score: lam/N sum x (f - s) + 1/n sum_L x ((y - f lam) - (1 - lam) s)
        r_all = w_all * (f - s)
        r_L = ((y[L] - lam * f[L]) - (1 - lam) * sL) / n
        g = np.bincount(a, r_all, M) - np.bincount(b, r_all, M) + np.bincount(aL, r_L, M) - np.bincount(bL, r_L, M)
        h_all = w_all * s * (1 - s)
        h_L = (1 - lam) * sL * (1 - sL) / n
        H = _hessian(a, b, h_all, M) + _hessian(aL, bL, h_L, M)
        step = np.zeros(M)
        try:
            step[1:] = np.linalg.solve(H[1:, 1:], g[1:])
        except np.linalg.LinAlgError:
            raise SolverError("the prediction-powered Bradley–Terry fit is singular: a model never plays, or the "
                              "battles split into groups that never meet") from None
        big = float(np.max(np.abs(step)))
        if not np.isfinite(big):
            raise SolverError("the prediction-powered Bradley–Terry fit failed (a non-finite step)")
        if big > _MAX_STEP:
            step *= _MAX_STEP / big
        theta = theta + step
        if big < 1e-10:
            break
    else:
        raise SolverError("the prediction-powered Bradley–Terry fit did not converge in 100 Newton steps (a model "
                          "that wins or loses every battle has no finite strength)")
    return theta - theta.mean(), H


def _hessian(a, b, h, M):
    """``sum_i h_i (e_a - e_b)(e_a - e_b)'``: +h on the two diagonal cells, -h on the two off-diagonal ones."""
    off = np.bincount(a * M + b, h, M * M).reshape(M, M)
    H = -(off + off.T)
    H[np.diag_indices(M)] += np.bincount(a, h, M) + np.bincount(b, h, M)
    return H


def _sandwich(a, b, f, y, L, M, lam, theta):
    """Covariance of theta (sum-to-zero) from the influence terms of each battle."""
    N, n = len(a), int(L.sum())
    s = special.expit(theta[a] - theta[b])
    # per battle: a vector with +u at a and -u at b; judge part over all, correction over the labelled
    u_all = lam * (f - s) / N
    u_L = np.zeros(N)
    u_L[L] = ((y[L] - s[L]) - lam * (f[L] - s[L])) / n
    h_all = lam / N * s * (1 - s)
    h_L = np.zeros(N)
    h_L[L] = (1 - lam) / n * s[L] * (1 - s[L])
    H = _hessian(a, b, h_all + h_L, M)
    # S = sum over battles of psi psi' where psi = (u_all + u_L) (e_a - e_b), with the labelled part's n/(n-1)
    u = u_all + u_L * np.sqrt(n / max(n - 1, 1))
    S = _hessian(a, b, u ** 2, M)
    P = np.eye(M) - 1.0 / M                      # onto sum-to-zero
    Hp = np.linalg.pinv(P @ H @ P)
    return Hp @ S @ Hp


def ppi_bradley_terry(a: np.ndarray, b: np.ndarray, f: np.ndarray, y: np.ndarray, labelled: np.ndarray, M: int,
                      lam: float | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """Strengths (natural scale, sum zero), their covariance and lambda (tuned when None). Numerics only.

    Tuning: the mean pairwise variance of each grid value is read off the sandwich at the judge's own fit
    (always finite on a connected board), and the fit is solved at the best value; where the rectified equations
    have no finite root at it (the correction pushes a model's win rate out of (0, 1): possible with few labels),
    at the next best, and so on.
    """
    L = np.asarray(labelled, dtype=bool)
    if lam is not None:
        theta, _ = _rectified_fit(a, b, f, y, L, M, lam)
        return theta, _sandwich(a, b, f, y, L, M, lam, theta), float(lam)
    pivot, _ = _rectified_fit(a, b, f, f, np.zeros(len(a), dtype=bool) | L, M, 1.0)     # the judge alone (y = f)
    J, K = pair_index(M)
    score = []
    for cand in _LAMBDAS:
        V = _sandwich(a, b, f, y, L, M, cand, pivot)
        score.append(float(np.mean(V[J, J] + V[K, K] - 2 * V[J, K])))
    last: SolverError | None = None
    for k in np.argsort(score, kind="stable"):
        try:
            theta, _ = _rectified_fit(a, b, f, y, L, M, float(_LAMBDAS[k]), theta0=pivot)
        except SolverError as e:
            last = e
            continue
        return theta, _sandwich(a, b, f, y, L, M, float(_LAMBDAS[k]), theta), float(_LAMBDAS[k])
    raise SolverError("the prediction-powered Bradley–Terry equations have no finite root at any lambda in "
                      "[0.05, 1]: label more battles") from last


#: fewer gold battles than this are refused: the rectifier's variance rests on them
MIN_GOLD = 20


def match_gold(ids: np.ndarray, a: np.ndarray, b: np.ndarray, gids: np.ndarray, ga: np.ndarray, gb: np.ndarray,
               label: str) -> tuple[np.ndarray, np.ndarray]:
    """Each gold battle's row among the judged battles, by battle id (``ids``, ``gids``: the ids as read, compared
    as text; ``a``, ``b``, ``ga``, ``gb``: the model names), and whether its two models are written the other way
    round (the same pair; the caller flips its verdict). Refused, in one line naming the row: a judged id that
    repeats, a gold id that repeats, a gold battle with no judged battle of its id, or of another pair; fewer than
    :data:`MIN_GOLD` gold battles. ``label``: what the ids are called (the column, or ``index``)."""
    key = np.asarray([str(x) for x in ids], dtype=object)
    gkey = np.asarray([str(x) for x in gids], dtype=object)
    pos = {x: i for i, x in enumerate(key)}
    if len(pos) != len(key):
        k = _first_repeat(key)
        raise DataError(f"battles row {k}: battle id {_shown(ids[k])} ({label}) repeats an earlier battle's; each "
                        "judged battle needs its own id", param="battle_id")
    if len(set(gkey.tolist())) != len(gkey):
        k = _first_repeat(gkey)
        raise DataError(f"gold row {k}: battle {_shown(gids[k])} ({label}) has two gold verdicts; give one per battle",
                        param="gold")
    where = np.array([pos.get(x, -1) for x in gkey], dtype=np.int64)
    if (where < 0).any():
        k = int(np.flatnonzero(where < 0)[0])
        raise DataError(f"gold row {k}: gold battle {_shown(gids[k])} is not among the judged battles ({label}; "
                        f"{int((where < 0).sum()):,} such rows): gold verdicts must be on judged battles", param="gold")
    ja, jb = np.asarray(a, dtype=object)[where], np.asarray(b, dtype=object)[where]
    ga, gb = np.asarray(ga, dtype=object), np.asarray(gb, dtype=object)
    swapped = (ja == gb) & (jb == ga)
    mism = ~(((ja == ga) & (jb == gb)) | swapped)
    if mism.any():
        k = int(np.flatnonzero(mism)[0])
        raise DataError(f"gold row {k}: gold battle {_shown(gids[k])} is {ga[k]!r} vs {gb[k]!r} but the judged "
                        f"battle of that {label} is {ja[k]!r} vs {jb[k]!r} ({int(mism.sum()):,} such rows)",
                        param="gold")
    if len(where) < MIN_GOLD:
        raise DataError(f"{len(where)} gold battles: prediction-powered ratings need at least {MIN_GOLD}",
                        param="gold")
    return where, swapped


def _shown(x: Any) -> str:
    """An id as its user wrote it (a numpy scalar as the plain number)."""
    return repr(x.item() if isinstance(x, np.generic) else x)


def _first_repeat(x: np.ndarray) -> int:
    seen: set = set()
    for i, v in enumerate(x.tolist()):
        if v in seen:
            return i
        seen.add(v)
    return 0
