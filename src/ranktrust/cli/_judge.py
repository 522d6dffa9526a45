"""``ranktrust judge``: audit a judge (position bias, consistency, self-preference, agreement)."""

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
@output_options
@confidence_option
def command(path: str, reference: str | None, family: tuple[str, ...], output_format: str | None, out: str,
            confidence: float, **kw: Any) -> None:
    """Audit the judge whose verdicts are in PATH.

    PATH with g1_winner and g2_winner columns (MT-Bench pairwise judgments: each question judged in both
    orders) gives the position and consistency probes; PATH with model_a, model_b and winner, and --reference
    with the same battles, gives agreement and (with --family) self-preference.
    """
    from ..data._io import input_hash
    from ..data._verdicts import read_verdicts
    from ..errors import DataError
    from ..judges import judge_audit

    df = read_verdicts(path)
    swapped = {"g1_winner", "g2_winner"} <= set(df.columns)
    battles = {"model_a", "model_b", "winner"} <= set(df.columns)
    if family and reference is None:
        raise click.UsageError("--family needs --reference (self-preference is measured against reference verdicts)")
    if reference is not None and not battles:
        raise DataError(f"{path}: --reference needs battles with model_a, model_b and winner columns; "
                        f"found {', '.join(map(str, df.columns[:8]))}")
    if not swapped and not battles:
        raise DataError(f"{path}: neither swapped games (g1_winner, g2_winner) nor battles (model_a, model_b, "
                        f"winner); found {', '.join(map(str, df.columns[:8]))}")
    if battles and reference is None and not swapped:
        raise click.UsageError(f"{path} holds battles: give --reference with the same battles judged by a person "
                               "or another judge")
    ref = read_verdicts(reference) if reference is not None else None
    r = judge_audit(df if swapped else None, battles=df if ref is not None else None, reference=ref,
                    family=list(family) or None, confidence_level=confidence)
    paths = [path] + ([reference] if reference else [])
    render(r, kind="judge", fmt=output_format, out=out, input_hash=input_hash(paths), command=command_line())
