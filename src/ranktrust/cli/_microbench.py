"""``ranktrust microbench``: how small can a benchmark get before it misorders models?

Three modes::

    ranktrust microbench FILE --methods random,anchor --sizes 10,100 --n-resamples 50   # MDAD grid
    ranktrust microbench FILE --select anchor --size 100 --out subset.csv         # design a subset
    ranktrust microbench FILE --target-mdad 2 --method random                     # smallest size for 2 pts
"""

from __future__ import annotations

from typing import Any

import click

from ..subsets import DEFAULT_METHODS, DEFAULT_SIZES, mdad
from ._main import ApiOption
from ._common import (
    api_default,
    command_line,
    confidence_option,
    input_options,
    listed,
    load_matrix,
    output_options,
    points_default,
    progress_bar,
    render,
    seed_option,
)


def _int_list(value: str, name: str) -> list[int]:
    try:
        out = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise click.UsageError(f"{name} must be comma-separated integers, e.g. 10,25,50; got {value!r}") from None
    if not out:
        raise click.UsageError(f"{name} is empty")
    return out


def _count_or_fraction(value: str | None, name: str) -> int | float | None:
    if value is None or value.strip().lower() in ("none", "all", "no"):
        return None
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            raise click.UsageError(f"{name} must be a count (300) or a fraction (0.7); got {value!r}") from None


@click.command("microbench")
@click.argument("paths", nargs=-1)
@input_options
@output_options
@seed_option
@confidence_option
@click.option("--methods", default=listed(DEFAULT_METHODS), show_default=True,
              help="Selection methods to evaluate (comma-separated).")
@click.option("--method", "single_method", default=None, help="Evaluate one method (e.g. with --target-mdad).")
@click.option("--sizes", default=listed(DEFAULT_SIZES), show_default=True, help="Subset sizes (comma-separated).")
@click.option("--n-resamples", default=api_default(mdad, "n_resamples"), show_default=True, type=int, help="Trials: random source/target splits.")
@click.option("--source-models", default=None,
              help="Source models per trial: a count or a fraction of the models. Default: 300 when that leaves "
                   "at least 50 targets, else 70% of the models (or all but 50, whichever is more).")
@click.option("--seen-items", default=str(api_default(mdad, "seen_items")), show_default=True,
              help="Items the subset is drawn from (count or fraction), as in [U]; the rest are the unseen items "
                   "of the second table. 'none': no split, one table against all items.")
@click.option("--target-models", default=None, type=int,
              help="Target models per trial (default: every model that is not a source; [U] used 50).")
@click.option("--target-mdad", default=points_default(mdad, "target_mdad"), show_default=True, type=float,
              help="MDAD (points) the recommendation looks for.")
@click.option("--delta-bin", default=points_default(mdad, "delta_bin"), show_default=True, type=float, help="Width of the gap bins, in points.")
@click.option("--agreement-level", default=api_default(mdad, "agreement_level"), show_default=True, type=float, help="Agreement that defines MDAD.")
@click.option("--min-pairs", default=api_default(mdad, "min_pairs"), show_default=True, type=int,
              help="Gap bins with fewer target pairs (pooled over trials) are ignored by MDAD; 1 = [U]'s rule. "
                   "A size is recommended only off a bin of at least max(N, 30) pairs.")
@click.option("--ci-method", type=click.Choice(["pairs", "trials"]), default=api_default(mdad, "ci_method"),
              show_default=True,
              help="MDAD interval: [U]'s bootstrap of the pooled bins (pairs) or the percentile of per-trial "
                   "MDADs (trials).")
@click.option("--select", "select_method", default=None, cls=ApiOption, api={"method": "--select"},
              help="Design a subset with this method instead (writes the items and weights).")
@click.option("--size", default=100, show_default=True, type=int, help="Subset size for --select.")
@click.option("--source", default=None, help="Source models for --select (comma-separated names); default all.")
def command(paths: tuple[str, ...], **kw: Any) -> None:
    """Reliability of micro-benchmarks (MDAD) per selection method and size, or design one.

    MDAD is the smallest gap between two models (in points) that a micro-benchmark
    orders the same way as the full benchmark in at least 80% of model pairs.
    """
    import ranktrust as rt

    m, h = load_matrix(paths, kw)
    fmt, out, seed = kw["output_format"], kw["out"], kw["seed"]
    if kw["select_method"]:
        source = [s.strip() for s in kw["source"].split(",")] if kw["source"] else None
        sub = rt.select_subset(m, method=kw["select_method"], size=kw["size"], source=source, rng=seed)
        if out.lower().endswith(".csv") and fmt == "text":
            fmt = "csv"   # --out subset.csv: the items and weights as a table
        render(sub, kind="microbench-subset", fmt=fmt, out=out, seed=seed, input_hash=h, command=command_line())
        return

    methods = [kw["single_method"]] if kw["single_method"] else [s.strip() for s in kw["methods"].split(",") if s.strip()]
    sizes = _int_list(kw["sizes"], "--sizes")
    source_models = _count_or_fraction(kw["source_models"], "--source-models")
    seen = _count_or_fraction(kw["seen_items"], "--seen-items")
    args = dict(methods=methods, sizes=sizes, n_resamples=kw["n_resamples"], source_models=source_models,
                target_models=kw["target_models"], seen_items=seen,
                rng=seed, delta_bin=kw["delta_bin"] / 100, agreement_level=kw["agreement_level"],
                target_mdad=kw["target_mdad"] / 100, min_pairs=kw["min_pairs"],
                ci_method=kw["ci_method"], confidence_level=kw["confidence"])
    res = _run(rt, m, args)
    render(res, kind="microbench", fmt=fmt, out=out, seed=seed, input_hash=h, command=command_line())


def _run(rt: Any, m: Any, args: dict[str, Any]) -> Any:
    with progress_bar(None, "microbench") as cb:
        return rt.mdad(m, **args, progress=cb)   # on a terminal only (cli/_common.progress_bar)
