"""``ranktrust power``: items needed for a gap, or the gap detectable with a number of items."""

from __future__ import annotations

from typing import Any

import click

from ._common import command_line, emit, input_options, load_matrix, output_options


def _pts(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 100:.2f}"


def _headline(d: dict[str, Any]) -> str:
    q, a, pw = d["disagreement"], d["alpha"], d["power"]
    cond = f"disagreement q = {q:.3f}, α = {a:g}, power = {pw:.0%}"
    if d["solved_for"] == "items":
        how = ""
        if d.get("method") == "exact":
            how = " for the exact McNemar test"
            if d.get("items_needed_normal") and d["items_needed_normal"] != d["items_needed"]:
                how += (f" (the normal-approximation formula n = (z + z)² q / gap² says "
                        f"{d['items_needed_normal']:,}, which falls short of {pw:.0%} power with that test)")
        return (f"To detect a gap of {d['gap'] * 100:g} points ({cond}) you need about "
                f"{d['items_needed']:,} items{how}.")
    n = f"{d['items']:,} item" + ("" if d["items"] == 1 else "s")
    g = d["detectable_gap"]
    if g is None:
        return (f"With {n} ({cond}) no possible gap is detectable: even the largest gap two such models can have "
                f"does not reach {pw:.0%} power with the exact test; a paired {1 - a:.0%} CI is about "
                f"±{_pts(d['ci_half_width'])} points.")
    if g >= 1 or (d.get("binary", True) and g > q):
        return (f"With {n} ({cond}) no possible gap is detectable: the formula asks for {_pts(g)} points, more "
                f"than two such models can differ by; a paired {1 - a:.0%} CI is about ±{_pts(d['ci_half_width'])} "
                "points.")
    return (f"With {n} ({cond}) the smallest detectable gap is {_pts(g)} "
            f"points, and a paired {1 - a:.0%} CI is about ±{_pts(d['ci_half_width'])} points.")


def _text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    out: list[Any] = [Text(_headline(d))]
    if d.get("disagreement_source"):
        out.append(Text(f"q: {d['disagreement_source']}"))
    tab = d.get("table")
    if tab:
        t = Table(title="Items needed by gap", title_justify="left")
        t.add_column("gap (pts)", justify="right")
        t.add_column("items needed", justify="right")
        for row in tab:
            t.add_row(f"{row['gap'] * 100:g}", f"{row['items_needed']:,}")
        out.append(t)
    return out


def _markdown(d: dict[str, Any]) -> str:
    lines = ["## Power", "", _headline(d)]
    if d.get("disagreement_source"):
        lines += ["", f"q: {d['disagreement_source']}"]
    tab = d.get("table")
    if tab:
        lines += ["", "| gap (pts) | items needed |", "|--:|--:|"]
        lines += [f"| {r['gap'] * 100:g} | {r['items_needed']:,} |" for r in tab]
    return "\n".join(lines) + "\n"


@click.command("power")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--gap", type=float, default=None, help="Gap to detect, in percentage points (2 = 2 pts).")
@click.option("--items", type=int, default=None, help="Number of items (solve for the detectable gap).")
@click.option("--disagreement", type=float, default=None,
              help="Share q of items on which the two models differ (default: estimated from PATHS).")
@click.option("--pair", nargs=2, type=str, default=None, metavar="A B",
              help="Estimate q from this pair of models in PATHS (default: median over all pairs).")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Two-sided significance level.")
@click.option("--power", "power_", type=float, default=0.8, show_default=True, help="Power (0.8 = 80%).")
@click.option("--method", "power_method", type=click.Choice(["auto", "exact", "normal"]), default="auto",
              show_default=True,
              help="auto: the exact McNemar test for 0/1 scores (what compare and report run), the normal "
                   "formula for continuous ones; normal: the published formula n = (z + z)² q / gap².")
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
    from ..stats.power import estimate_disagreement, power, power_table

    has_data = bool(paths or kw.get("db"))
    if gap is not None and items is not None:
        raise ValueError("give exactly one of --gap (points) and --items, not both")
    if gap is None and items is None and not has_data:
        raise ValueError("give exactly one of --gap (points) and --items, or a results file (its detectable gap "
                         "at its number of items)")
    if gap is not None and not 0 < gap < 100:
        raise ValueError(f"--gap is in percentage points and must be in (0, 100), got {gap:g}")
    if gap is not None and gap < 0.1:
        # the Python API takes fractions (gap=0.02); on the command line that is 0.02 points
        raise ValueError(f"--gap is in percentage points: --gap {gap:g} asks for {gap:g} points "
                         f"({gap / 100:g} as a fraction). For {gap * 100:g} points pass --gap {gap * 100:g}")
    ihash = None
    source = "given with --disagreement"
    if disagreement is None:
        if not paths and not kw.get("db"):
            raise ValueError("give --disagreement Q, or a results file to estimate it from")
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
        raise ValueError("give --disagreement or a results file (with --pair), not both")
    else:
        binary = True
    if gap is not None and binary and gap / 100.0 > disagreement:
        raise DataError(f"--gap {gap:g} points is larger than `disagreement` q = {disagreement:.3g} allows: two "
                        f"models that disagree on {disagreement:.1%} of the items differ by at most "
                        f"{disagreement * 100:.3g} points; give a smaller --gap or a larger --disagreement")
    r = power(gap=None if gap is None else gap / 100.0, items=items, disagreement=disagreement,
              alpha=alpha, power=power_, binary=binary, method=power_method)
    d = r.to_dict()
    d["disagreement_source"] = source
    d["binary"] = binary
    d["table"] = power_table(r.disagreement, alpha=alpha, power=power_, binary=binary,
                             method=power_method).to_dict()["table"]
    emit(d, kind="power", fmt=output_format, out=out, text=_text, markdown=_markdown,
         seed=None, input_hash=ihash, command=command_line())
