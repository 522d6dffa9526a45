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
battles are all wins or all losses); the numerics are ``ranktrust.preference``'s (``rt.arena(judged, gold=human)``
fits the same). Pairs, rank sets and "could be #1" come from one stepdown max-|t| over all pairs (Romano & Wolf), as in
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
from ..errors import DataError
from ..preference import match_gold, ppi_bradley_terry
from ..ranking import layers, rank_bounds
from ..results import Result, jsonable
from ._audit import _column, _scores
from ._core import JudgedPairRow, Ranked, RankedRow, pairs_and_ranks

__all__ = ["GoldCorrectedBattles", "gold_corrected_battles", "ppi_bradley_terry"]

_ELO = 400.0 / np.log(10.0)     # strengths on the Elo scale (mean 1000), as the arena prints them


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
    where, swapped = match_gold(ids, a, b, gids, ga, gb, battle_id or "index")
    gy = np.where(swapped, 1.0 - gy, gy)
    n = len(where)
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
    low, high = rank_bounds(better)
    nb = np.bincount(ai, minlength=M) + np.bincount(bi, minlength=M)
    ng = np.bincount(ai[L], minlength=M) + np.bincount(bi[L], minlength=M)
    return GoldCorrectedBattles(
        models=models, rating=rating, se=se, ci_low=rating - z * se, ci_high=rating + z * se,
        rank_low=low, rank_high=high, tier=tier, n_battles_model=nb,
        n_gold_model=ng, better=better, covariance=Ve, pairs=tuple(rows), lam=lam, confidence_level=level,
        n_battles=len(a), n_labelled=n, n_resamples=draws)
