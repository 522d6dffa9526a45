"""Benchmark: anytime-valid sequential evaluation (``ranktrust watch``) vs two simple sequential baselines.

Run:  .venv/bin/python bench/bench_watch.py [--replays 200] [--quick]

On MMLU-Pro (``src/ranktrust/datasets/mmlupro_outputs.csv.gz``, the 10,326 items all 29 models share), over
random item orders, printed side by side:

1. items until #1 is certified at 95%, scope population:
   - ranktrust watch (hedged betting, one "is it the best?" test per model against its leading rival);
   - baseline A: a paired PrPl empirical-Bernstein confidence sequence per pair at alpha/(K-1) (two-sided);
     #1 is certified when one model's K-1 sequences against all others exclude 0;
   - baseline B: one PrPl-EB sequence per model on its own mean at alpha/K (the unpaired design); #1 is certified
     when one model's lower bound is above every other model's upper bound.
2. model x item cells used with elimination (models that can no longer be #1 are not scored);
   AlpacaEval 2.0 (``../shared/data/alpacaeval2_weighted.csv.gz``, shared items, continuous) as well.
3. at the last item (scope population): the size of the certified best set vs the fixed-n Holm best set
   (the leader plus every model whose paired test against it is not significant after Holm), on each shared matrix,
   with every model scored to the end (no elimination: the same data as the fixed-n analysis; the final look is
   off by default since 0.3.0) and with elimination (the default, for reference).
4. the time for the 200 replays (goal < 60 s).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import ranktrust as rt
from ranktrust.sequential import watch_replay
from ranktrust.sequential._cs import _eb_bounds
from ranktrust.sequential._engine import EngineConfig, run_engine

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
MMLU = ROOT / "src" / "ranktrust" / "datasets" / "mmlupro_outputs.csv.gz"
ALPHA = 0.05


def _first_true(a: np.ndarray) -> int:
    """1-based index of the first True along the last axis (0 = never)."""
    return int(np.argmax(a)) + 1 if a.any() else 0


def baseline_pairs(X: np.ndarray, alpha: float, horizon: int) -> int:
    """Paired PrPl-EB per pair at alpha/(K-1); #1 certified when one model's K-1 lower bounds are all > 0."""
    K = X.shape[0]
    n = min(horizon, X.shape[1])
    iu, ju = np.triu_indices(K, 1)
    y = (X[iu, :n] - X[ju, :n] + 1) / 2
    a_side = alpha / (K - 1) / 2
    lo, hi = _eb_bounds(y, a_side, a_side, None, 0.5)
    win = np.zeros((K, K, n), dtype=bool)
    win[iu, ju] = lo > 0.5
    win[ju, iu] = hi < 0.5
    beats_all = win.sum(axis=1) == K - 1
    return _first_true(beats_all.any(axis=0))


def baseline_unpaired(X: np.ndarray, alpha: float, horizon: int) -> int:
    """One PrPl-EB sequence per model at alpha/K; #1 certified when a lower bound clears every other upper."""
    n = min(horizon, X.shape[1])
    a_side = alpha / X.shape[0] / 2
    lo, hi = _eb_bounds(X[:, :n], a_side, a_side, None, 0.5)
    top = np.argmax(lo, axis=0)
    hi_other = np.where(np.arange(X.shape[0])[:, None] == top[None, :], -np.inf, hi).max(axis=0)
    return _first_true(lo[top, np.arange(n)] > hi_other)


def _holm_against_leader(S: np.ndarray, binary: bool) -> tuple[int, list[int], np.ndarray]:
    """The leader, the other models, and their Holm-adjusted p-values against the leader (exact McNemar for
    0/1 scores, paired t otherwise): the fixed-n best-set test."""
    from scipy import stats

    lead = int(np.argmax(S.mean(axis=1)))
    others = [j for j in range(S.shape[0]) if j != lead]
    if binary:
        b = np.array([np.sum((S[lead] == 1) & (S[j] == 0)) for j in others])
        c = np.array([np.sum((S[lead] == 0) & (S[j] == 1)) for j in others])
        p = rt.mcnemar_exact(b, c)
    else:
        p = np.array([stats.ttest_rel(S[lead], S[j]).pvalue if np.any(S[lead] != S[j]) else 1.0 for j in others])
    padj = rt.adjust_pvalues(np.nan_to_num(p, nan=1.0), "holm")
    return lead, others, padj


def holm_best_set(S: np.ndarray, alpha: float, binary: bool) -> int:
    _, _, padj = _holm_against_leader(S, binary)
    return 1 + int((padj >= alpha).sum())


def hindsight_bound(S: np.ndarray, alpha: float, binary: bool) -> tuple[float, float, float]:
    """The strongest model that the fixed-n Holm test separates from the leader: its paired z, and the largest
    log wealth any constant bet reaches against the leader on the full data, chosen in hindsight
    (``max_lambda sum log(1 + lambda (y - 1/2))``). Below ``log(1/alpha)`` no betting test can exclude it."""
    mean = S.mean(axis=1)
    lead, others, padj = _holm_against_leader(S, binary)
    out = [others[i] for i in np.flatnonzero(padj < alpha)]
    if not out:
        return float("nan"), float("nan"), np.log(1 / alpha)
    j = max(out, key=lambda k: mean[k])
    d = S[lead] - S[j]
    z = d.mean() / (d.std(ddof=1) / np.sqrt(d.size))
    lam = np.linspace(0.0, 1.999, 2000)[:, None]
    lw = np.log1p(lam * (d / 2)[None, :]).sum(axis=1).max()
    return float(z), float(lw), float(np.log(1 / alpha))


def next_policy(S: np.ndarray, alpha: float, reps: int, seed: int = 0) -> None:
    """Would a smarter, still valid ``next()`` save items on close pairs? Compared on pairs of MMLU-Pro's top
    models, one pair at a time, one-sided betting test "A beats B" at ``alpha``:

    - the current policy: items in a uniformly random order (population scope);
    - importance sampling: draw item i with probability q_i (with replacement) and bet on the unbiased
      ``d_i / (N q_i)`` (range ``[-B, B]``, ``B = max 1 / (N q_i)``), a valid test of the benchmark mean for any q
      fixed in advance. q mixes uniform with the pair's *predicted* disagreement: the disagreement rate of the
      other models' pairs in the item's difficulty decile (difficulty = the other models' accuracy), i.e.
      reference scores known before this pair is scored;
    - the same with the oracle q ~ |d_i| (which items the pair disagrees on: not knowable in advance), an upper
      bound on what any disagreement predictor could save.
    """
    from ranktrust.sequential._stream import StreamState, advance

    K, N = S.shape
    o = np.argsort(-S.mean(axis=1))
    lim = np.log(1 / alpha)
    rng = np.random.default_rng(seed)

    def first_cross(y: np.ndarray) -> np.ndarray:
        _, wu, _ = advance(StreamState.zeros(y.shape[0]), y, 0.5, lim, rule="agrapa", kind="betting")
        c = wu >= lim
        return np.where(c.any(axis=1), np.argmax(c, axis=1) + 1, np.inf)

    def show(label: str, v: np.ndarray) -> str:
        return (f"{label} median {np.median(v):>7,.0f}" if np.isfinite(np.median(v)) else f"{label} median    > N") + \
            f" ({np.isfinite(v).mean() * 100:3.0f}% within {N:,})"

    for a, b in ((o[0], o[1]), (o[1], o[2]), (o[2], o[3])):
        d = S[a] - S[b]
        others = np.setdiff1d(np.arange(K), [a, b])
        ref = S[others]
        dec = np.clip((ref.mean(axis=0) * 10).astype(int), 0, 9)
        disc, cnt = np.zeros(10), np.zeros(10)
        for i in range(len(others)):
            dd = ref[i + 1:] != ref[i]
            np.add.at(disc, dec, dd.sum(axis=0))
            np.add.at(cnt, dec, dd.shape[0])
        p_hat = (disc / np.maximum(cnt, 1))[dec]
        out = [show("uniform order", first_cross(np.stack([(d[rng.permutation(N)] + 1) / 2 for _ in range(reps)])))]
        for label, w, mix in (("predicted, 50% uniform", p_hat, 0.5), ("predicted, 10% uniform", p_hat, 0.1),
                              ("oracle |d|, 50% uniform", np.abs(d), 0.5)):
            q = mix / N + (1 - mix) * w / w.sum()
            B = np.max(1 / (N * q))
            draws = np.stack([rng.choice(N, N, p=q) for _ in range(reps)])
            out.append(show(label, first_cross((d[draws] / (N * q[draws]) / B + 1) / 2)))
        z = d.mean() / (d.std(ddof=1) / np.sqrt(N))
        print(f"   {S.shape[0]} models; pair #{list(o).index(a) + 1} vs #{list(o).index(b) + 1}: difference "
              f"{d.mean():.4f}, z = {z:.1f}, disagree on {np.mean(d != 0) * 100:.0f}% of items")
        for line in out:
            print(f"      items to certify, {line}")


def load(path: Path, **kw) -> rt.ScoreMatrix:
    m = rt.read(str(path), align="intersect", **kw)
    keep = ~np.isnan(m.scores).any(axis=0)
    return m.select(items=np.flatnonzero(keep))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replays", type=int, default=200)
    ap.add_argument("--quick", action="store_true", help="40 replays; baselines on 40 orders")
    ap.add_argument("--next-policy", action="store_true",
                    help="only section 6: would a smarter predictable next() save items on close pairs?")
    args = ap.parse_args()
    if args.next_policy:
        print("6. next() policy: uniform random order vs importance sampling by predicted disagreement (MMLU-Pro)")
        next_policy(load(MMLU).scores, ALPHA, 40 if args.quick else 100)
        return 0
    R = 40 if args.quick else args.replays
    m = load(MMLU)
    S = m.scores
    K, N = S.shape
    print(f"MMLU-Pro: {K} models x {N:,} shared items; {R} random orders; 95%, scope population\n")

    t0 = time.perf_counter()
    r = watch_replay(m, R, rng=0)
    t_ours = time.perf_counter() - t0
    d = r.to_dict()
    rn = watch_replay(m, R, rng=0, eliminate=False)
    t_noelim = rn.seconds
    rp = watch_replay(m, R, rng=0, best_method="pairs")
    re = watch_replay(m, R, rng=0, method="eb", rule="prpl")
    rb = watch_replay(m, R, rng=0, scope="benchmark")
    gen0 = np.random.default_rng(0)   # the same orders as watch_replay(rng=0)
    cfg0 = EngineConfig(alpha=ALPHA, pairs=False, stop_when_done=True, horizon=None)
    nohz = [run_engine(S[:, gen0.permutation(N)], cfg0).done_at or np.nan for _ in range(R)]

    rng = np.random.default_rng(0)
    nb = R
    a_items, b_items = [], []
    t1 = time.perf_counter()
    for _ in range(nb):
        X = S[:, rng.permutation(N)]
        a_items.append(baseline_pairs(X, ALPHA, 4000) or np.nan)
        b_items.append(baseline_unpaired(X, ALPHA, N) or np.nan)
    t_base = time.perf_counter() - t1

    def med(v):
        v = np.asarray(v, dtype=float)
        return f"{np.nanmedian(v):>8,.0f}  (10-90%: {np.nanpercentile(v, 10):,.0f}-{np.nanpercentile(v, 90):,.0f};" \
               f" certified in {np.isfinite(v).mean() * 100:.0f}% of orders)"

    print("1. items until #1 is certified (median over orders)")
    print(f"   ranktrust watch, betting, portfolio best test        {med(r.items_needed)}   goal <= 1,000")
    print(f"   ranktrust watch, betting, K-1 pairwise tests        {med(rp.items_needed)}")
    print(f"   ranktrust watch, PrPl-EB, portfolio best test        {med(re.items_needed)}")
    print(f"   ranktrust watch, betting, scope benchmark            {med(rb.items_needed)}")
    print(f"   ranktrust watch, betting, no end-tuned half          {med(nohz)}")
    print(f"   ranktrust watch, every model to the end              {med(rn.items_needed)}   (no final look: bets at alpha)")
    print(f"   baseline A: paired EB per pair at alpha/(K-1)        {med(a_items)}   (issue: about 1,340)")
    print(f"   baseline B: one EB sequence per model (unpaired)     {med(b_items)}   (issue: about 5,000-7,200)")
    print(f"   errors vs full-data #1: ranktrust {d['errors']} of {R}; K-1 pairs {rp.errors.sum()}; EB {re.errors.sum()}; "
          f"benchmark scope {rb.errors.sum()}; to the end {rn.errors.sum()}")
    print()
    full = K * N
    print("2. model x item cells until #1 is certified")
    print(f"   with elimination     median {np.nanmedian(r.cells_needed):>9,.0f} of {full:,} "
          f"= {np.nanmedian(r.cells_needed) / full * 100:.2f}%   goal <= 3%")
    print(f"   without elimination  median {np.nanmedian(rn.cells_needed):>9,.0f} of {full:,} "
          f"= {np.nanmedian(rn.cells_needed) / full * 100:.2f}%")
    alp = SHARED / "alpacaeval2_weighted.csv.gz"
    if alp.exists():
        ma = load(alp)
        ra = watch_replay(ma, R, rng=0)
        fa = ma.n_models * ma.n_items
        cells = np.where(np.isfinite(ra.cells_needed), ra.cells_needed,
                         np.nan)
        # where #1 is never certified, count the cells spent up to the last item
        spent = []
        gen = np.random.default_rng(0)
        cfg = EngineConfig(alpha=ALPHA, pairs=False, horizon=ma.n_items)
        for _ in range(min(R, 40)):
            e = run_engine(ma.scores[:, gen.permutation(ma.n_items)], cfg)
            spent.append(e.cells)
        print(f"   AlpacaEval 2.0 ({ma.n_models} x {ma.n_items}, continuous): #1 certified in "
              f"{np.isfinite(ra.items_needed).mean() * 100:.0f}% of orders, median items "
              f"{np.nanmedian(ra.items_needed) if np.isfinite(ra.items_needed).any() else float('nan'):,.0f}; "
              f"cells spent by the last item (or the decision) median {np.median(spent):,.0f} of {fa:,} "
              f"= {np.median(spent) / fa * 100:.1f}%   goal <= 10%"
              + (f"; when certified: {np.nanmedian(cells) / fa * 100:.1f}%" if np.isfinite(cells).any() else ""))
    print()
    print("3. best-set size at the last item (scope population, anytime-valid) vs fixed-n Holm best set;")
    print("   'to the end' = every model scored on every item (--no-eliminate; the final look is off by default)")
    print("   'elimination' = the default, which stops scoring losers")
    mats = [("MMLU-Pro", m, (0.0, 1.0))]
    for name, fn, kw, rngs in (("GPQA main", "gpqa_main_openllm.csv.gz", {}, (0.0, 1.0)),
                               ("SWE-bench Verified mini", "swebench_verified_mini.csv", {}, (0.0, 1.0)),
                               ("AlpacaEval 2.0", "alpacaeval2_weighted.csv.gz", {}, (0.0, 1.0)),
                               ("Arena-Hard judge scores", "arenabench_v1_judge_scores.csv.gz", {"scale": 10}, (0.0, 1.0))):
        p = SHARED / fn
        if p.exists():
            try:
                mats.append((name, load(p, **kw), rngs))
            except Exception as exc:  # noqa: BLE001 - report and go on
                print(f"   {name}: not read ({exc})")
    for name, mm, (lo, hi) in mats:
        Sx = (mm.scores - lo) / (hi - lo)
        h = holm_best_set(mm.scores, ALPHA, mm.is_binary)
        for label, elim in (("to the end", False), ("elimination", True)):
            sizes = []
            gen = np.random.default_rng(1)
            for _ in range(5 if args.quick else 10):
                e = run_engine(Sx[:, gen.permutation(mm.n_items)],
                               EngineConfig(alpha=ALPHA, pairs=False, horizon=mm.n_items, eliminate=elim))
                sizes.append(int((e.excluded_at == 0).sum()))
            ratio = np.median(sizes) / h
            print(f"   {name if not elim else '':<26} {mm.n_models:>4} x {mm.n_items:<6,} {label:<11} anytime best set "
                  f"{np.median(sizes):>5.1f} (orders: {min(sizes)}-{max(sizes)})   fixed-n Holm {h:>4}   "
                  f"ratio {ratio:.2f}" + ("   goal <= 1.5" if not elim else ""))
        z, lw, thr = hindsight_bound(Sx, ALPHA, mm.is_binary)
        print(f"   {'':<26} strongest model Holm separates from #1: z = {z:.2f}, best constant bet in hindsight "
              f"log wealth {lw:.2f} (certifying needs {thr:.2f})")
        if name == "GPQA main":
            from ranktrust.sequential import _stream

            for label, ramp, hz in (("constant end-tuned bets (no ramp)", 0.0, mm.n_items),
                                    ("no end-tuned half", None, None)):
                old_ramp = _stream.HORIZON_RAMP
                _stream.HORIZON_RAMP = ramp if ramp is not None else old_ramp
                gen = np.random.default_rng(1)
                alt = [int((run_engine(Sx[:, gen.permutation(mm.n_items)],
                                       EngineConfig(alpha=ALPHA, pairs=False, horizon=hz)).excluded_at == 0).sum())
                       for _ in range(5 if args.quick else 10)]
                _stream.HORIZON_RAMP = old_ramp
                print(f"   {'':<26} ablation, {label}: anytime best set {np.median(alt):.1f} "
                      f"(orders: {min(alt)}-{max(alt)})")
    print()
    print("5. decided pairs (target ranks, no elimination, 5 orders): e-Holm vs Bonferroni over the K(K-1) "
          "ordered comparisons")
    for name, mm, _ in mats:
        if name == "GPQA main" or name.startswith("Arena"):
            continue
        share = {}
        for comb in ("eholm", "bonferroni"):
            gen = np.random.default_rng(0)
            dec = []
            for _ in range(5):
                e = run_engine(mm.scores[:, gen.permutation(mm.n_items)],
                               EngineConfig(alpha=ALPHA, target="ranks", eliminate=False, horizon=mm.n_items,
                                            rank_combination=comb))
                dec.append(((e.up_at > 0) | (e.dn_at > 0)).mean())
            share[comb] = np.mean(dec) * 100
        print(f"   {name:<26} pairs decided by the last item: e-Holm {share['eholm']:.1f}%   "
              f"Bonferroni {share['bonferroni']:.1f}%")
    print()
    print("4. time")
    print(f"   {R} replays, ranktrust watch with elimination: {t_ours:.1f} s   goal < 60 s "
          f"(without elimination, whole decision: {t_noelim:.1f} s)")
    print(f"   baselines A and B on {nb} orders: {t_base:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
