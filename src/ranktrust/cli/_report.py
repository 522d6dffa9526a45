"""``ranktrust report``: the leaderboard with CIs, paired tests, tiers, rank sets, stability and power."""

from __future__ import annotations

from typing import Any

import click

from ..leaderboard import DEFAULT_SIZES, Inference, Resampling
from ._main import ApiOption
from ._common import (
    api_default,
    cluster_requested,
    command_line,
    confidence_option,
    gold_options,
    judge_options,
    judges_mode,
    input_options,
    listed,
    load_with_gold,
    output_format_option,
    parse_sizes,
    progress_bar,
    render,
    seed_option,
)


@click.command("report")
@click.argument("paths", nargs=-1, type=click.Path())
@input_options
@output_format_option(default=None)
@click.option("--out", "-o", default="-", show_default=True, help="Write the report to FILE ('-' = stdout).")
@confidence_option
@seed_option
@click.option("--ci-method", type=click.Choice(["auto", "clt", "t", "wilson", "cluster", "percentile", "bca"]),
              default=api_default(Inference, "ci_method"), show_default=True,
              help="Per-model interval (auto: Wilson for 0/1 scores, t otherwise), or bootstrap percentile/BCa.")
@click.option("--all-pairs", is_flag=True, help="Show every pair, not only each model vs the next one down.")
@click.option("--adjust", type=click.Choice(["holm", "bonferroni", "bh", "none"]),
              default=api_default(Inference, "adjust"), show_default=True,
              help="Multiple-comparison adjustment over all pairs (holm/bonferroni: joint rank ranges).")
@click.option("--tiers", type=click.Choice(["auto", "rank-sets", "adjacent"]),
              default=api_default(Inference, "tiers"), show_default=True,
              help="How tiers are formed (auto: from the rank ranges; adjacent: a new tier where neighbours differ, "
                   "not transitive; the tier column then reads 'tier (adjacent)').")
@click.option("--rank-method", type=click.Choice(["pairs", "bootstrap"]),
              default=api_default(Inference, "rank_method"), show_default=True,
              help="Rank ranges from the paired tests of all pairs, or from the studentized bootstrap (MRSW).")
@click.option("--sizes", default=listed(DEFAULT_SIZES), show_default=True,
              help="Benchmark sizes for the rank-stability table.")
@click.option("--stability-n-resamples", default=api_default(Resampling, "stability_n_resamples"), show_default=True, type=click.IntRange(min=10),
              help="Redraws per size of the rank-stability section.")
@click.option("--no-stability", is_flag=True, help="Skip rank stability.")
@click.option("--no-sampling", is_flag=True, cls=ApiOption, api=("stability", "quality"),
              api_values=(("stability", "all"), ("quality", "all")),
              help="Above 10 million cells, draw every rank-stability redraw and fit the person fit on every item "
                   "(slower); below, nothing changes.")
@click.option("--split-half", is_flag=True, help="Add the split-half winner check.")
@click.option("--microbench", is_flag=True, help="Add the micro-benchmark (MDAD) section.")
@click.option("--plots", "plots_dir", default=None, type=click.Path(file_okay=False),
              help="Also write the figures as PNG and SVG into this folder.")
@gold_options
@judge_options
def command(paths: tuple[str, ...], output_format: str | None, out: str, confidence: float, seed: int,
            ci_method: str, all_pairs: bool, adjust: str, tiers: str, rank_method: str, sizes: str,
            stability_n_resamples: int,
            no_stability: bool, no_sampling: bool, split_half: bool, microbench: bool, plots_dir: str | None, gold_method: str,
            **kw: Any) -> None:
    """Report on per-item results in PATHS (or --db STORE)."""
    from ..leaderboard import report
    from ..reporting import output_format as pick_format

    fmt = pick_format(output_format, out)   # before the analysis: a bad --format/--out pair fails fast
    if ci_method == "cluster" and not cluster_requested(kw):
        raise click.UsageError("--ci-method cluster needs --cluster-by COLUMN (the item groups to cluster by)")
    judges = judges_mode(kw)
    m, gold, ihash = load_with_gold(paths, kw, notes=False)   # the report prints the reader's notes
    cluster = cluster_requested(kw)
    with progress_bar(1000, "analysing") as cb:
        rep = report(
            m, confidence_level=confidence, cluster=cluster, cluster_label=kw.get("group_col") if cluster else None,
            ci_method=ci_method, adjust=adjust, all_pairs=all_pairs, tiers=tiers,
            rank_method=rank_method, stability=False if no_stability else ("all" if no_sampling else True),
            quality="all" if no_sampling else True, sizes=parse_sizes(sizes),
            stability_n_resamples=stability_n_resamples, split_half=split_half, rng=seed, microbench=microbench,
            progress=cb, **({"gold": gold, "gold_method": gold_method} if gold is not None else {}),
            **({"judges": judges} if judges is not None else {}),
        )
    if plots_dir:
        from ..reporting.plots import save_figures

        save_figures(rep, plots_dir)
    render(rep, kind="report", fmt=fmt, out=out, seed=seed, input_hash=ihash, command=command_line())
