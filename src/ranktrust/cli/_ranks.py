"""``ranktrust ranks``: each model's range of ranks with joint confidence, and the tiers."""

from __future__ import annotations

from typing import Any

import click

from ..ranking import rank_sets
from ._common import (
    api_default,
    command_line,
    confidence_option,
    gold_options,
    input_options,
    load_with_gold,
    output_options,
    render,
    seed_option,
)


@click.command("ranks")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--method", "rank_method", type=click.Choice(["pairs", "bootstrap"]),
              default=api_default(rank_sets, "method"),
              show_default=True,
              help="pairs: the paired tests of all pairs (exact for 0/1), adjusted with --adjust; "
                   "bootstrap: the studentized stepwise bootstrap of Mogstad et al.")
@click.option("--adjust", type=click.Choice(["holm", "bonferroni", "bh", "none"]),
              default=api_default(rank_sets, "adjust"), show_default=True,
              help="Multiple-comparison adjustment over all pairs (--method pairs).")
@click.option("--n-resamples", default=api_default(rank_sets, "n_resamples"), show_default=True, type=click.IntRange(min=10),
              help="Bootstrap resamples (--method bootstrap).")
@click.option("--marginal", is_flag=True, help="Report marginal rank ranges (each model on its own).")
@click.option("--cluster", is_flag=True, help="Resample item groups (e.g. subjects) instead of items.")
@input_options
@output_options
@confidence_option
@seed_option
@gold_options
def command(paths: tuple[str, ...], rank_method: str, adjust: str, n_resamples: int, marginal: bool, cluster: bool,
            output_format: str | None, out: str, confidence: float, seed: int, gold_method: str, **kw: Any) -> None:
    """Each model's range of ranks (95% joint confidence by default) and the tiers.

    With --gold-col the ranks are those of the gold labels' means (gold-corrected), the judge-only and
    gold-only rank ranges beside them under "gold"."""
    from ..ranking import rank_sets, tiers_of

    m, gold, ihash = load_with_gold(paths, kw)
    if gold is not None:
        if rank_method != "pairs":
            raise click.UsageError("--gold-col ranks from the pairs of gold-corrected means: use --method pairs")
        from ..leaderboard import gold_ranks

        rs, extra = gold_ranks(m, gold, method=gold_method, confidence_level=confidence, adjust=adjust,
                               cluster=cluster, simultaneous=not marginal)
        render(rs, kind="ranks", fmt=output_format, out=out, seed=seed, input_hash=ihash, command=command_line(),
               extra={"tiers": tiers_of(rs).to_dict(), "gold": extra})
        return
    if rank_method == "bootstrap" and not m.is_complete:
        m = m.align("intersect")
    rs = rank_sets(m, method=rank_method, confidence_level=confidence, simultaneous=not marginal, adjust=adjust,
                   n_resamples=n_resamples, cluster=cluster, rng=seed)
    render(rs, kind="ranks", fmt=output_format, out=out, seed=seed, input_hash=ihash, command=command_line(),
           extra={"tiers": tiers_of(rs).to_dict()})
