"""``rt.report``: the whole leaderboard analysis in one result (the report pipeline).

The report calls the same public functions a notebook user calls (intervals, all_pairs, tiers,
rank_sets, stability, split_half, power, and the repeats / sensitivity / micro-benchmark / data
quality sections) and keeps their results in a :class:`~ranktrust.leaderboard.LeaderboardReport`.
Every verdict comes from one all-pairs table (see :func:`report`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .. import _random, _validate
from .._validate import Progress, SeedLike
from ..data.matrix import ScoreMatrix
from .result import HEATMAP_MAX_MODELS, LeaderboardReport

__all__ = ["report", "DEFAULT_SIZES", "quality_notes"]

DEFAULT_SIZES: tuple[int | str, ...] = (30, 100, 200, 500, 1000, 2000, "full")


def _display_pairs(table: Any, order: np.ndarray) -> Any:
    """The adjacent pairs of the display order, taken from the all-pairs table (same tests, same
    adjusted p-values), oriented upper row minus lower row."""
    from ..stats.paired import PairTable

    k = len(table.models)
    idx = np.full((k, k), -1, dtype=np.int64)
    idx[table.i, table.j] = np.arange(len(table))
    idx[table.j, table.i] = np.arange(len(table))
    a, b = np.asarray(order[:-1], dtype=np.intp), np.asarray(order[1:], dtype=np.intp)
    sel = idx[a, b]
    flip = table.i[sel] != a
    sgn = np.where(flip, -1.0, 1.0)
    lo, hi = table.intervals(sel)      # the report's table has none stored: the exact ones of these rows
    lo, hi = lo * sgn, hi * sgn
    oa = np.where(flip, table.only_b[sel], table.only_a[sel])
    ob = np.where(flip, table.only_a[sel], table.only_b[sel])
    return PairTable(
        models=table.models, score=table.score, order=np.asarray(order, dtype=np.intp), i=a, j=b,
        n_items=table.n_items[sel], only_a=oa, only_b=ob, diff=table.diff[sel] * sgn, se=table.se[sel],
        ci_low=np.minimum(lo, hi), ci_high=np.maximum(lo, hi), p_value=table.p_value[sel],
        p_adjusted=table.p_adjusted[sel], method=table.method, adjust=table.adjust, pairs_scope="adjacent",
        confidence_level=table.confidence_level, clustered=table.clustered, binary=table.binary,
        ci_method="exact-mcnemar" if table.ci_method == "none" else table.ci_method,
    )


def _pair_matrix(table: Any, order: np.ndarray) -> dict[str, Any] | None:
    """Differences and adjusted p-values of the top models, from the all-pairs table."""
    if table is None or len(table.models) < 2:
        return None
    top = np.asarray(order[:HEATMAP_MAX_MODELS])
    diff = table.matrix("diff")[np.ix_(top, top)]
    padj = table.matrix("p_adjusted")[np.ix_(top, top)]
    return {
        "models": [table.models[k] for k in top],
        "diff": diff,
        "p_adjusted": padj,
        "truncated_from": len(table.models) if len(table.models) > HEATMAP_MAX_MODELS else None,
    }


def _warnings_to_notes(fn: Callable[..., LeaderboardReport]) -> Callable[..., LeaderboardReport]:
    """Warnings raised while the report is built become report notes (each message once)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kw: Any) -> LeaderboardReport:
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rep = fn(*args, **kw)
        seen: list[str] = []
        for w in caught:
            msg = str(w.message)
            if msg not in seen and msg not in rep.notes:
                seen.append(msg)
        if seen:
            object.__setattr__(rep, "notes", rep.notes + tuple(seen))
        return rep

    return wrapper


@_warnings_to_notes
def report(
    m: ScoreMatrix,
    *,
    confidence_level: float = 0.95,
    adjust: str = "holm",
    all_pairs: bool = False,
    cluster: bool = False,
    cluster_label: str | None = None,
    ci_method: str = "auto",
    tiers: str = "auto",
    rank_method: str = "pairs",
    stability: bool = True,
    sizes: Sequence[int | str] = DEFAULT_SIZES,
    stability_n_resamples: int = 2000,
    split_half: bool = False,
    split_half_n_resamples: int = 3000,
    power_gaps: Sequence[float] = (0.01, 0.02, 0.03, 0.05, 0.10),
    rng: SeedLike = 0,
    title: str | None = None,
    microbench: bool = False,
    microbench_n_resamples: int = 20,
    quality: bool = True,
    extra: dict[str, Any] | None = None,
    progress: Progress = None,
) -> LeaderboardReport:
    """Analyse a leaderboard: intervals, paired tests, tiers, rank ranges, stability, power.

    Every verdict (the pair table's adjusted p-values, tiers, rank ranges, "could be #1" and
    the headline) comes from one set of paired tests of all ``M (M - 1) / 2`` pairs, each on
    the items both models scored, adjusted with ``adjust`` over all pairs; so they never
    contradict each other: no tier holds a pair the tests separate, tiers are contiguous in
    the displayed order, and every displayed rank lies inside that model's rank range.

    Parameters
    ----------
    m : ScoreMatrix
        Per-item results. NaN cells (``align="pairwise"``) are allowed: each model's
        interval uses its own items and each pair its shared items; the resampling parts
        (stability, split-half) use the items every model shares and say so.
    confidence_level : float, default: 0.95
    adjust : {"holm", "bonferroni", "bh", "none"}, default: ``"holm"``
        Multiple-comparison adjustment over all pairs. Holm and Bonferroni give rank ranges
        with joint coverage; BH and none do not (a note says so).
    all_pairs : bool, default: False
        Show every pair instead of each model vs the next one down (the tests are the same).
    cluster : bool, default: False
        Clustered intervals and paired tests by item group (CR1 with t(G - 1)); needs groups.
    ci_method : {"auto", "clt", "t", "wilson", "cluster", "percentile", "bca"}, default: ``"auto"``
        Per-model interval method (see :func:`ranktrust.intervals`); ``"percentile"``/``"bca"``
        bootstrap through the resampling engine, seeded from ``seed``.
    cluster_label : str, optional
        Name of the grouping (e.g. the column ``"subject"``), recorded in the settings.
    tiers : {"auto", "rank-sets", "adjacent"}, default: ``"auto"``
        ``"auto"``/``"rank-sets"``: the tiers of the rank ranges (see
        :func:`ranktrust.ranking.ranksets.layers`). ``"adjacent"``: a new tier wherever the
        adjacent pair differs; not transitive (two models far apart can share a tier), labelled so.
    rank_method : {"pairs", "bootstrap"}, default: ``"pairs"``
        How rank ranges are computed (:func:`ranktrust.rank_sets`). ``"bootstrap"`` needs the
        items every model shares (``align="intersect"``).
    stability, split_half : bool
        Which resampling analyses to run.
    sizes : sequence of int or "full"
        Rank-stability benchmark sizes.
    stability_n_resamples : int, default: ``2000``
        Bootstrap draws per size of the rank-stability section (``n_resamples`` of
        :func:`ranktrust.stability`).
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
    quality : bool, default: True
        Data-quality findings (identical runs, rows that do not fit their score) as notes.
    progress : callable(done, total), optional
        Called as the analysis advances, with ``total = 1000`` (thousandths of the work; the
        CLI draws a progress bar on a terminal with it).
    extra : dict, optional
        Sections computed elsewhere: ``{"microbench": ..., "repeats": ..., "sensitivity": ...}``.
        Repeats and sensitivity are added automatically when the data has runs / conditions.

    Returns
    -------
    LeaderboardReport
    """
    seed = _validate.seed(rng)
    user_progress = _validate.progress(progress)
    stability_n_resamples = _validate.count(stability_n_resamples, "stability_n_resamples")
    split_half_n_resamples = _validate.count(split_half_n_resamples, "split_half_n_resamples", minimum=2)
    microbench_n_resamples = _validate.count(microbench_n_resamples, "microbench_n_resamples")

    def stage(_name: str, frac: float) -> None:  # the report's stages as (done, total) thousandths
        if user_progress is not None:
            user_progress(int(round(frac * 1000)), 1000)
    from ..ranking.ranksets import rank_sets as make_rank_sets
    from ..ranking.tiers import tiers_from_pair_table, tiers_of
    from ..stats.intervals import intervals as make_intervals
    from ..stats.paired import all_pairs as make_pairs
    from ..stats.power import estimate_disagreement, power, power_table

    confidence_level = _validate.confidence_level(confidence_level)
    _validate.choice(tiers, "tiers", ("auto", "rank-sets", "adjacent"))
    _validate.choice(rank_method, "rank_method", ("pairs", "bootstrap"))
    if rank_method == "bootstrap" and not m.is_complete:
        raise ValueError("`rank_method`='bootstrap' needs the items every model shares: align the matrix with "
                         "align='intersect', or use rank_method='pairs' (each pair on its shared items)")
    notes = list(m.notes)
    if m.dropped:
        total = sum(m.dropped.values())
        notes.append(
            f"align=intersect dropped {total} (model, item) results: "
            + ", ".join(f"{k} {v}" for k, v in sorted(m.dropped.items(), key=lambda kv: -kv[1])[:5])
            + (f" and {len(m.dropped) - 5} more models" if len(m.dropped) > 5 else "")
        )
    if m.n_runs > 1:
        notes.append(f"scores are means over {m.n_runs} runs per item (the repeats section shows how much "
                     "they vary from run to run)")
    notes = list(dict.fromkeys(notes))   # each note once
    stage("intervals and paired tests", 0.0)
    # named streams (ranktrust._random): a section's numbers never depend on which other sections run.
    # Rank sets, stability and split-half take the seed itself, so the CLI command reproduces them.
    s_ci, s_mb = _random.streams(seed, "intervals", "microbench")
    iv = make_intervals(m, method=ci_method, cluster=cluster, confidence_level=confidence_level,
                        rng=np.random.default_rng(s_ci))
    # every pair's test, but the exact intervals (most of the cost of a large table) only where a
    # pair is shown: the pair table, the headline, the side file (PairTable.exact_intervals)
    pt_all = make_pairs(m, pairs="all", adjust=adjust, confidence_level=confidence_level, cluster=cluster,
                        interval="auto" if all_pairs else "none")
    n_pairs = len(pt_all)
    stage("rank ranges", 0.1)
    rs = make_rank_sets(m, method=rank_method, confidence_level=confidence_level, adjust=adjust, cluster=cluster,
                        pair_table=pt_all if rank_method == "pairs" else None,
                        rng=seed if rank_method == "bootstrap" else None)
    order = np.asarray(rs.order)
    if m.n_models > 1 and not rs.consistent:
        notes.append("the paired tests are not transitive here (each pair uses its own shared items): a cycle of "
                     "'found better' was broken at the highest score, so a displayed rank may leave its range")
    if adjust in ("bh", "none") and m.n_models > 2:
        notes.append(f"with adjust={adjust} the rank ranges and tiers do not hold jointly: an ordering is "
                     "false at a controlled rate (bh) or per pair (none), not with joint confidence")
    pt = pt_all if all_pairs else _display_pairs(pt_all, order)

    complete = m
    if not m.is_complete:
        shared = int(np.all(np.isfinite(m.scores), axis=0).sum())
        if shared >= 1:
            complete = m.align("intersect")
        else:
            complete = None
        if m.n_models > 1 and (stability or split_half):
            notes.append(
                f"stability and split-half resample the {shared} items every model has (of {m.n_items}); "
                "scores, pairs, tiers and rank ranges use each model's (pair's) own items"
                if shared else "no item is scored by every model: stability and split-half are skipped "
                "(scores, pairs, tiers and rank ranges use each model's, or pair's, own items)")
    st = sh = None
    if m.n_models > 1 and complete is not None:
        if stability:
            from ..ranking.stability import stability as make_stability

            n_c = complete.n_items
            use = [s for s in sizes if s == "full" or int(s) < n_c]
            if any(s != "full" and int(s) >= n_c for s in sizes) and "full" not in use:
                use.append("full")   # a size at or above N is the full benchmark
            stage("rank stability", 0.3)
            st = make_stability(complete, sizes=use, n_resamples=stability_n_resamples, rng=seed,
                                rank_distribution=m.n_models <= HEATMAP_MAX_MODELS,  # not shown above
                                progress=lambda done, total: stage("rank stability", 0.3 + 0.5 * done / max(total, 1)))
        if split_half:
            from ..ranking.splithalf import split_half as make_split_half

            stage("split-half", 0.8)
            sh = make_split_half(complete, n_resamples=split_half_n_resamples, rng=seed)

    tier_method = "rank-sets" if tiers == "auto" else tiers
    if m.n_models > 1 and tier_method == "adjacent":
        tr = tiers_from_pair_table(_display_pairs(pt_all, order), alpha=1.0 - confidence_level)
        notes.append("tiers=adjacent: a new tier starts where a model differs from the next one down; this is not "
                     "transitive (two models far apart can share a tier, and a tier can hold a pair the tests "
                     "separate); the rank ranges are the joint statement")
    else:
        tr = tiers_of(rs)

    pw = None
    if m.n_models > 1:
        binary = m.is_binary and m.n_runs == 1
        # discordance share (0/1) or mean squared per-item difference, median over pairs; for 0/1 scores
        # read off the all-pairs table already computed (b + c of n shared items), else recomputed
        ok = np.asarray(pt_all.n_items) > 0
        if pt_all.binary and ok.any():
            q = float(np.median((np.asarray(pt_all.only_a)[ok] + np.asarray(pt_all.only_b)[ok])
                                / np.asarray(pt_all.n_items)[ok]))
        else:
            q = estimate_disagreement(m)
        if q is not None and np.isfinite(q) and q > 0:
            table = power_table(q, gaps=power_gaps, binary=binary)
            at_n = power(items=int(np.median(iv.n_items)), disagreement=q, binary=binary)
            pw = {
                "disagreement": q,
                "q_meaning": "share of items the two models score differently" if binary
                else "mean squared per-item score difference",
                "alpha": 0.05,
                "power": 0.8,
                "table": table.to_dict()["table"],
                "at_n": {"n": int(np.median(iv.n_items)), **{k: v for k, v in at_n.to_dict().items()
                                                             if k in ("detectable_gap", "ci_half_width")}},
            }
    extra = dict(extra or {})
    if m.n_runs > 1 and "repeats" not in extra:
        from ..runs import repeats as make_repeats

        extra["repeats"] = make_repeats(m, confidence_level=confidence_level)
    if m.conditions is not None and len(set(m.conditions)) > 1 and "sensitivity" not in extra:
        from ..runs import sensitivity as make_sensitivity

        extra["sensitivity"] = make_sensitivity(m, by="condition", confidence_level=confidence_level)
    if microbench and "microbench" not in extra and complete is not None:
        if m.n_models < 5:   # mdad needs 2 source models and 3 target models
            notes.append(f"the micro-benchmark section needs at least 5 models (2 to select items, 3 to check "
                         f"them on); this leaderboard has {m.n_models}, so it is left out")
        else:
            from ..subsets import mdad as make_mdad

            src = max(2, int(round(m.n_models * 0.7)))
            sizes_mb = [k for k in (10, 25, 50, 100, 250, 500) if k < complete.n_items]
            extra["microbench"] = make_mdad(complete, sizes=sizes_mb, n_resamples=microbench_n_resamples,
                                            source_models=min(src, m.n_models - 3),
                                            rng=np.random.default_rng(s_mb))
    qres = None
    if quality and m.n_models > 1:
        qres = _quality(m, pt_all)
        if qres is not None:
            notes.extend(quality_notes(qres))
    stage("pair matrix", 0.95)
    pm = _pair_matrix(pt_all, order)
    stage("done", 1.0)
    settings = {
        "confidence_level": confidence_level,
        "adjust": adjust,
        "n_pairs": n_pairs,
        "ci_method": getattr(iv, "method", ci_method),
        "clustered": bool(getattr(iv, "clustered", False)),
        "cluster_by": (cluster_label or "item groups") if getattr(iv, "clustered", False) else None,
        "align": "pairwise" if not m.is_complete else ("intersect" if m.dropped else "complete"),
        "seed": seed,
        "stability_n_resamples": stability_n_resamples,
        "tiers": tier_method,
        "rank_method": rank_method,
        "title": title,
    }
    return LeaderboardReport(
        matrix=m, intervals=iv, pairs=pt, tiers=tr, rank_sets=rs, stability=st, split_half=sh,
        power=pw, settings=settings, notes=tuple(notes), pair_matrix=pm, extra=extra, pairs_all=pt_all,
        quality=qres,
    )


def _quality(m: ScoreMatrix, pairs: Any = None) -> Any:
    """Data-quality findings, when the analysis is available (rt.data_quality)."""
    from ..quality import data_quality

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return data_quality(m, pair_table=pairs)


def quality_notes(q: Any) -> list[str]:
    """Report notes from a data-quality result: the identical pairs and the misfitting rows."""
    fn = getattr(q, "notes", None)
    if callable(fn):
        return list(fn())
    return list(fn or [])

