"""The JSON rows that ranked tables share (a suite's and an arena's models and pairs), declared once.

A light module (no analysis imported), so the arena's result types can extend them without loading the suite.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["RankedModelRow", "SuitePairRow"]


#: the fields every ranked table's model row has, in display order (tier, then score); ``SuiteModelRow`` and the
#: arena's ``ArenaModelRow`` add their own score (``score``, ``rating``) and figures. No docstring: the JSON schema's
#: descriptions are the subclasses'
class RankedModelRow(TypedDict):
    model: str
    ci_low: float
    ci_high: float
    rank: int
    rank_low: int
    rank_high: int
    tier: int


#: one pair of a ranked table (a suite's pairs; arena's are its subclass ArenaPairRow): ``a`` above ``b`` by ``diff``
#: with its interval, its p-value and the adjusted one, and whether the claim is made. No docstring: the JSON
#: schema's description of the suite's pairs stays as it was
class SuitePairRow(TypedDict):
    a: str
    b: str
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    separated: bool
