"""A DuckDB results store: ingest per-item results once, build ScoreMatrix objects from it.

Tables (schema version 1)::

    results(task, model, item, run, condition, metric, score, source_file, ingested_at)
    items(task, item, pos, "group", doc_hash, source_file)   -- item metadata, pos = first-seen order
    models(task, model, pos)                                  -- pos = first-seen order
    files(path, sha256, size, rows, format, ingested_at)      -- one row per ingested file
    notes(path, note)                                         -- what readers told the user

Ingest is one transaction per file (all of a file or nothing), idempotent (a file whose
content was ingested before is skipped), and never overwrites silently: a file that
changed since it was ingested is an error unless ``replace=True``, and rows that would
duplicate existing (task, model, item, run, condition, metric) keys are an error.

>>> import ranktrust as rt
>>> st = rt.Store("results.duckdb")                                   # doctest: +SKIP
>>> st.ingest(["lm-eval-output/", "logs/"])                            # doctest: +SKIP
>>> m = st.matrix(task="gpqa_main", metric="acc")                      # doctest: +SKIP
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from ..errors import DataError, FormatError
from ..results import Result
from ._long import resolve_group_col
from .matrix import AlignPolicy, ScoreMatrix
from .readers._registry import ReadOptions, Reader, readers, sniff

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Store", "IngestSummary", "StoreSummary", "FileOutcome"]

SCHEMA_VERSION = 1
# the exact in-file duplicate check keeps one bitmap of the file's items per (task, model, run,
# condition, metric) group while it fits in this many bits (128 MiB); beyond, a hash GROUP BY
_BITMAP_BITS = 1 << 30
_TABLE_SUFFIXES = (".csv.gz", ".tsv.gz", ".jsonl.gz", ".csv", ".tsv", ".parquet", ".pq", ".jsonl", ".ndjson", ".json")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results(
    task VARCHAR NOT NULL, model VARCHAR NOT NULL, item VARCHAR NOT NULL, run VARCHAR NOT NULL,
    condition VARCHAR NOT NULL, metric VARCHAR NOT NULL, score DOUBLE NOT NULL,
    source_file VARCHAR NOT NULL, ingested_at TIMESTAMP NOT NULL);
CREATE TABLE IF NOT EXISTS items(
    task VARCHAR NOT NULL, item VARCHAR NOT NULL, pos BIGINT NOT NULL, "group" VARCHAR,
    doc_hash VARCHAR, source_file VARCHAR);
CREATE TABLE IF NOT EXISTS models(task VARCHAR NOT NULL, model VARCHAR NOT NULL, pos BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
    path VARCHAR PRIMARY KEY, file VARCHAR NOT NULL, options VARCHAR NOT NULL, sha256 VARCHAR NOT NULL,
    size BIGINT, rows BIGINT, format VARCHAR, ingested_at TIMESTAMP);
CREATE TABLE IF NOT EXISTS notes(path VARCHAR, note VARCHAR);
CREATE TABLE IF NOT EXISTS meta(key VARCHAR PRIMARY KEY, value VARCHAR);
"""


# ------------------------------------------------------------------- results
@dataclass(frozen=True)
class FileOutcome:
    """What happened to one file: ``added``, ``skipped`` or ``replaced``."""

    path: str
    action: str
    rows: int = 0
    reason: str = ""
    removed: int = 0


@dataclass(frozen=True, eq=False)
class IngestSummary(Result):
    """What :meth:`Store.ingest` did, file by file.

    Attributes
    ----------
    files : tuple of FileOutcome
        One entry per file considered (a directory expands into its files).
    notes : tuple of str
        Things the readers reported (e.g. errored samples scored as wrong).
    """

    db: str
    files: tuple[FileOutcome, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def added(self) -> tuple[FileOutcome, ...]:
        return tuple(f for f in self.files if f.action == "added")

    @property
    def skipped(self) -> tuple[FileOutcome, ...]:
        return tuple(f for f in self.files if f.action == "skipped")

    @property
    def replaced(self) -> tuple[FileOutcome, ...]:
        return tuple(f for f in self.files if f.action == "replaced")

    @property
    def rows_added(self) -> int:
        return int(sum(f.rows for f in self.files if f.action in ("added", "replaced")))

    def to_dict(self) -> dict[str, Any]:
        return {
            "db": self.db,
            "rows_added": self.rows_added,
            "files": [
                {"path": f.path, "action": f.action, "rows": f.rows, "removed": f.removed, "reason": f.reason}
                for f in self.files
            ],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class TaskSummary:
    task: str
    metric: str
    n_models: int
    n_items: int
    n_runs: int
    rows: int
    models: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class StoreSummary(Result):
    """What a store holds: per (task, metric) the models, items, runs and rows."""

    db: str
    tasks: tuple[TaskSummary, ...] = ()
    n_files: int = 0
    n_rows: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "db": self.db,
            "n_files": self.n_files,
            "n_rows": self.n_rows,
            "tasks": [
                {"task": t.task, "metric": t.metric, "n_models": t.n_models, "n_items": t.n_items,
                 "n_runs": t.n_runs, "rows": t.rows, "models": list(t.models)}
                for t in self.tasks
            ],
        }


# ------------------------------------------------------------------- helpers
def _fingerprint(paths: Iterable[str]) -> tuple[str, int]:
    h = hashlib.sha256()
    size = 0
    for p in paths:
        with open(p, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 22), b""):
                h.update(block)
                size += len(block)
    return h.hexdigest(), size


def _stem(path: str) -> str:
    base = os.path.basename(path.rstrip(os.sep))
    low = base.lower()
    for s in _TABLE_SUFFIXES:
        if low.endswith(s):
            return base[: -len(s)]
    return os.path.splitext(base)[0]


def _module_fn(rd: Reader, name: str) -> Any:
    mod = sys.modules.get(rd.read.__module__)
    return getattr(mod, name, None) if mod is not None else None


def _options_signature(opts: ReadOptions, reader_name: str) -> str:
    """Canonical text of the read options that change what is read (empty for the defaults)."""
    default = ReadOptions()
    parts = []
    for k in ("task", "metric", "model_name", "errors", "model_col", "item_col", "score_col", "group_col",
              "run_col", "condition_col", "wide", "split", "dataset"):
        v = getattr(opts, k)
        if v != getattr(default, k):
            parts.append(f"{k}={v}")
    return ", ".join(parts)


def _sql_str(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _stat(paths: Iterable[str]) -> list[tuple[int, int]]:
    out = []
    for p in paths:
        st = os.stat(p)
        out.append((st.st_size, st.st_mtime_ns))
    return out


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None, microsecond=0)


_DUCKDB_MAGIC = b"DUCK"  # bytes 8-11 of every DuckDB database file


def _check_store_path(path: str) -> None:
    """Refuse ``:memory:`` and existing files that are not DuckDB databases, before DuckDB opens them."""
    if path == "" or path.startswith(":memory:"):
        raise DataError(
            f"{path or repr(path)} is an in-memory database, which keeps nothing after the command ends; "
            "give a store file path, e.g. --db results.duckdb"
        )
    if os.path.isfile(path) and os.path.getsize(path) > 0:
        try:
            with open(path, "rb") as fh:
                head = fh.read(12)
        except OSError:
            return  # DuckDB reports unreadable files itself
        if head[8:12] != _DUCKDB_MAGIC:
            raise FormatError(
                f"{path}: this file exists and is not a DuckDB store (a data file? ingest it instead: "
                f"`ranktrust ingest {path} --db results.duckdb`); nothing was written to it"
            )


# --------------------------------------------------------------------- store
class Store:
    """A DuckDB file of per-item results.

    Parameters
    ----------
    path : str or os.PathLike
        The DuckDB file (created when missing, unless ``read_only``).
    read_only : bool, default: False
        Open without write access (several readers may share the file).

    Notes
    -----
    One long table ``results(task, model, item, run, condition, metric, score,
    source_file, ingested_at)`` plus item metadata (``items``: group, ``doc_hash``),
    model order (``models``) and a ``files`` table of what was ingested (path, SHA-256,
    size, rows). See ``docs/store.md``.
    """

    def __init__(self, path: "str | os.PathLike[str]", *, read_only: bool = False) -> None:
        import duckdb

        self.path = os.fspath(path)
        self.read_only = read_only
        _check_store_path(self.path)
        if read_only and not os.path.exists(self.path):
            raise DataError(f"{self.path}: no such store; create it with `ranktrust ingest FILES --db {self.path}`")
        try:
            self.con = duckdb.connect(self.path, read_only=read_only)
        except duckdb.IOException as exc:
            raise DataError(f"{self.path}: cannot open the store ({str(exc).splitlines()[0]})") from None
        except duckdb.Error as exc:
            raise FormatError(f"{self.path}: not a DuckDB store ({str(exc).splitlines()[0]})") from None
        # DuckDB opens some paths (an existing .parquet/.csv, ":memory:") as an in-memory database:
        # ingesting there would report rows that are never stored
        on_disk = self.con.execute(
            "SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()
        if not on_disk or not on_disk[0]:
            self.con.close()
            raise FormatError(
                f"{self.path}: DuckDB opened this as an in-memory database, so nothing would be stored; "
                "give the path of a DuckDB store file, e.g. results.duckdb"
            )
        if not read_only:
            self.con.execute(_SCHEMA)
            self.con.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])
        else:
            have = {r[0] for r in self.con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
            if "results" not in have:
                raise FormatError(f"{self.path}: not a ranktrust store (no 'results' table)")

    # ------------------------------------------------------------- lifecycle
    def close(self) -> None:
        """Close the connection."""
        self.con.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Store {self.path}{' (read-only)' if self.read_only else ''}>"

    # ----------------------------------------------------------------- ingest
    def ingest(
        self,
        paths: "str | os.PathLike[str] | Sequence[str | os.PathLike[str]]",
        *,
        format: str = "auto",
        options: ReadOptions | None = None,
        replace: bool = False,
    ) -> IngestSummary:
        """Add files (or directories of logs) to the store, one transaction per file.

        Parameters
        ----------
        paths : path or sequence of paths
            Files or directories; a directory expands into the files its reader reads
            (e.g. every ``samples_*.jsonl`` of an lm-eval output folder).
        format : str, default: ``"auto"``
            Reader name; ``"auto"`` sniffs each path.
        options : ReadOptions, optional
            Reader options (``task``, ``metric``, ``model_name``, ``errors`` ...). For an
            input without a task column, ``options.task`` names the task; the default is
            the file name without its suffix (tables) or the reader name.
        replace : bool, default: False
            Replace the rows of a file that changed since it was ingested (by path).
            Without it a changed file is an error.

        Returns
        -------
        IngestSummary
            Per file: added (rows), skipped (why) or replaced (rows removed / added).

        Raises
        ------
        DataError, FormatError
            Naming the file (and row/item); that file's rows are not added and the
            store is as it was before that file. Files before it stay ingested.
        """
        if self.read_only:
            raise DataError(f"{self.path}: the store is open read-only; open it with read_only=False to ingest")
        opts = options or ReadOptions()
        plist = [os.fspath(paths)] if isinstance(paths, (str, os.PathLike)) else [os.fspath(p) for p in paths]
        if not plist:
            raise DataError("no input files given")
        outcomes: list[FileOutcome] = []
        notes: list[str] = []
        regs = readers()
        units: list[tuple[str, Reader]] = []
        for p in plist:
            if not os.path.exists(p):
                raise FormatError(f"{p}: no such file or directory")
            if format == "auto":
                rd = sniff(p)
            else:
                if format not in regs:
                    raise FormatError(f"unknown format {format!r}; known formats: {', '.join(sorted(regs))}")
                rd = regs[format]
            lister = _module_fn(rd, "files")
            found = lister(p) if (lister is not None and os.path.isdir(p)) else [p]
            if not found:
                raise DataError(f"{p}: no {rd.name} files found in this directory")
            units += [(u, rd, os.path.isdir(p)) for u in found]
        self._seen: dict[str, set[str]] = {"task": set(), "metric": set()}
        # one transaction for the whole command: a file that fails (or a kill) leaves the store as it was
        # before the command, so a retry (with other options, say --errors drop) never meets half of it
        self.con.execute("BEGIN TRANSACTION")
        try:
            for u, rd, from_dir in units:
                unit_skip = _module_fn(rd, "unit_skip")
                if from_dir and unit_skip is not None:
                    why = unit_skip(u, opts, self._seen)
                    if why is not None:  # a file of another task / without the metric, found in a folder
                        outcomes.append(FileOutcome(os.path.abspath(u), "skipped", reason=f"no rows for {why}"))
                        continue
                try:
                    out, file_notes = self._ingest_file(u, rd, opts, replace=replace)
                except (DataError, FormatError) as exc:
                    done = sum(1 for o in outcomes if o.action != "skipped")
                    if done:
                        raise type(exc)(f"{exc.message} (nothing was ingested: the {done} files before it were "
                                        "rolled back too, the store is as it was)") from None
                    raise
                outcomes.append(out)
                notes += file_notes
            if units and all(o.action == "skipped" and o.reason.startswith("no rows for") for o in outcomes):
                what = "task" if opts.task and self._seen["task"] else "metric"
                chosen = opts.task if what == "task" else opts.metric
                raise DataError(
                    f"{plist[0]}: no {what} {chosen!r} in the input; available: "
                    f"{', '.join(sorted(self._seen[what])[:20]) or 'none'}"
                )
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            self._drop_stage()
            raise
        return IngestSummary(self.path, tuple(outcomes), tuple(notes))

    def _ingest_file(self, path: str, rd: Reader, opts: ReadOptions, *, replace: bool) -> tuple[FileOutcome, list[str]]:
        afile = os.path.abspath(path)
        sig = _options_signature(opts, rd.name)
        # the unit key: a file read with non-default options (e.g. another --metric) is a separate unit
        apath = afile + (f" [{sig}]" if sig else "")
        comp = _module_fn(rd, "companions")
        deps = [afile] + ([os.path.abspath(c) for c in comp(path)] if comp is not None else [])
        stat0 = _stat(deps)
        sha, size = _fingerprint(deps)
        same = self.con.execute("SELECT path FROM files WHERE sha256 = ? AND options = ?", [sha, sig]).fetchall()
        prev = self.con.execute("SELECT sha256, rows, ingested_at FROM files WHERE path = ?", [apath]).fetchone()
        if prev is not None and prev[0] == sha:
            return FileOutcome(apath, "skipped", reason="already ingested (same content)"), []
        if prev is None and same:
            return FileOutcome(apath, "skipped", reason=f"same content already ingested as {same[0][0]}"), []
        if prev is not None and not replace:
            raise DataError(
                f"{apath} changed since it was ingested on {prev[2]:%Y-%m-%d %H:%M} (SHA-256 {prev[0][:12]}… now "
                f"{sha[:12]}…); pass --replace (replace=True) to replace its {prev[1]} rows, or ingest it under another path"
            )
        now = _now()
        con = self.con
        # runs inside the transaction of ingest(): an error here rolls back the whole command
        notes = self._stage(path, apath, rd, opts)
        n_staged = self._stg_rows
        if n_staged is None:
            n_staged = int(con.execute("SELECT count(*) FROM _stg").fetchone()[0])
        if n_staged == 0:  # nothing for this selection: leave the file's earlier rows alone
            self._drop_stage()
            what = " and ".join(f"--{k} {getattr(opts, k)!r}" for k in ("task", "metric") if getattr(opts, k))
            return FileOutcome(apath, "skipped", reason=f"no rows for {what or 'this selection'}"), []
        removed = 0
        if prev is not None:
            removed = int(con.execute("SELECT count(*) FROM results WHERE source_file = ?", [apath]).fetchone()[0])
            con.execute("DELETE FROM results WHERE source_file = ?", [apath])
            con.execute("DELETE FROM files WHERE path = ?", [apath])
            con.execute("DELETE FROM notes WHERE path = ?", [apath])
            con.execute("DELETE FROM items WHERE source_file = ? AND NOT EXISTS (SELECT 1 FROM results r "
                        "WHERE r.task = items.task AND r.item = items.item)", [apath])
            con.execute("DELETE FROM models WHERE NOT EXISTS (SELECT 1 FROM results r "
                        "WHERE r.task = models.task AND r.model = models.model)")
        if rd.name == "inspect":
            notes += self._number_inspect_runs(afile)
        rows = self._commit_stage(apath, now)
        if _stat(deps) != stat0:
            raise DataError(f"{afile}: the file changed while it was being ingested; nothing was added, try again")
        con.execute("INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [apath, afile, sig, sha, size, rows, rd.name, now])
        for n in notes:
            con.execute("INSERT INTO notes VALUES (?, ?)", [apath, n])
        self._drop_stage()
        if prev is not None:
            return FileOutcome(apath, "replaced", rows=rows, removed=removed,
                               reason=f"content changed (SHA-256 {prev[0][:12]}… -> {sha[:12]}…)"), notes
        return FileOutcome(apath, "added", rows=rows), notes

    # staging ---------------------------------------------------------------
    _stg_kind: str | None = None  # "TABLE" or "VIEW": what ``_stg`` is while a file is staged
    _stg_rows: int | None = None  # its row count, when staging already counted it

    def _drop_stage(self) -> None:
        if self._stg_kind is not None:
            self.con.execute(f"DROP {self._stg_kind} IF EXISTS _stg")
        self._stg_kind = self._stg_rows = None
    def _stage(self, path: str, apath: str, rd: Reader, opts: ReadOptions) -> list[str]:
        """Read ``path`` into the temporary table ``_stg``; returns the reader's notes."""
        con = self.con
        self._drop_stage()
        default_task = opts.task or (_stem(path) if rd.name == "table" else rd.name)
        if rd.name == "table" and path.lower().endswith((".parquet", ".pq")) and self._stage_parquet(path, opts, default_task):
            return []
        con.execute(
            "CREATE TEMP TABLE _stg(task VARCHAR, model VARCHAR, item VARCHAR, run VARCHAR, condition VARCHAR, "
            "metric VARCHAR, score DOUBLE, grp VARCHAR, doc_hash VARCHAR, _row BIGINT)"
        )
        self._stg_kind = "TABLE"
        notes: list[str] = []
        offset = 0
        n_in = 0
        self._stg_log = None
        for chunk in rd.read(path, opts):
            notes += list(chunk.attrs.get("notes", ()))
            self._stg_log = chunk.attrs.get("inspect_log", self._stg_log)
            n_in += len(chunk)
            df = self._normalize(chunk, path, opts, default_task, offset)
            offset += len(chunk)
            if len(df):
                con.register("_chunk", df)
                try:
                    con.execute("INSERT INTO _stg SELECT task, model, item, run, condition, metric, score, grp, "
                                "doc_hash, _row FROM _chunk")
                finally:
                    con.unregister("_chunk")
        if n_in == 0 and not notes:
            raise DataError(f"{path}: no rows were read")
        return notes

    def _normalize(self, chunk: "pd.DataFrame", path: str, opts: ReadOptions, default_task: str,
                   offset: int) -> "pd.DataFrame":
        import pandas as pd

        from ._long import _numeric_scores

        cols = set(map(str, chunk.columns))
        line_offset = 0 if chunk.attrs.get("line_numbers") else None
        for c in ("model", "item", "score"):
            if c not in cols:
                raise DataError(
                    f"{path}: missing column {c!r}; found {', '.join(map(repr, list(cols)[:12]))}. A long table "
                    "needs model, item and score columns (or pass --model-col/--item-col/--score-col)"
                )
        if "task" in cols and opts.task is not None:
            self._seen["task"].update(map(str, pd.unique(chunk["task"].dropna())))
            chunk = chunk[chunk["task"].astype(str) == opts.task]
        if "metric" in cols and opts.metric is not None:
            self._seen["metric"].update(map(str, pd.unique(chunk["metric"].dropna())))
            chunk = chunk[chunk["metric"].astype(str) == opts.metric]
        n = len(chunk)
        for c in ("model", "item"):
            nulls = chunk[c].isna().to_numpy()
            if nulls.any():
                k = int(np.flatnonzero(nulls)[0])
                where = f"line {chunk.index[k]}" if line_offset is not None else f"row {offset + k + 1}"
                raise DataError(f"{path}: {where}: the {c!r} column is empty; every row needs a {c}")
        score = _numeric_scores(chunk, "score", path, line_offset) if n else np.zeros(0)
        out = pd.DataFrame({
            "task": chunk["task"].astype(str).to_numpy() if "task" in cols else np.full(n, default_task, dtype=object),
            "model": chunk["model"].astype(str).to_numpy(),
            "item": chunk["item"].astype(str).to_numpy(),
        })
        run_col = opts.run_col or ("run" if "run" in cols else None)
        cond_col = opts.condition_col or ("condition" if "condition" in cols else None)
        for name, c, default in (("run", run_col, "0"), ("condition", cond_col, "")):
            if c is None:
                out[name] = default
                continue
            if c not in cols:
                raise DataError(f"{path}: no {name} column {c!r}; found {', '.join(map(repr, sorted(cols)[:12]))}")
            if chunk[c].isna().any():
                k = int(np.flatnonzero(chunk[c].isna().to_numpy())[0])
                raise DataError(f"{path}: row {offset + k + 1}: the {c!r} column is empty")
            out[name] = chunk[c].astype(str).to_numpy()
        out["metric"] = chunk["metric"].astype(str).to_numpy() if "metric" in cols else (opts.metric or "score")
        out["score"] = score
        gcol = resolve_group_col(sorted(cols), opts.group_col, path)
        out["grp"] = chunk[gcol].astype(object).where(chunk[gcol].notna(), None).map(
            lambda v: None if v is None else str(v)).to_numpy() if gcol else None
        out["doc_hash"] = chunk["doc_hash"].astype(object).where(chunk["doc_hash"].notna(), None).to_numpy() \
            if "doc_hash" in cols else None
        out["_row"] = np.arange(offset, offset + n, dtype=np.int64)
        return out

    def _stage_parquet(self, path: str, opts: ReadOptions, default_task: str) -> bool:
        """Fast path: ``_stg`` becomes a view over ``read_parquet`` of a long Parquet file.

        No pandas and no copy: the checks and the final ``INSERT ... SELECT`` all read the
        file through DuckDB. Returns False when the file is not a long table (the pandas
        reader handles it then).
        """
        con = self.con
        q = path.replace("'", "''")
        try:
            desc = con.execute(f"DESCRIBE SELECT * FROM read_parquet('{q}')").fetchall()
        except Exception as exc:  # duckdb raises several types for a bad file
            raise FormatError(f"{path}: not a readable Parquet file ({str(exc).splitlines()[0]})") from None
        cols = [r[0] for r in desc]
        if opts.wide or not (opts.model_col in cols and opts.item_col in cols and opts.score_col in cols):
            return False

        def ident(c: str) -> str:
            return '"' + c.replace('"', '""') + '"'

        def col_or(c: str | None, default: str | None) -> str:
            if c is not None and c in cols:
                return f"CAST({ident(c)} AS VARCHAR)"
            return "CAST(NULL AS VARCHAR)" if default is None else _sql_str(default)

        for name, c in (("run", opts.run_col), ("condition", opts.condition_col)):
            if c is not None and c not in cols:
                raise DataError(f"{path}: no {name} column {c!r}; found {', '.join(map(repr, cols[:12]))}")
        gcol = resolve_group_col(list(cols), opts.group_col, path)
        task = col_or("task", default_task)
        metric = col_or("metric", opts.metric or "score")
        where = []
        for k in ("task", "metric"):
            chosen = getattr(opts, k)
            if k in cols and chosen is not None:
                where.append(f"CAST({ident(k)} AS VARCHAR) = {_sql_str(chosen)}")
        # a view, not a copy: every check below and the final INSERT ... SELECT read the file
        # straight from read_parquet (fast: no staging table is written; the whole thing stays
        # inside this file's transaction)
        src = f"read_parquet({_sql_str(path)}, file_row_number = true)"
        con.execute(
            f"""CREATE TEMP VIEW _stg AS SELECT
                {task} AS task, CAST({ident(opts.model_col)} AS VARCHAR) AS model,
                CAST({ident(opts.item_col)} AS VARCHAR) AS item,
                {col_or(opts.run_col or 'run', '0')} AS run, {col_or(opts.condition_col or 'condition', '')} AS condition,
                {metric} AS metric, TRY_CAST({ident(opts.score_col)} AS DOUBLE) AS score,
                {col_or(gcol, None)} AS grp, {col_or('doc_hash', None)} AS doc_hash,
                file_row_number AS _row
            FROM {src}
            {('WHERE ' + ' AND '.join(where)) if where else ''}"""
        )
        self._stg_kind = "VIEW"
        n, bad = con.execute(
            "SELECT count(*), min(_row) FILTER (WHERE score IS NULL OR isnan(score) OR isinf(score) "
            "OR task IS NULL OR model IS NULL OR item IS NULL OR run IS NULL OR condition IS NULL OR metric IS NULL) "
            "FROM _stg"
        ).fetchone()
        if bad is not None:
            raise DataError(
                f"{path}: row {bad + 1}: a missing task/model/item/run/condition/metric or a score that is not a "
                "finite number; give every row a model, an item and a numeric score"
            )
        out = con.execute(
            "SELECT min(_row), count(*), min(score), max(score) FROM _stg WHERE score < 0 OR score > 1").fetchone()
        if out[0] is not None:
            from ._long import _HUGE

            lo, hi = float(out[2]), float(out[3])
            hint = ("these look like percentages: divide by 100 before ingesting" if lo >= 0 and hi <= 100 and hi < _HUGE
                    else "scores must be fractions in [0, 1] (0/1 correct, or a partial credit)")
            raise DataError(
                f"{path}: row {out[0] + 1}: a score outside [0, 1] ({out[1]} such rows; scores range from "
                f"{lo:g} to {hi:g}); {hint}"
            )
        self._stg_rows = int(n)
        if n == 0:  # say what the file holds when the --task/--metric filter matched nothing
            for k in ("task", "metric"):
                if k in cols and getattr(opts, k) is not None:
                    self._seen[k].update(r[0] for r in con.execute(
                        f"SELECT DISTINCT CAST({ident(k)} AS VARCHAR) FROM read_parquet({_sql_str(path)}) "
                        f"WHERE {ident(k)} IS NOT NULL").fetchall())
        return True

    _stg_log: dict | None = None  # the inspect log being staged (its eval_id), if any

    def _number_inspect_runs(self, afile: str) -> list[str]:
        """Runs of a model from another inspect log are more runs: shift this log's epochs past them.

        inspect numbers each log's epochs from 1. The rows already in the store for a (task, model,
        metric) that come from *other* files make this log's runs start after theirs, as reading the
        folder does. The same log again (same ``eval_id``, e.g. a ``.eval`` and its ``.json``) is an
        error naming the file that holds it.
        """
        con = self.con
        ident = self._stg_log
        if ident is None:
            return []
        key = f"inspect_log:{ident['id']}"
        have = con.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        if have is not None and have[0] != afile and con.execute(
                "SELECT 1 FROM files WHERE file = ? LIMIT 1", [have[0]]).fetchone() is not None:
            raise DataError(
                f"{afile}: this inspect log (eval_id {ident['id']}) is already in the store from {have[0]}: the same "
                "run logged twice (a .eval and its .json copy?); ingest only one of them"
            )
        con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [key, afile])
        notes = []
        groups = con.execute("SELECT DISTINCT task, model, metric FROM _stg").fetchall()
        for task, model, metric in groups:
            top = con.execute(
                "SELECT max(TRY_CAST(r.run AS BIGINT)) FROM results r JOIN files f ON r.source_file = f.path "
                "WHERE r.task = ? AND r.model = ? AND r.metric = ? AND f.file <> ?", [task, model, metric, afile]
            ).fetchone()[0]
            if top is None or top <= 0:
                continue
            if con.execute("SELECT 1 FROM _stg WHERE task = ? AND model = ? AND metric = ? AND "
                           "TRY_CAST(run AS BIGINT) IS NULL LIMIT 1", [task, model, metric]).fetchone():
                continue  # not epoch numbers: leave them (a clash is then reported as usual)
            con.execute(
                "UPDATE _stg SET run = CAST(TRY_CAST(run AS BIGINT) + ? AS VARCHAR) "
                "WHERE task = ? AND model = ? AND metric = ?", [int(top), task, model, metric]
            )
            lo, hi = con.execute(
                "SELECT min(TRY_CAST(run AS BIGINT)), max(TRY_CAST(run AS BIGINT)) FROM _stg "
                "WHERE task = ? AND model = ? AND metric = ?", [task, model, metric]).fetchone()
            runs = f"run {lo}" if lo == hi else f"runs {lo}-{hi}"
            before = "run 1" if top == 1 else f"runs 1-{top}"
            notes.append(f"model {model!r} (task {task}) already has {before} from other inspect logs: "
                         f"{os.path.basename(afile)} is stored as {runs}")
        return notes

    def _commit_stage(self, apath: str, now: _dt.datetime) -> int:
        """Validate ``_stg`` against itself and the store, then insert; returns rows added.

        ``_stg`` is a temporary table (readers that yield DataFrames) or a view over
        ``read_parquet`` (long Parquet files). Every check is one SQL query over it; the
        rows go into ``results`` with one ``INSERT ... SELECT`` at the end.
        """
        con = self.con
        n = self._stg_rows
        if n is None:
            n = int(con.execute("SELECT count(*) FROM _stg").fetchone()[0])
        if n == 0:
            return 0
        key = "task, model, item, run, condition, metric"
        gkey = "task, model, run, condition, metric"
        # the file's (task, model, run, condition, metric) groups and its items (with a dense code),
        # each a small hash aggregate over the staged rows
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE _groups AS SELECT {gkey}, count(*) AS n, min(_row) AS first "
            "FROM _stg GROUP BY ALL"
        )
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _items AS SELECT task, item, min(_row) AS first, min(grp) AS grp, "
            "max(grp) AS grp2, min(doc_hash) AS doc_hash, max(doc_hash) AS doc_hash2, "
            "row_number() OVER () - 1 AS code FROM _stg GROUP BY task, item"
        )
        n_groups = int(con.execute("SELECT count(*) FROM _groups").fetchone()[0])
        n_items = int(con.execute("SELECT count(*) FROM _items").fetchone()[0])
        # duplicate keys inside the file. Exact either way:
        # - per group, a bitmap of the item codes seen: a group has a duplicate item exactly when
        #   its row count exceeds the number of bits set (one pass; bitmaps of n_items bits each)
        # - when those bitmaps would be too large, a repeated hash of the key: equal keys have
        #   equal hashes, so no repeated hash proves there are none
        if n_groups * n_items <= _BITMAP_BITS:
            suspects = (
                f"SELECT s.* FROM _stg s SEMI JOIN (SELECT {gkey} FROM (SELECT s.task, s.model, s.run, s.condition, "
                f"s.metric, count(*) AS n, bitstring_agg(i.code, 0, {max(n_items - 1, 0)}) AS b FROM _stg s JOIN "
                f"_items i USING (task, item) GROUP BY ALL) WHERE n <> bit_count(b)) g USING ({gkey})"
            )
        else:
            suspects = (
                f"SELECT * FROM _stg WHERE hash({key}) IN (SELECT h FROM (SELECT hash({key}) AS h FROM _stg) "
                "GROUP BY h HAVING count(*) > 1)"
            )
        if con.execute(f"SELECT 1 FROM ({suspects}) LIMIT 1").fetchone() is not None:
            dup = con.execute(
                f"SELECT {key}, list(_row ORDER BY _row) FROM ({suspects}) "
                "GROUP BY ALL HAVING count(*) > 1 ORDER BY min(_row) LIMIT 1"
            ).fetchone()
            if dup is not None:
                rows = dup[6]
                raise DataError(
                    f"{apath}: rows {rows[0] + 1} and {rows[1] + 1}: duplicate entry for model {dup[1]!r}, item "
                    f"{dup[2]!r}, run {dup[3]!r} (task {dup[0]!r}, metric {dup[5]!r}); keep one row per key, or add "
                    "a 'run' column if these are repeats"
                )
        # rows that would duplicate rows already in the store: only possible for a (task, model)
        # the store already holds (the small ``models`` table); only then are rows joined
        if con.execute("SELECT 1 FROM _groups g JOIN models m USING (task, model) LIMIT 1").fetchone() is not None:
            clash = con.execute(
                f"SELECT s.task, s.model, s.item, s.run, s.metric, r.source_file FROM _stg s JOIN "
                f"(SELECT r.* FROM results r SEMI JOIN _groups g USING ({gkey})) r USING ({key}) "
                "ORDER BY s._row LIMIT 1"
            ).fetchone()
            if clash is not None:
                raise DataError(
                    f"{apath}: model {clash[1]!r}, item {clash[2]!r}, run {clash[3]!r} (task {clash[0]!r}, metric "
                    f"{clash[4]!r}) is already in the store from {clash[5]}; nothing was overwritten. Use "
                    "--model-name/--task to store it under another name, or re-ingest that file with --replace"
                )
        # item metadata: one group and one doc_hash per item, consistent with the store
        bad = con.execute("SELECT task, item, grp, grp2 FROM _items WHERE grp <> grp2 LIMIT 1").fetchone()
        if bad is not None:
            raise DataError(f"{apath}: item {bad[1]!r} (task {bad[0]!r}) is in group {bad[2]!r} and {bad[3]!r}; "
                            "each item needs one group")
        bad = con.execute("SELECT task, item FROM _items WHERE doc_hash <> doc_hash2 LIMIT 1").fetchone()
        if bad is not None:
            raise DataError(f"{apath}: item {bad[1]!r} (task {bad[0]!r}) has two different doc_hash values in this file")
        bad = con.execute(
            "SELECT n.task, n.item, n.doc_hash, i.doc_hash, i.source_file FROM _items n JOIN items i USING (task, item) "
            "WHERE n.doc_hash IS NOT NULL AND i.doc_hash IS NOT NULL AND n.doc_hash <> i.doc_hash LIMIT 1"
        ).fetchone()
        if bad is not None:
            raise DataError(
                f"{apath}: item {bad[1]!r} of task {bad[0]!r} has doc_hash {bad[2][:12]}… but {bad[3][:12]}… in "
                f"{bad[4]}: the logs were made from different versions of the dataset, so their items do not align"
            )
        bad = con.execute(
            "SELECT n.task, n.item, n.grp, i.\"group\", i.source_file FROM _items n JOIN items i USING (task, item) "
            "WHERE n.grp IS NOT NULL AND i.\"group\" IS NOT NULL AND n.grp <> i.\"group\" LIMIT 1"
        ).fetchone()
        if bad is not None:
            raise DataError(
                f"{apath}: item {bad[1]!r} of task {bad[0]!r} is in group {bad[2]!r} here but {bad[3]!r} in {bad[4]}; "
                "each item needs one group (pass --group-col or --no-groups)"
            )
        con.execute(
            "UPDATE items SET \"group\" = coalesce(items.\"group\", n.grp), doc_hash = coalesce(items.doc_hash, n.doc_hash) "
            "FROM _items n WHERE items.task = n.task AND items.item = n.item "
            "AND ((items.\"group\" IS NULL AND n.grp IS NOT NULL) OR (items.doc_hash IS NULL AND n.doc_hash IS NOT NULL))"
        )
        con.execute(
            "INSERT INTO items SELECT n.task, n.item, coalesce(b.base, -1) + row_number() OVER (PARTITION BY n.task "
            "ORDER BY n.first), n.grp, n.doc_hash, ? FROM _items n LEFT JOIN (SELECT task, max(pos) AS base FROM items "
            "GROUP BY task) b USING (task) WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.task = n.task AND i.item = n.item)",
            [apath],
        )
        con.execute(
            "INSERT INTO models SELECT n.task, n.model, coalesce(b.base, -1) + row_number() OVER (PARTITION BY n.task "
            "ORDER BY n.first) FROM (SELECT task, model, min(first) AS first FROM _groups GROUP BY task, model) n "
            "LEFT JOIN (SELECT task, max(pos) AS base FROM models GROUP BY task) b USING (task) "
            "WHERE NOT EXISTS (SELECT 1 FROM models m WHERE m.task = n.task AND m.model = n.model)"
        )
        con.execute(
            "INSERT INTO results SELECT task, model, item, run, condition, metric, score, ?, ? FROM _stg",
            [apath, now],
        )
        con.execute("DROP TABLE IF EXISTS _items")
        con.execute("DROP TABLE IF EXISTS _groups")
        return n

    # ------------------------------------------------------------------ reads
    def _choose(self, what: str, values: list[str], chosen: str | None, flag: str, ctx: str) -> str:
        if chosen is not None:
            if chosen not in values:
                raise DataError(f"{self.path}: no {what} {chosen!r}{ctx}; available: {', '.join(sorted(values)[:30]) or 'none'}")
            return chosen
        if not values:
            raise DataError(f"{self.path}: the store holds no results{ctx}; add some with `ranktrust ingest FILES --db {self.path}`")
        if len(values) > 1:
            raise DataError(
                f"{self.path}: the store holds {len(values)} {what}s{ctx} ({', '.join(sorted(values)[:20])}"
                f"{' ...' if len(values) > 20 else ''}); pick one with {flag} NAME"
            )
        return values[0]

    def tasks(self) -> list[str]:
        """Task names in the store."""
        return [r[0] for r in self.con.execute("SELECT DISTINCT task FROM results ORDER BY task").fetchall()]

    def matrix(
        self,
        *,
        task: str | None = None,
        metric: str | None = None,
        models: Sequence[str] | None = None,
        align: AlignPolicy = "error",
    ) -> ScoreMatrix:
        """Build a :class:`ScoreMatrix` for one task and metric.

        Parameters
        ----------
        task, metric : str, optional
            Required when the store (or the task) holds several; the error lists them.
        models : sequence of str, optional
            Keep only these models (in this order).
        align : {"error", "intersect", "pairwise"}, default: ``"error"``
            As in :meth:`ScoreMatrix.align`.

        Returns
        -------
        ScoreMatrix
            Models and items in first-ingested order, runs as ``(condition, run)``,
            groups and notes from the item metadata and the readers.
        """
        import pandas as pd

        con = self.con
        task = self._choose("task", self.tasks(), task, "--task", "")
        metrics = [r[0] for r in con.execute("SELECT DISTINCT metric FROM results WHERE task = ? ORDER BY 1", [task]).fetchall()]
        metric = self._choose("metric", metrics, metric, "--metric", f" for task {task!r}")
        mrows = con.execute(
            "SELECT m.model FROM models m WHERE m.task = ? AND m.model IN (SELECT DISTINCT model FROM results "
            "WHERE task = ? AND metric = ?) ORDER BY m.pos", [task, task, metric]
        ).fetchall()
        model_list = [r[0] for r in mrows]
        if models is not None:
            missing = [m for m in models if m not in set(model_list)]
            if missing:
                import difflib

                close = difflib.get_close_matches(missing[0], model_list, n=3, cutoff=0.5)
                hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
                raise DataError(f"{self.path}: no model {missing[0]!r} in task {task!r}{hint}")
            model_list = list(models)
        irows = con.execute(
            "SELECT i.item, i.\"group\" FROM items i WHERE i.task = ? AND i.item IN (SELECT DISTINCT item FROM results "
            "WHERE task = ? AND metric = ?) ORDER BY i.pos", [task, task, metric]
        ).fetchall()
        item_list = [r[0] for r in irows]
        group_list = [r[1] for r in irows]
        krows = con.execute(
            "SELECT DISTINCT condition, run FROM results WHERE task = ? AND metric = ? "
            "ORDER BY condition, TRY_CAST(run AS BIGINT) NULLS LAST, run", [task, metric]
        ).fetchall()
        mdf = pd.DataFrame({"model": model_list, "mi": np.arange(len(model_list), dtype=np.int64)})
        idf = pd.DataFrame({"item": item_list, "ii": np.arange(len(item_list), dtype=np.int64)})
        kdf = pd.DataFrame({"condition": [k[0] for k in krows], "run": [k[1] for k in krows],
                            "ki": np.arange(len(krows), dtype=np.int64)})
        con.register("_m", mdf)
        con.register("_i", idf)
        con.register("_k", kdf)
        try:
            res = con.execute(
                "SELECT _m.mi, _i.ii, _k.ki, r.score FROM results r JOIN _m USING (model) JOIN _i USING (item) "
                "JOIN _k USING (condition, run) WHERE r.task = ? AND r.metric = ?", [task, metric]
            ).fetchnumpy()
        finally:
            for v in ("_m", "_i", "_k"):
                con.unregister(v)
        n_m, n_i, n_k = len(model_list), len(item_list), len(krows)
        mi, ii, ki = (np.asarray(res[c], dtype=np.int64) for c in ("mi", "ii", "ki"))
        flat = (mi * n_i + ii) * n_k + ki
        counts = np.bincount(flat, minlength=n_m * n_i * n_k)
        if counts.size and counts.max() > 1:
            f = int(np.flatnonzero(counts > 1)[0])
            m_, rest = divmod(f, n_i * n_k)
            i_, k_ = divmod(rest, n_k)
            raise DataError(
                f"{self.path}: model {model_list[m_]!r}, item {item_list[i_]!r}, run {krows[k_][1]!r} of task "
                f"{task!r} has {int(counts[f])} rows; remove the duplicate file with --replace"
            )
        data = np.full(n_m * n_i * n_k, np.nan)
        data[flat] = np.asarray(res["score"], dtype=np.float64)
        data = data.reshape(n_m, n_i, n_k)
        conds = [k[0] for k in krows]
        if all(c == "" for c in conds):
            runs = [k[1] for k in krows]
            conditions = None
        else:
            runs = [f"{c}/{r}" for c, r in krows]
            conditions = conds
        groups = None if all(g is None for g in group_list) else [("" if g is None else g) for g in group_list]
        notes = [r[0] for r in con.execute(
            "SELECT n.note FROM notes n WHERE n.path IN (SELECT DISTINCT source_file FROM results WHERE task = ? "
            "AND metric = ?) ORDER BY n.path", [task, metric]).fetchall()]
        prov: dict[str, dict] = {}
        for model, fmt, paths in con.execute(
                "SELECT r.model, f.format, list(DISTINCT r.source_file ORDER BY r.source_file) FROM results r "
                "LEFT JOIN files f ON f.path = r.source_file WHERE r.task = ? AND r.metric = ? "
                "GROUP BY r.model, f.format", [task, metric]).fetchall():
            if model in prov:   # one model from files of several formats
                prov[model]["harness"] = ", ".join(sorted({prov[model]["harness"] or "", fmt or ""} - {""})) or None
                prov[model]["files"] = sorted(set(prov[model]["files"]) | set(paths or []))
            else:
                prov[model] = {"harness": fmt, "task": task, "split": None, "metric": metric,
                               "files": list(paths or [])}
        m = ScoreMatrix(
            data, tuple(model_list), tuple(item_list), runs=tuple(runs), groups=groups, conditions=conditions,
            source=f"{self.path} (task {task}, metric {metric})", notes=tuple(notes),
            provenance={k: prov[k] for k in model_list if k in prov},
        )
        return m.align(align)

    def list(self) -> StoreSummary:
        """What the store holds: per (task, metric) models, items, runs and rows."""
        rows = self.con.execute(
            "SELECT task, metric, count(DISTINCT model), count(DISTINCT item), count(DISTINCT (condition, run)), "
            "count(*), list(DISTINCT model ORDER BY model) FROM results GROUP BY task, metric ORDER BY task, metric"
        ).fetchall()
        n_files = int(self.con.execute("SELECT count(*) FROM files").fetchone()[0])
        tasks = tuple(TaskSummary(r[0], r[1], int(r[2]), int(r[3]), int(r[4]), int(r[5]), tuple(r[6])) for r in rows)
        return StoreSummary(self.path, tasks, n_files, int(sum(t.rows for t in tasks)))

    def files(self) -> "pd.DataFrame":
        """The ``files`` table: path, sha256, size, rows, format, ingested_at."""
        return self.con.execute("SELECT * FROM files ORDER BY ingested_at, path").df()

    def export_parquet(
        self,
        path: "str | os.PathLike[str]",
        *,
        task: str | None = None,
        metric: str | None = None,
        models: Sequence[str] | None = None,
    ) -> int:
        """Write results (optionally one task / metric / some models) as a long Parquet file.

        Columns ``task, model, item, run, [condition,] metric, score, group, doc_hash``;
        the file reads back with ``rt.read(path, task=..., metric=...)``. Returns the
        number of rows written.
        """
        where, params = [], []
        if task is not None:
            if task not in self.tasks():
                raise DataError(f"{self.path}: no task {task!r}; available: {', '.join(self.tasks())}")
            where.append("r.task = ?")
            params.append(task)
        if metric is not None:
            where.append("r.metric = ?")
            params.append(metric)
        if models is not None:
            where.append("list_contains(?, r.model)")
            params.append(list(models))
        w = ("WHERE " + " AND ".join(where)) if where else ""
        base = f"FROM results r LEFT JOIN items i USING (task, item) {w}"
        has_cond, has_grp, has_hash = self.con.execute(
            f"SELECT count(*) FILTER (r.condition <> ''), count(i.\"group\"), count(i.doc_hash) {base}", params
        ).fetchone()
        out = os.fspath(path).replace("'", "''")
        extra = ("r.condition, " if has_cond else "")
        meta = (', i."group" AS "group"' if has_grp else "") + (", i.doc_hash" if has_hash else "")
        self.con.execute(
            f"""COPY (SELECT r.task, r.model, r.item, r.run, {extra}r.metric, r.score{meta}
                FROM results r LEFT JOIN items i USING (task, item) LEFT JOIN models mo USING (task, model) {w}
                ORDER BY r.task, r.metric, mo.pos, i.pos, r.condition, r.run) TO '{out}' (FORMAT parquet)""",
            params,
        )
        return int(self.con.execute(f"SELECT count(*) FROM results r {w}", params).fetchone()[0])
