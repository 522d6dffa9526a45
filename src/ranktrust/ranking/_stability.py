"""Does #1 stay #1? Rank stability of a leaderboard as a function of benchmark size."""

from __future__ import annotations

from dataclasses import dataclass
import warnings
from typing import Sequence, TypedDict

import numpy as np

from .._analysis import analysis
from .. import _random, _validate
from .._validate import Progress, SeedLike
from ..errors import ArgumentError, SmallSampleWarning
from ..results import Result, jsonable
from ..resample import matrix_input, prepare, product_tasks, rank_order, run_products

__all__ = ["Stability", "stability", "FAMILIAR_SIZES"]

#: benchmark sizes people know, marked on the stability curve
FAMILIAR_SIZES = {"AIME": 30, "HumanEval": 164, "SWE-bench Verified": 500}


def _mc_se(p: np.ndarray, draws: int) -> np.ndarray:
    p = np.asarray(p, dtype=float)
    return np.sqrt(p * (1 - p) / draws)


class _StabilitySizeRow(TypedDict):
    n: int
    label: str
    beyond_data: bool
    p_top_stays_top: float
    p_top_stays_top_se: float
    p_topk_order: dict[str, float]
    p_topk_order_se: dict[str, float]
    p_first: dict[str, float]
    p_first_se: dict[str, float]


class StabilitySizeRow(_StabilitySizeRow, total=False):
    """One benchmark size of :meth:`Stability.to_dict` ``"by_size"``."""

    rank_distribution: dict[str, list[float]]
    n_groups: int


class _StabilityJSON(TypedDict):
    n_resamples: int
    n_items: int
    top_model: str
    top_k: list[int]
    models: list[str]
    scores: dict[str, float]
    clustered: bool
    sizes: list[int]
    by_size: list[StabilitySizeRow]
    familiar_sizes: dict[str, int]
    dropped: dict[str, int]


class StabilityJSON(_StabilityJSON, total=False):
    """Layout of :meth:`Stability.to_dict` (a report adds ``rank_distribution_omitted``)."""

    rank_distribution_omitted: bool


@dataclass(frozen=True, eq=False)
class Stability(Result):
    """Rank stability over benchmark sizes (see :func:`stability`).

    Attributes
    ----------
    models : tuple of str
    scores : ndarray (M,)
        Full-data mean scores.
    n_items : int
        Items in the (complete) benchmark, N.
    sizes : ndarray of int (S,)
        Items per draw; ``size_labels`` keeps ``"full"`` where it was asked for.
    beyond_data : ndarray of bool (S,)
        True where ``n`` exceeds the number of items (draws repeat items).
    n_resamples : int
        Bootstrap draws per size.
    top_model : str
        The full-data #1 (exact ties: the first listed).
    full_order : ndarray of int (M,)
        Model indices from the full-data best to worst.
    top_k : tuple of int
    p_top_stays_top : ndarray (S,)
        P(the full-data #1 is #1 in a draw of n items).
    p_topk_order : ndarray (S, K)
        P(the full-data top k keep their exact order as ranks 1..k); NaN when k > M.
    p_first : ndarray (S, M)
        P(each model is #1).
    rank_distribution : ndarray (S, M, M) or None
        ``[s, j, r - 1]`` = P(model j has rank r at size s); None when not asked for
        (``rank_distribution=False``).
    clustered : bool
        True when groups of items were resampled (``n_groups`` per draw).
    n_groups : ndarray of int (S,) or None
    dropped : dict
        Items dropped per model to make the matrix complete.
    """

    _table = ("size_labels", "sizes", "beyond_data", "p_top_stays_top")

    models: tuple[str, ...]
    scores: np.ndarray
    n_items: int
    sizes: np.ndarray
    size_labels: tuple[str, ...]
    beyond_data: np.ndarray
    n_resamples: int
    top_model: str
    full_order: np.ndarray
    top_k: tuple[int, ...]
    p_top_stays_top: np.ndarray
    p_topk_order: np.ndarray
    p_first: np.ndarray
    rank_distribution: np.ndarray | None
    clustered: bool
    n_groups: np.ndarray | None
    dropped: dict

    @property
    def p_top_stays_top_se(self) -> np.ndarray:
        """Monte Carlo standard error of :attr:`p_top_stays_top`."""
        return _mc_se(self.p_top_stays_top, self.n_resamples)

    @property
    def p_topk_order_se(self) -> np.ndarray:
        return _mc_se(self.p_topk_order, self.n_resamples)

    @property
    def p_first_se(self) -> np.ndarray:
        """Monte Carlo standard error of :attr:`p_first` (sizes x models)."""
        return _mc_se(self.p_first, self.n_resamples)

    def to_dict(self, *, rank_distribution: bool = True) -> StabilityJSON:
        """JSON-ready dict; ``rank_distribution=False`` leaves out the M x M rank distributions."""
        rows = []
        for s, n in enumerate(self.sizes):
            row = {
                "n": int(n),
                "label": self.size_labels[s],
                "beyond_data": bool(self.beyond_data[s]),
                "p_top_stays_top": self.p_top_stays_top[s],
                "p_top_stays_top_se": self.p_top_stays_top_se[s],
                "p_topk_order": {str(k): self.p_topk_order[s, i] for i, k in enumerate(self.top_k)},
                "p_topk_order_se": {str(k): self.p_topk_order_se[s, i] for i, k in enumerate(self.top_k)},
                "p_first": dict(zip(self.models, self.p_first[s])),
                "p_first_se": dict(zip(self.models, self.p_first_se[s])),
            }
            if rank_distribution and self.rank_distribution is not None:
                row["rank_distribution"] = dict(zip(self.models, self.rank_distribution[s]))
            if self.n_groups is not None:
                row["n_groups"] = int(self.n_groups[s])
            rows.append(row)
        return jsonable({
            "n_resamples": self.n_resamples,
            "n_items": self.n_items,
            "top_model": self.top_model,
            "top_k": list(self.top_k),
            "models": list(self.models),
            "scores": dict(zip(self.models, self.scores)),
            "clustered": self.clustered,
            "sizes": self.sizes,
            "by_size": rows,
            "familiar_sizes": FAMILIAR_SIZES,
            "dropped": self.dropped,
        })


def _stability_iv(sizes, n_resamples, top_k, n_items):
    n_resamples = _validate.count(n_resamples, "n_resamples")
    if isinstance(sizes, (str, int, np.integer)):
        sizes = [sizes]
    ns, labels = [], []
    for s in sizes:
        if isinstance(s, str) and s.strip().lower() == "full":
            ns.append(n_items)
            labels.append("full")
        elif isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 1:
            ns.append(int(s))
            labels.append(str(int(s)))
        else:
            raise ArgumentError(f"`sizes` must hold integers >= 1 or 'full'; got {s!r}")
    if not ns:
        raise ArgumentError("`sizes` must not be empty")
    ks = tuple(int(k) for k in ([top_k] if isinstance(top_k, (int, np.integer)) else top_k))
    if any(k < 1 for k in ks):
        raise ArgumentError(f"`top_k` must hold integers >= 1; got {top_k!r}")
    return np.asarray(ns, dtype=np.int64), tuple(labels), ks, n_resamples


@analysis
def stability(
    m,
    *,
    sizes: Sequence[int | str] = (30, 100, 200, 500, 1000, "full"),
    n_resamples: int = 2000,
    top_k: Sequence[int] = (2, 3),
    rng: SeedLike = 0,
    batch: int | None = None,
    cluster: bool = False,
    progress: Progress = None,
    rank_distribution: bool = True,
    client=None,
) -> Stability:
    """How often the full-data ranking survives a redraw of the benchmark, by size.

    Treats the N items as the population: for each size ``n``, draws ``n`` items with
    replacement ``n_resamples`` times (shared by all models), scores every model on each
    draw and ranks them (exact ties broken at random).

    Parameters
    ----------
    m : ScoreMatrix or ndarray (M, N)
        Per-item scores; with missing scores the shared items are used (``dropped``).
    sizes : sequence of int or "full", default: ``(30, 100, 200, 500, 1000, "full")``
        Items per draw; ``"full"`` = N. Sizes above N are allowed (flagged in
        ``beyond_data``).
    n_resamples : int, default: ``2000``
        Draws per size.
    top_k : sequence of int, default: ``(2, 3)``
        k for "the top k keep their exact order".
    rng : None, int or numpy.random.Generator, default: 0
    batch : int, optional
        Kept for compatibility: the engine now works in products of at most 512 draws
        (which bound the memory), whatever ``batch`` is; it never changed the result.
    cluster : bool, default: ``False``
        Resample item groups (``m.groups``); a draw of size n takes
        ``max(1, round(n * G / N))`` of the G groups.
    progress : callable(done, total), optional
        Called after each batch (the CLI's progress bar).
    rank_distribution : bool, default: ``True``
        Keep the ``(S, M, M)`` rank distributions; ``False`` counts only who is #1 and the
        top-k orders (the same figures, without an M x M table per size: large leaderboards).
    client : dask.distributed.Client, optional
        Run the draws on this client's workers (each product of up to 512 draws is one
        task that returns only its counts); the figures are identical to the in-process
        run with the same ``rng`` (see :mod:`ranktrust.resample._distributed`).

    Returns
    -------
    Stability
        With fewer than 2 items (shared by all models) every probability is NaN: a
        redraw of one item is that item again, so "stays #1 100%" would say nothing.
        ``to_dict()`` gives, per size, ``p_top_stays_top``, ``p_topk_order``,
        ``p_first`` and ``rank_distribution``, with Monte Carlo SEs
        ``sqrt(p (1 - p) / n_resamples)``.

    Warns
    -----
    SmallSampleWarning
        Fewer than 2 items (the probabilities are NaN).

    References
    ----------
    .. [1] "Is the #1 AI Model Really #1?", Towards Data Science (2026): the resampling
       check of rank stability (METHODS.md section 4).

    Examples
    --------
    >>> import numpy as np
    >>> s = (np.random.default_rng(0).random((3, 500)) < [[0.7], [0.6], [0.5]]).astype(float)
    >>> res = stability(s, sizes=[50, "full"], n_resamples=200, rng=0)
    >>> res.to_dict()["by_size"][1]["n"]
    500
    """
    inp = matrix_input(m, keep_integer=True)      # the means below are exact for integers either way
    s, models = inp.scores, inp.models
    n_models, n_items = s.shape
    ns, labels, ks, draws = _stability_iv(sizes, n_resamples, top_k, n_items)
    progress = _validate.progress(progress)
    groups = None
    n_groups = None
    if _validate.cluster(cluster, inp.group_codes):
        groups = inp.group_codes
        g = int(groups.max()) + 1
        n_groups = np.where(np.asarray(labels) == "full", g, np.maximum(1, np.rint(ns * g / n_items))).astype(np.int64)
    if s.dtype.kind in "iub":   # exact integer sums, as the float mean is: the same numbers, faster
        small = s.dtype.itemsize == 1 and n_items < 2**23
        full = s.sum(axis=1, dtype=np.int32 if small else np.int64) / n_items
    else:
        full = s.mean(axis=1)
    order = np.lexsort((np.arange(n_models), -full))
    top = int(order[0])
    # one stream per size, keyed by the size itself: the figure at n items depends only on the
    # seed and n, not on which other sizes were asked for ("full" = N is the same as N)
    root = _random.root(rng)
    # keyed ("size", n): never the stream of an engine block k of the same rng (split-half, rank sets)
    seeds = [_random.child(root, "size", int(n_groups[i]) if cluster else int(n)) for i, n in enumerate(ns)]
    S = len(ns)
    if n_items < 2:
        warnings.warn(
            f"rank stability from only {n_items} item (shared by all models): every redraw repeats the same "
            "item, so the ranking cannot change and the probabilities say nothing; they are NaN",
            SmallSampleWarning, stacklevel=2,
        )
        return Stability(
            models=models, scores=full, n_items=int(n_items), sizes=ns, size_labels=labels,
            beyond_data=ns > n_items, n_resamples=int(draws), top_model=models[top], full_order=order, top_k=ks,
            p_top_stays_top=np.full(S, np.nan), p_topk_order=np.full((S, len(ks)), np.nan),
            p_first=np.full((S, n_models), np.nan), rank_distribution=np.full((S, n_models, n_models), np.nan) if rank_distribution else None,
            clustered=bool(cluster), n_groups=n_groups, dropped=inp.dropped,
        )
    p_top = np.zeros(S)
    p_ord = np.full((S, len(ks)), np.nan)
    p_first = np.zeros((S, n_models))
    rank_dist = np.zeros((S, n_models, n_models)) if rank_distribution else None
    total = S * draws
    done = 0
    post_kw = dict(top=order[:max(k for k in ks if k <= n_models)] if any(k <= n_models for k in ks)
                   else order[:1], ks=ks, full=bool(rank_distribution))
    prep = prepare(s)      # an integer array (int8 0/1 scores) as it is: no float copy to check
    for i, n in enumerate(ns):
        hits = np.zeros(len(ks), dtype=np.int64)
        cnt = np.zeros(n_models * n_models if rank_distribution else n_models, dtype=np.int64)
        size = int(n_groups[i]) if cluster else int(n)
        tasks, work = product_tasks(prep, n_resamples=draws, size=size, groups=groups,
                                    rng=np.random.default_rng(seeds[i]), tie_keys=True)
        for c, h, b in run_products(tasks, work, post=_rank_tally, post_kw=post_kw, client=client):
            cnt += c
            hits += h
            done += b
            if progress is not None:
                progress(done, total)
        if rank_distribution:
            rank_dist[i] = cnt.reshape(n_models, n_models) / draws
            p_first[i] = rank_dist[i][:, 0]
        else:
            p_first[i] = cnt / draws
        p_top[i] = p_first[i][top]
        p_ord[i] = np.where(np.asarray(ks) <= n_models, hits / draws, np.nan)
    return Stability(
        models=models, scores=full, n_items=int(n_items), sizes=ns, size_labels=labels, beyond_data=ns > n_items,
        n_resamples=int(draws), top_model=models[top], full_order=order, top_k=ks,
        p_top_stays_top=p_top, p_topk_order=p_ord, p_first=p_first, rank_distribution=rank_dist,
        clustered=bool(cluster), n_groups=n_groups, dropped=inp.dropped,
    )


def _first_place(means: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Each row's #1: the highest mean, exact ties to the smallest key (then the first model).

    A row has a tie where its runner-up (the highest mean once the argmax is set aside) equals
    the best: two row reductions instead of an equality mask of every mean; ``means`` is
    written and restored (a copy if it is read-only)."""
    if not means.flags.writeable:
        means = means.copy()
    rows = np.arange(len(means))
    w = np.argmax(means, axis=1)
    best = means[rows, w]
    means[rows, w] = -np.inf
    second = means.max(axis=1, initial=-np.inf)
    means[rows, w] = best
    tie = np.flatnonzero(second == best)
    if tie.size:
        eq = means[tie] == best[tie, None]
        w[tie] = np.argmin(np.where(eq, keys[tie], np.inf), axis=1)
    return w


def _rank_tally(means: np.ndarray, keys: np.ndarray, *, top: np.ndarray, ks: tuple[int, ...],
                full: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """Integer counts of one product of draws (summed over products, so exact in any order).

    Returns ``(counts, hits, draws)``: with ``full`` the flattened ``(M, M)`` counts of
    (model, rank), else how often each model is #1; ``hits[j]`` = draws in which the
    full-data top ``ks[j]`` hold ranks ``1..k`` in order.
    """
    b, n_models = means.shape
    hits = np.zeros(len(ks), dtype=np.int64)
    if not full:
        # no sort: #1 is the highest mean, exact ties to the smallest key (then the first
        # model), as in rank_order; #2 is the #1 of the others, and so on for the top k,
        # following only the draws whose first t places are still the full-data top t
        w = _first_place(means, keys)
        cnt = np.bincount(w, minlength=n_models)
        if len(top):
            keep = w == top[0]
            left, kk = means[keep], keys[keep]
            for t in range(len(top)):
                if t:
                    left[:, top[t - 1]] = -np.inf          # every kept draw had top[t - 1] there
                    keep = _first_place(left, kk) == top[t]
                    left, kk = left[keep], kk[keep]
                for j, k in enumerate(ks):
                    if k == t + 1:
                        hits[j] = len(left)
        return cnt, hits, b
    ranks = rank_order(means, keys)
    offs = np.arange(n_models) * n_models
    cnt = np.bincount((ranks - 1 + offs).ravel(), minlength=n_models * n_models)
    if len(top):
        ok = ranks[:, top] == np.arange(1, len(top) + 1)   # model top[t] holds rank t + 1
        run = np.cumprod(ok, axis=1, dtype=bool)          # ... and so do all before it
        for j, k in enumerate(ks):
            if k <= n_models:
                hits[j] = int(run[:, k - 1].sum())
    return cnt, hits, b
