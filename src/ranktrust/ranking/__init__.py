"""Rank stability, rank confidence sets, tiers and split-half checks.

What users touch is :data:`__all__`; the modules behind it (``tiers``, ``ranksets``, ``stability``,
``splithalf``, ``_screen``, ``_mrsw``) are the implementation. The functions ``tiers`` and ``stability`` are
``rt.tiers`` and ``rt.stability``: here those names are their modules until the modules are renamed to
``_tiers``/``_stability`` (issue 23 §2).
"""

from .ranksets import RankSets, rank_sets
from .splithalf import SplitHalf, split_half
from .stability import Stability
from .tiers import Tiers

__all__ = ["Tiers", "rank_sets", "RankSets", "Stability", "split_half", "SplitHalf"]
