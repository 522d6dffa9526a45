"""The frozen result of :func:`ranktrust.arena` and its JSON layout."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

import numpy as np

from ..ranking import RankedModelRow, RankSets, SuitePairRow, Tiers
from ..results import HeadlineJSON, Note, NoteJSON, Result, jsonable
from ..stats import PairTable, ScoreIntervals

__all__ = ["ArenaResult", "ArenaRatings", "StyleControl", "ArenaJSON", "ArenaModelRow", "ArenaPairRow", "ArenaHeadline"]


class _ModelRow(RankedModelRow):
    rating: float
    se: float
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


class ArenaPairRow(SuitePairRow):
    """One pair of ``"pairs"``: ``a`` rated above ``b``; ``diff`` in Elo points with its marginal interval;
    ``p_adjusted`` from the stepdown max-|t| over all pairs; ``separated`` = ``p_adjusted < 1 - confidence``."""


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


class _ArenaJSON(TypedDict):

    models: list[ArenaModelRow]
    pairs: list[ArenaPairRow]
    headline: _ArenaHeadlineText
    settings: dict[str, Any]
    style: StyleJSON | None
    confidence_level: float
    baseline: str | None
    notes: list[NoteJSON]


class ArenaJSON(_ArenaJSON, total=False):
    """Layout of :meth:`ArenaResult.to_dict`; with gold battles also the judge-only and gold-only arenas (each
    this layout; ``gold_only`` null where the gold battles alone cannot be rated)."""

    judge_only: dict[str, Any]
    gold_only: dict[str, Any] | None


#: the names of the flat record ``ArenaResult`` was, and the part and field each reads now
FLAT_NAMES: dict[str, tuple[str, str]] = {
    "rating": ("ratings", "score"), "se": ("ratings", "se"), "ci_low": ("ratings", "ci_low"),
    "ci_high": ("ratings", "ci_high"), "n_battles": ("ratings", "n_items"), "covariance": ("ratings", "covariance"),
    "rank": ("rank_sets", "rank"), "rank_low": ("rank_sets", "rank_low"), "rank_high": ("rank_sets", "rank_high"),
    "overlap_rank_low": ("rank_sets", "marginal_low"), "overlap_rank_high": ("rank_sets", "marginal_high"),
    "better": ("rank_sets", "better"), "tier": ("tiers", "tier"),
    "pair_a": ("pairs", "i"), "pair_b": ("pairs", "j"), "diff": ("pairs", "diff"), "diff_ci_low": ("pairs", "ci_low"),
    "diff_ci_high": ("pairs", "ci_high"), "p_value": ("pairs", "p_value"), "p_adjusted": ("pairs", "p_adjusted"),
    "win_rate": ("win_rates", "score"), "win_rate_ci_low": ("win_rates", "ci_low"),
    "win_rate_ci_high": ("win_rates", "ci_high"), "n_vs_baseline": ("win_rates", "n_items"),
}


@dataclass(frozen=True, eq=False)
class ArenaRatings(ScoreIntervals):
    """Per-model ratings on the Elo scale: a :class:`~ranktrust.stats.ScoreIntervals` whose ``score`` is the
    rating (mean of all models 1000), ``n_items`` each model's battles, with the ratings' ``covariance``
    (Elo points squared)."""

    covariance: np.ndarray | None = field(default=None, repr=False)


@dataclass(frozen=True, eq=False)
class ArenaResult(Result):
    """Bradley-Terry ratings of a preference leaderboard, with simultaneous rank sets (see :func:`ranktrust.arena`).

    A composition of the score path's result types, on the Elo scale (400 / ln 10 points per unit of
    log-strength; the mean rating of the models is 1000).

    Attributes
    ----------
    ratings : ArenaRatings
        Per model (sorted names; every array follows this order): ``score`` is the rating, ``se``, marginal
        ``ci_low``/``ci_high`` (relative to the board's mean), ``n_items`` the model's battles, ``df`` the
        degrees of freedom of its t reference (None: normal), ``covariance``.
    pairs : PairTable
        Every unordered pair, ``i`` rated at or above ``j``: ``diff`` (Elo points) with its marginal interval,
        marginal ``p_value`` and ``p_adjusted`` from the stepdown max-|t| over all pairs; ``n_items``: the
        battles of the two models against each other; ``score``: the ratings.
    rank_sets : RankSets
        ``better[j, k]`` (j found above k: the one relation tiers, rank sets and headline read), the simultaneous
        rank sets ``rank_low``-``rank_high``, the display position ``rank`` (by tier, then rating) and, as its
        ``marginal_low``/``marginal_high``, LMArena's overlap rule on the same marginal intervals:
        ``1 + #{j: ci_low_j > ci_high_i}`` (marginal, not simultaneous).
    tiers : Tiers
        The layers of ``better`` (1 = could be #1).
    win_rates : ScoreIntervals or None
        With a baseline: the win rate against it (ties half), ``expit(theta_m - theta_baseline)``, its
        interval, and as ``n_items`` each model's battles against the baseline (0 for the baseline itself).
    style : StyleControl or None
    baseline : str or None
    settings : dict
    notes : tuple of Note
        What the reader of the battles left out or changed, per source (``battles_dropped``: unjudged games,
        error verdicts, the baseline judged against itself; ``battles_inconsistent_as_tie``,
        ``battles_strong_verdicts``, ``battles_replicated_rows_collapsed``, ``battles_skipped``,
        ``battles_columns_ignored``, ``battles_style_missing``), worded by ``ranktrust.reporting.note_text``.
    judge_only, gold_only : ArenaResult or None
        With gold battles (``rt.arena(judged, gold=human)``): the arena of the judge's verdicts alone and of
        the gold verdicts alone, beside the prediction-powered answer.

    The former flat names (``r.rating``, ``r.rank_low``, ``r.pair_a``, ``r.win_rate``, ...) read the parts
    (:data:`FLAT_NAMES`). ``headline`` is "Is #1 really #1?" as numbers (:meth:`headline_numbers`) with the sentence under ``"text"``;
    ``to_dict()`` is what ``ranktrust arena -f json`` writes, less its ``meta`` block.
    """

    _table = "models"

    ratings: ArenaRatings
    pairs: PairTable
    rank_sets: RankSets
    tiers: Tiers
    win_rates: ScoreIntervals | None
    style: StyleControl | None
    baseline: str | None
    settings: dict
    notes: tuple[Note, ...] = ()
    judge_only: "ArenaResult | None" = field(default=None, repr=False)
    gold_only: "ArenaResult | None" = field(default=None, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "notes", tuple(self.notes))
        super().__post_init__()

    # -------------------------------------------------------------------- views of the parts
    @property
    def models(self) -> tuple[str, ...]:
        return self.ratings.models

    @property
    def confidence_level(self) -> float:
        return self.ratings.confidence_level

    @property
    def order(self) -> np.ndarray:
        """Display order: by tier, then rating."""
        return self.rank_sets.order

    @property
    def could_be_first(self) -> list[str]:
        """Models whose simultaneous rank set contains 1, in display order."""
        return self.rank_sets.could_be_first

    def __getattr__(self, name: str) -> Any:
        """The former flat names (``r.rating``, ``r.rank_low``, ``r.pair_a``, ...): views of the parts
        (:data:`FLAT_NAMES`)."""
        where = FLAT_NAMES.get(name)
        if where is None or name.startswith("__"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        part = object.__getattribute__(self, where[0])
        if part is None:
            return None
        return getattr(part, where[1])

    @property
    def separated(self) -> np.ndarray:
        """Per pair of ``pairs``: the stepdown claims its order (``rank_sets.better[i, j]``)."""
        return self.rank_sets.better[self.pairs.i, self.pairs.j]

    # -------------------------------------------------------------------- JSON
    def headline_numbers(self) -> ArenaHeadline:
        """The headline as numbers: the top two models of the display order and their pair."""
        pt, order = self.pairs, self.order
        top, runner = int(order[0]), int(order[1])
        pi = int(np.flatnonzero(((pt.i == top) & (pt.j == runner)) | ((pt.i == runner) & (pt.j == top)))[0])
        up = pt.i[pi] == top
        rank_low = self.rank_sets.rank_low
        ov = self.rank_sets.marginal_low
        return {   # type: ignore[return-value]
            "top": self.models[top], "runner_up": self.models[runner], "separable": bool(self.separated[pi]),
            "diff": float(pt.diff[pi] if up else -pt.diff[pi]),
            "ci_low": float(pt.ci_low[pi] if up else -pt.ci_high[pi]),
            "ci_high": float(pt.ci_high[pi] if up else -pt.ci_low[pi]),
            "p_value": float(pt.p_value[pi]), "p_adjusted": float(pt.p_adjusted[pi]),
            "rank_low": int(rank_low[top]), "rank_high": int(self.rank_sets.rank_high[top]),
            "could_be_first": self.could_be_first,
            "overlap_could_be_first": [self.models[k] for k in np.argsort(-self.ratings.score, kind="stable")
                                       if ov[k] == 1],
        }

    def to_dict(self) -> ArenaJSON:  # type: ignore[override]
        iv, rs, wr = self.ratings, self.rank_sets, self.win_rates
        tier = self.tiers.tier
        rows = []
        for k in self.order:
            r: dict[str, Any] = {
                "model": self.models[k], "rating": iv.score[k], "se": iv.se[k], "ci_low": iv.ci_low[k],
                "ci_high": iv.ci_high[k], "rank": rs.rank[k], "rank_low": rs.rank_low[k],
                "rank_high": rs.rank_high[k], "tier": tier[k], "overlap_rank_low": rs.marginal_low[k],
                "overlap_rank_high": rs.marginal_high[k], "n_battles": iv.n_items[k],
            }
            if wr is not None:
                r.update(win_rate=wr.score[k], win_rate_ci_low=wr.ci_low[k], win_rate_ci_high=wr.ci_high[k],
                         n_vs_baseline=wr.n_items[k])
            if self.style is not None:
                r.update(rating_raw=self.style.rating_raw[k], rank_raw=self.style.rank_raw[k])
            rows.append(r)
        pt = self.pairs
        pos = np.empty(len(self.models), dtype=np.int64)
        pos[self.order] = np.arange(len(self.models))
        po = np.lexsort((pos[pt.j], pos[pt.i]))
        names = np.asarray(self.models, dtype=object)
        # the pairs' columns, each made JSON-ready at once (jsonable of a column: NaN as None)
        pa, pb = names[pt.i[po]].tolist(), names[pt.j[po]].tolist()   # the models' names: str
        diff, lo, hi, pv, padj, sep = (jsonable(v) for v in (pt.diff[po], pt.ci_low[po], pt.ci_high[po],
                                                              pt.p_value[po], pt.p_adjusted[po], self.separated[po]))
        style = None
        if self.style is not None:
            style = self.style.to_dict()
            raw_rank = self.style.rank_raw
            style["rank_changes"] = [
                {"model": self.models[k], "rank": int(rs.rank[k]), "rank_raw": int(raw_rank[k]),
                 "change": int(raw_rank[k] - rs.rank[k])}
                for k in self.order if raw_rank[k] != rs.rank[k]]
        out = {
            "models": rows, "pairs": None,
            "headline": self.headline_numbers(), "settings": dict(self.settings), "style": style,
            "confidence_level": self.confidence_level, "baseline": self.baseline,
            "notes": [n.to_dict() for n in self.notes],
        }
        if self.judge_only is not None:
            out.update(judge_only=self.judge_only.to_dict(),
                       gold_only=None if self.gold_only is None else self.gold_only.to_dict())
        done = jsonable(out)
        # the pairs' columns are JSON values already: M (M - 1) / 2 rows are not walked again value by value (31,125
        # rows x 8 at 250 models: about a second); a dict display per row, twice as fast as dict(zip(keys, row))
        done["pairs"] = [{"a": a, "b": b, "diff": d, "ci_low": l_, "ci_high": h, "p_value": p, "p_adjusted": q,
                          "separated": s}
                         for a, b, d, l_, h, p, q, s in zip(pa, pb, diff, lo, hi, pv, padj, sep)]
        return done
