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

from ..sequential._watch import Watch
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
    from ..sequential import watch_replay
    from ..sequential._watch import parse_target

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
    declared = _read_items(items) if items else None
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
        settings = {"--order": order, "--target": target, "--confidence": confidence, "--scope": scope,
                    "--method": method, "--rule": rule, "--best-method": best_method, "--no-eliminate": no_eliminate,
                    "--final-look": final_look, "--n-items": n_items, "--n-runs": n_runs,
                    "--score-range": list(score_range), "--seed": seed,
                    "--items": _digest(declared) if declared is not None and order != "dispatch" else None}

    def once(prev: Any = None) -> tuple[Any, str, Any]:
        """Read the input; with ``prev`` (a --follow re-read) add to the same Watch, so the sequence continues and
        a result that would revise an item already analysed is refused."""
        m, ihash = load_matrix(_expand(paths), kw)
        # the dispatch list is read after the results: every item with a result was sent before this read
        sent = _read_items(items) if order == "dispatch" and items else None
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

    from ..reporting.renderers._watch import follow_line
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
    from ..reporting._render import meta, write_output
    from ..reporting.renderers._watch import watch_html

    def page(payload: dict, m: dict) -> str:   # the page draws the decisions' bands, which the status does not hold
        return watch_html({**payload, "bands": w.bands()}, m, cli=True)

    if html_out:
        write_output(page(st.to_dict(), meta("watch", seed=seed, input_hash=ihash, command=command_line())), html_out)
    render(st, kind="watch", fmt=fmt, out=out, html=page, seed=seed, input_hash=ihash, command=command_line())


def _read_items(path: str) -> list[str]:
    """One item id per line (blank lines skipped); a duplicate is refused."""
    from ..errors import DataError

    with open(path, encoding="utf-8") as fh:
        items = [ln.strip() for ln in fh if ln.strip()]
    if not items:
        raise DataError(f"{path}: no item ids (one per line)")
    seen: dict[str, int] = {}
    for k, it in enumerate(items, 1):
        if it in seen:
            raise DataError(f"{path}: line {k}: item {it!r} is already on line {seen[it]}; list each item once")
        seen[it] = k
    return items


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


def _item_values(col: Any) -> list[float | None]:
    """An item's scores (models in sorted order; None where a model has none) as kept in the state file."""
    import math

    return [None if math.isnan(float(v)) else round(float(v), 12) for v in col]


def _same_item(old: list[float | None], new: list[float | None]) -> bool:
    """Every score kept is still there, unchanged (a model scored later, e.g. after it left play, is fine)."""
    return all(a is None or (b is not None and abs(a - b) <= 1e-9) for a, b in zip(old, new))


def _digest(items: list[str]) -> str:
    """A short fingerprint of the declared items (their ids in order), kept in the state file."""
    import hashlib

    return hashlib.sha256("\n".join(items).encode("utf-8")).hexdigest()[:16]


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


#: settings a state file records since 0.3, and their value in the arrival-order files written before
_ADDED_SETTINGS: dict[str, Any] = {"--order": "arrival", "--n-runs": None}


def _check_settings(path: str, kept: Any, now: dict[str, Any]) -> None:
    """Refuse a re-read whose sequence-changing settings differ from those the state file was started with."""
    from ..errors import DataError

    if not isinstance(kept, dict):
        raise DataError(f"{path}: this state file does not record the settings its sequence was started with (an "
                        "earlier ranktrust); use a new --state file to start a new sequence")
    for flag, v in now.items():
        if flag not in kept and flag in _ADDED_SETTINGS:    # a state file from before the flag was kept
            kept = {**kept, flag: _ADDED_SETTINGS[flag]}
        if flag not in kept or kept[flag] != v:
            was = _shown(flag, kept.get(flag))
            raise DataError(f"{path}: this sequence was started with {was}, this run has {_shown(flag, v)}; a "
                            f"setting cannot change within a sequence: rerun with {was}, or use a new --state file "
                            "to start a new sequence")


def _continue_with_state(w: Any, m: Any, path: str, settings: dict[str, Any], sent: list[str] | None) -> None:
    """Feed ``m`` to ``w`` as the continuation of the sequence the state file keeps, then write the state back.

    Every item the state file says was analysed must still be in the input with the same scores and the same
    number of runs per model (a second run, an epoch appended with another run id, is refused: it would analyse
    the item again with another mean), and every setting that changes the sequence must be the same. With
    ``--order dispatch`` the kept sending order must be the start of the --items file. Arrival order feeds the kept
    items first, then the new ones in the input's order; a seeded or dispatch order is fixed, so the whole input
    is fed and the kept items are analysed first, as before."""
    import json
    import os

    import numpy as np

    from ..errors import DataError

    scores = m.data[:, :, 0]
    if m.n_runs > 1:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)    # a cell with no run: NaN, as intended
            scores = np.nanmean(m.data, axis=2)
    runs = (~np.isnan(m.data)).sum(axis=2)
    models = sorted(m.models)
    rows = [m.models.index(x) for x in models]
    pos = {it: k for k, it in enumerate(m.items)}
    kept: list[str] = []
    kept_sent: list[str] = []
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8") as fh:
                st = json.load(fh)
            kept, digests = list(st["order"]), dict(st["digests"])
            kept_runs = dict(st.get("runs") or {})
            kept_sent = list(st.get("sent") or [])
            old_models = list(st["models"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DataError(f"{path}: not a watch state file ({exc}); delete it to start a new sequence") from None
        _check_settings(path, st.get("settings"), settings)
        if old_models != models:
            raise DataError(f"{path}: the state was kept for models {', '.join(old_models)}, the input now has "
                            f"{', '.join(models)}; the sequence cannot continue (delete the state file to start a new "
                            "one)")
        if sent is not None:
            if sent[:len(kept_sent)] != kept_sent:
                k = next(k for k, (a, b) in enumerate(zip(kept_sent, sent + [None] * len(kept_sent))) if a != b)
                now = repr(sent[k]) if k < len(sent) else "nothing"
                raise DataError(f"{path}: the dispatch list changed: place {k + 1:,} was {kept_sent[k]!r}, the --items "
                                f"file now has {now} there; the sending order is append-only (delete the state file "
                                "to start over)")
            if settings.get("--n-items") is None and len(sent) != len(kept_sent):
                raise DataError(f"{path}: the dispatch list grew from {len(kept_sent):,} to {len(sent):,} items; "
                                "without --n-items the first list is the whole benchmark: declare --n-items N when "
                                "the list grows as items are sent (and use a new --state file)")
        for k, it in enumerate(kept, 1):
            if it not in pos:
                raise DataError(f"{path}: item {it!r} (place {k:,} of the kept order) is no longer in the input: the "
                                "source shrank; the sequence cannot continue (delete the state file to start over)")
            had = kept_runs.get(it)
            now_runs = [int(x) for x in runs[rows, pos[it]]]
            if had is not None:
                grew = [j for j, (a, b) in enumerate(zip(had, now_runs)) if a is not None and a and b != a]
                if grew:
                    j = grew[0]
                    raise DataError(f"{path}: item {it!r} (place {k:,} of the analysed order) was analysed with "
                                    f"{had[j]} run(s) of {models[j]} and the input now has {now_runs[j]}: a later run "
                                    "(epoch) cannot revise an analysed item. Declare the runs per item with --n-runs "
                                    "(each item then waits for all its runs) and a new --state file, or leave the new "
                                    "runs out")
            if not _same_item(digests[it], _item_values(scores[rows, pos[it]])):
                raise DataError(f"{path}: item {it!r} (place {k:,} of the kept order) has changed scores since it was "
                                "analysed; the sequence cannot continue (delete the state file to start over)")
    if sent is not None:
        w.dispatch(sent)
    if w.order == "arrival":
        fresh = [it for it in m.items if it not in set(kept)]
        if kept:
            w.update_matrix(m.select(items=kept))
        if fresh:
            w.update_matrix(m.select(items=fresh))
        order = w.item_order()
    else:
        w.update_matrix(m)
        order = w.analysed_items()
        if order[:len(kept)] != kept:     # cannot happen with unchanged scores and settings; never in silence
            raise DataError(f"{path}: the analysed items no longer start with the kept ones; the sequence cannot "
                            "continue (delete the state file to start over)")
        order = order if len(order) >= len(kept) else kept
    payload = {"version": 3, "models": models, "seed": w.seed, "settings": settings, "order": order,
               "digests": {it: _item_values(scores[rows, pos[it]]) for it in order},
               "runs": {it: [int(x) for x in runs[rows, pos[it]]] for it in order}}
    if sent is not None:
        payload["sent"] = list(sent)
    tmp = f"{path}.partial"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(payload, fh)
        os.replace(tmp, path)
    except OSError as exc:
        raise DataError(f"{path}: cannot write the watch state ({exc.strerror}); pass --state FILE in a folder "
                        "you can write to") from None


for _p in command.params:   # the shared option's help describes report's clustering; say what it does here
    if _p.name == "group_col":
        _p.help = ("Item groups (subjects, passages, repositories) as the sampling unit: a group enters the analysis "
                   "once all its items are scored, with its mean score (needs --items for a live source).")
