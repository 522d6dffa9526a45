"""Every Eval Ever (EEE) instance-level files: ``<uuid>_samples.jsonl`` (+ the ``<uuid>.json`` beside it).

EEE (https://github.com/evaleval/every_eval_ever, PyPI ``every-eval-ever``) is the interchange format
its converters write from inspect, HELM and lm-eval logs. Schema ``instance_level_eval.schema.json``
0.3.0 (0.2.x files read the same way). What is read from where (see ``docs/formats/eee.md``):

* one JSON line = one instance record; model = ``model_id`` (``--model-name`` overrides), item =
  ``sample_id``, score = ``evaluation.score``, task = ``evaluation_name``;
* metric = ``evaluation_result_id`` (the converters write one record per sample and aggregate
  result: ``acc``, ``exact_match:flexible-extract``, ``choice:accuracy``, ``exact_match:test``);
  records without one count as metric ``score``. Default: the only one, else the first result of
  the aggregate ``<uuid>.json`` beside the file (else the first in the file), with a note;
  ``--metric`` takes the full id or one ``:``-separated part of it (``--metric accuracy``);
* run = ``metadata.run`` (what ranktrust writes) else ``metadata.epoch`` (inspect's epochs);
  condition = ``metadata.condition``; group = ``metadata.group`` else ``metadata.subject``;
* a record whose ``error`` is set errored: ``--errors error`` (default) stops and counts them,
  ``wrong`` scores them 0, ``drop`` leaves them out (reports say how many);
* a folder: every ``*_samples.jsonl`` below it (``data/<benchmark>/<developer>/<model>/``); an
  aggregate ``<uuid>.json``: the ``<uuid>_samples.jsonl`` beside it;
  ``--task`` keeps the files' records of that ``evaluation_name`` (or of its part before ``/``,
  which the lm-eval converter appends a filter to).
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterator

from ...errors import DataError
from ...results import Note
from ._registry import ReadOptions, Skip, register
from ._util import is_failure_metric, iter_jsonl, walk_files

SAMPLES_SUFFIX = "_samples.jsonl"
_KEYS = ("schema_version", "evaluation_id", "model_id", "sample_id", "evaluation")
NO_METRIC = "score"  # the metric of records without an evaluation_result_id


def _is_samples(name: str) -> bool:
    return name.endswith(SAMPLES_SUFFIX)


def _sidecar(path: str) -> str | None:
    """``<uuid>_samples.jsonl`` beside an aggregate ``<uuid>.json``, when there is one."""
    if not path.endswith(".json"):
        return None
    cand = path[: -len(".json")] + SAMPLES_SUFFIX
    return cand if os.path.isfile(cand) else None


def _first_record(path: str) -> Any:
    with open(path, encoding="utf-8") as fh:
        for _ in range(50):
            line = fh.readline()
            if not line:
                return None
            if line.strip():
                return json.loads(line)
    return None


_KEYSET = frozenset(_KEYS)


def looks_eee(rec: Any) -> bool:
    return isinstance(rec, dict) and _KEYSET <= rec.keys() and isinstance(rec["evaluation"], dict)


def aggregate_file(path: str) -> str | None:
    """The aggregate ``<uuid>.json`` beside ``<uuid>_samples.jsonl``, when there is one."""
    base = os.path.basename(path)
    if not base.endswith(SAMPLES_SUFFIX):
        return None
    cand = os.path.join(os.path.dirname(path), base[: -len(SAMPLES_SUFFIX)] + ".json")
    return cand if os.path.exists(cand) else None


def _aggregate(path: str) -> dict:
    a = aggregate_file(path)
    if a is None:
        return {}
    try:
        with open(a, encoding="utf-8") as fh:
            agg = json.load(fh)
    except (OSError, ValueError):
        return {}  # the aggregate is optional here: the instance file is read on its own
    return agg if isinstance(agg, dict) else {}


def _task_matches(name: str | None, want: str) -> bool:
    return name is not None and (name == want or name.split("/")[0] == want)


def _choose_metric(ids: list[str], want: str | None, primary: list[str], path: str) -> tuple[str, Note | None]:
    """(the evaluation_result_id to read, a note when one was picked among several)."""
    if want is None:
        if len(ids) == 1:
            return ids[0], None
        # the aggregate's primary metric, else the file's first; never a failure, error or frequency count
        ok = [i for i in ids if not is_failure_metric(i)]
        if not ok:
            raise DataError(f"{path}: every result of the file ({', '.join(ids)}) counts failures, errors or a "
                            "frequency, not a score; choose one with `metric` if that is what you mean to rank",
                            param="metric")
        chosen = next((p for p in primary if p in ok), ok[0])
        return chosen, Note("eee_metric_chosen", {"path": path, "results": list(ids), "chosen": chosen})
    if want in ids:
        return want, None
    cands = [i for i in ids if want in i.split(":")]
    if len(cands) == 1:
        return cands[0], None
    if cands:
        raise DataError(f"{path}: `metric`={want!r} matches several results ({', '.join(cands)}); "
                        "give the full evaluation_result_id")
    raise DataError(f"{path}: no metric {want!r}; the file has {', '.join(ids) or 'none'}; choose one with `metric`")


def _slim(rec: dict) -> dict:
    """The fields read (records can hold whole transcripts: keep only these while the file is read)."""
    return {
        "evaluation_name": rec.get("evaluation_name"), "evaluation_result_id": rec.get("evaluation_result_id"),
        "model_id": rec.get("model_id"), "sample_id": rec.get("sample_id"), "error": bool(rec.get("error")),
        "score": rec["evaluation"].get("score"),
        # EEE's content key: "hash of (input.raw + input.reference) to ensure comparison is between the same sample
        # across models" (instance_level_eval.schema.json)
        "sample_hash": rec.get("sample_hash") if isinstance(rec.get("sample_hash"), str) and rec.get("sample_hash")
        else None,
        **({"run": _meta(rec, "run", "epoch"), "condition": _meta(rec, "condition"),
            "group": _meta(rec, "group", "subject")} if rec.get("metadata") else _NO_META),
    }


_NO_META: dict = {"run": None, "condition": None, "group": None}


def _records(path: str) -> Iterator[tuple[int, dict]]:
    lineno = 0
    try:
        for lineno, rec in iter_jsonl(path):
            if not looks_eee(rec):
                have = ", ".join(list(rec)[:8]) if isinstance(rec, dict) else type(rec).__name__
                raise DataError(f"{path}: line {lineno}: not an Every Eval Ever instance record (needs "
                                f"{', '.join(_KEYS)}; found {have})")
            yield lineno, _slim(rec)
    except UnicodeDecodeError:
        raise DataError(f"{path}: line {lineno + 1}: not UTF-8 text; not an Every Eval Ever instance file") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None


def _score(v: Any, path: str, lineno: int) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise DataError(f"{path}: line {lineno}: evaluation.score is {v!r}, not a number")
    return float(v)


def _meta(rec: dict, *keys: str) -> str | None:
    md = rec.get("metadata")
    if not isinstance(md, dict):
        return None
    for k in keys:
        v = md.get(k)
        if v is not None and v != "":
            return str(v)
    return None


def _harness(agg: dict) -> str:
    lib = (agg.get("eval_library") or {}).get("name") if isinstance(agg.get("eval_library"), dict) else None
    return f"eee ({lib})" if lib and lib != "unknown" else "eee"


def read_file(path: str, opts: ReadOptions) -> "Iterator":
    """The rows of one instance file (nothing when ``--task`` matches none of its records)."""
    import pandas as pd

    recs = list(_records(path))
    if not recs:
        raise DataError(f"{path}: no instance records (the file is empty)")
    if opts.task is not None:
        recs = [(n, r) for n, r in recs if _task_matches(r.get("evaluation_name"), opts.task)]
        if not recs:
            return
    ids = list(dict.fromkeys(str(r.get("evaluation_result_id") or NO_METRIC) for _, r in recs))
    agg = _aggregate(path)
    primary = [str(e.get("evaluation_result_id")) for e in agg.get("evaluation_results") or []
               if isinstance(e, dict) and e.get("evaluation_result_id")]
    metric, note = _choose_metric(ids, opts.metric, primary, path)
    notes: list[Note] = [note] if note else []
    rows: dict[str, list] = {k: [] for k in ("line", "model", "item", "score", "task", "run", "condition", "group",
                                             "doc_hash")}
    by_content = opts.item_col == "doc_hash"
    errored: list[str] = []
    for lineno, r in recs:
        if str(r.get("evaluation_result_id") or NO_METRIC) != metric:
            continue
        model, sid = r.get("model_id"), r.get("sample_id")
        if model is None or model == "" or sid is None or sid == "":
            what = "model_id" if model is None or model == "" else "sample_id"
            raise DataError(f"{path}: line {lineno}: the record has no {what}")
        run = r["run"]
        if r["error"]:
            errored.append(f"{sid}" + (f" (run {run})" if run is not None else ""))
            if opts.errors == "drop":
                continue
            score = 0.0
        else:
            score = _score(r["score"], path, lineno)
        rows["line"].append(lineno)
        rows["model"].append(opts.model_name or str(model))
        if by_content and r["sample_hash"] is None:
            raise DataError(f"{path}: line {lineno}: the record has no sample_hash, so `item`='doc_hash' cannot pair "
                            "it by content", param="item")
        rows["item"].append(r["sample_hash"][:16] if by_content else str(sid))
        rows["doc_hash"].append(r["sample_hash"])
        rows["score"].append(score)
        name = r.get("evaluation_name")
        rows["task"].append(opts.task if opts.task is not None else (None if name is None else str(name)))
        rows["run"].append(run)
        rows["condition"].append(r["condition"])
        rows["group"].append(r["group"])
    if errored:
        if opts.errors not in ("wrong", "drop"):
            raise DataError(
                f"{path}: {len(errored)} sample{'' if len(errored) == 1 else 's'} errored ({', '.join(errored[:5])}{' ...' if len(errored) > 5 else ''}); "
                "choose `errors`='wrong' (score them 0) or `errors`='drop' (leave them out)"
            )
        notes.append(Note("samples_errored", {"path": path, "n_samples": len(errored), "errors": opts.errors,
                                              "samples": list(errored[:10])}))   # worded in reporting/
    total = (agg.get("detailed_evaluation_results") or {}).get("total_rows") if agg else None
    n_lines = sum(1 for _ in recs) if opts.task is None else None
    if isinstance(total, int) and n_lines is not None and total != n_lines:
        agg_name = os.path.basename(aggregate_file(path) or "")
        notes.append(Note("eee_aggregate_rows", {"path": path, "aggregate": agg_name, "total_rows": total,
                                                 "n_records": n_lines}))
    df = pd.DataFrame({k: v for k, v in rows.items() if k != "line"}, index=pd.Index(rows["line"], name="line"))
    for c in ("run", "condition", "group", "task", "doc_hash"):
        if df[c].isna().all():
            df = df.drop(columns=[c])
        elif c in ("run", "condition") and df[c].isna().any():
            k = int(df[c].isna().to_numpy().nonzero()[0][0])
            raise DataError(f"{path}: line {df.index[k]}: metadata.{'run or epoch' if c == 'run' else c} is missing "
                            f"here but set on other records")
    df["metric"] = opts.metric if opts.metric is not None else metric
    df.attrs["line_numbers"] = True
    df.attrs["notes"] = notes
    harness = _harness(agg)
    prov = {}
    for model, sub in df.groupby("model", sort=False):
        tasks = sub["task"].dropna().unique() if "task" in sub.columns else []
        prov[str(model)] = {"harness": harness, "task": str(tasks[0]) if len(tasks) == 1 else None, "split": None,
                            "metric": str(df["metric"].iloc[0]), "files": [path]}
    df.attrs["provenance"] = prov
    yield df


@register
class EeeReader:
    """Every Eval Ever instance-level ``*_samples.jsonl`` files (a file or a folder)."""

    name = "eee"
    priority = 30
    description = "Every Eval Ever instance-level files (<uuid>_samples.jsonl, a file or a data/ folder)"
    looks_for = "*_samples.jsonl files (Every Eval Ever instance-level files)"
    content_key = True   # records carry sample_hash: `item`='doc_hash' pairs them by content

    def sniff(self, path: str) -> bool:
        if os.path.isdir(path):
            found = walk_files(path, _is_samples, limit=1)
            return bool(found) and looks_eee(_first_record(found[0]))
        side = _sidecar(path)
        if side is not None:
            path = side
        elif not path.endswith((".jsonl", ".ndjson")):
            return False
        try:
            return looks_eee(_first_record(path))
        except ValueError:  # JSONDecodeError, UnicodeDecodeError: not this format's
            return False

    def units(self, path: str) -> list[str]:
        return walk_files(path, _is_samples)

    def companions(self, unit: str) -> list[str]:
        """The aggregate JSON beside an instance file (or the instance file beside an aggregate)."""
        a = aggregate_file(unit) or _sidecar(unit)
        return [a] if a else []

    def skip(self, unit: str, opts: ReadOptions) -> Skip | None:
        """An instance file none of whose records is of the chosen task."""
        if opts.task is None:
            return None
        names: set[str] = set()
        for _, r in _records(unit):
            name = r.get("evaluation_name")
            if _task_matches(name, opts.task):
                return None
            names.add(str(name))
        return Skip("task", opts.task, tuple(sorted(names)))

    def read(self, unit: str, opts: ReadOptions) -> Iterator:
        # an aggregate ``<uuid>.json`` given by name stands for its ``<uuid>_samples.jsonl``
        path = unit if os.path.isdir(unit) else (_sidecar(unit) or unit)
        n = 0
        for chunk in read_file(path, opts):
            n += len(chunk)
            yield chunk
        if n == 0 and opts.task is not None:    # a file given by name (a folder's were skipped)
            tasks = sorted({str(r.get("evaluation_name")) for _, r in _records(path)})
            raise DataError(f"{unit}: no task {opts.task!r}; available: {', '.join(tasks) or 'none'}")
