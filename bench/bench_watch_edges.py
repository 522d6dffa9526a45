"""Watch at the edges of its promise (issue 30 §3): the analysis order under correctness-dependent latency, and a
harness that appends a second epoch to a file re-read with ``--items``.

Rows (alpha = 0.05; every rate is a share of seeded Monte Carlo runs, printed as rate ± MC SE, MC SE =
sqrt(p(1 - p)/R), beside the promise):

* ``latency``: the audit's W2-LAT (``statistics-audit-2026-12b/w1b_latency_min.py``): two equal Bernoulli(0.6)
  models, N = 200, the harness shuffles the items and sends them through C workers per model (C = 4, 8, 16, 200
  in flight); latency Exp(1), plus Exp(3) when model A answers wrong. ``arrival`` analyses in completion order,
  ``dispatch`` in the sending order (each result waits for every item sent before it). The error is per true best
  model (the guarantee's): the share of runs that excluded B (the audit's figure) and the larger of A's and B's.
  Beyond the audit: ``lognormal`` (latency lognormal(0, 1), times 4 when A is wrong) and ``both-slow`` (each
  model's wrong answers slower, A's by Exp(3), B's by Exp(1)); 5 tied models with A's wrong answers slower.
* ``epochs``: the audit's W3-EPOCHS (``w3_cli.py items-epochs``) through ``ranktrust.cli.main``: two tied
  models, N = 200 declared with ``--items``, a re-read every 20 items' worth of cells while the harness writes
  epoch 1 in full, then epoch 2 (``--run-col run``). Without ``--n-runs`` the state file refuses the first read
  that holds a second run of an analysed item (refused = that); with ``--n-runs 2`` items wait for both runs.
  Error = some look excluded a model (both are best: at most 2 alpha); withdrawn = a model excluded at one look
  and back in the set at a later one (promise: never). The state file is new for each run (the audit's script
  removes only the arrival state between its runs).

``.venv/bin/python bench/bench_watch_edges.py --reps 300 --cli-reps 40`` (about 3 minutes on the loaded 2-core
machine); ``--only latency`` or ``--only epochs`` for one block.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import tempfile
import time

import numpy as np
import pandas as pd

from ranktrust.sequential import Watch

ALPHA = 0.05


def se(k: float, n: int) -> float:
    p = k / n
    return (p * (1 - p) / n) ** 0.5


def fmt(k: float, n: int) -> str:
    return f"{k / n:.3f} ± {se(k, n):.3f}"


def completion(g: np.random.Generator, X: np.ndarray, sent: np.ndarray, conc: int, model: str) -> np.ndarray:
    """Items in completion order: each model's C workers take the items in the order ``sent``; an item is complete
    once every model has finished it."""
    K, N = X.shape
    fin = np.zeros((K, N))
    for k in range(K):
        wrong = X[k] == 0
        if model == "audit":          # w1b_latency_min.py
            lat = g.exponential(1.0, N) + (k == 0) * wrong * g.exponential(3.0, N)
        elif model == "lognormal":
            lat = g.lognormal(0.0, 1.0, N) * np.where((k == 0) & wrong, 4.0, 1.0)
        else:                         # both-slow
            lat = g.exponential(1.0, N) + wrong * g.exponential(3.0 if k == 0 else 1.0, N)
        free = np.zeros(conc)
        for i in sent:
            j = int(np.argmin(free))
            free[j] += lat[i]
            fin[k, i] = free[j]
    return np.argsort(fin.max(axis=0), kind="stable")


def latency_block(R: int) -> None:
    print("== latency: equal models, a shuffling harness, A's wrong answers slower; error per true best model "
          f"(promise <= {ALPHA}) ==")
    print(f"{'latency model':<11} {'K':>2} {'in flight':>9} {'order':<9} {'B excluded':>15} {'max per model':>15}"
          f" {'verdict':>8}   seconds")
    N = 200
    grid = [("audit", 2, c) for c in (4, 8, 16, 200)] + [("lognormal", 2, 16), ("both-slow", 2, 16),
                                                         ("audit", 5, 16)]
    for model, K, conc in grid:
        g = np.random.default_rng([2030, K, conc, len(model)])
        names = [chr(65 + k) for k in range(K)]
        items = [f"q{i}" for i in range(N)]
        out = {"arrival": np.zeros(K), "dispatch": np.zeros(K)}
        t0 = time.perf_counter()
        for _ in range(R):
            X = (g.random((K, N)) < 0.6).astype(float)
            sent = g.permutation(N)
            order = completion(g, X, sent, conc, model)
            rows = [(m, items[i], X[k, i]) for i in order for k, m in enumerate(names)]   # completion order
            for mode in out:
                w = (Watch(names, [items[i] for i in sent], order="dispatch") if mode == "dispatch"
                     else Watch(names, order="arrival", n_items=N))
                best = w.update_many(rows).status(next_budget=0).best_set   # never withdrawn: the last look has all
                out[mode] += [m not in best for m in names]
        secs = time.perf_counter() - t0
        for mode, bad in out.items():
            worst = bad.max()
            ok = "PASS" if worst / R - 2 * se(worst, R) <= ALPHA else "FAIL"
            print(f"{model:<11} {K:>2} {conc:>9} {mode:<9} {fmt(bad[1], R):>15} {fmt(worst, R):>15} {ok:>8}   "
                  f"{secs / 2:.1f}", flush=True)


def _cli(args: list[str]) -> tuple[int, str]:
    from ranktrust.cli import main

    f, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(f), contextlib.redirect_stderr(e):
        try:
            main([str(a) for a in args])
            rc = 0
        except SystemExit as s:
            rc = int(s.code or 0)
    return rc, e.getvalue()


def epochs_block(R: int) -> None:
    print(f"== epochs: --items re-read every 20 items while epoch 1 then epoch 2 is appended (2 tied models, N = 200, "
          f"R = {R}); error: some look excluded a model (<= 2 alpha = {2 * ALPHA}); withdrawn: never ==")
    N, STEP = 200, 20
    items = [f"q{i}" for i in range(N)]
    tmp = tempfile.mkdtemp(prefix="bench_watch_edges")
    open(f"{tmp}/items.txt", "w").write("\n".join(items) + "\n")
    for label, extra in (("--items (state)", []), ("--items --n-runs 2", ["--n-runs", "2"])):
        g = np.random.default_rng(79)     # the audit's seed for items-epochs
        err = wd = refused = looks = 0
        t0 = time.perf_counter()
        for _ in range(R):
            X = (g.random((2, 2, N)) < .6).astype(float)
            cells = [(m, i) for i in range(N) for m in range(2)]
            sub = g.permutation(N)
            rank = np.empty(N)
            rank[sub] = np.arange(N)
            key = np.array([rank[i] + g.normal(0, 5) for (m, i) in cells])
            cells = [cells[j] for j in np.argsort(key)]
            allc = [(e, m, i) for e in range(2) for (m, i) in cells]
            st = f"{tmp}/state.json"
            if os.path.exists(st):
                os.remove(st)
            seen: set[str] = set()
            ever = withdrawn = False
            for upto in range(2 * STEP, 4 * N + 1, 2 * STEP):
                rows = [("AB"[m], items[i], X[e, m, i], str(e)) for (e, m, i) in allc[:upto]]
                pd.DataFrame(rows, columns=["model", "item", "score", "run"]).to_csv(f"{tmp}/res.csv", index=False)
                rc, errtxt = _cli(["watch", f"{tmp}/res.csv", "--items", f"{tmp}/items.txt", "--run-col", "run",
                                   "--state", st, "-f", "json", "--out", f"{tmp}/o.json", *extra])
                if rc != 0:
                    refused += 1
                    assert "a later run (epoch) cannot revise an analysed item" in errtxt, errtxt
                    break
                looks += 1
                s = json.load(open(f"{tmp}/o.json"))
                now = {m["model"] for m in s["models"]} - set(s["best_set"])
                withdrawn |= bool(seen - now)
                seen |= now
                ever |= bool(now)
            err += ever
            wd += withdrawn
        print(f"{label:<20} error {fmt(err, R)}  withdrawn {wd}/{R}  refused {refused}/{R} (one line each)  "
              f"looks {looks}  [{time.perf_counter() - t0:.0f} s]", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=300, help="Monte Carlo runs per latency row")
    ap.add_argument("--cli-reps", type=int, default=40, help="runs of the epochs rows (each ~20 CLI reads)")
    ap.add_argument("--only", choices=["latency", "epochs"], default=None)
    a = ap.parse_args()
    if a.only in (None, "latency"):
        latency_block(a.reps)
    if a.only in (None, "epochs"):
        epochs_block(a.cli_reps)


if __name__ == "__main__":
    main()
