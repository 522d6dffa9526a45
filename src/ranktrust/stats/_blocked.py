"""All pairs of a leaderboard too large for one product: sums of blocked products.

:func:`ranktrust.stats._paired.all_pairs` makes one matrix product over all items. Every
statistic it needs is a sum over items, so the same products can be made block by block,
one block of items at a time (a row group of a Parquet file, a slice of an array), and
added up; the blocks are independent tasks that run in-process or on the workers of a
``dask.distributed`` client (each worker reads its own blocks from the Parquet file), and
only ``(M, M)`` partial sums travel. With a client the per-pair exact McNemar intervals, most
of the work after the sums, are tasks too (:data:`CI_CHUNK` pairs each; only ``(b, c, n)``
and the bounds travel).

For 0/1 scores every partial sum is an exact integer, so the :class:`PairTable` is
identical to ``all_pairs`` (same p-values, intervals, adjusted p-values) in any block
order. For continuous scores the sums of squares are added in another order than in one
product: equal to ``all_pairs`` up to float rounding (relative 1e-12).

Layout of a Parquet score file (:func:`write_parquet`): one row per item, one column per
model (float or int8 scores, null = not scored), an optional ``item`` column of labels;
each row group is one block.
"""

from __future__ import annotations

from typing import Any, Literal, Sequence

import numpy as np

from ..errors import ArgumentError
from .. import _validate
from .._kernel import is_binary
from ._intervals import _check_correction, check_confidence_level
from ._multiplicity import ADJUST_METHODS, adjust_pvalues
from ._pairs import _finish, mcnemar_ci
from ._paired import PairTable, _check_interval, _ci_method

__all__ = ["all_pairs_blocked", "parquet_blocks", "write_parquet", "read_parquet_matrix"]

ITEM_COLUMN = "item"


# ------------------------------------------------------------------ block sources
def write_parquet(path: str, scores: np.ndarray, *, models: Sequence[str], items: Sequence[str] | None = None,
                  block_items: int = 10_000, dtype: Any = None) -> str:
    """Write an ``(M, N)`` score matrix as a Parquet file of item rows and model columns.

    ``block_items`` items per row group (one block of :func:`all_pairs_blocked`);
    ``dtype`` (e.g. ``np.int8`` for complete 0/1 scores) shrinks the file.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    s = np.asarray(scores)
    if s.ndim != 2 or s.shape[0] != len(models):
        raise ArgumentError(f"`scores` must have shape (len(models), items); got {s.shape} for {len(models)} models")
    writer = None
    try:
        for r0 in range(0, s.shape[1], block_items):
            blk = s[:, r0:r0 + block_items]
            cols = {ITEM_COLUMN: pa.array([str(x) for x in (items[r0:r0 + block_items] if items is not None
                                                            else range(r0, r0 + blk.shape[1]))])}
            for k, name in enumerate(models):
                v = blk[k] if dtype is None else blk[k].astype(dtype)
                cols[str(name)] = pa.array(v, mask=np.isnan(blk[k]) if v.dtype.kind == "f" else None)
            table = pa.table(cols)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=block_items)
    finally:
        if writer is not None:
            writer.close()
    return path


def parquet_blocks(path: str) -> tuple[tuple[str, ...], list[tuple[str, int]]]:
    """Model names and one ``(path, row_group)`` block per row group of a score Parquet file."""
    import pyarrow.parquet as pq

    f = pq.ParquetFile(path)
    models = tuple(n for n in f.schema_arrow.names if n != ITEM_COLUMN)
    return models, [(str(path), g) for g in range(f.num_row_groups)]


def _read_block(block: Any, models: Sequence[str] | None) -> np.ndarray:
    """``(M, n_block)`` float64 scores of one block (NaN = not scored)."""
    if isinstance(block, np.ndarray):
        return np.asarray(block, dtype=np.float64)
    import pyarrow.parquet as pq

    path, group = block
    t = pq.ParquetFile(path).read_row_group(group, columns=list(models))
    out = np.empty((len(models), t.num_rows))
    for k, col in enumerate(t.columns):
        out[k] = col.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
    return out


def read_parquet_matrix(path: str):
    """The whole score Parquet file as a :class:`~ranktrust.data._matrix.ScoreMatrix`."""
    import pyarrow.parquet as pq

    from ..data import ScoreMatrix

    models, blocks = parquet_blocks(path)
    f = pq.ParquetFile(path)
    s = np.empty((len(models), f.metadata.num_rows))   # filled block by block: one copy in memory
    r0 = 0
    for b in blocks:
        blk = _read_block(b, models)
        s[:, r0:r0 + blk.shape[1]] = blk
        r0 += blk.shape[1]
        del blk
    items = f.read(columns=[ITEM_COLUMN]).column(0).to_pylist() if ITEM_COLUMN in f.schema_arrow.names else None
    items = tuple(items) if items is not None else tuple(str(k) for k in range(s.shape[1]))
    return ScoreMatrix(s, tuple(models), items, source=str(path))


# ------------------------------------------------------------------ partial sums
def _block_sums(block: Any, *, models: Sequence[str] | None, mu: np.ndarray | None,
                missing: bool = False) -> dict[str, Any]:
    """Partial sums of one block. Without ``mu``: row sums, counts, 0/1-ness and (for 0/1
    blocks) the discordance counts; with ``mu`` (continuous scores): the centred products."""
    S = _read_block(block, models)
    nan = np.isnan(S)
    complete = not bool(nan.any())
    if mu is None:
        v = S[~nan]
        out: dict[str, Any] = {
            "sum": np.nansum(S, axis=1), "count": (~nan).sum(axis=1), "n": S.shape[1],
            "binary": is_binary(v), "complete": complete,
        }
        if out["binary"]:
            A = (S == 1).astype(np.float32)
            if complete:
                # B[i, j] = r_i - (A A^T)[i, j]; exact integers in float32 below 2**24 items
                G = A @ A.T
                out["B"] = A.sum(axis=1, dtype=np.float64)[:, None] - G
            else:
                K = (~nan).astype(np.float32)
                out["B"] = (A @ (K - A).T).astype(np.float64)
                out["N"] = (K @ K.T).astype(np.float64)
        return out
    X0 = np.where(nan, 0.0, S - mu[:, None])
    if not missing:   # no block has missing cells
        return {"P": X0 @ X0.T, "complete": True, "n": S.shape[1]}
    K = (~nan).astype(np.float64)
    return {"P": X0 @ X0.T, "Sx": X0 @ K.T, "Sxx": (X0 * X0) @ K.T, "N": K @ K.T, "complete": False,
            "n": S.shape[1]}


def _run(blocks: list, fn_kw: dict, client: Any) -> Any:
    if client is None:
        for b in blocks:
            yield _block_sums(b, **fn_kw)
        return
    from ..resample import map_tasks

    yield from map_tasks(client, _block_sums, blocks, shared=fn_kw)


#: pairs per task when a client computes the exact McNemar intervals
CI_CHUNK = 250_000


def _chunk_ci(chunk: tuple, *, confidence_level: float) -> tuple[np.ndarray, np.ndarray]:
    b, c, n = chunk
    return mcnemar_ci(b, c, n, confidence_level=confidence_level)


def _run_ci(chunks: list, cl: float, client: Any) -> Any:
    from ..resample import map_tasks

    yield from map_tasks(client, _chunk_ci, chunks, shared=dict(confidence_level=cl))


def _add(acc: dict, part: dict, keys: Sequence[str]) -> None:
    for k in keys:
        if k in part:
            acc[k] = part[k] if k not in acc else acc[k] + part[k]


# ------------------------------------------------------------------ public API
def all_pairs_blocked(
    source: Any,
    *,
    models: Sequence[str] | None = None,
    blocks: list | None = None,
    block_items: int = 10_000,
    pairs: Literal["all", "adjacent"] = "all",
    adjust: Literal["holm", "bonferroni", "bh", "none"] = "holm",
    confidence_level: float = 0.95,
    interval: Literal["auto", "exact", "wald"] = "auto",
    client: Any = None,
) -> PairTable:
    """:func:`~ranktrust.stats._paired.all_pairs` (unclustered) from sums over blocks of items.

    Parameters
    ----------
    source : str, ScoreMatrix or ndarray (M, N)
        A score Parquet file (:func:`write_parquet` layout: its row groups are the blocks),
        or scores in memory (cut into blocks of ``block_items`` items).
    models : sequence of str, optional
        Model names (default: the file's columns, the matrix's models, ``model_k``).
    blocks : list, optional
        Explicit blocks: ``(path, row_group)`` pairs or ``(M, n)`` arrays.
    block_items : int, default: ``10_000``
        Items per block for in-memory input.
    pairs, adjust, confidence_level, interval
        As in :func:`~ranktrust.stats._paired.all_pairs` (method: exact McNemar for 0/1
        scores, paired t otherwise).
    client : dask.distributed.Client, optional
        Compute the blocks on its workers (each reads its own Parquet row groups).

    Returns
    -------
    PairTable
        Identical to ``all_pairs(m, pairs=..., adjust=..., ...)`` for 0/1 scores; for continuous
        scores equal up to float rounding to ``all_pairs(..., method="t")``: the asymptotic paired t,
        since the finite-sample betting interval ``all_pairs`` gives continuous scores by default reads
        every item in order and has no block sums.

    Notes
    -----
    Pass 1 sums, per block, each model's total and count and (0/1 scores) the discordance
    counts ``B = A (K - A)^T``; continuous scores take a second pass for the centred
    products ``X0 X0^T`` (and, with missing cells, ``X0 K^T``, ``X0^2 K^T``, ``K K^T``), as in
    :func:`~ranktrust.stats._paired.pair_stats`. Memory per task: one block plus a few
    ``(M, M)`` float64 arrays.
    """
    cl = check_confidence_level(confidence_level)
    iv_kind = _check_interval(interval)
    corr = _check_correction("cr2")
    _validate.choice(pairs, "pairs", ("all", "adjacent"))
    _validate.choice(adjust, "adjust", ADJUST_METHODS)
    if blocks is None:
        if isinstance(source, (str, bytes)) or hasattr(source, "__fspath__"):
            file_models, blocks = parquet_blocks(str(source))
            models = tuple(models) if models is not None else file_models
        else:
            S = np.asarray(getattr(source, "scores", source), dtype=np.float64)
            if S.ndim != 2:
                raise ArgumentError(f"`source` must be (models, items) scores; got shape {S.shape}")
            models = tuple(models) if models is not None else tuple(
                getattr(source, "models", [f"model_{k}" for k in range(S.shape[0])]))
            blocks = [S[:, r:r + block_items] for r in range(0, S.shape[1], block_items)]
    if models is None:
        raise ArgumentError("`models` is needed with explicit `blocks`")
    models = tuple(models)
    k = len(models)
    read_models = models if blocks and not isinstance(blocks[0], np.ndarray) else None

    acc: dict[str, Any] = {}
    binary = complete = True
    n_items = n_full = 0
    for part in _run(list(blocks), dict(models=read_models, mu=None), client):
        _add(acc, part, ("sum", "count", "B", "N"))
        binary &= part["binary"]
        complete &= part["complete"]
        n_items += part["n"]
        n_full += part["n"] if part["complete"] else 0
    if "N" in acc:
        acc["N"] = acc["N"] + n_full   # a complete block: every pair shares all its items
    cnt = acc["count"]
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(cnt > 0, acc["sum"] / np.maximum(cnt, 1), np.nan)
    order = np.argsort(np.where(np.isnan(score), np.inf, -score), kind="stable")
    if pairs == "all":
        p, q = np.triu_indices(k, 1)
        ii, jj = order[p], order[q]
    else:
        ii, jj = order[:-1], order[1:]
    ii, jj = ii.astype(np.intp), jj.astype(np.intp)
    st: dict[str, np.ndarray] = {}
    if binary:
        B = acc["B"]
        b = np.rint(B[ii, jj])
        c = np.rint(B[jj, ii])
        n = np.full(ii.shape, float(n_items)) if complete else np.rint(acc["N"][ii, jj])
        st.update(b=b.astype(np.int64), c=c.astype(np.int64), n=n, sum_d=b - c)
        with np.errstate(invalid="ignore", divide="ignore"):
            st["ss"] = (b + c) - (b - c) ** 2 / n
        meth = "mcnemar"
    else:
        mu = np.where(cnt > 0, acc["sum"] / np.maximum(cnt, 1), 0.0)
        acc2: dict[str, Any] = {}
        for part in _run(list(blocks), dict(models=read_models, mu=mu, missing=not complete), client):
            _add(acc2, part, ("P", "Sx", "Sxx", "N"))
        if complete:
            C = acc2["P"]
            dg = np.diag(C)
            n = np.full(ii.shape, float(n_items))
            ss = dg[ii] + dg[jj] - 2.0 * C[ii, jj]
            sd_c = np.zeros(ii.shape)
        else:
            n = np.rint(acc2["N"][ii, jj])
            Sx, Sxx, P = acc2["Sx"], acc2["Sxx"], acc2["P"]
            sd_c = Sx[ii, jj] - Sx[jj, ii]
            with np.errstate(invalid="ignore", divide="ignore"):
                ss = Sxx[ii, jj] + Sxx[jj, ii] - 2.0 * P[ii, jj] - sd_c**2 / n
        st.update(n=n, sum_d=sd_c + n * (mu[ii] - mu[jj]), ss=np.maximum(ss, 0.0))
        meth = "t"
    if ii.size:
        ci = None
        if client is not None and meth == "mcnemar" and iv_kind == "exact" and ii.size > CI_CHUNK:
            # the exact intervals (most of the per-pair work) as tasks of CI_CHUNK pairs: an
            # elementwise function of (b, c, n), so the same bits as computed here
            n1 = np.where(st["n"] >= 1, st["n"], 1)
            chunks = [(st["b"][k:k + CI_CHUNK], st["c"][k:k + CI_CHUNK], n1[k:k + CI_CHUNK])
                      for k in range(0, ii.size, CI_CHUNK)]
            parts = list(_run_ci(chunks, cl, client))
            ci = (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))
        diff, se, low, high, pv = _finish(st, meth, cl, interval=iv_kind, cluster_correction=corr, exact_ci=ci)
    else:
        diff = se = low = high = pv = np.zeros(0)
    neg = np.full(ii.shape, -1, dtype=np.int64)
    return PairTable(
        models=models, score=score, order=order.astype(np.intp), i=ii, j=jj,
        n_items=np.asarray(st.get("n", np.zeros(0))).astype(np.int64),
        only_a=st.get("b", neg), only_b=st.get("c", neg),
        diff=diff, se=se, ci_low=low, ci_high=high, p_value=pv,
        p_adjusted=adjust_pvalues(pv, adjust), method=meth, adjust=adjust, pairs_scope=pairs,
        confidence_level=cl, clustered=False, binary=binary,
        ci_method=_ci_method(meth, iv_kind, corr),
    )
