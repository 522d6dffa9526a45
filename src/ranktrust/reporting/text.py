"""Terminal rendering (rich) of the leaderboard report's dict."""

from __future__ import annotations

from typing import Any

from .fmt import count as _count
from .fmt import gap_points
from .fmt import interval as _interval
from .fmt import level as _level
from .fmt import p_value as _p
from .fmt import percent as _percent
from .fmt import plural as _plural
from .sections import lead_phrase as _lead_phrase


def _pts(x: Any, signed: bool = False) -> str:
    from .fmt import points

    return points(x, 2, signed)


def _ci(lo: Any, hi: Any, signed: bool = False) -> str:
    """'[70.57, 78.23]', or 'n/a' when the interval is undefined (NaN in the result)."""
    return _interval(lo, hi, 2, signed)


def at_n_sentence(pw: dict[str, Any]) -> str:
    """'At n = 500 items the detectable gap is ...'; says so when no gap is detectable at that n."""
    at = pw["at_n"]
    n = _plural(at["n"], "item")
    g, q = at.get("detectable_gap"), pw.get("disagreement")
    if g is None:
        return f"At n = {n} the detectable gap is undefined."
    if g >= 1 or (q is not None and g > q and pw.get("binary", True)):
        return (f"At n = {n} no possible gap is detectable with "
                f"{_percent(pw.get('power', 0.8))} power (the formula asks for {_pts(g)} "
                f"points, more than two such models can differ by); a paired CI is ±{_pts(at['ci_half_width'])} "
                "points.")
    return (f"At n = {n} the detectable gap is {_pts(g)} points and a paired CI is "
            f"±{_pts(at['ci_half_width'])} points.")


def report_renderables(d: dict[str, Any]) -> list[Any]:
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    out: list[Any] = []
    from .headline import headline_sentence

    out.append(Panel(Text(headline_sentence(d)), title="Is #1 really #1?", expand=False))
    lvl = d["settings"]["confidence_level"]
    t = Table(title=f"{d['title']} — {_plural(d['n_models'], 'model')} × {_plural(d['n_items'], 'item')} "
                    f"({_level(lvl)} CI{', clustered by group' if d['settings'].get('clustered') else ''})")
    for c, j in (("#", "right"), ("model", "left"), ("score", "right"), ("CI", "right"),
                 ("items", "right"), ("tier", "right"), ("rank range", "right")):
        t.add_column(c, justify=j, overflow="fold")  # type: ignore[arg-type]
    for r in d["models"]:
        from .fmt import rank_range

        rr = rank_range(r.get("rank_low"), r.get("rank_high"))
        t.add_row(str(r["rank"]), r["model"], _pts(r["score"]), _ci(r["ci_low"], r["ci_high"]),
                  str(r["n_items"]), str(r.get("tier") or "-"), rr)
    out.append(t)
    from .fmt import provenance_lines

    for line in provenance_lines(d.get("provenance")):
        out.append(Text(f"read from {line}", style="dim"))
    if d["pairs"]:
        from .fmt import adjust_phrase

        pt = Table(title=f"{'Each model vs the next one down' if d['pairs_scope'] == 'adjacent' else 'All pairs'} "
                         f"(paired on shared items; p adj: {adjust_phrase(d['settings'])}; CI unadjusted)")
        for c in ("A", "B", "diff (pts)", "CI", "only A", "only B", "p", "p adj"):
            pt.add_column(c, justify="left" if c in ("A", "B") else "right", overflow="fold")
        alpha = 1 - lvl
        for p in d["pairs"][:200]:
            sig = p["p_adjusted"] is not None and p["p_adjusted"] < alpha
            style = "bold" if sig else None
            pt.add_row(p["a"], p["b"], _pts(p["diff"], True), _ci(p["ci_low"], p["ci_high"], True),
                       _count(p.get("only_a")), _count(p.get("only_b")), _p(p["p_value"]), _p(p["p_adjusted"]),
                       style=style)
        out.append(pt)
        if len(d["pairs"]) > 200:
            out.append(Text(f"... {len(d['pairs']) - 200} more pairs in the JSON output"))
    if d.get("tiers") and d["n_models"] >= 2:
        # the title on its own line: a narrow tier table would wrap it into a column of fragments
        from .fmt import tier_phrase

        out.append(Text(tier_phrase(d["tiers"]), style="italic"))
        tt = Table()
        tt.add_column("tier", justify="right")
        tt.add_column("models", overflow="fold")
        for row in d["tiers"]["tiers"]:
            tt.add_row(str(row["tier"]), ", ".join(row["models"]))
        out.append(tt)
    st = d.get("stability")
    if st:
        from .fmt import stability_title

        out.append(Text(stability_title(st), style="italic"))
        s = Table()
        s.add_column("items", justify="right")
        s.add_column("P(#1 is #1)", justify="right")
        for k in ("2", "3"):
            s.add_column(f"P(top {k} order kept)", justify="right")
        for row in st["by_size"]:
            po = row.get("p_topk_order", {})
            s.add_row(str(row["n"]), _percent(row["p_top_stays_top"]), *(_percent(po.get(k)) for k in ("2", "3")))
        out.append(s)
    sh = d.get("split_half")
    if sh:
        out.append(Text(
            f"Split-half: the winner of one half also wins the other {_percent(sh['p_same_winner'])} of the time; "
            + _lead_phrase(sh)))
    pw = d.get("power")
    if pw:
        out.append(Text(f"Questions needed to detect a gap (q = {pw['disagreement']:.2f}: "
                        f"{pw.get('q_meaning', 'disagreement')}, "
                        f"α = {pw['alpha']}, power = {_percent(pw['power'])})", style="italic"))
        p = Table()
        p.add_column("gap (pts)", justify="right")
        p.add_column("items needed", justify="right")
        for row in pw["table"]:
            p.add_row(gap_points(row["gap"]), _count(row["items_needed"]))
        out.append(p)
        out.append(Text(at_n_sentence({**pw, "binary": d.get("binary", True)})))
    from .sections import SECTIONS

    for key, title, fn in SECTIONS:
        if d.get(key):
            out.append(Text(title, style="bold"))
            out.extend(Text(line) for line in fn(d[key]))
    for n in d.get("notes", []):
        out.append(Text(f"note: {n}", style="yellow"))
    return out
