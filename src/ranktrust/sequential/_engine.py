"""The leaderboard engine: every pairwise e-process and every "could this model be #1?" test, advanced a block of
items at a time over all models and pairs at once.

Items are processed in one fixed order (a random order fixed by the seed). Within a block the set of models
still in play is fixed, so each block is a handful of cumulative sums over ``(models or pairs) x items``; a block
ends early at the first item where a model leaves play (elimination), and the next block starts after it. The
number of blocks is at most ``n / block + K``: there is no Python loop per item.

Families (``alpha = 1 - confidence_level``; each one-sided test rejects when its wealth reaches the threshold):

- best set, ``best_method="portfolio"`` (default): one test per model ``j`` of "j is a best model"; it bets, at each
  item, on the rival with the highest running mean among the models in play (a predictable choice), so under
  that null every bet has conditional mean <= 0. Only the true best model's null is true, so threshold
  ``log(1/alpha)`` gives family-wise error ``alpha`` (see docs/watch.md).
- best set, ``best_method="pairs"``, and top-k sets: pairwise tests, model ``j`` out when ``k`` models are certified
  better, at ``log(k (2K - k - 1) / (2 alpha))`` (the number of comparisons between a true top-k model and a model
  ranked below it; ``K - 1`` for the best set).
- decided pairs and simultaneous rank sets: every pair, both directions, closed testing with the average of the
  e-processes as the test of each intersection (e-Holm). At item t, "i beats j" is certified when its wealth
  reaches ``(m_t + 1)/alpha - (sum of the m_t wealths still below 1/alpha)``, where ``m_t`` counts the ordered
  comparisons still below ``1/alpha``: never more than the Bonferroni threshold ``K (K - 1) / alpha``, and lower as
  comparisons are decided and as losing directions lose wealth. Valid with ties; see ``_eholm_threshold``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._cs import IntervalState
from ._final import FINAL_LOOK, final_look_rejects
from ._stream import StreamState, advance, log_wealth

__all__ = ["Engine", "EngineConfig", "EngineResult", "run_engine"]


@dataclass(frozen=True)
class EngineConfig:
    alpha: float = 0.05
    population_size: int | None = None   # None: scope population (with replacement)
    kind: str = "betting"                # betting | eb
    rule: str = "agrapa"
    c: float = 0.5
    target: str = "best"                 # best | top | ranks
    k: int = 1                           # for target "top"
    best_method: str = "portfolio"       # portfolio | pairs
    eliminate: bool = True
    stop_when_done: bool = False
    pairs: bool = True                   # run the pairwise tests
    horizon: int | None = None           # items that can come (known benchmark size): also bet for the end
    max_block: int = 1024
    first_block: int = 16
    rank_combination: str = "eholm"      # eholm | bonferroni (the all-pairs family; bonferroni for comparison)
    final_look: float = FINAL_LOOK       # share of alpha held back for a fixed-n test at the last item (see _final;
                                         # only without elimination, scope population, best set, known horizon)


@dataclass
class EngineResult:
    """What the engine found; positions are 1-based item counts (0 = not yet)."""

    t: int
    cells: int
    excluded_at: np.ndarray          # (K,) left the target set (best / top-k); ranks: every pair decided
    scored_until: np.ndarray         # (K,) items each model was needed for
    pair_i: np.ndarray               # (P,)
    pair_j: np.ndarray               # (P,)
    up_at: np.ndarray                # (P,) "i beats j" certified (rank family)
    dn_at: np.ndarray                # (P,) "j beats i" certified
    done_at: int                     # target decided (0 = not)
    sx: np.ndarray                   # (K,) sum of scores over the items each model was scored on
    pair_state: StreamState
    pf_state: StreamState
    in_play: np.ndarray              # (K,) bool
    cells_at_done: int = 0
    final_look: float = 0.0                # share of alpha held for the last item (0: the bets had all of it)
    final_look_excluded: int = 0           # models the final look excluded at the last item
    pair_ci_low: np.ndarray | None = None  # (P,) all-pairs interval of each pair's mean difference, on [-1, 1]
    pair_ci_high: np.ndarray | None = None
    pair_n: np.ndarray | None = None       # (P,) items each pair's interval is over
    pair_diff: np.ndarray | None = None    # (P,) the mean difference over those items


def _eholm_threshold(wu: np.ndarray, wd: np.ndarray, fu: np.ndarray, fd: np.ndarray, alpha: float) -> np.ndarray:
    """Log of the closed-testing (e-Holm) threshold after each item of a block, for every ordered comparison.

    ``wu``, ``wd``: log-wealth (S, L) of the comparisons advanced in the block; ``fu``, ``fd``: log-wealth of the
    others (frozen, constant over the block). Closed testing with the average as each intersection's e-process:
    H_k is rejected at t when every intersection I containing k has mean_I e_t >= 1/alpha. Each mean of test
    supermartingales is one, so by Ville the intersection of the true nulls ever crosses with probability at most
    alpha, and only then can a true null be rejected (at any time, under any stopping rule). The worst I adds the
    comparisons with the smallest wealth; one at e >= 1/alpha never lowers the mean below 1/alpha, so with
    ``m`` comparisons below 1/alpha (k not among them: a rejected k has e_k >= 1/alpha) the condition is
    ``e_k + S >= (m + 1)/alpha`` for S their sum, i.e. ``e_k >= (m + 1)/alpha - S``.
    """
    lim = np.log(1 / alpha)
    m = np.zeros(wu.shape[1])
    tot = np.zeros(wu.shape[1])
    for w in (wu, wd):
        sub = w < lim
        m += sub.sum(axis=0)
        tot += np.where(sub, np.exp(np.minimum(w, lim)), 0.0).sum(axis=0)
    for f in (fu, fd):
        sub = f < lim
        m += sub.sum()
        tot += np.exp(f[sub]).sum()
    return np.log(np.maximum((m + 1) / alpha - tot, 1 / alpha))


def _first(crossed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    has = crossed.any(axis=1)
    return has, np.argmax(crossed, axis=1)


class Engine:
    """The leaderboard engine as a resumable object: :meth:`extend` appends items (columns, in the analysis
    order), :meth:`advance` analyses what was appended, continuing from the state it had (the e-processes, the
    sums, the models in play); :meth:`result` is a snapshot. Feeding items one at a time or all at once gives
    the same decisions: every quantity is computed per item, blocks only batch the arithmetic."""

    def __init__(self, n_models: int, cfg: EngineConfig, capacity: int = 64) -> None:
        self.cfg = cfg
        K = n_models
        self.n_models = K
        self.population_size = cfg.population_size
        self.scores = np.full((K, max(int(capacity), 1)), np.nan)   # models x items, analysis order
        self.n_avail = 0                                             # items appended so far
        self.pair_a, self.pair_b = np.triu_indices(K, 1)
        P = self.pair_a.size
        a = cfg.alpha
        # the final look (portfolio best set, scope population, known horizon, no elimination: every rival
        # is scored to the end): the bets get (1 - f) alpha, a fixed-n test at the last item f alpha (_final)
        self.final_share = (cfg.final_look if cfg.target == "best" and cfg.best_method == "portfolio"
                            and self.population_size is None and cfg.horizon and not cfg.eliminate else 0.0)
        self.thr_best = np.log(1 / ((1 - self.final_share) * a))
        self.thr_rank = np.log(K * (K - 1) / a) if K > 1 else np.inf
        k = cfg.k if cfg.target == "top" else 1
        self.thr_top = np.log(max(1.0, k * (2 * K - k - 1) / 2) / a)
        self._pairs_inline = cfg.target != "best" or cfg.best_method == "pairs"
        self._pairs_on = self._pairs_inline
        self.thr_pair_lam = self.thr_top if (cfg.target == "top" or cfg.best_method == "pairs") else self.thr_rank
        self.best_state = StreamState.zeros(K)
        self.pair_wealth = StreamState.zeros(P)
        self.pair_ci = IntervalState.zeros(P)   # all-pairs interval of each difference (the status table)
        self.sx = np.zeros(K)
        self.in_play = np.ones(K, dtype=bool)
        self.excluded_at = np.zeros(K, dtype=np.int64)
        self.scored_until = np.zeros(K, dtype=np.int64)
        self.up_at = np.zeros(P, dtype=np.int64)
        self.dn_at = np.zeros(P, dtype=np.int64)
        self.top_up = np.zeros(P, dtype=np.int64)   # decisions at the top-k threshold
        self.top_dn = np.zeros(P, dtype=np.int64)
        self.t = 0
        self.block = cfg.first_block
        self.final_look_excluded = 0
        self.final_look_done = False
        self.cells = 0
        self.done_at = 0
        self.cells_at_done = 0

    def extend(self, cols: np.ndarray) -> None:
        """Append items (``models x new items``, scores in [0, 1], NaN where a model is not scored) to the
        analysis order."""
        cols = np.asarray(cols, dtype=float)
        L = cols.shape[1]
        need = self.n_avail + L
        if need > self.scores.shape[1]:
            cap = max(need, 2 * self.scores.shape[1])
            grown = np.full((self.n_models, cap), np.nan)
            grown[:, :self.n_avail] = self.scores[:, :self.n_avail]
            self.scores = grown
        self.scores[:, self.n_avail:need] = cols
        self.n_avail = need

    # ---- one block -------------------------------------------------------------------------------------
    def _block(self, pos: int, L: int):  # noqa: ANN202 - internal
        cfg, N = self.cfg, self.population_size
        ip = np.flatnonzero(self.in_play)
        Xb = self.scores[ip, pos:pos + L]
        t_prev = pos + np.arange(L)
        sx_prev = self.sx[ip][:, None] + np.cumsum(Xb, axis=1) - Xb
        out: dict = {"ip": ip}
        # portfolio: "j is a best model", betting on the leading rival in play
        if cfg.target == "best" and cfg.best_method == "portfolio" and ip.size > 1:
            live = ip[self.excluded_at[ip] == 0]
            rows = np.searchsorted(ip, live)
            order = np.argsort(-sx_prev, axis=0, kind="stable")
            lead, second = order[0], order[1]
            rival = np.where(rows[:, None] == lead[None, :], second[None, :], lead[None, :])
            cols = np.arange(L)[None, :]
            d = Xb[rival, cols] - Xb[rows][:, :]
            y = (d + 1) / 2
            if N is None:
                m, iu_, cu = 0.5, None, None
            else:
                sy_prev = ((sx_prev[rival, cols] - sx_prev[rows]) + t_prev) / 2
                m = (N / 2 - sy_prev) / np.maximum(N - t_prev, 1)
                iu_ = m < 0
                sx_incl = sx_prev + Xb
                o2 = np.argsort(-sx_incl, axis=0, kind="stable")[:2]
                top1 = sx_incl[o2[0], np.arange(L)]
                top2 = sx_incl[o2[1], np.arange(L)]
                other = np.where(rows[:, None] == o2[0][None, :], top2[None, :], top1[None, :])
                # certain after the item: even if j scored 1 on every unseen item it ends below a rival
                cu = other - sx_incl[rows] > (N - (t_prev + 1))[None, :] + 1e-9
            st, wu, _ = advance(self.best_state.take(live), y, m, self.thr_best, rule=cfg.rule, kind=cfg.kind, c=cfg.c,
                                impossible_up=iu_, horizon=cfg.horizon)
            crossed = wu >= self.thr_best
            if cu is not None:
                crossed |= cu
            out["pf"] = (live, st, crossed)
        # pairs among the models in play (when they drive the target; otherwise one pass at the end)
        if self._pairs_inline:
            act = np.flatnonzero(self.in_play[self.pair_a] & self.in_play[self.pair_b])
            if act.size:
                out["pairs"] = (act, *self._pairs_block(act, pos, L))
        return out

    def _pairs_block(self, act: np.ndarray, pos: int, L: int):  # noqa: ANN202 - internal
        """Advance the pairs ``act`` over items ``pos..pos+L`` (all of them scored on these items)."""
        cfg, N = self.cfg, self.population_size
        y = (self.scores[self.pair_a[act], pos:pos + L] - self.scores[self.pair_b[act], pos:pos + L] + 1) / 2
        pst = self.pair_wealth.take(act)
        if N is None:
            m, iu_, id_, cu, cd = 0.5, None, None, None, None
        else:
            sy_prev = pst.sy[:, None] + np.cumsum(y, axis=1) - y
            tp = pst.n[:, None] + np.arange(L)[None, :]
            m = (N / 2 - sy_prev) / np.maximum(N - tp, 1)
            iu_, id_ = m < 0, m > 1
            sy_incl = sy_prev + y
            cu = sy_incl > N / 2 + 1e-9
            cd = sy_incl + (N - (tp + 1)) < N / 2 - 1e-9
        st, wu, wd = advance(pst, y, m, self.thr_pair_lam, rule=cfg.rule, kind=cfg.kind, c=cfg.c,
                             impossible_up=iu_, impossible_dn=id_, horizon=cfg.horizon)
        frozen = np.ones(self.pair_a.size, dtype=bool)
        frozen[act] = False
        fu, fd = log_wealth(self.pair_wealth.take(np.flatnonzero(frozen)), cfg.horizon)
        thr = (_eholm_threshold(wu, wd, fu, fd, cfg.alpha)[None, :] if cfg.rank_combination == "eholm"
               else self.thr_rank)
        cr_up = [wu >= thr, wu >= self.thr_top]
        cr_dn = [wd >= thr, wd >= self.thr_top]
        if cu is not None:
            cr_up = [c_ | cu for c_ in cr_up]
            cr_dn = [c_ | cd for c_ in cr_dn]
        return st, cr_up, cr_dn

    def _record_pairs(self, act: np.ndarray, st: StreamState, cr_up: list, cr_dn: list, pos: int, L: int) -> None:
        self.pair_wealth.put(act, st)
        for arr, cr in ((self.up_at, cr_up[0]), (self.dn_at, cr_dn[0]), (self.top_up, cr_up[1]),
                        (self.top_dn, cr_dn[1])):
            has, idx = _first(cr)
            sel = has & (arr[act] == 0)
            arr[act[sel]] = pos + idx[sel] + 1
        # the all-pairs interval of each difference (alpha / (K (K - 1)) per side), kept as running sums
        y = (self.scores[self.pair_a[act], pos:pos + L] - self.scores[self.pair_b[act], pos:pos + L] + 1) / 2
        K = self.n_models
        self.pair_ci.advance(act, y, self.cfg.alpha / (K * (K - 1)), self.population_size)

    def _pairs_pass(self) -> None:
        """Every pair over the items both its models were scored on and it has not seen yet, in blocks that end
        where some pair ends (at most n / block + K blocks per call); the same result as advancing the pairs
        inside the main loop. Pairs still to advance all stand at the same item (the previous call's end)."""
        end = np.minimum(self.scored_until[self.pair_a], self.scored_until[self.pair_b])
        while True:
            behind = end > self.pair_wealth.n
            if not behind.any():
                break
            pos = int(self.pair_wealth.n[behind].min())
            act = np.flatnonzero(behind & (self.pair_wealth.n == pos))
            cap = max(16, min(self.cfg.max_block, 2_000_000 // act.size))
            ahead = self.pair_wealth.n[self.pair_wealth.n > pos]
            L = int(min(cap, end[act].min() - pos, (ahead.min() - pos) if ahead.size else cap))
            self._record_pairs(act, *self._pairs_block(act, pos, L), pos, L)

    def _exclusions(self, out: dict, L: int) -> tuple[np.ndarray, int]:
        """Models that leave the target set in this block, with the first position where one does."""
        cfg = self.cfg
        K = self.n_models
        pos_ex = np.full(K, -1)
        if "pf" in out:
            live, _, crossed = out["pf"]
            has, idx = _first(crossed)
            pos_ex[live[has]] = idx[has]
        elif cfg.target in ("best", "top") and "pairs" in out:
            k = cfg.k if cfg.target == "top" else 1
            act, _, cr_up, cr_dn = out["pairs"]
            inc = np.zeros((K, L))
            hu, iu = _first(cr_up[1])
            hd, idd = _first(cr_dn[1])
            already_u = self.top_up[act] > 0
            already_d = self.top_dn[act] > 0
            base = np.zeros(K)   # certified-better counts so far, frozen pairs (a model out of play) included
            np.add.at(base, self.pair_b[self.top_up > 0], 1)
            np.add.at(base, self.pair_a[self.top_dn > 0], 1)
            sel = hu & ~already_u
            np.add.at(inc, (self.pair_b[act][sel], iu[sel]), 1)
            sel = hd & ~already_d
            np.add.at(inc, (self.pair_a[act][sel], idd[sel]), 1)
            cnt = base[:, None] + np.cumsum(inc, axis=1)
            out_ = cnt >= k
            has, idx = _first(out_)
            pos_ex[has] = idx[has]
        elif cfg.target == "ranks" and "pairs" in out:
            # a model whose every pair is decided is no longer needed (its rank set is final)
            act, _, cr_up, cr_dn = out["pairs"]
            dec = cr_up[0] | cr_dn[0]
            has, idx = _first(dec)
            done_all = (self.up_at > 0) | (self.dn_at > 0)     # every pair, frozen ones included
            base = np.zeros(K)
            np.add.at(base, self.pair_a[done_all], 1)
            np.add.at(base, self.pair_b[done_all], 1)
            inc = np.zeros((K, L))
            sel = has & ~done_all[act]
            np.add.at(inc, (self.pair_a[act][sel], idx[sel]), 1)
            np.add.at(inc, (self.pair_b[act][sel], idx[sel]), 1)
            full = base[:, None] + np.cumsum(inc, axis=1) >= K - 1
            has, idx = _first(full)
            pos_ex[has] = idx[has]
        new = (pos_ex >= 0) & (self.excluded_at == 0)
        pos_ex = np.where(new, pos_ex, -1)
        first = int(pos_ex[new].min()) if new.any() else -1
        return pos_ex, first

    def _commit(self, out: dict, pos: int, L: int, pos_ex: np.ndarray) -> None:
        ip = out["ip"]
        self.sx[ip] += self.scores[ip, pos:pos + L].sum(axis=1)
        self.scored_until[ip] = pos + L
        self.cells += ip.size * L
        if "pf" in out:
            live, st, _ = out["pf"]
            self.best_state.put(live, st)
        if "pairs" in out:
            act, st, cr_up, cr_dn = out["pairs"]
            self._record_pairs(act, st, cr_up, cr_dn, pos, L)
        ex = pos_ex >= 0
        self.excluded_at[ex] = pos + pos_ex[ex] + 1
        self.t = pos + L

    def _final_look(self) -> None:
        """At the last item: exclude every model whose fixed-n test of "it is a best model" rejects at
        ``final_look * alpha`` (its e-value ``1/(f alpha)``, weighted ``f``, reaches ``1/alpha``)."""
        live = np.flatnonzero(self.excluded_at == 0)
        rej = final_look_rejects(self.scores[:, :self.n_avail], live, self.final_share * self.cfg.alpha)
        self.excluded_at[live[rej]] = self.t
        self.final_look_excluded = int(rej.sum())

    def _done_time(self) -> int:
        """First item count at which the target was decided (0 = not yet), from the exact decision times."""
        cfg = self.cfg
        if cfg.target in ("best", "top"):
            need = self.n_models - (1 if cfg.target == "best" else cfg.k)
            ex = np.sort(self.excluded_at[self.excluded_at > 0])
            if need <= 0:
                return max(self.t, 1) if self.t else 0
            return int(ex[need - 1]) if ex.size >= need else 0
        at = np.where(self.up_at > 0, self.up_at, self.dn_at)
        at = np.where((self.up_at > 0) & (self.dn_at > 0), np.minimum(self.up_at, self.dn_at), at)
        return int(at.max()) if at.size and (at > 0).all() else 0

    def _done(self) -> bool:
        return self._done_time() > 0

    def advance(self, pairs: bool | None = None) -> None:
        """Analyse the items appended since the last call (up to the first one a model in play lacks), then,
        when the pairwise tests are not part of the target, bring every pair up to date (``pairs``: default
        ``cfg.pairs``)."""
        cfg = self.cfg
        n = self.n_avail
        pos = self.t
        while pos < n and self.in_play.sum() > 0:
            if cfg.stop_when_done and self._done():
                break
            ip = np.flatnonzero(self.in_play)
            L = min(self.block, n - pos)
            blk = self.scores[ip, pos:pos + L]
            bad = np.isnan(blk).any(axis=0)
            if bad.any():
                L = int(np.argmax(bad))
                if L == 0:
                    break
            out = self._block(pos, L)
            pos_ex, first = self._exclusions(out, L)
            if first >= 0 and cfg.eliminate and first < L - 1:
                L = first + 1
                out = self._block(pos, L)
                pos_ex, first = self._exclusions(out, L)
            self._commit(out, pos, L, pos_ex)
            if first >= 0 and cfg.eliminate:
                self.in_play &= self.excluded_at == 0
                self.block = cfg.first_block
            else:
                # keep a block's (pairs x items) arrays to a few million entries (GPQA: 87,990 pairs)
                n_act = (int((self.in_play[self.pair_a] & self.in_play[self.pair_b]).sum()) if self._pairs_on
                         else 0)
                cap = max(cfg.first_block, min(cfg.max_block, 2_000_000 // max(n_act, self.n_models, 1)))
                self.block = min(2 * self.block, cap)
            pos += L
        if (self.final_share and not self.final_look_done and self.t == cfg.horizon == self.n_avail
                and not self._done()):
            self._final_look()
            self.final_look_done = True
        if (cfg.pairs if pairs is None else pairs) and not self._pairs_inline:
            self._pairs_pass()
        self.done_at = self._done_time()
        if self.done_at:
            self.cells_at_done = int(np.minimum(self.scored_until, self.done_at).sum())

    def result(self) -> "EngineResult":
        """A snapshot of where the engine stands (arrays copied: later items do not change it)."""
        return EngineResult(
            t=self.t, cells=self.cells, excluded_at=self.excluded_at.copy(), scored_until=self.scored_until.copy(),
            pair_i=self.pair_a, pair_j=self.pair_b, up_at=self.up_at.copy(), dn_at=self.dn_at.copy(),
            done_at=self.done_at, sx=self.sx.copy(), pair_state=self.pair_wealth.copy(),
            pf_state=self.best_state.copy(), in_play=self.in_play.copy(), cells_at_done=self.cells_at_done,
            final_look=float(self.final_share), final_look_excluded=self.final_look_excluded,
            pair_ci_low=2 * self.pair_ci.low - 1, pair_ci_high=2 * self.pair_ci.high - 1,
            pair_n=self.pair_ci.n.copy(), pair_diff=self.pair_ci.mean(),
        )


def run_engine(X: np.ndarray, cfg: EngineConfig, n_max: int | None = None) -> EngineResult:
    """Run the sequential leaderboard over ``X`` (models x items in processing order, scores in [0, 1])."""
    scores = np.asarray(X, dtype=float)
    n = scores.shape[1] if n_max is None else min(n_max, scores.shape[1])
    eng = Engine(scores.shape[0], cfg, capacity=n)
    eng.extend(scores[:, :n])
    eng.advance()
    return eng.result()
