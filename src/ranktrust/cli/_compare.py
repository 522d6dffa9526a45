"""``ranktrust compare``: paired comparison of two models on the items both scored."""

from __future__ import annotations

from typing import Any

import click

from ..stats import compare as _compare
from ._common import (
    api_default,
    cluster_requested,
    command_line,
    confidence_option,
    gold_options,
    input_options,
    load_with_gold,
    output_options,
    render,
    seed_option,
)


@click.command("compare")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--a", "model_a", required=True, help="First model (the difference is A - B).")
@click.option("--b", "model_b", required=True, help="Second model.")
@click.option("--method", type=click.Choice(["auto", "mcnemar", "betting", "t", "sign-flip", "cluster"]),
              default=api_default(_compare, "method"),
              show_default=True,
              help="auto: clustered with --cluster-by COL, else exact McNemar (0/1) or the betting interval "
                   "(continuous: valid at every number of items); t: the paired t, asymptotic.")
@click.option("--n-resamples", default=api_default(_compare, "n_resamples"), show_default=True, type=click.IntRange(min=1),
              help="Sign-flip draws (--method sign-flip).")
@click.option("--alternative", type=click.Choice(["two-sided", "greater", "less"]), default="two-sided",
              show_default=True, help="One-sided p-value: greater = A better than B, less = A worse.")
@input_options
@output_options
@confidence_option
@seed_option
@gold_options
def command(paths: tuple[str, ...], model_a: str, model_b: str, method: str, n_resamples: int, alternative: str,
            output_format: str | None, out: str, confidence: float, seed: int, gold_method: str, **kw: Any) -> None:
    """Compare two models on the items both scored in PATHS (paired test and CI).

    Other models in the file do not matter: the two are compared on the items both scored,
    whatever the others were scored on.
    """
    from ..stats import compare

    if kw.get("gold_col") and method != "auto":
        raise click.UsageError(f"--method {method} is a test of the judge's scores; with --gold-col the estimator "
                               "is --gold-method")
    if kw.get("align", "error") == "error":
        # only these two models matter: others scored on other items must not block the comparison
        kw = {**kw, "align": "pairwise"}
    m, gold, ihash = load_with_gold(paths, kw)
    m = m.select(models=[m.index_of(model_a), m.index_of(model_b)]) if model_a != model_b else m
    if gold is not None:
        r = compare(m, model_a, model_b, gold=gold, method=gold_method, confidence_level=confidence,
                    cluster=cluster_requested(kw), alternative=alternative)  # type: ignore[arg-type]
        render(r, kind="compare", fmt=output_format, out=out, seed=seed, input_hash=ihash, command=command_line())
        return
    if method == "mcnemar" and not m.is_binary:
        from ..errors import DataError

        raise DataError(f"{m.source or 'the input'}: --method mcnemar needs 0/1 scores, and these are continuous; "
                        "use --method t (or auto)")
    r = compare(m, model_a, model_b, method=method, confidence_level=confidence,  # type: ignore[arg-type]
                cluster=cluster_requested(kw) or method == "cluster", n_resamples=n_resamples, rng=seed,
                alternative=alternative)  # type: ignore[arg-type]
    render(r, kind="compare", fmt=output_format, out=out, seed=seed, input_hash=ihash, command=command_line())
