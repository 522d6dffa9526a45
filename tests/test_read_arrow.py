"""One long CSV/TSV/Parquet file read with Arrow (``data._io.read_arrow``): the same ScoreMatrix as the pandas path
(``read_long`` then ``matrix_from_long``), and every input that path refuses refused with the pandas path's error.

The Arrow path copies the scores without arithmetic (a ``scale`` is the same NumPy arithmetic on the same float64
values), so matrices are compared exactly: Parquet holds the float64 values themselves; CSV decimal text is parsed
by Arrow's parser and by pandas', both correctly rounded for the shortest-repr text written here.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranktrust as rt
from ranktrust.data import _io
from ranktrust.data._io import read_arrow
from ranktrust.data.readers import ReadOptions
from ranktrust.errors import RanktrustError

KINDS = ("parquet", "csv", "tsv", "csv.gz")


def _write(df: pd.DataFrame, path, kind: str) -> str:
    path = str(path) + "." + kind
    if kind == "parquet":
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, index=False, sep="\t" if kind == "tsv" else ",")
    return path


def _pandas_read(path: str, monkeypatch: pytest.MonkeyPatch, **kw):
    """``rt.read`` through the pandas path alone."""
    with monkeypatch.context() as mp:
        mp.setattr(_io, "read_arrow", lambda *a, **k: None)
        return rt.read(path, **kw)


def _outcome(fn):
    """The matrix, or the error's class, code and message; and the warnings' codes."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = fn()
        except RanktrustError as exc:
            out = (type(exc).__name__, getattr(exc, "code", None), str(exc))
    return out, sorted(str(getattr(x.message, "code", x.category.__name__)) for x in w)


def assert_same(a, b) -> None:
    if isinstance(a, tuple) or isinstance(b, tuple):
        assert a == b
        return
    assert (a.models, a.items, a.runs, a.groups, a.conditions, a.source) == \
        (b.models, b.items, b.runs, b.groups, b.conditions, b.source)
    assert a.data.dtype == b.data.dtype == np.float64
    assert np.array_equal(a.data, b.data, equal_nan=True)   # the same values, bit for bit (no arithmetic)
    assert a.notes == b.notes and a.provenance == b.provenance and a.dropped == b.dropped


def _compare(path: str, monkeypatch: pytest.MonkeyPatch, **kw):
    fast = _outcome(lambda: rt.read(path, **kw))
    slow = _outcome(lambda: _pandas_read(path, monkeypatch, **kw))
    assert_same(fast[0], slow[0])
    assert fast[1] == slow[1]   # the same warnings, once each
    return fast[0]


# ---------------------------------------------------------------- random long tables
LABELS = st.sampled_from(["a", "b", "B", "b ", " c", "NA", "null", "0", "01", "1.0", "x,y", 'q"t', "n\nl", "é",
                          "model 7"])
SCORES = st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0, 1), st.sampled_from([float("nan"), 1.5, -0.25]))


@st.composite
def long_tables(draw):
    models = draw(st.lists(LABELS, min_size=1, max_size=4, unique=True))
    items = draw(st.lists(LABELS, min_size=1, max_size=5, unique=True))
    runs = draw(st.sampled_from([None, ["r1"], ["r1", "r2"], ["1", "2"]]))
    cells = [(m, i, r) for m in models for i in items for r in (runs or [None])]
    keep = draw(st.lists(st.booleans(), min_size=len(cells), max_size=len(cells)))
    rows = [c for c, k in zip(cells, keep) if k] or cells[:1]
    rows = draw(st.permutations(rows))
    if draw(st.integers(0, 4)) == 0:   # a repeated key now and then
        rows = list(rows) + [rows[draw(st.integers(0, len(rows) - 1))]]
    binary = draw(st.booleans())
    score = st.sampled_from([0, 1]) if binary else SCORES
    clean = draw(st.integers(0, 3)) > 0   # most tables have only valid scores
    vals = [draw(st.floats(0, 1) if clean and not binary else score) for _ in rows]
    df = pd.DataFrame({"model": [r[0] for r in rows], "item": [r[1] for r in rows], "score": vals})
    if runs is not None:
        df["run"] = [r[2] for r in rows]
    if draw(st.booleans()):   # a group per item, now and then not one per item
        groups = {i: draw(st.sampled_from(["g1", "g2"])) for i in items}
        df["subject"] = [groups[i] if draw(st.integers(0, 9)) else "g3" for i in df["item"]]
    return df


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(df=long_tables(), kind=st.sampled_from(KINDS), align=st.sampled_from(["error", "pairwise"]))
def test_same_matrix_or_error_as_pandas(df, kind, align, tmp_path_factory, monkeypatch):
    path = _write(df, tmp_path_factory.mktemp("t") / "long", kind)
    _compare(path, monkeypatch, align=align)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(df=long_tables(), kind=st.sampled_from(KINDS))
def test_clean_tables_take_the_arrow_path(df, kind, tmp_path_factory, monkeypatch):
    df = df.drop_duplicates(["model", "item"] + (["run"] if "run" in df else []))
    df = df.assign(score=df["score"].fillna(0.5).clip(0, 1))
    if "subject" in df:
        df = df.assign(subject=df.groupby("item", sort=False)["subject"].transform("first"))
    path = _write(df, tmp_path_factory.mktemp("t") / "long", kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # similar names ('b', 'B'): said once, test_similar_names_warned_once...
        fast = read_arrow(path, "auto", ReadOptions())
        assert fast is not None
        assert_same(fast, _pandas_read(path, monkeypatch, align="pairwise"))


# ---------------------------------------------------------------- shapes and options
@pytest.mark.parametrize("kind", KINDS)
def test_runs_conditions_groups_and_scale(kind, tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    rows = [(f"m{m}", f"q{i}", c, r, f"s{i % 3}", int(rng.integers(0, 11)))
            for m in range(3) for i in range(7) for c in ("plain", "shuffled") for r in (0, 1)]
    df = pd.DataFrame(rows, columns=["model", "item", "condition", "run", "subject", "score"]).sample(
        frac=1, random_state=1)
    path = _write(df, tmp_path / "long", kind)
    assert read_arrow(path, "auto", ReadOptions(scale=10)) is not None
    m = _compare(path, monkeypatch, scale=10)
    assert m.conditions is not None and m.n_runs == 4 and m.groups is not None
    _compare(path, monkeypatch, scale="0,20", group="")
    _compare(path, monkeypatch, scale=10, binary=True)   # not 0/1: the same `binary` error


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_named_columns_and_the_model_column_they_replace(kind, tmp_path, monkeypatch):
    df = pd.DataFrame({"who": ["a", "a", "b", "b"], "q": ["1", "2", "1", "2"], "acc": [1, 0, 0.5, 1],
                       "model": ["x", "y", "z", "w"]})
    path = _write(df, tmp_path / "long", kind)
    opts = dict(model="who", item="q", score="acc")
    assert read_arrow(path, "auto", ReadOptions(model_col="who", item_col="q", score_col="acc")) is not None
    m = _compare(path, monkeypatch, **opts)
    assert m.models == ("a", "b")
    _compare(path, monkeypatch, model="q", item="who", score="acc")   # item and model columns swapped


def test_parquet_label_types_and_dictionaries(tmp_path, monkeypatch):
    """Integer labels (cast to text by Arrow, 20 digits exactly), pandas categoricals (dictionary columns whose
    dictionary is in sorted, not first-seen, order), large strings, float32 and bool scores."""
    n = 12
    t = pa.table({
        "model": pa.array([10**19 + k % 3 for k in range(n)], pa.uint64()),
        "item": pa.DictionaryArray.from_arrays(pa.array([5, 3, 1, 0, 2, 4] * 2, pa.int8()),
                                               pa.array(["f", "e", "d", "c", "b", "a"])),
        "subject": pa.array(["s"] * n, pa.large_string()),
        "score": pa.array([k % 2 == 0 for k in range(n)]),
    })
    # each model scores each item at most once: models cycle with period 3, items with period 6 -> 6 distinct keys
    t = t.slice(0, 6)
    for score in (t.column("score"), pa.array(np.linspace(0, 1, 6, dtype=np.float32))):
        path = str(tmp_path / "typed.parquet")
        pq.write_table(t.set_column(3, "score", score), path)
        assert read_arrow(path, "auto", ReadOptions()) is not None
        m = _compare(path, monkeypatch, align="pairwise")
        assert m.models[0] == str(10**19)
        assert m.items == ("a", "c", "e", "f", "d", "b")   # first seen, not the dictionary's order


def test_parquet_row_groups_with_their_own_dictionaries(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    models, items = [f"m{k}" for k in rng.permutation(40)], [f"i{k}" for k in rng.permutation(300)]
    df = pd.DataFrame([(m, i, float(rng.integers(0, 2))) for m in models for i in items],
                      columns=["model", "item", "score"]).sample(frac=1, random_state=2)
    path = str(tmp_path / "groups.parquet")
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path, row_group_size=1000)
    assert pq.ParquetFile(path).num_row_groups > 5
    m = _compare(path, monkeypatch)
    assert m.models == tuple(dict.fromkeys(df["model"]))


def test_similar_names_warned_once_and_mixed_scoring_noted(tmp_path, monkeypatch):
    df = pd.DataFrame({"model": ["Model A", "Model A", "model a", "model a"], "item": ["1", "2", "1", "2"],
                       "score": [1, 0, 0.5, 0.25]})
    for kind in KINDS:
        path = _write(df, tmp_path / kind.replace(".", "_"), kind)
        assert _outcome(lambda: read_arrow(path, "auto", ReadOptions()))[0] is not None
        fast, said = _outcome(lambda: rt.read(path))
        assert said == ["similar_names"]
        assert [n.code for n in fast.notes] == ["mixed_scoring"]
        _compare(path, monkeypatch)


# ---------------------------------------------------------------- refused inputs: the pandas path's error
def _rows(**cols):
    base = {"model": ["a", "a", "b", "b"], "item": ["1", "2", "1", "2"], "score": [1.0, 0.0, 0.0, 1.0]}
    base.update(cols)
    return pd.DataFrame(base)


REFUSED = {
    "duplicate_row": _rows(item=["1", "1", "1", "2"]),
    "score_missing": _rows(score=[1.0, np.nan, 0.0, 1.0]),
    "score_out_of_range": _rows(score=[1.0, 50.0, 0.0, 1.0]),
    "score_broken": _rows(score=[1.0, -1e300, 0.0, 1.0]),
    "score_infinite": _rows(score=[1.0, np.inf, 0.0, 1.0]),
    "score_not_number": _rows(score=["1", "x", "0", "1"]),
    "empty_model": _rows(model=["a", None, "b", "b"]),
    "empty_item": _rows(item=["1", "2", None, "2"]),
    "group_conflict": _rows(subject=["s", "t", "t", "t"]),
    "ragged": _rows(model=["a", "a", "b", "c"]),
    "empty_run": _rows(run=["r", None, "r", "r"]),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
@pytest.mark.parametrize("kind", KINDS)
def test_refused_input_gives_the_pandas_error(case, kind, tmp_path, monkeypatch):
    df = REFUSED[case]
    if kind == "parquet" and case == "score_not_number":
        df = df.astype({"score": object})
    path = _write(df, tmp_path / "bad", kind)
    if case != "ragged":
        assert read_arrow(path, "auto", ReadOptions()) is None
    out = _compare(path, monkeypatch)
    assert isinstance(out, tuple), out   # an error
    assert path in out[2]                # naming the file
    if case not in ("ragged", "group_conflict"):
        assert ("row " if kind == "parquet" else "line ") in out[2]   # and the row (the line of a text file)


@pytest.mark.parametrize("kind", ["csv", "tsv"])
def test_empty_csv_label_refused(kind, tmp_path, monkeypatch):
    path = str(tmp_path / f"e.{kind}")
    sep = "\t" if kind == "tsv" else ","
    with open(path, "w") as fh:
        fh.write(sep.join(["model", "item", "score"]) + "\n" + sep.join(["a", "", "1"]) + "\n")
    assert read_arrow(path, "auto", ReadOptions()) is None
    out = _compare(path, monkeypatch)
    assert out[2].startswith(f"{path}: line 2: the 'item' column is empty")


def test_csv_label_with_a_newline_across_blocks(tmp_path, monkeypatch):
    """A quoted label holding a newline, in a file of several Arrow blocks: parsed as pandas parses it."""
    df = pd.DataFrame({"model": [f"m{k % 7}" for k in range(196_000)],
                       "item": [f"it\nem {k // 7}" for k in range(196_000)], "score": 1.0})
    path = _write(df, tmp_path / "nl", "csv")
    assert read_arrow(path, "auto", ReadOptions()) is not None
    assert _compare(path, monkeypatch).items[:2] == ("it\nem 0", "it\nem 1")


def test_parquet_empty_label_is_a_label(tmp_path, monkeypatch):
    path = _write(_rows(item=["", "2", "", "2"]), tmp_path / "e", "parquet")
    assert read_arrow(path, "auto", ReadOptions()) is not None
    assert _compare(path, monkeypatch).items == ("", "2")


@pytest.mark.parametrize("make", ["wide", "task", "source", "jsonl", "one_column", "not_parquet", "bad_row",
                                  "missing_score", "semicolons", "bom"])
def test_other_inputs_take_the_pandas_path(make, tmp_path, monkeypatch):
    df = _rows()
    if make == "wide":
        path = _write(df.pivot(index="item", columns="model", values="score").reset_index(), tmp_path / "w", "csv")
    elif make in ("task", "source"):
        path = _write(df.assign(**{make: "t1"}), tmp_path / "t", "parquet")
    elif make == "jsonl":
        path = str(tmp_path / "r.jsonl")
        df.to_json(path, orient="records", lines=True)
    elif make == "one_column":
        path = str(tmp_path / "one.csv")
        df.to_csv(path, index=False, sep=";")
    elif make == "not_parquet":
        path = str(tmp_path / "x.parquet")
        with open(path, "w") as fh:
            fh.write("model,item,score\na,1,1\n")
    elif make == "bad_row":
        path = str(tmp_path / "bad.csv")
        with open(path, "w") as fh:
            fh.write("model,item,score\na,1,1\nb,1\n")
    elif make == "missing_score":
        path = _write(df.drop(columns="score").assign(acc=1.0), tmp_path / "m", "csv")
    elif make == "semicolons":
        path = str(tmp_path / "semi.csv")
        with open(path, "w") as fh:
            fh.write("model;item;score\na;1;1\n")
    else:   # a UTF-8 byte-order mark before the header
        path = str(tmp_path / "bom.csv")
        with open(path, "w", encoding="utf-8-sig") as fh:
            df.to_csv(fh, index=False)
    if make in ("wide", "task", "source", "jsonl", "one_column", "not_parquet", "bad_row", "missing_score",
                "semicolons"):
        assert read_arrow(path, "auto", ReadOptions()) is None
    _compare(path, monkeypatch, align="pairwise")
