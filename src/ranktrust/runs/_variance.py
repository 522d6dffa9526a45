"""Variance decomposition of a score with several runs (samples) per item.

With ``K`` runs per item the score (mean over ``n`` items of the per-item means)
has variance ``(sigma_b^2 + sigma_w^2 / K) / n``: ``sigma_b^2`` is the variance
across items of the items' true means, ``sigma_w^2`` the mean within-item
variance of one run [M]. More runs shrink only the second term; more items
shrink both.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._analysis import analysis
from .._kernel import nan_mean, nan_mean_var
from ..data import ScoreMatrix
from ..errors import DataError, SmallSampleWarning
from ..results import Note, Result, jsonable

__all__ = ["VarianceComponents", "variance_components", "item_stats", "run_scores", "check_runs"]


def item_stats(data: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (model, item): number of runs, mean over runs and unbiased variance.

    ``data`` has shape ``(models, items, runs)`` with NaN = not scored. The variance
    uses ``ddof=1`` and is NaN where an item has fewer than 2 runs.
    """
    return nan_mean_var(data, axis=2, ddof=1)


def run_scores(data: np.ndarray) -> np.ndarray:
    """``(models, runs)`` score of each run: the mean over the items that run scored
    (NaN for a run slot with no scored item)."""
    return nan_mean(data, axis=1)


def check_runs(m: ScoreMatrix, *, min_overlap: float = 0.5) -> tuple[Note, ...]:
    """Check that every run of a model scores (mostly) the same items.

    Ragged runs (a few items missing in some runs, NaN) are allowed and reported in
    the returned notes: one ``Note("ragged_runs", {"model", "min_items", "max_items"})`` per model whose runs
    score different numbers of items (worded by ``ranktrust.reporting.note_text``). A run whose items are mostly not scored by the model's
    other runs (share below ``min_overlap``) raises :class:`DataError`: its run
    score would compare different questions, not different samples.
    """
    scored = ~np.isnan(m.data)
    per_run = scored.sum(axis=1)  # (models, runs)
    other = (scored.sum(axis=2, keepdims=True) - scored) > 0
    shared = (scored & other).sum(axis=1)
    has_other = other.any(axis=1)  # (models, runs): the other runs score something
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(per_run > 0, shared / np.maximum(per_run, 1), 1.0)
    bad = (per_run > 0) & has_other & (share < min_overlap)
    if bad.any():
        j, r = np.argwhere(bad)[0]
        where = f" in {m.source}" if m.source else ""
        raise DataError(
            f"model {m.models[j]!r}, run {m.runs[r]!r}{where} scores {per_run[j, r]} items, but only "
            f"{shared[j, r]} of them are scored in the model's other runs: runs must score the same "
            "items (a missing item is fine). Check the item ids of that run, or leave it out"
        )
    notes = []
    for j in range(m.n_models):
        counts = per_run[j][per_run[j] > 0]
        if counts.size > 1 and counts.min() != counts.max():
            notes.append(Note("ragged_runs", {"model": m.models[j], "min_items": int(counts.min()),
                                              "max_items": int(counts.max())}))
    return tuple(notes)


def require_runs(m: ScoreMatrix) -> None:
    """DataError when no item of any model has 2 or more runs (nothing to decompose)."""
    k = np.sum(~np.isnan(m.data), axis=2)
    if k.size == 0 or k.max() < 2:
        where = f"{m.source}: " if m.source else ""
        what = (
            f"every item has a single run (run values: {', '.join(m.runs[:5])}"
            + (" ..." if m.n_runs > 5 else "") + "; no 'run' column, or one with a single value)"
        )
        raise DataError(
            f"{where}{what}, so there is nothing to decompose across runs. Give one row per "
            "(model, item, run) with a 'run' column holding the seed or sample index (or name it with "
            "`run`='COLUMN'); for a single run use `rt.report`", param="run"
        )


@dataclass(frozen=True, eq=False)
class VarianceComponents(Result):
    """Between-item and within-item variance per model [M].

    Attributes
    ----------
    models : tuple of str
    n_items : ndarray of int
        Items the model scored (at least one run).
    runs : ndarray of float
        Effective runs per item ``K``: the harmonic mean of the runs per item
        (equal to the run count when every item has every run).
    observed_var : ndarray
        Sample variance (ddof=1) across items of the per-item means, at the observed
        runs; ``observed_var / n_items`` is the squared SE of the score.
    within_item_var : ndarray
        Mean over items of the unbiased per-item variance across runs (items with
        2+ runs): estimates ``E[sigma_i^2]``.
    between_item_var : ndarray
        The variance across items of the items' true means, ``max(0,
        between_item_var_raw)``: a variance cannot be negative. Projections use it.
    between_item_var_raw : ndarray
        ``observed_var - within_item_var * mean(1 / k_i)``: the unbiased estimate,
        which sampling noise can make negative when the true value is near zero
        (then ``between_item_var`` is 0 and ``between_item_var_clipped`` is True).
    se : ndarray
        ``sqrt(observed_var / n_items)``.
    """

    _table = ("models", "n_items", "runs", "observed_var", "within_item_var", "between_item_var", "se")

    models: tuple[str, ...]
    n_items: np.ndarray
    runs: np.ndarray
    observed_var: np.ndarray
    within_item_var: np.ndarray
    between_item_var: np.ndarray
    between_item_var_raw: np.ndarray
    se: np.ndarray

    @property
    def between_item_var_clipped(self) -> np.ndarray:
        """True where the unbiased estimate was negative and is reported as 0."""
        with np.errstate(invalid="ignore"):
            return np.asarray(self.between_item_var_raw < 0)

    @property
    def notes(self) -> tuple[Note, ...]:
        """One ``Note("between_var_clipped", {"model", "estimate"})`` per model whose between-item variance
        estimate was negative (reported as 0); worded by ``ranktrust.reporting.note_text``."""
        return tuple(
            Note("between_var_clipped", {"model": self.models[j], "estimate": float(self.between_item_var_raw[j])})
            for j in np.flatnonzero(self.between_item_var_clipped)
        )

    def se_at(self, runs: Any = None, items: Any = None) -> np.ndarray:
        """Projected SE with ``runs`` runs per item and ``items`` items.

        ``sqrt((between + within / runs) / items)`` with the clipped ``between``
        (never below 0), broadcast against the models (last axis). Defaults: the
        observed ``runs`` and ``n_items``.
        """
        K = self.runs if runs is None else np.asarray(runs, dtype=np.float64)
        n = self.n_items if items is None else np.asarray(items, dtype=np.float64)
        b = self.between_item_var
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.sqrt((b + self.within_item_var / K) / n)

    def tradeoff(self, *, more_runs: int = 3, more_items: int = 500) -> dict[str, np.ndarray]:
        """How much the CI shrinks (fraction) with ``more_runs`` runs or ``more_items`` items.

        Both projections use the fitted components, so they are comparable:
        ``1 - se_at(K + more_runs, n) / se_at(K, n)`` and
        ``1 - se_at(K, n + more_items) / se_at(K, n)`` (the latter is
        ``1 - sqrt(n / (n + more_items))``).
        """
        base = self.se_at()
        with np.errstate(invalid="ignore", divide="ignore"):
            runs = 1 - self.se_at(runs=self.runs + more_runs) / base
            items = 1 - self.se_at(items=self.n_items + more_items) / base
        return {"more_runs": more_runs, "more_items": more_items, "runs_shrink": runs, "items_shrink": items}

    def curve(self, runs: Any = (1, 2, 4, 8, 16, 32, 64), item_factors: Any = (0.5, 1, 2, 4)) -> dict[str, Any]:
        """The runs-vs-items trade-off: projected SE for each K in ``runs`` and each
        ``n = factor * n_items``; ``se[model][f][r]``."""
        K = np.asarray(runs, dtype=np.float64)
        f = np.asarray(item_factors, dtype=np.float64)
        n = np.maximum(np.round(f[:, None] * self.n_items[None, :]), 1)  # (factors, models)
        se = self.se_at(runs=K[None, :, None], items=n[:, None, :])  # (factors, runs, models)
        return {"runs": K, "item_factors": f, "items": n.T, "se": np.moveaxis(se, 2, 0)}

    def to_dict(self) -> dict[str, Any]:
        t = self.tradeoff()
        return jsonable({
            "models": [
                {
                    "model": mod, "n_items": int(self.n_items[j]), "runs": float(self.runs[j]),
                    "observed_var": self.observed_var[j], "between_item_var": self.between_item_var[j],
                    "between_item_var_raw": self.between_item_var_raw[j],
                    "between_item_var_clipped": bool(self.between_item_var_clipped[j]),
                    "within_item_var": self.within_item_var[j], "se": self.se[j],
                    "tradeoff": {
                        "more_runs": t["more_runs"], "runs_shrink": t["runs_shrink"][j],
                        "more_items": t["more_items"], "items_shrink": t["items_shrink"][j],
                    },
                }
                for j, mod in enumerate(self.models)
            ],
            "notes": [n.to_dict() for n in self.notes],
            "tradeoff_curve": self.curve_dict(),
        })

    def curve_dict(self) -> dict[str, Any]:
        """:meth:`curve` keyed by model, as in the JSON's ``"tradeoff_curve"``:
        ``{"runs", "item_factors", "models": {model: {"items", "se"}}}`` (``se[f][r]``)."""
        c = self.curve()
        return {
            "runs": c["runs"], "item_factors": c["item_factors"],
            "models": {mod: {"items": c["items"][j], "se": c["se"][j]} for j, mod in enumerate(self.models)},
        }


@analysis
def variance_components(m: ScoreMatrix) -> VarianceComponents:
    """Split each model's score variance into between-item and within-item parts.

    Parameters
    ----------
    m : ScoreMatrix
        Scores with runs, shape ``(models, items, runs)``; NaN cells (ragged runs)
        are allowed. Items a model never scored are left out for that model.

    Returns
    -------
    VarianceComponents

    Raises
    ------
    DataError
        No item has 2+ runs (nothing to decompose), or a run scores items that the
        model's other runs do not.

    Warns
    -----
    SmallSampleWarning
        A model with fewer than 2 items, or with no item scored twice (NaN).

    Notes
    -----
    Per item ``i`` with ``k_i`` runs: mean ``m_i`` and unbiased variance ``s_i^2``
    (ddof=1). With ``S^2`` the sample variance of the ``m_i`` over the ``n`` items
    and ``h = mean(1/k_i)``::

        within  = mean_i s_i^2                      (items with k_i >= 2)
        between_raw = S^2 - within * h              (unbiased; can be < 0)
        between = max(0, between_raw)               (reported and projected)
        SE      = sqrt(S^2 / n)  =~ sqrt((between + within / K) / n),  K = 1 / h

    ``E[S^2] = Var(mu_i) + E[sigma_i^2] h`` for independent items, so ``between`` is
    unbiased for ``Var(mu_i)`` (the variance across items of the true item means)
    and ``within`` for ``E[sigma_i^2]`` [1]_. With balanced runs these are the
    one-way random-effects ANOVA estimators ``(MSB - MSW) / K`` and ``MSW``. When the
    item means vary less than the run-to-run noise predicts, ``between_raw`` is
    negative; a variance cannot be, so ``between_item_var`` reports 0 (the usual
    truncated ANOVA estimator, biased slightly upward) and ``between_item_var_raw``
    keeps the unbiased value, with a note.
    For 0/1 scores, ``within`` estimates ``E[p_i (1 - p_i)]``; scoring with the
    probability of the right answer instead of a sampled 0/1 removes that term.

    References
    ----------
    .. [1] E. Miller, "Adding Error Bars to Evals: A Statistical Approach to
       Language Model Evaluations", arXiv:2411.00640 (2024), section 3.
    """
    require_runs(m)
    check_runs(m)
    k, mean, var = item_stats(m.data)
    scored = k > 0
    n = scored.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        _n, _mbar, obs = nan_mean_var(mean, axis=1, ddof=1)
        n_two = np.sum(k > 1, axis=1)
        within = nan_mean(var, axis=1)
        h = np.where(n > 0, np.sum(np.where(scored, 1.0 / np.maximum(k, 1), 0.0), axis=1) / np.maximum(n, 1), np.nan)
        between = obs - within * h
        se = np.sqrt(obs / n)
    for j in np.flatnonzero((n < 2) | (n_two == 0)):
        warnings.warn(
            f"model {m.models[j]!r}: " + (
                f"only {n[j]} item(s) scored" if n[j] < 2 else "no item has 2 or more runs"
            ) + "; its variance components are NaN",
            SmallSampleWarning, stacklevel=2,
        )
    return VarianceComponents(
        models=tuple(m.models), n_items=n, runs=1.0 / h, observed_var=obs,
        within_item_var=within, between_item_var=np.where(between < 0, 0.0, between),
        between_item_var_raw=between, se=se,
    )
