"""A suite as ``{task: ScoreMatrix}``: from a mapping, one matrix split by its item groups, files or a store.

:func:`tasks_of` takes what is already in memory (the gate and the suite both start from it); :func:`read_tasks`
reads harness logs, a long table with a task column (or any column named with ``task_col``) or a DuckDB store,
as ``ranktrust gate`` and ``ranktrust suite`` do.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping, Sequence

import numpy as np

from ..data import ScoreMatrix
from .. import errors as _errors
from ..errors import ArgumentError, DataError

__all__ = ["tasks_of", "read_tasks", "is_store"]

#: bytes 8-11 of every DuckDB database file (what tells a store from a harness log)
_DUCKDB_MAGIC = b"DUCK"


def tasks_of(m: Any, by: str | None = None, *, whole: str | None = "all") -> dict[str, ScoreMatrix]:
    """``{task: ScoreMatrix}`` from a mapping of task names to matrices, or from one matrix: split into one task
    per item group with ``by="group"``, else one task named ``whole`` (``whole=None``: refused, for an analysis
    that needs several tasks). Task names become strings; a split task keeps no item groups (they are the tasks).

    >>> import ranktrust as rt
    >>> m = rt.ScoreMatrix.from_array([[1, 0, 1, 1], [0, 0, 1, 0]], models=["a", "b"], groups=["x", "x", "y", "y"])
    >>> {t: mt.n_items for t, mt in tasks_of(m, "group").items()}
    {'x': 2, 'y': 2}
    >>> list(tasks_of(m))
    ['all']
    """
    if isinstance(m, ScoreMatrix):
        if by is None:
            if whole is None:
                raise DataError("several tasks are needed: pass {task: ScoreMatrix, ...}, or a ScoreMatrix with item "
                                "groups and `by`='group' (each group a task)", param="by")
            return {whole: m}
        if m.groups is None:
            raise DataError("`by`='group' needs item groups (a subject/group column); this input has none",
                            param="by")
        groups = np.asarray(m.groups, dtype=object)
        return {str(g): dataclasses.replace(m.select(items=groups == g), groups=None) for g in dict.fromkeys(m.groups)}
    if isinstance(m, Mapping):
        if not m:
            raise DataError("no tasks given: pass {task: ScoreMatrix, ...}", param="m")
        out = {}
        for k, v in m.items():
            if not isinstance(v, ScoreMatrix):
                raise TypeError(f"task {k!r}: expected a ScoreMatrix, got {type(v).__name__}")
            out[str(k)] = v
        return out
    raise TypeError(f"`m` must be a mapping {{task: ScoreMatrix}} or a ScoreMatrix, got {type(m).__name__}")


def is_store(source: Any) -> bool:
    """Whether ``source`` is a results store: a :class:`ranktrust.Store`, or the path of a DuckDB file."""
    from ..data.store import Store

    if isinstance(source, Store):
        return True
    if not isinstance(source, (str, os.PathLike)) or not os.path.isfile(source):
        return False
    with open(source, "rb") as f:
        return f.read(12)[8:12] == _DUCKDB_MAGIC


def read_tasks(source: Any, *, task_col: str | None = None, options: Any = None, format: str = "auto",
               binary: bool = False, gold: str | None = None) -> Any:
    """The suite in ``source`` as ``{task: ScoreMatrix}`` (pairwise-aligned matrices; the caller aligns).

    Parameters
    ----------
    source : path, list of paths, ranktrust.Store or the path of a store
        Harness logs (each task the reader reports is a task), a long table with a ``task`` column, any table
        split by ``task_col``, or a DuckDB store (each of its tasks). A table with neither is one task, named
        after its file.
    task_col : str, optional
        The column whose values are the tasks (files only).
    options : ranktrust.data.readers.ReadOptions, optional
        The reader options (columns, ``metric``, ``errors``, ...); ``group_col=""``: no item groups. A task held
        with several metrics needs ``metric``; each task is read with its only metric otherwise. From a store,
        ``metric`` leaves out (with a warning naming them) the tasks that lack it.
    format : str, default: ``"auto"``
        The reader of the files (``rt.read``'s ``format``).
    binary : bool, default: False
        Require 0/1 scores.
    gold : str, optional
        Files only: the column of gold labels (a person's), empty where an item is not labelled, beside the judge's
        scores. Then the return is ``(suite, gold)``: the judge's tasks and, for each task, its gold labels as a
        ScoreMatrix of the same models and items (NaN where not labelled), for ``gate(..., gold=gold)``.

    Returns
    -------
    dict of str -> ScoreMatrix, or (that dict, the same of gold labels) with ``gold``
    """
    from ..data.readers import ReadOptions

    opts = ReadOptions() if options is None else options
    if not isinstance(opts, ReadOptions):
        raise TypeError(f"`options` must be a ReadOptions, got {type(opts).__name__}")
    if is_store(source):
        for name, value in (("task_col", task_col), ("gold", gold)):
            if value:
                raise ArgumentError(f"`{name}` reads a column of files; a store holds its tasks' scores alone",
                                    param=name)
        return _store_tasks(source, opts)
    if isinstance(source, (str, os.PathLike)):
        paths = [os.fspath(source)]
    elif isinstance(source, Sequence) and source and all(isinstance(p, (str, os.PathLike)) for p in source):
        paths = [os.fspath(p) for p in source]
    else:
        raise TypeError("`source` must be a path, a list of paths or a Store, got "
                        f"{type(source).__name__ if not isinstance(source, Sequence) else 'an empty or mixed list'}")
    suite = _file_tasks(paths, opts, task_col, format, binary, gold)
    if gold is None:
        return suite
    return {t: v[0] for t, v in suite.items()}, {t: v[1] for t, v in suite.items()}


def _store_tasks(source: Any, opts: Any) -> dict[str, ScoreMatrix]:
    from ..data.store import Store

    st = source if isinstance(source, Store) else Store(source, read_only=True)
    where = str(getattr(st, "path", source))
    names = st.tasks()
    held = st.list().tasks
    chosen = opts.metric
    lacking = [t for t in names if chosen is not None and chosen not in [x.metric for x in held if x.task == t]]
    if lacking and len(lacking) < len(names):
        _errors.warn(f"{where}: {len(lacking)} task(s) hold no metric {chosen!r} and are not gated: "
                     f"{', '.join(lacking)}", code="tasks_without_metric",
                     data={"where": where, "metric": chosen, "tasks": list(lacking)}, stacklevel=3)
        names = [t for t in names if t not in lacking]
    suite = {}
    for t in names:
        metric = _metric_of(t, [x.metric for x in held if x.task == t], chosen, where)
        m = st.matrix(task=t, metric=metric, align="pairwise")
        suite[t] = dataclasses.replace(m, groups=None) if opts.group_col == "" else m
    return suite


def _file_tasks(paths: list[str], opts: Any, task_col: str | None, fmt: str, binary: bool,
                gold_col: str | None) -> dict[str, Any]:
    from ..data import read, read_long

    group = opts.group_col
    if task_col and group and task_col == group:
        raise ArgumentError(f"`task_col`={task_col!r} and `group`={group!r} name the same column: the tasks cannot "
                            "also be the clusters inside each task", param="task_col")
    src = ", ".join(paths)
    try:
        df = read_long(paths, format=fmt, options=opts)
    except DataError as exc:
        if exc.param != "metric":
            raise
        # a folder of harness logs whose tasks have other metrics (HELM's harm_bench has no exact_match): a suite
        # read from files takes every task with one metric (or one task, with the reader's `task`); a store holds
        # each task with its own
        raise DataError(
            f"{exc.message}; a suite read from files takes every task with one metric: where the tasks' metrics "
            "differ, ingest each task with its own into a store (Store.ingest with `task` and `metric`) and read the "
            "store", param="metric", code="task_metrics_differ",
            data={**exc.data, "where": src, "reader_message": exc.message}) from None
    col = task_col or "task"
    if task_col and task_col not in df.columns:
        raise DataError(f"{src}: no column {task_col!r} to take the tasks from; columns: "
                        f"{', '.join(map(str, df.columns))}", param="task_col")
    common: dict[str, Any] = dict(
        model="model" if "model" in df.columns else opts.model_col,
        item="item" if "item" in df.columns else opts.item_col,
        score="score" if "score" in df.columns else opts.score_col,
        run=opts.run_col if opts.run_col in df.columns else ("run" if "run" in df.columns else None),
        condition=opts.condition_col, binary=binary, align="pairwise",
        group=None if task_col is None and group is None else group,   # None: a subject/group column as groups
        **({"scale": opts.scale} if opts.scale is not None else {}))
    lines = bool(df.attrs.get("line_numbers"))
    if col in df.columns and df[col].notna().any():
        suite = {}
        values = df[col].astype(str)
        for t in values.unique():
            part = _one_metric(df[values == t].drop(columns=[col]), t, opts.metric, src)
            part.attrs = dict(df.attrs)
            suite[t] = _read_part(read, part, common, src, t, lines, gold_col)
        return suite
    df = _one_metric(df, None, opts.metric, src)
    name = os.path.basename(paths[0].rstrip("/")).split(".")[0] if len(paths) == 1 else "all"
    return {name: _read_part(read, df, common, src, None, lines, gold_col)}


def _one_metric(df: Any, task: str | None, chosen: str | None, src: str) -> Any:
    """The rows of ``df`` (one task, or the whole input) with the metric it is gated on."""
    if "metric" not in df.columns:
        return df
    metric = _metric_of(task, [str(x) for x in df["metric"].dropna().unique()], chosen, src)
    return df if metric is None else df[df["metric"].astype(str) == metric]


def _read_part(read: Any, part: Any, common: dict[str, Any], src: str, task: str | None, lines: bool,
               gold_col: str | None) -> Any:
    """``read(part)``, its errors naming the file and line (the rows of a file read alone keep their line
    numbers in the index) instead of the DataFrame the part is; rows of several files are named by task. With
    ``gold_col``: the judge's matrix and the gold labels (``rt.read`` of the rows with a label)."""
    if gold_col is not None:
        from ..data import read_with_gold

        return read_with_gold(part, gold_col, **common)
    name = src if lines or task is None else f"{src}: task {task!r}"
    return read(part, source_name=name, line_numbers="index" if lines else None, **common)


def _metric_of(task: str | None, held: list[str], chosen: str | None, src: str) -> str | None:
    """The metric a task is gated on: the one chosen (`metric`), else its only one."""
    where = f"task {task!r}" if task is not None else "the input"
    if chosen is not None:
        if chosen in held or not held:
            return chosen if held else None
        raise DataError(f"{src}: {where} has no metric {chosen!r}; it holds {', '.join(sorted(held))}",
                        param="metric")
    if len(held) <= 1:
        return held[0] if held else None
    raise DataError(f"{src}: {where} holds {len(held)} metrics ({', '.join(sorted(held))}); "
                    f"pick one with `metric`='NAME'", param="metric")
