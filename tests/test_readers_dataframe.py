"""``rt.read`` on a DataFrame: what its errors call it (``source_name``) and how they number its rows
(``line_numbers``), so a caller that read the frame from a file gets "tasks.csv: line 17", not "DataFrame: row 15"."""

from __future__ import annotations

import io

import pandas as pd
import pytest

import ranktrust as rt

CSV = "model,item,score\na,q1,1\na,q2,0\nb,q1,x\nb,q2,1\n"     # the bad score is on line 4 of the file


def test_by_default_rows_are_named_by_position():
    with pytest.raises(rt.DataError, match=r"^DataFrame: row 2: score 'x' is not a number"):
        rt.read(pd.read_csv(io.StringIO(CSV)))


def test_a_name_and_an_offset_name_the_file_and_its_line():
    with pytest.raises(rt.DataError, match=r"^tasks\.csv: line 4: score 'x' is not a number"):
        rt.read(pd.read_csv(io.StringIO(CSV)), source_name="tasks.csv", line_numbers=2)


def test_the_index_can_hold_the_lines():
    """A part of a bigger file (one task's rows) keeps each row's line in its index."""
    whole = pd.read_csv(io.StringIO("task,model,item,score\nt1,a,q1,1\nt2,a,q1,0\nt2,b,q1,7\n"))
    whole.index = whole.index + 2
    part = whole[whole["task"] == "t2"].drop(columns=["task"])
    with pytest.raises(rt.DataError, match=r"^tasks\.csv: line 4: score 7 for model 'b' is outside \[0, 1\]"):
        rt.read(part, source_name="tasks.csv", line_numbers="index")


def test_a_duplicate_names_both_lines():
    df = pd.DataFrame({"model": ["a", "a", "a"], "item": ["q1", "q2", "q1"], "score": [1, 0, 1]})
    with pytest.raises(rt.DataError, match=r"^t\.csv: line 4: duplicate row .* \(first at line 2\)"):
        rt.read(df, source_name="t.csv", line_numbers=2)


def test_a_good_frame_reads_the_same_with_or_without_names():
    df = pd.read_csv(io.StringIO(CSV.replace(",x", ",1")))
    a = rt.read(df)
    b = rt.read(df, source_name="tasks.csv", line_numbers=2)
    assert (a.models, a.items) == (b.models, b.items)
    assert (a.data == b.data).all()


@pytest.mark.parametrize("kw, match", [
    ({"line_numbers": "index"}, "unique integers"),
    ({"line_numbers": 1.5}, "must be an int"),
    ({"line_numbers": True}, "must be an int"),
])
def test_bad_line_numbers_are_refused(kw, match):
    df = pd.DataFrame({"model": ["a"], "item": ["q"], "score": [1]}, index=["r"])
    with pytest.raises(rt.ArgumentError, match=match) as info:
        rt.read(df, **kw)
    assert info.value.param == "line_numbers"


def test_a_path_names_its_own_rows(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text(CSV.replace(",x", ",1"))
    with pytest.raises(rt.ArgumentError, match="a file names its own") as info:
        rt.read(p, source_name="other.csv")
    assert info.value.param == "source_name"


# ------------------------------------------------------------------- the reader options as one object
def test_options_read_as_the_keywords_do(tmp_path):
    from ranktrust.data.readers import ReadOptions

    p = tmp_path / "s.csv"
    p.write_text("who,item,score,task\na,q1,1,t1\na,q2,0,t1\nb,q1,1,t1\nb,q2,1,t1\na,q1,0,t2\nb,q1,1,t2\n")
    by_keywords = rt.read(p, model="who", task="t1")
    by_options = rt.read(p, options=ReadOptions(model_col="who", task="t1"))
    assert (by_options.models, by_options.items) == (by_keywords.models, by_keywords.items)
    assert by_options.items == ("q1", "q2")
    assert (by_options.data == by_keywords.data).all()
    frame = rt.read(pd.read_csv(p), options=ReadOptions(model_col="who", task="t2"))
    assert frame.items == ("q1",)


def test_options_and_reader_keywords_together_are_refused():
    from ranktrust.data.readers import ReadOptions

    df = pd.DataFrame({"who": ["a"], "item": ["q"], "score": [1]})
    with pytest.raises(rt.ArgumentError, match=r"not both \(`model`, `task` given beside `options`\)") as info:
        rt.read(df, options=ReadOptions(model_col="who"), model="who", task="t")
    assert (info.value.param, info.value.data) == ("options", {"keywords": ["model_col", "task"]})
    with pytest.raises(TypeError, match="ReadOptions"):
        rt.read(df, options={"model_col": "who"})
