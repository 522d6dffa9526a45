"""SWE-bench results: run reports, resolved-id lists and per-instance ``report.json`` folders.

Layouts read (see ``docs/formats/swebench.md``):

1. the harness run report ``<model>.<run_id>.json`` written by ``swebench.harness.run_evaluation``:
   ``resolved_ids`` plus the instance list ``submitted_ids`` (else ``completed_ids`` with the
   ``unresolved_ids``/``error_ids``/``empty_patch_ids`` lists). ``error_ids`` follow ``--errors``;
2. an experiments-style ``results/results.json``: ``{"resolved": [...], "no_generation": [...], ...}``.
   Its lists are the instance list only when together they are exactly the instances of a bundled
   dataset (Lite, Verified, full); otherwise the instance list comes from a task list beside the run
   (``all_preds.jsonl``, ``preds.json``) or from ``--dataset``, and without either the file is refused;
3. a run summary ``{"instances": [{"instance_id", "resolved"}, ...], "total"?}`` (e.g.
   ``results_summary.json``), a list of ``{"instance_id", "resolved"}``, or a dict
   ``{instance_id: {"resolved": bool}}`` of several instances;
4. per-instance ``report.json`` files, keyed (``{instance_id: {"resolved": ...}}``, the harness's
   ``logs/run_evaluation/<run_id>/<model>/<instance>/``) or not (``{"resolved": ...}``, the
   experiments bucket's ``<run>/logs/<instance>/``; the instance is the folder name). Beside a run
   report of the same model they are only checked against it (the run report lists every
   instance; reports exist only for instances whose evaluation finished). Alone they are read
   with a note saying that instances without a report are missing, and how many when a run
   report, a task list or ``--dataset`` tells.

``--dataset lite|verified|full`` makes the bundled instance list of that dataset the
denominator: every instance a file does not list as resolved scores 0 (SWE-bench's own rate).
The denominator is never guessed from the ids a file happens to list.

item = instance id; group = the repository (``django__django-11099`` -> ``django/django``); task
= ``--task`` or ``swebench``; metric ``resolved``; model = ``--model-name``, else
``model_name_or_path`` in the file, else that of the predictions beside a ``results/results.json``
(``all_preds.jsonl``, when they all name one model), else from the path (``<model>.<run_id>.json``; the run folder
``<date>_<model>`` of ``results/results.json``, ``results_summary.json`` and
``logs/<instance>/report.json``; the ``<model>`` folder of ``<model>/<instance>/report.json``).
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from ...errors import DataError, FormatError
from ...results import Note
from ..._text import SWEBENCH_ERRORED_HOW
from ._registry import ReadOptions, register
from ._util import iter_jsonl, load_json, n_of, walk_files

DATASETS = {"lite": ("lite.txt", "SWE-bench Lite", 300), "verified": ("verified.txt", "SWE-bench Verified", 500),
            "full": ("full.txt", "SWE-bench (full test split)", 2294)}


def _are(n: int) -> str:
    return "is" if n == 1 else "are"


TASK_LISTS = ("all_preds.jsonl", "preds.json")  # files beside a run that list the instances it was given
_INSTANCE_RE = re.compile(r"^(.+?)__(.+)-\d+$")
_KEY_RE = re.compile(rb'"resolved(?:_ids)?"\s*:')
_DATE_RE = re.compile(r"^\d{8}_(.+)$")


def _whole_dataset(ids: Any) -> str | None:
    """The bundled dataset whose instances are exactly ``ids`` (None when none is)."""
    for name, (_, _, n) in DATASETS.items():
        if len(ids) == n:
            try:
                if set(dataset_ids(name)) == set(ids):
                    return name
            except DataError:
                continue
    return None


def dataset_ids(name: str) -> list[str]:
    """The bundled instance ids of a SWE-bench dataset (``lite``, ``verified`` or ``full``)."""
    return list(_dataset_ids(name))


@functools.lru_cache(maxsize=None)
def _dataset_ids(name: str) -> tuple[str, ...]:
    from importlib import resources

    if name not in DATASETS:
        raise DataError(f"unknown SWE-bench dataset {name!r}; choose lite, verified or full")
    fname, label, _ = DATASETS[name]
    try:
        text = resources.files("ranktrust.datasets").joinpath("swebench", fname).read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        raise DataError(f"the instance list of {label} is not bundled with this install; "
                        "score against the run's own report instead") from None
    return tuple(ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#"))


# --------------------------------------------------------------------- finding files
def _head(path: str, n: int = 65_536) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(n)
    except OSError:
        return b""


def _is_instance_report(path: str) -> bool:
    return os.path.basename(path) == "report.json" and bool(
        _INSTANCE_RE.match(os.path.basename(os.path.dirname(os.path.abspath(path)))))


def _looks(path: str) -> bool:
    if not path.endswith(".json") or os.path.basename(path) in TASK_LISTS:
        return False
    h = _head(path)
    if not h.strip():
        return _is_instance_report(path)  # an empty report.json: an instance whose evaluation errored
    if not h.lstrip().startswith((b"{", b"[")):
        return False
    if b'"eval"' in h[:4096] and b'"status"' in h[:4096]:
        return False  # an inspect log
    return bool(_KEY_RE.search(h))


def _json_files(path: str, limit: int | None = None) -> list[str]:
    return walk_files(path, lambda f: f.endswith(".json") and f not in TASK_LISTS, limit=limit)


def _repo(instance_id: str) -> str:
    m = _INSTANCE_RE.match(instance_id)
    return f"{m.group(1)}/{m.group(2)}" if m else ""


def _undate(name: str) -> str:
    m = _DATE_RE.match(name)
    return m.group(1) if m else name


def _model_from_path(path: str) -> str | None:
    """The model a results file belongs to, from its path (None when the path does not say)."""
    ap = os.path.abspath(path)
    base, parent = os.path.basename(ap), os.path.dirname(ap)
    if _is_instance_report(ap):
        above = os.path.dirname(parent)  # the folder holding the instance folders
        if os.path.basename(above) == "logs":  # <run>/logs/<instance>/report.json
            return _undate(os.path.basename(os.path.dirname(above))) or None
        return os.path.basename(above) or None  # .../<model>/<instance>/report.json
    if base == "results.json" and os.path.basename(parent) == "results":
        return _undate(os.path.basename(os.path.dirname(parent)))
    if base == "results_summary.json":
        return _undate(os.path.basename(parent))
    stem = base[: -len(".json")]
    if "." in stem:  # the harness report <model>.<run_id>.json
        return stem[: stem.rfind(".")]
    return None


def _as_given(path: str, like: str) -> str:
    """``path`` (absolute) written the way the user wrote ``like``: relative to the working folder when ``like`` was."""
    return path if os.path.isabs(like) else os.path.relpath(path)


def _model_of_run(path: str) -> str | None:
    """The model of a results file that names none: ``model_name_or_path`` of the predictions beside the run
    (``all_preds.jsonl``), else the path."""
    if os.path.basename(path) == "results.json":
        try:
            tl = _task_list(_run_folder(path))
        except DataError:
            tl = None   # an unreadable task list is reported where it is read for the instances
        if tl is not None and tl[2]:
            return tl[2]
    return _model_from_path(path)


def _run_folder(path: str) -> str:
    """The folder of the run a file belongs to (where a task list would be), relative when ``path`` is."""
    ap = os.path.abspath(path)
    if _is_instance_report(ap):
        above = os.path.dirname(os.path.dirname(ap))
        return _as_given(os.path.dirname(above) if os.path.basename(above) == "logs" else above, path)
    d = os.path.dirname(ap)
    return _as_given(os.path.dirname(d) if os.path.basename(d) == "results" else d, path)


def _run_report_of(report_json: str) -> str | None:
    """The run-level file of the run a per-instance ``report.json`` belongs to, if it exists.

    ``<run>/results_summary.json`` or ``<run>/results/results.json`` for ``<run>/logs/<instance>/``;
    the harness's ``<model>.<run_id>.json`` beside ``logs/`` for
    ``logs/run_evaluation/<run_id>/<model>/<instance>/``.
    """
    run_dir = _run_folder(report_json)
    cands = [os.path.join(run_dir, "results_summary.json"), os.path.join(run_dir, "results", "results.json")]
    model_dir = os.path.dirname(os.path.dirname(os.path.abspath(report_json)))
    run_id_dir = os.path.dirname(model_dir)
    if os.path.basename(os.path.dirname(run_id_dir)) == "run_evaluation":
        root = os.path.dirname(os.path.dirname(os.path.dirname(run_id_dir)))
        cands.append(os.path.join(root, f"{os.path.basename(model_dir)}.{os.path.basename(run_id_dir)}.json"))
    return next((c for c in cands if os.path.exists(c)), None)


def _task_list(folder: str) -> tuple[list[str], str, str | None] | None:
    """(instance ids, file, the model it names) from a predictions file in ``folder``, if there is one.

    The model is the predictions' ``model_name_or_path`` when every prediction names the same one.
    """
    for name in TASK_LISTS:
        p = os.path.join(folder, name)
        if not os.path.exists(p):
            continue
        models: set[str] = set()
        if name.endswith(".jsonl"):
            ids = []
            for k, rec in iter_jsonl(p, hint="the task list is unreadable"):
                if not isinstance(rec, dict) or "instance_id" not in rec:
                    raise DataError(f"{p}: line {k} has no instance_id; the task list is unreadable")
                ids.append(str(rec["instance_id"]))
                models.add(str(rec.get("model_name_or_path") or ""))
        else:
            obj = load_json(p)
            recs = list(obj.values()) if isinstance(obj, dict) else list(obj)
            ids = [str(k) for k in obj] if isinstance(obj, dict) else [
                str(v["instance_id"]) for v in obj if isinstance(v, dict) and "instance_id" in v]
            models = {str(v.get("model_name_or_path") or "") for v in recs if isinstance(v, dict)}
        model = next(iter(models)) if len(models) == 1 and "" not in models else None
        return list(dict.fromkeys(ids)), p, model
    return None


# --------------------------------------------------------------------- parsing one file
@dataclass
class Parsed:
    """What one results file says."""

    path: str
    kind: str  # "run" (a run-level file) or "instance" (one per-instance report.json)
    scores: dict[str, float | None]  # instance -> 1/0, None = errored in the harness
    universe_known: bool = True  # the file lists every instance of the run
    lists: tuple[str, ...] = ()  # the id lists a partial results file has
    total: int | None = None  # the run's total instance count, when the file says
    model: str | None = None
    notes: list[Note] = field(default_factory=list)


def _resolved_flag(v: Any, path: str, iid: str) -> float:
    r = v.get("resolved")
    if not isinstance(r, (bool, int)) or r not in (0, 1):
        raise DataError(f"{path}: instance {iid}: 'resolved' is {r!r}, expected true or false")
    return float(r)


def parse(obj: Any, path: str) -> Parsed:
    """What a loaded SWE-bench results object says (FormatError when it is not one)."""
    model = obj.get("model_name_or_path") or obj.get("model_name") if isinstance(obj, dict) else None
    model = model if isinstance(model, str) else None
    if isinstance(obj, dict) and "resolved_ids" in obj:  # the harness run report
        resolved = set(map(str, obj["resolved_ids"]))
        errored = set(map(str, obj.get("error_ids") or []))
        if obj.get("submitted_ids") is not None:
            universe = [str(i) for i in obj["submitted_ids"]]
        else:
            universe = [str(i) for k in ("completed_ids", "empty_patch_ids", "error_ids", "unresolved_ids",
                                         "resolved_ids") for i in obj.get(k) or []]
        universe = list(dict.fromkeys(universe))
        notes: list[Note] = []
        covered = {str(i) for k in ("completed_ids", "empty_patch_ids", "error_ids") for i in obj.get(k) or []}
        outside = [i for i in universe if i not in covered]
        if "completed_ids" in obj and covered and outside:
            # predictions for instances outside the run's dataset (run with --instance_ids, another split):
            # the harness never evaluated them, so they are not the run's instances
            universe = [i for i in universe if i in covered]
            notes.append(Note("swebench_not_evaluated", {"path": path, "n_left_out": len(outside),
                                                         "n_submitted": len(outside) + len(universe),
                                                         "run_total": obj.get("total_instances", len(universe))}))
        known = bool(set(universe) - resolved) or any(obj.get(k) for k in ("submitted_ids", "completed_ids",
                                                                           "unresolved_ids", "error_ids"))
        missing = resolved - set(universe)
        if missing:
            raise DataError(f"{path}: {n_of(len(missing), 'resolved id')} {_are(len(missing))} not in submitted_ids "
                            f"(e.g. {sorted(missing)[0]}); "
                            "the report is inconsistent")
        scores = {i: (1.0 if i in resolved else None if i in errored else 0.0) for i in universe}
        total = obj.get("total_instances") if isinstance(obj.get("total_instances"), int) else None
        lists = tuple(k for k in obj if k.endswith("_ids") and obj[k])
        return Parsed(path, "run", scores, known, lists, total, model, notes)
    if isinstance(obj, dict) and isinstance(obj.get("resolved"), list):  # experiments results.json
        lists = {k: v for k, v in obj.items() if isinstance(v, list)}
        resolved = set(map(str, lists["resolved"]))
        universe = list(dict.fromkeys(str(i) for v in lists.values() for i in v))
        scores = {i: (1.0 if i in resolved else 0.0) for i in universe}
        known = _whole_dataset(scores) is not None  # the lists cover exactly one dataset's instances
        return Parsed(path, "run", scores, known, tuple(lists), None, model)
    if isinstance(obj, dict) and isinstance(obj.get("instances"), list) and obj["instances"] and all(
            isinstance(v, dict) and "instance_id" in v for v in obj["instances"]):  # a run summary
        scores = {}
        for v in obj["instances"]:
            iid = str(v["instance_id"])
            if "resolved" not in v:
                raise DataError(f"{path}: instance {iid} has no 'resolved' field; it has {', '.join(map(str, v))}")
            scores[iid] = _resolved_flag(v, path, iid)
        total = obj.get("total") if isinstance(obj.get("total"), int) else None
        p = Parsed(path, "run", scores, True, (), total, model)
        if total is not None and total != len(scores):
            p.notes.append(Note("swebench_total", {"path": path, "total": total, "n_listed": len(scores)}))
        passed = obj.get("passed")
        if isinstance(passed, int) and not isinstance(passed, bool) and passed != sum(scores.values()):
            p.notes.append(Note("swebench_passed", {"path": path, "passed": passed,
                                                    "n_resolved": int(sum(scores.values()))}))
        return p
    if isinstance(obj, dict) and isinstance(obj.get("resolved"), (bool, int)) and _is_instance_report(path):
        iid = os.path.basename(os.path.dirname(os.path.abspath(path)))  # unkeyed report.json: the folder names it
        return Parsed(path, "instance", {iid: _resolved_flag(obj, path, iid)}, model=model)
    entries: list[tuple[str, Any]]
    if isinstance(obj, dict) and obj and all(isinstance(v, dict) for v in obj.values()) and all(
            _INSTANCE_RE.match(str(k)) for k in obj):  # not resolved_by_repo.json / resolved_by_time.json
        entries = [(str(k), v) for k, v in obj.items()]
    elif isinstance(obj, list) and obj and all(isinstance(v, dict) and "instance_id" in v for v in obj):
        entries = [(str(v["instance_id"]), v) for v in obj]
    else:
        entries = []
    if not entries or not any("resolved" in v for _, v in entries):
        raise FormatError(
            f"{path}: not a SWE-bench results file; expected resolved_ids + submitted_ids, a 'resolved' list "
            "beside other lists, {\"instances\": [...]}, or {instance_id: {\"resolved\": bool}}"
        )
    scores = {}
    for iid, v in entries:
        if "resolved" not in v:
            raise DataError(f"{path}: instance {iid} has no 'resolved' field; it has {', '.join(map(str, v))}")
        scores[iid] = _resolved_flag(v, path, iid)
    kind = "instance" if len(entries) == 1 and _is_instance_report(path) else "run"
    return Parsed(path, kind, scores, True, (), None, model)


def _load(path: str) -> Parsed:
    if _is_instance_report(path) and not _head(path).strip():  # the harness: an empty report = an error
        return Parsed(path, "instance", {os.path.basename(os.path.dirname(os.path.abspath(path))): None})
    return parse(load_json(path), path)


# --------------------------------------------------------------------- planning a folder
@dataclass
class Unit:
    """One model's run: a run-level file, or the per-instance reports of one model."""

    model: str | None
    parts: list[Parsed]
    run: Parsed | None = None  # the run-level file, when there is one


def plan(path: str) -> tuple[list[Unit], list[Note]]:
    """The runs under ``path`` (one per model) and notes about files skipped or only checked."""
    if not os.path.isdir(path):
        p = _load(path)
        return [Unit(p.model or _model_of_run(path), [p], p if p.kind == "run" else None)], []
    notes: list[Note] = []
    parsed: list[Parsed] = []
    skipped: list[str] = []
    for f in _json_files(path):
        if not _looks(f):
            continue
        try:
            p = _load(f)
        except FormatError:
            skipped.append(f)  # an unrelated JSON that mentions "resolved"
            continue
        p.model = p.model or _model_of_run(f)
        parsed.append(p)
    if skipped:
        notes.append(Note("swebench_skipped_files", {"path": path, "n_files": len(skipped), "example": skipped[0]}))
    runs: dict[str | None, list[Parsed]] = {}
    insts: dict[str | None, list[Parsed]] = {}
    for p in parsed:
        (runs if p.kind == "run" else insts).setdefault(p.model, []).append(p)
    units: list[Unit] = []
    for model, ps in runs.items():
        units += [Unit(model, [p], p) for p in ps]
    for model, ps in insts.items():
        if model in runs and model is not None:
            run = runs[model][0]
            bad = [(iid, s) for p in ps for iid, s in p.scores.items()
                   if iid in run.scores and s is not None and run.scores[iid] is not None and s != run.scores[iid]]
            absent = [iid for p in ps for iid in p.scores if iid not in run.scores]
            notes.append(Note("swebench_reports_checked", {   # worded in reporting/
                "path": path, "model": model, "n_reports": len(ps), "run_report": run.path,
                "n_disagree": len(bad), "disagree_example": bad[0][0] if bad else None,
                "n_absent": len(absent), "absent_example": absent[0] if absent else None}))
            continue
        units.append(Unit(model, ps))
    return units, notes


def files(path: str) -> list[str]:
    """The files read for the folder ``path``: per-instance reports beside a run report of their model are left out."""
    units, _ = plan(path)
    return [p.path for u in units for p in u.parts]


# --------------------------------------------------------------------- scoring a unit
def _apply_errors(scores: dict[str, float | None], opts: ReadOptions, where: str,
                  how: str) -> tuple[dict, list[Note]]:
    """``how``: how the errored instances errored (a key of :data:`ranktrust._text.SWEBENCH_ERRORED_HOW`)."""
    errored = [i for i, s in scores.items() if s is None]
    if not errored:
        return scores, []
    one = len(errored) == 1
    them = f"{n_of(len(errored), 'instance')} {SWEBENCH_ERRORED_HOW[how][0 if one else 1]}"
    if opts.errors not in ("wrong", "drop"):
        raise DataError(
            f"{where}: {them} (e.g. {errored[0]}); pass `errors`='wrong' to score {'it' if one else 'them'} "
            "unresolved (as SWE-bench's own rate does) or `errors`='drop' to leave "
            f"{'it' if one else 'them'} out"
        )
    kept = ({i: (0.0 if s is None else s) for i, s in scores.items()} if opts.errors == "wrong" else
            {i: s for i, s in scores.items() if s is not None})
    return kept, [Note("swebench_errored", {"path": where, "n_instances": len(errored), "how": how,
                                            "errors": opts.errors})]   # worded in reporting/


def _with_dataset(scores: dict[str, float | None], opts: ReadOptions, where: str) -> tuple[dict, list[Note]]:
    """Scores over the named dataset's instances (those not in ``scores`` are unresolved)."""
    ids = dataset_ids(opts.dataset)  # type: ignore[arg-type]
    label = DATASETS[opts.dataset][1]  # type: ignore[index]
    known = set(ids)
    extra = [i for i in scores if i not in known]
    if extra:
        raise DataError(f"{where}: {n_of(len(extra), 'instance')} {_are(len(extra))} not in {label} (e.g. {extra[0]}); "
                        f"is `dataset`={opts.dataset!r} the dataset this run used?")
    absent = len(ids) - len(scores)
    out = {i: scores.get(i, 0.0) for i in ids}
    notes = [Note("swebench_unlisted_unresolved", {"path": where, "n_absent": absent, "n_instances": len(ids),
                                                   "dataset": label})] if absent else []
    return out, notes


def _score_unit(u: Unit, opts: ReadOptions, path: str) -> tuple[dict[str, float], list[Note], str]:
    """(instance -> score, notes, where) for one run."""
    notes: list[Note] = []
    if u.run is not None:
        p = u.run
        where = p.path
        notes += p.notes
        scores: dict[str, float | None] = dict(p.scores)
        if opts.dataset:
            scores, n = _apply_errors(scores, opts, where, "error_ids")
            out, n2 = _with_dataset(scores, opts, where)
            return out, notes + n + n2, where
        if not p.universe_known:
            tl = _task_list(_run_folder(p.path))
            if tl is None:
                raise DataError(
                    f"{where}: the file lists only {', '.join(p.lists) or 'resolved ids'}, not every instance of the run, "
                    "so unresolved instances cannot be told from ones never run; pass `dataset`='lite|verified|full' "
                    "(the dataset the run used; dataset= in Python) to score every unlisted instance as unresolved"
                )
            ids, tl_path, _ = tl
            extra = [i for i in scores if i not in set(ids)]
            if extra:
                raise DataError(f"{where}: {n_of(len(extra), 'instance')} {_are(len(extra))} not in the task list "
                                f"{tl_path} "
                                f"(e.g. {extra[0]}); the two files are not of the same run")
            unlisted = len(ids) - len(scores)
            notes.append(Note("swebench_task_list", {"path": where, "n_instances": len(ids), "task_list": tl_path,
                                                     "n_unlisted": unlisted}))
            scores = {i: scores.get(i, 0.0) for i in ids}
        scores, n = _apply_errors(scores, opts, where, "error_ids")
        notes += n
        if p.total is not None and p.total > len(p.scores):
            unsent = p.total - len(p.scores)
            notes.append(Note("swebench_not_submitted", {"path": where, "n_unsent": unsent, "total": p.total}))
        return scores, notes, where  # type: ignore[return-value]
    # per-instance reports of one model, no run report beside them
    scores = {}
    for p in u.parts:
        scores.update(p.scores)
    first = u.parts[0].path
    run_dir = _run_folder(first)
    where = os.path.dirname(os.path.dirname(first)) if len(u.parts) > 1 else first
    if len(u.parts) == 1 and not os.path.isdir(path):
        return _apply_errors(scores, opts, where, "empty_report")[:2] + (where,)
    if opts.dataset:
        scores, n = _apply_errors(scores, opts, where, "empty_report")
        out, n2 = _with_dataset(scores, opts, where)
        return out, n + n2, where
    tl = _task_list(run_dir)
    if tl is not None:
        ids, tl_path, _ = tl
        missing = [i for i in ids if i not in scores]
        if missing:
            notes.append(Note("swebench_no_report", {"path": where, "n_missing": len(missing), "n_instances": len(ids),
                                                     "task_list": tl_path}))
        scores = {i: scores.get(i) for i in ids}
        scores, n = _apply_errors(scores, opts, where, "no_report")
        return scores, notes + n, where  # type: ignore[return-value]
    scores, n = _apply_errors(scores, opts, where, "empty_report")
    notes += n
    # how many are missing, where the run report beside the reports says (else unknown)
    listed: dict[str, Any] = {"run_report": None, "n_listed": None, "n_missing": None}
    report = _run_report_of(first)
    if report is not None:
        try:
            s = parse(load_json(report), report)
            listed = {"run_report": report, "n_listed": len(s.scores), "n_missing": len(set(s.scores) - set(scores))}
        except (DataError, FormatError):
            pass
    notes.append(Note("swebench_missing_instances", {"path": where, "n_scored": len(scores), **listed}))
    return scores, notes, where  # type: ignore[return-value]


@register
class SwebenchReader:
    """SWE-bench results: a run report / results.json / per-instance report(s), or a folder of them.

    A folder is one unit: its files are planned together (per-instance reports are checked against
    the run report of their model, not read twice), so ``units`` returns the folder itself and
    ``companions`` the files it reads.
    """

    name = "swebench"
    priority = 5
    description = "SWE-bench results (run reports, id lists, report.json folders)"
    looks_for = "SWE-bench results files"

    def sniff(self, path: str) -> bool:
        if os.path.isdir(path):
            return any(_looks(p) for p in _json_files(path, limit=50))
        return _looks(path)

    def __init__(self) -> None:
        self._plans: dict[str, tuple[list[Unit], list[Note]]] = {}   # one read plans a folder once

    def _plan(self, path: str) -> tuple[list[Unit], list[Note]]:
        if path not in self._plans:
            self._plans[path] = plan(path)
        return self._plans[path]

    def units(self, path: str) -> list[str]:
        return [path] if self._plan(path)[0] else []

    def companions(self, unit: str) -> list[str]:
        return [p.path for u in self._plan(unit)[0] for p in u.parts] if os.path.isdir(unit) else []

    def read(self, unit: str, opts: ReadOptions) -> Iterator:
        return _read(unit, opts, self._plan(unit))


def _read(path: str, opts: ReadOptions, planned: tuple[list[Unit], list[Note]]) -> Iterator:
    """The rows of every run in ``path`` (a file or a folder), one chunk per model's unit."""
    import pandas as pd

    units, notes = planned
    if not units:
        raise DataError(f"{path}: no SWE-bench results files found")
    for k, u in enumerate(units):
        model = opts.model_name or u.model
        if not model:
            raise DataError(f"{u.parts[0].path}: no model name in the file or its path; pass `model_name`='NAME'")
        scores, unit_notes, where = _score_unit(u, opts, path)
        ids = list(scores)
        df = pd.DataFrame({"model": model, "item": ids, "score": [float(scores[i]) for i in ids]})  # type: ignore[arg-type]
        groups = [_repo(i) for i in ids]
        if ids and all(groups):
            df["group"] = groups
        df["task"] = opts.task or "swebench"
        df["metric"] = "resolved"
        if len(units) > 1:
            df["source"] = where
        df.attrs["notes"] = (notes if k == 0 else []) + unit_notes
        df.attrs["line_numbers"] = False
        named = opts.dataset or _whole_dataset(scores)  # the dataset, when named or when the run covers one exactly
        task = f"swebench-{named}" if named else "swebench"
        df.attrs["provenance"] = {model: {"harness": "swebench", "task": opts.task or task, "split": None,
                                          "metric": "resolved", "files": [p.path for p in u.parts]}}
        yield df
