"""The arena's names for the one stepdown max-|t| over all pairs: :mod:`ranktrust.ranking._stepdown` holds it
(the arena, the gold-corrected judges and the suite call the same kernel); this module keeps the names the
arena's steps use (``_maxt.stepdown``, ``_maxt.t_tail``, ``_maxt.pair_index``)."""

from __future__ import annotations

from ..ranking import pair_index, stepdown, t_tail

__all__ = ["pair_index", "stepdown", "t_tail"]
