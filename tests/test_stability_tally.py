"""Stability's tally finds each draw's #1 from the runner-up (the best once the argmax is set aside):
the #1 of the equality-mask version it replaced, exact ties to the smallest key."""

from __future__ import annotations

import numpy as np
import pytest

from ranktrust.ranking._stability import _first_place, _rank_tally


def _mask_first_place(means, keys):
    """The earlier version: an equality mask of every mean against the row's best."""
    w = np.argmax(means, axis=1)
    eq = means == means[np.arange(len(w)), w][:, None]
    tie = np.flatnonzero(np.count_nonzero(eq, axis=1) > 1)
    if tie.size:
        w[tie] = np.argmin(np.where(eq[tie], keys[tie], np.inf), axis=1)
    return w


@pytest.mark.parametrize("b,m,levels", [(500, 7, 3), (300, 40, 12), (64, 420, 31), (10, 1, 2), (0, 5, 3),
                                        (200, 2, 2)])
def test_first_place_is_the_mask_version(b, m, levels):
    g = np.random.default_rng(b + m)
    means = g.integers(0, levels, (b, m)) / levels            # many exact ties
    if m > 1 and b:
        means[: b // 3, 0] = -np.inf                           # columns set aside by the top-k loop
        means[: b // 5] = -np.inf                              # whole rows of them
    keys = g.random((b, m))
    before = means.copy()
    assert np.array_equal(_first_place(means, keys), _mask_first_place(means, keys))
    assert np.array_equal(means, before)                     # written and restored
    ro = before.copy()
    ro.flags.writeable = False
    assert np.array_equal(_first_place(ro, keys), _mask_first_place(before, keys))


def test_tally_counts_unchanged():
    """The counts and top-k hits of a product: those of the mask version (sums exact, so equal)."""
    g = np.random.default_rng(3)
    means = g.integers(0, 20, (512, 30)) / 20.0
    keys = g.random((512, 30))
    top = np.argsort(-means.mean(0), kind="stable")[:5]
    cnt, hits, b = _rank_tally(means.copy(), keys, top=top, ks=(2, 3, 5, 40), full=False)
    w = _mask_first_place(means, keys)
    assert np.array_equal(cnt, np.bincount(w, minlength=30)) and b == 512
    # hits from the full ranks (rank_order with the same keys) of the same draws
    _, hits_full, _ = _rank_tally(means.copy(), keys, top=top, ks=(2, 3, 5, 40), full=True)
    assert np.array_equal(hits, hits_full)
