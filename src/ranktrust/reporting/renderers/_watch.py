"""Renderers of ``ranktrust watch``: the live status (WatchStatus) and a replay (ReplayResult).

The HTML page of a status (:func:`watch_html`) is its Markdown as one page, with the decisions' confidence bands
drawn by the figure registered for ``WatchStatus`` (``plots/_watch.py``); the bands are not part of the status, so
the caller adds them to the payload (``{**status.to_dict(), "bands": watch.bands()}``)."""

from __future__ import annotations

from typing import Any

from .._fmt import count, level, percent, points, probability, rank_range
from .._markdown import md_escape as _esc
from . import renderer


def _n(x: float | None) -> str:
    return count(None if x is None else round(x))


def _q(d: dict[str, Any], pct: bool = False) -> str:
    f = probability if pct else _n     # a share of cells: a percentage with fmt's share digits
    return f"median {f(d['median'])} (10%-90%: {f(d['p10'])}-{f(d['p90'])}; max {f(d['max'])})"


def _level(d: dict[str, Any]) -> str:
    """What the confidence level covers, as docs/watch.md states it: the set keeps each true best (top-k) model
    with at least that probability, each one separately when models tie; rank ranges and decided pairs hold
    together (closed testing over every ordered pair)."""
    lv = level(d["confidence_level"])
    if d["target"] == "ranks":
        return f"{lv} simultaneous over every pair (rank ranges and decided pairs hold together)"
    who = "best model" if d["target"] == "best" else f"{d['target']} model"
    return (f"{lv} for each true {who}: it stays in the set with at least this probability (with tied models, each "
            "one separately, not all together)")


def _guarantee(d: dict[str, Any]) -> str:
    scope = ("items are a sample from a population of questions like these (sequences with replacement)"
             if d["scope"] == "population" else
             "the question is this benchmark (sequences without replacement; exact at the last item)")
    if "order" not in d:      # a replay: every order is a seeded permutation of a finished matrix
        return f"{_level(d)}; valid at every stopping time however often you look; {scope}; {d['method']} e-processes."
    return (f"{_level(d)}; valid at every stopping time however often you look, for one analysis order fixed before "
            f"the data; {scope}; {d['method']} e-processes. {_order_caveat(d)}")


def _order_caveat(d: dict[str, Any]) -> str:
    """What the guarantee rests on, from the status's order and declared size."""
    if d.get("order") == "arrival":
        return ("Order: as results completed (arrival); the guarantee rests on that order not depending on the "
                "results (latency that depends on correctness, or items sorted by subject or length, void it).")
    if d.get("order") == "dispatch":
        return ("Order: as the harness sent the items (dispatch), each held back until every item sent before it is "
                "complete, so latency cannot change it; the guarantee rests on the sending order not depending on "
                "the results (a shuffled list is fine; one sorted by subject or length voids it).")
    if d.get("items_total"):
        return "Order: a seeded random order over the declared items (trying seeds for a wanted answer voids it)."
    return ("Order: a seeded order over the items read; the benchmark size is not declared (a re-read after more "
            "results arrive is a new sequence: for a live source declare the benchmark's items, or analyse items "
            "in arrival order).")


def _state_line(d: dict[str, Any]) -> list[str]:
    """Where the command keeps the analysed order between reads (it wrote it there)."""
    if not d.get("state_file"):
        return []
    what = "arrival order is" if d.get("order") == "arrival" else "analysed items are"
    return [f"State: the {what} kept in {d['state_file']}; a re-run with the same settings continues this "
            "sequence (a new state file starts a new one)."]


def _note_lines(d: dict[str, Any]) -> list[str]:
    """The status's notes (``watch_arrival_latency``), each as a warning line, in the reader's option words."""
    from .._notes import note_text

    return [f"Warning: {note_text(n)}." for n in d.get("notes") or []]


def follow_line(d: dict[str, Any]) -> str:
    """The one line ``--follow`` prints after each read: how far the analysis got and, when results wait, which
    item they wait for and what it lacks."""
    tot = f" of {d['items_total']:,} declared" if d.get("items_total") else ""
    line = (f"watch: {d['items_seen']:,}{tot} items analysed, {d['cells_scored']:,} cells; "
            f"set: {', '.join(d['best_set'])}")
    w = d.get("waiting_for") or []
    if w and d.get("held_back"):
        first = w[0]
        if first.get("position"):
            where = f" (place {first['position']:,} in the {_ORDER_NAME.get(d.get('order'), 'seeded')} order)"
        else:
            where = ""
        lacks = f", which lacks {', '.join(first['missing'])}" if first.get("missing") else ""
        if first.get("sent") is False:
            lacks = ", which has not been sent"
        line += f"; {d['held_back']:,} results wait for item {first['item']}{where}{lacks}"
    return line


_ORDER_NAME = {"seeded": "seeded", "dispatch": "dispatch"}


def _progress(d: dict[str, Any]) -> str:
    """'N items declared, t analysed' for a live source; 't items analysed (size not declared)' otherwise."""
    unit = "item groups" if d.get("unit") == "cluster" else "items"
    if d.get("items_total"):
        return f"{d['items_total']:,} {unit} declared, {d['items_seen']:,} analysed"
    return f"{d['items_seen']:,} {unit} analysed (benchmark size not declared)"


@renderer("ranktrust.sequential._status:WatchStatus", "headline")
def _verdict(d: dict[str, Any]) -> str:
    """One sentence from the certified statements: decided only when the target is."""
    label = {"best": "could be #1"}.get(d["target"], f"could be in the {d['target']}" if d["target"] != "ranks"
                                        else "rank set contains 1")
    decided = d.get("target_decided", d["done"])
    if decided and d["target"] == "best" and len(d["best_set"]) == 1:
        return f"Certified: {d['best_set'][0]} is #1. Stop scoring."
    if decided:
        return f"Decided. {label[0].upper()}{label[1:]}: {', '.join(d['best_set'])}."
    if d["done"]:
        names = sorted({m for p in d["unresolvable_pairs"] for m in p})
        return (f"Not decided, and no items left that could decide it: {len(names)} models cannot be told apart on "
                f"this benchmark ({', '.join(names)}); {label}: {', '.join(d['best_set'])}.")
    return f"Still open. {label[0].upper()}{label[1:]}: {', '.join(d['best_set'])}."   # a sentence: a capital


#: the words that differ by audience: a Python user calls ``Watch.next()``, a command-line user reads the
#: "score next" line (``cli``: the renderer writes ``ranktrust watch``'s output; flags are never named here)
_NEXT_ORDER = {False: "the order Watch.next() proposes", True: "the order of the 'score next' line"}


def _nothing_next(d: dict[str, Any]) -> str:
    """Why ``next`` is empty while the target is open."""
    left = (d["items_total"] - d["items_seen"]) if d.get("items_total") else None
    if d.get("order") == "arrival":
        more = f" ({left:,} of the declared items not analysed yet)" if left else ""
        return f"score next: any item not scored yet, in your own shuffled order{more}; arrival order does not choose items."
    if d.get("order") == "dispatch":
        more = f" ({left:,} of the declared items not sent yet)" if left else ""
        return (f"score next: every item sent so far is analysed{more}; send more, in your own shuffled order, and "
                "record them as sent.")
    if not d.get("items_total"):
        return ("score next: nothing proposed: every item read is analysed and the benchmark size is not declared "
                "(declare the benchmark's items to have the next items proposed).")
    return "score next: nothing proposed (no items left to score)."


def _waiting_lines(d: dict[str, Any], cli: bool = False) -> list[str]:
    """Results held back for an item earlier in the order, and how to avoid the wait, in the words of the
    reader (``cli``: the command line's, else Python's)."""
    w = d.get("waiting_for") or []
    if not w or not d.get("held_back"):
        return []
    first = w[0]
    name = _ORDER_NAME.get(d.get("order"), "seeded")
    where = f" (place {first['position']:,} in the {name} order)" if first.get("position") else ""
    more = f"; then {', '.join(x['item'] for x in w[1:])}" if len(w) > 1 else ""
    if d.get("order") == "seeded":
        tail = f"score in {_NEXT_ORDER[cli]} (the seeded order) to be analysed without waiting"
    elif d.get("order") == "dispatch":
        tail = "an item enters once every item sent before it is complete for every model in play"
    else:
        tail = "an item enters once every model in play has it"
    lacks = ("which has not been recorded as sent" if first.get("sent") is False
             else f"which lacks {', '.join(first['missing'])}")
    return [f"{d['held_back']:,} results wait for item {first['item']}{where}, {lacks}{more}; {tail}."]


# ---- status --------------------------------------------------------------------------------------------
@renderer("ranktrust.sequential._status:WatchStatus", "text")
def _status_text(d: dict[str, Any], cli: bool = False) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    title = f"watch ({d['target']}): {_progress(d)}, {d['cells_scored']:,} cells scored"
    t = Table(title=title, title_justify="left")
    t.add_column("model", overflow="fold")
    t.add_column("score", justify="right")
    t.add_column("items", justify="right")
    ranks = d["target"] == "ranks"
    t.add_column("rank set", justify="right")
    t.add_column("in set", justify="center")
    t.add_column("all pairs decided at" if ranks else "left at item", justify="right")
    ex = {e["model"]: e["at_item"] for e in d["excluded"]}
    best = set(d["best_set"])
    rows = sorted(d["models"], key=lambda r: -(r["score"] if r["score"] is not None else -1))
    for r in rows:
        rs = rank_range(r["rank_low"], r["rank_high"])
        t.add_row(r["model"], points(r["score"]), f"{r['n_items']:,}", rs,
                  "yes" if r["model"] in best else "", f"{ex[r['model']]:,}" if r["model"] in ex else "")
    out: list[Any] = [t, Text(_verdict(d))]
    if ranks:
        out.append(Text(f"decided pairs: {len(d['decided'])}; open pairs: {len(d['open_pairs'])}"))
    else:
        extra = (f"; pairs also decided at the stricter all-pairs level: {len(d['decided'])}" if d["decided"] else "")
        out.append(Text(f"models out of the set: {len(d['excluded'])}; open pairs inside it: {len(d['open_pairs'])}"
                        f"{extra}"))
    if d["unresolvable_pairs"]:
        names = sorted({m for p in d["unresolvable_pairs"] for m in p})
        out.append(Text(f"cannot be told apart on this benchmark, stop spending on them: {', '.join(names)} "
                        f"({len(d['unresolvable_pairs'])} pairs)"))
    out.extend(Text(x) for x in _waiting_lines(d, cli))
    if d["next"]:
        shown = ", ".join(f"{c['model']}@{c['item']}" for c in d["next"][:8])
        more = f" (+{len(d['next']) - 8} more)" if len(d["next"]) > 8 else ""
        out.append(Text(f"score next: {shown}{more}"))
    elif not d["done"]:
        out.append(Text(_nothing_next(d)))
    out.extend(Text(x) for x in _note_lines(d))
    out.append(Text(_guarantee(d)))
    out.extend(Text(x) for x in _state_line(d))
    return out


@renderer("ranktrust.sequential._status:WatchStatus", "md")
def _status_md(d: dict[str, Any], cli: bool = False) -> str:
    lines = [f"## watch ({d['target']}): {_progress(d)}, {d['cells_scored']:,} cells", "",
             "| model | score | rank set | in set | left at item |", "|---|--:|--:|:-:|--:|"]
    ex = {e["model"]: e["at_item"] for e in d["excluded"]}
    best = set(d["best_set"])
    for r in sorted(d["models"], key=lambda r: -(r["score"] if r["score"] is not None else -1)):
        rs = rank_range(r["rank_low"], r["rank_high"])
        lines.append(f"| {_esc(r['model'])} | {points(r['score'])} | {rs} | {'yes' if r['model'] in best else ''} | "
                     f"{ex.get(r['model'], '')} |")
    lines += ["", _esc(_verdict(d)), "",
              f"Models out of the set: {len(d['excluded'])}; open pairs: {len(d['open_pairs'])}; "
              f"unresolvable: {len(d['unresolvable_pairs'])}; pairs decided at the all-pairs level: "
              f"{len(d['decided'])}."]
    lines += ["", *(_esc(x) for x in _waiting_lines(d, cli))] if _waiting_lines(d, cli) else []
    if d["next"]:
        lines += ["", "Score next: " + ", ".join(f"`{_esc(c['model'])}` @ `{_esc(c['item'])}`" for c in d["next"][:16])]
    lines += [x for n in _note_lines(d) for x in ("", f"**{n}**")]    # our own words: its `code` stays code
    lines += ["", _guarantee(d)]
    lines += ["", *(_esc(x) for x in _state_line(d))] if _state_line(d) else []
    return "\n".join(lines) + "\n"


_BANDS_NOTE = ("Each band is the paired difference's confidence sequence; the red line marks the item at which the "
               "decision was certified. For the best set the band is a one-sided betting sequence at level α on the "
               "leader minus the model (its upper edge is the running difference), and the red line is where the "
               "model left the best set: its own test bets on whichever rival leads at each item, and also on the "
               "end of the benchmark, so it can lag the band.")
_FIGURE = "RT-WATCH-FIGURE-{}"


@renderer("ranktrust.sequential._status:WatchStatus", "html")
def watch_html(d: dict[str, Any], meta: dict[str, Any], cli: bool = False) -> str:
    """One self-contained page (no scripts): the Markdown output, then one figure per decision, drawn by the figure
    registered for ``WatchStatus`` from ``d["bands"]`` (``Watch.bands()``; without them: "no decisions to show")."""
    import html

    from .._html import markdown_page
    from ..plots import figures_registered
    from ..plots._svg import figure_svg
    from ..plots._watch import WATCH_STATUS

    bands = [b for b in d.get("bands") or [] if len(b.get("t", ()))]
    status = {k: v for k, v in d.items() if k != "bands"}
    md = _status_md(status, cli=cli) + "\n## Decisions against items scored\n\n" + _esc(_BANDS_NOTE) + "\n\n"
    md += "".join(f"{_FIGURE.format(k)}\n\n" for k in range(len(bands))) or "No decisions to show yet.\n"
    md += f"\n<sub>ranktrust {meta.get('version')} · seed {meta.get('seed')}</sub>\n"
    page = markdown_page(md, title=meta.get("command") or f"Watch: {d['target']}", meta=meta)
    draw = figures_registered(WATCH_STATUS)[0]          # the figure registered for the status
    for k, b in enumerate(bands):
        cap = f"{html.escape(b['a'])} − {html.escape(b['b'])} (points): {level(b['level'])} confidence sequence " \
              f"({html.escape(b['method'])})"
        svg = figure_svg(draw.draw({"bands": [b]}, titles=False), salt=f"band{k}")   # the caption is its title
        page = page.replace(f"<p>{_FIGURE.format(k)}</p>", f"<figure><figcaption>{cap}</figcaption>{svg}</figure>", 1)
    return page


@renderer("ranktrust.sequential._replay:ReplayResult", "headline")
def replay_headline(d: dict[str, Any]) -> str:
    """'Decided in 80% of 200 item orders, with a median of 1,234 items; wrong vs the full data in 0.5%.'"""
    need = d["items_needed"]["median"]
    return (f"Decided in {probability(d['decided_share'])} of {d['n_resamples']:,} item orders"
            + (f", with a median of {_n(need)} items" if need is not None else "")
            + f"; wrong against the full data in {d['errors']} of them ({probability(d['error_rate'])}).")


# ---- replay --------------------------------------------------------------------------------------------
@renderer("ranktrust.sequential._replay:ReplayResult", "text")
def _replay_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"watch replay: {d['n_resamples']} item orders ({d['target']}, scope {d['scope']}): "
                    f"{d['n_models']} models x {d['n_items']:,} shared "
                    f"{'item groups' if d.get('unit') == 'cluster' else 'items'}", title_justify="left")
    t.add_column("", overflow="fold")
    t.add_column("value", overflow="fold")
    if d.get("unit") == "cluster":
        t.add_row("unit", "item groups (clusters), each group's mean score")
    t.add_row("decided in", f"{probability(d['decided_share'])} of orders")
    t.add_row("items needed", _q(d["items_needed"]))
    t.add_row("cells needed", _q(d["cells_needed"]) + f" of {d['full_cells']:,}")
    t.add_row("cells share", _q(d["cells_share"], pct=True))
    if d.get("cells_spent"):
        t.add_row("cells spent (decided or not)", _q(d["cells_spent"]) + f" of {d['full_cells']:,}")
    t.add_row("full-data answer", ", ".join(d["full_answer"]) or "(every pair)")
    t.add_row("error vs full data", f"{d['errors']} of {d['n_resamples']} orders ({probability(d['error_rate'])}; "
                                    f"nominal at most {(1 - d['confidence_level']) * 100:g}%)")
    t.add_row("time", f"{d['seconds']:.1f} s")
    m = Table(title="when each model left the target set", title_justify="left")
    m.add_column("model", overflow="fold")
    m.add_column("left in", justify="right")
    m.add_column("at item (median, 10%-90%)", justify="right")
    for r in sorted(d["models"], key=lambda r: (r["excluded_at"]["median"] or 1e18)):
        q = r["excluded_at"]
        m.add_row(r["model"], percent(r["excluded_share"]),
                  "" if q["median"] is None else f"{_n(q['median'])} ({_n(q['p10'])}-{_n(q['p90'])})")
    return [t, m, Text(_guarantee(d))]


@renderer("ranktrust.sequential._replay:ReplayResult", "md")
def _replay_md(d: dict[str, Any]) -> str:
    lines = [f"## watch replay: {d['n_resamples']} item orders ({d['target']}, scope {d['scope']})", "",
             f"{d['n_models']} models x {d['n_items']:,} shared items.", "", "| | value |", "|---|---|",
             f"| decided in | {probability(d['decided_share'])} of orders |",
             f"| items needed | {_q(d['items_needed'])} |",
             f"| cells needed | {_q(d['cells_needed'])} of {d['full_cells']:,} |",
             f"| error vs full data | {d['errors']} of {d['n_resamples']} ({probability(d['error_rate'])}) |", "",
             "| model | left in | at item (median) |", "|---|--:|--:|"]
    for r in sorted(d["models"], key=lambda r: (r["excluded_at"]["median"] or 1e18)):
        lines.append(f"| {_esc(r['model'])} | {percent(r['excluded_share'])} | {_n(r['excluded_at']['median'])} |")
    lines += ["", _guarantee(d)]
    return "\n".join(lines) + "\n"
