"""Speed of the one stepdown max-|t| over all pairs (``ranking._stepdown``) beside the two it replaced.

The old arena stepdown (``preference._maxt.stepdown`` before the kernel) and the old suite step-down
(``ranking._suite._stepdown`` before it) are the reference copies kept in ``tests/test_stepdown.py``; each is
timed on the same inputs as its new front in the same run, alternating, and the numbers are checked equal.

* arena scale: 250 models (31,125 pairs), 2,000 normal draws from a covariance like a fitted Bradley-Terry
  board's (log-strengths spread like LMArena's, standard errors 0.02-0.15 by how often a model plays,
  correlated through a common component);
* suite scale: 250 models, 2,000 bootstrap draws of their mean scores (standard errors 0.003-0.03).

    .venv/bin/python bench/bench_stepdown.py              # about a minute on 2 shared cores
    .venv/bin/python bench/bench_stepdown.py --models 100 --draws 1000 --reps 5
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _reference():
    spec = importlib.util.spec_from_file_location("_stepdown_reference", ROOT / "tests" / "test_stepdown.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def arena_inputs(M: int, seed: int = 0):
    g = np.random.default_rng(seed)
    theta = np.sort(g.normal(0, 0.8, M))[::-1].copy()
    se = 0.02 + 0.13 * g.pareto(1.5, M) / (1 + g.pareto(1.5, M))
    common = g.normal(size=M)
    R = 0.7 * np.eye(M) + 0.3 * np.outer(common, common) / M
    V = (se[:, None] * se[None, :]) * R
    C = np.eye(M) - 1.0 / M
    V = C @ V @ C
    return theta - theta.mean(), V


def suite_inputs(M: int, B: int, seed: int = 1):
    g = np.random.default_rng(seed)
    g0 = np.sort(g.uniform(0.2, 0.9, M))[::-1].copy()
    se = g.uniform(0.003, 0.03, M)
    common = g.normal(size=(B, 1)) * 0.005
    gb = g0 + g.normal(size=(B, M)) * se + common
    return g0, gb


def timed(fn, reps: int) -> tuple[list[float], object]:
    out, ts = None, []
    for _ in range(reps):
        c = time.process_time()
        out = fn()
        ts.append(time.process_time() - c)
    return ts, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=int, default=250)
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    ref = _reference()
    from ranktrust import ranking as _maxt   # the one stepdown's arena front
    from ranktrust.ranking import _suite

    M, B = args.models, args.draws
    P = M * (M - 1) // 2
    theta, V = arena_inputs(M)
    rows = []

    def old_a():
        return ref._old_arena(theta, V, n_draws=B, rng=np.random.default_rng(7))

    def new_a():
        return _maxt.stepdown(theta, V, n_draws=B, rng=np.random.default_rng(7))

    g0, gb = suite_inputs(M, B)

    def old_s():
        return ref._old_suite(g0, gb, 0.95)

    def new_s():
        return _suite._stepdown(g0, gb, 0.95)

    t_old_a, t_new_a, t_old_s, t_new_s = [], [], [], []
    for _ in range(args.reps):                 # alternate, so load moves both alike
        t, oa = timed(old_a, 1)
        t_old_a += t
        t, na = timed(new_a, 1)
        t_new_a += t
        t, os_ = timed(old_s, 1)
        t_old_s += t
        t, ns = timed(new_s, 1)
        t_new_s += t
    same_a = np.array_equal(oa["p_adjusted"], na["p_adjusted"]) and np.array_equal(oa["max_abs"], na["max_abs"])
    same_s = all(np.array_equal(a, b) for a, b in zip(os_[5:7], ns[5:7])) and os_[7] == ns[7]
    sep_a = int((na["p_adjusted"] < 0.05).sum())
    sep_s = int((ns[6] < 0.05).sum())
    for name, to, tn, same, sep in (("arena (normal draws incl.)", t_old_a, t_new_a, same_a, sep_a),
                                    ("suite (bootstrap draws)", t_old_s, t_new_s, same_s, sep_s)):
        mo, mn = statistics.median(to), statistics.median(tn)
        rows.append((name, mo, mn, mo / mn, same, sep))
    print(f"stepdown max-|t|, {M} models ({P:,} pairs), {B:,} draws; CPU seconds, median of {args.reps} "
          f"(old and new alternating in one process)")
    print(f"  {'':28s} {'old':>7s} {'new':>7s} {'old/new':>8s}  same numbers  separated at 5%")
    for name, mo, mn, r, same, sep in rows:
        print(f"  {name:28s} {mo:7.3f} {mn:7.3f} {r:8.2f}  {str(same):12s}  {sep:,} of {P:,}")


if __name__ == "__main__":
    main()
