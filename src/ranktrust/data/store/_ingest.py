"""Ingest: files (or folders of logs) into the store, one transaction per command.

:meth:`IngestMixin.ingest` expands each path with its reader (:func:`..readers._registry.plan_units`)
and hands each unit to an :class:`IngestContext`, the state of that one call: the options, what the
input held (for "no task X; available: ..."), and the staging table ``_stg`` of the unit being
ingested. Each unit is staged (a temporary table from the reader's chunks, or a view over a long
Parquet file), checked against the canonical-row rules of :mod:`.._canonical` in SQL, then inserted.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

import numpy as np

from ... import _validate
from ..._validate import Progress
from ...errors import DataError, FormatError
from ...results import Note, jsonable
from .._canonical import (KEY, REQUIRED, duplicate_key, looks_like_percent, missing_columns, numeric_scores,
                          resolve_group_col, sql_invalid_row, sql_out_of_range)
from .._canonical import check_scale
from ..readers._registry import ReadOptions, Reader, open_reader, plan_units, sniff
from ..readers._util import user_path
from ._results import FileOutcome, IngestSummary

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["IngestContext", "IngestMixin"]

# the exact in-file duplicate check keeps one bitmap of the file's items per (task, model, run,
# condition, metric) group while it fits in this many bits (128 MiB); beyond, a hash GROUP BY
_BITMAP_BITS = 1 << 30
_TABLE_SUFFIXES = (".csv.gz", ".tsv.gz", ".jsonl.gz", ".csv", ".tsv", ".parquet", ".pq", ".jsonl", ".ndjson", ".json")


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


def _options_signature(opts: ReadOptions, reader_name: str) -> str:
    """Canonical text of the read options that change what is read (empty for the defaults)."""
    default = ReadOptions()
    parts = []
    for k in ("task", "metric", "model_name", "errors", "model_col", "item_col", "score_col", "group_col",
              "run_col", "condition_col", "wide", "split", "dataset", "scale"):
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

#: rows of a reader's chunk checked and staged at a time (each slice is one progress update)
STAGE_SLICE_ROWS = 200_000


@dataclass
class IngestContext:
    """The state of one :meth:`IngestMixin.ingest` call (never kept on the store).

    ``seen`` collects the tasks and metrics the input holds, for the error when the chosen one
    matched nothing; ``stg_kind``/``stg_rows``/``stg_log``/``stg_skipped`` describe the unit being staged
    (``_stg`` is a temporary TABLE or a VIEW; its row count when staging counted it; the inspect
    log it holds; why the reader skipped it).
    """

    con: Any
    opts: ReadOptions
    replace: bool = False
    seen: dict[str, set[str]] = field(default_factory=lambda: {"task": set(), "metric": set()})
    stg_kind: str | None = None
    stg_rows: int | None = None
    stg_log: dict | None = None
    #: why the reader gave no rows for the unit (a header-only inspect log skipped with ``errors='drop'``)
    stg_skipped: list[str] = field(default_factory=list)
    #: called with the rows staged so far in this command, as they are staged (``ingest``'s progress)
    on_rows: Callable[[int], None] | None = None
    rows_read: int = 0
    #: the unit being committed, as the user gave it (messages name it so; the store keys files by absolute path)
    shown: str | None = None

    def count_rows(self, n: int) -> None:
        """Add ``n`` staged rows to the command's count and report it."""
        self.rows_read += int(n)
        if self.on_rows is not None:
            self.on_rows(self.rows_read)

    def ingest_file(self, path: str, rd: Reader) -> tuple[FileOutcome, list[str]]:
        """Stage, check and insert one unit (inside the command's transaction)."""
        opts, replace = self.opts, self.replace
        afile = os.path.abspath(path)
        sig = _options_signature(opts, rd.name)
        # the unit key: a file read with non-default options (e.g. another --metric) is a separate unit
        apath = afile + (f" [{sig}]" if sig else "")
        comp = getattr(rd, "companions", None)
        # a unit is a file, or a folder whose files the reader names as its companions (SWE-bench)
        deps = ([afile] if os.path.isfile(afile) else []) + (
            [os.path.abspath(c) for c in comp(path)] if comp is not None else [])
        stat0 = _stat(deps)
        sha, size = _fingerprint(deps)
        same = self.con.execute("SELECT path FROM files WHERE sha256 = ? AND options = ?", [sha, sig]).fetchall()
        prev = self.con.execute("SELECT sha256, rows, ingested_at FROM files WHERE path = ?", [apath]).fetchone()
        shown = path + (f" [{sig}]" if sig else "")   # the path as the user gave it (relative stays relative)
        if prev is not None and prev[0] == sha:
            return FileOutcome(shown, "skipped", reason="already ingested (same content)"), []
        if prev is None and same:
            return FileOutcome(shown, "skipped", reason=f"same content already ingested as "
                                                        f"{user_path(same[0][0], path)}"), []
        if prev is not None and not replace:
            raise DataError(
                f"{path} changed since it was ingested on {prev[2]:%Y-%m-%d %H:%M} (SHA-256 {prev[0][:12]}… now "
                f"{sha[:12]}…); pass `replace`=True to replace its {prev[1]} rows, or ingest it under another path"
            )
        now = _now()
        con = self.con
        # runs inside the transaction of ingest(): an error here rolls back the whole command
        notes = self.stage(path, apath, rd, opts)
        n_staged = self.stg_rows
        if n_staged is None:
            n_staged = int(con.execute("SELECT count(*) FROM _stg").fetchone()[0])
        if n_staged == 0:  # nothing for this selection: leave the file's earlier rows alone
            self.drop_stage()
            if notes:   # the reader said why it gave no rows (a header-only inspect log skipped with errors='drop');
                # a record (every sample errored and dropped) is worded by reporting/ among the notes
                why = "; ".join(self.stg_skipped) or "the reader gave no rows; its notes say why"
                return FileOutcome(shown, "skipped", reason=why), notes
            what = " and ".join(f"{k} {getattr(opts, k)!r}" for k in ("task", "metric") if getattr(opts, k))
            return FileOutcome(shown, "skipped", reason=f"no rows for {what or 'this selection'}"), []
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
        notes += self.number_inspect_runs(afile, path)   # nothing unless the chunks named their inspect log
        self.shown = path   # commit_stage's messages name the file as the user gave it
        rows = self.commit_stage(apath, now)
        if _stat(deps) != stat0:
            raise DataError(f"{path}: the file changed while it was being ingested; nothing was added, try again")
        con.execute("INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [apath, afile, sig, sha, size, rows, rd.name, now])
        for n in notes:   # a sentence, or a record (results.Note) as its JSON: reporting/ words it when read back
            con.execute("INSERT INTO notes VALUES (?, ?)", [apath, n if isinstance(n, str) else json.dumps(
                jsonable(n.to_dict()), sort_keys=True)])
        self.drop_stage()
        if prev is not None:
            return FileOutcome(shown, "replaced", rows=rows, removed=removed,
                               reason=f"content changed (SHA-256 {prev[0][:12]}… -> {sha[:12]}…)"), notes
        return FileOutcome(shown, "added", rows=rows), notes

    def drop_stage(self) -> None:
        if self.stg_kind is not None:
            self.con.execute(f"DROP {self.stg_kind} IF EXISTS _stg")
        self.stg_kind = self.stg_rows = None
    def stage(self, path: str, apath: str, rd: Reader, opts: ReadOptions) -> list[Note]:
        """Read ``path`` into the temporary table ``_stg``; returns the reader's notes."""
        con = self.con
        self.drop_stage()
        default_task = opts.task or (_stem(path) if rd.name == "table" else rd.name)
        if rd.name == "table" and path.lower().endswith((".parquet", ".pq")) and self.stage_parquet(path, opts, default_task):
            return []
        con.execute(
            "CREATE TEMP TABLE _stg(task VARCHAR, model VARCHAR, item VARCHAR, run VARCHAR, condition VARCHAR, "
            "metric VARCHAR, score DOUBLE, grp VARCHAR, doc_hash VARCHAR, _row BIGINT)"
        )
        self.stg_kind = "TABLE"
        notes: list[Note] = []
        offset = 0
        n_in = 0
        self.stg_log = None
        self.stg_skipped = []
        for whole in rd.read(path, opts):
            notes += list(whole.attrs.get("notes", ()))
            if not len(whole) and whole.attrs.get("skipped"):   # why the reader gave no rows (a header-only log)
                self.stg_skipped.append(str(whole.attrs["skipped"]))
            self.stg_log = whole.attrs.get("inspect_log", self.stg_log)
            n_in += len(whole)
            # a reader may hand over a whole 2M-row file as one chunk: it is checked and staged in slices,
            # so the progress display counts its rows as they go in
            for s0 in range(0, max(len(whole), 1), STAGE_SLICE_ROWS):
                chunk = whole if len(whole) <= STAGE_SLICE_ROWS else whole.iloc[s0:s0 + STAGE_SLICE_ROWS]
                chunk.attrs = whole.attrs
                df = self.normalize(chunk, path, opts, default_task, offset)
                offset += len(chunk)
                if len(df):
                    con.register("_chunk", df)
                    try:
                        con.execute("INSERT INTO _stg SELECT task, model, item, run, condition, metric, score, "
                                    "grp, doc_hash, _row FROM _chunk")
                    finally:
                        con.unregister("_chunk")
                if len(chunk):
                    self.count_rows(len(chunk))
        if n_in == 0 and not notes:
            raise DataError(f"{path}: no rows were read")
        return notes

    def normalize(self, chunk: "pd.DataFrame", path: str, opts: ReadOptions, default_task: str,
                   offset: int) -> "pd.DataFrame":
        import pandas as pd

        cols = set(map(str, chunk.columns))
        line_offset = 0 if chunk.attrs.get("line_numbers") else None
        need = [c for c in REQUIRED if c not in cols]
        if need:
            raise missing_columns(path, need, list(chunk.columns))
        if "task" in cols and opts.task is not None:
            self.seen["task"].update(map(str, pd.unique(chunk["task"].dropna())))
            chunk = chunk[chunk["task"].astype(str) == opts.task]
        if "metric" in cols and opts.metric is not None:
            self.seen["metric"].update(map(str, pd.unique(chunk["metric"].dropna())))
            chunk = chunk[chunk["metric"].astype(str) == opts.metric]
        n = len(chunk)
        for c in ("model", "item"):
            nulls = chunk[c].isna().to_numpy()
            if nulls.any():
                k = int(np.flatnonzero(nulls)[0])
                where = f"line {chunk.index[k]}" if line_offset is not None else f"row {offset + k + 1}"
                raise DataError(f"{path}: {where}: the {c!r} column is empty; every row needs a {c}")
        score = numeric_scores(chunk, "score", path, line_offset, opts.scale) if n else np.zeros(0)
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

    def stage_parquet(self, path: str, opts: ReadOptions, default_task: str) -> bool:
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
        if opts.wide or opts.scale is not None or not (opts.model_col in cols and opts.item_col in cols
                                                       and opts.score_col in cols):
            return False   # a declared score range is mapped by the pandas path (numeric_scores)
        types = {r[0]: str(r[1]).upper() for r in desc}
        labels = {opts.model_col, opts.item_col, opts.run_col or "run", opts.condition_col or "condition", "task",
                  "metric", resolve_group_col(list(cols), opts.group_col, path)}
        if any(types.get(c, "").startswith(("FLOAT", "DOUBLE", "REAL", "DECIMAL")) for c in labels if c):
            # floating-point ids: the table reader writes them as Arrow does (10.0 -> "10"), so rt.read and the
            # store give the same labels; SQL's CAST would write "10.0"
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
        self.stg_kind = "VIEW"
        n, bad = con.execute(f"SELECT count(*), min(_row) FILTER (WHERE {sql_invalid_row()}) FROM _stg").fetchone()
        if bad is not None:
            raise DataError(
                f"{path}: row {bad + 1}: a missing task/model/item/run/condition/metric or a score that is not a "
                "finite number; give every row a model, an item and a numeric score"
            )
        out = con.execute(
            f"SELECT min(_row), count(*), min(score), max(score) FROM _stg WHERE {sql_out_of_range()}").fetchone()
        if out[0] is not None:
            lo, hi = float(out[2]), float(out[3])
            hint = ("these look like percentages: divide by 100 before ingesting, or pass `scale`=100"
                    if looks_like_percent(lo, hi) else
                    "scores must be fractions in [0, 1] (0/1 correct, or a partial credit); declare the range the "
                    "scores are on with `scale`='MIN,MAX' (`scale`='-1,1' for right / abstained / wrong as +1 / 0 / -1)")
            raise DataError(
                f"{path}: row {out[0] + 1}: a score outside [0, 1] ({out[1]} such rows; scores range from "
                f"{lo:g} to {hi:g}); {hint}"
            )
        self.stg_rows = int(n)
        self.count_rows(int(n))
        if n == 0:  # say what the file holds when the --task/--metric filter matched nothing
            for k in ("task", "metric"):
                if k in cols and getattr(opts, k) is not None:
                    self.seen[k].update(r[0] for r in con.execute(
                        f"SELECT DISTINCT CAST({ident(k)} AS VARCHAR) FROM read_parquet({_sql_str(path)}) "
                        f"WHERE {ident(k)} IS NOT NULL").fetchall())
        return True

    def number_inspect_runs(self, afile: str, shown: str | None = None) -> list[Note]:
        """Runs of a model from another inspect log are more runs: shift this log's epochs past them.

        inspect numbers each log's epochs from 1. The rows already in the store for a (task, model,
        metric) that come from *other* files make this log's runs start after theirs, as reading the
        folder does. The same log again (same ``eval_id``, e.g. a ``.eval`` and its ``.json``) is an
        error naming the file that holds it.
        """
        con = self.con
        ident = self.stg_log
        if ident is None:
            return []
        key = f"inspect_log:{ident['id']}"
        have = con.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        if have is not None and have[0] != afile and con.execute(
                "SELECT 1 FROM files WHERE file = ? LIMIT 1", [have[0]]).fetchone() is not None:
            raise DataError(
                f"{shown or afile}: this inspect log (eval_id {ident['id']}) is already in the store from "
                f"{user_path(have[0], shown or afile)}: the same "
                "run logged twice (a .eval and its .json copy?); ingest only one of them"
            )
        con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [key, afile])
        notes: list[Note] = []
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
            notes.append(Note("inspect_runs_renumbered", {"model": model, "task": task, "n_before": int(top),
                                                          "file": os.path.basename(afile), "first_run": int(lo),
                                                          "last_run": int(hi)}))   # worded in reporting/
        return notes

    def commit_stage(self, apath: str, now: _dt.datetime) -> int:
        """Validate ``_stg`` against itself and the store, then insert; returns rows added.

        ``_stg`` is a temporary table (readers that yield DataFrames) or a view over
        ``read_parquet`` (long Parquet files). Every check is one SQL query over it; the
        rows go into ``results`` with one ``INSERT ... SELECT`` at the end.
        """
        con = self.con
        where = self.shown or apath   # messages name the file as the user gave it
        n = self.stg_rows
        if n is None:
            n = int(con.execute("SELECT count(*) FROM _stg").fetchone()[0])
        if n == 0:
            return 0
        key = ", ".join(KEY)
        gkey = ", ".join(c for c in KEY if c != "item")
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
                raise DataError(f"{where}: " + duplicate_key((rows[0] + 1, rows[1] + 1), dict(zip(KEY, dup))))
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
                    f"{where}: model {clash[1]!r}, item {clash[2]!r}, run {clash[3]!r} (task {clash[0]!r}, metric "
                    f"{clash[4]!r}) is already in the store from {user_path(clash[5], where)}; nothing was overwritten. Use "
                    "`model_name` or `task` to store it under another name, or re-ingest that file with `replace`=True"
                )
        # item metadata: one group and one doc_hash per item, consistent with the store
        bad = con.execute("SELECT task, item, grp, grp2 FROM _items WHERE grp <> grp2 LIMIT 1").fetchone()
        if bad is not None:
            raise DataError(f"{where}: item {bad[1]!r} (task {bad[0]!r}) is in group {bad[2]!r} and {bad[3]!r}; "
                            "each item needs one group")
        bad = con.execute("SELECT task, item FROM _items WHERE doc_hash <> doc_hash2 LIMIT 1").fetchone()
        if bad is not None:
            raise DataError(f"{where}: item {bad[1]!r} (task {bad[0]!r}) has two different doc_hash values in this file")
        bad = con.execute(
            "SELECT n.task, n.item, n.doc_hash, i.doc_hash, i.source_file, count(*) OVER (), "
            "(SELECT count(*) FROM _items) FROM _items n JOIN items i USING (task, item) "
            "WHERE n.doc_hash IS NOT NULL AND i.doc_hash IS NOT NULL AND n.doc_hash <> i.doc_hash LIMIT 1"
        ).fetchone()
        if bad is not None:
            raise DataError(
                f"{where}: {bad[5]} of its {bad[6]} items hold another question than the same item id in the store "
                f"(e.g. item {bad[1]!r} of task {bad[0]!r}: doc_hash {bad[2][:12]}… here, {bad[3][:12]}… in "
                f"{user_path(bad[4], where)}): the logs were made from different versions of the dataset, so their "
                "items do not align; ingest them by content with `item`='doc_hash'", param="item"
            )
        bad = con.execute(
            "SELECT n.task, n.item, n.grp, i.\"group\", i.source_file FROM _items n JOIN items i USING (task, item) "
            "WHERE n.grp IS NOT NULL AND i.\"group\" IS NOT NULL AND n.grp <> i.\"group\" LIMIT 1"
        ).fetchone()
        if bad is not None:
            raise DataError(
                f"{where}: item {bad[1]!r} of task {bad[0]!r} is in group {bad[2]!r} here but {bad[3]!r} in {user_path(bad[4], where)}; "
                "each item needs one group (name the group column with `group_col`, or `group_col`='' for none)"
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


class IngestMixin:
    """The write side of :class:`~ranktrust.data.store.Store` (needs ``self.con``, ``self.path``, ``self.read_only``)."""

    con: Any
    path: str
    read_only: bool

    def ingest(
        self,
        paths: "str | os.PathLike[str] | Sequence[str | os.PathLike[str]]",
        *,
        format: str = "auto",
        options: ReadOptions | None = None,
        replace: bool = False,
        progress: Progress = None,
    ) -> IngestSummary:
        """Add files (or directories of logs) to the store, one transaction per command.

        Parameters
        ----------
        paths : path or sequence of paths
            Files or directories; a directory expands into the units its reader reads
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
        progress : callable, optional
            Called as ``progress(rows, 0)`` with the rows read so far, before the first file and as
            rows are staged (every 200,000 rows of a large file; the total is not known before the
            files are read: 0), and as ``progress(rows, rows)`` at the end (the command line shows it
            on a terminal).

        Returns
        -------
        IngestSummary
            Per file: added (rows), skipped (why) or replaced (rows removed / added).

        Raises
        ------
        DataError, FormatError
            Naming the file (and row/item). Nothing of the command is added: the store is
            as it was before it.
        """
        if self.read_only:
            raise DataError(f"{self.path}: the store is open read-only; open it with `read_only`=False to ingest")
        opts = options or ReadOptions()
        check_scale(opts.scale)   # a bad range is refused before anything is read
        progress = _validate.progress(progress)
        plist = [os.fspath(paths)] if isinstance(paths, (str, os.PathLike)) else [os.fspath(p) for p in paths]
        if not plist:
            raise DataError("no input files given")
        ctx = IngestContext(self.con, opts, replace)
        if progress is not None:
            ctx.on_rows = lambda rows: progress(rows, 0)
        entries: list[tuple[str, Reader, Any]] = []
        for p in plist:
            if not os.path.exists(p):
                raise FormatError(f"{p}: no such file or directory")
            plan = plan_units(sniff(p) if format == "auto" else open_reader(format), p, opts)
            entries += [(u, plan.reader, why) for u, why in plan.entries]
        outcomes: list[FileOutcome] = []
        notes: list[Note] = []
        # one transaction for the whole command: a file that fails (or a kill) leaves the store as it was
        # before the command, so a retry (with other options, say errors="drop") never meets half of it
        self.con.execute("BEGIN TRANSACTION")
        try:
            if progress is not None:
                progress(0, 0)
            for u, rd, why in entries:
                if why is not None:  # a file of another task / without the metric, found in a folder
                    ctx.seen.setdefault(why.option, set()).update(why.found)
                    outcomes.append(FileOutcome(u, "skipped", reason=str(why)))
                    continue
                try:
                    out, file_notes = ctx.ingest_file(u, rd)
                except (DataError, FormatError) as exc:
                    done = sum(1 for o in outcomes if o.action != "skipped")
                    if done:
                        raise type(exc)(f"{exc.message} (nothing was ingested: the {done} files before it were "
                                        "rolled back too, the store is as it was)") from None
                    raise
                outcomes.append(out)
                notes += file_notes
            if entries and all(o.action == "skipped" and o.reason.startswith("no rows for") for o in outcomes):
                what = "task" if opts.task and ctx.seen["task"] else "metric"
                chosen = opts.task if what == "task" else opts.metric
                absent = getattr(entries[0][1], "absent", None)   # the reader may know why (lm-eval: no samples)
                said = absent(plist[0], what, chosen) if absent is not None and len(plist) == 1 else None
                if said:
                    raise DataError(f"{said}; available: {', '.join(sorted(ctx.seen[what])[:20]) or 'none'}",
                                    param=what)
                raise DataError(
                    f"{plist[0]}: no {what} {chosen!r} in the input; available: "
                    f"{', '.join(sorted(ctx.seen[what])[:20]) or 'none'}"
                )
            self.con.execute("COMMIT")
            if progress is not None:
                progress(ctx.rows_read, ctx.rows_read)
        except BaseException:
            self.con.execute("ROLLBACK")
            ctx.drop_stage()
            raise
        return IngestSummary(self.path, tuple(outcomes), tuple(notes))
