"""Renderers of two-model results: ``compare`` (PairedComparison) and ``power`` (PowerResult)."""

from __future__ import annotations

from typing import Any

from .._fmt import gap_points, interval, level, number, p_clause, p_value, percent, plain, plural, points
from .._markdown import _esc
from .._notes import worded
from . import renderer

_METHOD_WORDS = {
    "mcnemar": "exact McNemar test",
    "betting": "betting interval (finite-sample)",
    "t": "paired t test (asymptotic)",
    "sign-flip": "sign-flip permutation test",
    "cluster": "clustered paired SE (CR1), t test with G - 1 df",
}


# ---- compare --------------------------------------------------------------------------------------------
def _items(n: int) -> str:
    return plural(n, "shared item")


@renderer("ranktrust.stats._paired:PairedComparison", "headline")
def compare_verdict(d: dict[str, Any]) -> str:
    """The one sentence under a paired comparison: who is ahead, or why nothing can be said."""
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
    alt = d.get("alternative", "two-sided")
    if alt != "two-sided":   # compare(alternative="greater"|"less"): the claim the one-sided test makes
        claim = f"{d['a']} {'>' if alt == 'greater' else '<'} {d['b']}"
        if p < alpha:
            return f"{claim}: significant at {alpha:g} in a one-sided test ({p_clause(p)})."
        return f"The data cannot show {claim} in a one-sided test ({p_clause(p)})."
    if p < alpha:
        lead = d["a"] if d["diff"] > 0 else d["b"]
        return f"{lead} is ahead: the difference is significant at {alpha:g} ({p_clause(p)})."
    return f"The data cannot tell {d['a']} and {d['b']} apart ({p_clause(p)}; the CI contains 0)."


def _compare_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [(f"score {d['a']}", points(d["score_a"])), (f"score {d['b']}", points(d["score_b"]))]
    if d["only_a"] is not None:
        rows += [(f"only {d['a']} right", f"{d['only_a']:,}"), (f"only {d['b']} right", f"{d['only_b']:,}")]
    rows += [("difference (pts)", points(d["diff"], signed=True)),
             (f"{level(d['confidence_level'])} CI (paired)", interval(d["ci_low"], d["ci_high"], signed=True))]
    if d.get("unpaired_half_width") is not None:
        rows.append(("unpaired half-width", f"±{points(d['unpaired_half_width'])}"))
    one_sided = d.get("alternative", "two-sided") != "two-sided"
    rows += [("p-value (one-sided)" if one_sided else "p-value", p_value(d["p_value"])), ("method", _method(d))]
    for key, label in (("judge_only", "judge only"), ("gold_only", "gold labels only")):   # with gold: beside it
        other = d.get(key)
        if other:
            rows.append((f"{label}: difference [CI]", f"{points(other['diff'], signed=True)} "
                                                      f"{interval(other['ci_low'], other['ci_high'], signed=True)}"))
    return rows


def _method(d: dict[str, Any]) -> str:
    """The method in words; with gold labels, the estimator and how many items carry a label."""
    words = _METHOD_WORDS.get(d["method"], d["method"])
    if d.get("n_labelled") is not None:
        return f"gold-corrected ({words}, {plural(d['n_labelled'], 'label')})"
    return words


@renderer("ranktrust.stats._paired:PairedComparison", "text")
def compare_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"{d['a']} vs {d['b']} on {_items(d['n_items'])}")
    t.add_column("", overflow="fold")
    t.add_column("value", justify="right")
    for a, b in _compare_rows(d):
        t.add_row(a, b)
    return [t, Text(compare_verdict(d))]


@renderer("ranktrust.stats._paired:PairedComparison", "md")
def compare_markdown(d: dict[str, Any]) -> str:
    d = {**d, "a": _esc(d["a"]), "b": _esc(d["b"])}
    lines = [f"## {d['a']} vs {d['b']}", "", f"{_items(d['n_items'])}; "
             f"{_method(d)}.", "", "| | value |", "|---|--:|"]
    lines += [f"| {a} | {b} |" for a, b in _compare_rows(d) if a != "method"]
    lines += ["", compare_verdict(d)]
    return "\n".join(lines) + "\n"


# ---- power ----------------------------------------------------------------------------------------------
@renderer("ranktrust.stats._power:PowerResult", "headline")
def power_headline(d: dict[str, Any]) -> str:
    """'To detect a gap of 2 points (...) you need about 1,234 items.' or the detectable gap at n items."""
    q, a, pw = d["disagreement"], d["alpha"], d["power"]
    cond = f"disagreement q = {number(q)}, α = {plain(a)}, power = {percent(pw)}"
    if d["solved_for"] == "items":
        how = ""
        if d.get("method") == "exact":
            how = " for the exact McNemar test"
            if d.get("items_needed_normal") and d["items_needed_normal"] != d["items_needed"]:
                how += (f" (the normal-approximation formula n = (z₁₋α/₂ + z₁₋β)² q / gap² says "
                        f"{d['items_needed_normal']:,}, which falls short of {percent(pw)} power with that test)")
        return (f"To detect a gap of {gap_points(d['gap'])} points ({cond}) you need about "
                f"{d['items_needed']:,} items{how}.")
    n = plural(d["items"], "item")
    g = d["detectable_gap"]
    ci = f"a paired {level(1 - a)} CI is about ±{points(d['ci_half_width'])} points"
    if g is None:
        return (f"With {n} ({cond}) no possible gap is detectable: even the largest gap two such models can have "
                f"does not reach {percent(pw)} power with the exact test; {ci}.")
    if g >= 1 or (d.get("binary", True) and g > q):
        return (f"With {n} ({cond}) no possible gap is detectable: the formula asks for {points(g)} points, more "
                f"than two such models can differ by; {ci}.")
    return f"With {n} ({cond}) the smallest detectable gap is {points(g)} points, and {ci}."


@renderer("ranktrust.stats._power:PowerResult", "payload")
def power_payload(r: Any) -> dict[str, Any]:
    """The JSON: ``to_dict()`` with the note's sentence beside its record (``note["text"]``)."""
    d = dict(r.to_dict())
    d["note"] = worded(d.get("note"))
    return d


@renderer("ranktrust.stats._power:PowerResult", "text")
def power_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    out: list[Any] = [Text(power_headline(d))]
    if d.get("disagreement_source"):
        out.append(Text(f"q: {d['disagreement_source']}"))
    if d.get("table"):
        t = Table(title="Items needed by gap", title_justify="left")
        t.add_column("gap (pts)", justify="right")
        t.add_column("items needed", justify="right")
        for row in d["table"]:
            t.add_row(gap_points(row["gap"]), f"{row['items_needed']:,}")
        out.append(t)
    return out


@renderer("ranktrust.stats._power:PowerResult", "md")
def power_markdown(d: dict[str, Any]) -> str:
    lines = ["## Power", "", power_headline(d)]
    if d.get("disagreement_source"):
        lines += ["", f"q: {d['disagreement_source']}"]
    if d.get("table"):
        lines += ["", "| gap (pts) | items needed |", "|--:|--:|"]
        lines += [f"| {gap_points(r['gap'])} | {r['items_needed']:,} |" for r in d["table"]]
    return "\n".join(lines) + "\n"


@renderer("ranktrust.stats._power:PowerResult", "csv")
def power_csv(d: dict[str, Any]) -> str:
    from ._csv import table_csv

    return table_csv(["gap", "items_needed"], [[r["gap"], r["items_needed"]] for r in d.get("table") or []])
