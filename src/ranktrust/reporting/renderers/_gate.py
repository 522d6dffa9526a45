"""Renderers of the release gate (:class:`ranktrust.gating.Gate`): the verdict in one line, then one row
per task (the deciding tasks first), in text, Markdown (a pull-request comment), HTML and CSV.

The payload is ``Gate.to_dict()``: the verdict line is ``headline["text"]`` (:func:`verdict_line`, registered as
the gate's ``"headline"``), ``show_plan`` says whether the plan columns are shown (the JSON and CSV always hold
them).
"""

from __future__ import annotations

from typing import Any

from .._fmt import ADJUST_NAMES, count, gap_points, interval, level, percent, plain, plural, points
from .._markdown import md_escape as _esc
from . import renderer

_DECISION_WORDS = {"worse": "worse", "better": "better", "non-inferior": "non-inferior",
                   "inconclusive": "inconclusive"}


def _pts(margin: float) -> str:
    g = gap_points(margin)
    return f"{g} point" + ("" if g == "1" else "s")


def _family(d: dict[str, Any]) -> str:
    """'95%, Holm' -- the family-wise level and the adjustment."""
    return f"{level(d['confidence_level'])}, {ADJUST_NAMES.get(d['adjust'], d['adjust'])}"


def _diff_ci(t: dict[str, Any]) -> str:
    return f"{points(t['diff'], signed=True)} {interval(t['ci_low'], t['ci_high'], signed=True)}"


def _needs(t: dict[str, Any], margin: float) -> str:
    """Why a task is inconclusive, in words that hold whatever the data: the items named are those equal models
    would need, the observed difference beside them when the task has that many already (a task that has them
    and still fails is held by its observed drop, not by its size)."""
    need, n = t.get("items_needed"), t["n_items"]
    if not margin > 0:
        return (f"{t['task']} ({points(t['diff'], signed=True)} points; at a margin of 0 no number of items rules "
                "out a drop: the candidate must be shown better)")
    lo = t.get("ci_low")
    if n < 2 and (lo is None or lo != lo):      # no interval (McNemar, t); the betting interval has one, wide
        return (f"{t['task']} (has {plural(n, 'item')}: too few for an interval"
                + (f"; equal models would need about {count(need)} items)" if need is not None else ")"))
    if need is None:
        if t.get("disagreement") == 0:
            agree = "their one item" if n == 1 else f"all {plural(n, 'item')}"
            return f"{t['task']} (the two models score {agree} alike; the t interval is not defined there)"
        return f"{t['task']} (no estimate of the items needed)"
    if n < need:
        return f"{t['task']} (has {plural(n, 'item')}; equal models would need about {count(need)})"
    return (f"{t['task']} (observed {points(t['diff'], signed=True)} points, lower bound "
            f"{points(t['ci_low'], signed=True)}; it has {count(n)} items, more than the {count(need)} equal "
            "models would need)")


def _listed(tasks: list[dict[str, Any]], limit: int | None, margin: float) -> str:
    shown = tasks if limit is None or len(tasks) <= limit else tasks[:limit]
    more = len(tasks) - len(shown)
    return "; ".join(_needs(t, margin) for t in shown) + (f"; and {more} more" if more else "")


def verdict_line(d: dict[str, Any]) -> str:
    """The gate's verdict in one line: 'PASS: 12 tasks non-inferior at 1 point (95%, Holm)'."""
    n, fam, margin = d["n_tasks"], _family(d), _pts(d["margin"])
    if d["verdict"] == "FAIL":
        bad = set(d["worse"])
        worse = [t for t in d["tasks"] if t["task"] in bad]   # in the table's order, so "and k more" are its last rows
        shown = "; ".join(f"{t['task']} {points(t['diff'], signed=True)} points "
                          f"{interval(t['ci_low'], t['ci_high'], signed=True)}" for t in worse[:3])
        shown += f"; and {len(worse) - 3} more" if len(worse) > 3 else ""
        return (f"FAIL: {shown}: {d['candidate']} is worse than {d['baseline']} on "
                f"{plural(len(worse), 'task')} of {n} ({fam})")
    if d["verdict"] == "PASS":
        line = f"PASS: {plural(n, 'task')} non-inferior at {margin} ({fam})"
        if d["better"]:
            line += f"; better on {', '.join(d['better'])}"
        return line
    inc = [t for t in d["tasks"] if t["decision"] == "inconclusive"]     # in the rows' order: tightest first
    if inc:
        line = (f"INCONCLUSIVE: no regression shown, but {len(inc)} of {plural(n, 'task')} cannot rule out a drop "
                f"of {margin}: " + _listed(inc, 3, d["margin"]) + f" ({fam})")
    else:
        line = f"INCONCLUSIVE: {plural(n, 'task')} non-inferior at {margin}, but none shown better ({fam})"
    return line


def inconclusive_warning(d: dict[str, Any]) -> str:
    """The one-line warning of an INCONCLUSIVE gate: the tasks and the items each would need."""
    inc = [t for t in d["tasks"] if t["decision"] == "inconclusive"]
    if not inc:
        return (f"the gate is inconclusive: every task is non-inferior at {_pts(d['margin'])}, "
                "but the candidate was required to be better on one and is not shown better on any")
    return (f"the gate is inconclusive: {plural(len(inc), 'task')} cannot rule out a drop of "
            f"{_pts(d['margin'])}: " + _listed(inc, None, d["margin"]))


def _columns(d: dict[str, Any]) -> list[str]:
    cols = ["task", "items", "baseline", "candidate", "difference [CI]", "CI level", "decision"]
    if d.get("show_plan"):
        cols += ["detectable drop", "items for margin"]
    return cols


def _cells(d: dict[str, Any], t: dict[str, Any]) -> list[str]:
    cells = [t["task"], count(t["n_items"]), points(t["score_baseline"]), points(t["score_candidate"]),
             _diff_ci(t), level(round(t["ci_level"], 4)) if t["ci_level"] is not None else "n/a",
             _DECISION_WORDS[t["decision"]]]
    if d.get("show_plan"):
        drop = t.get("detectable_drop")
        cells += [points(drop) if drop is not None else "none", count(t.get("items_needed"))]
    return cells


_TESTS = {"betting": "continuous scores: betting interval, valid at every number of items",
          "mcnemar": "0/1 scores: exact McNemar; its interval's coverage audited on a grid"}


def _footer(d: dict[str, Any]) -> str:
    alpha = 1 - d["confidence_level"]
    methods = list(dict.fromkeys(t["method"] for t in d["tasks"]))
    text = (f"Difference = {d['candidate']} - {d['baseline']} in points, on the items both scored. "
            f"Each interval is at its task's {ADJUST_NAMES.get(d['adjust'], d['adjust'])} level, so it "
            f"excludes 0 exactly when the adjusted test does; a false FAIL has probability at most {plain(alpha)}, "
            f"a false PASS at most {plain(alpha / 2)}")
    exact = [_TESTS[m] for m in methods if m in _TESTS]
    text += f" ({'; '.join(exact)})." if exact else "."
    gold = [t for t in d["tasks"] if t.get("n_labelled") is not None]
    if gold:
        text += (f" Gold-corrected on {plural(len(gold), 'task')} ({', '.join(t['task'] for t in gold[:5])}"
                 f"{' ...' if len(gold) > 5 else ''}): the judge's scores on every item corrected with the gold "
                 f"labels ({', '.join(dict.fromkeys(t['method'] for t in gold))}; "
                 f"{count(min(t['n_labelled'] for t in gold))} labelled items or more a task), asymptotic.")
    asym = [t["task"] for t in d["tasks"] if t["method"] not in _TESTS and t.get("n_labelled") is None]
    if asym:
        text += (f" Approximate on {plural(len(asym), 'task')} ({', '.join(asym[:5])}{' ...' if len(asym) > 5 else ''}): "
                 "the paired t and the clustered SE are asymptotic, and with few items and skewed scores their "
                 "error rates can be several times these; the default test (auto) is exact for continuous scores.")
    if d.get("align") == "intersect":
        lost = [t for t in d["tasks"] if t.get("missing_candidate") or t.get("missing_baseline")]
        text += " Compared on the items both scored: " + ("; ".join(
            f"{t['task']}: {d['candidate']} lacks {count(t.get('missing_candidate') or 0)}, {d['baseline']} lacks "
            f"{count(t.get('missing_baseline') or 0)} of the items the other scored" for t in lost)
            if lost else "neither model lacks an item the other scored") + "."
    return text


def _plan_note(d: dict[str, Any]) -> str:
    return (f"Plan: detectable drop = the smallest drop on one task the suite finds with probability "
            f"{percent(d['plan_power'])}; items for margin = the items a task needs to clear -{_pts(d['margin'])} "
            f"with probability {percent(d['plan_power'])} when the models are truly equal.")


@renderer("ranktrust.gating._core:Gate", "payload")
def gate_payload(result: Any) -> dict[str, Any]:
    from ...gating import GateHeadline

    d = result.to_dict()
    head = GateHeadline(verdict=d["verdict"], text=verdict_line(d))
    return {"headline": head, **d}


def _line(d: dict[str, Any]) -> str:
    """The verdict line of a payload (its ``headline["text"]``, composed here when the payload lacks it)."""
    h = d.get("headline")
    return h["text"] if isinstance(h, dict) and h.get("text") else verdict_line(d)


def _name_width(names: list[str], cap: int = 40) -> int:
    """A task column wide enough that no task name up to ``cap`` characters is broken inside a word."""
    return min(max((len(n) for n in names), default=4), cap)


@renderer("ranktrust.gating._core:Gate", "text")
def gate_text(d: dict[str, Any]) -> list[Any]:
    """The verdict, the table, the footer; with --plan the plan columns come as a second table (task, detectable
    drop, items for margin), so that neither table is wider than a pipe's 110 columns and no task name or header
    is cut inside a word: numbers never wrap, and the task column is as wide as its longest name (up to 40)."""
    from rich.table import Table
    from rich.text import Text

    style = {"PASS": "bold green", "FAIL": "bold red", "INCONCLUSIVE": "bold yellow"}[d["verdict"]]
    out: list[Any] = [Text(_line(d), style=style)]
    width = _name_width([t["task"] for t in d["tasks"]])
    cols = _columns({**d, "show_plan": False})
    t = Table(title=f"{d['candidate']} (candidate) vs {d['baseline']} (baseline)", title_justify="left")
    for c in cols:
        if c == "task":
            t.add_column(c, justify="left", overflow="fold", min_width=width)
        else:
            t.add_column(c, justify="left" if c == "decision" else "right", no_wrap=True)
    for row in d["tasks"]:
        t.add_row(*_cells(d, row)[:len(cols)])
    out += [t, Text(_footer(d))]
    if d.get("show_plan"):
        p = Table(title=f"Plan (power {percent(d['plan_power'])})", title_justify="left")
        p.add_column("task", justify="left", overflow="fold", min_width=width)
        for c in ("detectable drop", "items for margin"):
            p.add_column(c, justify="right", no_wrap=True)
        for row in d["tasks"]:
            p.add_row(row["task"], *_cells(d, row)[len(cols):])
        out += [p, Text(_plan_note(d))]
    return out


@renderer("ranktrust.gating._core:Gate", "md")
def gate_markdown(d: dict[str, Any]) -> str:
    cols = _columns(d)
    head = _line(d)
    lines = [f"**{_esc(head)}**", "", "| " + " | ".join(cols) + " |",
             "|" + "|".join("---" if c in ("task", "decision") else "--:" for c in cols) + "|"]
    for row in d["tasks"]:
        cells = _cells(d, row)
        cells[0] = _esc(cells[0])
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", _esc(_footer(d))]
    if d.get("show_plan"):
        lines += ["", _esc(_plan_note(d))]
    return "\n".join(lines) + "\n"


#: the CSV columns: one row per task, full precision; the first column is the suite's verdict (PASS, FAIL or
#: INCONCLUSIVE, the same on every row), so the file starts with its header row and ``pandas.read_csv`` reads it
CSV_COLUMNS = ("verdict", "task", "n_items", "score_baseline", "score_candidate", "diff", "ci_low", "ci_high",
               "ci_level", "p_value", "p_adjusted", "decision", "method", "disagreement", "detectable_drop",
               "items_needed", "missing_candidate", "missing_baseline")


@renderer("ranktrust.gating._core:Gate", "csv")
def gate_csv(d: dict[str, Any]) -> str:
    from ._csv import table_csv

    row = {"verdict": d["verdict"]}
    return table_csv(list(CSV_COLUMNS), [[{**row, **t}[c] for c in CSV_COLUMNS] for t in d["tasks"]])
