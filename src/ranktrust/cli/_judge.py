"""``ranktrust judge``: audit a judge (position bias, consistency, self-preference, agreement, length bias,
repeat-judgment variance, judge shifts)."""

from __future__ import annotations

from typing import Any

import click

from ._common import command_line, confidence_option, output_options, render


@click.command("judge")
@click.argument("path", type=click.Path())
@click.option("--reference", type=click.Path(), default=None,
              help="Reference verdicts (a person's, another judge's) on the same battles as PATH, line by line: "
                   "runs the agreement and self-preference probes.")
@click.option("--family", multiple=True, metavar="MODEL",
              help="A model of the judge's own family (repeat the option); with --reference, runs the "
                   "self-preference probe. Not guessed from names.")
@click.option("--scores", "scores_path", type=click.Path(), default=None, metavar="PATH",
              help="Judged scores, one row per judgment (model, item, score and the --judge-col column), each "
                   "answer judged by several judges or more than once: runs the repeats and judge-shift probes.")
@click.option("--judge-col", default="judge", show_default=True, metavar="COL",
              help="The column of --scores (or of PATH) that names the judge or the repeat.")
@output_options
@confidence_option
def command(path: str, reference: str | None, family: tuple[str, ...], scores_path: str | None, judge_col: str,
            output_format: str | None, out: str, confidence: float, **kw: Any) -> None:
    """Audit the judge whose verdicts are in PATH.

    PATH with g1_winner and g2_winner columns (MT-Bench pairwise judgments: each question judged in both
    orders) gives the position and consistency probes; PATH with model_a, model_b and winner, and --reference
    with the same battles, gives agreement and (with --family) self-preference. Where the answers' lengths are
    there (length_a and length_b columns, or the answers in MT-Bench's judge prompts), the length probe runs,
    against --reference when given. PATH (or --scores) with model, item, score and a judge column gives the
    repeats and judge-shift probes.
    """
    from ..data import input_hash, read_verdicts
    from ..errors import DataError
    from ..judges import judge_audit

    df = read_verdicts(path)
    cols = set(df.columns)
    swapped = {"g1_winner", "g2_winner"} <= cols
    battles = {"model_a", "model_b", "winner"} <= cols
    long = {"model", "item", "score", judge_col} <= cols
    lengths = {"length_a", "length_b"} <= cols
    if family and reference is None:
        raise click.UsageError("--family needs --reference (self-preference is measured against reference verdicts)")
    if reference is not None and not battles:
        raise DataError(f"{path}: --reference needs battles with model_a, model_b and winner columns; "
                        f"found {', '.join(map(str, df.columns[:8]))}")
    if not swapped and not battles and not long:
        raise DataError(f"{path}: neither swapped games (g1_winner, g2_winner), battles (model_a, model_b, "
                        f"winner) nor judged scores (model, item, score, {judge_col}); "
                        f"found {', '.join(map(str, df.columns[:8]))}")
    if battles and reference is None and not swapped and not lengths:
        raise click.UsageError(f"{path} holds battles: give --reference with the same battles judged by a person "
                               "or another judge (or length_a and length_b columns for the length probe)")
    ref = read_verdicts(reference) if reference is not None else None
    scores = read_verdicts(scores_path) if scores_path is not None else (df if long else None)
    r = judge_audit(df if swapped else None, battles=df if battles and (ref is not None or lengths) else None,
                    reference=ref, family=list(family) or None, scores=scores, judge_col=judge_col,
                    confidence_level=confidence)
    paths = [path] + ([reference] if reference else []) + ([scores_path] if scores_path else [])
    render(r, kind="judge", fmt=output_format, out=out, input_hash=input_hash(paths), command=command_line())
