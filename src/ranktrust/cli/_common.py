"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import stat
import sys
from typing import Any, Callable, Iterator

import click

from ..data import ScoreMatrix, input_hash, read
from ..data.readers import BUILTIN_READERS, ReadOptions
from ..reporting.renderers import FORMATS
from ..reporting.renderers import render as _render
from ._main import ApiOption

DEFAULT_SEED = 0


def api_default(fn: Callable, name: str) -> Any:
    """The default of parameter ``name`` in the API function ``fn``: the CLI states no default of its own."""
    import inspect

    return inspect.signature(fn).parameters[name].default


def listed(values: Any) -> str:
    """An API default sequence as a comma-separated option value: (2, 3) -> '2,3'."""
    return ",".join(str(v) for v in values)


def points_default(fn: Callable, name: str) -> float:
    """An API default fraction in the points the CLI takes: 0.02 -> 2.0."""
    return round(100 * api_default(fn, name), 10)


def input_options(fn: Callable) -> Callable:
    """Options that say how to read the input into a ScoreMatrix."""
    opts = [
        click.option("--input-format", "input_format", default="auto", show_default=True,
                     help=f"Input format (reader name: {', '.join(BUILTIN_READERS)}, or an installed plug-in's); "
                          "auto sniffs the file. --format NAME with a reader name does the same."),
        click.option("--align", type=click.Choice(["error", "intersect", "pairwise"]), default="error",
                     show_default=True, help="Models scored on different items: stop, keep the shared items, or compare pairwise."),
        click.option("--model-col", default="model", show_default=True),
        click.option("--item-col", default="item", show_default=True),
        click.option("--score-col", default="score", show_default=True),
        click.option("--group-col", "--cluster-by", "group_col", default=None, cls=ApiOption, metavar="COLUMN",
                     api={"group": None, "group_col": None, "cluster": "--cluster-by"},
                     api_values=(("cluster", "True"),),
                     help="Cluster intervals and paired tests by this column of item groups (e.g. subject, repo; "
                          "CR1 with t(G-1)). Without it items count as independent; a subject/group column is "
                          "still read as item groups, but not used for clustering."),
        click.option("--no-groups", is_flag=True, cls=ApiOption,
                     api_values=(("cluster", "False"), ("group", "None"), ("group_col", "")), help="Ignore item groups even if a subject column exists."),
        click.option("--run-col", default=None, help="Column with the run (seed / sample index)."),
        click.option("--condition-col", default=None, help="Column with the condition label."),
        click.option("--task", default=None, help="Pick one task when the input holds several."),
        click.option("--metric", default=None, help="Pick one metric when the input holds several (e.g. acc_norm)."),
        click.option("--errors", "on_errors", type=click.Choice(["error", "wrong", "drop"]), default="error",
                     cls=ApiOption, api="errors",
                     show_default=True, help="Samples that errored in the harness."),
        click.option("--model-name", default=None, help="Override the model name a single log reports."),
        click.option("--split", "split", default=None,
                     help="HELM: the split to read (default: test, the split HELM reports)."),
        click.option("--dataset", "dataset", type=click.Choice(["lite", "verified", "full"]), default=None,
                     help="SWE-bench: the dataset the run used; its instance list is the denominator."),
        click.option("--binary", is_flag=True, help="Require 0/1 scores (an error names any other value)."),
        click.option("--scale", default=None, metavar="MAX|MIN,MAX",
                     help="The scores' range, mapped onto [0, 1]: 100 for percentages, -1,1 for right/abstained/wrong "
                          "scored +1/0/-1 (scores must end up in [0, 1])."),
        click.option("--db", "db", default=None, help="Read from a ranktrust DuckDB store instead of files."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


#: ``--format``: json and every format a renderer draws (``reporting/_registry.py::FORMATS``, exposed by renderers)
OUTPUT_FORMATS = ("text", "md", "json", *(f for f in FORMATS if f not in ("text", "md")))


class _PipeWriter(io.BufferedWriter):
    """The buffer of a standard stream that is a pipe: once its reader has gone (``| head -1`` read enough,
    EPIPE), everything still written is dropped (the file descriptor is pointed at the null device), so the
    command runs on to its own exit code (0, or the gate's 3) instead of click's 1 for a broken pipe: the code
    of bad input.

    The writes themselves stay in C (``io.FileIO`` under ``io.BufferedWriter``): a Ctrl-C that lands just after
    a write cannot leave the buffer thinking the bytes unwritten and write them a second time at exit, as a
    raw stream written in Python could."""

    def write(self, b: Any) -> int:
        try:
            return super().write(b)
        except BrokenPipeError:
            self._drop()
            return len(memoryview(b))

    def flush(self) -> None:
        try:
            super().flush()
        except BrokenPipeError:
            self._drop()
            super().flush()

    def _drop(self) -> None:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, self.raw.fileno())
        finally:
            os.close(null)


def quiet_closed_pipes() -> None:
    """Make stdout and stderr, where they are pipes, drop output once the reader closes them (see
    :class:`_PipeWriter`). A terminal, a file or a test's captured stream is left as it is; calling it again does
    nothing."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(getattr(stream, "buffer", None), _PipeWriter):
            continue
        try:
            fd = stream.fileno()
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue
            stream.flush()
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            continue
        err = name == "stderr"
        setattr(sys, name, io.TextIOWrapper(_PipeWriter(io.FileIO(fd, "w", closefd=False)), encoding=stream.encoding,
                                            errors=stream.errors, line_buffering=err or stream.line_buffering,
                                            write_through=err))


def _check_out(ctx: click.Context) -> None:
    """Once both ``--format`` and ``--out`` are parsed (in either order), refuse a pair that the writer would refuse
    after the analysis: a suffix that names no format (``--out r.jsn``) or contradicts ``--format``."""
    seen = ctx.meta.setdefault("ranktrust.output", {})
    if "format" in seen and "out" in seen:
        from ..reporting import output_format

        output_format(seen["format"], seen["out"])


def _format_callback(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--format`` takes an output format (text, md, json, html) or, for the input, a reader name."""
    quiet_closed_pipes()     # every command that writes output takes --format: its output may go into `| head`
    fmt = _output_format(ctx, value)
    ctx.meta.setdefault("ranktrust.output", {})["format"] = fmt
    _check_out(ctx)
    return fmt


def _out_callback(ctx: click.Context, param: click.Parameter, value: str) -> str:
    ctx.meta.setdefault("ranktrust.output", {})["out"] = value
    _check_out(ctx)
    return value


def _output_format(ctx: click.Context, value: str | None) -> str | None:
    if value is None:
        return None
    allowed = OUTPUT_FORMATS
    if value in allowed:
        return value
    from ..data.readers import readers

    if value in readers():
        ctx.meta["input_format"] = value
        return None
    raise click.BadParameter(
        f"{value!r} is neither an output format ({', '.join(allowed)}) nor a reader "
        f"({', '.join(sorted(readers()))})"
    )


def output_format_option(default: str | None = "text") -> Callable:
    return click.option("--format", "-f", "output_format", default=default, callback=_format_callback,
                        cls=ApiOption, api=("format", "output_format"),   # it takes a reader name too
                        help="Output format: text, md, json, html, or csv for tables (default: from the --out suffix, else text).")


def output_options(fn: Callable) -> Callable:
    opts = [
        output_format_option(None),
        click.option("--out", "-o", default="-", show_default=True, callback=_out_callback,
                     help="Write the output to FILE ('-' = stdout); .html/.md/.json/.csv/.txt pick the format "
                          "(another suffix is refused unless --format says it)."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def parse_sizes(text: str) -> list[int | str]:
    """--sizes 30,100,full -> [30, 100, 'full'] (stability and report)."""
    out: list[int | str] = []
    for part in text.split(","):
        part = part.strip().lower()
        if not part:
            continue
        if part == "full":
            out.append("full")
            continue
        try:
            v = int(part)
        except ValueError:
            raise click.BadParameter(f"{part!r} is not a whole number or 'full' (e.g. --sizes 30,100,full)",
                                     param_hint="--sizes") from None
        if v < 1:
            raise click.BadParameter(f"sizes must be >= 1, got {v}", param_hint="--sizes")
        out.append(v)
    if not out:
        raise click.BadParameter("give at least one size", param_hint="--sizes")
    return out


def confidence_option(fn: Callable) -> Callable:
    from ..stats import intervals

    return click.option("--confidence", default=api_default(intervals, "confidence_level"), show_default=True,
                        type=float, cls=ApiOption, api="confidence_level",
                        help="Confidence level of intervals (0.95 = 95%).")(fn)


class SeedType(click.ParamType):
    """``--seed``: a non-negative whole number (what ``rng`` takes as a seed), else one line and exit 1."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        text = str(value).strip()
        if not text.isdigit():
            self.fail(f"must be a non-negative integer, got {text}", param, ctx)
        return int(text)


def seed_option(fn: Callable) -> Callable:
    return click.option("--seed", default=DEFAULT_SEED, show_default=True, type=SeedType(), cls=ApiOption,
                        api="rng", help="Seed for every random step (written into the output).")(fn)


def load_matrix(paths: tuple[str, ...], kw: dict[str, Any], *, notes: bool = True) -> tuple[ScoreMatrix, str]:
    """Read the input named on the command line; returns (matrix, input hash). ``notes``: say the reader's notes
    on stderr (:func:`say_notes`); ``report`` prints them in its own output instead."""
    m, h = _load_matrix(paths, kw)
    if notes:
        say_notes(m.notes)
    return m, h


def say_notes(notes: Any) -> None:
    """The reader's notes (what it left out or changed: samples errored and dropped, instances never submitted)
    as ``note: ...`` lines on stderr, in the command's words, each once: a command whose output has no place
    for them (``compare``, ``ranks``, ``gate``, ...) still never drops data without a word; stdout (JSON, CSV)
    stays as it is."""
    from ..reporting import note_text, option_words
    from ._main import cli_words

    # the notes said by this command so far (``watch --follow`` re-reads its input: each note is said once)
    ctx = click.get_current_context(silent=True)
    said: set[str] = ctx.meta.setdefault("ranktrust.notes_said", set()) if ctx is not None else set()
    with option_words(cli_words):
        for n in notes:
            text = note_text(n)
            if text not in said:
                said.add(text)
                click.echo(f"note: {text}", err=True)


def _load_matrix(paths: tuple[str, ...], kw: dict[str, Any]) -> tuple[ScoreMatrix, str]:
    group = "" if kw.get("no_groups") else kw.get("group_col")
    if kw.get("no_groups") and kw.get("group_col"):
        raise click.UsageError("--no-groups contradicts --cluster-by/--group-col: give one of them")
    if kw.get("db") and paths:
        raise click.UsageError(f"give input files or --db STORE, not both ({len(paths)} file(s) and --db {kw['db']})")
    if kw.get("db"):
        from ..data import store

        m = store.Store(kw["db"], read_only=True).matrix(
            task=kw.get("task"), metric=kw.get("metric"), align=kw.get("align", "error")
        )
        if group == "":
            import dataclasses

            m = dataclasses.replace(m, groups=None)   # --no-groups (ScoreMatrix is a frozen dataclass)
        return m, input_hash([kw["db"]])
    if not paths:
        raise click.UsageError("give an input file (or --db STORE)")
    m = read(list(paths) if len(paths) > 1 else paths[0], format=input_format(kw), align=kw.get("align", "error"),
             binary=bool(kw.get("binary")), options=read_options(kw))
    return m, input_hash(paths)


def input_format(kw: dict[str, Any]) -> str:
    """The reader the input options name: ``--input-format``, or a reader name given to ``--format``."""
    fmt = kw.get("input_format", "auto")
    ctx = click.get_current_context(silent=True)
    if fmt == "auto" and ctx is not None and "input_format" in ctx.meta:
        fmt = ctx.meta["input_format"]
    return fmt


def read_options(kw: dict[str, Any], **override: Any) -> ReadOptions:
    """The reader options the input options name (``--model-col`` ... ``--scale``, ``--judge-col``), as the one
    object every reader takes (``rt.read(..., options=...)``, ``Store.ingest``, ``read_tasks``); ``override``
    sets fields the command decides itself (``task=None`` where a column names the tasks)."""
    run = kw.get("run_col")
    if kw.get("judge_col"):
        if run and run != kw["judge_col"]:
            raise click.UsageError(f"--judge-col {kw['judge_col']} and --run-col {run} both name the runs: the judge "
                                   "column is read as the runs, so give one of them")
        run = kw["judge_col"]
    fields = dict(
        model_col=kw.get("model_col") or "model",
        item_col=kw.get("item_col") or "item",
        score_col=kw.get("score_col") or "score",
        group_col="" if kw.get("no_groups") else kw.get("group_col"),
        run_col=run,
        condition_col=kw.get("condition_col"),
        task=kw.get("task"),
        metric=kw.get("metric"),
        errors=kw.get("on_errors") or "error",
        model_name=kw.get("model_name"),
        split=kw.get("split"),
        dataset=kw.get("dataset"),
        scale=kw.get("scale"),
    )
    fields.update(override)
    return ReadOptions(**fields)


def gold_options(fn: Callable) -> Callable:
    """``--gold-col`` and ``--gold-method``: gold labels in a column of the long table (empty where unlabelled)."""
    opts = [
        click.option("--gold-col", "gold_col", default=None, metavar="COLUMN", cls=ApiOption, api="gold",
                     help="Column of gold labels (a person's), empty where an item is not labelled: the judge's "
                          "score column is read on every row, the labels where given, and every interval and "
                          "verdict estimates the gold labels' means (PPI++, or for 0/1 scores post-stratified)."),
        click.option("--gold-method", "gold_method", type=click.Choice(["auto", "ppi++", "stratified", "rogan-gladen"]),
                     default="auto", show_default=True, cls=ApiOption, api="gold_method",
                     help="With --gold-col: the estimator (auto: stratified for 0/1 judge and labels, else ppi++; "
                          "rogan-gladen: the judge's sensitivity and specificity measured on the labels)."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def judge_options(fn: Callable) -> Callable:
    """``--judge-col`` and ``--judges``: several judges (or repeats of one) per answer, their variance counted in the
    intervals (two-way clustering by item and judge)."""
    opts = [
        click.option("--judge-col", "judge_col", default=None, metavar="COLUMN",
                     help="Column naming the judge (or the repeat) of each score in a long table: it is read as the "
                          "runs, and the intervals count the judges' variance (--judges; default auto)."),
        click.option("--judges", "judges", type=click.Choice(["auto", "random", "fixed"]), default=None,
                     cls=ApiOption, api="judges",
                     help="The runs are judges: random (two-way clustered by item and judge; the interval covers the "
                          "judge population's mean), fixed (clustered by item; these judges' mean), auto (random "
                          "with 10 judges or more). Default: auto with --judge-col, else the runs are averaged."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def judges_mode(kw: dict[str, Any]) -> str | None:
    """The ``judges`` of ``rt.intervals`` the judge options name (None: no judges)."""
    if kw.get("judges") is None and not kw.get("judge_col"):
        return None
    if kw.get("gold_col"):
        raise click.UsageError("--gold-col corrects one judge with labels, --judge-col/--judges count several "
                               "judges: give one of them")
    return kw.get("judges") or "auto"


def load_with_gold(paths: tuple[str, ...], kw: dict[str, Any], *, notes: bool = True
                   ) -> tuple[ScoreMatrix, ScoreMatrix | None, str]:
    """:func:`load_matrix`, and with ``--gold-col`` the gold labels too (the judge's matrix, the labels in its
    order with NaN where unlabelled, the input hash)."""
    gold_col = kw.get("gold_col")
    if not gold_col:
        m, h = load_matrix(paths, kw, notes=notes)
        return m, None, h
    if kw.get("db"):
        raise click.UsageError("--gold-col reads a long table file; it cannot read gold labels from --db")
    if not paths:
        raise click.UsageError("give an input file")
    if kw.get("no_groups") and kw.get("group_col"):
        raise click.UsageError("--no-groups contradicts --cluster-by/--group-col: give one of them")
    from ..data import read_with_gold

    m, gold = read_with_gold(list(paths) if len(paths) > 1 else paths[0], gold_col, format=input_format(kw),
                             align=kw.get("align", "error"), binary=bool(kw.get("binary")), options=read_options(kw))
    if notes:
        say_notes(m.notes)
    return m, gold, input_hash(paths)


def render(result: Any, **kw: Any) -> None:
    """``reporting.renderers.render`` with every note that names an API option in this command's words
    ("`task`='NAME'" -> "--task NAME"): the records stay as they are, their sentences
    (text, Markdown, HTML and the JSON's ``"text"``) name the flags, as errors and warnings do."""
    from ..reporting import option_words
    from ._main import cli_words

    with option_words(cli_words):
        _render(result, **kw)


@contextlib.contextmanager
def progress_bar(total: int | None, description: str, *, unit: str | None = None, enabled: bool | None = None,
                 transient: bool = True) -> Iterator[Callable[[int, int], None] | None]:
    """The one progress display of every long command: a rich bar on stderr, yielded as the API's
    ``progress(done, total)`` callback; ``None`` (no display at all) unless stderr is a terminal, so logs,
    pipes, CI and tests never get progress lines.

    ``total``: the work's size when known (None or a callback total <= 0: not known yet; the bar pulses).
    ``unit``: show the count done and the speed in this unit (``"q"``: 120/500 3.1 q/s).
    ``enabled``: override the terminal test (``ranktrust score --progress/--no-progress``).
    ``transient``: clear the bar when the work is done (keep it for work a user watches, such as scoring).
    """
    if not (sys.stderr.isatty() if enabled is None else enabled):
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class _Speed(ProgressColumn):
        def render(self, task: Any) -> Text:
            v = task.finished_speed or task.speed
            return Text(f"{v:.1f} {unit}/s" if v else f"- {unit}/s")

    cols: list[Any] = [TextColumn("{task.description}"), BarColumn()]
    cols += [MofNCompleteColumn(), _Speed()] if unit else [TaskProgressColumn()]
    cols += [TimeElapsedColumn(), TimeRemainingColumn()]
    with Progress(*cols, console=Console(stderr=True), transient=transient) as prog:
        task = prog.add_task(description, total=total)
        yield lambda done, tot: prog.update(task, completed=done, total=tot if tot and tot > 0 else None)


def cluster_requested(kw: dict[str, Any]) -> bool:
    """Clustered SEs are used only when the user names the group column (--cluster-by)."""
    return bool(kw.get("group_col")) and not kw.get("no_groups")


def command_line() -> str:
    return "ranktrust " + " ".join(shlex.quote(a) for a in sys.argv[1:])


__all__ = [
    "input_options", "output_options", "output_format_option", "confidence_option", "seed_option", "load_matrix",
    "command_line", "cluster_requested", "render", "progress_bar", "say_notes", "DEFAULT_SEED",
    "api_default", "listed", "parse_sizes", "points_default", "gold_options", "load_with_gold",
]
