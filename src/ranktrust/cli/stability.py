"""``ranktrust stability``: how often #1 is #1 in resamples of the items, at other benchmark sizes.

The items are treated as the population, so for close races the figure is optimistic: two truly
tied models average about 75%, not 50% (statistics audit, section 4b)."""

from __future__ import annotations

from typing import Any

import click

from ._common import command_line, emit, input_options, load_matrix, output_options, progress_bar, seed_option


def _pct(x: float | None, se: float | None = None) -> str:
    if x is None:
        return "n/a"
    return f"{x * 100:.1f}%" + (f" ±{se * 100:.1f}" if se is not None else "")


def _familiar(d: dict[str, Any], n: int) -> str:
    return ", ".join(k for k, v in d["familiar_sizes"].items() if v == n)


def _likely_first(d: dict[str, Any], row: dict[str, Any]) -> str:
    vals = [(k, v) for k, v in row["p_first"].items() if v is not None]
    if not vals:
        return "n/a"
    name, p = max(vals, key=lambda kv: kv[1])
    return f"{name} ({_pct(p)})"


def _text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    from ..reporting.fmt import stability_title

    t = Table(title=stability_title(d))
    t.add_column("items", justify="right")
    t.add_column("P(#1 is #1)", justify="right")
    for k in d["top_k"]:
        t.add_column(f"P(top {k} in order)", justify="right")
    t.add_column("most often #1", overflow="fold")
    t.add_column("like")
    for row in d["sizes"]:
        n = f"{row['n']:,}" + (" (full)" if row["label"] == "full" else "") + (" *" if row["beyond_data"] else "")
        t.add_row(n, _pct(row["p_top_stays_top"], row["p_top_stays_top_se"]),
                  *[_pct(row["p_topk_order"][str(k)]) for k in d["top_k"]],
                  _likely_first(d, row), _familiar(d, row["n"]))
    out: list[Any] = [t, Text("± is the Monte Carlo standard error. Items are drawn with replacement from "
                              "the benchmark; exact ties are broken at random.")]
    if any(r["beyond_data"] for r in d["sizes"]):
        out.append(Text("* more items than the benchmark has: draws repeat items, so this overstates stability."))
    if d.get("dropped"):
        from ..reporting.fmt import dropped_sentence

        out.append(Text(dropped_sentence(d)))
    return out


def _markdown(d: dict[str, Any]) -> str:
    from ..reporting.markdown import _esc

    ks = d["top_k"]
    from ..reporting.fmt import stability_title

    lines = ["## #1 in resamples of these items", "", _esc(stability_title(d)) + ".", "",
             "| items | P(#1 is #1) | " + " | ".join(f"P(top {k} in order)" for k in ks) + " | most often #1 | like |",
             "|--:|--:|" + "--:|" * len(ks) + "---|---|"]
    for row in d["sizes"]:
        n = f"{row['n']:,}" + (" (full)" if row["label"] == "full" else "") + (" \\*" if row["beyond_data"] else "")
        lines.append(f"| {n} | {_pct(row['p_top_stays_top'], row['p_top_stays_top_se'])} | "
                     + " | ".join(_pct(row["p_topk_order"][str(k)]) for k in ks)
                     + f" | {_esc(_likely_first(d, row))} | {_familiar(d, row['n'])} |")
    lines += ["", "± is the Monte Carlo standard error; exact ties are broken at random."]
    if any(r["beyond_data"] for r in d["sizes"]):
        lines.append("\\* more items than the benchmark has: draws repeat items.")
    return "\n".join(lines) + "\n"


def parse_sizes(text: str) -> list[int | str]:
    out: list[int | str] = []
    for part in text.split(","):
        part = part.strip().lower()
        if not part:
            continue
        if part == "full":
            out.append("full")
            continue
        try:
            v = int(part)
        except ValueError:
            raise click.BadParameter(f"{part!r} is not a whole number or 'full' (e.g. --sizes 30,100,full)",
                                     param_hint="--sizes") from None
        if v < 1:
            raise click.BadParameter(f"sizes must be >= 1, got {v}", param_hint="--sizes")
        out.append(v)
    if not out:
        raise click.BadParameter("give at least one size", param_hint="--sizes")
    return out


def _given(name: str) -> bool:
    """Whether the user gave option ``name`` on the command line (not its default)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return True
    src = ctx.get_parameter_source(name)
    return src is not None and src.name not in ("DEFAULT", "DEFAULT_MAP")


def _fit_sizes(sizes: list[int | str], m: Any, *, explicit: bool) -> list[int | str]:
    """Drop a size equal to the full benchmark when 'full' is also asked for (two rows for one size), and,
    for the default sizes only, the ones beyond the items every model has (they would overstate stability)."""
    import numpy as np

    n = int(np.isfinite(np.asarray(m.scores, dtype=float)).all(axis=0).sum())
    out: list[int | str] = []
    for v in sizes:
        if v != "full" and "full" in sizes and (v == n or (not explicit and v > n)):
            continue
        out.append(v)
    return out or sizes


@click.command("stability")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--sizes", default="30,100,200,500,1000,2000,full", show_default=True,
              help="Comma-separated benchmark sizes; 'full' = all items.")
@click.option("--draws", default=2000, show_default=True, type=click.IntRange(min=10), help="Draws per size.")
@click.option("--top-k", default="2,3", show_default=True, help="k for 'the top k keep their exact order'.")
@click.option("--cluster", is_flag=True, help="Resample item groups (e.g. subjects) instead of items.")
@input_options
@output_options
@seed_option
def command(paths: tuple[str, ...], sizes: str, draws: int, top_k: str, cluster: bool,
            output_format: str | None, out: str, seed: int, **kw: Any) -> None:
    """How often the #1 stays #1 (and the top k keep their order) at other benchmark sizes."""
    from ..ranking.stability import stability

    sz = parse_sizes(sizes)
    try:
        ks = [int(k) for k in top_k.split(",") if k.strip()]
    except ValueError:
        raise click.BadParameter(f"{top_k!r} must be whole numbers like 2,3", param_hint="--top-k") from None
    m, ihash = load_matrix(paths, kw)
    sz = _fit_sizes(sz, m, explicit=_given("sizes"))
    with progress_bar(len(sz) * draws, "resampling") as cb:
        r = stability(m, sizes=sz, draws=draws, top_k=ks, rng=seed, cluster=cluster, progress=cb)
    emit(r.to_dict(), kind="stability", fmt=output_format, out=out, text=_text, markdown=_markdown,
         seed=seed, input_hash=ihash, command=command_line())
