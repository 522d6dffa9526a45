"""Same report before and after a speed change: the default report's JSON on 0/1 data, field by field.

    .venv/bin/python bench/check_report_json.py check            # today's JSON against bench/report_json/ (stored)
    .venv/bin/python bench/check_report_json.py check DIR        # ... against DIR/<case>.json[.gz]
    .venv/bin/python bench/check_report_json.py save DIR         # write DIR/<case>.json.gz (a "before")
    .venv/bin/python bench/check_report_json.py tolerances       # the tolerance of each field, and why

``bench/report_json/`` holds the JSON of commit 950d6f9 (the report before the person fit's fits were sped up),
saved from a copy of that commit: ``git archive 950d6f9 | tar -x -C /tmp/before``, then
``PYTHONPATH=/tmp/before/src .venv/bin/python bench/check_report_json.py save bench/report_json`` (this file run
from today's tree: only the report comes from the copy). The data file's path is compared by its name.

Cases: the bundled MMLU-Pro (29 x 12,032, ``align="pairwise"`` as the demo), GPQA 420 x 448, SWE-bench
Verified mini (/work/shared/data or tests/data where present) and a 0/1 matrix with missing cells. All 0/1:
the paired test of continuous scores is not this check's business. Strings, keys, list lengths and booleans
must be equal; numbers within the tolerance of their field (``TOLERANCES``: the first pattern that matches the
field's path; ``tolerances`` prints them with the reason for each). ``check`` prints, for each case, the
largest difference seen in each tolerance class, so a change that stays inside its tolerance still shows its
size.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared/data")
STORED = ROOT / "bench" / "report_json"

#: the person-fit figures of the data-quality section: each comes out of iterative fits (item parameters, abilities,
#: the ceiling) that stop at a convergence tolerance
_FIT_FIELDS = ("lz_star", "lz_star_z", "ability", "expected_corr", "corr_z", "corr_ratio", "expected_accuracy",
               "score_z", "score_z_rel", "ceiling", "healthy_ceiling", "ceiling_z", "ceiling_z_rel", "ceiling_lz",
               "ceiling_accuracy")

#: (name, regular expression on the field's path, relative tolerance, absolute tolerance, why); the first match wins
TOLERANCES: list[tuple[str, str, float, float, str]] = [
    ("person fit", r"^(/quality/(person_fit|flags|notes)\[\d+\]|(/quality)?/notes\[\d+\]/data)(/data)?/("
     + "|".join(_FIT_FIELDS) + r")$", 1e-4, 1e-4,
     "data quality's person-fit figures (person_fit, flags and misfit notes, in the section and the report's "
     "notes) are functions of iterative fits that stop at a convergence tolerance: the item parameters at Newton "
     "steps below 1e-3 (quadratic convergence: the last step's residual is far smaller), the abilities below "
     "1e-4, the ceiling below 1e-5, in float32 for the items and abilities. Another start (a warm start from "
     "the previous fold's items) or another rounding of the logistic (numpy's float32 exp, within 4 ulps of "
     "scipy's) moves each fit by less than its tolerance, and each figure by less than 1e-4 (the abilities' "
     "tolerance; at most 1.1e-5 seen: MMLU-Pro's ceiling_z, whose fit stops at 1e-5)"),
    ("rounding", r"", 1e-9, 1e-9,
     "everything else is computed by closed forms, exact counts or seeded draws: the same numbers up to "
     "floating-point rounding of a reordered sum (1e-9 relative or absolute)"),
]


def tolerance_of(path: str) -> tuple[str, float, float]:
    for name, pat, rtol, atol, _ in TOLERANCES:
        if re.search(pat, path):
            return name, rtol, atol
    raise AssertionError("the last pattern matches every path")


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


def diff(a, b, path="", out=None, tol=None, seen=None):
    """Differences between ``a`` (before) and ``b`` (now) as lines; ``tol`` overrides every field's tolerance;
    ``seen`` (a dict) collects the largest absolute difference in each tolerance class."""
    out = [] if out is None else out
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            out.append(f"{path}: keys {sorted(set(a) ^ set(b))}")
        for k in set(a) & set(b):
            diff(a[k], b[k], f"{path}/{k}", out, tol, seen)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: length {len(a)} vs {len(b)}")
        for k, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{k}]", out, tol, seen)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        if a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)):
            return out
        name, rtol, atol = tolerance_of(path)
        if tol is not None:
            rtol = atol = tol
        if seen is not None and math.isfinite(a) and math.isfinite(b) and abs(a - b) > seen.get(name, (-1.0,))[0]:
            seen[name] = (abs(a - b), path)
        if not math.isclose(a, b, rel_tol=rtol, abs_tol=atol):
            out.append(f"{path}: {a!r} vs {b!r} (tolerance {name}: {rtol:g} relative, {atol:g} absolute)")
    elif a != b:
        out.append(f"{path}: {a!r} vs {b!r}"[:300])
    return out


def _read(folder: Path, name: str) -> dict | None:
    for f, opener in ((folder / f"{name}.json.gz", gzip.open), (folder / f"{name}.json", open)):
        if f.exists():
            with opener(f, "rt") as fh:
                return json.load(fh)
    return None


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["save", "check", "tolerances"],
                    help="save: write DIR/<case>.json.gz; check: compare with them; tolerances: print them")
    ap.add_argument("folder", type=Path, metavar="DIR", nargs="?", default=STORED,
                    help=f"where the reference JSON is (default: {STORED.relative_to(ROOT)})")
    ap.add_argument("--tol", type=float, default=None,
                    help="one relative and absolute tolerance for every number (default: each field's own)")
    a = ap.parse_args()
    if a.mode == "tolerances":
        for name, pat, rtol, atol, why in TOLERANCES:
            print(f"{name}: {rtol:g} relative, {atol:g} absolute; fields matching {pat or '(any)'}\n    {why}")
        return 0
    folder = a.folder
    folder.mkdir(parents=True, exist_ok=True)
    bad = 0
    for name, make in cases().items():
        d = report_json(make)
        if a.mode == "save":
            f = folder / f"{name}.json.gz"
            with gzip.open(f, "wt") as fh:
                json.dump(d, fh)
            print(f"{name}: saved {f}")
            continue
        ref = _read(folder, name)
        if ref is None:
            print(f"{name}: no {name}.json[.gz] in {folder}")
            bad += 1
            continue
        if isinstance(ref.get("source"), str) and isinstance(d.get("source"), str):
            # the "before" is often saved from a copy of the tree elsewhere: the data file's name must agree
            ref["source"], d["source"] = Path(ref["source"]).name, Path(d["source"]).name
        seen: dict = {}
        found = diff(ref, d, tol=a.tol, seen=seen)
        bad += bool(found)
        sizes = "; ".join(f"{k}: largest difference {v[0]:.2g} ({v[1]})" for k, v in sorted(seen.items()))
        print(f"{name}: {'same within tolerance' if not found else f'{len(found)} differences'}"
              + (f" ({sizes})" if sizes else " (every number equal)"))
        for line in found[:20]:
            print("   ", line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
