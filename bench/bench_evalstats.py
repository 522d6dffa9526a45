"""Peer comparison: ranktrust vs evalstats (PyPI) on the same synthetic leaderboard.

    .venv/bin/python bench/bench_evalstats.py             # 30 models x 5,000 items
    .venv/bin/python bench/bench_evalstats.py --quick     # 10 models x 1,000 items

Each tool runs in its own subprocess on the same CSV (one row per model and item);
the script prints wall time and peak resident memory of both, and the ratios.

* ranktrust: ``rt.report(m, rank_sets=True, stability=True, split_half=True,
  all_pairs=True)`` when the report module is present, else the same analyses called
  one by one (``rank_sets``, ``stability``, ``split_half``, ``bootstrap_ci``,
  ``all_pairs``).
* evalstats: its default multi-model analysis, ``evalstats.compare_models(load_from(df))``.

evalstats is installed into its own virtual environment (never the project's):
``python3 -m venv /tmp/evalstats-venv && /tmp/evalstats-venv/bin/pip install evalstats``;
the script does that itself unless ``--no-install`` is given, and says so when it cannot.
Goal (issue 3): ranktrust at least 100x faster at under a tenth of the memory.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

VENV = Path(os.environ.get("EVALSTATS_VENV", "/tmp/evalstats-venv"))

RT_CHILD = r"""
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
t0 = time.perf_counter()
import ranktrust as rt
m = rt.read(sys.argv[1])
t1 = time.perf_counter()
how = "rt.report(rank_sets, stability, split_half, all_pairs)"
try:
    from ranktrust.leaderboard import report
    r = report(m, rank_sets=True, stability=True, split_half=True, all_pairs=True, rng=0)
    r.to_dict()
except Exception as exc:   # report not integrated yet: call the analyses directly
    how = f"functions one by one (report failed: {type(exc).__name__})"
    rt.rank_sets(m, rng=0)
    rt.stability(m, rng=0)
    rt.split_half(m, rng=0)
    rt.stats.bootstrap_ci(m, rng=0)
    try:
        rt.all_pairs(m)
    except Exception:
        how += ", no all_pairs"
t2 = time.perf_counter()
print(json.dumps({"load_s": t1 - t0, "analysis_s": t2 - t1, "total_s": t2 - t0, "how": how,
                  "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""

ES_CHILD = r"""
import json, resource, sys, time, warnings, io, contextlib
warnings.simplefilter("ignore")
t0 = time.perf_counter()
import pandas as pd
import evalstats
df = pd.read_csv(sys.argv[1])
ev = evalstats.load_from(df)
t1 = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    res = evalstats.compare_models(ev)
t2 = time.perf_counter()
print(json.dumps({"load_s": t1 - t0, "analysis_s": t2 - t1, "total_s": t2 - t0,
                  "how": "evalstats.compare_models(load_from(df)) " + evalstats.__version__,
                  "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def synthetic_csv(path: Path, n_models: int, n_items: int, seed: int = 0) -> None:
    r = np.random.default_rng(seed)
    ability = np.sort(r.uniform(0.4, 0.8, n_models))[::-1]
    difficulty = r.random(n_items)
    u = np.where(r.random((n_models, n_items)) < 0.5, difficulty, r.random((n_models, n_items)))
    s = (u < ability[:, None]).astype(int)
    with open(path, "w") as fh:
        fh.write("model,item,score\n")
        for j in range(n_models):
            fh.write("".join(f"model_{j:02d},item_{i:05d},{s[j, i]}\n" for i in range(n_items)))


def ensure_evalstats(install: bool) -> str | None:
    """Path of a python with evalstats, or None (with the reason printed)."""
    py = VENV / "bin" / "python"
    ok = py.exists() and subprocess.run([str(py), "-c", "import evalstats"], capture_output=True).returncode == 0
    if ok:
        return str(py)
    if not install:
        print(f"evalstats: not installed in {VENV} (run without --no-install, or: python3 -m venv {VENV} && "
              f"{VENV}/bin/pip install evalstats)")
        return None
    print(f"installing evalstats into {VENV} (separate venv) ...", flush=True)
    r1 = subprocess.run(["python3", "-m", "venv", str(VENV)], capture_output=True, text=True)
    r2 = subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", "evalstats"], capture_output=True, text=True) \
        if r1.returncode == 0 else r1
    if r2.returncode != 0 or not py.exists():
        print(f"evalstats could not be installed: {(r2.stderr or r2.stdout).strip().splitlines()[-1:]}")
        return None
    return str(py)


def run_child(py: str, code: str, csv: Path, timeout: float) -> dict:
    t = time.perf_counter()
    try:
        p = subprocess.run([py, "-c", code, str(csv)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"timeout": True, "total_s": time.perf_counter() - t,
                "peak_rss_gb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20}
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["?"])[-1], "total_s": time.perf_counter() - t}
    return json.loads(p.stdout.strip().splitlines()[-1])


def show(name: str, r: dict) -> None:
    if r.get("error"):
        print(f"{name:10s} failed: {r['error']}")
    elif r.get("timeout"):
        print(f"{name:10s} stopped at the time limit after {r['total_s']:.0f} s (peak RSS so far "
              f">= {r['peak_rss_gb']:.2f} GB)")
    else:
        print(f"{name:10s} {r['total_s']:8.2f} s total ({r['analysis_s']:.2f} s analysis, {r['load_s']:.2f} s "
              f"import + load), peak RSS {r['peak_rss_gb']:.3f} GB  [{r['how']}]")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10 models x 1,000 items")
    ap.add_argument("--models", type=int, default=None)
    ap.add_argument("--items", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=None, help="seconds per tool (default 900; 180 with --quick)")
    ap.add_argument("--no-install", action="store_true", help="do not create the evalstats venv")
    a = ap.parse_args(argv)
    n_models = a.models or (10 if a.quick else 30)
    n_items = a.items or (1000 if a.quick else 5000)
    timeout = a.timeout or (180 if a.quick else 900)
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "leaderboard.csv"
        synthetic_csv(csv, n_models, n_items)
        print(f"synthetic leaderboard: {n_models} models x {n_items:,} items (0/1), {csv.stat().st_size / 1e6:.1f} MB CSV")
        rt_res = run_child(sys.executable, RT_CHILD, csv, timeout)
        show("ranktrust", rt_res)
        py = ensure_evalstats(not a.no_install)
        if py is None:
            return
        es_res = run_child(py, ES_CHILD, csv, timeout)
        show("evalstats", es_res)
    if "analysis_s" in rt_res and "total_s" in es_res and not es_res.get("error"):
        lower = "at least " if es_res.get("timeout") else ""
        print(f"ratio: ranktrust is {lower}{es_res['total_s'] / rt_res['total_s']:.0f}x faster (total wall time)"
              + (f", {es_res['analysis_s'] / rt_res['analysis_s']:.0f}x on the analysis alone" if "analysis_s" in es_res else "")
              + f"; uses {lower}{es_res['peak_rss_gb'] / rt_res['peak_rss_gb']:.1f}x less peak memory")


if __name__ == "__main__":
    main()
