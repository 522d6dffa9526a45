"""The arena's promises at their edges (issue 30 §2): the statistics audit's cells (a), (b), (d) re-run, a grid
of few-prompt models beyond them, and the star design's win-rate interval near 1.

Cells (the audit's generators, ../shared/reviews/statistics-audit-2026-12b/a1_arena.py; 12 models, the top four
exactly tied, then 0.15 logit apart; prompt x model random effects):

* ``a``: 6,000 battles on 150 prompts, random-effect sd 1.2, default (clustered by prompt);
* ``b``: 2,000 battles each judged 3 times (a replicate copies the first verdict w.p. 0.8), with and without the
  prompt column (without it the promise is the note that says the battles are taken as independent; the rate is
  printed for information);
* ``d``: 100k battles among 11 models + a new model tied with the top, its 50 battles on only 10 prompts (its
  random-effect sd 1.2); ``d_ctrl``: the new model's 50 battles on 50 prompts without effects;
* ``few``: the new model on 3 / 5 / 20 prompts (grid beyond the audit);
* ``star``: Arena-Hard's design (a4_star_winrate.py): 3 models against a baseline, 100 questions x 2 games, strong
  verdicts weight 3, question effects sd 1; the true weighted win rate set to 0.90 / 0.95 / 0.977 / 0.99 / 0.995.

Per board: false claim = a ``separated`` pair whose direction is not strictly true; rank-set coverage = every
model's rank set holds its true rank range. Each rate printed with its Monte Carlo SE beside the promise
(``ok`` when the rate is within 2 MC SE of it).

    .venv/bin/python bench/bench_arena_edges.py --reps 400               # about 20 minutes on 2 shared cores
    .venv/bin/python bench/bench_arena_edges.py --reps 100 --cells d,star
    .venv/bin/python bench/bench_arena_edges.py --cells cost              # the correction's price at 2M battles
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import special  # noqa: E402

import ranktrust as rt  # noqa: E402

M = 12
TH = np.r_[0.0, 0.0, 0.0, 0.0, -np.arange(1, M - 3) * 0.15]
NAMES = np.array([f"m{i:02d}" for i in range(M + 1)])


def _pairs(g, n, m):
    a = g.integers(0, m, n)
    return a, (a + g.integers(1, m, n)) % m


def gen_a(g, n=6000, P=150, sd=1.2):
    a, b = _pairs(g, n, M)
    p = g.integers(0, P, n)
    u = g.normal(0, sd, (M, P))
    y = (g.random(n) < special.expit(TH[a] + u[a, p] - TH[b] - u[b, p])).astype(float)
    return pd.DataFrame({"model_a": NAMES[a], "model_b": NAMES[b], "score": y, "cluster": p.astype(str)}), TH


def gen_b(g, n=2000, P=150, J=3, rho=0.8, cluster=True):
    a, b = _pairs(g, n, M)
    p = g.integers(0, P, n)
    pr = special.expit(TH[a] - TH[b])
    y0 = (g.random(n) < pr).astype(float)
    ys = [y0] + [np.where(g.random(n) < rho, y0, (g.random(n) < pr).astype(float)) for _ in range(J - 1)]
    df = pd.DataFrame({"model_a": np.tile(NAMES[a], J), "model_b": np.tile(NAMES[b], J), "score": np.concatenate(ys)})
    if cluster:
        df["cluster"] = np.tile(p.astype(str), J)
    return df, TH


def gen_d(g, n=100_000, nnew=50, Pnew=10, sd=1.2):
    th = TH.copy()
    th[M - 1] = 0.0
    a, b = _pairs(g, n, M - 1)
    y = (g.random(n) < special.expit(th[a] - th[b])).astype(float)
    opp = g.integers(0, M - 1, nnew)
    pn = g.integers(0, Pnew, nnew)
    un = g.normal(0, sd, Pnew)
    yn = (g.random(nnew) < special.expit(th[M - 1] + un[pn] - th[opp])).astype(float)
    side = g.random(nnew) < .5
    A = np.r_[NAMES[a], np.where(side, NAMES[M - 1], NAMES[opp])]
    B = np.r_[NAMES[b], np.where(side, NAMES[opp], NAMES[M - 1])]
    Y = np.r_[y, np.where(side, yn, 1 - yn)]
    cl = np.r_[np.char.add("p", np.arange(n).astype(str)), np.char.add("new", pn.astype(str))]
    return pd.DataFrame({"model_a": A, "model_b": B, "score": Y, "cluster": cl}), th


def evaluate(r, th_by_name):
    th = np.array([th_by_name[m] for m in r.models])
    K = len(th)
    better = (th[:, None] > th[None, :] + 1e-12).sum(0)
    worse = (th[:, None] < th[None, :] - 1e-12).sum(0)
    cover = bool(np.all((r.rank_low <= 1 + better) & (r.rank_high >= K - worse)))
    ta, tb = th[r.pair_a], th[r.pair_b]
    bad = r.separated & ~(ta > tb + 1e-12)
    new = r.models.index(NAMES[M - 1]) if NAMES[M - 1] in r.models else -1
    involves = (r.pair_a == new) | (r.pair_b == new)
    return cover, bool(np.any(bad)), bool(np.any(bad & involves))


def cell(gen, R, seed, **kw):
    g = np.random.default_rng(seed)
    cov = fc = fnew = 0
    t0 = time.time()
    notes = set()
    for i in range(R):
        df, th = gen(g)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = rt.arena(df, rng=i, n_resamples=1000, **kw)
        notes |= {n.code for n in r.notes}
        c, f, fn = evaluate(r, {NAMES[k]: th[k] for k in range(len(th))})
        cov += c
        fc += f
        fnew += fn
    return cov / R, fc / R, time.time() - t0, notes, fnew / R


def line(label, rate, R, promise, kind, promised=True):
    se = np.sqrt(max(rate * (1 - rate), 1e-12) / R)
    ok = rate >= promise - 2 * se if kind == ">=" else rate <= promise + 2 * se
    verdict = ("ok" if ok else "MISS") if promised else "info (not promised; the output says why)"
    return f"  {label:<52} {rate:6.3f} ± {se:.3f}   promise {kind} {promise:.2f}   {verdict}"


# ------------------------------------------------------------------------------ the star design near 1
def _verdicts(z):
    y = np.select([z > 2, z > .3, z > -.3, z > -2], [1, 1, .5, 0], 0.0)
    w = np.select([z > 2, z > .3, z > -.3, z > -2], [3, 1, 1, 1], 3.0)
    return y, w


def _truth(s, g, n=2_000_000):
    y, w = _verdicts(s + g.normal(0, 1, n) + g.logistic(0, 1, n))
    return float((w * y).sum() / w.sum())


def strength_for(target, g):
    lo, hi = -3.0, 9.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _truth(mid, g, 200_000) < target else (lo, mid)
    return (lo + hi) / 2


def star_board(S, g, Q=100):
    rows = []
    for m, s in S.items():
        u = g.normal(0, 1, Q)
        for game in range(2):
            y, w = _verdicts(s + u + g.logistic(0, 1, Q))
            q = np.char.add("q", np.arange(Q).astype(str))
            if game == 0:
                rows.append(pd.DataFrame({"model_a": m, "model_b": "base", "score": y, "weight": w, "cluster": q}))
            else:
                rows.append(pd.DataFrame({"model_a": "base", "model_b": m, "score": 1 - y, "weight": w, "cluster": q}))
    return pd.concat(rows, ignore_index=True)


def star_cell(targets, R, seed, **kw):
    g = np.random.default_rng(seed)
    S = {f"w{t}": strength_for(t, g) for t in targets}
    S["mid"] = strength_for(0.6, g)
    truth = {m: _truth(s, g) for m, s in S.items()}
    mid = S.pop("mid")
    out = {}
    for m, s in S.items():   # one model per board: a model that wins every game refuses only its own board
        hits = refused = 0
        width = []
        for i in range(R):
            df = star_board({m: s, "mid": mid}, g)
            try:
                r = rt.arena(df, baseline="base", rng=i, n_resamples=200, **kw)
            except rt.DataError:     # won every game: its rating is infinite, refused
                refused += 1
                continue
            k = r.models.index(m)
            hits += r.win_rate_ci_low[k] <= truth[m] <= r.win_rate_ci_high[k]
            width.append(r.win_rate_ci_high[k] - r.win_rate_ci_low[k])
        out[m] = (truth[m], hits / max(R - refused, 1), float(np.mean(width)) if width else float("nan"), refused,
                  R - refused)
    return out


def cost(n=2_000_000, models=250, prompts=1_000_000):
    """Seconds of rt.arena with the small-cluster correction against the plain sandwich, in one process, on the
    speed bench's board (bench/bench_arena.py)."""
    import importlib.util
    import sys
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("bench_arena", Path(__file__).with_name("bench_arena.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_arena"] = mod
    spec.loader.exec_module(mod)
    df = mod.make(n, models, prompts)
    out = {}
    for corr in ("cr1", "cr2", "cr1", "cr2"):
        t = time.perf_counter()
        rt.arena(df, rng=0, cluster_correction=corr)
        out.setdefault(corr, []).append(time.perf_counter() - t)
    return {k: min(v) for k, v in out.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--cells", default="a,b,d,few,star", help="a, b, d, few, star, cost (2M battles: time)")
    ap.add_argument("--star-reps", type=int, default=None)
    args = ap.parse_args()
    R = args.reps
    want = set(args.cells.split(","))
    print(f"ranktrust {rt.__version__}; R = {R} boards per cell; 95% level")
    cells = []
    if "a" in want:
        cells.append(("(a) 6,000 battles, 150 prompts, RE sd 1.2", gen_a, {}, True))
    if "b" in want:
        cells.append(("(b) judged x3, prompt column", gen_b, {}, True))
        cells.append(("(b) judged x3, no prompt column [note; info]", lambda g: gen_b(g, cluster=False), {}, False))
    if "d" in want:
        cells.append(("(d) new model: 50 battles on 10 prompts, among 100k", gen_d, {}, True))
        cells.append(("(d) same, cluster_correction='cr1' (before)", gen_d, {"cluster_correction": "cr1"}, False))
        cells.append(("(d ctrl) new model on 50 prompts, no effects", lambda g: gen_d(g, Pnew=50, sd=0.0), {}, True))
    if "few" in want:
        for P in (3, 5, 20):
            cells.append((f"(few) new model: 50 battles on {P} prompts", lambda g, P=P: gen_d(g, Pnew=P), {}, True))
    for i, (label, gen, kw, promised) in enumerate(cells):
        cov, fc, secs, notes, fnew = cell(gen, R, 9000 + i, **kw)
        print(f"{label}  [{secs:.0f}s; notes: {', '.join(sorted(notes)) or 'none'}]")
        print(line("false claims", fc, R, 0.05, "<=", promised)
              + (f"   (involving the new model: {fnew:.3f})" if label.startswith(("(d", "(few")) else ""))
        print(line("rank-set coverage", cov, R, 0.95, ">=", promised), flush=True)
    if "cost" in want:
        c = cost()
        print(f"(cost) 2,000,000 battles, 250 models: cluster_correction='cr1' {c['cr1']:.1f} s, "
              f"'cr2' {c['cr2']:.1f} s "
              f"(ratio {c['cr2'] / c['cr1']:.2f}; best of two each)", flush=True)
    if "star" in want:
        Rs = args.star_reps or R
        t0 = time.time()
        res = star_cell((0.90, 0.95, 0.977, 0.99, 0.995), Rs, 77)
        print(f"(star) win rate against the baseline, 100 questions x 2 games, strong verdicts weight 3 "
              f"[{time.time() - t0:.0f}s]")
        for m, (tw, c, wd, refused, n) in res.items():
            print(line(f"true {tw:.3f}: coverage (width {wd:.3f}; {refused} refused)", c, n, 0.95, ">="), flush=True)


if __name__ == "__main__":
    main()
