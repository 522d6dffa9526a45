"""Plain-text lines for the optional report sections (repeats, sensitivity, micro-benchmark).

Shared by the terminal and Markdown renderers; the HTML report renders the same dicts itself.
"""

from __future__ import annotations

from typing import Any

from .fmt import interval as _interval
from .fmt import p_value as _p
from .fmt import points as _pts
from .fmt import share as _share


def repeats_lines(r: dict[str, Any]) -> list[str]:
    out = ["Runs per item: stable scores (mean over runs), CI over items including run noise."]
    for row in r.get("models", []):
        t = row.get("tradeoff") or {}
        line = (f"{row['model']}: {_pts(row['score'])} {_interval(row['ci_low'], row['ci_high'])} over "
                f"{row['runs']} runs; run-to-run sd {_pts(row.get('run_sd'))} pts")
        if t and t.get("runs_shrink") is not None and t.get("items_shrink") is not None:
            line += (f"; {t['more_runs']} more runs shrink the CI by {_share(t['runs_shrink'])}, "
                     f"{t['more_items']} more items by {_share(t['items_shrink'])}")
        elif t:
            line += "; not enough spread to project what more runs or items would buy"
        out.append(line)
    return out


def sensitivity_lines(s: dict[str, Any]) -> list[str]:
    out = [f"Sensitivity to {s.get('by', 'condition')} ({', '.join(map(str, s.get('conditions', [])))}):"]
    for row in s.get("models", []):
        out.append(f"{row['model']}: stable {_pts(row.get('stable'))}, spread {_pts(row.get('spread'))} pts across "
                   f"conditions (test of no condition effect: p = {_p(row['p_value'])})"
                   if row.get("p_value") is not None else
                   f"{row['model']}: stable {_pts(row.get('stable'))}, spread {_pts(row.get('spread'))} pts")
    if s.get("ranking_flips"):
        tops = s.get("top_by_condition") or {}
        out.append("The ranking flips with the condition: #1 is " + ", ".join(f"{m} under {c}" for c, m in tops.items())
                   + " (the sensitivity analysis lists the flips and their p-values)")
    flagged = [g for g in s.get("gaps", []) if g.get("within_spread")]
    for g in flagged:
        out.append(f"gap {g['a']} - {g['b']} = {_pts(g['gap'])} pts is smaller than the condition spread "
                   f"({_pts(g['spread_a'])} / {_pts(g['spread_b'])} pts): not a claimable difference")
    inf = (s.get("best_of_k_inflation") or {}).get("conditions")
    if inf:
        out.append(f"Reporting the best of {inf['k']} conditions instead of the mean adds {_pts(inf['mean'])} pts on average.")
    return out


def microbench_lines(mb: dict[str, Any]) -> list[str]:
    out = ["Micro-benchmarks (MDAD: smallest gap that subsets order like the full benchmark 80% of the time):"]
    for row in mb.get("mdad", []):
        md = "not reached" if row.get("mdad") is None else f"{_pts(row['mdad'])} pts"
        tau = row.get("kendall_tau")
        out.append(f"{row['method']} @ {row['size']} items: MDAD {md}, "
                   f"Kendall tau {'n/a' if tau is None else format(tau, '.2f')}, "
                   f"mean abs error {_pts(row.get('mean_abs_error'))} pts")
    if mb.get("recommendation"):
        from .renderers.subsets import recommendation_sentences

        out += recommendation_sentences(mb["recommendation"])
    return out


SECTIONS = (("repeats", "Repeats", repeats_lines), ("sensitivity", "Conditions", sensitivity_lines),
            ("microbench", "Micro-benchmarks", microbench_lines))


def lead_phrase(sh: dict[str, Any]) -> str:
    """The winner's-curse sentence of the split-half check."""
    a, b = sh.get("lead_selecting_half"), sh.get("lead_other_half")
    if a is None or b is None:
        return ""
    if b < 0:
        return (f"its lead of {_pts(a)} points in the half that picked it turns into a deficit of {_pts(-b)} points "
                "in the other half: the top models are too close for a half to pick a winner.")
    if a > 0 and b >= 0.9 * a:
        return f"its lead holds up: {_pts(a)} points in the half that picked it, {_pts(b)} in the other."
    return f"its lead shrinks from {_pts(a)} points in the half that picked it to {_pts(b)} in the other (the winner's curse)."
