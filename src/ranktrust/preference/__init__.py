"""Preference leaderboards (battles, judge verdicts): ``rt.arena``. See docs/arena.md."""

from .core import ELO_MEAN, ELO_SCALE, arena
from .result import ArenaResult, StyleControl

__all__ = ["arena", "ArenaResult", "StyleControl", "ELO_SCALE", "ELO_MEAN"]
