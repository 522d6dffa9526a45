"""The default report on GPQA in process, by section, and its data-quality and power sections against their
code before the speed-up, timed in the same process.

    .venv/bin/python bench/bench_quality_speed.py                    # GPQA: sections, then quality and power
    .venv/bin/python bench/bench_quality_speed.py --data gpqa,mmlupro,swebench --reps 5
    .venv/bin/python bench/bench_quality_speed.py --before 950d6f9   # the "before" code's commit (the default)

1. ``rt.report(m)`` + ``json.dumps(rep.to_dict())`` on GPQA 420 x 448 (the file read is not timed), after a
   warm-up report on a tiny matrix (imports and first calls not timed): the CPU seconds of each section (the
   report's own section builders, wrapped), of ``to_dict`` + ``json.dumps``, and of the whole, best of ``--reps``,
   beside the goal (0.4 s).
2. ``data_quality(m, pair_table=...)`` as the report calls it, and the report's power section
   (``power_table`` + ``power`` at the median disagreement), each against the same functions of the commit
   ``--before`` (read with ``git show`` and loaded beside today's code: ``_personfit.py`` and ``_power.py``),
   taking turns, best of ``--reps`` each; the ratio, and the largest difference of each figure between the two.

CPU seconds (``time.process_time``): the machine is shared (2 cores, other work running) and wall seconds move
with the load; the load average is printed. Compare ratios within one run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared/data")
GOAL_S = 0.4


def data(name: str):
    import ranktrust as rt
    from ranktrust.datasets import path

    if name == "mmlupro":
        return rt.read(path("mmlupro"), align="pairwise")
    if name == "gpqa":
        f = SHARED / "gpqa_main_openllm.csv.gz"
        return rt.read(str(f if f.exists() else ROOT / "tests" / "data" / "gpqa_main_openllm.csv.gz"))
    if name == "swebench":
        return rt.read(str(SHARED / "swebench_verified_mini.csv"), align="pairwise")
    raise SystemExit(f"unknown data set {name!r}")


def cpu(fn, reps: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(reps):
        c = time.process_time()
        out = fn()
        best = min(best, time.process_time() - c)
    return best, out


def module_at(rev: str, rel: str, name: str, package: str, replace: dict | None = None) -> types.ModuleType:
    """``src/ranktrust/<rel>`` as it was at ``rev``, loaded as module ``name`` of ``package`` (its relative imports
    then resolve to today's package, but for the texts ``replace`` swaps)."""
    src = subprocess.run(["git", "show", f"{rev}:src/ranktrust/{rel}"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    for k, v in (replace or {}).items():
        assert k in src, k
        src = src.replace(k, v)
    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = package
    sys.modules[name] = mod
    exec(compile(src, f"{rev}:{rel}", "exec"), mod.__dict__)
    return mod


def sections(m, reps: int) -> None:
    import ranktrust as rt
    from ranktrust.leaderboard import _sections

    saved = list(_sections.BUILDERS)
    best: dict[str, float] = {}
    cur: dict[str, float] = {}

    def timed(k, f):
        def run(b):
            c = time.process_time()
            try:
                return f(b)
            finally:
                cur[k] = cur.get(k, 0.0) + time.process_time() - c
        return run

    _sections.BUILDERS[:] = [(k, timed(k, f)) for k, f in saved]
    try:
        for _ in range(reps):
            cur.clear()
            c = time.process_time()
            rep = rt.report(m)
            cur["(report)"] = time.process_time() - c
            c2 = time.process_time()
            json.dumps(rep.to_dict())
            cur["JSON (to_dict + dumps)"] = time.process_time() - c2
            cur["report + JSON"] = time.process_time() - c
            for k, v in cur.items():
                best[k] = min(best.get(k, float("inf")), v)
    finally:
        _sections.BUILDERS[:] = saved
    print(f"== 1. rt.report + JSON, {m.n_models} x {m.n_items}, CPU s, best of {reps} "
          f"(load average {os.getloadavg()[0]:.1f}) ==")
    rows = sorted(((k, v) for k, v in best.items() if v >= 0.0005 and not k.startswith("(")), key=lambda x: -x[1])
    for k, v in rows:
        print(f"   {k:>24} {v:7.3f}")
    tot = best["report + JSON"]
    print(f"   {'goal':>24} {GOAL_S:7.3f}   ({tot / GOAL_S:.2f}x the goal)")


def quality_and_power(name: str, m, before: str, reps: int) -> None:
    from ranktrust.quality import data_quality
    from ranktrust.stats import _power as PW
    from ranktrust.stats import all_pairs

    module_at(before, "quality/_personfit.py", "ranktrust.quality._personfit_before", "ranktrust.quality")
    old_q = module_at(before, "quality/__init__.py", "ranktrust.quality._before", "ranktrust.quality",
                      {"from ._personfit import": "from ._personfit_before import"})
    old_pw = module_at(before, "stats/_power.py", "ranktrust.stats._power_before", "ranktrust.stats")
    pt = all_pairs(m, pairs="all", interval="none")

    def dq(fn):
        return lambda: fn(m, pair_table=pt, rng=np.random.default_rng(0))

    ok = np.asarray(pt.n_items) > 0
    q = float(np.median((np.asarray(pt.only_a)[ok] + np.asarray(pt.only_b)[ok]) / np.asarray(pt.n_items)[ok]))
    n = int(np.median(np.sum(~np.isnan(np.asarray(m.scores, dtype=float)), axis=1)))

    def pw(mod):
        def run():
            mod._REJECT_KEPT.clear()      # as in a fresh process (the report's first power section)
            return (mod.power_table(q).items_needed.tolist(), mod.power(items=n, disagreement=q).detectable_gap)
        return run

    t = {"quality before": [], "quality now": [], "power before": [], "power now": []}
    res = {}
    for _ in range(reps):    # taking turns: both see the same load
        for key, fn in (("quality before", dq(old_q.data_quality)), ("quality now", dq(data_quality)),
                        ("power before", pw(old_pw)), ("power now", pw(PW))):
            s, res[key] = cpu(fn, 1)
            t[key].append(s)
    print(f"== 2. {name} {m.n_models} x {m.n_items}: the data-quality and power sections, before ({before}) and now, "
          f"CPU s, best of {reps} taking turns (load average {os.getloadavg()[0]:.1f}) ==")
    for part in ("quality", "power"):
        b, a = min(t[f"{part} before"]), min(t[f"{part} now"])
        print(f"   {part:>8}: before {b:6.3f}  now {a:6.3f}  ({b / a:.2f}x)")
    qb, qa = res["quality before"], res["quality now"]
    diffs = []
    for f in ("person_fit", "person_fit_z", "ability", "expected_corr", "corr_z", "expected_accuracy", "score_z",
              "score_z_rel", "ceiling", "healthy_ceiling", "ceiling_z", "ceiling_z_rel", "ceiling_lz",
              "ceiling_accuracy", "difficulty_corr"):
        x, y = np.asarray(getattr(qb, f), dtype=float), np.asarray(getattr(qa, f), dtype=float)
        same_nan = bool((np.isnan(x) == np.isnan(y)).all())
        d = float(np.nanmax(np.abs(x - y))) if np.isfinite(x).any() else 0.0
        diffs.append(f"{f} {d:.1e}" + ("" if same_nan else " (NaN differ)"))
    print("   largest |before - now| of each figure:", ", ".join(diffs))
    print(f"   flagged: before {list(qb.misfit)}, now {list(qa.misfit)}; "
          f"power: before {res['power before']}, now {res['power now']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="gpqa", help="comma-separated: gpqa, mmlupro, swebench (part 2)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--before", default="950d6f9", help="commit of the 'before' code (default: 950d6f9)")
    ap.add_argument("--only", choices=["sections", "parts"])
    a = ap.parse_args()
    import ranktrust as rt
    from ranktrust.data._matrix import ScoreMatrix

    warm = ScoreMatrix.from_array((np.random.default_rng(0).random((5, 60)) < 0.5).astype(float))
    rt.report(warm, stability_n_resamples=50).to_dict()   # imports and first calls, not timed
    if a.only in (None, "sections"):
        sections(data("gpqa"), a.reps)
    if a.only in (None, "parts"):
        for name in a.data.split(","):
            quality_and_power(name, data(name), a.before, a.reps)


if __name__ == "__main__":
    main()
