"""``ranktrust ingest``: add harness logs and tables to a DuckDB results store."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import click

from ..data.readers import BUILTIN_READERS
from ._common import command_line, input_format, output_format_option, progress_bar, read_options, render
from ._main import ApiOption, cli_words


@click.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--db", required=True, help="The DuckDB store (created when missing).")
@click.option("--input-format", "input_format", default="auto", show_default=True,
              help=f"Reader name ({', '.join(BUILTIN_READERS)}, or an installed plug-in's); auto sniffs each path.")
@output_format_option(None)
@click.option("--out", "-o", default="-", show_default=True, help="Write the summary to FILE ('-' = stdout).")
@click.option("--task", default=None, help="Pick one task from logs that hold several; names the task of a table without a task column (default: the file name).")
@click.option("--metric", default=None,
              help="Metric to store (e.g. acc_norm); default: the harness's headline metric (lighteval: the task's "
                   "first declared metric; never a failure, error or frequency count; docs/readers.md), said in a note.")
@click.option("--model-name", default=None, help="Override the model name the log reports.")
@click.option("--errors", "on_errors", type=click.Choice(["error", "wrong", "drop"]), default="error",
              cls=ApiOption, api="errors",
              show_default=True, help="Samples that errored in the harness: stop, score them 0, or leave them out.")
@click.option("--replace", is_flag=True, help="Replace the rows of files that changed since they were ingested.")
@click.option("--model-col", default="model", show_default=True)
@click.option("--item-col", default="item", show_default=True,
              help="Column with the item id; for harness logs that carry the question (lighteval, lm_eval, inspect, "
                   "helm, eee), doc_hash makes its content key the item (two dataset revisions paired by content).")
@click.option("--score-col", default="score", show_default=True)
@click.option("--group-col", default=None, help="Column that groups items (default: subject/group if present).")
@click.option("--no-groups", is_flag=True, help="Store no item groups.")
@click.option("--run-col", default=None, help="Column with the run (seed / sample index).")
@click.option("--condition-col", default=None, help="Column with the condition label.")
@click.option("--split", "split", default=None,
              help="HELM: the split to read (default: test, the split HELM reports).")
@click.option("--dataset", "dataset", type=click.Choice(["lite", "verified", "full"]), default=None,
              help="SWE-bench: the dataset the run used; its instance list is the denominator.")
@click.option("--scale", default=None, metavar="MAX|MIN,MAX",
              help="The scores' range, mapped onto [0, 1]: 100 for percentages, -1,1 for right/abstained/wrong "
                   "scored +1/0/-1.")
def command(paths: tuple[str, ...], db: str, output_format: str | None, out: str, replace: bool,
            **kw: Any) -> None:
    """Add PATHS (files or log folders) to the store --db: idempotent, one transaction per file.

    A file ingested before (same content) is skipped; a file that changed since is an
    error unless --replace; nothing is overwritten silently.
    """
    from ..data.store import Store

    fmt, opts = input_format(kw), read_options(kw)
    # on a terminal: the rows read so far and their speed (a single 2M-row file takes tens of seconds)
    # a store this command creates is removed again when nothing was added to it (a missing input, a refusal):
    # a failed ingest leaves no empty store behind
    new = not os.path.exists(db)
    try:
        with Store(db) as st, progress_bar(None, f"ingesting into {db}", unit="rows") as cb:
            summary = st.ingest(list(paths), format=fmt, options=opts, replace=replace, progress=cb)
    except BaseException:
        if new:
            _remove_store(db)
        raise
    if new and not any(f.action in ("added", "replaced") for f in summary.files):
        _remove_store(db)
    # a skip reason in this command's words ("(`errors`='drop')" -> "(--errors drop)"); render words the notes
    summary = dataclasses.replace(
        summary, files=tuple(dataclasses.replace(f, reason=cli_words(f.reason)) if "`" in f.reason else f
                             for f in summary.files))
    render(summary, kind="ingest", fmt=output_format, out=out, command=command_line())


def _remove_store(db: str) -> None:
    """Remove a store file this command created (and DuckDB's write-ahead log beside it)."""
    for p in (db, db + ".wal"):
        try:
            os.remove(p)
        except FileNotFoundError:
            pass
