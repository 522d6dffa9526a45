"""``ranktrust microbench``: how small can a benchmark get before it misorders models?

Three modes::

    ranktrust microbench FILE --methods random,anchor --sizes 10,100 --trials 50   # MDAD grid
    ranktrust microbench FILE --select anchor --size 100 --out subset.csv         # design a subset
    ranktrust microbench FILE --target-mdad 2 --method random                     # smallest size for 2 pts
"""

from __future__ import annotations

import csv
import io
from typing import Any

import click

from ._common import command_line, emit, input_options, load_matrix, output_options, progress_bar, seed_option


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


def _fmt(x: Any, scale: float = 100.0, nd: int = 1) -> str:
    return "—" if x is None else f"{scale * x:.{nd}f}"


def _ci(r: dict[str, Any]) -> str:
    if r["ci_low"] is None and r["ci_high"] is None:
        return "n/a"
    return f"{_fmt(r['ci_low'])}–{_fmt(r['ci_high'])}"


def _share(x: Any) -> str:
    return "n/a" if x is None else f"{_fmt(x, 100, 0)}%"


_COLS = ("method", "items", "MDAD (pts)", "{ci}% CI", "Kendall τ", "mean abs err (pts)", "misordered")


def _row(r: dict[str, Any]) -> list[str]:
    return [r["method"], str(r["size"]), _fmt(r["mdad"]) if r["reached"] else r["status"], _ci(r),
            _fmt(r["kendall_tau"], 1, 2), _fmt(r["mean_abs_error"]), _share(r["misordered"])]


def _against(d: dict[str, Any]) -> str:
    """What the main table is judged against: every item, or the seen items of a seen/unseen split."""
    s = d["settings"]
    if d.get("unseen") is None:
        return ""
    return f" against the {s['seen_items']} seen items"


def _mdad_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table

    s = d["settings"]
    ci = f"{100 * s['confidence_level']:.0f}"

    def table(title: str, rows: list[dict[str, Any]]) -> Table:
        t = Table(title=title)
        for col in _COLS:
            t.add_column(col.format(ci=ci), justify="left" if col == "method" else "right")
        for r in rows:
            t.add_row(*_row(r))
        return t

    head = (f"({s['trials']} trials, {s['source_models']} source / {s['target_models']} target models, "
            f"{s['items']} items)")
    out: list[Any] = [table(f"Micro-benchmark reliability{_against(d)} {head}", d["mdad"])]
    if d.get("unseen") is not None:
        out.append(table(f"Against unseen items ({s['items'] - s['seen_items']} items the source models never saw; "
                         "the figures [U] publish)", d["unseen"]["mdad"]))
    out += [f"• {line}" for line in d["recommendation"]["text"]]
    mp = s.get("min_pairs", 1)
    counted = "" if mp <= 1 else f" with at least {mp} pairs"
    ci_note = ("CI: [U]'s bootstrap of the pooled bins ('—' = the bound is not reached)"
               if s.get("ci_method", "pairs") == "pairs" else
               "CI: percentile of per-trial MDADs ('—' = not reached in some trials)")
    lvl = f"{100 * s['agreement_level']:.0f}%"
    out.append(f"MDAD: lower edge of the smallest 0.5-point gap bin{counted} in which ≥{lvl} "
               f"of target pairs are ordered as on the reference ([U]'s rule); {ci_note}.")
    if d.get("unseen") is not None:
        out.append("Seen/unseen split: items are chosen from the seen items; the first table judges the targets "
                   "against their scores on the seen items, the second against the unseen ones (does the "
                   "micro-benchmark generalise to new items?). --seen-items none: one table against all items.")
    return out


def _md_table(d: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
    ci = f"{100 * d['settings']['confidence_level']:.0f}"
    lines = ["| " + " | ".join(c.format(ci=ci) for c in _COLS) + " |", "|---|---:|---:|---:|---:|---:|---:|"]
    lines += ["| " + " | ".join(_row(r)) + " |" for r in rows]
    return lines


def _mdad_md(d: dict[str, Any]) -> str:
    s = d["settings"]
    lines = [
        "## Micro-benchmark reliability" + _against(d), "",
        f"{s['trials']} trials, {s['source_models']} source / {s['target_models']} target models, "
        f"{s['items']} items; MDAD at {100 * s['agreement_level']:.0f}% agreement, "
        f"{100 * s['delta_bin']:.1f}-point bins.", "",
        *_md_table(d, d["mdad"]),
    ]
    if d.get("unseen") is not None:
        lines += ["", "### Against unseen items", "",
                  f"The same micro-benchmarks, judged against the targets' scores on the "
                  f"{s['items'] - s['seen_items']} items the source models never saw.", "",
                  *_md_table(d, d["unseen"]["mdad"])]
    lines += ["", *[f"- {line}" for line in d["recommendation"]["text"]], ""]
    return "\n".join(lines)


def _subset_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table

    t = Table(title=f"{d['method']} micro-benchmark: {d['k']} of {d['n_items']} items "
                    f"(chosen with {d['n_source_models']} source models)")
    t.add_column("item")
    t.add_column("weight", justify="right")
    for r in d["items"]:
        t.add_row(r["item"], f"{r['weight']:.4f}")
    return [t]


def _subset_md(d: dict[str, Any]) -> str:
    lines = [f"## {d['method']} micro-benchmark: {d['k']} of {d['n_items']} items", "", "| item | weight |", "|---|---:|"]
    lines += [f"| {r['item']} | {r['weight']:.4f} |" for r in d["items"]]
    return "\n".join(lines) + "\n"


def _subset_csv(d: dict[str, Any]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["item", "position", "weight"])
    for r in d["items"]:
        w.writerow([r["item"], r["position"], repr(float(r["weight"]))])
    return buf.getvalue()


@click.command("microbench")
@click.argument("paths", nargs=-1)
@input_options
@output_options
@seed_option
@click.option("--methods", default="random,stratified,anchor,irt,diversity", show_default=True,
              help="Selection methods to evaluate (comma-separated).")
@click.option("--method", "single_method", default=None, help="Evaluate one method (e.g. with --target-mdad).")
@click.option("--sizes", default="10,25,50,100,250,500", show_default=True, help="Subset sizes (comma-separated).")
@click.option("--trials", default=50, show_default=True, type=int, help="Random source/target splits.")
@click.option("--source-models", default=None,
              help="Source models per trial: a count or a fraction of the models. Default: 300 when that leaves "
                   "at least 50 targets, else 70% of the models (or all but 50, whichever is more).")
@click.option("--seen-items", default="0.5", show_default=True,
              help="Items the subset is drawn from (count or fraction), as in [U]; the rest are the unseen items "
                   "of the second table. 'none': no split, one table against all items.")
@click.option("--target-models", default=None, type=int,
              help="Target models per trial (default: every model that is not a source; [U] used 50).")
@click.option("--target-mdad", default=2.0, show_default=True, type=float,
              help="MDAD (points) the recommendation looks for.")
@click.option("--delta-bin", default=0.5, show_default=True, type=float, help="Width of the gap bins, in points.")
@click.option("--agreement-level", default=0.8, show_default=True, type=float, help="Agreement that defines MDAD.")
@click.option("--min-pairs", default=1, show_default=True, type=int,
              help="Gap bins with fewer target pairs (pooled over trials) are ignored by MDAD; 1 = [U]'s rule.")
@click.option("--ci-method", type=click.Choice(["pairs", "trials"]), default="pairs", show_default=True,
              help="MDAD interval: [U]'s bootstrap of the pooled bins (pairs) or the percentile of per-trial "
                   "MDADs (trials).")
@click.option("--select", "select_method", default=None,
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
        sub = rt.select_subset(m, method=kw["select_method"], k=kw["size"], source=source, rng=seed)
        d = sub.to_dict()
        if out.endswith(".csv") and fmt in (None, "text"):
            from ..reporting.render import write_output

            write_output(_subset_csv(d), out)
            return
        emit(d, kind="microbench-subset", fmt=fmt, out=out, text=_subset_text, markdown=_subset_md,
             seed=seed, input_hash=h, command=command_line())
        return

    methods = [kw["single_method"]] if kw["single_method"] else [s.strip() for s in kw["methods"].split(",") if s.strip()]
    sizes = _int_list(kw["sizes"], "--sizes")
    source_models = _count_or_fraction(kw["source_models"], "--source-models")
    seen = _count_or_fraction(kw["seen_items"], "--seen-items")
    args = dict(methods=methods, sizes=sizes, trials=kw["trials"], source_models=source_models,
                target_models=kw["target_models"], seen_items=seen,
                rng=seed, delta_bin=kw["delta_bin"] / 100, agreement_level=kw["agreement_level"],
                target_mdad=kw["target_mdad"] / 100, min_pairs=kw["min_pairs"],
                ci_method=kw["ci_method"])
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = _run(rt, m, args)
    for w in caught:
        click.echo(f"note: {w.message}", err=True)
    emit(res.to_dict(), kind="microbench", fmt=fmt, out=out, text=_mdad_text, markdown=_mdad_md,
         seed=seed, input_hash=h, command=command_line())


def _stage_lines() -> Any:
    """Progress when stderr is not a terminal: one line per tenth of the work, with the elapsed time."""
    import sys
    import time

    t0 = time.perf_counter()
    shown = [0]

    def cb(done: int, total: int) -> None:
        tenth = done * 10 // max(total, 1)
        if tenth > shown[0]:
            shown[0] = tenth
            print(f"microbench: {done}/{total} selections ({10 * tenth}%), {time.perf_counter() - t0:.0f} s",
                  file=sys.stderr, flush=True)

    return cb


def _run(rt: Any, m: Any, args: dict[str, Any]) -> Any:
    with progress_bar(None, "microbench") as cb:
        return rt.mdad(m, **args, progress=cb if cb is not None else _stage_lines())
