"""``ranktrust power``: items needed for a gap, or the gap detectable with a number of items."""

from __future__ import annotations

from typing import Any

import click

from ..stats import power as _power
from ._common import (
    api_default,
    command_line,
    input_options,
    load_matrix,
    output_options,
    render,
)


@click.command("power")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--gap", type=float, default=None, help="Gap to detect, in percentage points (2 = 2 pts).")
@click.option("--items", type=int, default=None, help="Number of items (solve for the detectable gap).")
@click.option("--disagreement", type=float, default=None,
              help="Share q of items on which the two models differ (default: estimated from PATHS).")
@click.option("--pair", nargs=2, type=str, default=None, metavar="A B",
              help="Estimate q from this pair of models in PATHS (default: median over all pairs).")
@click.option("--alpha", type=float, default=api_default(_power, "alpha"), show_default=True, help="Two-sided significance level.")
@click.option("--power", "power_", type=float, default=api_default(_power, "power"), show_default=True, help="Power (0.8 = 80%).")
@click.option("--method", "power_method", type=click.Choice(["auto", "exact", "normal"]),
              default=api_default(_power, "method"),
              show_default=True,
              help="auto: the exact McNemar test for 0/1 scores (what compare and report run), the normal "
                   "formula for continuous ones; normal: the published formula "
                   "n = (z_(1-alpha/2) + z_power)² q / gap².")
@input_options
@output_options
def command(paths: tuple[str, ...], gap: float | None, items: int | None, disagreement: float | None,
            pair: tuple[str, str] | None, alpha: float, power_: float, power_method: str,
            output_format: str | None, out: str, **kw: Any) -> None:
    """Items needed to detect a gap (--gap), or the detectable gap at --items (with PATHS and neither
    option: the detectable gap at their number of items).

    q comes from --disagreement, or is estimated from the results in PATHS.
    """
    from ..errors import DataError
    from ..stats import estimate_disagreement, power

    has_data = bool(paths or kw.get("db"))
    if gap is not None and items is not None:
        raise click.UsageError("give exactly one of --gap (points) and --items, not both")
    if gap is None and items is None and not has_data:
        raise click.UsageError("give exactly one of --gap (points) and --items, or a results file (its detectable gap "
                         "at its number of items)")
    if gap is not None and not 0 < gap < 100:
        raise click.UsageError(f"--gap is in percentage points and must be in (0, 100), got {gap:g}")
    if gap is not None and gap < 0.1:
        # the Python API takes fractions (gap=0.02); on the command line that is 0.02 points
        raise click.UsageError(f"--gap is in percentage points: --gap {gap:g} asks for {gap:g} points "
                         f"({gap / 100:g} as a fraction). For {gap * 100:g} points pass --gap {gap * 100:g}")
    ihash = None
    source = "given with --disagreement"
    if disagreement is None:
        if not paths and not kw.get("db"):
            raise click.UsageError("give --disagreement Q, or a results file to estimate it from")
        m, ihash = load_matrix(paths, kw)
        disagreement = estimate_disagreement(m, pair=pair)
        binary = m.is_binary
        if not disagreement > 0:
            who = (f"{pair[0]} and {pair[1]} give the same result on every shared item (disagreement q = 0)"
                   if pair else "most model pairs give the same result on every shared item (median "
                   "disagreement q = 0)")
            raise DataError(f"{m.source or ', '.join(paths)}: {who}, so q cannot be estimated; "
                            "give --disagreement Q to plan anyway")
        if gap is None and items is None:
            items = m.n_items
        name = m.source or ", ".join(paths)
        source = (f"estimated from {pair[0]} vs {pair[1]} in {name}" if pair else
                  f"median over the {m.n_models * (m.n_models - 1) // 2:,} model pairs in {name}")
    elif paths or pair:
        raise click.UsageError("give --disagreement or a results file (with --pair), not both")
    else:
        binary = True
    if gap is not None and binary and gap / 100.0 > disagreement:
        raise DataError(f"--gap {gap:g} points is larger than `disagreement` q = {disagreement:.3g} allows: two "
                        f"models that disagree on {disagreement:.1%} of the items differ by at most "
                        f"{disagreement * 100:.3g} points; give a smaller --gap or a larger --disagreement")
    r = power(gap=None if gap is None else gap / 100.0, items=items, disagreement=disagreement,
              alpha=alpha, power=power_, binary=binary, method=power_method)
    render(r, kind="power", fmt=output_format, out=out, input_hash=ihash, command=command_line(),
           extra={"disagreement_source": source})   # the table is the result's own (PowerResult.table)
