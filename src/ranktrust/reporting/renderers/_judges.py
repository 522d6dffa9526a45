"""Renderers of gold-corrected scores (``GoldCorrected``, :func:`ranktrust.judges.gold_corrected`)."""

from __future__ import annotations

from typing import Any

from .._fmt import interval, level, p_value, plural, points, rank_range
from .._markdown import _esc
from . import renderer

_METHOD_WORDS = {
    "ppi++": "PPI++ (power-tuned prediction-powered inference; t interval with n - 1 df)",
    "stratified": "post-stratified on the judge's verdict (0/1 judge and gold; pseudo-count interval)",
    "rogan-gladen": "judge sensitivity/specificity correction (Rogan-Gladen; delta-method interval)",
}


def judged_headline(d: dict[str, Any]) -> str:
    """The one sentence: who could be #1 by the gold standard, from how many labels."""
    first = d["could_be_first"]
    labels = f"{d['n_labelled']:,} gold labels on {d['n_items']:,} items"
    if len(first) == 1:
        return f"By the gold standard, {first[0]} is #1 ({labels}; {level(d['confidence_level'])} simultaneous)."
    return (f"By the gold standard, {len(first)} models could be #1: {', '.join(first)} ({labels}; "
            f"{level(d['confidence_level'])} simultaneous).")


def _scope(d: dict[str, Any]) -> str:
    s = (f"Scope: the labelled items are a random sample of the items, the same for every model. "
         f"Method: {_METHOD_WORDS.get(d['method'], d['method'])}.")
    if d["method"] == "ppi++":
        s += (" Approximate: a normal-theory interval; with about 100 labels near 0 or 1 it covered 0.91 in "
              "bench/bench_judge.py. Label more items, or give 0/1 judge and gold scores (stratified).")
    return s


@renderer("ranktrust.judges._core:GoldCorrected", "payload")
def judged_payload(r: Any) -> dict[str, Any]:
    d = dict(r.to_dict())
    d["headline"] = {"text": judged_headline(d), "could_be_first": d["could_be_first"]}
    d["scope"] = _scope(d)
    return d


def _rows(d: dict[str, Any]) -> list[list[str]]:
    return [[m["model"], points(m["score"]), interval(m["ci_low"], m["ci_high"]),
             rank_range(m["rank_low"], m["rank_high"]),
             str(m["tier"]), f"{points(m['judge_score'])} {interval(m['judge_ci_low'], m['judge_ci_high'])}",
             f"{points(m['gold_score'])} {interval(m['gold_ci_low'], m['gold_ci_high'])}"] for m in d["models"]]


_HEAD = ["model", "gold-corrected", "CI", "rank", "tier", "judge only", "gold only"]


def _pair_rows(d: dict[str, Any]) -> list[list[str]]:
    return [[p["a"], p["b"], points(p["diff"], signed=True), interval(p["ci_low"], p["ci_high"], signed=True),
             p_value(p["p_value"]), p_value(p["p_adjusted"]), "yes" if p["separated"] else "no"] for p in d["pairs"]]


_PAIR_HEAD = ["a", "b", "diff", "CI (marginal)", "p", "p adjusted", "separated"]


@renderer("ranktrust.judges._core:GoldCorrected", "text")
def judged_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"Gold-corrected scores ({level(d['confidence_level'])} CI, points)", title_justify="left")
    for h in _HEAD:
        t.add_column(h, justify="left" if h == "model" else "right", overflow="fold")
    for row in _rows(d):
        t.add_row(*row)
    out: list[Any] = [Text(d["headline"]["text"]), t]
    if d["pairs"]:
        p = Table(title=f"Pairs (stepdown max-|t| over {plural(len(d['pairs']), 'pair')})", title_justify="left")
        for h in _PAIR_HEAD:
            p.add_column(h, justify="left" if h in ("a", "b") else "right", overflow="fold")
        for row in _pair_rows(d):
            p.add_row(*row)
        out.append(p)
    out.append(Text(d["scope"]))
    return out


@renderer("ranktrust.judges._core:GoldCorrected", "md")
def judged_markdown(d: dict[str, Any]) -> str:
    lines = ["## Gold-corrected scores", "", _esc(d["headline"]["text"]), "",
             "| " + " | ".join(_HEAD) + " |", "|---|" + "--:|" * (len(_HEAD) - 1)]
    lines += ["| " + " | ".join([_esc(r[0])] + r[1:]) + " |" for r in _rows(d)]
    if d["pairs"]:
        lines += ["", f"Pairs: stepdown max-|t| over {plural(len(d['pairs']), 'pair')}.", "",
                  "| " + " | ".join(_PAIR_HEAD) + " |", "|---|---|" + "--:|" * (len(_PAIR_HEAD) - 2)]
        lines += ["| " + " | ".join([_esc(r[0]), _esc(r[1])] + r[2:]) + " |" for r in _pair_rows(d)]
    lines += ["", d["scope"]]
    return "\n".join(lines) + "\n"


@renderer("ranktrust.judges._core:GoldCorrected", "csv")
def judged_csv(d: dict[str, Any]) -> str:
    from ._csv import table_csv

    keys = ["model", "score", "se", "ci_low", "ci_high", "rank_low", "rank_high", "tier", "judge_score",
            "judge_ci_low", "judge_ci_high", "gold_score", "gold_ci_low", "gold_ci_high"]
    return table_csv(keys, [[m.get(k) for k in keys] for m in d["models"]])


# ---- judge audit ----------------------------------------------------------------------------------------
_PROBE_WORDS = {
    "position": "first slot wins (swapped games)",
    "consistency": "same winner in both orders",
    "self_preference": "family model's score: judge minus reference",
    "agreement": "Cohen's kappa with the reference",
    "length": "score per doubling of the length ratio, within a model pair",
    "repeats": "share of a judgment's variance between repeats",
    "judge_shift": "a judge's offset from the others (score units)",
}


def _length_words(r: dict[str, Any]) -> str:
    vs = "judge minus reference, " if r.get("versus") == "reference" else ""
    return f"{vs}{_PROBE_WORDS['length']}"


_FINITE = ("position", "self_preference")     # the hedged-capital tests; length and judge_shift are t / F tests


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def audit_headline(d: dict[str, Any]) -> str:
    """One sentence: which probes flagged a bias, or that none did."""
    ran = [k for k in _PROBE_WORDS if k in d]
    tests = [k for k in ran if d[k].get("flagged") is not None]

    def kind(ks: list[str]) -> str:
        return "finite-sample test" if all(k in _FINITE for k in ks) else "tests"

    if d["flagged"]:
        return (f"The judge shows {_join([k.replace('_', '-') for k in d['flagged']])} bias "
                f"({level(d['confidence_level'])} {kind(d['flagged'])}).")
    if tests:
        return (f"No bias found by the {_join([k.replace('_', '-') for k in tests])} "
                f"test{'s' if len(tests) > 1 else ''} ({level(d['confidence_level'])}; noise is not bias).")
    return "No bias test could run on these data; the figures below describe the judge."


def _probe_rows(d: dict[str, Any]) -> list[list[str]]:
    rows = []
    for k, words in _PROBE_WORDS.items():
        if k not in d:
            continue
        r = d[k]
        est = r.get("kappa", r.get("rate"))
        signed = k == "self_preference"
        if k == "length":
            est, signed, words = r["slope"], True, _length_words(r)
        elif k == "judge_shift":
            words = f"{_PROBE_WORDS[k]}: {r['judge']}"
        if k in ("agreement", "judge_shift"):
            sg = "+" if k == "judge_shift" else ""
            fig, ci = f"{est:{sg}.3f}", f"[{r['ci_low']:{sg}.3f}, {r['ci_high']:{sg}.3f}]"
        else:
            fig, ci = points(est, signed=signed), interval(r["ci_low"], r["ci_high"], signed=signed)
        n = r.get("n_questions", r.get("n_battles", r.get("n_judgments", r.get("n_cells"))))
        flag = "–" if r["flagged"] is None else ("yes" if r["flagged"] else "no")
        rows.append([k, words, fig, ci, p_value(r["p_value"]) if r["p_value"] is not None else "–", flag, f"{n:,}"])
    return rows


_AUDIT_HEAD = ["probe", "what", "estimate", "CI", "p", "flagged", "n"]


@renderer("ranktrust.judges._audit:JudgeAudit", "payload")
def audit_payload(r: Any) -> dict[str, Any]:
    d = dict(r.to_dict())
    d["headline"] = {"text": audit_headline(d), "flagged": d["flagged"]}
    return d


_NOT_RUN = {"no_games": "no swapped games (each question judged in both orders) were given",
            "no_reference": "no reference verdicts on the same battles were given",
            "no_family": "the models of the judge's own family were not named",
            "no_lengths": "the answers' lengths are not in the data (length_a and length_b, or the answers in "
                          "the judge prompts)",
            "no_repeats": "no answer was judged more than once (by two judges, or twice by one)",
            "too_few_items": "it needs more items than judges, and answers that every judge scored"}


def _not_run(d: dict[str, Any]) -> list[str]:
    out = []
    err = (d.get("position") or {}).get("n_errors")
    if err:
        out.append(f"{plural(err, 'question')} with an error verdict (no verdict parsed in one order) "
                   f"{'was' if err == 1 else 'were'} left out of position and consistency.")
    ln = d.get("length")
    if ln and ln.get("versus") != "reference":
        out.append("length is measured without reference verdicts: a real link between length and quality inside "
                   "a model pair counts too; give reference verdicts on the same battles to separate the two.")
    if d.get("repeats"):
        out.append("repeats is the judge's noise, not a bias, and is never flagged; ranktrust.judges.judged_intervals "
                   "puts it, and the judges' variance, into each model's score interval.")
    return out + [f"{k.replace('_', '-')} not run: {_NOT_RUN.get(v, v)}." for k, v in d["not_run"].items()]


@renderer("ranktrust.judges._audit:JudgeAudit", "text")
def audit_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"Judge audit ({level(d['confidence_level'])}; rates in points)", title_justify="left")
    for h in _AUDIT_HEAD:
        t.add_column(h, justify="left" if h in ("probe", "what") else "right", overflow="fold")
    for row in _probe_rows(d):
        t.add_row(*row)
    return [Text(d["headline"]["text"]), t] + [Text(s) for s in _not_run(d)]


@renderer("ranktrust.judges._audit:JudgeAudit", "md")
def audit_markdown(d: dict[str, Any]) -> str:
    lines = ["## Judge audit", "", d["headline"]["text"], "", "| " + " | ".join(_AUDIT_HEAD) + " |",
             "|---|---|" + "--:|" * (len(_AUDIT_HEAD) - 2)]
    lines += ["| " + " | ".join(r) + " |" for r in _probe_rows(d)]
    if _not_run(d):
        lines += [""] + _not_run(d)
    return "\n".join(lines) + "\n"
