"""SWE-bench style results: resolved-id lists or per-instance dicts.

Layouts read (see ``docs/formats/swebench.md``):

1. the harness report ``<model>.<run_id>.json`` written by ``swebench.harness.run_evaluation``:
   ``resolved_ids`` plus the full instance list ``submitted_ids`` (else the union of
   ``completed_ids``, ``incomplete_ids``, ``error_ids``, ``empty_patch_ids``,
   ``unresolved_ids``). Score 1 for a resolved id, 0 for every other listed id;
2. an experiments-style ``results.json``: ``{"resolved": [...], "unresolved"/"no_generation"/
   "no_logs"/...: [...]}``; the instance list is the union of every list;
3. per-instance dicts ``{instance_id: {"resolved": bool, ...}}`` (the per-instance
   ``report.json``) or a list of ``{"instance_id": ..., "resolved": bool}``.

A file with only resolved ids (no list of the other instances) is an error: the
unresolved ones cannot be told apart from ones never run. item = instance id; group =
the repository (``django__django-11099`` -> ``django/django``); task = ``--task`` or
``swebench``; model = ``--model-name``, else ``model_name_or_path``, else from the path
(``<model>.<run_id>.json``; ``<date>_<model>/results/results.json``;
``.../<model>/<instance>/report.json``).
"""

from __future__ import annotations

import os
import re
from typing import Any, Iterator

from ...errors import DataError, FormatError
from ._registry import ReadOptions, load_json, reader
from .lm_eval import walk_files

_ID_LISTS = ("submitted_ids", "completed_ids", "incomplete_ids", "resolved_ids", "unresolved_ids",
             "error_ids", "empty_patch_ids")


def _head(path: str, n: int = 65_536) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(n)
    except OSError:
        return b""


def _looks(path: str) -> bool:
    if not path.endswith(".json"):
        return False
    h = _head(path)
    if not h.lstrip().startswith((b"{", b"[")):
        return False
    if b'"eval"' in h[:4096] and b'"status"' in h[:4096]:
        return False  # an inspect log
    return b'"resolved_ids"' in h or b'"resolved"' in h


def files(path: str) -> list[str]:
    if os.path.isdir(path):
        return [p for p in walk_files(path, lambda f: f.endswith(".json")) if _looks(p)]
    return [path]


def _sniff(path: str) -> bool:
    if os.path.isdir(path):
        return any(_looks(p) for p in walk_files(path, lambda f: f.endswith(".json"), max_depth=5)[:50])
    return _looks(path)


def _repo(instance_id: str) -> str:
    m = re.match(r"^(.+?)__(.+)-\d+$", instance_id)
    return f"{m.group(1)}/{m.group(2)}" if m else ""


def _model_from_path(path: str, layout: str) -> str | None:
    base = os.path.basename(path)
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    if layout == "report" and base.count(".") >= 2:
        return base[: base[:-len(".json")].rfind(".")]
    if base == "results.json" and parent == "results":
        exp = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(path))))
        m = re.match(r"^\d{8}_(.+)$", exp)
        return m.group(1) if m else exp
    if base == "report.json":
        return os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(path)))) or None
    return None


def parse(obj: Any, path: str) -> tuple[list[str], list[float], str]:
    """(instance ids, 0/1 scores, layout) from a loaded SWE-bench results object."""
    if isinstance(obj, dict) and "resolved_ids" in obj:
        resolved = set(map(str, obj["resolved_ids"]))
        if obj.get("submitted_ids") is not None:
            universe = [str(i) for i in obj["submitted_ids"]]
        else:
            universe = []
            for k in _ID_LISTS:
                universe += [str(i) for i in obj.get(k) or []]
        universe = list(dict.fromkeys(universe))
        if set(universe) == resolved and not any(obj.get(k) for k in _ID_LISTS if k != "resolved_ids"):
            raise DataError(
                f"{path}: only resolved_ids are listed; the full instance list (submitted_ids, or "
                "unresolved_ids/error_ids/...) is needed to tell unresolved instances from ones not run"
            )
        missing = resolved - set(universe)
        if missing:
            raise DataError(
                f"{path}: {len(missing)} resolved ids are not in submitted_ids (e.g. {sorted(missing)[0]}); "
                "the report is inconsistent"
            )
        return universe, [1.0 if i in resolved else 0.0 for i in universe], "report"
    if isinstance(obj, dict) and isinstance(obj.get("resolved"), list):
        lists = {k: v for k, v in obj.items() if isinstance(v, list)}
        resolved = set(map(str, lists["resolved"]))
        universe = list(dict.fromkeys(str(i) for v in lists.values() for i in v))
        if len(lists) == 1:
            raise DataError(
                f"{path}: only a 'resolved' list; the full instance list (e.g. 'unresolved', "
                "'no_generation', 'no_logs' lists) is needed to tell unresolved instances from ones not run"
            )
        return universe, [1.0 if i in resolved else 0.0 for i in universe], "results"
    entries: list[tuple[str, Any]]
    if isinstance(obj, dict) and obj and all(isinstance(v, dict) for v in obj.values()):
        entries = [(str(k), v) for k, v in obj.items()]
    elif isinstance(obj, list) and obj and all(isinstance(v, dict) and "instance_id" in v for v in obj):
        entries = [(str(v["instance_id"]), v) for v in obj]
    else:
        raise FormatError(
            f"{path}: not a SWE-bench results file; expected resolved_ids + submitted_ids, a "
            "'resolved' list beside other lists, or {instance_id: {\"resolved\": bool}}"
        )
    ids, scores = [], []
    for k, (iid, v) in enumerate(entries):
        if "resolved" not in v:
            raise DataError(f"{path}: instance {iid} has no 'resolved' field; it has {', '.join(map(str, v))}")
        r = v["resolved"]
        if not isinstance(r, (bool, int)) or r not in (0, 1):
            raise DataError(f"{path}: instance {iid}: 'resolved' is {r!r}, expected true or false")
        ids.append(iid)
        scores.append(float(r))
    return ids, scores, "per_instance"


@reader("swebench", sniff=_sniff, priority=5, description="SWE-bench results (resolved id lists or per-instance dicts)")
def read_swebench(path: str, opts: ReadOptions) -> Iterator:
    """SWE-bench results: a report / results.json / per-instance dict, or a directory of them."""
    import pandas as pd

    units = files(path)
    if not units:
        raise DataError(f"{path}: no SWE-bench results files found")
    for u in units:
        obj = load_json(u)
        ids, scores, layout = parse(obj, u)
        model = opts.model_name
        if not model and isinstance(obj, dict):
            model = obj.get("model_name_or_path") or obj.get("model_name")
            model = model if isinstance(model, str) else None
        model = model or _model_from_path(u, layout)
        if not model:
            raise DataError(f"{u}: no model name in the file or its path; pass --model-name NAME")
        df = pd.DataFrame({"model": model, "item": ids, "score": scores})
        groups = [_repo(i) for i in ids]
        if all(groups):
            df["group"] = groups
        df["task"] = opts.task or "swebench"
        df["metric"] = "resolved"
        notes = []
        if layout == "report" and isinstance(obj, dict) and isinstance(obj.get("total_instances"), int):
            extra = obj["total_instances"] - len(ids)
            if extra > 0:
                notes.append(
                    f"{u}: {extra} of the dataset's {obj['total_instances']} instances were not submitted "
                    "and are not in the matrix"
                )
        df.attrs["notes"] = notes
        df.attrs["line_numbers"] = False
        yield df
