"""The frozen result of :func:`ranktrust.arena` and its JSON layout."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np

from ..ranking._ranksets import layers
from ..results import HeadlineJSON, Note, NoteJSON, Result, jsonable

__all__ = ["ArenaResult", "StyleControl", "ArenaJSON", "ArenaModelRow", "ArenaPairRow", "ArenaHeadline"]


class _ModelRow(TypedDict):
    model: str
    rating: float
    se: float
    ci_low: float
    ci_high: float
    rank: int
    rank_low: int
    rank_high: int
    tier: int
    overlap_rank_low: int
    overlap_rank_high: int
    n_battles: int


class ArenaModelRow(_ModelRow, total=False):
    """One model of ``"models"``, in display order (tier, then rating). ``rating`` is on the Elo scale
    (mean of all models 1000); ``rank_low``-``rank_high`` is the simultaneous rank set; ``overlap_rank_*``
    is LMArena's overlap rule on the same covariance (marginal, not simultaneous). With a baseline:
    ``win_rate*`` against it and ``n_vs_baseline`` (the model's battles against the baseline; all of them in
    a star design); with style control: ``rating_raw``/``rank_raw`` of the fit without it."""

    win_rate: float
    win_rate_ci_low: float
    win_rate_ci_high: float
    n_vs_baseline: int
    rating_raw: float
    rank_raw: int


class ArenaPairRow(TypedDict):
    """One pair of ``"pairs"``: ``a`` rated above ``b``; ``diff`` in Elo points with its marginal interval;
    ``p_adjusted`` from the stepdown max-|t| over all pairs; ``separated`` = ``p_adjusted < 1 - confidence``."""

    a: str
    b: str
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    separated: bool


class ArenaHeadline(HeadlineJSON):
    """"Is #1 really #1?" as numbers (``text`` is added by the presentation layer): the headline every report has
    (:class:`~ranktrust.results.HeadlineJSON`), with the top model's rank range and who could be #1."""

    rank_low: int
    rank_high: int
    could_be_first: list[str]
    overlap_could_be_first: list[str]


class _ArenaHeadlineText(ArenaHeadline, total=False):
    text: str


class StyleRow(TypedDict):
    feature: str
    gamma: float
    se: float
    ci_low: float
    ci_high: float
    p_value: float


class StyleJSON(TypedDict):
    features: list[StyleRow]
    normalisation: str
    rank_changes: list[dict[str, Any]]


@dataclass(frozen=True, eq=False)
class StyleControl(Result):
    """Style coefficients of the contextual Bradley-Terry fit (log-odds per root-mean-square unit of the feature)."""

    features: tuple[str, ...]
    gamma: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray
    rating_raw: np.ndarray
    rank_raw: np.ndarray

    def to_dict(self) -> StyleJSON:  # type: ignore[override]
        rows = [{"feature": f, "gamma": self.gamma[i], "se": self.se[i], "ci_low": self.ci_low[i],
                 "ci_high": self.ci_high[i], "p_value": self.p_value[i]} for i, f in enumerate(self.features)]
        return jsonable({"features": rows, "normalisation": NORMALISATION, "rank_changes": []})


#: how style counts become features (FastChat's STYLE_CONTROL_ELEMENTS_V1 convention)
NORMALISATION = ("(a - b) / (a + b + 1) per feature, then divided by its root mean square over the battles "
                 "(not centred, so that swapping model_a and model_b flips its sign)")


class ArenaJSON(TypedDict):
    """Layout of :meth:`ArenaResult.to_dict`."""

    models: list[ArenaModelRow]
    pairs: list[ArenaPairRow]
    headline: _ArenaHeadlineText
    settings: dict[str, Any]
    style: StyleJSON | None
    confidence_level: float
    baseline: str | None
    notes: list[NoteJSON]


@dataclass(frozen=True, eq=False)
class ArenaResult(Result):
    """Bradley-Terry ratings of a preference leaderboard, with simultaneous rank sets (see :func:`ranktrust.arena`).

    Attributes
    ----------
    models : tuple of str
        Model names (sorted; arrays follow this order).
    rating, se, ci_low, ci_high : ndarray (M,)
        Elo-scale ratings (400 / ln 10 per unit of log-strength; the mean of all models is 1000), their
        standard errors and marginal intervals (relative to that mean).
    rank, rank_low, rank_high, tier : ndarray of int (M,)
        Display position, simultaneous rank set, tier (1 = could be #1).
    overlap_rank_low, overlap_rank_high : ndarray of int (M,)
        LMArena's rule on the same marginal intervals: ``1 + #{j: ci_low_j > ci_high_i}`` (marginal, not
        simultaneous).
    n_battles : ndarray of int (M,)
    win_rate, win_rate_ci_low, win_rate_ci_high : ndarray (M,) or None
        With a baseline: the win rate against it (ties half), ``expit(theta_m - theta_baseline)``.
    n_vs_baseline : ndarray of int (M,) or None
        With a baseline: each model's battles against it (0 for the baseline itself).
    pair_a, pair_b : ndarray of int (P,)
        Every unordered pair, ``pair_a`` rated at or above ``pair_b``.
    diff, diff_ci_low, diff_ci_high, p_value, p_adjusted : ndarray (P,)
        Rating difference (Elo points), marginal interval, marginal and stepdown-adjusted p-values.
    separated : ndarray of bool (P,)
    better : ndarray of bool (M, M)
        ``better[j, k]``: j is found above k (the one relation tiers, rank sets and headline read).
    covariance : ndarray (M, M)
        Covariance of the ratings (Elo points squared).
    notes : tuple of Note
        What the reader of the battles left out or changed, per source (``battles_dropped``: unjudged games,
        error verdicts, the baseline judged against itself; ``battles_inconsistent_as_tie``,
        ``battles_strong_verdicts``, ``battles_replicated_rows_collapsed``, ``battles_skipped``,
        ``battles_columns_ignored``, ``battles_style_missing``), worded by ``ranktrust.reporting.note_text``.
    """

    _table = "models"

    models: tuple[str, ...]
    rating: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    tier: np.ndarray
    overlap_rank_low: np.ndarray
    overlap_rank_high: np.ndarray
    n_battles: np.ndarray
    win_rate: np.ndarray | None
    win_rate_ci_low: np.ndarray | None
    win_rate_ci_high: np.ndarray | None
    n_vs_baseline: np.ndarray | None
    pair_a: np.ndarray
    pair_b: np.ndarray
    diff: np.ndarray
    diff_ci_low: np.ndarray
    diff_ci_high: np.ndarray
    p_value: np.ndarray
    p_adjusted: np.ndarray
    separated: np.ndarray
    better: np.ndarray
    covariance: np.ndarray
    confidence_level: float
    baseline: str | None
    style: StyleControl | None
    settings: dict
    headline: dict
    notes: tuple[Note, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "notes", tuple(self.notes))
        super().__post_init__()

    @property
    def order(self) -> np.ndarray:
        """Display order: by tier, then rating."""
        return layers(self.better, self.rating)[1]

    @property
    def could_be_first(self) -> list[str]:
        """Models whose simultaneous rank set contains 1, in display order."""
        return [self.models[k] for k in self.order if self.rank_low[k] == 1]

    def ratings(self) -> dict[str, float]:
        """``{model: rating}``."""
        return {m: float(r) for m, r in zip(self.models, self.rating)}

    def to_dict(self) -> ArenaJSON:  # type: ignore[override]
        rows = []
        for k in self.order:
            r: dict[str, Any] = {
                "model": self.models[k], "rating": self.rating[k], "se": self.se[k], "ci_low": self.ci_low[k],
                "ci_high": self.ci_high[k], "rank": self.rank[k], "rank_low": self.rank_low[k],
                "rank_high": self.rank_high[k], "tier": self.tier[k], "overlap_rank_low": self.overlap_rank_low[k],
                "overlap_rank_high": self.overlap_rank_high[k], "n_battles": self.n_battles[k],
            }
            if self.win_rate is not None:
                r.update(win_rate=self.win_rate[k], win_rate_ci_low=self.win_rate_ci_low[k],  # type: ignore[index]
                         win_rate_ci_high=self.win_rate_ci_high[k],  # type: ignore[index]
                         n_vs_baseline=self.n_vs_baseline[k])  # type: ignore[index]
            if self.style is not None:
                r.update(rating_raw=self.style.rating_raw[k], rank_raw=self.style.rank_raw[k])
            rows.append(r)
        pos = np.empty(len(self.models), dtype=np.int64)
        pos[self.order] = np.arange(len(self.models))
        po = np.lexsort((pos[self.pair_b], pos[self.pair_a]))
        names = np.asarray(self.models, dtype=object)
        pairs = {
            "a": names[self.pair_a[po]].tolist(), "b": names[self.pair_b[po]].tolist(),
            "diff": self.diff[po], "ci_low": self.diff_ci_low[po], "ci_high": self.diff_ci_high[po],
            "p_value": self.p_value[po], "p_adjusted": self.p_adjusted[po], "separated": self.separated[po],
        }
        cols = {k: jsonable(v) for k, v in pairs.items()}
        pair_rows = [dict(zip(cols, vals)) for vals in zip(*cols.values())]
        style = None
        if self.style is not None:
            style = self.style.to_dict()
            raw_rank = self.style.rank_raw
            style["rank_changes"] = [
                {"model": self.models[k], "rank": int(self.rank[k]), "rank_raw": int(raw_rank[k]),
                 "change": int(raw_rank[k] - self.rank[k])}
                for k in self.order if raw_rank[k] != self.rank[k]]
        return jsonable({
            "models": rows, "pairs": pair_rows, "headline": dict(self.headline), "settings": dict(self.settings),
            "style": style, "confidence_level": self.confidence_level, "baseline": self.baseline,
            "notes": [n.to_dict() for n in self.notes],
        })
