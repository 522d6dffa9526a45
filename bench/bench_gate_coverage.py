"""Coverage of the paired interval for continuous scores: the betting interval (the default) beside the paired t.

Seeded, 2,000 runs a cell (Monte Carlo SE about 0.005 at 0.95): skewed = Beta(0.1, 0.9) - Beta(20, 180), both
mean 0.1 (the statistics audit's g4 shape); mirror = the other way round; rare loss = +0.2 points on 98% of items,
-60 points on 2% (the audit's g5); normal = N(1 point, sd 10 points). Prints "betting / t" per n. The table in
docs/statistics.md section 2 is this script's output.

    .venv/bin/python bench/bench_gate_coverage.py [--runs 2000] [--seed 30]
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from scipy import stats

from ranktrust.stats._bounded import betting_bounds


def draw(g, kind, R, n):
    if kind == "skewed":
        return g.beta(0.1, 0.9, (R, n)) - g.beta(20, 180, (R, n)), 0.0
    if kind == "mirror":
        return g.beta(20, 180, (R, n)) - g.beta(0.1, 0.9, (R, n)), 0.0
    if kind == "rare loss":
        noise = np.clip(g.normal(0, 0.01, (R, n)), -0.04, 0.04)
        return np.where(g.random((R, n)) < 0.02, -0.6, 0.002 + noise), 0.98 * 0.002 - 0.02 * 0.6
    return np.clip(g.normal(0.01, 0.1, (R, n)), -1, 1), 0.01


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=30)
    a = ap.parse_args()
    g = np.random.default_rng(a.seed)
    print("| differences | n = 20 | n = 50 | n = 200 | n = 1,000 |")
    for kind in ("skewed", "mirror", "rare loss", "normal"):
        row = []
        for n in (20, 50, 200, 1000):
            d, mu = draw(g, kind, a.runs, n)
            lo, hi, _ = betting_bounds(d)
            h = stats.t.ppf(0.975, n - 1) * d.std(1, ddof=1) / math.sqrt(n)
            m = d.mean(1)
            row.append(f"{np.mean((lo <= mu) & (mu <= hi)):.3f} / {np.mean((m - h <= mu) & (mu <= m + h)):.3f}")
        print(f"| {kind} | " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
