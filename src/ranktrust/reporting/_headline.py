"""The leaderboard headline in words: "Is #1 really #1?".

:class:`~ranktrust.leaderboard.LeaderboardReport` computes the verdict as numbers
(``report.headline``: top, runner-up, separable, the lead's paired test, rank range, who could
be #1); this module composes the sentence from those numbers only, so words and numbers cannot
disagree. :func:`report_dict` is the report's JSON with the sentence in ``headline["text"]`` and each
note's sentence in its ``"text"`` (:mod:`.notes`): every renderer (text, Markdown, HTML, JSON) starts from it.
"""

from __future__ import annotations

from typing import Any, Sequence

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


def _names(models: Sequence[str], k: int = 4) -> str:
    shown = ", ".join(models[:k])
    return shown + (f" and {len(models) - k} more" if len(models) > k else "")


def headline_text(h: dict[str, Any], lvl: float, *, adjust: str = "holm", n_pairs: int | None = None) -> str:
    """The headline sentence, from the headline dict's numbers only (so words and numbers agree)."""
    from ._fmt import ADJUST_NAMES, level, p_clause, points

    top, second = h["top"], h.get("runner_up")
    cl = level(lvl)
    if second is None:
        return f"{top} is the only model: there is nothing to compare."
    adj = ADJUST_NAMES.get(adjust, adjust)
    fam = f"{adj} over all {n_pairs:,} pairs" if n_pairs and n_pairs > 1 and adjust != "none" else adj
    lead = ""
    if h.get("diff") is not None:
        ci = ("no CI: too few shared items" if h.get("ci_low") is None
              else f"{cl} CI {points(h['ci_low'], signed=True)} to {points(h['ci_high'], signed=True)}, unadjusted")
        lead = (f"its lead over {second} is {points(h['diff'])} points ({ci}; exact paired test"
                if h.get("only_a") is not None else
                f"its lead over {second} is {points(h['diff'])} points ({ci}; paired test")
        lead += f" {p_clause(h.get('p_value'))}, {p_clause(h.get('p_adjusted'), 'adjusted p')})"
    elif h.get("n_items") == 0:
        lead = f"it shares no item with {second}"
    cbf = h.get("could_be_first") or []
    rr = (f"joint rank range {h['rank_low']}–{h['rank_high']}" if h.get("rank_low") is not None
          and h["rank_low"] != h["rank_high"] else None)
    if h.get("condition_flips"):
        tops = h.get("top_by_condition") or {}
        flip = ", ".join(f"{mname} under {c}" for c, mname in tops.items())
        return f"No: #1 changes with the condition ({flip})" + (f"; {lead}" if lead else "") + "."
    if h.get("separable"):
        return (f"Yes: {top} is #1 with {cl} joint confidence: the paired tests ({fam}) find it better than "
                f"every other model; {lead}.")
    if len(cbf) > 1:
        return (f"No: {len(cbf)} models could be #1 with {cl} joint confidence ({_names(cbf)}); "
                f"{top} has the highest score" + (f" and {lead}" if lead else "") + ".")
    # the only model that could be #1, yet not found better than every other model
    return (f"No: {top} is the only model that could be #1, but the paired tests ({fam}) do not find it better "
            f"than every other model" + (f" ({rr})" if rr else "") + (f"; {lead}" if lead else "") + ".")

