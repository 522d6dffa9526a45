"""Benchmark: the live Watch's cost per look, incremental engine vs re-running from item 0 (issue 22, point 4).

Run:  .venv/bin/python bench/bench_watch_speed.py

1. MMLU-Pro (29 models), its first 1,000 shared items declared (``Watch(models, items)``), results fed in the
   seeded order (``next()``'s order), 100 looks (``status()`` after every 10 items) against one look at item
   1,000 (all results fed, then one ``status()``). Goal: 100 looks <= 10x one look. Beside it, the naive reference
   (what 0.2 did): every look re-runs the engine over the whole prefix.
2. GPQA main (420 models x 448 items): one ``status()`` after feeding the finished matrix (goal < 5 s).
Times are the best of 3 (a shared machine).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

import ranktrust as rt
from ranktrust.sequential import Watch
from ranktrust.sequential._engine import EngineConfig, run_engine

ROOT = Path(__file__).resolve().parents[1]
MMLU = ROOT / "src" / "ranktrust" / "datasets" / "mmlupro_outputs.csv.gz"
GPQA = ROOT.parent / "shared" / "data" / "gpqa_main_openllm.csv.gz"


def best_of(f, reps: int = 3) -> float:
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return min(out)


def main() -> int:
    m = rt.read(MMLU, align="intersect")
    items = list(m.items[:1000])
    sub = m.select(items=items)
    order = Watch(sub.models, items).item_order()
    pos = {it: k for k, it in enumerate(sub.items)}
    S = sub.scores
    cols = [S[:, pos[it]] for it in order]

    def looks_incremental() -> None:
        w = Watch(sub.models, items)
        for k in range(0, 1000, 10):
            w.update_matrix(sub.select(items=order[k:k + 10]))
            w.status(next_budget=0)

    def one_look() -> None:
        w = Watch(sub.models, items)
        w.update_matrix(sub)
        w.status(next_budget=0)

    X = np.stack(cols, axis=1)
    cfg = EngineConfig(alpha=0.05, horizon=1000, stop_when_done=True)

    def looks_naive() -> None:     # 0.2: every look re-ran the engine from item 0
        for k in range(10, 1001, 10):
            run_engine(X[:, :k], cfg)

    t_inc = best_of(looks_incremental)
    t_one = best_of(one_look)
    t_naive = best_of(looks_naive)
    print(f"1. MMLU-Pro, 29 models, first 1,000 items declared, fed in the seeded order")
    print(f"   100 looks (status after every 10 items), incremental: {t_inc:.3f} s")
    print(f"   one look at item 1,000:                              {t_one:.3f} s")
    print(f"   ratio: {t_inc / t_one:.1f}x   goal <= 10x")
    print(f"   naive reference, engine only, re-run from item 0 at every look: {t_naive:.3f} s "
          f"({t_naive / best_of(lambda: run_engine(X, cfg)):.0f}x one engine run)")
    if GPQA.exists():
        g = rt.read(GPQA, align="intersect")

        def gpqa() -> None:
            w = Watch(g.models, g.items)
            w.update_matrix(g)
            w.status()

        t_g = best_of(gpqa, 1)
        print(f"2. GPQA main, {g.n_models} x {g.n_items}: feed the finished matrix and one status(): {t_g:.2f} s   "
              "goal < 5 s")
    else:
        print(f"2. GPQA: {GPQA} not found; skipped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
