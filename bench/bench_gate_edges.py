"""The gate's footer figures at the edges (issue 30 §1): the statistics audit's g4 and g5 cells, and a grid beyond.

The footer says "a false FAIL has probability at most 0.05, a false PASS at most 0.025". The audit measured,
with the paired t on continuous tasks: false FAIL 0.310 / 0.128 (12 tasks x 50 / 200 items, equal means, the
candidate right-skewed: Beta(0.1, 0.9) against Beta(20, 180)) and false PASS 0.377 / 0.070 (one task truly worse
by the 1-point margin: +0.2 points on 98% of items, -60 points on 2%; 50 / 200 items). This script re-runs those
cells with the default test (the betting interval of ranktrust.stats._bounded) and prints each rate +- its Monte
Carlo SE beside the promise, then a grid of its own (n = 20, 30, 100; other skews; 5% losses of 30 points).

How: the gate's verdicts are computed from the same betting bounds, vectorised over the runs (a false FAIL needs
only the p-values: the Holm step-down and the sign, since the interval at a task's Holm level excludes 0 exactly
when Holm rejects; a false PASS of a one-task suite needs its lower bound at 95%). First, on --check runs, every
vectorised verdict is compared with rt.gate's own (they must be equal, run by run); then the big runs.

    .venv/bin/python bench/bench_gate_edges.py [--runs 2000] [--check 40] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import ranktrust as rt
from ranktrust.stats._bounded import betting_bounds

ALPHA = 0.05
MARGIN = 0.01


def skewed(g, runs, tasks, n, mirror=False, a=(0.1, 0.9), b=(20, 180)):
    """(runs, tasks, 2, n): candidate Beta(a) (rare high scores) and baseline Beta(b), the same mean."""
    c, s = g.beta(*a, (runs, tasks, n)), g.beta(*b, (runs, tasks, n))
    if mirror:
        c, s = s, c
    return np.stack([c, s], axis=2)


def rare_loss(g, runs, n, share=0.02, loss=0.6, gain=0.002):
    """(runs, 1, 2, n): one task, the candidate truly worse by exactly the margin through rare large losses. The
    baseline lies in [0.65, 0.95] so that every score stays in [0, 1] (the scope of the promise; the audit's
    Beta(5, 5) baseline let scores leave it) and the true mean difference is exactly -margin."""
    b = 0.65 + 0.3 * g.beta(5, 5, (runs, n))
    noise = np.clip(g.normal(0, 0.01, (runs, n)), -0.04, 0.04)
    d = np.where(g.random((runs, n)) < share, -loss, gain + noise)
    d -= (1 - share) * gain - share * loss + MARGIN
    return np.stack([b + d, b], axis=1)[:, None]


def verdicts(X, better=False):
    """FAIL / PASS / INCONCLUSIVE of each run of X (runs, tasks, 2, n), as the gate decides them (with ``better``:
    whether some task is called better, which voids --require better when it is false)."""
    runs, tasks, _, n = X.shape
    D = (X[:, :, 0] - X[:, :, 1]).reshape(runs * tasks, n)
    lo, hi, p = betting_bounds(D, confidence_level=1 - ALPHA)
    p = p.reshape(runs, tasks)
    mean = D.mean(axis=1).reshape(runs, tasks)
    # Holm's step-down, the form of gating._core.holm_levels, for all runs at once
    order = np.argsort(p, axis=1)
    ps = np.take_along_axis(p, order, axis=1)
    thresholds = ALPHA / (tasks - np.arange(tasks))
    ok = ps < thresholds
    first_fail = np.where(ok.all(axis=1), tasks, np.argmin(ok, axis=1))
    rejected_sorted = np.arange(tasks)[None, :] < first_fail[:, None]
    rejected = np.zeros_like(rejected_sorted)
    np.put_along_axis(rejected, order, rejected_sorted, axis=1)
    fail = (rejected & (mean < 0)).any(axis=1)
    if better:
        return (rejected & (mean > 0)).any(axis=1)
    if tasks == 1:                      # one task: PASS when its lower bound at 95% clears -margin
        passed = (~fail) & (lo.reshape(runs, 1) > -MARGIN).all(axis=1)
    else:
        passed = np.zeros(runs, dtype=bool)     # not needed for the false-FAIL cells
    return np.where(fail, "FAIL", np.where(passed, "PASS", "INCONCLUSIVE"))


def check(g, runs):
    """The vectorised verdicts equal rt.gate's, run by run, on both kinds of cell."""
    X = skewed(g, runs, 12, 50)
    want = [rt.gate({f"t{k}": rt.ScoreMatrix.from_array(X[r, k], models=["cand", "base"]) for k in range(12)},
                    "cand", "base", margin=MARGIN).verdict for r in range(runs)]
    got = verdicts(X)
    assert (got == "FAIL").tolist() == [w == "FAIL" for w in want], (got, want)
    X = rare_loss(g, runs, 50)
    want = [rt.gate({"t": rt.ScoreMatrix.from_array(X[r, 0], models=["cand", "base"])}, "cand", "base",
                    margin=MARGIN).verdict for r in range(runs)]
    assert verdicts(X).tolist() == want
    return 2 * runs


def line(label, k, runs, promise):
    p = k / runs
    se = math.sqrt(max(p * (1 - p), 1e-12) / runs)
    ok = "ok" if p <= promise + 2 * math.sqrt(promise * (1 - promise) / runs) else "ABOVE"
    print(f"{label:<78} {p:.4f} +- {se:.4f}  (R={runs:,}; promise <= {promise:g}) {ok}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--check", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    g = np.random.default_rng(a.seed)
    t0 = time.perf_counter()
    if a.check:
        k = check(g, a.check)
        print(f"vectorised verdicts = rt.gate's on {k} suites ({time.perf_counter() - t0:.0f} s)", flush=True)
    R = a.runs
    print("audit g4: 12 continuous tasks, equal means, false FAIL (audit, paired t: 0.310 / 0.128 / 0.055)")
    for n in (50, 200, 1000):
        for mirror in (False, True):
            runs = R if n < 1000 else max(R // 2, 1000)
            X = skewed(g, runs, 12, n, mirror)
            if mirror:      # the audit's mirror: a task falsely called better (0.295 / 0.115 / 0.038 with the t)
                line(f"  12 x {n} items, baseline right-skewed: a task falsely 'better'",
                     int(np.sum(verdicts(X, better=True))), runs, ALPHA)
            else:
                line(f"  12 x {n} items, candidate right-skewed: false FAIL", int(np.sum(verdicts(X) == "FAIL")),
                     runs, ALPHA)
    print("audit g5: one task truly worse by the margin (rare large losses), false PASS (audit: 0.377 / 0.070)")
    for n in (50, 200, 1000):
        X = rare_loss(g, R, n)
        line(f"  {n} items, 2% of items -60 points", int(np.sum(verdicts(X) == "PASS")), R, ALPHA / 2)
    print("beyond the audit")
    for n in (20, 30, 100):
        v = verdicts(skewed(g, R, 12, n))
        line(f"  false FAIL, 12 x {n} items, Beta(0.1, 0.9) vs Beta(20, 180)", int(np.sum(v == "FAIL")), R, ALPHA)
    for n in (30, 100, 300):
        v = verdicts(skewed(g, R, 12, n, a=(0.05, 0.95), b=(50, 950)))
        line(f"  false FAIL, 12 x {n} items, Beta(0.05, 0.95) vs Beta(50, 950) (mean 0.05)",
             int(np.sum(v == "FAIL")), R, ALPHA)
    for n in (20, 30, 100, 500):
        X = rare_loss(g, R, n, share=0.05, loss=0.3)
        line(f"  false PASS, {n} items, 5% of items -30 points", int(np.sum(verdicts(X) == "PASS")), R, ALPHA / 2)
    # power beside it: identical tasks PASS from the items the bound needs; a spread equal task
    for n in (400, 502, 1000):
        X = np.repeat(g.beta(2, 2, (R // 10, 1, 1, n)), 2, axis=2)
        print(f"  PASS of a task identical to its baseline, {n} items: "
              f"{np.mean(verdicts(X) == 'PASS'):.3f} (the bound allows it from 502 items)", flush=True)
    for n in (200, 500, 1000, 3000):
        b = g.beta(2, 2, (R // 10, n))
        X = np.stack([np.clip(b + g.normal(0, 0.05, b.shape), 0, 1), b], axis=1)[:, None]
        print(f"  PASS of an equal task (per-item noise sd 5 points), {n} items: {np.mean(verdicts(X) == 'PASS'):.3f}",
              flush=True)
    print(f"total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
