"""Speed of ``rt.arena`` at LMArena scale, beside the two resampling references (issue 24).

2,000,000 battles, 250 models (Pareto-skewed sampling, ties 30%), 1,000,000 prompts; a pandas DataFrame with
string model names. ranktrust: aggregate to cells, Newton, prompt-clustered sandwich, stepdown max-|t| over all
31,125 pairs (2,000 draws), rank sets, tiers, headline. References, on the same battles:

* FastChat's practice (rating_systems.compute_bootstrap_bt): unique (model_a, model_b, outcome) rows with counts,
  a multinomial bootstrap of those counts, each round an L-BFGS-B fit of the logistic loss (maxiter=100,
  gtol=1e-6, as FastChat); neither clustered nor simultaneous. 100 rounds.
* A prompt-cluster bootstrap (the same kind of answer by resampling): each round draws the 1M prompts with
  replacement, reweights the battles and refits with our own Newton on cells (warm start). 1,000 rounds.

Rounds are timed for ``--rounds`` and ``--cluster-rounds`` and extrapolated linearly to 100 and 1,000 (each round
costs the same; the script says when it extrapolates). The exact optimum is computed by an independent method
(Zermelo/Hunter MM iterations to a relative change below 1e-13) and compared in Elo points.

    .venv/bin/python bench/bench_arena.py                 # about 1-2 minutes on 2 shared cores
    .venv/bin/python bench/bench_arena.py --rounds 100    # the full FastChat reference (minutes)
"""

from __future__ import annotations

import argparse
import os
import time
import resource

# one BLAS thread: on a loaded 2-core machine two OpenBLAS threads spin against each other and a 250 x 250
# solve costs 70x more (measured: 0.16 s against 0.0024 s); set RT_BENCH_BLAS_THREADS to change it
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, os.environ.get("RT_BENCH_BLAS_THREADS", "1"))

import numpy as np
import pandas as pd
from scipy import optimize, special

import ranktrust as rt
from ranktrust.preference import ELO_SCALE


def make(n=2_000_000, M=250, n_prompts=1_000_000, seed=0):
    g = np.random.default_rng(seed)
    theta = np.sort(g.normal(0, 0.8, M))[::-1]
    pop = 1.0 / np.arange(1, M + 1) ** 0.8            # Pareto-skewed sampling of the models
    pop /= pop.sum()
    a = g.choice(M, n, p=pop)
    b = g.choice(M, n, p=pop)
    same = a == b
    while same.any():
        b[same] = g.choice(M, int(same.sum()), p=pop)
        same = a == b
    prompt = g.integers(0, n_prompts, n)
    u = g.normal(0, 0.5, n_prompts)[prompt] * np.where(g.random(n) < 0.5, 1, -1)
    p = special.expit(theta[a] - theta[b] + u)
    r = g.random(n)
    y = np.where(r < 0.3, 0.5, (g.random(n) < p).astype(float))
    names = np.array([f"model-{i:03d}" for i in range(M)], dtype=object)
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "score": y, "cluster": prompt})


def unique_rows(df):
    """FastChat's preprocess_for_bt: unique (model_a, model_b, outcome) rows and their counts."""
    codes, names = pd.factorize(pd.concat([df.model_a, df.model_b], ignore_index=True))
    n = len(df)
    a, b = codes[:n], codes[n:]
    y2 = (2 * df.score.to_numpy()).astype(np.int64)
    M = len(names)
    key = (a * M + b) * 3 + y2
    uk, cnt = np.unique(key, return_counts=True)
    return (uk // 3) // M, (uk // 3) % M, (uk % 3) / 2.0, cnt.astype(float), M, names


def fastchat_fit(ua, ub, uy, w, M, x0=None):
    """FastChat's fit_bt: L-BFGS-B on the weighted logistic loss, maxiter=100, gtol=1e-6 (base e, scale 1)."""
    def f(th):
        d = th[ua] - th[ub]
        p = special.expit(d)
        loss = -np.sum(w * (uy * np.log(np.clip(p, 1e-300, None)) + (1 - uy) * np.log(np.clip(1 - p, 1e-300, None))))
        r = w * (p - uy)
        g = np.bincount(ua, r, M) - np.bincount(ub, r, M)
        return loss / w.sum(), g / w.sum()

    return optimize.minimize(f, np.zeros(M) if x0 is None else x0, jac=True, method="L-BFGS-B",
                             options={"maxiter": 100, "gtol": 1e-6}).x


def mm_optimum(ua, ub, uy, w, M, tol=1e-13, max_iter=200_000):
    """Hunter's (2004) MM for Bradley-Terry with half-win ties, on cells: an independent exact optimum."""
    A, B = ua, ub
    wins = np.bincount(A, w * uy, M) + np.bincount(B, w * (1 - uy), M)
    key = np.minimum(A, B) * M + np.maximum(A, B)
    ck, inv = np.unique(key, return_inverse=True)
    nij = np.bincount(inv, w)
    i, j = ck // M, ck % M
    p = np.ones(M)
    for it in range(max_iter):
        s = nij / (p[i] + p[j])
        den = np.bincount(i, s, M) + np.bincount(j, s, M)
        new = wins / den
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(new / p - 1)) < tol:
            p = new
            break
        p = new
    th = np.log(p)
    return th - th.mean(), it + 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2_000_000)
    ap.add_argument("--models", type=int, default=250)
    ap.add_argument("--prompts", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=10, help="FastChat bootstrap rounds timed (100 = no extrapolation)")
    ap.add_argument("--cluster-rounds", type=int, default=5, help="prompt-cluster bootstrap rounds timed")
    args = ap.parse_args()

    t = time.perf_counter()
    df = make(args.n, args.models, args.prompts)
    print(f"data: {len(df):,} battles, {args.models} models, {df.cluster.nunique():,} prompts "
          f"({time.perf_counter() - t:.1f} s to simulate)")

    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    r = rt.arena(df, rng=0)
    t_rt = time.perf_counter() - t
    peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) * 1024   # KiB on Linux
    load = os.getloadavg()[0]
    s = r.settings
    print(f"ranktrust arena: {t_rt:.1f} s (load average {load:.1f} on {os.cpu_count()} cores), peak RSS growth "
          f"{peak / 2**30:.2f} GiB above the peak before the call "
          f"({s['iterations']} Newton steps, gradient {s['gradient']:.1e}, {s['n_clusters']:,} clusters, "
          f"{s['n_resamples']:,} max-|t| draws over {len(r.pair_a):,} pairs); could be #1: {len(r.could_be_first)}; "
          f"mean rank-set width {np.mean(r.rank_high - r.rank_low + 1):.2f} "
          f"(overlap rule {np.mean(r.overlap_rank_high - r.overlap_rank_low + 1):.2f})")

    ua, ub, uy, cnt, M, names = unique_rows(df)
    th_mm, it_mm = mm_optimum(ua, ub, uy, cnt, M)
    order = [list(names).index(m) for m in r.models]
    ours = (r.rating - 1000) / ELO_SCALE
    dev = ELO_SCALE * np.max(np.abs(ours - th_mm[order]))
    print(f"exact optimum (Hunter MM, {it_mm:,} iterations): largest rating difference {dev:.2e} Elo points")

    t = time.perf_counter()
    g = np.random.default_rng(0)
    for _ in range(args.rounds):
        w = g.multinomial(int(cnt.sum()), cnt / cnt.sum()).astype(float)
        th_fc = fastchat_fit(ua, ub, uy, w, M)
    per = (time.perf_counter() - t) / args.rounds
    th_fc = fastchat_fit(ua, ub, uy, cnt, M)
    fc_dev = ELO_SCALE * np.max(np.abs((th_fc - th_fc.mean()) - th_mm))
    t_fc = per * 100
    ex = "" if args.rounds == 100 else f" (extrapolated from {args.rounds} rounds)"
    print(f"FastChat 100-round bootstrap of {len(ua):,} unique rows: {t_fc:.1f} s{ex}, {per:.2f} s a round; "
          f"its fit stops {fc_dev:.2f} Elo from the optimum")

    from ranktrust.preference import _fit  # the same Newton as rt.arena, reused by the reference

    codes = pd.factorize(df.cluster)[0]
    G = codes.max() + 1
    ia = pd.Categorical(df.model_a, categories=names).codes.astype(np.int64)
    ib = pd.Categorical(df.model_b, categories=names).codes.astype(np.int64)
    y = df.score.to_numpy()
    a2, b2, y2, _, _ = _fit.canonical(ia, ib, y)
    base = _fit.fit_half(_fit.cells(a2, b2, y2, np.ones(len(y2)), M)).theta
    t = time.perf_counter()
    for _ in range(args.cluster_rounds):
        cw = g.multinomial(G, np.full(G, 1.0 / G)).astype(float)[codes]
        keep = cw > 0
        _fit.fit_half(_fit.cells(a2[keep], b2[keep], y2[keep], cw[keep], M), theta0=base)
    per_c = (time.perf_counter() - t) / args.cluster_rounds
    t_cb = per_c * 1000
    print(f"prompt-cluster bootstrap, 1,000 rounds: {t_cb:.0f} s (extrapolated from {args.cluster_rounds} rounds, "
          f"{per_c:.2f} s a round)")
    print(f"ratios: FastChat 100 rounds / ranktrust = {t_fc / t_rt:.1f}x (goal >= 5x); "
          f"cluster bootstrap 1,000 / ranktrust = {t_cb / t_rt:.0f}x (goal >= 50x); ranktrust {t_rt:.1f} s "
          f"(goal <= 20 s); rating error {dev:.1e} Elo (goal <= 0.01)")


if __name__ == "__main__":
    main()
