"""Anchor Points: cluster items by how the source models answer them, keep the medoids.

Each item is the vector of the source models' scores on it (its correctness vector).
Items are clustered with k-medoids; the medoid of each cluster is an anchor item and
its weight is the cluster's share of the items [1]_. The distance is the squared
Euclidean distance between correctness vectors (for 0/1 scores: the number of source
models that disagree on the two items), which makes every k-medoids step a matrix
product: no item-by-item distance matrix is stored, so 12,000 items are fine.

References
----------
.. [1] R. Vivek, K. Ethayarajh, D. Yang, D. Kiela, "Anchor Points: Benchmarking Models
   with Much Fewer Examples", EACL 2024.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from .select import Selection, register

__all__ = ["kmedoids", "item_vectors", "select_anchor"]


def item_vectors(y: np.ndarray, cache: dict | None = None) -> np.ndarray:
    """``(n_items, n_source_models)`` item vectors; a missing score is the item's mean.

    With a ``cache`` dict the vectors are computed once per selection run and reused.
    """
    if cache is not None:
        if "item_vectors" not in cache:
            cache["item_vectors"] = item_vectors(y)
        return cache["item_vectors"]
    x = np.asarray(y, dtype=np.float64).T.copy()
    bad = np.isnan(x)
    if bad.any():
        with np.errstate(invalid="ignore"):
            mean = np.nanmean(x, axis=1)
        mean = np.where(np.isnan(mean), 0.5, mean)
        x[bad] = np.broadcast_to(mean[:, None], x.shape)[bad]
    return x


def _sqdist_to(x: np.ndarray, sq: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """Squared distances ``(n, len(centers))`` from every row of ``x`` to rows ``centers``."""
    d = sq[:, None] - 2.0 * (x @ x[centers].T) + sq[centers][None, :]
    return np.maximum(d, 0.0)


def kmedoids(
    x: np.ndarray, k: int, rng: np.random.Generator, *, max_iter: int = 50
) -> tuple[np.ndarray, np.ndarray]:
    """k-medoids ("alternate" algorithm, k-medoids++ start) under squared Euclidean distance.

    Parameters
    ----------
    x : ndarray, shape (n, d)
        Points (rows).
    k : int
        Number of clusters, ``1 <= k <= n``.
    rng : numpy.random.Generator
        Randomness of the start and of ties.
    max_iter : int, default: ``50``

    Returns
    -------
    medoids : ndarray of int, shape (k,)
        Row of each medoid (distinct rows).
    labels : ndarray of int, shape (n,)
        Cluster of each row; medoid ``c`` is in cluster ``c`` (no cluster is empty).

    Notes
    -----
    The cost of a point ``i`` as medoid of cluster ``c`` is
    ``n_c |x_i|^2 - 2 x_i . S_c + Q_c`` (``S_c``, ``Q_c``: sum of the points and of their
    squared norms in ``c``), so the medoid update is one pass over the points.
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    perm = rng.permutation(n)                 # random order breaks ties at random
    xp = x[perm]
    sq = np.einsum("ij,ij->i", xp, xp)
    # k-medoids++ start
    med = np.empty(k, dtype=np.intp)
    med[0] = rng.integers(n)
    dmin = _sqdist_to(xp, sq, med[:1])[:, 0]
    taken = np.zeros(n, dtype=bool)
    taken[med[0]] = True
    for c in range(1, k):
        p = np.where(taken, 0.0, dmin)
        tot = p.sum()
        if tot > 0:
            nxt = int(np.searchsorted(np.cumsum(p), rng.random() * tot, side="right"))
            nxt = min(nxt, n - 1)
            if taken[nxt]:
                nxt = int(np.flatnonzero(~taken)[0])
        else:  # every remaining point coincides with a medoid
            nxt = int(np.flatnonzero(~taken)[0])
        med[c] = nxt
        taken[nxt] = True
        dmin = np.minimum(dmin, _sqdist_to(xp, sq, med[c:c + 1])[:, 0])
    cols = np.arange(k)
    labels = np.zeros(n, dtype=np.intp)
    for _ in range(max_iter):
        d = _sqdist_to(xp, sq, med)
        d[med, cols] = -1.0                   # a medoid stays in its own cluster
        labels = np.argmin(d, axis=1)
        onehot = sparse.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(k, n))
        s = onehot @ xp
        cnt = np.bincount(labels, minlength=k).astype(np.float64)
        q = np.bincount(labels, weights=sq, minlength=k)
        cost = cnt[labels] * sq - 2.0 * np.einsum("ij,ij->i", xp, s[labels]) + q[labels]
        order = np.lexsort((cost, labels))
        first = np.concatenate([[True], np.diff(labels[order]) != 0])
        new = np.empty(k, dtype=np.intp)
        new[labels[order[first]]] = order[first]
        # keep the old medoid when it is as good as the new one (no cycling on ties)
        keep = cost[med] <= cost[new] + 1e-12
        new = np.where(keep, med, new)
        if np.array_equal(new, med):
            break
        med = new
    inv = np.empty(n, dtype=np.intp)
    inv[perm] = np.arange(n)
    return perm[med], labels[inv]


@register("anchor")
def select_anchor(y: np.ndarray, k: int, rng: np.random.Generator, *, groups: np.ndarray | None = None,
                  cache: dict | None = None) -> Selection:
    """Anchor Points [1]_: medoids of k-medoids clusters of the items' correctness vectors.

    Weight of each anchor = its cluster's share of the items.

    References
    ----------
    .. [1] R. Vivek et al., "Anchor Points: Benchmarking Models with Much Fewer Examples", EACL 2024.
    """
    x = item_vectors(y, cache)
    med, lab = kmedoids(x, k, rng)
    w = np.bincount(lab, minlength=k) / x.shape[0]
    srt = np.argsort(med)
    return Selection(med[srt], w[srt], {"cluster_sizes": np.bincount(lab, minlength=k)[srt]})
