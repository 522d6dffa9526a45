"""Suites: is #1 really #1 across a whole benchmark suite? (``rt.suite``)

A suite is ``K`` tasks, each a models x items matrix. A model's *task score* is its mean over its items of
that task; the suite ranks by an aggregate of the task scores (``rule``):

* ``"mean"``: the (weighted) mean of the task scores; with ``normalise="random-baseline"`` each task score
  is first rescaled above the task's chance level, ``max(0, (x - c) / (1 - c))``, as the Open LLM
  Leaderboard (v2) did;
* ``"mean-win-rate"`` (HELM): per task, the share of the other models a model beats (ties count half),
  averaged over tasks;
* ``"mean-rank"``: the mean of the per-task ranks (1 = best; ties share the mid-rank); lower is better;
* ``"borda"``: the number of models beaten, summed over tasks (ties count half; Vote'n'Rank's Borda count);
* ``"copeland"``: pairwise majority over tasks: wins minus losses of the head-to-head comparisons.

Two scopes of uncertainty, each named in the output
----------------------------------------------------
**(a) These tasks.** The tasks are fixed; the items of each task are a sample. Every resample redraws the
items within each task (clusters where ``cluster=True`` and the task has item groups), the same draw for
every model (paired), from the project's resample engine (one named stream per task). The aggregate is
recomputed on each resample (``rule="mean"``), and one max-t step-down over all ``M (M - 1) / 2`` pairs (Romano and Wolf
2005; the procedure of Mogstad, Romano, Shaikh and Wilhelm 2024 for rank sets, with bootstrap-SD scaling)
decides which pairs are separated. Its adjusted p-values are the step-down's: a pair is separated exactly
when ``p_adjusted < 1 - confidence_level``. From that one relation come the simultaneous rank sets
(``[1 + #found better, M - #found worse]``), the tiers, "could be #1" and the headline, as on the score path.
Pair intervals are simultaneous (single-step max-t critical value); the step-down can separate a pair whose
simultaneous interval still touches 0 (it is more powerful than the single step), never the other way round.
Per-model intervals of the aggregate are marginal percentile intervals. A gap that no resample moves (one model
right on every item the other gets wrong) is ordered only when the two differ on at least ``min_units`` items
(5 at 95%: an exact sign test's floor), over the suite for the mean and on the task for the rank rules' orderings.

The rank-based rules are step functions of the task scores, and a bootstrap of them is not valid where models
tie on a task (all models tied: 15% of boards had a false claim at 95%). For them one single-step max-t over
every (task, pair) difference of the task scores gives the orderings that hold together on every task with
probability at least ``confidence_level``; each model's aggregate is then bounded (it beats at least the models
it is surely above on each task, at most all but those surely above it; Copeland counts a pair's uncertain
tasks against), and j is found better than k when j's lower bound exceeds k's upper bound. Whenever the
orderings hold, every such claim is true, so the family-wise error is at most ``1 - confidence_level`` in finite
samples up to the bootstrap's critical value; the intervals are the bounds (simultaneous), and there are no
p-values (``p_value`` and ``p_adjusted`` are null).

**(b) A new task from the same population.** Treat the tasks as exchangeable draws. For each model, its
ranks on the ``K`` tasks and on a new task are exchangeable, so a full conformal prediction set for its
rank on the new task (nonconformity: distance to the mean of the ``K + 1`` ranks; ties between ranks broken
by one seeded uniform per model, the smoothed p-value of Vovk et al.) covers with probability equal to its
level in finite samples (the printed interval is the set's hull, so at least the level). With ``K`` tasks no
set smaller than all ranks reaches more than
``K / (K + 1)``: the level used is ``min(confidence_level, K / (K + 1))`` (printed). The held-out coverage
is measured on the data: each task in turn is left out, the sets are built from the other ``K - 1`` (at
``min(confidence_level, (K - 1) / K)``) and checked against the left-out task's ranks.

Missing cells (a model without a task) are refused by default; ``missing="drop-model"`` /
``"drop-task"`` drop the models / tasks with a missing cell (the notes say how many); ``"pairwise"``
aggregates each model over its own tasks (the rank rules rank the models present on each task).

References
----------
.. [1] M. Neuhof and Y. Benjamini, "Rank intervals for leaderboards", arXiv:2606.08679.
.. [2] M. Rofin et al., "Vote'n'Rank: Revision of benchmarking with social choice theory", arXiv:2210.05769.
.. [3] P. Liang et al., "Holistic Evaluation of Language Models" (HELM; mean win rate), arXiv:2211.09110.
.. [4] J. P. Romano and M. Wolf, "Exact and approximate stepdown methods for multiple hypothesis testing",
   JASA 100 (2005) 94-108.
.. [5] M. Mogstad, J. P. Romano, A. M. Shaikh and D. Wilhelm, Rev. Econ. Stud. 91(1) (2024) 476-518.
.. [6] V. Vovk, A. Gammerman and G. Shafer, *Algorithmic Learning in a Random World*, Springer 2005.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence, TypedDict

import numpy as np

from .. import _random, _validate
from .._validate import Progress, SeedLike
from ..data import ScoreMatrix
from ..errors import ArgumentError, DataError
from ..gating import tasks_of
from ..resample import resample_means, weights as resample_weights
from ..results import HeadlineJSON, Note, NoteJSON, Result, jsonable
from ._mrsw import min_units
from ._ranksets import layers
from ._rows import RankedModelRow, SuitePairRow
from ._stepdown import inverse_se, maxt_counts

__all__ = ["suite", "SuiteResult", "RULES", "MISSING"]

RULES = ("mean", "mean-win-rate", "mean-rank", "borda", "copeland")
MISSING = ("error", "drop-model", "drop-task", "pairwise")
NORMALISE = ("random-baseline",)
#: side-by-side rules are resampled up to this many models (Copeland costs n_resamples x K x M^2)
_RULES_MAX_MODELS = 300
_PAIR_CHUNK = 4096
#: below this many items (clusters) in a task, its bootstrap is approximate (a note names the tasks)
_FEW_UNITS = 30
_COPELAND_CELLS = 2**24


# ------------------------------------------------------------------------------------------ JSON layout
class SuiteModelRow(RankedModelRow):
    """One model of :meth:`SuiteResult.to_dict` ``"models"``, in display order (tier, then score)."""

    score: float
    new_task_rank_low: int | None
    new_task_rank_high: int | None
    task_scores: list[float | None]


class SuiteRuleRow(TypedDict):
    rule: str
    top: str
    could_be_first: list[str]
    resampled: bool


class SuiteTaskRow(TypedDict):
    task: str
    n_items: int
    weight: float
    chance: float | None
    clustered: bool
    n_clusters: int | None
    n_models: int


class SuiteContributionRow(TypedDict):
    a: str
    b: str
    diff: float
    by_task: list[float | None]


class SuiteNewTask(TypedDict):
    level: float
    attainable: float
    n_tasks: int
    min_tasks: int
    coverage: float | None
    coverage_level: float | None
    n_checked: int


class _SuiteHeadline(HeadlineJSON):
    rank_low: int
    rank_high: int
    could_be_first: list[str]
    winner_depends_on_rule: bool
    tops_by_rule: dict[str, str]


class SuiteHeadline(_SuiteHeadline, total=False):
    """The suite's ``"headline"``: the verdict on #1 as numbers (``text`` is added by the presentation layer)."""

    text: str


class SuiteSettings(TypedDict):
    rule: str
    higher_is_better: bool
    confidence_level: float
    n_resamples: int
    normalise: str | None
    missing: str
    align: str
    clustered: bool
    adjust: str
    critical_value: float | None
    n_pairs: int
    n_models: int
    n_tasks: int
    scope_a: str
    scope_b: str


class SuiteJSON(TypedDict):
    models: list[SuiteModelRow]
    tasks: list[SuiteTaskRow]
    pairs: list[SuitePairRow]
    rules: list[SuiteRuleRow]
    winner_depends_on_rule: bool
    contributions: list[SuiteContributionRow]
    new_task: SuiteNewTask
    headline: SuiteHeadline
    settings: SuiteSettings
    notes: list[NoteJSON]


# ------------------------------------------------------------------------------------------ the result
@dataclass(frozen=True, eq=False)
class SuiteResult(Result):
    """The suite's aggregate ranking with both scopes of uncertainty (:func:`suite`).

    Arrays are in input model order (``models``); ``order`` is the display order.

    Attributes
    ----------
    models, tasks : tuple of str
    rule : str
    score : ndarray (M,)
        The aggregate under ``rule`` (fractions for ``"mean"``; mean rank for ``"mean-rank"``, lower better).
    ci_low, ci_high : ndarray (M,)
        Marginal percentile intervals of the aggregate, scope (a).
    rank_low, rank_high, tier : ndarray of int (M,)
        Simultaneous rank sets and tiers from the max-t step-down, scope (a).
    better : ndarray of bool (M, M)
        ``better[j, k]``: j is found better than k.
    task_scores : ndarray (K, M)
        Each model's task score (NaN: no results on that task), before normalisation.
    weights, chance, n_items : ndarray (K,)
    task_clustered : ndarray of bool (K,)
        Tasks resampled by item group (``cluster=True`` and the task has groups).
    clustered : bool
        Any task resampled by item group.
    pair_a, pair_b : ndarray of int (P,)
        All pairs, ``a < b`` in display order; ``diff = goodness[a] - goodness[b]`` (rule units; for
        ``"mean-rank"`` the places ``a`` is ahead).
    diff, pair_ci_low, pair_ci_high, p_value, p_adjusted : ndarray (P,)
    separated : ndarray of bool (P,)
    new_task_low, new_task_high : ndarray of int (M,)
        Scope (b): the rank prediction set for a new task (1 = best), at ``new_task_level``.
    """

    _table = "models"

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    rule: str
    score: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    tier: np.ndarray
    order: np.ndarray
    better: np.ndarray
    task_scores: np.ndarray
    weights: np.ndarray
    chance: np.ndarray
    n_items: np.ndarray
    task_clustered: np.ndarray
    n_clusters: np.ndarray
    pair_a: np.ndarray
    pair_b: np.ndarray
    diff: np.ndarray
    pair_ci_low: np.ndarray
    pair_ci_high: np.ndarray
    p_value: np.ndarray
    p_adjusted: np.ndarray
    separated: np.ndarray
    rule_tops: dict
    rule_winners: dict
    rule_resampled: dict
    new_task_low: np.ndarray
    new_task_high: np.ndarray
    new_task_level: float
    new_task_coverage: float
    new_task_coverage_level: float
    new_task_checked: int
    new_task_min_tasks: int
    contributions: np.ndarray
    confidence_level: float
    n_resamples: int
    normalise: str | None
    missing: str
    align: str
    clustered: bool
    critical_value: float
    notes: tuple = ()

    # ------------------------------------------------------------------ derived
    @property
    def higher_is_better(self) -> bool:
        return self.rule != "mean-rank"

    @property
    def could_be_first(self) -> list[str]:
        """Models whose simultaneous rank set contains 1, in display order."""
        return [self.models[k] for k in self.order if self.rank_low[k] == 1]

    @property
    def winner_depends_on_rule(self) -> bool:
        """True when the rules' top models differ, or their sets of possible winners do."""
        tops = set(self.rule_tops.values())
        sets = {tuple(sorted(v)) for v in self.rule_winners.values()}
        return len(tops) > 1 or len(sets) > 1

    def _headline(self) -> dict[str, Any]:
        """"Is #1 really #1?" as numbers (the sentence is composed in ``ranktrust.reporting``)."""
        o = [int(k) for k in self.order]
        top = o[0]
        h: dict[str, Any] = {
            "top": self.models[top], "runner_up": None, "separable": None, "diff": None, "ci_low": None,
            "ci_high": None, "p_value": None, "p_adjusted": None, "rank_low": int(self.rank_low[top]),
            "rank_high": int(self.rank_high[top]), "could_be_first": self.could_be_first,
            "winner_depends_on_rule": self.winner_depends_on_rule, "tops_by_rule": dict(self.rule_tops),
        }
        if len(o) > 1:
            second = o[1]
            p = int(np.flatnonzero((self.pair_a == top) & (self.pair_b == second))[0])   # a before b: display order
            h.update(runner_up=self.models[second], separable=bool(self.better[top, o[1:]].all()),
                     diff=float(self.diff[p]), ci_low=float(self.pair_ci_low[p]), ci_high=float(self.pair_ci_high[p]),
                     p_value=float(self.p_value[p]), p_adjusted=float(self.p_adjusted[p]))
        return h

    def to_dict(self) -> SuiteJSON:
        m = self.models
        order = [int(k) for k in self.order]
        ts = self.task_scores
        rows = [{
            "model": m[k], "score": self.score[k], "ci_low": self.ci_low[k], "ci_high": self.ci_high[k],
            "rank": i + 1, "rank_low": self.rank_low[k], "rank_high": self.rank_high[k], "tier": self.tier[k],
            "new_task_rank_low": None if self.new_task_low[k] < 1 else self.new_task_low[k],
            "new_task_rank_high": None if self.new_task_high[k] < 1 else self.new_task_high[k],
            "task_scores": ts[:, k],
        } for i, k in enumerate(order)]
        names = np.asarray(m, dtype=object)
        pairs = [dict(zip(("a", "b", "diff", "ci_low", "ci_high", "p_value", "p_adjusted", "separated"), r))
                 for r in zip(names[self.pair_a].tolist(), names[self.pair_b].tolist(), self.diff.tolist(),
                              self.pair_ci_low.tolist(), self.pair_ci_high.tolist(), self.p_value.tolist(),
                              self.p_adjusted.tolist(), self.separated.tolist())]
        tasks = [{"task": t, "n_items": self.n_items[i], "weight": self.weights[i],
                  "chance": None if not np.isfinite(self.chance[i]) else self.chance[i],
                  "clustered": bool(self.task_clustered[i]),
                  "n_clusters": int(self.n_clusters[i]) if self.task_clustered[i] else None,
                  "n_models": int(np.isfinite(ts[i]).sum())} for i, t in enumerate(self.tasks)]
        rules = [{"rule": r, "top": self.rule_tops[r], "could_be_first": list(self.rule_winners[r]),
                  "resampled": bool(self.rule_resampled[r])} for r in self.rule_tops]
        contrib = [{"a": m[order[i]], "b": m[order[i + 1]],
                    "diff": float(np.nansum(self.contributions[i])) if np.isfinite(self.contributions[i]).any()
                    else None,
                    "by_task": self.contributions[i]} for i in range(len(self.contributions))]
        k = len(self.tasks)
        kmin = self.new_task_min_tasks
        new_task = {"level": self.new_task_level, "attainable": kmin / (kmin + 1), "n_tasks": k, "min_tasks": kmin,
                    "coverage": self.new_task_coverage, "coverage_level": self.new_task_coverage_level,
                    "n_checked": self.new_task_checked}
        settings = {
            "rule": self.rule, "higher_is_better": self.higher_is_better, "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples, "normalise": self.normalise, "missing": self.missing,
            "align": self.align, "clustered": self.clustered, "adjust": "max-t step-down",
            "critical_value": self.critical_value, "n_pairs": len(self.diff), "n_models": len(m), "n_tasks": k,
            "scope_a": "these tasks: items redrawn within each task, paired across models",
            "scope_b": "a new task from the same population: full conformal over tasks",
        }
        return jsonable({
            "models": rows, "tasks": tasks, "pairs": pairs, "rules": rules,
            "winner_depends_on_rule": self.winner_depends_on_rule, "contributions": contrib,
            "new_task": new_task, "headline": self._headline(), "settings": settings,
            "notes": [n.to_dict() if isinstance(n, Note) else n for n in self.notes],
        })


# ------------------------------------------------------------------------------------------ input
def _per_task(value: Any, names: Sequence[str], param: str, *, default: float) -> np.ndarray:
    """A per-task number from None, one number, a mapping {task: x} or a sequence in task order."""
    k = len(names)
    if value is None:
        return np.full(k, default)
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return np.full(k, float(value))
    if isinstance(value, Mapping):
        unknown = [t for t in value if str(t) not in names]
        if unknown:
            raise DataError(f"`{param}` names task {unknown[0]!r}, which is not in the suite (tasks: "
                            f"{', '.join(names[:6])}{' ...' if k > 6 else ''})", param=param)
        lacking = [t for t in names if t not in {str(x) for x in value}]
        if lacking and math.isnan(default):
            raise DataError(f"`{param}` gives no value for task {lacking[0]!r}"
                            + (f" (and {len(lacking) - 1} more)" if len(lacking) > 1 else ""), param=param)
        got = {str(t): float(v) for t, v in value.items()}
        return np.array([got.get(t, default) for t in names], dtype=float)
    arr = np.asarray(value, dtype=float).ravel()
    if arr.size != k:
        raise ArgumentError(f"`{param}` must give one value per task ({k}), got {arr.size}", param=param)
    return arr


@dataclass
class _Task:
    name: str
    scores: np.ndarray        # (M_all, N) NaN where not scored (rows of absent models all NaN)
    codes: np.ndarray | None  # item group codes (clusters) or None
    complete: bool


def _prepare(tasks: dict[str, ScoreMatrix], align: str, missing: str, notes: list[Note]):
    everyone = list(dict.fromkeys(x for t in tasks.values() for x in t.models))
    names = list(tasks)
    present = np.zeros((len(names), len(everyone)), dtype=bool)
    idx = {x: i for i, x in enumerate(everyone)}
    for i, t in enumerate(names):
        mm = tasks[t]
        if mm.n_items == 0:
            raise DataError(f"task {t!r} has no items", param="m")
        has = ~np.all(np.isnan(mm.scores), axis=1)
        for k, x in enumerate(mm.models):
            present[i, idx[x]] = bool(has[k])
    if not present.all():
        lack = [(names[i], everyone[j]) for i, j in zip(*np.nonzero(~present))]
        if missing == "error":
            t, x = lack[0]
            raise DataError(
                f"model {x!r} has no results on task {t!r}" + (f" ({len(lack) - 1} more missing cells)" if len(lack) > 1
                                                              else "")
                + "; give `missing`='drop-model' (leave out models lacking a task), 'drop-task' (leave out tasks "
                "lacking a model) or 'pairwise' (each model over its own tasks)", param="missing")
        if missing == "drop-model":
            keep = present.all(axis=0)
            gone = [everyone[j] for j in np.flatnonzero(~keep)]
            if keep.sum() < 1:
                raise DataError("no model has results on every task: `missing`='drop-model' would keep nothing; "
                                "try 'drop-task' or 'pairwise'", param="missing")
            notes.append(Note("suite_dropped_models", {"models": gone, "n_models": len(gone),
                                                       "n_kept": int(keep.sum())}))
            everyone = [x for x, k in zip(everyone, keep) if k]
            present = present[:, keep]
        elif missing == "drop-task":
            keep = present.all(axis=1)
            gone = [names[i] for i in np.flatnonzero(~keep)]
            if keep.sum() < 1:
                raise DataError("no task has results for every model: `missing`='drop-task' would keep nothing; "
                                "try 'drop-model' or 'pairwise'", param="missing")
            notes.append(Note("suite_dropped_tasks", {"tasks": gone, "n_tasks": len(gone), "n_kept": int(keep.sum())}))
            names = [t for t, k in zip(names, keep) if k]
            present = present[keep]
        else:
            notes.append(Note("suite_missing_pairwise", {"n_missing": len(lack), "n_cells": int(present.size)}))
    out: list[_Task] = []
    kept = set(everyone)
    where = {x: i for i, x in enumerate(everyone)}
    for t in names:
        mm = tasks[t]
        keep_models = [x for x in mm.models if x in kept]
        mm = mm.select(models=keep_models)
        rows = ~np.all(np.isnan(mm.scores), axis=1)
        sub = mm.select(models=[x for x, r in zip(mm.models, rows) if r])
        try:
            sub = sub.align(align)
        except DataError as exc:
            raise DataError(f"task {t!r}: {exc.message}", param=exc.param) from None
        if sub.dropped:
            notes.append(Note("suite_task_intersect", {"task": t, "total": int(sum(sub.dropped.values())),
                                                       "n_items": int(sub.n_items)}))
        s = np.full((len(everyone), sub.n_items), np.nan)
        pos = [where[x] for x in sub.models]
        s[pos] = sub.scores
        out.append(_Task(t, s, sub.group_codes, bool(np.isfinite(s[pos]).all())))
    return everyone, names, present, out


# ------------------------------------------------------------------------------------------ rules
def _beaten(x: np.ndarray) -> np.ndarray:
    """(..., M) -> the number of models each beats on that row, ties counting half (NaN: absent, stays NaN)."""
    from scipy.stats import rankdata

    with np.errstate(invalid="ignore"):
        r = rankdata(x, axis=-1, method="average", nan_policy="omit")
    return r - 1.0


def _aggregate(x: np.ndarray, present: np.ndarray, w: np.ndarray, rule: str) -> np.ndarray:
    """The rule's *goodness* (higher is better) from task scores ``x`` (..., K, M); ``present`` (K, M)."""
    pres = present.astype(float)
    wk = w[:, None] * pres                                   # (K, M) weight of each present cell
    tot = wk.sum(axis=0)
    if rule == "mean":
        return (np.where(present, x, 0.0) * wk).sum(axis=-2) / tot
    if rule in ("mean-win-rate", "mean-rank", "borda"):
        xs = np.where(present, x, np.nan)
        bt = _beaten(xs)
        n_t = pres.sum(axis=1)                               # (K,) models on each task
        if rule == "mean-win-rate":
            g = bt / np.maximum(n_t - 1, 1)[:, None]
        elif rule == "mean-rank":
            g = -(n_t[:, None] - bt)                          # minus the mid-rank, 1 = best
        else:
            return np.nansum(bt * (w * len(w) / w.sum())[:, None], axis=-2)
        return np.nansum(g * wk, axis=-2) / tot
    if rule == "copeland":
        return _copeland(x, present, w)
    raise ArgumentError(f"`rule` must be one of {', '.join(RULES)}, got {rule!r}", param="rule")


def _copeland(x: np.ndarray, present: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Copeland score: #models beaten in a (weighted) majority of shared tasks minus #models that beat it."""
    lead = x.ndim == 2
    xb = (x[None] if lead else x).astype(np.float32)
    b, k, m = xb.shape
    out = np.empty((b, m))
    step = max(1, _COPELAND_CELLS // max(1, m * m))
    for a in range(0, b, step):                                # chunks of resamples (memory), vectorised inside
        xc = xb[a:a + step]
        votes = np.zeros((len(xc), m, m), dtype=np.float32)
        buf = np.empty_like(votes)
        for t in range(k):                                     # K tasks, each a (chunk, M, M) sign array
            np.subtract(xc[:, t, :, None], xc[:, t, None, :], out=buf)
            np.sign(buf, out=buf)
            if not present[t].all():
                buf *= (present[t][:, None] & present[t][None, :])
                np.nan_to_num(buf, copy=False)
            buf *= np.float32(w[t])
            votes += buf
        out[a:a + step] = np.sign(np.where(np.abs(votes) < 1e-6, 0.0, votes)).sum(axis=2)
    return out[0] if lead else out


def _task_parts(x: np.ndarray, present: np.ndarray, w: np.ndarray, rule: str) -> np.ndarray:
    """(K, M) each task's share of the rule's goodness (they sum to it over tasks, NaN where absent);
    Copeland: each task's weighted head-to-head vote is not per model, so the task score's sign is used."""
    pres = present.astype(float)
    wk = w[:, None] * pres
    tot = wk.sum(axis=0)
    if rule == "mean":
        g = x
    elif rule in ("mean-win-rate", "mean-rank", "borda"):
        bt = _beaten(np.where(present, x, np.nan))
        n_t = pres.sum(axis=1)
        if rule == "borda":
            return np.where(present, bt * (w * len(w) / w.sum())[:, None], np.nan)
        g = bt / np.maximum(n_t - 1, 1)[:, None] if rule == "mean-win-rate" else -(n_t[:, None] - bt)
    else:
        raise ArgumentError(f"no per-task parts for `rule`={rule!r}", param="rule")
    return np.where(present, g * wk / tot, np.nan)


def _normalised(x: np.ndarray, chance: np.ndarray, normalise: str | None) -> np.ndarray:
    if normalise is None:
        return x
    c = chance.reshape((-1, 1))
    return np.maximum(0.0, (x - c) / (1.0 - c))


# ------------------------------------------------------------------------------------------ scope (a)
def _stepdown(g: np.ndarray, gb: np.ndarray, level: float, enough=None):
    """One max-t step-down over all pairs of the goodness ``g`` (M,) with bootstrap ``gb`` (B, M): the kernel
    of :mod:`._stepdown` with the suite's conventions (p = count / B; a draw reaches ``|t|`` within a relative
    1e-6, so a pair is not beaten by its own resample's rounding).

    Returns (a, b, diff, ci_low, ci_high, p, p_adj, critical value) for the pairs a < b (indices into g).
    """
    m = len(g)
    ia, ib = np.triu_indices(m, 1)
    n_pairs = len(ia)
    z = (gb - g).astype(np.float64)
    if n_pairs == 0:
        e = np.empty(0)
        return ia, ib, e, e, e, e, e, float("nan")
    cov = np.atleast_2d(np.cov(z, rowvar=False, bias=True))
    v = np.diag(cov)
    var_d = v[ia] + v[ib] - 2.0 * cov[ia, ib]
    var_d[var_d <= 1e-12 * (v[ia] + v[ib])] = 0.0
    sigma = np.sqrt(np.maximum(var_d, 0.0))
    d = g[ia] - g[ib]
    inv = inverse_se(sigma)
    # a zero-spread pair (the same gap in every resample) is exact: separated when its gap is not 0 (as MRSW)
    gap = np.abs(d) > 1e-12 * max(1.0, float(np.abs(g).max(initial=0.0)))
    exact = (sigma == 0) & gap
    if enough is not None and exact.any():    # ... but only if they differ on enough items to order at the level
        gap[exact] = enough(ia[exact], ib[exact])
    t = np.where(sigma > 0, np.abs(d) * inv, np.where(gap, np.inf, 0.0))
    # the threshold as the suite has always rounded it: t (1 - 1e-6) to the nearest float32
    thr = (t * (1 - 1e-6)).astype(np.float32).astype(np.float64)
    res = maxt_counts(z, ia, ib, inv, thr, marginal=True)
    bsz = z.shape[0]
    p = res.marginal / bsz
    p_adj = res.exceed / bsz
    crit = float(np.quantile(res.max_abs, level))
    return ia, ib, d, d - crit * sigma, d + crit * sigma, p, p_adj, crit


def _task_orders(x: np.ndarray, xb: np.ndarray, present: np.ndarray, level: float,
                 enough=None) -> tuple[np.ndarray, float]:
    """(K, M, M) ``sure[t, j, k]``: j's task score is above k's on task t, for every task and pair at once.

    One single-step max-t over all (task, pair) differences of the task scores, from the same item resamples:
    with probability at least ``level`` every ``sure`` ordering holds together. Chunked over pairs; no loop over
    resamples."""
    k_, m = x.shape
    sure = np.zeros((k_, m, m), dtype=bool)
    ia, ib = np.triu_indices(m, 1)
    maxima = np.full(xb.shape[0], 0.0)
    per_task = []
    for t in range(k_):                                     # K tasks; each vectorised over resamples and pairs
        ok = present[t][ia] & present[t][ib]
        a, b = ia[ok], ib[ok]
        z = np.nan_to_num(xb[:, t, :].astype(np.float64) - x[t])
        zt = np.ascontiguousarray(z.T)
        v = zt.var(axis=1)
        sig = np.empty(len(a))
        for s0 in range(0, len(a), _PAIR_CHUNK):              # chunks of pairs (memory)
            aa, bb = a[s0:s0 + _PAIR_CHUNK], b[s0:s0 + _PAIR_CHUNK]
            dz = zt[aa] - zt[bb]
            sd = dz.std(axis=1)
            sd[sd <= 1e-6 * np.sqrt(v[aa] + v[bb] + 1e-300)] = 0.0
            sig[s0:s0 + _PAIR_CHUNK] = sd
            inv = np.where(sd > 0, 1.0 / np.where(sd > 0, sd, 1.0), 0.0)
            np.maximum(maxima, (np.abs(dz) * inv[:, None]).max(axis=0, initial=0.0), out=maxima)
        per_task.append((a, b, sig))
    crit = float(np.quantile(maxima, level))
    for t, (a, b, sig) in enumerate(per_task):
        d = x[t, a] - x[t, b]
        with np.errstate(invalid="ignore"):
            big = np.abs(d) > 1e-12
            if enough is not None and ((sig == 0) & big).any():   # a zero-spread gap: only with enough items
                z0 = (sig == 0) & big
                big[z0] = enough(a[z0], b[z0], t)
            up = np.where(sig > 0, d > crit * sig, (d > 0) & big)
            down = np.where(sig > 0, -d > crit * sig, (d < 0) & big)
        sure[t, a[up], b[up]] = True
        sure[t, b[down], a[down]] = True
    return sure, crit


def _rule_bounds(sure: np.ndarray, present: np.ndarray, w: np.ndarray, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of each model's goodness under a rank rule, holding whenever every ``sure``
    ordering holds: a model beats at least the models it is surely above and at most all but those surely above
    it (ties count half, which lies in between); Copeland: a pair's vote counts the uncertain tasks against."""
    pres = present.astype(float)
    n_t = pres.sum(axis=1)
    won_lo = sure.sum(axis=2).astype(float)                     # (K, M) surely beaten
    won_hi = (n_t[:, None] - 1.0) - sure.sum(axis=1)            # all but those surely above
    wk = w[:, None] * pres
    tot = wk.sum(axis=0)
    if rule == "mean-win-rate":
        den = np.maximum(n_t - 1, 1)[:, None]
        lo, hi = won_lo / den, won_hi / den
    elif rule == "mean-rank":
        lo, hi = -(n_t[:, None] - won_lo), -(n_t[:, None] - won_hi)
    elif rule == "borda":
        ww = (w * len(w) / w.sum())[:, None] * pres
        return (won_lo * ww).sum(axis=0), (won_hi * ww).sum(axis=0)
    elif rule == "copeland":
        both = (present[:, :, None] & present[:, None, :]).astype(float)
        wt = w[:, None, None] * both
        v_lo = (wt * (2.0 * sure - 1.0)).sum(axis=0)                          # uncertain tasks vote against
        v_hi = (wt * (1.0 - 2.0 * sure.transpose(0, 2, 1))).sum(axis=0)      # only sure losses vote against
        off = ~np.eye(sure.shape[1], dtype=bool)
        lo = np.where(off, np.sign(np.round(v_lo, 12)), 0.0).sum(axis=1)
        hi = np.where(off, np.sign(np.round(v_hi, 12)), 0.0).sum(axis=1)
        return lo, hi
    else:
        raise ArgumentError(f"no bounds for `rule`={rule!r}", param="rule")
    return (np.where(present, lo, 0.0) * wk).sum(axis=0) / tot, (np.where(present, hi, 0.0) * wk).sum(axis=0) / tot


def _enough_items(parts: list, present: np.ndarray, level: float):
    """``enough(a, b[, task])``: whether each pair differs on at least ``min_units(level)`` items (5 at 95%) in the
    task (or over all tasks): below that even an exact sign test cannot order two models at the level, so a gap
    that no resample moves (one item, or the same few items in every resample) is not taken as certain."""
    need = min_units(level)

    def differ(a: np.ndarray, b: np.ndarray, t: int) -> np.ndarray:
        s = parts[t].scores
        return (np.abs(s[a] - s[b]) > 1e-12).sum(axis=1)         # NaN (not shared) counts as no difference

    def enough(a: np.ndarray, b: np.ndarray, task: int | None = None) -> np.ndarray:
        tasks = range(len(parts)) if task is None else [task]
        n = sum(differ(a, b, t) for t in tasks)
        return np.asarray(n) >= need

    return enough


def _better(m: int, ia, ib, d, p_adj, alpha: float) -> np.ndarray:
    sep = p_adj < alpha
    better = np.zeros((m, m), dtype=bool)
    better[ia[sep & (d > 0)], ib[sep & (d > 0)]] = True
    better[ib[sep & (d < 0)], ia[sep & (d < 0)]] = True
    return better


# ------------------------------------------------------------------------------------------ scope (b)
def _task_ranks(x: np.ndarray, present: np.ndarray) -> np.ndarray:
    """(K, M) rank of each model on each task, 1 = best, ties share the best rank (NaN: absent)."""
    xs = np.where(present, x, -np.inf)
    above = (xs[:, None, :] > xs[:, :, None]).sum(axis=2)      # (K, M): models strictly above
    return np.where(present, 1.0 + above, np.nan)


def _conformal(r: np.ndarray, n_ranks: int, level: float, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Full conformal rank prediction sets, per model, from its ranks ``r`` (K, M) on the tasks (NaN: absent).

    Candidate rank ``y``; centre ``c = (sum r + y) / (k + 1)``; scores ``s_t = |r_t - c|`` and ``s = |y - c|``;
    the smoothed conformal p-value ``(#{s_t > s} + u (1 + #{s_t = s})) / (k + 1)`` with one uniform ``u`` per
    model (ranks tie often; the tie-break makes the coverage the level itself, not above it); ``y`` is in the
    set when it exceeds ``1 - level``. Returns the hull ``[low, high]`` (0 where a model has no task)."""
    k_, m = r.shape
    y = np.arange(1, n_ranks + 1, dtype=float)                 # (Y,)
    pres = np.isfinite(r)
    kj = pres.sum(axis=0).astype(float)                        # (M,)
    tot = np.nansum(r, axis=0)                                 # (M,)
    low = np.zeros(m, dtype=np.int64)
    high = np.zeros(m, dtype=np.int64)
    step = max(1, (2**24) // max(1, k_ * n_ranks))
    for a in range(0, m, step):                                # chunks of models (memory), vectorised inside
        sl = slice(a, a + step)
        keep = _p_above(r[:, sl], pres[:, sl], kj[sl], tot[sl], y[None, :], u[sl], level)
        anyk = keep.any(axis=1)
        first = np.argmax(keep, axis=1)
        last = n_ranks - 1 - np.argmax(keep[:, ::-1], axis=1)
        low[sl] = np.where(anyk, first + 1, 0)
        high[sl] = np.where(anyk, last + 1, 0)
    return low, high


def _p_above(r, pres, kj, tot, y, u, level):
    """(m, Y) whether the smoothed conformal p-value of candidate ``y`` exceeds ``1 - level`` (see _conformal)."""
    c = (tot[:, None] + y) / (kj[:, None] + 1.0)                 # (m, Y)
    s_new = np.abs(y - c)
    s_t = np.abs(r[:, :, None] - c[None])                        # (K, m, Y)
    tol = 1e-9
    gt = ((s_t > s_new[None] + tol) & pres[:, :, None]).sum(axis=0)
    eq = ((np.abs(s_t - s_new[None]) <= tol) & pres[:, :, None]).sum(axis=0)
    p = (gt + u[:, None] * (1.0 + eq)) / (kj[:, None] + 1.0)
    return (p > (1.0 - level) + 1e-12) & (kj[:, None] > 0)


def _in_set(r: np.ndarray, y: np.ndarray, level: float, u: np.ndarray) -> np.ndarray:
    """(M,) whether each model's candidate rank ``y`` is in its conformal set from its ranks ``r`` (K, M)."""
    pres = np.isfinite(r)
    kj = pres.sum(axis=0).astype(float)
    yy = np.where(np.isfinite(y), y, 0.0)
    return _p_above(r, pres, kj, np.nansum(r, axis=0), yy[:, None], u, level)[:, 0]


def _scope_b(x: np.ndarray, present: np.ndarray, level: float, seed: np.random.SeedSequence,
             models: Sequence[str]):
    k_, m = x.shape
    # the tie-breaking uniforms: one stream per model, named by the model (the same whatever the model order)
    uu = np.array([np.random.default_rng(_random.child(seed, name)).random(k_ + 1) for name in models]).T
    r = _task_ranks(x, present)
    kmin = int(present.sum(axis=0).min())
    lvl = min(level, kmin / (kmin + 1.0))
    low, high = _conformal(r, m, lvl, uu[0])
    cov_hits, n_checked, loto_level = 0, 0, float("nan")
    if k_ >= 2:
        kmin1 = kmin - 1 if kmin > 1 else 1
        loto_level = min(level, kmin1 / (kmin1 + 1.0))
        u = uu[1:]
        for t in range(k_):                                     # leave each task out in turn (K, not resamples)
            keep = np.arange(k_) != t
            ok = present[t] & (present[keep].sum(axis=0) > 0)
            hit = _in_set(r[keep], r[t], loto_level, u[t])
            cov_hits += int((hit & ok).sum())
            n_checked += int(ok.sum())
    coverage = cov_hits / n_checked if n_checked else float("nan")
    return low, high, lvl, coverage, loto_level, n_checked, kmin


# ------------------------------------------------------------------------------------------ the function
def suite(
    m: "Mapping[str, ScoreMatrix] | ScoreMatrix",
    *,
    rule: str = "mean",
    weights: "Mapping[str, float] | Sequence[float] | None" = None,
    normalise: Literal["random-baseline"] | None = None,
    chance: "float | Mapping[str, float] | Sequence[float] | None" = None,
    missing: Literal["error", "drop-model", "drop-task", "pairwise"] = "error",
    align: Literal["error", "intersect", "pairwise"] = "error",
    tasks: Sequence[str] | None = None,
    by: Literal["group"] | None = None,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    cluster: bool = False,
    rng: SeedLike = 0,
    progress: Progress = None,
) -> SuiteResult:
    """Rank models over a suite of tasks, with both scopes of uncertainty (see the module docstring).

    Parameters
    ----------
    m : mapping of task name -> ScoreMatrix, or a ScoreMatrix with ``by="group"``
        The suite: one matrix per task (the command line also reads a long table with a task column,
        harness logs holding several tasks, and a store).
    rule : {"mean", "mean-win-rate", "mean-rank", "borda", "copeland"}, default: ``"mean"``
        The aggregate the ranking and its inference use. Every rule's possible winners are shown beside it.
    weights : mapping {task: w}, sequence in task order, or None (equal)
        Task weights of the mean-based rules (normalised to sum to 1; Borda to ``K``; Copeland: vote weights).
    normalise : {"random-baseline"} or None
        Rescale each task score above the task's chance level, ``max(0, (x - c) / (1 - c))`` (needs ``chance``).
    chance : float, mapping {task: c} or sequence
        Each task's chance level (0.25 for 4 options), for ``normalise``.
    missing : {"error", "drop-model", "drop-task", "pairwise"}, default: ``"error"``
        A model without results on a task.
    align : {"error", "intersect", "pairwise"}, default: ``"error"``
        Within a task, models scored on different items (as :func:`ranktrust.report`); ``"pairwise"``: a model's
        task score is its mean over its own items of that task.
    tasks : sequence of str, optional
        Keep only these tasks.
    by : {"group"} or None
        With a ScoreMatrix ``m``: its item groups are the tasks.
    confidence_level : float, default: ``0.95``
    n_resamples : int, default: ``1000``
        Item resamples of scope (a).
    cluster : bool, default: ``False``
        Redraw item groups (clusters) instead of items in every task that has groups.
    rng : None, int or numpy.random.Generator, default: 0
    progress : callable(done, total), optional
        Called once per task resampled.

    Returns
    -------
    SuiteResult

    Examples
    --------
    >>> import numpy as np, ranktrust as rt
    >>> g = np.random.default_rng(0)
    >>> tasks = {f"t{i}": rt.ScoreMatrix.from_array((g.random((3, 400)) < [[.8], [.6], [.59]]).astype(float),
    ...                                             models=["a", "b", "c"]) for i in range(5)}
    >>> r = rt.suite(tasks, n_resamples=200)
    >>> r.could_be_first, r.rank_low.tolist(), r.rank_high.tolist()
    (['a'], [1, 2, 2], [1, 3, 3])
    """
    rule = _validate.choice(rule, "rule", RULES)
    if normalise is not None:
        normalise = _validate.choice(normalise, "normalise", NORMALISE)
    missing = _validate.choice(missing, "missing", MISSING)
    align = _validate.choice(align, "align", ("error", "intersect", "pairwise"))
    level = _validate.confidence_level(confidence_level)
    n_resamples = _validate.count(n_resamples, "n_resamples", minimum=20)
    progress = _validate.progress(progress)
    if by is not None:
        by = _validate.choice(by, "by", ("group",))
    if not isinstance(cluster, (bool, np.bool_)):
        raise TypeError(f"`cluster` must be True or False, got {type(cluster).__name__}")
    root = _random.root(rng)
    given = tasks_of(m, by, whole=None)
    if tasks is not None:
        want = [str(t) for t in tasks]
        unknown = [t for t in want if t not in given]
        if unknown:
            raise DataError(f"no task {unknown[0]!r} in the suite (tasks: {', '.join(list(given)[:6])}"
                            f"{' ...' if len(given) > 6 else ''})", param="tasks")
        given = {t: given[t] for t in want}
    if cluster and not any(v.groups is not None for v in given.values()):
        raise DataError("`cluster`=True needs item groups in at least one task; none has any", param="cluster")
    notes: list[Note] = []
    models, names, present, parts = _prepare(given, align, missing, notes)
    k_, m_ = len(names), len(models)
    w = _per_task(weights, names, "weights", default=1.0)
    if not (np.all(np.isfinite(w)) and np.all(w >= 0) and w.sum() > 0):
        raise ArgumentError(f"`weights` must be non-negative numbers, not all 0; got {w.tolist()}", param="weights")
    ch = _per_task(chance, names, "chance", default=float("nan"))
    if normalise is not None:
        if chance is None:
            raise ArgumentError("`normalise`='random-baseline' needs each task's chance level: give `chance` "
                                "(one number, or {task: level})", param="chance")
        if not np.all((ch >= 0) & (ch < 1)):
            raise ArgumentError(f"`chance` must be in [0, 1), got {ch.tolist()}", param="chance")
    if k_ < 2:
        notes.append(Note("suite_one_task", {"task": names[0]}))

    # task scores, point and resampled (one named stream per task; items redrawn within the task, paired)
    x = np.full((k_, m_), np.nan)
    small = n_resamples * k_ * m_ <= 2**24                       # float64 up to 128 MB, float32 above
    xb = np.full((n_resamples, k_, m_), np.nan, dtype=np.float64 if small else np.float32)
    n_items = np.zeros(k_, dtype=np.int64)
    clustered = np.zeros(k_, dtype=bool)
    n_clusters = np.zeros(k_, dtype=np.int64)
    for i, p in enumerate(parts):                                # one engine call per task (K of them)
        s = p.scores
        rows = np.flatnonzero(present[i])
        n_items[i] = s.shape[1]
        groups = p.codes if (cluster and p.codes is not None) else None
        clustered[i] = groups is not None
        if groups is not None:
            n_clusters[i] = len(np.unique(groups))
        with np.errstate(invalid="ignore"):
            x[i, rows] = np.nanmean(s[rows], axis=1)
        seed = _random.child(root, "suite", i)
        sub = s[rows]
        if np.isfinite(sub).all():
            boot = resample_means(sub, n_resamples=n_resamples, groups=groups, rng=seed)
        else:                                                     # align="pairwise": each model its own items
            wts = resample_weights(sub.shape[1], n_resamples=n_resamples, groups=groups, rng=seed)
            ok = np.isfinite(sub)
            with np.errstate(invalid="ignore", divide="ignore"):
                boot = (wts @ np.where(ok, sub, 0.0).T) / (wts @ ok.T.astype(float))
        xb[:, i, rows] = boot
        if progress is not None:
            progress(i + 1, k_)
    units = np.where(clustered, n_clusters, n_items)
    few = [names[i] for i in range(k_) if units[i] < _FEW_UNITS]
    if few:
        notes.append(Note("suite_few_items", {"tasks": few, "n_tasks": len(few), "fewest": int(units.min()),
                                              "limit": _FEW_UNITS, "clustered": bool(clustered.any())}))
    if cluster:
        flat = [names[i] for i in range(k_) if not clustered[i]]
        if flat:
            notes.append(Note("suite_unclustered_tasks", {"tasks": flat, "n_tasks": len(flat)}))
    xn = _normalised(x, ch, normalise)
    xbn = _normalised(xb, ch, normalise) if normalise is not None else xb

    # the rule, its resamples and the one step-down
    sign = -1.0 if rule == "mean-rank" else 1.0
    wn = w / w.sum()
    g = _aggregate(xn, present, wn, rule)
    if rule == "mean":                                            # linear: accumulate in float64
        gb: np.ndarray = np.zeros((n_resamples, m_))
        pres = present.astype(float)
        tot = (wn[:, None] * pres).sum(axis=0)
        for i in range(k_):
            gb += np.where(present[i], xbn[:, i, :].astype(np.float64), 0.0) * (wn[i] * pres[i] / tot)
    alpha = round(1.0 - level, 12)                                # 0.05, not 0.050000000000000044
    enough = _enough_items(parts, present, level)
    sure = None
    if rule == "mean":
        ia, ib, d, clo, chi, pv, padj, crit = _stepdown(g, gb, level, enough)
        better = _better(m_, ia, ib, d, padj, alpha)
        with np.errstate(invalid="ignore"):
            q = np.quantile(gb, [alpha / 2, 1 - alpha / 2], axis=0)
        lo, hi = q[0], q[1]
    else:       # a rank rule: bounds from the task orderings that hold together (see _rule_bounds)
        sure, crit = _task_orders(xn, xbn, present, level, enough)
        glo, ghi = _rule_bounds(sure, present, wn, rule)
        ia, ib = np.triu_indices(m_, 1)
        d = g[ia] - g[ib]
        clo, chi = glo[ia] - ghi[ib], ghi[ia] - glo[ib]
        pv = padj = np.full(len(ia), np.nan)
        better = glo[:, None] > ghi[None, :]
        lo, hi = (glo, ghi) if sign > 0 else (-ghi, -glo)
    tier, order, _acyclic = layers(better, g)
    rank_low = 1 + better.sum(axis=0)
    rank_high = m_ - better.sum(axis=1)
    # pairs: a before b in display order, so diff is mostly >= 0
    pos = np.empty(m_, dtype=np.int64)
    pos[order] = np.arange(m_)
    swap = pos[ia] > pos[ib]
    pa, pb = np.where(swap, ib, ia), np.where(swap, ia, ib)
    d2 = np.where(swap, -d, d)
    clo2, chi2 = np.where(swap, -chi, clo), np.where(swap, -clo, chi)
    srt = np.lexsort((pos[pb], pos[pa]))
    sep = better[ia, ib] | better[ib, ia]
    if rule != "mean":
        notes.append(Note("suite_rank_rule_bounds", {"rule": rule}))

    # every rule side by side: its top model and its set of possible winners (its own step-down)
    tops: dict[str, str] = {}
    winners: dict[str, list[str]] = {}
    resampled: dict[str, bool] = {}
    for r in RULES:
        if r == rule:
            gr, bet = g, better
        else:
            gr = _aggregate(xn, present, wn, r)
            bet = None
            if r == "mean":
                grb = _aggregate(xbn.astype(np.float64), present, wn, r)
                a2, b2, d_, _, _, _, padj2, _ = _stepdown(gr, grb, level, enough)
                bet = _better(m_, a2, b2, d_, padj2, alpha)
            elif m_ <= _RULES_MAX_MODELS:
                if sure is None:
                    sure, _ = _task_orders(xn, xbn, present, level, enough)
                rlo, rhi = _rule_bounds(sure, present, wn, r)
                bet = rlo[:, None] > rhi[None, :]
        top = int(np.nanargmax(gr))
        tops[r] = models[top]
        resampled[r] = bet is not None
        if bet is not None:
            _, o2, _ = layers(bet, gr)
            winners[r] = [models[k] for k in o2 if not bet[:, k].any()]
        else:
            winners[r] = [models[top]]
    if m_ > _RULES_MAX_MODELS:
        notes.append(Note("suite_rules_point_only", {"n_models": m_, "limit": _RULES_MAX_MODELS}))

    # what drives each adjacent separation: per-task shares of the difference
    if rule == "copeland":      # each task's weighted head-to-head vote in the pair
        contrib = np.array([np.where(present[:, order[i]] & present[:, order[i + 1]],
                                     w * np.sign(xn[:, order[i]] - xn[:, order[i + 1]]), np.nan)
                            for i in range(m_ - 1)]).reshape(max(m_ - 1, 0), k_)
    else:
        parts_g = _task_parts(xn, present, wn, rule)
        contrib = (parts_g[:, order[:-1]] - parts_g[:, order[1:]]).T

    # scope (b): a new task from the same population
    nlo, nhi, nlvl, ncov, nlvl_loto, nchk, nkmin = _scope_b(xn, present, level, _random.child(root, "suite-new-task"),
                                                             models)

    return SuiteResult(
        models=tuple(models), tasks=tuple(names), rule=rule, score=sign * g, ci_low=lo, ci_high=hi,
        rank_low=rank_low, rank_high=rank_high, tier=tier, order=order, better=better, task_scores=x,
        weights=wn, chance=ch, n_items=n_items, task_clustered=clustered, n_clusters=n_clusters,
        pair_a=pa[srt], pair_b=pb[srt], diff=d2[srt], pair_ci_low=clo2[srt], pair_ci_high=chi2[srt],
        p_value=pv[srt], p_adjusted=padj[srt], separated=sep[srt], rule_tops=tops, rule_winners=winners,
        rule_resampled=resampled, new_task_low=nlo, new_task_high=nhi, new_task_level=nlvl,
        new_task_coverage=ncov, new_task_coverage_level=nlvl_loto, new_task_checked=nchk, new_task_min_tasks=nkmin,
        contributions=contrib,
        confidence_level=level, n_resamples=n_resamples, normalise=normalise, missing=missing, align=align,
        clustered=bool(clustered.any()), critical_value=crit, notes=tuple(notes),
    )
