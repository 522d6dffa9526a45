"""Adjusting p-values for many comparisons: Holm, Bonferroni, Benjamini-Hochberg.

References
----------
.. [1] S. Holm, "A simple sequentially rejective multiple test procedure",
   Scandinavian Journal of Statistics 6 (1979) 65-70.
.. [2] Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate", JRSS B 57 (1995) 289-300.
.. [A] "Is the #1 AI Model Really #1?" (2026): "significant after correcting for seven tests".
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..errors import ArgumentError
from .. import _validate

__all__ = ["adjust_pvalues", "ADJUST_METHODS"]

AdjustMethod = Literal["holm", "bonferroni", "bh", "none"]
ADJUST_METHODS = ("holm", "bonferroni", "bh", "none")


def adjust_pvalues(p: np.ndarray, method: AdjustMethod = "holm") -> np.ndarray:
    """Adjusted p-values for a family of tests.

    Parameters
    ----------
    p : array_like of float
        Raw p-values (any shape). NaN entries stay NaN and do not count as tests.
    method : {"holm", "bonferroni", "bh", "none"}, default: ``"holm"``
        ``"holm"``: Holm's step-down (family-wise error); ``"bonferroni"``: ``min(1, m p)``;
        ``"bh"``: Benjamini-Hochberg step-up (false discovery rate); ``"none"``: unchanged.

    Returns
    -------
    ndarray
        Adjusted p-values, same shape as ``p``, in [0, 1]. Equal to
        ``statsmodels.stats.multitest.multipletests(p, method=...)[1]`` ("holm",
        "bonferroni", "fdr_bh").

    Notes
    -----
    With ``p_(1) <= ... <= p_(m)`` sorted: Holm ``max_{j<=k} (m - j + 1) p_(j)``;
    BH ``min_{j>=k} m p_(j) / j``; both capped at 1.

    References
    ----------
    .. [1] S. Holm, Scand. J. Statist. 6 (1979) 65-70.
    .. [2] Y. Benjamini and Y. Hochberg, JRSS B 57 (1995) 289-300.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    _validate.choice(method, "adjust", ADJUST_METHODS)
    arr = np.asarray(p, dtype=np.float64)
    out = np.full(arr.shape, np.nan)
    flat = arr.ravel()
    ok = ~np.isnan(flat)
    if np.any((flat[ok] < 0) | (flat[ok] > 1)):
        raise ArgumentError("`p` must hold p-values in [0, 1] (or NaN)")
    vals = flat[ok]
    m = vals.size
    if method == "none" or m == 0:
        adj = vals.copy()
    elif method == "bonferroni":
        adj = np.minimum(1.0, vals * m)
    else:
        # any sort: tied p-values get the same adjusted value whichever comes first (the running max / min carries
        # the first one's), so the default sort (SIMD, 2-3x faster than a stable one on 88,000 pairs) gives the
        # same bits
        order = np.argsort(vals)
        s = vals[order]
        k = np.arange(1, m + 1, dtype=np.float64)
        if method == "holm":
            a = np.maximum.accumulate((m - k + 1) * s)
        else:  # bh
            a = np.minimum.accumulate((s * m / k)[::-1])[::-1]
        a = np.minimum(a, 1.0)
        adj = np.empty(m)
        adj[order] = a
    res = out.ravel()
    res[ok] = adj
    return res.reshape(arr.shape)
