"""``watch_replay``: replay a finished ScoreMatrix in random item orders, as if results had arrived one by one.

For each order: how many items and model x item cells the target decision needed, when each model left the
target set, and whether any certified statement contradicts the full-data answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .. import _validate
from .._validate import SeedLike
from ..errors import ArgumentError
from ..results import Result, jsonable
from ._engine import EngineConfig, run_engine
from ._final import FINAL_LOOK
from ._watch import parse_target

if TYPE_CHECKING:  # pragma: no cover
    from ..data import ScoreMatrix

__all__ = ["ReplayResult", "watch_replay"]


def _q(a: np.ndarray) -> dict[str, Any]:
    a = np.asarray(a, dtype=float)
    a = a[np.isfinite(a)]
    if a.size == 0:
        return {"median": None, "p10": None, "p90": None, "max": None}
    p10, med, p90 = np.percentile(a, [10, 50, 90])
    return {"median": float(med), "p10": float(p10), "p90": float(p90), "max": float(a.max())}


@dataclass(frozen=True, eq=False)
class ReplayResult(Result):
    """Decisions of a watched leaderboard over ``n_resamples`` random item orders (replays).

    Attributes
    ----------
    models : tuple of str
    n_items : int
        Items in the matrix (those every model scored).
    items_needed : ndarray (n_resamples,)
        Items until the target was decided (NaN where it never was).
    cells_needed : ndarray (n_resamples,)
        Model x item cells scored until then (with elimination, models out of play are not scored).
    excluded_at : ndarray (n_resamples, n_models)
        Item at which each model left the target set (0 = never).
    full_best : tuple of str
        The full-data answer: the best model, or the top k.
    cells_spent : ndarray (n_resamples,)
        Cells scored by the decision, or by the last item where there was none.
    errors : ndarray of bool (n_resamples,)
        The certified set lost a model of the full-data answer at some time in that replay.
    pair_errors : ndarray of int (n_resamples,)
        Decided pairs whose winner is the full-data loser (target ``ranks``).
    """

    models: tuple[str, ...]
    n_items: int
    n_resamples: int
    target: str
    scope: str
    method: str
    confidence_level: float
    eliminate: bool
    items_needed: np.ndarray
    cells_needed: np.ndarray
    excluded_at: np.ndarray
    full_best: tuple[str, ...]
    errors: np.ndarray
    pair_errors: np.ndarray
    pair_at: np.ndarray
    seed: int | None
    seconds: float
    unit: str = "item"
    cells_spent: np.ndarray | None = None

    @property
    def error_rate(self) -> float:
        return float(self.errors.mean())

    def to_dict(self) -> dict[str, Any]:
        K, N = len(self.models), self.n_items
        dec = np.isfinite(self.items_needed)
        ex = self.excluded_at.astype(float)
        ex[ex == 0] = np.nan
        per_model = []
        for i, m in enumerate(self.models):
            q = _q(ex[:, i])
            per_model.append({"model": m, "excluded_share": float(np.isfinite(ex[:, i]).mean()),
                              "excluded_at": q})
        return {
            "target": self.target, "scope": self.scope, "method": self.method,
            "confidence_level": self.confidence_level, "eliminate": self.eliminate,
            "n_resamples": self.n_resamples, "n_items": N, "n_models": K, "full_cells": K * N,
            "full_answer": list(self.full_best), "decided_share": float(dec.mean()),
            "items_needed": _q(self.items_needed), "cells_needed": _q(self.cells_needed),
            "cells_share": _q(self.cells_needed / (K * N)),
            "cells_spent": _q(self.cells_spent) if self.cells_spent is not None else None,
            "error_rate": self.error_rate, "errors": int(self.errors.sum()),
            "pair_error_rate": float((self.pair_errors > 0).mean()),
            "pair_decisions_at": _q(self.pair_at[self.pair_at > 0]) if self.pair_at.size else _q(np.empty(0)),
            "models": per_model, "seed": self.seed, "seconds": self.seconds, "unit": self.unit,
            "items_needed_all": jsonable(self.items_needed),
        }


def watch_replay(m: "ScoreMatrix", n_resamples: int = 200, *, target: str = "best", confidence_level: float = 0.95,
                 scope: Literal["population", "benchmark"] = "population",
                 method: Literal["betting", "eb"] = "betting", rule: Literal["agrapa", "prpl"] = "agrapa",
                 eliminate: bool = True, best_method: Literal["portfolio", "pairs"] = "portfolio",
                 score_range: tuple[float, float] = (0.0, 1.0), cluster: bool = False,
                 rng: SeedLike = 0, final_look: float = FINAL_LOOK) -> ReplayResult:
    """Replay a ScoreMatrix in ``n_resamples`` random item orders through the sequential leaderboard.

    Parameters
    ----------
    m : ScoreMatrix
        Finished results; items some model did not score are dropped (the intersection). Runs are averaged.
    n_resamples : int, default: ``200``
        Random item orders (replays).
    target, confidence_level, scope, method, rule, eliminate, best_method, score_range, final_look
        As in :class:`ranktrust.sequential.Watch`.
    cluster : bool, default: ``False``
        Sample whole item groups (``m.groups``: subjects, passages, repositories) as the unit: each group's score is
        the mean over its items, and the sequences run over groups in random order. The quantity is then the mean
        over groups (each group weighted equally), and correlated items within a group no longer pretend to be
        independent evidence.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, default: ``0``
        Draws the item orders (``None``: fresh, unrepeatable entropy).

    Returns
    -------
    ReplayResult

    Examples
    --------
    >>> import ranktrust as rt
    >>> from ranktrust import datasets
    >>> m = rt.read(datasets.path("mmlupro"), align="intersect")      # doctest: +SKIP
    >>> r = rt.watch_replay(m, 200, rng=0)                               # doctest: +SKIP
    >>> r.to_dict()["items_needed"]["median"]                            # doctest: +SKIP
    """
    import time

    n_replays = _validate.count(n_resamples, "n_resamples")
    tgt, k = parse_target(target)
    confidence_level = _validate.confidence_level(confidence_level)
    if scope not in ("population", "benchmark"):
        raise ArgumentError(f"`scope` must be 'population' or 'benchmark', got {scope!r}", param="scope")
    gen = _validate.rng(rng)
    S = m.scores
    keep = ~np.isnan(S).any(axis=0)
    S = S[:, keep]
    lo, hi = score_range
    if S.size and (S.min() < lo - 1e-9 or S.max() > hi + 1e-9):
        from ..errors import DataError

        raise DataError(f"{m.source or 'the input'}: scores lie in [{S.min():g}, {S.max():g}], outside the score "
                        f"range [{lo:g}, {hi:g}]; pass score_range=(low, high)")
    S = (S - lo) / (hi - lo)
    if _validate.cluster(cluster, m.groups):
        codes = np.asarray(m.group_codes)[keep]
        uniq, inv = np.unique(codes, return_inverse=True)
        sums = np.zeros((S.shape[0], uniq.size))
        np.add.at(sums.T, inv, S.T)
        S = sums / np.bincount(inv)[None, :]
    K, N = S.shape
    if K < 2 or N < 1:
        from ..errors import DataError

        raise DataError(f"{m.source or 'the input'}: replay needs at least two models and one item every model "
                        f"scored, got {K} models and {N} shared items")
    cfg = EngineConfig(alpha=1 - confidence_level, population_size=N if scope == "benchmark" else None,
                       kind=method, rule=rule, target=tgt, k=k, best_method=best_method, eliminate=eliminate,
                       stop_when_done=tgt != "ranks", pairs=tgt == "ranks", horizon=N,
                       final_look=_validate.probability(final_look, "final_look", high_open=True,
                                                        hint=" (a share of alpha)"))
    means = S.mean(axis=1)
    order = np.argsort(-means, kind="stable")
    truth = order[:1] if tgt == "best" else (order[:k] if tgt == "top" else order[:0])
    sign = np.sign(means[:, None] - means[None, :])
    items = np.full(n_replays, np.nan)
    cells = np.full(n_replays, np.nan)
    excl = np.zeros((n_replays, K), dtype=np.int64)
    errs = np.zeros(n_replays, dtype=bool)
    spent = np.zeros(n_replays)
    perr = np.zeros(n_replays, dtype=np.int64)
    pair_at: list[np.ndarray] = []
    t0 = time.perf_counter()
    for r in range(n_replays):
        perm = gen.permutation(N)
        e = run_engine(S[:, perm], cfg)
        if e.done_at:
            items[r], cells[r] = e.done_at, e.cells_at_done
        excl[r] = e.excluded_at
        spent[r] = e.cells
        errs[r] = bool((e.excluded_at[truth] > 0).any())
        if tgt == "ranks":
            wrong = ((e.up_at > 0) & (sign[e.pair_i, e.pair_j] < 0)) | ((e.dn_at > 0) & (sign[e.pair_i, e.pair_j] > 0))
            perr[r] = int(wrong.sum())
            errs[r] = perr[r] > 0
            at = np.where(e.up_at > 0, e.up_at, e.dn_at)
            pair_at.append(at)
    secs = time.perf_counter() - t0
    label = "best" if tgt == "best" else (f"top{k}" if tgt == "top" else "ranks")
    return ReplayResult(
        models=m.models, n_items=N, n_resamples=int(n_replays), target=label, scope=scope, method=method,
        confidence_level=confidence_level, eliminate=eliminate, items_needed=items, cells_needed=cells,
        excluded_at=excl, full_best=tuple(m.models[i] for i in truth), errors=errs, pair_errors=perr,
        pair_at=np.concatenate(pair_at) if pair_at else np.empty(0, dtype=np.int64),
        seed=rng if isinstance(rng, int) else None, seconds=secs, unit="cluster" if cluster else "item",
        cells_spent=spent,
    )
