"""HELM run output: ``benchmark_output/runs/<suite>/<run>/per_instance_stats.json``.

What is read from where (see ``docs/formats/helm.md``):

* ``per_instance_stats.json``: a list of ``{instance_id, train_trial_index, perturbation?,
  stats: [{name: {name, split, perturbation?}, count, sum, mean, ...}]}``. HELM writes one entry
  per metric class, so one instance can have several entries: they are merged per
  (instance, train trial, perturbation);
* item = ``instance_id``; run = ``train_trial_index``; score = the stat's ``mean``
  (``sum / count`` when ``mean`` is absent);
* split: the one HELM reports, ``test`` (a run with a single other split, e.g. hellaswag's
  ``valid``, reads that one and says so); ``--split`` picks another. Instances of other splits
  are left out and counted in a note;
* default metric ``exact_match``; otherwise ``--metric`` must name a stat (the error lists
  them). Perturbed instances (``perturbation`` set, e.g. robustness/fairness variants) are
  left out and counted in a note;
* model = ``adapter_spec.model`` and task = the run name without its ``model=`` /
  ``model_deployment=`` arguments, both from ``run_spec.json`` beside the file;
  ``--model-name`` overrides the model. In a folder of several runs ``--task`` picks the runs of
  one task (the full task name, or the scenario name before ``:`` when that is unique);
* ``stats.json`` beside the file, when present: HELM's own aggregate of the metric on the
  split; a note says when the per-instance values do not average to it;
* ``scenario_state.json`` beside the file, when present: each instance's input text and references,
  hashed into ``doc_hash``, so two runs whose same instance id holds another question are refused.

HELM writes no version number into these files, so no version check is possible.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from typing import Any, Iterator

from ...errors import DataError, FormatError
from ...results import Note
from ._registry import ReadOptions, Skip, register
from ._util import RowBuffer, content_hash, load_json, walk_files

DEFAULT_METRIC = "exact_match"
DEFAULT_SPLIT = "test"  # the split HELM's leaderboards report
_NAME = "per_instance_stats.json"


def files(path: str) -> list[str]:
    """The ``per_instance_stats.json`` files under the folder ``path``; one run in two suites is an error."""
    units = walk_files(path, lambda f: f == _NAME)
    runs: dict[str, str] = {}
    for u in units:
        run = os.path.basename(os.path.dirname(os.path.abspath(u)))
        if run in runs:
            raise DataError(
                f"{path}: run {run!r} is there twice ({os.path.dirname(runs[run])} and {os.path.dirname(u)}); "
                "point at one suite folder (benchmark_output/runs/<suite>)"
            )
        runs[run] = u
    return units


def _run_spec(path: str) -> dict:
    r = os.path.join(os.path.dirname(path), "run_spec.json")
    if not os.path.exists(r):
        return {}
    spec = load_json(r)
    return spec if isinstance(spec, dict) else {}


def _task_from_name(name: str) -> str:
    head, _, args = name.partition(":")
    keep = [a for a in args.split(",") if a and not a.startswith(("model=", "model_deployment="))]
    return head + (":" + ",".join(keep) if keep else "")


def _task_of(path: str, spec: dict) -> str:
    return _task_from_name(spec["name"]) if spec.get("name") else "helm"


def _stat_key(stat: dict) -> tuple[str | None, str | None, bool]:
    """(name, split, perturbed) of one stat."""
    n = stat.get("name")
    if isinstance(n, dict):
        split = n.get("split")
        return n.get("name"), (str(split) if split is not None else None), bool(n.get("perturbation"))
    return (str(n) if n is not None else None), None, False


def _value(stat: dict) -> float | None:
    v = stat.get("mean")
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    s, c = stat.get("sum"), stat.get("count")
    if isinstance(s, (int, float)) and isinstance(c, (int, float)) and c:
        return float(s) / float(c)
    return None


def _merge(entries: list, u: str) -> tuple[list[dict], int]:
    """Entries merged per (instance, train trial, perturbation); returns (unperturbed, n perturbed).

    Each merged entry: ``{"id", "trial", "entry" (1-based number of its first entry), "stats":
    {(name, split): stat}}``.
    """
    merged: dict[tuple, dict] = {}
    perturbed: set[tuple] = set()
    for k, e in enumerate(entries, 1):
        if not isinstance(e, dict) or "instance_id" not in e or not isinstance(e.get("stats"), list):
            raise FormatError(f"{u}: entry {k} has no instance_id/stats; not a HELM per_instance_stats file")
        iid, trial = str(e["instance_id"]), str(e.get("train_trial_index", 0))
        pert = e.get("perturbation")
        key = (iid, trial, json.dumps(pert, sort_keys=True) if pert else None)
        if pert:
            perturbed.add(key)
            continue
        slot = merged.setdefault(key, {"id": iid, "trial": trial, "entry": k, "stats": {}})
        for st in e["stats"]:
            if not isinstance(st, dict):
                continue
            nm, split, pert_stat = _stat_key(st)
            if pert_stat or nm is None:
                continue
            prev = slot["stats"].get((nm, split))
            if prev is not None and _value(prev) != _value(st):
                raise DataError(
                    f"{u}: entry {k} (instance {iid}): stat {nm!r} ({split}) is {_value(st)} but an earlier entry of "
                    f"the same instance says {_value(prev)}; the file is inconsistent"
                )
            slot["stats"][(nm, split)] = st
    return list(merged.values()), len(perturbed)


def _choose_split(slots: list[dict], want: str | None, u: str) -> tuple[str | None, Note | None]:
    """(split to read, note) for a file whose instances carry ``slots``' splits."""
    splits = Counter(next(iter({sp for (_, sp) in s["stats"]}), None) for s in slots if s["stats"])
    named = sorted(sp for sp in splits if sp is not None)
    if want is not None:
        if want not in splits:
            raise DataError(f"{u}: no instances of split {want!r}; the file has {', '.join(named) or 'no split names'}")
        return want, None
    if not named:
        return None, None  # no split names at all: nothing to choose
    if DEFAULT_SPLIT in splits:
        return DEFAULT_SPLIT, None
    if len(named) == 1:
        return named[0], Note("helm_split_chosen", {"path": u, "default": DEFAULT_SPLIT, "split": named[0],
                                                    "n_instances": splits[named[0]]})   # worded in reporting/
    raise DataError(f"{u}: the run has no {DEFAULT_SPLIT} split but {', '.join(named)}; pick one with `split`='NAME'")


def _check_aggregate(u: str, metric: str, split: str | None, values: list[float], n_instances: int) -> list[Note]:
    """Notes when HELM's stats.json beside ``u`` gives another mean for ``metric`` on ``split``, or another
    instance count (its ``num_instances`` stat) than the per-instance file holds (a trimmed file): the records
    ``helm_instances`` (``path``, ``split``, ``file``, ``reported``, ``n_instances``) and ``helm_mean`` (``path``,
    ``metric``, ``split``, ``reported``, ``mean``, ``n_values``), worded by ``ranktrust.reporting.note_text``
    (numbers are worded in reporting/)."""
    p = os.path.join(os.path.dirname(u), "stats.json")
    if not values or not os.path.exists(p):
        return []
    stats = load_json(p)
    notes = []
    for st in stats if isinstance(stats, list) else []:
        if not isinstance(st, dict):
            continue
        nm, sp, pert = _stat_key(st)
        if sp != split or pert:
            continue
        if nm == "num_instances":
            want_n = _value(st)
            if want_n is not None and want_n == int(want_n) and int(want_n) != n_instances:
                notes.insert(0, Note("helm_instances", {"path": p, "split": split, "file": os.path.basename(u),
                                                        "reported": int(want_n), "n_instances": n_instances}))
        if nm == metric:
            want = _value(st)
            got = math.fsum(values) / len(values)
            if want is not None and not math.isclose(want, got, rel_tol=1e-9, abs_tol=1e-9):
                notes.append(Note("helm_mean", {"path": p, "metric": metric, "split": split, "reported": want,
                                                "mean": got, "n_values": len(values)}))
    return notes


def _matches(task: str, chosen: str) -> bool:
    return chosen in (task, task.partition(":")[0])


def _subject(task: str) -> str | None:
    """The ``subject=`` argument of a HELM task name (``mmlu:subject=philosophy,method=...`` -> ``philosophy``)."""
    for a in task.partition(":")[2].split(","):
        if a.startswith("subject="):
            return a[len("subject="):]
    return None


def _without_subject(task: str) -> str:
    head, _, args = task.partition(":")
    return head + ":" + ",".join(a for a in args.split(",") if a and not a.startswith("subject="))


def poolable(tasks: list[str]) -> bool:
    """Runs of one benchmark stored one per subject (HELM's MMLU: ``mmlu:subject=<s>,...``): the tasks differ
    only in their ``subject=`` argument, so ``task``='mmlu' reads them as one leaderboard."""
    return len(tasks) > 1 and all(_subject(t) is not None for t in tasks) and len(
        {_without_subject(t) for t in tasks}) == 1


def subject_note(chunks: list, task: str, harness: str) -> Note | None:
    """One note on a pooled read: how many subjects each model has (shared with the lm-eval reader): the record
    ``pooled_subjects`` (``task``, ``harness`` 'helm' or 'lm_eval', ``n_subjects``, ``per_model`` [[model, n]])."""
    per_model: dict[str, set[str]] = {}
    for df in chunks:
        if len(df) and "group" in df.columns:
            for model, sub in df.groupby("model", sort=False)["group"]:
                per_model.setdefault(str(model), set()).update(map(str, sub.unique()))
    if not per_model:
        return None
    total = len(set().union(*per_model.values()))
    return Note("pooled_subjects", {"task": task, "harness": harness, "n_subjects": total,
                                    "per_model": [[m, len(v)] for m, v in per_model.items()]})   # reporting/ words it


@register
class HelmReader:
    """HELM per_instance_stats.json files (a file or a benchmark_output folder).

    One object per read: the tasks of the folder's runs, found by ``units``, let ``skip`` refuse a
    ``task`` that matches several of them and ``read`` name them when a metric is missing.
    """

    name = "helm"
    priority = 20
    description = "HELM per_instance_stats.json (+ run_spec.json)"
    looks_for = "per_instance_stats.json files"
    content_key = True   # scenario_state.json carries the instances: `item`='doc_hash' pairs them by content

    def __init__(self) -> None:
        self._root = ""
        self._tasks: dict[str, str] = {}
        self._pool = False   # --task names a benchmark stored one run per subject: pool the subjects

    def sniff(self, path: str) -> bool:
        if os.path.isdir(path):
            return bool(walk_files(path, lambda f: f == _NAME, limit=1))
        return os.path.basename(path) == _NAME

    def units(self, path: str) -> list[str]:
        units = files(path)
        self._root = path
        self._tasks = {u: _task_of(u, _run_spec(u)) for u in units}
        return units

    def companions(self, unit: str) -> list[str]:
        d = os.path.dirname(unit)
        return [p for p in (os.path.join(d, "run_spec.json"), os.path.join(d, "stats.json")) if os.path.exists(p)]

    def skip(self, unit: str, opts: ReadOptions) -> Skip | None:
        """A run of another task (``task`` matches a full task name or the part before ``:``)."""
        if opts.task is None:
            return None
        matched = sorted({t for t in self._tasks.values() if _matches(t, opts.task)})
        self._pool = poolable(matched) and opts.task not in matched
        if len(matched) > 1 and not self._pool:
            raise DataError(f"{self._root}: `task`={opts.task!r} matches {len(matched)} tasks "
                            f"({', '.join(matched)}); give the full task name", param="task")
        task = self._tasks.get(unit) or _task_of(unit, _run_spec(unit))
        return None if _matches(task, opts.task) else Skip("task", opts.task, (task,))

    def read(self, unit: str, opts: ReadOptions) -> Iterator:
        spec = _run_spec(unit)
        task = _task_of(unit, spec)
        kept = [t for t in self._tasks.values() if opts.task is None or _matches(t, opts.task)]
        yield from _read_one(unit, opts, spec, task, sorted(set(kept)) or [task], self._pool)

    def combine(self, chunks: list) -> list:  # noqa: ANN001
        """A pooled read (``task``='mmlu' over per-subject runs): a note with each model's subject count."""
        if self._pool and chunks:
            note = subject_note(chunks, str(chunks[0]["task"].iloc[0]) if len(chunks[0]) else "", "helm")
            if note:
                chunks[-1].attrs["notes"] = list(chunks[-1].attrs.get("notes", ())) + [note]
        return chunks


_STATE_MAX_BYTES = 256 << 20   # scenario_state.json holds every request and completion: larger ones are not read


def _content_keys(u: str) -> dict[str, str]:
    """Instance id -> content key (SHA-256 of the input text and the references' texts and tags) from the
    ``scenario_state.json`` beside ``u``; empty when there is none. Unperturbed instances only."""
    p = os.path.join(os.path.dirname(u), "scenario_state.json")
    if not os.path.exists(p) or os.path.getsize(p) > _STATE_MAX_BYTES:   # a huge one is not parsed for the check
        return {}
    try:
        state = load_json(p)
    except DataError:
        return {}
    out: dict[str, str] = {}
    for rs in (state.get("request_states") or []) if isinstance(state, dict) else []:
        inst = rs.get("instance") if isinstance(rs, dict) else None
        if not isinstance(inst, dict) or inst.get("perturbation") or inst.get("id") is None:
            continue
        text = (inst.get("input") or {}).get("text") if isinstance(inst.get("input"), dict) else inst.get("input")
        refs = [[(r.get("output") or {}).get("text"), sorted(r.get("tags") or [])]
                for r in inst.get("references") or [] if isinstance(r, dict)]
        out.setdefault(str(inst["id"]), content_hash(text, refs))
    return out


def _read_one(u: str, opts: ReadOptions, spec: dict, run_task: str, all_tasks: list[str],
              pool: bool = False) -> Iterator:
    """Rows of one per_instance_stats.json file (``pool``: one subject of a pooled benchmark)."""
    import pandas as pd

    entries: Any = load_json(u)
    if not isinstance(entries, list):
        raise FormatError(f"{u}: expected a list of per-instance stats, got {type(entries).__name__}")
    model = opts.model_name or (spec.get("adapter_spec") or {}).get("model")
    if not model:
        raise DataError(f"{u}: no model name (no run_spec.json with adapter_spec.model beside it); pass `model_name`='NAME'")
    task = opts.task or run_task
    subject = _subject(run_task) if pool else None
    metric = opts.metric or DEFAULT_METRIC
    slots, perturbed = _merge(entries, u)
    if not slots and not perturbed:
        raise DataError(f"{u}: the file holds no instances")
    split, split_note = _choose_split(slots, opts.split, u)
    buf = RowBuffer(("item", "run", "score"))
    other = Counter()
    for s in slots:
        splits = {sp for (_, sp) in s["stats"]}
        if split is not None and split not in splits:
            other[next(iter(splits), None)] += 1
            continue
        hit = s["stats"].get((metric, split))
        if hit is None:
            names = sorted({str(nm) for (nm, sp) in s["stats"] if sp == split})
            more = (f"; the folder holds {len(all_tasks)} tasks ({', '.join(all_tasks)}): pick one with `task`, "
                    "then its metric with `metric`") if len(all_tasks) > 1 and opts.task is None else \
                "; choose one with `metric`"
            raise DataError(
                f"{u}: entry {s['entry']} (instance {s['id']}): no stat {metric!r}"
                f"{f' in split {split}' if split else ''}; it has {', '.join(names[:30])}{more}", param="metric"
            )
        val = _value(hit)
        if val is None:
            raise DataError(f"{u}: entry {s['entry']} (instance {s['id']}): stat {metric!r} has no mean")
        buf.add(s["id"], s["trial"], val)
    notes: list[Note] = [split_note] if split_note else []
    if other:   # [split, count] of each split left out, worded in reporting/
        left = [[None if sp is None else str(sp), n] for sp, n in sorted(other.items(), key=lambda kv: str(kv[0]))]
        notes.append(Note("helm_other_splits", {"path": u, "split": split, "left_out": left}))
    if perturbed:
        notes.append(Note("helm_perturbed", {"path": u, "n_perturbed": perturbed}))   # worded in reporting/
    values = list(buf.cols["score"])
    notes += _check_aggregate(u, metric, split, values, len(set(buf.cols["item"])))
    df = buf.flush(model=model, task=task, metric=metric)
    if df is None:
        df = pd.DataFrame({c: [] for c in ("item", "run", "score", "model", "task", "metric")})
    keys = _content_keys(u)
    if opts.item_col == "doc_hash" and not keys:
        raise DataError(f"{u}: no scenario_state.json beside it (HELM's instances with their input), so `item`='doc_hash' "
                        "cannot pair its instances by content", param="item")
    if keys and len(df):   # the question of each instance (scenario_state.json), so two runs' "same" id is checked
        df["doc_hash"] = df["item"].astype(str).map(keys)
        if opts.item_col == "doc_hash":   # the question is the item (two dataset versions paired by content)
            if df["doc_hash"].isna().any():
                raise DataError(f"{u}: instance {df.loc[df['doc_hash'].isna(), 'item'].iloc[0]} is not in "
                                "scenario_state.json, so `item`='doc_hash' cannot pair it by content", param="item")
            df["item"] = df["doc_hash"].str[:16]
        elif df["doc_hash"].isna().all():
            df = df.drop(columns=["doc_hash"])
    if subject is not None:   # pooled: ids are unique within a run only, so the subject prefixes them
        df["item"] = subject + "/" + df["item"].astype(str)
        df["group"] = subject
    df.attrs["line_numbers"] = False
    df.attrs["notes"] = notes
    df.attrs["provenance"] = {model: {"harness": "helm", "task": task if subject is not None else run_task,
                                      "split": split, "metric": metric, "files": [u]}}
    return iter([df])
