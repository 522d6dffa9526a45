"""Coverage and speed of ``rt.suite`` (issue 34) on simulated suites.

Each scenario simulates boards of M models on K tasks of N items (0/1 scores): model abilities with a tied top
(two models with the same ability and the same task effects), model x task effects (tasks correlated through the
abilities), items correlated across models (a Gaussian copula: one latent draw per item shared by every model,
so every model's marginal success probability is still its own). The truth:

* scope (a), these tasks: a model's aggregate is the mean over the K tasks of its expected score on the task's
  item population (64-node Gauss-Hermite over the item difficulties); rank-set coverage = every model's
  simultaneous rank set holds its true rank (1 + the models truly above it: the tied top models both have rank
  1, so ordering them is a miss); a false claim = some pair found ordered although it is not ordered that way in
  truth;
* scope (b), a new task from the same population: a fresh task (new task effects and items) is drawn for every
  board, and each model's observed rank on it is checked against its rank prediction set (attainable level
  K / (K + 1) for K < 19).

Targets (issue 34): scope (a) coverage >= 0.93 and boards with a false claim <= 5%, each within 2 Monte Carlo SE;
scope (b) coverage within 0.03 of the attainable level. Then the speed of scope (a) at 1,000 models x 20 tasks x
2,000 items (40M cells), against the naive reference: a per-resample Python loop over resamples for the
aggregate (timed on 20 resamples and scaled).

    .venv/bin/python bench/bench_suite_coverage.py            # every scenario, 200 boards each (long)
    .venv/bin/python bench/bench_suite_coverage.py --quick    # 40 boards each, speed at 1,000 x 20 x 2,000
    .venv/bin/python bench/bench_suite_coverage.py --speed-only --speed-size 300,20,2000
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import ranktrust as rt

SCENARIOS = [
    # name, models, tasks, items per task (a range: each task draws its size), task-effect sd, item correlation
    ("small", 10, 5, (100, 300), 0.3, 0.3),
    ("mid", 20, 10, (200, 1000), 0.3, 0.5),
    ("wide", 50, 8, (100, 500), 0.2, 0.3),
    ("long", 12, 20, (1000, 5000), 0.4, 0.3),
    ("tied", 10, 5, (100, 300), 0.0, 0.3),      # every model equal on every task: any claim is false
]

_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(64)
_GH_W = _GH_W / _GH_W.sum()


def _expit(x):
    return 1.0 / (1.0 + np.exp(-x))


def _board_params(g, m):
    ability = np.sort(g.normal(0.0, 0.5, m))[::-1]
    ability[1] = ability[0]                                   # a tied top
    return ability


def _task(g, ability, eff_sd, n, rho, tied=True):
    """One task: (scores (M, N), true task means (M,), observed ranks)."""
    m = len(ability)
    eff = g.normal(0.0, eff_sd, m)
    if tied:
        eff[1] = eff[0]
    mu_d = g.normal(0.0, 0.5)
    logit = ability + eff
    truth = (_expit(logit[:, None] - (mu_d + _GH_X[None, :])) * _GH_W).sum(axis=1)
    d = mu_d + g.normal(0.0, 1.0, n)
    p = _expit(logit[:, None] - d[None, :])
    from scipy.special import ndtr

    z = math.sqrt(rho) * g.normal(size=(1, n)) + math.sqrt(1 - rho) * g.normal(size=(m, n))
    s = (ndtr(z) < p).astype(np.float64)
    return s, truth


def _truth(truth, rule):
    """The rule applied to the true task scores (K, M), higher is better."""
    if rule == "mean":
        return truth.mean(axis=0)
    beaten = (truth[:, :, None] > truth[:, None, :]).sum(axis=2) + 0.5 * (      # [t, j]: models j beats
        (truth[:, None, :] == truth[:, :, None]).sum(axis=2) - 1)
    return beaten.mean(axis=0)          # mean win rate, mean rank and Borda order the models alike


def run_scenario(name, m, k, sizes, eff_sd, rho, reps, seed, n_resamples, rule="mean"):
    g = np.random.default_rng(seed)
    cover = false = 0
    b_hits = b_n = 0
    level_b = None
    t0 = time.perf_counter()
    for rep in range(reps):
        ability = _board_params(g, m) if name != "tied" else np.zeros(m)
        tasks, truth = {}, np.zeros((k, m))
        for t in range(k):
            n = int(g.integers(sizes[0], sizes[1] + 1))
            s, truth[t] = _task(g, ability, eff_sd, n, rho)
            tasks[f"t{t}"] = rt.ScoreMatrix.from_array(s, models=[f"m{j}" for j in range(m)])
        r = rt.suite(tasks, rule=rule, n_resamples=n_resamples, rng=int(g.integers(1 << 31)))
        mu = _truth(truth, rule)
        true_rank = 1 + (mu[None, :] > mu[:, None] + 1e-12).sum(axis=1)     # tied models share the best rank
        cover += bool(np.all((r.rank_low <= true_rank) & (true_rank <= r.rank_high)))
        false += bool(np.any(r.better & ~(mu[:, None] > mu[None, :] + 1e-12)))
        # scope (b): a fresh task from the same population, its observed ranks (ties share the best rank)
        s_new, _ = _task(g, ability, eff_sd, int(g.integers(sizes[0], sizes[1] + 1)), rho)
        x = s_new.mean(axis=1)
        rank_new = 1 + (x[None, :] > x[:, None]).sum(axis=1)
        b_hits += int(((rank_new >= r.new_task_low) & (rank_new <= r.new_task_high)).sum())
        b_n += m
        level_b = r.new_task_level
    cov, fr, covb = cover / reps, false / reps, b_hits / b_n
    se_a = math.sqrt(0.95 * 0.05 / reps)
    ok_a = cov >= 0.93 - 2 * se_a and fr <= 0.05 + 2 * se_a
    ok_b = abs(covb - level_b) <= 0.03
    print(f"{name:6s} {rule} M={m:3d} K={k:2d} N={sizes[0]}-{sizes[1]:<5d} boards={reps:4d}  "
          f"(a) rank-set coverage {cov:.3f}  false-claim boards {fr:.3f}  (2 SE = {2 * se_a:.3f})  "
          f"(b) new-task coverage {covb:.3f} vs attainable {level_b:.3f}  "
          f"[{'ok' if ok_a else 'MISS'} / {'ok' if ok_b else 'MISS'}]  {time.perf_counter() - t0:.0f} s", flush=True)
    return ok_a, ok_b


def speed(m, k, n, n_resamples=1000):
    g = np.random.default_rng(0)
    ability = np.sort(g.normal(0, 0.5, m))[::-1]
    tasks = {}
    for t in range(k):
        s, _ = _task(g, ability, 0.3, n, 0.3, tied=False)
        tasks[f"t{t}"] = rt.ScoreMatrix.from_array(s, models=[f"m{j}" for j in range(m)])
    t0 = time.perf_counter()
    r = rt.suite(tasks, n_resamples=n_resamples, rng=0)
    fast = time.perf_counter() - t0
    # naive reference: per-resample Python loop (index draw, per-task means), timed on 20 resamples, scaled
    loops = 20
    t0 = time.perf_counter()
    gen = np.random.default_rng(1)
    for _ in range(loops):
        agg = np.zeros(m)
        for s in tasks.values():
            idx = gen.integers(0, s.n_items, s.n_items)
            agg += s.scores[:, idx].mean(axis=1)
    naive = (time.perf_counter() - t0) / loops * n_resamples
    print(f"speed: {m:,} models x {k} tasks x {n:,} items ({m * k * n / 1e6:.0f}M cells), scope (a) with "
          f"{n_resamples:,} resamples and {m * (m - 1) // 2:,} pairs: ranktrust {fast:.1f} s; naive per-resample loop "
          f"(aggregate only, no step-down) {naive:.1f} s (scaled from {loops}); ratio {naive / fast:.1f}x; "
          f"goal < 30 s: {'ok' if fast < 30 else 'MISS'}; tiers {int(r.tier.max())}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="40 boards per scenario")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--scenarios", default=None, help="comma-separated names")
    ap.add_argument("--n-resamples", type=int, default=1000)
    ap.add_argument("--rule", default="mean", choices=["mean", "mean-win-rate", "mean-rank", "borda"])
    ap.add_argument("--speed-only", action="store_true")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--speed-size", default="1000,20,2000", help="models,tasks,items")
    a = ap.parse_args()
    reps = a.reps or (40 if a.quick else 200)
    if not a.speed_only:
        want = set(a.scenarios.split(",")) if a.scenarios else None
        for i, sc in enumerate(SCENARIOS):
            if want is None or sc[0] in want:
                run_scenario(*sc, reps=reps, seed=100 + i, n_resamples=a.n_resamples, rule=a.rule)
    if not a.no_speed:
        speed(*map(int, a.speed_size.split(",")))


if __name__ == "__main__":
    main()
