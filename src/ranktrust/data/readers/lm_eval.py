"""lm-evaluation-harness ``--log_samples`` output: ``samples_<task>_<ts>.jsonl``.

What is read from where (see ``docs/formats/lm_eval.md``):

* one JSONL line = one item: ``doc_id`` (0-based position in the dataset) is the item
  label, ``doc_hash`` the content hash used to check alignment across models,
  ``doc.subject`` (when the dataset has it) the item group;
* the score is the top-level key named after the metric (``acc``, ``acc_norm``,
  ``exact_match`` ...). Default metric: the first entry of the line's ``metrics`` list
  (lm-eval's own order: ``acc`` for multiple choice, ``exact_match`` for generation);
  ``--metric acc_norm`` picks another, ``--metric exact_match,strict-match`` also picks
  the filter when a task writes one line per filter;
* the task is the ``<task>`` part of the file name;
* the model name is ``model_name`` (else ``config.model_args`` ``pretrained=``) in the
  ``results_<ts>.json`` next to the samples file; ``--model-name`` overrides it;
* ``lm_eval_version`` in that results file must be a known version (0.4.x).

A directory is searched (recursively) for ``samples_*.jsonl``; files are read one at a
time, line by line, in chunks.
"""

from __future__ import annotations

import glob
import json
import os
import re
from typing import Any, Iterator

from ...errors import DataError, FormatError
from ._registry import ReadOptions, load_json, reader, tag_source, walk_files

KNOWN_VERSIONS = ("0.4",)  # lm_eval_version prefixes whose samples layout this reader knows
CHUNK_ROWS = 50_000

_SAMPLES_RE = re.compile(r"^samples_(?P<task>.+)_(?P<ts>\d{4}-\d{2}-\d{2}T[0-9.\-:]+)\.jsonl$")


# ----------------------------------------------------------------- helpers (shared)
class RowBuffer:
    """Collects rows column by column and yields DataFrames of at most ``size`` rows."""

    def __init__(self, columns: tuple[str, ...], size: int = CHUNK_ROWS) -> None:
        self.columns = columns
        self.size = size
        self.cols: dict[str, list[Any]] = {c: [] for c in columns}

    def __len__(self) -> int:
        return len(self.cols[self.columns[0]])

    def add(self, *values: Any) -> None:
        for c, v in zip(self.columns, values):
            self.cols[c].append(v)

    def full(self) -> bool:
        return len(self) >= self.size

    def flush(self, **const: Any):  # -> pd.DataFrame | None
        import pandas as pd

        if not len(self):
            return None
        data = {c: v for c, v in self.cols.items()}
        df = pd.DataFrame(data)
        for k, v in const.items():
            df[k] = v
        self.cols = {c: [] for c in self.columns}
        return df


def _is_samples(name: str) -> bool:
    return name.startswith("samples_") and name.endswith(".jsonl")


def files(path: str) -> list[str]:
    """The per-file units this reader reads from ``path`` (a file or a directory)."""
    if os.path.isdir(path):
        return walk_files(path, _is_samples)
    return [path]


def companions(path: str) -> list[str]:
    """Other files whose content the reading of ``path`` depends on (the results JSON)."""
    r = _results_file(path)
    return [r] if r else []


def _sniff(path: str) -> bool:
    if os.path.isdir(path):
        return bool(walk_files(path, _is_samples, limit=1))
    return _is_samples(os.path.basename(path))


def _results_file(samples_path: str) -> str | None:
    d = os.path.dirname(samples_path) or "."
    m = _SAMPLES_RE.match(os.path.basename(samples_path))
    if m:
        cand = os.path.join(d, f"results_{m.group('ts')}.json")
        if os.path.exists(cand):
            return cand
    cands = sorted(glob.glob(os.path.join(glob.escape(d), "results_*.json")))
    return cands[0] if len(cands) == 1 else None


def _task_of(samples_path: str) -> str:
    name = os.path.basename(samples_path)
    m = _SAMPLES_RE.match(name)
    if m:
        return m.group("task")
    return name[len("samples_"):-len(".jsonl")] if _is_samples(name) else os.path.splitext(name)[0]


def unit_skip(path: str, opts: ReadOptions, seen: dict | None = None) -> str | None:
    """Why a samples file found in a folder holds nothing for ``--task``/``--metric`` (else None).

    Lets a caller (the store) skip, without reading it, a file of another task or one
    whose samples lack the chosen metric, as reading the whole folder does.
    """
    task = _task_of(path)
    if opts.task is not None and task != opts.task:
        if seen is not None:
            seen.setdefault("task", set()).add(task)
        return f"--task {opts.task!r} (task {task!r})"
    if opts.metric is not None and opts.task is None:
        want = opts.metric.partition(",")[0]
        with open(path, encoding="utf-8") as fh:
            first = fh.readline()
        try:
            rec = json.loads(first)
        except json.JSONDecodeError:
            return None  # let the reader report the bad line
        if isinstance(rec, dict) and want not in rec:
            if seen is not None:
                seen.setdefault("metric", set()).update(m for m in rec.get("metrics") or [] if m in rec)
            return f"--metric {opts.metric!r} (it has {', '.join(m for m in rec.get('metrics') or [] if m in rec)})"
    return None


def _model_from_results(res: dict) -> str | None:
    if res.get("model_name"):
        return str(res["model_name"])
    cfg = res.get("config") or {}
    args = cfg.get("model_args")
    if isinstance(args, dict) and args.get("pretrained"):
        return str(args["pretrained"])
    if isinstance(args, str):
        for part in args.split(","):
            k, _, v = part.partition("=")
            if k.strip() in ("pretrained", "model", "model_name") and v:
                return v.strip()
    return None


def _check_version(res: dict, where: str) -> None:
    v = res.get("lm_eval_version")
    if v is None:
        return
    if not any(str(v) == k or str(v).startswith(k + ".") for k in KNOWN_VERSIONS):
        raise FormatError(
            f"{where}: lm_eval_version {v!r} is not a version this reader knows "
            f"(known: {', '.join(k + '.x' for k in KNOWN_VERSIONS)}); check the samples layout and "
            "convert the file to a long table (model, item, score) if it differs"
        )


def _header(samples_path: str, opts: ReadOptions) -> str:
    """Model name for a samples file (checks the results file's version)."""
    res_path = _results_file(samples_path)
    model = opts.model_name
    if res_path is not None:
        res = load_json(res_path)
        _check_version(res, res_path)
        model = model or _model_from_results(res)
    if not model:
        raise DataError(
            f"{samples_path}: no model name (no results_*.json with model_name beside it); "
            "pass --model-name NAME (model_name= in Python)"
        )
    return model


def _score(value: Any, path: str, lineno: int, metric: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    raise DataError(
        f"{path}: line {lineno}: metric {metric!r} is {value!r}, not a per-item number; "
        "choose a per-item metric with --metric"
    )


def _group_of(doc: Any) -> str | None:
    if isinstance(doc, dict):
        for k in ("subject", "category", "group"):
            v = doc.get(k)
            if isinstance(v, (str, int)):
                return str(v)
    return None


# ------------------------------------------------------------------------ reader
def read_file(path: str, opts: ReadOptions, *, seen_hashes: dict | None = None,
              skip_missing_metric: bool = False) -> Iterator:
    """Stream one samples file as canonical long chunks."""
    model = _header(path, opts)
    task = _task_of(path)
    want_metric, want_filter = None, None
    if opts.metric:
        want_metric, _, f = opts.metric.partition(",")
        want_filter = f or None
    label = opts.metric
    buf = RowBuffer(("item", "score", "group", "doc_hash"))
    seen_items: dict[str, str] = {}
    metric = want_metric
    any_rows = False
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"{path}: line {lineno} is not valid JSON ({exc.msg}); the file may be truncated"
                ) from None
            if not isinstance(rec, dict) or "doc_id" not in rec:
                raise FormatError(
                    f"{path}: line {lineno} has no 'doc_id'; not an lm-evaluation-harness samples line"
                )
            if want_filter is not None and rec.get("filter") != want_filter:
                continue
            available = [m for m in (rec.get("metrics") or []) if m in rec] or [
                k for k, v in rec.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
                and k not in ("doc_id",)
            ]
            if metric is None:
                if not available:
                    raise DataError(f"{path}: line {lineno}: no metric values in this sample")
                metric = available[0]
            if metric not in rec:
                if skip_missing_metric and not any_rows:
                    return  # this task does not have the metric (directory read)
                raise DataError(
                    f"{path}: line {lineno}: the sample has no metric {metric!r}; it has "
                    f"{', '.join(available) or 'none'}; choose one with --metric"
                )
            item = str(rec["doc_id"])
            if item in seen_items:
                raise DataError(
                    f"{path}: line {lineno}: doc_id {item} appears twice (filters "
                    f"{seen_items[item]!r} and {rec.get('filter')!r}); choose the filter with "
                    f"--metric {metric},<filter>"
                )
            seen_items[item] = str(rec.get("filter"))
            doc_hash = rec.get("doc_hash")
            if seen_hashes is not None and doc_hash is not None:
                key = (task, item)
                prev = seen_hashes.get(key)
                if prev is None:
                    seen_hashes[key] = (doc_hash, path)
                elif prev[0] != doc_hash:
                    raise DataError(
                        f"{path}: line {lineno}: item {item} of task {task!r} has doc_hash "
                        f"{doc_hash[:12]}… but {prev[0][:12]}… in {prev[1]}: the files were made from "
                        "different versions of the dataset, so their items do not align"
                    )
            buf.add(item, _score(rec[metric], path, lineno, metric), _group_of(rec.get("doc")), doc_hash)
            any_rows = True
            if buf.full():
                yield _finish(buf, model, task, label or metric)
    note = _count_note(path, task, len(seen_items))
    if len(buf) or note:
        df = _finish(buf, model, task, label or metric) if len(buf) else _empty(model, task, label or metric)
        if note:
            df.attrs["notes"] = [note]
        yield df


def _count_note(path: str, task: str, n_read: int) -> str | None:
    """A note when the results file reports another sample count for ``task`` than the samples file holds."""
    res_path = _results_file(path)
    if res_path is None or not n_read:
        return None
    ns = (load_json(res_path).get("n-samples") or {}).get(task)
    n = ns.get("effective", ns.get("original")) if isinstance(ns, dict) else None
    if isinstance(n, int) and not isinstance(n, bool) and n != n_read:
        return (f"{path}: the results file {os.path.basename(res_path)} reports {n} samples for {task!r} but this "
                f"samples file holds {n_read}; only those {n_read} are scored (a trimmed or partial samples file?)")
    return None


def _empty(model: str, task: str, metric: str):  # noqa: ANN202
    import pandas as pd

    df = pd.DataFrame({"item": [], "score": [], "model": model, "task": task, "metric": metric})
    df.attrs["line_numbers"] = False
    return df


def _finish(buf: RowBuffer, model: str, task: str, metric: str):  # noqa: ANN202
    df = buf.flush(model=model, task=task, metric=metric)
    if df["group"].isna().all():
        df = df.drop(columns=["group"])
    if df["doc_hash"].isna().all():
        df = df.drop(columns=["doc_hash"])
    df.attrs["line_numbers"] = False
    return df


@reader("lm_eval", sniff=_sniff, priority=20,
        description="lm-evaluation-harness --log_samples output (samples_*.jsonl + results_*.json)")
def read_lm_eval(path: str, opts: ReadOptions) -> Iterator:
    """lm-evaluation-harness samples_*.jsonl files (a file or an output directory)."""
    units = files(path)
    if not units:
        raise DataError(f"{path}: no samples_*.jsonl files (run lm_eval with --log_samples)")
    is_dir = os.path.isdir(path)
    if opts.task is not None:
        units = [u for u in units if _task_of(u) == opts.task]
        if not units:
            tasks = sorted({_task_of(u) for u in files(path)})
            raise DataError(f"{path}: no task {opts.task!r}; available: {', '.join(tasks)}")
    seen: dict = {}
    n = 0
    for u in units:
        chunks = read_file(u, opts, seen_hashes=seen, skip_missing_metric=is_dir and opts.metric is not None
                           and opts.task is None)
        for chunk in (tag_source(chunks, u) if len(units) > 1 else chunks):
            n += len(chunk)
            yield chunk
    if n == 0:
        raise DataError(f"{path}: no samples with metric {opts.metric!r}")
