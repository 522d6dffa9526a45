"""The engine's counting of drawn items: SciPy's CSR kernel called directly, in chunks of resamples
sized by the data, gives the counts of the public ``csr_matrix`` path and of ``bincount``."""

from __future__ import annotations

import numpy as np
import pytest

from ranktrust.resample import _engine as E


def _want(ss, b, cells, size, dtype):
    idx = np.random.Generator(np.random.PCG64(ss)).integers(0, cells, size=(b, size))
    return np.stack([np.bincount(row, minlength=cells) for row in idx]).astype(dtype)


@pytest.mark.parametrize("cells,size,b", [(448, 100, 64), (448, 448, 64), (14000, 300, 40), (3, 1, 7),
                                          (20000, 20000, 3), (50, 9000, 64)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_direct_kernel_counts_are_the_bincounts_and_the_public_path(cells, size, b, dtype, monkeypatch):
    ss = np.random.SeedSequence(11)
    want = _want(ss, b, cells, size, dtype)
    out = np.full((b, cells), np.nan, dtype=dtype)
    E._count_block(ss, b, cells, size, out)
    assert np.array_equal(out, want)
    monkeypatch.setattr(E, "_CSR_TODENSE", False)          # a SciPy without the private kernel
    assert E._csr_kernel() is None
    out2 = np.full((b, cells), np.nan, dtype=dtype)
    E._count_block(ss, b, cells, size, out2)
    assert np.array_equal(out2, want)


def test_count_rows_bound_the_cells_of_one_call():
    assert E._count_rows(64, 448, 448) == 64                 # a small benchmark: one call per block
    assert E._count_rows(64, 14000, 14000) == 18
    assert E._count_rows(64, 10**7, 5) == 1
    assert E._count_rows(5, 10, 10) == 5


def test_weights_and_means_unchanged_by_the_counting(monkeypatch):
    """weights() and the count path's means are the same with the direct kernel and the public path."""
    g = np.random.default_rng(5)
    s = (g.random((7, 600)) < 0.6).astype(float)
    groups = g.integers(0, 40, 600)
    kw = dict(n_resamples=150, rng=4)
    a = [E.weights(600, **kw), E.weights(600, groups=groups, **kw),
         E.resample_means(s, path="matmul", **kw), E.resample_means(s, groups=groups, **kw)]
    monkeypatch.setattr(E, "_CSR_TODENSE", False)
    b = [E.weights(600, **kw), E.weights(600, groups=groups, **kw),
         E.resample_means(s, path="matmul", **kw), E.resample_means(s, groups=groups, **kw)]
    for x, y in zip(a, b):
        assert np.array_equal(x, y)       # integer counts, and the same float products of them


def test_kernel_checked_once_and_refused_when_wrong(monkeypatch):
    """The private kernel is checked on a small example; one that counts wrong (or fails) is not used."""
    import scipy.sparse._sparsetools as st

    monkeypatch.setattr(E, "_CSR_TODENSE", None)
    assert E._csr_kernel() is st.csr_todense
    monkeypatch.setattr(E, "_CSR_TODENSE", None)
    monkeypatch.setattr(st, "csr_todense", lambda *a: None)          # counts nothing
    assert E._csr_kernel() is None
    ss = np.random.SeedSequence(2)
    out = np.empty((5, 40), dtype=np.float32)
    E._count_block(ss, 5, 40, 60, out)
    assert np.array_equal(out, _want(ss, 5, 40, 60, np.float32))
