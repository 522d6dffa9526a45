"""Coverage of every default interval (and the ones it replaced), full size.

    .venv/bin/python bench/bench_coverage.py             # default sizes (about 10 minutes on 1 core)
    .venv/bin/python bench/bench_coverage.py --quick     # fewer replications (about 2 minutes)
    .venv/bin/python bench/bench_coverage.py --full      # the audit's sizes for the bootstrap (R = 2,000, B = 9,999)
    .venv/bin/python bench/bench_coverage.py --only paired,power    # some sections

Sections (issue 11; statistical audit 2026-11, sections 1, 2, 5, 7):

1. ``binary``: per-model intervals for 0/1 scores (default ``auto`` = Wilson; CLT, t, Wilson), **exact**
   coverage (sum over the binomial), and P(no interval).
2. ``bootstrap``: percentile and BCa (iid items), Monte Carlo.
3. ``cluster``: clustered intervals (CR2 default, CR1, uncorrected) and the cluster bootstrap (with and
   without the small-cluster widening), 12, 14 and 60 clusters, ICC 0.1, Monte Carlo.
4. ``paired``: the paired 0/1 interval (exact-McNemar dual, default) and [A]'s Wald interval, **exact**
   coverage, and the share of data sets where the CI and the exact test disagree.
5. ``cluster-test``: size of the clustered paired test under a model x subject interaction.
6. ``passk``: pass@k intervals (quasi-binomial Wilson), 8 runs per item, Monte Carlo.
7. ``repeats``: runs-aware score CI (t quantile), Monte Carlo.
8. ``power``: exact power of the exact McNemar test at the formula's n and at ``rt.power``'s n.

Coverage at 30, 100, 500 and 2,000 items, accuracies near 0, in the middle and near 1. Cells more than
3 Monte Carlo SE below 0.95 are marked ``!``; exact cells below 0.94 are marked ``!``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings

import numpy as np
from scipy import stats
from scipy.special import beta as beta_fn

import ranktrust as rt
from ranktrust.stats._intervals import score_ci
from ranktrust.stats._paired import _finish, mcnemar_ci, pair_stats
from ranktrust.stats._power import mcnemar_power

NS = (30, 100, 500, 2000)
PS = (0.02, 0.05, 0.30, 0.50, 0.70, 0.97, 0.98)


def flag_mc(c: float, R: int) -> str:
    return " !" if c < 0.95 - 3 * math.sqrt(0.0475 / R) else ""


def flag_exact(c: float) -> str:
    return " !" if c < 0.94 else ""


def table(title: str, head: list[str], rows: list[list[str]]) -> None:
    print(f"\n### {title}\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" if i == 0 else "--:" for i in range(len(head))) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    sys.stdout.flush()


# ------------------------------------------------------------------ 1. binary, exact
def section_binary(args: argparse.Namespace) -> None:
    rows = []
    for method in ("auto", "clt", "t", "wilson"):
        for n in NS:
            k = np.arange(n + 1)
            x = (np.arange(n)[None, :] < k[:, None]).astype(float)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if method == "auto":
                    iv = rt.intervals(rt.ScoreMatrix.from_array(x))
                    lo, hi = iv.ci_low, iv.ci_high
                else:
                    r = score_ci(x, method=method)
                    lo, hi = r.low, r.high
            cells = []
            for p in PS:
                w = stats.binom.pmf(k, n, p)
                c = float(w[(lo <= p) & (p <= hi)].sum())
                miss = float(w[np.isnan(lo)].sum())
                cells.append(f"{c:.4f}{flag_exact(c)}" + (f" (no CI {miss:.3f})" if miss > 0.0005 else ""))
            rows.append([("auto (= wilson)" if method == "auto" else method), str(n)] + cells)
    table("1. Per-model interval, 0/1 scores: exact coverage (sum over the binomial)",
          ["method", "n"] + [f"p={p:g}" for p in PS], rows)


# ------------------------------------------------------------------ 2. bootstrap, MC
def section_bootstrap(args: argparse.Namespace) -> None:
    R, B = args.R_boot, args.B
    rows = []
    rng = np.random.default_rng(2)
    for method in ("percentile", "bca"):
        for n in NS:
            cells = []
            for p in (0.05, 0.30, 0.70, 0.97):
                x = (rng.random((R, n)) < p).astype(float)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    b = rt.stats.bootstrap_ci(x, method=method, n_resamples=B, rng=int(rng.integers(2**31)))
                c = float(np.mean((b.ci_low <= p) & (p <= b.ci_high)))
                miss = float(np.mean(np.isnan(b.ci_low)))
                cells.append(f"{c:.3f}{flag_mc(c, R)}" + (f" (no CI {miss:.3f})" if miss > 0 else ""))
            rows.append([method, str(n)] + cells)
    table(f"2. Bootstrap intervals, iid 0/1 items (R = {R}, B = {B}; one resample set shared by the R rows)",
          ["method", "n", "p=0.05", "p=0.3", "p=0.7", "p=0.97"], rows)


# ------------------------------------------------------------------ 3. clustered, MC
def _clustered(rng: np.random.Generator, R: int, n: int, G: int, p: float, rho: float = 0.1):
    codes = np.arange(n) % G
    a, b = p * (1 - rho) / rho, (1 - p) * (1 - rho) / rho
    prob = rng.beta(a, b, (R, G))[:, codes]
    return (rng.random((R, n)) < prob).astype(float), codes


def section_cluster(args: argparse.Namespace) -> None:
    R, Rb, B = args.R, args.R_cboot, args.B_cboot
    rows = []
    rng = np.random.default_rng(3)
    configs = [(n, G) for n in NS for G in (12, 14, 60) if n >= 2 * G]
    for n, G in configs:
        res: dict[str, list[str]] = {}
        for p in (0.05, 0.30, 0.70, 0.97):
            x, codes = _clustered(rng, R, n, G, p)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for name, kw in (("cluster CR2 (default)", {"cluster_correction": "cr2"}),
                                 ("cluster CR1", {"cluster_correction": "cr1"}),
                                 ("cluster, no correction (0.1.0)", {"cluster_correction": "none"})):
                    r = score_ci(x, method="cluster", group_codes=codes, **kw)
                    c = float(np.mean((r.low <= p) & (p <= r.high)))
                    miss = float(np.mean(np.isnan(r.low)))
                    res.setdefault(name, []).append(f"{c:.3f}{flag_mc(c, R)}" + (f" (no CI {miss:.2f})" if miss else ""))
                r = rt.intervals(rt.ScoreMatrix.from_array(x))  # iid default on clustered data
                c = float(np.mean((r.ci_low <= p) & (p <= r.ci_high)))
                res.setdefault("iid default (Wilson)", []).append(f"{c:.3f}{flag_mc(c, R)}")
                if Rb:
                    xs = x[:Rb]
                    m = rt.ScoreMatrix.from_array(xs, groups=[str(g) for g in codes])
                    for meth in ("percentile", "bca"):
                        for corr in ("cr1", "none"):
                            b = rt.stats.bootstrap_ci(m, method=meth, cluster=True, n_resamples=B, rng=1,
                                                cluster_correction=corr)
                            c = float(np.mean((b.ci_low <= p) & (p <= b.ci_high)))
                            miss = float(np.mean(np.isnan(b.ci_low)))
                            label = f"cluster bootstrap {meth}" + (" (widened, default)" if corr == "cr1" else " (plain)")
                            res.setdefault(label, []).append(
                                f"{c:.3f}{flag_mc(c, Rb)}" + (f" (no CI {miss:.2f})" if miss else ""))
        for name, cells in res.items():
            rows.append([name, str(n), str(G)] + cells)
    table(f"3. Clustered intervals (ICC 0.1, equal clusters; R = {R}, cluster bootstrap R = {Rb}, B = {B})",
          ["method", "n", "G", "p=0.05", "p=0.3", "p=0.7", "p=0.97"], rows)


# ------------------------------------------------------------------ 4. paired 0/1, exact
def _paired_exact(q: float, d: float, n: int, alpha: float = 0.05) -> tuple[float, float, float, float]:
    pi = (q + d) / (2 * q)
    m = np.arange(n + 1)
    pm = stats.binom.pmf(m, n, q)
    keep = m[pm > 1e-13]
    bb = np.concatenate([np.arange(k + 1) for k in keep])
    mm = np.concatenate([np.full(k + 1, k) for k in keep])
    w = pm[mm] * stats.binom.pmf(bb, mm, pi)
    lo, hi = mcnemar_ci(bb, mm - bb, n)
    dd = (2 * bb - mm) / n
    se = np.sqrt(np.maximum(mm / n - dd**2, 0) / n)
    z = stats.norm.ppf(1 - alpha / 2)
    wl, wh = np.where(se > 0, dd - z * se, np.nan), np.where(se > 0, dd + z * se, np.nan)
    p = rt.mcnemar_exact(bb, mm - bb)
    excl_w = (wl > 0) | (wh < 0)
    excl_e = (lo > 0) | (hi < 0)
    return (float(w[(lo <= d) & (d <= hi)].sum()), float(w[(wl <= d) & (d <= wh)].sum()),
            float(w[excl_e != (p < alpha)].sum()), float(w[excl_w != (p < alpha)].sum()))


def section_paired(args: argparse.Namespace) -> None:
    grid = [(0.10, 0.0), (0.10, 0.04), (0.30, 0.0), (0.30, 0.10), (0.04, 0.02), (0.02, 0.0),
            (0.02, 0.02), (0.20, 0.20), (0.50, 0.25)]
    rows = []
    for q, d in grid:
        for n in NS:
            ce, cw, de, dw = _paired_exact(q, d, n)
            rows.append([f"q={q:g}, d={d:+g}", str(n), f"{ce:.4f}{flag_exact(ce)}", f"{cw:.4f}{flag_exact(cw)}",
                         f"{de:.4f}", f"{dw:.4f}"])
    table("4. Paired difference, 0/1 scores: exact coverage and P(CI and exact McNemar test disagree)",
          ["scenario", "n", "exact-McNemar CI (default)", "Wald CI [A]", "disagree (default)", "disagree (Wald)"],
          rows)


# ------------------------------------------------------------------ 5. clustered paired test, MC
def section_cluster_test(args: argparse.Namespace) -> None:
    R = args.R
    rows = []
    rng = np.random.default_rng(5)
    for n, G in ((280, 14), (500, 14), (2000, 14), (600, 60), (2000, 60)):
        codes = np.arange(n) % G
        base = rng.normal(0, 1.5, (R, n))
        inter = rng.normal(0, 0.4, (R, 2, G))
        A = (rng.random((R, n)) < 1 / (1 + np.exp(base - inter[:, 0][:, codes]))).astype(float)
        Bm = (rng.random((R, n)) < 1 / (1 + np.exp(base - inter[:, 1][:, codes]))).astype(float)
        S = np.empty((2 * R, n))
        S[0::2], S[1::2] = A, Bm
        st = pair_stats(S, np.arange(0, 2 * R, 2), np.arange(1, 2 * R, 2), binary=True, group_codes=codes)
        cells = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for corr in ("cr2", "cr1", "none"):
                _d, _s, _lo, _hi, p = _finish(st, "cluster", 0.95, cluster_correction=corr)
                cells.append(f"{np.mean(p < 0.05):.3f}")
            _d, _s, _lo, _hi, p = _finish(st, "mcnemar", 0.95)
            cells.append(f"{np.mean(p < 0.05):.3f}")
        rows.append([str(n), str(G)] + cells)
    table(f"5. Clustered paired test: rejection rate of a true null over subjects (interaction sd 0.4 logit; R = {R}; "
          f"MC SE ~ {math.sqrt(0.05 * 0.95 / R):.3f})",
          ["n", "G", "CR2 + t (default)", "CR1 + t(G-1)", "uncorrected, z (0.1.0)", "McNemar (iid items)"], rows)


# ------------------------------------------------------------------ 6. pass@k, MC
def section_passk(args: argparse.Namespace) -> None:
    R, K = args.R_passk, 8
    rows = []
    rng = np.random.default_rng(6)
    for a, b in ((0.6, 1.4), (3.0, 1.3), (0.3, 0.3), (8.0, 0.6)):
        for n in (30, 100, 500):
            p = rng.beta(a, b, (R, n, 1))
            d = (rng.random((R, n, K)) < p).astype(float)
            m = rt.ScoreMatrix(d, tuple(map(str, range(R))), tuple(map(str, range(n))), runs=tuple(map(str, range(K))))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pk = rt.pass_at_k_matrix(m, [1, 4, 8])
            cells = []
            for q, k in enumerate((1, 4, 8)):
                t = 1 - beta_fn(a, b + k) / beta_fn(a, b)
                lo, hi = pk.ci_low[:, q], pk.ci_high[:, q]
                c = float(np.mean((lo <= t) & (t <= hi)))
                # the 0.1.0 interval (CLT over items) for comparison
                e, s = pk.estimate[:, q], pk.se[:, q]
                old = float(np.mean((e - 1.96 * s <= t) & (t <= e + 1.96 * s) & (s > 0)))
                cells.append(f"{t:.3f}: {c:.3f}{flag_mc(c, R)} (CLT {old:.3f})")
            rows.append([f"Beta({a:g}, {b:g})", str(n)] + cells)
    table(f"6. pass@k interval (default; CLT of 0.1.0 in brackets), 8 runs per item, R = {R}",
          ["item p_i", "n", "pass@1: truth: coverage", "pass@4", "pass@8"], rows)


# ------------------------------------------------------------------ 7. repeats, MC
def section_repeats(args: argparse.Namespace) -> None:
    R, K = args.R_passk, 8
    rows = []
    rng = np.random.default_rng(7)
    for a, b in ((0.6, 1.4), (3.0, 1.3), (0.3, 0.3)):
        cells = []
        for n in (30, 100, 500):
            d = (rng.random((R, n, K)) < rng.beta(a, b, (R, n, 1))).astype(float)
            m = rt.ScoreMatrix(d, tuple(map(str, range(R))), tuple(map(str, range(n))), runs=tuple(map(str, range(K))))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = rt.repeats(m)
            t = a / (a + b)
            c = float(np.mean((r.ci_low <= t) & (t <= r.ci_high)))
            z = float(np.mean((r.score - 1.96 * r.se <= t) & (t <= r.score + 1.96 * r.se)))
            cells.append(f"{c:.3f}{flag_mc(c, R)} (z {z:.3f})")
        rows.append([f"Beta({a:g}, {b:g})"] + cells)
    table(f"7. Runs-aware score CI (t quantile, default; z of 0.1.0 in brackets), 8 runs per item, R = {R}",
          ["item p_i", "n=30", "n=100", "n=500"], rows)


# ------------------------------------------------------------------ 8. power, exact
def section_power(args: argparse.Namespace) -> None:
    rows = []
    for q, d in ((0.27, 0.01), (0.27, 0.02), (0.27, 0.03), (0.27, 0.05), (0.27, 0.10), (0.20, 0.0185),
                 (0.10, 0.02), (0.05, 0.02), (0.04, 0.02), (0.02, 0.01), (0.30, 0.20), (0.50, 0.30)):
        r = rt.power(gap=d, disagreement=q, binary=True)
        nf = r.items_needed_normal
        pf = float(mcnemar_power(nf, gap=d, disagreement=q)[0])
        rows.append([f"{q:g}", f"{d * 100:g}", f"{nf:,}", f"{pf:.4f}", f"{r.items_needed:,}", f"{r.achieved_power:.4f}"])
    table("8. Power of the exact McNemar test (exact sums): the formula's n vs rt.power(binary=True)",
          ["q", "gap (pts)", "formula n (method='normal')", "exact power there", "exact-test n (default)",
           "exact power there"], rows)


SECTIONS = {"binary": section_binary, "bootstrap": section_bootstrap, "cluster": section_cluster,
            "paired": section_paired, "cluster-test": section_cluster_test, "passk": section_passk,
            "repeats": section_repeats, "power": section_power}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer replications")
    ap.add_argument("--full", action="store_true", help="the audit's bootstrap sizes (R = 2,000, B = 9,999)")
    ap.add_argument("--only", default="", help="comma-separated sections: " + ",".join(SECTIONS))
    args = ap.parse_args(argv)
    args.R = 1000 if args.quick else 4000
    args.R_boot, args.B = (200, 999) if args.quick else ((2000, 9999) if args.full else (1000, 1999))
    args.R_cboot, args.B_cboot = (0, 0) if args.quick else ((2000, 9999) if args.full else (500, 999))
    args.R_passk = 500 if args.quick else 2000
    names = [s for s in args.only.split(",") if s] or list(SECTIONS)
    print(f"# Coverage of ranktrust's intervals (ranktrust {getattr(rt, '__version__', '?')}; "
          f"{'quick' if args.quick else 'full' if args.full else 'default'} sizes)")
    for name in names:
        t0 = time.time()
        SECTIONS[name](args)
        print(f"\n({name}: {time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
