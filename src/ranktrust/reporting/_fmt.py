"""One formatting rule per kind of number, shared by the terminal, Markdown, HTML, the figures' tooltips,
the notebook and the headline.

The JSON keeps full precision; these functions only decide how a number is *shown*. The digits are chosen
here, once per kind (:data:`POINTS_DIGITS`, :data:`RATING_DIGITS`, :data:`SHARE_DIGITS`, :data:`PERCENT_DIGITS`),
never by the caller: the same number
prints as the same string in every format (74.40 in the terminal, in Markdown and in the HTML report).
"""

from __future__ import annotations

import math
from typing import Any

#: what every formatter prints for a number that is missing (None, NaN): one marker in every format
MISSING = "n/a"
#: decimals of a score, difference or interval bound in points (0.744 -> '74.40')
POINTS_DIGITS = 2
#: decimals of a rating on the Elo scale, a difference of two or an interval bound (1012.345 -> '1012.3')
RATING_DIGITS = 1
#: decimals of a resampling share or agreement shown as a percentage (0.5535 -> '55.4%')
SHARE_DIGITS = 1
#: decimals of a percentage (a power, the split-half shrinkage) and of its Monte Carlo SE (0.123 -> '12%')
PERCENT_DIGITS = 0


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def p_value(p: Any) -> str:
    """A p-value: '<0.0001', two significant digits below 0.01, three decimals above, '1' at 1."""
    if not _finite(p):
        return MISSING
    if p < 1e-4:
        return "<0.0001"
    if p < 0.01:
        return f"{p:.2g}"
    # 0.99999999 (floating point) would print as "1.000" next to an exact 1 printed as "1"
    return f"{p:.3f}" if p < 0.9995 else "1"


def points(x: Any, signed: bool = False) -> str:
    """A fraction as points with :data:`POINTS_DIGITS` decimals: 0.7183 -> '71.83'; signed: '+1.85'."""
    if not _finite(x):
        return MISSING
    return f"{100 * x:+.{POINTS_DIGITS}f}" if signed else f"{100 * x:.{POINTS_DIGITS}f}"


def rating(x: Any, signed: bool = False) -> str:
    """A rating on the Elo scale (or a difference of two) with :data:`RATING_DIGITS` decimals: 1012.345 ->
    '1012.3'; signed: '+12.3' ('-0.0' stays negative: the sign of a difference that rounds to zero is kept)."""
    if not _finite(x):
        return MISSING
    return f"{x:+.{RATING_DIGITS}f}" if signed else f"{x:.{RATING_DIGITS}f}"


def percent(x: Any) -> str:
    """A probability as a percentage with :data:`PERCENT_DIGITS` decimals: 0.5535 -> '55%'; never '-0%' (a
    shrinkage of -0.001 is '0%')."""
    return _percent(x, PERCENT_DIGITS)


def _percent(x: Any, nd: int) -> str:
    if not _finite(x):
        return MISSING
    out = f"{100 * x:.{nd}f}%"
    return out[1:] if out.startswith("-") and float(out[:-1]) == 0 else out


def percent_se(se: Any) -> str:
    """The Monte Carlo standard error of a percentage that :func:`percent` shows, in percentage points with
    its digits (:data:`PERCENT_DIGITS`): 0.034 -> '3' (the split-half shrinkage '-12% ±3'); 'n/a' when missing,
    never '0' (an SE that is not known is not zero)."""
    if not _finite(se):
        return MISSING
    return f"{100 * se:.{PERCENT_DIGITS}f}"


def share(x: Any) -> str:
    """A relative change as a percentage; one decimal below 10% so a small gain does not read as 0%."""
    if not _finite(x):
        return MISSING
    return f"{100 * x:.1f}%" if abs(x) < 0.1 else f"{100 * x:.0f}%"


def interval(lo: Any, hi: Any, signed: bool = False, *, sep: str = ", ", brackets: bool = True) -> str:
    """An interval in points: '[70.57, 78.23]' ('[+0.10, +2.30]' signed; '70.6–78.2' with sep='–',
    brackets=False); 'n/a' when either bound is missing (an undefined interval, never a zero-width one)."""
    if not (_finite(lo) and _finite(hi)):
        return MISSING
    body = f"{points(lo, signed)}{sep}{points(hi, signed)}"
    return f"[{body}]" if brackets else body


def probability(x: Any, se: Any = None) -> str:
    """A resampling share or agreement as a percentage with :data:`SHARE_DIGITS` decimals: 0.5535 -> '55.4%';
    with its Monte Carlo standard error ``se``: '55.4% ±1.1' (percentage points, the same digits)."""
    out = _percent(x, SHARE_DIGITS)
    if _finite(x) and _finite(se):
        out += f" ±{100 * se:.{SHARE_DIGITS}f}"
    return out


def plain(x: Any) -> str:
    """A setting as the user gave it: -4.0 -> '-4', 0.05 -> '0.05'."""
    return f"{x:g}" if _finite(x) else MISSING


def value(key: str, x: Any) -> str:
    """Any JSON value by its key, for generic tables (the notebook, HTML pages of other results): scores,
    differences and bounds (``score``, ``ci_low``, ``diff``, ...) in points, p-values as p-values, counts
    with separators, other numbers with three significant digits."""
    if isinstance(x, bool) or x is None:
        return MISSING if x is None else str(x)
    if isinstance(x, int):
        return count(x)
    if isinstance(x, float):
        if key in POINT_KEYS:
            return points(x)
        if key in P_KEYS:
            return p_value(x)
        if key in PERCENT_KEYS:
            return percent(x)
        if key in PERCENT_SE_KEYS:
            return percent_se(x)
        if not math.isfinite(x):
            return MISSING
        return f"{x:,.0f}" if x.is_integer() else significant(x)
    return str(x)


def reported(x: Any) -> str:
    """A value set beside another source's account of it (HELM's stats.json mean vs the mean of the instances
    read): six significant digits, so that two values that differ print differently: 0.5 -> '0.5',
    1/9 -> '0.111111'; 'n/a' when missing."""
    return f"{x:.6g}" if _finite(x) else MISSING


def significant(x: Any) -> str:
    """A statistic of any size with three significant digits (a variance estimate, a mean that is no score):
    -0.000123 -> '-0.000123', 0.66667 -> '0.667'; 'n/a' when missing."""
    return f"{x:.3g}" if _finite(x) else MISSING


#: JSON keys that hold a score, a difference or an interval bound (fractions shown in points)
POINT_KEYS = frozenset({"score", "ci_low", "ci_high", "diff", "estimate", "se", "stable", "spread", "gap",
                        "mdad", "mean_abs_error", "detectable_gap", "ci_half_width", "score_a", "score_b",
                        "lead_selecting_half", "lead_selecting_half_se", "lead_other_half", "lead_other_half_se"})
#: JSON keys that hold a p-value
P_KEYS = frozenset({"p_value", "p_adjusted"})
#: JSON keys that hold a percentage (:func:`percent`) and its Monte Carlo SE (:func:`percent_se`)
PERCENT_KEYS = frozenset({"shrinkage"})
PERCENT_SE_KEYS = frozenset({"shrinkage_se"})


def number(x: Any, nd: int = 3) -> str:
    """A plain statistic (a variance, Kendall's tau, q): fixed decimals, 'n/a' when missing."""
    return f"{x:.{nd}f}" if _finite(x) else MISSING


def count(n: Any) -> str:
    """A count with thousands separators: 10326 -> '10,326'."""
    return f"{n:,}" if isinstance(n, int) and not isinstance(n, bool) else (MISSING if n is None else str(n))


def plural(n: int, word: str, words: str | None = None) -> str:
    """'1 item', '10,326 items'."""
    return f"{n:,} " + (word if n == 1 else (words or word + "s"))


def names(models: Any, k: int = 4) -> str:
    """The first ``k`` names of a list and how many more: 'a, b, c, d and 3 more'."""
    models = list(models)
    return ", ".join(models[:k]) + (f" and {len(models) - k} more" if len(models) > k else "")


def gap_points(g: Any) -> str:
    """A planned gap in points, as the user typed it: 0.02 -> '2', 0.005 -> '0.5'."""
    return f"{g * 100:g}" if _finite(g) else MISSING


def rank_range(lo: Any, hi: Any) -> str:
    """A rank range: '3' when it is one rank, '2–4' otherwise, '–' when missing."""
    if lo is None or hi is None:
        return MISSING
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def dropped_sentence(d: dict) -> str:
    """'Only the 10,326 items every model has were used (3 models lost items).'"""
    n, dropped = d.get("n_items"), d.get("dropped") or {}
    lost = f"{len(dropped)} model{'' if len(dropped) == 1 else 's'} lost items"
    return (f"Only the {n:,} items every model has were used ({lost})." if n is not None else
            f"Only the items every model has were used ({lost}).")


def level(cl: float) -> str:
    """A confidence level: 0.95 -> '95%', 0.999 -> '99.9%'."""
    return f"{round(cl * 100, 6):g}%"


ADJUST_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini–Hochberg", "none": "no adjustment"}


def at_floor(p_adj: Any, p: Any, floor: Any) -> bool:
    """The adjusted p-value ``p_adj`` is the draws' floor 1/(B+1) (no draw reached the statistic) above a smaller
    p: then it is a bound ('<0.005'), never a value."""
    return (_finite(floor) and _finite(p_adj) and _finite(p) and abs(p_adj - floor) <= 1e-9 * floor
            and p < floor)


def adjusted_p(p_adj: Any, p: Any, floor: Any = None) -> str:
    """An adjusted p-value as a table shows it: '<0.0005' at the draws' floor (:func:`at_floor`), else
    :func:`p_value`."""
    v = p_value(p_adj)
    return "<" + v if at_floor(p_adj, p, floor) and not v.startswith("<") else v


def p_clause(p: Any, name: str = "p") -> str:
    """'p = 0.003' or 'p < 0.0001' (never 'p = <0.0001')."""
    v = p_value(p)
    return f"{name} < {v[1:]}" if v.startswith("<") else f"{name} = {v}"


def adjust_phrase(d: dict, family: str | None = None) -> str:
    """How a pair table's p-values are adjusted, over the family the table says (its ``adjust_family``):
    'Holm over all 406 pairs' (``"all"``: the report's, whose verdicts come from the same tests) or 'Holm over
    the 28 adjacent pairs' (``"adjacent"``: each model against the next one down only).

    ``d`` is a report's JSON (its ``settings``, ``adjust_family`` and ``n_models``) or a settings dict alone
    (then ``family`` or ``settings["adjust_family"]``, else ``"all"``)."""
    settings = d["settings"] if isinstance(d.get("settings"), dict) else d
    fam = family or d.get("adjust_family") or settings.get("adjust_family") or "all"
    adj = ADJUST_NAMES.get(settings.get("adjust") or "holm", settings.get("adjust"))
    if settings.get("adjust") == "none":
        return str(adj)
    if fam == "adjacent":
        m = d.get("n_models") or settings.get("n_models")
        if not m:
            return f"{adj} over the adjacent pairs"
        return f"{adj} over the {m - 1:,} adjacent pairs" if m > 2 else "one pair: nothing to adjust"
    n = settings.get("n_pairs")
    if not n:
        return str(adj)
    return f"{adj} over all {n:,} pairs" if n > 1 else "one pair: nothing to adjust"


def tier_phrase(tiers: dict) -> str:
    """What a tier means, for the method that made it."""
    if tiers.get("method") == "adjacent":
        return ("Tiers (adjacent tests; not transitive: a tier can hold models the tests separate — "
                "the rank ranges are the joint statement)")
    return ("Tiers: tier 1 = the models that could be #1; no two models in a tier are told apart, and each "
            "model in a tier is found worse than some model in the tier above")


def stability_title(st: dict) -> str:
    """The resampling figure, said as what it is."""
    n, draws, top = st.get("n_items"), st.get("n_resamples"), st.get("top_model")
    these = f"these {n:,} items" if isinstance(n, int) else "these items"
    bits = ([f"{draws:,} draws" if isinstance(draws, int) else None] + [f"#1 on these items: {top}" if top else None])
    bits = [b for b in bits if b]
    return (f"#1 in resamples of {these}, by benchmark size" + (f" ({'; '.join(bits)})" if bits else "")
            + ". Optimistic for close races: two truly tied models average about 75%, not 50%")


def provenance_lines(prov: dict | None) -> list[str]:
    """'lm_eval · task mcq_tiny_lm · metric acc: 3 models' — where each model's results came from."""
    if not prov:
        return []
    groups: dict[tuple, list[str]] = {}
    for model, p in prov.items():
        key = tuple((k, p.get(k)) for k in ("harness", "task", "split", "metric") if p.get(k))
        groups.setdefault(key, []).append(model)
    out = []
    for key, models in groups.items():
        if not key:
            continue
        desc = " · ".join(v if k == "harness" else f"{k} {v}" for k, v in key)
        who = f"{len(models)} models" if len(models) > 3 else ", ".join(models)
        out.append(f"{desc}: {who}")
    return out


#: the mark beside a leaderboard row that scores higher than a row above it (text, Markdown, HTML alike)
OUT_OF_ORDER = "↑"
#: the sentence under such a table, once
OUT_OF_ORDER_NOTE = (f"{OUT_OF_ORDER} scores higher than a model listed above it: the rows are ordered by tier first, "
                     "and the tiers come from the paired comparisons on the items both models scored, while each "
                     "score is the mean over all the items that model scored.")


def out_of_order(rows: list) -> list[bool]:
    """For the rows of a leaderboard in display order: whether each scores higher than some row above it (the
    report orders by tier first; with models scored on different items a later tier can hold a higher mean)."""
    low = float("inf")
    out = []
    for r in rows:
        s = r.get("score")
        out.append(isinstance(s, (int, float)) and s > low)
        if isinstance(s, (int, float)) and s == s:
            low = min(low, s)
    return out
