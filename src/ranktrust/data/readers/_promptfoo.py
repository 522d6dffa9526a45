"""promptfoo results: the JSON of ``promptfoo eval -o results.json`` (results version 3).

``{"evalId", "results": {"version": 3, "prompts": [...], "results": [...], "stats"}, "config", ...}``: one entry of
``results.results`` per (test, column), where a column (an entry of ``results.prompts``, indexed by ``promptIdx``)
is one provider with one prompt. Each entry has ``testIdx``, ``provider``, ``success``, ``score``,
``namedScores``, ``vars`` and ``failureReason`` (0 none, 1 an assertion failed, 2 an error); see
``docs/formats/promptfoo.md``.

* model = the column's provider (its label, else its id); when the file has several prompts, each column is a
  model ``<provider> [prompt N]`` (N numbers the distinct prompts; a note names them), as promptfoo's own table
  shows one column per provider and prompt;
* item = the test's index (``testIdx``); its ``vars`` are hashed, so two files whose test N differs are refused;
* metric ``pass`` (the default, promptfoo's pass rate): 1 when the test passed; ``score``: the graded score;
  any other name: that named score (``namedScores``);
* an entry that errored (``failureReason`` 2) stops the read by default; ``errors='wrong'`` counts it as failed,
  as promptfoo's pass rate does; ``errors='drop'`` leaves it out; either way a note counts it;
* a note says when the config lists more tests than the file holds results for (a filtered or cut run), and when
  a column's rows disagree with the counts promptfoo reports for it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import defaultdict
from typing import Any, Iterator

from ...errors import DataError, FormatError
from ...results import Note
from ._mtbench import is_number
from ._registry import ReadOptions, register
from ._util import load_json, walk_files

VERSIONS = (3,)
ERROR = 2
_HEAD = re.compile(rb'^\s*\{\s*"evalId"\s*:')


def _looks(path: str) -> bool:
    if not path.lower().endswith(".json"):
        return False
    try:
        with open(path, "rb") as fh:
            h = fh.read(4096)
    except OSError:
        return False
    return bool(_HEAD.match(h)) and b'"results"' in h


def _vars_hash(v: Any) -> str:
    return hashlib.sha1(json.dumps(v, sort_keys=True, default=str).encode()).hexdigest()


def _errored(r: dict) -> bool:
    if "failureReason" in r:
        return r["failureReason"] == ERROR
    return bool(r.get("error")) and not r.get("gradingResult")


@register
class PromptfooReader:
    """promptfoo ``results.json`` files (``promptfoo eval -o``), or a folder of them."""

    name = "promptfoo"
    priority = 25
    description = "promptfoo eval -o results.json (per test and provider)"
    looks_for = "promptfoo results JSON files (promptfoo eval -o results.json)"

    def __init__(self) -> None:
        self._tests: dict[str, tuple[str, str]] = {}   # item -> (vars hash, file), across the units of one read

    def sniff(self, path: str) -> bool:
        if os.path.isdir(path):
            return any(_looks(p) for p in walk_files(path, lambda f: f.lower().endswith(".json"), limit=200))
        return _looks(path)

    def units(self, path: str) -> list[str]:
        return [p for p in walk_files(path, lambda f: f.lower().endswith(".json")) if _looks(p)]

    def read(self, unit: str, opts: ReadOptions) -> Iterator:
        yield self._read(unit, opts)

    def _read(self, path: str, opts: ReadOptions) -> Any:  # noqa: C901 - one pass over a documented layout
        import pandas as pd

        obj = load_json(path)
        res = obj.get("results") if isinstance(obj, dict) else None
        if not isinstance(res, dict) or not isinstance(res.get("results"), list):
            raise FormatError(f"{path}: no results.results list; not a promptfoo results file (promptfoo eval -o "
                              "results.json)")
        version = res.get("version")
        if version not in VERSIONS:
            raise FormatError(f"{path}: promptfoo results version {version!r} is not one this reader knows (known: "
                              f"{', '.join(map(str, VERSIONS))}); export it again with a current promptfoo "
                              "(promptfoo export)")
        rows = res["results"]
        if not rows:
            raise DataError(f"{path}: the file holds no test results")
        columns = res.get("prompts") if isinstance(res.get("prompts"), list) else []
        metric = opts.metric or "pass"
        # the distinct prompts of the columns, numbered in order of appearance
        prompt_ids: dict[str, str] = {}
        for c in columns:
            if isinstance(c, dict):
                prompt_ids.setdefault(str(c.get("id") or c.get("raw") or c.get("label")), str(c.get("label") or ""))
        several = len(prompt_ids) > 1
        number = {pid: k + 1 for k, pid in enumerate(prompt_ids)}

        def column_name(r: dict, k: int) -> str:
            prov = r.get("provider")
            name = (prov.get("label") or prov.get("id")) if isinstance(prov, dict) else prov
            if not isinstance(name, str) or not name:
                raise DataError(f"{path}: result {k} has no provider id or label")
            if not several:
                return name
            pid = str(r.get("promptId") or "")
            if pid not in number:
                raise DataError(f"{path}: result {k} names prompt {pid[:12]!r}, which is not among the file's prompts")
            return f"{name} [prompt {number[pid]}]"

        models, items, scores, hashes = [], [], [], []
        errored: dict[str, int] = defaultdict(int)
        per_column: dict[str, int] = defaultdict(int)
        col_index: dict[str, int] = {}
        for k, r in enumerate(rows):
            if not isinstance(r, dict) or "testIdx" not in r:
                raise FormatError(f"{path}: result {k} has no testIdx; not a promptfoo version-3 result")
            t = r["testIdx"]
            if not isinstance(t, int) or isinstance(t, bool):
                raise DataError(f"{path}: result {k}: testIdx is {t!r}, expected an integer")
            model = column_name(r, k)
            if isinstance(r.get("promptIdx"), int):
                first = col_index.setdefault(model, r["promptIdx"])
                if first != r["promptIdx"]:
                    raise DataError(f"{path}: columns {first} and {r['promptIdx']} are both {model!r} (the same provider "
                                    "with the same prompt); give the providers distinct labels in the promptfoo config, "
                                    "or read the columns from separate runs")
            per_column[model] += 1
            if _errored(r):
                why = str(r.get("error") or "error")[:80]
                if opts.errors == "error":
                    raise DataError(f"{path}: result {k} (test {t}, {model}) errored in promptfoo ({why}); pass "
                                    "`errors`='wrong' to count it as failed, as promptfoo's pass rate does, or "
                                    "'drop' to leave it out (the count is reported)")
                errored[model] += 1
                if opts.errors == "drop":
                    continue
                value: Any = 0.0
            elif metric == "pass":
                ok = r.get("success")
                if not isinstance(ok, bool):
                    raise DataError(f"{path}: result {k} (test {t}, {model}): 'success' is {ok!r}, expected true or "
                                    "false")
                value = 1.0 if ok else 0.0
            elif metric == "score":
                value = r.get("score")
            else:
                named = r.get("namedScores") or {}
                if metric not in named:
                    have = sorted(named)
                    raise DataError(f"{path}: result {k} (test {t}, {model}) has no named score {metric!r}; "
                                    f"`metric` is pass (the default), score or a named score ("
                                    f"{', '.join(have) or 'this result has none'})", param="metric")
                value = named[metric]
            if not is_number(value):
                raise DataError(f"{path}: result {k} (test {t}, {model}): {metric} is {value!r}, not a number")
            models.append(opts.model_name or model)
            items.append(str(t))
            scores.append(float(value))
            hashes.append(_vars_hash(r.get("vars")))
        if opts.model_name and len(per_column) > 1:
            raise DataError(f"{path}: the file holds {len(per_column)} columns ({', '.join(list(per_column)[:5])}); "
                            "`model_name` renames the model of a file that holds one")
        if not scores:
            raise DataError(f"{path}: every result errored and `errors`='drop' left none")
        for item, h in zip(items, hashes):
            seen = self._tests.setdefault(item, (h, path))
            if seen[0] != h:
                raise DataError(f"{path}: test {item} has other vars than test {item} of {seen[1]}: the two files "
                                "ran different tests under one index; read them separately")
        df = pd.DataFrame({"model": models, "item": items, "score": scores})
        task = opts.task or "promptfoo"
        df["task"] = task
        df["metric"] = metric
        notes: list[Note] = []
        if several:
            notes.append(Note("promptfoo_prompts", {"path": path, "prompts": [[number[p], lab[:80]] for p, lab in
                                                                               prompt_ids.items()]}))
        if errored:
            notes.append(Note("promptfoo_errored", {"path": path, "errors": opts.errors,
                                                    "per_model": [[m, n] for m, n in errored.items()]}))
        for model, n in per_column.items():
            c = col_index.get(model)
            m = columns[c].get("metrics") if c is not None and c < len(columns) and isinstance(columns[c], dict) else None
            if isinstance(m, dict) and all(is_number(m.get(x)) for x in ("testPassCount", "testFailCount")):
                reported = int(m["testPassCount"]) + int(m["testFailCount"]) + int(m.get("testErrorCount") or 0)
                if reported != n:
                    notes.append(Note("promptfoo_count", {"path": path, "model": model, "reported": reported,
                                                          "n_results": n}))
        config = obj.get("config") if isinstance(obj.get("config"), dict) else {}
        tests = config.get("tests")
        n_tests = len(set(items) | {str(r["testIdx"]) for r in rows})
        if isinstance(tests, list) and not config.get("scenarios") and len(tests) > n_tests:
            notes.append(Note("promptfoo_tests_missing", {"path": path, "n_config": len(tests), "n_read": n_tests}))
        df.attrs["notes"] = notes
        df.attrs["line_numbers"] = False
        df.attrs["provenance"] = {m: {"harness": "promptfoo", "task": task, "split": None, "metric": metric,
                                      "files": [path]} for m in dict.fromkeys(models)}
        return df
