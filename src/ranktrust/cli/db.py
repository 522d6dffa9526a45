"""``ranktrust db``: look into a results store (``list``) and export it (``export``)."""

from __future__ import annotations

import os
from typing import Any

import click

from ._common import command_line, emit, output_format_option


def _text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table

    t = Table(title=f"{d['db']}: {d['n_files']} files, {d['n_rows']:,} rows", title_justify="left")
    for c, j in (("task", "left"), ("metric", "left"), ("models", "right"), ("items", "right"),
                 ("runs", "right"), ("rows", "right"), ("model names", "left")):
        t.add_column(c, justify=j)  # type: ignore[arg-type]
    for r in d["tasks"]:
        names = ", ".join(r["models"][:4]) + (f" … (+{len(r['models']) - 4})" if len(r["models"]) > 4 else "")
        t.add_row(r["task"], r["metric"], str(r["n_models"]), f"{r['n_items']:,}", str(r["n_runs"]),
                  f"{r['rows']:,}", names)
    return [t]


def _markdown(d: dict[str, Any]) -> str:
    from ..reporting.markdown import _esc

    lines = [f"# `{d['db']}`: {d['n_files']:,} files, {d['n_rows']:,} rows", "",
             "| task | metric | models | items | runs | rows |", "|---|---|---:|---:|---:|---:|"]
    for r in d["tasks"]:
        lines.append(f"| {_esc(r['task'])} | {_esc(r['metric'])} | {r['n_models']:,} | {r['n_items']:,} | "
                     f"{r['n_runs']:,} | {r['rows']:,} |")
    return "\n".join(lines) + "\n"


@click.group("db")
def command() -> None:
    """Look into (list) or export a ranktrust results store."""


@command.command("list")
@click.option("--db", required=True, help="The DuckDB store.")
@output_format_option(None)
@click.option("--out", "-o", default="-", show_default=True, help="Write the listing to FILE ('-' = stdout).")
def list_cmd(db: str, output_format: str | None, out: str) -> None:
    """Tasks, metrics, models, items, runs and row counts in the store."""
    from ..data.store import Store

    with Store(db, read_only=True) as st:
        s = st.list()
    emit(s.to_dict(), kind="db-list", fmt=output_format, out=out, text=_text, markdown=_markdown,
         command=command_line())


@command.command("export")
@click.option("--db", required=True, help="The DuckDB store.")
@click.option("--out", "-o", required=True,
              help="Parquet file to write; with --format eee, the folder to write data/<task>/<developer>/<model>/ under.")
@click.option("--format", "fmt", type=click.Choice(["parquet", "eee"]), default="parquet", show_default=True,
              help="parquet: one long table; eee: Every Eval Ever 0.3.0 files (<uuid>.json + <uuid>_samples.jsonl "
                   "per task and model; see docs/formats/eee.md).")
@click.option("--task", default=None, help="Export only this task.")
@click.option("--metric", default=None, help="Export only this metric.")
@click.option("--model", "models", multiple=True, help="Export only this model (repeatable).")
def export_cmd(db: str, out: str, fmt: str, task: str | None, metric: str | None, models: tuple[str, ...]) -> None:
    """Write the store (or one task / metric / some models) as a long Parquet file or as Every Eval Ever files."""
    from ..data.store import Store
    from ..errors import DataError

    if fmt == "eee":
        from ..data.eee import SCHEMA_VERSION, export_store

        if os.path.isfile(out):
            raise DataError(f"{out}: is a file; --format eee writes a folder (data/<task>/<developer>/<model>/...)")
        with Store(db, read_only=True) as st:
            res = export_store(st, out, task=task, metric=metric, models=list(models) or None)
        click.echo(f"wrote {res.records:,} instance records of {res.evaluations:,} evaluations "
                   f"(Every Eval Ever schema {SCHEMA_VERSION}) under {os.path.join(out, 'data')}")
        return
    if not out.lower().endswith((".parquet", ".pq")):
        # export_parquet writes Parquet whatever the name: a file called x.csv would hold Parquet bytes
        raise DataError(f"{out}: db export writes Parquet; give a file name ending in .parquet "
                        "(read it with pandas.read_parquet or `ranktrust report FILE.parquet`), "
                        "or pass --format eee to write Every Eval Ever files into a folder")
    with Store(db, read_only=True) as st:
        n = st.export_parquet(out, task=task, metric=metric, models=list(models) or None)
    click.echo(f"wrote {n:,} rows to {out}")
