"""The clustered (CR2) covariance of rt.arena at its parts: the clusters' battle pairs, the exposure (per battle its
CR2 scaling, per model its clusters, Kish's effective number and largest leverage) and the meat sum over clusters
of S_c S_c', each against a straightforward dense computation on random small boards (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from _cr2_reference import assert_exposure_is_dense, dense_meat

from ranktrust.preference import _fit


@st.composite
def boards(draw):
    """(a, b, cluster, G, M, seed): battles of M models (a != b) in G clusters, some above ``_SMALL_CLUSTER``."""
    seed = draw(st.integers(0, 2**32 - 1))
    g = np.random.default_rng(seed)
    M = draw(st.integers(2, 7))
    n = draw(st.integers(1, 90))
    G = draw(st.integers(1, 40))
    cluster = g.integers(0, G, n)
    if draw(st.booleans()):   # one cluster above the pair limit
        cluster[g.random(n) < 0.4] = int(g.integers(0, G))
    a = g.integers(0, M, n)
    b = (a + g.integers(1, M, n)) % M
    return a, b, cluster.astype(np.int64), G, M, seed


@settings(max_examples=150, deadline=None)
@given(boards())
def test_the_cluster_pairs_are_every_pair_of_a_small_clusters_battles_once(board):
    """Positions in ``order`` (the battles of the clusters of 2 to 16, stably sorted by cluster): every pair
    i < j of one cluster once, d = j - i ascending then i ascending; the larger clusters' battles in ``big``."""
    a, b, cluster, G, M, _ = board
    p = _fit._cluster_pairs(cluster, G)
    sizes = np.bincount(cluster, minlength=G)
    small = np.flatnonzero((sizes[cluster] > 1) & (sizes[cluster] <= _fit._SMALL_CLUSTER))
    np.testing.assert_array_equal(p.order, small[np.argsort(cluster[small], kind="stable")])
    np.testing.assert_array_equal(np.sort(p.big), np.flatnonzero(sizes[cluster] > _fit._SMALL_CLUSTER))
    cl = cluster[p.order]
    want = [(i, i + d) for d in range(1, len(cl)) for i in range(len(cl) - d) if cl[i] == cl[i + d]]
    assert list(zip(p.left.tolist(), p.right.tolist())) == want
    assert p.left.dtype == p.right.dtype == np.int64


@settings(max_examples=150, deadline=None)
@given(boards())
def test_the_exposure_and_the_meat_equal_dense_per_cluster_sums(board):
    """The exposure from the pairs and the meat reusing them (``pairs=Exposure.pairs``, models gathered once)
    equal the dense (cluster, model) computation; the meat found without the pairs is the same array. Floats
    to rounding: the dense sums add in another order, so the meat's tolerance is scaled by the size of the terms
    summed (sum over clusters of (sum of |score| over the cluster's battles)^2), not by the result, which can
    cancel to far below them (a cluster whose battles' scores nearly cancel)."""
    a, b, cluster, G, M, seed = board
    g = np.random.default_rng(seed + 1)
    n = len(a)
    q = g.uniform(0.01, 0.25, n)
    h = g.uniform(0.01, 0.6, M)
    expo = _fit.exposure(a, b, q, cluster, G, h)
    assert_exposure_is_dense(expo, a, b, q, cluster, G, h, M)
    r = g.normal(size=n) * expo.scale
    ref = dense_meat(a, b, r, cluster, G, M)
    got = _fit.meat_clusters(a, b, r, cluster, G, M, pairs=expo.pairs)
    size = np.bincount(cluster, np.abs(r), G)
    np.testing.assert_allclose(got, ref, rtol=1e-11, atol=1e-12 * max(float(size @ size), 1e-300))
    np.testing.assert_array_equal(got, _fit.meat_clusters(a, b, r, cluster, G, M))
    extra = g.normal(size=(n, 2))
    ref_x = dense_meat(a, b, r, cluster, G, M, extra)
    got_x = _fit.meat_clusters(a, b, r, cluster, G, M, extra, pairs=expo.pairs)
    size_x = np.bincount(cluster, np.abs(r) + np.abs(extra).sum(axis=1), G)
    np.testing.assert_allclose(got_x, ref_x, rtol=1e-11, atol=1e-12 * max(float(size_x @ size_x), 1e-300))


def test_the_pairs_models_are_kept_for_the_same_arrays_only():
    """``_Pairs.models``: the models of each pair's battles (a, b of the left battle, of the right), gathered
    once for the same ``a`` and ``b`` arrays (until a call with ``keep=False`` takes them) and again for other
    arrays."""
    g = np.random.default_rng(3)
    n, M = 400, 9
    cluster = g.integers(0, 120, n)
    a = g.integers(0, M, n)
    b = (a + g.integers(1, M, n)) % M
    p = _fit._cluster_pairs(cluster, 120)
    first = p.models(a, b, M)
    o, L, R = p.order, p.left, p.right
    for got, want in zip(first, (a[o][L], b[o][L], a[o][R], b[o][R])):
        np.testing.assert_array_equal(got, want)
    assert all(x is y for x, y in zip(p.models(a, b, M), first))
    assert all(x is y for x, y in zip(p.models(a, b, M, keep=False), first))   # taken, then let go
    again = p.models(a, b, M)
    assert again[0] is not first[0]
    np.testing.assert_array_equal(again[0], first[0])
    a2 = a.copy()
    a2[:] = b
    other = p.models(a2, b, M)
    np.testing.assert_array_equal(other[0], a2[o][L])
    assert other[0] is not first[0]
