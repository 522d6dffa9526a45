"""The report's sections: one builder per section, each returning a typed result (or None).

:func:`~ranktrust.leaderboard.report` validates its arguments, makes a :class:`Build` (the matrix, the
settings, the seed and what earlier builders produced) and runs the builders of :data:`SECTIONS` in order; the
:class:`~ranktrust.leaderboard.LeaderboardReport` is the tuple of ``(name, result)`` they return plus the
headline. Builders compute; they write no sentence: what the reader must know comes out as
:class:`Note` records (``code`` and data), worded in :mod:`ranktrust.reporting._notes`.

:data:`SECTIONS` is the one list of the report's sections: each :class:`Section` names its builder, the result
type whose renderers draw it, its place on the page and its HTML partial. A new section is one builder
(``@section("name")``, here or in any module; its result's ``to_dict()`` becomes the JSON key of the same name)
and its renderers in ``reporting/renderers/`` (docs/architecture.md, "Three common changes").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, TypedDict

import numpy as np

from .. import _random
from ..results import Note, NoteJSON, Result, jsonable   # Note: the plain record, built by analysis code too

if TYPE_CHECKING:
    from ..data import ScoreMatrix
    from ..stats import PairTable, PowerResult, PowerRow, PowerTable
    from ._options import Inference, Resampling, Sections

__all__ = ["Note", "NoteJSON", "PowerSection", "PowerSectionJSON", "PairMatrix", "Build", "BUILDERS", "BUILT_IN",
           "HEATMAP_MAX_MODELS", "SECTIONS", "Section", "section"]

#: the pair heatmap and the rank distributions in the JSON are kept for at most this many models
HEATMAP_MAX_MODELS = 60


# ------------------------------------------------------------------------------------------- results
class _AtN(TypedDict):
    n: int
    detectable_gap: float | None
    ci_half_width: float | None


class PowerSectionJSON(TypedDict):
    """Layout of :meth:`PowerSection.to_dict` (the report's ``"power"``)."""

    disagreement: float
    q_meaning: str
    alpha: float
    power: float
    table: list[PowerRow]
    at_n: _AtN


@dataclass(frozen=True, eq=False)
class PowerSection(Result):
    """The questions-needed section: the items needed for each gap at the observed disagreement, and the gap
    detectable at this benchmark's size.

    Attributes
    ----------
    table : PowerTable
        :func:`ranktrust.stats.power_table` at the median disagreement over all pairs.
    at_n : PowerResult
        :func:`ranktrust.power` solved for the gap at ``items`` = the median number of items per model.
    binary : bool
        Whether the disagreement is a share of discordant 0/1 items (else a mean squared difference).
    """

    table: PowerTable
    at_n: PowerResult
    binary: bool

    @property
    def disagreement(self) -> float:
        return float(self.table.disagreement)

    def to_dict(self) -> PowerSectionJSON:
        t = self.table
        return jsonable({
            "disagreement": t.disagreement,
            "q_meaning": "share of items the two models score differently" if self.binary
            else "mean squared per-item score difference",
            "alpha": t.alpha,
            "power": t.power,
            "table": t.to_dict()["table"],
            "at_n": {"n": int(self.at_n.items), "detectable_gap": self.at_n.detectable_gap,
                     "ci_half_width": self.at_n.ci_half_width},
        })


@dataclass(frozen=True, eq=False)
class PairMatrix(Result):
    """Differences (row minus column) and adjusted p-values among the top models, from the all-pairs table.

    Attributes
    ----------
    models : tuple of str
        The top :data:`HEATMAP_MAX_MODELS` models in display order.
    diff, p_adjusted : ndarray, shape (k, k)
    truncated_from : int or None
        The number of models when there are more than shown.
    """

    models: tuple[str, ...]
    diff: np.ndarray
    p_adjusted: np.ndarray
    truncated_from: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return jsonable({"models": list(self.models), "diff": self.diff, "p_adjusted": self.p_adjusted,
                         "truncated_from": self.truncated_from})


# ------------------------------------------------------------------------------------------- build state
@dataclass
class Build:
    """What the builders share: the input, the settings, the seed, and the sections built so far."""

    m: ScoreMatrix
    inference: Inference
    resampling: Resampling
    sections: Sections
    seed: int
    extra: dict[str, Any]
    stage: Callable[[float], None]
    notes: list[Note] = field(default_factory=list)
    done: dict[str, Any] = field(default_factory=dict)
    complete: Any = None        # the matrix of the items every model has (None: no such item)

    def note(self, code: str, **data: Any) -> None:
        self.notes.append(Note(code, data))


# ------------------------------------------------------------------------------------------- builders
def build_intervals(b: Build) -> Any:
    from ..stats import intervals

    inf = b.inference
    b.stage(0.0)
    # named streams (ranktrust._random): a section's numbers never depend on which other sections run
    (s_ci,) = _random.streams(b.seed, "intervals")
    iv = intervals(b.m, method=inf.ci_method, cluster=inf.cluster, confidence_level=inf.confidence_level,
                   rng=np.random.default_rng(s_ci), judges=inf.judges)
    if inf.judges is not None:
        b.notes.extend(iv.notes)   # judges_fixed: the report says how the judges were taken
    return iv


def build_pairs_all(b: Build) -> Any:
    """Every pair's test: the one table behind the tiers, rank ranges, pair table and headline. The exact
    intervals (most of the cost of a large table) are made only where a pair is shown."""
    from ..stats import all_pairs

    inf = b.inference
    return all_pairs(b.m, pairs="all", adjust=inf.adjust, confidence_level=inf.confidence_level,
                     cluster=inf.cluster, interval="auto" if b.sections.all_pairs else "none")


def build_rank_sets(b: Build) -> Any:
    from ..ranking import rank_sets

    inf, m = b.inference, b.m
    b.stage(0.1)
    # rank sets, stability and split-half take the seed itself, so the CLI command reproduces them
    rs = rank_sets(m, method=inf.rank_method, confidence_level=inf.confidence_level, adjust=inf.adjust,
                   cluster=inf.cluster, pair_table=b.done["pairs_all"] if inf.rank_method == "pairs" else None,
                   rng=b.seed if inf.rank_method == "bootstrap" else None)
    if m.n_models > 1 and not rs.consistent:
        b.note("intransitive")
    if inf.adjust in ("bh", "none") and m.n_models > 2:
        b.note("adjust_not_joint", adjust=inf.adjust)
    return rs


def adjacent_rows(i: np.ndarray, j: np.ndarray, order: np.ndarray, n_models: int) -> tuple[np.ndarray, np.ndarray]:
    """The neighbours of ``order`` (``order[0]`` vs ``order[1]``, ``order[1]`` vs ``order[2]``, ...) among the
    rows ``(i[r], j[r])`` of a pair table: the row of each neighbour pair (in display order; a pair the table
    lacks is left out) and whether that row is stored the other way round (its ``i`` is the lower model, so
    it is shown with A and B swapped and its difference negated). The one rule behind :func:`display_pairs`
    (a :class:`~ranktrust.stats.PairTable`) and :func:`display_pair_rows` (the report's JSON)."""
    i, j = np.asarray(i, dtype=np.intp), np.asarray(j, dtype=np.intp)
    idx = np.full((n_models, n_models), -1, dtype=np.intp)
    idx[i, j] = np.arange(i.size)
    idx[j, i] = np.arange(i.size)
    a = np.asarray(order[:-1], dtype=np.intp)
    sel = idx[a, np.asarray(order[1:], dtype=np.intp)]
    a, sel = a[sel >= 0], sel[sel >= 0]
    return sel, i[sel] != a


def display_pairs(table: PairTable, order: np.ndarray) -> PairTable:
    """The adjacent pairs of the display order, taken from the all-pairs table (same tests, same
    adjusted p-values: ``adjust_family`` stays the table's, ``"all"``, while ``pairs_scope`` is
    ``"adjacent"``), oriented upper row minus lower row (:func:`adjacent_rows`)."""
    from ..stats import PairTable

    order = np.asarray(order, dtype=np.intp)
    sel, flip = adjacent_rows(table.i, table.j, order, len(table.models))
    a = np.where(flip, table.j[sel], table.i[sel])
    b = np.where(flip, table.i[sel], table.j[sel])
    sgn = np.where(flip, -1.0, 1.0)
    lo, hi = table.intervals(sel)      # the report's table has none stored: the exact ones of these rows
    lo, hi = lo * sgn, hi * sgn
    oa = np.where(flip, table.only_b[sel], table.only_a[sel])
    ob = np.where(flip, table.only_a[sel], table.only_b[sel])
    return PairTable(
        models=table.models, score=table.score, order=order, i=a, j=b,
        n_items=table.n_items[sel], only_a=oa, only_b=ob, diff=table.diff[sel] * sgn, se=table.se[sel],
        ci_low=np.minimum(lo, hi), ci_high=np.maximum(lo, hi), p_value=table.p_value[sel],
        p_adjusted=table.p_adjusted[sel], method=table.method, adjust=table.adjust, pairs_scope="adjacent",
        adjust_family=table.adjust_family, confidence_level=table.confidence_level, clustered=table.clustered, binary=table.binary,
        ci_method="exact-mcnemar" if table.ci_method == "none" else table.ci_method,
    )


def _neg(x: Any) -> Any:
    return None if x is None else -x


def display_pair_rows(d: dict[str, Any]) -> list[dict[str, Any]]:
    """The pairs a report shows, from its JSON: its ``"pairs"`` as they are when it holds the adjacent pairs;
    from the all-pairs rows (``all_pairs=True``), the neighbours of the display order (``"models"``), taken and
    oriented as :func:`display_pairs` takes them from the table (:func:`adjacent_rows`)."""
    pairs = list(d.get("pairs") or [])
    if d.get("pairs_scope") != "all":
        return pairs
    pos = {r["model"]: k for k, r in enumerate(d.get("models") or [])}
    rows = [p for p in pairs if p["a"] in pos and p["b"] in pos]
    sel, flip = adjacent_rows(np.array([pos[p["a"]] for p in rows], dtype=np.intp),
                              np.array([pos[p["b"]] for p in rows], dtype=np.intp), np.arange(len(pos)), len(pos))
    out = []
    for r, f in zip(sel.tolist(), flip.tolist()):
        p = dict(rows[r])
        if f:
            p.update(a=p["b"], b=p["a"], only_a=p.get("only_b"), only_b=p.get("only_a"), diff=_neg(p.get("diff")),
                     ci_low=_neg(p.get("ci_high")), ci_high=_neg(p.get("ci_low")))
        out.append(p)
    return out


def build_pairs(b: Build) -> Any:
    pt_all = b.done["pairs_all"]
    return pt_all if b.sections.all_pairs else display_pairs(pt_all, np.asarray(b.done["rank_sets"].order))


def _complete(b: Build) -> Any:
    """The items every model has (the resampling sections need them); notes when that is not all items."""
    m, rs = b.m, b.resampling
    if m.is_complete:
        return m
    shared = int(np.all(np.isfinite(m.scores), axis=0).sum())
    if m.n_models > 1 and (rs.stability or rs.split_half):
        if shared:
            b.note("resampled_shared_items", shared=shared, n_items=m.n_items)
        else:
            b.note("no_shared_items")
    return m.align("intersect") if shared >= 1 else None


#: above this many cells (models x items every model has) the report's rank stability draws at most
#: :data:`STABILITY_SAMPLED_RESAMPLES` per size unless ``stability="all"`` (a ``stability_sampled`` note says so)
STABILITY_SAMPLE_ABOVE_CELLS = 10_000_000
#: the draws per size of the report's rank stability above :data:`STABILITY_SAMPLE_ABOVE_CELLS` cells
STABILITY_SAMPLED_RESAMPLES = 500


def stability_draws(n_cells: int, n_resamples: int, stability: bool | str = True) -> int:
    """The draws per size of the report's rank stability: ``n_resamples``, at most
    :data:`STABILITY_SAMPLED_RESAMPLES` above :data:`STABILITY_SAMPLE_ABOVE_CELLS` cells unless ``stability`` is
    ``"all"``."""
    if stability != "all" and n_cells > STABILITY_SAMPLE_ABOVE_CELLS:
        return min(int(n_resamples), STABILITY_SAMPLED_RESAMPLES)
    return int(n_resamples)


def build_stability(b: Build) -> Any:
    b.complete = _complete(b)
    m, rs, complete = b.m, b.resampling, b.complete
    if m.n_models < 2 or complete is None or not rs.stability:
        return None
    from ..ranking import stability

    n_c = complete.n_items
    use = [s for s in rs.sizes if s == "full" or int(s) < n_c]
    if any(s != "full" and int(s) >= n_c for s in rs.sizes) and "full" not in use:
        use.append("full")   # a size at or above N is the full benchmark
    cells = int(complete.n_models) * int(n_c)
    draws = stability_draws(cells, rs.stability_n_resamples, rs.stability)
    b.stage(0.3)
    st = stability(complete, sizes=use, n_resamples=draws, rng=b.seed,
                   rank_distribution=m.n_models <= HEATMAP_MAX_MODELS,  # not shown above
                   progress=lambda done, total: b.stage(0.3 + 0.5 * done / max(total, 1)))
    if draws < rs.stability_n_resamples:
        # every probability p of the section is a share of `draws` independent draws: Monte Carlo SE
        # sqrt(p (1 - p) / draws), at most 0.5 / sqrt(draws); the largest of the figures shown is stated
        se = np.concatenate([st.p_top_stays_top_se, st.p_topk_order_se.ravel(), st.p_first_se.ravel()])
        b.note("stability_sampled", n_resamples=draws, asked=int(rs.stability_n_resamples), cells=cells,
               above_cells=STABILITY_SAMPLE_ABOVE_CELLS, max_se=float(np.nanmax(se)) if np.isfinite(se).any() else None,
               se_bound=float(0.5 / np.sqrt(draws)))
    return st


def build_split_half(b: Build) -> Any:
    if b.m.n_models < 2 or b.complete is None or not b.resampling.split_half:
        return None
    from ..ranking import split_half

    b.stage(0.8)
    return split_half(b.complete, n_resamples=b.resampling.split_half_n_resamples, rng=b.seed)


def build_tiers(b: Build) -> Any:
    from ..ranking import tiers_from_pair_table, tiers_of

    rs = b.done["rank_sets"]
    if b.m.n_models > 1 and b.inference.tiers == "adjacent":
        b.note("tiers_adjacent")
        return tiers_from_pair_table(display_pairs(b.done["pairs_all"], np.asarray(rs.order)),
                                     alpha=1.0 - b.inference.confidence_level)
    return tiers_of(rs)


def build_power(b: Build) -> PowerSection | None:
    """Items needed per gap at the median disagreement over all pairs, and the gap detectable at this size."""
    m = b.m
    if m.n_models < 2:
        return None
    from ..stats import estimate_disagreement, power, power_table

    pt_all = b.done["pairs_all"]
    binary = m.is_binary and m.n_runs == 1
    # discordance share (0/1) or mean squared per-item difference, median over pairs; for 0/1 scores
    # read off the all-pairs table already computed (b + c of n shared items), else recomputed
    ok = np.asarray(pt_all.n_items) > 0
    if pt_all.binary and ok.any():
        q = float(np.median((np.asarray(pt_all.only_a)[ok] + np.asarray(pt_all.only_b)[ok])
                            / np.asarray(pt_all.n_items)[ok]))
    else:
        q = estimate_disagreement(m)
    if q is None or not np.isfinite(q) or q <= 0:
        return None
    n = int(np.median(b.done["intervals"].n_items))
    return PowerSection(table=power_table(q, gaps=b.sections.power_gaps, binary=binary),
                        at_n=power(items=n, disagreement=q, binary=binary), binary=binary)


def build_microbench(b: Build) -> Any:
    if "microbench" in b.extra:
        return b.extra["microbench"]
    m = b.m
    if not b.sections.microbench or b.complete is None:
        return None
    if m.n_models < 5:   # mdad needs 2 source models and 3 target models
        b.note("microbench_too_few_models", n_models=m.n_models)
        return None
    from ..subsets import mdad
    from ..subsets import DEFAULT_SIZES as MDAD_SIZES

    (s_mb,) = _random.streams(b.seed, "microbench")
    src = max(2, int(round(m.n_models * 0.7)))
    return mdad(b.complete, sizes=[k for k in MDAD_SIZES if k < b.complete.n_items],
                n_resamples=b.sections.microbench_n_resamples, source_models=min(src, m.n_models - 3),
                rng=np.random.default_rng(s_mb))


def build_repeats(b: Build) -> Any:
    if "repeats" in b.extra:
        return b.extra["repeats"]
    if b.m.n_runs < 2:
        return None
    from ..runs import repeats

    return repeats(b.m, confidence_level=b.inference.confidence_level)


def build_sensitivity(b: Build) -> Any:
    if "sensitivity" in b.extra:
        return b.extra["sensitivity"]
    m = b.m
    if m.conditions is None or len(set(m.conditions)) < 2:
        return None
    from ..runs import sensitivity

    return sensitivity(m, by="condition", confidence_level=b.inference.confidence_level)


def build_quality(b: Build) -> Any:
    """Data-quality findings (rt.data_quality), and a note for each: identical rows, rows that misfit."""
    if not b.sections.quality or b.m.n_models < 2:
        return None
    import warnings

    from ..quality import data_quality

    (s_q,) = _random.streams(b.seed, "quality")   # the person fit's folds and its healthy reference follow --seed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q = data_quality(b.m, pair_table=b.done["pairs_all"], rng=np.random.default_rng(s_q),
                         person_fit="all" if b.sections.quality == "all" else True)
    b.notes.extend(quality_notes(q))
    return q


def quality_notes(q: Any) -> list[Note]:
    """The notes of a data-quality result (:meth:`ranktrust.quality.DataQuality.notes`): one per group of
    (nearly) identical rows, one per misfit row."""
    return list(q.notes())


def build_pair_matrix(b: Build) -> PairMatrix | None:
    table = b.done["pairs_all"]
    b.stage(0.95)
    if table is None or len(table.models) < 2:
        return None
    top = np.asarray(b.done["rank_sets"].order)[:HEATMAP_MAX_MODELS]
    return PairMatrix(models=tuple(table.models[k] for k in top),
                      diff=table.matrix("diff")[np.ix_(top, top)],
                      p_adjusted=table.matrix("p_adjusted")[np.ix_(top, top)],
                      truncated_from=len(table.models) if len(table.models) > HEATMAP_MAX_MODELS else None)


@dataclass(frozen=True)
class Section:
    """One section of the report, the one place that names it: ``name`` (its JSON key and its attribute on the
    report), ``build`` (its builder, ``Build -> Result | None``, run in :data:`SECTIONS` order), ``type`` (the
    result type whose renderers draw it, by class name; None: the type its builder returns), ``order`` (its place
    on the page, in text, Markdown and HTML alike), ``partial`` (the HTML partial that shows it,
    ``reporting/templates/sections/<partial>.html.j2``; None: its Markdown, as HTML) and ``alone`` (False: drawn
    inside another section's part in text and Markdown, as the intervals' rank ranges are in the leaderboard
    table)."""

    name: str
    build: Callable[[Build], Any]
    type: str | None = None
    order: float | None = None
    partial: str | None = None
    alone: bool = True


#: the report's sections, in the order they are built (a builder may read what the ones above it made); the
#: text, Markdown and HTML report draw them in ``order`` between the headline and the notes
SECTIONS: list[Section] = [
    Section("intervals", build_intervals, "ScoreIntervals", 10, "leaderboard"),
    Section("pairs_all", build_pairs_all, "PairTable", partial="pairs", alone=False),   # behind every verdict
    Section("rank_sets", build_rank_sets, "RankSets", 25, "ranks", alone=False),   # the table's rank ranges
    Section("pairs", build_pairs, "PairTable", 20, "pairs"),
    Section("stability", build_stability, "Stability", 40, "stability"),
    Section("split_half", build_split_half, "SplitHalf", 41, "stability"),
    Section("tiers", build_tiers, "Tiers", 30, "pairs"),
    Section("power", build_power, "PowerSection", 50, "power"),
    Section("repeats", build_repeats, "Repeats", 70, "repeats"),
    Section("sensitivity", build_sensitivity, "Sensitivity", 80, "sensitivity"),
    Section("microbench", build_microbench, "MDADResult", 60, "microbench"),
    Section("quality", build_quality, "DataQuality", partial="notes", alone=False),   # its findings: the notes
    Section("pair_matrix", build_pair_matrix, "PairMatrix", 21, "pairs", alone=False),   # the heat map
]

#: the sections every report knows (a section registered with :func:`section` is drawn from its own JSON)
BUILT_IN = tuple(s.name for s in SECTIONS)

#: the builders in build order: ``(name, builder)`` of :data:`SECTIONS`
BUILDERS: list[tuple[str, Callable[[Build], Any]]] = [(s.name, s.build) for s in SECTIONS]


def section(name: str, *, type: str | None = None, order: float = 90.0,
            partial: str | None = None) -> Callable[[Callable[[Build], Any]], Callable[[Build], Any]]:
    """Register the decorated function as the builder of section ``name`` (built after the ones above; a
    section of the same name is replaced). Its result's ``to_dict()`` is the JSON under ``name``; the text and
    Markdown report draw it with the renderers registered for its type at ``order`` (after the built-in
    sections by default), the HTML page shows ``partial`` (a template of ``reporting/templates/sections/``) or
    else its Markdown::

        @section("calibration")
        def build_calibration(b: Build) -> Calibration | None:
            return calibration(b.m, confidence_level=b.inference.confidence_level)
    """
    def deco(fn: Callable[[Build], Any]) -> Callable[[Build], Any]:
        SECTIONS[:] = [s for s in SECTIONS if s.name != name] + [Section(name, fn, type, order, partial)]
        BUILDERS[:] = [(s.name, s.build) for s in SECTIONS]
        return fn

    return deco
