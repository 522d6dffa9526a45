"""Repeats, seeds and evaluation design (``ranktrust.runs``): runs per item, pass@k, choosing N, conditions.

>>> import ranktrust as rt
>>> m = rt.read("results.csv")  # with a run column  # doctest: +SKIP
>>> rt.repeats(m, pass_at=(1, 5))                   # doctest: +SKIP
>>> rt.pass_at_k_matrix(m, [1, 5])                  # doctest: +SKIP
>>> rt.choose_n(m, margin=0.01, confidence_level=0.9)  # doctest: +SKIP
>>> rt.sensitivity(m, by="condition")               # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, TypedDict

import numpy as np

from .._analysis import analysis
from .._kernel import nan_mean_var
from ..data import ScoreMatrix
from ..results import Note, NoteJSON, Result, jsonable
from .. import _validate
from ._passk import MajorityAtN, PassAtK, item_mean_ci, majority_at_n, pass_at_k, pass_at_k_matrix
from ._protocol import ChooseN, RunUntilEnough, choose_n, n_required, run_until_enough
from ._sensitivity import Sensitivity, SensitivityJSON, expected_best_of, hotelling_conditions, sensitivity
from ._variance import VarianceComponents, check_runs, item_stats, run_scores, variance_components

__all__ = [
    "repeats", "Repeats", "pass_at_k", "pass_at_k_matrix", "PassAtK", "majority_at_n", "MajorityAtN", "choose_n", "ChooseN",
    "n_required",
    "run_until_enough", "RunUntilEnough", "sensitivity", "Sensitivity", "hotelling_conditions",
    "expected_best_of", "variance_components", "VarianceComponents", "run_scores", "item_stats",
]


class RepeatsRow(TypedDict):
    """One model of :meth:`Repeats.to_dict` ``"models"`` (``pass_at`` keyed by k)."""

    model: str
    runs: int
    n_items: int
    score: float
    se: float
    ci_low: float
    ci_high: float
    between_item_var: float
    between_item_var_raw: float
    between_item_var_clipped: bool
    within_item_var: float
    runs_per_item: float
    pass_at: dict[str, dict[str, float]]
    maj_at_n: dict[str, float] | None
    run_sd: float
    run_scores: list[float]
    n_required: int | None
    enough_runs: bool | None
    tradeoff: dict[str, Any]


class RepeatsJSON(TypedDict):
    """Layout of :meth:`Repeats.to_dict`."""

    confidence_level: float
    margin: float | None
    choose_n_confidence_level: float | None
    run_labels: list[str]
    models: list[RepeatsRow]
    notes: list[NoteJSON]
    tradeoff_curve: dict[str, Any]


@dataclass(frozen=True, eq=False)
class Repeats(Result):
    """Per-model scores over several runs, with what the runs add to the uncertainty.

    Attributes
    ----------
    models : tuple of str
    runs : ndarray of int
        Run slots with data per model.
    n_items : ndarray of int
    score : ndarray
        Stable score: mean over items of each item's mean over runs (avg@N). Never
        the best run.
    se, ci_low, ci_high : ndarray
        SE over items of the per-item means (it includes the run-to-run noise at the
        observed number of runs) and the t interval (``n - 1`` df; clipped to [0, 1] for
        0/1 scores). NaN (with a
        :class:`~ranktrust.errors.DegenerateDataWarning`) for a model whose item
        means are all equal (e.g. every run of every item scored 0): a zero-width
        interval would claim certainty, as in :func:`ranktrust.intervals`.
    components : VarianceComponents
        ``between_item_var`` (clipped at 0; ``between_item_var_raw`` is the unbiased
        estimate), ``within_item_var`` and the runs-vs-items projections.
    run_scores : ndarray, shape (n_models, n_runs)
        Score of each run (NaN where a model lacks the run).
    run_sd : ndarray
        Sample sd of the per-run scores.
    pass_at : PassAtK or None
    maj : MajorityAtN or None
        maj@N (0/1 scores only; see :func:`majority_at_n`).
    choose : ChooseN or None
        The runs-needed rule, when asked for.
    notes : tuple of Note
        What the reader must know, as records worded by ``ranktrust.reporting.note_text`` (the JSON keeps the
        record; from the command line also its ``"text"``): ``ragged_runs``, ``between_var_clipped``
        (:func:`variance_components`), ``single_run`` (``model``), ``constant_item_means`` (``model``,
        ``value``: every item has this mean over runs, so the CI is not defined) and ``pooled_conditions``
        (``n_conditions``).
    confidence_level : float
    """

    models: tuple[str, ...]
    runs: np.ndarray
    n_items: np.ndarray
    score: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    components: VarianceComponents
    run_labels: tuple[str, ...]
    run_scores: np.ndarray
    run_sd: np.ndarray
    pass_at: PassAtK | None = None
    maj: MajorityAtN | None = None
    choose: ChooseN | None = None
    notes: tuple[Note, ...] = ()
    confidence_level: float = 0.95

    @property
    def between_item_var(self) -> np.ndarray:
        return self.components.between_item_var

    @property
    def between_item_var_raw(self) -> np.ndarray:
        return self.components.between_item_var_raw

    @property
    def within_item_var(self) -> np.ndarray:
        return self.components.within_item_var

    @property
    def n_required(self) -> np.ndarray | None:
        return None if self.choose is None else self.choose.n_required

    def to_dict(self) -> RepeatsJSON:
        comp = self.components
        t = comp.tradeoff()
        out_models = []
        for j, mod in enumerate(self.models):
            row: dict[str, Any] = {
                "model": mod, "runs": int(self.runs[j]), "n_items": int(self.n_items[j]),
                "score": self.score[j], "se": self.se[j], "ci_low": self.ci_low[j], "ci_high": self.ci_high[j],
                "between_item_var": comp.between_item_var[j],
                "between_item_var_raw": comp.between_item_var_raw[j],
                "between_item_var_clipped": bool(comp.between_item_var_clipped[j]),
                "within_item_var": comp.within_item_var[j],
                "runs_per_item": comp.runs[j],
                "pass_at": {} if self.pass_at is None else {
                    str(int(k)): {"estimate": self.pass_at.estimate[j, q], "ci_low": self.pass_at.ci_low[j, q],
                                  "ci_high": self.pass_at.ci_high[j, q]}
                    for q, k in enumerate(self.pass_at.k)
                },
                "maj_at_n": None if self.maj is None else {
                    "estimate": self.maj.estimate[j], "ci_low": self.maj.ci_low[j], "ci_high": self.maj.ci_high[j]},
                "run_sd": self.run_sd[j],
                "run_scores": self.run_scores[j],
                "n_required": None if self.choose is None or np.isnan(self.choose.n_required[j])
                else int(self.choose.n_required[j]),
                "enough_runs": None if self.choose is None else bool(self.choose.enough[j]),
                "tradeoff": {"more_runs": t["more_runs"], "runs_shrink": t["runs_shrink"][j],
                             "more_items": t["more_items"], "items_shrink": t["items_shrink"][j]},
            }
            out_models.append(row)
        return jsonable({
            "confidence_level": self.confidence_level,
            "margin": None if self.choose is None else self.choose.margin,
            "choose_n_confidence_level": None if self.choose is None else self.choose.confidence_level,
            "run_labels": list(self.run_labels),
            "models": out_models,
            "notes": [n.to_dict() for n in self.notes],
            "tradeoff_curve": comp.curve_dict(),
        })


@analysis
def repeats(
    m: ScoreMatrix,
    *,
    pass_at: Sequence[int] = (),
    confidence_level: float = 0.95,
    margin: float | None = None,
    choose_n_confidence_level: float = 0.9,
) -> Repeats:
    """Per model: the mean over runs, a CI over items and runs, and what runs add.

    Parameters
    ----------
    m : ScoreMatrix
        Scores with runs ``(models, items, runs)``; ragged runs (NaN) allowed. With
        conditions, every (condition, run) slot counts as a run; see
        :func:`sensitivity` for the conditions themselves.
    pass_at : sequence of int, default: ``()``
        ``k`` values for unbiased pass@k (0/1 scores only), e.g. ``(1, 5, 10)``.
    confidence_level : float, default: ``0.95``
    margin : float, optional
        Also apply the runs-needed rule of [E] (:func:`choose_n`) for this half-width, as a
        fraction (0.01 = 1 point).
    choose_n_confidence_level : float, default: ``0.9``
        ``confidence_level`` of :func:`choose_n` (``1 - alpha`` of [E], whose ``alpha = 0.1``).

    Returns
    -------
    Repeats

    Warns
    -----
    DegenerateDataWarning
        A model whose item means are all equal: its SE and CI are NaN.

    Raises
    ------
    DataError
        One run per item (nothing to decompose), or a run that scores items the
        model's other runs do not.

    Notes
    -----
    Items are the sampling unit: the SE is the sd over items of the per-item mean
    scores over ``sqrt(n)``, which is ``sqrt((between + within / K) / n)`` at the
    observed ``K`` [1]_ (see :func:`variance_components`), and the CI is score ± t_{n-1} SE. ``run_sd`` is the sd of
    the per-run scores; it measures only the run-to-run noise, which is smaller than
    the item sampling error in the CI.

    References
    ----------
    .. [1] E. Miller, "Adding Error Bars to Evals: A Statistical Approach to
       Language Model Evaluations", arXiv:2411.00640 (2024).
    .. [2] "Evaluation is All You Need", arXiv:2506.04734 (2025).
    .. [3] M. Chen et al., arXiv:2107.03374 (2021), unbiased pass@k.
    """
    if not isinstance(m, ScoreMatrix):
        raise TypeError(f"`m` must be a ScoreMatrix (rt.read(...)), got {type(m).__name__}")
    confidence_level = _validate.confidence_level(confidence_level)
    ks = _validate.counts(pass_at, "pass_at") if isinstance(pass_at, (str, bytes)) or len(pass_at) else ()
    comp = variance_components(m)  # checks runs; raises when nothing to decompose
    notes = list(check_runs(m)) + list(comp.notes)
    k, mean, _var = item_stats(m.data)
    # t quantile: the SD over items is estimated (n - 1 df); z covered 0.935-0.945 at 30 items
    score, se, lo, hi, n = item_mean_ci(mean, confidence_level, names=m.models, what="mean over runs",
                                        quantile="t")
    binary = m.is_binary
    if binary:
        lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
    rs = run_scores(m.data)
    runs, _rmean, rvar = nan_mean_var(rs, axis=1, ddof=1)
    rsd = np.sqrt(rvar)
    for j in np.flatnonzero(runs < 2):
        notes.append(Note("single_run", {"model": m.models[j]}))
    for j in np.flatnonzero((n > 1) & np.isnan(se)):
        notes.append(Note("constant_item_means", {"model": m.models[j], "value": float(score[j])}))
    pa = pass_at_k_matrix(m, ks, confidence_level=confidence_level) if ks else None
    maj = majority_at_n(m, confidence_level=confidence_level) if binary else None
    ch = None if margin is None else choose_n(m, margin=margin, confidence_level=choose_n_confidence_level)
    if m.conditions is not None and len(set(m.conditions)) > 1:
        notes.append(Note("pooled_conditions", {"n_conditions": len(set(m.conditions))}))
    return Repeats(
        models=tuple(m.models), runs=runs, n_items=n, score=score, se=se, ci_low=lo, ci_high=hi,
        components=comp, run_labels=tuple(m.runs), run_scores=rs, run_sd=rsd, pass_at=pa,
        maj=maj, choose=ch, notes=tuple(notes),
        confidence_level=confidence_level,
    )

