"""Choosing the number of runs (repeats) per [E].

Fix a ``confidence_level`` ``1 - alpha`` and a margin ``eps``; from ``N0`` runs take the sample sd
``s`` of the run scores and ``N1 = ceil((z_{1-alpha/2} s / eps)^2)``; stop when
``N1 <= N0``, else run ``N1 - N0`` more and repeat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .. import _validate
from .._analysis import analysis
from .._kernel import nan_mean_var, normal_quantile
from ..data import ScoreMatrix
from ..errors import ArgumentError, DataError
from ..results import Result, jsonable
from ._variance import check_runs, require_runs, run_scores

__all__ = ["ChooseN", "choose_n", "RunUntilEnough", "run_until_enough", "n_required"]


def _iv(margin: Any, confidence_level: Any) -> tuple[float, float]:
    if margin is None:
        raise ArgumentError("`margin` is required: the half-width you accept, as a fraction (0.01 = 1 point)")
    margin = float(margin)
    if not (margin > 0 and math.isfinite(margin)):
        raise ArgumentError(f"`margin` must be a positive fraction (0.01 = 1 point), got {margin}")
    if margin >= 1:
        raise ArgumentError(
            f"`margin` is a fraction of the score scale (0.01 = 1 point), got {margin}; "
            f"for {margin:g} points give {margin / 100:g}"
        )
    return margin, _validate.confidence_level(confidence_level)


def n_required(s: Any, *, margin: float, confidence_level: float = 0.9) -> np.ndarray:
    """``ceil((z_{1-alpha/2} * s / margin)^2)`` with ``alpha = 1 - confidence_level``, at least 1
    (NaN where ``s`` is NaN).

    References
    ----------
    .. [1] "Evaluation is All You Need: Strategic Overclaiming of LLM Reasoning
       Capabilities Through Evaluation Design", arXiv:2506.04734 (2025).
    """
    margin, confidence_level = _iv(margin, confidence_level)
    z = normal_quantile(confidence_level)
    s = np.asarray(s, dtype=np.float64)
    raw = (z * s / margin) ** 2
    # guard against 4.0000000001 -> 5 from rounding in the square
    out = np.ceil(raw - 1e-9 * np.maximum(raw, 1))
    return np.where(np.isnan(s), np.nan, np.maximum(out, 1))


@dataclass(frozen=True, eq=False)
class ChooseN(Result):
    """How many runs the margin needs, per model [E].

    Attributes
    ----------
    models : tuple of str
    runs : ndarray of int
        Runs available ``N0`` (run slots with any scored item).
    run_sd : ndarray
        Sample sd (ddof=1) of the per-run scores.
    n_required : ndarray
        ``ceil((z s / margin)^2)``, at least 1.
    enough : ndarray of bool
        ``n_required <= runs``: the data already suffice.
    more : ndarray
        Runs still to do, ``max(0, n_required - runs)``.
    margin, confidence_level : float
    """

    _table = ("models", "runs", "run_sd", "n_required", "enough", "more")

    models: tuple[str, ...]
    runs: np.ndarray
    run_sd: np.ndarray
    n_required: np.ndarray
    enough: np.ndarray
    more: np.ndarray
    margin: float
    confidence_level: float

    def to_dict(self) -> dict[str, Any]:
        return jsonable({
            "margin": self.margin, "confidence_level": self.confidence_level,
            "models": [
                {
                    "model": mod, "runs": int(self.runs[j]), "run_sd": self.run_sd[j],
                    "n_required": None if np.isnan(self.n_required[j]) else int(self.n_required[j]),
                    "enough": bool(self.enough[j]),
                    "more": None if np.isnan(self.more[j]) else int(self.more[j]),
                }
                for j, mod in enumerate(self.models)
            ],
        })


def _sd_runs(rs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    N, _mean, var = nan_mean_var(rs, ddof=1)
    return N, np.sqrt(var)


@analysis
def choose_n(m: ScoreMatrix, *, margin: float, confidence_level: float = 0.9) -> ChooseN:
    """Runs needed for a margin of ``margin`` at ``confidence_level`` on the mean run score [E].

    Parameters
    ----------
    m : ScoreMatrix, DataFrame or path
        Scores with runs (read as :func:`ranktrust.read` does). Each run slot's score is its mean over items; with a
        condition column the slots are (condition, run) pairs and all are pooled.
    margin : float
        Accepted half-width ``eps`` as a fraction (0.01 = 1 point).
    confidence_level : float, default: ``0.9``
        ``1 - alpha`` of [E] (its ``alpha = 0.1``).

    Returns
    -------
    ChooseN

    Raises
    ------
    DataError
        One run only (no sd), or runs that score different items.

    Notes
    -----
    ``N_required = ceil((z_{1-alpha/2} s / eps)^2)`` with ``s`` the sample sd of
    the ``N0`` run scores [1]_; the data suffice when ``N_required <= N0``. This
    is the run-to-run (seed) noise only: the uncertainty from the finite item
    set is in :func:`repeats`' CI.

    References
    ----------
    .. [1] "Evaluation is All You Need: Strategic Overclaiming of LLM Reasoning
       Capabilities Through Evaluation Design", arXiv:2506.04734 (2025).
    """
    margin, confidence_level = _iv(margin, confidence_level)
    require_runs(m)
    check_runs(m)
    rs = run_scores(m.data)
    N, sd = _sd_runs(rs)
    need = n_required(sd, margin=margin, confidence_level=confidence_level)
    with np.errstate(invalid="ignore"):
        enough = need <= N
        more = np.where(np.isnan(need), np.nan, np.maximum(need - N, 0))
    return ChooseN(tuple(m.models), N, sd, need, enough, more, margin, confidence_level)


@dataclass(frozen=True, eq=False)
class RunUntilEnough(Result):
    """Trace of the iterative rule of [E] driven through a callback.

    Attributes
    ----------
    models : tuple of str
    run_scores : ndarray, shape (n_models, n_runs)
        Every run score collected, in order.
    trace_runs : ndarray of int, shape (n_steps,)
        Runs available at each check (``N0``, then ``N1``, ...).
    trace_sd : ndarray, shape (n_steps, n_models)
    trace_required : ndarray, shape (n_steps, n_models)
    runs : int
        Runs done in the end.
    stopped : str
        ``"rule"`` (``N_required <= N`` for every model) or ``"max_runs"``.
    score : ndarray
        Mean of the run scores per model.
    margin, confidence_level : float
    """

    models: tuple[str, ...]
    run_scores: np.ndarray
    trace_runs: np.ndarray
    trace_sd: np.ndarray
    trace_required: np.ndarray
    runs: int
    stopped: str
    score: np.ndarray
    margin: float
    confidence_level: float

    def to_dict(self) -> dict[str, Any]:
        return jsonable({
            "runs": self.runs, "stopped": self.stopped, "margin": self.margin,
            "confidence_level": self.confidence_level,
            "models": [
                {"model": mod, "score": self.score[j], "run_sd": self.trace_sd[-1, j],
                 "n_required": self.trace_required[-1, j]}
                for j, mod in enumerate(self.models)
            ],
            "trace": [
                {"runs": int(n), "run_sd": self.trace_sd[t], "n_required": self.trace_required[t]}
                for t, n in enumerate(self.trace_runs)
            ],
        })


def _as_run_scores(out: Any, asked: int, step: int) -> tuple[np.ndarray, tuple[str, ...] | None]:
    if isinstance(out, ScoreMatrix):
        check_runs(out)
        return run_scores(out.data), tuple(out.models)
    a = np.asarray(out, dtype=np.float64)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise ArgumentError(
            f"`produce_runs` must return a ScoreMatrix or an array of run scores of shape (runs,) or "
            f"(models, runs); call {step} returned shape {a.shape}"
        )
    return a, None


def run_until_enough(
    produce_runs: Callable[[int], Any],
    *,
    n0: int,
    margin: float,
    confidence_level: float = 0.9,
    max_runs: int = 1000,
) -> RunUntilEnough:
    """Drive a callback that produces runs until the rule of [E] stops.

    Parameters
    ----------
    produce_runs : callable ``(n_new) -> ScoreMatrix or ndarray``
        Runs ``n_new`` more evaluations and returns them: a ScoreMatrix with
        ``n_new`` runs, or the run scores, shape ``(n_new,)`` for one model or
        ``(n_models, n_new)``.
    n0 : int
        First batch of runs (at least 2).
    margin : float
        Accepted half-width as a fraction (0.01 = 1 point).
    confidence_level : float, default: ``0.9``
        ``1 - alpha`` of [E] (its ``alpha = 0.1``).
    max_runs : int, default: ``1000``
        Never ask for more runs than this in all.

    Returns
    -------
    RunUntilEnough

    Notes
    -----
    Step: with ``N`` runs, ``s`` = sd of the run scores and ``N1 = ceil((z s /
    eps)^2)``; stop when ``N1 <= N``, else ask for ``N1 - N`` more (capped at
    ``max_runs``) [1]_. With several models the batch is the largest any model
    needs, so all models keep the same number of runs.

    References
    ----------
    .. [1] "Evaluation is All You Need: Strategic Overclaiming of LLM Reasoning
       Capabilities Through Evaluation Design", arXiv:2506.04734 (2025).
    """
    margin, confidence_level = _iv(margin, confidence_level)
    n0 = _validate.count(n0, "n0", minimum=2)
    max_runs = _validate.count(max_runs, "max_runs", minimum=n0)
    if not callable(produce_runs):
        raise TypeError("`produce_runs` must be a callable taking the number of new runs")
    collected: list[np.ndarray] = []
    models: tuple[str, ...] | None = None
    trace_n, trace_sd, trace_req = [], [], []
    ask, step, stopped = int(n0), 0, "rule"
    while True:
        step += 1
        new, labels = _as_run_scores(produce_runs(ask), ask, step)
        if new.shape[1] != ask:
            raise ArgumentError(f"`produce_runs({ask})` returned {new.shape[1]} runs; it must return exactly {ask}")
        if collected and new.shape[0] != collected[0].shape[0]:
            raise ArgumentError(
                f"`produce_runs` returned {new.shape[0]} models on call {step} but {collected[0].shape[0]} before"
            )
        if labels is not None:
            if models is not None and labels != models:
                raise DataError("`produce_runs` returned different models on different calls")
            models = labels
        collected.append(new)
        rs = np.concatenate(collected, axis=1)
        N, sd = _sd_runs(rs)
        if np.isnan(sd).any():
            raise DataError("a model has fewer than 2 scored runs; cannot compute the sd of run scores")
        need = n_required(sd, margin=margin, confidence_level=confidence_level)
        n_now = rs.shape[1]
        trace_n.append(n_now)
        trace_sd.append(sd)
        trace_req.append(need)
        target = int(np.max(need))
        if target <= n_now:
            break
        if n_now >= max_runs:
            stopped = "max_runs"
            break
        ask = min(target, int(max_runs)) - n_now
    if models is None:
        models = tuple(f"model_{j}" for j in range(rs.shape[0]))  # as ScoreMatrix.from_array
    return RunUntilEnough(
        models=models, run_scores=rs, trace_runs=np.asarray(trace_n), trace_sd=np.asarray(trace_sd),
        trace_required=np.asarray(trace_req), runs=int(rs.shape[1]), stopped=stopped,
        score=np.nanmean(rs, axis=1), margin=margin, confidence_level=confidence_level,
    )
