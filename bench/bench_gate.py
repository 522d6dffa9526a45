"""The release gate's error rates, by seeded simulation (issue 25).

Candidate and baseline with 0/1 scores that differ on a share q of items; on task k the candidate's true
difference is -drop_k. Printed, each with its Monte Carlo standard error:

1. False FAIL with equal models on a 12-task suite (200-5,000 items a task): Holm (the gate) beside
   no adjustment (each task tested alone at 5%, the naive per-task check) and Bonferroni.
2. Power: the candidate truly 4 points worse on the 4,000-item task of a 6-task suite: FAIL, and FAIL
   naming that task, by q.
3. PASS rates for equal models by task size (6 equal tasks, margin 1 point), Holm beside no adjustment.
4. Time per gate call.

    .venv/bin/python bench/bench_gate.py [--runs 500] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import ranktrust as rt
from ranktrust.gating import gate

SIZES_12 = [200, 300, 500, 800, 1000, 1200, 1500, 2000, 2500, 3000, 4000, 5000]
SIZES_6 = [4000, 500, 1000, 1500, 2000, 3000]


def simulate_suite(rng, sizes, q, drops=None):
    """0/1 scores of a candidate and a baseline on tasks of the given sizes: they differ on a share q of
    items; the candidate's true difference on task k is -drops[k] (only-candidate-right has probability
    (q - drop)/2, only-baseline-right (q + drop)/2). tests/test_gate.py draws its suites with this too."""
    out = {}
    qs = np.broadcast_to(np.asarray(q, dtype=np.float64), (len(sizes),))   # one q, or one per task
    for k, n in enumerate(sizes):
        d = 0.0 if drops is None else drops[k]
        u = rng.random(n)
        base = (rng.random(n) < 0.6).astype(np.float64)
        cand = base.copy()
        only_c = u < (qs[k] - d) / 2
        only_b = (u >= (qs[k] - d) / 2) & (u < qs[k])
        cand[only_c], base[only_c] = 1.0, 0.0
        cand[only_b], base[only_b] = 0.0, 1.0
        out[f"task{k:02d}"] = rt.ScoreMatrix.from_array(np.stack([cand, base]), models=["cand", "base"])
    return out


def rates(runs, sizes, q, drops, seed, adjusts=("holm", "none"), margin=0.01):
    """Per adjustment: (FAIL, FAIL naming task00, PASS) shares over the same simulated suites."""
    rng = np.random.default_rng(seed)
    count = {a: np.zeros(3) for a in adjusts}
    for _ in range(runs):
        suite = simulate_suite(rng, sizes, q, drops)
        for a in adjusts:
            g = gate(suite, "cand", "base", adjust=a, margin=margin)
            count[a] += [g.verdict == "FAIL", "task00" in g.worse, g.verdict == "PASS"]
    return {a: c / runs for a, c in count.items()}


def se(p, n):
    return math.sqrt(max(p * (1 - p), 1e-12) / n)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sections", default="1,2,3,4,5", help="which tables to print (comma-separated)")
    args = ap.parse_args()
    want = {int(x) for x in args.sections.split(",")}
    n = args.runs
    print(f"ranktrust {rt.__version__}, {n} runs per row, seed {args.seed}; MC SE in brackets\n")

    if 1 in want:
        section_1(n, args)
    if 2 in want:
        section_2(n, args)
    if 3 in want:
        section_3(n, args)
    if 4 in want:
        section_4(args)
    if 5 in want:
        section_5(n, args)


def section_1(n, args):
    print("1. Equal models, 12 tasks of 200-5,000 items (q = 0.2): false FAIL")
    r = rates(n, SIZES_12, 0.2, None, args.seed, adjusts=("holm", "bonferroni", "none"))
    print(f"   {'adjust':<12}{'false FAIL':>14}")
    for a in ("holm", "bonferroni", "none"):
        print(f"   {a:<12}{r[a][0]:>8.1%} [{se(r[a][0], n):.1%}]")
    ratio = r["none"][0] / r["holm"][0] if r["holm"][0] > 0 else float("inf")
    print(f"   no adjustment fails {ratio:.1f}x as often as Holm (target for Holm: <= 5%)\n")



def section_2(n, args):
    print("2. Candidate 4 points worse on the 4,000-item task of a 6-task suite: FAIL / FAIL naming it")
    print(f"   {'q':<6}{'Holm FAIL':>12}{'named':>10}{'none FAIL':>12}{'named':>10}")
    for q in (0.2, 0.3, 0.4):
        r = rates(n, SIZES_6, q, [0.04, 0, 0, 0, 0, 0], args.seed + 1)
        print(f"   {q:<6}{r['holm'][0]:>12.1%}{r['holm'][1]:>10.1%}{r['none'][0]:>12.1%}{r['none'][1]:>10.1%}")
    print("   (target: Holm FAIL naming the task >= 80%)\n")



def section_3(n, args):
    print("3. Equal models, 6 tasks of one size (q = 0.2): PASS rate by task size and margin")
    print(f"   {'items':>7}{'1 pt Holm':>11}{'none':>7}{'2 pts Holm':>12}{'none':>7}{'false FAIL (Holm)':>19}")
    m3 = max(n // 2, 50)
    for size in (1000, 2000, 5000, 10000, 20000, 40000):
        r1 = rates(m3, [size] * 6, 0.2, None, args.seed + size, margin=0.01)
        r2 = rates(m3, [size] * 6, 0.2, None, args.seed + size, margin=0.02)    # the same suites
        print(f"   {size:>7,}{r1['holm'][2]:>11.1%}{r1['none'][2]:>7.1%}{r2['holm'][2]:>12.1%}{r2['none'][2]:>7.1%}"
              f"{r1['holm'][0]:>12.1%} [{se(r1['holm'][0], m3):.1%}]")
    print(f"   ({m3} runs a row; no adjustment PASSes less at large sizes: its false FAILs stop it)\n")



def section_4(args):
    rng = np.random.default_rng(args.seed)
    suite = simulate_suite(rng, SIZES_12, 0.2)
    def best(fn, reps=5, inner=10):
        out = []
        for _ in range(reps):
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            out.append((time.perf_counter() - t0) / inner)
        return min(out)

    per = best(lambda: gate(suite, "cand", "base"))
    naive = best(lambda: [rt.compare(m, "cand", "base") for m in suite.values()])
    print(f"4. One gate over 12 tasks: {per * 1000:.0f} ms; the naive loop of 12 compare calls (no adjustment, "
          f"no second interval): {naive * 1000:.0f} ms; ratio {per / naive:.1f}x (best of 5)")


def section_5(n, args):
    print("\n5. False PASS: the candidate truly 1 point worse (= the margin) on a 2,000-item task (q = 0.1) beside three")
    print("   20,000-item tasks (q = 0.02) it passes; control: 1 point better on that task")
    sizes, q = [2000, 20000, 20000, 20000], [0.1, 0.02, 0.02, 0.02]
    r = rates(n, sizes, q, [0.01, 0, 0, 0], args.seed + 5)
    c = rates(n, sizes, q, [-0.01, 0, 0, 0], args.seed + 6)
    print(f"   {'adjust':<8}{'false PASS':>12}{'control PASS':>15}")
    for a in ("holm", "none"):
        print(f"   {a:<8}{r[a][2]:>7.1%} [{se(r[a][2], n):.1%}]{c[a][2]:>10.1%}")
    print("   (bound: 2.5% = half of 1 - confidence, by the intersection-union argument; Holm is conservative)")


if __name__ == "__main__":
    main()
