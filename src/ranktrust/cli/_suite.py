"""``ranktrust suite``: is #1 really #1 across a whole benchmark suite?

The tasks come as the gate reads them (``_gate._read_tasks``: harness logs holding several tasks, a long table
with a task column or ``--task-col COL``, or ``--db STORE``); ``rt.suite`` ranks the models by an aggregate of
their task scores with both scopes of uncertainty, and the renderers print it.
"""

from __future__ import annotations

from typing import Any

import click

from ..ranking import SUITE_MISSING as MISSING, SUITE_RULES as RULES, suite as _suite
from ._common import (
    api_default,
    cluster_requested,
    command_line,
    confidence_option,
    input_options,
    output_options,
    progress_bar,
    render,
    say_notes,
    seed_option,
)
from ._gate import _read_tasks
from ._main import ApiOption


def _per_task(values: tuple[str, ...], name: str) -> float | dict[str, float] | None:
    """--chance 0.25 (every task) or --chance TASK=0.25 (repeat): a number or {task: number}."""
    if not values:
        return None
    out: dict[str, float] = {}
    for v in values:
        task, eq, num = v.rpartition("=")
        try:
            x = float(num)
        except ValueError:
            raise click.BadParameter(f"{v!r}: give a number or TASK=NUMBER", param_hint=name) from None
        if not eq:
            if len(values) > 1:
                raise click.BadParameter("one number for every task, or TASK=NUMBER for each", param_hint=name)
            return x
        out[task] = x
    return out


@click.command("suite")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--rule", type=click.Choice(list(RULES)), default=api_default(_suite, "rule"), show_default=True,
              help="The aggregate the ranking uses; every rule's possible winners are shown beside it.")
@click.option("--task-col", default=None, cls=ApiOption, api={"task_col": None},
              help="Column whose values are the tasks (default: the input's task column; e.g. --task-col subject).")
@click.option("--missing", type=click.Choice(list(MISSING)), default=api_default(_suite, "missing"),
              show_default=True, help="A model without a task: stop, drop such models, drop such tasks, or "
                                      "aggregate each model over its own tasks.")
@click.option("--normalise", type=click.Choice(["random-baseline"]), default=None,
              help="Rescale each task score above its chance level (the Open LLM Leaderboard's); needs --chance.")
@click.option("--chance", "chance", multiple=True, metavar="[TASK=]LEVEL",
              help="Chance level for --normalise: one number for every task, or TASK=LEVEL (repeat).")
@click.option("--weight", "weights", multiple=True, metavar="TASK=W", cls=ApiOption, api="weights",
              help="Task weight for the mean-based rules (repeat; tasks not named weigh 1).")
@click.option("--n-resamples", type=int, default=api_default(_suite, "n_resamples"), show_default=True,
              help="Item resamples of scope (a).")
@input_options
@output_options
@confidence_option
@seed_option
def command(paths: tuple[str, ...], rule: str, task_col: str | None, missing: str, normalise: str | None,
            chance: tuple[str, ...], weights: tuple[str, ...], n_resamples: int, output_format: str | None, out: str,
            confidence: float, seed: int, tasks: tuple[str, ...] = (), **kw: Any) -> None:
    """Rank the models over every task in PATHS (harness logs, a long table with a task column, or --db STORE).

    Scope (a), these tasks: items redrawn within each task, one max-t step-down over all pairs: simultaneous
    rank sets, tiers, who could be #1. Scope (b), a new task from the same population: each model's rank on a
    new task (conformal over tasks, at the level K tasks allow) with its held-out coverage. Every rule's
    possible winners are shown side by side.
    """
    suite_in, ihash = _read_tasks(paths, kw, task_col)
    say_notes([n for m in suite_in.values() for n in m.notes])   # what the readers left out, on stderr
    w = _per_task(weights, "--weight")
    if isinstance(w, float):
        raise click.BadParameter("give TASK=W for each weighted task", param_hint="--weight")
    if w is not None:
        w = {t: w.get(t, 1.0) for t in suite_in} | w
    with progress_bar(len(suite_in), "resampling tasks") as bar:
        r = _suite(suite_in, rule=rule, weights=w, normalise=normalise,  # type: ignore[arg-type]
                   chance=_per_task(chance, "--chance"), missing=missing,  # type: ignore[arg-type]
                   align=kw.get("align", "error"), tasks=list(tasks) or None,  # type: ignore[arg-type]
                   confidence_level=confidence, n_resamples=n_resamples, cluster=cluster_requested(kw), rng=seed,
                   progress=bar)
    render(r, kind="suite", fmt=output_format, out=out, seed=seed, input_hash=ihash, command=command_line())


# --task T ... (several): the input options' --task picks one task; the suite takes any number
for _i, _p in enumerate(command.params):
    if _p.name == "task":
        command.params[_i] = click.Option(["--task", "tasks"], multiple=True,
                                          help="Keep only this task (repeat for several); each must be in the input.")
