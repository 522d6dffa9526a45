"""``ranktrust db``: look into a results store (``list``) and export it (``export``)."""

from __future__ import annotations

import os

import click

from ._common import command_line, output_format_option, render


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
    render(s, kind="db-list", fmt=output_format, out=out, command=command_line())


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
        from ..data import SCHEMA_VERSION, export_store

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
