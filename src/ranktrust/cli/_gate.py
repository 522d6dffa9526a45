"""``ranktrust gate``: did the candidate get worse than the baseline on any task of the suite?

Exit codes: 0 PASS (or INCONCLUSIVE without --strict), 1 bad input, 3 FAIL (a regression shown),
4 INCONCLUSIVE with --strict.
"""

from __future__ import annotations

from typing import Any

import click

from ..data import input_hash
from ..errors import warn
from ..gating import GATE_ADJUST, read_tasks
from ..gating import gate as _gate
from ._common import (
    api_default,
    cluster_requested,
    gold_options,
    command_line,
    confidence_option,
    input_format,
    input_options,
    output_options,
    points_default,
    read_options,
    render,
    say_notes,
    seed_option,
)
from ._main import ApiOption

#: the exit codes of the verdicts (1 stays "bad input", 2 is never used: click's own usage code)
EXIT_FAIL = 3
EXIT_INCONCLUSIVE_STRICT = 4


def _margin(ctx: click.Context, param: click.Parameter, value: float) -> float:
    if value != value or value in (float("inf"), float("-inf")):   # NaN or infinite: say it in points, here
        raise click.BadParameter(f"must be a number of points in [0, 100) (the drop the gate tolerates), got {value:g}")
    if value < 0:
        raise click.BadParameter(f"must be >= 0 points (the drop the gate tolerates), got {value:g}")
    if value >= 100:
        raise click.BadParameter(f"must be below 100 points, got {value:g}")
    return value


def _read_tasks(paths: tuple[str, ...], kw: dict[str, Any], task_col: str | None) -> tuple[dict[str, Any], str]:
    """The suite named on the command line (files, or --db STORE) as {task: ScoreMatrix}
    (:func:`ranktrust.gating.read_tasks`), and its input hash."""
    suite, _gold, h = _read_suite(paths, kw, task_col)
    return suite, h


def _read_suite(paths: tuple[str, ...], kw: dict[str, Any], task_col: str | None, one_task: str | None = None
                ) -> tuple[dict[str, Any], dict[str, Any] | None, str]:
    """The suite, each task's gold labels (with --gold-col; else None) and the input hash. ``one_task``: the
    one task gated (--task T, once), which the readers of harness logs then read alone (a folder whose tasks
    are scored by different metrics can be gated a task at a time, as the readers' errors advise)."""
    from ..data.store import Store
    from ..errors import DataError

    if kw.get("no_groups") and kw.get("group_col"):
        raise click.UsageError("--no-groups contradicts --cluster-by/--group-col: give one of them")
    if kw.get("db") and paths:
        raise click.UsageError(f"give input files or --db STORE, not both ({len(paths)} file(s) and --db)")
    if not kw.get("db") and not paths:
        raise click.UsageError("give input files (or --db STORE)")
    fmt = input_format(kw)
    opts = read_options(kw, task=one_task if not task_col else None)
    source = Store(kw["db"], read_only=True) if kw.get("db") else list(paths)
    gold_col = kw.get("gold_col")
    try:
        read = read_tasks(source, task_col=task_col, options=opts, format=fmt, binary=bool(kw.get("binary")),
                          gold=gold_col)
    except DataError as exc:
        if exc.code != "task_metrics_differ":
            raise
        raise DataError(  # the route in this command line's words
            f"{exc.data['reader_message']}; the gate reads every task with one metric (`metric`='NAME'); where the tasks' "
            "metrics differ, ingest each task with its own (ranktrust ingest PATH --db STORE --task TASK --metric "
            "METRIC) and gate the store (ranktrust gate --db STORE ...)", param="metric") from None
    suite, gold = read if gold_col else (read, None)
    return suite, gold, input_hash([kw["db"]] if kw.get("db") else paths)


@click.command("gate")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--candidate", required=True, help="The new model (checkpoint, prompt, quantisation).")
@click.option("--baseline", required=True, help="The current model it must not be worse than.")
@click.option("--margin", type=float, default=points_default(_gate, "margin"), show_default=True, callback=_margin,
              help="The drop tolerated, in points: PASS needs every task's lower bound above -margin.")
@click.option("--task-col", default=None, cls=ApiOption, api={"task_col": None},   # not the reader's `task`
              help="Column whose values are the tasks (default: the input's task column; e.g. --task-col subject "
                   "runs the gate per subject). Without either, the whole input is one task.")
@click.option("--adjust", type=click.Choice(list(GATE_ADJUST)),
              default=api_default(_gate, "adjust"), show_default=True,
              help="Multiplicity across tasks (holm: family-wise; none: each task alone, more false FAILs).")
@click.option("--method", type=click.Choice(["auto", "mcnemar", "betting", "t", "cluster"]),
              default=api_default(_gate, "method"), show_default=True,
              help="The paired test of `compare` (auto: exact McNemar for 0/1, the finite-sample betting interval "
                   "otherwise; t: the paired t, asymptotic).")
@click.option("--require", type=click.Choice(["better"]), default=None,
              help="better: PASS also needs the candidate found better on at least one task.")
@click.option("--strict", is_flag=True, help=f"INCONCLUSIVE fails too (exit {EXIT_INCONCLUSIVE_STRICT}).")
@click.option("--plan", is_flag=True,
              help="Show per task the smallest drop the suite can detect and the items the margin needs.")
@input_options
@gold_options
@output_options
@confidence_option
@seed_option
def command(paths: tuple[str, ...], candidate: str, baseline: str, margin: float, task_col: str | None, adjust: str,
            method: str, require: str | None, strict: bool, plan: bool, output_format: str | None, out: str,
            confidence: float, seed: int, tasks: tuple[str, ...] = (), **kw: Any) -> None:
    """Gate a candidate model against a baseline on every task in PATHS (harness logs, a long table with a
    task column, or --db STORE).

    Per task: the paired difference candidate - baseline on the items both scored, its interval, and a
    decision with Holm's family-wise control across tasks. Exit 0: PASS (every task non-inferior at
    --margin) or INCONCLUSIVE (a warning names the tasks and the items each would need); exit 3: FAIL
    (a regression shown on some task); exit 4: INCONCLUSIVE with --strict; exit 1: bad input.
    """
    from ..reporting import inconclusive_warning

    if kw.get("gold_col") and method != "auto":
        raise click.UsageError("--method chooses the paired test of judged scores; with --gold-col the estimator is "
                               "--gold-method")
    suite, gold, ihash = _read_suite(paths, kw, task_col, tasks[0] if len(tasks) == 1 else None)
    say_notes([n for m in suite.values() for n in m.notes])   # what the readers left out, on stderr
    r = _gate(suite, candidate, baseline, margin=margin / 100.0, tasks=list(tasks) or None, adjust=adjust,  # type: ignore[arg-type]
              require=require, method=(kw.get("gold_method") or "auto") if gold else method,  # type: ignore[arg-type]
              confidence_level=confidence,
              cluster=cluster_requested(kw) or method == "cluster", plan=plan,
              align=kw.get("align") or "error", gold=gold)  # type: ignore[arg-type]
    render(r, kind="gate", fmt=output_format, out=out, seed=seed, input_hash=ihash, command=command_line())
    if r.verdict == "FAIL":
        raise SystemExit(EXIT_FAIL)
    if r.verdict == "INCONCLUSIVE":
        d = r.to_dict()
        warn(inconclusive_warning(d), code="gate_inconclusive",
             data={"tasks": [t["task"] for t in d["tasks"] if t["decision"] == "inconclusive"]}, stacklevel=1)
        if strict:
            raise SystemExit(EXIT_INCONCLUSIVE_STRICT)


# --task T ... (several): the input options' --task picks one task; the gate takes any number
for _i, _p in enumerate(command.params):
    if _p.name == "task":
        command.params[_i] = ApiOption(["--task", "tasks"], multiple=True, api={"tasks": None, "task": None},
                                       help="Gate only this task (repeat for several); each must be in the input.")
