"""The leaderboard report as a result: :class:`LeaderboardReport` and the types of its JSON.

Built by :func:`ranktrust.leaderboard.report`; ``to_dict()`` is the JSON report (stable keys, see
docs/report.md). The headline is numbers here (:attr:`LeaderboardReport.headline`); its sentence is
composed in :mod:`ranktrust.reporting.headline`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypedDict

import numpy as np

from ..data.matrix import ScoreMatrix
from ..results import Result, jsonable
from ..stats.intervals import ScoreIntervalRow

if TYPE_CHECKING:   # the report's parts and their JSON layouts (imported when the report runs)
    from ..quality import DataQuality, DataQualityJSON
    from ..ranking.ranksets import RankSets, RankSetsJSON
    from ..ranking.splithalf import SplitHalf, SplitHalfJSON
    from ..ranking.stability import Stability, StabilityJSON
    from ..ranking.tiers import Tiers, TiersJSON
    from ..runs import RepeatsJSON
    from ..runs.sensitivity import SensitivityJSON
    from ..stats.intervals import ScoreIntervals
    from ..stats.paired import PairRow, PairTable
    from ..subsets.mdad import MDADResultJSON

__all__ = ["LeaderboardReport", "LeaderboardReportJSON", "Headline", "ReportModelRow", "HEATMAP_MAX_MODELS"]

#: the pair heatmap and the rank distributions in the JSON are kept for at most this many models
HEATMAP_MAX_MODELS = 60


class ReportModelRow(ScoreIntervalRow):
    """One model of the report's ``"models"``, in display order: its interval row plus its place."""

    rank: int
    tier: int | None
    rank_low: int | None
    rank_high: int | None


class _Headline(TypedDict):
    top: str
    runner_up: str | None
    separable: bool | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    p_adjusted: float | None
    rank_low: int | None
    rank_high: int | None
    could_be_first: list[str] | None
    condition_flips: bool


class Headline(_Headline, total=False):
    """The report's ``"headline"``: the verdict on #1 as numbers (``text`` is added by the presentation layer)."""

    n_items: int
    only_a: int | None
    only_b: int | None
    top_by_condition: dict[str, str]
    text: str


class _ReportJSON(TypedDict):
    title: str
    source: str | None
    n_models: int
    n_items: int
    binary: bool
    settings: dict[str, Any]
    headline: Headline
    models: list[ReportModelRow]
    pairs_scope: Literal["all", "adjacent"]
    pairs: list[PairRow]
    pair_matrix: dict[str, Any] | None
    tiers: TiersJSON | None
    rank_sets: RankSetsJSON | None
    split_half: SplitHalfJSON | None
    power: dict[str, Any] | None
    stability: StabilityJSON | None
    notes: list[str]
    dropped: dict[str, int]
    quality: DataQualityJSON | None
    provenance: dict[str, dict[str, Any]] | None
    microbench: MDADResultJSON | None
    repeats: RepeatsJSON | None
    sensitivity: SensitivityJSON | None


class LeaderboardReportJSON(_ReportJSON, total=False):
    """Layout of :meth:`LeaderboardReport.to_dict` (``sidecar`` and ``pairs_truncated`` with a sidecar)."""

    sidecar: dict[str, Any]
    pairs_truncated: dict[str, Any]


@dataclass(frozen=True, eq=False)
class LeaderboardReport(Result):
    """Everything the leaderboard report shows, as results of the public API.

    Attributes
    ----------
    matrix : ScoreMatrix
        The data analysed.
    intervals : ScoreIntervals
        Per-model scores with confidence intervals.
    pairs : PairTable
        The pairs shown: each model vs the next one down (default) or all pairs; p-values
        are adjusted over all ``M (M - 1) / 2`` pairs either way.
    tiers : Tiers
        Tier 1 = the models that could be #1; no two models of a tier are told apart, and each
        model of tier t + 1 is found worse than some model of tier t.
    rank_sets, stability, split_half : results or None
        Rank confidence sets, rank stability vs benchmark size, split-half check.
    power : PowerResult table
        Items needed for a range of gaps at the observed disagreement.
    settings : dict
        Confidence level, adjustment, clustering, alignment, seed, draws.
    notes : tuple of str
        What the user must know about the input (dropped items, errored samples, ...).
    """

    matrix: ScoreMatrix
    intervals: ScoreIntervals
    pairs: PairTable
    tiers: Tiers | None
    rank_sets: RankSets | None = None
    stability: Stability | None = None
    split_half: SplitHalf | None = None
    power: dict[str, Any] | None = None     # the power table at the observed disagreement, and at n
    settings: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    pair_matrix: dict[str, Any] | None = None
    extra: dict[str, Result] = field(default_factory=dict)  # "microbench" / "repeats" / "sensitivity" sections
    pairs_all: PairTable | None = None   # every pair (the tests behind tiers, rank ranges and the headline)
    quality: DataQuality | None = None   # data-quality findings (rt.data_quality)

    # ------------------------------------------------------------------ views
    def _order(self) -> np.ndarray:
        """Display order: the rank sets' (by tier, then score), else by score."""
        if self.rank_sets is not None:
            return np.asarray(self.rank_sets.order)
        sc = np.nan_to_num(np.asarray(self.intervals.score, dtype=float), nan=-np.inf)
        return np.lexsort((np.arange(sc.size), -sc))

    def _model_rows(self) -> list[dict[str, Any]]:
        iv = self.intervals
        order = self._order()
        tier_of = {}
        if self.tiers is not None:
            for k, mname in enumerate(self.tiers.models):
                tier_of[mname] = int(self.tiers.tier[k])
        rows = []
        for rank, k in enumerate(order, 1):
            name = iv.models[k]
            lo = hi = None
            if self.rank_sets is not None:
                lo, hi = int(self.rank_sets.rank_low[k]), int(self.rank_sets.rank_high[k])
            rows.append({
                "model": name,
                "n_items": int(iv.n_items[k]),
                "score": float(iv.score[k]),
                "se": float(iv.se[k]),
                "ci_low": float(iv.ci_low[k]),
                "ci_high": float(iv.ci_high[k]),
                "rank": rank,
                "tier": tier_of.get(name),
                "rank_low": lo,
                "rank_high": hi,
            })
        return rows

    @property
    def headline(self) -> dict[str, Any]:
        """The verdict on #1 as numbers, from the rank sets and the exact paired test.

        "Yes" only when #1's joint rank range is exactly 1 (it is found better than every
        other model by the same tests the pair table shows); the lead over #2 is the paired
        test of those two on their shared items, with the p-value adjusted over all pairs.
        The resampling figure "#1 in X% of resamples" is not used here: it is optimistic
        for close races (see the stability section).
        """
        rows = self._model_rows()
        top = rows[0]["model"]
        out: dict[str, Any] = {"top": top, "runner_up": None, "separable": None, "diff": None,
                               "ci_low": None, "ci_high": None, "p_value": None, "p_adjusted": None,
                               "rank_low": rows[0]["rank_low"], "rank_high": rows[0]["rank_high"],
                               "could_be_first": None, "condition_flips": False}
        if len(rows) < 2:
            return out
        second = rows[1]["model"]
        out["runner_up"] = second
        pair = _pair_entry(self.pairs_all if self.pairs_all is not None else self.pairs, top, second)
        if pair is not None:
            out.update(pair)
        cbf = list(self.rank_sets.could_be_first) if self.rank_sets is not None else None
        out["could_be_first"] = cbf
        sens = self.extra.get("sensitivity")
        flips = False
        if sens is not None:
            if hasattr(sens, "rankings"):   # a Sensitivity: read its rankings, not its whole JSON
                tops = {c: r[0] for c, r in sens.rankings().items()}
                flips = len(set(tops.values())) > 1
            else:                           # a sensitivity section given as its to_dict()
                tops, flips = sens.get("top_by_condition") or {}, bool(sens.get("top_changes"))
            out["condition_flips"] = flips
            out["top_by_condition"] = tops
        separable = (out["rank_low"] == 1 and out["rank_high"] == 1) and not flips
        out["separable"] = bool(separable)
        return out

    def to_dict(self, *, sidecar: str | None = None, max_pairs: int = 5000) -> LeaderboardReportJSON:
        """The JSON report. With ``sidecar`` (a ``.parquet`` path) every pair's test and the
        rank distributions go to that file (:func:`write_sidecar`), ``"sidecar"`` names it,
        and the ``"pairs"`` list keeps its first ``max_pairs`` rows (``"pairs_truncated"``
        says how many there are), so the JSON of a large leaderboard stays small."""
        m = self.matrix
        d: dict[str, Any] = {
            "title": self.settings.get("title") or _title(m.source),
            "source": m.source,
            "n_models": m.n_models,
            "n_items": m.n_items,
            "binary": m.is_binary,
            "settings": jsonable(self.settings),
            "headline": jsonable(self.headline),
            "models": jsonable(self._model_rows()),
        }
        pt = self.pairs.to_dict()
        d["pairs_scope"] = pt.get("pairs_scope")
        d["pairs"] = pt["pairs"]
        if sidecar is not None:
            from .sidecar import write_sidecar

            d["sidecar"] = write_sidecar(self, sidecar)
            if len(d["pairs"]) > max_pairs:
                d["pairs_truncated"] = {"shown": max_pairs, "total": len(d["pairs"]), "sidecar": str(sidecar)}
                d["pairs"] = d["pairs"][:max_pairs]
        d["pair_matrix"] = jsonable(self.pair_matrix)
        d["tiers"] = self.tiers.to_dict() if self.tiers is not None else None
        for name in ("rank_sets", "split_half", "power"):
            r = getattr(self, name)
            d[name] = r if (r is None or isinstance(r, dict)) else r.to_dict()
            d[name] = jsonable(d[name])
        # M x M rank distributions per size would make the report tens of MB for hundreds of
        # models; `ranktrust stability` keeps them
        big = m.n_models > HEATMAP_MAX_MODELS
        d["stability"] = None if self.stability is None else jsonable(
            self.stability.to_dict(rank_distribution=not big))
        if d["stability"] is not None and big:
            d["stability"]["rank_distribution_omitted"] = True
        d["notes"] = list(self.notes)
        d["dropped"] = dict(m.dropped)
        q = self.quality
        d["quality"] = None if q is None else (q.to_dict() if hasattr(q, "to_dict") else jsonable(q))
        # where each model's results came from (harness, task, split, metric); a plain table says
        # nothing its file name does not, so it has none
        prov = {k: v for k, v in (getattr(m, "provenance", None) or {}).items()
                if v and (v.get("harness") not in (None, "table") or v.get("task") or v.get("metric") or v.get("split"))}
        d["provenance"] = jsonable(prov) if prov else None
        for k in ("microbench", "repeats", "sensitivity"):
            v = self.extra.get(k)
            d[k] = None if v is None else (v.to_dict() if hasattr(v, "to_dict") else jsonable(v))
        return d


def _title(source: str | None) -> str:
    import os

    if not source:
        return "leaderboard"
    # several sources are joined with ", "; a single path may itself hold commas (HELM run folders)
    return ", ".join(os.path.basename(p.strip().rstrip("/")) or p for p in source.split(", "))


def _pair_entry(table: Any, a: str, b: str) -> dict[str, Any] | None:
    """The pair (a, b) of a PairTable oriented as a - b: diff, CI, p-values, counts."""
    if table is None:
        return None
    ia, ib = table.models.index(a), table.models.index(b)
    hit = np.flatnonzero(((table.i == ia) & (table.j == ib)) | ((table.i == ib) & (table.j == ia)))
    if hit.size == 0:
        return None
    k = int(hit[0])
    sign = 1.0 if int(table.i[k]) == ia else -1.0
    lo, hi = (float(v[0]) for v in table.intervals([k]))
    lo, hi = sorted((sign * lo, sign * hi))
    fin = lambda x: None if not np.isfinite(x) else float(x)  # noqa: E731
    oa, ob = int(table.only_a[k]), int(table.only_b[k])
    if sign < 0:
        oa, ob = ob, oa
    return {"diff": fin(sign * float(table.diff[k])), "ci_low": fin(lo), "ci_high": fin(hi),
            "p_value": fin(float(table.p_value[k])), "p_adjusted": fin(float(table.p_adjusted[k])),
            "n_items": int(table.n_items[k]), "only_a": oa if table.binary else None,
            "only_b": ob if table.binary else None}

