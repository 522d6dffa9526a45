"""The release gate: is a candidate model non-inferior to a baseline on every task of an eval suite?

:func:`gate` runs, for every task, the paired test of :func:`ranktrust.compare` (exact McNemar for
0/1 scores, the finite-sample betting interval for continuous ones (:mod:`ranktrust.stats._bounded`), the
asymptotic paired t with ``method="t"``, clustered on request; repeats averaged per item), and decides with
one multiplicity procedure across the tasks.

The procedure (``adjust="holm"``, the default; ``alpha = 1 - confidence_level``)
-------------------------------------------------------------------------------

1. **Regression family.** ``p_k`` is the two-sided p-value :func:`~ranktrust.compare` gives on task
   ``k`` (the same test, the same number). Holm's step-down runs on the ``K`` p-values in the form
   "with ``j`` hypotheses left, reject every one with ``p < alpha / j``; repeat until none is
   rejected" (the same rejections as the usual one-at-a-time Holm, and as
   ``adjust_pvalues(p, "holm") < alpha``). A task rejected while ``j`` were left gets the level
   ``a_k = alpha / j``; a task never rejected gets the level of the last step, ``alpha / j_end``
   (``j_end`` = tasks left). ``adjust="bonferroni"``: ``a_k = alpha / K``; ``"none"``: ``a_k = alpha``.
2. **One interval per task.** Each task's interval is :func:`~ranktrust.compare`'s interval at the
   level ``1 - a_k``. Its tests and intervals are dual (the exact McNemar interval excludes 0 exactly
   when the exact test's p is below its alpha; the betting and t intervals likewise), so the interval excludes 0
   exactly when Holm rejects: the printed interval and the decision never disagree.
3. **Decisions, read from that interval.** ``worse``: upper bound < 0 (a regression shown);
   ``better``: lower bound > 0; ``non-inferior``: lower bound > ``-margin``; else ``inconclusive``.
4. **Verdict.** ``FAIL`` if any task is worse; else ``PASS`` if every task is non-inferior (and, with
   ``require="better"``, at least one is better); else ``INCONCLUSIVE``.

Why the errors are controlled
-----------------------------
* **False FAIL** (a task called worse although the candidate is not worse on it): the worse/better
  calls are Holm's two-sided rejections, which control the family-wise error at ``alpha`` under any
  dependence (Holm 1979); with independent tasks (disjoint items) the directional calls also keep
  the mixed directional family-wise error at ``alpha`` (Guo and Romano 2015). With the candidate
  truly equal on every task, P(FAIL) <= ``alpha``.
* **False PASS** (PASS although some task ``k`` has a true drop of ``margin`` or more): PASS needs
  ``lower_k > -margin >= d_k``. Every printed interval is at a level ``1 - a_k >= 1 - alpha`` and the
  intervals are nested in the level, so ``P(lower_k > d_k) <= alpha / 2`` (one-sided error of a
  two-sided ``1 - alpha`` interval). This is the intersection-union argument (Berger 1982): a claim
  about *every* task is false only if it is false for one task, and that one task's test errs with
  probability at most ``alpha / 2`` -- 2.5% at the default 95%, the usual one-sided level of a
  non-inferiority trial. No adjustment is needed for PASS; the Holm levels make it conservative.
* The row labels ``worse`` and ``better`` are family-wise claims; a row's ``non-inferior`` is a claim
  about that task (one-sided, at ``a_k / 2``), and their conjunction, PASS, is the family-wise one.
  ``adjust="bonferroni"`` makes every printed interval part of a simultaneous ``1 - alpha`` set, so
  every label in every row holds together with probability at least ``1 - alpha``.

Which of these hold in finite samples: for continuous scores in [0, 1] (the default betting interval) both
error rates hold at every number of items, whatever the shape of the differences (skewed, rare large losses,
all equal): its one-sided error is at most ``a_k / 2`` by Ville's inequality (``bench/bench_gate_edges.py``
re-runs the audit's cells). For 0/1 scores the regression test is exact (McNemar) and the non-inferiority
test is approximate (the exact McNemar interval's coverage was audited on a grid, ``bench/bench_coverage.py``,
not proved). With ``method="t"`` (and ``"cluster"``) both figures are asymptotic: with few items and skewed
differences the audit measured a false FAIL of 0.31 and a false PASS of 0.38 at 50 items.

Planning (the suite, not the data)
----------------------------------
``q_k`` = the observed disagreement (mean squared per-item difference; for 0/1 scores the share of
items the two models score differently). ``detectable_drop``: the smallest drop on task ``k`` alone
that the suite finds with probability ``plan_power`` (0.8) at Holm's first level ``alpha / K``
(:func:`ranktrust.power`; the exact McNemar power for 0/1 scores). ``items_needed``: the items a task
needs for its interval at level ``1 - alpha / K`` to clear ``-margin`` with probability ``plan_power``
*when the two models are truly equal* (so a task observed worse can have them and still be inconclusive):
``ceil((z + z_power)^2 q / margin^2)`` (the normal formula of :func:`ranktrust.power`) with
``z = z_{1 - alpha/(2K)}`` for McNemar and t, never fewer (McNemar) than the items at which the exact interval
clears ``-margin`` with no discordant item (the Wilson bound, about 380 for 1 point at 95%); for the betting
interval, the growth of its capital (:func:`ranktrust.stats._bounded.items_needed`, approximate: 68-89% of
runs clear the margin at that figure, not 80%), never fewer than the items two models that score every item
alike need (:func:`ranktrust.stats._bounded.identical_items_needed`: 502 for 1 point in one task at 95%).
``detectable_drop`` is the normal/exact power of the paired test (for the betting interval, of the t: it
understates the drop the finite-sample interval needs).
None at ``margin`` 0: no number of items rules out every drop (PASS then needs the candidate shown better).

References
----------
.. [1] S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6 (1979) 65-70.
.. [2] R. L. Berger, "Multiparameter hypothesis testing and acceptance sampling", Technometrics 24 (1982) 295-300.
.. [3] W. Guo and J. P. Romano, "On stepwise control of directional errors under independence and some
   dependence", J. Statist. Plann. Inference 163 (2015) 21-33.
"""

from __future__ import annotations

import difflib
import math
import os
import warnings
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence, TypedDict

import numpy as np

from .. import _validate
from .._kernel import normal_quantile
from ..data import ScoreMatrix
from ..errors import ArgumentError, DataError, RanktrustWarning, SmallSampleWarning
from ..results import Result, jsonable
from ..stats import PairedComparison, adjust_pvalues, compare, items_needed as _betting_items, power as _power
from ._tasks import is_store, read_tasks, tasks_of

__all__ = ["Gate", "GateHeadline", "GateTask", "gate", "holm_levels", "GATE_ADJUST", "PLAN_POWER"]

GateAdjust = Literal["holm", "bonferroni", "none"]
GATE_ADJUST = ("holm", "bonferroni", "none")
Decision = Literal["worse", "better", "non-inferior", "inconclusive"]
Verdict = Literal["PASS", "FAIL", "INCONCLUSIVE"]
#: the power the plan columns are computed for
PLAN_POWER = 0.8
#: the paired tests of a task, and (with ``gold``) the gold estimators (``ranktrust.compare``'s ``method``)
METHODS = ("auto", "mcnemar", "betting", "t", "cluster")
GOLD_METHODS = ("auto", "ppi++", "stratified", "rogan-gladen")
#: the order of the rows: the decisions that decide the verdict first
_RANK = {"worse": 0, "inconclusive": 1, "non-inferior": 2, "better": 3}


class GateTaskJSON(TypedDict):
    """Layout of :meth:`GateTask.to_dict`: the task's paired comparison in the gate's words (candidate and
    baseline), its level, adjusted p-value, decision and plan."""

    task: str
    n_items: int
    score_baseline: float
    score_candidate: float
    diff: float
    se: float
    ci_low: float
    ci_high: float
    ci_level: float
    p_value: float
    p_adjusted: float
    method: str
    ci_method: str
    clustered: bool
    n_clusters: int | None
    only_candidate: int | None
    only_baseline: int | None
    decision: Decision
    disagreement: float
    detectable_drop: float | None
    items_needed: int | None
    missing_candidate: int
    missing_baseline: int
    n_labelled: int | None


def _of_comparison(name: str, doc: str) -> Any:
    """A read-only attribute of a :class:`GateTask` that is its comparison's ``name``."""
    return property(lambda self: getattr(self.comparison, name), doc=doc)


@dataclass(frozen=True, eq=False)
class GateTask(Result):
    """One task of a :class:`Gate`: the paired comparison candidate - baseline at the task's level, and its decision.

    Attributes
    ----------
    task : str
    comparison : PairedComparison
        :func:`ranktrust.compare` (candidate as ``a``, baseline as ``b``) at the task's Holm level
        ``ci_level``: the difference, its interval and test are its. ``n_items``, ``score_candidate``,
        ``score_baseline``, ``diff``, ``se``, ``ci_low``, ``ci_high``, ``ci_level``, ``p_value``, ``method``,
        ``ci_method``, ``clustered``, ``n_clusters``, ``only_candidate`` and ``only_baseline`` read it.
    p_adjusted : float
        ``p_value`` adjusted over the tasks (``adjust``); ``p_adjusted < 1 - confidence_level``
        exactly when the interval excludes 0.
    decision : str
        ``"worse"`` (upper bound < 0), ``"better"`` (lower bound > 0), ``"non-inferior"`` (lower
        bound > -margin) or ``"inconclusive"``.
    disagreement : float
        ``q``: mean squared per-item difference (0/1: share of items scored differently).
    detectable_drop : float or None
        Smallest drop the suite detects on this task with probability 0.8 (None: none possible, or
        not computed: ``plan=False``).
    items_needed : int or None
        Items the margin needs on this task if the two models were truly equal (probability 0.8; see the
        module docstring); None at ``margin`` 0, or for the t test when ``q = 0``.
    missing_candidate, missing_baseline : int
        Items of this task the baseline scored and the candidate did not, and the other way round: left out
        of the comparison (non-zero only with ``align="intersect"``; ``"error"`` refuses them).
    """

    task: str
    comparison: PairedComparison
    p_adjusted: float
    decision: Decision
    disagreement: float
    detectable_drop: float | None
    items_needed: int | None
    missing_candidate: int = 0
    missing_baseline: int = 0

    n_items = _of_comparison("n_items", "Items both models scored on this task.")
    score_candidate = _of_comparison("score_a", "The candidate's mean on those items.")
    score_baseline = _of_comparison("score_b", "The baseline's mean on those items.")
    diff = _of_comparison("diff", "``score_candidate - score_baseline`` (fraction).")
    se = _of_comparison("se", "The SE of ``diff``.")
    ci_low = _of_comparison("ci_low", "The interval at ``ci_level``: the decision is read from it.")
    ci_high = _of_comparison("ci_high", "The interval at ``ci_level``: the decision is read from it.")
    ci_level = _of_comparison("confidence_level", "``1 - a_k`` (the module docstring): 1 - 0.05 / K ... 0.95 with Holm.")
    p_value = _of_comparison("p_value", "The two-sided p-value of :func:`ranktrust.compare` on this task.")
    method = _of_comparison("method", "The test (as :class:`ranktrust.stats.PairedComparison`).")
    ci_method = _of_comparison("ci_method", "The interval (as :class:`ranktrust.stats.PairedComparison`).")
    clustered = _of_comparison("clustered", "Clustered by the task's item groups.")
    n_clusters = _of_comparison("n_clusters", "Clusters both models share (clustered only).")
    only_candidate = _of_comparison("only_a", "0/1 scores: items only the candidate got right.")
    only_baseline = _of_comparison("only_b", "0/1 scores: items only the baseline got right.")
    n_labelled = _of_comparison("n_labelled", "With ``gold``: the items with a gold label (None without).")

    def to_dict(self) -> GateTaskJSON:  # type: ignore[override]
        return jsonable({k: getattr(self, k) for k in GateTaskJSON.__annotations__})  # type: ignore[return-value]


class GateHeadline(TypedDict):
    """The ``"headline"`` of the gate's JSON, first in it: its verdict, and the verdict line under ``text``
    ("PASS: 12 tasks non-inferior at 1 point (95%, Holm)"), both added by the presentation layer."""

    verdict: Verdict
    text: str


@dataclass(frozen=True, eq=False)
class Gate(Result):
    """The gate's verdict over the tasks of a suite (:func:`gate`).

    ``print(gate)`` shows what ``ranktrust gate`` prints; ``gate.headline["text"]`` is its verdict line, and
    ``gate.to_dict()`` is the JSON of ``ranktrust gate --format json`` (less ``meta``), its ``"headline"``
    (:class:`GateHeadline`) first.

    Attributes
    ----------
    verdict : str
        ``"PASS"``, ``"FAIL"`` or ``"INCONCLUSIVE"``.
    candidate, baseline : str
    margin : float
        The drop tolerated (fraction: 0.01 = 1 point).
    adjust : str
        ``"holm"``, ``"bonferroni"`` or ``"none"``.
    confidence_level : float
        Family-wise: ``alpha = 1 - confidence_level`` bounds the chance of a false FAIL.
    require : str or None
        ``"better"``: PASS also needs one task where the candidate is better.
    tasks : tuple of GateTask
        One per task, the deciding ones first (worse, inconclusive, non-inferior, better; then by
        lower bound).
    worse, inconclusive, better : tuple of str
        The tasks with each decision.
    n_tasks : int
    plan_power : float
        The power of the plan columns (0.8).
    align : str
        ``"error"`` (a task where one side lacks items the other scored is refused) or ``"intersect"``
        (compared on the items both scored; each task's ``missing_candidate`` / ``missing_baseline`` say
        how many each side lost).
    show_plan : bool
        The plan columns were computed (``plan=True``) and are shown (the JSON and CSV always hold them).
    """

    _table = "tasks"

    verdict: Verdict
    candidate: str
    baseline: str
    margin: float
    adjust: str
    confidence_level: float
    require: str | None
    n_tasks: int
    tasks: tuple[GateTask, ...]
    worse: tuple[str, ...]
    inconclusive: tuple[str, ...]
    better: tuple[str, ...]
    plan_power: float = PLAN_POWER
    align: str = "error"
    show_plan: bool = False


def holm_levels(p: Sequence[float], alpha: float, adjust: str = "holm") -> np.ndarray:
    """The test level ``a_k`` of each task (see the module docstring): Holm's step-down in the
    form "with j left, reject every p < alpha / j", the level of the step that decided each task.

    >>> holm_levels([0.001, 0.04, 0.3], 0.05).tolist()      # 0.001 < 0.05/3; then 0.04 >= 0.05/2
    [0.016666666666666666, 0.025, 0.025]
    """
    pv = np.asarray(p, dtype=np.float64)
    k = pv.size
    if adjust == "none":
        return np.full(k, alpha)
    if adjust == "bonferroni":
        return np.full(k, alpha / k)
    levels = np.full(k, np.nan)
    left = np.ones(k, dtype=bool)
    while left.any():
        j = int(left.sum())
        hit = left & (pv < alpha / j)     # NaN p never rejects
        if not hit.any():
            break
        levels[hit] = alpha / j
        left &= ~hit
    if left.any():
        levels[left] = alpha / int(left.sum())
    return levels


def _close(name: str, names: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, list(names), n=3, cutoff=0.5)
    if close:
        return f"; did you mean {', '.join(repr(c) for c in close)}?"
    return f"; they are {', '.join(repr(c) for c in list(names)[:6])}" + (" ..." if len(names) > 6 else "")


def _check_models(tasks: dict[str, ScoreMatrix], candidate: str, baseline: str) -> None:
    everyone = list(dict.fromkeys(x for t in tasks.values() for x in t.models))
    for role, name in (("candidate", candidate), ("baseline", baseline)):
        if not isinstance(name, str):
            raise TypeError(f"`{role}` must be a model name (str), got {type(name).__name__}")
        if name not in everyone:
            raise DataError(f"unknown {role} model {name!r} (in no task){_close(name, everyone)}", param=role)
    if candidate == baseline:
        raise DataError(f"the candidate and the baseline are the same model ({candidate!r}): give two models",
                        param="baseline")
    for role, name in (("candidate", candidate), ("baseline", baseline)):
        lacking = [t for t, mm in tasks.items() if name not in mm.models]
        if lacking:
            has = [t for t in tasks if t not in lacking]
            raise DataError(
                f"the {role} {name!r} has no results on task {lacking[0]!r}"
                + (f" (and {len(lacking) - 1} other task(s))" if len(lacking) > 1 else "")
                + f"; it has {', '.join(map(repr, has[:5]))}{' ...' if len(has) > 5 else ''}: "
                f"score it on that task, or leave the task out with `tasks`", param="tasks")


def _plan(q: float, n: int, method: str, alpha_plan: float, margin: float,
          drop: bool) -> tuple[float | None, int | None]:
    """detectable_drop (only with ``drop``: the exact power costs ~50 ms a task) and items_needed of one
    task (see the module docstring)."""
    if n < 1 or not (q >= 0) or not margin > 0:
        return None, None
    if method == "betting":
        items = _betting_items(margin, alpha_plan, q, PLAN_POWER)
    elif q > 0 or method == "mcnemar":
        z = normal_quantile(1.0 - alpha_plan)
        z_pow = normal_quantile(PLAN_POWER, alternative="greater")
        # exact McNemar with no discordant item: the lower bound is minus the Wilson upper bound z^2 / (n + z^2)
        floor = int(math.floor(z * z * (1.0 - margin) / margin)) + 1 if method == "mcnemar" else 0
        items = max(int(math.ceil(round((z + z_pow) ** 2 * q / (margin * margin), 9))), floor)
    else:
        return None, None
    if not drop or not q > 0:
        return None, items
    binary = method == "mcnemar"
    r = _power(items=n, disagreement=min(q, 1.0), alpha=alpha_plan, power=PLAN_POWER, binary=binary)
    g = r.detectable_gap
    if g is None or not math.isfinite(g) or g > (q if binary else math.sqrt(q)):
        g = None
    return g, items


def _aligned(suite: dict[str, ScoreMatrix], candidate: str, baseline: str,
             align: str) -> dict[str, tuple[int, int]]:
    """Per task: (items the candidate lacks that the baseline scored, the other way round); refused with
    ``align="error"``."""
    out, scored = {}, {}
    for t, mt in suite.items():
        S = np.asarray(mt.scores)[[mt.index_of(candidate), mt.index_of(baseline)]]
        has = ~np.isnan(S)
        out[t] = (int(np.sum(has[1] & ~has[0])), int(np.sum(has[0] & ~has[1])))
        scored[t] = (int(has[0].sum()), int(has[1].sum()))
    # a task with no shared item at all is refused by compare, in its words
    bad = {t: v for t, v in out.items() if v != (0, 0) and scored[t][0] > v[1]}
    if bad and align == "error":
        shown = list(bad)[:5]
        raise DataError(
            "the candidate and the baseline are scored on different items: "
            + "; ".join(f"task {t!r}: " + " and ".join(
                ([f"{candidate!r} lacks {bad[t][0]:,} of the {scored[t][1]:,} items {baseline!r} scored"]
                 if bad[t][0] else [])
                + ([f"{baseline!r} lacks {bad[t][1]:,} of the {scored[t][0]:,} items {candidate!r} scored"]
                   if bad[t][1] else [])) for t in shown)
            + (f"; and {len(bad) - 5} more task(s)" if len(bad) > 5 else "")
            + ". A missing item may be one the model failed: score it, or pass `align`='intersect' to compare on "
            "the items both scored (the output says how many each side lost)", param="align")
    return out


def gate(
    m: Any,
    candidate: str,
    baseline: str,
    *,
    margin: float = 0.01,
    tasks: Sequence[str] | None = None,
    by: Literal["group"] | None = None,
    adjust: GateAdjust = "holm",
    require: Literal["better"] | None = None,
    method: Literal["auto", "mcnemar", "betting", "t", "cluster", "ppi++", "stratified", "rogan-gladen"] = "auto",
    confidence_level: float = 0.95,
    cluster: bool = False,
    plan: bool = False,
    align: Literal["error", "intersect", "pairwise"] = "error",
    task_col: str | None = None,
    options: Any = None,
    gold: Any = None,
) -> Gate:
    """Is ``candidate`` non-inferior to ``baseline`` on every task? PASS, FAIL or INCONCLUSIVE.

    Parameters
    ----------
    m : mapping of task name -> ScoreMatrix, ScoreMatrix, path(s) or Store
        One matrix per task; a single matrix is one task, named ``"all"``, or one task per item group with
        ``by="group"``. Files or folders are read as ``ranktrust gate PATHS`` reads them
        (:func:`ranktrust.gating.read_tasks`): harness logs (each task the reader reports is a task), a long
        table with a ``task`` column (or the column ``task_col``); a :class:`ranktrust.Store` or the path of a
        store gates each of its tasks.
    candidate, baseline : str
        The new model and the current one; every difference is ``candidate - baseline`` on the
        items both scored in that task.
    margin : float, default: ``0.01``
        The drop tolerated, as a fraction (0.01 = 1 point), in [0, 1).
    tasks : sequence of str, optional
        Only these tasks (each must exist).
    by : {"group"}, optional
        With a single matrix: one task per item group (e.g. the subjects of MMLU-Pro).
    adjust : {"holm", "bonferroni", "none"}, default: ``"holm"``
        Multiplicity across tasks (see the module docstring).
    require : {"better"}, optional
        PASS also needs the candidate found better on at least one task.
    method : {"auto", "mcnemar", "betting", "t", "cluster"}, default: ``"auto"``
        The paired test of :func:`ranktrust.compare` (``"auto"``: exact McNemar for 0/1, the
        finite-sample betting interval otherwise, clustered with ``cluster=True``; ``"t"``: the paired t,
        asymptotic). With ``gold``, the gold estimator, as :func:`ranktrust.compare` takes it: ``"auto"``,
        ``"ppi++"``, ``"stratified"`` or ``"rogan-gladen"``.
    confidence_level : float, default: ``0.95``
        Family-wise: ``1 - confidence_level`` bounds the chance of a false FAIL; a false PASS has
        probability at most half of it.
    cluster : bool, default: False
        Cluster by each task's item groups (:func:`ranktrust.compare`'s ``cluster``).
    plan : bool, default: False
        Also compute each task's ``detectable_drop`` (exact McNemar power for 0/1 scores: about 50 ms
        a task) and show the plan columns. ``items_needed`` is always computed.
    align : {"error", "intersect", "pairwise"}, default: ``"error"``
        When the candidate lacks items of a task the baseline scored (or the other way round):
        ``"error"`` refuses, with the counts per task (a missing item may be one the model failed);
        ``"intersect"`` (or ``"pairwise"``: the same for two models) compares on the items both scored
        and records how many each side lost. Other models never matter.
    task_col : str, optional
        Files only: the column whose values are the tasks (``"subject"``: one task per subject).
    options : ranktrust.data.readers.ReadOptions, optional
        Files or a store only: the reader's options (columns, ``metric``, ``errors``, ...), as ``rt.read`` takes
        them.
    gold : ScoreMatrix, mapping of task name -> ScoreMatrix, or str, optional
        Gold labels (a person's) on some items, NaN where not labelled, beside the judge's scores in ``m`` (with
        files: the name of their column of gold labels, empty where not labelled, as ``--gold-col``): each
        task's difference is then the paired difference of the gold-corrected means (:func:`ranktrust.compare`
        with ``gold``: PPI++, or post-stratified for 0/1 scores), the same number ``compare`` gives. A single
        matrix serves every task (its items are looked up in each); a mapping gives each task its own.

    Returns
    -------
    Gate

    Raises
    ------
    DataError
        Unknown model (with close names), a model missing from a task, no shared item on a task,
        an unknown task, a bad row of a file (named by file and line).
    ArgumentError
        ``margin`` outside [0, 1), a bad ``adjust``, ``require`` or ``confidence_level``.

    Examples
    --------
    >>> import numpy as np, ranktrust as rt
    >>> rng = np.random.default_rng(0)
    >>> old = (rng.random(4000) < 0.7).astype(float)
    >>> new = old.copy()
    >>> redo = rng.random(4000) < 0.1                     # the new model answers 10% of items afresh,
    >>> new[redo] = rng.random(int(redo.sum())) < 0.7     # as well as the old one did
    >>> m = rt.ScoreMatrix.from_array(np.stack([old, new]), models=["old", "new"])
    >>> g = rt.gate({"qa": m}, "new", "old", margin=0.02)
    >>> g.verdict, g.tasks[0].decision
    ('PASS', 'non-inferior')
    """
    cl = _validate.confidence_level(confidence_level)
    mg = _validate.probability(margin, "margin", high_open=True, hint=" (a fraction: 0.01 = 1 point)")
    adj = _validate.choice(adjust, "adjust", GATE_ADJUST)
    if require is not None:
        _validate.choice(require, "require", ("better",))
    _validate.choice(method, "method", GOLD_METHODS if gold is not None else METHODS)
    al = _validate.choice(align, "align", ("error", "intersect", "pairwise"))
    suite, gold = _suite_of(m, by, task_col, options, gold)
    suite = _chosen(suite, tasks)
    _check_models(suite, candidate, baseline)
    lost = _aligned(suite, candidate, baseline, al)
    alpha = 1.0 - cl
    names = list(suite)
    golds = _gold_of(gold, names)
    first = []
    for t in names:
        first.append(_compare_task(t, suite[t], candidate, baseline, method, cl, cluster, golds.get(t)))
    p = np.array([r.p_value for r in first], dtype=np.float64)
    levels = holm_levels(p, alpha, adj)
    p_adj = adjust_pvalues(np.where(np.isnan(p), 1.0, p), adj)  # type: ignore[arg-type]
    p_adj = np.where(np.isnan(p), np.nan, p_adj)
    alpha_plan = alpha / len(names) if adj != "none" else alpha
    rows: list[GateTask] = []
    for i, t in enumerate(names):
        r = first[i]
        if levels[i] != alpha:
            with warnings.catch_warnings():        # the first pass said every warning once
                warnings.simplefilter("ignore")
                r = compare(suite[t], candidate, baseline, method=method, confidence_level=1.0 - levels[i],
                            cluster=cluster, **({"gold": golds[t]} if t in golds else {}))  # type: ignore[arg-type]
        q = _disagreement(suite[t], candidate, baseline)
        drop, need = _plan(q, r.n_items, r.method, alpha_plan, mg, bool(plan))
        rows.append(GateTask(task=t, comparison=r, p_adjusted=float(p_adj[i]), decision=_decision(r, mg),
                             disagreement=q, detectable_drop=drop, items_needed=need,
                             missing_candidate=lost[t][0], missing_baseline=lost[t][1]))
    worse = tuple(x.task for x in rows if x.decision == "worse")
    better = tuple(x.task for x in rows if x.decision == "better")
    inconclusive = tuple(x.task for x in rows if x.decision == "inconclusive")
    if worse:
        verdict: Verdict = "FAIL"
    elif not inconclusive and (require is None or better):
        verdict = "PASS"
    else:
        verdict = "INCONCLUSIVE"
    rows.sort(key=lambda x: (_RANK[x.decision], x.ci_low if x.ci_low == x.ci_low else -np.inf))
    return Gate(
        verdict=verdict, candidate=candidate, baseline=baseline, margin=mg, adjust=adj, confidence_level=cl,
        require=require, n_tasks=len(names), tasks=tuple(rows), worse=worse, inconclusive=inconclusive,
        better=better, align="error" if al == "error" else "intersect", show_plan=bool(plan),
    )


def _suite_of(m: Any, by: str | None, task_col: str | None, options: Any, gold: Any) -> tuple[dict[str, Any], Any]:
    """The tasks of ``m`` (read from files or a store, or taken from matrices: :func:`tasks_of`), and ``gold``
    (the gold labels of each task where ``gold`` names a column of the files)."""
    if by is not None:
        _validate.choice(by, "by", ("group",))
    if isinstance(m, (str, os.PathLike)) or is_store(m) or (
            isinstance(m, (list, tuple)) and m and all(isinstance(x, (str, os.PathLike)) for x in m)):
        if by is not None:
            raise ArgumentError("`by`='group' splits one ScoreMatrix into tasks; files name theirs (a task column, "
                                "or `task_col`)", param="by")
        if isinstance(gold, str):
            return read_tasks(m, task_col=task_col, options=options, gold=gold)   # type: ignore[no-any-return]
        return read_tasks(m, task_col=task_col, options=options), gold
    if isinstance(gold, str):
        raise ArgumentError(f"`gold`={gold!r} names a column of files; with {type(m).__name__} give the gold labels "
                            "as a ScoreMatrix (NaN where not labelled)", param="gold")
    for name, value in (("task_col", task_col), ("options", options)):
        if value is not None:
            raise ArgumentError(f"`{name}` reads files or a store; {type(m).__name__} holds its tasks already",
                                param=name)
    if by is not None and not isinstance(m, ScoreMatrix):
        raise ArgumentError("`by`='group' splits one ScoreMatrix into tasks; a mapping already names them",
                            param="by")
    return tasks_of(m, by), gold


def _chosen(suite: dict[str, ScoreMatrix], tasks: Sequence[str] | None) -> dict[str, ScoreMatrix]:
    """Only the tasks named in ``tasks`` (each must exist); all of them when None."""
    if tasks is None:
        return suite
    chosen = list(dict.fromkeys(str(t) for t in ([tasks] if isinstance(tasks, str) else tasks)))
    for t in chosen:
        if t not in suite:
            raise DataError(f"no task {t!r}{_close(t, list(suite))}", param="tasks")
    if not chosen:
        raise ArgumentError("`tasks` is empty: name at least one task", param="tasks")
    return {t: suite[t] for t in chosen}


def _gold_of(gold: Any, names: list[str]) -> dict[str, ScoreMatrix]:
    """Each task's gold labels: one matrix for every task, or ``{task: ScoreMatrix}`` (each task named)."""
    if gold is None:
        return {}
    if isinstance(gold, ScoreMatrix):
        return dict.fromkeys(names, gold)
    if not isinstance(gold, Mapping):
        raise TypeError(f"`gold` must be a ScoreMatrix or a mapping {{task: ScoreMatrix}}, got {type(gold).__name__}")
    lacking = [t for t in names if t not in gold]
    if lacking:
        raise DataError(f"`gold` has no labels for task {lacking[0]!r}" + (
            f" (and {len(lacking) - 1} other task(s))" if len(lacking) > 1 else "") + "; give every task its gold "
            "matrix (NaN where not labelled)", param="gold")
    return {t: gold[t] for t in names}


def _compare_task(t: str, mt: ScoreMatrix, candidate: str, baseline: str, method: str, cl: float,
                  cluster: bool, gold: ScoreMatrix | None = None) -> PairedComparison:
    """:func:`compare` on one task at the family-wise level, its errors and warnings said of the task (one
    item: compare's small-sample warning is left to the verdict line, which says it in one sentence)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = compare(mt, candidate, baseline, method=method, confidence_level=cl, cluster=cluster,  # type: ignore[arg-type]
                        **({"gold": gold} if gold is not None else {}))
        except DataError as exc:
            raise DataError(f"task {t!r}: {exc.message}", param=exc.param, code=exc.code,
                            data={**exc.data, "task": t}) from None
    for w in caught:
        if issubclass(w.category, SmallSampleWarning) and r.n_items < 2:
            continue
        said = f"task {t!r}: {w.message}"
        if isinstance(w.message, RanktrustWarning):
            warnings.warn(w.category(said, code=w.message.code, data={**w.message.data, "task": t}), stacklevel=3)
        else:
            warnings.warn(said, w.category, stacklevel=3)
    return r


def _decision(r: PairedComparison, margin: float) -> Decision:
    """Read off the task's interval at its level: worse, better, non-inferior or (also with no interval)
    inconclusive."""
    if r.ci_high < 0:
        return "worse"
    if r.ci_low > 0:
        return "better"
    if r.ci_low > -margin:
        return "non-inferior"
    return "inconclusive"


def _disagreement(mt: ScoreMatrix, candidate: str, baseline: str) -> float:
    """``q``: the mean squared per-item difference on the items both scored (NaN: none)."""
    S = np.asarray(mt.scores)[[mt.index_of(candidate), mt.index_of(baseline)]]
    shared = ~np.isnan(S).any(axis=0)
    dd = S[0, shared] - S[1, shared]
    return float(np.mean(dd * dd)) if dd.size else float("nan")
