"""Person fit: does a model's per-item pattern fit its overall score?

Snijders' ``lz*`` (:func:`lz_star`) under a 2PL model whose item parameters are fitted on the
*other* models (:func:`_person_fit`, in folds and blocks of rows). Used by
:func:`ranktrust.quality.data_quality`.

References
----------
.. [1] T. A. B. Snijders, "Asymptotic null distribution of person fit statistics with
   estimated person parameter", Psychometrika 66 (2001) 331-342.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special

_FIT_MAX_MODELS = 500  # item parameters of a fold are fitted on at most this many of the other models
_ROW_BLOCK = 256       # held-out rows scored at a time (abilities and lz* are row by row)
_FIG_BLOCK = 64        # rows of the healthy-row figures and ceiling fits computed at a time (float64), at least ...
_FIG_CELLS = 262_144   # ... and as many as hold this many cells (2 MB a float64 array; GPQA's 420 x 448 at once)
_LOO_STACK = 4_000_000  # leave-one-out item fits all at once while n * n * n_items is at most this (one by one above)


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
    a = np.asarray(discrimination, dtype=np.float64).reshape(1, -1)
    b = np.asarray(difficulty, dtype=np.float64).reshape(1, -1)
    return _lz_rows(y, ability, a, b, prior_sd)


def _lz_rows(y: np.ndarray, ability: np.ndarray, a: np.ndarray, b: np.ndarray, prior_sd: float | None) -> np.ndarray:
    """:func:`lz_star` with item parameters of shape ``(1, n_items)`` (all rows) or ``(n_rows, n_items)`` (one
    set per row: leave-one-out folds)."""
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    th = np.asarray(ability, dtype=np.float64).reshape(-1)
    mask = ~np.isnan(y)
    z = th[:, None] * a - b                            # = logit P = w_j
    p = special.expit(z)
    q = p * (1 - p)
    if not mask.all():
        q = np.where(mask, q, 0.0)
    resid = np.where(mask, y - p, 0.0)
    c = _rowdot(q * z, a) / np.maximum(_rowdot(q, a * a), 1e-300)
    r0 = np.zeros_like(th) if prior_sd is None else -th / prior_sd**2
    num = np.sum(resid * z, axis=1) + c * r0
    wt = z - c[:, None] * a
    den = np.sqrt(np.sum(wt * wt * q, axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((mask.sum(1) > 0) & (den > 0), num / den, np.nan)


def _rowdot(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``x @ a[0]`` for items shared by all rows (``a`` of shape ``(1, n)``), the row-wise products otherwise."""
    return x @ a[0] if a.shape[0] == 1 else np.einsum("ij,ij->i", x, a)


def _expit(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``1 / (1 + exp(-x))`` in four ufunc passes, in ``x``'s dtype (``out`` may be ``x``).

    NumPy's float32 ``exp`` is vectorised (SIMD, AVX2 and up); ``scipy.special.expit`` is not, and was most of the
    float32 item and ability fits' time: this is 2-2.5x faster there. The two agree within a few units in the last
    place (relative error ~1e-7 in float32; 0 instead of a subnormal below exp's range). Float64 gains nothing
    without AVX-512 (numpy's float64 ``exp`` is scalar there): the figures and the ceiling fit's likelihoods keep
    ``special.expit``; the ceiling fit's Newton steps take the logistic in float32 (a cast each way costs a
    tenth of the float64 logistic) and stop where they stopped (the likelihood and ``lz`` at the end are float64).
    """
    out = np.negative(x, out=out)
    with np.errstate(over="ignore"):
        np.exp(out, out=out)
    out += 1.0
    return np.reciprocal(out, out=out)


def _clip(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """``np.clip(x, lo, hi, out=x)`` (the same values) as two ufunc calls: the fits clip small arrays many times, and
    ``np.clip``'s own dispatch cost more than the work."""
    np.maximum(x, lo, out=x)
    return np.minimum(x, hi, out=x)


def _rowsum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``(x * y).sum(1)`` without the product array."""
    return np.einsum("ij,ij->i", x, y)


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
               prior_sd: float = 3.0, tol: float = 1e-3, dtype: type = np.float32,
               start: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """MAP 2PL item parameters ``(a_j, b_j)`` with the abilities held fixed (all items at once).

    ``P_ij = expit(a_j theta_i - b_j)``; N(0, prior_sd^2) priors on ``a`` and ``b`` as in
    :func:`ranktrust.subsets._irt.fit_2pl`. Every item is a 2-parameter logistic regression on
    the abilities; the Newton step solves the ``2 x 2`` system of every item in closed form.
    Stops when every step is below ``tol`` (or after ``iters`` steps). ``start``: the ``(a, b)`` to start
    from (a fit of nearly the same rows: fewer steps to the same optimum); default ``a = 1`` and ``b`` from each
    item's share of right answers.
    """
    th = theta.astype(dtype)
    th2 = th * th
    if start is not None:
        a, b = start[0].astype(np.float64, copy=True), start[1].astype(np.float64, copy=True)
    else:
        n_obs = (mask.sum(0) if mask is not None else np.full(y0.shape[1], y0.shape[0])).astype(np.float64)
        pj = (y0.sum(0) + 0.5) / (n_obs + 1.0)
        a = np.ones(y0.shape[1])
        b = -np.log(pj / (1 - pj)) * np.sqrt(1 + np.var(theta))   # a logistic item at a = 1 on a spread of abilities
    prec = 1.0 / prior_sd**2
    Y = y0.astype(dtype)
    Mk = None if mask is None else mask.astype(dtype)
    z, w = np.empty(Y.shape, dtype=dtype), np.empty(Y.shape, dtype=dtype)
    for _ in range(iters):
        np.multiply.outer(th, a.astype(dtype), out=z)
        z -= b.astype(dtype)[None, :]
        p = _expit(z, out=z)
        np.subtract(1, p, out=w)
        w *= p                                   # p (1 - p)
        r = np.subtract(Y, p, out=p)             # (p free from here)
        if Mk is not None:
            w *= Mk
            r *= Mk
        ga = (th @ r).astype(np.float64) - prec * a
        gb = -r.sum(0).astype(np.float64) - prec * b
        haa = (th2 @ w).astype(np.float64) + prec
        hbb = w.sum(0).astype(np.float64) + prec
        hab = -(th @ w).astype(np.float64)
        if _newton_update(a, b, ga, gb, haa, hbb, hab, tol):
            break
    return a, b


def _newton_update(a: np.ndarray, b: np.ndarray, ga: np.ndarray, gb: np.ndarray, haa: np.ndarray, hbb: np.ndarray,
                   hab: np.ndarray, tol: float) -> bool:
    """One Newton step per item on its (a, b), each coordinate clipped to ±2, in place; True when every step is
    below ``tol`` (the fit has converged)."""
    det = haa * hbb - hab * hab
    da = (hbb * ga - hab * gb) / det
    db = (haa * gb - hab * ga) / det
    _clip(da, -2.0, 2.0)
    _clip(db, -2.0, 2.0)
    a += da
    b += db
    return max(float(np.max(np.abs(da))), float(np.max(np.abs(db)))) < tol


def _fit_items_loo(y0: np.ndarray, mask: np.ndarray | None, theta: np.ndarray, *, iters: int = 10,
                   prior_sd: float = 3.0, tol: float = 1e-3, dtype: type = np.float32) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_fit_items` for the ``n`` leave-one-out folds at once: fold ``f`` fits the items on every row but
    ``f``, with the abilities ``theta[f]`` (shape ``(n, n)``; ``theta[f, f]`` unused). Returns ``a``, ``b`` of
    shape ``(n, n_items)``. Memory: a few ``n x n x n_items`` arrays (``data_quality`` takes this path only
    when that is small)."""
    n, n_it = y0.shape
    out = ~np.eye(n, dtype=bool)                                      # out[f, i]: row i fits fold f
    Mk = out[:, :, None] & (np.ones((1, 1, n_it), dtype=bool) if mask is None else mask[None, :, :])
    n_obs = Mk.sum(1).astype(np.float64)                              # (n, n_items)
    pj = ((Mk * y0[None]).sum(1) + 0.5) / (n_obs + 1.0)
    var = np.array([np.var(theta[f, out[f]]) for f in range(n)])
    a = np.ones((n, n_it))
    b = -np.log(pj / (1 - pj)) * np.sqrt(1 + var)[:, None]
    prec = 1.0 / prior_sd**2
    th = np.where(out, theta, 0.0).astype(dtype)
    th2 = th * th
    Y = y0.astype(dtype)[None]
    M = Mk.astype(dtype)
    for _ in range(iters):
        p = th[:, :, None] * a.astype(dtype)[:, None, :]
        p -= b.astype(dtype)[:, None, :]
        _expit(p, out=p)
        w = 1 - p
        w *= p
        w *= M                                   # p (1 - p) M
        r = np.subtract(Y, p, out=p)
        r *= M
        ga = np.einsum("fi,fij->fj", th, r).astype(np.float64) - prec * a
        gb = -r.sum(1).astype(np.float64) - prec * b
        haa = np.einsum("fi,fij->fj", th2, w).astype(np.float64) + prec
        hbb = w.sum(1).astype(np.float64) + prec
        hab = -np.einsum("fi,fij->fj", th, w).astype(np.float64)
        if _newton_update(a, b, ga, gb, haa, hbb, hab, tol):
            break
    return a, b


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


def _below_rows(v: np.ndarray, use: np.ndarray | None = None) -> np.ndarray:
    """A one-sided figure whose healthy value is 0 or below it with SD at most 1 (``ceiling_z``), against the
    rows: ``(v - min(median, 0)) / max(1.4826 MAD, 1)``, median and MAD over the finite values of the rows
    ``use`` (all by default; NaN for all when fewer than 5). The rows' shared misfit only ever widens (or shifts
    down) the reference, never narrows it."""
    sel = np.isfinite(v) if use is None else np.isfinite(v) & use
    fin = v[sel]
    if fin.size < 5:
        return np.full_like(v, np.nan)
    med = float(np.median(fin))
    mad = 1.4826 * float(np.median(np.abs(fin - med)))
    return (v - min(med, 0.0)) / max(mad, 1.0)


def _abilities(y0: np.ndarray, mask: np.ndarray | None, a: np.ndarray, b: np.ndarray, th0: np.ndarray, *,
               prior_sd: float = 1.0, iters: int = 30, tol: float = 1e-4, dtype: type = np.float32) -> np.ndarray:
    """MAP abilities with the items fixed (:func:`ranktrust.subsets._irt.fit_ability` for ``dim = 1``),
    started from ``th0`` and computed in ``dtype``: Newton steps, capped at 2. ``a``, ``b``: shape ``(n_items,)``
    (all rows) or ``(n_rows, n_items)`` (one set per row)."""
    th = th0.astype(np.float64).copy()
    A, B, Y = np.atleast_2d(a).astype(dtype), np.atleast_2d(b).astype(dtype), y0.astype(dtype)
    A2 = A * A
    Mk = None if mask is None else mask.astype(dtype)
    prec = 1.0 / prior_sd**2
    for _ in range(iters):
        p = th.astype(dtype)[:, None] * A
        p -= B
        _expit(p, out=p)
        w = 1 - p
        w *= p                                   # p (1 - p)
        r = np.subtract(Y, p, out=p)             # (p free from here)
        if Mk is not None:
            w *= Mk
            r *= Mk
        step = (_rowdot(r, A).astype(np.float64) - prec * th) / (_rowdot(w, A2).astype(np.float64) + prec)
        _clip(step, -2.0, 2.0)
        th += step
        if float(np.max(np.abs(step), initial=0.0)) < tol:
            break
    return th


def healthy_row(y: np.ndarray, mask: np.ndarray, p: np.ndarray, other: np.ndarray) -> dict[str, np.ndarray]:
    """What a healthy row of the same ability would show, under the fitted model, next to what the row shows.

    Parameters
    ----------
    y, mask : ndarray, shape (n_rows, n_items)
        0/1 scores (any value where not scored) and where they were scored.
    p : ndarray, shape (n_rows, n_items)
        ``P_j(theta_hat)`` of each row under the fitted 2PL: a healthy row's item results are
        independent Bernoulli(``P_j``).
    other : ndarray, shape (n_rows, n_items)
        The other models' mean on each item (NaN where no other model scored it).

    Returns
    -------
    dict of ndarray, shape (n_rows,)
        ``expected_corr`` and ``corr_sd``: mean and SD (delta method) of the correlation of a healthy
        row with ``other`` over the row's items (those of :func:`_difficulty_corr`); ``expected_accuracy``
        (``mean P_j``) and ``score_z = (sum y_j - sum P_j) / sqrt(sum P_j (1 - P_j))``, the row's number of
        successes against a healthy row's, over its scored items.

    Notes
    -----
    With ``o_j`` the other models' means centred over the row's items (``n`` of them),
    ``A = sum y_j o_j / n`` and ``B = sum y_j / n``, the correlation of a 0/1 row with ``o`` is
    ``r = A / sqrt(B (1 - B) V)``, ``V = sum o_j^2 / n``. Under independent Bernoulli(``P_j``):
    ``E A = sum P_j o_j / n``, ``E B = mean P``, ``Var A = sum P_j Q_j o_j^2 / n^2``,
    ``Var B = sum P_j Q_j / n^2``, ``Cov(A, B) = sum P_j Q_j o_j / n^2``; ``expected_corr`` is ``r`` at
    the means and ``corr_sd`` the first-order (delta-method) SD. ``tests/test_quality.py`` checks both
    against a seeded simulation of healthy rows.
    """
    use = mask & np.isfinite(other)
    w = use.astype(np.float64)
    n = w.sum(1)
    p = np.where(use, p, 0.0)
    q = p * (1 - p)
    with np.errstate(invalid="ignore", divide="ignore"):
        mo = np.where(use, other, 0.0).sum(1) / n
        oc = np.where(use, other - mo[:, None], 0.0)
        v = (oc * oc).sum(1) / n
        ea = (p * oc).sum(1) / n
        eb = p.sum(1) / n
        var_a = (q * oc * oc).sum(1) / n**2
        var_b = q.sum(1) / n**2
        cov_ab = (q * oc).sum(1) / n**2
        s = np.sqrt(eb * (1 - eb) * v)
        r = ea / s
        da = 1.0 / s
        dbb = -ea * (1 - 2 * eb) / (2 * (eb * (1 - eb)) ** 1.5 * np.sqrt(v))
        sd = np.sqrt(np.maximum(da * da * var_a + 2 * da * dbb * cov_ab + dbb * dbb * var_b, 0.0))
        ok = n >= 3
    return {"expected_corr": np.where(ok, r, np.nan), "corr_sd": np.where(ok, sd, np.nan)}


def ceiling_fit(y: np.ndarray, mask: np.ndarray, ability: np.ndarray, discrimination: np.ndarray,
                difficulty: np.ndarray, *, prior_sd: float = 1.0, iters: int = 50,
                tol: float = 1e-5) -> dict[str, np.ndarray]:
    """Each row's ceiling: the share of a healthy row's right answers it keeps (vectorised over rows).

    A harness that loses right answers at random (a share ``1 - d`` of them, whatever the item) turns a
    healthy row of ability ``theta`` into one with ``P_j = d expit(a_j theta - b_j)``: the 2PL with an
    upper asymptote ``d`` (the 4PL's, with no lower one). With the items fixed, ``(theta, d)`` of each
    row is its MAP estimate (N(0, prior_sd^2) prior on ``theta``, ``0 < d <= 1``; Fisher scoring, the
    ``2 x 2`` system of every row in closed form).

    Parameters
    ----------
    y, mask : ndarray, shape (n_rows, n_items)
        0/1 scores (any value where not scored) and where they were scored.
    ability : ndarray, shape (n_rows,)
        Each row's MAP ability under the 2PL (``d = 1``), the start and the null fit.
    discrimination, difficulty : ndarray, shape (n_items,) or (n_rows, n_items)
        Item parameters: ``P_j = expit(a_j theta - b_j)`` (one set for all rows, or one per row).

    Returns
    -------
    dict of ndarray, shape (n_rows,)
        ``ceiling`` (``d``; 1 for a row whose fit does not lower it), ``ceiling_ability`` (``theta`` with
        the ceiling: the ability its pattern shows), ``ceiling_z`` (the signed root of the likelihood
        ratio of ``d < 1`` against ``d = 1``, 0 where ``d = 1``: for a healthy row ``P(ceiling_z < -x)``
        is about ``Phi(-x)``, a point mass at 0 and half a normal below it) and ``ceiling_lz`` (``lz``
        [2]_ of the row under the fit with its ceiling, with ``w_j = logit(d P_j)``: about N(0, 1) or
        narrower when the ceiling explains the row).

    References
    ----------
    .. [1] M. A. Barton, F. M. Lord, "An upper asymptote for the three-parameter logistic item-response
       model", ETS Research Report 81-20 (1981) (the upper asymptote ``d``).
    .. [2] F. Drasgow, M. V. Levine, E. A. Williams, Br. J. Math. Stat. Psychol. 38 (1985) 67-86.
    """
    return _ceiling_fit(y, mask, ability, discrimination, difficulty, prior_sd=prior_sd, iters=iters, tol=tol)


def _ceiling_fit(y: np.ndarray, mask: np.ndarray, ability: np.ndarray, discrimination: np.ndarray,
                 difficulty: np.ndarray, *, prior_sd: float = 1.0, iters: int = 50, tol: float = 1e-5,
                 with_lz: bool = True, p0: np.ndarray | None = None, want_p: bool = False) -> dict[str, np.ndarray]:
    """:func:`ceiling_fit`; ``with_lz=False`` leaves ``ceiling_lz`` NaN and skips its passes over the rows (the
    healthy rows of ``data_quality``'s reference need only the ceiling and its ``ceiling_z``).

    ``p0``: ``special.expit(ability[:, None] * discrimination - difficulty)`` when the caller has it (the same
    values: the first step and the likelihood at ``d = 1`` start from it); ``want_p``: also return ``"p"``, the
    same at ``ceiling_ability`` (the last likelihood computes it). The logistic of every cell is most of the cost.
    """
    th1 = np.asarray(ability, dtype=np.float64).reshape(-1)
    a = np.atleast_2d(np.asarray(discrimination, dtype=np.float64))
    b = np.atleast_2d(np.asarray(difficulty, dtype=np.float64))
    if p0 is None:
        p0 = th1[:, None] * a
        p0 -= b
        special.expit(p0, out=p0)
    per_row = a.shape[0] > 1
    mk = np.asarray(mask, dtype=bool)
    full = bool(mk.all())
    Y = np.asarray(y, dtype=np.float64) if full else np.where(mk, np.asarray(y, dtype=np.float64), 0.0)
    M = None if full else mk.astype(np.float64)
    prec = 1.0 / prior_sd**2
    eps = 1e-9
    th, d = th1.copy(), np.full(th1.size, 0.9)
    # the rows still moving (``rows[act]``) and working copies of their (rows x items) arrays: each row's steps are
    # its own, and the copies shrink to the rows still moving whenever those are half of them or fewer (a few rows
    # take many more steps than the rest: they do not gather the whole block at every step)
    rows = np.flatnonzero(np.isfinite(th1))
    Yw, Mw, aw, bw = Y, M, a, b
    if rows.size < th1.size:
        Yw, Mw = Y[rows], None if M is None else M[rows]
        aw, bw = (a[rows], b[rows]) if per_row else (a, b)
    act = np.arange(rows.size)
    # every (rows x items) array below is written into one of four buffers made once (their leading rows: fresh
    # arrays of this size at every step cost the kernel's page faults again and again)
    buf = np.empty((4, rows.size, Y.shape[1]))
    b32 = np.empty((rows.size, Y.shape[1]), dtype=np.float32)
    first = True
    for _ in range(iters):
        if act.size == 0:
            break
        if act.size <= rows.size // 2:
            rows, Yw, Mw = rows[act], Yw[act], None if Mw is None else Mw[act]
            aw, bw = (aw[act], bw[act]) if per_row else (aw, bw)
            act = np.arange(rows.size)
        whole = act.size == rows.size
        active = rows if whole else rows[act]
        t, dd = th[active], d[active]
        aa, bb = (aw[act], bw[act]) if per_row and not whole else (aw, bw)
        p, ps, w, gp = buf[0, :act.size], buf[1, :act.size], buf[2, :act.size], buf[3, :act.size]
        if first and rows.size == th.size:
            p = p0                      # at the start (theta = ability) on every row: computed once
        else:
            np.multiply(t[:, None], aa, out=p)
            p -= bb
            # the logistic in float32 (SIMD exp; about 4x faster than float64's here): the steps' weights move by
            # ~1e-7 relatively, the fixed point by far less than `tol`; the likelihoods below are float64
            q32 = b32[:act.size]
            q32[...] = p
            _expit(q32, out=q32)
            p[...] = q32
        first = False
        np.multiply(dd[:, None], p, out=ps)
        _clip(ps, eps, 1 - eps)
        np.subtract(1.0, ps, out=w)
        w *= ps
        np.divide(1.0 if Mw is None else Mw if whole else Mw[act], w, out=w)   # w = M / (ps (1 - ps))
        r = np.subtract(Yw if whole else Yw[act], ps, out=ps)                 # (ps free from here)
        r *= w
        np.subtract(1.0, p, out=gp)
        gp *= p
        gp *= aa                                                  # d p / d theta
        g_t = dd * _rowsum(r, gp) - prec * t
        g_d = _rowsum(r, p)
        wgp = np.multiply(w, gp, out=r)                           # (r free)
        i_tt = dd * dd * _rowsum(wgp, gp) + prec
        i_td = dd * _rowsum(wgp, p)
        w *= p
        i_dd = _rowsum(w, p)
        det = i_tt * i_dd - i_td * i_td
        with np.errstate(invalid="ignore", divide="ignore"):
            st = (i_dd * g_t - i_td * g_d) / det
            sd = (i_tt * g_d - i_td * g_t) / det
        edge = (dd >= 1.0) & ~(sd < 0)                        # at the bound, pushing past it: theta alone
        st = np.where(edge, g_t / i_tt, st)
        sd = np.where(edge, 0.0, sd)
        _clip(st, -1.0, 1.0)
        _clip(sd, -0.25, 0.25)
        nd = _clip(dd + sd, 0.005, 1.0)
        th[active] = t + st
        d[active] = nd
        act = act[(np.abs(st) > tol) | (np.abs(nd - dd) > tol)]

    right = (Y == 1) if bool(np.all((Y == 0) | (Y == 1))) else None   # 0/1 scores (data_quality's): one log a cell

    p_end = None
    # the four step buffers are free from here: the likelihoods and lz* write into them (a (rows x items) array
    # fewer touched for the first time is fewer page faults), when they hold every row
    mine = buf.shape[1] == th.size

    def slot(k: int, n: int) -> np.ndarray:
        return buf[k, :n] if mine else np.empty((n, Y.shape[1]))

    def loglik(rows: np.ndarray | None, t: np.ndarray, dd: np.ndarray | None, s0: int) -> tuple[np.ndarray, np.ndarray]:
        """The log posterior of ``rows`` (None: every row) at ``(t, dd)``, and ``d P`` (in slot ``s0``; slot ``s0 + 1``
        is scratch); ``dd`` None: ``d = 1`` at the start (``p0``)."""
        nonlocal p_end
        n_r = th.size if rows is None else rows.size
        ps = slot(s0, n_r)
        if dd is None:
            np.take(p0, rows, axis=0, out=ps)
        else:
            aa, bb = (a[rows], b[rows]) if per_row and rows is not None else (a, b)
            np.multiply(t[:, None], aa, out=ps)
            ps -= bb
            special.expit(ps, out=ps)
            if want_p:
                p_end = ps.copy()
            ps *= dd[:, None]
        _clip(ps, eps, 1 - eps)
        mm = M if M is None or rows is None else M[rows]
        if right is not None:
            # log(ps) where y = 1, log(1 - ps) where y = 0: one log a cell instead of log(ps) and log1p(-ps) on every
            # cell (the logs are most of the cost). 1 - ps is exact for ps >= 1/2 and within an ulp of 1/2 or more
            # below it, so each term is log1p(-ps)'s within ~2e-16.
            lc = np.subtract(1.0, ps, out=slot(s0 + 1, n_r))
            np.copyto(lc, ps, where=right if rows is None else right[rows])
            np.log(lc, out=lc)
            ll = lc.sum(1) if mm is None else _rowsum(mm, lc)
        else:
            yy = Y if rows is None else Y[rows]
            l1, l0 = np.log(ps), np.log1p(-ps)
            ll = _rowsum(yy, l1) + _rowsum(1 - yy, l0) if mm is None else \
                _rowsum(mm * yy, l1) + _rowsum(mm * (1 - yy), l0)
        return ll - 0.5 * prec * t * t, ps

    l_d, ps = loglik(None, th, d, 0)
    low = np.flatnonzero(d < 1.0)          # the likelihood ratio of d < 1 against d = 1 (0 where d = 1)
    z = np.zeros(th.size)
    if low.size:
        l_1 = loglik(low, th1[low], None, 2)[0]
        z[low] = -np.sqrt(2 * np.maximum(l_d[low] - l_1, 0.0))
    if with_lz:
        n_r = th.size
        q = np.subtract(1.0, ps, out=slot(1, n_r))
        wl = np.divide(ps, q, out=slot(2, n_r))
        np.log(wl, out=wl)                        # log(ps / (1 - ps))
        q *= ps
        res = np.subtract(Y, ps, out=slot(3, n_r))
        if M is not None:
            res *= M
            q *= M
        num = _rowsum(res, wl)
        q *= wl                                   # (q wl) wl below: the products of _rowsum(q * wl, wl)
        with np.errstate(invalid="ignore", divide="ignore"):
            lz = num / np.sqrt(_rowsum(q, wl))
    else:
        lz = np.full(th.size, np.nan)
    bad = ~np.isfinite(th1) | (mk.sum(1) == 0)
    nan = np.nan
    out = {"ceiling": np.where(bad, nan, d), "ceiling_ability": np.where(bad, nan, th),
           "ceiling_z": np.where(bad, nan, z), "ceiling_lz": np.where(bad, nan, lz)}
    if want_p:
        out["p"] = p_end
    return out


def _score_figures(y: np.ndarray, mask: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(expected_accuracy, score_z)`` of each row over its scored items (see :func:`healthy_row`)."""
    p = np.where(mask, p, 0.0)
    n = mask.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return p.sum(1) / n, (np.where(mask, y, 0.0).sum(1) - p.sum(1)) / np.sqrt((p * (1 - p)).sum(1))


def _person_fit(y: np.ndarray, mask: np.ndarray, folds: int, gen: np.random.Generator,
                min_items: int, *, ceiling_only: bool = False,
                start_items: list[tuple[np.ndarray, np.ndarray]] | None = None) -> dict[str, Any]:
    """``lz*``, ability and the healthy-row figures of every row, each under 2PL item parameters fitted
    on the other folds.

    The item parameters of a fold come from the models outside it, with their abilities
    held at the standardised logit of their accuracy (one pass of joint maximum likelihood:
    under a unidimensional model the raw score orders the abilities); each held-out model's
    ability is then its MAP estimate with those items fixed (N(0, 1) prior, Newton steps).
    With ``folds >= n`` every row is its own fold (leave-one-out: no randomness; the ``n`` fits at once,
    :func:`_fit_items_loo`, when they are small); otherwise rows are split into ``folds`` folds at random by
    ``gen``.
    Returns ``lz``, ``theta``, :func:`healthy_row`'s ``expected_corr``, ``corr_sd``,
    ``expected_accuracy``, ``score_z``, and :func:`ceiling_fit`'s ``ceiling``, ``ceiling_z``, ``ceiling_lz``
    with ``ceiling_accuracy`` (a healthy row's accuracy at the ability the row's pattern shows with its
    ceiling: its accuracy before the losses); NaN for rows with fewer than ``min_items`` scored items.
    ``ceiling_only``: only ``theta``, ``ceiling`` and ``ceiling_z`` are computed (the rest stays NaN), for the
    healthy rows of ``data_quality``'s reference.
    """
    n = y.shape[0]
    k = int(min(folds, n))
    fold = np.arange(n) if k == n else gen.permutation(np.arange(n) % k)
    loo = k == n and n * y.size <= _LOO_STACK
    full = bool(mask.all())
    y0 = np.where(mask, y, 0.0)
    cnt = mask.sum(1)
    acc = (y0.sum(1) + 0.5) / (cnt + 1.0)
    lt = np.log(acc / (1 - acc))
    lz = np.full(n, np.nan)
    theta = np.full(n, np.nan)
    out_fig = {k: np.full(n, np.nan) for k in ("expected_corr", "corr_sd", "expected_accuracy", "score_z", "ceiling",
                                                "ceiling_z", "ceiling_lz", "ceiling_accuracy")}
    tot = y0.sum(0)
    cnt_item = mask.sum(0)
    items: list[tuple[np.ndarray, np.ndarray]] = []

    def score(r: np.ndarray, start: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        """Abilities and lz* of the held-out rows ``r`` under items ``a``, ``b`` (shape ``(n_items,)``, or one row per
        row of ``r``); the figures follow for every row at once (:func:`figures`)."""
        a2, b2 = np.atleast_2d(a), np.atleast_2d(b)
        th = _abilities(y0[r], None if full else mask[r], a2, b2, start)
        if not ceiling_only:       # (the healthy rows of data_quality's reference need theta and the ceiling only)
            lz[r] = np.where(cnt[r] >= min_items, _lz_rows(y[r], th, a2, b2, 1.0), np.nan)
        theta[r] = th

    def figures(a_of: np.ndarray, b_of: np.ndarray) -> None:
        """The healthy-row figures and the ceiling fit of every row, row ``i`` under the items ``a_of[fold[i]]``,
        ``b_of[fold[i]]``: in blocks of rows of any folds (each row's figures and fit are its own), so the ceiling
        fit's last steps, taken by a few rows, run once per block and not once per fold and block."""
        blk = max(_FIG_BLOCK, _FIG_CELLS // max(y.shape[1], 1))
        for s1 in range(0, n, blk):       # float64 figures: a few (block x N) arrays at a time
            rr = slice(s1, min(n, s1 + blk))   # the block's rows as views (read, never written), gathered once
            ok, th = cnt[rr] >= min_items, theta[rr]
            aa, bb = a_of[fold[rr]], b_of[fold[rr]]
            yb, mk = y0[rr], mask[rr]
            fig = {}
            if not ceiling_only:         # (the healthy rows of data_quality's reference need the ceiling only)
                p = special.expit(th[:, None] * aa - bb)
                with np.errstate(invalid="ignore", divide="ignore"):
                    other = (tot[None, :] - yb) / (cnt_item[None, :] - mk)    # leave-one-out item means
                fig = healthy_row(yb, mk, p, other)
                fig["expected_accuracy"], fig["score_z"] = _score_figures(yb, mk, p)
            cf = _ceiling_fit(yb, mk, th, aa, bb, with_lz=not ceiling_only, p0=None if ceiling_only else p,
                              want_p=not ceiling_only)
            fig.update({k: cf[k] for k in ("ceiling", "ceiling_z", "ceiling_lz")})
            if not ceiling_only:
                pd_ = cf["p"]        # P_j at the ability with the ceiling: expit(ceiling_ability a_j - b_j)
                with np.errstate(invalid="ignore", divide="ignore"):
                    fig["ceiling_accuracy"] = np.where(mk, pd_, 0.0).sum(1) / mk.sum(1)   # before the losses
            for key, v in fig.items():
                out_fig[key][rr] = np.where(ok, v, np.nan)

    if loo:
        # fold f = row f; the abilities of the other rows standardised without row f (closed form)
        s1_, s2_ = lt.sum(), (lt * lt).sum()
        mu = (s1_ - lt) / (n - 1)
        sd = np.sqrt(np.maximum((s2_ - lt * lt) / (n - 1) - mu * mu, 0.0))
        sd = np.where(sd > 0, sd, 1.0)
        th_fit = (lt[None, :] - mu[:, None]) / sd[:, None]
        a, b = _fit_items_loo(y0, None if full else mask, th_fit)
        items = [(a[f], b[f]) for f in range(n)]
        for s0 in range(0, n, _ROW_BLOCK):
            r = np.arange(s0, min(n, s0 + _ROW_BLOCK))
            score(r, (lt[r] - mu[r]) / sd[r], a[r], b[r])
        figures(a, b)
        return {"lz": lz, "theta": theta, **out_fig, "fold": fold, "items": items}
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
        # each fold's fit starts from the items of a fit of nearly the same rows: the previous fold's (the folds
        # share most rows), the first from ``start_items`` (healthy rows drawn from a fitted model: its items)
        start = items[-1] if items else None if start_items is None else start_items[0]
        a, b = _fit_items(y0[fit], None if full else mask[fit], t, start=start)
        items.append((a, b))
        sd = lt[rest].std() if lt[rest].std() > 0 else 1.0
        rows = np.flatnonzero(out)
        for s0 in range(0, rows.size, _ROW_BLOCK):   # held-out rows in blocks: memory stays O(block x N)
            r = rows[s0:s0 + _ROW_BLOCK]
            score(r, (lt[r] - lt[rest].mean()) / sd, a, b)
    figures(np.stack([a_ for a_, _ in items]), np.stack([b_ for _, b_ in items]))
    return {"lz": lz, "theta": theta, **out_fig, "fold": fold, "items": items}


def _healthy_draw(theta: np.ndarray, fold: np.ndarray, items: list[tuple[np.ndarray, np.ndarray]],
                  mask: np.ndarray, gen: np.random.Generator, order: np.ndarray | None = None) -> np.ndarray:
    """A matrix of healthy rows drawn from the fitted model: row ``i`` is Bernoulli(``P_j(theta_i)``) under the
    items of its fold, on the cells ``mask`` holds (NaN elsewhere). Drawn in blocks of rows; ``order`` (the
    items sorted by label) ties each uniform to an item, so the draw does not depend on the column order."""
    out = np.full(mask.shape, np.nan)
    for f, (a, b) in enumerate(items):
        rows = np.flatnonzero((fold == f) & np.isfinite(theta))
        for s0 in range(0, rows.size, _ROW_BLOCK):
            r = rows[s0:s0 + _ROW_BLOCK]
            p = special.expit(np.multiply.outer(theta[r], a) - b[None, :])
            u = gen.random(p.shape)
            if order is not None:
                u[:, order] = u.copy()
            out[r] = np.where(mask[r], (u < p).astype(np.float64), np.nan)
    return out


def _by_ability(theta_ref: np.ndarray, v_ref: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median and ``1.4826 MAD`` of ``v_ref`` over the reference rows nearest in ability to each ``theta``: a
    window of ``k = max(15, n / 5)`` reference rows (all of them when fewer) centred on its rank among them, each
    figure averaged over the windows whose centres lie within ``k / 2`` ranks of it on both sides (fewer near
    the ends, where the windows stop: the average is symmetric about the row's own window). The average is a
    running mean of the running median: the same reference, less Monte Carlo noise (on SWE-bench's 25 models,
    600 reference rows, the SD of Kimi K2's ``ceiling_z`` over 20 seeds falls from 0.42 to 0.26)."""
    ok = np.isfinite(theta_ref) & np.isfinite(v_ref)
    order = np.argsort(theta_ref[ok], kind="stable")
    ts, vs = theta_ref[ok][order], v_ref[ok][order]
    m = ts.size
    if m == 0:
        return np.full(theta.shape, np.nan), np.full(theta.shape, np.nan)
    k = min(m, max(15, m // 5))
    win = np.lib.stride_tricks.sliding_window_view(vs, k)              # (m - k + 1, k)
    med = np.median(win, axis=1)
    mad = 1.4826 * np.median(np.abs(win - med[:, None]), axis=1)
    pos = np.searchsorted(ts, np.where(np.isfinite(theta), theta, 0.0))
    at = np.clip(pos - k // 2, 0, m - k)
    h = np.minimum(np.minimum(k // 2, at), m - k - at)                  # symmetric about the row's window
    cmed, cmad = np.concatenate([[0.0], np.cumsum(med)]), np.concatenate([[0.0], np.cumsum(mad)])
    lo, hi = at - h, at + h + 1
    nan = ~np.isfinite(theta)
    return (np.where(nan, np.nan, (cmed[hi] - cmed[lo]) / (hi - lo)),
            np.where(nan, np.nan, (cmad[hi] - cmad[lo]) / (hi - lo)))

