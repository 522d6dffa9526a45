"""The final look of `watch`'s best set (sequential/_final.py): error at every stopping time, many runs.

    .venv/bin/python bench/bench_watch_final.py [--reps 2000]

Every model scored to the end (no elimination), scope population, known N, the final look on (f = 0.4);
alpha = 0.1 as in the tests. For each case: how often each best model is excluded at some stopping time
(exclusion is permanent, so this is the error of a user who peeks after every item), the largest of those
rates with its one-sided 95% Clopper-Pearson upper bound, and how often the final look excluded a model at all.
The t tails of the final look make it valid asymptotically; the small-N cases check how it holds up there.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_sequential_watch import _draw

from ranktrust.sequential._engine import EngineConfig, run_engine

ALPHA = 0.1
CASES = [([0.6] * 5, 300), ([0.6] * 5, 50), ([0.6] * 2, 30), ([0.6, 0.59, 0.59, 0.59, 0.59], 150),
         ([0.6, 0.595] + [0.56] * 6, 300), ([0.6] * 15, 271), ([0.9] * 3, 100), ([0.6, 0.6, 0.4, 0.4], 60)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2000)
    a = ap.parse_args()
    print(f"final look, alpha = {ALPHA}, {a.reps} runs per case; error = a best model excluded at some time")
    print(f"{'models (true means)':<34} {'N':>4} {'data':<10} {'max error':>9} {'95% upper':>9} {'looks':>7} {'s':>5}")
    for mus, n in CASES:
        best = np.flatnonzero(np.asarray(mus) == max(mus))
        for kind in ("binary", "continuous"):
            rng = np.random.default_rng(hash((tuple(mus), n, kind)) % 2**32)
            cfg = EngineConfig(alpha=ALPHA, pairs=False, eliminate=False, horizon=n)
            err = np.zeros(len(best), dtype=int)
            looks = 0
            t0 = time.perf_counter()
            for _ in range(a.reps):
                e = run_engine(_draw(rng, mus, n, kind), cfg)
                err += e.excluded_at[best] > 0
                looks += e.final_look_excluded > 0
            k = int(err.max())
            up = stats.beta.ppf(0.95, k + 1, a.reps - k) if k < a.reps else 1.0
            label = ", ".join(f"{m:g}" for m in mus) if len(mus) <= 8 else f"{len(mus)} x {mus[0]:g}"
            print(f"{label:<34} {n:>4} {kind:<10} {k / a.reps:9.3f} {up:9.3f} {looks / a.reps:7.2f} "
                  f"{time.perf_counter() - t0:5.0f}")


if __name__ == "__main__":
    main()
