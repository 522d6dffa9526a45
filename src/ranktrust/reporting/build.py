"""``rt.report``: the whole leaderboard analysis in one result.

The report calls the same public functions a notebook user calls (intervals,
all_pairs, tiers, rank_sets, stability, split_half, power) and keeps their
results; ``to_dict()`` is the JSON report (stable keys, see docs/report.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ..data.matrix import ScoreMatrix
from ..results import Result, jsonable

__all__ = ["report", "LeaderboardReport"]

HEATMAP_MAX_MODELS = 60
DEFAULT_SIZES: tuple[int | str, ...] = (30, 100, 200, 500, 1000, 2000, "full")


@dataclass(frozen=True)
class LeaderboardReport(Result):
    """Everything ``ranktrust report`` shows, as results of the public API.

    Attributes
    ----------
    matrix : ScoreMatrix
        The data analysed.
    intervals : ScoreIntervals
        Per-model scores with confidence intervals.
    pairs : PairTable
        Adjacent (default) or all pairs, paired tests with adjusted p-values.
    tiers : Tiers
        Groups of models that cannot be told apart.
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
    intervals: Any
    pairs: Any
    tiers: Any
    rank_sets: Any = None
    stability: Any = None
    split_half: Any = None
    power: Any = None
    settings: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    pair_matrix: Any = None
    extra: dict = field(default_factory=dict)  # microbench / repeats / sensitivity sections

    # ------------------------------------------------------------------ views
    def _model_rows(self) -> list[dict[str, Any]]:
        iv = self.intervals
        order = np.argsort(-np.nan_to_num(np.asarray(iv.score, dtype=float), nan=-np.inf), kind="stable")
        tier_of = {}
        if self.tiers is not None:
            for k, mname in enumerate(self.tiers.models):
                tier_of[mname] = int(self.tiers.tier[k])
        rs = {}
        if self.rank_sets is not None:
            for row in self.rank_sets.to_dict()["models"]:
                rs[row["model"]] = (row.get("rank_low"), row.get("rank_high"))
        rows = []
        for rank, k in enumerate(order, 1):
            name = iv.models[k]
            lo, hi = rs.get(name, (None, None))
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

    def headline(self) -> dict[str, Any]:
        rows = self._model_rows()
        top = rows[0]["model"]
        out: dict[str, Any] = {"top": top, "runner_up": None, "separable": None, "diff": None,
                               "p_value": None, "p_adjusted": None, "p_top_stays_top": None}
        if self.stability is not None:
            srows = self.stability.to_dict()["sizes"]
            full = [r for r in srows if r.get("label") == "full"] or srows[-1:]
            if full:
                out["p_top_stays_top"] = full[-1].get("p_top_stays_top")
        if len(rows) < 2:
            out["text"] = f"{top} is the only model: there is nothing to compare."
            return out
        second = rows[1]["model"]
        out["runner_up"] = second
        pd_ = self.pairs.to_dict()["pairs"]
        first_pair = next((p for p in pd_ if {p["a"], p["b"]} == {top, second}), None)
        could_be_first = None
        if self.rank_sets is not None:
            could_be_first = list(self.rank_sets.to_dict().get("could_be_first", []))
        lvl = self.settings.get("confidence_level", 0.95)
        alpha = 1 - lvl
        ev = []
        if first_pair is not None:
            sign = 1 if first_pair["a"] == top else -1
            d = sign * first_pair["diff"] if first_pair["diff"] is not None else None
            padj = first_pair.get("p_adjusted")
            out.update(diff=d, p_value=first_pair["p_value"], p_adjusted=padj)
            if first_pair["ci_low"] is None or first_pair["ci_high"] is None:
                ci = ("no confidence interval: too few shared items" if (first_pair.get("n_items") or 0) < 2 else
                      "no confidence interval: the per-item differences have no spread")
            else:
                lo, hi = sorted((sign * first_pair["ci_low"], sign * first_pair["ci_high"]))
                ci = f"{lvl:.0%} CI {lo * 100:+.2f} to {hi * 100:+.2f}"
            lead = "n/a" if d is None else f"{d * 100:.2f} points"
            ev.append(f"its lead over {second} is {lead} ({ci}), adjusted p = {_fmt_p(padj)}")
            separable = padj is not None and padj < alpha
            test_separates = separable
        else:
            test_separates = False
            separable = None
        if could_be_first is not None:
            separable = len(could_be_first) == 1 if separable is None else (separable and len(could_be_first) == 1)
            if len(could_be_first) > 1:
                ev.append(f"{len(could_be_first)} models could be #1 with {lvl:.0%} joint confidence")
        if out["p_top_stays_top"] is not None:
            ev.append(f"if the benchmark were redrawn, {top} would stay #1 {out['p_top_stays_top']:.0%} of the time")
        sens = self.extra.get("sensitivity")
        if sens is not None:
            sd = sens.to_dict() if hasattr(sens, "to_dict") else sens
            if sd.get("top_changes"):
                tops = sd.get("top_by_condition") or {}
                ev.append("the ranking flips with the condition (#1 is " + ", ".join(
                    f"{mname} under {c}" for c, mname in tops.items()) + ")")
                separable = False
        out["separable"] = separable
        if separable:
            out["text"] = f"Yes: {top} is really #1; " + "; ".join(ev) + "."
        elif test_separates:
            # the paired test does separate #1 from #2; what fails is the joint rank set or the condition check
            out["text"] = f"No: {top} is not clearly #1 (the paired test separates it from {second}); " \
                + "; ".join(ev) + "."
        else:
            out["text"] = f"No: {top} is not separable from {second}; " + "; ".join(ev) + "."
        return out

    def to_dict(self) -> dict[str, Any]:
        m = self.matrix
        d: dict[str, Any] = {
            "title": self.settings.get("title") or _title(m.source),
            "source": m.source,
            "n_models": m.n_models,
            "n_items": m.n_items,
            "binary": m.is_binary,
            "settings": jsonable(self.settings),
            "headline": jsonable(self.headline()),
            "models": jsonable(self._model_rows()),
        }
        pt = self.pairs.to_dict()
        d["pairs_scope"] = pt.get("pairs_scope")
        d["pairs"] = pt["pairs"]
        d["pair_matrix"] = jsonable(self.pair_matrix)
        d["tiers"] = self.tiers.to_dict() if self.tiers is not None else None
        for name in ("rank_sets", "stability", "split_half", "power"):
            r = getattr(self, name)
            d[name] = r if (r is None or isinstance(r, dict)) else r.to_dict()
            d[name] = jsonable(d[name])
        if d["stability"] is not None and m.n_models > HEATMAP_MAX_MODELS:
            # M x M rank distributions per size would make the report tens of MB for hundreds of
            # models; `ranktrust stability` keeps them
            for row in d["stability"]["sizes"]:
                row.pop("rank_distribution", None)
            d["stability"]["rank_distribution_omitted"] = True
        d["notes"] = list(self.notes)
        d["dropped"] = dict(m.dropped)
        for k in ("microbench", "repeats", "sensitivity"):
            v = self.extra.get(k)
            d[k] = None if v is None else (v.to_dict() if hasattr(v, "to_dict") else jsonable(v))
        return d


def _title(source: str | None) -> str:
    import os

    if not source:
        return "leaderboard"
    return ", ".join(os.path.basename(p.strip().rstrip("/")) or p for p in source.split(","))


def _fmt_p(p: Any) -> str:
    if p is None:
        return "n/a"
    if p < 1e-4:
        return f"{p:.1e}"
    return f"{p:.3g}"


def _pair_matrix(m: ScoreMatrix, intervals: Any, confidence_level: float, adjust: str,
                 cluster: bool | None) -> dict[str, Any] | None:
    from ..stats.paired import all_pairs

    if m.n_models < 2:
        return None
    order = np.argsort(-np.nan_to_num(np.asarray(intervals.score, dtype=float), nan=-np.inf), kind="stable")
    top = order[:HEATMAP_MAX_MODELS]
    sub = m.select(models=top)
    import warnings

    with warnings.catch_warnings():  # the same degenerate pairs were already reported for the leaderboard
        warnings.simplefilter("ignore")
        t = all_pairs(sub, pairs="all", adjust=adjust, confidence_level=confidence_level, cluster=cluster)
    diff = t.matrix("diff")
    padj = t.matrix("p_adjusted")
    return {
        "models": list(sub.models),
        "diff": diff,
        "p_adjusted": padj,
        "truncated_from": m.n_models if m.n_models > HEATMAP_MAX_MODELS else None,
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
    rank_sets: bool = True,
    stability: bool = True,
    sizes: Sequence[int | str] = DEFAULT_SIZES,
    draws: int = 2000,
    split_half: bool = False,
    splits: int = 3000,
    power_gaps: Sequence[float] = (0.01, 0.02, 0.03, 0.05, 0.10),
    seed: int | None = 0,
    title: str | None = None,
    microbench: bool = False,
    microbench_trials: int = 20,
    extra: dict[str, Any] | None = None,
    progress: Callable[[str, float], None] | None = None,
    rng: Any = None,
) -> LeaderboardReport:
    """Analyse a leaderboard: intervals, paired tests, tiers, rank sets, stability, power.

    Parameters
    ----------
    m : ScoreMatrix
        Per-item results. NaN cells (``align="pairwise"``) are allowed: each model's
        interval uses its own items and each pair its shared items; the resampling parts
        (rank sets, stability, split-half) use the items every model shares and say so.
    confidence_level : float, default: 0.95
    adjust : {"holm", "bonferroni", "bh", "none"}, default: ``"holm"``
        Multiple-comparison adjustment of the pair p-values.
    all_pairs : bool, default: False
        Test every pair instead of adjacent pairs only.
    cluster : bool, default: False
        Clustered standard errors by item group (Miller eq. 4); needs groups in the data.
        With few groups (under about 20) a clustered SE is itself noisy: a note says so.
    ci_method : {"auto", "clt", "t", "wilson", "cluster", "percentile", "bca"}, default: ``"auto"``
        Per-model interval method (see :func:`ranktrust.intervals`); ``"percentile"``/``"bca"``
        bootstrap through the resampling engine, seeded from ``seed``.
    cluster_label : str, optional
        Name of the grouping (e.g. the column ``"subject"``), recorded in the settings.
    tiers : {"auto", "rank-sets", "adjacent"}, default: ``"auto"``
        How tiers are formed; ``"auto"`` uses rank confidence sets when computed.
    rank_sets, stability, split_half : bool
        Which resampling analyses to run.
    sizes, draws : rank-stability benchmark sizes and bootstrap draws.
    splits : int
        Random halves for the split-half check.
    power_gaps : sequence of float
        Gaps (fractions) for the questions-needed table.
    seed : int, optional
        Seed of every random step (recorded in the report).
    rng : None, int or numpy.random.Generator, optional
        The usual name for the seed (SPEC 7); when given it replaces ``seed`` (a Generator
        draws the seed that is recorded).
    microbench : bool, default: False
        Add the micro-benchmark section (MDAD of random/stratified/anchor/IRT/diversity subsets,
        ``microbench_trials`` trials, 70% of models as sources).
    progress : callable, optional
        ``progress(stage, fraction_done)`` is called as the analysis advances (the CLI draws a
        progress bar on a terminal with it).
    extra : dict, optional
        Sections computed elsewhere: ``{"microbench": ..., "repeats": ..., "sensitivity": ...}``.
        Repeats and sensitivity are added automatically when the data has runs / conditions.

    Returns
    -------
    LeaderboardReport
    """
    if rng is not None:  # SPEC 7 name, as in every other function; `seed` is what the CLI records
        if isinstance(rng, np.random.Generator):
            seed = int(rng.integers(2**63 - 1))
        elif isinstance(rng, (int, np.integer)):
            seed = int(rng)
        else:
            raise TypeError(f"`rng` must be None, an int or a numpy.random.Generator, got {type(rng).__name__}")
    if progress is None:
        progress = lambda stage, frac: None  # noqa: E731
    from ..ranking.tiers import tiers as make_tiers
    from ..stats.intervals import intervals as make_intervals
    from ..stats.paired import all_pairs as make_pairs
    from ..stats.power import estimate_disagreement, power, power_table

    if not 0 < confidence_level < 1:
        raise ValueError(f"`confidence_level` must be in (0, 1), got {confidence_level}")
    notes = list(m.notes)
    if m.dropped:
        total = sum(m.dropped.values())
        notes.append(
            f"--align intersect dropped {total} (model, item) results: "
            + ", ".join(f"{k} {v}" for k, v in list(m.dropped.items())[:5])
            + (" ..." if len(m.dropped) > 5 else "")
        )
    if m.n_runs > 1:
        notes.append(f"scores are means over {m.n_runs} runs per item (see `ranktrust repeats`)")
    progress("intervals and paired tests", 0.0)
    rng = np.random.SeedSequence(seed)
    s_rank, s_stab, s_half, s_ci = rng.spawn(4)
    iv = make_intervals(m, method=ci_method, cluster=cluster, confidence_level=confidence_level,
                        rng=np.random.default_rng(s_ci))
    pt = make_pairs(m, pairs="all" if all_pairs else "adjacent", adjust=adjust,
                    confidence_level=confidence_level, cluster=cluster)

    complete = m
    if not m.is_complete:
        complete = m.align("intersect")
        if m.n_models > 1:
            notes.append(
                f"rank sets, stability and split-half use the {complete.n_items} items every model has "
                f"(of {m.n_items})"
            )
    rs = st = sh = None
    if m.n_models > 1:
        if rank_sets:
            from ..ranking.ranksets import rank_sets as make_rank_sets

            progress("rank confidence sets", 0.1)
            rs = make_rank_sets(complete, confidence_level=confidence_level,
                                rng=np.random.default_rng(s_rank))
        if stability:
            from ..ranking.stability import stability as make_stability

            use = [s for s in sizes if s == "full" or int(s) < complete.n_items]
            progress("rank stability", 0.3)
            st = make_stability(complete, sizes=use, draws=draws, rng=np.random.default_rng(s_stab),
                                progress=lambda done, total: progress("rank stability", 0.3 + 0.5 * done / max(total, 1)))
        if split_half:
            from ..ranking.splithalf import split_half as make_split_half

            progress("split-half", 0.8)
            sh = make_split_half(complete, splits=splits, rng=np.random.default_rng(s_half))

    tier_method = tiers
    if tier_method == "auto":
        # Rank sets need the items every model shares; with pairwise-aligned data their order can differ
        # from the leaderboard's (each model on its own items), so tiers then come from the adjacent
        # paired tests, which use exactly the leaderboard's data.
        tier_method = "rank-sets" if (rs is not None and m.is_complete) else "adjacent"
        if rs is not None and not m.is_complete:
            notes.append("tiers come from adjacent paired tests because models are scored on different items; "
                         "rank ranges use the items all models share")
    if m.n_models > 1 and tier_method == "rank-sets":
        from ..ranking.ranksets import tiers_from_rank_sets

        tr = tiers_from_rank_sets(complete, confidence_level=confidence_level, rank_sets=rs,
                                  rng=np.random.default_rng(s_rank))
    else:
        tr = make_tiers(m, method="adjacent", adjust=adjust, confidence_level=confidence_level,
                        cluster=cluster)

    pw = None
    if m.n_models > 1:
        binary = m.is_binary and m.n_runs == 1
        q = estimate_disagreement(m)  # discordance share (0/1) or mean squared per-item difference
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
    if microbench and "microbench" not in extra and m.n_models >= 4:
        from ..subsets import mdad as make_mdad

        src = max(2, int(round(m.n_models * 0.7)))
        sizes_mb = [k for k in (10, 25, 50, 100, 250, 500) if k < complete.n_items]
        extra["microbench"] = make_mdad(complete, sizes=sizes_mb, trials=microbench_trials,
                                        source_models=min(src, m.n_models - 2), rng=np.random.default_rng(s_half))
    progress("pair matrix", 0.95)
    pm = _pair_matrix(m, iv, confidence_level, adjust, cluster)
    progress("done", 1.0)
    settings = {
        "confidence_level": confidence_level,
        "adjust": adjust,
        "ci_method": getattr(iv, "method", ci_method),
        "clustered": bool(getattr(iv, "clustered", False)),
        "cluster_by": (cluster_label or "item groups") if getattr(iv, "clustered", False) else None,
        "align": "pairwise" if not m.is_complete else ("intersect" if m.dropped else "complete"),
        "seed": seed,
        "draws": draws,
        "tiers": tier_method,
        "title": title,
    }
    return LeaderboardReport(
        matrix=m, intervals=iv, pairs=pt, tiers=tr, rank_sets=rs, stability=st, split_half=sh,
        power=pw, settings=settings, notes=tuple(notes), pair_matrix=pm, extra=extra,
    )
