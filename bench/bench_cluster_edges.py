"""Coverage of the clustered 0/1 interval near 0 and 1 with few clusters (issue 30 §4; audit 2026-12b defect 8).

    .venv/bin/python bench/bench_cluster_edges.py                 # R = 1,000 per cell, about 1 minute
    .venv/bin/python bench/bench_cluster_edges.py --R 1500        # the audit's size (c4_cr2.py)
    .venv/bin/python bench/bench_cluster_edges.py --G 5,12 --p 0.02,0.5

The audit's design (``c4_cr2.py``): n = 1,000 items in G equal clusters, each cluster's accuracy drawn from a
Beta with mean p and intra-cluster correlation rho (beta-binomial), R data sets per cell, all R scored in one
call as R "models" of one matrix. Each cell prints, beside the nominal 0.95, the coverage ± its Monte Carlo SE
and the mean width of

* ``before``: the 0.2 interval (Wilson with the effective sample size p(1-p)/SE_CR2^2 and the t quantile of the
  CR2 df), re-implemented here from that release's formula;
* ``now``: ``rt.intervals(m, method="cluster")`` (default ``cluster_correction="cr2"``): the logit-scale CR2
  interval with the t quantile of the smaller of the CR2 df and the kurtosis df of the clustered variance,
  joined from 9 df (10 equal clusters) by Hall's skewness-corrected t;
* ``KG``: the Korn-Graubard interval (Clopper-Pearson with n_eff = p(1-p)/SE^2 shrunk by (z/t_df)^2), a
  reference that was not chosen (wider in the middle, no better at the edges);
* with ``--bootstrap R``: the cluster bootstrap (``method="percentile"`` / ``"bca"``, ``cluster=True``, widened
  by the default correction) on the first R data sets of each cell.

``!`` marks a cell more than 2 Monte Carlo SE below 0.93; ``warned`` is the share of data sets whose model gets
the ``cluster_edge`` note (score at most 10% or at least 90% from fewer than 20 groups). A last table repeats
the cells for SWE-bench Verified mini's 12 very unequal repositories.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np
from scipy import stats

import ranktrust as rt
from ranktrust._kernel import t_quantile, wilson_bounds
from ranktrust.stats._intervals import EDGE_BAND, EDGE_MIN_CLUSTERS, cluster_sums, cluster_variance


def _effective_n(x: np.ndarray, groups: np.ndarray) -> tuple:
    """``mean, n_eff, n, df``: the CR2 clustered variance read as an effective number of items (each cluster once
    at 0% / 100%), as the intervals below take it."""
    mean, sums, counts, n = cluster_sums(x, groups)
    var, df = cluster_variance(sums * sums, counts, n, "cr2")
    n_cl = np.sum(counts > 0, axis=-1)
    pq = mean * (1 - mean)
    with np.errstate(invalid="ignore", divide="ignore"):
        neff = np.where((pq > 0) & (var > 0), pq / np.where(var > 0, var, 1.0), n_cl.astype(float))
    return mean, neff, n, df


def before(x: np.ndarray, groups: np.ndarray, cl: float) -> tuple[np.ndarray, np.ndarray]:
    """The previous default for 0/1 scores: Wilson with n_eff and t(df_CR2) (each cluster once at 0% / 100%)."""
    mean, neff, n, df = _effective_n(x, groups)
    return wilson_bounds(mean, np.minimum(neff, n), t_quantile(cl, df))


def korn_graubard(x: np.ndarray, groups: np.ndarray, cl: float) -> tuple[np.ndarray, np.ndarray]:
    """Korn and Graubard (1998): Clopper-Pearson at n* = n_eff (z/t_df)^2, x* = p n*."""
    mean, neff, n, df = _effective_n(x, groups)
    a = (1 - cl) / 2
    ns = np.minimum(neff, n) * (stats.norm.ppf(1 - a) / t_quantile(cl, df)) ** 2
    xs = mean * ns
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(xs > 0, stats.beta.ppf(a, xs, ns - xs + 1), 0.0)
        hi = np.where(ns - xs > 0, stats.beta.ppf(1 - a, xs + 1, ns - xs), 1.0)
    return lo, hi


#: the 12 repositories of SWE-bench Verified mini (``shared/data/swebench_verified_mini.csv``): items per repository
SWEBENCH_SIZES = (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)


def cell(G: int, rho: float, p: float, R: int, n: int, rng: np.random.Generator, cl: float,
         sizes: tuple[int, ...] | None = None, boot: int = 0) -> dict[str, float]:
    groups = np.arange(n) % G if sizes is None else np.repeat(np.arange(len(sizes)), sizes)
    n = groups.size
    a, b = p * (1 - rho) / rho, (1 - p) * (1 - rho) / rho
    x = (rng.random((R, n)) < rng.beta(a, b, (R, G))[:, groups]).astype(float)
    m = rt.ScoreMatrix.from_array(x, groups=[str(g) for g in groups])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iv = rt.intervals(m, method="cluster", confidence_level=cl)
    out: dict[str, float] = {"none": float(np.mean((x.sum(1) == 0) | (x.sum(1) == n))),
           "warned": float(np.mean((G < EDGE_MIN_CLUSTERS) & ((iv.score <= EDGE_BAND) | (iv.score >= 1 - EDGE_BAND))))}
    for name, (lo, hi) in (("before", before(x, m.group_codes, cl)), ("now", (iv.ci_low, iv.ci_high)),
                           ("KG", korn_graubard(x, m.group_codes, cl))):
        out[name] = float(np.mean((lo <= p) & (p <= hi)))
        out[name + "_w"] = float(np.nanmean(hi - lo))
    if boot:
        mb = rt.ScoreMatrix.from_array(x[:boot], groups=[str(g) for g in groups])
        for meth in ("percentile", "bca"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                b = rt.intervals(mb, method=meth, cluster=True, n_resamples=999, rng=1, confidence_level=cl)
            out[meth] = float(np.mean((b.ci_low <= p) & (p <= b.ci_high)))
            out[meth + "_w"] = float(np.nanmean(b.ci_high - b.ci_low))
    return out


def show(c: dict[str, float], k: str, R: int) -> str:
    """Coverage ± MC SE (mean width), '!' when more than 2 MC SE below 0.93."""
    q = c[k]
    se = math.sqrt(q * (1 - q) / R)
    flag = " !" if q < 0.93 - 2 * se else ""
    return f"{q:.3f} ± {se:.3f} ({c[k + '_w']:.3f}){flag}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--R", type=int, default=1000, help="data sets per cell (default 1,000)")
    ap.add_argument("--n", type=int, default=1000, help="items per data set (default 1,000)")
    ap.add_argument("--G", default="3,5,8,12,20,30", help="cluster counts")
    ap.add_argument("--rho", default="0.1,0.3", help="intra-cluster correlations")
    ap.add_argument("--p", default="0.02,0.05,0.5,0.95", help="true accuracies")
    ap.add_argument("--seed", type=int, default=404)
    ap.add_argument("--no-unequal", action="store_true", help="skip the unequal clusters (SWE-bench's 12 repositories)")
    ap.add_argument("--bootstrap", type=int, default=0, metavar="R",
                    help="also the cluster bootstrap (percentile and BCa, widened: the default correction) on R of "
                         "the data sets per cell, B = 999 (R = 400: about 10 s per 16 cells)")
    args = ap.parse_args()
    cl = 0.95
    rng = np.random.default_rng(args.seed)
    R = args.R
    print(f"clustered 0/1 interval, n = {args.n}, R = {R} per cell, nominal {cl}; coverage ± MC SE (mean width)\n")
    boot_head = (" cluster bootstrap percentile | BCa |", "--:|--:|") if args.bootstrap else ("", "")
    print("| G | rho | p | no success (or failure) | warned | before (0.2) | now (default) | KG (reference) |"
          + boot_head[0])
    print("|--:|--:|--:|--:|--:|--:|--:|--:|" + boot_head[1])
    t0 = time.perf_counter()
    for G in (int(v) for v in args.G.split(",")):
        for rho in (float(v) for v in args.rho.split(",")):
            for p in (float(v) for v in args.p.split(",")):
                c = cell(G, rho, p, R, args.n, rng, cl, boot=args.bootstrap)
                extra = (f" {show(c, 'percentile', args.bootstrap)} | {show(c, 'bca', args.bootstrap)} |"
                         if args.bootstrap else "")
                print(f"| {G} | {rho:g} | {p:g} | {c['none']:.2f} | {c['warned']:.2f} | {show(c, 'before', R)} | "
                      f"{show(c, 'now', R)} | {show(c, 'KG', R)} |{extra}", flush=True)
    if not args.no_unequal:
        print(f"\nunequal clusters: SWE-bench Verified mini's 12 repositories ({sum(SWEBENCH_SIZES)} items, "
              f"{'/'.join(map(str, SWEBENCH_SIZES))}; Bell-McCaffrey df 3.3)\n")
        print("| G | rho | p | no success (or failure) | warned | before (0.2) | now (default) | KG (reference) |")
        print("|--:|--:|--:|--:|--:|--:|--:|--:|")
        for rho in (0.1, 0.3):
            for p in (0.05, 0.5, 0.74, 0.95):
                c = cell(len(SWEBENCH_SIZES), rho, p, R, 0, rng, cl, sizes=SWEBENCH_SIZES)
                print(f"| 12 (unequal) | {rho:g} | {p:g} | {c['none']:.2f} | {c['warned']:.2f} | {show(c, 'before', R)} | "
                      f"{show(c, 'now', R)} | {show(c, 'KG', R)} |", flush=True)
    print(f"\n{time.perf_counter() - t0:.0f} s; '!' = more than 2 MC SE below 0.93")


if __name__ == "__main__":
    main()
