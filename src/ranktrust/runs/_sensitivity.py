"""Condition sensitivity: how much option order, prompt variant, seed ... move each model.

Per model and condition: the score (mean over items of the per-item mean over the
condition's runs) with a CLT interval over items; the spread across conditions; a
paired test (on items) of whether the conditions differ beyond sampling noise; the
inflation from reporting the best condition instead of the mean; per-condition
rankings and the pairs of models whose order flips with the condition.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

import numpy as np
from scipy import special, stats

from .._analysis import analysis
from .._kernel import nan_mean, nan_mean_var
from .. import _validate
from ..data import ScoreMatrix
from ..errors import ArgumentError, DataError, SmallSampleWarning
from ..results import Note, NoteJSON, Result, jsonable
from ._passk import item_mean_ci
from ._variance import check_runs, run_scores

__all__ = ["Sensitivity", "sensitivity", "hotelling_conditions", "expected_best_of"]


def hotelling_conditions(y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Paired test that ``C`` conditions have the same mean, on complete items.

    Parameters
    ----------
    y : ndarray, shape (..., n_items, C)
        Per-item scores under each condition (no NaN); leading axes are batches
        (models, or simulation replications).

    Returns
    -------
    F, df1, df2, pvalue : ndarray, shape (...)
        Hotelling's T^2 for the ``C - 1`` differences against the first
        condition, as ``F = (n - q) / (q (n - 1)) T^2 ~ F(q, n - q)`` with ``q``
        the rank of the covariance of the differences.

    Notes
    -----
    Items are the sampling unit and are paired across conditions; no sphericity
    is assumed (unlike the repeated-measures ANOVA F). With two conditions this is
    the paired t test (``F = t^2``). Contrasts with zero variance are dropped
    (rank ``q < C - 1``); a constant non-zero difference gives ``p = 0``, none at
    all ``p = 1``. The F reference is exact for normal data and holds for 0/1 or
    averaged-run scores by the CLT; its type-I error is checked by simulation in
    the tests.

    References
    ----------
    .. [1] H. Hotelling, "The generalization of Student's ratio", Ann. Math.
       Statist. 2 (1931) 360-378.
    """
    y = np.asarray(y, dtype=np.float64)
    n, C = y.shape[-2], y.shape[-1]
    d = y[..., 1:] - y[..., :1]  # (..., n, q0)
    dbar = d.mean(axis=-2)
    dev = d - dbar[..., None, :]
    S = np.einsum("...ni,...nj->...ij", dev, dev) / max(n - 1, 1)
    scale = np.maximum(np.abs(S).max(axis=(-2, -1)), 1e-300)
    tol = 1e-10 * scale
    w, V = np.linalg.eigh(S)
    keep = w > tol[..., None]
    q = keep.sum(axis=-1)
    proj = np.einsum("...ji,...j->...i", V, dbar)  # coordinates in the eigenbasis
    with np.errstate(divide="ignore", invalid="ignore"):
        T2 = n * np.sum(np.where(keep, proj**2 / np.where(keep, w, 1.0), 0.0), axis=-1)
        # a mean difference along a zero-variance direction is a sure difference
        off = np.sqrt(np.sum(np.where(keep, 0.0, proj**2), axis=-1))
        sure = off > 1e-12 * np.maximum(np.abs(dbar).max(axis=-1), 1e-300) + 1e-15
        df1 = q.astype(np.float64)
        df2 = (n - q).astype(np.float64)
        F = np.where(q > 0, (n - q) / np.maximum(q * (n - 1), 1) * T2, np.nan)
        p = np.where((q > 0) & (df2 > 0), stats.f.sf(F, np.maximum(df1, 1), np.maximum(df2, 1)), np.nan)
    p = np.where(sure, 0.0, np.where(q == 0, 1.0, p))
    if C < 2 or n < 2:
        p = np.full(p.shape, np.nan)
    return F, df1, df2, p


def expected_best_of(values: np.ndarray, k: int) -> np.ndarray:
    """Expected maximum of ``k`` values drawn without replacement from the last axis.

    Exact over all subsets: with ascending order statistics ``x_(1..C)``,
    ``E[max] = sum_j C(j-1, k-1) / C(C, k) x_(j)``. ``k = C`` gives the maximum,
    ``k = 1`` the mean. NaN entries are not allowed.
    """
    x = np.sort(np.asarray(values, dtype=np.float64), axis=-1)
    C = x.shape[-1]
    if not (1 <= k <= C):
        raise ArgumentError(f"`k` must lie in [1, {C}], got {k}")
    j = np.arange(1, C + 1)
    w = np.exp(special.gammaln(j) - special.gammaln(k) - special.gammaln(j - k + 1)
               - (special.gammaln(C + 1) - special.gammaln(k + 1) - special.gammaln(C - k + 1)))
    w = np.where(j >= k, w, 0.0)
    return x @ w


class SensitivityRow(TypedDict):
    """One model of :meth:`Sensitivity.to_dict` ``"models"`` (``conditions`` keyed by label)."""

    model: str
    conditions: dict[str, dict[str, float | int]]
    stable: float
    spread: float
    sd: float
    F: float
    p_value: float
    best_inflation: float
    seed_inflation: float


class SensitivityJSON(TypedDict):
    """Layout of :meth:`Sensitivity.to_dict`."""

    by: str
    confidence_level: float
    conditions: list[str]
    shared_conditions: list[str]
    models: list[SensitivityRow]
    rankings: dict[str, list[str]]
    top_by_condition: dict[str, str]
    ranking_flips: bool
    top_changes: bool
    flips: list[dict[str, Any]]
    gaps: list[dict[str, Any]]
    best_of_k_inflation: dict[str, Any]
    notes: list[NoteJSON]


@dataclass(frozen=True, eq=False)
class Sensitivity(Result):
    """How much each condition moves each model, against the sampling noise.

    Attributes
    ----------
    models, conditions : tuple of str
    by : str
    score, ci_low, ci_high : ndarray, shape (n_models, n_conditions)
        Per model and condition (NaN where the model lacks the condition).
    n_items : ndarray, shape (n_models, n_conditions)
    spread : ndarray
        ``max - min`` of the model's condition scores.
    sd : ndarray
        Sample sd of the model's condition scores.
    stable : ndarray
        The stable score: mean over the shared conditions (each condition's score
        is itself the mean over its runs). Never the best condition.
    F, p_value : ndarray
        Paired test (Hotelling T^2 over items) that the model's conditions differ.
    best_inflation : ndarray
        ``max - mean`` of the condition scores: what reporting the best condition
        instead of the mean adds.
    best_of_k : ndarray, shape (n_models, n_conditions)
        Expected best-of-``k`` minus the mean, ``k = 1..C`` (exact over subsets).
    seed_inflation : ndarray
        Within each condition, best run minus mean run, averaged over conditions
        (NaN with one run per condition).
    seeds_per_condition : int
    shared : ndarray of bool, shape (n_conditions,)
        Conditions every model has; rankings, flips and gaps use only these.
    rank_by_condition : ndarray of int, shape (n_models, n_conditions)
        1 = best; NaN conditions (not shared) are -1.
    flips : ndarray of bool, shape (n_models, n_models)
        ``flips[a, b]``: ``a`` is ahead of ``b`` under some shared condition and
        behind under another.
    notes : tuple of Note
        Records (a model with no rows for some conditions: ``conditions_missing``), worded by
        ``ranktrust.reporting.note_text``.
    confidence_level : float
    """

    models: tuple[str, ...]
    conditions: tuple[str, ...]
    by: str
    score: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n_items: np.ndarray
    spread: np.ndarray
    sd: np.ndarray
    stable: np.ndarray
    F: np.ndarray
    p_value: np.ndarray
    best_inflation: np.ndarray
    best_of_k: np.ndarray
    seed_inflation: np.ndarray
    seeds_per_condition: int
    shared: np.ndarray
    rank_by_condition: np.ndarray
    flips: np.ndarray
    notes: tuple[Note, ...] = ()
    confidence_level: float = 0.95

    @property
    def order(self) -> np.ndarray:
        """Models by stable score, best first."""
        s = np.where(np.isnan(self.stable), -np.inf, self.stable)
        return np.argsort(-s, kind="stable")

    def flip_list(self) -> list[dict[str, Any]]:
        """Pairs whose order changes with the condition (``a`` ahead on the stable score)."""
        out = []
        cond = np.asarray(self.conditions, dtype=object)
        sh = self.shared
        rank_pos = {int(j): r for r, j in enumerate(self.order)}
        ia, ib = np.nonzero(np.triu(self.flips, 1))
        for a, b in zip(ia.tolist(), ib.tolist()):
            if rank_pos[b] < rank_pos[a]:
                a, b = b, a
            diff = self.score[a, sh] - self.score[b, sh]
            out.append({
                "a": self.models[a], "b": self.models[b],
                "a_ahead": cond[sh][diff > 0].tolist(), "b_ahead": cond[sh][diff < 0].tolist(),
                "stable_gap": self.stable[a] - self.stable[b],
                "largest_reversal": float(-diff.min()),
            })
        out.sort(key=lambda f: (rank_pos[self.models.index(f["a"])], rank_pos[self.models.index(f["b"])]))
        return out

    def gap_list(self) -> list[dict[str, Any]]:
        """Adjacent pairs on the stable score; ``within_spread`` when the gap is
        smaller than either model's condition spread."""
        o = self.order
        out = []
        for a, b in zip(o[:-1], o[1:]):
            if np.isnan(self.stable[a]) or np.isnan(self.stable[b]):
                continue
            gap = self.stable[a] - self.stable[b]
            out.append({
                "a": self.models[a], "b": self.models[b], "gap": gap,
                "spread_a": self.spread[a], "spread_b": self.spread[b],
                "within_spread": bool(gap < max(self.spread[a], self.spread[b])),
            })
        return out

    def rankings(self) -> dict[str, list[str]]:
        out = {}
        for c in np.flatnonzero(self.shared):
            order = np.argsort(self.rank_by_condition[:, c], kind="stable")
            out[self.conditions[c]] = [self.models[j] for j in order]
        return out

    def to_dict(self) -> SensitivityJSON:
        cond = self.conditions
        models = []
        for j, mod in enumerate(self.models):
            models.append({
                "model": mod,
                "conditions": {
                    c: {"score": self.score[j, q], "ci_low": self.ci_low[j, q], "ci_high": self.ci_high[j, q],
                        "n_items": int(self.n_items[j, q])}
                    for q, c in enumerate(cond) if not np.isnan(self.score[j, q])
                },
                "stable": self.stable[j], "spread": self.spread[j], "sd": self.sd[j],
                "F": self.F[j], "p_value": self.p_value[j],
                "best_inflation": self.best_inflation[j], "seed_inflation": self.seed_inflation[j],
            })
        rk = self.rankings()
        tops = {c: r[0] for c, r in rk.items()}
        return jsonable({
            "by": self.by,
            "confidence_level": self.confidence_level,
            "conditions": list(cond),
            "shared_conditions": [c for c, s in zip(cond, self.shared) if s],
            "models": models,
            "rankings": rk,
            "top_by_condition": tops,
            "ranking_flips": bool(self.flips.any()),
            "top_changes": len(set(tops.values())) > 1,
            "flips": self.flip_list(),
            "gaps": self.gap_list(),
            "best_of_k_inflation": {
                "conditions": {
                    "k": len(cond),
                    "models": {m: self.best_inflation[j] for j, m in enumerate(self.models)},
                    "mean": float(np.nanmean(self.best_inflation)) if np.isfinite(self.best_inflation).any() else None,
                    "by_k": {m: self.best_of_k[j] for j, m in enumerate(self.models)},
                },
                "seeds": {
                    "k": self.seeds_per_condition,
                    "models": {m: self.seed_inflation[j] for j, m in enumerate(self.models)},
                    "mean": float(np.nanmean(self.seed_inflation)) if np.isfinite(self.seed_inflation).any() else None,
                },
            },
            "notes": list(self.notes),
        })


def _condition_labels(m: ScoreMatrix, by: str) -> tuple[np.ndarray, tuple[str, ...]]:
    if by == "condition":
        if m.conditions is None:
            raise DataError(
                f"{m.source + ': ' if m.source else ''}no condition column; add a 'condition' column "
                "(option order, prompt variant ...) or name it with `condition`='COLUMN', or use `by`='run' "
                "to compare the runs (seeds) themselves", param="condition"
            )
        labels = np.asarray(m.conditions, dtype=object)
    elif by == "run":
        labels = np.asarray(m.runs, dtype=object)
    else:
        raise ArgumentError(f"`by` must be 'condition' or 'run', got {by!r}")
    empty = [str(v) for v in labels if str(v).strip().lower() in ("", "nan", "none", "<na>")]
    if empty:
        slot = next(k for k, v in enumerate(labels) if str(v) in empty)
        has = np.flatnonzero((~np.isnan(m.data[:, :, slot])).any(axis=1))
        who = ", ".join(repr(m.models[j]) for j in has[:3])
        raise DataError(
            f"rows of model(s) {who} have an empty condition; conditions present for some rows only. "
            "Give every row a condition, or leave those rows (models) out"
        )
    uniq = tuple(dict.fromkeys(str(v) for v in labels))
    return labels, uniq


@analysis
def sensitivity(
    m: ScoreMatrix,
    *,
    by: Literal["condition", "run"] = "condition",
    confidence_level: float = 0.95,
) -> Sensitivity:
    """How much each condition moves each model, and whether that beats the noise.

    Parameters
    ----------
    m : ScoreMatrix
        Scores with a condition per run slot (``m.conditions``), several seeds per
        condition allowed. ``by="run"`` treats every run slot as its own condition
        (seed sensitivity).
    by : {"condition", "run"}, default: ``"condition"``
    confidence_level : float, default: ``0.95``

    Returns
    -------
    Sensitivity

    Raises
    ------
    DataError
        No condition column, a single condition, empty condition labels, or runs
        that score different items.

    Notes
    -----
    Per model, item and condition the item's mean over the condition's runs;
    per condition the mean over items with a CLT interval (items are the sampling
    unit). The test of "no condition effect" is Hotelling's T^2 on the paired
    per-item differences between conditions (:func:`hotelling_conditions`), over
    the items scored under all of the model's conditions. Conditions that only
    some models have are kept for those models' own rows and left out of the
    rankings, flips and stable scores (reported in ``notes``). [1]_ found option
    order, seeds and dataset versions move scores by several points, more than
    many claimed gains; report the stable score with its spread, never the best.

    References
    ----------
    .. [1] "Evaluation is All You Need: Strategic Overclaiming of LLM Reasoning
       Capabilities Through Evaluation Design", arXiv:2506.04734 (2025).
    .. [2] E. Miller, "Adding Error Bars to Evals", arXiv:2411.00640 (2024).
    """
    if not isinstance(m, ScoreMatrix):
        raise TypeError(f"`m` must be a ScoreMatrix (rt.read(...)), got {type(m).__name__}")
    confidence_level = _validate.confidence_level(confidence_level)
    labels, conds = _condition_labels(m, by)
    if len(conds) < 2:
        raise DataError(
            f"only one {by} ({conds[0]!r}); sensitivity compares two or more. "
            + ("Use `by`='run' to compare seeds" if by == "condition" else "Add runs")
        )
    check_runs(m)
    M, N, C = m.n_models, m.n_items, len(conds)
    d = m.data
    Y = np.full((M, N, C), np.nan)
    seeds = []
    for q, c in enumerate(conds):  # one pass per condition (a handful), vectorised over models x items
        sl = labels == c
        seeds.append(int(sl.sum()))
        block = d[:, :, sl]
        Y[:, :, q] = nan_mean(block, axis=2)
    score, _se, lo, hi, n_items = item_mean_ci(np.moveaxis(Y, 2, 1), confidence_level, names=m.models,
                                                what=f"score in a {by}")
    if m.is_binary:
        lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
    have = n_items > 0
    notes: list[Note] = []
    shared = have.all(axis=0)
    for j in range(M):
        miss = [conds[q] for q in np.flatnonzero(~have[j])]
        if miss:   # worded in reporting/
            notes.append(Note("conditions_missing", {"model": m.models[j], "by": by, "missing": miss[:6],
                                                     "n_missing": len(miss)}))
    if not shared.any():
        raise DataError(
            f"no {by} is shared by all models, so no ranking can be compared across {by}s; "
            "select the models that share conditions"
        )
    with np.errstate(invalid="ignore"):
        spread = np.nanmax(np.where(have, score, np.nan), axis=1) - np.nanmin(np.where(have, score, np.nan), axis=1)
        _cnt, mean_c, var_c = nan_mean_var(np.where(have, score, np.nan), axis=1, ddof=1)
        sd = np.sqrt(var_c)
        stable = np.mean(score[:, shared], axis=1)
        best_inflation = np.nanmax(np.where(have, score, np.nan), axis=1) - mean_c

    # paired test per model over items complete in the model's own conditions
    F = np.full(M, np.nan)
    p = np.full(M, np.nan)
    best_k = np.full((M, C), np.nan)
    for j in range(M):  # one small test per model
        cols = np.flatnonzero(have[j])
        if cols.size < 2:
            continue
        yj = Y[j][:, cols]
        full = ~np.isnan(yj).any(axis=1)
        if full.sum() < cols.size + 1:
            warnings.warn(
                f"model {m.models[j]!r}: only {int(full.sum())} items are scored under all its {by}s; "
                "the test is NaN", SmallSampleWarning, stacklevel=2,
            )
        else:
            f_, _d1, _d2, p_ = hotelling_conditions(yj[full])
            F[j], p[j] = f_, p_
        sc = score[j, cols]
        for k in range(2, cols.size + 1):
            best_k[j, k - 1] = expected_best_of(sc, k) - sc.mean()
        best_k[j, 0] = 0.0  # best of one = the mean

    # seed inflation: within each condition, best run minus mean run
    rs = run_scores(d)
    seed_inf = np.full(M, np.nan)
    spc = min(seeds)
    if max(seeds) > 1 and by == "condition":
        per = np.full((M, C), np.nan)
        for q, c in enumerate(conds):
            block = rs[:, labels == c]
            ok = np.sum(~np.isnan(block), axis=1) > 1
            with np.errstate(invalid="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                per[:, q] = np.where(ok, np.nanmax(block, axis=1) - np.nanmean(block, axis=1), np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            seed_inf = np.nanmean(per, axis=1)

    # rankings per shared condition and flips
    rank = np.full((M, C), -1, dtype=np.int64)
    s_sh = score[:, shared]
    order = np.argsort(-s_sh, axis=0, kind="stable")
    rk = np.empty_like(order)
    np.put_along_axis(rk, order, np.arange(M)[:, None] + 1, axis=0)
    rank[:, shared] = rk
    diff = s_sh[:, None, :] - s_sh[None, :, :]
    flips = (diff > 0).any(axis=2) & (diff < 0).any(axis=2)
    return Sensitivity(
        models=tuple(m.models), conditions=conds, by=by, score=score, ci_low=lo, ci_high=hi,
        n_items=n_items, spread=spread, sd=sd, stable=stable, F=F, p_value=p,
        best_inflation=best_inflation, best_of_k=best_k, seed_inflation=seed_inf,
        seeds_per_condition=spc, shared=shared, rank_by_condition=rank, flips=flips,
        notes=tuple(notes), confidence_level=confidence_level,
    )
