"""``ranktrust watch``: what is decided now, what is still open, what to score next (anytime-valid).

The analysis order is fixed before the data: ``--items FILE`` (declared items, a seeded order; N = their number),
``--order dispatch --items FILE`` (the items in the order the harness sent them, each result held back until every
item sent before it is complete) or ``--order arrival`` (append-only in the order items complete; valid only when
completion order does not depend on the results). With ``--items`` or ``--order arrival`` the analysed items are
kept in a small state file, so a re-read continues the same sequence and never analyses an item again with other
scores (a later run of an analysed item is refused unless ``--n-runs`` declared it). Without either the input is
read once as it is: its items in the seeded order, the benchmark size not declared (``--follow`` and ``--scope
benchmark`` are then refused).

With ``--replay N`` the input (a finished matrix) is replayed in N random item orders instead: how many items
and cells each decision needed, and how often it contradicted the full-data answer."""

from __future__ import annotations

import time
from typing import Any

import click

from ..sequential import Watch
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
@click.option("--items", "items", default=None, type=click.Path(exists=True, dir_okay=False),
              help="The benchmark's items, one id per line, declared before the data: analysed in a seeded random "
                   "order (with --order dispatch: in the file's order, the order the harness sent them); their number "
                   "is the benchmark size N.")
@click.option("--order", type=click.Choice(["seeded", "dispatch", "arrival"]), default="seeded", show_default=True,
              help="seeded: the seeded order over --items (or, without --items, over the items read, size not "
                   "declared); dispatch: the order of --items is the order the harness sent them, and each result "
                   "waits until every item sent before it is complete (latency cannot change the order); arrival: "
                   "in the order items complete, valid only when that order does not depend on the results (it does "
                   "when wrong answers take longer: use dispatch).")
@click.option("--n-items", type=click.IntRange(min=1), default=None,
              help="The benchmark size N, declared (with --order arrival, or --order dispatch while the --items file "
                   "is still growing). Without a declared N the end-tuned bets and the final look are off and --scope "
                   "benchmark is refused.")
@click.option("--n-runs", type=click.IntRange(min=1), default=None,
              help="Runs (epochs) each item gets per model: an item enters the analysis once all its runs are in. "
                   "Without it an item enters with the runs it has, and a later run of an analysed item is refused.")
@click.option("--state", "state_file", default=None, type=click.Path(dir_okay=False),
              help="With --items or --order arrival: the state file keeping the analysed items between reads "
                   "(default: beside --out, else beside the --items file, else beside the first input or the store).")
@click.option("--scope", type=click.Choice(["population", "benchmark"]), default="population", show_default=True,
              help="population: items are a sample (with replacement); benchmark: this finite benchmark of declared "
                   "size (without replacement, exact at the last item).")
@click.option("--method", type=click.Choice(["betting", "eb"]), default="betting", show_default=True,
              help="Hedged betting or predictable plug-in empirical-Bernstein e-processes.")
@click.option("--rule", type=click.Choice(["agrapa", "prpl"]), default="agrapa", show_default=True,
              help="Bet sizes.")
@click.option("--best-method", type=click.Choice(["portfolio", "pairs"]), default="portfolio", show_default=True,
              help="Best set: one test per model against its leading rival, or K-1 pairwise tests.")
@click.option("--no-eliminate", is_flag=True,
              help="Keep scoring models that have left the target set (every model scored to the end).")
@click.option("--final-look", type=click.FloatRange(min=0.0, max=1.0, max_open=True),
              default=api_default(Watch, "final_look"), show_default=True,
              help="With --no-eliminate and a declared size: the share of alpha the best set keeps for a finite-sample "
                   "empirical-Bernstein test at the last item (0: off, all of alpha on the bets).")
@click.option("--replay", "replay", type=click.IntRange(min=1), default=None,
              help="Replay the (finished) input in N random item orders.")
@click.option("--budget", default=64, show_default=True, type=click.IntRange(min=0),
              help="Cells to propose in 'next'.")
@click.option("--score-range", nargs=2, type=float, default=(0.0, 1.0), show_default=True,
              help="The range a score can take.")
@click.option("--follow", type=click.FloatRange(min=0.1), default=None,
              help="Re-read the input every SECONDS until the target is decided (a growing folder or store); needs "
                   "--items or --order arrival.")
@click.option("--html", "html_out", default=None, type=click.Path(dir_okay=False),
              help="Also write a self-contained HTML page: the status and each decision's confidence band.")
@click.option("--max-wait", type=click.FloatRange(min=0), default=3600.0, show_default=True,
              help="With --follow: give up after this many seconds.")
@input_options
@output_options
@confidence_option
@seed_option
def command(paths: tuple[str, ...], target: str, items: str | None, order: str, n_items: int | None,
            n_runs: int | None, state_file: str | None, scope: str, method: str, rule: str, best_method: str,
            no_eliminate: bool, final_look: float, replay: int | None, budget: int, score_range: tuple[float, float],
            follow: float | None, html_out: str | None, max_wait: float, output_format: str | None, out: str,
            confidence: float,
            seed: int, **kw: Any) -> None:
    """Anytime-valid sequential evaluation of the results in PATHS (or --db): stop when separated."""
    from .. import _validate
    from ..errors import DataError
    from ..sequential import items_digest, read_items, watch_replay
    from ..sequential import parse_target

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
    if order == "dispatch" and not items:
        raise click.UsageError("--order dispatch needs --items FILE: the items in the order the harness sent them")
    declared = read_items(items) if items else None
    if order == "seeded" and declared is None:
        if follow is not None:
            raise click.UsageError("--follow needs the analysis order fixed before the data: pass --items FILE (the "
                                   "benchmark's items) or --order arrival")
        if n_items is not None:
            raise click.UsageError("--n-items goes with --order arrival (with --items the size is their number)")
        if scope == "benchmark":
            raise click.UsageError("--scope benchmark needs the benchmark's size declared: pass --items FILE, or "
                                   "--order arrival with --n-items N")
    if order == "arrival" and scope == "benchmark" and n_items is None and declared is None:
        raise click.UsageError("--scope benchmark needs the benchmark's size declared: pass --n-items N")
    state_path = None
    settings: dict[str, Any] = {}
    if order == "arrival" or declared is not None:
        state_path = state_file or _default_state(paths, kw, out, items)
        _check_state_folder(state_path, given=state_file is not None)
        # every setting that changes the sequence of looks: a re-read must continue with the same ones (the
        # dispatch list may grow: the state keeps it and a re-read must extend it)
        settings = {"order": order, "target": target, "confidence_level": confidence, "scope": scope,
                    "method": method, "rule": rule, "best_method": best_method, "eliminate": not no_eliminate,
                    "final_look": final_look, "n_items": n_items, "n_runs": n_runs,
                    "score_range": list(score_range), "rng": seed,
                    "items": items_digest(declared) if declared is not None and order != "dispatch" else None}

    def once(prev: Any = None) -> tuple[Any, str, Any]:
        """Read the input; with ``prev`` (a --follow re-read) add to the same Watch, so the sequence continues and
        a result that would revise an item already analysed is refused."""
        m, ihash = load_matrix(_expand(paths), kw)
        # the dispatch list is read after the results: every item with a result was sent before this read
        sent = read_items(items) if order == "dispatch" and items else None
        if sent is not None:
            _check_sent(m, sent, items, n_items)
        if m.n_models < 2:
            if follow is not None:
                return None, ihash, None   # a growing folder with one model so far: wait for more
            raise DataError(f"{m.source or 'the input'}: only {m.n_models} model so far "
                            f"({', '.join(m.models)}); watch compares at least two")
        # sorted names: the status must not depend on the order in which files introduced the models
        models = sorted(m.models)
        if prev is not None:
            if tuple(models) != prev.models:
                raise DataError(f"the models changed while following ({', '.join(prev.models)} -> "
                                f"{', '.join(models)}); the sequence cannot continue: start a new watch")
            if state_path is not None:
                _continue_with_state(prev, m, state_path, settings, sent)
            else:
                prev.update_matrix(m)
            return prev.status(next_budget=budget), ihash, prev
        common = dict(target=target, confidence_level=confidence, scope=scope, method=method, rule=rule,
                      eliminate=not no_eliminate, best_method=best_method, score_range=score_range, rng=seed,
                      final_look=final_look, n_runs=n_runs)
        if order in ("arrival", "dispatch") and cluster_requested(kw):
            raise DataError(f"--cluster-by needs --items in the seeded order (a group enters once all its items are "
                            f"scored, so its items must be declared); --order {order} analyses single items")
        if order == "arrival":
            w = Watch(models, declared, order="arrival", n_items=n_items, **common)  # type: ignore[arg-type]
        elif order == "dispatch":
            w = Watch(models, sent, order="dispatch", n_items=n_items, **common)  # type: ignore[arg-type]
        else:
            wanted = declared if declared is not None else list(m.items)
            w = Watch(models, wanted, declared=declared is not None, n_items=n_items,  # type: ignore[arg-type]
                      cluster=cluster_requested(kw), groups=_groups(m, wanted) if cluster_requested(kw) else None,
                      **common)
        if state_path is not None:
            _continue_with_state(w, m, state_path, settings, sent)
        else:
            w.update_matrix(m)
        return w.status(next_budget=budget), ihash, w

    from ..reporting import follow_line
    from ._main import cli_words

    st, ihash, w = once()
    if follow is not None:
        t0 = time.monotonic()
        while (st is None or not st.done) and time.monotonic() - t0 < max_wait:
            if st is not None:
                click.echo(cli_words(follow_line(st.to_dict())), err=True)
            time.sleep(follow)
            st, ihash, w = once(w)
        if st is None:
            raise DataError("still fewer than two models after --max-wait; nothing to compare")
    if state_path is not None and st is not None:   # every output says where the order is kept
        import dataclasses

        st = dataclasses.replace(st, state_file=str(state_path))
    from ..reporting import meta, watch_html, write_output

    def page(payload: dict, m: dict) -> str:   # the page draws the decisions' bands, which the status does not hold
        return watch_html({**payload, "bands": w.bands()}, m, cli=True)

    if html_out:
        write_output(page(st.to_dict(), meta("watch", seed=seed, input_hash=ihash, command=command_line())), html_out)
    render(st, kind="watch", fmt=fmt, out=out, html=page, seed=seed, input_hash=ihash, command=command_line())


def _groups(m: Any, items: list[str]) -> dict[str, str]:
    """Each declared item's group from the input (``--cluster-by``); an item not read yet has none."""
    from ..errors import DataError

    if m.groups is None:
        raise DataError("--cluster-by found no groups in the input")
    g = {str(i): str(x) for i, x in zip(m.items, m.groups)}
    miss = [i for i in items if i not in g]
    if miss:
        raise DataError(f"item {miss[0]!r} has no group in the input yet ({len(miss):,} items have none); with "
                        "--cluster-by every declared item's group must be known")
    return g


def _default_state(paths: tuple[str, ...], kw: dict[str, Any], out: str | None, items: str | None = None) -> str:
    """``--out``'s name + .watch-state; else the --items file's (the declared list names the sequence, so a re-read
    of a renamed or re-exported source continues it); else the first input's or the store's."""
    import os

    if out and out != "-":
        return f"{out}.watch-state"
    if items:
        return f"{items}.watch-state"
    if kw.get("db"):
        return f"{kw['db']}.watch-state"
    if not paths:
        raise click.UsageError("--order arrival needs --state FILE here (no input path to put it beside)")
    p = paths[0]
    return os.path.join(p, ".watch-state") if os.path.isdir(p) else f"{p}.watch-state"


def _check_state_folder(path: str, given: bool) -> None:
    """A state file in a folder that does not exist: one line naming the folder (before any reading)."""
    import os

    from ..errors import DataError

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        how = "create it first" + ("" if given else ", or pass --state FILE in a folder that exists")
        raise DataError(f"--state {path}: the folder {folder} does not exist; {how}")


def _check_sent(m: Any, sent: list[str], items: str, n_items: int | None) -> None:
    """With --order dispatch every item with a result must have been sent (listed in the --items file), unless the
    list is still growing (--n-items declared): then its results wait until it is listed."""
    from ..errors import DataError

    if n_items is not None:
        return
    listed = set(sent)
    missing = [it for it in m.items if it not in listed]
    if missing:
        raise DataError(f"{items}: item {missing[0]!r} has results but is not in the dispatch list "
                        f"({len(missing):,} such items); list every item when it is sent, or declare --n-items N if "
                        "the list is still growing")


def _shown(flag: str, v: Any) -> str:
    if v is None:
        return f"{flag} not given"
    if isinstance(v, bool):
        return flag if v else f"no {flag}"
    if isinstance(v, list):
        return f"{flag} {' '.join(f'{x:g}' for x in v)}"
    if flag == "--items":
        return f"--items with fingerprint {v}"
    return f"{flag} {v:g}" if isinstance(v, float) else f"{flag} {v}"


#: the command line's flag of each setting a state file keeps (``eliminate`` is ``--no-eliminate``, negated)
_FLAGS = {"order": "--order", "target": "--target", "confidence_level": "--confidence", "scope": "--scope",
          "method": "--method", "rule": "--rule", "best_method": "--best-method", "eliminate": "--no-eliminate",
          "final_look": "--final-look", "n_items": "--n-items", "n_runs": "--n-runs", "score_range": "--score-range",
          "rng": "--seed", "items": "--items"}


def _continue_with_state(w: Any, m: Any, path: str, settings: dict[str, Any], sent: list[str] | None) -> None:
    """:func:`ranktrust.sequential.continue_watch`, a changed setting said with the flags this run was given."""
    from ..errors import DataError
    from ..sequential import continue_watch

    try:
        continue_watch(w, m, path, settings=settings, sent=sent)
    except DataError as exc:
        if exc.code != "state_setting_changed":
            raise
        name, flag = exc.data["setting"], _FLAGS.get(exc.data["setting"], exc.data["setting"])
        was, now = exc.data["was"], exc.data["now"]
        if name == "eliminate":
            was, now = (None if was is None else not was), not now
        said = _shown(flag, was)
        raise DataError(f"{path}: this sequence was started with {said}, this run has {_shown(flag, now)}; a "
                        f"setting cannot change within a sequence: rerun with {said}, or use a new --state file "
                        "to start a new sequence", code=exc.code, data=exc.data) from None


for _p in command.params:   # the shared option's help describes report's clustering; say what it does here
    if _p.name == "group_col":
        _p.help = ("Item groups (subjects, passages, repositories) as the sampling unit: a group enters the analysis "
                   "once all its items are scored, with its mean score (needs --items for a live source).")
