"""Meta-evaluation of micro-benchmarks: estimation error, Kendall's tau, agreement, MDAD.

For each trial the models are split at random into source models (which choose the
subset) and target models (whose full-benchmark scores are estimated from it). For
every selection method, subset size and trial this module records the target
estimates and derives, all as whole-array operations over trials and target pairs:

* mean absolute estimation error;
* Kendall's tau-b between estimated and full-benchmark scores;
* for every target pair, whether the subset orders it as the full benchmark does,
  binned by the pair's full-benchmark gap ``|Δ|`` (the agreement curve);
* MDAD, the minimum detectable ability difference [1]_, with a percentile CI over trials;
* the share of pairs the subset misorders.

References
----------
.. [1] G. Yauney, S. Warraich, S. Swayamdipta, "How Reliable is Language Model
   Micro-Benchmarking?", ICLR 2026.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Sequence, TypedDict

import numpy as np

from .. import _random, _validate
from .._validate import Progress, SeedLike
from ..errors import ArgumentError, DataError, SmallSampleWarning, warn
from ..results import Result, jsonable
from ._agreement import evaluate_curves, pairs_at
from ._recommend import SPARSE_BIN, num, recommend
from ._registry import SelectionContext, get_method
from ._registry import methods as registered_methods

if TYPE_CHECKING:  # pragma: no cover
    from ..data import ScoreMatrix

__all__ = ["MDADResult", "mdad"]

DEFAULT_METHODS = ("random", "stratified", "anchor", "irt", "diversity")
DEFAULT_SIZES = (10, 25, 50, 100, 250, 500)


# ------------------------------------------------------------------- result
class MDADRow(TypedDict):
    """One (method, size) of :meth:`MDADResult.to_dict` ``"mdad"``."""

    method: str
    size: int
    mdad: float
    ci_low: float
    ci_high: float
    kendall_tau: float
    mean_abs_error: float
    misordered: float
    reached: bool
    mdad_pairs: int | None
    status: Literal["ok", "too few pairs", "not reached"]


class AgreementRow(TypedDict):
    """One (method, size, gap bin) of :meth:`MDADResult.to_dict` ``"agreement"``."""

    method: str
    size: int
    delta_bin: float
    agreement: float
    pairs: int


class MDADUnseen(TypedDict):
    """``"unseen"``: the same tables against the items the source models never saw."""

    mdad: list[MDADRow]
    agreement: list[AgreementRow]


class MDADSettings(TypedDict):
    """``"settings"``: the fields of :class:`MDADResult` that describe the run, under their own names."""

    methods: list[str]
    sizes: list[int]
    n_resamples: int
    n_source_models: int
    n_target_models: int
    n_items: int
    n_seen_items: int
    delta_bin: float
    agreement_level: float
    confidence_level: float
    dropped_sizes: list[int]
    min_pairs: int
    ci_method: str
    reference: Literal["seen items", "all items"]


class MDADResultJSON(TypedDict):
    """Layout of :meth:`MDADResult.to_dict`."""

    mdad: list[MDADRow]
    agreement: list[AgreementRow]
    unseen: MDADUnseen | None
    recommendation: dict[str, Any]
    settings: MDADSettings


@dataclass(frozen=True, eq=False)
class MDADResult(Result):
    """Reliability of micro-benchmarks, per selection method and subset size.

    Arrays are indexed ``[method, size]`` or ``[method, size, trial]``; fractions
    throughout (0.035 = 3.5 points).

    Attributes
    ----------
    methods : tuple of str
    sizes : ndarray of int, shape (n_sizes,)
    n_resamples : int
        Trials: random source/target splits.
    n_source_models, n_target_models, n_items, n_seen_items : int
    delta_bin : float
        Width of the ``|Δ|`` bins (0.005 = 0.5 points).
    agreement_level : float
        Agreement that defines MDAD (0.8).
    confidence_level : float
        Level of the MDAD interval.
    ci_method : str
        ``"pairs"`` ([1]_'s bootstrap of the pooled bins) or ``"trials"`` (percentile
        interval of ``mdad_trials``).
    mdad : ndarray, shape (n_methods, n_sizes)
        MDAD of the agreement curve pooled over trials (``inf``: not reached).
    mdad_trials : ndarray, shape (n_methods, n_sizes, n_resamples)
        MDAD of each trial's own curve.
    ci_low, ci_high : ndarray, shape (n_methods, n_sizes)
        Interval of MDAD (``ci_method``; ``inf`` = not reached at that end).
    kendall_tau, mean_abs_error, misordered : ndarray, shape (n_methods, n_sizes, n_resamples)
    agreement : ndarray, shape (n_methods, n_sizes, n_bins)
        Pooled agreement per ``|Δ|`` bin (NaN where a bin has no pair).
    pairs : ndarray of int, shape (n_bins,)
        Target pairs per bin, pooled over trials (the same for every method and size).
    bin_edges : ndarray, shape (n_bins,)
        Lower edge of each bin.
    target_mdad : float
        MDAD the recommendation aims for.
    recommendation : dict
        ``smallest_size`` per method, ``best`` and plain-words ``text``.
    dropped_sizes : tuple of int
        Requested sizes not smaller than the candidate item pool (not evaluated).
    seconds : dict
        Wall time per method (selection + estimation), for benchmarking.
    unseen : dict or None
        With a seen/unseen item split (the default, ``seen_items=0.5`` as in [1]_): the
        same measures against the targets' scores on the *unseen* items, as a dict with
        keys ``mdad``, ``mdad_trials``, ``ci_low``, ``ci_high``, ``kendall_tau``,
        ``mean_abs_error``, ``misordered``, ``agreement``, ``pairs``, ``bin_edges``
        (shapes as above); [1]_'s published GPQA figures are these. The main attributes
        then use the *seen* items (the pool the subset is drawn from) as reference.
        None without a split (``seen_items=None``).
    min_pairs : int
        Pairs a pooled bin needs to count for ``mdad`` (1: every bin with a pair, as
        [1]_); a trial's own curve needs ``ceil(min_pairs / n_resamples)``.
    """

    methods: tuple[str, ...]
    sizes: np.ndarray
    n_resamples: int
    n_source_models: int
    n_target_models: int
    n_items: int
    n_seen_items: int
    delta_bin: float
    agreement_level: float
    confidence_level: float
    mdad: np.ndarray
    mdad_trials: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    kendall_tau: np.ndarray
    mean_abs_error: np.ndarray
    misordered: np.ndarray
    agreement: np.ndarray
    pairs: np.ndarray
    bin_edges: np.ndarray
    target_mdad: float
    recommendation: dict[str, Any]
    dropped_sizes: tuple[int, ...] = ()
    seconds: dict[str, float] = field(default_factory=dict)
    unseen: dict[str, np.ndarray] | None = None
    min_pairs: int = 1
    ci_method: str = "pairs"

    def row(self, method: str, size: int) -> dict[str, Any]:
        """The ``mdad`` row of one method and size."""
        mi, si = self.methods.index(method), list(self.sizes.tolist()).index(size)
        return self._rows()[mi * len(self.sizes) + si]

    def _rows(self, ev: dict[str, np.ndarray] | None = None) -> list[dict[str, Any]]:
        ev = self._main() if ev is None else ev
        point = ev["mdad"]
        rows = []
        at = pairs_at(point, ev["pairs"], self.delta_bin)
        for mi, meth in enumerate(self.methods):
            for si, k in enumerate(self.sizes.tolist()):
                rows.append({
                    "method": meth, "size": int(k),
                    "mdad": num(point[mi, si]),
                    "ci_low": num(ev["ci_low"][mi, si]),
                    "ci_high": num(ev["ci_high"][mi, si]),
                    "kendall_tau": num(np.nanmean(ev["kendall_tau"][mi, si])),
                    "mean_abs_error": num(np.nanmean(ev["mean_abs_error"][mi, si])),
                    "misordered": num(np.nanmean(ev["misordered"][mi, si])),
                    "reached": bool(np.isfinite(point[mi, si])),
                    "mdad_pairs": int(at[mi, si]) if np.isfinite(point[mi, si]) else None,
                    "status": ("ok" if np.isfinite(point[mi, si]) else
                               "too few pairs" if np.isnan(point[mi, si]) else "not reached"),
                })
        return rows

    def _main(self) -> dict[str, np.ndarray]:
        return {"mdad": self.mdad, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "kendall_tau": self.kendall_tau, "mean_abs_error": self.mean_abs_error,
                "misordered": self.misordered, "agreement": self.agreement, "pairs": self.pairs,
                "bin_edges": self.bin_edges}

    def _agreement_rows(self, ev: dict[str, np.ndarray]) -> list[dict[str, Any]]:
        agreement = []
        for mi, meth in enumerate(self.methods):
            for si, k in enumerate(self.sizes.tolist()):
                for b in range(len(ev["bin_edges"])):
                    if ev["pairs"][b] == 0:
                        continue
                    agreement.append({
                        "method": meth, "size": int(k), "delta_bin": float(ev["bin_edges"][b]),
                        "agreement": num(ev["agreement"][mi, si, b]), "pairs": int(ev["pairs"][b]),
                    })
        return agreement

    def to_dict(self) -> MDADResultJSON:
        unseen = (None if self.unseen is None else
                  {"mdad": self._rows(self.unseen), "agreement": self._agreement_rows(self.unseen)})
        return jsonable({
            "mdad": self._rows(),
            "agreement": self._agreement_rows(self._main()),
            "unseen": unseen,
            "recommendation": self.recommendation,
            "settings": {
                "methods": list(self.methods), "sizes": self.sizes.tolist(), "n_resamples": self.n_resamples,
                "n_source_models": self.n_source_models, "n_target_models": self.n_target_models,
                "n_items": self.n_items, "n_seen_items": self.n_seen_items, "delta_bin": self.delta_bin,
                "agreement_level": self.agreement_level, "confidence_level": self.confidence_level,
                "dropped_sizes": list(self.dropped_sizes), "min_pairs": self.min_pairs,
                "ci_method": self.ci_method,
                "reference": "seen items" if self.unseen is not None else "all items",
            },
        })


# -------------------------------------------------------------- validation
def default_source_models(n_models: int) -> int:
    """Source models per trial when none are given: 300 (as in Yauney et al. 2026) when that leaves 50 targets.

    With fewer models (fewer than 350): the larger of 70% of the models and all but 50, so that
    small leaderboards keep about 30% of their models as targets; always at least 2 sources and
    3 targets (5 models or more).
    """
    n = int(n_models)
    return int(max(2, min(300, max(round(0.7 * n), n - 50), n - 3)))


def _mdad_iv(m: Any, methods: Any, sizes: Any, n_resamples: Any, source_models: Any, seen_items: Any,
             delta_bin: Any, agreement_level: Any, confidence_level: Any, min_pairs: Any = 1,
             target_models: Any = None, ci_method: Any = "pairs") -> tuple:
    from ..data import ScoreMatrix

    if not isinstance(m, ScoreMatrix):
        raise TypeError(f"`m` must be a ScoreMatrix; got {type(m).__name__}")
    if isinstance(methods, str):
        raise TypeError(f"`methods` must be a sequence of method names such as ('random', 'irt'), got {methods!r}")
    methods = tuple(methods)
    if not methods:
        raise ArgumentError("`methods` is empty; give at least one of 'random', 'stratified', 'anchor', 'irt', "
                            "'diversity'", param="methods")
    if len(set(methods)) != len(methods):
        raise ArgumentError(f"`methods` lists a method twice: {methods}", param="methods")
    known = registered_methods()
    for meth in methods:
        if meth not in known:   # named as `methods` (the argument given), so the CLI says --methods
            raise ArgumentError(f"`methods` lists {meth!r}, which is no selection method; the methods are "
                                f"{', '.join(repr(k) for k in known)}", param="methods")
    sizes = np.unique(np.asarray(_validate.counts(np.atleast_1d(np.asarray(sizes)).tolist(), "sizes"),
                                 dtype=np.int64))
    trials = _validate.count(n_resamples, "n_resamples")
    n = m.n_models
    if source_models is None:
        if n < 5:
            raise DataError(
                f"MDAD needs at least 5 models (2 sources to choose items, 3 targets to order); the matrix has {n}")
        n_src = default_source_models(n)
    elif isinstance(source_models, float) and 0 < source_models < 1:
        n_src = int(round(source_models * n))
    elif isinstance(source_models, (int, np.integer)) and not isinstance(source_models, bool):
        n_src = int(source_models)
    else:
        raise ArgumentError(f"`source_models` must be a count or a fraction in (0, 1); got {source_models!r}",
                            param="source_models")
    if not 2 <= n_src <= n - 3:
        raise ArgumentError(
            f"`source_models`={source_models} must leave at least 3 target models and use at least 2 sources; "
            f"the matrix has {n} models (try `source_models`={max(2, int(0.7 * n))})", param="source_models")
    if target_models is None:
        n_tgt = n - n_src
    elif (isinstance(target_models, (int, np.integer)) and not isinstance(target_models, bool)
          and 3 <= target_models <= n - n_src):
        n_tgt = int(target_models)
    else:
        raise ArgumentError(f"`target_models` must be None (every model that is not a source) or a count in "
                            f"[3, {n - n_src}] ({n} models, {n_src} sources); got {target_models!r}",
                            param="target_models")
    ni = m.n_items
    if seen_items is None:
        n_seen = ni
    elif isinstance(seen_items, float) and 0 < seen_items <= 1:
        n_seen = int(round(seen_items * ni))
    elif isinstance(seen_items, (int, np.integer)) and not isinstance(seen_items, bool) and 2 <= seen_items <= ni:
        n_seen = int(seen_items)
    else:
        raise ArgumentError(f"`seen_items` must be None, a count in [2, {ni}] or a fraction in (0, 1]; "
                            f"got {seen_items!r}", param="seen_items")
    if not (isinstance(delta_bin, (int, float)) and 0 < delta_bin < 1):
        raise ArgumentError(f"`delta_bin` must be in (0, 1) (0.005 = 0.5 points); got {delta_bin!r}",
                            param="delta_bin")
    if not (isinstance(agreement_level, (int, float)) and 0.5 < agreement_level < 1):
        raise ArgumentError(f"`agreement_level` must be in (0.5, 1); got {agreement_level!r}",
                            param="agreement_level")
    _validate.confidence_level(confidence_level)
    _validate.choice(ci_method, "ci_method", ("pairs", "trials"))
    _validate.count(min_pairs, "min_pairs")
    return methods, sizes, int(trials), n_src, n_seen, n_tgt


# --------------------------------------------------------------------- main
def mdad(
    m: "ScoreMatrix",
    *,
    methods: Sequence[str] = DEFAULT_METHODS,
    sizes: Sequence[int] = DEFAULT_SIZES,
    n_resamples: int = 50,
    source_models: int | float | None = None,
    target_models: int | None = None,
    seen_items: int | float | None = 0.5,
    rng: SeedLike = 0,
    delta_bin: float = 0.005,
    agreement_level: float = 0.8,
    confidence_level: float = 0.95,
    target_mdad: float = 0.02,
    min_pairs: int = 1,
    ci_method: str = "pairs",
    progress: Progress = None,
) -> MDADResult:
    """How reliable are micro-benchmarks of each size and selection method?

    Parameters
    ----------
    m : ScoreMatrix
        Per-item results of many models (the mean over runs is used).
    methods : sequence of str, default: all five built-in methods
        Selection methods (see :func:`ranktrust.select_subset`). The ``irt`` method is
        scored with the gp-IRT estimator; the others with their weighted mean.
    sizes : sequence of int, default: ``(10, 25, 50, 100, 250, 500)``
        Subset sizes. Sizes not smaller than the candidate pool are dropped with a warning.
    n_resamples : int, default: ``50``
        Trials: random source/target splits (each with its own selections).
    source_models : int or float, optional
        Number (or fraction) of models used as sources in each trial; the rest are targets.
        Default: 300 (as in [1]_) when that leaves at least 50 target models, else the
        larger of 70% of the models and all but 50 (SWE-bench Verified's 25 models: 18
        sources, 7 targets); see :func:`default_source_models`.
    target_models : int, optional
        Target models per trial, drawn from the models that are not sources. Default:
        every model that is not a source. [1]_ drew 50 targets per run and 300 sources
        from the rest (GPQA: 70 of its 420 models unused in each run).
    seen_items : int, float or None, default: ``0.5``
        Seen/unseen split as in [1]_: each trial draws this many (or this fraction of)
        items as the *seen* items, stratified by item group when the matrix has groups.
        The subset is chosen from the seen items with the source models' results on
        them; the targets are then judged against their scores on the seen items (the
        main results) and, separately, on the *unseen* rest (``unseen``: does the
        micro-benchmark generalise to new items? [1]_'s published figures are these).
        ``None`` (or ``1.0``): no split; every item is seen, the reference is the full
        benchmark and ``unseen`` is None. Sizes not smaller than the seen pool are dropped.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, default: ``0``
        Randomness (``None``: fresh entropy). Every trial's split and every (trial, method, size) selection gets
        its own stream (``SeedSequence`` keyed by trial, method name and size), so
        results do not depend on which other methods or sizes are run.
    delta_bin : float, default: ``0.005``
        Width of the ``|Δ|`` bins (0.5 points, as in [1]_).
    agreement_level : float, default: ``0.8``
        Agreement that defines MDAD.
    confidence_level : float, default: ``0.95``
        Level of the percentile CI of MDAD over trials.
    target_mdad : float, default: ``0.02``
        MDAD (a fraction: 0.02 = 2 points) the recommendation looks for.
    min_pairs : int, default: ``1``
        Pairs a gap bin of the pooled curve needs to count for MDAD. ``1`` is [1]_'s rule
        (every bin that has a pair counts); a larger value is a safeguard against deciding
        MDAD on a handful of pairs (ranktrust 0.1.0 used 10 per trial, i.e. 500 at 50
        trials). Each trial's own curve (for the CI) needs ``ceil(min_pairs / n_resamples)``.
    ci_method : {"pairs", "trials"}, default: ``"pairs"``
        ``"pairs"``: [1]_'s interval: the first bins where the bootstrap interval of the
        pooled bin's agreement (upper, lower bound) reaches ``agreement_level``, made
        symmetric around MDAD (bootstrap quantiles taken exactly from the binomial; the
        pairs are treated as independent, as in [1]_, although they share models and
        subsets). ``"trials"``: percentile interval of the per-trial MDADs, the range in
        which one selection's MDAD falls over repeated selections (per-trial curves are
        sparse, so under [1]_'s rule this interval sits lower and can exclude the pooled
        MDAD).
    progress : callable, optional
        Called as ``progress(done, total)`` after each (trial, method, size).

    Returns
    -------
    MDADResult

    Warns
    -----
    UserWarning
        When requested sizes are dropped because they are not smaller than the pool.

    Notes
    -----
    For a target pair with reference gap ``Δ`` (full benchmark, or the seen items with
    a split) the subset *agrees* when its estimated gap is nonzero with the same sign;
    an estimated tie does not order the pair and counts as disagreement, as in [1]_.
    Pairs tied on the reference stay in the first bin and agree when the estimated gap is
    positive, as in [1]_'s code. Pairs are binned by ``floor(|Δ| / delta_bin)``;
    **MDAD** is the lower edge of the smallest bin whose agreement is at least
    ``agreement_level`` ([1]_'s rule; bins with fewer than ``min_pairs`` pairs ignored);
    ``inf`` when no bin reaches it. The point value uses the agreement
    curve pooled over trials; ``ci_low``/``ci_high`` follow ``ci_method`` ([1]_'s
    bootstrap of the pooled bins by default; it always contains the point value).
    ``misordered`` is the share of pairs whose order the subset reverses (estimated ties
    excluded). With ``k`` random items, a pair with discordance rate ``q`` (share of
    items the two models score differently) has an estimated gap with mean ``Δ`` and
    SD ``sigma = sqrt((q - Δ^2) / k)``, on a lattice of step ``1/k``; it agrees with
    probability about ``Phi((|Δ| - 1/(2k)) / sigma)``.

    References
    ----------
    .. [1] G. Yauney, S. Warraich, S. Swayamdipta, "How Reliable is Language Model
       Micro-Benchmarking?", ICLR 2026.

    Examples
    --------
    >>> import numpy as np, ranktrust as rt
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random((40, 300)) < rng.uniform(0.3, 0.7, (40, 1))).astype(float)
    >>> m = rt.ScoreMatrix.from_array(y, models=[f"m{i}" for i in range(40)],
    ...                               items=[f"q{j}" for j in range(300)])
    >>> r = rt.mdad(m, methods=["random"], sizes=[10, 100], n_resamples=5, source_models=20, rng=0,
    ...             delta_bin=0.02)
    >>> sorted(r.to_dict())
    ['agreement', 'mdad', 'recommendation', 'settings', 'unseen']
    >>> r.n_seen_items, r.to_dict()["settings"]["reference"]     # [1]_'s seen/unseen split by default
    (150, 'seen items')
    """
    if hasattr(m, "is_complete") and not m.is_complete:
        # subsets are drawn from, and targets scored on, the items every model has: say so (QA L10)
        full = m
        m = m.align("intersect")
        warn(f"micro-benchmarks use the {m.n_items} items every model has (of {full.n_items}); "
             f"{sum(1 for v in m.dropped.values() if v)} models lost items", code="shared_items_only",
             data={"n_items": m.n_items, "of": full.n_items, "models_lost_items": sum(1 for v in m.dropped.values() if v)},
             stacklevel=2)
    progress = _validate.progress(progress)
    methods, sizes_req, trials, n_src, n_seen, n_tgt = _mdad_iv(
        m, methods, sizes, n_resamples, source_models, seen_items, delta_bin, agreement_level, confidence_level,
        min_pairs, target_models, ci_method)
    min_pairs = int(min_pairs)
    ci_method = str(ci_method)
    keep = sizes_req < n_seen
    dropped = tuple(int(s) for s in sizes_req[~keep])
    if dropped:
        many = len(dropped) > 1
        warn(f"{'sizes' if many else 'size'} {', '.join(map(str, dropped))} {'are' if many else 'is'} not smaller "
             f"than the {n_seen} candidate items and {'were' if many else 'was'} left out", code="sizes_dropped",
             data={"sizes": list(dropped), "n_items": int(n_seen)}, stacklevel=2)
    sizes_arr = sizes_req[keep]
    if sizes_arr.size == 0:
        raise ArgumentError(f"every size in `sizes` is at least the number of candidate items ({n_seen})",
                            param="sizes")

    root = _random.root(rng)  # trial t: stream (t,); method x size: (t, method, k) [ranktrust._random]
    y = np.asarray(m.scores, dtype=np.float64)
    codes = m.group_codes
    n_models, n_items = y.shape
    meths = [get_method(meth) for meth in methods]
    M, S, T = len(methods), len(sizes_arr), trials
    est = np.empty((M, S, T, n_tgt))
    truth = np.empty((T, n_tgt))
    split_used = n_seen < n_items
    truth_unseen = np.empty((T, n_tgt)) if split_used else None
    seconds = {meth: 0.0 for meth in methods}
    total = T * M * S
    done = 0
    warm: dict[str, Any] = {}
    for t in range(T):
        split = np.random.default_rng(_random.child(root, t))
        perm = split.permutation(n_models)
        src, tgt = np.sort(perm[:n_src]), np.sort(perm[n_src:n_src + n_tgt])
        pool = np.arange(n_items) if n_seen == n_items else _seen_split(split, n_items, n_seen, codes)
        y_src = y[np.ix_(src, pool)]
        y_tgt = y[tgt]
        y_tgt_pool = y_tgt[:, pool]
        with np.errstate(invalid="ignore"):
            truth[t] = np.nanmean(y_tgt_pool, axis=1)
            if split_used:
                unseen = np.ones(n_items, dtype=bool)
                unseen[pool] = False
                truth_unseen[t] = np.nanmean(y_tgt[:, unseen], axis=1)
        groups = None if codes is None else codes[pool]
        # shared by the methods and sizes of this trial; "warm" lives across trials (IRT warm start)
        context = SelectionContext(source_rows=src, pool=pool, warm=warm)
        for mi, (meth, spec) in enumerate(zip(methods, meths)):
            t0 = time.perf_counter()
            for si, k in enumerate(sizes_arr.tolist()):
                g = np.random.default_rng(_random.child(root, t, meth, k))
                sel = spec.select(y_src, k, g, groups=groups, context=context)
                out = spec.estimate(y_tgt_pool[:, sel.items], sel.items, sel.weights, sel.state)
                est[mi, si, t] = out[spec.default_for(sel.state)]  # the method's own default estimator
                done += 1
                if progress is not None:
                    progress(done, total)
            seconds[meth] += time.perf_counter() - t0

    ev = evaluate_curves(truth, est, delta_bin, agreement_level, min_pairs, confidence_level, ci_method)
    ev_unseen = (None if truth_unseen is None else
                 evaluate_curves(truth_unseen, est, delta_bin, agreement_level, min_pairs, confidence_level, ci_method))
    point, ci_low, ci_high, mis, tau = ev["mdad"], ev["ci_low"], ev["ci_high"], ev["misordered"], ev["kendall_tau"]
    if np.isnan(point).all():
        warnings.warn(f"no |Δ| bin has enough target pairs (`min_pairs`={min_pairs}) to define MDAD; use more "
                      "target models (a smaller `source_models`), more trials, wider bins (`delta_bin`) or a "
                      "smaller `min_pairs`", SmallSampleWarning, stacklevel=2)
    sparse = [int(v) for e in (ev, ev_unseen) if e is not None
              for v in pairs_at(e["mdad"], e["pairs"], delta_bin).ravel() if 0 < v < SPARSE_BIN]
    if sparse:
        warnings.warn(f"{len(sparse)} MDAD value{'s are' if len(sparse) > 1 else ' is'} read off a gap bin with fewer "
                      f"than {SPARSE_BIN} target pairs (as few as {min(sparse)}; [U]'s rule counts every bin): "
                      f"use more target models or trials, wider bins (`delta_bin`), or `min_pairs`={SPARSE_BIN}",
                      SmallSampleWarning, stacklevel=2)
    rec = recommend(methods, sizes_arr, ev, target_mdad, agreement_level, min_pairs, unseen=ev_unseen)
    return MDADResult(
        methods=methods, sizes=sizes_arr, n_resamples=T, n_source_models=n_src, n_target_models=n_tgt,
        n_items=n_items, n_seen_items=n_seen, delta_bin=float(delta_bin), agreement_level=float(agreement_level),
        confidence_level=float(confidence_level), mdad=point, mdad_trials=ev["mdad_trials"], ci_low=ci_low,
        ci_high=ci_high, kendall_tau=tau, mean_abs_error=ev["mean_abs_error"], misordered=mis,
        agreement=ev["agreement"], pairs=ev["pairs"], bin_edges=ev["bin_edges"], target_mdad=float(target_mdad),
        recommendation=rec, dropped_sizes=dropped, seconds=seconds, unseen=ev_unseen, min_pairs=min_pairs,
        ci_method=ci_method,
    )


def _seen_split(gen: np.random.Generator, n_items: int, n_seen: int, codes: np.ndarray | None) -> np.ndarray:
    """Sorted indices of the seen items: ``n_seen`` at random, stratified by item group.

    As [1]_'s code: each group (subtask) contributes ``floor(share * size)`` random items
    (``share = n_seen / n_items``); the few items still missing are drawn at random from
    the rest, so exactly ``n_seen`` items are seen.
    """
    if codes is None:
        return np.sort(gen.choice(n_items, n_seen, replace=False))
    keys = gen.random(n_items)
    order = np.lexsort((keys, codes))
    sizes = np.bincount(codes)
    start = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    pos = np.empty(n_items, dtype=np.int64)
    pos[order] = np.arange(n_items) - start[codes[order]]
    seen = pos < np.floor(sizes[codes] * (n_seen / n_items))
    short = n_seen - int(seen.sum())
    if short > 0:
        rest = np.flatnonzero(~seen)
        seen[rest[np.argsort(keys[rest])[:short]]] = True
    return np.flatnonzero(seen)
