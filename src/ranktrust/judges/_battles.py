"""Prediction-powered Bradley–Terry ratings: a judge's verdicts on every battle, a person's on a random subset.

The rectified M-estimator of PPI (Angelopoulos et al., Science 2023) and its power-tuned form (PPI++,
arXiv:2311.01453) for the Bradley–Terry model, the setting of prediction-powered ranking (Chatzi et al.,
NeurIPS 2024, arXiv:2402.17826). With ``x_i`` the battle's design row (+1 for model a, -1 for model b),
``f_i`` the judge's verdict and ``y_i`` the person's (1 a wins, 0 b wins, 1/2 a tie), the strengths solve::

    lambda/N sum_all x_i (f_i - s_i) + 1/n sum_L x_i ((y_i - s_i) - lambda (f_i - s_i)) = 0,   s_i = sigma(x_i theta)

the judge's score equations over all ``N`` battles, corrected by the labelled battles' residual between the
person and the judge. ``lambda = 0`` is the person-only fit, ``lambda = 1`` classic PPI. The covariance is the
sandwich ``H^-1 S H^-1`` with ``S`` the sum of the item-level influence terms (the judge's over all battles, the
correction's over the labelled ones) and ``H`` the matching Hessian; ``lambda`` is the value in [0.05, 1] (grid
of 0.05) that minimises the mean variance of the pairwise differences at the classic fit, then the fit is
redone at it (0 is left out: with the judge's verdicts the strengths stay finite when a model's few labelled
battles are all wins or all losses). Pairs, rank sets and "could be #1" come from one stepdown max-|t| over all pairs (Romano & Wolf), as in
:mod:`ranktrust.preference`.

Scope: the labelled battles are a simple random sample of the battles; the judge judged every battle. The
interval is normal-theory (a sandwich): ``bench/bench_judge_battles.py`` measures the rank sets' coverage of the
ranking from all of the people's verdicts on Chatzi et al.'s 26,919 battles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

import numpy as np
from scipy import special

from .. import _validate
from .._random import child, root
from .._validate import SeedLike
from ..errors import DataError, SolverError
from ..preference._maxt import pair_index
from ..ranking._ranksets import layers
from ..results import Result, jsonable
from ._audit import _column, _scores
from ._core import JudgedPairRow, Ranked, RankedRow, pairs_and_ranks

__all__ = ["GoldCorrectedBattles", "gold_corrected_battles", "ppi_bradley_terry"]

_ELO = 400.0 / np.log(10.0)     # strengths on the Elo scale (mean 1000), as the arena prints them
#: the tuning grid: lambda = 0 (ignore the judge) is left out, since the judge's verdicts on every battle are what
#: keeps a model identified when its few labelled battles are all wins or all losses
_LAMBDAS = np.linspace(0.05, 1.0, 20)
_MAX_STEP = 2.0      # damped Newton: no strength moves by more than this (natural scale) in one step


class BattlesRow(RankedRow):
    """One model, in display order (tier, then rating); ``rating`` on the Elo scale, mean 1000."""

    rating: float
    n_battles: int
    n_gold: int


class GoldCorrectedBattlesJSON(TypedDict):
    """Layout of :meth:`GoldCorrectedBattles.to_dict`."""

    confidence_level: float
    lam: float
    n_battles: int
    n_labelled: int
    n_resamples: int
    models: list[BattlesRow]
    pairs: list[JudgedPairRow]
    could_be_first: list[str]


@dataclass(frozen=True, eq=False)
class GoldCorrectedBattles(Ranked, Result):
    """Prediction-powered Bradley–Terry ratings (see :func:`gold_corrected_battles`)."""

    _sort_by = "rating"

    _table = ("models", "rating", "se", "ci_low", "ci_high", "rank_low", "rank_high", "tier")

    models: tuple[str, ...]
    rating: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    tier: np.ndarray
    n_battles_model: np.ndarray
    n_gold_model: np.ndarray
    better: np.ndarray = field(repr=False)
    covariance: np.ndarray = field(repr=False)
    pairs: tuple = ()
    lam: float = 1.0
    confidence_level: float = 0.95
    n_battles: int = 0
    n_labelled: int = 0
    n_resamples: int = 0

    def to_dict(self) -> GoldCorrectedBattlesJSON:
        rows = [{"model": self.models[k], "rating": self.rating[k], "se": self.se[k], "ci_low": self.ci_low[k],
                 "ci_high": self.ci_high[k], "rank_low": self.rank_low[k], "rank_high": self.rank_high[k],
                 "tier": self.tier[k], "n_battles": self.n_battles_model[k], "n_gold": self.n_gold_model[k]}
                for k in self.order]
        return jsonable({"confidence_level": self.confidence_level, "lam": self.lam, "n_battles": self.n_battles,
                         "n_labelled": self.n_labelled, "n_resamples": self.n_resamples, "models": rows,
                         "pairs": [dict(p) for p in self.pairs], "could_be_first": self.could_be_first})


def _fit(a, b, f, y, L, M, lam, theta0=None, iters=100):
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
        theta, _ = _fit(a, b, f, y, L, M, lam)
        return theta, _sandwich(a, b, f, y, L, M, lam, theta), float(lam)
    pivot, _ = _fit(a, b, f, f, np.zeros(len(a), dtype=bool) | L, M, 1.0)     # the judge alone (y = f)
    J, K = pair_index(M)
    score = []
    for cand in _LAMBDAS:
        V = _sandwich(a, b, f, y, L, M, cand, pivot)
        score.append(float(np.mean(V[J, J] + V[K, K] - 2 * V[J, K])))
    last: SolverError | None = None
    for k in np.argsort(score, kind="stable"):
        try:
            theta, _ = _fit(a, b, f, y, L, M, float(_LAMBDAS[k]), theta0=pivot)
        except SolverError as e:
            last = e
            continue
        return theta, _sandwich(a, b, f, y, L, M, float(_LAMBDAS[k]), theta), float(_LAMBDAS[k])
    raise SolverError("the prediction-powered Bradley–Terry equations have no finite root at any lambda in "
                      "[0.05, 1]: label more battles") from last


def _verdict_scores(table: Any, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``model_a, model_b`` and each battle's score for model a: the ``score`` column, else the ``winner`` label
    read as the audit reads it (:func:`._audit._scores`); a battle with no verdict (``error``) is refused."""
    a, b = _column(table, "model_a", what), _column(table, "model_b", what)
    if "score" in getattr(table, "columns", table):
        return a, b, np.asarray(table["score"], dtype=float)
    w = _column(table, "winner", what)
    s = _scores(w, what)
    bad = np.flatnonzero(np.isnan(s))
    if bad.size:
        raise DataError(f"{what}: row {int(bad[0])}: verdict {w[bad[0]]!r} is not model_a, model_b or a tie "
                        f"({bad.size:,} such rows)", param=what)
    return a, b, s


def _ids(table: Any, id_col: str | None, what: str) -> np.ndarray:
    if id_col is not None:
        try:
            return np.asarray(table[id_col], dtype=object)
        except (KeyError, IndexError, TypeError):
            raise DataError(f"{what} has no {id_col!r} column (the battle id)", param="battle_id") from None
    return np.asarray(getattr(table, "index"), dtype=object)


def gold_corrected_battles(battles: Any, gold: Any, *, battle_id: str | None = "num", confidence_level: float = 0.95,
                           n_resamples: int = 10_000, rng: SeedLike = 0) -> GoldCorrectedBattles:
    """Bradley–Terry ratings of the people's verdicts, from a judge's verdicts on every battle and the people's on
    a random subset (see the module docstring).

    Parameters
    ----------
    battles : DataFrame
        The judge's verdicts, one row per battle: ``model_a``, ``model_b``, ``winner`` (``model_a``,
        ``model_b``, ``tie``, ``tie (bothbad)``) or ``score`` (1 a wins, 0 b wins, 1/2 a tie).
    gold : DataFrame
        The people's verdicts on some of the same battles, same columns.
    battle_id : str or None
        The column that names a battle in both (``num`` in Chatzi et al.'s files); None: the DataFrames' index.
        A gold battle with no judged battle of that id, or with other models, is refused.
    confidence_level, n_resamples, rng
        Of the intervals, the simultaneous rank sets and the stepdown's normal draws.
    """
    level = _validate.confidence_level(confidence_level)
    n_resamples = _validate.count(n_resamples, "n_resamples")
    a, b, f = _verdict_scores(battles, "battles")
    ga, gb, gy = _verdict_scores(gold, "gold")
    ids, gids = _ids(battles, battle_id, "battles"), _ids(gold, battle_id, "gold")
    pos = {x: i for i, x in enumerate(ids)}
    if len(pos) != len(ids):
        raise DataError(f"battles: the battle id {battle_id or 'index'} repeats; each battle needs its own id",
                        param="battle_id")
    where = np.array([pos.get(x, -1) for x in gids], dtype=np.int64)
    if (where < 0).any():
        k = int(np.flatnonzero(where < 0)[0])
        raise DataError(f"gold battle {gids[k]!r} is not among the judged battles ({int((where < 0).sum()):,} such "
                        "rows): gold verdicts must be on judged battles", param="gold")
    if len(set(where.tolist())) != len(where):
        raise DataError("gold: a battle has two gold verdicts; give one per battle", param="gold")
    mism = (a[where] != ga) | (b[where] != gb)
    if mism.any():
        k = int(np.flatnonzero(mism)[0])
        raise DataError(f"gold battle {gids[k]!r} is {ga[k]!r} vs {gb[k]!r} but the judged battle of that id is "
                        f"{a[where[k]]!r} vs {b[where[k]]!r} ({int(mism.sum()):,} such rows)", param="gold")
    n = len(where)
    if n < 20:
        raise DataError(f"{n} gold battles: prediction-powered ratings need at least 20", param="gold")
    models = tuple(sorted(set(a.tolist()) | set(b.tolist())))
    idx = {m: k for k, m in enumerate(models)}
    ai = np.array([idx[x] for x in a], dtype=np.intp)
    bi = np.array([idx[x] for x in b], dtype=np.intp)
    M = len(models)
    y = np.zeros(len(a))
    y[where] = gy
    L = np.zeros(len(a), dtype=bool)
    L[where] = True
    theta, V, lam = ppi_bradley_terry(ai, bi, f, y, L, M)
    rating = 1000.0 + _ELO * theta
    Ve = V * _ELO ** 2
    se = np.sqrt(np.clip(np.diag(Ve), 0, None))
    z = float(special.ndtri(0.5 + level / 2))
    rows, better, draws = pairs_and_ranks(rating, Ve, models, level, n_resamples,
                                          np.random.default_rng(child(root(rng), "judges", "battles")))
    tier, _, _ = layers(better, rating)
    nb = np.bincount(ai, minlength=M) + np.bincount(bi, minlength=M)
    ng = np.bincount(ai[L], minlength=M) + np.bincount(bi[L], minlength=M)
    return GoldCorrectedBattles(
        models=models, rating=rating, se=se, ci_low=rating - z * se, ci_high=rating + z * se,
        rank_low=1 + better.sum(axis=0), rank_high=M - better.sum(axis=1), tier=tier, n_battles_model=nb,
        n_gold_model=ng, better=better, covariance=Ve, pairs=tuple(rows), lam=lam, confidence_level=level,
        n_battles=len(a), n_labelled=n, n_resamples=draws)
