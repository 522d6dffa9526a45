"""``ranktrust splithalf``: does the winner of one random half win the other half?"""

from __future__ import annotations

from typing import Any

import click

from ._common import command_line, emit, input_options, load_matrix, output_options, progress_bar, seed_option


def _signed0(x: float, fmt: str) -> str:
    """Format without a negative zero ('-0%')."""
    out = format(x, fmt)
    return out[1:] if out.startswith("-") and float(out) == 0 else out


def _winners(d: dict[str, Any], k: int = 3) -> str:
    """'Half winners: A 54%, B 46%' (the models that win a half most often)."""
    wins = sorted(((p, m) for m, p in (d.get("p_wins_half") or {}).items() if p), reverse=True)
    if not wins:
        return ""
    shown = ", ".join(f"{m} {p:.0%}" if p >= 0.005 else f"{m} <1%" for p, m in wins[:k])
    return f"Who wins a half: {shown}" + (f" (and {len(wins) - k} more)" if len(wins) > k else "") + "."


def _notes(d: dict[str, Any]) -> list[str]:
    from ..reporting.sections import lead_phrase

    out = []
    lead = lead_phrase(d)
    if lead:
        out.append(f"The winner of one half also wins the other {d['p_same_winner']:.0%} of the time; {lead}")
    w = _winners(d)
    if w:
        out.append(w)
    if d.get("dropped"):
        from ..reporting.fmt import dropped_sentence

        out.append(dropped_sentence(d))
    return out


def _rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        ("winner of one half also wins the other", f"{d['p_same_winner'] * 100:.1f}% ±{d['p_same_winner_se'] * 100:.1f}"),
        ("winner's lead in the half that picked it", f"{d['lead_selecting_half'] * 100:.2f} pts ±{d['lead_selecting_half_se'] * 100:.2f}"),
        ("its lead in the other half", f"{d['lead_other_half'] * 100:.2f} pts ±{d['lead_other_half_se'] * 100:.2f}"),
        ("shrinkage (winner's curse)", "n/a" if d["shrinkage"] is None else
         f"{_signed0(d['shrinkage'] * 100, '.0f')}% ±{(d['shrinkage_se'] or 0) * 100:.0f}"),
    ]


def _text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"Split-half check: {d['splits']:,} random halves")
    t.add_column("")
    t.add_column("value", justify="right")
    for a, b in _rows(d):
        t.add_row(a, b)
    return [t, *(Text(n) for n in _notes(d)),
            Text("± is the Monte Carlo standard error. A lead that shrinks in the other half is the "
                 "winner's curse: picking the best of noisy scores overstates its lead.")]


def _markdown(d: dict[str, Any]) -> str:
    lines = [f"## Split-half check ({d['splits']:,} random halves)", "", "| | value |", "|---|--:|"]
    lines += [f"| {a} | {b} |" for a, b in _rows(d)]
    notes = _notes(d)
    if notes:
        from ..reporting.markdown import _esc

        lines += [""] + [_esc(n) for n in notes]
    return "\n".join(lines) + "\n"


@click.command("splithalf")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--splits", default=3000, show_default=True, type=click.IntRange(min=2), help="Random halves.")
@input_options
@output_options
@seed_option
def command(paths: tuple[str, ...], splits: int, output_format: str | None, out: str, seed: int,
            **kw: Any) -> None:
    """Split the items in random halves: does one half's winner also win the other?"""
    from ..ranking.splithalf import split_half

    m, ihash = load_matrix(paths, kw)
    with progress_bar(splits, "splitting") as cb:
        r = split_half(m, splits=splits, rng=seed, progress=cb)
    emit(r.to_dict(), kind="splithalf", fmt=output_format, out=out, text=_text, markdown=_markdown,
         seed=seed, input_hash=ihash, command=command_line())
