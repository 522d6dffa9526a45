"""The report's JSON, whole, against references made before the report became a composition (issue 23).

``tests/data/report_ref/{missing,continuous}.json`` are ``ranktrust report FILE --format json --seed 7`` on the
inputs of ``tests/_report_inputs.py`` (7 models with missing cells, ``--align pairwise --split-half``; 6 models
with continuous scores, ``--microbench``), written by the code of commit f48f0ba, except the micro-benchmark's
22 changed IRT rows of ``continuous.json``, re-made after the 2PL fit was made to converge (CHANGELOG "Speed and
progress (issue 21)": the old L-BFGS stopped at ftol, so those rows followed the CPU's rounding; now they are the
same under NPY_DISABLE_CPU_FEATURES=X86_V3 OPENBLAS_CORETYPE=Prescott and compared like the rest), and the pair-derived
keys of ``continuous.json`` (pairs, pair_matrix, headline, rank sets, tiers), re-made when continuous scores moved
from the paired t to the finite-sample betting interval (issue 30 §1; nothing else changed). Every key and every value
must match: integers, strings, booleans and nulls exactly; floats within a few ulps (the same numbers may come
from a reordered sum after a refactor; a real change is many orders of magnitude larger). ``meta.version``,
``meta.created`` and ``meta.command`` (the temporary path) are left out. Changes to the JSON go to the
CHANGELOG and into ``CHANGES`` below, never silently into the reference.

GPQA and the bundled MMLU-Pro were compared the same way by hand (``compare_json`` below on
``/tmp/report-ref``; the report of the change says the result); they are too large to store here.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from _report_inputs import OPTIONS, write
from conftest import run_cli_completed

REF = Path(__file__).parent / "data" / "report_ref"
#: a few ulps: floats that went through the same arithmetic in a different order. As tests/conftest.py's
#: FLOAT_ULPS: relative to the terms (fractions of order 1), not to the result, since a difference of two
#: close numbers keeps the terms' absolute error (on another CPU's kernels a headline bound of -0.0131 moved
#: by 1.4e-17, 8 ulps of itself and 0.06 eps of its terms)
ULPS = 16
#: keys of ``meta`` that change from run to run
VOLATILE_META = ("version", "created", "command")


def _same_float(a: float, b: float) -> bool:
    if a == b:
        return True
    tol = ULPS * sys.float_info.epsilon * (1 + max(abs(a), abs(b)))
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= tol


def compare_json(got: Any, want: Any, path: str = "$") -> list[str]:
    """Every difference between two JSON values, as 'path: got != want' lines (empty when they match)."""
    if isinstance(want, bool) or isinstance(got, bool) or want is None or got is None or isinstance(want, str):
        return [] if (type(got) is type(want) and got == want) else [f"{path}: {got!r} != {want!r}"]
    if isinstance(want, float) or isinstance(got, float):
        if isinstance(got, (int, float)) and isinstance(want, (int, float)) and type(got) is type(want) \
                and _same_float(float(got), float(want)):
            return []
        return [f"{path}: {got!r} != {want!r}"]
    if isinstance(want, int):
        return [] if type(got) is int and got == want else [f"{path}: {got!r} != {want!r}"]
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{path}: {type(got).__name__} != dict"]
        out = [f"{path}.{k}: missing" for k in want if k not in got]
        out += [f"{path}.{k}: new key" for k in got if k not in want]
        for k in want:
            if k in got:
                out += compare_json(got[k], want[k], f"{path}.{k}")
        return out
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [f"{path}: length {len(got) if isinstance(got, list) else type(got).__name__} != {len(want)}"]
        return [line for k, (g, w) in enumerate(zip(got, want)) for line in compare_json(g, w, f"{path}[{k}]")]
    raise TypeError(f"{path}: not JSON: {type(want).__name__}")


def comparable(d: dict[str, Any]) -> dict[str, Any]:
    """The report JSON without the keys that change from run to run."""
    d = dict(d)
    d["meta"] = {k: v for k, v in d["meta"].items() if k not in VOLATILE_META}
    return d


def as_before(d: dict[str, Any]) -> dict[str, Any]:
    """A new report JSON in the layout of the reference, undoing only the changes listed in the CHANGELOG
    (0.3.0, "The report as a composition"): each note is a record ``{"code", "data", "text"}`` where it was its
    sentence; ``"sections"`` lists the sections' names and types; and ``"adjust_family"`` says
    over which pairs the pair table's p-values are adjusted ("all", as they always were); the micro-benchmark
    recommendation's ``mdad_pairs``/``sparse`` (and ``largest_tested``'s ``random``/``best``); the quality rows'
    ceiling figures and the person-fit method's name ("Person-fit (issue 21)"). The record must be
    complete (a code, its data, its sentence) for the undo to apply."""
    d = dict(d)
    assert all(set(s) == {"name", "type"} for s in d.pop("sections"))
    assert d.pop("adjust_family") == "all"
    notes = []
    for n in d["notes"]:
        assert isinstance(n, dict) and set(n) == {"code", "data", "text"} and n["code"] and n["text"], n
        notes.append(n["text"])
    d["notes"] = notes
    rec = (d.get("microbench") or {}).get("recommendation")
    if rec:     # 0.3.0 (QA D7): each figure the sentences quote says how many pairs its bin holds
        rec = dict(rec)
        for key in ("smallest_tested", "largest_tested"):
            if rec.get(key):
                rec[key] = {k: v for k, v in rec[key].items()
                            if k not in ("mdad_pairs", "sparse", "random", "best")}
        rec["methods"] = [{k: v for k, v in m.items() if k not in ("mdad_pairs", "sparse")} for m in rec["methods"]]
        d["microbench"] = {**d["microbench"], "recommendation": rec}
    q = d.get("quality")
    if q:       # 0.3.0 ("Person-fit (issue 21)"): each row's ceiling figures, and the method's name says so
        ceiling = ("ceiling", "healthy_ceiling", "ceiling_z", "ceiling_z_rel", "ceiling_lz", "ceiling_accuracy")
        settings = dict(q["settings"])
        settings["person_fit_method"] = ("lz* (Snijders 2001) and a healthy row of the same ability, under a "
                                         "1-dimensional 2PL fitted on the other folds' models")
        d["quality"] = {**q, "settings": settings,
                        "person_fit": [{k: v for k, v in r.items() if k not in ceiling} for r in q["person_fit"]]}
    return d


def test_compare_json_can_fail():
    """The comparison sees a changed float beyond a few ulps, a changed int, a new key and a type change."""
    want = {"a": 0.1, "b": [1, "x"], "c": None}
    assert compare_json({"a": 0.1 + 2 ** -56, "b": [1, "x"], "c": None}, want) == []   # 1 ulp
    assert compare_json({"a": 0.1000001, "b": [1, "x"], "c": None}, want)
    assert compare_json({"a": 0.1 + 1e-13, "b": [1, "x"], "c": None}, want)         # far beyond a few ulps
    assert compare_json({"a": 0.1, "b": [2, "x"], "c": None}, want)
    assert compare_json({"a": 0.1, "b": [1.0, "x"], "c": None}, want)
    assert compare_json({"a": 0.1, "b": [1, "x"], "c": None, "d": 1}, want)
    assert compare_json({"a": 0.1, "b": [1, "x"], "c": 0}, want)


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_report_json_matches_the_reference(name, tmp_path):
    write(tmp_path / "inputs")
    res = run_cli_completed("report", f"inputs/{name}", *OPTIONS[name], "--format", "json", "--seed", "7",
                            cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    got = as_before(comparable(json.loads(res.stdout)))
    want = comparable(json.loads((REF / name.replace(".csv", ".json")).read_text()))
    diff = compare_json(got, want)
    # a change another area makes to the report JSON (a section's new key, a message) is listed in the CHANGELOG
    # and the reference re-made: `python tests/_report_inputs.py --reference` (with --seed 7, as here)
    assert not diff, "\n".join(diff[:40])
