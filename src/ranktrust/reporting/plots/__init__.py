"""Plots: result in, matplotlib Figure out.

Every function takes a result object (anything with ``to_dict()``) or the dict itself, reads only the
documented JSON keys, and returns a :class:`matplotlib.figure.Figure`. No statistics happen here: the
numbers drawn are the numbers in the result. Figures are created without ``pyplot`` (Agg canvas), so
nothing is shown and no global figure state is kept. A function given a result it cannot draw raises a
one-line ``ValueError`` that starts with "nothing to plot:".

>>> import ranktrust as rt
>>> fig = rt.plot.forest(rt.intervals(m))          # doctest: +SKIP
>>> fig.savefig("forest.png")                       # doctest: +SKIP

Each figure carries ``fig.rt_tooltips``: ``{gid: text}`` for the artists that get a hover tooltip when
the figure is written as inline SVG with :func:`figure_svg` (the HTML report does this).

Layout: ``_style`` (palette, helpers), one module per domain (``leaderboard``, ``resampling``,
``subsets``, ``runs``), ``svg`` (SVG and file output), and ``_figure``, the figure entries of the one registry (``reporting/_registry.py``) of which
figures draw which result type, which the notebook display, the HTML report and ``save_figures`` read.
"""

from __future__ import annotations

# the registry and helpers the rest of ``reporting`` uses: importable here, not in __all__ (nor rt.plot)
from ._figure import FigureSpec, figures_for, figures_registered, report_figures  # noqa: F401
from ._style import OKABE_ITO, TIER_COLOURS, NothingToPlot, tier_colour  # noqa: F401

# isort: off
# the domain modules register their figures when imported: this order is the report's figure order
from ._leaderboard import forest, pair_heatmap, rank_ranges
from ._resampling import power_curve, stability_curve
from ._subsets import agreement_curve, mdad_curve
from ._runs import condition_spread, runs_vs_items
from ._arena import arena_ratings  # noqa: F401  (registers the arena figure; not in rt.plot)
from ._watch import decision_bands  # noqa: F401  (registers the watch figure; not in rt.plot)
# isort: on
from ._svg import figure_svg, save_figures

__all__ = [
    "OKABE_ITO",
    "TIER_COLOURS",
    "forest",
    "pair_heatmap",
    "rank_ranges",
    "stability_curve",
    "power_curve",
    "mdad_curve",
    "agreement_curve",
    "condition_spread",
    "runs_vs_items",
    "figure_svg",
    "save_figures",
]
