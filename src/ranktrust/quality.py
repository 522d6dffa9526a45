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
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import special, stats

from .results import Result, jsonable

if TYPE_CHECKING:  # pragma: no cover
    from .data.matrix import ScoreMatrix

__all__ = ["DataQuality", "SimilarPair", "data_quality", "lz_star", "row_agreement"]

_MAX_LEVELS = 8        # score levels handled exactly by indicator products; more: a filter, then exact checks
_FIT_MAX_MODELS = 500  # item parameters of a fold are fitted on at most this many of the other models
_ROW_BLOCK = 256       # held-out rows scored at a time (abilities and lz* are row by row)


# ------------------------------------------------------------------ agreement
def row_agreement(y: np.ndarray, *, tol: float = 1e-9) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairwise-complete agreement between the rows of a score matrix.

    Parameters
    ----------
    y : ndarray, shape (n_models, n_items)
        Scores; ``NaN`` = not scored.
    tol : float, default: ``1e-9``
        Two scores are equal when they differ by at most ``tol``.

    Returns
    -------
    equal : ndarray, shape (n_models, n_models)
        Items both rows scored with equal scores.
    common : ndarray, shape (n_models, n_models)
        Items both rows scored.
    expected : ndarray, shape (n_models, n_models)
        Equal items expected if the two rows were independent draws from their own score
        distributions on the common items (``sum_v p_iv p_jv * common``; the chance term of
        Cohen's kappa). NaN for data with more than 8 distinct score levels.

    Notes
    -----
    With at most 8 distinct score levels (0/1, partial credit, means over a few runs) the
    counts are exact sums of products of indicator matrices, ``sum_v L_v L_v^T``. With more
    levels, the mean squared difference over the common items (also from matrix products)
    bounds the share of unequal items, and only the pairs it cannot rule out are checked
    item by item.
    """
    y = np.asarray(y, dtype=np.float64)
    mask = ~np.isnan(y)
    Mk = mask.astype(np.float32)
    complete = bool(mask.all())
    n_items = y.shape[1]
    common = (np.full((y.shape[0],) * 2, float(n_items)) if complete else (Mk @ Mk.T).astype(np.float64))
    obs = y[mask]
    if obs.size and bool(np.all((obs == 0) | (obs == 1))):
        vals = np.array([0.0, 1.0])
    else:
        vals = np.unique(np.round(obs / tol) * tol) if obs.size else np.array([])
    if vals.size <= _MAX_LEVELS:
        equal = np.zeros_like(common)
        expected = np.zeros_like(common)
        inds = [(mask & (np.abs(y - v) <= tol)).astype(np.float32) for v in vals]
        if len(inds) == 2 and complete:          # 0/1 complete: one product
            a = inds[1]
            s = a.sum(1).astype(np.float64)
            both = (a @ a.T).astype(np.float64)
            equal = n_items - (s[:, None] + s[None, :] - 2 * both)
            p = s / n_items
            expected = (np.outer(p, p) + np.outer(1 - p, 1 - p)) * n_items
        else:
            for ind in inds:
                equal += (ind @ ind.T).astype(np.float64)
                cnt = (ind @ Mk.T).astype(np.float64)     # [i, j]: items of level v for i among those j scored
                with np.errstate(invalid="ignore", divide="ignore"):
                    expected += np.where(common > 0, cnt * cnt.T / common, 0.0)
        return equal, common, expected
    # many levels: mean squared difference -> candidates -> exact counts
    y0 = np.where(mask, y, 0.0)
    sq = (y0 * y0).astype(np.float64)
    cross = y0 @ y0.T
    a2 = sq @ mask.T.astype(np.float64)
    msd = (a2 + a2.T - 2 * cross) / np.maximum(common, 1)
    rng_ = float(np.nanmax(y) - np.nanmin(y)) or 1.0
    equal = np.zeros_like(common)
    cand = np.argwhere(np.triu(msd <= 0.1 * rng_**2 + tol, 1))   # >= 90% equal items imply msd <= 0.1 range^2
    for i, j in cand:
        both = mask[i] & mask[j]
        equal[i, j] = equal[j, i] = np.count_nonzero(np.abs(y[i, both] - y[j, both]) <= tol)
    np.fill_diagonal(equal, np.diag(common))
    return equal, common, np.full_like(common, np.nan)


# ------------------------------------------------------------------ person fit
def lz_star(y: np.ndarray, ability: np.ndarray, discrimination: np.ndarray, difficulty: np.ndarray, *,
            prior_sd: float | None = 1.0) -> np.ndarray:
    """Snijders' ``lz*`` for 0/1 rows under a 1-dimensional 2PL model (vectorised over rows).

    Parameters
    ----------
    y : ndarray, shape (n_rows, n_items)
        0/1 scores; ``NaN`` = not scored (left out of every sum).
    ability : ndarray, shape (n_rows,) or (n_rows, 1)
        Each row's estimated ability (MAP with a N(0, prior_sd^2) prior, or ML).
    discrimination, difficulty : ndarray, shape (n_items,) or (n_items, 1)
        Item parameters: ``P_j = expit(a_j theta - b_j)``.
    prior_sd : float or None, default: ``1``
        The prior of the ability estimate (``None``: maximum likelihood).

    Returns
    -------
    ndarray, shape (n_rows,)
        ``lz*``; approximately N(0, 1) for a row that follows the model, large negative
        values for rows that do not. NaN for rows with no scored item.

    Notes
    -----
    With ``w_j = logit P_j`` (the weight of the log-likelihood statistic ``lz`` [2]_),
    ``r_j = a_j`` and ``r0(theta) = -theta / prior_sd^2`` (the estimating equation of
    the ability is ``r0 + sum (y_j - P_j) r_j = 0``), Snijders [1]_ corrects ``lz`` for the
    estimated ability:

    ``c = sum P'_j w_j / sum P'_j r_j`` with ``P'_j = a_j P_j (1 - P_j)``,

    ``lz* = [sum (y_j - P_j) w_j + c r0] / sqrt(sum (w_j - c r_j)^2 P_j (1 - P_j))``.

    References
    ----------
    .. [1] T. A. B. Snijders, Psychometrika 66 (2001) 331-342.
    .. [2] F. Drasgow, M. V. Levine, E. A. Williams, Br. J. Math. Stat. Psychol. 38 (1985) 67-86.
    """
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    th = np.asarray(ability, dtype=np.float64).reshape(-1)
    a = np.asarray(discrimination, dtype=np.float64).reshape(-1)
    b = np.asarray(difficulty, dtype=np.float64).reshape(-1)
    mask = ~np.isnan(y)
    z = np.multiply.outer(th, a) - b[None, :]          # = logit P = w_j
    p = special.expit(z)
    q = p * (1 - p)
    if not mask.all():
        q = np.where(mask, q, 0.0)
    resid = np.where(mask, y - p, 0.0)
    c = (q * z) @ a / np.maximum(q @ (a * a), 1e-300)
    r0 = np.zeros_like(th) if prior_sd is None else -th / prior_sd**2
    num = np.sum(resid * z, axis=1) + c * r0
    wt = z - c[:, None] * a[None, :]
    den = np.sqrt(np.sum(wt * wt * q, axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((mask.sum(1) > 0) & (den > 0), num / den, np.nan)


# ------------------------------------------------------------------ results
@dataclass(frozen=True)
class SimilarPair:
    """Two models whose per-item results agree on (nearly) every item they share.

    Attributes
    ----------
    model_a, model_b : str
    agreement : float
        Share of the common items with equal scores (1.0 = identical rows).
    n_items : int
        Items both models were scored on.
    n_differ : int
        Common items with different scores.
    kappa : float
        Cohen's kappa of the two rows on the common items (agreement beyond what their
        score distributions give by chance; NaN for continuous scores or constant rows).
    identical : bool
        Every common item has the same score.
    """

    model_a: str
    model_b: str
    agreement: float
    n_items: int
    n_differ: int
    kappa: float
    identical: bool


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
        Models with ``lz* < lz_threshold``, ``person_fit_z < lz_threshold`` and
        ``difficulty_corr < max_difficulty_corr``, worst first.
    difficulty_corr : ndarray, shape (n_models,)
        Correlation of each row's per-item results with the other models' mean on those items
        (how much easier items are for it too). A real model, however unusual, gets the items the
        others find easy right more often (0.4-0.6 on MMLU-Pro, also for the strongest model);
        a row joined to the wrong items, graded with a wrong key or random is near 0.
    max_difficulty_corr : float
        The third condition for a flag (default 0.2).
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
    max_difficulty_corr: float = 0.2

    @property
    def ok(self) -> bool:
        """True when nothing was flagged."""
        return not self.similar_pairs and not self.misfit

    def notes(self) -> list[str]:
        """Plain-words findings, one sentence each, for a report's notes (empty when nothing was flagged)."""
        out: list[str] = []
        for group in self.similar_groups:
            inside = [p for p in self.similar_pairs if p.model_a in group and p.model_b in group]
            lo = min(p.agreement for p in inside)
            items = sorted({p.n_items for p in inside})
            span = f"{items[0]}" if len(items) == 1 else f"{items[0]}-{items[-1]}"
            if len(group) == 2:
                p = inside[0]
                what = (f"have identical per-item results on all {p.n_items} items they share" if p.identical else
                        f"agree on {100 * p.agreement:.1f}% of the {p.n_items} items they share (differ on "
                        f"{p.n_differ}; kappa {p.kappa:.2f})")
                out.append(f"{group[0]} and {group[1]} {what}: a duplicate upload, one run under two names, or "
                           "two models that give the same answers; they are not independent evidence.")
            else:
                what = ("identical per-item results" if all(p.identical for p in inside) else
                        f"identical or near-identical per-item results (pairs agree on at least {100 * lo:.1f}% "
                        "of the items they share)")
                out.append(f"{len(group)} models have {what} on {span} items: {', '.join(group)}. Rows like these "
                           "come from duplicate uploads, one run under several names, or models that give the "
                           "same answer to every item (e.g. always the first option); they are not independent "
                           "evidence.")
        idx = {m: i for i, m in enumerate(self.models)}
        for name in self.misfit:
            i = idx[name]
            dc = "" if self.difficulty_corr is None else (
                f"; its results correlate only {self.difficulty_corr[i]:.2f} with how the other models do on each "
                "item")
            out.append(f"{name}: its per-item pattern does not fit its overall score of {100 * self.accuracy[i]:.1f}% "
                       f"(lz* = {self.person_fit[i]:.1f}, {abs(self.person_fit_z[i]):.1f} robust SDs below the "
                       f"other models; flagged below {self.lz_threshold:g} on both{dc}): this row looks like "
                       "a broken or mislabelled run (answers joined to the wrong items, a wrong answer key, or "
                       "random output); check it before trusting its rank.")
        return out

    def to_dict(self) -> dict[str, Any]:
        return jsonable({
            "similar_pairs": [dataclasses.asdict(p) for p in self.similar_pairs],
            "similar_groups": [list(g) for g in self.similar_groups],
            "person_fit": [
                {"model": m, "lz_star": self.person_fit[i], "lz_star_z": self.person_fit_z[i],
                 "ability": self.ability[i],
                 "accuracy": self.accuracy[i], "items": int(self.n_items[i]), "flagged": m in self.misfit,
                 "difficulty_corr": None if self.difficulty_corr is None else self.difficulty_corr[i]}
                for i, m in enumerate(self.models)
            ],
            "misfit": list(self.misfit),
            "lz_threshold": self.lz_threshold,
            "nominal_rate": self.nominal_rate,
            "notes": self.notes(),
            "settings": self.settings,
        })


# ------------------------------------------------------------------ main
def _data_quality_iv(m: Any, near_identical: Any, min_kappa: Any, min_items: Any, lz_threshold: Any,
                     folds: Any) -> None:
    from .data.matrix import ScoreMatrix

    if not isinstance(m, ScoreMatrix):
        raise TypeError(f"`m` must be a ScoreMatrix; got {type(m).__name__}")
    if not (isinstance(near_identical, (int, float)) and 0.5 < near_identical <= 1):
        raise ValueError(f"`near_identical` must be in (0.5, 1] (a share of items); got {near_identical!r}")
    if not (isinstance(min_kappa, (int, float)) and -1 <= min_kappa <= 1):
        raise ValueError(f"`min_kappa` must be in [-1, 1]; got {min_kappa!r}")
    if isinstance(min_items, bool) or not isinstance(min_items, (int, np.integer)) or min_items < 1:
        raise ValueError(f"`min_items` must be a positive integer; got {min_items!r}")
    if not (isinstance(lz_threshold, (int, float)) and lz_threshold < 0):
        raise ValueError(f"`lz_threshold` must be negative (misfit gives large negative lz*); got {lz_threshold!r}")
    if folds is not None and (isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2):
        raise ValueError(f"`folds` must be an integer >= 2 (each model's fit leaves its fold out); got {folds!r}")


def data_quality(
    m: "ScoreMatrix",
    *,
    near_identical: float = 0.98,
    min_kappa: float = 0.9,
    min_items: int = 20,
    person_fit: bool = True,
    lz_threshold: float = -4.0,
    max_difficulty_corr: float = 0.2,
    pair_table: Any = None,
    folds: int | None = None,
    rng: int | np.random.Generator | None = 0,
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
    person_fit : bool, default: ``True``
        Compute ``lz*`` (0/1 scores only; needs at least 20 models).
    lz_threshold : float, default: ``-4.0``
        A row is flagged when both its ``lz*`` and its ``lz*`` relative to the other rows
        (``person_fit_z``, median and MAD) are below this. For rows that follow the model
        both are about N(0, 1), so the nominal false-flag rate is ``Phi(-4) = 3.2e-5`` per
        row (about 1 in 30,000 rows): only clear outliers are flagged (see ``docs/quality.md``
        for the null simulation).
    max_difficulty_corr : float, default: ``0.2``
        ... and its results correlate less than this with the other models' per-item mean
        (``difficulty_corr``): a broken row (wrong items, wrong key, random output) does not
        follow item difficulty at all, while a real but unusual model does (the strongest
        model of MMLU-Pro has lz* far below -4 only because it does better than a 2PL expects on
        the hardest items; its correlation is 0.49).
    pair_table : PairTable, optional
        ``all_pairs(m, pairs="all")`` already computed (``rt.report`` passes its own): for complete
        0/1 data the agreement counts are read off it instead of another product over all pairs.
    folds : int, optional
        Models are split at random into this many folds; the 2PL item parameters used for
        a model are fitted on the other folds (a fit that excludes the model). Default: 5,
        or 2 when the matrix has more than 2 million cells (each fit then still uses half
        of the models; 1000 x 14,000 in a few seconds).
    rng : None, int or numpy.random.Generator, default: ``0``
        Randomness of the fold assignment.

    Returns
    -------
    DataQuality

    Notes
    -----
    **Similar rows.** For every pair, ``agreement = equal / common`` over the items both
    scored, and Cohen's ``kappa = (equal - expected) / (common - expected)`` with the
    chance term from each row's score distribution on those items (see
    :func:`row_agreement`; all pairs from matrix products).

    **Person fit.** For each fold, a 1-dimensional 2PL (:func:`ranktrust.subsets.irt.fit_2pl`,
    the tinyBenchmarks parameterisation ``P = expit(a theta - b)``, N(0, 1) ability prior) is
    fitted on the models of the other folds; each held-out model's ability is its MAP
    estimate with those item parameters fixed, and its ``lz*`` [1]_ is computed on its
    scored items (:func:`lz_star`). A row that follows the model has ``lz*`` about N(0, 1);
    a row whose right answers do not track item difficulty (random answers at the
    model's accuracy, a shuffled item order) has ``lz*`` far below 0.

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
    _data_quality_iv(m, near_identical, min_kappa, min_items, lz_threshold, folds)
    y = np.asarray(m.scores, dtype=np.float64)
    if folds is None:
        folds = 5 if y.size <= 2_000_000 else 2
    models = tuple(str(x) for x in m.models)
    n, _ = y.shape
    mask = ~np.isnan(y)
    n_scored = mask.sum(1)
    with np.errstate(invalid="ignore"):
        acc = np.where(n_scored > 0, np.nansum(y, axis=1) / np.maximum(n_scored, 1), np.nan)

    # similar rows (for complete 0/1 data the all-pairs table of the report already holds the counts)
    if pair_table is not None and pair_table.binary and bool(mask.all()) and pair_table.pairs_scope == "all" \
            and tuple(pair_table.models) == models:
        n_it = float(y.shape[1])
        disc = np.nan_to_num(pair_table.matrix("only_a") + pair_table.matrix("only_b"), nan=0.0)
        equal = n_it - disc
        common = np.full((n, n), n_it)
        p_ = y.sum(1) / n_it
        expected = (np.outer(p_, p_) + np.outer(1 - p_, 1 - p_)) * n_it
    else:
        equal, common, expected = row_agreement(y)
    with np.errstate(invalid="ignore", divide="ignore"):
        agree = equal / common
        kappa = (equal - expected) / (common - expected)
    iu, ju = np.triu_indices(n, 1)
    a_p, c_p, k_p = agree[iu, ju], common[iu, ju], kappa[iu, ju]
    hit = (c_p >= min_items) & (a_p >= near_identical - 1e-12) & (np.isnan(k_p) | (k_p >= min_kappa))
    hit &= ~(np.isnan(k_p) & ~np.isnan(expected[iu, ju]))      # constant rows (kappa 0/0): not evidence
    order = np.flatnonzero(hit)
    order = order[np.lexsort((iu[order], -c_p[order], -a_p[order]))]
    pairs = tuple(
        SimilarPair(model_a=models[iu[t]], model_b=models[ju[t]], agreement=float(a_p[t]), n_items=int(c_p[t]),
                    n_differ=int(round(c_p[t] - equal[iu[t], ju[t]])), kappa=float(k_p[t]),
                    identical=bool(equal[iu[t], ju[t]] == c_p[t]))
        for t in order
    )

    groups = _groups(n, [(int(iu[t]), int(ju[t])) for t in order])

    # person fit
    lz = np.full(n, np.nan)
    theta = np.full(n, np.nan)
    skipped = None
    binary = bool(np.all((y[mask] == 0) | (y[mask] == 1)))
    if not person_fit:
        skipped = "not requested"
    elif not binary:
        skipped = "person fit needs 0/1 scores (these are fractional or continuous)"
    elif n < 20:
        skipped = f"person fit needs at least 20 models to fit item parameters on the others; there are {n}"
    else:
        lz, theta = _person_fit(y, mask, folds, np.random.default_rng(rng), min_items)
    fz = _robust_z(lz)
    dcorr = _difficulty_corr(y, mask)
    with np.errstate(invalid="ignore"):
        flagged = np.flatnonzero((lz < lz_threshold) & (fz < lz_threshold) & (dcorr < max_difficulty_corr))
    flagged = flagged[np.argsort(fz[flagged], kind="stable")]
    settings = {
        "near_identical": float(near_identical), "min_kappa": float(min_kappa), "min_items": int(min_items),
        "folds": int(folds),
        "person_fit_method": "lz* (Snijders 2001) under a 1-dimensional 2PL fitted on the other folds' models",
        "person_fit_skipped": skipped,
    }
    return DataQuality(
        models=models, n_items=n_scored.astype(np.int64), accuracy=acc, similar_pairs=pairs,
        similar_groups=tuple(tuple(models[i] for i in g) for g in groups), person_fit=lz,
        ability=theta, person_fit_z=fz, misfit=tuple(models[i] for i in flagged), lz_threshold=float(lz_threshold),
        nominal_rate=float(stats.norm.cdf(lz_threshold)), settings=settings, difficulty_corr=dcorr,
        max_difficulty_corr=float(max_difficulty_corr),
    )


def _difficulty_corr(y: np.ndarray, mask: np.ndarray, *, block: int = 256) -> np.ndarray:
    """Per row: Pearson correlation of its scores with the other rows' mean on each item (its own
    scored items where at least one other row scored them). Vectorised over blocks of rows (float32;
    memory bounded by ``block`` rows at a time)."""
    tot = np.where(mask, y, 0.0).sum(0).astype(np.float32)
    cnt = mask.sum(0).astype(np.float32)
    out = np.full(y.shape[0], np.nan)
    for a in range(0, y.shape[0], block):
        mk = mask[a:a + block]
        y0 = np.where(mk, y[a:a + block], 0.0).astype(np.float32)
        m0 = mk.astype(np.float32)
        with np.errstate(invalid="ignore", divide="ignore"):
            other = (tot[None, :] - y0) / (cnt[None, :] - m0)         # leave-one-out item means
        use = mk & np.isfinite(other)
        w = use.astype(np.float32)
        nw = w.sum(1)
        o = np.where(use, other, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mx, mo = (y0 * w).sum(1) / nw, (o * w).sum(1) / nw
            dx, do = (y0 - mx[:, None]) * w, (o - mo[:, None]) * w
            r = (dx * do).sum(1) / np.sqrt((dx * dx).sum(1) * (do * do).sum(1))
        out[a:a + block] = np.where(nw >= 3, r, np.nan)
    return out


def _fit_items(y0: np.ndarray, mask: np.ndarray | None, theta: np.ndarray, *, iters: int = 10,
               prior_sd: float = 3.0, tol: float = 1e-3, dtype: type = np.float32) -> tuple[np.ndarray, np.ndarray]:
    """MAP 2PL item parameters ``(a_j, b_j)`` with the abilities held fixed (all items at once).

    ``P_ij = expit(a_j theta_i - b_j)``; N(0, prior_sd^2) priors on ``a`` and ``b`` as in
    :func:`ranktrust.subsets.irt.fit_2pl`. Every item is a 2-parameter logistic regression on
    the abilities; the Newton step solves the ``2 x 2`` system of every item in closed form.
    """
    th = theta.astype(dtype)
    th2 = th * th
    n_obs = (mask.sum(0) if mask is not None else np.full(y0.shape[1], y0.shape[0])).astype(np.float64)
    pj = (y0.sum(0) + 0.5) / (n_obs + 1.0)
    a = np.ones(y0.shape[1])
    b = -np.log(pj / (1 - pj)) * np.sqrt(1 + np.var(theta))     # a logistic item at a = 1 on a spread of abilities
    prec = 1.0 / prior_sd**2
    Y = y0.astype(dtype)
    Mk = None if mask is None else mask.astype(dtype)
    for _ in range(iters):
        z = np.multiply.outer(th, a.astype(dtype)) - b.astype(dtype)[None, :]
        p = special.expit(z)
        w = p * (1 - p)
        r = Y - p
        if Mk is not None:
            w *= Mk
            r *= Mk
        ga = (th @ r).astype(np.float64) - prec * a
        gb = -r.sum(0).astype(np.float64) - prec * b
        haa = (th2 @ w).astype(np.float64) + prec
        hbb = w.sum(0).astype(np.float64) + prec
        hab = -(th @ w).astype(np.float64)
        det = haa * hbb - hab * hab
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        np.clip(da, -2.0, 2.0, out=da)
        np.clip(db, -2.0, 2.0, out=db)
        a += da
        b += db
        if max(float(np.max(np.abs(da))), float(np.max(np.abs(db)))) < tol:
            break
    return a, b


def _groups(n: int, edges: list[tuple[int, int]]) -> list[list[int]]:
    """Connected components (size >= 2) of the graph on ``n`` nodes, largest first, nodes sorted."""
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in edges:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    comp: dict[int, list[int]] = {}
    for i in sorted({v for e in edges for v in e}):
        comp.setdefault(find(i), []).append(i)
    return sorted(comp.values(), key=lambda g: (-len(g), g[0]))


def _robust_z(v: np.ndarray) -> np.ndarray:
    """``(v - median) / (1.4826 MAD)`` over the finite values (NaN elsewhere, or when MAD is 0)."""
    fin = v[np.isfinite(v)]
    if fin.size < 5:
        return np.full_like(v, np.nan)
    med = np.median(fin)
    mad = 1.4826 * np.median(np.abs(fin - med))
    if mad <= 0:
        return np.full_like(v, np.nan)
    return (v - med) / mad


def _abilities(y0: np.ndarray, mask: np.ndarray | None, a: np.ndarray, b: np.ndarray, th0: np.ndarray, *,
               prior_sd: float = 1.0, iters: int = 30, tol: float = 1e-4, dtype: type = np.float32) -> np.ndarray:
    """MAP abilities with the items fixed (:func:`ranktrust.subsets.irt.fit_ability` for ``dim = 1``),
    started from ``th0`` and computed in ``dtype``: Newton steps, capped at 2."""
    th = th0.astype(np.float64).copy()
    A, B, Y = a.astype(dtype), b.astype(dtype), y0.astype(dtype)
    A2 = A * A
    Mk = None if mask is None else mask.astype(dtype)
    prec = 1.0 / prior_sd**2
    for _ in range(iters):
        p = special.expit(np.multiply.outer(th.astype(dtype), A) - B[None, :])
        w = p * (1 - p)
        r = Y - p
        if Mk is not None:
            w *= Mk
            r *= Mk
        step = ((r @ A).astype(np.float64) - prec * th) / ((w @ A2).astype(np.float64) + prec)
        np.clip(step, -2.0, 2.0, out=step)
        th += step
        if float(np.max(np.abs(step), initial=0.0)) < tol:
            break
    return th


def _person_fit(y: np.ndarray, mask: np.ndarray, folds: int, gen: np.random.Generator,
                min_items: int) -> tuple[np.ndarray, np.ndarray]:
    """``lz*`` and ability of every row, each under 2PL item parameters fitted on the other folds.

    The item parameters of a fold come from the models outside it, with their abilities
    held at the standardised logit of their accuracy (one pass of joint maximum likelihood:
    under a unidimensional model the raw score orders the abilities); each held-out model's
    ability is then its MAP estimate with those items fixed (N(0, 1) prior, Newton steps).
    """
    n = y.shape[0]
    k = int(min(folds, n))
    fold = gen.permutation(np.arange(n) % k)
    full = bool(mask.all())
    y0 = np.where(mask, y, 0.0)
    cnt = mask.sum(1)
    acc = (y0.sum(1) + 0.5) / (cnt + 1.0)
    lt = np.log(acc / (1 - acc))
    lz = np.full(n, np.nan)
    theta = np.full(n, np.nan)
    for f in range(k):
        out = fold == f
        rest = ~out
        fit = rest.copy()
        if rest.sum() > _FIT_MAX_MODELS:
            # item parameters are pinned down by a few hundred models: fit them on a random subset
            # (the held-out rows are still all scored); 5,000 x 50,000 in seconds instead of minutes
            keep = gen.choice(np.flatnonzero(rest), _FIT_MAX_MODELS, replace=False)
            fit = np.zeros(n, dtype=bool)
            fit[keep] = True
        t = lt[fit]
        t = (t - t.mean()) / (t.std() if t.std() > 0 else 1.0)
        a, b = _fit_items(y0[fit], None if full else mask[fit], t)
        sd = lt[rest].std() if lt[rest].std() > 0 else 1.0
        rows = np.flatnonzero(out)
        for s0 in range(0, rows.size, _ROW_BLOCK):   # held-out rows in blocks: memory stays O(block x N)
            r = rows[s0:s0 + _ROW_BLOCK]
            start = (lt[r] - lt[rest].mean()) / sd
            th = _abilities(y0[r], None if full else mask[r], a, b, start)
            val = lz_star(y[r], th, a, b, prior_sd=1.0)
            lz[r] = np.where(cnt[r] >= min_items, val, np.nan)
            theta[r] = th
    return lz, theta
