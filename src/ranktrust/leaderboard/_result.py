"""The leaderboard report as a result: :class:`LeaderboardReport` and the types of its JSON.

Built by :func:`ranktrust.leaderboard.report`; ``to_dict()`` is the JSON report (stable keys, see
docs/report.md). The headline and the notes are numbers and records here; their sentences are composed in
:mod:`ranktrust.reporting` (``headline.py``, ``notes.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, TypedDict

import numpy as np

from ..data import ScoreMatrix
from ..results import HeadlineJSON, Result, jsonable
from ..stats import ScoreIntervalRow
from ._sections import BUILT_IN, HEATMAP_MAX_MODELS, Note, NoteJSON, PowerSectionJSON

if TYPE_CHECKING:   # the JSON layouts of the report's parts (imported when the report runs)
    from ..quality import DataQualityJSON
    from ..ranking import RankSetsJSON, SplitHalfJSON, StabilityJSON, TiersJSON
    from ..runs import RepeatsJSON, SensitivityJSON
    from ..stats import PairRow
    from ..subsets import MDADResultJSON

__all__ = ["LeaderboardReport", "LeaderboardReportJSON", "Headline", "ReportModelRow", "HEATMAP_MAX_MODELS",
           "set_presenter"]


class ReportModelRow(ScoreIntervalRow):
    """One model of the report's ``"models"``, in display order: its interval row plus its place."""

    rank: int
    tier: int | None
    rank_low: int | None
    rank_high: int | None


class _Headline(HeadlineJSON):
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
    adjust_family: Literal["all", "adjacent"]
    pairs: list[PairRow]
    pair_matrix: dict[str, Any] | None
    tiers: TiersJSON | None
    rank_sets: RankSetsJSON | None
    split_half: SplitHalfJSON | None
    power: PowerSectionJSON | None
    stability: StabilityJSON | None
    notes: list[NoteJSON]
    dropped: dict[str, int]
    quality: DataQualityJSON | None
    provenance: dict[str, dict[str, Any]] | None
    microbench: MDADResultJSON | None
    repeats: RepeatsJSON | None
    sensitivity: SensitivityJSON | None
    sections: list[SectionEntry]


class SectionEntry(TypedDict):
    """One entry of the report's ``"sections"``: a section's name (its JSON key) and its result type."""

    name: str
    type: str


class LeaderboardReportJSON(_ReportJSON, total=False):
    """Layout of :meth:`LeaderboardReport.to_dict` (``sidecar`` and ``pairs_truncated`` with a sidecar)."""

    sidecar: dict[str, Any]
    pairs_truncated: dict[str, Any]


#: What words the report (``str(report)``, ``report.verdict``, ``report.headline["text"]``): a function
#: ``(report, what) -> str`` with ``what`` in ``"text"``, ``"verdict"``. The Jupyter display module
#: (``results.HTML_DISPLAY``, the one declared inversion of the layers) registers it with
#: :func:`set_presenter` when imported; this module imports it on first use.
_presenter: Callable[[Any, str], str] | None = None


def set_presenter(fn: Callable[[Any, str], str] | None) -> None:
    """Set the function that words a report (None: the report prints as its short repr)."""
    global _presenter
    _presenter = fn


def _present(report: Any, what: str) -> str | None:
    if _presenter is None:
        import importlib

        from .. import results

        importlib.import_module(results.HTML_DISPLAY)   # registers the presenter
    return None if _presenter is None else _presenter(report, what)


#: the sections every report has a property for, in build order (``LeaderboardReport.sections``)
_NAMED = BUILT_IN


@dataclass(frozen=True, eq=False)
class LeaderboardReport(Result):
    """Everything the leaderboard report shows: a tuple of typed sections, the headline and the notes.

    ``print(report)`` shows it as ``ranktrust report`` does (the verdict first); ``report.verdict`` is the
    headline sentence, ``report.headline`` its numbers (and ``"text"``), ``report.to_frame()`` the leaderboard
    table.

    Attributes
    ----------
    matrix : ScoreMatrix
        The data analysed.
    sections : tuple of (str, result or None)
        Each section's name and typed result, in the order they were built
        (:data:`ranktrust.leaderboard._sections.BUILDERS`); every one is also an attribute:
    intervals : ScoreIntervals
        Per-model scores with confidence intervals.
    pairs : PairTable
        The pairs shown: each model vs the next one down (default) or all pairs; p-values
        are adjusted over all ``M (M - 1) / 2`` pairs either way (``adjust_family == "all"``;
        ``rt.all_pairs(m, pairs="adjacent")`` adjusts over the ``M - 1`` adjacent pairs instead).
    pairs_all : PairTable
        Every pair (the tests behind tiers, rank ranges and the headline).
    tiers : Tiers
        Tier 1 = the models that could be #1; no two models of a tier are told apart, and each
        model of tier t + 1 is found worse than some model of tier t.
    rank_sets, stability, split_half : results or None
        Rank confidence sets, rank stability vs benchmark size, split-half check.
    power : PowerSection or None
        Items needed for a range of gaps at the observed disagreement (a ``PowerTable``), and the gap
        detectable at this size (a ``PowerResult``).
    repeats, sensitivity, microbench, quality : results or None
    pair_matrix : PairMatrix or None
        Differences and adjusted p-values among the top models (the heatmap).
    settings : mapping
        Confidence level, adjustment, clustering, alignment, seed, draws (read-only).
    notes : tuple of Note
        What the user must know about the input (dropped items, errored samples, ...), as records
        (``code``, ``data``) worded by :mod:`ranktrust.reporting._notes`.
    """

    matrix: ScoreMatrix
    sections: tuple[tuple[str, Any], ...]
    settings: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[Note, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", dict(self.settings))   # a FrozenDict, as every result's dict field
        object.__setattr__(self, "notes", tuple(self.notes))
        super().__post_init__()

    def section(self, name: str) -> Any:
        """The result of section ``name`` (None when the report has none)."""
        for key, value in self.sections:
            if key == name:
                return value
        return None

    def __getattr__(self, name: str) -> Any:
        # every section is an attribute: report.intervals, report.power, ... (only called for names that
        # are not fields or properties)
        if name.startswith("__") or name in ("matrix", "sections", "settings", "notes"):
            raise AttributeError(name)
        for key, value in self.__dict__.get("sections", ()):
            if key == name:
                return value
        if name in _NAMED:
            return None
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def extra(self) -> dict[str, Any]:
        """The micro-benchmark, repeats and sensitivity sections the report has (by name)."""
        return {k: v for k in ("microbench", "repeats", "sensitivity") if (v := self.section(k)) is not None}

    def __repr__(self) -> str:
        m = self.matrix
        shown = ", ".join(k for k, v in self.sections if v is not None)
        return (f"LeaderboardReport(<{m.n_models} models x {m.n_items} items>, sections=({shown}), "
                f"notes={len(self.notes)}, seed={self.settings.get('seed')})")

    def __str__(self) -> str:
        text = _present(self, "text")
        return text if text is not None else repr(self)

    @property
    def verdict(self) -> str | None:
        """The headline sentence: "Yes: A is #1 ..." or "No: 3 models could be #1 ..." (composed from
        :attr:`headline`'s numbers by the presentation layer)."""
        return _present(self, "verdict")

    def to_frame(self) -> Any:
        """The leaderboard table as a ``pandas.DataFrame``: one row per model in display order (rank, model,
        score, se, ci_low, ci_high, n_items, tier, rank_low, rank_high); scores are fractions."""
        import pandas as pd

        cols = ["rank", "model", "score", "se", "ci_low", "ci_high", "n_items", "tier", "rank_low", "rank_high"]
        return pd.DataFrame(self._model_rows(), columns=cols)

    # ------------------------------------------------------------------ views
    def _order(self) -> np.ndarray:
        """Display order: the rank sets' (by tier, then score), else by score."""
        if self.rank_sets is not None:
            return np.asarray(self.rank_sets.order)
        sc = np.nan_to_num(np.asarray(self.intervals.score, dtype=float), nan=-np.inf)
        return np.lexsort((np.arange(sc.size), -sc))

    def _model_rows(self, *, json: bool = False) -> list[dict[str, Any]]:
        """One row per model in display order (the table of :meth:`to_frame`); with ``json`` the JSON's rows
        (a non-finite score, SE or bound as None). Built from whole columns (``tolist()``), not a NumPy scalar at a
        time."""
        iv = self.intervals
        order = self._order()
        names = [iv.models[k] for k in order.tolist()]
        floats = [np.asarray(c, dtype=np.float64)[order] for c in (iv.score, iv.se, iv.ci_low, iv.ci_high)]
        score, se, ci_low, ci_high = (jsonable(c) if json else c.tolist() for c in floats)
        n_items = _ints(np.asarray(iv.n_items)[order])
        if self.tiers is not None:
            tier_of = dict(zip(self.tiers.models, _ints(np.asarray(self.tiers.tier))))
            tier = [tier_of.get(n) for n in names]
        else:
            tier = [None] * len(names)
        rs = self.rank_sets
        if rs is not None:
            rank_low, rank_high = _ints(np.asarray(rs.rank_low)[order]), _ints(np.asarray(rs.rank_high)[order])
        else:
            rank_low = rank_high = [None] * len(names)
        return [{"model": name, "n_items": n, "score": s, "se": e, "ci_low": lo, "ci_high": hi, "rank": rank,
                 "tier": t, "rank_low": rl, "rank_high": rh}
                for rank, (name, n, s, e, lo, hi, t, rl, rh)
                in enumerate(zip(names, n_items, score, se, ci_low, ci_high, tier, rank_low, rank_high), 1)]

    @property
    def headline(self) -> dict[str, Any]:
        """The verdict on #1: its numbers, and the sentence under ``"text"`` (the same as :attr:`verdict`).

        "Yes" only when #1's joint rank range is exactly 1 (it is found better than every
        other model by the same tests the pair table shows); the lead over #2 is the paired
        test of those two on their shared items, with the p-value adjusted over all pairs.
        The resampling figure "#1 in X% of resamples" is not used here: it is optimistic
        for close races (see the stability section).
        """
        out = self._headline()
        text = self.verdict
        if text is not None:
            out["text"] = text
        return out

    def _headline(self) -> dict[str, Any]:
        """The headline's numbers (the JSON's ``"headline"`` before the presentation layer adds ``"text"``)."""
        order = self._order()[:2].tolist()     # the first two rows of the table: only they are read
        names = [self.intervals.models[k] for k in order]
        top = names[0]
        rs = self.rank_sets
        out: dict[str, Any] = {"top": top, "runner_up": None, "separable": None, "diff": None,
                               "ci_low": None, "ci_high": None, "p_value": None, "p_adjusted": None,
                               "rank_low": None if rs is None else int(rs.rank_low[order[0]]),
                               "rank_high": None if rs is None else int(rs.rank_high[order[0]]),
                               "could_be_first": None, "condition_flips": False}
        if len(names) < 2:
            return out
        second = names[1]
        out["runner_up"] = second
        pair = _pair_entry(self.pairs_all if self.pairs_all is not None else self.pairs, top, second)
        if pair is not None:
            out.update(pair)
        cbf = list(self.rank_sets.could_be_first) if self.rank_sets is not None else None
        out["could_be_first"] = cbf
        sens = self.sensitivity
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
        says how many there are), so the JSON of a large leaderboard stays small.

        The headline's sentence and each note's ``"text"`` are added by the presentation layer
        (``ranktrust.reporting._headline.report_dict``, which every output format starts from)."""
        m = self.matrix
        d: dict[str, Any] = {
            "title": self.settings.get("title") or _title(m.source),
            "source": m.source,
            "n_models": m.n_models,
            "n_items": m.n_items,
            "binary": m.is_binary,
            "settings": jsonable(dict(self.settings)),
            "headline": jsonable(self._headline()),
            "models": self._model_rows(json=True),
        }
        pt = self.pairs.to_dict()
        d["pairs_scope"] = pt.get("pairs_scope")
        d["adjust_family"] = pt.get("adjust_family")   # "all": each pair's p_adjusted is over all M(M-1)/2 pairs
        d["pairs"] = pt["pairs"]
        if sidecar is not None:
            from ._sidecar import write_sidecar

            d["sidecar"] = write_sidecar(self, sidecar)
            if len(d["pairs"]) > max_pairs:
                d["pairs_truncated"] = {"shown": max_pairs, "total": len(d["pairs"]), "sidecar": str(sidecar)}
                d["pairs"] = d["pairs"][:max_pairs]
        for name in ("pair_matrix", "tiers", "rank_sets", "split_half", "power"):
            r = self.section(name)
            d[name] = None if r is None else r.to_dict()
        # M x M rank distributions per size would make the report tens of MB for hundreds of
        # models; `ranktrust stability` keeps them
        big = m.n_models > HEATMAP_MAX_MODELS
        d["stability"] = None if self.stability is None else jsonable(
            self.stability.to_dict(rank_distribution=not big))
        if d["stability"] is not None and big:
            d["stability"]["rank_distribution_omitted"] = True
        d["notes"] = [n.to_dict() for n in self.notes]
        d["dropped"] = dict(m.dropped)
        q = self.quality
        d["quality"] = None if q is None else q.to_dict()
        # where each model's results came from (harness, task, split, metric); a plain table says
        # nothing its file name does not, so it has none
        prov = {k: v for k, v in (getattr(m, "provenance", None) or {}).items()
                if v and (v.get("harness") not in (None, "table") or v.get("task") or v.get("metric") or v.get("split"))}
        d["provenance"] = jsonable(prov) if prov else None
        for k in ("microbench", "repeats", "sensitivity"):
            v = self.section(k)
            d[k] = None if v is None else (v.to_dict() if hasattr(v, "to_dict") else jsonable(v))
        # a section with no layout of its own above: its result's JSON under its name
        for k, v in self.sections:
            if k not in d and k not in _NAMED:
                d[k] = None if v is None else v.to_dict()
        # which sections the report has, as which result type (the renderers draw a section by its type)
        d["sections"] = [{"name": k, "type": type(v).__name__} for k, v in self.sections if v is not None]
        return d


def _ints(a: np.ndarray) -> list[int]:
    """``[int(v) for v in a]``, in one ``tolist()`` where ``a`` holds integers already."""
    return a.tolist() if a.dtype.kind in "iu" else [int(v) for v in a.tolist()]


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

