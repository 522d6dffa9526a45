"""The randomness policy (ranktrust._random): named streams, and the invariances it promises."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ranktrust as rt
from ranktrust import _random


def _matrix(seed: int = 3, models: int = 8, items: int = 300) -> rt.ScoreMatrix:
    g = np.random.default_rng(seed)
    p = np.linspace(0.45, 0.75, models)[:, None]
    return rt.ScoreMatrix.from_array((g.random((models, items)) < p).astype(float))


def _state(ss: np.random.SeedSequence) -> list[int]:
    return ss.generate_state(4).tolist()


def test_children_are_pure_named_and_equal_spawn():
    r = _random.root(7)
    assert [_state(c) for c in _random.root(7).spawn(3)] == [_state(_random.child(r, k)) for k in range(3)]
    assert _state(_random.child(r, "stability")) == _state(_random.child(r, "stability"))  # pure
    # a stability size's stream is never an engine block's (the report runs both from one seed)
    assert _state(_random.child(r, "size", 30)) != _state(_random.child(r, 30))
    a, b = _random.streams(7, "stability", "split_half")
    assert _state(a) != _state(b) and _state(a) == _state(_random.child(_random.root(7), "stability"))
    # a Generator is advanced: the same Generator twice gives fresh roots
    g = np.random.default_rng(1)
    assert _state(_random.root(g)) != _state(_random.root(g))
    with pytest.raises(TypeError, match="stream key"):
        _random.key(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-negative"):
        _random.key(-1)


def test_a_second_stability_size_leaves_the_first_unchanged():
    m = _matrix()
    one = rt.stability(m, sizes=[50], n_resamples=300, rng=11)
    two = rt.stability(m, sizes=[100, 50], n_resamples=300, rng=11)
    assert one.p_top_stays_top[0] == two.p_top_stays_top[1]
    np.testing.assert_array_equal(one.p_first[0], two.p_first[1])


def test_a_second_mdad_method_leaves_the_first_unchanged():
    m = _matrix(models=24, items=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = rt.mdad(m, methods=["random"], sizes=[10, 20], n_resamples=3, source_models=12, rng=5)
        b = rt.mdad(m, methods=["stratified", "random"], sizes=[20, 10], n_resamples=3, source_models=12, rng=5)
    ia, ib = a.methods.index("random"), b.methods.index("random")
    for k in (10, 20):
        sa, sb = list(a.sizes).index(k), list(b.sizes).index(k)
        assert a.mean_abs_error[ia, sa].tolist() == b.mean_abs_error[ib, sb].tolist()


def test_adding_a_report_section_leaves_the_others_unchanged():
    m = _matrix()
    kw = dict(ci_method="percentile", sizes=[50, "full"], stability_n_resamples=200, rng=4, quality=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = rt.report(m, **kw)
        more = rt.report(m, split_half=True, split_half_n_resamples=200, **kw)
    for a, b in ((base.intervals, more.intervals), (base.stability, more.stability)):
        assert a.to_dict() == b.to_dict()
