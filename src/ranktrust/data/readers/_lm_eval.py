"""lm-evaluation-harness ``--log_samples`` output: ``samples_<task>_<ts>.jsonl``.

What is read from where (see ``docs/formats/lm_eval.md``):

* one JSONL line = one item: ``doc_id`` (0-based position in the dataset) is the item
  label, ``doc_hash`` the content hash used to check alignment across models,
  ``doc.subject`` (when the dataset has it) the item group;
* the score is the top-level key named after the metric (``acc``, ``acc_norm``,
  ``exact_match`` ...). Default metric: the first entry of the line's ``metrics`` list
  (lm-eval's own order: ``acc`` for multiple choice, ``exact_match`` for generation; lines
  written before 0.4.7 have none: the task's ``metric_list`` in the results file), never one
  whose name says failure, error or frequency; ``--metric acc_norm`` picks another,
  ``--metric exact_match,strict-match`` also picks the filter when a task writes one line per
  filter. Before 0.4.7 the lines name no filter: a task with k filters wrote k blocks of lines
  (each ``doc_id`` once per block) in the order of ``configs[task].filter_list`` in the
  results file, and the filter asked for is read as its block (noted);
* a run cut with ``--limit`` (``config.limit``), or that scored fewer documents than the task
  has (``n-samples``), is noted; a group read with ``--task`` whose subtasks share a question
  (``leaderboard_gpqa``'s diamond, main and extended) is refused;
* ``item``='doc_hash' makes ``doc_hash`` the item (two dataset versions paired by content);
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
from ...results import Note
from ._registry import ReadOptions, Skip, register
from ._util import RowBuffer, is_failure_metric, iter_jsonl, load_json, walk_files

KNOWN_VERSIONS = ("0.4",)  # lm_eval_version prefixes whose samples layout this reader knows

_SAMPLES_RE = re.compile(r"^samples_(?P<task>.+)_(?P<ts>\d{4}-\d{2}-\d{2}T[0-9.\-:]+)\.jsonl$")


def _is_samples(name: str) -> bool:
    return name.startswith("samples_") and name.endswith(".jsonl")


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
            "pass `model_name`='NAME'"
        )
    return model


def _score(value: Any, path: str, lineno: int, metric: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    raise DataError(
        f"{path}: line {lineno}: metric {metric!r} is {value!r}, not a per-item number; "
        "choose a per-item metric with `metric`"
    )


def _group_of(doc: Any) -> str | None:
    if isinstance(doc, dict):
        for k in ("subject", "category", "group"):
            v = doc.get(k)
            if isinstance(v, (str, int)):
                return str(v)
    return None


# ------------------------------------------------------------------------ reader
def _subtasks(res: dict, group: str) -> list[str]:
    """The leaf tasks of ``group`` in a results file's ``group_subtasks`` (nested groups followed), in order."""
    tree = res.get("group_subtasks") or {}
    if not isinstance(tree, dict) or group not in tree:
        return []
    out: list[str] = []
    todo, seen = list(tree[group] or []), {group}
    while todo:
        t = str(todo.pop(0))
        if t in seen:
            continue
        seen.add(t)
        if tree.get(t):      # a subgroup (mmlu_stem): its own subtasks
            todo = list(tree[t]) + todo
        else:
            out.append(t)
    return out


def _subject_of(task: str, group: str) -> str:
    """The subject of a subtask of ``group``: ``mmlu_abstract_algebra`` -> ``abstract_algebra``."""
    return task[len(group) + 1:] if task.startswith(group + "_") else task


def _results_of(samples_path: str) -> dict:
    """The results file beside a samples file (``{}`` when there is none)."""
    res_path = _results_file(samples_path)
    res = load_json(res_path) if res_path is not None else {}
    return res if isinstance(res, dict) else {}


def _task_config(res: dict, task: str) -> dict:
    cfg = (res.get("configs") or {}).get(task)
    return cfg if isinstance(cfg, dict) else {}


def _filter_names(res: dict, task: str) -> list[str]:
    """The names of the task's filters, in ``configs[task].filter_list`` order (lm-eval writes one block of
    samples lines per filter in this order)."""
    out = []
    for f in _task_config(res, task).get("filter_list") or []:
        if isinstance(f, dict) and f.get("name") is not None:
            out.append(str(f["name"]))
    return out


def _declared_metrics(res: dict, task: str) -> list[str]:
    """The task's metrics in its config's ``metric_list`` order (the order of lm-eval's results table)."""
    return [str(m["metric"]) for m in _task_config(res, task).get("metric_list") or []
            if isinstance(m, dict) and isinstance(m.get("metric"), str)]


def _headline(available: list[str], declared: list[str], path: str, lineno: int) -> str:
    """The default metric: the first of the line's ``metrics`` (lm-eval's order; else the config's
    ``metric_list``), never one whose name says failure, error or frequency."""
    order = [m for m in declared if m in available] + [m for m in available if m not in declared]
    fit = [m for m in order if not is_failure_metric(m)]
    if not fit:
        raise DataError(f"{path}: line {lineno}: every metric of the sample ({', '.join(available) or 'none'}) counts "
                        "failures, errors or a frequency, not a score; choose one with `metric` if that is what you "
                        "mean to rank", param="metric")
    return fit[0]


_QUESTION_KEYS = ("Question", "question", "query", "problem", "input", "prompt", "sentence", "text")


def _question_of(doc: Any) -> str | None:
    """The question text of a sample's ``doc`` (for the check that pooled subtasks do not share questions)."""
    if isinstance(doc, dict):
        for k in _QUESTION_KEYS:
            v = doc.get(k)
            if isinstance(v, str) and v.strip():
                return " ".join(v.split())
    return None


def read_file(path: str, opts: ReadOptions, *, seen_hashes: dict | None = None, pool: str | None = None,
              questions: dict | None = None) -> Iterator:
    """Stream one samples file as canonical long chunks.

    ``pool``: the group this file's task is a subtask of (``--task mmlu`` over ``mmlu_*`` subtasks): the rows
    get that task, the subject as their group, and item ids prefixed with the subject (``abstract_algebra/0``).
    ``questions``: the question texts of the pooled subtasks read so far (``(model, text) -> item``); a subtask
    that repeats one is refused (``leaderboard_gpqa``'s diamond, main and extended share questions).

    Samples written before lm-eval 0.4.7 have no ``filter`` field: a task with several filters writes one block
    of lines per filter, each ``doc_id`` once per block, in the order of ``configs[task].filter_list`` in the
    results file; the block is named from there.
    """
    model = _header(path, opts)
    res = _results_of(path)
    leaf = _task_of(path)
    task = pool or leaf
    subject = _subject_of(leaf, pool) if pool else None
    want_metric, want_filter = None, None
    if opts.metric:
        want_metric, _, f = opts.metric.partition(",")
        want_filter = f or None
    by_content = opts.item_col == "doc_hash"
    label = opts.metric
    buf = RowBuffer(("item", "score", "group", "doc_hash"))
    seen_items: dict[str, str | None] = {}
    block: dict[str, int] = {}     # doc_id -> how many times it was seen (the filter block of a pre-0.4.7 file)
    filters = _filter_names(res, leaf)
    unnamed = False                # lines without a ``filter`` field (lm-eval before 0.4.7)
    metric = want_metric
    repeated: list[tuple[str, str]] = []
    n_lines = 0
    for lineno, rec in iter_jsonl(path):
        if not isinstance(rec, dict) or "doc_id" not in rec:
            raise FormatError(
                f"{path}: line {lineno} has no 'doc_id'; not an lm-evaluation-harness samples line"
            )
        n_lines += 1
        doc_id = str(rec["doc_id"])
        k = block.get(doc_id, 0)
        block[doc_id] = k + 1
        if "filter" in rec:
            line_filter = rec.get("filter")
        else:
            unnamed = True
            if k >= max(len(filters), 1) and len(filters) > 0:
                raise DataError(f"{path}: line {lineno}: doc_id {doc_id} appears {k + 1} times but the results file "
                                f"names {len(filters)} filters ({', '.join(filters)}) for task {leaf!r}; the file "
                                "does not match its results file")
            line_filter = filters[k] if filters else None
            if k and not filters:
                raise DataError(
                    f"{path}: line {lineno}: doc_id {doc_id} appears again and the lines name no filter (lm-eval "
                    "before 0.4.7 writes one block of lines per filter) and no results file beside the samples names "
                    "the task's filters (configs.filter_list); keep the results_*.json lm-eval wrote beside it")
        if want_filter is not None and line_filter != want_filter:
            continue
        available = [m for m in (rec.get("metrics") or []) if m in rec] or [
            k_ for k_, v in rec.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
            and k_ not in ("doc_id",)
        ]
        if metric is None:
            if not available:
                raise DataError(f"{path}: line {lineno}: no metric values in this sample")
            metric = _headline(available, _declared_metrics(res, leaf), path, lineno)
        if metric not in rec:
            raise DataError(
                f"{path}: line {lineno}: the sample has no metric {metric!r}; it has "
                f"{', '.join(available) or 'none'}; choose one with `metric`"
            )
        item = doc_id if subject is None else f"{subject}/{doc_id}"
        if item in seen_items:
            a, b = seen_items[item], line_filter
            both = f"filters {a!r} and {b!r}" if a != b else "the same filter"
            named = (f"filters {', '.join(filters)}" if filters else "no filter names")
            raise DataError(
                f"{path}: line {lineno}: doc_id {item} appears twice ({both}; the results file gives {named}); "
                f"choose the filter with `metric`='{metric},{(filters or ['<filter>'])[0]}'"
            )
        seen_items[item] = line_filter
        doc_hash = rec.get("doc_hash")
        if seen_hashes is not None and doc_hash is not None and not by_content:
            key = (task, item)
            prev = seen_hashes.get(key)
            if prev is None:
                seen_hashes[key] = (doc_hash, path)
            elif prev[0] != doc_hash:
                raise DataError(
                    f"{path}: line {lineno}: item {item} of task {task!r} has doc_hash "
                    f"{doc_hash[:12]}… but {prev[0][:12]}… in {prev[1]}: the files were made from "
                    "different versions of the dataset, so their items do not align; pair them by content with "
                    "`item`='doc_hash'", param="item"
                )
        if by_content:
            if not isinstance(doc_hash, str):
                raise DataError(f"{path}: line {lineno} has no doc_hash (lm-eval before 0.4.3?), so `item`='doc_hash' "
                                "cannot pair it by content", param="item")
            item = doc_hash[:16]
        if questions is not None and pool is not None:
            q = _question_of(rec.get("doc"))
            if q is not None:
                prev_item = questions.setdefault((model, q), item)
                if prev_item != item:
                    repeated.append((item, prev_item))
        buf.add(item, _score(rec[metric], path, lineno, metric),
                subject if subject is not None else _group_of(rec.get("doc")), doc_hash)
        if buf.full():
            yield _finish(buf, model, task, label or metric)
    if repeated:
        raise _pooled_twice(path, pool or task, res, repeated, len(seen_items))
    if unnamed and len(filters) > 1 and want_filter is None and seen_items:
        raise DataError(f"{path}: the lines name no filter (lm-eval before 0.4.7) and task {leaf!r} has "
                        f"{len(filters)} filters ({', '.join(filters)}), one block of lines each; choose one with "
                        f"`metric`='{metric},{filters[0]}'", param="metric")
    if want_filter is not None and not seen_items and n_lines:
        raise DataError(f"{path}: no line has filter {want_filter!r}; the task's filters: "
                        f"{', '.join(filters) if filters else 'none named'}; choose one with `metric`", param="metric")
    notes = [n for n in (_count_note(path, leaf, len(seen_items)), _limit_note(path, res, leaf, len(seen_items)))
             if n is not None]
    if unnamed and len(filters) > 1 and want_filter is not None:
        notes.append(Note("lm_eval_filter_blocks", {"path": path, "task": leaf, "filter": want_filter,
                                                    "filters": filters, "block": filters.index(want_filter) + 1}))
    if pool is not None and questions is not None and seen_items:
        # the filter each pooled subtask was read with: subtasks of one group scored through different filters
        # (bbh: `none` and `get-answer`) are said, not mixed in silence
        used = sorted({str(f) for f in seen_items.values()})
        filt = questions.setdefault(("__filters__", model), {})
        filt[leaf] = used
        if len({tuple(v) for v in filt.values()}) > 1 and not questions.get(("__filters_said__", model)):
            questions[("__filters_said__", model)] = True
            notes.append(Note("lm_eval_pooled_filters", {"task": pool, "model": model,
                                                         "filters": sorted([k, v] for k, v in filt.items())}))
    if len(buf) or notes:
        df = _finish(buf, model, task, label or metric) if len(buf) else _empty(model, task, label or metric)
        if notes:
            df.attrs["notes"] = notes
        yield df


def _pooled_twice(path: str, group: str, res: dict, repeated: list[tuple[str, str]], n: int) -> DataError:
    """The refusal for a group whose subtasks share questions (one question counted once per subtask)."""
    agg = (res.get("results") or {}).get(group) or {}
    has_agg = isinstance(agg, dict) and any(isinstance(v, (int, float)) and not isinstance(v, bool)
                                            for v in agg.values())
    reported = ("lm-eval's own aggregate for it is not a pooled mean of these items" if has_agg
                else "lm-eval reports no aggregate for it")
    members = _subtasks(res, group)
    first = members[0] if members else group + "_<subtask>"
    ex = ", ".join(f"{a} = {b}" for a, b in repeated[:2])
    return DataError(
        f"{path}: task {group!r} pools subtasks that share questions: {len(repeated)} of this file's {n} items "
        f"repeat a question of another subtask ({ex}), so one question would count up to once per subtask; "
        f"{reported}. Read one subtask, e.g. `task`='{first}'", param="task")


def _limit_note(path: str, res: dict, task: str, n_read: int) -> Note | None:
    """A note when the run was cut with ``--limit`` (``config.limit``) or scored fewer documents than the task
    has (``n-samples``: ``effective`` < ``original``): the record ``lm_eval_limited``."""
    if not n_read:
        return None
    limit = (res.get("config") or {}).get("limit") if isinstance(res.get("config"), dict) else None
    ns = (res.get("n-samples") or {}).get(task)

    def count(k: str) -> int | None:
        v = ns.get(k) if isinstance(ns, dict) else None
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    original, effective = count("original"), count("effective")
    if original is not None and original <= n_read:
        return None
    # without --limit: a run that scored fewer documents than the task has (a samples file trimmed after the run
    # is the sample-count note's)
    if limit is None and not (original is not None and effective is not None and effective == n_read):
        return None
    lim = limit if isinstance(limit, (int, float)) and not isinstance(limit, bool) else None
    return Note("lm_eval_limited", {"path": path, "task": task, "n_samples": n_read, "original": original,
                                    "limit": None if lim is None else (int(lim) if float(lim).is_integer() else lim)})


def _count_note(path: str, task: str, n_read: int) -> Note | None:
    """A note when the results file reports another sample count for ``task`` than the samples file holds: the
    record ``lm_eval_sample_count`` (``path``, ``results_file``, ``task``, ``reported``, ``n_samples``)."""
    res_path = _results_file(path)
    if res_path is None or not n_read:
        return None
    ns = (load_json(res_path).get("n-samples") or {}).get(task)
    n = ns.get("effective", ns.get("original")) if isinstance(ns, dict) else None
    if isinstance(n, int) and not isinstance(n, bool) and n != n_read:
        return Note("lm_eval_sample_count", {"path": path, "results_file": os.path.basename(res_path), "task": task,
                                             "reported": n, "n_samples": n_read})
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


@register
class LmEvalReader:
    """lm-evaluation-harness samples_*.jsonl files (a file or an output folder).

    One object per read: ``doc_hash`` values seen in earlier files of the read are kept, so that
    a file made from another version of the dataset is named with its line.
    """

    name = "lm_eval"
    priority = 20
    description = "lm-evaluation-harness --log_samples output (samples_*.jsonl + results_*.json)"
    looks_for = "samples_*.jsonl files (run lm_eval with --log_samples)"
    content_key = True   # samples carry doc_hash: `item`='doc_hash' pairs them by content

    def __init__(self) -> None:
        self._hashes: dict = {}
        self._pool: dict[str, str] = {}   # samples file -> the group it is pooled into (--task mmlu)
        self._members: dict[tuple[str, str], list[str]] = {}   # (results file, group) -> its leaf subtasks
        self._questions: dict[tuple[str, str], str] = {}   # pooled subtasks: (model, question text) -> item

    def sniff(self, path: str) -> bool:
        if os.path.isdir(path):
            return bool(walk_files(path, _is_samples, limit=1))
        return _is_samples(os.path.basename(path))

    def units(self, path: str) -> list[str]:
        return walk_files(path, _is_samples)

    def companions(self, unit: str) -> list[str]:
        """The results JSON beside a samples file (its model name and version are read from it)."""
        r = _results_file(unit)
        return [r] if r else []

    def skip(self, unit: str, opts: ReadOptions) -> Skip | None:
        """A samples file of another task, or (no task chosen) one whose samples lack the chosen metric."""
        task = _task_of(unit)
        if opts.task is not None and task != opts.task:
            if task in self._group_members(unit, opts.task):   # a subtask of the group asked for: pooled
                self._pool[unit] = opts.task
                return None
            return Skip("task", opts.task, (task,))
        if opts.metric is not None and opts.task is None:
            want = opts.metric.partition(",")[0]
            with open(unit, encoding="utf-8") as fh:
                first = fh.readline()
            try:
                rec = json.loads(first)
            except json.JSONDecodeError:
                return None  # let the reader report the bad line
            if isinstance(rec, dict) and want not in rec:
                return Skip("metric", opts.metric, tuple(m for m in rec.get("metrics") or [] if m in rec))
        return None

    def _group_members(self, unit: str, group: str) -> list[str]:
        """The leaf subtasks of ``group`` that the results file beside ``unit`` lists (``group_subtasks``)."""
        res_path = _results_file(unit)
        if res_path is None:
            return []
        key = (res_path, group)
        if key not in self._members:   # one results file serves every subtask's samples file of a model
            res = load_json(res_path)
            self._members[key] = _subtasks(res, group) if isinstance(res, dict) else []
        return self._members[key]

    def combine(self, chunks: list) -> list:  # noqa: ANN001
        """A pooled read (``task``='mmlu' over ``mmlu_*`` subtasks): a note with each model's subject count."""
        if self._pool and chunks:
            from ._helm import subject_note

            group = next(iter(self._pool.values()))
            note = subject_note([c for c in chunks if len(c) and str(c["task"].iloc[0]) == group], group,
                                "lm_eval")
            if note:
                chunks[-1].attrs["notes"] = list(chunks[-1].attrs.get("notes", ())) + [note]
        return chunks

    def absent(self, path: str, option: str, chosen: str) -> str | None:
        """A task the folder's results files report (aggregates) but no samples file holds."""
        if option != "task" or not os.path.isdir(path):
            return None
        for res in walk_files(path, lambda f: f.startswith("results_") and f.endswith(".json")):
            try:
                obj = load_json(res)
            except DataError:
                continue
            tasks = set((obj.get("results") or {}) if isinstance(obj, dict) else ()) | set(
                (obj.get("n-samples") or {}) if isinstance(obj, dict) else ())
            if chosen in tasks:
                return (f"{path}: task {chosen!r} has only aggregate scores (in {res}) and no samples file "
                        f"samples_{chosen}_*.jsonl, so there are no per-item scores to read (run lm_eval with "
                        "--log_samples and keep the samples files)")
        return None

    def read(self, unit: str, opts: ReadOptions) -> Iterator:
        if opts.task is not None and _task_of(unit) != opts.task and unit not in self._pool:   # a file given by name
            if _task_of(unit) in self._group_members(unit, opts.task):
                self._pool[unit] = opts.task
            else:
                raise DataError(f"{unit}: no task {opts.task!r}; available: {_task_of(unit)}")
        yield from read_file(unit, opts, seen_hashes=self._hashes, pool=self._pool.get(unit), questions=self._questions)
