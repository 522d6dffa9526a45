"""``ranktrust arena``: Bradley-Terry ratings of battles or judge verdicts, with simultaneous rank sets."""

from __future__ import annotations

from typing import Any

import click

from ..preference import arena as _arena
from ._common import (
    api_default,
    command_line,
    confidence_option,
    output_options,
    progress_bar,
    render,
    seed_option,
)


@click.command("arena")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--baseline", default=None, help="Also give each model's win rate against this model (Arena-Hard, "
                                                "AlpacaEval), with its interval; also the baseline of Arena-Hard "
                                                "v0.1 judgments, which name none (v2 records keep their own).")
@click.option("--ties", type=click.Choice(["half", "davidson"]), default=api_default(_arena, "ties"),
              show_default=True, help="A tie as half a win, or Davidson's tie model.")
@click.option("--cluster-by", "cluster_by", default=api_default(_arena, "cluster_by"), show_default=True,
              help="How the intervals are clustered: auto: by the prompt id when the battles have one; a column "
                   "of the file (its prompt-id column such as question_id, or judge, user, or any column of a "
                   "battles table); 'none': each battle on its own.")
@click.option("--style", "style", default=None,
              help="Style control: 'all' for every style feature of the input, or names separated by commas.")
@click.option("--method", type=click.Choice(["sandwich", "bootstrap"]), default=api_default(_arena, "method"),
              show_default=True, help="Covariance from the cluster-robust sandwich or the cluster bootstrap.")
@click.option("--cluster-correction", "cluster_correction", type=click.Choice(["cr2", "cr1", "none"]),
              default=api_default(_arena, "cluster_correction"), show_default=True,
              help="Small-cluster correction of the sandwich: cr2 (bias-reduced meat and a t reference per pair from "
                   "the clusters its two models appear in; a model seen on few prompts gets the wide interval it "
                   "needs), cr1 (C/(C-1), normal reference), none.")
@click.option("--n-resamples", default=api_default(_arena, "n_resamples"), show_default=True,
              type=click.IntRange(min=10), help="Max-|t| draws (bootstrap refits with --method bootstrap).")
@click.option("--input-format", "input_format", default="auto", show_default=True,
              help="Battles format: table, clean_battle, arena_hard, alpaca_eval, mt_bench, or a plug-in's battles "
                   "reader (docs/formats/battles.md); auto: each file by its content.")
@click.option("--weight-strong", "weight_strong", type=float, default=None,
              help="Arena-Hard: the weight of a strong verdict (3 as Arena-Hard), one battle with that weight; on a "
                   "battles table that wrote each strong verdict 3 times, the copies become one row again.")
@click.option("--prompt-col", "prompt", default=None,
              help="Battles tables: which column holds the prompt ids (default: the first of cluster, question_id, "
                   "prompt_id, uid; '' for none). It only reads them; --cluster-by chooses the clustering.")
@click.option("--gold", "gold", default=None, type=click.Path(),
              help="People's verdicts on a random subset of the battles, when PATHS are a judge's verdicts on all of "
                   "them: prediction-powered ratings and rank sets, with the judge-only and gold-only answers beside.")
@click.option("--battle-id", "battle_id", default=None,
              help="With --gold: the column naming a battle in both files (default: num).")
@output_options
@confidence_option
@seed_option
def command(paths: tuple[str, ...], baseline: str | None, ties: str, cluster_by: str, style: str | None,
            method: str, cluster_correction: str, n_resamples: int, input_format: str, weight_strong: float | None,
            prompt: str | None, gold: str | None, battle_id: str | None, output_format: str | None, out: str,
            confidence: float, seed: int) -> None:
    """Ratings, simultaneous rank sets and "Is #1 really #1?" for battles in PATHS (a battles table,
    Chatbot Arena clean_battle JSON, Arena-Hard judgments, AlpacaEval annotations, MT-Bench pairs); with --gold,
    a judge's verdicts in PATHS corrected by people's verdicts on some of the same battles."""
    from ..data import input_hash

    if not paths:
        raise click.UsageError("give a battles file")
    sty: Any = False if style is None else (True if style == "all" else [s.strip() for s in style.split(",") if s.strip()])
    with progress_bar(n_resamples if method == "bootstrap" else None, "arena") as progress:
        r = _arena(list(paths) if len(paths) > 1 else paths[0], format=input_format,
                   weight_strong=weight_strong if weight_strong is not None else False, prompt=prompt,
                   baseline=baseline, ties=ties, cluster_by=None if cluster_by.lower() == "none" else cluster_by,
                   style=sty, method=method, cluster_correction=cluster_correction, confidence_level=confidence,
                   n_resamples=n_resamples, rng=seed, progress=progress, gold=gold, battle_id=battle_id)
    render(r, kind="arena", fmt=output_format, out=out, seed=seed,
           input_hash=input_hash(paths + ((gold,) if gold else ())),
           command=command_line(), title="ranktrust arena")
