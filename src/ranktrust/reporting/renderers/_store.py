"""Renderers of the store and scoring summaries: ``ingest`` (IngestSummary), ``db list`` (StoreSummary) and
``score`` (ScoreResults)."""

from __future__ import annotations

from typing import Any

from .._fmt import count, plural, points
from .._markdown import _esc
from .._notes import note_text
from . import renderer
from ._csv import table_csv


# ---- ingest ---------------------------------------------------------------------------------------------
@renderer("ranktrust.data.store._results:IngestSummary", "text")
def ingest_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table

    t = Table(title=f"ingest into {d['db']}", title_justify="left")
    for c, j in (("file", "left"), ("action", "left"), ("rows", "right"), ("note", "left")):
        # fold long paths instead of cutting their ends (six lm-eval files all read "...seed…" - QA L8)
        t.add_column(c, justify=j, overflow="fold")  # type: ignore[arg-type]
    for f in d["files"]:
        note = f["reason"]
        if f["action"] == "replaced":
            note = f"{f['removed']:,} rows removed; {note}"
        t.add_row(f["path"], f["action"], count(f["rows"]), note)
    out: list[Any] = [t]
    counts = {a: sum(1 for f in d["files"] if f["action"] == a) for a in ("added", "skipped", "replaced")}
    out.append(f"{counts['added']} added, {counts['skipped']} skipped, {counts['replaced']} replaced; "
               f"{count(d['rows_added'])} rows added")
    out += [f"note: {note_text(n)}" for n in d["notes"]]
    return out


@renderer("ranktrust.data.store._results:IngestSummary", "md")
def ingest_markdown(d: dict[str, Any]) -> str:
    lines = [f"# ingest into `{d['db']}`", "", "| file | action | rows | note |", "|---|---|---:|---|"]
    for f in d["files"]:
        # no code span: a '|' in a path (lighteval's details_x|0_...parquet) must be escaped to keep the row
        lines.append(f"| {_esc(f['path'])} | {f['action']} | {count(f['rows'])} | {_esc(f['reason'] or '')} |")
    lines += ["", f"{count(d['rows_added'])} rows added."] + [f"- note: {_esc(note_text(n))}" for n in d["notes"]]
    return "\n".join(lines) + "\n"


@renderer("ranktrust.data.store._results:IngestSummary", "headline")
def ingest_headline(d: dict[str, Any]) -> str:
    """What was ingested, in one sentence: 'Ingested 3 of 4 files (1,200 rows) into runs.duckdb; 1 skipped.'"""
    files = d["files"]
    done = sum(1 for f in files if f["action"] in ("added", "replaced"))
    skipped = len(files) - done
    rest = f"; {count(skipped)} skipped (already stored or unreadable)" if skipped else ""
    return (f"Ingested {count(done)} of {plural(len(files), 'file')} ({plural(d['rows_added'], 'row')}) "
            f"into {d['db']}{rest}.")


@renderer("ranktrust.data.store._results:IngestSummary", "csv")
def ingest_csv(d: dict[str, Any]) -> str:
    cols = ["path", "action", "rows", "removed", "reason"]
    return table_csv(cols, ([f.get(c) for c in cols] for f in d["files"]))


# ---- db list --------------------------------------------------------------------------------------------
@renderer("ranktrust.data.store._results:StoreSummary", "text")
def store_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table

    t = Table(title=f"{d['db']}: {d['n_files']} files, {count(d['n_rows'])} rows", title_justify="left")
    for c, j in (("task", "left"), ("metric", "left"), ("models", "right"), ("items", "right"),
                 ("runs", "right"), ("rows", "right"), ("model names", "left")):
        t.add_column(c, justify=j)  # type: ignore[arg-type]
    for r in d["tasks"]:
        names = ", ".join(r["models"][:4]) + (f" … (+{len(r['models']) - 4})" if len(r["models"]) > 4 else "")
        t.add_row(r["task"], r["metric"], str(r["n_models"]), count(r["n_items"]), str(r["n_runs"]),
                  count(r["rows"]), names)
    return [t]


@renderer("ranktrust.data.store._results:StoreSummary", "md")
def store_markdown(d: dict[str, Any]) -> str:
    lines = [f"# `{d['db']}`: {count(d['n_files'])} files, {count(d['n_rows'])} rows", "",
             "| task | metric | models | items | runs | rows |", "|---|---|---:|---:|---:|---:|"]
    for r in d["tasks"]:
        lines.append(f"| {_esc(r['task'])} | {_esc(r['metric'])} | {count(r['n_models'])} | {count(r['n_items'])} | "
                     f"{count(r['n_runs'])} | {count(r['rows'])} |")
    return "\n".join(lines) + "\n"


@renderer("ranktrust.data.store._results:StoreSummary", "headline")
def store_headline(d: dict[str, Any]) -> str:
    """What the store holds, in one sentence: 'runs.duckdb holds 1,200 rows from 4 files: 2 tasks, 5 models.'"""
    models = {m for t in d["tasks"] for m in t.get("models") or ()}
    return (f"{d['db']} holds {plural(d['n_rows'], 'row')} from {plural(d['n_files'], 'file')}: "
            f"{plural(len(d['tasks']), 'task')}, {plural(len(models), 'model')}.")


@renderer("ranktrust.data.store._results:StoreSummary", "csv")
def store_csv(d: dict[str, Any]) -> str:
    cols = ["task", "metric", "n_models", "n_items", "n_runs", "rows"]
    return table_csv(cols, ([r.get(c) for c in cols] for r in d["tasks"]))


# ---- score ----------------------------------------------------------------------------------------------
@renderer("ranktrust.score._runner:ScoreResults", "text")
def score_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table

    t = Table(title="scored models", show_edge=False)
    for c in ("model", "rows", "items", "accuracy", "mean p(correct)", "letter token"):
        t.add_column(c, justify="left" if c in ("model", "letter token") else "right")
    for m in d["models"]:
        t.add_row(m["model"], str(m["rows"]), str(m["items"]), points(m["accuracy"]),
                  points(m["mean_prob"]), m["letter_tokens"] or "")
    lines: list[Any] = [t]
    where = f" to {d['out']}" if d["out"] else ""
    lines.append(f"{d['n_new']} new rows{where}; {d['n_skipped']} already done and skipped")
    if d.get("stored"):
        st = d["stored"]
        lines.append(f"store {st['db']}: {st['rows_added']} rows added")
    for name, msg in d["failed"].items():
        lines.append(f"FAILED {name}: {msg}")
    return lines


@renderer("ranktrust.score._runner:ScoreResults", "md")
def score_markdown(d: dict[str, Any]) -> str:
    rows = ["| model | rows | items | accuracy | mean p(correct) |", "|---|---:|---:|---:|---:|"]
    for m in d["models"]:
        rows.append(f"| {_esc(m['model'])} | {m['rows']} | {m['items']} | {points(m['accuracy'])} | "
                    f"{points(m['mean_prob'])} |")
    rows.append("")
    rows.append(f"{d['n_new']} new rows; {d['n_skipped']} already done.")
    for name, msg in d["failed"].items():
        rows.append(f"- **failed** {_esc(name)}: {_esc(msg)}")
    return "\n".join(rows) + "\n"


@renderer("ranktrust.score._runner:ScoreResults", "headline")
def score_headline(d: dict[str, Any]) -> str:
    """What was scored, in one sentence: 'Scored 2 models: 600 new rows to out.csv, 0 already done; 1 failed.'"""
    n = len(d["models"])
    where = f" to {d['out']}" if d.get("out") else ""
    failed = f"; {count(len(d['failed']))} failed" if d.get("failed") else ""
    return (f"Scored {plural(n, 'model')}: {plural(d['n_new'], 'new row')}{where}, "
            f"{count(d['n_skipped'])} already done{failed}.")


@renderer("ranktrust.score._runner:ScoreResults", "csv")
def score_csv(d: dict[str, Any]) -> str:
    cols = ["model", "rows", "items", "accuracy", "mean_prob"]
    return table_csv(cols, ([m.get(c) for c in cols] for m in d["models"]))
