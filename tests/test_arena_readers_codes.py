"""read_battle_table(text=False), the reading rt.arena does on one file: the same checks, notes, numeric columns
and codes as the full table (text=True), and the same arena; Labels.of_names on categorical name columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranktrust as rt
from ranktrust.data.battles import read_battle_table
from ranktrust.data.battles._canon import Labels
from ranktrust.errors import DataError


def _battles(seed: int, n: int = 400, M: int = 7, prompts: int = 60, *, ids: str = "int") -> pd.DataFrame:
    g = np.random.default_rng(seed)
    a = g.integers(0, M, n)
    b = (a + g.integers(1, M, n)) % M
    names = np.array([f"model {k}" for k in range(M)], dtype=object)
    score = g.choice([0.0, 0.5, 1.0], n)
    p = g.integers(100, 100 + prompts, n)
    cluster = {"int": p, "float": p.astype(float), "str": np.array([f"q{x}" for x in p], dtype=object)}[ids]
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "score": score, "cluster": cluster})


def _same_read(path: str, **kw) -> None:
    full, lean = read_battle_table(path, **kw), read_battle_table(path, text=False, **kw)
    assert full.codes is not None and lean.codes is not None
    assert full.codes.models == lean.codes.models
    for k in ("a", "b", "cluster"):
        x, y = getattr(full.codes, k), getattr(lean.codes, k)
        assert (x is None) == (y is None)
        if x is not None:
            assert np.array_equal(x, y)
    assert full.codes.n_clusters == lean.codes.n_clusters
    assert full.table.attrs["notes"] == lean.table.attrs["notes"]
    for col in ("score", "weight"):   # the same numbers, read the same way
        assert np.array_equal(full.table[col].to_numpy(), lean.table[col].to_numpy())
    # the names as read (categorical) are the same texts per row
    for col in ("model_a", "model_b"):
        assert list(full.table[col].astype(object)) == list(lean.table[col].astype(object))


@pytest.mark.parametrize("ids", ["int", "float", "str"])
def test_the_lean_reading_of_a_parquet_file_has_the_same_codes_and_notes(ids, tmp_path):
    path = str(tmp_path / "b.parquet")
    _battles(1, ids=ids).to_parquet(path, index=False)
    _same_read(path)
    _same_read(path, prompt="")
    lean = read_battle_table(path, text=False).table
    assert isinstance(lean["model_a"].dtype, pd.CategoricalDtype)   # the Parquet dictionary, not text per row
    assert "winner" not in lean.columns


def test_the_lean_reading_of_other_tables_has_the_same_codes_and_notes(tmp_path):
    df = _battles(2)
    for name, write in (("b.csv", lambda p: df.to_csv(p, index=False)),
                        ("b.jsonl", lambda p: df.to_json(p, orient="records", lines=True))):
        path = str(tmp_path / name)
        write(path)
        _same_read(path)


def test_a_folder_or_a_list_is_read_in_full_whatever_text_says(tmp_path):
    df = _battles(3)
    for k in range(2):
        df.iloc[k * 200:(k + 1) * 200].to_parquet(tmp_path / f"p{k}.parquet", index=False)
    for source in (str(tmp_path), [str(tmp_path / "p0.parquet"), str(tmp_path / "p1.parquet")]):
        lean = read_battle_table(source, text=False).table
        full = read_battle_table(source).table
        pd.testing.assert_frame_equal(lean, full)


@pytest.mark.parametrize("ids", ["int", "str"])
def test_rt_arena_on_a_parquet_file_equals_rt_arena_on_the_full_table(ids, tmp_path):
    path = str(tmp_path / "b.parquet")
    _battles(4, n=900, ids=ids).to_parquet(path, index=False)
    got = rt.arena(path, n_resamples=200).to_dict()
    want = rt.arena(rt.data.battles.read_battles(path), n_resamples=200).to_dict()
    # the same codes and the same arithmetic: equal up to rounding (a few ulps); texts, integers, flags exact
    _close(got, want)


def _close(x, y, where="") -> None:
    if isinstance(x, dict):
        assert x.keys() == y.keys(), where
        for k in x:
            _close(x[k], y[k], f"{where}.{k}")
    elif isinstance(x, list):
        assert len(x) == len(y), where
        for i, (u, v) in enumerate(zip(x, y)):
            _close(u, v, f"{where}[{i}]")
    elif isinstance(x, float) and isinstance(y, float):
        assert x == pytest.approx(y, rel=1e-12, abs=1e-12), where
    else:
        assert x == y, where


def test_a_missing_or_blank_name_in_a_parquet_file_is_the_same_error(tmp_path):
    for bad in (None, "  "):
        df = _battles(5)
        df.loc[17, "model_b"] = bad
        path = str(tmp_path / "b.parquet")
        df.to_parquet(path, index=False)
        msgs = []
        for text in (True, False):
            with pytest.raises(DataError) as e:
                read_battle_table(path, text=text)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1] and "row 18" in msgs[0]


names = st.lists(st.sampled_from(["a", "b", "model c", " ", "", "d"]), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(names, st.lists(st.sampled_from(["x", "unused", "a", "zz"]), max_size=4), st.data())
def test_of_names_on_a_categorical_gives_the_texts_and_gaps_of_of(values, extra, data):
    """Whatever the categories (unused ones, blanks, missing cells): per row the same text, the same missing
    rows, the same column kept as it is; only the codes' order may differ."""
    cats = list(dict.fromkeys([*values, *extra]))
    missing_at = data.draw(st.lists(st.integers(0, len(values) - 1), max_size=3))
    vals = [None if i in missing_at else v for i, v in enumerate(values)]
    col = pd.Series(pd.Categorical(vals, categories=[c for c in cats if c is not None]))
    got, want = Labels.of_names(col), Labels.of(col)
    assert np.array_equal(got.missing, want.missing)
    ok = ~want.missing
    assert list(got.text[got.codes[ok]]) == list(want.text[want.codes[ok]])
    assert sorted(got.text) == sorted(want.text)   # the used categories only, as factorize gives them
    assert (got.source is None) == (want.source is None)


@pytest.mark.parametrize("strong", [False, True])
def test_an_arena_hard_battles_file_as_parquet_reads_alike_with_replicates_collapsed(strong, tmp_path):
    """The winner labels and the strong verdicts' replicated rows (weight_strong) take the same path either way."""
    from conftest import DATA

    path = str(tmp_path / "ah.parquet")
    pd.read_json(DATA / "arena" / "arenahard_v01_official_battles.jsonl.gz", lines=True).to_parquet(path, index=False)
    _same_read(path, weight_strong=strong)
    got = rt.arena(path, weight_strong=strong, n_resamples=100).to_dict()
    want = rt.arena(rt.data.battles.read_battles(path, weight_strong=strong), n_resamples=100).to_dict()
    _close(got, want)
