"""The array-level numerical kernel: NumPy and SciPy only, shared by every analysis.

One implementation each of the small numerical pieces that the statistics share, so that a NaN
rule or a warning reads the same everywhere and is tested once (``tests/test_kernel.py``):

- :func:`nan_count`, :func:`nan_mean`, :func:`nan_mean_var`, :func:`nan_var`: counts, means and
  variances over an axis with NaN = not scored (each row uses its own scored cells);
- :func:`normal_quantile`, :func:`t_quantile`: the quantiles of a two-sided (or one-sided)
  interval at ``confidence_level``;
- :func:`is_binary`: whether every scored value is 0 or 1;
- :func:`clt_interval` and :func:`warn_zero_spread`: the normal-theory interval of a mean and its
  one degenerate-data rule (zero spread gives NaN, never a zero-width interval, with one
  :class:`~ranktrust.errors.DegenerateDataWarning` text).

This module sits below ``data/`` in the layer order (it imports only ``errors``), so every
package may use it.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal, Sequence

import numpy as np
from scipy import special

from .errors import ArgumentError, DegenerateDataWarning

__all__ = [
    "nan_count", "nan_mean", "nan_mean_var", "nan_var", "normal_quantile", "t_quantile", "is_binary",
    "clt_interval", "zero_spread", "warn_zero_spread", "wilson_bounds",
]

Alternative = Literal["two-sided", "less", "greater"]


# ---------------------------------------------------------------- NaN-aware moments
def nan_count(x: Any, axis: int = -1) -> np.ndarray:
    """Number of scored (non-NaN) cells along ``axis``."""
    return np.sum(~np.isnan(np.asarray(x, dtype=np.float64)), axis=axis)


def nan_mean(x: Any, axis: int = -1, *, empty: float = np.nan) -> np.ndarray:
    """Mean of the scored (non-NaN) cells along ``axis``; ``empty`` where a slice has none.

    Unlike :func:`numpy.nanmean` it never warns on an empty slice (the caller decides what an
    empty slice means: NaN for a score, 0 for a centring, 0.5 for an uninformative difficulty).
    """
    x = np.asarray(x, dtype=np.float64)
    n = np.sum(~np.isnan(x), axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.nansum(x, axis=axis) / np.maximum(n, 1), empty)


def nan_mean_var(x: Any, axis: int = -1, *, ddof: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n, mean, var)`` of the scored cells along ``axis``.

    ``mean`` is NaN where ``n = 0``; ``var`` (sum of squared deviations over ``n - ddof``) is NaN
    where ``n <= ddof``.
    """
    x = np.asarray(x, dtype=np.float64)
    ok = ~np.isnan(x)
    n = ok.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, np.nansum(x, axis=axis) / np.maximum(n, 1), np.nan)
        dev = np.where(ok, x - np.expand_dims(mean, axis), 0.0)
        var = np.where(n > ddof, (dev**2).sum(axis=axis) / np.maximum(n - ddof, 1), np.nan)
    return n, mean, var


def nan_var(x: Any, axis: int = -1, *, ddof: int = 1) -> np.ndarray:
    """Variance of the scored cells along ``axis`` (``ddof`` as in NumPy; NaN where ``n <= ddof``)."""
    return nan_mean_var(x, axis, ddof=ddof)[2]


# ---------------------------------------------------------------- quantiles
def _level(confidence_level: Any, alternative: str) -> Any:
    if alternative == "two-sided":
        return 0.5 + np.asarray(confidence_level, dtype=np.float64) / 2.0
    if alternative in ("less", "greater"):
        return np.asarray(confidence_level, dtype=np.float64)
    raise ArgumentError(f"`alternative` must be 'two-sided', 'less' or 'greater', got {alternative!r}")


def normal_quantile(confidence_level: Any, *, alternative: Alternative = "two-sided") -> Any:
    """Normal quantile of an interval at ``confidence_level``.

    Two-sided: ``z_{1 - (1 - confidence_level)/2}`` (1.959964 at 0.95); one-sided:
    ``z_{confidence_level}`` (1.644854 at 0.95). A float for a scalar level.
    """
    z = special.ndtri(_level(confidence_level, alternative))
    return float(z) if np.ndim(z) == 0 else z


def t_quantile(confidence_level: Any, df: Any, *, alternative: Alternative = "two-sided") -> np.ndarray:
    """Student t quantile of an interval at ``confidence_level`` with ``df`` degrees of freedom.

    NaN where ``df <= 0`` (or NaN); the normal quantile where ``df`` is infinite.
    """
    p = _level(confidence_level, alternative)
    df = np.asarray(df, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out = special.stdtrit(np.where(df > 0, df, np.nan), p)
    return np.where(np.isinf(df), special.ndtri(p), out)


# ---------------------------------------------------------------- 0/1 data
#: cells checked together by :func:`is_binary` (their temporaries stay in a core's cache)
_CHUNK = 1 << 15


def is_binary(x: Any) -> bool:
    """True when every scored (non-NaN) value is 0 or 1 (also for no scored value).

    Counted in chunks of :data:`_CHUNK` cells (0s + 1s + NaNs = the chunk), which stops at the
    first chunk that fails and makes no copy of the array: about 3x faster than masking out
    the NaNs on a 1,000 x 14,000 matrix.
    """
    a = np.asarray(x)
    if a.dtype.kind == "b":
        return True
    flat = a.reshape(-1)
    nan = a.dtype.kind not in "iu"
    for i in range(0, flat.size, _CHUNK):
        c = flat[i:i + _CHUNK]
        k = np.count_nonzero(c == 0) + np.count_nonzero(c == 1)
        if k != c.size and (not nan or k + np.count_nonzero(np.isnan(c)) != c.size):
            return False
    return True


# ---------------------------------------------------------------- the CLT interval and its degenerate rule
def zero_spread(x: Any) -> np.ndarray:
    """Rows (over the last axis) with at least 2 scored values, all equal: the degenerate case of a
    normal-theory interval. Tested on the values, not on ``ss == 0``: the rounded mean of a constant
    non-dyadic value can leave a sum of squares of 1e-33."""
    v = np.asarray(x, dtype=np.float64)
    if v.shape[-1] == 0:
        return np.zeros(v.shape[:-1], dtype=bool)
    # fmax / fmin skip NaN (NaN only for a row without a scored value): equal = every scored value equal
    same = np.asarray(np.fmax.reduce(v, axis=-1) == np.fmin.reduce(v, axis=-1))
    if same.any():      # then count the scored values of those rows only
        same[same] = (~np.isnan(v[same])).sum(axis=-1) > 1
    return same[()] if same.ndim == 0 else same


def warn_zero_spread(
    flat: Any,
    *,
    names: Sequence[str] | None = None,
    values: Any = None,
    what: str = "score",
    unit: str = "item",
    interval: str = "CLT",
    subject: str = "model",
    hint: str = "",
    stacklevel: int = 3,
) -> None:
    """Warn once that the rows in ``flat`` have zero spread, so their SE and CI are NaN.

    The one text of the degenerate-data rule: ``"model 'a' (all 1): every item has the same
    score (zero spread), so the CLT interval would have zero width; its SE and CI are NaN"``.
    Rows are named by ``names`` (else counted), with their constant value from ``values``. The warning's code is
    ``zero_spread``; its data name the ``subject`` (model, pair), every row's name (``names``, None when unnamed)
    and their ``count``.
    """
    fl = np.atleast_1d(np.asarray(flat, dtype=bool))
    if fl.ndim > 1:
        fl = fl.reshape(fl.shape[0], -1).any(axis=1)
    rows = np.flatnonzero(fl)
    if rows.size == 0:
        return
    one = rows.size == 1
    if names is not None:
        vals = None if values is None else np.atleast_1d(np.asarray(values, dtype=np.float64))
        listed = ", ".join(
            repr(str(names[int(j)])) + ("" if vals is None or vals.ndim != 1 else f" (all {vals[j]:g})")
            for j in rows[:6]
        ) + (f" and {rows.size - 6} more" if rows.size > 6 else "")
        who = f"{subject if one else subject + 's'} {listed}"
    else:
        who = f"{rows.size} {subject if one else subject + 's'}"
    listed_names = None if names is None else [str(names[int(j)]) for j in rows]
    warnings.warn(DegenerateDataWarning(
        f"{who}: every {unit} has the same {what} (zero spread), so the {interval} interval would have "
        f"zero width; {'its' if one else 'their'} SE and CI are NaN{hint}",
        code="zero_spread", data={"subject": subject, "names": listed_names, "count": int(rows.size),
                                  "unit": unit, "what": what, "interval": interval},
    ), stacklevel=stacklevel)


def clt_interval(
    values: Any,
    confidence_level: float,
    *,
    ddof: int = 1,
    quantile: Literal["z", "t"] = "z",
    names: Sequence[str] | None = None,
    what: str = "score",
    stacklevel: int = 3,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean over the last axis (NaN ignored) with its normal-theory interval.

    Returns ``(mean, se, low, high, n)`` with ``se = sqrt(ss / (n - ddof)) / sqrt(n)`` and
    ``mean ± q se``, ``q`` the normal quantile (``quantile="z"``) or the t quantile with ``n - 1``
    df (``"t"``). Fewer than 2 scored values give NaN SE and interval (no warning: the caller
    knows what a row is). Zero spread (every scored value equal) gives NaN SE and interval and one
    :func:`warn_zero_spread` naming the rows, never a zero-width interval.
    """
    if quantile not in ("z", "t"):
        raise ArgumentError(f"`quantile` must be 'z' or 't', got {quantile!r}")
    v = np.asarray(values, dtype=np.float64)
    ok = ~np.isnan(v)
    n = ok.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, np.nansum(v, axis=-1) / np.maximum(n, 1), np.nan)
        ss = np.where(ok, v - mean[..., None], 0.0)
        ss = (ss * ss).sum(axis=-1)
        se = np.where(n > 1, np.sqrt(ss / np.maximum(n - ddof, 1)) / np.sqrt(n), np.nan)
        q = t_quantile(confidence_level, np.where(n > 1, n - 1, np.nan)) if quantile == "t" \
            else normal_quantile(confidence_level)
    flat = zero_spread(v)
    if np.any(flat):
        se = np.where(flat, np.nan, se)
        warn_zero_spread(flat, names=names, what=what, interval="t" if quantile == "t" else "CLT",
                         stacklevel=stacklevel + 1)
    return mean, se, mean - q * se, mean + q * se, n


def wilson_bounds(mean: Any, n: Any, z: Any) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score bounds for a proportion ``mean`` from ``n`` observations (or an effective number
    of observations, e.g. ``p(1-p)/SE^2`` for clustered or quasi-binomial data) at quantile ``z``.

    Exactly 0 / 1 at a mean of 0 / 1 (rounding can miss it by 1e-16); NaN where ``n`` is 0 or NaN.
    """
    mean = np.asarray(mean, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        pq = mean * (1 - mean)
        den = 1 + z * z / n
        centre = (mean + z * z / (2 * n)) / den
        half = z / den * np.sqrt(pq / n + z * z / (4 * n * n))
        low = np.where(mean <= 0, 0.0, np.clip(centre - half, 0.0, 1.0))
        high = np.where(mean >= 1, 1.0, np.clip(centre + half, 0.0, 1.0))
    return low, high
