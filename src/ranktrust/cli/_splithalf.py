"""``ranktrust splithalf``: does the winner of one random half win the other half?"""

from __future__ import annotations

from typing import Any

import click

from ..ranking import split_half
from ._common import (
    api_default,
    command_line,
    input_options,
    load_matrix,
    output_options,
    progress_bar,
    render,
    seed_option,
)


@click.command("splithalf")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--n-resamples", default=api_default(split_half, "n_resamples"), show_default=True, type=click.IntRange(min=2), help="Random halves.")
@input_options
@output_options
@seed_option
def command(paths: tuple[str, ...], n_resamples: int, output_format: str | None, out: str, seed: int,
            **kw: Any) -> None:
    """Split the items in random halves: does one half's winner also win the other?"""
    from ..ranking import split_half

    m, ihash = load_matrix(paths, kw)
    with progress_bar(n_resamples, "splitting") as cb:
        r = split_half(m, n_resamples=n_resamples, rng=seed, progress=cb)
    render(r, kind="splithalf", fmt=output_format, out=out, seed=seed, input_hash=ihash, command=command_line())
