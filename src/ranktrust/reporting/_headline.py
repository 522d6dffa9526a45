"""The leaderboard headline in words: "Is #1 really #1?".

:class:`~ranktrust.leaderboard.LeaderboardReport` computes the verdict as numbers
(``report.headline``: top, runner-up, separable, the lead's paired test, rank range, who could
be #1); this module composes the sentence from those numbers only, so words and numbers cannot
disagree. :func:`report_dict` is the report's JSON with the sentence in ``headline["text"]`` and each
note's sentence in its ``"text"`` (:mod:`.notes`): every renderer (text, Markdown, HTML, JSON) starts from it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["headline_text", "headline_sentence", "report_dict"]


def report_dict(report: Any, **kw: Any) -> dict[str, Any]:
    """``report.to_dict(**kw)`` (which has the sentences already), or a copy of a report dict with the headline
    sentence in ``["headline"]["text"]`` and each note's sentence in its ``"text"`` (the report's notes and those
    of its data-quality, repeats and sensitivity sections)."""
    from ._notes import worded_payload

    if hasattr(report, "to_dict"):
        return report.to_dict(**kw)
    return worded_payload(report, headline_sentence)


def headline_sentence(d: dict[str, Any]) -> str:
    """The headline sentence of a report dict (its ``"text"`` when it has one)."""
    h = d.get("headline") or {}
    if h.get("text"):
        return str(h["text"])
    s = d.get("settings") or {}
    return headline_text(h, s.get("confidence_level", 0.95), adjust=s.get("adjust", "holm"),
                         n_pairs=s.get("n_pairs"))


#: the units a headline's difference is shown in: a score path's fractions ×100 as "points" (:func:`._fmt.points`),
#: or ratings on the Elo scale (:func:`._fmt.rating`)
UNITS = ("points", "Elo")


def _adjusted(p_adj: Any, p: Any, p_floor: float | None) -> str:
    """'adjusted p = 0.012'; 'adjusted p < 0.005' where the adjusted p is the draws' floor ``p_floor`` (1/(B+1):
    no draw reached the statistic) above a smaller p: the floor is a bound, never the value."""
    from ._fmt import at_floor, p_clause, p_value

    v = p_value(p_adj)
    return (f"adjusted p < {v}" if at_floor(p_adj, p, p_floor) and not v.startswith("<")
            else p_clause(p_adj, "adjusted p"))


def _elo_gap(h: dict[str, Any], cl: str, p_floor: float | None) -> str:
    """The lead of a rating board (the stepdown over all pairs: the claim and its adjusted p come together)."""
    from ._fmt import rating

    gap = (f"{h['top']} leads {h['runner_up']} by {rating(h['diff'])} Elo points (marginal {cl} CI "
           f"[{rating(h['ci_low'], True)}, {rating(h['ci_high'], True)}])")
    adj = _adjusted(h.get("p_adjusted"), h.get("p_value"), p_floor)
    if h.get("separable"):
        return f"{gap}, {adj}"
    gap += f" but is not separated from it over all pairs ({adj})"
    if (h["ci_low"] or 0) > 0 or (h["ci_high"] or 0) < 0:   # the pair's own interval excludes 0, not the family
        gap += "; the marginal interval is for this pair alone"
    return gap


def _overlap(h: dict[str, Any]) -> str:
    """LMArena's overlap rule beside the joint answer, where it names another count of possible #1s."""
    from ._fmt import plural

    ov = h.get("overlap_could_be_first")
    if ov is None or len(ov) == len(h.get("could_be_first") or []):
        return ""
    return (f" The overlap rule would name {plural(len(ov), 'model')} as possible #1 "
            "(marginal intervals, not simultaneous).")


def headline_text(h: dict[str, Any], lvl: float, *, adjust: str = "holm", n_pairs: int | None = None,
                  unit: str = "points", p_floor: float | None = None) -> str:
    """The headline sentence, from the headline dict's numbers only (so words and numbers agree).

    ``unit`` is how the lead is shown: ``"points"`` (a score path: fractions ×100, the paired tests adjusted by
    ``adjust`` over ``n_pairs``) or ``"Elo"`` (a rating board: ratings on the Elo scale, the claims of a stepdown
    over all pairs, LMArena's overlap rule beside them where ``h`` has ``overlap_could_be_first``). ``p_floor``
    is the smallest adjusted p the draws can give (1/(B+1)): an adjusted p at it is said as a bound."""
    from ._fmt import ADJUST_NAMES, level, names, p_clause, points

    if unit not in UNITS:
        from ..errors import ArgumentError

        raise ArgumentError(f"`unit` must be one of {', '.join(UNITS)}; got {unit!r}", param="unit")
    top, second = h["top"], h.get("runner_up")
    cl = level(lvl)
    if second is None:
        return f"{top} is the only model: there is nothing to compare."
    cbf = h.get("could_be_first") or []
    if unit == "Elo":
        gap = _elo_gap(h, cl, p_floor)
        if h.get("separable"):
            s = f"Yes: {top} is #1 with {cl} joint confidence over all pairs: {gap}."
        elif len(cbf) > 1:
            s = f"No: {len(cbf)} models could be #1 with {cl} joint confidence ({names(cbf, 6)}); {gap}."
        else:
            s = f"No: {top} is the only model that could be #1, but {gap}."
        return s + _overlap(h)
    adj = ADJUST_NAMES.get(adjust, adjust)
    fam = f"{adj} over all {n_pairs:,} pairs" if n_pairs and n_pairs > 1 and adjust != "none" else adj
    lead = ""
    if h.get("diff") is not None:
        ci = ("no CI: too few shared items" if h.get("ci_low") is None
              else f"{cl} CI {points(h['ci_low'], signed=True)} to {points(h['ci_high'], signed=True)}, unadjusted")
        lead = (f"its lead over {second} is {points(h['diff'])} points ({ci}; exact paired test"
                if h.get("only_a") is not None else
                f"its lead over {second} is {points(h['diff'])} points ({ci}; paired test")
        lead += f" {p_clause(h.get('p_value'))}, {_adjusted(h.get('p_adjusted'), h.get('p_value'), p_floor)})"
    elif h.get("n_items") == 0:
        lead = f"it shares no item with {second}"
    rr = (f"joint rank range {h['rank_low']}–{h['rank_high']}" if h.get("rank_low") is not None
          and h["rank_low"] != h["rank_high"] else None)
    if h.get("condition_flips"):
        tops = h.get("top_by_condition") or {}
        flip = ", ".join(f"{mname} under {c}" for c, mname in tops.items())
        return f"No: #1 changes with the condition ({flip})" + (f"; {lead}" if lead else "") + "." + _overlap(h)
    if h.get("separable"):
        return (f"Yes: {top} is #1 with {cl} joint confidence: the paired tests ({fam}) find it better than "
                f"every other model; {lead}." + _overlap(h))
    if len(cbf) > 1:
        return (f"No: {len(cbf)} models could be #1 with {cl} joint confidence ({names(cbf)}); "
                f"{top} has the highest score" + (f" and {lead}" if lead else "") + "." + _overlap(h))
    # the only model that could be #1, yet not found better than every other model
    return (f"No: {top} is the only model that could be #1, but the paired tests ({fam}) do not find it better "
            f"than every other model" + (f" ({rr})" if rr else "") + (f"; {lead}" if lead else "") + "."
            + _overlap(h))
