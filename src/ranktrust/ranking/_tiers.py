"""Tiers: groups of models whose scores the data cannot tell apart.

Default (``method="rank-sets"``): the layers of the "found better" relation of the rank
confidence sets [R] (:func:`ranktrust.ranking._ranksets.layers`): tier 1 = the models that could
be #1, no two models of a tier are told apart, every model of tier t + 1 is found worse than some
model of tier t. ``method="adjacent"`` (explicit option): sort by score and walk down; a new tier
starts where a model differs from the next one down. It is not transitive: two models far apart
can share a tier.

This module owns tiers: every :class:`Tiers` is built here (:func:`tiers_of` from rank sets,
:func:`tiers_from_pair_table` from paired tests); ``ranksets.py`` computes rank sets and does not
import this module.

References
----------
.. [A] "Is the #1 AI Model Really #1?", Towards Data Science (2026): think in clusters, not ranks.
.. [R] Mogstad, Romano, Shaikh and Wilhelm, "Inference for Ranks with Applications to Mobility
   across Neighbourhoods and Academic Achievement across Countries", Rev. Econ. Stud. (2024).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict

import numpy as np

from .._analysis import analysis
from ..errors import ArgumentError
from .._validate import SeedLike
from ..results import Result, jsonable

if TYPE_CHECKING:  # pragma: no cover
    from ..data import ScoreMatrix
    from ..stats import PairTable
    from ._ranksets import RankSets

__all__ = ["Tiers", "tiers", "tiers_from_pair_table", "tiers_from_rank_sets", "tiers_of"]


class TierRow(TypedDict):
    """One tier of :meth:`Tiers.to_dict` ``"tiers"`` (1 = could be #1)."""

    tier: int
    models: list[str]


class TiersJSON(TypedDict):
    """Layout of :meth:`Tiers.to_dict`."""

    method: str
    confidence_level: float
    adjust: str
    tiers: list[TierRow]
    model_tier: dict[str, int]


@dataclass(frozen=True, eq=False)
class Tiers(Result):
    """Tier of every model (1 = top tier).

    Attributes
    ----------
    models : tuple of str
        Model names in the matrix's order.
    tier : ndarray of int
        1-based tier per model (same order as ``models``).
    method : str
        ``"adjacent"`` or ``"rank-sets"``.
    order : ndarray of int
        Model indices from best to worst.
    confidence_level : float
    adjust : str or None
        Multiplicity adjustment used (``"adjacent"``).
    """

    _table = ("models", "tier")

    models: tuple[str, ...]
    tier: np.ndarray
    method: str
    order: np.ndarray
    confidence_level: float
    adjust: str | None = None

    @property
    def n_tiers(self) -> int:
        return int(self.tier.max()) if self.tier.size else 0

    def groups(self) -> list[list[str]]:
        """Model names per tier, best tier first, models in score order within a tier."""
        out: list[list[str]] = [[] for _ in range(self.n_tiers)]
        for k in self.order.tolist():
            out[int(self.tier[k]) - 1].append(self.models[k])
        return out

    def to_dict(self) -> TiersJSON:
        return jsonable({
            "method": self.method,
            "confidence_level": self.confidence_level,
            "adjust": self.adjust,
            "tiers": [{"tier": t + 1, "models": g} for t, g in enumerate(self.groups())],
            "model_tier": {m: int(t) for m, t in zip(self.models, self.tier.tolist())},
        })


def tiers_from_pair_table(table: "PairTable", *, alpha: float) -> Tiers:
    """Adjacent-difference tiers from a :class:`~ranktrust.stats._paired.PairTable`.

    The table may hold all pairs or the adjacent ones; only the pairs (model k, model k+1)
    in score order are read. A pair missing from the table or with a NaN p-value does not
    start a new tier.
    """
    order = np.asarray(table.order)
    k = order.size
    tier = np.ones(len(table.models), dtype=np.int64)
    if k > 1:
        padj = table.matrix("p_adjusted")
        step = padj[order[:-1], order[1:]]
        with np.errstate(invalid="ignore"):
            breaks = np.nan_to_num(step, nan=1.0) < alpha
        tier[order] = np.r_[1, 1 + np.cumsum(breaks)]
    return Tiers(
        models=table.models, tier=tier, method="adjacent", order=order,
        confidence_level=table.confidence_level, adjust=table.adjust,
    )


def tiers_of(rs: "RankSets") -> Tiers:
    """The tiers of computed rank sets (no new resampling).

    Tiers are the :func:`~ranktrust.ranking._ranksets.layers` of the simultaneous "found better"
    relation: tier 1 = the models that could be #1; no two models of a tier are told apart; every
    model of tier ``t + 1`` is found worse than at least one model of tier ``t``.
    """
    return Tiers(models=rs.models, tier=rs.tier, method="rank-sets", order=rs.order,
                 confidence_level=rs.confidence_level, adjust=rs.adjust)


def tiers_from_rank_sets(m: Any, *, confidence_level: float = 0.95, rng: Any = 0,
                         rank_sets: "RankSets | None" = None, **kw: Any) -> Tiers:
    """Tiers from simultaneous rank confidence sets (see :func:`tiers_of`).

    Parameters
    ----------
    m : ScoreMatrix or ndarray (M, N)
    confidence_level : float, default: ``0.95``
    rng : None, int or numpy.random.Generator, default: 0
    rank_sets : RankSets, optional
        Sets already computed for ``m`` (reused; nothing is resampled).
    **kw
        Passed to :func:`~ranktrust.rank_sets` (``method``, ``adjust``, ``n_resamples``, ``cluster``,
        ``batch``).

    Returns
    -------
    Tiers
        ``method="rank-sets"``.
    """
    if rank_sets is None:
        from ._ranksets import rank_sets as make_rank_sets

        rank_sets = make_rank_sets(m, confidence_level=confidence_level, rng=rng, **kw)
    return tiers_of(rank_sets)


@analysis
def tiers(
    m: "ScoreMatrix",
    *,
    method: Literal["adjacent", "rank-sets"] = "rank-sets",
    adjust: Literal["holm", "bonferroni", "bh", "none"] = "holm",
    confidence_level: float = 0.95,
    cluster: bool = False,
    rank_method: Literal["pairs", "bootstrap"] = "pairs",
    n_resamples: int = 1000,
    rng: SeedLike = 0,
    pair_table: "PairTable | None" = None,
) -> Tiers:
    """Group models into tiers the data cannot separate.

    Parameters
    ----------
    m : ScoreMatrix
    method : {"rank-sets", "adjacent"}, default: ``"rank-sets"``
        ``"rank-sets"``: tiers of the simultaneous rank confidence sets [R]
        (:func:`ranktrust.rank_sets`, by default from the paired tests of all pairs adjusted
        with ``adjust``). ``"adjacent"``: walk down the score order; a new tier starts where
        the adjacent pair's paired difference is significant at ``alpha = 1 -
        confidence_level`` after ``adjust`` over the ``M - 1`` adjacent tests (not transitive).
    adjust : {"holm", "bonferroni", "bh", "none"}, default: ``"holm"``
    confidence_level : float, default: ``0.95``
    cluster : bool, default: ``False``
        Clustered paired tests (or a cluster bootstrap with ``rank_method="bootstrap"``).
    rank_method : {"pairs", "bootstrap"}, default: ``"pairs"``
        ``method="rank-sets"`` only: the ``method`` of :func:`ranktrust.rank_sets`.
    n_resamples : int, default: ``1000``
        ``rank_method="bootstrap"`` only: bootstrap resamples.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, default: 0
        ``rank_method="bootstrap"`` only.
    pair_table : PairTable, optional
        Reuse paired tests already computed (adjacent or all pairs; its own adjustment is used).

    Returns
    -------
    Tiers

    Notes
    -----
    The adjacent walk is a first version: "A ~ B" and "B ~ C" can hold while A and C
    differ, so a tier is not a set of mutually indistinguishable models. Rank confidence
    sets [R] give tiers with a joint guarantee.

    References
    ----------
    .. [1] [A] "Is the #1 AI Model Really #1?" (2026).
    .. [2] Mogstad, Romano, Shaikh and Wilhelm, Rev. Econ. Stud. (2024).
    """
    from ..stats import check_confidence_level

    cl = check_confidence_level(confidence_level)
    if method == "rank-sets":
        return tiers_from_rank_sets(m, confidence_level=cl, adjust=adjust, rng=rng, cluster=cluster,
                                    method=rank_method, n_resamples=n_resamples, pair_table=pair_table)
    if method != "adjacent":
        raise ArgumentError(f"`method` must be 'adjacent' or 'rank-sets', got {method!r}")
    if pair_table is None:
        from ..stats import all_pairs

        pair_table = all_pairs(m, pairs="adjacent", adjust=adjust, confidence_level=cl, cluster=cluster)
    elif tuple(pair_table.models) != tuple(m.models):
        raise ArgumentError("`pair_table` was computed on other models than `m`")
    return tiers_from_pair_table(pair_table, alpha=1.0 - cl)
