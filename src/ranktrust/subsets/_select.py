"""Choosing a micro-benchmark: :func:`select_subset`, :func:`estimate`, and the ``random`` and
``stratified`` methods.

What a selection method is (its selector and, optionally, its own estimators) and where it is
looked up is :mod:`.registry`; this module only calls it, with no method-specific case.

References
----------
.. [1] G. Yauney, S. Warraich, S. Swayamdipta, "How Reliable is Language Model
   Micro-Benchmarking?", ICLR 2026.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence, TypedDict

import numpy as np

from .. import _validate
from .._kernel import nan_mean
from .._validate import SeedLike
from ..errors import ArgumentError
from ..results import Result, jsonable
from ._registry import Selection, SelectionContext, get_method, get_selector, methods, register

if TYPE_CHECKING:  # pragma: no cover
    from ..data import ScoreMatrix

__all__ = ["Selection", "Subset", "SubsetEstimate", "register", "methods", "get_selector", "select_subset", "estimate"]


# ----------------------------------------------------------------- methods
@register("random")
def select_random(y: np.ndarray, k: int, rng: np.random.Generator, *, groups: np.ndarray | None = None,
                  context: SelectionContext | None = None) -> Selection:
    """Uniform random sample of ``k`` items without replacement, equal weights."""
    n = y.shape[1]
    idx = np.sort(rng.choice(n, size=k, replace=False))
    return Selection(idx.astype(np.intp), np.full(k, 1.0 / k))


def _allocate(counts: np.ndarray, k: int) -> np.ndarray:
    """Proportional allocation of ``k`` draws to groups, at least one each, capped at the group size.

    Hamilton's largest-remainder method on the ``k - G`` draws left after one per group.
    """
    g = len(counts)
    alloc = np.ones(g, dtype=np.int64)
    left = k - g
    while left > 0:
        room = counts - alloc
        open_ = room > 0
        quota = left * np.where(open_, counts, 0) / counts[open_].sum()
        base = np.minimum(np.floor(quota).astype(np.int64), room)
        alloc += base
        left -= int(base.sum())
        if left <= 0:
            break
        frac = np.where(open_ & (alloc < counts), quota - np.floor(quota), -1.0)
        order = np.argsort(-frac, kind="stable")[: left]
        order = order[frac[order] >= 0]
        alloc[order] += 1
        left -= len(order)
    return alloc


@register("stratified")
def select_stratified(y: np.ndarray, k: int, rng: np.random.Generator, *, groups: np.ndarray | None = None,
                      context: SelectionContext | None = None) -> Selection:
    """Stratified random sample: by item group, then by source-model difficulty within the group.

    Each group gets a share of the ``k`` items proportional to its size (at least one
    each; groups are ignored when ``k`` is smaller than their number). Within a group
    the items are sorted by their mean source-model score and cut into as many
    equal-size strata as the group's share; one item is drawn at random from each
    stratum. The chosen item of a stratum of ``n_s`` items gets weight ``n_s / N``,
    so the weighted mean is unbiased for the full-benchmark mean (Horvitz-Thompson:
    every item of the stratum is drawn with probability ``1 / n_s``).
    """
    n = y.shape[1]
    diff = nan_mean(y, axis=0, empty=0.5)
    if groups is None:
        codes = np.zeros(n, dtype=np.intp)
    else:
        _, codes = np.unique(np.asarray(groups), return_inverse=True)
        if codes.max() + 1 > k:
            codes = np.zeros(n, dtype=np.intp)
    counts = np.bincount(codes)
    alloc = _allocate(counts, k)
    tie = rng.random(n)
    order = np.lexsort((tie, diff, codes))          # by group, then difficulty, random ties
    g_sorted = codes[order]
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.arange(n) - start[g_sorted]
    local = (rank * alloc[g_sorted]) // counts[g_sorted]   # stratum within its group
    offset = np.concatenate([[0], np.cumsum(alloc)[:-1]])
    stratum = np.empty(n, dtype=np.intp)
    stratum[order] = offset[g_sorted] + local
    key = rng.random(n)
    pick_order = np.lexsort((key, stratum))
    first = np.concatenate([[True], np.diff(stratum[pick_order]) != 0])
    chosen = pick_order[first]                        # one item per stratum, in stratum order
    sizes = np.bincount(stratum, minlength=int(alloc.sum()))
    w = sizes[stratum[chosen]] / n
    srt = np.argsort(chosen)
    return Selection(chosen[srt].astype(np.intp), w[srt], extra={"strata": int(alloc.sum())})


# ----------------------------------------------------------------- result
class SubsetItemRow(TypedDict):
    """One chosen item of :meth:`Subset.to_dict` ``"items"``."""

    item: str
    position: int
    weight: float


class _SubsetJSON(TypedDict):
    method: str
    size: int
    n_items: int
    n_source_models: int
    items: list[SubsetItemRow]


class SubsetJSON(_SubsetJSON, total=False):
    """Layout of :meth:`Subset.to_dict` (``gp_lambda`` for ``method="irt"``)."""

    gp_lambda: float


@dataclass(frozen=True, eq=False)
class Subset(Result):
    """A chosen micro-benchmark.

    Attributes
    ----------
    items : ndarray of int, shape (size,)
        Positions of the chosen items in the matrix they were chosen from.
    labels : tuple of str
        Labels of the chosen items.
    weights : ndarray, shape (size,)
        Weight of each item in the estimate of the full-benchmark score (sum 1).
    method : str
        Selection method.
    n_items : int
        Items in the full benchmark the estimate stands for.
    source_models : tuple of str
        Models whose results chose the items.
    method_state : object or None
        What the method's own estimators need (for ``method="irt"``: an
        :class:`~ranktrust.subsets._irt_method.IRTState` with the 2PL fit on the source models and
        the gp-IRT mixing weight ``gp_lambda``); None for methods estimated by the weighted mean.
    """

    items: np.ndarray
    labels: tuple[str, ...]
    weights: np.ndarray
    method: str
    n_items: int
    source_models: tuple[str, ...]
    method_state: Any = None

    @property
    def size(self) -> int:
        """Items in the subset."""
        return int(len(self.items))

    def to_dict(self) -> SubsetJSON:
        out: dict[str, Any] = {
            "method": self.method,
            "size": self.size,
            "n_items": int(self.n_items),
            "n_source_models": len(self.source_models),
            "items": [
                {"item": lab, "position": int(p), "weight": float(w)}
                for lab, p, w in zip(self.labels, self.items.tolist(), self.weights.tolist())
            ],
        }
        summary = getattr(self.method_state, "summary", None)
        if callable(summary):
            out.update(summary())
        return jsonable(out)


def _resolve_models(m: "ScoreMatrix", source: Sequence[str | int] | None, what: str) -> np.ndarray:
    if source is None:
        return np.arange(m.n_models)
    sel = list(source)
    if not sel:
        raise ArgumentError(f"`{what}` is empty; give model names or positions, or None for all models", param=what)
    out = []
    for s in sel:
        if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
            if not 0 <= int(s) < m.n_models:
                raise ArgumentError(f"`{what}` position {s} is out of range for {m.n_models} models", param=what)
            out.append(int(s))
        else:
            out.append(m.index_of(str(s)))
    return np.asarray(out, dtype=np.intp)


def _check_k(k: Any, n: int, name: str = "size") -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"`{name}` must be an integer number of items; got {k!r}")
    if not 1 <= int(k) <= n:
        raise ArgumentError(f"`{name}` must be between 1 and the number of items ({n}); got {k}", param=name)
    return int(k)


def select_subset(
    m: "ScoreMatrix",
    *,
    method: str = "random",
    size: int = 100,
    source: Sequence[str | int] | None = None,
    rng: SeedLike = 0,
) -> Subset:
    """Choose ``size`` items of a benchmark, using the results of source models.

    Parameters
    ----------
    m : ScoreMatrix
        Per-item results; the mean over runs is used.
    method : {"random", "stratified", "anchor", "irt", "diversity"}, default: ``"random"``
        Selection method (any name registered with :func:`register`).
    size : int, default: ``100``
        Number of items to choose (``sizes`` in :func:`ranktrust.mdad`).
    source : sequence of str or int, optional
        Source models (names or positions) whose results guide the choice; default all.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, default: ``0``
        Randomness (passed once through ``numpy.random.default_rng``; ``None``: fresh entropy).

    Returns
    -------
    Subset
        Chosen items with their weights; pass it to :func:`ranktrust.estimate`.

    References
    ----------
    .. [1] G. Yauney, S. Warraich, S. Swayamdipta, "How Reliable is Language Model
       Micro-Benchmarking?", ICLR 2026.
    .. [2] R. Vivek, K. Ethayarajh, D. Yang, D. Kiela, "Anchor Points: Benchmarking
       Models with Much Fewer Examples", EACL 2024.
    .. [3] F. M. Polo et al., "tinyBenchmarks: evaluating LLMs with fewer examples", ICML 2024.

    Examples
    --------
    >>> import numpy as np, ranktrust as rt
    >>> y = (np.random.default_rng(0).random((30, 200)) < 0.6).astype(float)
    >>> m = rt.ScoreMatrix.from_array(y, models=[f"m{i}" for i in range(30)],
    ...                               items=[f"q{j}" for j in range(200)])
    >>> s = rt.select_subset(m, method="anchor", size=10, rng=0)
    >>> s.size, round(float(s.weights.sum()), 6)
    (10, 1.0)
    """
    from ..data import ScoreMatrix

    if not isinstance(m, ScoreMatrix):
        raise TypeError(f"`m` must be a ScoreMatrix; got {type(m).__name__}")
    fn = get_selector(method)
    k = _check_k(size, m.n_items)
    gen = _validate.rng(rng)
    src = _resolve_models(m, source, "source")
    y = np.asarray(m.scores)[src]
    sel = fn(y, k, gen, groups=m.group_codes, context=SelectionContext())
    idx = np.asarray(sel.items, dtype=np.intp)
    return Subset(
        items=idx,
        labels=tuple(m.items[i] for i in idx),
        weights=np.asarray(sel.weights, dtype=np.float64),
        method=method,
        n_items=m.n_items,
        source_models=tuple(m.models[i] for i in src),
        method_state=sel.state,
    )


# ---------------------------------------------------------------- estimate
@dataclass(frozen=True, eq=False)
class SubsetEstimate(Result):
    """Estimated full-benchmark scores of models from their scores on a subset.

    Attributes
    ----------
    models : tuple of str
        Model labels (``"0"``, ``"1"``, ... when plain arrays were given).
    estimate : ndarray, shape (n_models,)
        The estimate of the chosen ``estimator`` (a fraction).
    method : str
        Selection method of the subset.
    estimator : str
        ``"weighted"`` (weighted mean) or, for IRT subsets, ``"irt"``, ``"p-irt"`` or ``"gp-irt"``.
    size : int
        Subset size.
    by_estimator : dict of str to ndarray
        Every available estimator (for IRT subsets: ``irt``, ``p-irt``, ``gp-irt``).
    """

    _table = ("models", "estimate")

    models: tuple[str, ...]
    estimate: np.ndarray
    method: str
    estimator: str
    size: int
    by_estimator: dict[str, np.ndarray]

    def to_dict(self) -> dict[str, Any]:
        rows = []
        for i, name in enumerate(self.models):
            row: dict[str, Any] = {"model": name, "estimate": float(self.estimate[i])}
            for key, arr in self.by_estimator.items():
                row[key] = float(arr[i])
            rows.append(row)
        from ..results import jsonable

        return jsonable({"method": self.method, "estimator": self.estimator, "size": self.size, "estimates": rows})


def estimate(subset: Subset, scores: Any, *, estimator: str | None = None) -> SubsetEstimate:
    """Estimate full-benchmark scores of (target) models from their scores on a subset.

    Parameters
    ----------
    subset : Subset
        From :func:`select_subset`.
    scores : ScoreMatrix or array_like
        A ScoreMatrix holding the subset's items (matched by label; other items are
        ignored), or an array of shape ``(n_models, k)`` or ``(k,)`` in the subset's
        item order. ``NaN`` = not scored (left out, the weights of the rest renormalised).
    estimator : str, optional
        ``"weighted"`` (default for random, stratified, anchor and diversity subsets);
        for IRT subsets one of ``"irt"`` (anchor-weighted mean), ``"p-irt"`` or
        ``"gp-irt"`` (default).

    Returns
    -------
    SubsetEstimate

    Notes
    -----
    The weighted mean ``sum_j w_j y_j`` is unbiased for uniform random and stratified
    subsets. The IRT estimators follow tinyBenchmarks [1]_ (see
    :func:`ranktrust.subsets._irt.irt_estimates`).

    References
    ----------
    .. [1] F. M. Polo et al., "tinyBenchmarks: evaluating LLMs with fewer examples", ICML 2024.
    """
    from ..data import ScoreMatrix
    from ..errors import DataError

    if not isinstance(subset, Subset):
        raise TypeError(f"`subset` must be a Subset from select_subset(); got {type(subset).__name__}")
    if isinstance(scores, ScoreMatrix):
        missing = [lab for lab in subset.labels if lab not in set(scores.items)]
        if missing:
            raise DataError(
                f"item {missing[0]!r} of the subset is not in the target matrix "
                f"({len(missing)} of {subset.size} missing); score the targets on every subset item"
            )
        y = np.asarray(scores.select(items=list(subset.labels)).scores)
        models = scores.models
    else:
        y = np.asarray(scores, dtype=np.float64)
        if y.ndim == 1:
            y = y[None, :]
        if y.ndim != 2 or y.shape[1] != subset.size:
            raise ArgumentError(
                f"`scores` must have shape (n_models, {subset.size}) in the subset's item order; "
                f"got {np.shape(scores)}", param="scores")
        models = tuple(str(i) for i in range(y.shape[0]))
    meth = get_method(subset.method)
    allowed = meth.allowed(subset.method_state)
    if estimator is None:
        estimator = meth.default_for(subset.method_state)
    if estimator not in allowed:
        raise ArgumentError(
            f"`estimator` must be one of {', '.join(repr(a) for a in allowed)} for a {subset.method!r} subset; "
            f"got {estimator!r}", param="estimator"
        )
    est = meth.estimate(y, subset.items, subset.weights, subset.method_state)
    return SubsetEstimate(models=tuple(models), estimate=est[estimator], method=subset.method,
                          estimator=estimator, size=subset.size, by_estimator=est)
