"""``ranktrust sensitivity``: how much each condition (option order, prompt ...) moves each model."""

from __future__ import annotations

from typing import Any

import click

from ._common import command_line, confidence_option, emit, input_options, load_matrix, output_options


def _pts(x: float | None, nd: int = 1) -> str:
    return "n/a" if x is None else f"{x * 100:.{nd}f}"


def _p(x: float | None) -> str:
    if x is None:
        return "n/a"
    return "<0.0001" if x < 1e-4 else f"{x:.4f}"


#: Above this many conditions the per-condition columns and lists are summarised (32 seeds make 32 columns).
MAX_LISTED = 8


def _ahead(names: list[str], n: int, by: str) -> str:
    if n <= MAX_LISTED:
        return "under " + ", ".join(names)
    return f"under {len(names)} of {n} {by}s"


def _summary(d: dict[str, Any]) -> list[str]:
    by = d["by"]
    n = len(d["conditions"])
    over = f"the {by}s (and their runs)" if by == "condition" else f"the {by}s"
    lines = [f"Stable score = mean over {over}; the best {by} is never reported. "
             f"best+ = best {by} minus the mean; p = paired test (items) that the {by}s differ."]
    if n > MAX_LISTED:
        lines.append(f"{n} {by}s: the table shows each model's lowest and highest {by}; every {by}'s score is in "
                     "--format json.")
    if d["ranking_flips"]:
        tops = d["top_by_condition"]
        if n <= MAX_LISTED:
            top_txt = "; ".join(f"{c}: {m}" for c, m in tops.items())
        else:
            counts: dict[str, int] = {}
            for m_ in tops.values():
                counts[m_] = counts.get(m_, 0) + 1
            top_txt = ", ".join(f"{m_} in {k} of {n}" for m_, k in sorted(counts.items(), key=lambda kv: -kv[1]))
        lines.append(f"The ranking flips with the {by}: {len(d['flips'])} pair(s) change order. "
                     f"#1 by {by}: {top_txt}.")
        for f in d["flips"][:8]:
            lines.append(f"  {f['a']} vs {f['b']}: {f['a']} ahead {_ahead(f['a_ahead'], n, by)}; "
                         f"{f['b']} ahead {_ahead(f['b_ahead'], n, by)} "
                         f"(stable gap {_pts(f['stable_gap'], 2)} pts, largest reversal {_pts(f['largest_reversal'], 2)} pts)")
        if len(d["flips"]) > 8:
            lines.append(f"  ... and {len(d['flips']) - 8} more")
    else:
        lines.append(f"The ranking is the same under every {by}.")
    within = [g for g in d["gaps"] if g["within_spread"]]
    for g in within:
        lines.append(f"gap {g['a']} - {g['b']} = {_pts(g['gap'], 2)} pts is smaller than the {by} spread "
                     f"({_pts(g['spread_a'], 2)} / {_pts(g['spread_b'], 2)} pts): not a claimable gain")
    b = d["best_of_k_inflation"]
    if b["conditions"]["mean"] is not None:
        lines.append(f"Reporting the best of {b['conditions']['k']} {by}s instead of the mean adds "
                     f"{_pts(b['conditions']['mean'], 2)} pts on average (column best - mean).")
    if b["seeds"]["mean"] is not None:
        lines.append(f"Reporting the best of {b['seeds']['k']} seeds per {by} adds "
                     f"{_pts(b['seeds']['mean'], 2)} pts on average.")
    lines += [f"note: {n}" for n in d["notes"]]
    return lines


def _table(d: dict[str, Any], max_cols: int = MAX_LISTED) -> tuple[list[str], list[list[str]]]:
    conds = d["conditions"]
    if len(conds) > max_cols:
        return _compact_table(d)
    head = ["model", "stable"] + conds + ["spread", "best+", "p"]
    rows = []
    for r in d["models"]:
        row = [r["model"], _pts(r["stable"])]
        for c in conds:
            v = r["conditions"].get(c)
            if v is None:
                row.append("—")
            elif v["ci_high"] is None or v["ci_low"] is None:
                row.append(_pts(v["score"]))
            else:
                row.append(f"{_pts(v['score'])} ±{_pts((v['ci_high'] - v['ci_low']) / 2)}")
        row += [_pts(r["spread"]), _pts(r["best_inflation"]), _p(r["p_value"])]
        rows.append(row)
    return head, rows


def _compact_table(d: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """One row per model with its lowest and highest condition instead of one column per condition."""
    by = d["by"]
    head = ["model", "stable", f"lowest {by}", f"highest {by}", "spread", "best+", "p"]
    rows = []
    for r in d["models"]:
        got = [(v["score"], c) for c, v in (r["conditions"] or {}).items() if v and v.get("score") is not None]
        lo = min(got) if got else None
        hi = max(got) if got else None
        rows.append([r["model"], _pts(r["stable"]),
                     "n/a" if lo is None else f"{_pts(lo[0])} ({lo[1]})",
                     "n/a" if hi is None else f"{_pts(hi[0])} ({hi[1]})",
                     _pts(r["spread"]), _pts(r["best_inflation"]), _p(r["p_value"])])
    return head, rows


def _text(d: dict[str, Any]) -> list[Any]:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    head, rows = _table(d)
    t = Table(title=f"Score by {d['by']} (points, ±{round(d['confidence_level'] * 100)}% CI half-width over items)",
              title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for h in head:
        t.add_column(h, justify="left" if h == "model" else "right", no_wrap=True)
    for r in rows:
        t.add_row(*r)
    return [t] + [Text(s) for s in _summary(d)]


def _markdown(d: dict[str, Any]) -> str:
    from ..reporting.markdown import _esc

    head, rows = _table(d)
    lines = [f"## Sensitivity by {d['by']}", "", "| " + " | ".join(_esc(h) for h in head) + " |",
             "|" + "|".join(":--" if h == "model" else "--:" for h in head) + "|"]
    lines += ["| " + " | ".join(_esc(c) for c in r) + " |" for r in rows]
    lines += [""] + [f"- {_esc(s)}" if not s.startswith("  ") else f"  - {_esc(s.strip())}" for s in _summary(d)]
    return "\n".join(lines) + "\n"


@click.command("sensitivity")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--by", type=click.Choice(["condition", "run"]), default="condition", show_default=True,
              help="Compare the conditions (a 'condition' column), or every run (seed) as its own condition.")
@input_options
@output_options
@confidence_option
def command(paths: tuple[str, ...], by: str, output_format: str | None, out: str, confidence: float,
            **kw: Any) -> None:
    """How much each condition moves each model, against the sampling noise;
    whether the ranking flips; what reporting the best condition would add.

    PATHS hold one row per (model, item, condition[, run]); the 'condition' and
    'run' columns are picked up by name (or --condition-col / --run-col).
    """
    from ..runs import sensitivity

    m, ihash = load_matrix(paths, kw)
    s = sensitivity(m, by=by, confidence_level=confidence)  # type: ignore[arg-type]
    emit(s.to_dict(), kind="sensitivity", fmt=output_format, out=out, text=_text, markdown=_markdown,
         seed=None, input_hash=ihash, command=command_line())
