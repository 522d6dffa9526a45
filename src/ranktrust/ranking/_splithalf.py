"""Split-half winner stability and the winner's curse."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from .._analysis import analysis
from .. import _validate
from .._validate import Progress, SeedLike
from ..errors import DataError
from ..results import Result, jsonable
from ..resample import half_product, half_tasks, matrix_input, rank_order, run_products

__all__ = ["SplitHalf", "split_half"]


class SplitHalfJSON(TypedDict):
    """Layout of :meth:`SplitHalf.to_dict` (``p_wins_half`` by model name)."""

    n_resamples: int
    p_same_winner: float
    p_same_winner_se: float
    lead_selecting_half: float
    lead_selecting_half_se: float
    lead_other_half: float
    lead_other_half_se: float
    shrinkage: float
    shrinkage_se: float
    p_wins_half: dict[str, float]
    dropped: dict[str, int]


@dataclass(frozen=True, eq=False)
class SplitHalf(Result):
    """Split-half check (see :func:`split_half`).

    Attributes
    ----------
    models : tuple of str
    n_resamples : int
        Random halves (splits).
    p_same_winner, p_same_winner_se : float
        Share of random halves whose winner also wins the other half, and its Monte
        Carlo SE.
    lead_selecting_half, lead_selecting_half_se : float
        Mean lead of a half's winner over the runner-up in that half (fraction).
    lead_other_half, lead_other_half_se : float
        Mean lead of the same model over the best other model in the other half
        (negative when it loses there).
    shrinkage, shrinkage_se : float
        ``1 - lead_other_half / lead_selecting_half`` (the winner's curse), SE by the
        delta method.
    p_wins_half : ndarray (M,)
        Share of splits each model wins the selecting half.
    dropped : dict
    """

    _table = ("models", "p_wins_half")

    models: tuple[str, ...]
    n_resamples: int
    p_same_winner: float
    p_same_winner_se: float
    lead_selecting_half: float
    lead_selecting_half_se: float
    lead_other_half: float
    lead_other_half_se: float
    shrinkage: float
    shrinkage_se: float
    p_wins_half: np.ndarray
    dropped: dict

    def to_dict(self) -> SplitHalfJSON:
        return jsonable({
            "n_resamples": self.n_resamples,
            "p_same_winner": self.p_same_winner,
            "p_same_winner_se": self.p_same_winner_se,
            "lead_selecting_half": self.lead_selecting_half,
            "lead_selecting_half_se": self.lead_selecting_half_se,
            "lead_other_half": self.lead_other_half,
            "lead_other_half_se": self.lead_other_half_se,
            "shrinkage": self.shrinkage,
            "shrinkage_se": self.shrinkage_se,
            "p_wins_half": dict(zip(self.models, self.p_wins_half)),
            "dropped": self.dropped,
        })


@analysis
def split_half(
    m,
    *,
    n_resamples: int = 3000,
    rng: SeedLike = 0,
    batch: int | None = None,
    progress: Progress = None,
    client=None,
) -> SplitHalf:
    """Does the winner of one random half also win the other half?

    Each split puts ``floor(N/2)`` random items in half A and the rest in half B. The
    winner of A (exact ties broken at random) is compared with the winner of B; its
    lead over the runner-up in A is compared with its lead over the best other model in
    B. Selecting on A inflates the lead in A; B gives an unbiased view (winner's curse).

    Parameters
    ----------
    m : ScoreMatrix or ndarray (M, N)
        At least 2 models and 2 items.
    n_resamples : int, default: ``3000``
        Random splits (at least 2).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, default: 0
    batch : int, optional
        Kept for compatibility: the engine works in products of at most 512 splits
        (which bound the memory), whatever ``batch`` is; it never changed the result.
    progress : callable(done, total), optional
    client : dask.distributed.Client, optional
        Run the splits on this client's workers (one task per product of up to 512
        splits, returning only per-split leads); identical to the in-process run with the
        same ``rng`` (see :mod:`ranktrust.resample._distributed`).

    Returns
    -------
    SplitHalf

    References
    ----------
    .. [1] "Is the #1 AI Model Really #1?", Towards Data Science (2026): 3,000 random
       halves, the winner of one half wins the other 94% of the time; its lead shrinks
       from 1.88 to 1.62 points (METHODS.md section 4).

    Examples
    --------
    >>> import numpy as np
    >>> s = (np.random.default_rng(0).random((3, 400)) < [[0.7], [0.6], [0.5]]).astype(float)
    >>> res = split_half(s, n_resamples=500, rng=0)
    >>> res.p_same_winner > 0.5, res.lead_other_half < res.lead_selecting_half
    (True, True)
    """
    splits = _validate.count(n_resamples, "n_resamples", minimum=2)
    progress = _validate.progress(progress)
    rng = _validate.rng(rng)
    inp = matrix_input(m)
    s = inp.scores
    n_models = s.shape[0]
    if n_models < 2:
        raise DataError("split-half needs at least 2 models")
    same = np.zeros(splits, dtype=bool)
    lead_a = np.zeros(splits)
    lead_b = np.zeros(splits)
    wins = np.zeros(n_models, dtype=np.int64)
    tasks, work = half_tasks(s, n_splits=int(splits), rng=rng, tie_keys=True)
    start = 0
    for sm, la_, lb_, w in run_products(tasks, work, kernel=half_product, post=_split_leads, client=client):
        b = len(sm)
        sl = slice(start, start + b)
        same[sl], lead_a[sl], lead_b[sl] = sm, la_, lb_
        wins += w
        start += b
        if progress is not None:
            progress(start, splits)
    p = same.mean()
    la, lb = lead_a.mean(), lead_b.mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        r = lb / la
        cov = np.cov(lead_b, lead_a)
        shrink_var = (cov[0, 0] + r**2 * cov[1, 1] - 2 * r * cov[0, 1]) / (splits * la**2)
    return SplitHalf(
        models=inp.models, n_resamples=int(splits),
        p_same_winner=float(p), p_same_winner_se=float(np.sqrt(p * (1 - p) / splits)),
        lead_selecting_half=float(la), lead_selecting_half_se=float(lead_a.std(ddof=1) / np.sqrt(splits)),
        lead_other_half=float(lb), lead_other_half_se=float(lead_b.std(ddof=1) / np.sqrt(splits)),
        shrinkage=float(1 - r), shrinkage_se=float(np.sqrt(shrink_var)),
        p_wins_half=wins / splits, dropped=inp.dropped,
    )


def _split_leads(ma: np.ndarray, mb: np.ndarray, keys: np.ndarray):
    """Per split of one product: same winner?, lead in A, lead in B, and A's winners counted."""
    b, n_models = ma.shape
    ra = rank_order(ma, keys[:, 0])
    rb = rank_order(mb, keys[:, 1])
    wa = np.argmin(ra, axis=1)
    wb = np.argmin(rb, axis=1)
    rows = np.arange(b)
    second_a = np.argmax(ra == 2, axis=1)
    other_b = mb.copy()
    other_b[rows, wa] = -np.inf
    return (wa == wb, ma[rows, wa] - ma[rows, second_a], mb[rows, wa] - other_b.max(axis=1),
            np.bincount(wa, minlength=n_models))
