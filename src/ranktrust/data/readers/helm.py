"""HELM run output: ``benchmark_output/runs/<suite>/<run>/per_instance_stats.json``.

What is read from where (see ``docs/formats/helm.md``):

* ``per_instance_stats.json``: a list of ``{instance_id, train_trial_index, perturbation?,
  stats: [{name: {name, split, perturbation?}, count, sum, mean, ...}]}``;
* item = ``instance_id``; run = ``train_trial_index``; score = the stat's ``mean``
  (``sum / count`` when ``mean`` is absent);
* default metric ``exact_match``; otherwise ``--metric`` must name a stat (the error lists
  them). Perturbed instances (``perturbation`` set, e.g. robustness/fairness variants) are
  left out and counted in a note;
* model = ``adapter_spec.model`` and task = the run name without its ``model=`` /
  ``model_deployment=`` arguments, both from ``run_spec.json`` beside the file;
  ``--model-name`` / ``--task`` override.

HELM writes no version number into these files, so no version check is possible.
"""

from __future__ import annotations

import os
from typing import Any, Iterator

from ...errors import DataError, FormatError
from ._registry import ReadOptions, load_json, read_units, reader
from .lm_eval import RowBuffer, walk_files

DEFAULT_METRIC = "exact_match"
_NAME = "per_instance_stats.json"


def files(path: str) -> list[str]:
    if os.path.isdir(path):
        return walk_files(path, lambda f: f == _NAME)
    return [path]


def companions(path: str) -> list[str]:
    r = os.path.join(os.path.dirname(path), "run_spec.json")
    return [r] if os.path.exists(r) else []


def _sniff(path: str) -> bool:
    if os.path.isdir(path):
        return bool(walk_files(path, lambda f: f == _NAME, max_depth=4))
    return os.path.basename(path) == _NAME


def _run_spec(path: str) -> dict:
    r = os.path.join(os.path.dirname(path), "run_spec.json")
    if not os.path.exists(r):
        return {}
    return load_json(r)


def _task_from_name(name: str) -> str:
    head, _, args = name.partition(":")
    keep = [a for a in args.split(",") if a and not a.startswith(("model=", "model_deployment="))]
    return head + (":" + ",".join(keep) if keep else "")


def _stat_name(stat: dict) -> tuple[str | None, bool]:
    n = stat.get("name")
    if isinstance(n, dict):
        return n.get("name"), bool(n.get("perturbation"))
    return (str(n) if n is not None else None), False


def _value(stat: dict) -> float | None:
    v = stat.get("mean")
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    s, c = stat.get("sum"), stat.get("count")
    if isinstance(s, (int, float)) and isinstance(c, (int, float)) and c:
        return float(s) / float(c)
    return None


@reader("helm", sniff=_sniff, priority=20, description="HELM per_instance_stats.json (+ run_spec.json)")
def read_helm(path: str, opts: ReadOptions) -> Iterator:
    """HELM per_instance_stats.json files (a file or a benchmark_output folder)."""
    units = files(path)
    if not units:
        raise DataError(f"{path}: no per_instance_stats.json files found")
    # several files: each row says its file, so duplicate-row errors can name both files
    yield from read_units(units, _read_one, opts)


def _read_one(u: str, opts: ReadOptions) -> Iterator:
    """Rows of one per_instance_stats.json file."""
    entries: Any = load_json(u)
    if not isinstance(entries, list):
        raise FormatError(f"{u}: expected a list of per-instance stats, got {type(entries).__name__}")
    spec = _run_spec(u)
    model = opts.model_name or (spec.get("adapter_spec") or {}).get("model")
    if not model:
        raise DataError(f"{u}: no model name (no run_spec.json with adapter_spec.model beside it); pass --model-name NAME")
    task = opts.task or (_task_from_name(spec["name"]) if spec.get("name") else "helm")
    metric = opts.metric or DEFAULT_METRIC
    buf = RowBuffer(("item", "run", "score"))
    perturbed = 0
    for k, e in enumerate(entries, 1):
        if not isinstance(e, dict) or "instance_id" not in e or "stats" not in e:
            raise FormatError(f"{u}: entry {k} has no instance_id/stats; not a HELM per_instance_stats file")
        if e.get("perturbation"):
            perturbed += 1
            continue
        hit = None
        names = []
        for st in e["stats"]:
            nm, pert = _stat_name(st)
            if pert:
                continue
            names.append(nm)
            if nm == metric:
                hit = st
                break
        if hit is None:
            raise DataError(
                f"{u}: entry {k} (instance {e['instance_id']}): no stat {metric!r}; it has "
                f"{', '.join(sorted(set(map(str, names)))[:30])}; choose one with --metric"
            )
        val = _value(hit)
        if val is None:
            raise DataError(f"{u}: entry {k} (instance {e['instance_id']}): stat {metric!r} has no mean")
        buf.add(str(e["instance_id"]), str(e.get("train_trial_index", 0)), val)
        if buf.full():
            df = buf.flush(model=model, task=task, metric=metric)
            df.attrs["line_numbers"] = False
            yield df
    notes = [f"{u}: {perturbed} perturbed instances were left out (only unperturbed ones are read)"] if perturbed else []
    df = buf.flush(model=model, task=task, metric=metric)
    if df is None:
        if not perturbed:
            raise DataError(f"{u}: the file holds no instances")
        import pandas as pd

        df = pd.DataFrame({c: [] for c in ("item", "run", "score", "model", "task", "metric")})
    df.attrs["line_numbers"] = False
    df.attrs["notes"] = notes
    yield df
