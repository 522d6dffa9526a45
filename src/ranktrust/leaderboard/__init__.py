"""The report pipeline: ``rt.report`` and the :class:`LeaderboardReport` it returns.

This package sits between the analyses (``ranking``, ``subsets``, ``runs``, ``quality``) and the
presentation (``reporting``): it computes, it never renders.

- ``pipeline.py``: :func:`report`, which runs every analysis of a leaderboard;
- ``result.py``: :class:`LeaderboardReport` (and the types of its JSON);
- ``sidecar.py``: :func:`write_sidecar`, the large arrays of a report as one Parquet file.
"""

from __future__ import annotations

from .pipeline import DEFAULT_SIZES, quality_notes, report
from .result import HEATMAP_MAX_MODELS, Headline, LeaderboardReport, LeaderboardReportJSON, ReportModelRow
from .sidecar import write_sidecar

__all__ = ["report", "LeaderboardReport", "write_sidecar", "DEFAULT_SIZES", "HEATMAP_MAX_MODELS", "Headline",
           "LeaderboardReportJSON", "ReportModelRow", "quality_notes"]
