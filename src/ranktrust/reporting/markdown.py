"""Markdown rendering of the leaderboard report's dict."""

from __future__ import annotations

from typing import Any

from .fmt import gap_points
from .fmt import level as _level
from .sections import lead_phrase as _lead_phrase
from .text import _ci, _count, _p, _percent, _plural, _pts, at_n_sentence

_MD_ESCAPES = str.maketrans({"\\": "\\\\", "|": "\\|", "*": "\\*", "`": "\\`", "<": "&lt;", ">": "&gt;",
                             "\r": " ", "\n": " "})


def md_escape(s: str) -> str:
    """A name as literal Markdown text (also inside a table cell): '|', '*', '`', '\\' escaped, '<' '>' as
    entities (so 'x<y>' is not read as an HTML tag), line breaks flattened."""
    return str(s).translate(_MD_ESCAPES)


_esc = md_escape   # the short name the reporting modules use


def report_markdown(d: dict[str, Any]) -> str:
    from .headline import headline_sentence

    lvl = d["settings"]["confidence_level"]
    lines = [f"# {_esc(d['title'])}", "", f"**Is #1 really #1?** {_esc(headline_sentence(d))}", "",
             f"{_plural(d['n_models'], 'model')} × {_plural(d['n_items'], 'item')}; {_level(lvl)} confidence intervals"
             + (", clustered by item group" if d["settings"].get("clustered") else "") + ".", "",
             "| # | model | score | CI | items | tier | rank range |", "|--:|:--|--:|--:|--:|--:|--:|"]
    for r in d["models"]:
        from .fmt import rank_range

        rr = rank_range(r.get("rank_low"), r.get("rank_high"))
        lines.append(f"| {r['rank']} | {_esc(r['model'])} | {_pts(r['score'])} | "
                     f"{_ci(r['ci_low'], r['ci_high'])} | {r['n_items']} | {r.get('tier') or '-'} | {rr} |")
    from .fmt import provenance_lines

    prov = provenance_lines(d.get("provenance"))
    if prov:
        lines += [""] + [f"Read from {_esc(x)}." for x in prov]
    if d["pairs"]:
        from .fmt import adjust_phrase

        lines += ["", f"## {'Each model vs the next one down' if d['pairs_scope'] == 'adjacent' else 'All pairs'}",
                  "", f"Paired on shared items; p adj: {adjust_phrase(d['settings'])}; the CI is unadjusted.", "",
                  "| A | B | diff (pts) | CI | only A | only B | p | p adj |", "|:--|:--|--:|--:|--:|--:|--:|--:|"]
        for p in d["pairs"]:
            lines.append(f"| {_esc(p['a'])} | {_esc(p['b'])} | {_pts(p['diff'], True)} | "
                         f"{_ci(p['ci_low'], p['ci_high'], True)} | {_count(p.get('only_a'))} | "
                         f"{_count(p.get('only_b'))} | {_p(p['p_value'])} | {_p(p['p_adjusted'])} |")
    if d.get("tiers") and d["n_models"] >= 2:
        from .fmt import tier_phrase

        lines += ["", "## Tiers", "", tier_phrase(d["tiers"]) + ".", ""]
        for row in d["tiers"]["tiers"]:
            lines.append(f"- **Tier {row['tier']}**: " + ", ".join(_esc(m) for m in row["models"]))
    st = d.get("stability")
    if st:
        from .fmt import stability_title

        lines += ["", "## #1 in resamples of these items", "", _esc(stability_title(st)) + ".", "",
                  "| items | P(#1 is #1) | P(top 2 order kept) | P(top 3 order kept) |", "|--:|--:|--:|--:|"]
        for row in st["by_size"]:
            po = row.get("p_topk_order", {})
            f = _percent
            lines.append(f"| {row['n']} | {f(row['p_top_stays_top'])} | {f(po.get('2'))} | {f(po.get('3'))} |")
    sh = d.get("split_half")
    if sh:
        lines += ["", f"Split-half: the winner of one half also wins the other {_percent(sh['p_same_winner'])} of the "
                      f"time; " + _lead_phrase(sh)]
    pw = d.get("power")
    if pw:
        lines += ["", f"## Questions needed (q = {pw['disagreement']:.2f}: {pw.get('q_meaning', 'disagreement')}; "
                  f"α = {pw['alpha']}, power {_percent(pw['power'])})",
                  "", "| gap (pts) | items needed |", "|--:|--:|"]
        for row in pw["table"]:
            lines.append(f"| {gap_points(row['gap'])} | {_count(row['items_needed'])} |")
        lines += ["", at_n_sentence({**pw, "binary": d.get("binary", True)})]
    from .sections import SECTIONS

    for key, title, fn in SECTIONS:
        if d.get(key):
            lines += ["", f"## {title}", ""] + [f"- {_esc(x)}" for x in fn(d[key])]
    if d.get("notes"):
        lines += ["", "## Notes", ""] + [f"- {_esc(n)}" for n in d["notes"]]
    return "\n".join(lines) + "\n"
