"""``ranktrust repeats``: scores over several runs per item, pass@k, and how many runs are enough."""

from __future__ import annotations

import dataclasses
from typing import Any

import click

from ..results import Note
from ..runs import repeats
from ._common import (
    api_default,
    command_line,
    confidence_option,
    input_format,
    input_options,
    load_matrix,
    output_options,
    read_options,
    render,
)


def _load(paths: tuple[str, ...], kw: dict[str, Any], use_prob: bool) -> tuple[Any, str]:
    if not use_prob:
        return load_matrix(paths, kw)
    from ..data import input_hash, read, read_long
    from ..errors import DataError

    if kw.get("db"):
        raise DataError("--use-prob reads a 'prob' column from files; it does not work with --db")
    if not paths:
        raise click.UsageError("give an input file")
    opts = read_options(kw)
    df = read_long(list(paths) if len(paths) > 1 else paths[0], format=input_format(kw), options=opts)
    if "prob" not in df.columns:
        raise DataError(
            f"{', '.join(paths)}: --use-prob needs a 'prob' column (the probability of the correct answer); "
            f"found {', '.join(map(repr, list(df.columns)[:12]))}"
        )
    group = "" if kw.get("no_groups") else kw.get("group_col")
    m = read(df.drop(columns=[c for c in ("score",) if c in df.columns]), score="prob", group=group,
             run=kw.get("run_col") if kw.get("run_col") in df.columns else None,
             condition=kw.get("condition_col") if kw.get("condition_col") in df.columns else None,
             task=kw.get("task"), metric=kw.get("metric"), align=kw.get("align", "error"))
    return m, input_hash(paths)


@click.command("repeats")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--pass-at", "pass_at", default=None, metavar="K[,K...]",
              help="Unbiased pass@k for these k (0/1 scores), e.g. 1,5,10.")
@click.option("--choose-n", is_flag=True, help="How many runs a margin needs (the rule of arXiv:2506.04734).")
@click.option("--margin", type=float, default=None, help="Margin for --choose-n, in points (1 = ±1 point).")
@click.option("--choose-n-confidence", "choose_n_confidence_level", type=float,
              default=api_default(repeats, "choose_n_confidence_level"), show_default=True,
              help="Confidence level for --choose-n (1 - α; 0.9 is the α = 0.1 of arXiv:2506.04734).")
@click.option("--use-prob", is_flag=True,
              help="Score with the 'prob' column (probability of the correct answer) instead of the 0/1 score.")
@input_options
@output_options
@confidence_option
def command(paths: tuple[str, ...], pass_at: str | None, choose_n: bool, margin: float | None,
            choose_n_confidence_level: float,
            use_prob: bool, output_format: str | None, out: str, confidence: float, **kw: Any) -> None:
    """Per model: the mean over runs with a CI over items and runs, run sd, the
    between/within-item variance, pass@k and how many runs are enough.

    PATHS hold one row per (model, item, run); a 'run' column (seed or sample
    index) is picked up by name, or name it with --run-col.
    """
    from ..runs import repeats

    if choose_n and margin is None:
        raise click.UsageError("--choose-n needs --margin POINTS (e.g. --margin 1 for ±1 point)")
    if margin is not None and not 0 < margin < 100:
        raise click.UsageError(f"--margin is in points and must be in (0, 100), got {margin:g}")
    try:
        ks = tuple(int(p) for p in (pass_at or "").split(",") if p.strip())
    except ValueError:
        raise click.BadParameter(f"integers such as 1,5,10, got {pass_at!r}", param_hint="--pass-at") from None
    m, ihash = _load(paths, kw, use_prob)
    r = repeats(m, pass_at=ks, confidence_level=confidence,
                margin=margin / 100.0 if choose_n else None, choose_n_confidence_level=choose_n_confidence_level)
    if use_prob:   # a record like the analysis' own notes (reporting words it: code "prob_column")
        r = dataclasses.replace(r, notes=(*r.notes, Note("prob_column")))
    render(r, kind="repeats", fmt=output_format, out=out, input_hash=ihash, command=command_line())
