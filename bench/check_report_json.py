"""Same report before and after a speed change (issue 33): the default report's JSON on 0/1 data.

    .venv/bin/python bench/check_report_json.py save  DIR    # write DIR/<case>.json (the "before")
    .venv/bin/python bench/check_report_json.py check DIR    # compare today's JSON with DIR's, within 1e-9

To save the "before" from HEAD while the working tree holds changes: ``git archive HEAD | tar -x -C /tmp/head``,
then run this file from /tmp/head with ``PYTHONPATH=/tmp/head/src``. The data file's path is compared by its name.

Cases: the bundled MMLU-Pro (29 x 12,032, ``align="pairwise"`` as the demo), GPQA 420 x 448, SWE-bench
Verified mini (/work/shared/data or tests/data where present) and a 0/1 matrix with missing cells. All 0/1:
the paired test of continuous scores is not this check's business. Numbers equal within a relative and
absolute tolerance of 1e-9; strings, keys, list lengths exactly.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared/data")


def cases() -> dict:
    import ranktrust as rt
    from ranktrust.data._matrix import ScoreMatrix

    from ranktrust.datasets import path

    out = {"mmlupro": lambda: rt.read(path("mmlupro"), align="pairwise")}
    gpqa = SHARED / "gpqa_main_openllm.csv.gz"
    if not gpqa.exists():
        gpqa = ROOT / "tests" / "data" / "gpqa_main_openllm.csv.gz"
    out["gpqa"] = lambda: rt.read(str(gpqa))
    swe = SHARED / "swebench_verified_mini.csv"
    if swe.exists():
        out["swebench"] = lambda: rt.read(str(swe), align="pairwise")

    def holes():
        g = np.random.default_rng(5)
        a = (g.random((12, 300)) < np.linspace(0.3, 0.8, 12)[:, None]).astype(float)
        a[g.random(a.shape) < 0.05] = np.nan
        return ScoreMatrix.from_array(a)
    out["holes"] = holes
    return out


def report_json(make) -> dict:
    import ranktrust as rt

    return json.loads(json.dumps(rt.report(make()).to_dict()))


def diff(a, b, path="", out=None, tol=1e-9):
    out = [] if out is None else out
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            out.append(f"{path}: keys {sorted(set(a) ^ set(b))}")
        for k in set(a) & set(b):
            diff(a[k], b[k], f"{path}/{k}", out, tol)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: length {len(a)} vs {len(b)}")
        for k, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{k}]", out, tol)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if not (a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
                or math.isclose(a, b, rel_tol=tol, abs_tol=tol)):
            out.append(f"{path}: {a!r} vs {b!r}")
    elif a != b:
        out.append(f"{path}: {a!r} vs {b!r}"[:300])
    return out


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["save", "check"], help="save: write DIR/<case>.json; check: compare with them")
    ap.add_argument("folder", type=Path, metavar="DIR")
    ap.add_argument("--tol", type=float, default=1e-9, help="relative and absolute tolerance of numbers (1e-9)")
    a = ap.parse_args()
    mode, folder = a.mode, a.folder
    folder.mkdir(parents=True, exist_ok=True)
    bad = 0
    for name, make in cases().items():
        d = report_json(make)
        f = folder / f"{name}.json"
        if mode == "save":
            f.write_text(json.dumps(d))
            print(f"{name}: saved {f}")
            continue
        ref = json.loads(f.read_text())
        if isinstance(ref.get("source"), str) and isinstance(d.get("source"), str):
            # the "before" is often saved from a copy of the tree elsewhere: the data file's name must agree
            ref["source"], d["source"] = Path(ref["source"]).name, Path(d["source"]).name
        found = diff(ref, d, tol=a.tol)
        bad += bool(found)
        print(f"{name}: {'same' if not found else f'{len(found)} differences'}")
        for line in found[:20]:
            print("   ", line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
