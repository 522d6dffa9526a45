"""``ranktrust compare``: paired comparison of two models on the items both scored."""

from __future__ import annotations

import warnings
from typing import Any

import click

from ._common import (
    cluster_requested, command_line, confidence_option, emit, input_options, load_matrix, output_options, seed_option,
)


def _pts(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "n/a"
    return f"{x * 100:+.2f}" if signed else f"{x * 100:.2f}"


def _ci(d: dict[str, Any]) -> str:
    if d["ci_low"] is None or d["ci_high"] is None:
        return "n/a"
    return f"[{_pts(d['ci_low'], True)}, {_pts(d['ci_high'], True)}]"


def _items(n: int) -> str:
    return f"{n:,} shared item" + ("" if n == 1 else "s")


def _p(x: float | None) -> str:
    from ..reporting.fmt import p_value

    return p_value(x)


_METHOD_WORDS = {
    "mcnemar": "exact McNemar test",
    "t": "paired t test",
    "sign-flip": "sign-flip permutation test",
    "cluster": "clustered paired SE (CR1), t test with G - 1 df",
}


def _verdict(d: dict[str, Any]) -> str:
    lo, p = d["ci_low"], d["p_value"]
    alpha = 1 - d["confidence_level"]
    if d.get("only_a") == 0 and d.get("only_b") == 0 and d["n_items"] >= 1 and lo is not None:
        return (f"{d['a']} and {d['b']} give the same result on every one of the {_items(d['n_items'])} "
                f"(p = 1); the CI bounds how far apart they could be on items like these.")
    if p is None or lo is None:
        if d["n_items"] < 2:
            return f"The difference cannot be assessed: {_items(d['n_items'])} is too few for an interval."
        if d.get("only_a") == 0 and d.get("only_b") == 0:
            return (f"{d['a']} and {d['b']} give the same result on every one of the {_items(d['n_items'])}: "
                    "no difference to test, and no interval.")
        return ("The difference cannot be assessed: the per-item differences have no spread, so there is no "
                "interval.")
    from ..reporting.fmt import p_clause

    if p < alpha:
        lead = d["a"] if d["diff"] > 0 else d["b"]
        return f"{lead} is ahead: the difference is significant at {alpha:g} ({p_clause(p)})."
    return f"The data cannot tell {d['a']} and {d['b']} apart ({p_clause(p)}; the CI contains 0)."


def _text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    cl = round(d["confidence_level"] * 100, 6)
    t = Table(title=f"{d['a']} vs {d['b']} on {_items(d['n_items'])}")
    t.add_column("", overflow="fold")
    t.add_column("value", justify="right")
    t.add_row(f"score {d['a']}", _pts(d["score_a"]))
    t.add_row(f"score {d['b']}", _pts(d["score_b"]))
    if d["only_a"] is not None:
        t.add_row(f"only {d['a']} right", f"{d['only_a']:,}")
        t.add_row(f"only {d['b']} right", f"{d['only_b']:,}")
    t.add_row("difference (pts)", _pts(d["diff"], signed=True))
    t.add_row(f"{cl:g}% CI (paired)", _ci(d))
    if d.get("unpaired_half_width") is not None:
        t.add_row("unpaired half-width", f"±{_pts(d['unpaired_half_width'])}")
    t.add_row("p-value", _p(d["p_value"]))
    t.add_row("method", _METHOD_WORDS.get(d["method"], d["method"]))
    return [t, Text(_verdict(d))]


def _markdown(d: dict[str, Any]) -> str:
    from ..reporting.markdown import _esc

    d = {**d, "a": _esc(d["a"]), "b": _esc(d["b"])}
    cl = round(d["confidence_level"] * 100, 6)
    lines = [f"## {d['a']} vs {d['b']}", "", f"{_items(d['n_items'])}; "
             f"{_METHOD_WORDS.get(d['method'], d['method'])}.", "",
             "| | value |", "|---|--:|",
             f"| score {d['a']} | {_pts(d['score_a'])} |", f"| score {d['b']} | {_pts(d['score_b'])} |"]
    if d["only_a"] is not None:
        lines += [f"| only {d['a']} right | {d['only_a']:,} |", f"| only {d['b']} right | {d['only_b']:,} |"]
    lines += [
        f"| difference (pts) | {_pts(d['diff'], True)} |",
        f"| {cl:g}% CI (paired) | {_ci(d)} |",
        f"| unpaired half-width | ±{_pts(d.get('unpaired_half_width'))} |",
        f"| p-value | {_p(d['p_value'])} |",
        "", _verdict(d),
    ]
    return "\n".join(lines) + "\n"


@click.command("compare")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--a", "model_a", required=True, help="First model (the difference is A - B).")
@click.option("--b", "model_b", required=True, help="Second model.")
@click.option("--method", type=click.Choice(["auto", "mcnemar", "t", "sign-flip", "cluster"]), default="auto",
              show_default=True,
              help="auto: clustered with --cluster-by COL, else exact McNemar (0/1) or paired t (continuous).")
@click.option("--n-resamples", default=9999, show_default=True, type=click.IntRange(min=1),
              help="Sign-flip draws (--method sign-flip).")
@input_options
@output_options
@confidence_option
@seed_option
def command(paths: tuple[str, ...], model_a: str, model_b: str, method: str, n_resamples: int,
            output_format: str | None, out: str, confidence: float, seed: int, **kw: Any) -> None:
    """Compare two models on the items both scored in PATHS (paired test and CI).

    Other models in the file do not matter: the two are compared on the items both scored,
    whatever the others were scored on.
    """
    from ..stats.paired import compare

    if not 0 < confidence < 1:
        raise ValueError(f"--confidence must be in the open interval (0, 1), got {confidence:g} (use 0.95 for 95%)")
    if kw.get("align", "error") == "error":
        # only these two models matter: others scored on other items must not block the comparison
        kw = {**kw, "align": "pairwise"}
    m, ihash = load_matrix(paths, kw)
    m = m.select(models=[m.index_of(model_a), m.index_of(model_b)]) if model_a != model_b else m
    if method == "mcnemar" and not m.is_binary:
        from ..errors import DataError

        raise DataError(f"{m.source or 'the input'}: --method mcnemar needs 0/1 scores, and these are continuous; "
                        "use --method t (or auto)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = compare(m, model_a, model_b, method=method, confidence_level=confidence,  # type: ignore[arg-type]
                    cluster=cluster_requested(kw) or method == "cluster", n_resamples=n_resamples, rng=seed)
    for w in caught:  # one line each on stderr, no source lines
        click.echo(f"warning: {w.message}", err=True)
    emit(r.to_dict(), kind="compare", fmt=output_format, out=out, text=_text, markdown=_markdown,
         seed=seed, input_hash=ihash, command=command_line())
