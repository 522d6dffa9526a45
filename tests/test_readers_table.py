"""Plain tables: the same results read alike from CSV, CSV.gz, TSV, Parquet, JSONL, wide and DataFrame."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

import ranktrust as rt


@pytest.fixture(scope="module")
def long_df(swebench_path):
    return pd.read_csv(swebench_path)[["model", "item", "score", "subject"]]


def _write_all(df: pd.DataFrame, d) -> dict[str, str]:
    paths = {}
    paths["csv"] = str(d / "r.csv")
    df.to_csv(paths["csv"], index=False)
    paths["csv.gz"] = str(d / "r.csv.gz")
    with gzip.open(paths["csv.gz"], "wt") as fh:
        df.to_csv(fh, index=False)
    paths["tsv"] = str(d / "r.tsv")
    df.to_csv(paths["tsv"], index=False, sep="\t")
    paths["parquet"] = str(d / "r.parquet")
    df.to_parquet(paths["parquet"], index=False)
    paths["jsonl"] = str(d / "r.jsonl")
    with open(paths["jsonl"], "w") as fh:
        for rec in df.to_dict("records"):
            fh.write(json.dumps(rec) + "\n")
    wide = df.pivot(index="item", columns="model", values="score").reset_index()
    paths["wide"] = str(d / "wide.csv")
    wide.to_csv(paths["wide"], index=False)
    return paths


def test_every_format_gives_the_same_matrix(long_df, tmp_path):
    ref = rt.read(long_df)
    for kind, path in _write_all(long_df, tmp_path).items():
        m = rt.read(path)
        m = m.select(models=list(ref.models), items=list(ref.items))
        np.testing.assert_array_equal(m.scores, ref.scores, err_msg=kind)
        if kind != "wide":
            assert m.groups == ref.groups, kind


def test_jsonl_truncated_line_named(tmp_path):
    p = tmp_path / "cut.jsonl"
    p.write_text('{"model": "A", "item": "q1", "score": 1}\n{"model": "A", "item": "q2", "sc')
    with pytest.raises(rt.DataError, match=r"cut.jsonl: line 2 is not valid JSON"):
        rt.read(p)


def test_custom_column_names(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text("system,question,correct\nA,q1,1\nA,q2,0\nB,q1,1\nB,q2,1\n")
    m = rt.read(p, model="system", item="question", score="correct")
    assert m.models == ("A", "B") and m.scores.sum() == 3


def test_doc_hash_mismatch_across_files(tmp_path):
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("model,item,score,doc_hash\nA,q1,1,h1\nA,q2,0,h2\n")
    b.write_text("model,item,score,doc_hash\nB,q1,1,h1\nB,q2,0,hX\n")
    with pytest.raises(rt.DataError, match=r"item 'q2' has different content hashes"):
        rt.read([a, b])


def test_long_table_with_other_names_is_not_taken_as_wide(tmp_path):
    """name,question,correct: no model/score column and text in non-first columns -> the error says it
    looks like a long table and names the options (not "model column 'question' holds 'q1'")."""
    p = tmp_path / "c.csv"
    p.write_text("name,question,correct\nA,q1,1\nA,q2,0\nB,q1,1\nB,q2,1\n")
    with pytest.raises(rt.DataError) as exc:
        rt.read(p)
    msg = str(exc.value)
    assert "looks like a long table with other column names" in msg
    assert "Name them with `model`, `item` and `score`" in msg and exc.value.param == "model"
    from ranktrust.cli._main import cli_words   # the terminal's view of the same message

    assert "Name them with --model-col, --item-col and --score-col" in cli_words(msg)
    assert "'name', 'question', 'correct'" in msg and "holds 'q1'" not in msg
    assert len(msg.splitlines()) == 1
    m = rt.read(p, model="name", item="question", score="correct")
    assert m.models == ("A", "B") and m.scores.sum() == 3


def test_wide_table_with_one_bad_cell_keeps_the_cell_message(tmp_path):
    p = tmp_path / "w.csv"
    p.write_text("item,A,B\nq1,1,0\nq2,x,1\nq3,1,1\n")
    with pytest.raises(rt.DataError, match=r"line 3: model column 'A' holds 'x', not a number"):
        rt.read(p)


@pytest.mark.parametrize("kind", ["csv", "parquet", "frame"])
def test_a_table_without_model_item_score_columns_says_so(tmp_path, kind):
    """QA D5: `foo,bar / 1,2` has none of the three columns; read as a wide table (the README's rule) it fails on
    the value, and the error says both readings: no model/item/score columns first, then the wide reading."""
    df = pd.DataFrame({"foo": [1], "bar": [2]})
    src = {"csv": tmp_path / "x.csv", "parquet": tmp_path / "x.parquet", "frame": df}[kind]
    if kind == "csv":
        src.write_text("foo,bar\n1,2\n")
    elif kind == "parquet":
        df.to_parquet(src, index=False)
    with pytest.raises(rt.DataError) as exc:
        rt.read(src)
    msg = str(exc.value)
    assert "no model/item/score columns; found foo, bar." in msg and exc.value.param == "model"
    assert "Read as a wide table" in msg and "item ids in the first column 'foo'" in msg
    assert "score 2 for model 'bar' is outside [0, 1]" in msg and "row 0" not in msg
    assert len(msg.splitlines()) == 1
    # a wide table with its item column keeps the value's own message (percentages)
    p = tmp_path / "w.csv"
    p.write_text("item,gpt,claude\nq1,85,90\nq2,40,60\n")
    with pytest.raises(rt.DataError, match="these look like percentages") as exc2:
        rt.read(p)
    assert "no model/item/score columns" not in str(exc2.value)
    # and a 0/1 table of that shape is a wide table, read as one
    q = tmp_path / "ok.csv"
    q.write_text("foo,bar\n1,0\n2,1\n")
    assert rt.read(q).models == ("bar",)
