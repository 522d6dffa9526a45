"""Renderers of the micro-benchmark results: ``microbench`` (MDADResult) and a designed subset (Subset)."""

from __future__ import annotations

from typing import Any

from .._fmt import interval, level, number, percent, points
from .._markdown import _esc
from . import renderer
from ._csv import table_csv
from ._runs import table_markdown, table_text

_COLS = ("method", "items", "MDAD (pts)", "{ci} CI", "Kendall τ", "mean abs err (pts)", "misordered")


#: the mark of an MDAD read off a gap bin with fewer than the recommendation's ``pairs_needed`` pairs
THIN = "†"


def _thin_cell(r: dict[str, Any], need: int) -> bool:
    return bool(r["reached"]) and r.get("mdad_pairs") is not None and r["mdad_pairs"] < need


def _row(r: dict[str, Any], need: int = 0) -> list[str]:
    mdad = points(r["mdad"]) + (THIN if _thin_cell(r, need) else "") if r["reached"] else r["status"]
    return [r["method"], str(r["size"]), mdad,
            interval(r["ci_low"], r["ci_high"], sep="–", brackets=False),
            number(r["kendall_tau"], 2), points(r["mean_abs_error"]), percent(r["misordered"])]


def _n_trials(s: dict[str, Any]) -> int:
    return s["n_resamples"]


def _against(d: dict[str, Any]) -> str:
    """What the main table is judged against: every item, or the seen items of a seen/unseen split."""
    return "" if d.get("unseen") is None else f" against the {d['settings']['n_seen_items']} seen items"


def _gap(x: Any, status: str = "ok") -> str:
    """An MDAD in points; says why there is none ('undefined (too few pairs)', 'more than the largest gap')."""
    if x is not None:
        return points(x)
    return "undefined (too few pairs)" if status == "too few pairs" else "more than the largest gap"


def _thin(entry: dict[str, Any] | None, need: int) -> str:
    """'; read off a gap bin of only K target pairs (N needed): not a finding' when the figure's bin is thin
    (a figure off a sparse bin is never stated as a finding)."""
    if not entry or not entry.get("sparse"):
        return ""
    k = entry["mdad_pairs"]
    return f"; read off a gap bin of only {k} target pair{'s' if k != 1 else ''} ({need} needed): not a finding"


def recommendation_sentences(rec: dict[str, Any]) -> list[str]:
    """``MDADResult.recommendation`` (or its JSON) in plain words, one sentence per finding.

    Each sentence restates a field: what the smallest tested size resolves, where each method reaches the
    target MDAD, how uniform random compares at the largest size, and which (method, size) to use.
    """
    lvl = percent(rec["agreement_level"])
    mp = rec.get("min_pairs", 1)
    counted = "" if mp <= 1 else f" with at least {mp} pairs"
    target = _gap(rec["target_mdad"])
    if not rec.get("measurable", True):
        return [f"Too few target pairs per gap bin to measure MDAD (no bin{counted}): use fewer source models "
                "(more targets), more trials, wider gap bins or a smaller minimum of pairs per bin."]
    need = rec.get("pairs_needed", 30)
    text: list[str] = []
    first = rec["smallest_tested"]
    if first["mdad"] is not None:
        text.append(f"At {first['size']} items no method reaches {lvl} agreement for pairs closer than "
                    f"{_gap(first['mdad'])} points (best: {first['method']}, first at {_gap(first['mdad'])} points"
                    f"{_thin(first, need)}); {percent(first['misordered'])} of target pairs were misordered.")
    else:
        text.append(f"At {first['size']} items no gap bin{counted} reaches {lvl} agreement for any method, not even "
                    f"the most distant pairs; {percent(first['misordered'])} or more of target pairs were misordered.")
    for m in rec["methods"]:
        if m["reaches_target"]:
            lo_s, hi_s = m.get("ci_status") or ("ok", "ok")
            if m.get("sparse"):
                text.append(f"{m['method']}: would reach an MDAD of {target} points at {m['size']} items "
                            f"(MDAD {_gap(m['mdad'])}, CI {_gap(m['ci_low'], lo_s)} to {_gap(m['ci_high'], hi_s)}"
                            f"{_thin(m, need)}).")
            else:
                text.append(f"{m['method']}: reaches an MDAD of {target} points at {m['size']} items "
                            f"(MDAD {_gap(m['mdad'])}, CI {_gap(m['ci_low'], lo_s)} to {_gap(m['ci_high'], hi_s)}).")
        elif m["size"] is not None:
            text.append(f"{m['method']}: does not reach {target} points at any tested size "
                        f"(best MDAD {_gap(m['mdad'])} points at {m['size']} items{_thin(m, need)}).")
        else:
            text.append(f"{m['method']}: no gap bin{counted} reaches {lvl} agreement at any tested size.")
    last = rec.get("largest_tested")
    if last:
        rs, bs = _thin(last.get("random"), need), _thin(last.get("best"), need)
        rs, bs = (f" ({rs[2:]})" if rs else ""), (f" ({bs[2:]})" if bs else "")
        if last["random_is_best"]:
            text.append(f"At {last['size']} items uniform random is as good as any method "
                        f"(MDAD {_gap(last['random_mdad'])} points{rs}).")
        elif last["random_mdad"] is not None:
            text.append(f"At {last['size']} items uniform random has MDAD {_gap(last['random_mdad'])} points{rs}, "
                        f"the best method ({last['best_method']}) {_gap(last['best_mdad'])}{bs}: random is within "
                        f"{points(last['random_mdad'] - last['best_mdad'])} points of it.")
        else:
            text.append(f"At {last['size']} items uniform random reaches {lvl} agreement in no gap bin{counted}; "
                        f"the best method ({last['best_method']}) has MDAD {_gap(last['best_mdad'])} points{bs}.")
    best = rec.get("best")
    if best:
        wb = best["wider_below"]
        n = wb["count"]
        caveat = ("every wider gap bin also reaches it" if n == 0 else
                  f"yet {n} wider gap bin{'s' if n > 1 else ''} (up to {_gap(wb['max'])} points) "
                  f"fall{'' if n > 1 else 's'} below it")
        k = best["mdad_pairs"]
        thin = f"; that bin holds only {k} pair{'s' if k != 1 else ''}" if best["sparse"] else ""
        text.append(
            f"Use {best['method']} with {best['size']} items: {_gap(best['mdad'])} points is the smallest gap whose "
            f"pairs are ordered as on the reference in at least {lvl} of cases ({caveat}{thin}); closer gaps are "
            f"not resolved (Kendall's tau {number(best['kendall_tau'], 2)}, yet {percent(best['misordered'])} of "
            "pairs misordered).")
        if "unseen_status" in best:
            st = best["unseen_status"]
            text.append(
                f"Judged against the unseen items (new items, as [U] publish), {best['method']} with {best['size']} "
                "items " + (f"has MDAD {_gap(best['unseen_mdad'])} points." if st == "ok" else
                            f"reaches {lvl} agreement in no gap bin{counted}." if st == "not reached" else
                            "has too few pairs to measure MDAD."))
    elif rec.get("not_enough_pairs"):
        ne = rec["not_enough_pairs"]
        text.append(f"Not enough target models to recommend a size: {ne['method']} with {ne['size']} items would "
                    f"reach {_gap(ne['mdad'])} points, but that gap bin holds only {ne['mdad_pairs']} target "
                    f"pair{'s' if ne['mdad_pairs'] != 1 else ''} (at least {ne['pairs_needed']} needed); use fewer "
                    "source models (more targets), more trials or wider gap bins.")
    elif rec.get("fallback"):
        fb = rec["fallback"]
        text.append(f"No tested size reaches an MDAD of {target} points (best: {fb['method']} at {fb['size']} "
                    f"items, {_gap(fb['mdad'])} points); to separate models closer than that, use the full benchmark.")
    else:
        text.append(f"No tested size reaches an MDAD of {target} points; to separate models, use the full benchmark.")
    return text


def recommendation_lines(d: dict[str, Any]) -> list[str]:
    """The recommendation of an MDADResult payload in plain words."""
    return recommendation_sentences(d["recommendation"])


def _notes(d: dict[str, Any]) -> list[str]:
    s = d["settings"]
    mp = s.get("min_pairs", 1)
    counted = "" if mp <= 1 else f" with at least {mp} pairs"
    ci_note = ("CI: [U]'s bootstrap of the pooled bins ('n/a' = the bound is not reached)"
               if s.get("ci_method", "pairs") == "pairs" else
               "CI: percentile of per-trial MDADs ('n/a' = not reached in some trials)")
    out = [f"MDAD: lower edge of the smallest 0.5-point gap bin{counted} in which ≥{percent(s['agreement_level'])} "
           f"of target pairs are ordered as on the reference ([U]'s rule); {ci_note}."]
    if d.get("unseen") is not None:
        out.append("Seen/unseen split: items are chosen from the seen items; the first table judges the targets "
                   "against their scores on the seen items, the second against the unseen ones (does the "
                   "micro-benchmark generalise to new items?). With no seen/unseen split: one table against all items.")
    return out


@renderer("ranktrust.subsets._mdad:MDADResult", "text")
def mdad_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table

    s = d["settings"]
    ci = level(s["confidence_level"])
    need = _needed(d)

    def table(title: str, rows: list[dict[str, Any]]) -> Table:
        t = Table(title=title)
        for col in _COLS:
            t.add_column(col.format(ci=ci), justify="left" if col == "method" else "right")
        for r in rows:
            t.add_row(*_row(r, need))
        return t

    head = (f"({_n_trials(s)} trials, {s['n_source_models']} source / {s['n_target_models']} target models, "
            f"{s['n_items']} items)")
    out: list[Any] = [table(f"Micro-benchmark reliability{_against(d)} {head}", d["mdad"])]
    if d.get("unseen") is not None:
        out.append(table(f"Against unseen items ({s['n_items'] - s['n_seen_items']} items the source models never saw; "
                         "the figures [U] publish)", d["unseen"]["mdad"]))
    out += [f"• {line}" for line in recommendation_lines(d)]
    return out + _notes(d) + _thin_note(d)


def _md_table(d: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
    ci = level(d["settings"]["confidence_level"])
    lines = ["| " + " | ".join(c.format(ci=ci) for c in _COLS) + " |", "|---|---:|---:|---:|---:|---:|---:|"]
    lines += ["| " + " | ".join(_esc(c) for c in _row(r, _needed(d))) + " |" for r in rows]
    return lines


def _needed(d: dict[str, Any]) -> int:
    """The pairs a gap bin needs for its MDAD to be a finding (the recommendation's ``pairs_needed``)."""
    return int((d.get("recommendation") or {}).get("pairs_needed") or 0)


def _thin_note(d: dict[str, Any]) -> list[str]:
    """The footnote of the † mark, when a table has one."""
    need = _needed(d)
    rows = list(d["mdad"]) + list((d.get("unseen") or {}).get("mdad") or [])
    if not any(_thin_cell(r, need) for r in rows):
        return []
    return [f"{THIN} read off a gap bin with fewer than {need} target pairs (pooled over trials): not a finding "
            "(each row's mdad_pairs is in the JSON)."]


@renderer("ranktrust.subsets._mdad:MDADResult", "md")
def mdad_markdown(d: dict[str, Any]) -> str:
    s = d["settings"]
    lines = [
        "## Micro-benchmark reliability" + _against(d), "",
        f"{_n_trials(s)} trials, {s['n_source_models']} source / {s['n_target_models']} target models, "
        f"{s['n_items']} items; MDAD at {percent(s['agreement_level'])} agreement, "
        f"{points(s['delta_bin'])}-point bins.", "",
        *_md_table(d, d["mdad"]),
    ]
    if d.get("unseen") is not None:
        lines += ["", "### Against unseen items", "",
                  f"The same micro-benchmarks, judged against the targets' scores on the "
                  f"{s['n_items'] - s['n_seen_items']} items the source models never saw.", "",
                  *_md_table(d, d["unseen"]["mdad"])]
    lines += ["", *[f"- {_esc(line)}" for line in recommendation_lines(d)], ""]
    lines += [*(_esc(n) for n in _thin_note(d)), *([""] if _thin_note(d) else [])]
    return "\n".join(lines)


_MDAD_CSV = ("method", "size", "mdad", "ci_low", "ci_high", "kendall_tau", "mean_abs_error", "misordered", "status")


@renderer("ranktrust.subsets._mdad:MDADResult", "csv")
def mdad_csv(d: dict[str, Any]) -> str:
    # mdad_pairs: target pairs in the gap bin MDAD was read off (pooled over trials); thin: fewer than the
    # recommendation's pairs_needed (the † of the text and Markdown tables: not a finding)
    need = _needed(d)

    def row(against: str, r: dict[str, Any]) -> list[Any]:
        return [against] + [r.get(c) for c in _MDAD_CSV] + [r.get("mdad_pairs"), _thin_cell(r, need)]

    rows = [row("all" if d.get("unseen") is None else "seen", r) for r in d["mdad"]]
    if d.get("unseen") is not None:
        rows += [row("unseen", r) for r in d["unseen"]["mdad"]]
    return table_csv(("judged_against",) + _MDAD_CSV + ("mdad_pairs", "thin"), rows)


# ---- a designed subset ----------------------------------------------------------------------------------
@renderer("ranktrust.subsets._select:Subset", "text")
def subset_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table

    t = Table(title=f"{d['method']} micro-benchmark: {d['size']} of {d['n_items']} items "
                    f"(chosen with {d['n_source_models']} source models)")
    t.add_column("item")
    t.add_column("weight", justify="right")
    for r in d["items"]:
        t.add_row(r["item"], number(r["weight"], 4))
    return [t]


@renderer("ranktrust.subsets._select:Subset", "md")
def subset_markdown(d: dict[str, Any]) -> str:
    lines = [f"## {d['method']} micro-benchmark: {d['size']} of {d['n_items']} items", "", "| item | weight |",
             "|---|---:|"]
    lines += [f"| {_esc(r['item'])} | {number(r['weight'], 4)} |" for r in d["items"]]
    return "\n".join(lines) + "\n"


@renderer("ranktrust.subsets._select:Subset", "csv")
def subset_csv(d: dict[str, Any]) -> str:
    return table_csv(["item", "position", "weight"], ([r["item"], r["position"], float(r["weight"])]
                                                      for r in d["items"]))


# ---- a subset's estimates -------------------------------------------------------------------------------
@renderer("ranktrust.subsets._select:SubsetEstimate", "headline")
def estimate_headline(d: dict[str, Any]) -> str:
    rows = [r for r in d["estimates"] if r.get("estimate") is not None]
    if not rows:
        return "No model has an estimate."
    top = max(rows, key=lambda r: r["estimate"])
    return (f"From {d['size']} items ({d['method']}, {d['estimator']} estimator), {top['model']} is estimated "
            f"highest: {points(top['estimate'])} on the full benchmark.")


def _estimate_parts(d: dict[str, Any]) -> tuple[str, list[str], list[list[str]], list[str]]:
    rows = sorted(d["estimates"], key=lambda r: -(r["estimate"] if r["estimate"] is not None else -1e9))
    extra = [k for k in rows[0] if k not in ("model", "estimate")] if rows else []
    return (f"Full-benchmark estimates from {d['size']} items ({d['method']})", ["model", "estimate", *extra],
            [[r["model"], points(r["estimate"]), *(points(r[k]) for k in extra)] for r in rows],
            [estimate_headline(d)])


renderer("ranktrust.subsets._select:SubsetEstimate", "text")(lambda d: table_text(*_estimate_parts(d)))
renderer("ranktrust.subsets._select:SubsetEstimate", "md")(lambda d: table_markdown(*_estimate_parts(d)))


@renderer("ranktrust.subsets._select:Subset", "headline")
def subset_headline(d: dict[str, Any]) -> str:
    return (f"A {d['method']} micro-benchmark of {d['size']} of {d['n_items']:,} items, chosen with "
            f"{d['n_source_models']} source models.")


@renderer("ranktrust.subsets._mdad:MDADResult", "headline")
def mdad_headline(d: dict[str, Any]) -> str:
    lines = recommendation_lines(d)
    return lines[0] if lines else "No micro-benchmark recommendation."
