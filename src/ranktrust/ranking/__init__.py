"""Rank stability, rank confidence sets, tiers and split-half checks.

What users touch is :data:`__all__` (``tiers``, ``stability`` and ``suite`` are also ``rt.tiers``, ``rt.stability`` and ``rt.suite``);
the modules behind it (``_tiers``, ``_ranksets``, ``_stability``, ``_splithalf``, ``_suite``, ``_screen``,
``_mrsw``, ``_stepdown``) are the implementation. Outside :data:`__all__`, for the arena and the judges: the one
stepdown max-|t| over all pairs (``stepdown``, ``pair_index``, ``t_tail``) and ``layers``; for the report and the
command line: the JSON layouts (``RankSetsJSON``, ``SplitHalfJSON``, ``StabilityJSON``, ``TiersJSON``) and the
suite's choices (``SUITE_RULES``, ``SUITE_MISSING``, loaded with the suite).
"""

from ._ranksets import RankSets, RankSetsJSON, layers, rank_bounds, rank_sets
from ._splithalf import SplitHalf, SplitHalfJSON, split_half
from ._stability import FAMILIAR_SIZES, Stability, StabilityJSON, stability   # FAMILIAR_SIZES: for the plots, outside __all__
from ._stepdown import pair_index, stepdown, t_tail
from ._rows import RankedModelRow, SuitePairRow   # RankedModelRow: for the arena's rows, outside __all__
from ._tiers import Tiers, TiersJSON, tiers, tiers_from_pair_table, tiers_of   # the last two: for arena and the report

__all__ = ["tiers", "Tiers", "rank_sets", "RankSets", "rank_bounds", "stability", "Stability", "split_half", "SplitHalf", "suite",
           "SuiteResult", "SuitePairRow"]


def __getattr__(name: str):   # the suite (it loads gating and the resampling engine) only when it is used
    if name in ("suite", "SuiteResult", "SUITE_RULES", "SUITE_MISSING"):
        from . import _suite

        return getattr(_suite, name.removeprefix("SUITE_"))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
