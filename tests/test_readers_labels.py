"""Labels are labels (issue 21, QA D4): item ids, model names, groups, runs, conditions and tasks are read as the
text written, by every route: CSV, TSV, JSONL, Parquet, a DataFrame, the store, subset files and EEE output.
``1.1`` and ``1.10`` are two items; ``0010`` stays ``0010``; a 20-digit id is not rounded."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ranktrust as rt
from conftest import run_cli

BIG = "12345678901234567890"   # 20 digits: above int64, and a float64 would round it


def _ids_csv(tmp_path):
    p = tmp_path / "ids.csv"
    p.write_text("model,item,score\nm0,1.1,1\nm0,1.10,0\nm1,1.1,0\nm1,1.10,1\n")
    return p


def _lz_csv(tmp_path):
    """The QA's file: 3 models x 40 items with zero-padded ids 0000 .. 0039."""
    p = tmp_path / "lz.csv"
    p.write_text("model,item,score\n" + "".join(f"m{i},{k:04d},{(i * k + k // 3) % 2}\n"
                                                 for i in range(3) for k in range(40)))
    return p


def test_qa_d4_one_one_and_one_ten_are_two_items(tmp_path, capsys):
    p = _ids_csv(tmp_path)
    m = rt.read(p)
    assert m.items == ("1.1", "1.10")
    np.testing.assert_array_equal(m.scores, [[1, 0], [0, 1]])
    code, out, err = run_cli(capsys, "report", p, "--no-stability", "-f", "json")
    assert code == 0, err
    assert "duplicate" not in err


def test_qa_d4_zero_padded_ids_stay_padded(tmp_path, capsys):
    p = _lz_csv(tmp_path)
    assert rt.read(p).items[:3] == ("0000", "0001", "0002")
    out = tmp_path / "lz_subset.csv"
    code, _, err = run_cli(capsys, "microbench", p, "--select", "random", "--size", "3", "--seed", "0", "--out", out)
    assert code == 0, err
    sub = pd.read_csv(out, dtype=str)
    assert len(sub) == 3 and all(len(i) == 4 and i.isdigit() for i in sub["item"]), sub
    assert set(sub["item"]) <= set(rt.read(p).items)


def test_every_label_column_is_text_in_csv_and_tsv(tmp_path):
    rows = [("007", "0010", 1, "01", "02", "3.10"), ("007", "0011", 0, "01", "02", "3.10"),
            ("1e3", "0010", 0, "01", "02", "3.10"), ("1e3", "0011", 1, "01", "02", "3.10")]
    for sep, name in ((",", "t.csv"), ("\t", "t.tsv")):
        p = tmp_path / name
        p.write_text(sep.join(("model", "item", "score", "subject", "run", "task")) + "\n"
                     + "".join(sep.join(map(str, r)) + "\n" for r in rows))
        m = rt.read(p)
        assert m.models == ("007", "1e3") and m.items == ("0010", "0011"), name
        assert m.groups == ("01", "01") and m.runs == ("02",), name
        assert rt.read_long(p)["task"].tolist() == ["3.10"] * 4


def test_na_is_an_item_id_but_a_missing_score_is_still_missing(tmp_path):
    p = tmp_path / "na.csv"
    p.write_text("model,item,score\nA,NA,1\nA,None,0\nB,NA,0\nB,None,1\n")
    assert rt.read(p).items == ("NA", "None")
    q = tmp_path / "nascore.csv"
    q.write_text("model,item,score\nA,q1,NA\nA,q2,0\n")
    with pytest.raises(rt.DataError, match=r"nascore.csv: line 2: score is missing"):
        rt.read(q)
    e = tmp_path / "empty_item.csv"
    e.write_text("model,item,score\nA,,1\nA,q2,0\n")
    with pytest.raises(rt.DataError, match=r"line 2: the 'item' column is empty"):
        rt.read(e)


def test_twenty_digit_ids_exact_in_csv_jsonl_and_parquet(tmp_path):
    ids = [BIG, "98765432109876543210", "00000000000000000001"]
    c = tmp_path / "big.csv"
    c.write_text("model,item,score\n" + "".join(f"{m},{i},{k % 2}\n" for m in ("A", "B") for k, i in enumerate(ids)))
    assert rt.read(c).items == tuple(ids)
    # JSONL: ids written as JSON numbers (not strings) keep their digits; "1.10" stays "1.10"
    j = tmp_path / "big.jsonl"
    j.write_text("".join(f'{{"model": "A", "item": {i}, "score": {k % 2}, "extra": {{"x": 1.5}}}}\n'
                         for k, i in enumerate((BIG, "98765432109876543210", "1.1", "1.10"))))
    m = rt.read(j)
    assert m.items == (BIG, "98765432109876543210", "1.1", "1.10")
    np.testing.assert_array_equal(m.scores, [[0, 1, 0, 1]])
    long = rt.read_long(j)
    assert long["score"].tolist() == [0, 1, 0, 1] and long["extra"].tolist()[0] == {"x": 1.5}
    # Parquet: an unsigned 64-bit column (20 digits) and a decimal column are cast to their exact text
    t = pa.table({"model": pa.array([1, 1, 2, 2], pa.int64()),
                  "item": pa.array([int(BIG), 1, int(BIG), 1], pa.uint64()),
                  "score": [1.0, 0.0, 0.0, 1.0]})
    p = tmp_path / "big.parquet"
    pq.write_table(t, p)
    m = rt.read(p)
    assert m.models == ("1", "2") and m.items == (BIG, "1")


def test_a_dataframe_with_integer_ids(tmp_path):
    df = pd.DataFrame({"model": [7, 7, 8, 8], "item": [10, 11, 10, 11], "score": [1, 0, 0, 1]})
    m = rt.read(df)
    assert m.models == ("7", "8") and m.items == ("10", "11")


def test_store_keeps_ids_as_text(tmp_path):
    csv = _lz_csv(tmp_path)
    par = tmp_path / "big.parquet"
    pq.write_table(pa.table({"model": ["A", "A", "B", "B"],
                             "item": pa.array([int(BIG), 7, int(BIG), 7], pa.uint64()),
                             "score": [1.0, 0.0, 0.0, 1.0]}), par)
    db = str(tmp_path / "s.duckdb")
    with rt.Store(db) as st:
        st.ingest([str(csv), str(par)])
    with rt.Store(db, read_only=True) as st:
        assert st.matrix(task="lz").items[:3] == ("0000", "0001", "0002")
        assert set(st.matrix(task="big").items) == {BIG, "7"}
        types = dict(st.con.execute("SELECT column_name, data_type FROM information_schema.columns "
                                    "WHERE table_name = 'results'").fetchall())
    assert types["item"] == types["model"] == types["run"] == types["task"] == "VARCHAR"


def test_eee_output_keeps_ids(tmp_path):
    m = rt.read(_ids_csv(tmp_path))
    lz = rt.read(_lz_csv(tmp_path))
    res = rt.write_eee(m, tmp_path / "a", task="ids", timestamp=1)
    ids = {json.loads(line)["sample_id"] for f in res.files[1::2] for line in Path(f).read_text(encoding="utf-8").splitlines()}
    assert ids == {"1.1", "1.10"}
    assert set(rt.read(str(tmp_path / "a")).items) == {"1.1", "1.10"}
    rt.write_eee(lz, tmp_path / "b", task="lz", timestamp=1)
    assert rt.read(str(tmp_path / "b")).items[:3] == ("0000", "0001", "0002")


def test_float_ids_in_parquet_read_and_ingested_alike(tmp_path):
    """A Parquet file whose item column is float (1.1, 10.0) has no text to keep: rt.read and the store write the
    same labels (Arrow's: 10.0 -> '10')."""
    p = tmp_path / "f.parquet"
    pq.write_table(pa.table({"model": ["A", "A", "B", "B"], "item": [1.1, 10.0, 1.1, 10.0],
                             "score": [1.0, 0.0, 0.0, 1.0]}), p)
    m = rt.read(p)
    assert m.items == ("1.1", "10")
    db = str(tmp_path / "s.duckdb")
    with rt.Store(db) as st:
        st.ingest(str(p))
    with rt.Store(db, read_only=True) as st:
        assert st.matrix(task="f").items == m.items


def test_wide_tables_keep_item_ids(tmp_path):
    """Wide layout (one row per item, one column per model): the item column (named, or the first) is text."""
    p = tmp_path / "w.csv"
    p.write_text("item,A,B\n0010,1,0\n1.10,0,1\n1.1,1,1\n")
    assert rt.read(p).items == ("0010", "1.10", "1.1")
    q = tmp_path / "w2.csv"
    q.write_text("q,A,B\n0010,1,0\n1.10,0,1\n")
    assert rt.read(q).items == ("0010", "1.10")
