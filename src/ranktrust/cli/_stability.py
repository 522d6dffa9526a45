"""``ranktrust stability``: how often #1 is #1 in resamples of the items, at other benchmark sizes.

The items are treated as the population, so for close races the figure is optimistic: two truly
tied models average about 75%, not 50% (statistics audit, section 4b)."""

from __future__ import annotations

from typing import Any

import click

from ..leaderboard import DEFAULT_SIZES
from ..ranking import stability
from ._common import (
    api_default,
    command_line,
    input_options,
    listed,
    load_matrix,
    output_options,
    parse_sizes,
    progress_bar,
    render,
    seed_option,
)


def _given(name: str) -> bool:
    """Whether the user gave option ``name`` on the command line (not its default)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return True
    src = ctx.get_parameter_source(name)
    return src is not None and src.name not in ("DEFAULT", "DEFAULT_MAP")


def _fit_sizes(sizes: list[int | str], m: Any, *, explicit: bool) -> list[int | str]:
    """Drop a size equal to the full benchmark when 'full' is also asked for (two rows for one size), and,
    for the default sizes only, the ones beyond the items every model has (they would overstate stability)."""
    import numpy as np

    n = int(np.isfinite(np.asarray(m.scores, dtype=float)).all(axis=0).sum())
    out: list[int | str] = []
    for v in sizes:
        if v != "full" and "full" in sizes and (v == n or (not explicit and v > n)):
            continue
        out.append(v)
    return out or sizes


@click.command("stability")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--sizes", default=listed(DEFAULT_SIZES), show_default=True,
              help="Comma-separated benchmark sizes; 'full' = all items.")
@click.option("--n-resamples", default=api_default(stability, "n_resamples"), show_default=True, type=click.IntRange(min=10), help="Draws per size.")
@click.option("--top-k", default=listed(api_default(stability, "top_k")), show_default=True, help="k for 'the top k keep their exact order'.")
@click.option("--cluster", is_flag=True, help="Resample item groups (e.g. subjects) instead of items.")
@input_options
@output_options
@seed_option
def command(paths: tuple[str, ...], sizes: str, n_resamples: int, top_k: str, cluster: bool,
            output_format: str | None, out: str, seed: int, **kw: Any) -> None:
    """How often the #1 stays #1 (and the top k keep their order) at other benchmark sizes."""
    from ..ranking import stability

    sz = parse_sizes(sizes)
    try:
        ks = [int(k) for k in top_k.split(",") if k.strip()]
    except ValueError:
        raise click.BadParameter(f"{top_k!r} must be whole numbers like 2,3", param_hint="--top-k") from None
    m, ihash = load_matrix(paths, kw)
    sz = _fit_sizes(sz, m, explicit=_given("sizes"))
    with progress_bar(len(sz) * n_resamples, "resampling") as cb:
        r = stability(m, sizes=sz, n_resamples=n_resamples, top_k=ks, rng=seed, cluster=cluster, progress=cb)
    render(r, kind="stability", fmt=output_format, out=out, seed=seed, input_hash=ihash, command=command_line())
