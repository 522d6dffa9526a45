"""EvalPlus results: ``evalplus.evaluate``'s ``eval_results.json`` (HumanEval+ and MBPP+).

``{"date", "hash", "eval": {task_id: [{"task_id", "solution", "base_status", "plus_status", "base_fail_tests",
"plus_fail_tests"}, ...]}}`` (evalplus 0.2.1 and later; newer versions add ``pass_at_k``), one entry per sample
of the task (see ``docs/formats/evalplus.md``).

* item = the task id (``HumanEval/0``, ``Mbpp/2``); several samples of a task are runs (``run`` = the sample's
  position), so a model's score is EvalPlus's pass@1 (the mean over tasks of the fraction of samples passing);
* metric ``plus`` (the default, EvalPlus's headline ``humaneval+``/``mbpp+``): a sample passes when its base
  and its plus tests both pass, as EvalPlus counts it; ``base``: the base tests alone (``metric='base'``);
* task = ``task``, else the dataset the task ids name (``humaneval``, ``mbpp``); a folder holding both is
  refused unless ``task`` chooses one;
* model = ``model_name``, else the file name before ``_eval_results.json`` / ``.eval_results.json`` (EvalPlus
  names results after the samples file), else the folder of an ``eval_results.json``;
* the ``hash`` of the dataset version: two files of one dataset with different hashes were scored against
  different tests and are refused.
"""

from __future__ import annotations

import os
import re
from typing import Any, Iterator

from ...errors import DataError, FormatError
from ._registry import ReadOptions, Skip, register
from ._util import load_json, walk_files

METRICS = ("plus", "base")
PASS = "pass"
_EVAL = re.compile(rb'"eval"\s*:\s*\{')
_SUFFIXES = ("_eval_results.json", ".eval_results.json")
DATASETS = {"HumanEval/": "humaneval", "Mbpp/": "mbpp"}


def _head(path: str, n: int = 65_536) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(n)
    except OSError:
        return b""


def _looks(path: str) -> bool:
    if not path.lower().endswith(".json"):
        return False
    h = _head(path)
    return h.lstrip().startswith(b"{") and bool(_EVAL.search(h)) and (b'"base_status"' in h or b'"nfiles"' in h)


def _json_files(path: str, limit: int | None = None) -> list[str]:
    return walk_files(path, lambda f: f.lower().endswith(".json"), limit=limit)


def model_from_path(path: str) -> str:
    """The model an EvalPlus results file belongs to, from its name (EvalPlus names it after the samples)."""
    base = os.path.basename(path)
    for suf in _SUFFIXES:
        if base.endswith(suf) and len(base) > len(suf):
            return base[: -len(suf)]
    if base == "eval_results.json":
        return os.path.basename(os.path.dirname(os.path.abspath(path)))
    return base[: -len(".json")] if base.lower().endswith(".json") else base


def _dataset(ids: list[str], path: str) -> str:
    found = {name for pre, name in DATASETS.items() for i in ids if i.startswith(pre)}
    if len(found) > 1:
        raise DataError(f"{path}: the file mixes task ids of {' and '.join(sorted(found))}; one EvalPlus results "
                        "file is one dataset")
    if found:
        return found.pop()
    return "evalplus"


def _load(path: str) -> tuple[dict, dict]:
    """(the file, its eval block) after checking the layout."""
    obj = load_json(path)
    ev = obj.get("eval") if isinstance(obj, dict) else None
    if not isinstance(ev, dict):
        raise FormatError(f"{path}: no 'eval' object; not an EvalPlus eval_results.json")
    if not ev:
        raise DataError(f"{path}: the 'eval' object is empty (no task was evaluated)")
    first = next(iter(ev.values()))
    if isinstance(first, dict) and ("nfiles" in first or "files" in first):
        raise FormatError(f"{path}: EvalPlus results in the layout of evalplus 0.2.0 or earlier (eval[task] = "
                          "{nfiles, base, plus}) are not read; re-run evalplus.evaluate with evalplus 0.2.1 or later "
                          "on the same samples to rewrite them")
    return obj, ev


@register
class EvalPlusReader:
    """EvalPlus ``eval_results.json`` files (HumanEval+, MBPP+), or a folder of them."""

    name = "evalplus"
    priority = 25
    description = "EvalPlus eval_results.json (HumanEval+, MBPP+)"
    looks_for = "EvalPlus *eval_results.json files"

    def __init__(self) -> None:
        self._hashes: dict[str, tuple[str, str]] = {}   # dataset -> (hash, first file), across the units of one read

    def sniff(self, path: str) -> bool:
        if os.path.isdir(path):
            return any(_looks(p) for p in _json_files(path, limit=200))
        return _looks(path)

    def units(self, path: str) -> list[str]:
        return [p for p in _json_files(path) if _looks(p)]

    def skip(self, unit: str, opts: ReadOptions) -> Skip | None:
        if opts.task is None:
            return None
        _, ev = _load(unit)
        ds = _dataset(list(ev), unit)
        return None if ds == opts.task else Skip("task", opts.task, (ds,))

    def combine(self, chunks: list) -> list:
        tasks = sorted({t for c in chunks for t in c["task"].unique()})
        if len(tasks) > 1:
            raise DataError(f"the input holds EvalPlus results of {len(tasks)} datasets ({', '.join(tasks)}); choose "
                            "one with `task`")
        return chunks

    def read(self, unit: str, opts: ReadOptions) -> Iterator:
        yield self._read(unit, opts)

    def _read(self, path: str, opts: ReadOptions) -> Any:
        import pandas as pd

        metric = opts.metric or "plus"
        if metric not in METRICS:
            raise DataError(f"{path}: no metric {metric!r} in EvalPlus results; they have plus (the default: base and "
                            "plus tests, EvalPlus's headline) and base (the base tests alone)", param="metric")
        obj, ev = _load(path)
        dataset = _dataset(list(ev), path)
        h = obj.get("hash")
        if isinstance(h, str) and h:
            seen = self._hashes.setdefault(dataset, (h, path))
            if seen[0] != h:
                raise DataError(f"{path}: dataset hash {h} differs from {seen[0]} in {seen[1]}: the two files were "
                                f"scored against different versions of {dataset}'s tests; read them separately")
        items, runs, scores = [], [], []
        n_max = 0
        for task_id, samples in ev.items():
            if not isinstance(samples, list) or not samples:
                raise DataError(f"{path}: task {task_id!r} has {samples!r}, expected a list of evaluated samples")
            n_max = max(n_max, len(samples))
            for k, s in enumerate(samples):
                if not isinstance(s, dict) or "base_status" not in s:
                    raise FormatError(f"{path}: task {task_id!r} sample {k} has no 'base_status'; not an EvalPlus "
                                      "eval_results.json")
                base = s["base_status"] == PASS
                if metric == "plus":
                    if s.get("plus_status") is None:
                        raise DataError(f"{path}: task {task_id!r} sample {k} has no plus status (run with "
                                        "--base-only?); read the base tests with `metric`='base'")
                    ok = base and s["plus_status"] == PASS
                else:
                    ok = base
                items.append(str(task_id))
                runs.append(str(k))
                scores.append(1.0 if ok else 0.0)
        model = opts.model_name or model_from_path(path)
        task = opts.task or dataset
        df = pd.DataFrame({"model": model, "item": items, "score": scores})
        if n_max > 1:
            df["run"] = runs
        df["task"] = task
        df["metric"] = metric
        df.attrs["line_numbers"] = False
        df.attrs["provenance"] = {model: {"harness": "evalplus", "task": task, "split": None, "metric": metric,
                                          "files": [path]}}
        return df
