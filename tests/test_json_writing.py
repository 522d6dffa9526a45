"""The JSON path's fast code equals its simple reference: ``jsonable`` (one loop per dict or list, plain values kept
without a call), ``dumps_indented`` (the C encoder per plain container, a table's rows tested in one pass) and the
report's model rows (built from whole columns). Random nested values with NumPy scalars and arrays, NaN, inf,
tuples, subclasses and keys that are not text; the reference is the code these replaced."""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranktrust as rt
from ranktrust.reporting._render import dumps_indented
from ranktrust.results import Result, jsonable


def _reference(value: Any) -> Any:
    """``jsonable`` as it was written first (one call per value), except that ``np.float64`` becomes ``float``
    (the first version returned it as it was, a ``float`` subclass: the same JSON text)."""
    if isinstance(value, np.floating):
        f = float(value)
        return f if math.isfinite(f) else None
    if value is None or isinstance(value, (str, bool, int)) and not isinstance(value, np.integer):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _reference(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_reference(v) for v in value]
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            return [None if not math.isfinite(x) else x for x in value.tolist()] if value.ndim == 1 else \
                [_reference(row) for row in value]
        if value.dtype.kind in "biu":
            return value.tolist()
        return [_reference(v) for v in value.tolist()]
    if isinstance(value, Result):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _reference(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


def _same(a: Any, b: Any) -> bool:
    """Equal, with the same type at every place (so a NumPy scalar left in one of them fails)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


class _Tag(str):
    """A ``str`` subclass: kept as it is by ``jsonable``, not a plain value to the writer."""


class _Level(enum.IntEnum):
    LOW = 1


@dataclasses.dataclass
class _Point:
    x: Any
    y: Any


_floats = st.floats(allow_nan=True, allow_infinity=True)
_scalars = (st.none() | st.booleans() | st.integers(-2**62, 2**62) | _floats | st.text(max_size=4)
            | _floats.map(np.float64) | st.floats(width=32).map(np.float32) | st.integers(-2**31, 2**31).map(np.int64)
            | st.integers(0, 255).map(np.uint8) | st.booleans().map(np.bool_) | st.text(max_size=3).map(_Tag)
            | st.just(_Level.LOW) | st.just(np.str_("np-text")))
_arrays = (st.lists(_floats, max_size=5).map(lambda v: np.array(v, dtype=float))
           | st.lists(st.integers(-9, 9), max_size=5).map(lambda v: np.array(v, dtype=np.int64))
           | st.lists(_floats, min_size=4, max_size=4).map(lambda v: np.array(v).reshape(2, 2))
           | st.lists(st.booleans(), max_size=3).map(np.array))
_keys = st.text(max_size=3) | st.integers(-3, 3) | st.text(max_size=2).map(_Tag) | st.just(np.int64(7))


def _containers(kids: Any) -> Any:
    return (st.lists(kids, max_size=4) | st.lists(kids, max_size=3).map(tuple)
            | st.dictionaries(_keys, kids, max_size=4) | st.builds(_Point, kids, kids)
            | st.lists(st.dictionaries(st.text(max_size=3), _scalars, max_size=3), min_size=1, max_size=3))


_values = st.recursive(_scalars | _arrays, _containers, max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(_values)
def test_jsonable_is_the_reference(value):
    """Same values and types as the one-call-per-value reference; the same JSON text as the first version."""
    got = jsonable(value)
    assert _same(got, _reference(value))
    assert _same(jsonable(got), got)                   # JSON-ready values come back as they are
    text = json.dumps(got, indent=2, allow_nan=False)
    assert text == json.dumps(_reference(value), indent=2, allow_nan=False)
    assert dumps_indented(got) == text


_json_scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                 | st.text(max_size=4))


def _json_containers(kids: Any) -> Any:
    rows = st.lists(st.dictionaries(st.text(max_size=3), _json_scalars, max_size=3), min_size=1, max_size=4)
    return (st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=3), kids, max_size=4) | rows
            | st.lists(kids, max_size=3).map(tuple) | rows.map(lambda r: r + [{"k": [1, {"a": None}]}]))


@settings(max_examples=400, deadline=None)
@given(st.recursive(_json_scalars | _json_scalars.map(lambda v: np.float64(v) if type(v) is float else v)
                    | st.text(max_size=3).map(_Tag), _json_containers, max_leaves=40))
def test_dumps_indented_is_json_dumps(obj):
    """Tables of rows (some empty, some with a container inside), tuples, float and str subclasses: the text of
    ``json.dumps(indent=2)``."""
    assert dumps_indented(obj) == json.dumps(obj, indent=2, allow_nan=False)


def test_dumps_indented_refuses_nan_and_writes_keys_as_json_does():
    with pytest.raises(ValueError):
        dumps_indented({"a": [{"x": float("nan")}]})
    d = {"a": {1: [1.5, 2], 2.5: "x", None: True}}
    assert dumps_indented(d) == json.dumps(d, indent=2, allow_nan=False)


def _old_model_rows(report: Any) -> list[dict[str, Any]]:
    """The report's model rows one NumPy scalar at a time, as first written."""
    iv = report.intervals
    tier_of = {}
    if report.tiers is not None:
        for k, name in enumerate(report.tiers.models):
            tier_of[name] = int(report.tiers.tier[k])
    rows = []
    for rank, k in enumerate(report._order(), 1):
        name = iv.models[k]
        lo = hi = None
        if report.rank_sets is not None:
            lo, hi = int(report.rank_sets.rank_low[k]), int(report.rank_sets.rank_high[k])
        rows.append({"model": name, "n_items": int(iv.n_items[k]), "score": float(iv.score[k]),
                     "se": float(iv.se[k]), "ci_low": float(iv.ci_low[k]), "ci_high": float(iv.ci_high[k]),
                     "rank": rank, "tier": tier_of.get(name), "rank_low": lo, "rank_high": hi})
    return rows


@pytest.mark.parametrize("drop", [(), ("rank_sets",), ("tiers",), ("rank_sets", "tiers")])
def test_model_rows_and_headline_are_the_one_at_a_time_ones(drop):
    """On a matrix with missing cells and a model with one item (its SE and bounds NaN), and without the rank
    sets or the tiers: the same rows (the frame's, NaN kept; the JSON's, NaN as None) and the same headline."""
    g = np.random.default_rng(11)
    s = (g.random((6, 300)) < np.linspace(0.1, 0.95, 6)[:, None]).astype(float)
    s[g.random(s.shape) < 0.15] = np.nan
    s[0, 1:] = np.nan
    m = rt.ScoreMatrix.from_array(s, models=[f"m{k}" for k in range(6)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = rt.report(m)
    if drop:
        r = dataclasses.replace(r, sections=tuple((k, None if k in drop else v) for k, v in r.sections))
    ref = _old_model_rows(r)
    assert any(not math.isfinite(row["se"]) for row in ref)
    if "rank_sets" not in drop:
        assert (ref[0]["rank_low"], ref[0]["rank_high"]) != (ref[1]["rank_low"], ref[1]["rank_high"])   # read row 0
    assert _same(r._model_rows(), ref)
    assert _same(r._model_rows(json=True), jsonable(ref))
    assert r.to_dict()["models"] == jsonable(ref)
    head = r._headline()
    assert (head["top"], head["runner_up"], head["rank_low"], head["rank_high"]) == \
        (ref[0]["model"], ref[1]["model"], ref[0]["rank_low"], ref[0]["rank_high"])
