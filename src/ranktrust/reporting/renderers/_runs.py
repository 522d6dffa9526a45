"""Renderers of the results over runs and conditions: ``repeats`` (Repeats), ``sensitivity`` (Sensitivity),
and the one-line description of a VarianceComponents row."""

from __future__ import annotations

from typing import Any

from .._fmt import interval, level, number, p_value, plural, points, share
from .._markdown import _esc
from .._notes import note_text
from . import renderer
from ._csv import table_csv


# ---- variance components --------------------------------------------------------------------------------
def tradeoff_sentence(row: dict[str, Any]) -> str:
    """What more runs vs more items buy for one model row of ``Repeats``/``VarianceComponents.to_dict()``:
    '3 more runs shrink the CI by 8%, 500 more items by 31%'."""
    t = row["tradeoff"]
    if row.get("observed_var") == 0 and row.get("within_item_var") == 0:
        return f"{row['model']}: no spread (every run of every item scored the same), nothing to project"
    if t["runs_shrink"] is None or t["items_shrink"] is None:
        return f"{row['model']}: not enough runs to project"
    return (f"{row['model']}: {t['more_runs']} more runs shrink the CI by {share(t['runs_shrink'])}, "
            f"{t['more_items']} more items by {share(t['items_shrink'])}")


def describe_variance(vc: Any, j: int, *, more_runs: int = 3, more_items: int = 500) -> str:
    """One sentence for model ``j`` of a :class:`~ranktrust.runs._variance.VarianceComponents`: what more runs
    vs more items buy ('3 more runs shrink the CI by 8%, 500 more items by 31%')."""
    import numpy as np

    t = vc.tradeoff(more_runs=more_runs, more_items=more_items)
    r, i = float(t["runs_shrink"][j]), float(t["items_shrink"][j])
    if vc.observed_var[j] == 0 and vc.within_item_var[j] == 0:
        return f"{vc.models[j]}: no spread (every run of every item scored the same), nothing to project"
    if not (np.isfinite(r) and np.isfinite(i)):
        return f"{vc.models[j]}: not enough runs to project"
    return f"{more_runs} more runs shrink the CI by {share(r)}, {more_items} more items by {share(i)}"


# ---- repeats --------------------------------------------------------------------------------------------
def _repeats_headline(d: dict[str, Any]) -> str:
    return (f"Scores are means over all runs (stable scores), never the best run. {level(d['confidence_level'])} "
            "CIs treat items as the sampling unit and include the run-to-run noise.")


def _repeats_table(d: dict[str, Any], compact: bool = False) -> tuple[list[str], list[list[str]]]:
    ks = list(d["models"][0]["pass_at"]) if d["models"] else []
    head = ["model", "runs", "score", f"{level(d['confidence_level'])} CI", "run sd", "var_b", "var_w"]
    head += [f"pass@{k}" for k in ks]
    has_maj = any(r["maj_at_n"] is not None for r in d["models"])
    if has_maj:
        head.append("maj@N")
    choose = d.get("margin") is not None
    if choose:
        head.append("N req")
    rows = []
    for r in d["models"]:
        row = [r["model"], str(r["runs"]), points(r["score"]),
               interval(r["ci_low"], r["ci_high"], sep="-", brackets=False),
               points(r["run_sd"]), number(r["between_item_var"]), number(r["within_item_var"])]
        for k in ks:
            p = r["pass_at"][k]
            row.append(points(p["estimate"]) if compact else
                       f"{points(p['estimate'])} ({points(p['ci_low'])}-{points(p['ci_high'])})")
        if has_maj:
            row.append(points(r["maj_at_n"]["estimate"] if r["maj_at_n"] else None))
        if choose:
            need = r["n_required"]
            row.append(points(None) if need is None else
                       f"{need} {'ok' if r['enough_runs'] else '+' + str(need - r['runs'])}")
        rows.append(row)
    return head, rows


def _choose_line(d: dict[str, Any]) -> str | None:
    if d.get("margin") is None:
        return None
    return (f"Runs needed for a ±{d['margin'] * 100:g}-point margin at α = {1 - d['choose_n_confidence_level']:g} "
            "(N = ⌈(z·s/ε)²⌉ with s the sd of run scores; the run-to-run noise only). "
            "'ok': the runs at hand suffice; '+k': k more runs needed.")


@renderer("ranktrust.runs:Repeats", "text")
def repeats_text(d: dict[str, Any]) -> list[Any]:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    out: list[Any] = [Text(_repeats_headline(d))]
    head, rows = _repeats_table(d, compact=True)
    t = Table(title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for h in head:
        # only the model column may wrap: with every column no_wrap a wide table truncates headers ("N r…")
        if h == "model":
            t.add_column(h, justify="left", overflow="fold")
        else:
            t.add_column(h, justify="right", no_wrap=True)
    for r in rows:
        t.add_row(*r)
    out.append(t)
    line = _choose_line(d)
    if line:
        out.append(Text(line))
    out.append(Text("var_b: between-item variance of item means; var_w: mean within-item variance over runs."))
    if any(r["pass_at"] for r in d["models"]):
        out.append(Text("pass@k: unbiased estimator, mean over items; its CIs are in the JSON and Markdown output."))
    out.append(Text("What more data buys:"))
    out += [Text("  " + tradeoff_sentence(r)) for r in d["models"]]
    out += [Text(f"note: {note_text(n)}") for n in d["notes"]]
    return out


@renderer("ranktrust.runs:Repeats", "md")
def repeats_markdown(d: dict[str, Any]) -> str:
    head, rows = _repeats_table(d)
    lines = ["## Repeats", "", _repeats_headline(d), "", "| " + " | ".join(head) + " |",
             "|" + "|".join(":--" if h == "model" else "--:" for h in head) + "|"]
    lines += ["| " + " | ".join(_esc(c) for c in r) + " |" for r in rows]
    line = _choose_line(d)
    if line:
        lines += ["", line]
    lines += ["", "What more data buys:", ""] + [f"- {_esc(tradeoff_sentence(r))}" for r in d["models"]]
    if d["notes"]:
        lines += [""] + [f"> note: {_esc(note_text(n))}" for n in d["notes"]]
    return "\n".join(lines) + "\n"


@renderer("ranktrust.runs:Repeats", "csv")
def repeats_csv(d: dict[str, Any]) -> str:
    cols = ["model", "runs", "score", "ci_low", "ci_high", "run_sd", "between_item_var", "within_item_var"]
    ks = list(d["models"][0]["pass_at"]) if d["models"] else []
    return table_csv(cols + [f"pass_at_{k}" for k in ks],
                     ([r.get(c) for c in cols] + [r["pass_at"][k]["estimate"] for k in ks] for r in d["models"]))


# ---- sensitivity ----------------------------------------------------------------------------------------
#: Above this many conditions the per-condition columns and lists are summarised (32 seeds make 32 columns).
MAX_LISTED = 8


def _ahead(names: list[str], n: int, by: str) -> str:
    if n <= MAX_LISTED:
        return "under " + ", ".join(names)
    return f"under {len(names)} of {n} {by}s"


def sensitivity_summary(d: dict[str, Any]) -> list[str]:
    """The sentences under the sensitivity table (indented lines detail the line above)."""
    by = d["by"]
    n = len(d["conditions"])
    over = f"the {by}s (and their runs)" if by == "condition" else f"the {by}s"
    lines = [f"Stable score = mean over {over}; the best {by} is never reported. "
             f"best+ = best {by} minus the mean; p = paired test (items) that the {by}s differ."]
    if n > MAX_LISTED:
        lines.append(f"{n} {by}s: the table shows each model's lowest and highest {by}; every {by}'s score is in "
                     "the JSON output.")
    if d["ranking_flips"]:
        tops = d["top_by_condition"]
        if n <= MAX_LISTED:
            top_txt = "; ".join(f"{c}: {m}" for c, m in tops.items())
        else:
            counts: dict[str, int] = {}
            for m_ in tops.values():
                counts[m_] = counts.get(m_, 0) + 1
            top_txt = ", ".join(f"{m_} in {k} of {n}" for m_, k in sorted(counts.items(), key=lambda kv: -kv[1]))
        lines.append(f"The ranking flips with the {by}: {len(d['flips'])} pair(s) change order. "
                     f"#1 by {by}: {top_txt}.")
        for f in d["flips"][:8]:
            lines.append(f"  {f['a']} vs {f['b']}: {f['a']} ahead {_ahead(f['a_ahead'], n, by)}; "
                         f"{f['b']} ahead {_ahead(f['b_ahead'], n, by)} "
                         f"(stable gap {points(f['stable_gap'])} pts, largest reversal "
                         f"{points(f['largest_reversal'])} pts)")
        if len(d["flips"]) > 8:
            lines.append(f"  ... and {len(d['flips']) - 8} more")
    else:
        lines.append(f"The ranking is the same under every {by}.")
    for g in (g for g in d["gaps"] if g["within_spread"]):
        lines.append(f"gap {g['a']} - {g['b']} = {points(g['gap'])} pts is smaller than the {by} spread "
                     f"({points(g['spread_a'])} / {points(g['spread_b'])} pts): not a claimable gain")
    b = d["best_of_k_inflation"]
    if b["conditions"]["mean"] is not None:
        lines.append(f"Reporting the best of {b['conditions']['k']} {by}s instead of the mean adds "
                     f"{points(b['conditions']['mean'])} pts on average (column best - mean).")
    if b["seeds"]["mean"] is not None:
        lines.append(f"Reporting the best of {b['seeds']['k']} seeds per {by} adds "
                     f"{points(b['seeds']['mean'])} pts on average.")
    lines += [f"note: {note_text(n)}" for n in d["notes"]]
    return lines


def _p(row: dict[str, Any]) -> str:
    return p_value(row["p_value"] if "p_value" in row else row.get("pvalue"))


def _sensitivity_table(d: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    conds = d["conditions"]
    if len(conds) > MAX_LISTED:
        return _compact_table(d)
    head = ["model", "stable"] + conds + ["spread", "best+", "p"]
    rows = []
    for r in d["models"]:
        row = [r["model"], points(r["stable"])]
        for c in conds:
            v = r["conditions"].get(c)
            if v is None:
                row.append(points(None))
            elif v["ci_high"] is None or v["ci_low"] is None:
                row.append(points(v["score"]))
            else:
                row.append(f"{points(v['score'])} ±{points((v['ci_high'] - v['ci_low']) / 2)}")
        row += [points(r["spread"]), points(r["best_inflation"]), _p(r)]
        rows.append(row)
    return head, rows


def _compact_table(d: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """One row per model with its lowest and highest condition instead of one column per condition."""
    by = d["by"]
    head = ["model", "stable", f"lowest {by}", f"highest {by}", "spread", "best+", "p"]
    rows = []
    for r in d["models"]:
        got = [(v["score"], c) for c, v in (r["conditions"] or {}).items() if v and v.get("score") is not None]
        lo = min(got) if got else None
        hi = max(got) if got else None
        rows.append([r["model"], points(r["stable"]),
                     points(None) if lo is None else f"{points(lo[0])} ({lo[1]})",
                     points(None) if hi is None else f"{points(hi[0])} ({hi[1]})",
                     points(r["spread"]), points(r["best_inflation"]), _p(r)])
    return head, rows


@renderer("ranktrust.runs._sensitivity:Sensitivity", "text")
def sensitivity_text(d: dict[str, Any]) -> list[Any]:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    head, rows = _sensitivity_table(d)
    t = Table(title=f"Score by {d['by']} (points, ±{level(d['confidence_level'])} CI half-width over items)",
              title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for h in head:
        t.add_column(h, justify="left" if h == "model" else "right", no_wrap=True)
    for r in rows:
        t.add_row(*r)
    return [t] + [Text(s) for s in sensitivity_summary(d)]


@renderer("ranktrust.runs._sensitivity:Sensitivity", "md")
def sensitivity_markdown(d: dict[str, Any]) -> str:
    head, rows = _sensitivity_table(d)
    lines = [f"## Sensitivity by {_esc(d['by'])}", "", "| " + " | ".join(_esc(h) for h in head) + " |",
             "|" + "|".join(":--" if h == "model" else "--:" for h in head) + "|"]
    lines += ["| " + " | ".join(_esc(c) for c in r) + " |" for r in rows]
    lines += [""] + [f"- {_esc(s)}" if not s.startswith("  ") else f"  - {_esc(s.strip())}"
                     for s in sensitivity_summary(d)]
    return "\n".join(lines) + "\n"


@renderer("ranktrust.runs._sensitivity:Sensitivity", "csv")
def sensitivity_csv(d: dict[str, Any]) -> str:
    rows = []
    for r in d["models"]:
        for c in d["conditions"]:
            v = (r["conditions"] or {}).get(c) or {}
            rows.append([r["model"], c, v.get("score"), v.get("ci_low"), v.get("ci_high"), r["stable"], r["spread"]])
    return table_csv(["model", d["by"], "score", "ci_low", "ci_high", "stable", "spread"], rows)


# ---- the results of one step of a repeats analysis ------------------------------------------------------
# (pass@k alone, runs needed, the run-until-enough trace, variance components): a table and a sentence each,
# drawn by table_text / table_markdown; their columns are those of the repeats table where the content is the same
def table_text(title: str, head: list[str], rows: list[list[str]], lines: list[str]) -> list[Any]:
    """A titled table (the first column left, the others right) and sentences under it, for the terminal."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for k, h in enumerate(head):
        if k == 0:
            t.add_column(h, justify="left", overflow="fold")
        else:
            t.add_column(h, justify="right", no_wrap=True)
    for r in rows:
        t.add_row(*r)
    return [t, *(Text(s) for s in lines)]


def table_markdown(title: str, head: list[str], rows: list[list[str]], lines: list[str]) -> str:
    """The same table and sentences as Markdown."""
    out = [f"## {_esc(title)}", "", "| " + " | ".join(_esc(h) for h in head) + " |",
           "|" + "|".join(":--" if k == 0 else "--:" for k in range(len(head))) + "|"]
    out += ["| " + " | ".join(_esc(c) for c in r) + " |" for r in rows]
    out += [""] + [_esc(s) for s in lines] if lines else []
    return "\n".join(out) + "\n"


def _registered(name: str, parts: Any) -> None:
    """Register the text and Markdown renderers of ``name`` drawn from ``parts(d) -> (title, head, rows, lines)``."""
    renderer(name, "text")(lambda d: table_text(*parts(d)))
    renderer(name, "md")(lambda d: table_markdown(*parts(d)))


def _about_top(d: dict[str, Any], key: str, say: Any) -> str:
    """``say(row)`` of the model row with the highest ``key`` (one that has it), or that none has it."""
    got = [r for r in d["models"] if r.get(key) is not None]
    return say(max(got, key=lambda r: r[key])) if got else f"No model has a {key}."


@renderer("ranktrust.runs._passk:PassAtK", "headline")
def pass_at_k_headline(d: dict[str, Any]) -> str:
    ks = list(d["models"][0]["pass_at"]) if d["models"] else []
    if not ks:
        return "No pass@k to show."
    k = ks[0]
    best = max(d["models"], key=lambda r: r["pass_at"][k]["estimate"] if r["pass_at"][k]["estimate"] is not None
               else -1.0)
    p = best["pass_at"][k]
    return (f"{best['model']} has the highest pass@{k}: {points(p['estimate'])} ({level(d['confidence_level'])} CI "
            f"{interval(p['ci_low'], p['ci_high'])}), of {len(d['models'])} models.")


def _pass_at_k_parts(d: dict[str, Any]) -> tuple[str, list[str], list[list[str]], list[str]]:
    ks = list(d["models"][0]["pass_at"]) if d["models"] else []
    head = ["model"] + [f"pass@{k} ({level(d['confidence_level'])} CI)" for k in ks]
    rows = [[r["model"]] + [f"{points(r['pass_at'][k]['estimate'])} "
                            f"{interval(r['pass_at'][k]['ci_low'], r['pass_at'][k]['ci_high'])}" for k in ks]
            for r in d["models"]]
    return ("pass@k", head, rows, [pass_at_k_headline(d), "pass@k: unbiased estimator, mean over items; items are "
                                   "the sampling unit."])


@renderer("ranktrust.runs._protocol:ChooseN", "headline")
def choose_n_headline(d: dict[str, Any]) -> str:
    short = [r for r in d["models"] if not r["enough"]]
    margin = f"±{points(d['margin'])}-point margin at α = {1 - d['confidence_level']:g}"
    if not short:
        return f"The runs at hand suffice for a {margin} for every model."
    most = max(short, key=lambda r: r["more"] or 0)
    return (f"{len(short)} of {plural(len(d['models']), 'model')} need more runs for a {margin}; "
            f"{most['model']} needs {most['more']} more ({most['n_required']} in all).")


def _choose_n_parts(d: dict[str, Any]) -> tuple[str, list[str], list[list[str]], list[str]]:
    rows = [[r["model"], str(r["runs"]), points(r["run_sd"]), str(r["n_required"]),
             "ok" if r["enough"] else f"+{r['more']}"] for r in d["models"]]
    return ("Runs needed", ["model", "runs", "run sd", "N req", "more"], rows,
            [choose_n_headline(d), "N = ⌈(z·s/ε)²⌉ with s the sd of run scores (the run-to-run noise only)."])


@renderer("ranktrust.runs._protocol:RunUntilEnough", "headline")
def run_until_enough_headline(d: dict[str, Any]) -> str:
    why = ("every model's margin was reached" if d["stopped"] == "rule" else "the run budget ran out first")
    return (f"Stopped after {plural(d['runs'], 'run')}: {why} (±{points(d['margin'])} points at "
            f"α = {1 - d['confidence_level']:g}).")


def _run_until_enough_parts(d: dict[str, Any]) -> tuple[str, list[str], list[list[str]], list[str]]:
    rows = [[r["model"], points(r["score"]), points(r["run_sd"]), points(None) if r["n_required"] is None
             else f"{r['n_required']:g}"] for r in d["models"]]
    trace = "; ".join(f"{t['runs']} runs" for t in d["trace"])
    return ("Run until enough", ["model", "score", "run sd", "N req"], rows,
            [run_until_enough_headline(d), f"Checked at {trace}."])


@renderer("ranktrust.runs._variance:VarianceComponents", "headline")
def variance_headline(d: dict[str, Any]) -> str:
    return _about_top(d, "se", lambda top: f"{top['model']} has the widest uncertainty (SE {points(top['se'])} "
                      "points); " + tradeoff_sentence(top).split(": ", 1)[-1] + ".")


def _variance_parts(d: dict[str, Any]) -> tuple[str, list[str], list[list[str]], list[str]]:
    rows = [[r["model"], f"{r['n_items']:,}", number(r["runs"]), points(r["se"]), number(r["between_item_var"]),
             number(r["within_item_var"])] for r in d["models"]]
    return ("Variance components", ["model", "items", "runs", "se (pts)", "var_b", "var_w"], rows,
            ["var_b: between-item variance of item means; var_w: mean within-item variance over runs.",
             "What more data buys:", *("  " + tradeoff_sentence(r) for r in d["models"]),
             *(f"note: {note_text(n)}" for n in d.get("notes") or [])])


_registered("ranktrust.runs._passk:PassAtK", _pass_at_k_parts)
_registered("ranktrust.runs._protocol:ChooseN", _choose_n_parts)
_registered("ranktrust.runs._protocol:RunUntilEnough", _run_until_enough_parts)
_registered("ranktrust.runs._variance:VarianceComponents", _variance_parts)


@renderer("ranktrust.runs:Repeats", "headline")
def repeats_headline(d: dict[str, Any]) -> str:
    return _about_top(d, "score", lambda top: (
        f"{top['model']} scores highest over its {plural(top['runs'], 'run')}: {points(top['score'])} "
        f"({level(d['confidence_level'])} CI {interval(top['ci_low'], top['ci_high'])}, run-to-run noise included)."))


@renderer("ranktrust.runs._sensitivity:Sensitivity", "headline")
def sensitivity_headline(d: dict[str, Any]) -> str:
    by = d["by"]
    if d["ranking_flips"]:
        n = len(d["flips"])
        return f"The ranking flips with the {by}: {plural(n, 'pair')} change{'s' if n == 1 else ''} order."
    return f"The ranking is the same under every {by} ({len(d['conditions'])} {by}s)."
