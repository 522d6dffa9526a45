"""``ranktrust ranks``: each model's range of ranks with joint confidence, and the tiers."""

from __future__ import annotations

from typing import Any

import click

from ._common import command_line, confidence_option, emit, input_options, load_matrix, output_options, seed_option


def _range(lo: int, hi: int) -> str:
    from ..reporting.fmt import rank_range

    return rank_range(lo, hi)


def _columns(d: dict[str, Any]) -> list[tuple[str, str]]:
    kind = "joint" if d["simultaneous"] else "marginal"
    cols = [("tier", "right"), ("model", "left"), ("score", "right"), ("rank", "right"),
            (f"rank range ({kind})", "right")]
    if d["simultaneous"]:  # with --marginal the range column already is the marginal one
        cols.append(("marginal", "right"))
    return cols


def _cells(d: dict[str, Any], row: dict[str, Any]) -> list[str]:
    tier = d["tiers"]["model_tier"]
    out = [str(tier[row["model"]]), row["model"], f"{row['score'] * 100:.1f}", str(row["rank"]),
           _range(row["rank_low"], row["rank_high"])]
    if d["simultaneous"]:
        out.append(_range(row["marginal_low"], row["marginal_high"]))
    return out


def _first_sentence(d: dict[str, Any]) -> str:
    cl = round(d["confidence_level"] * 100, 6)
    first = d["could_be_first"]
    if len(d["models"]) < 2:
        return f"{first[0]} is the only model: there is nothing to rank."
    return (f"Could be #1: {', '.join(first)}." if len(first) > 1
            else f"{first[0]} is #1 with {cl:g}% confidence.")


def _method_sentence(d: dict[str, Any]) -> str:
    from ..reporting.fmt import ADJUST_NAMES, tier_phrase

    how = (f"from the paired tests of all pairs ({ADJUST_NAMES.get(d.get('adjust'), d.get('adjust'))})"
           if d.get("method") == "pairs" else
           f"from the {'studentized ' if d.get('studentized') else ''}bootstrap ({d['n_resamples']:,} resamples)")
    return (f"Rank ranges {how}; Mogstad, Romano, Shaikh & Wilhelm (2024). "
            + tier_phrase({"method": "rank-sets"}) + ".")


def _text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    cl = round(d["confidence_level"] * 100, 6)
    kind = "joint" if d["simultaneous"] else "marginal"
    t = Table(title=f"Rank ranges with {cl:g}% {kind} confidence")
    for c, j in _columns(d):
        t.add_column(c, justify=j, overflow="fold")
    for row in d["models"]:
        t.add_row(*_cells(d, row))
    out = [t, Text(_first_sentence(d)),
           Text(_method_sentence(d))]
    if d.get("dropped"):
        from ..reporting.fmt import dropped_sentence

        out.append(Text(dropped_sentence(d)))
    return out


def _markdown(d: dict[str, Any]) -> str:
    from ..reporting.markdown import _esc

    cl = round(d["confidence_level"] * 100, 6)
    kind = "joint" if d["simultaneous"] else "marginal"
    cols = _columns(d)
    lines = [f"## Rank ranges ({cl:g}% {kind} confidence)", "",
             "| " + " | ".join(c for c, _ in cols) + " |",
             "|" + "|".join("---" if j == "left" else "--:" for _, j in cols) + "|"]
    for row in d["models"]:
        lines.append("| " + " | ".join(_esc(c) for c in _cells(d, row)) + " |")
    lines += ["", _first_sentence(d), "", _method_sentence(d)]
    if d.get("dropped"):
        from ..reporting.fmt import dropped_sentence

        lines += ["", dropped_sentence(d)]
    return "\n".join(lines) + "\n"


@click.command("ranks")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--method", "rank_method", type=click.Choice(["pairs", "bootstrap"]), default="pairs",
              show_default=True,
              help="pairs: the paired tests of all pairs (exact for 0/1), adjusted with --adjust; "
                   "bootstrap: the studentized stepwise bootstrap of Mogstad et al.")
@click.option("--adjust", type=click.Choice(["holm", "bonferroni", "bh", "none"]), default="holm", show_default=True,
              help="Multiple-comparison adjustment over all pairs (--method pairs).")
@click.option("--n-resamples", default=1000, show_default=True, type=click.IntRange(min=10),
              help="Bootstrap resamples (--method bootstrap).")
@click.option("--marginal", is_flag=True, help="Report marginal rank ranges (each model on its own).")
@click.option("--cluster", is_flag=True, help="Resample item groups (e.g. subjects) instead of items.")
@input_options
@output_options
@confidence_option
@seed_option
def command(paths: tuple[str, ...], rank_method: str, adjust: str, n_resamples: int, marginal: bool, cluster: bool,
            output_format: str | None, out: str, confidence: float, seed: int, **kw: Any) -> None:
    """Each model's range of ranks (95% joint confidence by default) and the tiers."""
    from ..ranking.ranksets import rank_sets
    from ..ranking.tiers import tiers_of

    if not 0 < confidence < 1:
        raise ValueError(f"--confidence must be in the open interval (0, 1), got {confidence:g} (use 0.95 for 95%)")
    m, ihash = load_matrix(paths, kw)
    if rank_method == "bootstrap" and not m.is_complete:
        m = m.align("intersect")
    rs = rank_sets(m, method=rank_method, confidence_level=confidence, simultaneous=not marginal, adjust=adjust,
                   n_resamples=n_resamples, cluster=cluster, rng=seed)
    payload = rs.to_dict()
    payload["tiers"] = tiers_of(rs).to_dict()
    emit(payload, kind="ranks", fmt=output_format, out=out, text=_text, markdown=_markdown,
         seed=seed, input_hash=ihash, command=command_line())
