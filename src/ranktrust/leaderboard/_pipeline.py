"""``rt.report``: the whole leaderboard analysis in one result (the report pipeline).

``report()`` is validation, then a loop over the section builders of :mod:`.sections` (each calls the
public function a notebook user calls: intervals, all_pairs, rank_sets, tiers, stability, split_half,
power, repeats, sensitivity, mdad, data_quality) whose typed results make the
:class:`~ranktrust.leaderboard.LeaderboardReport`. Every verdict comes from one all-pairs table.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import _validate
from .._validate import Progress, SeedLike
from ..data import ScoreMatrix
from ..errors import ArgumentError, DegenerateDataWarning
from ._options import DEFAULT_SIZES, Inference, Resampling, Sections, resolve
from ._gold import gold_builders
from ._result import LeaderboardReport
from ._sections import BUILDERS, Build, Note, quality_notes

__all__ = ["report", "DEFAULT_SIZES", "quality_notes"]


def _warnings_to_notes(fn: Callable[..., LeaderboardReport]) -> Callable[..., LeaderboardReport]:
    """Warnings raised while the report is built become report notes (code ``warning``, each message once, with
    the warning's own code in ``data["code"]``).

    A model with zero spread is one fact however many sections meet it (the intervals' CLT, the repeats'
    t interval): their zero-spread warnings become one ``zero_spread`` note naming the models."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kw: Any) -> LeaderboardReport:
        import dataclasses
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rep = fn(*args, **kw)
        seen = {n.data.get("text") for n in rep.notes if n.code in ("input", "warning")}
        flat = _zero_spread_models(rep.matrix)
        new, merged = [], False
        for w in caught:
            msg = str(w.message)
            if flat and _names_only(w.message, flat):
                merged = True
                continue
            if msg not in seen:
                seen.add(msg)
                rec = getattr(w.message, "note", None)    # a warning that carries its record (cluster_edge)
                new.append(rec if isinstance(rec, Note) else
                           Note("warning", {"text": msg, "category": w.category.__name__,
                                            "code": getattr(w.message, "code", None)}))
        sections = rep.sections
        if flat:      # the repeats' "CI is not defined" for such a model is the same cause: one note
            sections, dup = _without_flat_repeats_notes(rep.sections, flat)
            merged = merged or dup
        if merged and not any(n.code == "zero_spread" for n in rep.notes):
            new.insert(0, Note("zero_spread", {"models": list(flat), "values": list(flat.values())}))
        if sections is not rep.sections:
            rep = dataclasses.replace(rep, sections=sections)
        return dataclasses.replace(rep, notes=rep.notes + tuple(new)) if new else rep

    return wrapper


def _without_flat_repeats_notes(sections: tuple[tuple[str, Any], ...], flat: dict[str, float],
                                ) -> tuple[tuple[tuple[str, Any], ...], bool]:
    """The sections with the repeats' zero-spread notes (``constant_item_means``: "M: every item has the same mean
    over runs ... CI is not defined") of the models in ``flat`` taken out (the report's ``zero_spread`` note says
    it), and whether any was."""
    import dataclasses

    out, dropped = [], False
    for name, sec in sections:
        notes = getattr(sec, "notes", None) if name == "repeats" else None
        if notes:
            kept = tuple(n for n in notes if not (n.code == "constant_item_means" and n.data.get("model") in flat))
            if len(kept) < len(notes):
                sec, dropped = dataclasses.replace(sec, notes=kept), True
        out.append((name, sec))
    return (tuple(out), True) if dropped else (sections, False)


def _zero_spread_models(m: ScoreMatrix) -> dict[str, float]:
    """The models whose every item has the same score (mean over runs): model -> that score."""
    import numpy as np

    from .._kernel import zero_spread

    s = np.asarray(m.scores, dtype=float)
    flat = zero_spread(s)
    return {m.models[j]: float(np.nanmax(s[j])) for j in np.flatnonzero(flat)}


def _names_only(w: Warning, flat: dict[str, float]) -> bool:
    """Whether ``w`` is a zero-spread warning about models (code ``zero_spread``), every model it names among
    ``flat``."""
    if not isinstance(w, DegenerateDataWarning) or w.code != "zero_spread" or w.data.get("subject") != "model":
        return False
    names = w.data.get("names")
    return bool(names) and all(n in flat for n in names)


@_warnings_to_notes
def report(
    m: ScoreMatrix,
    *,
    inference: Inference | None = None,
    resampling: Resampling | None = None,
    sections: Sections | None = None,
    rng: SeedLike = 0,
    extra: dict[str, Any] | None = None,
    progress: Progress = None,
    **keywords: Any,
) -> LeaderboardReport:
    """Analyse a leaderboard: intervals, paired tests, tiers, rank ranges, stability, power.

    Every verdict (the pair table's adjusted p-values, tiers, rank ranges, "could be #1" and
    the headline) comes from one set of paired tests of all ``M (M - 1) / 2`` pairs, each on
    the items both models scored, adjusted with ``adjust`` over all pairs; so they never
    contradict each other: no tier holds a pair the tests separate, tiers are contiguous in
    the displayed order, and every displayed rank lies inside that model's rank range.

    The settings come in three groups (:class:`~ranktrust.leaderboard.Inference`,
    :class:`~ranktrust.leaderboard.Resampling`, :class:`~ranktrust.leaderboard.Sections`); each field is
    also a keyword of its own (``report(m, adjust="bh")`` is ``report(m, inference=Inference(adjust="bh"))``).
    ``print(report(m))`` shows the report as ``ranktrust report`` prints it; ``report(m).verdict`` is the
    headline sentence.

    Parameters
    ----------
    m : ScoreMatrix
        Per-item results. NaN cells (``align="pairwise"``) are allowed: each model's
        interval uses its own items and each pair its shared items; the resampling parts
        (stability, split-half) use the items every model shares and say so.
    inference, resampling, sections : Inference, Resampling, Sections, optional
        The settings by group; or give their fields as keywords (below).
    confidence_level : float, default: 0.95
    adjust : {"holm", "bonferroni", "bh", "none"}, default: ``"holm"``
        Multiple-comparison adjustment over all pairs. Holm and Bonferroni give rank ranges
        with joint coverage; BH and none do not (a note says so).
    all_pairs : bool, default: False
        Show every pair instead of each model vs the next one down (the tests are the same).
    cluster : bool, default: False
        Clustered intervals and paired tests by item group (CR2 with t(G - 1), the default
        ``cluster_correction`` of :func:`ranktrust.intervals`); needs groups.
    ci_method : {"auto", "clt", "t", "wilson", "cluster", "percentile", "bca"}, default: ``"auto"``
        Per-model interval method (see :func:`ranktrust.intervals`); ``"percentile"``/``"bca"``
        bootstrap through the resampling engine, seeded from ``rng``.
    cluster_label : str, optional
        Name of the grouping (e.g. the column ``"subject"``), recorded in the settings.
    tiers : {"auto", "rank-sets", "adjacent"}, default: ``"auto"``
        ``"auto"``/``"rank-sets"``: the tiers of the rank ranges. ``"adjacent"``: a new tier wherever the
        adjacent pair differs; not transitive (two models far apart can share a tier), labelled so.
    rank_method : {"pairs", "bootstrap"}, default: ``"pairs"``
        How rank ranges are computed (:func:`ranktrust.rank_sets`). ``"bootstrap"`` needs the
        items every model shares (``align="intersect"``).
    stability : bool or "all", default: True
        Rank stability vs benchmark size (:func:`ranktrust.stability`). Above 10 million cells (models x the
        items every model has) it draws at most 500 benchmarks per size and a ``stability_sampled`` note states
        each probability's Monte Carlo standard error; ``"all"`` draws ``stability_n_resamples`` whatever the
        size (slower).
    split_half : bool, default: False
        The split-half winner check (:func:`ranktrust.split_half`).
    sizes : sequence of int or "full"
        Rank-stability benchmark sizes.
    stability_n_resamples : int, default: ``2000``
        Bootstrap draws per size of the rank-stability section (``n_resamples`` of
        :func:`ranktrust.stability`); ``settings["stability_n_resamples"]`` records those drawn.
    split_half_n_resamples : int, default: ``3000``
        Random halves of the split-half check (``n_resamples`` of :func:`ranktrust.split_half`).
    power_gaps : sequence of float
        Gaps (fractions) for the questions-needed table.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, default: ``0``
        Randomness of every random step. The report derives one int seed from it (an int is
        used as is; a Generator or SeedSequence draws one; None draws fresh entropy) and
        records it as ``settings["seed"]``; each section derives its own stream from that
        seed, so ``ranktrust stability --seed S`` prints the same figures. The default ``0``
        makes a report reproducible.
    microbench : bool, default: False
        Add the micro-benchmark section (MDAD of random/stratified/anchor/IRT/diversity subsets,
        ``microbench_n_resamples`` trials, 70% of models as sources, at least 3 left as targets; fewer than
        5 models: left out, with a note).
    quality : bool or "all", default: True
        Data-quality findings (identical runs, rows that do not fit their score) as notes. Above 10
        million cells the person fit uses a random sample of items, and a note says so; ``"all"``: every
        item (slower).
    title : str, optional
        The report's title (default: the input's file name).
    progress : callable(done, total), optional
        Called as the analysis advances, with ``total = 1000`` (thousandths of the work; the
        CLI draws a progress bar on a terminal with it).
    extra : dict, optional
        Sections computed elsewhere: ``{"microbench": ..., "repeats": ..., "sensitivity": ...}``.
        Repeats and sensitivity are added automatically when the data has runs / conditions.
    gold : ScoreMatrix, optional
        Gold labels on a random subset of the items (NaN where not labelled); ``m`` is then the judge's scores.
        The intervals, pair table, tiers, rank ranges and headline come from the gold-corrected estimates
        (:func:`ranktrust.intervals` with ``gold``), the ``gold`` section shows the judge-only and gold-only
        answers beside them with the method and the number of labels, and the sections that would read the
        judge's raw scores (stability, split-half, power, micro-benchmarks, repeats, conditions, data quality)
        are left out, named in that section.
    gold_method : {"auto", "ppi++", "stratified", "rogan-gladen"}, default: ``"auto"``

    Returns
    -------
    LeaderboardReport
    """
    inf, res, sec = resolve(inference, resampling, sections, keywords)
    inf, res, sec = _report_iv(m, inf, res, sec)
    seed = _validate.seed(rng)
    user_progress = _validate.progress(progress)

    def stage(frac: float) -> None:  # the report's stages as (done, total) thousandths
        if user_progress is not None:
            user_progress(int(round(frac * 1000)), 1000)

    b = Build(m=m, inference=inf, resampling=res, sections=sec, seed=seed, extra=dict(extra or {}), stage=stage)
    # a reader's note: its sentence (code "input") or its record (HELM's stats.json checks), each once
    b.notes.extend({repr(n): n if isinstance(n, Note) else Note("input", {"text": n}) for n in m.notes}.values())
    if m.dropped:
        b.note("dropped", total=int(sum(m.dropped.values())),
               by_model=dict(sorted(m.dropped.items(), key=lambda kv: -kv[1])))
    if m.n_runs > 1:
        b.note("runs", n_runs=m.n_runs)
    for name, build in (gold_builders() if inf.gold is not None else BUILDERS):
        b.done[name] = build(b)
    stage(1.0)
    iv = b.done["intervals"]
    settings = {
        "confidence_level": inf.confidence_level,
        "adjust": inf.adjust,
        "n_pairs": len(b.done["pairs_all"]),
        "ci_method": iv.method,
        "clustered": bool(iv.clustered),
        "cluster_by": (inf.cluster_label or "item groups") if iv.clustered else None,
        "align": "pairwise" if not m.is_complete else ("intersect" if m.dropped else "complete"),
        "seed": seed,
        "stability_n_resamples": (res.stability_n_resamples if b.done.get("stability") is None
                                  else b.done["stability"].n_resamples),
        "tiers": inf.tiers,
        "rank_method": inf.rank_method,
        "title": sec.title,
        **({"gold_method": iv.method, "n_labelled": iv.n_labelled} if inf.gold is not None else {}),
        **({"judges": inf.judges} if inf.judges is not None else {}),
    }
    return LeaderboardReport(matrix=m, sections=tuple(b.done.items()), settings=settings, notes=tuple(b.notes))


def _report_iv(m: Any, inf: Inference, res: Resampling, sec: Sections) -> tuple[Inference, Resampling, Sections]:
    """The report's arguments checked and normalised (one message per argument, naming it)."""
    import dataclasses

    if not isinstance(m, ScoreMatrix):
        raise TypeError(f"`m` must be a ScoreMatrix; got {type(m).__name__}")
    _validate.choice(inf.tiers, "tiers", ("auto", "rank-sets", "adjacent"))
    _validate.choice(inf.rank_method, "rank_method", ("pairs", "bootstrap"))
    if inf.rank_method == "bootstrap" and not m.is_complete:
        raise ArgumentError("`rank_method`='bootstrap' needs the items every model shares: align the matrix with "
                         "`align`='intersect', or use `rank_method`='pairs' (each pair on its shared items)", param="rank_method")
    if inf.gold is not None and inf.rank_method != "pairs":
        raise ArgumentError("with `gold`, rank ranges come from the pairs of gold-corrected means: use "
                            "`rank_method`='pairs'", param="rank_method")
    if inf.gold is not None and inf.judges is not None:
        raise ArgumentError("`judges` and `gold` are not combined: the gold estimator reads one judge score per item",
                            param="judges")
    if inf.gold is not None and inf.ci_method != "auto":
        raise ArgumentError(f"with `gold`, the intervals are the gold estimator's (`gold_method`); `ci_method`="
                            f"{inf.ci_method!r} is a score-path interval: leave it 'auto'", param="ci_method")
    inf = dataclasses.replace(inf, confidence_level=_validate.confidence_level(inf.confidence_level),
                              tiers="rank-sets" if inf.tiers == "auto" else inf.tiers)
    res = dataclasses.replace(
        res, stability_n_resamples=_validate.count(res.stability_n_resamples, "stability_n_resamples"),
        split_half_n_resamples=_validate.count(res.split_half_n_resamples, "split_half_n_resamples", minimum=2))
    if not (isinstance(sec.quality, bool) or sec.quality == "all"):
        raise ArgumentError(f"`quality` must be True, False or 'all' (the person fit on every item, whatever the "
                            f"size); got {sec.quality!r}", param="quality")
    sec = dataclasses.replace(
        sec, microbench_n_resamples=_validate.count(sec.microbench_n_resamples, "microbench_n_resamples"))
    return inf, res, sec
