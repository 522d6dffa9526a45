"""The shared keywords behave the same in every analysis (issue 23 §2), as scipy's test_axis_nan_policy checks
every decorated test: one run over every function :func:`ranktrust._analysis.analysis` decorates.

- the data: a long DataFrame, a path and the ScoreMatrix give the same result, called as ``rt.x`` or through its
  module (``ranktrust.stats.intervals(df)`` works as ``rt.intervals(df)``);
- ``rng``: the same seed gives the same numbers; a bad one is the same ArgumentError / TypeError everywhere;
- ``cluster=True`` without item groups: the same DataError everywhere;
- ``confidence_level=95``: the same ArgumentError everywhere; ``progress=True``: the same TypeError.
"""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pandas as pd
import pytest

import ranktrust as rt
from ranktrust._analysis import ANALYSES
from ranktrust.errors import ArgumentError, DataError

# every decorated function registers on import: load the modules that define them
for _mod in ("ranktrust.stats", "ranktrust.ranking._tiers", "ranktrust.ranking._stability", "ranktrust.ranking._ranksets",
             "ranktrust.ranking._splithalf", "ranktrust.resample._intervals", "ranktrust.runs",
             "ranktrust.runs._variance", "ranktrust.runs._sensitivity", "ranktrust.runs._protocol", "ranktrust.judges"):
    importlib.import_module(_mod)

#: how to call each decorated function cheaply on the small data below (keywords the test adds come on top)
CALLS = {
    "intervals": lambda f, m, **kw: f(m, **kw),
    "compare": lambda f, m, **kw: f(m, "m0", "m1", **kw),
    "all_pairs": lambda f, m, **kw: f(m, **kw),
    "tiers": lambda f, m, **kw: f(m, **kw),
    "bootstrap_ci": lambda f, m, **kw: f(m, n_resamples=200, **kw),
    "stability": lambda f, m, **kw: f(m, sizes=[20], n_resamples=50, **kw),
    "rank_sets": lambda f, m, **kw: f(m, method="bootstrap", n_resamples=200, **kw),
    "split_half": lambda f, m, **kw: f(m, n_resamples=50, **kw),
    "estimate_disagreement": lambda f, m, **kw: f(m, **kw),
    "repeats": lambda f, m, **kw: f(m, **kw),
    "pass_at_k_matrix": lambda f, m, **kw: f(m, 1, **kw),
    "sensitivity": lambda f, m, **kw: f(m, by="run", **kw),
    "variance_components": lambda f, m, **kw: f(m, **kw),
    "choose_n": lambda f, m, **kw: f(m, margin=0.05, **kw),
    "gold_corrected": lambda f, m, **kw: f(m, _gold(), n_resamples=200, **kw),
}

#: functions that read runs (the data below has two runs per item for them)
RUNS = {"repeats", "pass_at_k_matrix", "sensitivity", "variance_components", "choose_n"}


def _long(runs: bool) -> pd.DataFrame:
    g = np.random.default_rng(0)
    rows = []
    for k, p in enumerate((0.7, 0.6, 0.5)):
        for i in range(40):
            for r in range(2 if runs else 1):
                row = {"model": f"m{k}", "item": f"q{i}", "score": float(g.random() < p)}
                if runs:
                    row["run"] = str(r)
                rows.append(row)
    return pd.DataFrame(rows)


def _gold() -> rt.ScoreMatrix:
    """Gold labels on the first 20 of the 40 items of :func:`_long` (without runs)."""
    m = rt.read(_long(False))
    labelled = np.arange(m.n_items) < 20
    return rt.ScoreMatrix.from_array(np.where(labelled, m.scores, np.nan), models=list(m.models),
                                     items=list(m.items))


def _result(value):
    if isinstance(value, float):
        return value
    return value.to_dict()


def _params(name):
    return inspect.signature(ANALYSES[name]).parameters


def test_every_decorated_function_has_a_recipe():
    assert set(ANALYSES) == set(CALLS), "add a call recipe for each @analysis function"
    for name, fn in ANALYSES.items():
        # the decorated function itself (no second wrapper); a deprecated name wraps it once, to warn
        assert getattr(rt, name) is fn or (name in rt._DEPRECATED and getattr(rt, name).__wrapped__ is fn), (
            f"rt.{name} is the decorated function itself (no second wrapper)")


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_data_argument_is_read_once_the_same_way(name, tmp_path):
    df = _long(name in RUNS)
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    m = rt.read(df)
    fn = ANALYSES[name]
    want = _result(CALLS[name](fn, m))
    for data in (df, path):
        got = _result(CALLS[name](fn, data))
        assert got == want or repr(got) == repr(want), name


@pytest.mark.parametrize("name", sorted(n for n in CALLS if "rng" in _params(n)))
def test_same_rng_same_numbers_and_one_rng_error(name):
    m = rt.read(_long(False))
    fn = ANALYSES[name]
    a, b = _result(CALLS[name](fn, m, rng=7)), _result(CALLS[name](fn, m, rng=7))
    assert repr(a) == repr(b), name
    with pytest.raises(ArgumentError, match=r"^`rng` must be None, a non-negative int seed"):
        CALLS[name](fn, m, rng=-1)
    with pytest.raises(TypeError, match=r"^`rng` must be None, a non-negative int seed"):
        CALLS[name](fn, m, rng=1.5)


@pytest.mark.parametrize("name", sorted(n for n in CALLS if "cluster" in _params(n)))
def test_cluster_without_groups_is_one_error(name):
    m = rt.read(_long(name in RUNS))
    with pytest.raises(DataError, match=r"^clustering needs item groups, but the data has none: read it with "
                                        r"`group`=COLUMN"):
        CALLS[name](ANALYSES[name], m, cluster=True)


@pytest.mark.parametrize("name", sorted(n for n in CALLS if "confidence_level" in _params(n)))
def test_a_bad_level_is_one_error(name):
    m = rt.read(_long(name in RUNS))
    with pytest.raises(ArgumentError, match=r"^`confidence_level` must be in the open interval \(0, 1\)") as e:
        CALLS[name](ANALYSES[name], m, confidence_level=95)
    assert e.value.param == "confidence_level"


@pytest.mark.parametrize("name", sorted(n for n in CALLS if "progress" in _params(n)))
def test_a_bad_progress_is_one_error(name):
    m = rt.read(_long(name in RUNS))
    with pytest.raises(TypeError, match=r"^`progress` must be None or a callable progress\(done, total\)"):
        CALLS[name](ANALYSES[name], m, progress=True)


def test_a_module_function_reads_a_dataframe_as_the_facade_does():
    """The review's case: ranktrust.stats.intervals(df) failed with an AttributeError where rt.intervals(df) worked."""
    import ranktrust.stats

    df = _long(False)
    assert ranktrust.stats.intervals(df).to_dict() == rt.intervals(df).to_dict()
