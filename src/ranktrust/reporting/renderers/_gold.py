"""Renderers of the report's gold section (``GoldSection``: gold-corrected scores beside the judge alone and the
labels alone, the method and the number of labels, and the sections a report with gold leaves out)."""

from __future__ import annotations

from typing import Any

from .._fmt import count, interval, level, points, rank_range
from .._markdown import _esc
from . import renderer

_METHOD_WORDS = {
    "ppi++": "PPI++ (power-tuned prediction-powered inference, Angelopoulos et al. 2023; t interval)",
    "stratified": "post-stratified on the judge's 0/1 verdict (pseudo-count normal interval)",
    "rogan-gladen": "the judge's sensitivity and specificity measured on the labels (Rogan-Gladen; delta-method "
                    "interval with the labels' uncertainty)",
}

_OMITTED_WORDS = {
    "resamples_judge_scores": "it resamples the judge's raw scores, which estimate the judge's mean, not the "
                              "gold labels'",
    "plans_judge_items": "its items-needed figures are for the judge's scores; the label budget is "
                         "ranktrust.judges.labels_needed",
    "judge_runs": "it reads the judge's runs or conditions, not the gold labels",
    "judge_rows": "its findings are about the judge's rows, not the gold-corrected estimates",
}


def gold_note(d: dict[str, Any]) -> str:
    """The sentence that says where the report's numbers come from: the method and the labels."""
    clustered = " (clustered by item group)" if d.get("clustered") else ""
    return (f"Gold-corrected: every interval, pair, tier, rank range and the headline estimate the gold labels' "
            f"means, from {count(d['n_labelled'])} gold labels on {count(d['n_items'])} judged items; method: "
            f"{_METHOD_WORDS.get(d['method'], d['method'])}{clustered}. The labelled items must be a random "
            "sample of the items.")


def _omitted(d: dict[str, Any]) -> list[str]:
    return [f"{o['section'].replace('_', '-')} is left out: {_OMITTED_WORDS.get(o['reason'], o['reason'])}."
            for o in d.get("omitted") or []]


def _rows(d: dict[str, Any]) -> list[list[str]]:
    return [[m["model"],
             f"{points(m['score'])} {interval(m['ci_low'], m['ci_high'])}", rank_range(m["rank_low"], m["rank_high"]),
             f"{points(m['judge_score'])} {interval(m['judge_ci_low'], m['judge_ci_high'])}",
             rank_range(m["judge_rank_low"], m["judge_rank_high"]),
             f"{points(m['gold_score'])} {interval(m['gold_ci_low'], m['gold_ci_high'])}",
             rank_range(m["gold_rank_low"], m["gold_rank_high"])] for m in d["models"]]


_HEAD = ["model", "gold-corrected", "rank", "judge only", "rank", "gold only", "rank"]


def _title(d: dict[str, Any]) -> str:
    return (f"Gold labels: corrected, judge only and gold only ({level(d['confidence_level'])} CI, points; "
            f"rank ranges {level(d['confidence_level'])} simultaneous)")


def _first(d: dict[str, Any]) -> str:
    def one(names: list[str]) -> str:
        return ", ".join(names) if names else "none"

    return (f"Could be #1 — gold-corrected: {one(d['could_be_first'])}; judge only: "
            f"{one(d['judge_could_be_first'])}; gold only: {one(d['gold_could_be_first'])}.")


@renderer("ranktrust.leaderboard._gold:GoldSection", "text")
def gold_text(d: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=_title(d), title_justify="left")
    for h in _HEAD:
        t.add_column(h, justify="left" if h == "model" else "right", overflow="fold")
    for row in _rows(d):
        t.add_row(*row)
    return [Text(gold_note(d)), t, Text(_first(d)), *[Text(s) for s in _omitted(d)]]


@renderer("ranktrust.leaderboard._gold:GoldSection", "md")
def gold_markdown(d: dict[str, Any]) -> str:
    lines = ["## Gold labels", "", _esc(gold_note(d)), "", _esc(_title(d)) + ":", "",
             "| " + " | ".join(_HEAD) + " |", "|---|" + "--:|" * (len(_HEAD) - 1)]
    lines += ["| " + " | ".join([_esc(r[0])] + r[1:]) + " |" for r in _rows(d)]
    lines += ["", _esc(_first(d))]
    lines += [f"- {_esc(s)}" for s in _omitted(d)]
    return "\n".join(lines) + "\n"
