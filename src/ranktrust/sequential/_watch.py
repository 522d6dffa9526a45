"""``Watch``: a leaderboard evaluated while results arrive, with anytime-valid decisions.

The guarantee needs the order in which items enter the analysis to be fixed independently of their results, and
the sequence to be append-only. Two ways, and only these:

- *declared items* (``items=``): a random order over the declared items, fixed by the seed before any result
  (each item's place comes from a hash of the seed and its label). ``next()`` proposes items in that order; a
  result that arrives out of it waits until the items before it are complete (``status().waiting_for`` says
  which), then enters.
- *dispatch order* (``order="dispatch"``): ``items`` lists the items in the order the harness sent them (more can
  be added with :meth:`Watch.dispatch`), and they are analysed in that order, each held back until every item sent
  before it is complete. Completion times (latency) cannot change the order; the guarantee rests on the order the
  harness sent the items in not depending on the results (a shuffled list is fine).
- *arrival order* (``order="arrival"``): an item enters when it becomes complete (every model in play has its
  result, and all its runs with ``n_runs``), after every item that completed before it. The guarantee then rests
  on that order not depending on the results, and completion order does when latency depends on correctness
  (every status carries the note ``watch_arrival_latency``; use ``order="dispatch"``).

Each new complete item updates the e-processes in place (:class:`~ranktrust.sequential._engine.Engine`): nothing
is re-run from the first item, and a certified statement is never withdrawn.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Iterable, Literal, Mapping, Sequence

import numpy as np

from .. import _validate
from .._validate import SeedLike
from ..errors import ArgumentError, DataError
from ..results import Note
from ._engine import Engine, EngineConfig, EngineResult
from ._final import FINAL_LOOK
from ._status import WatchStatus, _f, item_keys, parse_target
from ._stream import LAMBDA_RULES, advance

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..data import ScoreMatrix

__all__ = ["Watch", "WatchStatus", "parse_target"]

Scope = Literal["population", "benchmark"]
_SCAN = 64   # units checked per step when looking for the next complete ones in the declared order


class Watch:
    """Watch a leaderboard while results arrive; decisions stay valid however often you look.

    Parameters
    ----------
    models : sequence of str
        The models being evaluated.
    items : sequence of str, optional
        The benchmark's items, declared before the data: they are analysed in a random order fixed by the seed
        (``next()`` proposes it), and their number is the benchmark size N. Either ``items`` or
        ``order="arrival"`` is required.
    order : {"seeded", "dispatch", "arrival"}, optional
        ``"seeded"`` (the default with ``items``): the seeded random order over the declared items.
        ``"dispatch"``: ``items`` are the items in the order the harness sent them (:meth:`dispatch` adds later
        ones); they are analysed in that order, each result held back until every item sent before it is
        complete, so completion times cannot change the order. Valid when the harness's sending order does not
        depend on the results (a shuffled list is; one sorted by subject or length is not).
        ``"arrival"``: items are analysed in the order they become complete, append-only. Valid only when that
        completion order does not depend on the results: when a wrong answer takes longer (reasoning, retries,
        timeouts) it does, and a true best model is excluded far more often than the level says (every status
        says so); use ``"dispatch"``.
    n_items : int, optional
        The benchmark size N, declared (with ``order="arrival"``, or ``"dispatch"`` when ``items`` is only the
        start of the sending order; with ``items`` alone it is their number). Without a declared N the
        end-tuned bets, the final look and unresolvable pairs are off, and ``scope="benchmark"`` is refused.
    target : str, default: ``"best"``
        ``"best"`` (which models can be #1), ``"topK"`` such as ``"top3"``, or ``"ranks"`` (every pair).
    confidence_level : float, default: ``0.95``
        The family-wise guarantee: the certified set contains the true best model (the true top k, every true
        rank; every decided pair is right) at every time, with this probability.
    scope : {"population", "benchmark"}, default: ``"population"``
        ``"population"``: the items are a sample from a population of questions like these (sequences with
        replacement). ``"benchmark"``: the question is this finite benchmark of declared size (sequences without
        replacement, exact at the last item).
    method : {"betting", "eb"}, default: ``"betting"``
        Hedged betting or predictable plug-in empirical-Bernstein e-processes.
    rule : {"agrapa", "prpl"}, default: ``"agrapa"``
        Bet sizes.
    eliminate : bool, default: ``True``
        Stop scoring a model once it has left the target set. With ``False`` every model is scored to the
        end, and the best set (scope population, declared N) holds ``final_look`` of alpha for a fixed-n
        test at the last item (docs/watch.md).
    best_method : {"portfolio", "pairs"}, default: ``"portfolio"``
        How the best set is tested (see docs/watch.md).
    score_range : (float, float), default: ``(0, 1)``
        The range a score can take; scores are rescaled to [0, 1].
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, default: ``0``
        Fixes the random item order of declared items: the int seed derived from it (an int as is) keys a hash of
        each item name. Recorded as ``seed`` in the status. The guarantee is for one order fixed before the data
        are seen: trying seeds until a wanted answer appears voids it.
    cluster : bool, default: ``False``
        Sample whole item groups (``groups``) as the unit: groups are analysed in a seeded order, a group enters
        once every one of its items is scored for every model still in play, with its mean score. Needs ``items``.
    groups : mapping or sequence, optional
        Each item's group: a mapping ``item -> group`` or a sequence aligned with ``items``.
    n_runs : int, optional
        Runs every item gets per model. An item then enters the analysis only once all its runs are in. Without
        it an item enters with the runs it has; a later run for an item already analysed is refused (the sequence
        is append-only).
    final_look : float, default: ``0``
        Share of alpha the best set holds for its fixed-n test at the last item (a finite-sample
        empirical-Bernstein test), in [0, 1); used only without elimination, at scope population with a declared
        N (``0``, the default: all of alpha on the bets).
    pair_tests : bool, optional
        Also run every pair's test at the all-pairs level (``decided``; e-Holm over all K(K - 1) ordered
        comparisons). Default: only for ``target="ranks"``, where they are the target; for ``best``/``topK`` the
        status then says what the target's own tests certified and nothing from a second family (and a status
        costs O(models in the set squared) rather than O(models squared) per item).
    declared : bool, default: ``True``
        ``False``: ``items`` are only the items read so far (a finished file read once, in the seeded order), not
        a declaration of the benchmark; N is then ``n_items`` if given, else not declared.

    Examples
    --------
    >>> import numpy as np
    >>> from ranktrust.sequential import Watch
    >>> rng = np.random.default_rng(0)
    >>> items = [f"q{i}" for i in range(3000)]
    >>> w = Watch(models=["A", "B", "C"], items=items)
    >>> for model, p in (("A", 0.8), ("B", 0.6), ("C", 0.5)):
    ...     _ = w.update_many([(model, it, float(rng.random() < p)) for it in items])
    >>> w.status().best_set
    ('A',)
    """

    def __init__(self, models: Sequence[str], items: Sequence[str] | None = None, *,
                 order: Literal["seeded", "dispatch", "arrival"] | None = None, n_items: int | None = None,
                 target: str = "best", confidence_level: float = 0.95, scope: Scope = "population",
                 method: Literal["betting", "eb"] = "betting", rule: Literal["agrapa", "prpl"] = "agrapa",
                 eliminate: bool = True, best_method: Literal["portfolio", "pairs"] = "portfolio",
                 score_range: tuple[float, float] = (0.0, 1.0), rng: SeedLike = 0, cluster: bool = False,
                 groups: Mapping[str, Any] | Sequence[Any] | None = None, n_runs: int | None = None,
                 final_look: float = FINAL_LOOK, declared: bool = True, pair_tests: bool | None = None) -> None:
        models = tuple(str(m) for m in models)
        if len(models) < 2:
            raise ArgumentError(f"`models` must name at least two models, got {len(models)}", param="models")
        if len(set(models)) != len(models):
            raise ArgumentError("`models` has a duplicate name", param="models")
        if order is None:
            if items is None:
                raise ArgumentError("Watch needs an analysis order fixed before the data: pass `items` (the "
                                    "benchmark's items, analysed in a seeded random order) or `order`='arrival' "
                                    "(analysed as results complete; valid when that order does not depend on the "
                                    "results)")
            order = "seeded"
        _validate.choice(order, "order", ("seeded", "dispatch", "arrival"))
        if order == "seeded" and items is None:
            raise ArgumentError("`order`='seeded' needs `items` (the declared benchmark items); without them pass "
                                "`order`='dispatch' (items in the order the harness sent them) or `order`='arrival'")
        if order == "dispatch" and cluster:
            raise ArgumentError("`cluster`=True goes with declared `items` in the seeded order (a group enters once "
                                "all its items are scored); `order`='dispatch' analyses single items", param="cluster")
        self.target, self.k = parse_target(target)
        self.target_label = "best" if self.target == "best" else (f"top{self.k}" if self.target == "top" else "ranks")
        if self.target == "top" and self.k >= len(models):
            raise ArgumentError(f"`target` top{self.k} needs more than {self.k} models, got {len(models)}",
                                param="target")
        confidence_level = _validate.confidence_level(confidence_level)
        _validate.choice(scope, "scope", ("population", "benchmark"))
        _validate.choice(method, "method", ("betting", "eb"))
        _validate.choice(rule, "rule", LAMBDA_RULES)
        _validate.choice(best_method, "best_method", ("portfolio", "pairs"))
        lo, hi = score_range
        if not hi > lo:
            raise ArgumentError(f"`score_range` must be (low, high) with low < high, got {score_range!r}",
                                param="score_range")
        self.models = models
        self._midx = {m: i for i, m in enumerate(models)}
        self.scope = scope
        self.order = order
        self.confidence_level = float(confidence_level)
        self.method, self.rule, self.eliminate, self.best_method = method, rule, bool(eliminate), best_method
        self.pair_tests = (self.target == "ranks") if pair_tests is None else bool(pair_tests)
        self.final_look = _validate.probability(final_look, "final_look", high_open=True, hint=" (a share of alpha)")
        self.score_range = (float(lo), float(hi))
        self.seed = _validate.seed(rng)
        self.fixed_items = items is not None and (order != "dispatch" or n_items is None)
        self.n_runs = None if n_runs is None else _validate.count(n_runs, "n_runs")
        K = len(models)
        self._items: list[str] = []
        self._iidx: dict[str, int] = {}
        self._runs: dict[str, np.ndarray] = {}
        self._sum = np.zeros((K, 0))
        self._cnt = np.zeros((K, 0), dtype=np.int64)
        if items is not None:
            self._add_items([str(i) for i in items], check_unique=True)
        if n_items is not None:
            n_items = _validate.count(n_items, "n_items")
            if items is not None and order == "dispatch" and n_items < len(self._items):
                raise ArgumentError(f"`n_items`={n_items:,} but {len(self._items):,} `items` were already sent; "
                                    "declare the benchmark's size", param="n_items")
            if items is not None and order != "dispatch" and n_items != len(self._items):
                raise ArgumentError(f"`n_items`={n_items:,} but {len(self._items):,} `items` were given; give one or "
                                    "the other")
        self.cluster = _validate.cluster(cluster, groups)
        self._group_of = np.zeros(0, dtype=np.int64)   # item index -> group index
        self._groups: list[str] = []
        if self.cluster:
            if items is None:
                raise ArgumentError("`cluster`=True needs `items` (with their `groups`): a group enters the "
                                    "analysis only once all its items are scored, so its items must be known",
                                    param="cluster")
            if isinstance(groups, Mapping):
                gmap = {str(k): str(v) for k, v in groups.items()}
                missing = [it for it in self._items if it not in gmap]
                if missing:
                    raise ArgumentError(f"`groups` has no group for item {missing[0]!r} "
                                        f"({len(missing):,} of {len(self._items):,} items have none)", param="groups")
                glab = [gmap[it] for it in self._items]
            else:
                glab = [str(g) for g in groups]  # type: ignore[union-attr]
                if len(glab) != len(self._items):
                    raise ArgumentError(f"`groups` must give one group per item: {len(glab):,} groups for "
                                        f"{len(self._items):,} items", param="groups")
            uniq, inv = np.unique(np.asarray(glab, dtype=object).astype(str), return_inverse=True)
            self._groups = [str(g) for g in uniq]
            self._group_of = inv.astype(np.int64)
            self._members = [np.flatnonzero(self._group_of == g) for g in range(len(self._groups))]
        # the declared benchmark size (units: items, or groups with cluster=True); None: not declared
        if order == "dispatch":   # the sending order may be a prefix of the benchmark: its size is n_items
            self.n_total: int | None = n_items if n_items is not None or items is None else len(self._items)
        else:
            self.n_total = self._n_units() if items is not None and declared else n_items
        if scope == "benchmark" and self.n_total is None:
            raise ArgumentError("`scope`='benchmark' needs the benchmark's size declared: pass `items` or "
                                "`n_items` (the sequences sample it without replacement and must know N)",
                                param="scope")
        # the analysis order (unit indices) and the engine that has analysed a prefix of it
        if order == "seeded":
            keys = item_keys(self._groups if self.cluster else self._items, self.seed)
            self._order: list[int] = [int(u) for u in np.argsort(keys, kind="stable")]
        elif order == "dispatch":
            self._order = list(range(len(self._items)))      # the items as the harness sent them
        else:
            self._order = []
        # dispatch: each sent item's 0-based place in the sending order
        self._sent: dict[int, int] = {u: k for k, u in enumerate(self._order)} if order == "dispatch" else {}
        self._pending: dict[int, None] = {}      # arrival: units with a result that have not entered the order
        self._placed_set: set[int] = set()       # arrival: units in the order
        self._place = np.zeros(0, dtype=np.int64)  # 1-based place of each analysed unit (see _place_of_units)
        self._placed_upto = 0
        self._fed = 0                            # units of the order handed to the engine
        self._engine = Engine(K, self._config(), capacity=self.n_total or 64)

    # ---- data in ---------------------------------------------------------------------------------------
    def _n_units(self) -> int:
        """Items (or groups, with ``cluster=True``) known."""
        return len(self._groups) if self.cluster else len(self._items)

    def _add_items(self, new: list[str], check_unique: bool = False) -> None:
        if check_unique and len(set(new)) != len(new):
            raise ArgumentError("`items` has a duplicate label", param="items")
        fresh = [i for i in dict.fromkeys(new) if i not in self._iidx]
        if not fresh:
            return
        base = len(self._items)
        for j, it in enumerate(fresh):
            self._iidx[it] = base + j
        self._items.extend(fresh)
        need = len(self._items)
        if need > self._sum.shape[1]:
            cap = max(need, 2 * self._sum.shape[1])
            grow = cap - self._sum.shape[1]
            K = len(self.models)
            self._sum = np.concatenate([self._sum, np.zeros((K, grow))], axis=1)
            self._cnt = np.concatenate([self._cnt, np.zeros((K, grow), dtype=np.int64)], axis=1)
            for r, a in self._runs.items():
                self._runs[r] = np.concatenate([a, np.full((K, grow), np.nan)], axis=1)

    def _check_values(self, vals: list[Any] | np.ndarray, mi: np.ndarray, ii: np.ndarray) -> np.ndarray:
        """Scores as floats; one-line errors that say what is wrong with a value (missing, text, out of range)."""
        out = np.empty(len(vals))
        for k, v in enumerate(vals):
            if isinstance(v, (bool, np.bool_)):   # a pass/fail as True/False is 1/0, as in a CSV
                out[k] = float(v)
                continue
            if isinstance(v, (str, bytes)) or not isinstance(v, numbers.Real):
                if v is None:
                    out[k] = np.nan
                    continue
                shown = v.item() if isinstance(v, np.generic) else v      # never a numpy repr (np.str_('1'))
                raise DataError(f"score {shown!r} for model {self.models[mi[k]]!r}, item {self._items[ii[k]]!r} is "
                                "not a number; pass numbers (convert text such as '1' first)")
            out[k] = float(v)
        return out

    def _set(self, mi: np.ndarray, ii: np.ndarray, vals: np.ndarray, run: str) -> None:
        lo, hi = self.score_range
        miss = np.isnan(vals)
        if miss.any():
            k = int(np.argmax(miss))
            raise DataError(f"score for model {self.models[mi[k]]!r}, item {self._items[ii[k]]!r} is missing "
                            f"(None or NaN); leave an unscored cell out instead of adding it")
        bad = ~np.isfinite(vals) | (vals < lo - 1e-9) | (vals > hi + 1e-9)
        if bad.any():
            k = int(np.argmax(bad))
            raise DataError(f"score {float(vals[k]):g} for model {self.models[mi[k]]!r}, item {self._items[ii[k]]!r} "
                            f"is outside the score range [{lo:g}, {hi:g}]; pass score_range=(low, high)")
        a = self._runs.get(run)
        if a is None:
            a = self._runs[run] = np.full(self._sum.shape, np.nan)
        y = (vals - lo) / (hi - lo)
        old = a[mi, ii]
        clash = ~np.isnan(old) & ~np.isclose(old, y, rtol=0, atol=1e-9)
        if clash.any():
            k = int(np.argmax(clash))
            raise DataError(f"model {self.models[mi[k]]!r}, item {self._items[ii[k]]!r}, run {run!r} already has "
                            f"score {old[k] * (hi - lo) + lo:g}, and now {float(vals[k]):g}: results are only ever "
                            "added; give a new run label for a new sample")
        new = np.isnan(old)
        if not new.any():
            return
        mi, ii, y = mi[new], ii[new], y[new]
        # one cell given twice in this batch: keep it once (the clash check above saw only stored values)
        key = mi * max(len(self._items), 1) + ii
        _, first = np.unique(key, return_index=True)
        if first.size != key.size:
            mi, ii, y = mi[first], ii[first], y[first]
        if self.n_runs is not None:
            over = self._cnt[mi, ii] + 1 > self.n_runs
            if over.any():
                k = int(np.argmax(over))
                raise DataError(f"model {self.models[mi[k]]!r}, item {self._items[ii[k]]!r} already has all its "
                                f"{self.n_runs} runs (`n_runs`); run {run!r} would be one more")
        late = self._analysed_cells(mi, ii) & (self._cnt[mi, ii] > 0)
        if late.any():
            k = int(np.argmax(late))
            raise DataError(f"model {self.models[mi[k]]!r}, item {self._items[ii[k]]!r} was already analysed with "
                            f"{int(self._cnt[mi[k], ii[k]])} run(s); run {run!r} cannot revise it (the sequence is "
                            "append-only): declare the runs per item (`n_runs`) so an item waits for all its runs",
                            param="n_runs")
        a[mi, ii] = y
        self._sum[mi, ii] += y
        self._cnt[mi, ii] += 1

    def _analysed_cells(self, mi: np.ndarray, ii: np.ndarray) -> np.ndarray:
        """Whether each (model, item) cell is already part of the analysed sequence."""
        e = self._engine
        if e.t == 0:
            return np.zeros(mi.size, dtype=bool)
        place = self._place_of_units()
        unit = self._group_of[ii] if self.cluster else ii
        pos = place[unit]                                   # 1-based position in the analysed prefix, 0 = not
        until = np.where(e.in_play, e.t, e.scored_until)
        return (pos > 0) & (pos <= until[mi])

    def _place_of_units(self) -> np.ndarray:
        """1-based place of each unit in the analysed prefix (0 = not analysed); kept as units are fed."""
        n = max(self._n_units(), 1)
        if self._place.size < n:
            self._place = np.concatenate([self._place, np.zeros(max(n, 2 * self._place.size) - self._place.size,
                                                                dtype=np.int64)])
        t = self._engine.t
        if self._placed_upto < t:
            self._place[np.asarray(self._order[self._placed_upto:t], dtype=np.int64)] = np.arange(
                self._placed_upto + 1, t + 1)
            self._placed_upto = t
        return self._place

    def _model_index(self, names: Iterable[str]) -> np.ndarray:
        out = []
        for n in names:
            i = self._midx.get(str(n))
            if i is None:
                raise DataError(f"unknown model {n!r}; this Watch has {', '.join(self.models)}")
            out.append(i)
        return np.asarray(out, dtype=np.int64)

    def _item_index(self, names: list[str]) -> np.ndarray:
        unknown = [n for n in dict.fromkeys(names) if n not in self._iidx]
        if unknown:
            if self.fixed_items:
                raise DataError(f"item {unknown[0]!r} is not one of the {len(self._items):,} items this Watch "
                                "was given")
            if self.n_total is not None and len(self._items) + len(unknown) > self.n_total:
                # name the first item that does not fit (item N + 1), not the first new one
                first = unknown[self.n_total - len(self._items)]
                total = len(self._items) + len(unknown)
                raise DataError(f"item {first!r} would be item {self.n_total + 1:,} of a benchmark declared with "
                                f"`n_items`={self.n_total}: {total:,} items have results, {total - self.n_total:,} "
                                "more than declared; declare the right size", param="n_items")
            self._add_items(unknown)
        return np.fromiter((self._iidx[n] for n in names), dtype=np.int64, count=len(names))

    def update(self, model: str, item: str, score: float, *, run: str = "0") -> "Watch":
        """Add one result (``score`` of ``model`` on ``item``; several runs per item are averaged)."""
        return self.update_many([(model, item, score)], run=run)

    def update_many(self, rows: "pd.DataFrame | Iterable[tuple[str, str, float]]", *, model: str = "model",
                    item: str = "item", score: str = "score", run: str | None = None) -> "Watch":
        """Add many results: a long DataFrame (columns ``model, item, score`` and optionally ``run``) or
        ``(model, item, score)`` tuples, in the order they arrived. Re-adding a result already here changes
        nothing."""
        if hasattr(rows, "columns"):
            df = rows
            for c in (model, item, score):
                if c not in df.columns:
                    raise DataError(f"column {c!r} is missing; the rows have {', '.join(map(str, df.columns))}")
            runs = df[run].astype(str).to_numpy() if run and run in df.columns else (
                df["run"].astype(str).to_numpy() if "run" in df.columns else None)
            ms = df[model].astype(str).tolist()
            its = df[item].astype(str).tolist()
            raw: list[Any] = df[score].tolist()
        else:
            trip = list(rows)
            ms = [str(t[0]) for t in trip]
            its = [str(t[1]) for t in trip]
            raw = [t[2] for t in trip]
            runs = None
        mi = self._model_index(ms)
        ii = self._item_index(its)
        vs = self._check_values(raw, mi, ii)
        if runs is None:
            self._set(mi, ii, vs, run or "0")
        else:
            for r in dict.fromkeys(runs):
                sel = runs == r
                self._set(mi[sel], ii[sel], vs[sel], str(r))
        self._arrive(ii)
        return self

    def update_matrix(self, m: "ScoreMatrix") -> "Watch":
        """Add every scored cell of a :class:`ScoreMatrix` (its models must be among this Watch's); with
        ``order="arrival"`` its items arrive in the matrix's item order."""
        mi = self._model_index(m.models)
        ii = self._item_index(list(m.items))
        for r in range(m.n_runs):
            d = m.data[:, :, r]
            ok = ~np.isnan(d)
            a, b = np.nonzero(ok)
            self._set(mi[a], ii[b], d[a, b], m.runs[r] if r < len(m.runs) else str(r))
        self._arrive(ii)
        return self

    # ---- the analysis order, kept up to date as results arrive -----------------------------------------
    def _arrive(self, ii: np.ndarray) -> None:
        """Results for items ``ii`` (in arrival order) are in: extend the analysis as far as it can go."""
        if self.order == "arrival":
            # a unit's place in the arrival order: the batch, then the last row in it that touched the unit
            last = {}
            for k, i in enumerate(ii.tolist()):
                last[i] = k
            for i in sorted(last, key=last.__getitem__):
                if i not in self._pending and not self._placed(i):
                    self._pending[i] = None
        self._sync()

    def _placed(self, unit: int) -> bool:
        return unit in self._placed_set

    def _unit_columns(self, units: list[int]) -> np.ndarray:
        """Models x units scores in [0, 1] (NaN where incomplete): a cell's mean over its runs, a group's mean over
        its items."""
        with np.errstate(invalid="ignore", divide="ignore"):
            if not self.cluster:
                idx = np.asarray(units, dtype=np.int64)
                cnt = self._cnt[:, idx]
                val = self._sum[:, idx] / np.maximum(cnt, 1)
                need = self.n_runs or 1
                return np.where(cnt >= need, val, np.nan)
            out = np.full((len(self.models), len(units)), np.nan)
            need = self.n_runs or 1
            for c, g in enumerate(units):
                mem = self._members[g]
                cnt = self._cnt[:, mem]
                val = self._sum[:, mem] / np.maximum(cnt, 1)
                out[:, c] = np.where((cnt >= need).all(axis=1), val.mean(axis=1), np.nan)
            return out

    def _sync(self) -> None:
        """Hand the engine every unit that is next in the order and complete for the models in play."""
        eng = self._engine
        while True:
            if self.target != "ranks" and eng.done_at:
                return
            ip = eng.in_play.copy()
            if self.order == "arrival":
                if self._pending:
                    cand = list(self._pending)
                    cols = self._unit_columns(cand)
                    ok = ~np.isnan(cols[ip]).any(axis=0)
                    for u, good in zip(cand, ok):
                        if good:
                            del self._pending[u]
                            self._order.append(u)
                            self._placed_set.add(u)
            new: list[np.ndarray] = []
            fed = self._fed
            while fed < len(self._order):
                chunk = self._order[fed:fed + _SCAN]
                cols = self._unit_columns(chunk)
                bad = np.isnan(cols[ip]).any(axis=0)
                n_ok = int(np.argmax(bad)) if bad.any() else len(chunk)
                if n_ok:
                    new.append(cols[:, :n_ok])
                    fed += n_ok
                if n_ok < len(chunk):
                    break
            if not new:
                return
            self._fed = fed
            eng.extend(np.concatenate(new, axis=1))
            eng.advance(pairs=False)
            if (eng.in_play == ip).all():
                return      # nothing left play, so nothing new became complete

    def dispatch(self, items: Iterable[str]) -> "Watch":
        """Record that the harness sent ``items``, in this order (``order="dispatch"``): each joins the analysis
        order after every item sent before it, and its results wait until those are complete. An item sent again
        (another epoch, a retry) keeps its first place. Call it when a sample is sent, before its result can be
        known (an order chosen after seeing results voids the guarantee)."""
        if self.order != "dispatch":
            raise ArgumentError(f"`Watch.dispatch` records the sending order of `order`='dispatch'; this Watch has "
                                f"`order`='{self.order}'", param="order")
        names = [str(i) for i in items]
        for i in self._item_index(names).tolist():
            if i not in self._sent:
                self._sent[i] = len(self._order)
                self._order.append(i)
        self._sync()
        return self

    def position(self, item: str) -> int:
        """The item's place (0-based) in the analysis order: score items in increasing place (with
        ``cluster=True`` the place of its group, so a group's items come together). Declared items, or items
        already sent with ``order="dispatch"``."""
        if self.order == "dispatch":
            i = self._iidx.get(str(item))
            if i is None or i not in self._sent:
                raise ArgumentError(f"item {item!r} has not been sent (`Watch.dispatch`); its place is the order in "
                                    "which it is sent", param="item")
            return self._sent[i]
        if self.order != "seeded":
            raise ArgumentError("with `order`='arrival' an item has no place before it arrives; send items in a "
                                "shuffled order and use `order`='dispatch'", param="order")
        i = self._iidx.get(str(item))
        if i is None:
            raise ArgumentError(f"item {item!r} is not one of the {len(self._items):,} declared items", param="item")
        if not hasattr(self, "_rank"):
            self._rank = np.empty(len(self._order), dtype=np.int64)
            self._rank[np.asarray(self._order, dtype=np.int64)] = np.arange(len(self._order))
        return int(self._rank[self._group_of[i] if self.cluster else i])

    def analysed_items(self) -> list[str]:
        """The items analysed so far, in the analysis order (with ``cluster=True`` each analysed group's items)."""
        t = self._engine.t
        if self.cluster:
            return [self._items[i] for g in self._order[:t] for i in self._members[g]]
        return [self._items[i] for i in self._order[:t]]

    def item_order(self) -> list[str]:
        """The items in the analysis order (declared: the seeded order of all of them; dispatch: those sent so far,
        in the order sent; arrival: those that have entered so far). With ``cluster=True`` the groups in order, each
        group's items together."""
        if self.cluster:
            return [self._items[i] for g in self._order for i in self._members[g]]
        return [self._items[i] for i in self._order]

    # ---- public hooks for adapters (inspect_ai) ---------------------------------------------------------
    def models_in_play(self) -> tuple[str, ...]:
        """Models still scored (not eliminated), as of the results analysed so far."""
        return tuple(m for m, ip in zip(self.models, self._engine.in_play) if ip)

    @property
    def decided(self) -> bool:
        """The target is certified (no more scoring needed)."""
        return bool(self._engine.done_at) or bool(self._engine._done_time())

    def knows_item(self, item: str) -> bool:
        return str(item) in self._iidx

    def has_results(self) -> bool:
        return bool(self._runs)

    def expect_runs(self, n_runs: int) -> None:
        """Declare the runs per item (before any result): an item then waits for all of them."""
        n_runs = _validate.count(n_runs, "n_runs")
        if self._runs and self.n_runs != n_runs:
            raise ArgumentError(f"this Watch already has results with n_runs={self.n_runs}; build it with "
                                f"n_runs={n_runs}", param="n_runs")
        self.n_runs = n_runs

    # ---- analysis --------------------------------------------------------------------------------------
    def _config(self) -> EngineConfig:
        return EngineConfig(alpha=1 - self.confidence_level,
                            population_size=self.n_total if self.scope == "benchmark" else None,
                            kind=self.method, rule=self.rule, target=self.target, k=self.k,
                            best_method=self.best_method, eliminate=self.eliminate, final_look=self.final_look,
                            stop_when_done=self.target != "ranks", horizon=self.n_total, pairs=self.pair_tests)

    def _run(self) -> tuple[EngineResult, np.ndarray, np.ndarray]:
        """Bring the pairwise tests up to date and take a snapshot: the engine result, the analysed
        models x units scores (analysis order) and the unit indices in that order."""
        eng = self._engine
        eng.advance(pairs=self.pair_tests)
        t = eng.t
        return eng.result(), eng.scores[:, :t], np.asarray(self._order[:t], dtype=np.int64)

    def next(self, budget: int = 64) -> list[tuple[str, str]]:
        """Up to ``budget`` (model, item) cells to score next: with declared items the next items of the seeded
        order (dispatch: of the items sent), only for models still in play; with arrival order the missing cells of
        items already started; nothing once the target is decided."""
        budget = _validate.count(budget, "budget", minimum=0)
        return self._next(budget)

    def _missing(self, units: list[int], ip: np.ndarray) -> list[tuple[int, int]]:
        """(model, item) index pairs not yet complete among ``units`` for models in play, unit by unit."""
        need = self.n_runs or 1
        out: list[tuple[int, int]] = []
        for u in units:
            its = self._members[u] if self.cluster else np.asarray([u])
            if self.cluster:
                its = its[np.argsort(item_keys([self._items[i] for i in its], self.seed), kind="stable")]
            for i in its:
                for j in ip:
                    if self._cnt[j, i] < need:
                        out.append((int(j), int(i)))
        return out

    def _next(self, budget: int) -> list[tuple[str, str]]:
        eng = self._engine
        if budget == 0 or eng.done_at:
            return []
        ip = np.flatnonzero(eng.in_play)
        units = list(self._pending) if self.order == "arrival" else self._order[eng.t:]
        out: list[tuple[int, int]] = []
        step = max(1, budget // max(ip.size, 1) + 1)
        pos = 0
        while len(out) < budget and pos < len(units):
            out.extend(self._missing(units[pos:pos + step], ip))
            pos += step
        return [(self.models[j], self._items[i]) for j, i in out[:budget]]

    def _waiting(self, limit: int = 5) -> tuple[list[dict[str, Any]], int]:
        """The next units of the order that block the analysis (with the models they lack), and how many results
        are held back (cells in, on units not yet analysed)."""
        eng = self._engine
        if eng.done_at:
            return [], 0
        ip = np.flatnonzero(eng.in_play)
        if self.order == "arrival":
            units = list(self._pending)
        else:
            units = self._order[eng.t:]
        unsent: list[int] = []
        if self.order == "dispatch":   # results for items not sent yet wait too (after everything sent)
            unsent = [u for u in range(len(self._items)) if u not in self._sent]
        held = 0
        blocking: list[dict[str, Any]] = []
        if units:
            idx = np.asarray(units, dtype=np.int64)
            items = np.concatenate([self._members[u] for u in units]) if self.cluster else idx
            held = int((self._cnt[:, items] > 0).sum())
        if unsent:
            held += int((self._cnt[:, np.asarray(unsent, dtype=np.int64)] > 0).sum())
        if held == 0:
            return [], 0
        for k, u in enumerate(units):
            miss = self._missing([u], ip)
            if miss:
                label = self._groups[u] if self.cluster else self._items[u]
                blocking.append({"item": label, "position": (eng.t + k + 1) if self.order != "arrival" else None,
                                 "missing": sorted({self.models[j] for j, _ in miss}, key=self._midx.get)})
            if len(blocking) >= limit:
                break
        if not blocking and unsent:
            first = next((u for u in unsent if (self._cnt[:, u] > 0).any()), None)
            if first is not None:
                blocking.append({"item": self._items[first], "position": None, "missing": [], "sent": False})
        return blocking, held

    def status(self, *, next_budget: int = 64) -> WatchStatus:
        """The certified sets, decided and open pairs, what the analysis waits for, and the next cells to score."""
        e, X, order = self._run()
        K = len(self.models)
        n_seen = np.where(e.in_play, e.t, e.scored_until)
        with np.errstate(invalid="ignore", divide="ignore"):
            scores = np.where(n_seen > 0, e.sx / np.maximum(n_seen, 1), np.nan)
        lo_r, hi_r = self.score_range
        scores = lo_r + (hi_r - lo_r) * scores
        pi, pj = e.pair_i, e.pair_j
        win_i = e.up_at > 0
        win_j = e.dn_at > 0
        if self.target in ("best", "top"):
            # the target's own certified statements: a model out of the top-k set ranks below k; when exactly
            # k models are left, they are the top k
            in_set = e.excluded_at == 0
            rank_low = np.where(in_set, 1, self.k + 1).astype(np.int64)
            rank_high = np.full(K, K, dtype=np.int64)
            if in_set.sum() == self.k:
                rank_high[in_set] = self.k
        else:
            better = np.zeros(K, dtype=np.int64)   # models certified better
            worse = np.zeros(K, dtype=np.int64)
            np.add.at(better, pj[win_i], 1)
            np.add.at(worse, pi[win_i], 1)
            np.add.at(better, pi[win_j], 1)
            np.add.at(worse, pj[win_j], 1)
            rank_low = 1 + better
            rank_high = K - worse
            in_set = rank_low == 1
        decided = []
        for p in np.flatnonzero(win_i | win_j):
            a, b = self.models[pi[p]], self.models[pj[p]]
            at = int(e.up_at[p]) if win_i[p] else int(e.dn_at[p])
            decided.append({"a": a, "b": b, "winner": a if win_i[p] else b, "at_item": at})
        decided.sort(key=lambda d: (d["at_item"], d["a"], d["b"]))
        both = e.in_play[pi] & e.in_play[pj] if self.eliminate else np.ones(pi.size, dtype=bool)
        relevant = (in_set[pi] & in_set[pj] if self.target != "ranks" else True) & both
        open_ = np.flatnonzero(relevant & ~win_i & ~win_j)
        unres = self._unresolvable(e, open_)
        target_decided = bool(e.done_at)
        done = target_decided or (open_.size > 0 and unres.size == open_.size)
        nxt = [] if done else self._next(next_budget)
        waiting, held = ([], 0) if done else self._waiting()
        show = np.ones(pi.size, dtype=bool) if self.target == "ranks" else (in_set[pi] & in_set[pj]) | win_i | win_j
        pairs = self._pair_intervals(e, np.flatnonzero(show))
        return WatchStatus(
            target=self.target_label, scope=self.scope, method=self.method,
            confidence_level=self.confidence_level, models=self.models, items_seen=int(e.t),
            items_total=self.n_total, cells_scored=self._cells(e, order),
            scores=scores, best_set=tuple(self.models[i] for i in np.flatnonzero(in_set)),
            excluded=[{"model": self.models[i], "at_item": int(e.excluded_at[i])}
                      for i in np.argsort(e.excluded_at, kind="stable") if e.excluded_at[i] > 0],
            rank_low=rank_low, rank_high=rank_high, decided=decided,
            open_pairs=[[self.models[pi[p]], self.models[pj[p]]] for p in open_],
            unresolvable_pairs=[[self.models[pi[p]], self.models[pj[p]]] for p in unres],
            next=[{"model": m, "item": i} for m, i in nxt], done=done, seed=self.seed, pairs=pairs,
            n_items=n_seen, waiting_for=tuple(waiting), unit="cluster" if self.cluster else "item",
            order=self.order, target_decided=target_decided, held_back=held,
            items_received=self._n_units(), final_look=float(e.final_look),
            notes=(Note("watch_arrival_latency", {}),) if self.order == "arrival" else (),
        )

    def _cells(self, e: EngineResult, order: np.ndarray) -> int:
        """Model x item cells the analysis used (a group counts its items)."""
        if not self.cluster:
            return int(e.cells)
        size = np.bincount(self._group_of, minlength=len(self._groups))[order]
        cum = np.concatenate([[0], np.cumsum(size)])
        return int(cum[np.where(e.in_play, e.t, e.scored_until)].sum())

    def bands(self, *, max_pairs: int = 12) -> list[dict[str, Any]]:
        """Each decision's confidence band against the items scored (for the HTML page).

        For ``target="best"``: the leader against every other model, in the order they left the best set, at the
        pairwise best-set level ``alpha/(K-1)`` per side (the portfolio test that excludes a model bets on its
        leading rival, which is usually the leader). Otherwise: adjacent models in score order, at their family's
        level. ``at_item`` marks the certification.
        """
        from ._cs import _eb_bounds, _wor_range

        e, X, _ = self._run()
        K = len(self.models)
        alpha = 1 - self.confidence_level
        n_seen = np.where(e.in_play, e.t, e.scored_until)
        means = np.where(n_seen > 0, e.sx / np.maximum(n_seen, 1), -np.inf)
        pidx = {(int(a), int(b)): p for p, (a, b) in enumerate(zip(e.pair_i, e.pair_j))}
        best_portfolio = self.target == "best" and self.best_method == "portfolio"
        if self.target == "best":
            in_set = np.flatnonzero(e.excluded_at == 0)
            lead = int(in_set[np.argmax(means[in_set])]) if in_set.size else int(np.argmax(means))
            others = sorted((j for j in range(K) if j != lead),
                            key=lambda j: (e.excluded_at[j] == 0, e.excluded_at[j], -means[j]))
            pairs = [(lead, j, int(e.excluded_at[j])) for j in others]
            a_side = alpha / (K - 1)
        else:
            order = np.argsort(-means, kind="stable")
            pairs = []
            for a, b in zip(order[:-1], order[1:]):
                p = pidx[(min(a, b), max(a, b))]
                at = e.up_at[p] if a < b else e.dn_at[p]
                pairs.append((int(a), int(b), int(at)))
            n_cmp = self.k * (2 * K - self.k - 1) / 2 if self.target == "top" else K * (K - 1)
            a_side = alpha / n_cmp
        N = self.n_total if self.scope == "benchmark" else None
        out = []
        for a, b, at in pairs[:max_pairs]:
            n = int(min(n_seen[a], n_seen[b]))
            if n == 0:
                continue
            y = (X[a, :n] - X[b, :n] + 1) / 2
            f = self.score_range[1] - self.score_range[0]
            if best_portfolio:
                # the statistic of the portfolio test when the rival is the leader: a one-sided betting
                # sequence at level alpha (its lower bound crossing 0 is the exclusion)
                from ._cs import confidence_sequence

                cs = confidence_sequence(2 * y - 1, bounds=(-1.0, 1.0), method=self.method, rule=self.rule,
                                         alternative="greater", confidence_level=1 - alpha, grid=401,
                                         population_size=N)
                low, high, level, meth = cs.ci_low * f, np.full(n, np.nan), 1 - alpha, \
                    f"{self.method}, one-sided, lower bound"
                high = np.maximum(2 * np.cumsum(y) / np.arange(1, n + 1) - 1, low / f) * f
            else:
                lo, hi = _eb_bounds(y[None, :], a_side, a_side, N, 0.5)
                dl, dh = _wor_range(y[None, :], N)
                lo = np.clip(lo[0], dl[0], dh[0])
                hi = np.clip(hi[0], dl[0], dh[0])
                low, high, level, meth = (2 * lo - 1) * f, (2 * np.maximum(hi, lo) - 1) * f, 1 - 2 * a_side, "PrPl-EB"
            out.append({"a": self.models[a], "b": self.models[b], "t": np.arange(1, n + 1), "low": low,
                        "high": high, "estimate": (2 * np.cumsum(y) / np.arange(1, n + 1) - 1) * f,
                        "at_item": at, "level": level, "method": meth})
        return out

    def _unresolvable(self, e: EngineResult, open_: np.ndarray) -> np.ndarray:
        """Open pairs that cannot separate by the last item even if every remaining item went one way."""
        if open_.size == 0 or self.n_total is None:
            return np.empty(0, dtype=np.int64)
        N = self.n_total
        if not self.pair_tests:
            self._set_intervals(e, open_)
        st = (e.pair_state if self.pair_tests else self._set_wealth).take(open_)
        R = N - (e.pair_state.n if self.pair_tests else self._ci.n)[open_]
        if self.scope == "benchmark":
            # exact at the last item: only a pair already scored everywhere and tied stays undecided
            return open_[R == 0]
        alpha = 1 - self.confidence_level
        K = len(self.models)
        if self.target == "best":
            thr = np.log(1 / alpha)
        elif self.target == "top":
            thr = np.log(self.k * (2 * K - self.k - 1) / 2 / alpha)
        else:
            thr = np.log(K * (K - 1) / alpha)
        can = (np.maximum(st.logw_up, st.logw_dn) >= thr) | (R == 0) & False
        for val in (1.0, 0.0):
            cur = st.copy()
            todo = np.flatnonzero(~can & (R > 0))
            done = 0
            step = 32   # most pairs that can separate do so within a few dozen one-sided items
            while todo.size:
                L = int(min(step, (R[todo] - done).max()))
                step = min(2 * step, 1024)
                if L <= 0:
                    break
                y = np.where(np.arange(done, done + L)[None, :] < R[todo][:, None], val, 0.5)
                sub, wu, wd = advance(cur.take(todo), y, 0.5, thr, rule=self.rule, kind=self.method, horizon=N)
                cur.put(todo, sub)
                w = wu if val == 1.0 else wd
                can[todo[w.max(axis=1) >= thr]] = True
                done += L
                todo = todo[~can[todo] & (R[todo] > done)]
        return open_[~can]

    def _set_intervals(self, e: EngineResult, show: np.ndarray) -> tuple[np.ndarray, ...]:
        """Without the all-pairs tests: the intervals of the pairs shown (inside the set), kept as running sums
        here and brought up to the items both models were scored on. A set only shrinks, so a pair shown now was
        shown (or could have been) at every earlier look: each item is added once per pair."""
        from ._cs import IntervalState

        from ._stream import StreamState

        P = e.pair_i.size
        if not hasattr(self, "_ci"):
            self._ci = IntervalState.zeros(P)
            self._set_wealth = StreamState.zeros(P)   # the pairwise bets, for the futility check
        until = np.where(e.in_play, e.t, e.scored_until)
        target = np.minimum(until[e.pair_i], until[e.pair_j])
        X = self._engine.scores
        K = len(self.models)
        a_side = (1 - self.confidence_level) / (K * (K - 1))
        N = self.n_total if self.scope == "benchmark" else None
        todo = show[self._ci.n[show] < target[show]]
        while todo.size:
            start = int(self._ci.n[todo].min())
            act = todo[self._ci.n[todo] == start]
            end = int(target[act].min())
            y = (X[e.pair_i[act], start:end] - X[e.pair_j[act], start:end] + 1) / 2
            self._ci.advance(act, y, a_side, N)
            if N is None:
                st, _, _ = advance(self._set_wealth.take(act), y, 0.5, self._engine.thr_pair_lam, rule=self.rule,
                                   kind=self.method, horizon=self.n_total)
                self._set_wealth.put(act, st)
            todo = show[self._ci.n[show] < target[show]]
        return 2 * self._ci.low - 1, 2 * self._ci.high - 1, self._ci.mean(), self._ci.n

    def _pair_intervals(self, e: EngineResult, show: np.ndarray) -> list[dict[str, Any]]:
        """The difference of each pair in ``show`` and its all-pairs confidence-sequence interval (PrPl-EB at
        alpha / (K (K - 1)) per side, over the items both models were scored on), kept up to date item by item by
        the engine (for every pair with ``pair_tests``, else for the pairs inside the set)."""
        f = self.score_range[1] - self.score_range[0]
        if self.pair_tests:
            low, high, diff, n_pair = e.pair_ci_low, e.pair_ci_high, e.pair_diff, e.pair_n
        else:
            low, high, diff, n_pair = self._set_intervals(e, show)
        out = []
        for p in show:
            n = int(n_pair[p])
            a, b = self.models[e.pair_i[p]], self.models[e.pair_j[p]]
            if n == 0:
                out.append({"a": a, "b": b, "n_items": 0, "diff": None, "low": _f(-f), "high": _f(f)})
                continue
            lo, hi = float(low[p]), float(high[p])
            out.append({"a": a, "b": b, "n_items": n, "diff": _f(diff[p] * f), "low": _f(lo * f),
                        "high": _f(max(hi, lo) * f)})
        return out
