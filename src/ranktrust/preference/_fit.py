"""Bradley-Terry fits on sufficient statistics, and their sandwich covariances (numerics only).

Everything here works on integer-coded arrays: ``a``, ``b`` (model codes, ``a < b`` after
:func:`canonical`), ``y`` (the outcome for ``a``: 1 win, 0 loss, 0.5 tie or a probability), ``w``
(analytic weights) and optional cluster codes. No pandas, no files, no printing.

Parametrisation: ``theta`` (natural-log strengths) with ``sum(theta) = 0``; the Newton system uses
``H + 1 1' / M`` (Hessian plus the constraint), so the step stays in the sum-to-zero space and the
covariance ``V = (H + J/M)^-1 Meat (H + J/M)^-1`` is that of the centred strengths.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special

from ..errors import SolverError

__all__ = ["Cells", "Fit", "canonical", "cells", "fit_half", "fit_davidson", "fit_style", "meat_cells",
           "meat_clusters", "GRAD_TOL"]

#: Newton stops when the largest gradient entry of the mean log-likelihood (per unit of weight) is below this
GRAD_TOL = 1e-12
#: ... and refuses the fit when it cannot get below this
GRAD_FAIL = 1e-8
_MAX_ITER = 100


def canonical(a: np.ndarray, b: np.ndarray, y: np.ndarray, f: np.ndarray | None = None):
    """Each battle written with the lower model code first: ``(a, b, y, f, swapped)``."""
    sw = a > b
    a2 = np.where(sw, b, a)
    b2 = np.where(sw, a, b)
    y2 = np.where(sw, 1.0 - y, y)
    f2 = None if f is None else np.where(sw[:, None], -f, f)
    return a2, b2, y2, f2, sw


@dataclass
class Cells:
    """Weighted sufficient statistics per unique ordered pair ``(A < B)``."""

    A: np.ndarray
    B: np.ndarray
    n: np.ndarray      # sum of w
    s: np.ndarray      # sum of w * y
    wins: np.ndarray   # sum of w * [y == 1]
    losses: np.ndarray  # sum of w * [y == 0]
    ties: np.ndarray   # sum of w * [y == 0.5]
    n2: np.ndarray     # sum of w^2
    s2: np.ndarray     # sum of w^2 y
    q2: np.ndarray     # sum of w^2 y^2
    index: np.ndarray  # cell of each battle (into A/B)
    M: int


def cells(a: np.ndarray, b: np.ndarray, y: np.ndarray, w: np.ndarray, M: int) -> Cells:
    """Aggregate canonical battles to one row per pair that met (``bincount`` on ``a * M + b``)."""
    key = a.astype(np.int64) * M + b
    uniq, index = np.unique(key, return_inverse=True) if M * M > 4 * len(key) + 1_000_000 else (None, None)
    if uniq is None:  # dense keys: bincount over M*M, then keep the cells that occur
        full = np.bincount(key, minlength=M * M)
        occ = np.flatnonzero(full)
        pos = np.full(M * M, -1, dtype=np.int64)
        pos[occ] = np.arange(len(occ))
        index = pos[key]
        uniq = occ
    k = len(uniq)

    def tot(v: np.ndarray | None) -> np.ndarray:
        return np.bincount(index, weights=v, minlength=k).astype(float)

    unit = bool(np.all(w == 1.0))
    n = tot(None) if unit else tot(w)
    wy = y if unit else w * y
    s = tot(wy)
    y2 = y * y
    q2 = tot(y2)
    if unit:
        n2, s2 = n, s
    else:
        w2 = w * w
        n2, s2, q2 = tot(w2), tot(w2 * y), tot(w2 * y2)
    wins, ties = tot(np.where(y == 1.0, w, 0.0)), tot(np.where(y == 0.5, w, 0.0))
    losses = n - wins - ties - tot(np.where((y != 0.0) & (y != 0.5) & (y != 1.0), w, 0.0))
    return Cells(A=(uniq // M).astype(np.int64), B=(uniq % M).astype(np.int64), n=n, s=s, wins=wins, losses=losses,
                 ties=ties, n2=n2, s2=s2, q2=q2, index=index, M=M)


@dataclass
class Fit:
    theta: np.ndarray          # (M,) centred log-strengths
    H: np.ndarray              # (P, P) observed information (P = M, or M + 1 for Davidson, M + F with style)
    extra: np.ndarray          # Davidson: [log nu]; style: gamma; else empty
    iterations: int
    gradient: float            # largest |gradient| of the mean log-likelihood at the end
    loglik: float


def _pair_matrix(A: np.ndarray, B: np.ndarray, v: np.ndarray, M: int) -> np.ndarray:
    """sum over cells of v * (e_A - e_B)(e_A - e_B)' (cells are unique, so direct assignment works)."""
    H = np.zeros((M, M))
    d = np.bincount(A, weights=v, minlength=M) + np.bincount(B, weights=v, minlength=M)
    H[A, B] -= v
    H[B, A] -= v
    H[np.diag_indices(M)] += d
    return H


def _solve(H: np.ndarray, g: np.ndarray, M: int) -> np.ndarray:
    """Newton step with sum(theta) = 0 on the first M coordinates."""
    Ht = H.copy()
    Ht[:M, :M] += 1.0 / M
    try:
        return np.linalg.solve(Ht, g)
    except np.linalg.LinAlgError:
        raise SolverError("the Bradley-Terry system is singular: the models do not form one connected "
                          "comparison graph") from None


def _damped_newton(x: np.ndarray, M: int, terms: Any, W: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float,
                                                                          int, float]:
    """Newton's method with step halving on a log-likelihood; the first ``M`` coordinates (the strengths)
    are kept summing to zero. ``terms(x) -> (gradient, Hessian of -ll, ll)``; ``W`` (the total weight)
    scales the gradient for the stopping rule. Returns ``(x, g, H, ll, iterations, largest gradient / W)``."""
    g, H, ll = terms(x)
    it = 0
    for it in range(1, _MAX_ITER + 1):
        if float(np.abs(g).max()) / W < GRAD_TOL:
            it -= 1
            break
        step = _solve(H, g, M)
        t = 1.0
        while True:
            new = x + t * step
            new[:M] -= new[:M].mean()
            g2, H2, ll2 = terms(new)
            if ll2 >= ll - 1e-12 * abs(ll) or t < 1e-6:
                break
            t /= 2
        done = float(np.abs(new - x).max()) < 1e-15
        x, g, H, ll = new, g2, H2, ll2
        if done:
            break
    return x, g, H, ll, it, float(np.abs(g).max()) / W


def _start(M: int, theta0: np.ndarray | None, extra: np.ndarray) -> np.ndarray:
    th = np.zeros(M) if theta0 is None else theta0 - theta0.mean()
    return np.concatenate([th, extra])


def _loglik_half(theta: np.ndarray, c: Cells) -> float:
    d = theta[c.A] - theta[c.B]
    return float(np.sum(c.s * -np.logaddexp(0.0, -d) + (c.n - c.s) * -np.logaddexp(0.0, d)))


def fit_half(c: Cells, theta0: np.ndarray | None = None) -> Fit:
    """Bradley-Terry with a tie as half a win (a quasi-likelihood), by damped Newton."""
    M = c.M

    def terms(th: np.ndarray):
        p = special.expit(th[c.A] - th[c.B])
        r = c.s - c.n * p
        g = np.bincount(c.A, weights=r, minlength=M) - np.bincount(c.B, weights=r, minlength=M)
        return g, _pair_matrix(c.A, c.B, c.n * p * (1 - p), M), _loglik_half(th, c)

    th, _, H, ll, it, gmax = _damped_newton(_start(M, theta0, np.empty(0)), M, terms, float(c.n.sum()))
    if gmax > GRAD_FAIL:
        raise SolverError(f"the Bradley-Terry fit did not converge (largest gradient {gmax:.2g} per battle after "
                          f"{it} Newton steps): a model may have won or lost every battle")
    return Fit(th, H, np.empty(0), it, gmax, ll)


# ---- Davidson (1970): P(a) = e^{d/2}/Z, P(b) = e^{-d/2}/Z, P(tie) = nu/Z, Z = 2 cosh(d/2) + nu ----------
def _dav_parts(u: np.ndarray, phi: float):
    nu = np.exp(phi)
    ch, sh = np.cosh(u), np.sinh(u)
    Z = 2 * ch + nu
    m = 2 * sh / Z               # d log Z / du
    q = nu / Z                   # P(tie) = d log Z / dphi
    dm_du = (2 * ch * Z - 4 * sh * sh) / (Z * Z)
    dm_dphi = -2 * sh * nu / (Z * Z)
    return Z, m, q, dm_du, dm_dphi


def _loglik_dav(theta: np.ndarray, phi: float, c: Cells) -> float:
    u = (theta[c.A] - theta[c.B]) / 2
    logZ = np.logaddexp(np.logaddexp(u, -u), phi)
    return float(np.sum(c.wins * u - c.losses * u + c.ties * phi - (c.wins + c.losses + c.ties) * logZ))


def _dav_grad_hess(theta: np.ndarray, phi: float, c: Cells):
    M = c.M
    u = (theta[c.A] - theta[c.B]) / 2
    n = c.wins + c.losses + c.ties
    _, m, q, dm_du, dm_dphi = _dav_parts(u, phi)
    gu = c.wins - c.losses - n * m           # d ll / du
    gt = gu / 2                               # d ll / d theta_A (and minus for B)
    g = np.empty(M + 1)
    g[:M] = np.bincount(c.A, weights=gt, minlength=M) - np.bincount(c.B, weights=gt, minlength=M)
    g[M] = float(np.sum(c.ties - n * q))
    H = np.zeros((M + 1, M + 1))
    H[:M, :M] = _pair_matrix(c.A, c.B, n * dm_du / 4, M)
    cross = n * dm_dphi / 2
    H[:M, M] = np.bincount(c.A, weights=cross, minlength=M) - np.bincount(c.B, weights=cross, minlength=M)
    H[M, :M] = H[:M, M]
    H[M, M] = float(np.sum(n * q * (1 - q)))
    return g, H


def fit_davidson(c: Cells, theta0: np.ndarray | None = None) -> Fit:
    """Davidson's tie model (one extra parameter, log nu) by damped Newton; theta on the BT scale
    (``P(a beats b | not a tie) = expit(theta_a - theta_b)``)."""
    M = c.M
    n = c.wins + c.losses + c.ties
    W = float(n.sum())
    tie_share = float(c.ties.sum()) / W
    if tie_share <= 0 or tie_share >= 1:
        raise SolverError("Davidson's tie model needs both ties and decided battles")
    phi0 = float(np.log(2 * tie_share / (1 - tie_share)))

    def terms(x: np.ndarray):
        return (*_dav_grad_hess(x[:M], float(x[M]), c), _loglik_dav(x[:M], float(x[M]), c))

    x, _, H, ll, it, gmax = _damped_newton(_start(M, theta0, np.array([phi0])), M, terms, W)
    if gmax > GRAD_FAIL:
        raise SolverError(f"the Davidson fit did not converge (largest gradient {gmax:.2g} per battle)")
    return Fit(x[:M], H, x[M:], it, gmax, ll)


def davidson_scores(theta: np.ndarray, phi: float, a: np.ndarray, b: np.ndarray, y: np.ndarray):
    """Per-battle score of the Davidson log-likelihood: (d/d theta_a coefficient, d/d log nu)."""
    u = (theta[a] - theta[b]) / 2
    _, m, q, _, _ = _dav_parts(u, phi)
    win, loss, tie = (y == 1.0), (y == 0.0), (y == 0.5)
    su = win.astype(float) - loss - m
    return su / 2, tie - q


# ---- style control: logit P(a) = theta_a - theta_b + gamma' f ---------------------------------------------
def _style_terms(theta, gamma, a, b, y, w, f, key, k, A, B, M):
    eta = theta[a] - theta[b] + f @ gamma
    p = special.expit(eta)
    r = w * (y - p)
    v = w * p * (1 - p)
    F = f.shape[1]
    g = np.empty(M + F)
    g[:M] = np.bincount(a, weights=r, minlength=M) - np.bincount(b, weights=r, minlength=M)
    g[M:] = f.T @ r
    H = np.zeros((M + F, M + F))
    H[:M, :M] = _pair_matrix(A, B, np.bincount(key, weights=v, minlength=k), M)
    vf = v[:, None] * f
    for j in range(F):
        H[:M, M + j] = np.bincount(a, weights=vf[:, j], minlength=M) - np.bincount(b, weights=vf[:, j], minlength=M)
    H[M:, :M] = H[:M, M:].T
    H[M:, M:] = f.T @ vf
    ll = float(np.sum(w * (y * -np.logaddexp(0.0, -eta) + (1 - y) * -np.logaddexp(0.0, eta))))
    return g, H, ll, r


def fit_style(a, b, y, w, f, c: Cells, theta0: np.ndarray | None = None) -> Fit:
    """Contextual Bradley-Terry (ties as half a win), unpenalised, by damped Newton on battles."""
    M, F = c.M, f.shape[1]
    W = float(w.sum())
    key, k = c.index, len(c.A)

    def terms(x: np.ndarray):
        return _style_terms(x[:M], x[M:], a, b, y, w, f, key, k, c.A, c.B, M)[:3]

    x, _, H, ll, it, gmax = _damped_newton(_start(M, theta0, np.zeros(F)), M, terms, W)
    if gmax > GRAD_FAIL:
        raise SolverError(f"the style-controlled fit did not converge (largest gradient {gmax:.2g} per battle)")
    return Fit(x[:M], H, x[M:], it, gmax, ll)


# ---- the meat of the sandwich ---------------------------------------------------------------------------
def meat_cells(theta: np.ndarray, c: Cells) -> np.ndarray:
    """Per-battle (HC0) meat of the half-win fit from cell sums: sum of w^2 (y - p)^2 per cell."""
    p = special.expit(theta[c.A] - theta[c.B])
    v = c.q2 - 2 * p * c.s2 + p * p * c.n2
    return _pair_matrix(c.A, c.B, v, c.M)


#: clusters up to this many battles enter the meat and the exposure through their battle pairs; larger ones as
#: dense score rows (meat) and sorted (cluster, model) keys (exposure)
_SMALL_CLUSTER = 16


@dataclass(frozen=True)
class _Pairs:
    """The battles of each cluster with 2 to ``_SMALL_CLUSTER`` battles, as every pair of them (one sort of
    the cluster codes; clusters of one battle have no pair). ``order``: those battles, sorted by cluster;
    ``left``, ``right``: positions in ``order`` of each pair's two battles (``left < right``: a pair's
    arrays are read near-sequentially once gathered into that order); ``big``: the battles of the larger
    clusters."""

    order: np.ndarray
    left: np.ndarray
    right: np.ndarray
    big: np.ndarray
    _kept: dict = field(default_factory=dict, compare=False, repr=False)

    def models(self, a: np.ndarray, b: np.ndarray, M: int, keep: bool = True
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The models of each pair's battles, ``a`` and ``b`` of its left battle then of its right one, in the
        smallest integer type that holds codes below ``M`` (:func:`_small_codes`). With ``keep``, kept for the
        next call with the same arrays ``a`` and ``b`` (the exposure gathers them, the meat of the same fit
        takes them, ``keep=False``, and lets them go)."""
        kept = self._kept.pop("models", None)
        if kept is not None and kept[0] is a and kept[1] is b and kept[2] == M:
            out = kept[3]
        else:
            ao, bo = _small_codes(a, b, self.order, M)
            out = (ao[self.left], bo[self.left], ao[self.right], bo[self.right])
        if keep:
            self._kept["models"] = (a, b, M, out)
        return out


def _by_cluster(cluster: np.ndarray, sel: np.ndarray, n_clusters: int, pack: bool = True
                ) -> tuple[np.ndarray, np.ndarray]:
    """(the rows ``sel`` sorted by cluster code, each cluster's in row order: a stable argsort's order; their codes).

    One sort of the values (code, row) packed into an int64, about three times as fast as an argsort of the
    codes; where they do not fit side by side in 63 bits (or ``pack`` is False), the stable argsort."""
    bits = max(int(len(cluster) - 1).bit_length(), 1)
    if pack and bits + max(int(n_clusters - 1).bit_length(), 1) <= 63:
        key = cluster[sel].astype(np.int64, copy=False)   # a new array: shifted in place
        key <<= bits
        key |= sel
        key.sort()
        order = key & ((1 << bits) - 1)
        key >>= bits
        return order, key
    o = np.argsort(cluster[sel], kind="stable")
    return sel[o], cluster[sel][o]


def _cluster_pairs(cluster: np.ndarray, n_clusters: int) -> _Pairs:
    sizes = np.bincount(cluster, minlength=n_clusters)
    sel = np.flatnonzero((sizes > 1)[cluster])   # a gather from one byte per cluster
    order, codes = _by_cluster(cluster, sel, n_clusters)
    if int(sizes.max(initial=0)) > _SMALL_CLUSTER:
        big = (sizes > _SMALL_CLUSTER)[codes]
        idx, cl, big_idx = order[~big], codes[~big], order[big]
    else:
        idx, cl, big_idx = order, codes, np.empty(0, dtype=np.int64)
    # the pairs d places apart in the sorted order, d = 1, 2, ...: a position with a partner d + 1 places on
    # has one d places on, so each pass only looks at the previous pass's hits; (t, t + d) in one cluster has
    # (t, t + d + 1) in it where t + d and t + d + 1 are (``nxt``: position i and i + 1 in one cluster). The
    # pairs are written in place, pass after pass: their number is known from the cluster sizes
    n = len(cl)
    nxt = np.zeros(n, dtype=bool)
    np.equal(cl[:-1], cl[1:], out=nxt[:-1])
    over = sizes[sizes > _SMALL_CLUSTER]
    total = (int(np.dot(sizes, sizes - 1)) - int(np.dot(over, over - 1))) // 2
    left, right = np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64)
    t = np.flatnonzero(nxt)
    d, at = 1, 0
    while len(t):
        k = at + len(t)
        left[at:k] = t
        r = np.add(t, d, out=right[at:k])
        t = t[nxt[r]]
        d, at = d + 1, k
    return _Pairs(idx, left, right, big_idx)


def _small_codes(a: np.ndarray, b: np.ndarray, o: np.ndarray, M: int) -> tuple[np.ndarray, np.ndarray]:
    """``a[o]``, ``b[o]`` (model codes below ``M``) in the smallest integer type that holds them: the gathers
    and comparisons over millions of cluster pairs that follow move a quarter of the bytes of int64."""
    t = np.int16 if M <= 2**15 else np.int32 if M <= 2**31 else np.int64
    return a.astype(t, copy=False)[o], b.astype(t, copy=False)[o]


def _theta_meat(a: np.ndarray, b: np.ndarray, r: np.ndarray, cluster: np.ndarray, n_clusters: int,
                M: int, pairs: _Pairs | None = None) -> np.ndarray:
    """sum over clusters of s_c s_c', s_c = sum over its battles of r_i (e_a - e_b), without forming S.

    = sum_i r_i^2 x_i x_i' (one bincount over the cells) + sum over pairs i < j of one cluster of
    r_i r_j (x_i x_j' + x_j x_i') (four bincounts over the sum of n_c (n_c - 1) / 2 pairs), for clusters up
    to ``_SMALL_CLUSTER`` battles; larger clusters' score rows are built dense and multiplied."""
    MM = M * M
    if pairs is None:
        pairs = _cluster_pairs(cluster, n_clusters)
    left, right = pairs.left, pairs.right
    N, P = len(a), len(left)
    # the bin indexes and the weights of each bincount in turn, in two arrays (a new array of millions of
    # elements costs page faults at its first touch, besides the pass that fills it)
    key, wt = np.empty(max(N, P), dtype=np.intp), np.empty(max(N, P))
    k, w = key[:N], wt[:N]
    np.multiply(a, M, out=k)
    k += b
    v = np.bincount(k, np.multiply(r, r, out=w), MM).reshape(M, M)
    out = -(v + v.T)
    out[np.diag_indices(M)] += v.sum(axis=1) + v.sum(axis=0)
    if P:
        k, w = key[:P], wt[:P]
        ro = r[pairs.order]
        np.take(ro, left, out=w)
        w *= ro[right]
        del ro
        al, bl, ar, br = pairs.models(a, b, M, keep=False)

        def cell(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
            np.multiply(lo, M, out=k, dtype=np.intp)
            return np.bincount(np.add(k, hi, out=k), w, MM)

        X = (cell(al, ar) + cell(bl, br) - cell(al, br) - cell(bl, ar)).reshape(M, M)
        out += X + X.T
    bidx = pairs.big
    if len(bidx):
        _, ci = np.unique(cluster[bidx], return_inverse=True)
        cb = int(ci.max()) + 1
        # the big clusters' own diagonal terms are already in `out`: add their cross terms only
        if cb * M <= 50_000_000:
            S = (np.bincount(ci * M + a[bidx], r[bidx], cb * M) - np.bincount(ci * M + b[bidx], r[bidx], cb * M))
            S = S.reshape(cb, M)
            full = S.T @ S
        else:
            import scipy.sparse as sp   # only here: the import costs every command a tenth of a second

            Ss = sp.csr_matrix((np.concatenate([r[bidx], -r[bidx]]), (np.concatenate([ci, ci]),
                                np.concatenate([a[bidx], b[bidx]]))), shape=(cb, M))
            full = (Ss.T @ Ss).toarray()
        rb, ab, bb = r[bidx], a[bidx], b[bidx]
        vb = np.bincount(ab * M + bb, rb * rb, MM).reshape(M, M)
        own = -(vb + vb.T)
        own[np.diag_indices(M)] += vb.sum(axis=1) + vb.sum(axis=0)
        out += full - own
    return out


def meat_clusters(a: np.ndarray, b: np.ndarray, r_theta: np.ndarray, cluster: np.ndarray, n_clusters: int,
                  M: int, r_extra: np.ndarray | None = None, pairs: _Pairs | None = None) -> np.ndarray:
    """sum over clusters of S_c S_c', with S_c = sum over its battles of score_i.

    The score of battle i is ``r_theta[i] (e_a - e_b)`` on the strengths and ``r_extra[i, :]`` on the extra
    parameters (Davidson's log nu, style coefficients). ``pairs``: the clusters' battle pairs when the caller
    has them (``Exposure.pairs``), else found here (one sort)."""
    tt = _theta_meat(a, b, r_theta, cluster, n_clusters, M, pairs)
    if r_extra is None:
        return tt
    E = r_extra.shape[1]
    Se = np.empty((n_clusters, E))
    for j in range(E):
        Se[:, j] = np.bincount(cluster, weights=r_extra[:, j], minlength=n_clusters)
    out = np.empty((M + E, M + E))
    out[:M, :M] = tt
    cross = np.empty((M, E))
    for j in range(E):     # sum_c s_c Se[c, j] = sum_i r_i (e_a - e_b) Se[c_i, j]
        v = r_theta * Se[cluster, j]
        cross[:, j] = np.bincount(a, v, M) - np.bincount(b, v, M)
    out[:M, M:] = cross
    out[M:, :M] = cross.T
    out[M:, M:] = Se.T @ Se
    return out


def sandwich(H: np.ndarray, meat: np.ndarray, M: int) -> np.ndarray:
    """``(H + J/M)^-1 meat (H + J/M)^-1`` (J on the first M coordinates); symmetrised."""
    Ht = H.copy()
    Ht[:M, :M] += 1.0 / M
    Hi = np.linalg.inv(Ht)
    V = Hi @ meat @ Hi
    return (V + V.T) / 2


# ---- small-cluster correction (CR2-type meat, t reference per contrast) --------------------------------
@dataclass
class Exposure:
    """What each model's strength rests on, from the model-based information of its battles.

    ``scale``: per battle, ``1 / sqrt(1 - l)`` where ``l`` is the leverage of the battle's cluster on the more
    exposed of its two models (``v_g(m) * h[m]``, ``v_g(m)`` = the information model ``m`` gets from cluster
    ``g``, ``h[m]`` = the larger of ``H^+[m, m]`` and ``1 / H[m, m]``), capped at 0.99; ``clusters``: per model,
    the number of clusters it appears in;
    ``effective``: per model, Kish's effective number of clusters ``(sum_g v_g(m))^2 / sum_g v_g(m)^2``;
    ``max_leverage``: per model, its largest cluster leverage; ``pairs``: the clusters' battle pairs, for
    :func:`meat_clusters` (None without clusters)."""

    scale: np.ndarray
    clusters: np.ndarray
    effective: np.ndarray
    max_leverage: np.ndarray
    pairs: _Pairs | None = field(default=None, repr=False)


#: the leverage cap of the CR2-type scaling (a model seen in one cluster has leverage 1: its variance is not
#: estimable, which the caller detects from the effective number of clusters)
LEVERAGE_CAP = 0.99


def _cluster_model_sums(a: np.ndarray, b: np.ndarray, q: np.ndarray, cluster: np.ndarray, n_clusters: int,
                        pairs: _Pairs, M: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per battle, ``v_g(a)`` and ``v_g(b)`` (the sum of ``q`` over the battles of its cluster ``g`` that involve
    that model), and whether the battle is not the first of its cluster to involve that model (per side; bool).

    Without a sort of the (cluster, model) keys: a battle's own ``q``, plus its partners' from the pairs of its
    cluster that share the model (``_cluster_pairs``); the battles of clusters above ``_SMALL_CLUSTER`` battles
    through their sorted keys."""
    N = len(a)
    va, vb = q.copy(), q.copy()
    fa, fb = np.zeros(N, dtype=bool), np.zeros(N, dtype=bool)   # True: not the first (per side)
    L, R = pairs.left, pairs.right
    if len(L):   # the models compared in the cluster-sorted order; the few pairs that share one added back
        o = pairs.order
        al, bl, ar, br = pairs.models(a, b, int(max(a.max(), b.max())) + 1 if M is None else M)
        for xl, xr, vl, vr, fr in ((al, ar, va, va, fa), (al, br, va, vb, fb), (bl, ar, vb, va, fa),
                                   (bl, br, vb, vb, fb)):
            hit = np.flatnonzero(xl == xr)   # the model of side xl of L is the model of side xr of R
            if len(hit):
                li, ri = o[L[hit]], o[R[hit]]
                np.add.at(vl, li, q[ri])
                np.add.at(vr, ri, q[li])
                fr[ri] = True                # R comes after L: not the first of the cluster with that model
    big = pairs.big
    if len(big):
        n = len(big)
        M = int(max(a.max(), b.max())) + 1
        keys = np.concatenate([cluster[big].astype(np.int64) * M + a[big], cluster[big].astype(np.int64) * M + b[big]])
        _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
        tot = np.bincount(inv, np.concatenate([q[big], q[big]]), len(first))
        va[big], vb[big] = tot[inv[:n]], tot[inv[n:]]
        isfirst = np.zeros(2 * n, dtype=bool)
        isfirst[first] = True
        fa[big], fb[big] = ~isfirst[:n], ~isfirst[n:]
    return va, vb, fa, fb


def exposure(a: np.ndarray, b: np.ndarray, q: np.ndarray, cluster: np.ndarray | None, n_clusters: int,
             Hinv_diag: np.ndarray, pairs: _Pairs | None = None) -> Exposure:
    """Per (cluster, model) information sums and the CR2-type residual scaling, in O(battles) after one
    sort of the cluster codes.

    ``q``: each battle's information weight on its contrast (``w p (1 - p)`` for the logit fit); ``cluster``:
    cluster codes ``0..n_clusters-1`` or None (each battle its own cluster); ``Hinv_diag``: the diagonal of
    the inverse information of the strengths (model-based); ``pairs``: the clusters' battle pairs when the
    caller has them (:func:`_cluster_pairs`)."""
    M = len(Hinv_diag)
    if cluster is None:   # each battle its own cluster: v_g(m) = q for both of its models
        va = vb = q
        fa = fb = None
    else:
        pairs = _cluster_pairs(cluster, n_clusters) if pairs is None else pairs
        va, vb, fa, fb = _cluster_model_sums(a, b, q, cluster, n_clusters, pairs, M)
    clusters = np.bincount(a, minlength=M) + np.bincount(b, minlength=M)
    if fa is not None:   # less the battles that are not their cluster's first with that model
        clusters -= np.bincount(a[fa], minlength=M) + np.bincount(b[fb], minlength=M)
    clusters = clusters.astype(np.int64, copy=False)
    s1 = np.bincount(a, q, M) + np.bincount(b, q, M)
    # sum over clusters of v_g(m)^2 = sum over m's battles i of q_i v_{g_i}(m)
    qv = np.multiply(q, va)
    s2 = np.bincount(a, qv, M)
    s2 += np.bincount(b, np.multiply(q, vb, out=qv), M)
    if fa is None:
        la, lb = va * Hinv_diag[a], vb * Hinv_diag[b]
    else:   # va, vb are _cluster_model_sums' own arrays: the leverages in their place (h gathered into qv)
        la = np.multiply(va, np.take(Hinv_diag, a, out=qv), out=va)
        lb = np.multiply(vb, np.take(Hinv_diag, b, out=qv), out=vb)
    lev = np.maximum(la, lb)
    maxlev = np.zeros(M)
    np.maximum.at(maxlev, a, la)
    np.maximum.at(maxlev, b, lb)
    with np.errstate(divide="ignore", invalid="ignore"):
        eff = np.where(s2 > 0, s1 * s1 / s2, 0.0)
    scale = np.minimum(lev, LEVERAGE_CAP, out=lev)   # 1 / sqrt(1 - min(lev, cap)), in place: no new arrays
    np.subtract(1.0, scale, out=scale)
    np.sqrt(scale, out=scale)
    np.divide(1.0, scale, out=scale)
    return Exposure(scale=scale, clusters=clusters, effective=eff, max_leverage=maxlev, pairs=pairs)


def info_weights(theta: np.ndarray, a: np.ndarray, b: np.ndarray, w: np.ndarray, *, extra: np.ndarray | None = None,
                 f: np.ndarray | None = None, davidson_phi: float | None = None) -> np.ndarray:
    """Each battle's model-based information on its contrast ``theta_a - theta_b``."""
    eta = theta[a] - theta[b]
    if f is not None and extra is not None:
        eta = eta + f @ extra
    if davidson_phi is not None:
        _, _, _, dm_du, _ = _dav_parts(eta / 2, davidson_phi)
        return w * dm_du / 4
    p = special.expit(eta)
    return w * p * (1 - p)


def welch_df(var_j: np.ndarray, var_k: np.ndarray, df_j: np.ndarray, df_k: np.ndarray) -> np.ndarray:
    """Welch-Satterthwaite degrees of freedom of a contrast whose variance is the sum of two parts with
    ``df_j`` and ``df_k`` degrees of freedom (inf: known)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        num = (var_j + var_k) ** 2
        den = np.where(np.isfinite(df_j), var_j ** 2 / df_j, 0.0) + np.where(np.isfinite(df_k), var_k ** 2 / df_k, 0.0)
        out = np.where(den > 0, num / den, np.inf)
    lo = np.minimum(df_j, df_k)
    return np.where(np.isfinite(out), np.maximum(out, lo), out)
