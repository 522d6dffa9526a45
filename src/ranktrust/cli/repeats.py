"""``ranktrust repeats``: scores over several runs per item, pass@k, and how many runs are enough."""

from __future__ import annotations

from typing import Any

import click

from ._common import command_line, confidence_option, emit, input_options, load_matrix, output_options


def _pts(x: float | None, nd: int = 1) -> str:
    return "n/a" if x is None else f"{x * 100:.{nd}f}"


def _var(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _headline(d: dict[str, Any]) -> str:
    lvl = round(d["confidence_level"] * 100)
    return (
        f"Scores are means over all runs (stable scores), never the best run. {lvl}% CIs treat items as the "
        "sampling unit and include the run-to-run noise."
    )


def _tradeoff(row: dict[str, Any]) -> str:
    t = row["tradeoff"]
    if t["runs_shrink"] is None or t["items_shrink"] is None:
        return f"{row['model']}: not enough runs to project"
    def pct(x: float) -> str:
        return f"{100 * x:.1f}%" if abs(x) < 0.1 else f"{100 * x:.0f}%"

    return (f"{row['model']}: {t['more_runs']} more runs shrink the CI by {pct(t['runs_shrink'])}, "
            f"{t['more_items']} more items by {pct(t['items_shrink'])}")


def _columns(d: dict[str, Any], compact: bool = False) -> tuple[list[str], list[list[str]]]:
    ks = list(d["models"][0]["pass_at"]) if d["models"] else []
    lvl = round(d["confidence_level"] * 100)
    head = ["model", "runs", "score", f"{lvl}% CI", "run sd", "var_b", "var_w"]
    head += [f"pass@{k}" for k in ks]
    has_maj = any(r["maj_at_n"] is not None for r in d["models"])
    if has_maj:
        head.append("maj@N")
    choose = d.get("margin") is not None
    if choose:
        head.append("N req")
    rows = []
    for r in d["models"]:
        ci = "n/a" if r["ci_low"] is None else f"{_pts(r['ci_low'])}-{_pts(r['ci_high'])}"
        row = [r["model"], str(r["runs"]), _pts(r["score"]), ci,
               _pts(r["run_sd"], 2), _var(r["between_item_var"]), _var(r["within_item_var"])]
        for k in ks:
            p = r["pass_at"][k]
            row.append(_pts(p["estimate"]) if compact else
                       f"{_pts(p['estimate'])} ({_pts(p['ci_low'])}-{_pts(p['ci_high'])})")
        if has_maj:
            row.append(_pts(r["maj_at_n"]["estimate"]) if r["maj_at_n"] else "n/a")
        if choose:
            need = r["n_required"]
            row.append("n/a" if need is None else f"{need} {'ok' if r['enough_runs'] else '+' + str(need - r['runs'])}")
        rows.append(row)
    return head, rows


def _choose_line(d: dict[str, Any]) -> str | None:
    if d.get("margin") is None:
        return None
    return (f"Runs needed for a ±{d['margin'] * 100:g}-point margin at α = {d['alpha']:g} "
            "(N = ⌈(z·s/ε)²⌉ with s the sd of run scores; the run-to-run noise only). "
            "'ok': the runs at hand suffice; '+k': k more runs needed.")


def _text(d: dict[str, Any]) -> list[Any]:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    out: list[Any] = [Text(_headline(d))]
    head, rows = _columns(d, compact=True)
    t = Table(title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for h in head:
        # only the model column may wrap: with every column no_wrap a wide table truncates headers ("N r…")
        if h == "model":
            t.add_column(h, justify="left", overflow="fold")
        else:
            t.add_column(h, justify="right", no_wrap=True)
    for r in rows:
        t.add_row(*r)
    out.append(t)
    line = _choose_line(d)
    if line:
        out.append(Text(line))
    out.append(Text("var_b: between-item variance of item means; var_w: mean within-item variance over runs."))
    if any(r["pass_at"] for r in d["models"]):
        out.append(Text("pass@k: unbiased estimator, mean over items; CIs in --format json / md."))
    out.append(Text("What more data buys:"))
    out += [Text("  " + _tradeoff(r)) for r in d["models"]]
    out += [Text(f"note: {n}") for n in d["notes"]]
    return out


def _markdown(d: dict[str, Any]) -> str:
    head, rows = _columns(d)
    lines = ["## Repeats", "", _headline(d), "", "| " + " | ".join(head) + " |",
             "|" + "|".join(":--" if h == "model" else "--:" for h in head) + "|"]
    from ..reporting.markdown import _esc

    lines += ["| " + " | ".join(_esc(c) for c in r) + " |" for r in rows]
    line = _choose_line(d)
    if line:
        lines += ["", line]
    lines += ["", "What more data buys:", ""] + [f"- {_tradeoff(r)}" for r in d["models"]]
    if d["notes"]:
        lines += [""] + [f"> note: {n}" for n in d["notes"]]
    return "\n".join(lines) + "\n"


def _load(paths: tuple[str, ...], kw: dict[str, Any], use_prob: bool) -> tuple[Any, str]:
    if not use_prob:
        return load_matrix(paths, kw)
    from ..data.io import input_hash, read, read_long
    from ..data.readers._registry import ReadOptions
    from ..errors import DataError

    if kw.get("db"):
        raise DataError("--use-prob reads a 'prob' column from files; it does not work with --db")
    if not paths:
        raise click.UsageError("give an input file")
    opts = ReadOptions(model_col=kw.get("model_col", "model"), item_col=kw.get("item_col", "item"),
                       run_col=kw.get("run_col"), condition_col=kw.get("condition_col"),
                       task=kw.get("task"), metric=kw.get("metric"), errors=kw.get("on_errors", "error"))
    df = read_long(list(paths) if len(paths) > 1 else paths[0], format=kw.get("input_format", "auto"), options=opts)
    if "prob" not in df.columns:
        raise DataError(
            f"{', '.join(paths)}: --use-prob needs a 'prob' column (the probability of the correct answer); "
            f"found {', '.join(map(repr, list(df.columns)[:12]))}"
        )
    group = "" if kw.get("no_groups") else kw.get("group_col")
    m = read(df.drop(columns=[c for c in ("score",) if c in df.columns]), score="prob", group=group,
             run=kw.get("run_col") if kw.get("run_col") in df.columns else None,
             condition=kw.get("condition_col") if kw.get("condition_col") in df.columns else None,
             task=kw.get("task"), metric=kw.get("metric"), align=kw.get("align", "error"))
    return m, input_hash(paths)


@click.command("repeats")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--pass-at", "pass_at", default=None, metavar="K[,K...]",
              help="Unbiased pass@k for these k (0/1 scores), e.g. 1,5,10.")
@click.option("--choose-n", is_flag=True, help="How many runs a margin needs (the rule of arXiv:2506.04734).")
@click.option("--margin", type=float, default=None, help="Margin for --choose-n, in points (1 = ±1 point).")
@click.option("--alpha", type=float, default=0.1, show_default=True, help="α for --choose-n.")
@click.option("--use-prob", is_flag=True,
              help="Score with the 'prob' column (probability of the correct answer) instead of the 0/1 score.")
@input_options
@output_options
@confidence_option
def command(paths: tuple[str, ...], pass_at: str | None, choose_n: bool, margin: float | None, alpha: float,
            use_prob: bool, output_format: str | None, out: str, confidence: float, **kw: Any) -> None:
    """Per model: the mean over runs with a CI over items and runs, run sd, the
    between/within-item variance, pass@k and how many runs are enough.

    PATHS hold one row per (model, item, run); a 'run' column (seed or sample
    index) is picked up by name, or name it with --run-col.
    """
    from ..runs import repeats
    from ..runs.passk import _ks_from_text

    if choose_n and margin is None:
        raise ValueError("--choose-n needs --margin POINTS (e.g. --margin 1 for ±1 point)")
    if margin is not None and not 0 < margin < 100:
        raise ValueError(f"--margin is in points and must be in (0, 100), got {margin:g}")
    ks = _ks_from_text(pass_at) if pass_at else ()
    m, ihash = _load(paths, kw, use_prob)
    r = repeats(m, pass_at=ks, confidence_level=confidence, choose_n=choose_n,
                margin=None if margin is None else margin / 100.0, alpha=alpha)
    d = r.to_dict()
    if use_prob:
        d["notes"] = d["notes"] + ["scored with the 'prob' column (probability of the correct answer)"]
    emit(d, kind="repeats", fmt=output_format, out=out, text=_text, markdown=_markdown,
         seed=None, input_hash=ihash, command=command_line())
