"""Gold-corrected means of judged scores: the estimators and their item-level influence (numerics only).

A judge (an LLM grader, an automatic metric) scores every item; a person labels a random subset. Three
estimators of each model's mean *gold* score use both, and each gives, besides its estimate, the item-level
contributions ``w`` (``N x M``) of its linearisation, so ``w.T @ w`` is the covariance of the estimates of all
models at once: pairs and simultaneous rank sets come from that one matrix. They are returned in two parts,
``w_judge`` (the judge's share, over all items) and ``w_label`` (the labels' share, zero off the labelled items),
whose variances scale as ``1/N`` and ``1/n``: :func:`ranktrust.judges.labels_needed` reads the label budget off
them.

``ppi++`` (Angelopoulos, Duchi & Zrnic 2023, "PPI++", arXiv:2311.01453), for any judge score::

    theta_j = lambda_j * mean_all(f_j) + mean_L(Y_j - lambda_j f_j)

with the judge's mean over all ``N`` items and the rectifier over the ``n`` labelled ones. Taking the judge's
mean over all items (the labelled ones included), the variance is smallest at the regression slope
``lambda_j = Cov_L(Y_j, f_j) / Var_all(f_j)``; ``lambda = 0`` is the gold-only mean, ``lambda = 1`` classic
PPI. The interval is ``theta +- t_{n-1} se``.

``stratified`` (0/1 judge and 0/1 gold): the judge's verdict splits the items into two strata, and::

    theta_j = q_j a_j + (1 - q_j) b_j,   q_j = share of all items the judge passes,
    a_j = P_L(Y = 1 | f = 1),  b_j = P_L(Y = 1 | f = 0)

(post-stratification on the judge; PPI with the calibrated judge ``E[Y | f]`` as its prediction). Its interval
takes ``a`` and ``b`` with half a success and half a failure added to each stratum (``(k + 1/2) / (n + 1)``,
the pseudo-counts of the Agresti–Coull family for linear combinations of proportions, Price & Bonett 2004),
which keeps it away from zero width near 0 and 1 and lifts coverage at 100 labels from 0.91-0.93 (the Wald
PPI interval) to at least 0.938 over the grid of ``bench/bench_judge.py``.

``rogan-gladen`` (0/1 judge and 0/1 gold): the judge's sensitivity and specificity measured on the labelled
items correct its pass rate, ``theta = (q + sp - 1) / (se + sp - 1)`` (Rogan & Gladen 1978; the correction of
Lee et al., arXiv:2511.21140), with the delta-method interval that counts the calibration set's uncertainty.
Unstable when ``se + sp`` is near 1 (the judge carries no information): refused below ``se + sp = 1.05``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ppi_plus", "stratified", "rogan_gladen", "HALF"]

#: pseudo-count added to each stratum's successes and failures for the interval of the stratified estimator
HALF = 0.5


def ppi_plus(f: np.ndarray, y: np.ndarray, labelled: np.ndarray) -> dict[str, np.ndarray]:
    """PPI++ (power-tuned) mean of every model.

    ``f``: judge scores ``(N, M)``, complete. ``y``: gold ``(N, M)``, read only where ``labelled``.
    ``labelled``: bool ``(N,)``. Returns ``estimate, lam, w`` and ``centre`` (= estimate).
    """
    N = f.shape[0]
    L = np.asarray(labelled, dtype=bool)
    n = int(L.sum())
    fL, yL = f[L], y[L]
    fbar = f.mean(axis=0)
    vf = f.var(axis=0, ddof=1)
    cov = ((yL - yL.mean(axis=0)) * (fL - fL.mean(axis=0))).sum(axis=0) / max(n - 1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(vf > 0, cov / vf, 0.0)
    r = yL - lam * fL
    est = lam * fbar + r.mean(axis=0)
    wj = lam * (f - fbar) / N
    wl = np.zeros_like(f)
    wl[L] = (r - r.mean(axis=0)) / n
    return {"estimate": est, "centre": est, "lam": lam, "w_judge": wj, "w_label": wl}


def _binary_parts(f: np.ndarray, y: np.ndarray, labelled: np.ndarray) -> tuple:
    """``N, L, fL, yL, q``: the number of items, the labelled mask, the labelled judge and gold scores, and the
    judge's pass rate over all items (what both 0/1 estimators start from)."""
    L = np.asarray(labelled, dtype=bool)
    return f.shape[0], L, f[L], y[L], f.mean(axis=0)


def stratified(f: np.ndarray, y: np.ndarray, labelled: np.ndarray) -> dict[str, np.ndarray]:
    """Post-stratified mean on a 0/1 judge's verdict (see the module docstring).

    ``estimate``: with the strata's raw shares; ``centre`` and ``w``: with the pseudo-counts (the interval's).
    Also ``q, a, b`` (raw) and ``n1, n0`` (labelled items the judge passed / failed).
    """
    N, L, fL, yL, q = _binary_parts(f, y, labelled)
    n1 = fL.sum(axis=0)
    n0 = L.sum() - n1
    k1 = (fL * yL).sum(axis=0)
    k0 = ((1 - fL) * yL).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        a_raw = np.where(n1 > 0, k1 / n1, 0.0)
        b_raw = np.where(n0 > 0, k0 / n0, 0.0)
    est = q * a_raw + (1 - q) * b_raw
    a = (k1 + HALF) / (n1 + 2 * HALF)
    b = (k0 + HALF) / (n0 + 2 * HALF)
    centre = q * a + (1 - q) * b
    # influence: (a - b)(f_i - q) / N over all items, and each stratum's residual over its labelled items.
    # Each labelled residual is shrunk towards its variance with the pseudo-counts: the stratum's sum of squares
    # is k(1-a)^2 + (n-k)a^2 = n a(1-a) at the raw share; with a pseudo-count share it is at least that.
    wj = (a - b) * (f - q) / N
    wl = np.zeros_like(f)
    wl[L] = np.where(fL == 1, q * (yL - a) / (n1 + 2 * HALF), (1 - q) * (yL - b) / (n0 + 2 * HALF))
    # the pseudo-observations' own share of the variance (half a success and half a failure per stratum)
    extra = (q ** 2 * HALF * ((1 - a) ** 2 + a ** 2) / (n1 + 2 * HALF) ** 2
             + (1 - q) ** 2 * HALF * ((1 - b) ** 2 + b ** 2) / (n0 + 2 * HALF) ** 2)
    return {"estimate": est, "centre": centre, "w_judge": wj, "w_label": wl, "extra": extra, "q": q, "a": a_raw, "b": b_raw,
            "n1": n1, "n0": n0}


def rogan_gladen(f: np.ndarray, y: np.ndarray, labelled: np.ndarray) -> dict[str, np.ndarray]:
    """The sensitivity/specificity correction of a 0/1 judge's pass rate (see the module docstring)."""
    N, L, fL, yL, q = _binary_parts(f, y, labelled)
    npos = yL.sum(axis=0)
    nneg = L.sum() - npos
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.where(npos > 0, (fL * yL).sum(axis=0) / npos, np.nan)
        sp = np.where(nneg > 0, ((1 - fL) * (1 - yL)).sum(axis=0) / nneg, np.nan)
        J = se + sp - 1
        est = (q + sp - 1) / J
    wj = (f - q) / (N * J)
    wl = np.zeros_like(f)
    with np.errstate(divide="ignore", invalid="ignore"):
        wl[L] = np.nan_to_num(np.where(yL == 1, -est / J * (fL - se) / npos, (1 - est) / J * ((1 - fL) - sp) / nneg))
    return {"estimate": est, "centre": est, "w_judge": wj, "w_label": wl, "se_judge": se, "sp_judge": sp, "q": q}
