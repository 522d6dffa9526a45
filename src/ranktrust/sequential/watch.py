"""``Watch``: a leaderboard evaluated while results arrive, with anytime-valid decisions.

The items are analysed in one random order fixed by the seed (each item's place comes from a hash of the seed
and its label, so it does not depend on when results arrive). The analysis uses the longest prefix of that order
in which every model still in play has a score; results that arrive out of order wait until the prefix reaches
them. The status is therefore a function of the set of results alone: feeding the same results again, or in
pieces, gives the same status.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Literal, Mapping, Sequence

import numpy as np

from .. import _validate
from .._validate import SeedLike
from ..errors import DataError
from ._engine import EngineConfig, EngineResult, run_engine
from ._final import FINAL_LOOK
from ._status import WatchStatus, _f, item_keys, parse_target
from ._stream import LAMBDA_RULES, advance

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..data.matrix import ScoreMatrix

__all__ = ["Watch", "WatchStatus", "parse_target"]

Scope = Literal["population", "benchmark"]


class Watch:
    """Watch a leaderboard while results arrive; decisions stay valid however often you look.

    Parameters
    ----------
    models : sequence of str
        The models being evaluated.
    items : sequence of str, optional
        The benchmark's items. Needed for ``scope="benchmark"``, for unresolvable pairs and for ``next()``.
        Without it, items are taken as they arrive.
    target : str, default: ``"best"``
        ``"best"`` (which models can be #1), ``"topK"`` such as ``"top3"``, or ``"ranks"`` (every pair).
    confidence_level : float, default: ``0.95``
        The family-wise guarantee: the certified set contains the true best model (the true top k, every true
        rank; every decided pair is right) at every time, with this probability.
    scope : {"population", "benchmark"}, default: ``"population"``
        ``"population"``: the items are a sample from a population of questions like these (sequences with
        replacement). ``"benchmark"``: the question is this finite benchmark (sequences without replacement,
        exact at the last item).
    method : {"betting", "eb"}, default: ``"betting"``
        Hedged betting or predictable plug-in empirical-Bernstein e-processes.
    rule : {"agrapa", "prpl"}, default: ``"agrapa"``
        Bet sizes.
    eliminate : bool, default: ``True``
        Stop scoring a model once it has left the target set. With ``False`` every model is scored to the
        end, and the best set (scope population, known items) holds ``final_look`` of alpha for a fixed-n
        test at the last item (docs/watch.md): sharper at the end, slower to certify before it.
    best_method : {"portfolio", "pairs"}, default: ``"portfolio"``
        How the best set is tested (see docs/watch.md).
    score_range : (float, float), default: ``(0, 1)``
        The range a score can take; scores are rescaled to [0, 1].
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, default: ``0``
        Fixes the random item order: the int seed derived from it (:func:`ranktrust._validate.seed`; an int
        as is) keys a hash of each item name, so the order is reproducible and items arriving later take their
        place in it. Recorded as ``seed`` in the status.
    cluster : bool, default: ``False``
        Sample whole item groups (``groups``: subjects, passages, repositories) as the unit. The groups are analysed
        in a random order fixed by the seed; a group enters the analysis once every one of its items is scored for
        every model still in play, with its mean score, so the statistic is the mean over groups (each group
        weighted equally) and correlated items within a group do not count as independent evidence. Needs
        ``items``.
    groups : mapping or sequence, optional
        Each item's group: a mapping ``item -> group`` or a sequence aligned with ``items``.
    n_runs : int, optional
        Runs every item gets per model (inspect's epochs). When given, an item enters the analysis only once all
        its runs are in, so each item's score (the mean of its runs) is final when it is first analysed and the
        decisions form one anytime-valid sequence. Without it an item's score is the mean of the runs read so
        far: valid when every run of an item arrives before the analysis reaches it (a finished matrix, one run
        per item), not when later runs revise items already analysed.
    final_look : float, default: ``0.4``
        Share of alpha the best set holds for its fixed-n test at the last item, in [0, 1); used only
        without elimination, at scope population with known items (``0``: all of alpha on the bets).

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

    def __init__(self, models: Sequence[str], items: Sequence[str] | None = None, *, target: str = "best",
                 confidence_level: float = 0.95, scope: Scope = "population",
                 method: Literal["betting", "eb"] = "betting", rule: Literal["agrapa", "prpl"] = "agrapa",
                 eliminate: bool = True, best_method: Literal["portfolio", "pairs"] = "portfolio",
                 score_range: tuple[float, float] = (0.0, 1.0), rng: SeedLike = 0, cluster: bool = False,
                 groups: Mapping[str, Any] | Sequence[Any] | None = None, n_runs: int | None = None,
                 final_look: float = FINAL_LOOK) -> None:
        models = tuple(str(m) for m in models)
        if len(models) < 2:
            raise ValueError(f"`models` must name at least two models, got {len(models)}")
        if len(set(models)) != len(models):
            raise ValueError("`models` has a duplicate name")
        self.target, self.k = parse_target(target)
        self.target_label = "best" if self.target == "best" else (f"top{self.k}" if self.target == "top" else "ranks")
        if self.target == "top" and self.k >= len(models):
            raise ValueError(f"`target` top{self.k} needs more than {self.k} models, got {len(models)}")
        confidence_level = _validate.confidence_level(confidence_level)
        _validate.choice(scope, "scope", ("population", "benchmark"))
        _validate.choice(method, "method", ("betting", "eb"))
        _validate.choice(rule, "rule", LAMBDA_RULES)
        _validate.choice(best_method, "best_method", ("portfolio", "pairs"))
        lo, hi = score_range
        if not hi > lo:
            raise ValueError(f"`score_range` must be (low, high) with low < high, got {score_range!r}")
        if scope == "benchmark" and items is None:
            raise ValueError("`scope='benchmark'` needs `items` (the whole benchmark): the sequences sample it "
                             "without replacement and must know its size")
        self.models = models
        self._midx = {m: i for i, m in enumerate(models)}
        self.scope = scope
        self.confidence_level = float(confidence_level)
        self.method, self.rule, self.eliminate, self.best_method = method, rule, bool(eliminate), best_method
        self.final_look = _validate.probability(final_look, "final_look", high_open=True, hint=" (a share of alpha)")
        self.score_range = (float(lo), float(hi))
        self.seed = _validate.seed(rng)
        self.fixed_items = items is not None
        self._items: list[str] = []
        self._iidx: dict[str, int] = {}
        self._keys = np.empty(0, dtype=np.uint64)
        self._runs: dict[str, np.ndarray] = {}
        if items is not None:
            self._add_items([str(i) for i in items], check_unique=True)
        self.n_runs = None if n_runs is None else _validate.count(n_runs, "n_runs")
        self.cluster = _validate.cluster(cluster, groups)
        self._group_of = np.zeros(0, dtype=np.int64)   # item index -> group index
        self._groups: list[str] = []
        self._gkeys = np.empty(0, dtype=np.uint64)
        if self.cluster:
            if items is None:
                raise ValueError("`cluster`=True needs `items` (with their `groups`): a group enters the analysis only "
                                 "once all its items are scored, so its items must be known")
            if isinstance(groups, Mapping):
                gmap = {str(k): str(v) for k, v in groups.items()}
                missing = [it for it in self._items if it not in gmap]
                if missing:
                    raise ValueError(f"`groups` has no group for item {missing[0]!r} "
                                     f"({len(missing):,} of {len(self._items):,} items have none)")
                glab = [gmap[it] for it in self._items]
            else:
                glab = [str(g) for g in groups]  # type: ignore[union-attr]
                if len(glab) != len(self._items):
                    raise ValueError(f"`groups` must give one group per item: {len(glab):,} groups for "
                                     f"{len(self._items):,} items")
            uniq, inv = np.unique(np.asarray(glab, dtype=object).astype(str), return_inverse=True)
            self._groups = [str(g) for g in uniq]
            self._group_of = inv.astype(np.int64)
            self._gkeys = item_keys(self._groups, self.seed)

    # ---- data in ---------------------------------------------------------------------------------------
    def _add_items(self, new: list[str], check_unique: bool = False) -> None:
        if check_unique and len(set(new)) != len(new):
            raise ValueError("`items` has a duplicate label")
        fresh = [i for i in dict.fromkeys(new) if i not in self._iidx]
        if not fresh:
            return
        base = len(self._items)
        for j, it in enumerate(fresh):
            self._iidx[it] = base + j
        self._items.extend(fresh)
        self._keys = np.concatenate([self._keys, item_keys(fresh, self.seed)])
        for r, a in self._runs.items():
            self._runs[r] = np.concatenate([a, np.full((len(self.models), len(fresh)), np.nan)], axis=1)

    def _set(self, mi: np.ndarray, ii: np.ndarray, vals: np.ndarray, run: str) -> None:
        lo, hi = self.score_range
        bad = ~np.isfinite(vals) | (vals < lo - 1e-9) | (vals > hi + 1e-9)
        if bad.any():
            k = int(np.argmax(bad))
            raise DataError(f"score {vals[k]!r} for model {self.models[mi[k]]!r}, item {self._items[ii[k]]!r} is "
                            f"outside the score range [{lo:g}, {hi:g}]; pass score_range=(low, high)")
        a = self._runs.get(run)
        if a is None:
            a = self._runs[run] = np.full((len(self.models), len(self._items)), np.nan)
        y = (vals - lo) / (hi - lo)
        old = a[mi, ii]
        clash = ~np.isnan(old) & ~np.isclose(old, y, rtol=0, atol=1e-9)
        if clash.any():
            k = int(np.argmax(clash))
            raise DataError(f"model {self.models[mi[k]]!r}, item {self._items[ii[k]]!r}, run {run!r} already has "
                            f"score {old[k] * (hi - lo) + lo:g}, and now {vals[k]:g}: results are only ever added; "
                            "give a new run label for a new sample")
        if self.n_runs is not None:
            have = sum(np.isfinite(r[mi, ii]) for k, r in self._runs.items() if k != run)
            over = np.isnan(old) & (have + 1 > self.n_runs)
            if over.any():
                k = int(np.argmax(over))
                raise DataError(f"model {self.models[mi[k]]!r}, item {self._items[ii[k]]!r} already has all its "
                                f"{self.n_runs} runs (`n_runs`); run {run!r} would be one more")
        a[mi, ii] = y

    def _model_index(self, names: Iterable[str]) -> np.ndarray:
        out = []
        for n in names:
            i = self._midx.get(str(n))
            if i is None:
                raise DataError(f"unknown model {n!r}; this Watch has {', '.join(self.models)}")
            out.append(i)
        return np.asarray(out, dtype=np.int64)

    def _item_index(self, names: list[str]) -> np.ndarray:
        unknown = [n for n in names if n not in self._iidx]
        if unknown:
            if self.fixed_items:
                raise DataError(f"item {unknown[0]!r} is not one of the {len(self._items):,} items this Watch "
                                "was given")
            self._add_items(unknown)
        return np.fromiter((self._iidx[n] for n in names), dtype=np.int64, count=len(names))

    def update(self, model: str, item: str, score: float, *, run: str = "0") -> "Watch":
        """Add one result (``score`` of ``model`` on ``item``; several runs per item are averaged)."""
        return self.update_many([(model, item, score)], run=run)

    def update_many(self, rows: "pd.DataFrame | Iterable[tuple[str, str, float]]", *, model: str = "model",
                    item: str = "item", score: str = "score", run: str | None = None) -> "Watch":
        """Add many results: a long DataFrame (columns ``model, item, score`` and optionally ``run``) or
        ``(model, item, score)`` tuples. Re-adding a result already here changes nothing."""
        if hasattr(rows, "columns"):
            df = rows
            for c in (model, item, score):
                if c not in df.columns:
                    raise DataError(f"column {c!r} is missing; the rows have {', '.join(map(str, df.columns))}")
            runs = df[run].astype(str).to_numpy() if run and run in df.columns else (
                df["run"].astype(str).to_numpy() if "run" in df.columns else None)
            ms = df[model].astype(str).tolist()
            its = df[item].astype(str).tolist()
            vs = df[score].to_numpy(dtype=float)
        else:
            trip = list(rows)
            ms = [str(t[0]) for t in trip]
            its = [str(t[1]) for t in trip]
            vs = np.asarray([t[2] for t in trip], dtype=float)
            runs = None
        mi = self._model_index(ms)
        ii = self._item_index(its)
        if runs is None:
            self._set(mi, ii, vs, run or "0")
        else:
            for r in dict.fromkeys(runs):
                sel = runs == r
                self._set(mi[sel], ii[sel], vs[sel], str(r))
        return self

    def update_matrix(self, m: "ScoreMatrix") -> "Watch":
        """Add every scored cell of a :class:`ScoreMatrix` (its models must be among this Watch's)."""
        mi = self._model_index(m.models)
        ii = self._item_index(list(m.items))
        for r in range(m.n_runs):
            d = m.data[:, :, r]
            ok = ~np.isnan(d)
            a, b = np.nonzero(ok)
            self._set(mi[a], ii[b], d[a, b], m.runs[r] if r < len(m.runs) else str(r))
        return self

    def position(self, item: str) -> int:
        """The item's place key in the analysis order (sort items by it to score them in that order; with
        ``cluster=True`` the key of its group, so a group's items come together)."""
        i = self._iidx.get(str(item))
        if i is not None and self.cluster:
            return int(self._gkeys[self._group_of[i]])
        return int(self._keys[i]) if i is not None else int(item_keys([str(item)], self.seed)[0])

    def item_order(self) -> list[str]:
        """The known items in the analysis order (a random order fixed by the seed; with ``cluster=True`` the
        groups in a random order, each group's items together)."""
        if self.cluster:
            order = np.lexsort((self._keys, self._gkeys[self._group_of]))
            return [self._items[i] for i in order]
        return [self._items[i] for i in np.argsort(self._keys, kind="stable")]

    # ---- analysis --------------------------------------------------------------------------------------
    def _n_units(self) -> int:
        """Items (or groups, with ``cluster=True``) in the benchmark."""
        return len(self._groups) if self.cluster else len(self._items)

    def _item_scores(self) -> np.ndarray:
        """Models x items (in the order items were first seen): each cell the mean over its runs, NaN if none."""
        if not self._runs:
            return np.full((len(self.models), len(self._items)), np.nan)
        import warnings

        stack = np.stack(list(self._runs.values()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            X = np.nanmean(stack, axis=0)
        if self.n_runs is not None:   # an item waits for all its runs
            X[np.isfinite(stack).sum(axis=0) < self.n_runs] = np.nan
        return X

    def _ordered(self) -> tuple[np.ndarray, np.ndarray]:
        """The units (items, or groups) in the analysis order: models x units scores and the unit indices. A
        group's score is the mean over its items, NaN until every one of them is scored."""
        Xi = self._item_scores()
        if not self.cluster:
            order = np.argsort(self._keys, kind="stable")
            return Xi[:, order], order
        G = len(self._groups)
        sums = np.zeros((len(self.models), G))
        np.add.at(sums.T, self._group_of, np.nan_to_num(Xi).T)
        miss = np.zeros((len(self.models), G))
        np.add.at(miss.T, self._group_of, np.isnan(Xi).T.astype(float))
        size = np.bincount(self._group_of, minlength=G)
        Xg = np.where(miss > 0, np.nan, sums / np.maximum(size, 1)[None, :])
        order = np.argsort(self._gkeys, kind="stable")
        return Xg[:, order], order

    def _config(self) -> EngineConfig:
        return EngineConfig(alpha=1 - self.confidence_level,
                            population_size=self._n_units() if self.scope == "benchmark" else None,
                            kind=self.method, rule=self.rule, target=self.target, k=self.k,
                            best_method=self.best_method, eliminate=self.eliminate, final_look=self.final_look,
                            stop_when_done=self.target != "ranks",
                            horizon=self._n_units() if self.fixed_items else None)

    def _run(self) -> tuple[EngineResult, np.ndarray, np.ndarray]:
        X, order = self._ordered()
        return run_engine(X, self._config()), X, order

    def next(self, budget: int = 64) -> list[tuple[str, str]]:
        """Up to ``budget`` (model, item) cells to score next: items in the seeded random order, only for models
        still in play, nothing once the target is decided."""
        budget = _validate.count(budget, "budget", minimum=0)
        e, X, order = self._run()
        return self._next(e, X, order, budget)

    def _next(self, e: EngineResult, X: np.ndarray, order: np.ndarray, budget: int) -> list[tuple[str, str]]:
        if budget == 0 or e.done_at:
            return []
        ip = np.flatnonzero(e.in_play)
        if self.cluster:
            # the next groups in the order, every missing (model in play, item) cell of a group before the next
            Xi = self._item_scores()
            out: list[tuple[str, str]] = []
            for g in order[e.t:]:
                its = np.flatnonzero(self._group_of == g)
                its = its[np.argsort(self._keys[its], kind="stable")]
                a, b = np.nonzero(np.isnan(Xi[np.ix_(ip, its)]).T)
                out.extend((self.models[ip[j]], self._items[its[i]]) for i, j in zip(a, b))
                if len(out) >= budget:
                    break
            return out[:budget]
        miss = np.isnan(X[ip, e.t:])
        a, b = np.nonzero(miss.T)  # item-major: finish an item before the next
        a, b = a[:budget], b[:budget]
        return [(self.models[ip[j]], self._items[order[e.t + i]]) for i, j in zip(a, b)]

    def status(self, *, next_budget: int = 64) -> WatchStatus:
        """The certified sets, decided and open pairs, and the next cells to score."""
        e, X, order = self._run()
        K = len(self.models)
        alpha = 1 - self.confidence_level
        n_seen = np.where(e.in_play, e.t, e.scored_until)
        with np.errstate(invalid="ignore", divide="ignore"):
            scores = np.where(n_seen > 0, e.sx / np.maximum(n_seen, 1), np.nan)
        lo_r, hi_r = self.score_range
        scores = lo_r + (hi_r - lo_r) * scores
        # best / top-k set
        if self.target in ("best", "top"):
            in_set = e.excluded_at == 0
        else:
            in_set = np.ones(K, dtype=bool)
        pi, pj = e.pair_i, e.pair_j
        win_i = e.up_at > 0
        win_j = e.dn_at > 0
        better = np.zeros(K, dtype=np.int64)   # models certified better
        worse = np.zeros(K, dtype=np.int64)
        np.add.at(better, pj[win_i], 1)
        np.add.at(worse, pi[win_i], 1)
        np.add.at(better, pi[win_j], 1)
        np.add.at(worse, pj[win_j], 1)
        rank_low = 1 + better
        rank_high = K - worse
        if self.target == "ranks":
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
        done = bool(e.done_at) or (open_.size > 0 and unres.size == open_.size and self.target != "ranks") or (
            self.target == "ranks" and open_.size == unres.size)
        nxt = [] if done else self._next(e, X, order, next_budget)
        waiting: tuple[str, ...] = ()
        if not done and e.t < X.shape[1]:
            col = X[:, e.t]
            ip = e.in_play
            if (~np.isnan(col[ip])).any():   # others have the next item: the prefix waits for these models
                waiting = tuple(self.models[i] for i in np.flatnonzero(ip & np.isnan(col)))
        show = np.ones(pi.size, dtype=bool) if self.target == "ranks" else (in_set[pi] & in_set[pj]) | win_i | win_j
        pairs = self._pair_intervals(e, X, alpha, np.flatnonzero(show))
        return WatchStatus(
            target=self.target_label, scope=self.scope, method=self.method,
            confidence_level=self.confidence_level, models=self.models, items_seen=int(e.t),
            items_total=self._n_units() if self.fixed_items else None, cells_scored=self._cells(e, order),
            scores=scores, best_set=tuple(self.models[i] for i in np.flatnonzero(in_set)),
            excluded=[{"model": self.models[i], "at_item": int(e.excluded_at[i])}
                      for i in np.argsort(e.excluded_at) if e.excluded_at[i] > 0],
            rank_low=rank_low, rank_high=rank_high, decided=decided,
            open_pairs=[[self.models[pi[p]], self.models[pj[p]]] for p in open_],
            unresolvable_pairs=[[self.models[pi[p]], self.models[pj[p]]] for p in unres],
            next=[{"model": m, "item": i} for m, i in nxt], done=done, seed=self.seed, pairs=pairs,
            n_items=n_seen, waiting_for=waiting, unit="cluster" if self.cluster else "item",
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
        N = self._n_units() if self.scope == "benchmark" else None
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
                low, high, level, meth = cs.lower * f, np.full(n, np.nan), 1 - alpha, \
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
        if open_.size == 0 or not self.fixed_items:
            return np.empty(0, dtype=np.int64)
        N = self._n_units()
        st = e.pair_state.take(open_)
        R = N - st.n
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
            while todo.size:
                L = int(min(1024, (R[todo] - done).max()))
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

    def _pair_intervals(self, e: EngineResult, X: np.ndarray, alpha: float, show: np.ndarray) -> list[dict[str, Any]]:
        """The difference of each pair in ``show`` and its all-pairs confidence-sequence interval (PrPl-EB, over
        the items both models were scored on in the prefix)."""
        from ._cs import _eb_bounds, _wor_range

        K = len(self.models)
        pi, pj = e.pair_i, e.pair_j
        n_pair = np.minimum(np.where(e.in_play, e.t, e.scored_until)[pi], np.where(e.in_play, e.t, e.scored_until)[pj])
        a_side = alpha / (K * (K - 1))
        N = self._n_units() if self.scope == "benchmark" else None
        lo = np.full(pi.size, -1.0)
        hi = np.full(pi.size, 1.0)
        diff = np.full(pi.size, np.nan)
        for n in np.unique(n_pair[show]):
            if n == 0:
                continue
            sel = show[n_pair[show] == n]
            y = (X[pi[sel], :n] - X[pj[sel], :n] + 1) / 2
            lb, ub = _eb_bounds(y, a_side, a_side, N, 0.5)
            dl, dh = _wor_range(y, N)
            lo[sel] = 2 * np.clip(lb[:, -1], dl[:, -1], dh[:, -1]) - 1
            hi[sel] = 2 * np.clip(ub[:, -1], dl[:, -1], dh[:, -1]) - 1
            diff[sel] = 2 * y.mean(axis=1) - 1
        f = self.score_range[1] - self.score_range[0]
        return [{"a": self.models[pi[p]], "b": self.models[pj[p]], "n_items": int(n_pair[p]),
                 "diff": _f(diff[p] * f), "low": _f(lo[p] * f), "high": _f(max(hi[p], lo[p]) * f)}
                for p in show]
