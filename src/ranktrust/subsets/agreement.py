"""Reusable, vectorised agreement metrics of estimated against reference scores.

Kendall's tau-b over any leading shape, the pair agreement of [1]_'s rule (estimated ties count
as wrong, reference ties are kept) and MDAD read off an agreement curve. Used by
:func:`ranktrust.mdad`; each is checked against scipy or a loop in ``tests/test_subsets_mdad.py``.

References
----------
.. [1] G. Yauney, S. Warraich, S. Swayamdipta, "How Reliable is Language Model
   Micro-Benchmarking?", ICLR 2026.
"""

from __future__ import annotations

import numpy as np

__all__ = ["kendall_tau_b", "pair_agreement", "mdad_from_curve"]


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b along the last axis, for any leading shape (all pairs as arrays).

    ``tau_b = sum s_x s_y / sqrt(sum s_x^2 * sum s_y^2)`` over pairs ``i < j``, with
    ``s = sign(x_i - x_j)``; equal to :func:`scipy.stats.kendalltau` (variant ``"b"``).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    iu, ju = np.triu_indices(x.shape[-1], 1)

    def sign(v: np.ndarray) -> np.ndarray:        # int8 signs of the pair differences
        hi, lo = v[..., iu], v[..., ju]
        return (hi > lo).view(np.int8) - (hi < lo).view(np.int8)

    sx, sy = sign(x), sign(y)
    num = np.sum(sx * sy, axis=-1, dtype=np.int64)
    den = np.sqrt(np.count_nonzero(sx, axis=-1) * np.count_nonzero(sy, axis=-1).astype(np.float64))
    bad = np.isnan(x).any(axis=-1) | np.isnan(y).any(axis=-1)     # a NaN score: tau is NaN
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((den > 0) & ~bad, num / np.where(den > 0, den, 1.0), np.nan)


def pair_agreement(true_diff: np.ndarray, est_diff: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-pair agreement of an estimated difference with the reference one, as in [1]_'s code.

    Returns ``(agree, misordered, ordered)``. ``agree`` is 1 when the estimated gap is
    nonzero and has the sign of the reference gap, 0 otherwise: an estimated tie does not
    order the pair and counts as disagreement. A pair tied on the reference is kept (it
    falls in the first ``|Δ|`` bin) and agrees when the estimated gap is positive, as in
    [1]_'s ``make_tidy_results`` (``copysign(1, 0.0) == 1``; pairs are ``(i, j)`` with
    ``i < j``). ``misordered`` marks pairs the subset reverses; ``ordered`` marks pairs
    with a reference order (the denominator of the misordered share).
    """
    st = np.sign(true_diff)
    se = np.sign(est_diff)
    ordered = st != 0
    ref = np.where(ordered, st, 1.0)                 # [U]: a reference tie counts as a positive gap
    agree = ((se == ref) & (se != 0)).astype(np.float64)
    mis = (se == -st) & ordered
    return agree, mis, ordered


def mdad_from_curve(agreement: np.ndarray, pairs: np.ndarray, delta_bin: float, *, level: float = 0.8,
                    min_pairs: float = 1) -> np.ndarray:
    """MDAD from binned agreement curves (bins along the last axis).

    MDAD is the lower edge of the smallest ``|Δ|`` bin whose agreement is at least
    ``level``, in increasing ``|Δ|``: the rule of [1]_'s code (``mdad.calculate_mdad``:
    the first bin whose mean correctness reaches the threshold; every bin that has a pair
    counts, which is ``min_pairs=1``). A larger ``min_pairs`` ignores bins with fewer
    pairs (a safeguard that is not in [1]_). No counted bin reaches the level: ``inf``
    ([1]_'s code reports a sentinel of 50 points). No counted bin at all: ``NaN``.
    """
    a = np.asarray(agreement, dtype=np.float64)
    p = np.asarray(pairs, dtype=np.float64)
    informative = (p >= max(min_pairs, 1)) & ~np.isnan(a)
    reach = informative & (a >= level)
    first = np.argmax(reach, axis=-1)
    out = first * float(delta_bin)
    out = np.where(reach.any(axis=-1), out, np.inf)
    return np.where(informative.any(axis=-1), out, np.nan)
