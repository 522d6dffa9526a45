"""Rank stability's engine before and after, in one process, taking turns.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/bench_stability_engine.py [--before REV] [--reps 5] [--cases gpqa,200,N,Nrank]

Loads ``src/ranktrust/resample/_engine.py`` and ``src/ranktrust/ranking/_stability.py`` as they were at
``REV`` (``git show``, beside today's package: their relative imports resolve to today's modules) and
times ``stability`` with each, alternately, on

* GPQA 420 x 448 (the report's call: sizes 30, 100, 200 and full, 2,000 draws, no rank distributions),
* synthetic 100 x 14,000 int8 at n = 200 and n = N (2,000 draws), beside the floor of drawing the
  (2,000, n) indices (``bench_scale.py``'s ``draw_floor``).

Prints wall and CPU seconds (best of ``reps``) and new / old; checks the figures are identical
(Monte Carlo with the same draws: the same integer counts, so equal probabilities).
Use ``OPENBLAS_NUM_THREADS=1`` for CPU-second comparisons.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))
GPQA = next((p for p in (Path("/work/shared/data/gpqa_main_openllm.csv.gz"),
                          ROOT / "tests" / "data" / "gpqa_main_openllm.csv.gz") if p.exists()), None)


from bench_quality_speed import module_at   # src/ranktrust/<rel> as it was at a commit, as a module


def best(fns: dict, reps: int) -> dict:
    out = {k: [] for k in fns}
    for _ in range(reps):
        for k, f in fns.items():      # interleaved: load changes hit both alike
            t, c = time.perf_counter(), time.process_time()
            f()
            out[k].append((time.perf_counter() - t, time.process_time() - c))
    return {k: (min(w for w, _ in v), min(c for _, c in v)) for k, v in out.items()}


def same(a, b) -> bool:
    return (np.array_equal(a.p_first, b.p_first) and np.array_equal(a.p_top_stays_top, b.p_top_stays_top)
            and np.array_equal(a.p_topk_order, b.p_topk_order, equal_nan=True)
            and (a.rank_distribution is None) == (b.rank_distribution is None)
            and (a.rank_distribution is None or np.array_equal(a.rank_distribution, b.rank_distribution)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default="eed48c5")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cases", default="gpqa,200,N,Nrank", help="comma-separated: gpqa, 200, N, Nrank")
    a = ap.parse_args()
    import ranktrust as rt
    from ranktrust.ranking._stability import stability as new

    module_at(a.before, "resample/_engine.py", "ranktrust.resample._engine_before", "ranktrust.resample")
    old = module_at(a.before, "ranking/_stability.py", "ranktrust.ranking._stability_before", "ranktrust.ranking",
                    {"from ..resample._engine import": "from ..resample._engine_before import"}).stability
    from bench_scale import draw_floor, synthetic

    want = set(a.cases.split(","))
    cases = []
    if GPQA is not None and "gpqa" in want:
        m = rt.read(str(GPQA))
        m = m if m.is_complete else m.align("intersect")
        cases.append(("GPQA %d x %d, 4 sizes" % m.scores.shape, m,
                      dict(sizes=[30, 100, 200, "full"], n_resamples=2000, rng=0, rank_distribution=False), None))
    s = synthetic(100, 14000, seed=2)
    for n in [k for k, c in ((200, "200"), (14000, "N")) if c in want]:
        cases.append((f"100 x 14,000, n = {n:,}", s, dict(sizes=[n], n_resamples=2000, rng=0,
                                                          rank_distribution=False), n))
    if "Nrank" in want:
        cases.append(("100 x 14,000, n = 14,000, rank dist.", s, dict(sizes=[14000], n_resamples=2000, rng=0), None))
    print(f"before = {a.before}; best of {a.reps}, interleaved; wall s / CPU s")
    print(f"{'case':<38} {'old':>13} {'new':>13} {'new/old':>13} {'floor':>13} {'new/floor':>13}")
    for label, data, kw, n in cases:
        assert same(old(data, **kw), new(data, **kw)), label
        fns = {"old": lambda: old(data, **kw), "new": lambda: new(data, **kw)}
        if n is not None:
            fns["floor"] = lambda: draw_floor(14000, n, 2000, 0)
        t = best(fns, a.reps)
        o, w = t["old"], t["new"]
        fl = t.get("floor")
        print(f"{label:<38} {o[0]:6.3f}/{o[1]:6.3f} {w[0]:6.3f}/{w[1]:6.3f} {w[0] / o[0]:6.2f}/{w[1] / o[1]:6.2f}"
              + (f" {fl[0]:6.3f}/{fl[1]:6.3f} {w[0] / fl[0]:6.2f}/{w[1] / fl[1]:6.2f}" if fl else ""))
    print("figures identical old vs new: yes (asserted per case)")


if __name__ == "__main__":
    main()
