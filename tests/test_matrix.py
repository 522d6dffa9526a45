"""ScoreMatrix construction, alignment and validation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranktrust as rt
from ranktrust import DataError, ScoreMatrix


def long_df(n_models=3, n_items=5, seed=0):
    rng = np.random.default_rng(seed)
    rows = [(f"m{a}", f"q{i}", float(rng.integers(0, 2))) for a in range(n_models) for i in range(n_items)]
    return pd.DataFrame(rows, columns=["model", "item", "score"])


def test_from_long_roundtrip():
    df = long_df()
    m = ScoreMatrix.from_long(df)
    assert m.shape == (3, 5, 1)
    assert m.models == ("m0", "m1", "m2") and m.items[0] == "q0"
    back = m.to_long()
    merged = df.merge(back, on=["model", "item"], suffixes=("", "_back"))
    assert len(merged) == len(df)
    np.testing.assert_array_equal(merged["score"], merged["score_back"])


def test_scores_readonly_and_binary():
    m = ScoreMatrix.from_long(long_df())
    assert m.is_binary and m.is_complete
    with pytest.raises(ValueError):
        m.data[0, 0, 0] = 3.0


def test_runs_and_conditions():
    rows = []
    for cond in ("orig", "perm"):
        for run in ("0", "1"):
            for model in ("a", "b"):
                for item in range(4):
                    rows.append((model, f"q{item}", run, cond, float((item + int(run)) % 2)))
    df = pd.DataFrame(rows, columns=["model", "item", "run", "condition", "score"])
    m = ScoreMatrix.from_long(df)
    assert m.shape == (2, 4, 4)
    assert m.conditions == ("orig", "orig", "perm", "perm")
    assert m.runs == ("orig/0", "orig/1", "perm/0", "perm/1")
    np.testing.assert_allclose(m.scores[0], [0.5, 0.5, 0.5, 0.5])


def test_groups_autodetected_and_conflict():
    df = long_df().assign(subject=lambda d: np.where(d["item"].isin(["q0", "q1"]), "math", "bio"))
    m = ScoreMatrix.from_long(df)
    assert m.groups == ("math", "math", "bio", "bio", "bio")
    assert len(set(m.group_codes.tolist())) == 2
    df.loc[0, "subject"] = "bio"
    with pytest.raises(DataError, match="item 'q0' is in group"):
        ScoreMatrix.from_long(df)


def test_duplicate_rows_named():
    df = pd.concat([long_df(), long_df().iloc[[4]]], ignore_index=True)
    with pytest.raises(DataError, match=r"duplicate row for model 'm0', item 'q4'"):
        ScoreMatrix.from_long(df)


@pytest.mark.parametrize("bad, match", [
    ("abc", "is not a number"),
    (np.nan, "missing"),
    (np.inf, "infinite"),
])
def test_bad_scores(bad, match):
    df = long_df().astype({"score": object})
    df.loc[2, "score"] = bad
    with pytest.raises(DataError, match=match):
        ScoreMatrix.from_long(df)


def test_missing_columns():
    with pytest.raises(DataError, match="missing column.*'score'"):
        ScoreMatrix.from_long(long_df().drop(columns="score"))


def test_align_policies():
    df = long_df().iloc[:-2]  # m2 misses two items
    m = ScoreMatrix.from_long(df)
    with pytest.raises(DataError, match="'m2' has 3"):
        m.align("error")
    mi = m.align("intersect")
    assert mi.n_items == 3 and mi.dropped == {"m0": 2, "m1": 2}
    mp = m.align("pairwise")
    assert mp.n_items == 5 and np.isnan(mp.scores).sum() == 2
    with pytest.raises(ValueError, match="`align` must be"):
        m.align("bogus")


def test_unknown_model_suggests():
    m = ScoreMatrix.from_long(long_df())
    with pytest.raises(DataError, match="did you mean 'm1'"):
        m.index_of("m1 ")


def test_wide_table():
    wide = pd.DataFrame({"item": ["a", "b", "c"], "X": [1, 0, 1], "Y": [0.5, 0.25, 1.0]})
    m = ScoreMatrix.from_wide(wide, item="item")
    assert m.models == ("X", "Y") and m.items == ("a", "b", "c")
    np.testing.assert_allclose(m.scores[1], [0.5, 0.25, 1.0])


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.integers(1, 8), st.randoms(use_true_random=False))
def test_item_row_order_does_not_matter(n_models, n_items, rnd):
    df = long_df(n_models, n_items, seed=rnd.randint(0, 1000))
    m1 = ScoreMatrix.from_long(df)
    perm = list(range(len(df)))
    rnd.shuffle(perm)
    m2 = ScoreMatrix.from_long(df.iloc[perm])
    m2 = m2.select(models=list(m1.models), items=list(m1.items))
    np.testing.assert_array_equal(m1.data, m2.data)


def test_swebench_real(swebench):
    assert swebench.shape == (25, 500, 1)
    counts = dict(zip(swebench.models, swebench.scores.sum(axis=1)))
    assert counts["Claude 4.5 Opus medium (20251101)"] == 372
    assert counts["Gemini 3 Pro Preview (2025-11-18)"] == 371
    assert len(set(swebench.groups)) == 12


def test_mmlupro_partial(mmlupro_path):
    with pytest.raises(DataError, match="'DeepSeek-Coder-V2' has 10351"):
        rt.read(mmlupro_path)
    m = rt.read(mmlupro_path, align="pairwise")
    n = dict(zip(m.models, (~np.isnan(m.scores)).sum(axis=1)))
    assert n["DeepSeek-Coder-V2"] == 10351 and n["gemini-1.5-pro-002"] == 12020 and n["Yi-6B"] == 12032
    ok = dict(zip(m.models, np.nansum(m.scores, axis=1)))
    assert ok["gemini-1.5-pro-002"] == 8444 and ok["Llama-2-7b-hf"] == 2207


def _naive_matrix(df, run=None, condition=None):
    """The reference of from_long: labels as text in first-seen order, one Python dict per cell."""
    def text(col):
        return [str(v) for v in df[col]]

    models, items = list(dict.fromkeys(text("model"))), list(dict.fromkeys(text("item")))
    runs = text(run) if run else ["0"] * len(df)
    keys = [f"{c}/{r}" for c, r in zip(text(condition), runs)] if condition else runs
    axis = list(dict.fromkeys(keys))
    out = np.full((len(models), len(items), len(axis)), np.nan)
    for mo, it, k, s in zip(text("model"), text("item"), keys, df["score"]):
        out[models.index(mo), items.index(it), axis.index(k)] = s
    return models, items, axis, out


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.booleans(), st.booleans(), st.booleans())
def test_from_long_matches_a_cell_by_cell_reference(seed, with_runs, with_conditions, numeric_labels):
    """Integer codes scattered into the array (issue 33) give the reference's labels, order and cells, with rows
    shuffled, cells missing, numeric or text labels, runs and conditions."""
    g = np.random.default_rng(seed)
    nm, ni, nr, nc = int(g.integers(1, 5)), int(g.integers(1, 7)), int(g.integers(1, 3)), int(g.integers(1, 3))
    rows = [(a, i, r, c) for a in range(nm) for i in range(ni) for r in range(nr if with_runs else 1)
            for c in range(nc if with_conditions else 1)]
    keep = g.random(len(rows)) < 0.8
    keep[0] = True
    rows = [rows[k] for k in g.permutation(np.flatnonzero(keep))]
    df = pd.DataFrame({"model": [a if numeric_labels else f"m{a}" for a, *_ in rows],
                       "item": [i * 10 if numeric_labels else f"q{i}" for _, i, *_ in rows],
                       "score": g.integers(0, 3, len(rows)) / 2})
    if with_runs:
        df["run"] = [str(r) for _, _, r, _ in rows]
    if with_conditions:
        df["condition"] = [f"c{c}" for *_, c in rows]
    m = ScoreMatrix.from_long(df)
    models, items, axis, ref = _naive_matrix(df, "run" if with_runs else None,
                                             "condition" if with_conditions else None)
    assert list(m.models) == models and list(m.items) == items
    if with_conditions:
        assert list(m.runs) == axis
    np.testing.assert_array_equal(m.data, ref)


def test_labels_that_read_the_same_as_text_are_one_label():
    """1 and '1' are the same model once labels are text: a duplicate row, named, as before the integer codes."""
    df = pd.DataFrame({"model": [1, "1", 2, 2], "item": ["a", "a", "a", "b"], "score": [1.0, 0.0, 1.0, 0.0]},
                      dtype=object).astype({"score": float})
    with pytest.raises(DataError, match=r"duplicate row for model '1', item 'a' \(first at row 0\) with a different "
                                        r"score \(1 there, 0 here\); 1 duplicate rows in all"):
        ScoreMatrix.from_long(df)
    ok = ScoreMatrix.from_long(df.iloc[1:].reset_index(drop=True), group=None)
    assert ok.models == ("1", "2") and ok.items == ("a", "b")
