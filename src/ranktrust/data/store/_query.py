"""Reading the store: one task's :class:`ScoreMatrix`, what it holds, and Parquet export."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ...errors import DataError
from ...results import Note
from .._matrix import AlignPolicy, ScoreMatrix
from ..readers._util import did_you_mean
from ._results import StoreSummary, TaskSummary

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["QueryMixin"]


class QueryMixin:
    """The read side of :class:`~ranktrust.data.store.Store` (needs ``self.con`` and ``self.path``)."""

    con: Any
    path: str

    def _choose(self, what: str, values: list[str], chosen: str | None, flag: str, ctx: str) -> str:
        if chosen is not None:
            if chosen not in values:
                raise DataError(f"{self.path}: no {what} {chosen!r}{ctx}{did_you_mean(chosen, values)}; available: "
                                f"{', '.join(sorted(values)[:30]) or 'none'}", param=what)
            return chosen
        if not values:
            raise DataError(f"{self.path}: the store holds no results{ctx}; add some with `Store.ingest`")
        if len(values) > 1:
            raise DataError(
                f"{self.path}: the store holds {len(values)} {what}s{ctx} ({', '.join(sorted(values)[:20])}"
                f"{' ...' if len(values) > 20 else ''}); pick one with `{flag}`='NAME'", param=flag
            )
        return values[0]

    def tasks(self) -> list[str]:
        """Task names in the store; an empty store is a DataError (it holds nothing to analyse)."""
        names = [r[0] for r in self.con.execute("SELECT DISTINCT task FROM results ORDER BY task").fetchall()]
        if not names:
            raise DataError(f"{self.path}: the store holds no results; add some with `Store.ingest`")
        return names

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
        task = self._choose("task", self.tasks(), task, "task", "")
        metrics = [r[0] for r in con.execute("SELECT DISTINCT metric FROM results WHERE task = ? ORDER BY 1", [task]).fetchall()]
        metric = self._choose("metric", metrics, metric, "metric", f" for task {task!r}")
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
                f"{task!r} has {int(counts[f])} rows; remove the duplicate file with `replace`=True"
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
        notes = [_note(r[0]) for r in con.execute(
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
                raise DataError(f"{self.path}: no task {task!r}{did_you_mean(task, self.tasks())}; available: "
                                f"{', '.join(self.tasks())}", param="task")
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


def _note(text: str) -> "str | Note":
    """A stored reader note: its sentence, or the record a reader gave (a :class:`~ranktrust.results.Note`,
    stored as its JSON ``{"code": ..., "data": ...}``)."""
    if text.startswith('{"code": '):
        import json

        d = json.loads(text)
        return Note(d["code"], d.get("data") or {})
    return text
