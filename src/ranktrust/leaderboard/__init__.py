"""The report pipeline: ``rt.report`` and the :class:`LeaderboardReport` it returns.

This package sits between the analyses (``ranking``, ``subsets``, ``runs``, ``quality``) and the
presentation (``reporting``): it computes, it never renders.

- ``pipeline.py``: :func:`report`: validation, then a loop over the section builders;
- ``sections.py``: one builder per section (each returns a typed result), :class:`Note` records,
  :class:`PowerSection`, :class:`PairMatrix`;
- ``options.py``: the settings in three groups (:class:`Inference`, :class:`Resampling`, :class:`Sections`);
- ``result.py``: :class:`LeaderboardReport` (and the types of its JSON);
- ``sidecar.py``: :func:`write_sidecar`, the large arrays of a report as one Parquet file.
"""

from __future__ import annotations

from .options import DEFAULT_SIZES, Inference, Resampling, Sections
from .pipeline import quality_notes, report
from .result import HEATMAP_MAX_MODELS, Headline, LeaderboardReport, LeaderboardReportJSON, ReportModelRow
from .sections import Note, PairMatrix, PowerSection
from .sidecar import write_sidecar

__all__ = ["report", "LeaderboardReport", "write_sidecar", "DEFAULT_SIZES", "HEATMAP_MAX_MODELS", "Headline",
           "LeaderboardReportJSON", "ReportModelRow", "quality_notes", "Inference", "Resampling", "Sections",
           "Note", "PowerSection", "PairMatrix"]
