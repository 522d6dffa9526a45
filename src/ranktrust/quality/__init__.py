"""Data-quality findings to check before trusting a ranking.

Two questions about the rows of a score matrix, asked before any interval is read:

* **Duplicated rows.** Are two models' per-item results identical or nearly so? That is
  a duplicate upload, the same run under two names, or two checkpoints that are the same
  model; either way the two rows are not independent evidence.
* **Person fit.** Does a model's per-item pattern fit its overall score? A model that
  gets hard items right and easy items wrong at the rate of a coin (a broken run, a
  shuffled answer key, answers joined to the wrong item ids) has a normal-looking
  accuracy but a pattern no item-response model explains. The statistic is Snijders'
  ``lz*`` under a 2PL model whose item parameters are fitted on the *other* models.

Both are computed with whole-matrix operations: agreement counts come from matrix
products of indicator matrices, and ``lz*`` for all models of a fold at once.

The package: ``_rows.py`` (duplicated rows: :func:`row_agreement`, :class:`SimilarPair`),
``_personfit.py`` (:func:`lz_star` and the 2PL fit on the other models) and this module
(:func:`data_quality`, which runs both, and its result :class:`DataQuality`).

References
----------
.. [1] T. A. B. Snijders, "Asymptotic null distribution of person fit statistics with
   estimated person parameter", Psychometrika 66 (2001) 331-342.
.. [2] F. Drasgow, M. V. Levine, E. A. Williams, "Appropriateness measurement with
   polychotomous item response models and standardized indices", British Journal of
   Mathematical and Statistical Psychology 38 (1985) 67-86.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
from scipy import special  # not scipy.stats: importing it costs the command line more than this module does

from .. import _validate
from .._kernel import is_binary, nan_mean
from .._validate import SeedLike
from ..errors import ArgumentError
from ..results import Note, NoteJSON, Result, jsonable
from ._personfit import (_below_rows, _by_ability, _difficulty_corr, _healthy_draw, _person_fit, _robust_z, ceiling_fit,
                         healthy_row, lz_star)
from ._rows import SimilarPair, _groups, row_agreement

if TYPE_CHECKING:  # pragma: no cover
    from ..data import ScoreMatrix

__all__ = ["DataQuality", "MisfitFlag", "SimilarPair", "ceiling_fit", "data_quality", "healthy_row", "lz_star",
           "row_agreement"]


_HEALTHY_ROWS = 120   # healthy rows drawn for the ceiling's reference: ceil(120 / n) matrices (at most 6) ...
_SMALL_ROWS = 600     # ... and on a small board (leave-one-out folds) ceil(600 / n) matrices,
_SMALL_CELLS = 10_000_000   # ... as long as the matrices' leave-one-out fits hold at most this many cells in all
_LOO_CELLS = 1_000_000      # leave-one-out folds when the n fits hold at most this many cells (n * n * n_items)
#: above this many cells the person fit runs on a random sample of items (``person_fit=True``; ``"all"``: every item)
SAMPLE_ABOVE_CELLS = 10_000_000
_SAMPLE_CELLS = 2_000_000   # ... of about this many cells (models x sampled items) ...
_SAMPLE_MIN_ITEMS = 1_000   # ... and at least this many items
_CEILING = ("ceiling", "healthy_ceiling", "ceiling_z", "ceiling_z_rel", "ceiling_lz", "ceiling_accuracy")


class PersonFitRow(TypedDict):
    """One model of :meth:`DataQuality.to_dict` ``"person_fit"``."""

    model: str
    lz_star: float
    lz_star_z: float
    ability: float
    accuracy: float
    n_items: int
    flagged: bool
    difficulty_corr: float | None
    expected_corr: float | None
    corr_z: float | None
    expected_accuracy: float | None
    score_z: float | None
    score_z_rel: float | None
    ceiling: float | None
    healthy_ceiling: float | None
    ceiling_z: float | None
    ceiling_z_rel: float | None
    ceiling_lz: float | None
    ceiling_accuracy: float | None


class DataQualityJSON(TypedDict):
    """Layout of :meth:`DataQuality.to_dict`."""

    similar_pairs: list[dict[str, Any]]
    similar_groups: list[list[str]]
    person_fit: list[PersonFitRow]
    misfit: list[str]
    flags: list[dict[str, Any]]
    lz_threshold: float
    min_corr_ratio: float
    nominal_rate: float
    notes: list[NoteJSON]
    settings: dict[str, Any]


@dataclass(frozen=True)
class MisfitFlag:
    """One flagged row and the figures behind the flag (see :func:`data_quality`, "Flag rule").

    Attributes
    ----------
    model : str
    reason : str
        The routes that flagged it, joined by ``" and "`` in this order: ``"pattern"``: its right and wrong
        answers do not follow item difficulty as a healthy row of its ability would (``lz_star``,
        ``lz_star_z``, ``difficulty_corr`` against ``expected_corr``); ``"lost"``: it is a healthy row of a
        higher ability that kept only a share ``ceiling`` of its right answers, at random over the items (a
        harness that lost answers; ``ceiling`` against ``healthy_ceiling``, ``ceiling_z``, ``ceiling_z_rel``,
        ``ceiling_lz``, ``ceiling_accuracy``);
        ``"score"``: it has far fewer right answers than a healthy row of any ability the fitted model
        allows (``score_z``, ``score_z_rel``). E.g. ``"pattern and score"``.
    accuracy, expected_accuracy : float
        The row's accuracy, and a healthy row's at the ability estimated for it.
    lz_star, lz_star_z : float
        ``lz*`` and ``lz*`` relative to the other rows.
    difficulty_corr, expected_corr, corr_z : float
        The row's correlation with the other models' per-item mean, a healthy row's at its ability
        under the fitted model, and ``(difficulty_corr - expected_corr) / SD``.
    corr_ratio : float
        ``difficulty_corr / expected_corr``.
    score_z, score_z_rel : float
        Right answers against a healthy row's (``(sum y - sum P) / sqrt(sum P Q)``), and relative to the
        other rows (median and MAD).
    ceiling, healthy_ceiling, ceiling_z, ceiling_z_rel, ceiling_lz, ceiling_accuracy : float
        The share of a healthy row's right answers the row keeps, what healthy rows of its ability show when
        fitted the same way (about 1; less far from the other models' abilities), the evidence that it keeps
        less in those healthy rows' SDs, that against the rows a ceiling describes, the row's fit once
        its ceiling is allowed (``lz``; about N(0, 1)), and a healthy row's accuracy at the ability its pattern
        shows (its accuracy before the losses).
    """

    model: str
    reason: str
    accuracy: float
    expected_accuracy: float
    lz_star: float
    lz_star_z: float
    difficulty_corr: float
    expected_corr: float
    corr_z: float
    corr_ratio: float
    score_z: float
    score_z_rel: float
    ceiling: float = float("nan")
    healthy_ceiling: float = float("nan")
    ceiling_z: float = float("nan")
    ceiling_z_rel: float = float("nan")
    ceiling_lz: float = float("nan")
    ceiling_accuracy: float = float("nan")


@dataclass(frozen=True, eq=False)
class DataQuality(Result):
    """Data-quality findings about the rows of a score matrix (see :func:`data_quality`).

    Attributes
    ----------
    models : tuple of str
    n_items : ndarray of int, shape (n_models,)
        Items each model was scored on.
    accuracy : ndarray, shape (n_models,)
        Mean score of each model on its scored items.
    similar_pairs : tuple of SimilarPair
        Pairs at or above ``near_identical`` agreement (with ``kappa >= min_kappa`` when
        kappa is defined) on at least ``min_items`` common items, most similar first.
    similar_groups : tuple of tuple of str
        The models linked by ``similar_pairs`` (connected groups, largest first; each in
        matrix order): each group is one row of evidence shown several times.
    person_fit : ndarray, shape (n_models,)
        ``lz*`` of each row under the 2PL fitted without it (NaN where not computed:
        non-0/1 scores, fewer than ``min_items`` scored items, or ``person_fit=False``).
    ability : ndarray, shape (n_models,)
        The 2PL ability of each row on the scale of the fit that left it out (NaN where
        not computed).
    person_fit_z : ndarray, shape (n_models,)
        ``lz*`` relative to the other rows: ``(lz* - median) / (1.4826 MAD)`` over the
        models with an ``lz*``. A 2PL describes LLM results only roughly, and the misfit
        every row shares grows with the number of items; this scale removes it.
    misfit : tuple of str
        Flagged models, worst first (``flags`` gives the reason and figures of each; the rule is in
        :func:`data_quality`).
    difficulty_corr : ndarray, shape (n_models,)
        Correlation of each row's per-item results with the other models' mean on those items
        (how much easier items are for it too).
    expected_corr : ndarray, shape (n_models,)
        The same correlation expected of a healthy row of that row's ability under the fitted 2PL
        (:func:`healthy_row`; NaN where person fit was not computed).
    corr_z : ndarray, shape (n_models,)
        ``(difficulty_corr - expected_corr) / SD``, the SD a healthy row's correlation has (delta method).
    expected_accuracy : ndarray, shape (n_models,)
        A healthy row's accuracy at the ability estimated for the row (its MAP estimate, N(0, 1) prior).
    score_z : ndarray, shape (n_models,)
        The row's right answers against a healthy row's: ``(sum y - sum P) / sqrt(sum P Q)``.
    score_z_rel : ndarray, shape (n_models,)
        ``score_z`` relative to the other rows (median and 1.4826 MAD).
    ceiling : ndarray, shape (n_models,)
        The share of a healthy row's right answers each row keeps: the upper asymptote ``d`` of
        ``P_j = d expit(a_j theta - b_j)`` fitted with the items fixed (:func:`ceiling_fit`; 1 for most
        healthy rows).
    healthy_ceiling : ndarray, shape (n_models,)
        What healthy rows of that ability show: the median ceiling of the rows nearest in ability of a
        matrix drawn from the fitted model and fitted the same way (near 1; lower for abilities far from
        the other models', where the items' fit is extrapolated).
    ceiling_z : ndarray, shape (n_models,)
        The evidence that the row keeps less than a healthy row: the signed root of the likelihood ratio
        of its ceiling against ``d = 1`` (0 where ``ceiling`` is 1), less what the healthy rows of that
        ability show (their median, when below 0), in their SDs (``1.4826 MAD``, at least 1).
    ceiling_z_rel : ndarray, shape (n_models,)
        ``ceiling_z`` against the rows whose pattern a ceiling explains (``ceiling_lz > lz_threshold``):
        ``(ceiling_z - min(median, 0)) / max(1.4826 MAD, 1)``, median and MAD over those rows.
    ceiling_lz : ndarray, shape (n_models,)
        ``lz`` of the row under the fit with its ceiling: does a ceiling explain the row?
    ceiling_accuracy : ndarray, shape (n_models,)
        A healthy row's accuracy at the ability the row's pattern shows once its ceiling is allowed (what
        it would score without the losses).
    min_corr_ratio : float
        A pattern flag needs ``difficulty_corr < min_corr_ratio * expected_corr`` (default 0.7).
    reasons : tuple of str
        Why each ``misfit`` model was flagged, in the same order: ``"pattern"``, ``"score"`` or
        ``"pattern and score"`` (``flags`` pairs them with the figures).
    lz_threshold : float
        The flagging threshold for ``lz*``.
    nominal_rate : float
        ``Phi(lz_threshold)``: the share of well-fitting rows expected below the threshold.
    settings : dict
        ``near_identical``, ``min_kappa``, ``min_items``, ``folds``, ``person_fit_method``
        and a ``person_fit_skipped`` reason when it was not computed.
    """

    models: tuple[str, ...]
    n_items: np.ndarray
    accuracy: np.ndarray
    similar_pairs: tuple[SimilarPair, ...]
    similar_groups: tuple[tuple[str, ...], ...]
    person_fit: np.ndarray
    ability: np.ndarray
    person_fit_z: np.ndarray
    misfit: tuple[str, ...]
    lz_threshold: float
    nominal_rate: float
    settings: dict[str, Any] = field(default_factory=dict)
    difficulty_corr: np.ndarray | None = None
    expected_corr: np.ndarray | None = None
    corr_z: np.ndarray | None = None
    expected_accuracy: np.ndarray | None = None
    score_z: np.ndarray | None = None
    score_z_rel: np.ndarray | None = None
    min_corr_ratio: float = 0.7
    reasons: tuple[str, ...] = ()
    ceiling: np.ndarray | None = None
    healthy_ceiling: np.ndarray | None = None
    ceiling_z: np.ndarray | None = None
    ceiling_z_rel: np.ndarray | None = None
    ceiling_lz: np.ndarray | None = None
    ceiling_accuracy: np.ndarray | None = None

    @property
    def flags(self) -> tuple[MisfitFlag, ...]:
        """The flagged rows (``misfit``, worst first) with the reason and the figures behind each flag."""
        idx = {m: i for i, m in enumerate(self.models)}
        nan = np.full(len(self.models), np.nan)

        def at(arr: np.ndarray | None, i: int) -> float:
            return float((nan if arr is None else arr)[i])

        out = []
        reasons = tuple(self.reasons) + ("pattern",) * (len(self.misfit) - len(self.reasons))   # built by hand
        for name, why in zip(self.misfit, reasons):
            i = idx[name]
            ec, dc = at(self.expected_corr, i), at(self.difficulty_corr, i)
            out.append(MisfitFlag(
                model=name, reason=why, accuracy=float(self.accuracy[i]),
                expected_accuracy=at(self.expected_accuracy, i), lz_star=float(self.person_fit[i]),
                lz_star_z=float(self.person_fit_z[i]), difficulty_corr=dc, expected_corr=ec,
                corr_z=at(self.corr_z, i), corr_ratio=dc / ec if ec > 0 else float("nan"),
                score_z=at(self.score_z, i), score_z_rel=at(self.score_z_rel, i),
                **{k: at(getattr(self, k), i) for k in _CEILING}))
        return tuple(out)

    @property
    def ok(self) -> bool:
        """True when nothing was flagged."""
        return not self.similar_pairs and not self.misfit

    def notes(self) -> list[Note]:
        """The findings as :class:`~ranktrust.results.Note` records, for a report's notes (empty when nothing
        was flagged): one ``similar_models`` record per group of (nearly) identical rows (``models``, and
        ``pairs``: each pair's agreement, items, items that differ, kappa, identical) and one ``misfit``
        record per flagged row (the fields of its :class:`MisfitFlag`), and ``person_fit_sampled`` when the person
        fit used a random sample of the items (above 10 million cells). Analysis writes no sentence: the
        words are ``ranktrust.reporting.note_text(note)``, which the report and its renderers use."""
        out = []
        for group in self.similar_groups:
            inside = [p for p in self.similar_pairs if p.model_a in group and p.model_b in group]
            out.append(Note("similar_models", {"models": list(group), "pairs": [
                {"model_a": p.model_a, "model_b": p.model_b, "agreement": p.agreement, "n_items": p.n_items,
                 "n_differ": p.n_differ, "kappa": p.kappa, "identical": p.identical} for p in inside]}))
        # MisfitFlag: the reason ("pattern", "score" or both) and the figures behind it
        out.extend(Note("misfit", _fields(flag)) for flag in self.flags)
        k = self.settings.get("person_fit_items")
        if k is not None:    # above 10 million cells: the person fit used a random sample of items
            n_all = int(self.settings["person_fit_items_of"])
            out.append(Note("person_fit_sampled", {"items": int(k), "n_items": n_all,
                                                   "cells": int(len(self.models) * n_all),
                                                   "above_cells": SAMPLE_ABOVE_CELLS,
                                                   "factor": float(np.sqrt(n_all / k))}))
        return out

    def to_dict(self) -> DataQualityJSON:
        # the person-fit rows from whole columns made JSON-ready at once (Python floats, None for NaN), not one
        # NumPy scalar at a time: the same rows, without a conversion per cell
        n = len(self.models)

        def col(v: Any) -> list:   # a whole column at once, non-finite as None (jsonable of a float array)
            return [None] * n if v is None else jsonable(np.asarray(v, dtype=np.float64))

        names = ("difficulty_corr", "expected_corr", "corr_z", "expected_accuracy", "score_z", "score_z_rel",
                 *_CEILING)
        lz, lzz, ab, acc = col(self.person_fit), col(self.person_fit_z), col(self.ability), col(self.accuracy)
        rest = [col(getattr(self, k)) for k in names]
        n_it = np.asarray(self.n_items).astype(np.int64).tolist()
        bad = set(self.misfit)
        rows = [{"model": m, "lz_star": lz[i], "lz_star_z": lzz[i], "ability": ab[i], "accuracy": acc[i],
                 "n_items": n_it[i], "flagged": m in bad, **{k: c[i] for k, c in zip(names, rest)}}
                for i, m in enumerate(self.models)]
        out = jsonable({
            "similar_pairs": [_fields(p) for p in self.similar_pairs],
            "similar_groups": [list(g) for g in self.similar_groups],
            "person_fit": [],
            "misfit": list(self.misfit),
            "flags": [_fields(f) for f in self.flags],
            "lz_threshold": self.lz_threshold,
            "min_corr_ratio": self.min_corr_ratio,
            "nominal_rate": self.nominal_rate,
            "notes": [n.to_dict() for n in self.notes()],
            "settings": self.settings,
        })
        out["person_fit"] = rows      # (JSON-ready already: str, float, None, int, bool)
        return out  # type: ignore[return-value]


def _fields(record: Any) -> dict[str, Any]:
    """``dataclasses.asdict`` of a flat record (every field a str, number or bool: nothing to copy deeply)."""
    return {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}


# ------------------------------------------------------------------ main
def _n_draws(n: int, cells: int, folds: int) -> int:
    """Healthy matrices drawn for the ceiling's reference: ``ceil(120 / n)`` (at most 6); on a small board
    (leave-one-out folds) ``ceil(600 / n)``, as long as their fits (``n * cells`` each) hold at most 10 million
    cells in all (SWE-bench's 25 x 500: 24 matrices)."""
    base = min(6, -(-_HEALTHY_ROWS // n))
    if folds < n:
        return base
    return max(base, min(-(-_SMALL_ROWS // n), _SMALL_CELLS // (n * cells)))


def _sampled_items(n: int, n_items: int, gen: np.random.Generator) -> np.ndarray | None:
    """The items the person fit uses above :data:`SAMPLE_ABOVE_CELLS` cells: a random sample (sorted) of about
    ``_SAMPLE_CELLS / n`` items, at least ``_SAMPLE_MIN_ITEMS``; None (every item) at or below it."""
    if n * n_items <= SAMPLE_ABOVE_CELLS:
        return None
    k = max(_SAMPLE_MIN_ITEMS, -(-_SAMPLE_CELLS // n))
    if k >= n_items:
        return None
    return np.sort(gen.choice(n_items, size=k, replace=False))


def _data_quality_iv(m: Any, near_identical: Any, min_kappa: Any, min_items: Any, lz_threshold: Any,
                     folds: Any, min_corr_ratio: Any = 0.7) -> None:
    from ..data import ScoreMatrix

    if not isinstance(m, ScoreMatrix):
        raise TypeError(f"`m` must be a ScoreMatrix; got {type(m).__name__}")
    if not (isinstance(near_identical, (int, float)) and 0.5 < near_identical <= 1):
        raise ArgumentError(f"`near_identical` must be in (0.5, 1] (a share of items); got {near_identical!r}",
                            param="near_identical")
    if not (isinstance(min_kappa, (int, float)) and -1 <= min_kappa <= 1):
        raise ArgumentError(f"`min_kappa` must be in [-1, 1]; got {min_kappa!r}", param="min_kappa")
    _validate.count(min_items, "min_items")
    if not (isinstance(lz_threshold, (int, float)) and lz_threshold < 0):
        raise ArgumentError(f"`lz_threshold` must be negative (misfit gives large negative lz*); got {lz_threshold!r}",
                            param="lz_threshold")
    if folds is not None:
        _validate.count(folds, "folds", minimum=2)   # each model's fit leaves its fold out
    if not (isinstance(min_corr_ratio, (int, float)) and not isinstance(min_corr_ratio, bool)
            and 0 < min_corr_ratio <= 1):
        raise ArgumentError(f"`min_corr_ratio` must be in (0, 1] (a share of the correlation a healthy row shows); "
                            f"got {min_corr_ratio!r}", param="min_corr_ratio")


def data_quality(
    m: "ScoreMatrix",
    *,
    near_identical: float = 0.98,
    min_kappa: float = 0.9,
    min_items: int = 20,
    person_fit: bool | str = True,
    lz_threshold: float = -4.0,
    min_corr_ratio: float = 0.7,
    pair_table: Any = None,
    folds: int | None = None,
    rng: SeedLike = 0,
) -> DataQuality:
    """Duplicated rows and rows that do not fit their score: findings to check before a ranking.

    Parameters
    ----------
    m : ScoreMatrix
        Per-item results (the mean over runs is used); missing cells are allowed and
        every comparison uses the items both rows (pairs) or the row (person fit) scored.
    near_identical : float, default: ``0.98``
        A pair is reported when at least this share of its common items have equal scores.
    min_kappa : float, default: ``0.9``
        ... and its Cohen's kappa is at least this (so two models near 100% that agree
        because both get almost everything right are not reported). Ignored where kappa
        is undefined (continuous scores, a constant row).
    min_items : int, default: ``20``
        Pairs with fewer common items, and rows with fewer scored items, are not judged.
    person_fit : bool or "all", default: ``True``
        Compute ``lz*`` and the figures beside it (0/1 scores only; needs at least 20 models). Above
        10 million cells (models x items) ``True`` fits them on a random sample of items (about 2 million
        cells, at least 1,000 items; drawn from ``rng``; ``settings["person_fit_items"]`` says how many):
        the figures of a healthy row keep their distribution, a misfit row's z-figures are about
        ``sqrt(items / sampled)`` times nearer 0 than on every item (:meth:`DataQuality.notes` says so).
        ``"all"`` uses every item whatever the size (its cost grows with the cells: about 15 s at
        1,000 x 14,000).
    lz_threshold : float, default: ``-4.0``
        The threshold of every z-like figure of the flag rule (Notes): ``lz*``, ``person_fit_z``,
        ``corr_z``, ``score_z`` and ``score_z_rel``. For rows that follow the model each is about
        N(0, 1) or narrower, so the nominal false-flag rate is at most ``Phi(-4) = 3.2e-5`` per row
        (about 1 in 30,000 rows): only clear outliers are flagged (see ``docs/quality.md`` for the
        null simulation).
    min_corr_ratio : float, default: ``0.7``
        A pattern flag also needs the row to follow item difficulty less than this share of what a
        healthy row of its ability shows: ``difficulty_corr < min_corr_ratio * expected_corr``. A broken
        row (wrong items, wrong key, random output, a harness that lost answers) falls far below
        (0-0.7 in the tests), while a real but unusual model does not (the strongest model of
        MMLU-Pro has lz* far below -4 only because it does better than a 2PL expects on the hardest
        items; its ratio is 0.86, and every MMLU-Pro row is 0.74-1.04).
    pair_table : PairTable, optional
        ``all_pairs(m, pairs="all")`` already computed (``rt.report`` passes its own): for complete
        0/1 data the agreement counts are read off it instead of another product over all pairs.
    folds : int, optional
        Models are split at random into this many folds; the 2PL item parameters used for
        a model are fitted on the other folds (a fit that excludes the model). Default: one model
        per fold (leave-one-out, no randomness) on a small board, where ``n_models**2 * n_items`` is at
        most a million (SWE-bench's 25 x 500): there a random split decides which of the few other
        models a row's items are fitted on, and the flags moved with the seed; otherwise 5, or 2 when
        the matrix has more than 2 million cells (each fit then still uses half of the models;
        1000 x 14,000 in a few seconds). ``folds >= n_models`` is leave-one-out.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, default: ``0``
        Randomness of the fold assignment and of the healthy rows drawn for the ceiling's reference
        (on a small board, with leave-one-out folds, only of the latter: the pattern and score routes
        do not depend on it).

    Returns
    -------
    DataQuality

    Notes
    -----
    **Similar rows.** For every pair, ``agreement = equal / common`` over the items both
    scored, and Cohen's ``kappa = (equal - expected) / (common - expected)`` with the
    chance term from each row's score distribution on those items (see
    :func:`row_agreement`; all pairs from matrix products).

    **Person fit.** For each fold, a 1-dimensional 2PL (:func:`ranktrust.subsets._irt.fit_2pl`,
    the tinyBenchmarks parameterisation ``P = expit(a theta - b)``, N(0, 1) ability prior) is
    fitted on the models of the other folds; each held-out model's ability is its MAP
    estimate with those item parameters fixed, and its ``lz*`` [1]_ is computed on its
    scored items (:func:`lz_star`). A row that follows the model has ``lz*`` about N(0, 1);
    a row whose right answers do not track item difficulty (random answers at the
    model's accuracy, a shuffled item order) has ``lz*`` far below 0.

    **What a healthy row of that ability shows.** With the same item parameters and the row's
    ability ``theta_hat``, a healthy row's results are independent Bernoulli(``P_j``):
    :func:`healthy_row` gives the mean and SD of its correlation with the other models' per-item
    mean (``expected_corr``, ``corr_z``), its accuracy (``expected_accuracy``) and how far the row's
    right answers are from it (``score_z``). :func:`ceiling_fit` gives the share of a healthy row's right
    answers the row keeps (``ceiling``, against ``healthy_ceiling``).

    **Flag rule** (``t = lz_threshold``). A row is flagged when

    * *pattern*: ``lz* < t``, ``person_fit_z < t``, ``corr_z < t`` and
      ``difficulty_corr < min_corr_ratio * expected_corr``: its answers do not follow item
      difficulty as a healthy row of its ability would, or
    * *lost*: ``ceiling_z < t``, ``ceiling_z_rel < t`` and ``ceiling_lz > t``: it is a healthy row of a
      higher ability that kept a share ``ceiling`` of its right answers, at random over the items, far fewer
      than healthy rows of its ability keep (:func:`ceiling_fit`; "healthy rows of its ability" are drawn
      from the fitted model and fitted the same way, so the reference includes the items' estimation), or
    * *score*: ``score_z < t`` and ``score_z_rel < t``: it has far fewer right answers than the
      fitted model allows a healthy row of any plausible ability (on benchmarks where models sit near
      chance, such as GPQA, the items barely separate abilities and a harness that lost most of its
      answers shows this way, not through ``lz*``).

    Each condition is judged on the model's scale and, where the 2PL fits real results only
    roughly, also against the other rows; ``flags`` gives the figures behind every flag.

    References
    ----------
    .. [1] T. A. B. Snijders, "Asymptotic null distribution of person fit statistics with
       estimated person parameter", Psychometrika 66 (2001) 331-342.

    Examples
    --------
    >>> import numpy as np, ranktrust as rt
    >>> g = np.random.default_rng(0)
    >>> theta, b = g.normal(size=(60, 1)), g.normal(size=300)
    >>> y = (g.random((60, 300)) < 1 / (1 + np.exp(-(theta - b)))).astype(float)
    >>> y[1] = y[0]                                     # a duplicate upload
    >>> y[2] = g.permutation(y[2])                      # answers joined to the wrong items
    >>> m = rt.ScoreMatrix.from_array(y, models=[f"m{i}" for i in range(60)],
    ...                               items=[f"q{j}" for j in range(300)])
    >>> q = rt.data_quality(m)
    >>> [(p.model_a, p.model_b, p.agreement) for p in q.similar_pairs]
    [('m0', 'm1', 1.0)]
    >>> q.misfit
    ('m2',)
    """
    _data_quality_iv(m, near_identical, min_kappa, min_items, lz_threshold, folds, min_corr_ratio)
    if not (isinstance(person_fit, bool) or person_fit == "all"):
        raise ArgumentError(f"`person_fit` must be True, False or 'all' (every item, whatever the size); "
                            f"got {person_fit!r}", param="person_fit")
    y = np.asarray(m.scores, dtype=np.float64)
    if folds is None:
        # leave-one-out on a small board (person fit needs 20 models: below that nothing is fitted, 5 is reported)
        folds = y.shape[0] if 20 <= y.shape[0] and y.shape[0] * y.size <= _LOO_CELLS else 5 if y.size <= 2_000_000 \
            else 2
    models = tuple(str(x) for x in m.models)
    n, _ = y.shape
    mask = ~np.isnan(y)
    n_scored = mask.sum(1)
    acc = nan_mean(y, axis=1)

    # similar rows (for complete 0/1 data the all-pairs table of the report already holds the counts); every pair
    # once, i < j in row-major order (the order of np.triu_indices)
    iu, ju = np.triu_indices(n, 1)
    if pair_table is not None and pair_table.binary and bool(mask.all()) and pair_table.pairs_scope == "all" \
            and tuple(pair_table.models) == models:
        n_it = float(y.shape[1])
        # discordant items of each pair, placed at the pair's row-major position (the table holds every pair once)
        both = np.asarray(pair_table.only_a, dtype=np.float64) + np.asarray(pair_table.only_b, dtype=np.float64)
        pi, pj = np.asarray(pair_table.i, dtype=np.intp), np.asarray(pair_table.j, dtype=np.intp)
        lo, hi = np.minimum(pi, pj), np.maximum(pi, pj)
        disc = np.zeros(iu.size)
        disc[lo * (2 * n - lo - 1) // 2 + (hi - lo - 1)] = both
        e_p = n_it - disc
        c_p = np.full(iu.size, n_it)
        p_ = y.sum(1) / n_it
        x_p = (p_[iu] * p_[ju] + (1 - p_[iu]) * (1 - p_[ju])) * n_it
    else:
        equal, common, expected = row_agreement(y)
        e_p, c_p, x_p = equal[iu, ju], common[iu, ju], expected[iu, ju]
    with np.errstate(invalid="ignore", divide="ignore"):
        a_p = e_p / c_p
        k_p = (e_p - x_p) / (c_p - x_p)
    hit = (c_p >= min_items) & (a_p >= near_identical - 1e-12) & (np.isnan(k_p) | (k_p >= min_kappa))
    hit &= ~(np.isnan(k_p) & ~np.isnan(x_p))      # constant rows (kappa 0/0): not evidence
    order = np.flatnonzero(hit)
    order = order[np.lexsort((iu[order], -c_p[order], -a_p[order]))]
    pairs = tuple(
        SimilarPair(model_a=models[iu[t]], model_b=models[ju[t]], agreement=float(a_p[t]), n_items=int(c_p[t]),
                    n_differ=int(round(c_p[t] - e_p[t])), kappa=float(k_p[t]), identical=bool(e_p[t] == c_p[t]))
        for t in order
    )

    groups = _groups(n, [(int(iu[t]), int(ju[t])) for t in order])

    # person fit
    fit = {k: np.full(n, np.nan) for k in ("lz", "theta", "expected_corr", "corr_sd", "expected_accuracy", "score_z",
                                            "ceiling", "ceiling_z", "ceiling_lz", "ceiling_accuracy",
                                            "healthy_ceiling")}
    skipped = None
    sampled = None    # (items the person fit used, items in all) when it used a sample
    binary = m.is_binary if m.n_runs == 1 else is_binary(y)     # (the matrix's answer is computed once)
    if not person_fit:
        skipped = "not requested"
    elif not binary:
        skipped = "person fit needs 0/1 scores (these are fractional or continuous)"
    elif n < 20:
        skipped = f"person fit needs at least 20 models to fit item parameters on the others; there are {n}"
    else:
        gen = _validate.rng(rng)
        # above 10 million cells: the person fit on a random sample of items (drawn first, so the folds and the
        # healthy rows below follow the same stream whatever the size)
        cols = _sampled_items(n, y.shape[1], gen) if person_fit is True else None
        ys, ms = (y, mask) if cols is None else (y[:, cols], mask[:, cols])
        labels = [str(x) for x in m.items] if cols is None else [str(m.items[j]) for j in cols]
        fit = _person_fit(ys, ms, folds, gen, min_items)
        # what healthy rows of each ability show, estimation included: matrices drawn from the fitted model and
        # fitted the same way (the items of a fold are fitted on a few dozen models at times: rows far from the
        # others' abilities then show a ceiling below 1 even when healthy); at least _HEALTHY_ROWS rows in all
        order = np.argsort(np.asarray(labels), kind="stable")
        sims = [_person_fit(_healthy_draw(fit["theta"], fit["fold"], fit["items"], ms, gen, order), ms, folds,
                            gen, min_items, ceiling_only=True, start_items=fit["items"])
                for _ in range(_n_draws(n, ys.size, folds))]
        sim = {k: np.concatenate([s_[k] for s_ in sims]) for k in ("theta", "ceiling", "ceiling_z")}
        fit["healthy_ceiling"] = _by_ability(sim["theta"], sim["ceiling"], fit["theta"])[0]
        ref, sd = _by_ability(sim["theta"], sim["ceiling_z"], fit["theta"])
        fit["ceiling_z"] = (fit["ceiling_z"] - np.minimum(ref, 0.0)) / np.maximum(sd, 1.0)
        if cols is not None:
            sampled = (int(cols.size), int(y.shape[1]))
    lz, theta = fit["lz"], fit["theta"]
    fz = _robust_z(lz)
    # the pattern's correlation on the items the healthy-row figures used (the sample above 10 million cells)
    dcorr = _difficulty_corr(y, mask) if sampled is None else _difficulty_corr(ys, ms)
    ecorr, score_z = fit["expected_corr"], fit["score_z"]
    score_rel = _robust_z(score_z)
    cz, clz = fit["ceiling_z"], fit["ceiling_lz"]
    t = lz_threshold
    explained = clz > t                                     # rows a ceiling describes
    cz_rel = _below_rows(cz, explained)                     # on the spread of those rows
    with np.errstate(invalid="ignore", divide="ignore"):
        corr_z = (dcorr - ecorr) / fit["corr_sd"]
        pattern = (lz < t) & (fz < t) & (corr_z < t) & (dcorr < min_corr_ratio * ecorr)
        lost = (cz < t) & (cz_rel < t) & explained
        low = (score_z < t) & (score_rel < t)
    routes = (("pattern", pattern, fz), ("lost", lost, cz_rel), ("score", low, score_rel))
    flagged = np.flatnonzero(pattern | lost | low)
    # worst first: the smallest relative figure of the routes that flagged it
    worst = np.fmin.reduce([np.where(hit, rel, np.inf) for _, hit, rel in routes])
    flagged = flagged[np.argsort(worst[flagged], kind="stable")]
    reasons = tuple(" and ".join(name for name, hit, _ in routes if hit[i]) for i in flagged)
    settings = {
        "near_identical": float(near_identical), "min_kappa": float(min_kappa), "min_items": int(min_items),
        "folds": int(folds),
        "person_fit_method": "lz* (Snijders 2001), a healthy row of the same ability and the share of its right "
                             "answers a row keeps (an upper asymptote), under a 1-dimensional 2PL fitted on the "
                             "other folds' models",
        "person_fit_skipped": skipped,
    }
    if sampled is not None:
        settings.update(person_fit_items=sampled[0], person_fit_items_of=sampled[1])
    return DataQuality(
        models=models, n_items=n_scored.astype(np.int64), accuracy=acc, similar_pairs=pairs,
        similar_groups=tuple(tuple(models[i] for i in g) for g in groups), person_fit=lz,
        ability=theta, person_fit_z=fz, misfit=tuple(models[i] for i in flagged), lz_threshold=float(lz_threshold),
        nominal_rate=float(special.ndtr(lz_threshold)), settings=settings, difficulty_corr=dcorr,
        expected_corr=ecorr, corr_z=corr_z, expected_accuracy=fit["expected_accuracy"], score_z=score_z,
        score_z_rel=score_rel, min_corr_ratio=float(min_corr_ratio), reasons=reasons, ceiling=fit["ceiling"],
        healthy_ceiling=fit["healthy_ceiling"],
        ceiling_z=cz, ceiling_z_rel=cz_rel, ceiling_lz=clz, ceiling_accuracy=fit["ceiling_accuracy"],
    )

