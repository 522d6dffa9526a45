"""The report with gold labels: every verdict from the gold-corrected estimates, the judge alone and the labels
alone beside them.

``rt.report(judge, gold=labels)`` runs :func:`gold_builders` instead of the score path's builders: the intervals
(``rt.intervals(judge, gold=labels)``), the all-pairs table (``rt.all_pairs(judge, gold=labels)``: every pair's
difference of gold-corrected means from one covariance, adjusted with ``adjust``), and from that table the rank
sets, the pairs shown, the tiers, the heatmap and the headline, as on the score path. The ``gold`` section
(:class:`GoldSection`) holds each model's gold-corrected score beside the judge-only and gold-only answers
(their intervals and rank ranges), the method and the number of labels. The sections that resample or plan items
(stability, split-half, power, micro-benchmarks, repeats, conditions, data quality) read the judge's raw scores,
which estimate another quantity: they are left out, and :attr:`GoldSection.omitted` names them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, TypedDict

import numpy as np

from ..results import Result, jsonable

if TYPE_CHECKING:
    from ._sections import Build

__all__ = ["GoldSection", "GoldSectionJSON", "GoldRow", "GoldRanksJSON", "gold_builders", "gold_ranks",
           "OMITTED_WITH_GOLD"]

#: the score path's sections a report with gold leaves out (they read the judge's raw scores), and why (a code
#: the renderer words)
OMITTED_WITH_GOLD: dict[str, str] = {
    "stability": "resamples_judge_scores",
    "split_half": "resamples_judge_scores",
    "power": "plans_judge_items",
    "microbench": "resamples_judge_scores",
    "repeats": "judge_runs",
    "sensitivity": "judge_runs",
    "quality": "judge_rows",
}


class _GoldRow(TypedDict):
    model: str
    score: float
    se: float
    ci_low: float
    ci_high: float
    rank_low: int
    rank_high: int
    judge_score: float
    judge_ci_low: float
    judge_ci_high: float
    judge_rank_low: int
    judge_rank_high: int
    gold_score: float
    gold_ci_low: float
    gold_ci_high: float
    gold_rank_low: int
    gold_rank_high: int


class GoldRow(_GoldRow, total=False):
    """One model of the gold section, in the report's display order; ``lam`` with ``ppi++``."""

    lam: float


class _Omitted(TypedDict):
    section: str
    reason: str


class GoldSectionJSON(TypedDict):
    """Layout of :meth:`GoldSection.to_dict` (the report's ``"gold"``)."""

    method: str
    n_items: int
    n_labelled: int
    confidence_level: float
    clustered: bool
    models: list[GoldRow]
    could_be_first: list[str]
    judge_could_be_first: list[str]
    gold_could_be_first: list[str]
    omitted: list[_Omitted]


@dataclass(frozen=True, eq=False)
class GoldSection(Result):
    """The gold-corrected scores beside the judge-only and gold-only answers (the report's ``gold`` section).

    Attributes
    ----------
    models : tuple of str
        In the report's display order.
    method : str
        The estimator (``"ppi++"``, ``"stratified"`` or ``"rogan-gladen"``).
    n_items, n_labelled : int
        Items the judge scored, items with a gold label.
    score, se, ci_low, ci_high, rank_low, rank_high : ndarray (M,)
        Gold-corrected (what every verdict of the report reads).
    judge_score, judge_ci_low, judge_ci_high, judge_rank_low, judge_rank_high : ndarray (M,)
        The judge's scores alone, on every item (the score path's intervals and rank sets).
    gold_score, gold_ci_low, gold_ci_high, gold_rank_low, gold_rank_high : ndarray (M,)
        The gold labels alone, on the labelled items.
    lam : ndarray or None
        PPI++'s weight per model.
    omitted : tuple of (section, reason)
        The score path's sections left out, and why (:data:`OMITTED_WITH_GOLD`).
    """

    models: tuple[str, ...]
    method: str
    n_items: int
    n_labelled: int
    confidence_level: float
    clustered: bool
    score: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    judge_score: np.ndarray
    judge_ci_low: np.ndarray
    judge_ci_high: np.ndarray
    judge_rank_low: np.ndarray
    judge_rank_high: np.ndarray
    gold_score: np.ndarray
    gold_ci_low: np.ndarray
    gold_ci_high: np.ndarray
    gold_rank_low: np.ndarray
    gold_rank_high: np.ndarray
    lam: np.ndarray | None = None
    omitted: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def _first(self, low: np.ndarray) -> list[str]:
        return [m for m, r in zip(self.models, np.asarray(low).tolist()) if r == 1]

    def to_dict(self) -> GoldSectionJSON:
        keys = ("score", "se", "ci_low", "ci_high", "rank_low", "rank_high", "judge_score", "judge_ci_low",
                "judge_ci_high", "judge_rank_low", "judge_rank_high", "gold_score", "gold_ci_low", "gold_ci_high",
                "gold_rank_low", "gold_rank_high")
        rows = []
        for k, name in enumerate(self.models):
            row: dict[str, Any] = {"model": name, **{x: getattr(self, x)[k] for x in keys}}
            if self.lam is not None:
                row["lam"] = self.lam[k]
            rows.append(row)
        return jsonable({
            "method": self.method, "n_items": self.n_items, "n_labelled": self.n_labelled,
            "confidence_level": self.confidence_level, "clustered": self.clustered, "models": rows,
            "could_be_first": self._first(self.rank_low), "judge_could_be_first": self._first(self.judge_rank_low),
            "gold_could_be_first": self._first(self.gold_rank_low),
            "omitted": [{"section": s, "reason": r} for s, r in self.omitted],
        })


# ------------------------------------------------------------------------------------------- builders
def build_gold_intervals(b: "Build") -> Any:
    from ..stats import intervals

    inf = b.inference
    b.stage(0.0)
    return intervals(b.m, gold=inf.gold, method=inf.gold_method, cluster=inf.cluster,
                     confidence_level=inf.confidence_level)


def build_gold_pairs_all(b: "Build") -> Any:
    from ..stats import all_pairs

    inf = b.inference
    b.stage(0.2)
    return all_pairs(b.m, pairs="all", adjust=inf.adjust, confidence_level=inf.confidence_level,
                     cluster=inf.cluster, gold=inf.gold, method=inf.gold_method,
                     interval="auto" if b.sections.all_pairs else "none")


def build_gold_section(b: "Build") -> GoldSection:
    """The gold-corrected answers beside the judge-only and gold-only ones (intervals and rank sets of each)."""
    from ..ranking import rank_sets

    inf = b.inference
    iv, pt, rs = b.done["intervals"], b.done["pairs_all"], b.done["rank_sets"]
    level = inf.confidence_level
    judge_rs = rank_sets(b.m, method="pairs", confidence_level=level, adjust=inf.adjust, cluster=inf.cluster,
                         pair_table=pt.judge_only)
    # the same models: the rank sets read only the table's tests (and the matrix's model names)
    gold_rs = rank_sets(b.m, method="pairs", confidence_level=level, adjust=inf.adjust, cluster=inf.cluster,
                        pair_table=pt.gold_only)
    order = np.asarray(rs.order, dtype=np.intp)
    ran = {name for name, _ in b.done.items()}
    omitted = tuple((s, why) for s, why in OMITTED_WITH_GOLD.items() if _would_run(b, s) and s not in ran)
    j, g = iv.judge_only, iv.gold_only
    return GoldSection(
        models=tuple(iv.models[k] for k in order), method=iv.method, n_items=int(b.m.n_items),
        n_labelled=int(iv.n_labelled), confidence_level=level, clustered=bool(iv.clustered),
        score=iv.score[order], se=iv.se[order], ci_low=iv.ci_low[order], ci_high=iv.ci_high[order],
        rank_low=np.asarray(rs.rank_low)[order], rank_high=np.asarray(rs.rank_high)[order],
        judge_score=j.score[order], judge_ci_low=j.ci_low[order], judge_ci_high=j.ci_high[order],
        judge_rank_low=np.asarray(judge_rs.rank_low)[order], judge_rank_high=np.asarray(judge_rs.rank_high)[order],
        gold_score=g.score[order], gold_ci_low=g.ci_low[order], gold_ci_high=g.ci_high[order],
        gold_rank_low=np.asarray(gold_rs.rank_low)[order], gold_rank_high=np.asarray(gold_rs.rank_high)[order],
        lam=None if iv.lam is None else np.asarray(iv.lam)[order], omitted=omitted,
    )


def _would_run(b: "Build", name: str) -> bool:
    """Whether the score path would have built section ``name`` for this input and these settings."""
    m, rs, sec = b.m, b.resampling, b.sections
    return {
        "stability": m.n_models > 1 and rs.stability,
        "split_half": m.n_models > 1 and rs.split_half,
        "power": m.n_models > 1,
        "microbench": sec.microbench or "microbench" in b.extra,
        "repeats": m.n_runs > 1 or "repeats" in b.extra,
        "sensitivity": (m.conditions is not None and len(set(m.conditions)) > 1) or "sensitivity" in b.extra,
        "quality": bool(sec.quality) and m.n_models > 1,
    }[name]


def gold_builders() -> list[tuple[str, Callable[["Build"], Any]]]:
    """The report's builders with gold labels (see the module docstring)."""
    from ._sections import build_pair_matrix, build_pairs, build_rank_sets, build_tiers

    return [
        ("intervals", build_gold_intervals),
        ("pairs_all", build_gold_pairs_all),
        ("rank_sets", build_rank_sets),
        ("pairs", build_pairs),
        ("tiers", build_tiers),
        ("gold", build_gold_section),
        ("pair_matrix", build_pair_matrix),
    ]


class _GoldRankRow(TypedDict):
    model: str
    score: float
    rank_low: int
    rank_high: int


class GoldRanksJSON(TypedDict):
    """``ranktrust ranks --gold-col``: the method and labels, and the rank ranges of the judge's scores alone and
    of the gold labels alone beside the gold-corrected ones (the command's ``"gold"``)."""

    method: str
    n_items: int
    n_labelled: int
    judge_only: list[_GoldRankRow]
    gold_only: list[_GoldRankRow]


def gold_ranks(m: Any, gold: Any, *, method: str = "auto", confidence_level: float = 0.95, adjust: str = "holm",
               cluster: bool = False, simultaneous: bool = True) -> tuple[Any, GoldRanksJSON]:
    """Rank sets of the gold-corrected means (:func:`ranktrust.rank_sets` on ``rt.all_pairs(m, gold=gold)``),
    and the judge-only and gold-only rank ranges beside them."""
    from ..ranking import rank_sets
    from ..stats import all_pairs

    pt = all_pairs(m, gold=gold, method=method, adjust=adjust, confidence_level=confidence_level, cluster=cluster,
                   interval="none")
    kw: dict[str, Any] = dict(method="pairs", confidence_level=confidence_level, adjust=adjust, cluster=cluster,
                              simultaneous=simultaneous)
    rs = rank_sets(m, pair_table=pt, **kw)

    def rows(table: Any) -> list[_GoldRankRow]:
        r = rank_sets(m, pair_table=table, **kw)
        return [{"model": x, "score": float(table.score[k]), "rank_low": int(r.rank_low[k]),
                 "rank_high": int(r.rank_high[k])} for k, x in enumerate(m.models)]

    out: GoldRanksJSON = {"method": pt.method, "n_items": int(m.n_items), "n_labelled": int(pt.n_labelled or 0),
                          "judge_only": rows(pt.judge_only), "gold_only": rows(pt.gold_only)}
    return rs, jsonable(out)
