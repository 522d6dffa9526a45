"""The report pipeline: ``rt.report`` and the :class:`LeaderboardReport` it returns.

This package sits between the analyses (``ranking``, ``subsets``, ``runs``, ``quality``) and the
presentation (``reporting``): it computes, it never renders.

- ``_pipeline.py``: :func:`report`: validation, then a loop over the section builders;
- ``_sections.py``: :data:`SECTIONS`, the one spec of the report's sections (:class:`Section`: name, builder, result
  type, order, HTML partial), one builder per section (each returns a typed result), :class:`Note` records,
  :class:`PowerSection`, :class:`PairMatrix`;
- ``_options.py``: the settings in three groups (:class:`Inference`, :class:`Resampling`, :class:`Sections`);
- ``_result.py``: :class:`LeaderboardReport` (and the types of its JSON);
- ``_sidecar.py``: :func:`write_sidecar`, the large arrays of a report as one Parquet file;
- ``_gold.py``: the report's gold-corrected sections, and ``gold_ranks`` (the command line's ``ranks`` with gold
  labels; outside :data:`__all__`).
"""

from __future__ import annotations

from ._options import DEFAULT_SIZES, Inference, Resampling, Sections
from ._pipeline import quality_notes, report
from ._result import HEATMAP_MAX_MODELS, Headline, LeaderboardReport, LeaderboardReportJSON, ReportModelRow, set_presenter
from ._sections import SECTIONS, Note, PairMatrix, PowerSection, Section, display_pair_rows, display_pairs, section
from ._gold import gold_ranks   # for the command line, outside __all__
from ._sidecar import write_sidecar

__all__ = ["report", "LeaderboardReport", "write_sidecar", "DEFAULT_SIZES", "HEATMAP_MAX_MODELS", "Headline",
           "LeaderboardReportJSON", "ReportModelRow", "quality_notes", "Inference", "Resampling", "Sections",
           "Note", "PowerSection", "PairMatrix", "section", "Section", "SECTIONS", "display_pairs", "display_pair_rows"]
