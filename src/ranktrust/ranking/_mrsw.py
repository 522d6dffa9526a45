"""The bootstrap machinery of :func:`~ranktrust.ranking._ranksets.rank_sets` with ``method="bootstrap"``.

Mogstad, Romano, Shaikh & Wilhelm's stepwise max-t procedure over the scaled pair differences: the scaled
differences (plain or studentized bootstrap-t), chunked so that at most ``_CHUNK_CELLS`` resamples x M x M
cells are held at once, and the simultaneous and marginal step-downs. ``ranksets.py`` holds the result type,
the layers of the "found better" relation and the pairs method.

This is not the two-sided pair stepdown of :mod:`._stepdown` (arena, judges, suite): MRSW tests the one-sided
hypotheses of ordered pairs, keeps the reverse direction of a rejected pair in every later max, moves by
critical values rather than per-pair p-values, and its marginal sets run a separate max per model; what the
two share is the scaling of a pair by ``1 / se`` (:func:`._stepdown.inverse_se`, 0 for a pair without spread).
"""

from __future__ import annotations

import math

import numpy as np

from ._stepdown import inverse_se

_CHUNK_CELLS = 2**23  # bound on resamples x M x M cells held at once


class _Scaled:
    """Bootstrap-scaled pair differences ``(z_j - z_k) / sigma_jk``, computed chunk by chunk.

    float32 and in-place operations: this is the O(n_resamples * M^2) inner loop.
    Pairs with ``sigma_jk = 0`` (identical per-item scores up to a constant) count as 0:
    they never raise the critical value, and they are rejected only when their gap is
    nonzero (then it is exact: the models differ by the same amount on every item).
    """

    def __init__(self, z: np.ndarray, sigma: np.ndarray) -> None:
        self.z = z.astype(np.float32)
        self.inv = inverse_se(sigma).astype(np.float32)
        m = sigma.shape[0]
        self.step = max(1, _CHUNK_CELLS // (m * m))
        self.buf = np.empty((min(self.step, len(z)), m, m), dtype=np.float32)

    def chunks(self):
        for a in range(0, len(self.z), self.step):
            zc = self.z[a:a + self.step]
            buf = self.buf[: len(zc)]
            np.subtract(zc[:, :, None], zc[:, None, :], out=buf)
            np.multiply(buf, self.inv, out=buf)
            yield a, buf


def _mask_add(active: np.ndarray) -> np.ndarray:
    return np.where(active, 0.0, -np.inf).astype(np.float32)


def _max_over(sc: _Scaled, active: np.ndarray) -> np.ndarray:
    """Bootstrap max of the scaled differences over ``active`` pairs: (B,)."""
    add = _mask_add(active)
    out = np.empty(len(sc.z))
    for a, buf in sc.chunks():
        np.add(buf, add, out=buf)
        out[a:a + len(buf)] = buf.reshape(len(buf), -1).max(axis=1)
    return out


def _max_per_model(sc: _Scaled, row: np.ndarray, col: np.ndarray) -> np.ndarray:
    """(B, M): for model j the max over its active pairs (j, k) [row] and (k, j) [col]."""
    add_row, add_col_t = _mask_add(row), _mask_add(col).T     # col[j, k] is pair (k, j)
    out = np.empty(sc.z.shape)
    for a, buf in sc.chunks():
        c = (buf + add_col_t).max(axis=1)                        # over k of pair (k, j)
        np.add(buf, add_row, out=buf)
        out[a:a + len(buf)] = np.maximum(buf.max(axis=2), c)
    return out


def min_units(level: float) -> int:
    """Fewest items on which two models must differ before a paired test at ``level`` can
    order them: the smallest ``k`` with ``0.5^k <= 1 - level`` (5 at 0.95)."""
    return max(1, int(math.ceil(math.log2(1.0 / (1.0 - level)) - 1e-9)))


def _n_differ(u: np.ndarray) -> np.ndarray:
    """(M, M) number of units (items or cluster totals, columns of ``u``) on which two rows differ."""
    m, n = u.shape
    if np.all((u == 0) | (u == 1)):  # 0/1: #(1,0) + #(0,1) = a_j + a_k - 2 <u_j, u_k>, one matrix product
        a = u.sum(axis=1)
        return np.rint(a[:, None] + a[None, :] - 2.0 * (u @ u.T)).astype(np.int64)
    scale = np.maximum(np.abs(u).max(initial=0.0), 1.0)
    tol = 1e-9 * scale
    out = np.empty((m, m), dtype=np.int64)
    step = max(1, _CHUNK_CELLS // max(1, m * n))
    for a in range(0, m, step):  # chunks of rows (memory), vectorised over pairs and units
        out[a:a + step] = (np.abs(u[a:a + step, None, :] - u[None, :, :]) > tol).sum(axis=2)
    return out


def _simultaneous(theta, sigma, sc, level, can=None):
    m = len(theta)
    diff = theta[:, None] - theta[None, :]
    active = ~np.eye(m, dtype=bool)
    if can is not None:  # pairs that differ on too few items can never be ordered (nor falsely)
        diff = np.where(can, diff, -np.inf)
        active &= can
    rejected = np.zeros((m, m), dtype=bool)
    while active.any():
        c = np.quantile(_max_over(sc, active), level)
        new = active & (diff > sigma * c)
        if not new.any():
            break
        rejected |= new
        active &= ~new
    return rejected


def _marginal(theta, sigma, sc, level, can=None):
    m = len(theta)
    diff = theta[:, None] - theta[None, :]
    off = ~np.eye(m, dtype=bool)
    if can is not None:
        diff = np.where(can, diff, -np.inf)
        off &= can
    row, col = off.copy(), off.copy()          # row[j,k]: (j,k) in j's problem; col[j,k]: (k,j)
    rej_row = np.zeros((m, m), dtype=bool)
    rej_col = np.zeros((m, m), dtype=bool)
    while row.any() or col.any():
        with np.errstate(invalid="ignore"):    # a model with no open pair: all -inf, quantile nan
            c = np.quantile(_max_per_model(sc, row, col), level, axis=0)     # (M,)
        c = np.where(np.isfinite(c), c, 0.0)   # -inf: model j has no open pair left (masked below)
        new_row = row & (diff > sigma * c[:, None])
        new_col = col & (diff.T > sigma * c[:, None])
        if not (new_row.any() or new_col.any()):
            break
        rej_row |= new_row
        rej_col |= new_col
        row &= ~new_row
        col &= ~new_col
    return 1 + rej_col.sum(axis=1), m - rej_row.sum(axis=1)


_STUDENT_CELLS = 2**26   # studentize when n_resamples * M^2 cells fit (256 MB of float32)
_STUDENT_MAX_UNITS = 2000  # above this many items the plain and studentized sets agree (audit: n >= 500)


class _Studentized(_Scaled):
    """Bootstrap-t version of :class:`_Scaled`: ``(z*_j - z*_k) / sigma*_jk`` with the SE of the
    paired difference recomputed in every resample (kept whole: ``n_resamples * M^2`` float32).

    ``sigma*`` is floored at ``sigma / 2`` so that a resample with (almost) no discordant items
    cannot blow the critical value up; pairs with ``sigma = 0`` count as 0 as in :class:`_Scaled`.
    """

    def __init__(self, s: np.ndarray, w: np.ndarray, theta: np.ndarray, sigma: np.ndarray) -> None:
        b, n = w.shape
        m = s.shape[0]
        self.z = np.empty((b, m), dtype=np.float32)  # for len()
        self.t = np.empty((b, m, m), dtype=np.float32)
        step = max(1, (2**24) // max(1, m * n))
        s32 = s.astype(np.float64)
        floor = 0.5 * sigma
        for a in range(0, b, step):
            wc = w[a:a + step]
            tot = wc.sum(axis=1)
            mu = (wc @ s32.T) / tot[:, None]                                   # (b, M)
            g = np.matmul(s32[None, :, :] * wc[:, None, :], s32.T) / tot[:, None, None]  # E*[x_j x_k]
            cov = g - mu[:, :, None] * mu[:, None, :]
            dg = np.diagonal(cov, axis1=1, axis2=2)
            var = dg[:, :, None] + dg[:, None, :] - 2.0 * cov
            sig = np.sqrt(np.maximum(var, 0.0) / max(n - 1, 1))
            sig = np.maximum(sig, floor)
            with np.errstate(divide="ignore", invalid="ignore"):
                inv = np.where(sigma > 0, 1.0 / sig, 0.0)
            z = mu - theta
            self.z[a:a + len(wc)] = z
            self.t[a:a + len(wc)] = (z[:, :, None] - z[:, None, :]) * inv
        self.step = max(1, _CHUNK_CELLS // (m * m))
        self.buf = np.empty((min(self.step, b), m, m), dtype=np.float32)

    def chunks(self):
        for a in range(0, len(self.t), self.step):
            tc = self.t[a:a + self.step]
            buf = self.buf[: len(tc)]
            np.copyto(buf, tc)
            yield a, buf
