"""Preference leaderboards (battles, judge verdicts): ``rt.arena``. See docs/arena.md.

Named ``preference``, not ``arena``: a subpackage named like the public function would replace
``rt.arena`` once imported (docs/architecture.md, "Why runs/ and reporting/").

Outside :data:`__all__`, for the judges' gold-corrected battles: ``ppi_bradley_terry`` and ``match_gold``."""

from ._core import ELO_MEAN, ELO_SCALE, arena
from ._ppi import match_gold, ppi_bradley_terry   # for ranktrust.judges, outside __all__
from ._result import ArenaResult, StyleControl

__all__ = ["arena", "ArenaResult", "StyleControl", "ELO_SCALE", "ELO_MEAN"]
