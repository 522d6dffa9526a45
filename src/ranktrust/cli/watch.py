"""``ranktrust watch``: what is decided now, what is still open, what to score next (anytime-valid).

With ``--replay N`` the input (a finished matrix) is replayed in N random item orders instead: how many items
and cells each decision needed, and how often it contradicted the full-data answer."""

from __future__ import annotations

import time
from typing import Any

import click

from ._common import (
    cluster_requested,
    command_line,
    confidence_option,
    emit,
    input_options,
    load_matrix,
    output_options,
    seed_option,
)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 100:.1f}"


def _n(x: float | None) -> str:
    return "n/a" if x is None else f"{x:,.0f}"


def _q(d: dict[str, Any], pct: bool = False) -> str:
    f = (lambda v: f"{_pct(v)}%") if pct else _n
    return f"median {f(d['median'])} (10%-90%: {f(d['p10'])}-{f(d['p90'])}; max {f(d['max'])})"


def _guarantee(d: dict[str, Any]) -> str:
    cl = round(d["confidence_level"] * 100, 6)
    scope = ("items are a sample from a population of questions like these (sequences with replacement)"
             if d["scope"] == "population" else
             "the question is this benchmark (sequences without replacement; exact at the last item)")
    return (f"{cl:g}% family-wise, valid at every stopping time however often you look; {scope}; "
            f"{d['method']} e-processes.")


# ---- status --------------------------------------------------------------------------------------------
def _status_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    tot = f" of {d['items_total']:,}" if d.get("items_total") else ""
    unit = "item groups" if d.get("unit") == "cluster" else "items"
    title = (f"watch ({d['target']}): {d['items_seen']:,}{tot} {unit}, {d['cells_scored']:,} cells scored")
    t = Table(title=title, title_justify="left")
    t.add_column("model", overflow="fold")
    t.add_column("score", justify="right")
    t.add_column("items", justify="right")
    ranks = d["target"] == "ranks"
    if ranks:
        t.add_column("rank set", justify="right")
    t.add_column("in set", justify="center")
    t.add_column("all pairs decided at" if ranks else "left at item", justify="right")
    ex = {e["model"]: e["at_item"] for e in d["excluded"]}
    best = set(d["best_set"])
    rows = sorted(d["models"], key=lambda r: -(r["score"] if r["score"] is not None else -1))
    for r in rows:
        rs = f"{r['rank_low']}" if r["rank_low"] == r["rank_high"] else f"{r['rank_low']}-{r['rank_high']}"
        t.add_row(r["model"], _pct(r["score"]), f"{r['n_items']:,}", *([rs] if ranks else []),
                  "yes" if r["model"] in best else "", f"{ex[r['model']]:,}" if r["model"] in ex else "")
    out: list[Any] = [t]
    label = {"best": "could be #1"}.get(d["target"], f"could be in the {d['target']}" if d["target"] != "ranks"
                                        else "rank set contains 1")
    if d["done"] and len(d["best_set"]) == 1 and d["target"] == "best":
        out.append(Text(f"Certified: {d['best_set'][0]} is #1. Stop scoring."))
    else:
        out.append(Text(f"{label}: {', '.join(d['best_set'])}"))
    out.append(Text(f"decided pairs (all-pairs family): {len(d['decided'])}; open pairs that matter: "
                    f"{len(d['open_pairs'])}"))
    if d["unresolvable_pairs"]:
        names = sorted({m for p in d["unresolvable_pairs"] for m in p})
        out.append(Text(f"cannot be told apart on this benchmark, stop spending on them: {', '.join(names)} "
                        f"({len(d['unresolvable_pairs'])} pairs)"))
    if d.get("waiting_for"):
        out.append(Text(f"waiting for {', '.join(d['waiting_for'])} on the next item in the analysis order (other "
                        "models have it). If it will never be scored, read with --align intersect."))
    if d["next"]:
        shown = ", ".join(f"{c['model']}@{c['item']}" for c in d["next"][:8])
        more = f" (+{len(d['next']) - 8} more)" if len(d["next"]) > 8 else ""
        out.append(Text(f"score next: {shown}{more}"))
    elif not d["done"]:
        out.append(Text("score next: nothing proposed (no items left to score)."))
    out.append(Text(_guarantee(d)))
    return out


def _status_md(d: dict[str, Any]) -> str:
    from ..reporting.markdown import md_escape as _esc

    tot = f" of {d['items_total']:,}" if d.get("items_total") else ""
    unit = "item groups" if d.get("unit") == "cluster" else "items"
    lines = [f"## watch ({d['target']}): {d['items_seen']:,}{tot} {unit}, {d['cells_scored']:,} cells", "",
             "| model | score | rank set | in set | left at item |", "|---|--:|--:|:-:|--:|"]
    ex = {e["model"]: e["at_item"] for e in d["excluded"]}
    best = set(d["best_set"])
    for r in sorted(d["models"], key=lambda r: -(r["score"] if r["score"] is not None else -1)):
        rs = f"{r['rank_low']}" if r["rank_low"] == r["rank_high"] else f"{r['rank_low']}-{r['rank_high']}"
        lines.append(f"| {_esc(r['model'])} | {_pct(r['score'])} | {rs} | {'yes' if r['model'] in best else ''} | "
                     f"{ex.get(r['model'], '')} |")
    lines += ["", f"**Set:** {', '.join(_esc(m) for m in d['best_set'])}", "",
              f"Decided pairs: {len(d['decided'])}; open pairs that matter: {len(d['open_pairs'])}; "
              f"unresolvable: {len(d['unresolvable_pairs'])}."]
    if d["next"]:
        lines += ["", "Score next: " + ", ".join(f"`{_esc(c['model'])}` @ `{_esc(c['item'])}`" for c in d["next"][:16])]
    lines += ["", _guarantee(d)]
    return "\n".join(lines) + "\n"


# ---- replay --------------------------------------------------------------------------------------------
def _replay_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"watch --replay {d['n_replays']} ({d['target']}, scope {d['scope']}): "
                    f"{d['n_models']} models x {d['n_items']:,} shared "
                    f"{'item groups' if d.get('unit') == 'cluster' else 'items'}", title_justify="left")
    t.add_column("", overflow="fold")
    t.add_column("value", overflow="fold")
    if d.get("unit") == "cluster":
        t.add_row("unit", "item groups (clusters), each group's mean score")
    t.add_row("decided in", f"{d['decided_share'] * 100:.1f}% of orders")
    t.add_row("items needed", _q(d["items_needed"]))
    t.add_row("cells needed", _q(d["cells_needed"]) + f" of {d['full_cells']:,}")
    t.add_row("cells share", _q(d["cells_share"], pct=True))
    if d.get("cells_spent"):
        t.add_row("cells spent (decided or not)", _q(d["cells_spent"]) + f" of {d['full_cells']:,}")
    t.add_row("full-data answer", ", ".join(d["full_answer"]) or "(every pair)")
    t.add_row("error vs full data", f"{d['errors']} of {d['n_replays']} orders ({d['error_rate'] * 100:.1f}%; "
                                    f"nominal at most {(1 - d['confidence_level']) * 100:g}%)")
    t.add_row("time", f"{d['seconds']:.1f} s")
    m = Table(title="when each model left the target set", title_justify="left")
    m.add_column("model", overflow="fold")
    m.add_column("left in", justify="right")
    m.add_column("at item (median, 10%-90%)", justify="right")
    for r in sorted(d["models"], key=lambda r: (r["excluded_at"]["median"] or 1e18)):
        q = r["excluded_at"]
        m.add_row(r["model"], f"{r['excluded_share'] * 100:.0f}%",
                  "" if q["median"] is None else f"{_n(q['median'])} ({_n(q['p10'])}-{_n(q['p90'])})")
    return [t, m, Text(_guarantee(d))]


def _replay_md(d: dict[str, Any]) -> str:
    from ..reporting.markdown import md_escape as _esc

    lines = [f"## watch --replay {d['n_replays']} ({d['target']}, scope {d['scope']})", "",
             f"{d['n_models']} models x {d['n_items']:,} shared items.", "", "| | value |", "|---|---|",
             f"| decided in | {d['decided_share'] * 100:.1f}% of orders |",
             f"| items needed | {_q(d['items_needed'])} |",
             f"| cells needed | {_q(d['cells_needed'])} of {d['full_cells']:,} |",
             f"| error vs full data | {d['errors']} of {d['n_replays']} ({d['error_rate'] * 100:.1f}%) |", "",
             "| model | left in | at item (median) |", "|---|--:|--:|"]
    for r in sorted(d["models"], key=lambda r: (r["excluded_at"]["median"] or 1e18)):
        lines.append(f"| {_esc(r['model'])} | {r['excluded_share'] * 100:.0f}% | {_n(r['excluded_at']['median'])} |")
    lines += ["", _guarantee(d)]
    return "\n".join(lines) + "\n"


_TABLE_EXT = (".csv", ".csv.gz", ".tsv", ".parquet", ".jsonl", ".jsonl.gz", ".json")


def _expand(paths: tuple[str, ...]) -> tuple[str, ...]:
    """A folder that no harness reader recognises is read as the tables in it (a growing folder of results)."""
    import os

    from ..data.readers import sniff
    from ..errors import FormatError

    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            try:
                sniff(p)
                out.append(p)
                continue
            except FormatError:
                pass
            files = sorted(os.path.join(p, f) for f in os.listdir(p)
                           if f.endswith(_TABLE_EXT) and not f.endswith(".partial"))
            if not files:
                raise FormatError(f"{p}: no harness logs and no result tables ({', '.join(_TABLE_EXT)}) in this folder")
            out.extend(files)
        else:
            out.append(p)
    return tuple(out)


@click.command("watch")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--target", default="best", show_default=True,
              help="best (which models can be #1), topK such as top3, or ranks (every pair).")
@click.option("--scope", type=click.Choice(["population", "benchmark"]), default="population", show_default=True,
              help="population: items are a sample (with replacement); benchmark: this finite benchmark "
                   "(without replacement, exact at the last item).")
@click.option("--method", type=click.Choice(["betting", "eb"]), default="betting", show_default=True,
              help="Hedged betting or predictable plug-in empirical-Bernstein e-processes.")
@click.option("--rule", type=click.Choice(["agrapa", "prpl"]), default="agrapa", show_default=True,
              help="Bet sizes.")
@click.option("--best-method", type=click.Choice(["portfolio", "pairs"]), default="portfolio", show_default=True,
              help="Best set: one test per model against its leading rival, or K-1 pairwise tests.")
@click.option("--no-eliminate", is_flag=True, help="Keep scoring models that have left the target set.")
@click.option("--replay", "replay", type=click.IntRange(min=1), default=None,
              help="Replay the (finished) input in N random item orders.")
@click.option("--budget", default=64, show_default=True, type=click.IntRange(min=0),
              help="Cells to propose in 'next'.")
@click.option("--score-range", nargs=2, type=float, default=(0.0, 1.0), show_default=True,
              help="The range a score can take.")
@click.option("--follow", type=click.FloatRange(min=0.1), default=None,
              help="Re-read the input every SECONDS until the target is decided (a growing folder or store).")
@click.option("--html", "html_out", default=None, type=click.Path(dir_okay=False),
              help="Also write a self-contained HTML page: the status and each decision's confidence band.")
@click.option("--max-wait", type=click.FloatRange(min=0), default=3600.0, show_default=True,
              help="With --follow: give up after this many seconds.")
@input_options
@output_options
@confidence_option
@seed_option
def command(paths: tuple[str, ...], target: str, scope: str, method: str, rule: str, best_method: str,
            no_eliminate: bool, replay: int | None, budget: int, score_range: tuple[float, float],
            follow: float | None, html_out: str | None, max_wait: float, output_format: str | None, out: str,
            confidence: float,
            seed: int, **kw: Any) -> None:
    """Anytime-valid sequential evaluation of the results in PATHS (or --db): stop when separated."""
    from ..sequential import Watch, watch_replay
    from .. import _validate
    from ..sequential.watch import parse_target

    _validate.confidence_level(confidence)   # fail before reading; cli_words names the flag
    parse_target(target)
    ctx = click.get_current_context()
    if ctx.get_parameter_source("align") is not click.core.ParameterSource.COMMANDLINE:
        kw["align"] = "pairwise"   # a watched leaderboard is incomplete by nature
    fmt = output_format
    if replay is not None:
        if follow is not None:
            raise click.UsageError("--replay and --follow do not go together")
        m, ihash = load_matrix(_expand(paths), kw)
        r = watch_replay(m, replay, target=target, confidence_level=confidence, scope=scope,  # type: ignore[arg-type]
                         method=method, rule=rule, eliminate=not no_eliminate,  # type: ignore[arg-type]
                         best_method=best_method, score_range=score_range,  # type: ignore[arg-type]
                         cluster=cluster_requested(kw), rng=seed)
        emit(r.to_dict(), kind="watch-replay", fmt=fmt, out=out, text=_replay_text, markdown=_replay_md,
             seed=seed, input_hash=ihash, command=command_line())
        return

    def once() -> tuple[Any, str, Any]:
        m, ihash = load_matrix(_expand(paths), kw)
        if m.n_models < 2:
            if follow is not None:
                return None, ihash, None   # a growing folder with one model so far: wait for more
            from ..errors import DataError

            raise DataError(f"{m.source or 'the input'}: only {m.n_models} model so far "
                            f"({', '.join(m.models)}); watch compares at least two")
        # sorted names: the status must not depend on the order in which files introduced the models
        w = Watch(sorted(m.models), m.items, target=target, confidence_level=confidence, scope=scope,  # type: ignore[arg-type]
                  method=method, rule=rule, eliminate=not no_eliminate,  # type: ignore[arg-type]
                  best_method=best_method, score_range=score_range, rng=seed,  # type: ignore[arg-type]
                  cluster=cluster_requested(kw), groups=m.groups if cluster_requested(kw) else None)
        w.update_matrix(m)
        return w.status(next_budget=budget), ihash, w

    st, ihash, w = once()
    if follow is not None:
        t0 = time.monotonic()
        while (st is None or not st.done) and time.monotonic() - t0 < max_wait:
            if st is not None:
                click.echo(f"watch: {st.items_seen:,} items, {st.cells_scored:,} cells; "
                           f"set: {', '.join(st.best_set)}", err=True)
            time.sleep(follow)
            st, ihash, w = once()
        if st is None:
            from ..errors import DataError

            raise DataError("still fewer than two models after --max-wait; nothing to compare")
    if html_out:
        from ..reporting.render import write_output
        from ..reporting.watch_html import render_watch_html

        write_output(render_watch_html(st.to_dict(), w.bands()), html_out)
    from ..reporting.watch_html import render_watch_html

    emit(st.to_dict(), kind="watch", fmt=fmt, out=out, text=_status_text, markdown=_status_md,
         html=lambda payload, meta: render_watch_html(payload, w.bands()),
         seed=seed, input_hash=ihash, command=command_line())
