"""A straightforward dense reference for the clustered (CR2) covariance of ``rt.arena``: the (cluster, model)
table of information sums and the per-cluster score sums, built with ``np.add.at``. ``tests/test_arena_core.py``
and ``tests/test_arena_meat.py`` check ``preference._fit``'s exposure and meat (found from the clusters' battle
pairs) against it."""

from __future__ import annotations

import numpy as np


def dense_exposure(a, b, q, cluster, G, h, M, cap: float = 0.99):
    """Per battle its CR2 scaling ``1 / sqrt(1 - min(leverage, cap))``, per model its number of clusters, Kish's
    effective number of clusters (0 for a model with no information) and its largest leverage, from
    v[c, m] = the sum of q over cluster c's battles with model m."""
    v = np.zeros((G, M))
    np.add.at(v, (cluster, a), q)
    np.add.at(v, (cluster, b), q)
    lev = np.maximum(v[cluster, a] * h[a], v[cluster, b] * h[b])
    scale = 1.0 / np.sqrt(1.0 - np.minimum(lev, cap))
    seen = np.zeros((G, M), dtype=bool)
    seen[cluster, a] = seen[cluster, b] = True
    s1, s2 = v.sum(axis=0), (v ** 2).sum(axis=0)
    eff = np.where(s2 > 0, s1 ** 2 / np.where(s2 > 0, s2, 1.0), 0.0)
    return scale, seen.sum(axis=0), eff, (v * h).max(axis=0)


def assert_exposure_is_dense(expo, a, b, q, cluster, G, h, M) -> None:
    """``preference._fit.exposure``'s result ``expo`` equals :func:`dense_exposure`: the scaling, the Kish numbers
    and the largest leverages to rounding (the dense sums add in another order), the cluster counts exactly."""
    scale, clusters, eff, maxlev = dense_exposure(a, b, q, cluster, G, h, M)
    np.testing.assert_allclose(expo.scale, scale, rtol=1e-13)
    np.testing.assert_array_equal(expo.clusters, clusters)
    np.testing.assert_allclose(expo.effective, eff, rtol=1e-12)
    np.testing.assert_allclose(expo.max_leverage, maxlev, rtol=1e-13)


def dense_meat(a, b, r, cluster, G, M, r_extra=None):
    """sum over clusters c of S_c S_c', S_c the sum over c's battles of the score row r_i (e_a - e_b) | r_extra_i."""
    E = 0 if r_extra is None else r_extra.shape[1]
    X = np.zeros((len(a), M + E))
    X[np.arange(len(a)), a] += r
    X[np.arange(len(a)), b] -= r
    if E:
        X[:, M:] = r_extra
    S = np.zeros((G, M + E))
    np.add.at(S, cluster, X)
    return S.T @ S
