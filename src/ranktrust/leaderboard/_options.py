"""The report's settings, grouped: how the verdicts are made, the resampling sections, what else to show.

``rt.report(m, inference=Inference(adjust="bh"), resampling=Resampling(split_half=True))`` and
``rt.report(m, adjust="bh", split_half=True)`` are the same call: every field is also a keyword of
:func:`~ranktrust.leaderboard.report` (the names are unique across the three groups). Giving a group and
one of its fields as a keyword is an error (which one would win is not obvious).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

from ..errors import ArgumentError

__all__ = ["Inference", "Resampling", "Sections", "DEFAULT_SIZES", "DEFAULT_POWER_GAPS", "resolve"]

DEFAULT_SIZES: tuple[int | str, ...] = (30, 100, 200, 500, 1000, 2000, "full")
DEFAULT_POWER_GAPS: tuple[float, ...] = (0.01, 0.02, 0.03, 0.05, 0.10)


@dataclass(frozen=True)
class Inference:
    """How every interval, paired test and verdict of the report is made.

    Attributes
    ----------
    confidence_level : float, default: 0.95
    adjust : {"holm", "bonferroni", "bh", "none"}, default: ``"holm"``
        Multiple-comparison adjustment over all pairs. Holm and Bonferroni give rank ranges with
        joint coverage; BH and none do not (a note says so).
    cluster : bool, default: False
        Clustered intervals and paired tests by item group (CR2 with t(G - 1), the default
        ``cluster_correction`` of :func:`ranktrust.intervals`); needs groups.
    cluster_label : str, optional
        Name of the grouping (e.g. the column ``"subject"``), recorded in the settings.
    ci_method : {"auto", "clt", "t", "wilson", "cluster", "percentile", "bca"}, default: ``"auto"``
        Per-model interval method (see :func:`ranktrust.intervals`); ``"percentile"``/``"bca"``
        bootstrap through the resampling engine, seeded from ``rng``.
    tiers : {"auto", "rank-sets", "adjacent"}, default: ``"auto"``
        ``"auto"``/``"rank-sets"``: the tiers of the rank ranges. ``"adjacent"``: a new tier wherever
        the adjacent pair differs; not transitive (two models far apart can share a tier), labelled so.
    rank_method : {"pairs", "bootstrap"}, default: ``"pairs"``
        How rank ranges are computed (:func:`ranktrust.rank_sets`). ``"bootstrap"`` needs the items
        every model shares (``align="intersect"``).
    gold : ScoreMatrix, optional
        Gold labels (a person's) on a random subset of the items, NaN where not labelled; the report's matrix
        is then the judge's scores, and every interval and verdict estimates the gold labels' means
        (``ranktrust.leaderboard`` module ``_gold``; :func:`ranktrust.intervals` with ``gold``).
    gold_method : {"auto", "ppi++", "stratified", "rogan-gladen"}, default: ``"auto"``
        The gold estimator (``auto``: ``stratified`` for 0/1 judge and labels, else ``ppi++``).
    judges : {"auto", "random", "fixed"}, optional
        The matrix's runs are judges (or repeated judgments) of the same answers: the per-model intervals count
        the judges' variance (:func:`ranktrust.intervals` with ``judges``: two-way clustering by item and judge
        when the judges are random, by item when fixed; ``"auto"``: random from 10 judges). The pair tests,
        tiers and rank ranges use each item's mean over the judges (valid for these judges). None: runs are
        averaged as repeats.
    """

    confidence_level: float = 0.95
    adjust: str = "holm"
    cluster: bool = False
    cluster_label: str | None = None
    ci_method: str = "auto"
    tiers: str = "auto"
    rank_method: str = "pairs"
    gold: Any = None
    gold_method: str = "auto"
    judges: str | None = None


@dataclass(frozen=True)
class Resampling:
    """The descriptive resampling sections (never a verdict).

    Attributes
    ----------
    stability : bool or "all", default: True
        Rank stability vs benchmark size (:func:`ranktrust.stability`). Above 10 million cells (models x the
        items every model has) it draws at most 500 per size, and a note states the Monte Carlo standard error
        of its figures; ``"all"`` draws ``stability_n_resamples`` per size whatever the size (slower).
    sizes : sequence of int or "full"
        Its benchmark sizes.
    stability_n_resamples : int, default: ``2000``
        Its bootstrap draws per size (at most 500 above 10 million cells unless ``stability="all"``).
    split_half : bool, default: False
        The split-half winner check (:func:`ranktrust.split_half`).
    split_half_n_resamples : int, default: ``3000``
        Its random halves.
    """

    stability: bool | str = True
    sizes: Sequence[int | str] = DEFAULT_SIZES
    stability_n_resamples: int = 2000
    split_half: bool = False
    split_half_n_resamples: int = 3000

    def __post_init__(self) -> None:
        if not any(self.stability is v or self.stability == v for v in (True, False, "all")):
            raise ArgumentError(f"`stability` must be True, False or 'all' (every draw, whatever the size); got "
                                f"{self.stability!r}", param="stability")


@dataclass(frozen=True)
class Sections:
    """What else the report shows.

    Attributes
    ----------
    all_pairs : bool, default: False
        Show every pair instead of each model vs the next one down (the tests are the same).
    power_gaps : sequence of float
        Gaps (fractions) of the questions-needed table.
    microbench : bool, default: False
        The micro-benchmark section (MDAD of random/stratified/anchor/IRT/diversity subsets,
        ``microbench_n_resamples`` trials, 70% of models as sources, at least 3 left as targets; fewer
        than 5 models: left out, with a note).
    microbench_n_resamples : int, default: ``20``
    quality : bool or "all", default: True
        Data-quality findings (identical rows, rows that do not fit their score) as notes. Above 10 million
        cells the person fit uses a random sample of items (a note says so; see
        :func:`ranktrust.data_quality`'s ``person_fit``); ``"all"`` uses every item (slower).
    title : str, optional
        The report's title (default: the input's file name).
    """

    all_pairs: bool = False
    power_gaps: Sequence[float] = DEFAULT_POWER_GAPS
    microbench: bool = False
    microbench_n_resamples: int = 20
    quality: bool | str = True
    title: str | None = None


_GROUPS = {"inference": Inference, "resampling": Resampling, "sections": Sections}


def resolve(inference: Any, resampling: Any, sections: Any,
            keywords: dict[str, Any]) -> tuple[Inference, Resampling, Sections]:
    """The three groups from the given groups and the flat keywords (each keyword goes to its group)."""
    given = {"inference": inference, "resampling": resampling, "sections": sections}
    owner = {f.name: g for g, cls in _GROUPS.items() for f in dataclasses.fields(cls)}
    unknown = [k for k in keywords if k not in owner]
    if unknown:
        raise TypeError(f"report() got an unexpected keyword argument {unknown[0]!r}")
    out = []
    for g, cls in _GROUPS.items():
        obj = given[g]
        mine = {k: v for k, v in keywords.items() if owner[k] == g}
        if obj is None:
            obj = cls(**mine)
        else:
            if not isinstance(obj, cls):
                raise TypeError(f"`{g}` must be a {cls.__name__}; got {type(obj).__name__}")
            if mine:
                raise ArgumentError(f"`{g}` and `{next(iter(mine))}` are both given: put `{next(iter(mine))}` "
                                 f"into the {cls.__name__} or leave `{g}` out", param=g)
        out.append(obj)
    return out[0], out[1], out[2]
