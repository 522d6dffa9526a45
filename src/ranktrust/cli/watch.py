"""``ranktrust watch``: what is decided now, what is still open, what to score next (anytime-valid).

With ``--replay N`` the input (a finished matrix) is replayed in N random item orders instead: how many items
and cells each decision needed, and how often it contradicted the full-data answer."""

from __future__ import annotations

import time
from typing import Any

import click

from ..sequential.watch import Watch
from ._common import (
    api_default,
    cluster_requested,
    command_line,
    confidence_option,
    input_options,
    load_matrix,
    output_options,
    render,
    seed_option,
)

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
@click.option("--no-eliminate", is_flag=True,
              help="Keep scoring models that have left the target set; with a known benchmark size the best set then "
                   "also gets a final fixed-n look at the last item (docs/watch.md).")
@click.option("--final-look", type=click.FloatRange(min=0.0, max=1.0, max_open=True),
              default=api_default(Watch, "final_look"), show_default=True,
              help="With --no-eliminate: the share of alpha the best set keeps for its fixed-n test at the last item "
                   "(0: all of it on the bets).")
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
            no_eliminate: bool, final_look: float, replay: int | None, budget: int, score_range: tuple[float, float],
            follow: float | None, html_out: str | None, max_wait: float, output_format: str | None, out: str,
            confidence: float,
            seed: int, **kw: Any) -> None:
    """Anytime-valid sequential evaluation of the results in PATHS (or --db): stop when separated."""
    from .. import _validate
    from ..sequential import Watch, watch_replay
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
                         cluster=cluster_requested(kw), rng=seed, final_look=final_look)
        render(r, kind="watch-replay", fmt=fmt, out=out, seed=seed, input_hash=ihash, command=command_line())
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
                  cluster=cluster_requested(kw), groups=m.groups if cluster_requested(kw) else None,
                  final_look=final_look)
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

    render(st, kind="watch", fmt=fmt, out=out, html=lambda payload, meta: render_watch_html(payload, w.bands()),
           seed=seed, input_hash=ihash, command=command_line())
