"""One result base: every result is a frozen ``eq=False`` dataclass with read-only arrays, its
``to_dict()`` is JSON (no NaN), and a key that names a field holds that field."""

from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pytest

import ranktrust as rt
from conftest import all_result_classes
from ranktrust.results import Result, jsonable


RESULTS = all_result_classes()


def test_every_result_class_is_found():
    names = {c.__name__ for c in RESULTS}
    assert {"LeaderboardReport", "ScoreIntervals", "PairTable", "Stability", "BootstrapIntervals", "PowerResult",
            "MDADResult", "Repeats", "Sensitivity", "StoreSummary", "IngestSummary"} <= names


@pytest.mark.parametrize("cls", RESULTS, ids=lambda c: c.__name__)
def test_every_result_is_a_frozen_dataclass_without_value_equality(cls):
    params = cls.__dict__.get("__dataclass_params__")
    assert params is not None, f"{cls.__name__} is not itself a @dataclass"
    assert params.frozen and not params.eq, f"{cls.__name__} must be @dataclass(frozen=True, eq=False)"


def test_a_non_conforming_subclass_is_refused_when_built():
    @dataclasses.dataclass(frozen=True)
    class Bad(Result):
        x: int

    with pytest.raises(TypeError, match=r"must be @dataclass\(frozen=True, eq=False\)"):
        Bad(1)


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(3)
    p = np.linspace(0.35, 0.75, 5)[:, None]
    return rt.ScoreMatrix.from_array((rng.random((5, 120)) < p).astype(float),
                                     models=[f"m{k}" for k in range(5)])


def test_arrays_are_read_only_and_the_callers_array_is_not(small):
    a = np.array([0.1, 0.2])
    from ranktrust.stats._power import PowerTable

    t = PowerTable(disagreement=0.2, alpha=0.05, power=0.8, gaps=a, items_needed=np.array([10, 20]), method="normal")
    assert a.flags.writeable                       # the caller's array is untouched
    with pytest.raises(ValueError, match="read-only"):
        t.gaps[0] = 1.0
    iv = rt.intervals(small)
    for f in dataclasses.fields(iv):
        v = getattr(iv, f.name)
        if isinstance(v, np.ndarray):
            assert not v.flags.writeable, f.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        iv.score = iv.score  # type: ignore[misc]


def test_results_compare_by_identity_and_hash(small):
    a, b = rt.intervals(small), rt.intervals(small)
    assert a == a and a != b
    assert len({a, b}) == 2


def _results(m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = {
            "intervals": rt.intervals(m),
            "bootstrap_ci": rt.intervals(m, method="percentile", n_resamples=200, rng=0),
            "compare": rt.compare(m, "m4", "m0"),
            "all_pairs": rt.all_pairs(m),
            "tiers": rt.tiers(m),
            "rank_sets": rt.rank_sets(m),
            "stability": rt.stability(m, sizes=[30, "full"], n_resamples=100, rng=0),
            "split_half": rt.split_half(m, n_resamples=100, rng=0),
            "power": rt.power(gap=0.05, disagreement=0.3, binary=True),
            "select_subset": rt.select_subset(m, size=10, method="random", rng=0),
            "data_quality": rt.data_quality(m),
        }
        from ranktrust.stats._power import power_table

        out["power_table"] = power_table(0.3)
    return out


@pytest.fixture(scope="module")
def results(small):
    return _results(small)


def test_every_to_dict_is_strict_json(results):
    for name, r in results.items():
        json.dumps(r.to_dict(), allow_nan=False)
        assert json.loads(json.dumps(r.to_dict())) == r.to_dict(), name


def test_nan_becomes_null_in_the_results_that_built_their_own_dicts():
    from ranktrust.subsets._irt import IRTParams
    from ranktrust.subsets._select import Subset

    p = IRTParams(discrimination=np.array([[np.nan]]), difficulty=np.array([np.inf]), ability=np.array([[0.5]]),
                  converged=False, n_iter=3, neg_log_posterior=float("nan"))
    d = p.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["discrimination"] == [[None]] and d["neg_log_posterior"] is None and d["dim"] == 1
    s = Subset(items=np.array([0, 1]), labels=("a", "b"), weights=np.array([np.nan, 1.0]), method="random",
               n_items=10, source_models=("x",))
    json.dumps(s.to_dict(), allow_nan=False)


def _scalar(v):
    return v is None or isinstance(v, (str, bool, int, float, np.generic))


def _flat(v):
    return [x for y in v for x in _flat(y)] if isinstance(v, list) else [v]


def _holds_in_rows(rows, values) -> bool:
    """Some key of the row dicts holds ``values`` (the field, flattened), one per row."""
    want = sorted(map(repr, _flat(values)))
    return any(sorted(repr(row.get(k)) for row in rows) == want for k in rows[0])


#: keys that name a field and hold a table of rows carrying it, one value per row (``"models"`` rows
#: carry ``models`` as ``"model"``); any other field's key holds the field itself
ROW_TABLES = {"models", "items", "person_fit"}


def test_a_key_that_names_a_field_holds_that_field(results):
    """``to_dict`` keys equal field names where a field is emitted: a key named like a field holds
    that field's value (scalars, tuples, arrays), or is one of the declared :data:`ROW_TABLES` that
    carries the field, one value per row, or maps model names to it. Never another quantity under a
    field's name (Stability's ``"sizes"`` is the list of sizes; its rows are ``"by_size"``)."""
    checked = 0
    for name, r in results.items():
        d = r.to_dict()
        for f in dataclasses.fields(r):
            if f.name not in d:
                continue
            v, got = jsonable(getattr(r, f.name)), d[f.name]
            where = f"{type(r).__name__}.to_dict()[{f.name!r}]"
            if isinstance(got, list) and got and all(isinstance(x, dict) for x in got):
                assert f.name in ROW_TABLES, f"{where} is a table of rows, not the field"
                assert isinstance(v, list) and _holds_in_rows(got, v), where
            elif isinstance(got, dict) and isinstance(v, list):          # keyed by model name
                assert list(got) == list(r.models) and jsonable(list(got.values())) == v, where
            elif _scalar(v) or isinstance(getattr(r, f.name), (tuple, np.ndarray)):
                assert got == v, where
            checked += 1
    assert checked > 50
    st = results["stability"].to_dict()
    assert st["sizes"] == [30, 120] and [r["n"] for r in st["by_size"]] == st["sizes"]


def test_shared_field_names():
    """One name per concept across the results (the review's list)."""
    from ranktrust.ranking._stability import Stability
    from ranktrust.resample._intervals import BootstrapIntervals
    from ranktrust.runs._sensitivity import Sensitivity
    from ranktrust.stats._paired import PairTable

    names = {c: {f.name for f in dataclasses.fields(c)} for c in (BootstrapIntervals, Sensitivity, Stability,
                                                                 PairTable)}
    assert {"se", "ci_low", "ci_high"} <= names[BootstrapIntervals]
    assert not {"low", "high", "standard_error"} & names[BootstrapIntervals]
    assert "p_value" in names[Sensitivity] and "pvalue" not in names[Sensitivity]
    assert "clustered" in names[Stability] and "cluster" not in names[Stability]
    assert "pairs_scope" in names[PairTable] and "pairs" not in names[PairTable]
    for cls in RESULTS:
        fields = {f.name for f in dataclasses.fields(cls)}
        assert not fields & {"standard_error", "pvalue", "p", "low", "high", "cluster"}, cls.__name__


def test_one_confidence_interval_type(results):
    """Every result with ci_low/ci_high gives its interval as one ConfidenceInterval pair (``.ci``)."""
    from ranktrust.results import ConfidenceInterval

    with_ci = [r for r in results.values() if hasattr(type(r), "__dataclass_fields__")
               and {"ci_low", "ci_high"} <= set(type(r).__dataclass_fields__)]
    assert len(with_ci) >= 4
    for r in with_ci:
        ci = r.ci
        assert isinstance(ci, ConfidenceInterval) and ci.low is r.ci_low and ci.high is r.ci_high
    with pytest.raises(AttributeError, match="Tiers has no confidence interval"):
        results["tiers"].ci


def test_dict_fields_are_read_only_all_the_way_down():
    """Issue 23 §2: a result's dict fields (and the dicts inside them) cannot be changed after construction;
    they stay dicts for JSON, and pickle, copy and deepcopy keep them frozen."""
    import copy
    import json
    import pickle

    from ranktrust.results import FrozenDict

    s = np.random.default_rng(0).integers(0, 2, (3, 40)).astype(float)
    s[0, 3] = np.nan
    r = rt.stats.bootstrap_ci(rt.ScoreMatrix.from_array(s), n_resamples=50, pair=("model_0", "model_1"))
    assert isinstance(r.dropped, FrozenDict) and isinstance(r.dropped, dict) and r.dropped == {"model_1": 1, "model_2": 1}
    for change in (lambda d: d.__setitem__("x", 1), lambda d: d.update(x=1), lambda d: d.pop("model_1"),
                   lambda d: d.clear(), lambda d: d.setdefault("x", 1), lambda d: d.__delitem__("model_1")):
        with pytest.raises(TypeError, match="a result is frozen"):
            change(r.dropped)
    assert r.dropped == {"model_1": 1, "model_2": 1}
    nested = FrozenDict({"a": {"b": 1}, "c": [{"d": 2}]})
    from ranktrust.results import _freeze

    frozen = _freeze({"a": {"b": 1}, "c": [{"d": 2}]})
    assert isinstance(frozen["a"], FrozenDict) and isinstance(frozen["c"][0], FrozenDict) and frozen == nested
    for c in (pickle.loads(pickle.dumps(r)), copy.deepcopy(r), copy.copy(r)):
        assert isinstance(c.dropped, FrozenDict) and c.dropped == r.dropped
    assert json.loads(json.dumps(r.to_dict()))["dropped"] == {"model_1": 1, "model_2": 1}


def test_lists_inside_dict_fields_are_read_only_too():
    """The review's hole: ``r.settings["style_features"].append("injected")`` changed an arena result's JSON. The lists
    in a result's dict fields are read-only like the dicts; they stay lists (``==``, JSON, isinstance), and
    pickle, copy and deepcopy keep them frozen."""
    import copy
    import json
    import pickle

    from ranktrust.results import FrozenDict, FrozenList, _freeze

    frozen = _freeze({"features": ["length", "bold"], "rows": [{"a": [1, 2]}], "pair": ("x", ["y"])})
    assert isinstance(frozen["features"], FrozenList) and frozen["features"] == ["length", "bold"]
    assert isinstance(frozen["rows"][0], FrozenDict) and isinstance(frozen["rows"][0]["a"], FrozenList)
    assert isinstance(frozen["pair"][1], FrozenList)
    for change in (lambda x: x.append("injected"), lambda x: x.extend(["z"]), lambda x: x.insert(0, "z"),
                   lambda x: x.pop(), lambda x: x.remove("bold"), lambda x: x.clear(), lambda x: x.sort(),
                   lambda x: x.reverse(), lambda x: x.__setitem__(0, "z"), lambda x: x.__delitem__(0),
                   lambda x: x.__iadd__(["z"])):
        with pytest.raises(TypeError, match="a result is frozen"):
            change(frozen["features"])
    assert frozen["features"] == ["length", "bold"] and json.dumps(frozen) == json.dumps(
        {"features": ["length", "bold"], "rows": [{"a": [1, 2]}], "pair": ["x", ["y"]]})
    once = _freeze({"features": ["length"], "rows": [{"a": [1]}]})
    assert _freeze(once) is once                                           # already frozen: not copied again
    for c in (pickle.loads(pickle.dumps(frozen)), copy.deepcopy(frozen), copy.copy(frozen)):
        assert isinstance(c["features"], FrozenList) and c == frozen
    plain = list(frozen["features"])
    plain.append("ok")                                                     # a copy to change
    assert plain == ["length", "bold", "ok"]

    import pandas as pd

    g = np.random.default_rng(0)
    n = 300
    battles = pd.DataFrame({"model_a": g.choice(["a", "b"], n), "model_b": "c", "score": g.integers(0, 2, n),
                            "style_a_length": g.integers(50, 500, n), "style_b_length": g.integers(50, 500, n)})
    r = rt.arena(battles, style=True)
    assert any(isinstance(v, list) for v in r.settings.values())
    before = json.dumps(r.to_dict())
    for v in r.settings.values():
        if isinstance(v, list):
            with pytest.raises(TypeError, match="a result is frozen"):
                v.append("injected")
    for v in r.headline.values():      # the headline is made from the result on each call: a copy to change
        if isinstance(v, list):
            try:
                v.append("injected")
            except TypeError:
                pass
    assert json.dumps(r.to_dict()) == before


def test_list_fields_and_the_dicts_in_them_are_read_only():
    """A result's list fields (watch's ``excluded``, a tuple of dict rows) are frozen like its dict fields."""
    from dataclasses import dataclass

    from ranktrust.results import FrozenDict, FrozenList, Result

    @dataclass(frozen=True, eq=False)
    class Rows(Result):
        names: list
        rows: tuple

    r = Rows(names=["a", ["b"]], rows=({"k": [1]}, "x"))
    assert isinstance(r.names, FrozenList) and isinstance(r.names[1], FrozenList) and r.names == ["a", ["b"]]
    assert isinstance(r.rows[0], FrozenDict) and isinstance(r.rows[0]["k"], FrozenList) and r.rows[1] == "x"
    for change in (lambda: r.names.append("z"), lambda: r.names[1].append("z"), lambda: r.rows[0].update(k=2),
                   lambda: r.rows[0]["k"].append(2)):
        with pytest.raises(TypeError, match="a result is frozen"):
            change()
    assert r.to_dict() == {"names": ["a", ["b"]], "rows": [{"k": [1]}, "x"]}
