"""A battles table (the columns of ``ranktrust.data.battles.read_battles``) as integer-coded arrays.

Duck-typed: anything with ``columns`` and ``[name].to_numpy()`` (a pandas DataFrame) or a dict of
arrays. No pandas import; a pandas column's own ``factorize`` is used when present (hash-based, fast on
millions of string names).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..data import warn_similar_names
from ..data.battles import CLUSTER_GUESSES, PER_ITEM, WINNER_SCORES
from ..data.battles import STYLE_A as STYLE_PREFIX_A, STYLE_B as STYLE_PREFIX_B
from ..errors import DataError

__all__ = ["Battles", "battles_arrays", "STYLE_PREFIX_A", "STYLE_PREFIX_B", "weight_problem"]

#: weights may span at most this ratio (largest / smallest): beyond it the fit's sums lose every digit of the
#: small ones, and squares of weights above 1e150 overflow
_WEIGHT_SPAN = 1e12


def weight_problem(w: np.ndarray) -> tuple[int, int, str] | None:
    """(row of the largest weight, row of the smallest, what is wrong: "overflow" or "span") when positive
    finite weights cannot be computed with: their squares overflow, or they span more than 12 orders of
    magnitude; None when they are fine."""
    hi, lo = int(np.argmax(w)), int(np.argmin(w))
    if w[hi] > 1e150:
        return hi, lo, "overflow"
    if w[hi] > _WEIGHT_SPAN * w[lo]:
        return hi, lo, "span"
    return None


@dataclass(frozen=True)
class Battles:
    """The battles as integer-coded arrays (frozen: each step of ``rt.arena`` makes a new record)."""

    models: tuple[str, ...]
    a: np.ndarray            # int codes
    b: np.ndarray
    y: np.ndarray            # score of a in [0, 1]
    w: np.ndarray            # weights > 0
    cluster: np.ndarray | None   # int codes or None (per battle)
    n_clusters: int
    cluster_col: str | None
    style_a: np.ndarray | None   # (N, F) raw per-side counts
    style_b: np.ndarray | None
    features: tuple[str, ...]
    discrete: bool           # every score is 0, 0.5 or 1
    notes: tuple = ()        # what the reader left out or changed (results.Note records, see _core.reader_notes)
    duplicates: int | None = None   # rows identical to an earlier row in every column (counted without clusters)


def _columns(df: Any) -> list[str]:
    cols = getattr(df, "columns", None)
    if cols is None and isinstance(df, dict):
        cols = list(df)
    if cols is None:
        raise TypeError(f"`battles` must be a DataFrame (or a path read with read_battles), got {type(df).__name__}")
    return [str(c) for c in cols]


def _col(df: Any, name: str) -> np.ndarray:
    v = df[name]
    return v.to_numpy() if hasattr(v, "to_numpy") else np.asarray(v)


def _codes(df: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) of a column; missing values get code -1."""
    v = df[name]
    if hasattr(v, "factorize"):
        codes, uniq = v.factorize()
        return np.asarray(codes, dtype=np.int64), np.asarray(uniq, dtype=object)
    arr = np.asarray(v, dtype=object)
    miss = np.array([x is None or (isinstance(x, float) and x != x) for x in arr])
    uniq, inv = np.unique(arr[~miss].astype(str), return_inverse=True)
    codes = np.full(len(arr), -1, dtype=np.int64)
    codes[~miss] = inv
    return codes, uniq.astype(object)


def _row(i: int) -> str:
    return f"row {int(i) + 1}"


def battles_arrays(df: Any, *, cluster_by: str | None, coded: Any = None) -> Battles:
    """Check and code the battles; ``cluster_by``: a column name, ``"auto"`` or None (per battle).

    ``coded``: the codes the battles reader computed for this very table (``read_battle_table``'s ``codes``), taken
    instead of factorizing the names and the ``cluster`` column again (the same codes); the reader has checked its
    scores and weights too (``data.battles._canon.finish``: the same rules), so they are not checked again."""
    cols = _columns(df)
    for need in ("model_a", "model_b"):
        if need not in cols and "model" in cols:
            raise DataError(PER_ITEM.format(source="`battles`", columns=", ".join(cols[:8])), param="battles")
        if need not in cols:
            raise DataError(f"`battles` has no `{need}` column (columns: {', '.join(cols)}); a battles table needs "
                            "model_a, model_b and score (or winner)", param="battles")
    n = len(df[next(iter(cols))]) if not hasattr(df, "shape") else int(df.shape[0])
    if n == 0:
        raise DataError("`battles` is empty: there is nothing to rate", param="battles")
    if coded is not None:
        names, a, b = list(coded.models), coded.a, coded.b
    else:
        ca, ua = _codes(df, "model_a")
        cb, ub = _codes(df, "model_b")
        for codes, name in ((ca, "model_a"), (cb, "model_b")):
            if (codes < 0).any():
                raise DataError(f"`battles` {_row(np.flatnonzero(codes < 0)[0])}: `{name}` is missing; every "
                                "battle names both models", param="battles")
        names = sorted(set(map(str, ua)) | set(map(str, ub)))
        lookup = {m: i for i, m in enumerate(names)}
        a = np.array([lookup[str(m)] for m in ua], dtype=np.int64)[ca]
        b = np.array([lookup[str(m)] for m in ub], dtype=np.int64)[cb]
    if len(names) > 1:
        warn_similar_names(names, "model", stacklevel=4)
    same = np.flatnonzero(a == b)
    if len(same):
        raise DataError(f"`battles` {_row(same[0])}: model_a and model_b are both {names[a[same[0]]]!r} (a model "
                        f"against itself, {len(same)} such row(s)); drop those rows", param="battles")
    if "score" in cols:
        y = np.asarray(_col(df, "score"), dtype=float)
    elif "winner" in cols:
        lab = _col(df, "winner")
        y = np.empty(n)
        for label, s in WINNER_SCORES.items():
            y[lab == label] = s
        known = np.isin(lab, list(WINNER_SCORES))
        if not known.all():
            i = np.flatnonzero(~known)[0]
            raise DataError(f"`battles` {_row(i)}: winner {lab[i]!r} is not one of "
                            f"{', '.join(map(repr, WINNER_SCORES))}; fix or drop the row", param="battles")
    else:
        raise DataError(f"`battles` has neither a `score` nor a `winner` column (columns: {', '.join(cols)})",
                        param="battles")
    bad = np.flatnonzero(~np.isfinite(y) | (y < 0) | (y > 1)) if coded is None else ()
    if len(bad):
        raise DataError(f"`battles` {_row(bad[0])}: score {float(y[bad[0]])!r} is not in [0, 1] (1 = model_a wins, "
                        "0 = model_b wins, 0.5 = tie)", param="battles")
    if "weight" in cols:
        w = np.asarray(_col(df, "weight"), dtype=float)
        bad = np.flatnonzero(~np.isfinite(w) | (w <= 0)) if coded is None else ()
        if len(bad):
            raise DataError(f"`battles` {_row(bad[0])}: weight {float(w[bad[0]])!r} must be a positive number",
                            param="battles")
        huge = weight_problem(w) if coded is None else None
        if huge is not None:
            hi, lo, why = huge
            raise DataError(f"`battles` {_row(hi)}: weight {float(w[hi]):g} is " + (
                "too large to compute with (its square overflows); weights are relative: divide them all by the "
                "same number" if why == "overflow" else
                f"more than 1e12 times the smallest ({float(w[lo]):g}, {_row(lo)}); weights this far apart leave "
                "the small ones without any effect on the sums: check the column"), param="battles")
    else:
        w = np.ones(n)
    if cluster_by == "auto":   # the prompt ids, by the same names as the battles reader (a path)
        cluster_by = next((c for c in CLUSTER_GUESSES if c in cols), None)
    cluster, n_clusters = None, n
    if cluster_by is not None:
        if cluster_by not in cols:
            raise DataError(f"`cluster_by`={cluster_by!r}: the battles have no such column (columns: "
                            f"{', '.join(cols)}); name one, or give `cluster_by`='none' for per-battle intervals",
                            param="cluster_by")
        if coded is not None and coded.cluster is not None and cluster_by == "cluster":
            cluster, n_clusters = coded.cluster, coded.n_clusters   # the reader's: none missing
        else:
            cluster, uniq = _codes(df, cluster_by)
            if (cluster < 0).any():
                raise DataError(f"`battles` {_row(np.flatnonzero(cluster < 0)[0])}: `{cluster_by}` is missing; "
                                "give every battle its cluster, or `cluster_by`='none'", param="cluster_by")
            n_clusters = len(uniq)
    feats = tuple(c[len(STYLE_PREFIX_A):] for c in cols if c.startswith(STYLE_PREFIX_A))
    sa = sb = None
    if feats:
        missing = [f for f in feats if STYLE_PREFIX_B + f not in cols]
        if missing:
            raise DataError(f"`battles` has style_a_{missing[0]} but no style_b_{missing[0]}: style features come "
                            "in pairs (one count per side)", param="battles")
        sa = np.column_stack([np.asarray(_col(df, STYLE_PREFIX_A + f), dtype=float) for f in feats])
        sb = np.column_stack([np.asarray(_col(df, STYLE_PREFIX_B + f), dtype=float) for f in feats])
    discrete = bool(np.isin(y, (0.0, 0.5, 1.0)).all())
    return Battles(tuple(names), a, b, y, w, cluster, n_clusters, cluster_by, sa, sb, feats, discrete)
