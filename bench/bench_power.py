"""The report's power section (``power_table`` at TABLE_GAPS + ``power`` solved for the gap) against the
searches it replaced, timed in the same process, taking turns.

    .venv/bin/python bench/bench_power.py                  # GPQA's disagreement and items, then other q and gaps
    .venv/bin/python bench/bench_power.py --reps 9 --before e24f2c2

The "before" code is ``src/ranktrust/stats/_power.py`` at the commit ``--before`` (read with ``git show`` and
loaded beside today's module; its relative imports resolve to today's package). Each call starts from empty caches
(the rejection boundaries kept per level, and today's pmf tables kept per q), as the report's first power section
in a fresh process. Printed: CPU seconds (``time.process_time``), best of ``--reps`` for each side, the ratio, and
whether the answers (items needed, achieved powers, detectable gaps) are the same floats.

1. GPQA (``rt.read`` of gpqa_main_openllm.csv.gz): ``q`` = ``estimate_disagreement(m)`` and ``n`` = the median
   number of scored items per model, as the report's power section reads them.
2. ``q`` = 0.05, 0.3, 0.5, 0.9 (and GPQA's) with the gaps 0.002, 0.005 (where q allows; items up to ~10^6) and
   0.01 ... 0.5, at ``n`` = 448 for the detectable gap.

The machine is shared (2 cores, other work running): compare ratios within one run; the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
GPQA = Path("/work/shared/data/gpqa_main_openllm.csv.gz")
TABLE_GAPS = (0.01, 0.02, 0.03, 0.05, 0.1)

sys.path.insert(0, str(ROOT / "bench"))
from bench_quality_speed import module_at   # noqa: E402  src/ranktrust/<rel> at a commit, as a module


def section(mod, q: float, n: int, gaps):
    def run():
        mod._REJECT_KEPT.clear()
        getattr(mod, "_TABLES", {}).clear()
        t = mod.power_table(q, gaps=gaps, binary=True)
        at = mod.power(items=n, disagreement=q, binary=True)
        return t.items_needed.tolist(), at.detectable_gap, at.achieved_power
    return run


def answers(mod, q: float, n: int, gaps):
    t = mod.power_table(q, gaps=gaps, binary=True)
    return ([(r.items_needed, r.achieved_power) for r in (mod.power(gap=g, disagreement=q) for g in t.gaps.tolist())],
            mod.power(items=n, disagreement=q).detectable_gap)


def race(old, new, q: float, n: int, gaps, reps: int) -> tuple[float, float]:
    t_old, t_new = [], []
    fo, fn = section(old, q, n, gaps), section(new, q, n, gaps)
    for _ in range(reps):
        for f, t in ((fo, t_old), (fn, t_new)):
            c = time.process_time()
            f()
            t.append(time.process_time() - c)
    return min(t_old), min(t_new)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--before", default="e24f2c2", help="commit of the 'before' _power.py (default: e24f2c2)")
    a = ap.parse_args()
    import ranktrust as rt
    from ranktrust.stats import _power as new
    from ranktrust.stats import estimate_disagreement

    old = module_at(a.before, "stats/_power.py", "ranktrust.stats._power_before", "ranktrust.stats")
    m = rt.read(str(GPQA))
    q = float(estimate_disagreement(m))
    n = int(np.median(np.sum(~np.isnan(np.asarray(m.scores, dtype=float)), axis=1)))
    for mod in (old, new):       # imports and first calls not timed
        section(mod, 0.3, 100, (0.1,))()

    print(f"== 1. GPQA {m.n_models} x {m.n_items}: power_table(q={q:.4f}, {TABLE_GAPS}) + power(items={n}), "
          f"CPU ms, best of {a.reps}, taking turns (load average {os.getloadavg()[0]:.1f}) ==")
    b, w = race(old, new, q, n, TABLE_GAPS, a.reps)
    same = answers(old, q, n, TABLE_GAPS) == answers(new, q, n, TABLE_GAPS)
    print(f"   before {b * 1e3:7.1f}  now {w * 1e3:7.1f}  ({b / w:.2f}x)  same answers, bit for bit: {same}")

    print(f"== 2. other disagreements and gaps, power(items=448) included, CPU ms, best of {max(3, a.reps // 2)} ==")
    tb = tw = 0.0
    for qq in (0.05, 0.3, q, 0.5, 0.9):
        gaps = tuple(g for g in (0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5)
                     if g <= qq and 8 * qq / g ** 2 < 1.2e6)
        b, w = race(old, new, qq, 448, gaps, max(3, a.reps // 2))
        tb, tw = tb + b, tw + w
        same = answers(old, qq, 448, gaps) == answers(new, qq, 448, gaps)
        print(f"   q {qq:6.4f} gaps {min(gaps):g}..{max(gaps):g} ({len(gaps)}): before {b * 1e3:7.1f}  now "
              f"{w * 1e3:7.1f}  ({b / w:.2f}x)  same: {same}")
    print(f"   all: before {tb * 1e3:.1f}  now {tw * 1e3:.1f}  ({tb / tw:.2f}x)  "
          f"(load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
