"""lighteval ``--save-details`` output: ``details/<model>/<ts>/details_<task>_<ts>.parquet``.

What is read from where (see ``docs/formats/lighteval.md`` and ``docs/readers.md``):

* one Parquet row = one item, with struct columns ``doc``, ``metric``, ``model_response``
  (only ``doc`` and ``metric`` are read, one record batch at a time);
* item = ``doc.id`` (the dataset row index, a string; rows are *not* in dataset order), with a content
  key ``doc_hash`` = SHA-256 of (``doc.query``, ``doc.choices``, ``doc.gold_index``): two files whose
  "same" ``doc.id`` holds another question are refused, naming both files and the count (two revisions of
  a dataset); ``item``='doc_hash' pairs them by content instead;
  group = ``doc.specific.subject`` when the task's prompt function put one there;
  task = ``doc.task_name`` (``mcq_tiny_lighteval|0``; ``--task mcq_tiny_lighteval`` also
  matches, ignoring the few-shot suffix);
* score = ``metric.<name>``. lighteval writes the ``metric`` struct in **alphabetical** order, so its first
  field says nothing. Default metric: the task's first declared metric (``config_tasks[task].metrics`` in
  the results file beside the details), else the first metric the results file reports for the task
  (``results[task]``); never a metric whose name says failure, error or frequency (``extract_fail``,
  ``idk_freq``). With no such rule (no results file) and several metrics, the read is refused with the
  choices. The choice is noted (``metric_chosen``) when there were several;
* model = ``config_general.model_config.model_name`` (else ``config_general.model_name``)
  from ``results/<model>/results_<ts>.json`` beside the ``details`` folder; else the
  ``<model>`` part of the details path; ``--model-name`` overrides;
* a folder whose ``results/`` holds a model's results but no details file for it: noted
  (``lighteval_no_details``), as that model is not in the comparison.

lighteval writes no version number into these files, so no version check is possible.
"""

from __future__ import annotations

import os
from typing import Any, Iterator

from ...errors import DataError, FormatError
from ...results import Note
from ._registry import ReadOptions, register
from ._util import content_hash, is_failure_metric, load_json, walk_files


def _is_details(name: str) -> bool:
    return name.startswith("details_") and name.endswith(".parquet")


def _split(path: str) -> tuple[str, str, str] | None:
    """(root containing details/, model relative path, timestamp) for a details file, in the path's own
    spelling (a relative path stays relative; only a path without ``details/`` in it is made absolute)."""
    for p in (os.path.normpath(path), os.path.abspath(path)):
        parts = p.split(os.sep)
        if "details" not in parts[:-1]:
            continue
        k = len(parts) - 1 - parts[::-1].index("details")
        rel = parts[k + 1:-1]
        if len(rel) < 2:
            return None
        return os.sep.join(parts[:k]) or (os.sep if p.startswith(os.sep) else "."), "/".join(rel[:-1]), rel[-1]
    return None


def results_file(path: str) -> str | None:
    sp = _split(path)
    if sp is None:
        return None
    root, model_rel, ts = sp
    d = os.path.join(root, "results", *model_rel.split("/"))
    cand = os.path.join(d, f"results_{ts}.json")
    if os.path.exists(cand):
        return cand
    if os.path.isdir(d):
        rs = sorted(f for f in os.listdir(d) if f.startswith("results_") and f.endswith(".json"))
        if len(rs) == 1:
            return os.path.join(d, rs[0])
    return None


def _model_of(res: dict | None) -> str | None:
    if not isinstance(res, dict):
        return None
    cg = res.get("config_general") or {}
    name = (cg.get("model_config") or {}).get("model_name") or cg.get("model_name")
    return str(name) if name else None


def _model(path: str, opts: ReadOptions, res: dict | None) -> str:
    if opts.model_name:
        return opts.model_name
    name = _model_of(res)
    if name:
        return name
    sp = _split(path)
    if sp is not None and sp[1]:
        return sp[1]
    raise DataError(f"{path}: no model name (no results_*.json and no details/<model>/<ts>/ path); pass `model_name`='NAME'")


def _task_of_file(path: str) -> str:
    """``details_<task>_<ts>.parquet`` -> ``<task>`` (lighteval's task key, ``community|gpqa-diamond-idk|0``)."""
    name = os.path.basename(path)[len("details_"):-len(".parquet")]
    return name.rsplit("_", 1)[0] if "_" in name else name


def _declared(res: dict, task: str) -> list[str]:
    """The task's metrics in the order its config declares them (``config_tasks[task].metrics``)."""
    ct = (res.get("config_tasks") or {}).get(task) or {}
    out: list[str] = []
    for m in ct.get("metrics") or [] if isinstance(ct, dict) else []:
        names = m.get("metric_name") if isinstance(m, dict) else m
        for n in names if isinstance(names, list) else [names]:
            if n and str(n) not in out:
                out.append(str(n))
    return out


def _reported(res: dict, task: str) -> list[str]:
    """The metrics the results file reports for the task, in its order (stderr entries left out)."""
    r = (res.get("results") or {}).get(task) or {}
    return [str(k) for k in r if not str(k).endswith("_stderr")] if isinstance(r, dict) else []


def default_metric(path: str, available: list[str], res: dict | None, task: str) -> tuple[str, str]:
    """(metric, rule): the harness's own headline for ``task`` among the details' ``available`` metrics.

    The rule is ``"config_tasks"`` (the task's declared order), ``"results"`` (the results file's order) or
    ``"only"`` (the one metric there is). A metric named for failures, errors or a frequency is never chosen;
    with no rule the read is refused, listing the metrics.
    """
    if isinstance(res, dict):
        for rule, names in (("config_tasks", _declared(res, task)), ("results", _reported(res, task))):
            fit = [n for n in names if n in available and not is_failure_metric(n)]
            if fit:
                return fit[0], rule
    ok = [n for n in available if not is_failure_metric(n)]
    if len(available) == 1 and ok:
        return ok[0], "only"
    if not ok:
        raise DataError(f"{path}: every metric of the details ({', '.join(available) or 'none'}) counts failures, "
                        "errors or a frequency, not a score; choose one with `metric` if that is what you mean to rank",
                        param="metric")
    why = ("no results file beside the details says which is the task's own" if res is None else
           f"the results file names none of them for task {task!r}")
    raise DataError(f"{path}: the details hold {len(available)} metrics ({', '.join(available)}), stored in "
                    f"alphabetical order, and {why}; choose one with `metric`='{ok[0]}'", param="metric")


def _no_details(root: str, opts: ReadOptions) -> list[Note]:
    """Models whose results file (``results/<model>/results_<ts>.json``) has no details file for a task."""
    res_root = os.path.join(root, "results")
    if not os.path.isdir(res_root):
        return []
    notes = []
    for rf in walk_files(res_root, lambda f: f.startswith("results_") and f.endswith(".json")):
        rel = os.path.relpath(os.path.dirname(rf), res_root)
        ts = os.path.basename(rf)[len("results_"):-len(".json")]
        try:
            res = load_json(rf)
        except DataError:
            continue
        tasks = [t for t in (res.get("results") or {}) if t != "all"] if isinstance(res, dict) else []
        if opts.task is not None:
            tasks = [t for t in tasks if t == opts.task or t.split("|")[0] == opts.task
                     or t.rsplit("|", 1)[0] == opts.task]
        ddir = os.path.join(root, "details", rel)
        have = set()
        if os.path.isdir(ddir):
            for f in walk_files(ddir, _is_details):
                have.add(_task_of_file(f))
        missing = [t for t in tasks if t not in have]
        if missing:
            notes.append(Note("lighteval_no_details", {"model": _model_of(res) or rel.replace(os.sep, "/"),
                                                       "results_file": rf, "tasks": missing}))
    return notes


@register
class LightevalReader:
    """lighteval details Parquet files (a file or an output folder).

    One object per read: the content key of every item seen is kept (``(task, doc.id) -> (doc_hash, file)``),
    so a file made from another revision of the dataset is refused with the count.
    """

    name = "lighteval"
    priority = 20
    description = "lighteval --save-details Parquet output"
    looks_for = "details_*.parquet files (run lighteval with --save-details)"
    content_key = True   # items carry a content hash: `item`='doc_hash' pairs them by question

    def __init__(self) -> None:
        self._hashes: dict[tuple[str, str], tuple[str, str, str]] = {}
        self._pending: list[Note] = []      # folder notes (models without details), said with the first chunk
        self._chosen: set[tuple] = set()    # metric_chosen notes already given in this read

    def sniff(self, path: str) -> bool:
        if os.path.isdir(path):
            return bool(walk_files(path, _is_details, limit=1))
        return _is_details(os.path.basename(path))

    def units(self, path: str) -> list[str]:
        found = walk_files(path, _is_details)
        roots = {sp[0] for sp in map(_split, found) if sp is not None}
        self._roots = sorted(roots)
        return found

    def companions(self, unit: str) -> list[str]:
        """The results JSON the model name and the default metric are read from."""
        r = results_file(unit)
        return [r] if r else []

    def read(self, unit: str, opts: ReadOptions) -> Iterator:
        if getattr(self, "_roots", None) is not None:     # a folder: its models without details, said once
            for root in self._roots:
                self._pending += _no_details(root, opts)
            self._roots = None
        return self._read_file(unit, opts)

    def _read_file(self, u: str, opts: ReadOptions) -> Iterator:
        """The rows of one details file, in record batches."""
        import numpy as np
        import pandas as pd
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        try:
            pf = pq.ParquetFile(u)
        except Exception as exc:  # pyarrow raises several types
            raise FormatError(f"{u}: not a readable Parquet file ({str(exc).splitlines()[0]})") from None
        names = pf.schema_arrow.names
        if "doc" not in names or "metric" not in names:
            raise FormatError(f"{u}: no 'doc' and 'metric' columns; not a lighteval details file")
        rpath = results_file(u)
        res = load_json(rpath) if rpath else None
        res = res if isinstance(res, dict) else None
        model = _model(u, opts, res)
        mtype = pf.schema_arrow.field("metric").type
        available = [mtype.field(i).name for i in range(mtype.num_fields)]
        file_task = _task_of_file(u)
        notes: list[Note] = list(self._pending)
        self._pending = []
        if opts.metric:
            metric = opts.metric
        else:
            metric, rule = default_metric(u, available, res, file_task)
            if len(available) > 1 and (file_task, metric, rule) not in self._chosen:
                self._chosen.add((file_task, metric, rule))
                notes.append(Note("metric_chosen", {"harness": "lighteval", "task": file_task, "chosen": metric,
                                                    "metrics": available, "rule": rule}))
        if metric not in available:
            raise DataError(
                f"{u}: no metric {metric!r} in the details; it has {', '.join(available) or 'none'}; "
                "choose one with `metric`", param="metric"
            )
        dtype = pf.schema_arrow.field("doc").type
        dfields = {dtype.field(i).name for i in range(dtype.num_fields)}
        content = [f for f in ("query", "choices", "gold_index") if f in dfields]
        by_content = opts.item_col == "doc_hash"
        if by_content and not content:
            raise DataError(f"{u}: the details carry no doc.query, choices or gold_index, so `item`='doc_hash' cannot "
                            "pair items by content", param="item")
        row0 = 0
        differ: list[tuple[str, str, str]] = []   # (item, other file, other model) of items whose content differs
        for batch in pf.iter_batches(columns=["doc", "metric"], batch_size=65_536):
            doc = batch.column("doc")
            met = batch.column("metric")
            vals = pc.struct_field(met, metric)
            score = vals.to_numpy(zero_copy_only=False).astype(np.float64)
            if np.isnan(score).any():
                k = int(np.flatnonzero(np.isnan(score))[0])
                raise DataError(f"{u}: row {row0 + k + 1}: metric {metric!r} is missing; choose another with `metric`")
            item = pc.struct_field(doc, "id").to_pylist() if "id" in dfields else [str(row0 + k) for k in range(len(batch))]
            item = [str(i) for i in item]
            task = pc.struct_field(doc, "task_name").to_pylist() if "task_name" in dfields else [None] * len(batch)
            df = pd.DataFrame({"model": model, "item": item, "score": score})
            df["task"] = [opts.task if opts.task and t and t.split("|")[0] == opts.task else t for t in task]
            if content:
                cols = [pc.struct_field(doc, f).to_pylist() for f in content]
                hashes = [content_hash(*parts) for parts in zip(*cols)]
                df["doc_hash"] = hashes
                if by_content:   # the question is the item: two revisions pair where their questions agree
                    df["item"] = [h[:16] for h in hashes]
                else:
                    for it, t, h in zip(item, task, hashes):
                        key = (str(t or file_task), it)
                        prev = self._hashes.get(key)
                        if prev is None:
                            self._hashes[key] = (h, u, model)
                        elif prev[0] != h and prev[1] != u:
                            differ.append((it, prev[1], prev[2]))
            if "specific" in dfields:
                spec = pc.struct_field(doc, "specific")
                st = spec.type
                if hasattr(st, "num_fields") and any(st.field(i).name == "subject" for i in range(st.num_fields)):
                    df["group"] = pc.struct_field(spec, "subject").to_pylist()
            if df["task"].isna().all():
                df = df.drop(columns=["task"])
            df["metric"] = metric
            df.attrs["line_numbers"] = False
            if notes:
                df.attrs["notes"] = notes
                notes = []
            row0 += len(batch)
            yield df
        if differ:
            raise _content_differs(u, model, file_task, differ, row0)
        if notes:   # an empty file: the notes still go out
            df = pd.DataFrame({"model": [], "item": [], "score": [], "metric": []})
            df.attrs.update({"line_numbers": False, "notes": notes})
            yield df


def _content_differs(path: str, model: str, task: str, differ: list[tuple[str, str, str]], n: int) -> DataError:
    """The refusal for two runs whose items share ids but not questions (two revisions of a dataset)."""
    other, other_model = differ[0][1], differ[0][2]
    n_other = sum(1 for d in differ if d[1] == other)
    ex = ", ".join(d[0] for d in differ[:3])
    return DataError(
        f"{path} (model {model!r}): {n_other} of its {n} items of task {task!r} hold another question (doc.query, "
        f"choices or gold answer) than the same doc.id in {other} (model {other_model!r}), e.g. item {ex}: the runs "
        "used different revisions of the dataset, so pairing them by id would compare different questions. Read "
        "them separately, or pair the questions by content with `item`='doc_hash' (questions in only one run are "
        "then left to `align`)", param="item")
