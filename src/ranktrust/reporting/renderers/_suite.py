"""Renderers of the suite ranking (:func:`ranktrust.suite`, ``SuiteResult``): the headline, the leaderboard with
both scopes, the rules side by side, what drives each adjacent gap, in text, Markdown, HTML (with a task x model
heat map shaded by task score, rows grouped by tier) and CSV (one row per model).

The payload is ``SuiteResult.to_dict()`` with the headline's sentence in ``headline["text"]`` and each note's
sentence in its ``"text"``.
"""

from __future__ import annotations

import html as _html
from typing import Any

from .. import _fmt as fmt
from .._markdown import md_escape as _esc
from . import renderer

RULE_WORDS = {"mean": "mean of task scores", "mean-win-rate": "mean win rate (HELM)", "mean-rank": "mean rank",
              "borda": "Borda count", "copeland": "Copeland score"}
_MISSING_WORDS = {
    "error": "refused; every model has every task",
    "drop-model": "models lacking a task dropped",
    "drop-task": "tasks lacking a model dropped",
    "pairwise": "each model over its own tasks",
}


def _is_mean(d: dict[str, Any]) -> bool:
    return d["settings"]["rule"] == "mean"


def value(d: dict[str, Any], x: Any, signed: bool = False) -> str:
    """A score or difference in the rule's units: points for the mean, else plain numbers."""
    if _is_mean(d):
        return fmt.points(x, signed)
    s = fmt.number(x, 3 if d["settings"]["rule"] == "mean-win-rate" else 2)
    return ("+" + s) if signed and fmt._finite(x) and x > 0 else s


def _iv(d: dict[str, Any], lo: Any, hi: Any, signed: bool = False) -> str:
    if lo is None or hi is None:
        return fmt.MISSING
    return f"[{value(d, lo, signed)}, {value(d, hi, signed)}]"


def _names(models: list[str], k: int = 4) -> str:
    return ", ".join(models[:k]) + (f" and {len(models) - k} more" if len(models) > k else "")


@renderer("ranktrust.ranking._suite:SuiteResult", "headline")
def headline_text(d: dict[str, Any]) -> str:
    """The suite's headline sentence, from the headline's numbers only."""
    h, s = d["headline"], d["settings"]
    cl = fmt.level(s["confidence_level"])
    rule = RULE_WORDS[s["rule"]]
    top, second = h["top"], h.get("runner_up")
    if second is None:
        return f"{top} is the only model: there is nothing to compare."
    fam, find = ((f"max-t step-down over all {fmt.count(s['n_pairs'])} pairs", "finds") if s["rule"] == "mean" else
                 ("bounds from the orderings that hold on every task", "find"))
    units = " points" if _is_mean(d) else ""
    p = f"; {fmt.p_clause(h['p_adjusted'], 'adjusted p')}" if h.get("p_adjusted") is not None else ""
    how = "simultaneous CI" if s["rule"] == "mean" else "bounds"
    lead = (f"its lead over {second} is {value(d, h['diff'])}{units} ({cl} {how} "
            f"{value(d, h['ci_low'], True)} to {value(d, h['ci_high'], True)}{p})")
    cbf = h.get("could_be_first") or []
    if h.get("separable"):
        out = (f"Yes: {top} is #1 on {_these(s['n_tasks'])} by the {rule} with {cl} joint confidence: "
               f"the {fam} {find} it better than every other model; {lead}.")
    elif len(cbf) > 1:
        out = (f"No: {len(cbf)} models could be #1 on {_these(s['n_tasks'])} by the {rule} with {cl} "
               f"joint confidence ({_names(cbf)}); {top} has the highest and {lead}.")
    else:
        rr = fmt.rank_range(h["rank_low"], h["rank_high"])
        out = (f"No: {top} is the only model that could be #1, but the {fam} "
               f"{'does' if find == 'finds' else 'do'} not find it better than every "
               f"other model (joint rank range {rr}); {lead}.")
    if h.get("winner_depends_on_rule"):
        clause = _rules_clause(d)
        out += " The winner depends on the rule: " + clause + "." if clause.startswith("the top") else \
            " " + clause[0].upper() + clause[1:] + "."
    return out


def _these(k: int) -> str:
    return "this task" if k == 1 else f"these {fmt.count(k)} tasks"


def _rules_clause(d: dict[str, Any]) -> str:
    """'the top model is A by the mean, B by the mean win rate (HELM) and the Borda count' when the rules' top
    models differ; else who could be #1 by each rule, grouped."""
    by_top: dict[str, list[str]] = {}
    for r in d["rules"]:
        by_top.setdefault(r["top"], []).append(RULE_WORDS[r["rule"]])
    if len(by_top) > 1:
        return "the top model is " + "; ".join(f"{top} by the {_and(rules)}" for top, rules in by_top.items())
    top = next(iter(by_top))
    by_set: dict[tuple[str, ...], list[str]] = {}
    for r in d["rules"]:
        if r["resampled"]:
            by_set.setdefault(tuple(r["could_be_first"]), []).append(RULE_WORDS[r["rule"]])
    return (f"every rule puts {top} on top, but who could be #1 differs: "
            + "; ".join(f"{_names(list(ms))} by the {_and(rules)}" for ms, rules in by_set.items()))


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def scope_lines(d: dict[str, Any]) -> list[str]:
    """The two scopes, named, with their levels; the missing-cell policy; the normalisation."""
    s, nt = d["settings"], d["new_task"]
    cl = fmt.level(s["confidence_level"])
    clustered = [t["task"] for t in d["tasks"] if t["clustered"]]
    unit = "item groups" if clustered and len(clustered) == len(d["tasks"]) else "items"
    a = (f"Scope (a), these tasks: {unit} redrawn within each task, the same draw for every model "
         f"({fmt.count(s['n_resamples'])} resamples); ")
    if s["rule"] == "mean":
        a += (f"rank sets, tiers and separations from one max-t step-down over all {fmt.count(s['n_pairs'])} pairs "
              f"at {cl} joint confidence; score intervals are {cl} marginal percentile intervals; pair intervals are "
              "simultaneous.")
    else:
        a += (f"one max-t over every task and pair gives the task orderings that hold together at {cl}; they bound "
              "each model's aggregate, and a model is found better only when its lower bound clears the other's "
              "upper bound (score and pair intervals are these bounds; no p-values).")
    if clustered and len(clustered) < len(d["tasks"]):
        a += f" Clustered tasks: {', '.join(clustered)}."
    k, kmin = nt["n_tasks"], nt["min_tasks"]
    most = (f"the most {fmt.plural(k, 'task')} allow{'s' if k == 1 else ''} is {k}/{k + 1} = "
            f"{fmt.probability(nt['attainable'])}" if kmin == k
            else f"a model with {fmt.count(kmin)} of the tasks allows at most {kmin}/{kmin + 1} = "
                 f"{fmt.probability(nt['attainable'])}")
    b = (f"Scope (b), a new task from the same population: each model's rank on a new task, full conformal over "
         f"{'the ' if k > 1 else ''}{fmt.plural(k, 'task')} at {fmt.probability(nt['level'])} ({most}; "
         "ties between ranks broken at random, "
         "seeded, so the coverage is the level).")
    if nt.get("coverage") is not None:
        b += (f" Held-out coverage measured on the data: leaving each task out, the sets from the other tasks "
              f"(at {fmt.probability(nt['coverage_level'])}) held the left-out task's rank "
              f"{fmt.probability(nt['coverage'])} of the time ({fmt.count(nt['n_checked'])} checks).")
    miss = f"Missing cells: {s['missing']} ({_MISSING_WORDS[s['missing']]})."
    out = [a, b, miss]
    if s.get("normalise"):
        out.append("Task scores normalised above each task's chance level, max(0, (x - chance) / (1 - chance)), "
                   "as the Open LLM Leaderboard did.")
    return out


def _note_lines(d: dict[str, Any]) -> list[str]:
    from .._notes import note_text

    return [n["text"] if isinstance(n, dict) and "text" in n else note_text(n) for n in d.get("notes") or []]


def _model_cells(d: dict[str, Any], r: dict[str, Any]) -> list[str]:
    new = (fmt.rank_range(r["new_task_rank_low"], r["new_task_rank_high"])
           if r["new_task_rank_low"] is not None else fmt.MISSING)
    return [str(r["rank"]), r["model"], value(d, r["score"]), _iv(d, r["ci_low"], r["ci_high"]),
            fmt.rank_range(r["rank_low"], r["rank_high"]), str(r["tier"]), new]


def _model_columns(d: dict[str, Any]) -> list[str]:
    unit = " (points)" if _is_mean(d) else ""
    return ["#", "model", f"{d['settings']['rule']}{unit}", "CI", "rank set (a)", "tier", "new-task rank (b)"]


def _adjacent(d: dict[str, Any]) -> list[dict[str, Any]]:
    """The adjacent pairs in display order, from the all-pairs rows."""
    rows = {(p["a"], p["b"]): p for p in d["pairs"]}
    ms = [r["model"] for r in d["models"]]
    return [rows[(a, b)] for a, b in zip(ms, ms[1:]) if (a, b) in rows]


def _drivers(d: dict[str, Any], c: dict[str, Any], k: int = 3) -> str:
    """The tasks that contribute most to an adjacent gap: 'math +1.20, law +0.80, ...'."""
    tasks = [t["task"] for t in d["tasks"]]
    parts = [(t, v) for t, v in zip(tasks, c["by_task"]) if v is not None]
    parts.sort(key=lambda tv: -abs(tv[1]))
    return ", ".join(f"{t} {value(d, v, True)}" for t, v in parts[:k])


@renderer("ranktrust.ranking._suite:SuiteResult", "text")
def suite_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    out: list[Any] = [Text(d["headline"].get("text") or headline_text(d), style="bold")]
    t = Table(title=f"Suite: {fmt.plural(d['settings']['n_models'], 'model')}, "
                    f"{fmt.plural(d['settings']['n_tasks'], 'task')}, rule {d['settings']['rule']}",
              title_justify="left")
    for c in _model_columns(d):
        t.add_column(c, justify="left" if c == "model" else "right", no_wrap=c != "model")
    for r in d["models"]:
        t.add_row(*_model_cells(d, r))
    out.append(t)
    out += _rules_text(d)
    adj = _adjacent(d)
    if adj:
        p = Table(title="Adjacent pairs (what drives each gap)", title_justify="left")
        for c in ("pair", "difference [simultaneous CI]", "adjusted p", "separated", "largest task contributions"):
            p.add_column(c, justify="left" if c in ("pair", "largest task contributions") else "right")
        contrib = {(c["a"], c["b"]): c for c in d["contributions"]}
        for a in adj:
            c = contrib.get((a["a"], a["b"]))
            p.add_row(f"{a['a']} > {a['b']}", f"{value(d, a['diff'], True)} {_iv(d, a['ci_low'], a['ci_high'], True)}",
                      fmt.p_value(a["p_adjusted"]), "yes" if a["separated"] else "no",
                      _drivers(d, c) if c else "")
        out.append(p)
    out += [Text(x) for x in scope_lines(d)]
    out += [Text("note: " + n) for n in _note_lines(d)]
    return out


def _rules_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table

    r = Table(title="Every rule side by side: possible winners (scope a)", title_justify="left")
    for c in ("rule", "top", "could be #1"):
        r.add_column(c, justify="left")
    for row in d["rules"]:
        r.add_row(RULE_WORDS[row["rule"]], row["top"],
                  ", ".join(row["could_be_first"]) if row["resampled"] else "(top only: too many models)")
    from rich.text import Text

    verdict = ("The winner depends on the rule." if d["winner_depends_on_rule"]
               else "Every rule gives the same possible winners.")
    return [r, Text(verdict)]


@renderer("ranktrust.ranking._suite:SuiteResult", "md")
def suite_markdown(d: dict[str, Any]) -> str:
    lines = [f"**{_esc(d['headline'].get('text') or headline_text(d))}**", ""]
    cols = _model_columns(d)
    lines += ["| " + " | ".join(cols) + " |", "|" + "|".join("---" if c == "model" else "--:" for c in cols) + "|"]
    for r in d["models"]:
        cells = _model_cells(d, r)
        cells[1] = _esc(cells[1])
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "### Every rule side by side (possible winners, scope a)", "", "| rule | top | could be #1 |",
              "|---|---|---|"]
    for row in d["rules"]:
        lines.append(f"| {RULE_WORDS[row['rule']]} | {_esc(row['top'])} | "
                     + (_esc(", ".join(row["could_be_first"])) if row["resampled"]
                        else "(top only: too many models)") + " |")
    lines += ["", "The winner depends on the rule." if d["winner_depends_on_rule"]
              else "Every rule gives the same possible winners."]
    adj = _adjacent(d)
    if adj:
        contrib = {(c["a"], c["b"]): c for c in d["contributions"]}
        lines += ["", "### Adjacent pairs (what drives each gap)", "",
                  "| pair | difference [simultaneous CI] | adjusted p | separated | largest task contributions |",
                  "|---|--:|--:|--:|---|"]
        for a in adj:
            c = contrib.get((a["a"], a["b"]))
            lines.append(f"| {_esc(a['a'])} > {_esc(a['b'])} | {value(d, a['diff'], True)} "
                         f"{_iv(d, a['ci_low'], a['ci_high'], True)} | {fmt.p_value(a['p_adjusted'])} | "
                         f"{'yes' if a['separated'] else 'no'} | {_esc(_drivers(d, c)) if c else ''} |")
    lines += [""] + [_esc(x) + "\n" for x in scope_lines(d)]
    notes = _note_lines(d)
    if notes:
        lines += ["### Notes", ""] + [f"- {_esc(n)}" for n in notes]
    return "\n".join(lines) + "\n"


def _shade(x: Any, lo: float, hi: float) -> str:
    if x is None:
        return "background:#eee"
    f = 0.0 if hi <= lo else (x - lo) / (hi - lo)
    light = int(95 - 45 * max(0.0, min(1.0, f)))
    return f"background:hsl(210,70%,{light}%);color:{'#fff' if light < 65 else '#000'}"


@renderer("ranktrust.ranking._suite:SuiteResult", "html")
def suite_html(d: dict[str, Any], meta: dict[str, Any] | None = None) -> str:
    """One page: the Markdown body, then the task x model heat map (rows in display order, grouped by tier)."""
    from .._html import markdown_page

    e = _html.escape
    tasks = [t["task"] for t in d["tasks"]]
    vals = [v for r in d["models"] for v in r["task_scores"] if v is not None]
    lo, hi = (min(vals), max(vals)) if vals else (0.0, 1.0)
    head = "".join(f"<th>{e(t)}</th>" for t in tasks)
    rows = []
    last = None
    for r in d["models"]:
        if r["tier"] != last:
            rows.append(f'<tr class="tier"><th colspan="{len(tasks) + 3}">tier {r["tier"]}</th></tr>')
            last = r["tier"]
        cells = "".join(f'<td style="{_shade(v, lo, hi)}">{fmt.points(v) if v is not None else "–"}</td>'
                        for v in r["task_scores"])
        rows.append(f"<tr><td>{r['rank']}</td><th>{e(r['model'])}</th><td>{e(value(d, r['score']))}</td>{cells}</tr>")
    heat = ('<h3>Task × model heat map (task scores in points; rows grouped by tier)</h3>'
            '<table class="heat"><thead><tr><th>#</th><th>model</th><th>' + e(d["settings"]["rule"]) + "</th>"
            + head + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")
    md = suite_markdown(d)
    if meta:
        md += f"\n<sub>ranktrust {meta.get('version', '')} · seed {meta.get('seed')}</sub>\n"
    page = markdown_page(md, title="Suite ranking", payload=d, meta=meta)
    style = ("<style>table.heat td{text-align:right;font-size:13px;padding:2px 6px}"
             "table.heat tr.tier th{background:#e8e8e8;text-align:left}</style>")
    return page.replace("</head>", style + "</head>", 1).replace("<body>", "<body>", 1).replace(
        "</body></html>", heat + "</body></html>", 1)


#: one row per model, full precision, in display order (after the rule and the missing-cell policy)
CSV_COLUMNS = ("rank", "model", "score", "ci_low", "ci_high", "rank_low", "rank_high", "tier", "new_task_rank_low",
               "new_task_rank_high")


@renderer("ranktrust.ranking._suite:SuiteResult", "csv")
def suite_csv(d: dict[str, Any]) -> str:
    from ._csv import table_csv

    tasks = [t["task"] for t in d["tasks"]]
    cols = ["rule", "missing"] + list(CSV_COLUMNS) + [f"task:{t}" for t in tasks]
    head = [d["settings"]["rule"], d["settings"]["missing"]]     # the same on every row, as the gate's verdict
    return table_csv(cols, [head + [r[c] for c in CSV_COLUMNS] + list(r["task_scores"]) for r in d["models"]])
