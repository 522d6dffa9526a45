"""The engine's block streams hashed together (``_streams``) are SeedSequence's streams: the same
PCG64 states, so the same draws and figures as building a ``SeedSequence`` per block and child."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from ranktrust import _random
from ranktrust.resample import _engine as E
from ranktrust.ranking._stability import stability


def _parents():
    return [_random.root(0), _random.root(123456789), _random.root(np.random.default_rng(3)),
            _random.child(_random.root(0), "size", 448), np.random.SeedSequence(5),
            np.random.SeedSequence(2**200 + 7, spawn_key=(3, 2**40)), np.random.SeedSequence(0, pool_size=8),
            np.random.SeedSequence([1, 0, 2**63 - 1], pool_size=4)]


@pytest.mark.parametrize("p", range(8))
def test_streams_are_the_seed_sequence_children(p):
    parent = _parents()[p]
    ks = list(range(40)) + [2**32 - 1]
    got = E._streams(parent, ks)
    assert got is not None
    for k, st in zip(ks, got):
        ss = _random.child(parent, k)
        assert np.array_equal(st.state, ss.generate_state(4, np.uint64))
        assert np.array_equal(st.generate_state(8), ss.generate_state(8))         # other requests: SeedSequence's
        for i, kid in enumerate(E._children(st, 2)):
            assert np.array_equal(kid.state, _random.child(ss, i).generate_state(4, np.uint64))
        g1 = np.random.Generator(np.random.PCG64(E._children(st, 1)[0]))
        g2 = np.random.Generator(np.random.PCG64(_random.child(ss, 0)))
        assert np.array_equal(g1.integers(0, 1000, 20), g2.integers(0, 1000, 20))
    assert E._children(got[0], 3)[2].generate_state(4, np.uint64).tolist() == \
        _random.child(_random.child(parent, 0), 2).generate_state(4, np.uint64).tolist()


def test_keys_beyond_one_word_and_pickling():
    parent = _random.root(1)
    assert E._streams(parent, [2**32]) is None                 # not one word: SeedSequences instead
    st = E._block_seeds(1, 300)
    back = pickle.loads(pickle.dumps(st))                      # dask tasks carry them
    assert all(np.array_equal(a.kids[1].state, b.kids[1].state) for a, b in zip(st, back))


def _slow(monkeypatch):
    monkeypatch.setattr(E, "_streams", lambda parent, ks: None)     # one SeedSequence per block and child


def test_same_draws_and_figures_as_seed_sequences(monkeypatch):
    g = np.random.default_rng(4)
    s = (g.random((9, 700)) < g.uniform(0.3, 0.8, (9, 1))).astype(np.int8)
    groups = g.integers(0, 60, 700)
    cont = g.random((5, 300))
    runs = lambda: [  # noqa: E731
        E.resample_means(s, n_resamples=300, rng=2, path="matmul"),
        E.resample_means(s, n_resamples=300, rng=2, size=50, path="sparse"),
        E.resample_means(cont, n_resamples=200, rng=np.random.default_rng(9)),
        E.resample_means(s, n_resamples=200, groups=groups, rng=3),
        E.weights(700, n_resamples=130, rng=5), E.halves(700, n_splits=130, rng=5),
        np.concatenate([np.concatenate(x[1:3]) for x in E.iter_half_means(cont, n_splits=150, rng=6,
                                                                           tie_keys=True)]),
        stability(s, sizes=[30, 200, "full"], n_resamples=300, rng=7).to_dict(),
        stability(s, sizes=[100, 5000], n_resamples=200, rng=8, rank_distribution=False).to_dict(),
    ]
    new = runs()
    _slow(monkeypatch)
    old = runs()
    for a, b in zip(new, old):
        if isinstance(a, dict):
            assert a == b
        else:
            assert np.array_equal(a, b)     # the same draws: bit-equal on one code path


def test_tie_keys_written_in_place_are_the_block_draws():
    kids = [E._children(ss, 2) for ss in E._block_seeds(7, 150)]
    bs = [64, 64, 22]
    want = np.concatenate([np.random.Generator(np.random.PCG64(k)).random((b, 9)) for (_, k), b in zip(kids, bs)])
    assert np.array_equal(E._tie_keys(kids, bs, 9), want)
    assert E._tie_keys(kids[:1], [5], 3).shape == (5, 3)
