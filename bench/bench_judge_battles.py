"""Prediction-powered Bradley–Terry rank sets on Chatzi et al.'s 26,919 Chatbot Arena battles (issue 35).

The same battles are judged by people and by three LLM judges (``../shared/data/judges/``, MIT). The truth is the
ranking that all 26,919 human verdicts give (the Bradley–Terry fit of every human verdict, as the paper takes it).
Each draw takes n human verdicts at random and the judge's verdicts on every battle, and computes three sets of
95% simultaneous rank sets (stepdown max-|t| over all pairs):

* ``ppr``: ranktrust's prediction-powered fit (``ranktrust.judges.gold_corrected_battles``);
* ``human``: the n human verdicts alone (the same code with lambda = 0);
* ``judge``: the judge's verdicts alone, on every battle (what trusting the judge gives).

Printed per judge and n: the share of draws whose sets cover every model's true rank ± MC SE, beside the goal
(>= 0.95 less 2 MC SE), and the mean rank-set size (the human-only sets must be larger).

    .venv/bin/python bench/bench_judge_battles.py [--runs 200] [--n 500,1000,2000,5000] [--judges gpt-4-0125-preview]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import time
from pathlib import Path

import numpy as np

from ranktrust.errors import SolverError
from ranktrust.judges._battles import ppi_bradley_terry
from ranktrust.judges._core import pairs_and_ranks

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "judges"
JUDGES = ("gpt-4-0125-preview", "claude-3-opus-20240229", "gpt-3.5-turbo")
SCORE = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}


def load(name):
    with gzip.open(DATA / f"ppr_{name}.jsonl.gz", "rt") as fh:
        rows = [json.loads(line) for line in fh]
    rows.sort(key=lambda r: r["num"])
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--n", default="500,1000,2000,5000")
    ap.add_argument("--judges", default=JUDGES[0], help=f"comma-separated, from {', '.join(JUDGES)}")
    ap.add_argument("--draws", type=int, default=2000, help="stepdown normal draws per set")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    human = load("human")
    models = sorted({r["model_a"] for r in human} | {r["model_b"] for r in human})
    idx = {m: k for k, m in enumerate(models)}
    M, N = len(models), len(human)
    ai = np.array([idx[r["model_a"]] for r in human])
    bi = np.array([idx[r["model_b"]] for r in human])
    y = np.array([SCORE[r["winner"]] for r in human])
    everyone = np.ones(N, dtype=bool)
    theta_true, _, _ = ppi_bradley_terry(ai, bi, y, y, everyone, M, lam=0.0)
    true_rank = np.empty(M, dtype=int)
    true_rank[np.argsort(-theta_true)] = np.arange(1, M + 1)
    R = a.runs
    mc = math.sqrt(0.95 * 0.05 / R)
    print(f"{N:,} battles, {M} models; truth: the Bradley-Terry ranking of all human verdicts; {R} draws a cell; "
          f"goal: coverage >= {0.95 - 2 * mc:.3f} (0.95 - 2 MC SE)")
    print(f"{'judge':<24} {'n':>5}  {'ppr coverage':>15} {'size':>5}  {'human cov':>9} {'size':>5}  "
          f"{'judge cov':>9} {'size':>5}  {'lambda':>6}")
    t0 = time.perf_counter()
    g = np.random.default_rng(a.seed)
    for name in a.judges.split(","):
        jr = load(name)
        assert all(x["num"] == h["num"] and x["model_a"] == h["model_a"] for x, h in zip(jr, human))
        f = np.array([SCORE[r["winner"]] for r in jr])
        th_j, V_j, _ = ppi_bradley_terry(ai, bi, f, f, everyone, M, lam=1.0)
        lo_j, hi_j = _sets(th_j, V_j, models, a.draws, g)
        judge_cov = bool(np.all((lo_j <= true_rank) & (true_rank <= hi_j)))
        judge_size = float(np.mean(hi_j - lo_j + 1))
        for n in (int(x) for x in a.n.split(",")):
            cov = {"ppr": 0, "human": 0}
            size = {"ppr": 0.0, "human": 0.0}
            lams = []
            failed = 0
            for _ in range(R):
                L = np.zeros(N, dtype=bool)
                L[g.choice(N, n, replace=False)] = True
                th, V, lam = ppi_bradley_terry(ai, bi, f, y, L, M)
                lams.append(lam)
                hum = _human(ai, bi, y, L, M)
                failed += hum is None
                for key, tv in {"ppr": (th, V), "human": hum}.items():
                    lo, hi = _sets(*tv, models, a.draws, g) if tv is not None else (np.ones(M), np.full(M, M))
                    cov[key] += bool(np.all((lo <= true_rank) & (true_rank <= hi)))
                    size[key] += float(np.mean(hi - lo + 1)) / R
            c = {k: v / R for k, v in cov.items()}
            se = math.sqrt(max(c["ppr"] * (1 - c["ppr"]), 1e-12) / R)
            print(f"{name:<24} {n:>5}  {c['ppr']:>7.3f} ± {se:.3f} {size['ppr']:>5.2f}  {c['human']:>9.3f} "
                  f"{size['human']:>5.2f}  {judge_cov!s:>9} {judge_size:>5.2f}  {np.mean(lams):>6.2f}", flush=True)
    print(f"{time.perf_counter() - t0:.0f} s. 'judge cov' is one fit on every battle: True/False, not a rate.")


def _human(ai, bi, y, L, M):
    """The people's verdicts alone; None where their Bradley-Terry fit has no finite answer (a model's labelled
    battles all won or all lost): its rank sets are then every rank."""
    try:
        th, V, _ = ppi_bradley_terry(ai[L], bi[L], y[L], y[L], np.ones(int(L.sum()), bool), M, lam=0.0)
    except SolverError:
        return None
    return th, V


def _sets(theta, V, models, draws, g):
    _, better, _ = pairs_and_ranks(theta, V, tuple(models), 0.95, draws, g)
    return 1 + better.sum(axis=0), len(theta) - better.sum(axis=1)


if __name__ == "__main__":
    main()
