"""Every printed promise at the edges of its scope (issue 30), in one run: the rows of the issue's table, each
re-measured by the bench of its area and printed as rate ± Monte Carlo SE beside its promise.

| row of the issue | bench (run here with the sizes below) |
|---|---|
| gate, continuous tasks (false FAIL) and non-inferiority (false PASS), with a grid beyond | bench_gate_edges.py |
| arena: a new model on few prompts, no prompt column, star win rates near 1, all ties | bench_arena_edges.py |
| watch: arrival vs dispatch under correctness-dependent latency, epochs with --items | bench_watch_edges.py |
| clustered 0/1 intervals near 0/1 with 3-30 clusters | bench_cluster_edges.py |

``--quick`` runs a smaller grid (a few minutes on 2 cores); the default is the size the docs quote (about half an
hour here). ``tests/test_*edges*`` hold the same checks as slow tests on smaller grids.

    .venv/bin/python bench/bench_edges.py [--quick] [--only gate,arena,watch,cluster]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: area -> (bench, arguments for the full run, arguments for --quick)
AREAS = {
    "gate": ("bench_gate_edges.py", ["--runs", "1000"], ["--runs", "200"]),
    "arena": ("bench_arena_edges.py", ["--reps", "400", "--star-reps", "300", "--cells", "a,b,d,few,star"],
              ["--reps", "60", "--star-reps", "100", "--cells", "d,star"]),
    "watch": ("bench_watch_edges.py", ["--reps", "3000", "--cli-reps", "100"], ["--reps", "300", "--cli-reps", "20"]),
    "cluster": ("bench_cluster_edges.py", ["--R", "1500"], ["--R", "300", "--no-unequal"]),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smaller grid")
    ap.add_argument("--only", default=",".join(AREAS), help="comma-separated areas")
    a = ap.parse_args()
    failed = []
    for area in a.only.split(","):
        script, full, quick = AREAS[area]
        args = quick if a.quick else full
        print(f"\n=== {area}: {script} {' '.join(args)}", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call([sys.executable, str(HERE / script), *args])
        print(f"=== {area}: {time.perf_counter() - t0:.0f} s, exit {rc}", flush=True)
        if rc:
            failed.append(area)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
