"""``rt.read``: any supported input -> ScoreMatrix."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import sys
from typing import TYPE_CHECKING, Any, Iterable, Literal, Sequence

import numpy as np

from ..errors import ArgumentError, DataError, FormatError
from ..results import Note
from ._canonical import GROUP_GUESSES, check_doc_hash
from ._long import matrix_from_long
from ._matrix import AlignPolicy, ScoreMatrix
from .readers._registry import ReadOptions, accepting, open_reader, readers, sniff
from .readers._registry import read as _read_with
from .readers._util import did_you_mean

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["read", "read_long", "read_arrow", "input_hash"]


def _expand(paths: Sequence[str]) -> list[str]:
    out: list[str] = []
    for p in paths:
        if not os.path.exists(p):
            raise FormatError(f"{p}: no such file or directory", code="no_such_file", data={"path": p})
        out.append(p)
    return out


def _folder_readers(path: str) -> list:
    """Every harness reader whose logs are in the folder ``path`` (one folder can hold several
    harnesses' logs: all of them are read, none is left out in silence)."""
    found = list(accepting(path))
    harness = [r for r in found if r.name != "table"]
    if harness:
        return harness
    return found or [sniff(path)]


def read_long(
    source: "str | os.PathLike[str] | Sequence[str | os.PathLike[str]]",
    *,
    format: str = "auto",
    options: ReadOptions | None = None,
) -> "pd.DataFrame":
    """Read one or more files into one canonical long DataFrame (no statistics, no pivot).

    Columns: ``model, item, score`` and, where the format has them, ``run, condition,
    group, task, metric`` and others. ``df.attrs['line_numbers']`` says whether the
    index holds file line numbers (used in error messages).
    """
    import pandas as pd

    opts = options or ReadOptions()
    source = _collect_polars(source)
    if isinstance(source, pd.DataFrame):
        return _frame_long(source, opts)
    if not isinstance(source, (str, os.PathLike)) and not hasattr(source, "__iter__"):
        raise DataError(f"`source` must be a path, a list of paths or a DataFrame, not {type(source).__name__}",
                        param="source")
    paths = [os.fspath(source)] if isinstance(source, (str, os.PathLike)) else [os.fspath(s) for s in source]
    if not paths:
        raise DataError("no input files given")
    frames = []
    line_numbers = len(paths) == 1
    used: dict[str, str] = {}  # path -> reader name
    skipped: list[Note] = []
    for path in _expand(paths):
        if format == "auto":
            rds = _folder_readers(path) if os.path.isdir(path) else [sniff(path)]
        else:
            rds = [type(open_reader(format))]   # an unknown name: the registry's one error (a battles format: said)
        used[path] = ", ".join(r.name for r in rds)
        several = len(rds) > 1 or len(paths) > 1
        got: list = []
        for rd in rds:
            try:
                part = list(_read_with(rd, path, opts))
            except DataError as exc:
                # a folder holding several harnesses' logs: with --task, a harness without that task is
                # skipped and said so; any other error stops the read
                if len(rds) > 1 and opts.task is not None:
                    skipped.append(Note("harness_unread", {"harness": rd.name, "path": path, "error": str(exc)}))
                    continue
                raise
            for chunk in part:
                if several and "source" not in chunk.columns:
                    chunk = chunk.assign(source=path)
                if len(rds) > 1 and "harness" not in chunk.columns:
                    attrs = dict(chunk.attrs)
                    chunk = chunk.assign(harness=rd.name)   # which reader each row came from (provenance)
                    chunk.attrs.update(attrs)
                got.append(chunk)
        if len(rds) > 1 and not got:
            raise DataError(f"{path}: none of its logs ({used[path]}) could be read with `task`={opts.task!r}: "
                            + "; ".join(f"{n.data['harness']} logs in {n.data['path']} skipped: {n.data['error']}"
                                        for n in skipped), param="task")
        for chunk in got:
            line_numbers = line_numbers and bool(chunk.attrs.get("line_numbers", False))
            frames.append(chunk)
    if not frames:
        raise DataError(f"{paths[0]}: no rows were read")
    notes = [n for f in frames for n in f.attrs.get("notes", ())] + skipped
    df = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=not line_numbers)
    if len(frames) > 1 and "doc_hash" in df.columns:
        check_doc_hash(df)
    df.attrs["line_numbers"] = line_numbers
    df.attrs["notes"] = notes
    df.attrs["provenance"] = _merge_provenance(frames)
    df.attrs["readers"] = used
    return df


def _collect_polars(x: Any) -> Any:
    """A polars DataFrame as pandas; a polars LazyFrame is collected first (the query runs here)."""
    if type(x).__module__.split(".")[0] == "polars":
        if hasattr(x, "collect") and not hasattr(x, "to_pandas"):   # a LazyFrame
            x = x.collect()
        if hasattr(x, "to_pandas"):
            return x.to_pandas()
    return x


def _frame_long(df: "pd.DataFrame", opts: ReadOptions) -> "pd.DataFrame":
    """A DataFrame given to :func:`read_long`: long as it is (a copy), wide melted to long.

    Rows are numbered by position (0, 1, ...), not by index label, so an error after ``pd.concat`` (whose
    labels repeat) names the row it means.
    """
    from .readers._table import _is_long, _wide_to_long

    df = df.reset_index(drop=True)
    if not _is_long(df, opts):
        df = _wide_to_long(df, "DataFrame", opts).reset_index(drop=True)
    else:
        rename = {have: want for want, have in (("model", opts.model_col), ("item", opts.item_col),
                                                ("score", opts.score_col)) if have != want and have in df.columns}
        df = df.rename(columns=rename) if rename else df.copy()
    df.attrs.update({"line_numbers": False, "notes": [], "provenance": {}, "readers": {}})
    return df


def _merge_provenance(frames: list) -> dict[str, dict]:
    """The readers' per-model provenance (``chunk.attrs['provenance']``), files merged."""
    out: dict[str, dict] = {}
    for f in frames:
        for model, p in (f.attrs.get("provenance") or {}).items():
            cur = out.setdefault(str(model), {**p, "files": []})
            cur["files"] = list(dict.fromkeys(cur["files"] + list(p.get("files", ()))))
    return out


def _provenance(m: ScoreMatrix, df: "pd.DataFrame", paths: list[str]) -> dict[str, dict]:
    """Per model: which harness, task, split and metric were scored, from which files.

    Readers that know more (HELM's split, SWE-bench's dataset) fill it themselves; for the
    others it is the reader's name and the one task / metric left after ``--task``/``--metric``.
    """
    given = df.attrs.get("provenance") or {}
    used = df.attrs.get("readers") or {}
    harness = ", ".join(sorted(set(used.values()))) or None

    def one(col: str) -> str | None:
        if col not in df.columns:
            return None
        vals = df[col].dropna().unique()
        return str(vals[0]) if len(vals) == 1 else None

    task, metric = one("task"), one("metric")
    per_model: dict[str, list[str]] = {}
    if "source" in df.columns and len(m.models) > len(given):  # several files: each model's own
        per_model = {str(k): [str(x) for x in v] for k, v in df.groupby("model", sort=False)["source"].unique().items()}
    by_reader: dict[str, str] = {}
    if "harness" in df.columns:   # a folder of several harnesses' logs: each model's own reader
        by_reader = {str(k): ", ".join(sorted(map(str, v)))
                     for k, v in df.groupby("model", sort=False)["harness"].unique().items()}
    out = {}
    for model in m.models:
        p = given.get(model)
        out[model] = dict(p) if p is not None else {
            "harness": by_reader.get(model, harness), "task": task, "split": None, "metric": metric,
            "files": per_model.get(model, list(paths))}
    return out


def _pick(df: "pd.DataFrame", col: str, chosen: str | None, src: str) -> "pd.DataFrame":
    """The rows of ``df`` whose column ``col`` is ``chosen`` (the parameter of the same name)."""
    if col not in df.columns:
        if chosen is not None:
            raise DataError(f"{src}: `{col}`={chosen!r} was given but the input has no {col!r} column", param=col)
        return df
    values = [str(v) for v in df[col].dropna().unique()]
    if chosen is None:
        if len(values) > 1:
            raise DataError(
                f"{src}: the input holds {len(values)} {col}s ({', '.join(sorted(values)[:10])}"
                f"{' ...' if len(values) > 10 else ''}); pick one with `{col}`='NAME'", param=col
            )
        return df
    if chosen not in values:
        raise DataError(f"{src}: no {col} {chosen!r}{did_you_mean(chosen, values)}; available: "
                        f"{', '.join(sorted(values)[:20])}", param=col)
    keep = df[col].astype(str) == chosen
    if "harness" in df.columns and not keep.all():
        # a folder of several harnesses' logs: say which harness had none of it (never drop in silence)
        kept = set(df.loc[keep, "harness"].astype(str))
        notes = list(df.attrs.get("notes", ()))
        for h, part in df[~keep].groupby("harness", sort=True):
            if str(h) not in kept:
                held = sorted(map(str, part[col].dropna().unique()))[:10]
                notes.append(Note("harness_skipped", {"harness": str(h), "column": col, "value": chosen,
                                                      "held": held}))   # worded in reporting/
        attrs = dict(df.attrs)
        df = df[keep]
        df.attrs.update(attrs)
        df.attrs["notes"] = notes
        return df
    return df[keep]


def read(
    source: Any,
    *,
    format: str = "auto",
    align: AlignPolicy = "error",
    model: str = "model",
    item: str = "item",
    score: str = "score",
    group: str | None = None,
    run: str | None = None,
    condition: str | None = None,
    task: str | None = None,
    metric: str | None = None,
    errors: str = "error",
    model_name: str | None = None,
    wide: bool | None = None,
    binary: bool = False,
    scale: float | None = None,
    split: str | None = None,
    dataset: str | None = None,
    source_name: str | None = None,
    line_numbers: "int | Literal['index'] | None" = None,
    options: ReadOptions | None = None,
) -> ScoreMatrix:
    """Read per-item results into a :class:`ScoreMatrix`.

    Parameters
    ----------
    source : path, list of paths, pandas.DataFrame or ScoreMatrix
        A long or wide CSV / CSV.gz / TSV / Parquet / JSONL file, a harness log or
        log directory (lm-evaluation-harness, inspect, HELM, lighteval, SWE-bench), a
        list of those, or a DataFrame in long layout.
    format : str, default: ``"auto"``
        Reader name; ``"auto"`` sniffs each path.
    align : {"error", "intersect", "pairwise"}, default: ``"error"``
        What to do when models are scored on different items (see
        :meth:`ScoreMatrix.align`).
    model, item, score : str
        Column names in a long table.
    group, run, condition : str, optional
        Column names for the item group (auto: ``subject``/``group``/``category``;
        ``""`` for none), the run (seed/sample) and the condition.
    task, metric : str, optional
        Pick one task / metric when the input holds several.
    errors : {"error", "wrong", "drop"}, default: ``"error"``
        Samples that errored in the harness: stop with an error, score them as wrong,
        or drop them (the count is reported).
    model_name : str, optional
        Override the model name a single log reports.
    wide : bool, optional
        Force wide (True) or long (False) layout; default auto-detects.
    binary : bool, default: False
        Require 0/1 scores: any other value is an error naming the model and item.
    scale : float, optional
        Divide every score by this first (``100`` for percentages). Scores must end up in
        [0, 1]; anything else is an error naming the row (CLI: ``--scale``).
    split : str, optional
        HELM: the split to read (default: ``test``, the split HELM reports).
    dataset : {"lite", "verified", "full"}, optional
        SWE-bench: the dataset the run used; its bundled instance list is the denominator
        (instances a results file does not list count as unresolved).
    options : ranktrust.data.readers.ReadOptions, optional
        The reader options (``model`` ... ``dataset`` above) as one object, as the command line and
        :meth:`ranktrust.data.store.Store.ingest` pass them; give either ``options`` or those keywords.
    source_name : str, optional
        A DataFrame ``source`` only: what errors call it (default ``"DataFrame"``), e.g. the file it was read
        from: ``"tasks.csv: line 17: score 'x' is not a number"``.
    line_numbers : int or ``"index"``, optional
        A DataFrame ``source`` only: how errors number its rows. ``None`` (default): ``row N``, the row's
        position from 0. An int: ``line N``, the position plus that number (``2`` for a CSV with one header
        line read by :func:`pandas.read_csv`). ``"index"``: ``line N`` with ``N`` the row's index label (the
        index holds each row's line in its file, as for the rows of a file picked out of a bigger table).

    Returns
    -------
    ScoreMatrix

    Raises
    ------
    DataError, FormatError
        With one line naming the file, row or item and what to do.
    """
    opts = _one_options(options, ReadOptions(
        model_col=model, item_col=item, score_col=score, group_col=group, run_col=run,
        condition_col=condition, task=task, metric=metric, errors=errors,
        model_name=model_name, wide=wide, split=split, dataset=dataset,
        scale=scale,   # the readers that scale their own scores (MT-Bench's 1-10 ratings) refuse a second scale
    ))
    if isinstance(source, ScoreMatrix):
        return source.align(align)
    if isinstance(source, (str, os.PathLike)) and source_name is None and line_numbers is None:
        # one long CSV/TSV/Parquet file: Arrow's label codes scattered into the matrix (no pandas DataFrame);
        # None when the file needs the pandas path (another layout or reader, or a row an error must name)
        fast = read_arrow(os.fspath(source), format, opts)
        if fast is not None:
            if binary:
                _check_binary(fast)
            return fast.align(align)
    import pandas as pd   # (not for a ScoreMatrix: an analysis given one does not import pandas)

    source = _collect_polars(source)
    model, item, score, group = opts.model_col, opts.item_col, opts.score_col, opts.group_col
    if isinstance(source, pd.DataFrame):
        df, src, line_offset = _frame_rows(source, source_name, line_numbers)
        from .readers._table import _is_long, _wide_to_long

        if not _is_long(df, opts):   # a wide DataFrame: one row per item, one column per model
            df = _wide_to_long(df, src, opts)
            model, item, score = "model", "item", "score"
            group = "group" if "group" in df.columns and group != "" else group
    else:
        if source_name is not None or line_numbers is not None:
            given = "source_name" if source_name is not None else "line_numbers"
            raise ArgumentError(f"`{given}` names the rows of a DataFrame; a file names its own", param=given)
        df = read_long(source, format=format, options=opts)
        src = os.fspath(source) if isinstance(source, (str, os.PathLike)) else ", ".join(map(os.fspath, source))
        line_offset = 0 if df.attrs.get("line_numbers") else None
        model = "model" if "model" in df.columns else model
        item = "item" if "item" in df.columns else item
        score = "score" if "score" in df.columns else score
    df = _pick(df, "task", opts.task, src)
    df = _pick(df, "metric", opts.metric, src)
    try:
        m = matrix_from_long(
            ScoreMatrix, df, model=model, item=item, score=score, group=group, run=opts.run_col,
            condition=opts.condition_col, source=src, line_offset=line_offset, scale=opts.scale,
        )
    except DataError as exc:
        better = no_named_columns(exc, source, df, src, model=opts.model_col, item=opts.item_col,
                                  score=opts.score_col, wide=opts.wide)
        if better is not None:
            raise better from None
        raise
    if binary:
        _check_binary(m)
    notes = tuple(df.attrs.get("notes", ()))
    if notes:
        m = m._replace(notes=m.notes + notes)
    if not isinstance(source, pd.DataFrame):
        paths = [os.fspath(source)] if isinstance(source, (str, os.PathLike)) else [os.fspath(s) for s in source]
        m = m._replace(provenance=_provenance(m, df, paths))
    return m.align(align)


#: columns whose presence sends a table to the pandas path: picked by ``task``/``metric``, or per-row provenance
_PANDAS_COLUMNS = ("task", "metric", "source", "harness")


def read_arrow(path: str, format: str, opts: ReadOptions) -> ScoreMatrix | None:
    """The matrix of one long table file (CSV, TSV, gzipped or not, or Parquet) read with Arrow: the label columns'
    dictionary codes scattered into the dense array, no pandas DataFrame and no Python string per row. The same
    matrix (labels, their order, values) as the pandas path (:func:`read_long`, then :func:`matrix_from_long`),
    provenance included.

    None when the pandas path must read the file: not a single long table for the table reader (a folder, a
    harness log, a wide table, JSON lines), a ``task``/``metric`` choice or column, a ``source`` or ``harness``
    column, a file Arrow cannot read, and every row one of the pandas path's errors names (a missing label or
    score, a score that is not a finite number in [0, 1], a repeated key, an item in two groups): that path then
    reads it and says what is wrong where.
    """
    import pyarrow as pa

    from ._long import matrix_from_arrow
    from .readers._table import _NA_WORDS, _check_not_binary, _kind, label_columns

    if format not in ("auto", "table") or opts.wide or opts.task is not None or opts.metric is not None:
        return None
    kind = _kind(path)
    if kind not in ("parquet", "csv", "tsv") or not os.path.isfile(path):
        return None
    try:
        if (sniff(path) if format == "auto" else readers()[format]).name != "table":
            return None
        if kind != "parquet":
            _check_not_binary(path)
        header = _file_header(path, kind)
    except Exception:   # the pandas path reads it again and says what is wrong
        return None
    if header is None or len(set(header)) < len(header) or len(header) < 2:
        return None
    roles = _long_roles(header, opts)
    if roles is None:
        return None
    model, item, score, group, run, condition = roles
    text = label_columns(header, opts)
    if score in text or any(c not in text for c in (model, item, group, run, condition) if c is not None):
        return None
    wanted = list(dict.fromkeys(c for c in (model, item, score, group, run, condition) if c is not None))
    labels = [c for c in wanted if c != score]
    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            schema = pq.read_schema(path)
            byte_array = [c for c in labels if any(f(schema.field(c).type) for f in (
                pa.types.is_string, pa.types.is_large_string, pa.types.is_binary, pa.types.is_large_binary))]
            table = pq.read_table(path, columns=wanted, read_dictionary=byte_array)
        else:
            import pyarrow.csv as pacsv

            table = pacsv.read_csv(
                path, parse_options=pacsv.ParseOptions(delimiter="\t" if kind == "tsv" else ",",
                                                       newlines_in_values=True),   # a quoted label may hold one
                convert_options=pacsv.ConvertOptions(
                    column_types={**{c: pa.dictionary(pa.int32(), pa.string()) for c in labels}, score: pa.float64()},
                    include_columns=wanted,
                    null_values=sorted(_NA_WORDS), strings_can_be_null=False))
    except Exception:
        return None
    if table.column_names != wanted:
        return None
    columns = dict(zip(wanted, table.columns))
    del table   # each column is freed once read
    try:
        return matrix_from_arrow(
            ScoreMatrix, columns, model=model, item=item, score=score, group=group, run=run, condition=condition,
            source=path, scale=opts.scale, empty_labels=kind == "parquet",
            provenance=lambda models: {m: {"harness": "table", "task": None, "split": None, "metric": None,
                                           "files": [path]} for m in models})
    except pa.ArrowException:
        return None


def _file_header(path: str, kind: str) -> list[str] | None:
    """The column names of a Parquet file (its schema) or the header line of a CSV/TSV file (gzipped or not, as
    the csv module splits it; None for an empty file). Raises what the file's reading raises."""
    if kind == "parquet":
        import pyarrow.parquet as pq

        return [str(c) for c in pq.read_schema(path).names]
    import csv
    import gzip

    opener = gzip.open if path.lower().endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8-sig", newline="") as fh:  # type: ignore[operator]
        return next(csv.reader(fh, delimiter="\t" if kind == "tsv" else ","), None)


def _long_roles(header: list[str], opts: ReadOptions,
                ) -> "tuple[str, str, str, str | None, str | None, str | None] | None":
    """The file's columns that hold the model, item, score, group, run and condition of a long table, as the
    table reader (which renames the named model/item/score columns) and :func:`matrix_from_long` pick them; None
    where the pandas path must read the table (wide, a missing column, a ``task``, ``metric``, ``source`` or
    ``harness`` column)."""
    if not (opts.model_col in header or opts.score_col in header):   # wide: melted by the pandas path
        return None
    named = {"model": opts.model_col, "item": opts.item_col, "score": opts.score_col}
    if any(have not in header for have in named.values()) or len(set(named.values())) < 3 \
            or any(have != want and have in named for want, have in named.items()):
        return None   # a missing column, or one named for two roles: the pandas path's error
    # the table reader's renaming: the named column becomes "model" (an existing "model" column is dropped)
    renamed: dict[str, str] = {}   # column after renaming -> column in the file
    for c in header:
        renamed[c] = c
    for want, have in named.items():
        if have != want:
            renamed.pop(want, None)
    for want, have in named.items():
        if have != want:
            renamed.pop(have, None)
            renamed[want] = have
    cols = list(renamed)
    if any(c in cols for c in _PANDAS_COLUMNS):
        return None
    group = opts.group_col
    if group is None:
        group = next((g for g in GROUP_GUESSES if g in cols), None)
    elif group == "":
        group = None
    elif group not in cols:
        return None
    run = opts.run_col if opts.run_col is not None else ("run" if "run" in cols else None)
    condition = opts.condition_col if opts.condition_col is not None else ("condition" if "condition" in cols else None)
    if any(c is not None and c not in cols for c in (run, condition)):
        return None
    roles = ("model", "item", "score", group, run, condition)
    given = [r for r in roles if r is not None]
    if len(set(given)) < len(given):
        return None
    return tuple(renamed[r] if r is not None else None for r in roles)  # type: ignore[return-value]


def _one_options(options: ReadOptions | None, given: ReadOptions) -> ReadOptions:
    """The reader options of :func:`read`: ``options`` when given (then no reader keyword may be), else those
    the keywords ``given``."""
    if options is None:
        return given
    if not isinstance(options, ReadOptions):
        raise TypeError(f"`options` must be a ranktrust.data.readers.ReadOptions, not {type(options).__name__}")
    default = ReadOptions()
    clash = [f.name for f in dataclasses.fields(ReadOptions) if getattr(given, f.name) != getattr(default, f.name)]
    if clash:
        keyword = {"model_col": "model", "item_col": "item", "score_col": "score", "group_col": "group",
                   "run_col": "run", "condition_col": "condition"}
        names = ", ".join(f"`{keyword.get(c, c)}`" for c in clash)
        raise ArgumentError(f"give the reader options in `options` or as keywords, not both ({names} given beside "
                            "`options`)", param="options", data={"keywords": clash})
    return options


def _frame_rows(df: "pd.DataFrame", name: str | None, line_numbers: "int | str | None",
                ) -> "tuple[pd.DataFrame, str, int | None]":
    """A DataFrame given to :func:`read`, what its errors call it, and the offset :func:`row_where` adds to a row
    number (``None``: rows are named ``row N`` by position)."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"`source_name` must be a string, not {type(name).__name__}")
    src = name if name is not None else "DataFrame"
    if isinstance(line_numbers, str) and line_numbers == "index":
        import pandas as pd

        if not (pd.api.types.is_integer_dtype(df.index) and df.index.is_unique):
            raise ArgumentError("`line_numbers`='index' needs an index of unique integers (each row's line in its "
                                "file)", param="line_numbers", data={"index_dtype": str(df.index.dtype)})
        return df, src, 0
    # rows are named by position (0, 1, ...), not by index label (labels repeat after pd.concat)
    df = df.reset_index(drop=True)
    if line_numbers is None:
        return df, src, None
    if isinstance(line_numbers, bool) or not isinstance(line_numbers, (int, np.integer)):
        raise ArgumentError(f"`line_numbers` must be an int (added to a row's position from 0: 2 for a CSV with "
                            f"one header line) or 'index', not {line_numbers!r}", param="line_numbers")
    return df, src, int(line_numbers)


def _table_header(source: Any, df: "pd.DataFrame") -> list[str] | None:
    """The header of a single CSV/TSV/Parquet file read by the table reader (None for anything else)."""
    if not isinstance(source, (str, os.PathLike)) or set((df.attrs.get("readers") or {}).values()) != {"table"}:
        return None
    from .readers._table import _kind

    path = os.fspath(source)
    kind = _kind(path)
    if kind not in ("parquet", "csv", "tsv"):
        return None
    try:
        return _file_header(path, kind)
    except Exception:   # the header could not be read again: keep the reader's own error
        return None


def no_named_columns(exc: DataError, source: Any, df: "pd.DataFrame", src: str, *, model: str = "model",
                     item: str = "item", score: str = "score", wide: bool | None = None) -> DataError | None:
    """The error to raise instead of ``exc`` (raised while the table ``df`` read from ``source`` became a matrix)
    when ``source`` has none of the ``model``, ``item`` and ``score`` columns and was read as a wide table by
    the README's rule: "no model/item/score columns; found ..." and what the wide reading met. None
    otherwise (keep ``exc``). For every command that reads a table (``rt.read``, gate, ingest)."""
    import pandas as pd

    header = list(map(str, source.columns)) if isinstance(source, pd.DataFrame) else _table_header(source, df)
    if wide is not None or header is None or {model, item, score} & set(header):
        return None
    return _no_named_columns(exc, src, header, (model, item, score))


def _no_named_columns(exc: DataError, src: str, header: list[str], names: tuple[str, str, str]) -> DataError:
    """A table with none of the model, item and score columns was read as a wide table (README: one row per item,
    its ids in the first column, one column of scores per model) and failed: say both readings."""
    shown = ", ".join(header[:12]) + (f" ... ({len(header)} columns)" if len(header) > 12 else "")
    # a score's reason without its place (a row of the melted table, not of the file); else the whole message
    why = exc.data.get("reason") or exc.message
    model, item, score = names
    return DataError(
        f"{src}: no {model}/{item}/{score} columns; found {shown}. Read as a wide table (one row per item, item ids "
        f"in the first column {header[0]!r}, one column of scores per model) it fails: {why}. A long table needs "
        f"the columns {model}, {item}, {score} (or name yours with `model`, `item` and `score`); a wide table "
        "needs numeric scores in [0, 1] in every column after the first", param="model")


def _is_polars(x: Any) -> bool:
    """A polars DataFrame or LazyFrame."""
    return type(x).__module__.split(".")[0] == "polars" and (hasattr(x, "to_pandas") or hasattr(x, "collect"))


def as_matrix(data: Any, *, align: AlignPolicy = "error") -> Any:
    """What every analysis accepts, made a :class:`ScoreMatrix`: a ScoreMatrix (as is), a long or
    wide pandas (or Polars) DataFrame, or a path (read with :func:`read`). NumPy arrays pass through
    (the analyses take them as ``(models, items)`` scores)."""
    if isinstance(data, ScoreMatrix):
        return data
    pd = sys.modules.get("pandas")   # a DataFrame means pandas is imported: no import for a matrix or an array
    if isinstance(data, (str, os.PathLike)) or (pd is not None and isinstance(data, pd.DataFrame)) \
            or _is_polars(data):
        return read(data, align=align)
    return data


def accepts_data(fn: Any) -> Any:
    """Let an analysis take a DataFrame or a path as its first argument (see :func:`as_matrix`)."""
    import functools

    @functools.wraps(fn)
    def wrapper(data: Any, *args: Any, **kw: Any) -> Any:
        return fn(as_matrix(data), *args, **kw)

    return wrapper


def _check_binary(m: ScoreMatrix) -> None:
    import numpy as np

    d = m.data
    bad = ~np.isnan(d) & (d != 0) & (d != 1)
    if bad.any():
        a, i, _ = np.argwhere(bad)[0]
        src = f"{m.source}: " if m.source else ""
        raise DataError(
            f"{src}model {m.models[a]!r}, item {m.items[i]!r} has score {d[a, i, _]:g}, but `binary`=True needs 0/1 "
            f"scores ({int(bad.sum())} such cells); drop `binary` for continuous scores in [0, 1]", param="binary"
        )


def input_hash(paths: Iterable[str]) -> str:
    """SHA-256 (first 16 hex digits) over the bytes of the input files, in order."""
    h = hashlib.sha256()
    for p in paths:
        if os.path.isdir(p):
            for root, _dirs, files in sorted(os.walk(p)):
                for f in sorted(files):
                    with open(os.path.join(root, f), "rb") as fh:
                        for block in iter(lambda: fh.read(1 << 20), b""):
                            h.update(block)
        elif os.path.exists(p):
            with open(p, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
    return h.hexdigest()[:16]
