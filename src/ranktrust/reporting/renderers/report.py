"""Renderers of the leaderboard report (LeaderboardReport): the terminal, Markdown and HTML pages live in
:mod:`ranktrust.reporting.text`, :mod:`~ranktrust.reporting.markdown` and :mod:`~ranktrust.reporting.html`;
this module registers them, and the leaderboard as CSV."""

from __future__ import annotations

from typing import Any

from ..headline import report_dict
from ..html import render_html
from ..markdown import report_markdown
from ..text import report_renderables
from . import renderer
from ._csv import table_csv

renderer("LeaderboardReport", "payload")(report_dict)
renderer("LeaderboardReport", "text")(report_renderables)
renderer("LeaderboardReport", "md")(report_markdown)
renderer("LeaderboardReport", "html")(render_html)


@renderer("LeaderboardReport", "csv")
def report_csv(d: dict[str, Any]) -> str:
    """The leaderboard table: one row per model."""
    cols = ["rank", "model", "score", "ci_low", "ci_high", "n_items", "tier", "rank_low", "rank_high"]
    return table_csv(cols, ([r.get(c) for c in cols] for r in d["models"]))
