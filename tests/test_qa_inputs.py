"""Findings of the newcomer QA (shared/reviews/newcomer-qa-2026-11.md) about input that is wrong.

Each test is named after the finding it covers (H4, M10, L5, L11, bad-input table row 22).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranktrust as rt
from conftest import run_cli, shared_file
from ranktrust._text import display_name, needs_escaping
from ranktrust.reporting import note_text


cli = run_cli   # tests/conftest.py


def one_error(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def write(path: Path, rows, header: str = "model,item,score", sep: str = ",") -> Path:
    path.write_text(header.replace(",", sep) + "\n" + "".join(sep.join(map(str, r)) + "\n" for r in rows))
    return path


def table(tmp_path: Path, name: str, fn) -> Path:  # noqa: ANN001
    """3 models x 20 items, score fn(model index, item index)."""
    return write(tmp_path / name, [(f"m{a}", f"q{i}", fn(a, i)) for a in range(3) for i in range(20)])


# ---------------------------------------------------------------------------------------------- H4


def test_qa_h4_missing_shared_data_skips_outside_ci(monkeypatch):
    monkeypatch.delenv("RANKTRUST_REQUIRE_ALL", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"needs \.\./shared/data/no-such-file\.csv"):
        shared_file("no-such-file.csv")


def test_qa_h4_missing_shared_data_fails_in_ci(monkeypatch):
    monkeypatch.setenv("RANKTRUST_REQUIRE_ALL", "1")
    with pytest.raises(pytest.fail.Exception, match="RANKTRUST_REQUIRE_ALL=1"):
        shared_file("no-such-file.csv")


def test_qa_h4_real_data_tests_run_on_a_fresh_clone(gpqa_path, mmlupro_path):
    """GPQA (MIT) is bundled in tests/data, MMLU-Pro in the package: neither needs ../shared."""
    root = Path(__file__).resolve().parents[1]
    assert gpqa_path.is_relative_to(root) and mmlupro_path.is_relative_to(root)
    m = rt.read(gpqa_path)
    assert (m.n_models, m.n_items) == (420, 448)
    assert "MIT" in (root / "tests" / "data" / "README.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------- M10


def test_qa_m10_percent_scores_refused(capsys, tmp_path):
    p = table(tmp_path, "percent.csv", lambda a, i: 100 * ((a + i) % 2) if i else 62.5)
    for cmd in (["report"], ["compare", "--a", "m0", "--b", "m1"]):
        code, out, err = cli(capsys, cmd[0], p, *cmd[1:])
        line = one_error(err)
        assert code == 1 and not out
        assert "percent.csv: line 2" in line and "outside [0, 1]" in line, line
        assert "divide by 100 or pass --scale 100" in line, line   # the terminal's words


def test_qa_m10_scale_100_reads_percentages(capsys, tmp_path):
    p = table(tmp_path, "percent.csv", lambda a, i: 100 * ((a + i) % 2))
    q = table(tmp_path, "frac.csv", lambda a, i: (a + i) % 2)
    code, out, _ = cli(capsys, "report", p, "--scale", "100", "--no-stability", "-f", "json")
    assert code == 0
    code2, out2, _ = cli(capsys, "report", q, "--no-stability", "-f", "json")
    assert code2 == 0
    s1 = {r["model"]: r["score"] for r in json.loads(out)["models"]}
    s2 = {r["model"]: r["score"] for r in json.loads(out2)["models"]}
    assert s1 == pytest.approx(s2)
    # Python: the same keyword
    assert np.array_equal(rt.read(p, scale=100).scores, rt.read(q).scores)
    df = pd.read_csv(p)
    assert np.array_equal(rt.read(df, scale=100).scores, rt.read(q).scores)
    with pytest.raises(rt.DataError, match="`scale` must be a positive number"):
        rt.read(p, scale=0)


@pytest.mark.parametrize("bad, needle", [(1.5, "score 1.5"), (-0.2, "score -0.2")])
def test_qa_m10_scores_outside_unit_interval_refused(capsys, tmp_path, bad, needle):
    p = table(tmp_path, "bad.csv", lambda a, i: bad if (a, i) == (1, 7) else (a + i) % 2)
    code, _, err = cli(capsys, "report", p)
    line = one_error(err)
    assert code == 1 and "bad.csv: line 29" in line and needle in line and "model 'm1'" in line, line
    assert "[0, 1]" in line


@pytest.mark.parametrize("bad", ["-1e308", "1e30", "inf", "-inf"])
def test_qa_m10_infinite_and_huge_scores_refused(capsys, tmp_path, bad):
    p = table(tmp_path, "huge.csv", lambda a, i: bad if (a, i) == (2, 0) else (a + i) % 2)
    code, out, err = cli(capsys, "compare", p, "--a", "m0", "--b", "m2")
    line = one_error(err)
    assert code == 1 and not out and "huge.csv: line 42" in line, line
    assert "overflow" not in err and "note:" not in err
    # Python, bypassing the readers
    with pytest.raises(rt.DataError):
        rt.ScoreMatrix.from_array(np.array([[0.0, 1.0], [float(bad), 1.0]]))


def test_qa_m10_wide_table_out_of_range_refused(tmp_path):
    wide = pd.DataFrame({"item": ["q1", "q2"], "A": [100, 0], "B": [80, 20]})
    with pytest.raises(rt.DataError, match=r"model column 'A', item 'q1'.*divide by 100"):
        rt.ScoreMatrix.from_wide(wide, item="item")
    p = tmp_path / "wide.csv"
    wide.to_csv(p, index=False)
    with pytest.raises(rt.DataError, match=r"outside \[0, 1\].*divide by 100 or pass `scale`=100") as exc:
        rt.read(p)   # the Python words
    assert exc.value.param == "scale"
    assert rt.read(p, scale=100).scores.max() == 1.0


# ---------------------------------------------------------------------------------------------- row 22


def test_qa_bad_input_22_mixed_binary_and_continuous_models_noted(capsys, tmp_path):
    p = table(tmp_path, "mixed.csv", lambda a, i: (a + i) % 2 if a < 2 else 0.25 * (i % 5))
    m = rt.read(p)
    (note,) = [note_text(n) for n in m.notes if n.code == "mixed_scoring"]   # a record (issue 23 §1)
    assert "'m0', 'm1'" in note and "'m2'" in note, note
    code, out, _ = cli(capsys, "report", p, "--no-stability")
    assert code == 0 and "mixed scoring" in out
    # all binary, or all continuous: nothing to say
    assert not rt.read(table(tmp_path, "b.csv", lambda a, i: (a + i) % 2)).notes
    assert not rt.read(table(tmp_path, "c.csv", lambda a, i: 0.5)).notes


# ---------------------------------------------------------------------------------------------- L5


@pytest.mark.parametrize("sep, name, needle", [
    (";", "semi.csv", "semicolons (;)"),
    ("\t", "tabs.csv", "tabs"),
])
def test_qa_l5_wrong_delimiter_named(capsys, tmp_path, sep, name, needle):
    p = write(tmp_path / name, [(f"m{a}", f"q{i}", (a + i) % 2) for a in range(2) for i in range(5)], sep=sep)
    code, _, err = cli(capsys, "report", p)
    line = one_error(err)
    assert code == 1 and name in line and needle in line and "no model columns" not in line, line


# ---------------------------------------------------------------------------------------------- L11


def test_qa_l11_names_differing_by_case_or_whitespace_warned(capsys, tmp_path):
    names = ["Model A", "Model A ", " Model A", "model a", "Model B"]
    p = write(tmp_path / "names.csv", [(f'"{n}"', f"q{i}", (k + i) % 2) for k, n in enumerate(names) for i in range(10)])
    with pytest.warns(UserWarning, match="differ only by case, whitespace or Unicode form") as rec:
        m = rt.read(p)
    assert m.models == tuple(names)  # kept apart, exactly
    msg = str(rec[0].message)
    assert all(repr(n) in msg for n in names[:4]) and "'Model B'" not in msg
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rt.read(write(tmp_path / "ok.csv", [(n, f"q{i}", i % 2) for n in ("A", "B") for i in range(4)]))
    code, _, err = cli(capsys, "report", p, "--no-stability")
    assert code == 0 and "warning:" in err and "differ only by case, whitespace or Unicode form" in err


HOSTILE = ["gpt\u202e4-evil", "esc\x1b[31mred", "tab\there", "zero\u200bwidth", "plain-name", "Ünïcødé 模型"]


def test_qa_l11_control_and_bidi_names_kept_exact_shown_escaped(capsys, tmp_path):
    df = pd.DataFrame([(n, f"q{i}", (k + i) % 2) for k, n in enumerate(HOSTILE) for i in range(10)],
                      columns=["model", "item", "score"])
    p = tmp_path / "hostile.parquet"
    df.to_parquet(p)
    m = rt.read(p)
    assert m.models == tuple(HOSTILE)
    # JSON keeps the exact names
    code, out, _ = cli(capsys, "report", p, "--no-stability", "-f", "json")
    assert code == 0 and {r["model"] for r in json.loads(out)["models"]} == set(HOSTILE)
    # the store keeps them exactly
    db = tmp_path / "s.duckdb"
    code, _, _ = cli(capsys, "ingest", p, "--db", db)
    assert code == 0
    from ranktrust.data.store import Store

    assert set(Store(str(db), read_only=True).matrix().models) == set(HOSTILE)
    # the terminal form escapes control and bidirectional characters, and leaves ordinary text alone
    shown = [display_name(n) for n in HOSTILE]
    assert shown[0] == "gpt\\u202e4-evil" and shown[1] == "esc\\x1b[31mred" and shown[2] == "tab\\there"
    assert shown[3] == "zero\\u200bwidth" and shown[4:] == HOSTILE[4:]
    assert not any(needs_escaping(s) for s in shown)
    assert display_name("\u2066iso\u2069 \u200e\u200f") == "\\u2066iso\\u2069 \\u200e\\u200f"


# ---------------------------------------------------------------------------------------------- M5


@pytest.mark.parametrize("kind", ["parquet", "csv", "memory"])
def test_qa_m5_ingest_into_a_non_store_refused(capsys, tmp_path, kind):
    src = table(tmp_path, "in.csv", lambda a, i: (a + i) % 2)
    if kind == "memory":
        db = ":memory:"
    else:
        db = tmp_path / f"victim.{kind}"
        pd.DataFrame({"a": [1, 2]}).to_parquet(db) if kind == "parquet" else db.write_text("a\n1\n")
        before = db.read_bytes()
    code, out, err = cli(capsys, "ingest", src, "--db", db)
    line = one_error(err)
    assert code == 1 and "rows added" not in out + err, out + err
    assert ("in-memory" in line) if kind == "memory" else ("not a DuckDB store" in line and "victim" in line), line
    if kind != "memory":
        assert db.read_bytes() == before  # untouched
    from ranktrust.data.store import Store

    with pytest.raises(rt.FormatError if kind != "memory" else rt.DataError):
        Store(str(db))
    # a new path still becomes a store
    code, out, _ = cli(capsys, "ingest", src, "--db", tmp_path / "ok.duckdb")
    assert code == 0 and "60 rows added" in out


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_qa_m10_store_refuses_percent_scores(capsys, tmp_path, suffix):
    df = pd.DataFrame([(f"m{a}", f"q{i}", 100.0 * ((a + i) % 2)) for a in range(2) for i in range(10)],
                      columns=["model", "item", "score"])
    p = tmp_path / f"pct.{suffix}"
    df.to_csv(p, index=False) if suffix == "csv" else df.to_parquet(p)
    code, out, err = cli(capsys, "ingest", p, "--db", tmp_path / "s.duckdb")
    line = one_error(err)
    assert code == 1 and "outside [0, 1]" in line and "divide by 100" in line and "pct." in line, line


# ---------------------------------------------------------------------------------------------- README (install)


def test_qa_readme_install_version_flag(capsys):
    """README "Install": `ranktrust --version` prints the package version."""
    code, out, _ = cli(capsys, "--version")
    assert code == 0 and out.strip() == f"ranktrust, version {rt.__version__}"
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    for needle in ("pip install ranktrust", "pip install -e .", '".[score]"', '".[scale]"', "Python 3.10",
                   "ranktrust --version", "--scale 100", "make test-fast"):
        assert needle in readme, needle


def test_qa_l5_jsonl_with_wrong_fields_names_them(capsys, tmp_path):
    p = tmp_path / "wrong.jsonl"
    p.write_text("".join(json.dumps({"name": n, "question": q, "correct": 1}) + "\n" for n in "ab" for q in "12"))
    code, _, err = cli(capsys, "report", p)
    line = one_error(err)
    assert code == 1 and "'name', 'question', 'correct'" in line and "duplicate" not in line, line


def test_qa_l5_truncated_eval_log_says_so(capsys, tmp_path):
    p = tmp_path / "cut.eval"
    p.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    code, _, err = cli(capsys, "report", p)
    line = one_error(err)
    assert code == 1 and "cut.eval" in line and "truncated" in line and "could not tell the format" not in line, line


# ---------------------------------------------------------------------------------------------- M11 (store)


def test_qa_m11_failed_ingest_leaves_nothing_for_the_retry(capsys, tmp_path):
    """A folder ingest that fails on a later file rolls back the earlier ones, so the retry starts clean."""
    good = table(tmp_path, "a_good.csv", lambda a, i: (a + i) % 2)
    bad = table(tmp_path, "b_bad.csv", lambda a, i: 50 if i == 3 else (a + i) % 2)
    db = tmp_path / "s.duckdb"
    code, out, err = cli(capsys, "ingest", good, bad, "--db", db)
    line = one_error(err)
    assert code == 1 and "b_bad.csv" in line and "the 1 files before it were rolled back too" in line, line
    assert not db.exists()   # the store this command created holds nothing, so it is not left behind (issue 31 D6)
    bad.write_text(bad.read_text().replace(",50\n", ",0.5\n"))
    code, out, err = cli(capsys, "ingest", good, bad, "--db", db)
    assert code == 0 and "2 added" in out and "120 rows added" in out, out + err


def test_qa_bad_input_9_conflicting_duplicate_says_so(capsys, tmp_path):
    p = write(tmp_path / "dup.csv", [("A", "q1", 1), ("A", "q2", 0), ("B", "q1", 0), ("B", "q2", 1), ("A", "q1", 0)])
    code, _, err = cli(capsys, "report", p)
    line = one_error(err)
    assert "line 6: duplicate row for model 'A', item 'q1' (first at line 2) with a different score (1 there, 0 here)" \
        in line, line
    p2 = write(tmp_path / "same.csv", [("A", "q1", 1), ("A", "q2", 0), ("A", "q1", 1)])
    assert "different score" not in one_error(cli(capsys, "report", p2)[2])


def test_qa_l8_every_row_needs_an_item(capsys, tmp_path):
    p = tmp_path / "noitem.csv"
    p.write_text("model,item,score\nA,q1,1\nA,,0\n")
    line = one_error(cli(capsys, "report", p)[2])
    assert "every row needs an item" in line, line


# ------------------------------------------------------------------ newcomer QA 2026-12 (issue 21): D14, D15, D20, D21
def test_qa_d14_header_only_inspect_log_skipped_with_errors_drop(capsys, tmp_path):
    """A header-only log in a folder blocks the folder by default (the error names the way out); with
    --errors drop it is skipped with a note naming it, in rt.read and in ingest. Never silently."""
    import shutil

    real = shared_file("harness-logs/real/inspect/eee/tests/data/inspect")
    d = tmp_path / "logs"
    d.mkdir()
    for f in ("data_arc_qwen.json", "data_arc_sonnet.json", "data_with_llm_scoring.json"):
        shutil.copy(real / f, d / f)
    code, _, err = cli(capsys, "report", d, "--align", "pairwise", "--no-stability")
    line = one_error(err)
    assert code == 1 and "data_with_llm_scoring.json" in line and "holds only the header" in line, line
    assert "--errors drop to skip such logs in a folder" in line, line
    m = rt.read(str(d), errors="drop", align="pairwise")
    assert m.n_models == 2
    (rec,) = [n for n in m.notes if n.code == "inspect_header_only"]   # a record (issue 23 §1)
    assert dict(rec.data) == {"path": str(d / "data_with_llm_scoring.json"), "n_samples": 1000}
    assert note_text(rec) == (f"{d / 'data_with_llm_scoring.json'} holds only the header of an inspect log and no "
                              "per-sample scores (its header reports 1,000 samples): skipped (`errors`='drop')")
    code, out, err = cli(capsys, "ingest", d, "--db", tmp_path / "s.duckdb", "--errors", "drop")
    assert code == 0, err
    flat = " ".join((out + err).split())
    assert "1 skipped" in out and "holds only the header" in flat
    assert "(--errors drop)" in flat and "`errors`" not in flat   # the reason and the note in the command's words
    # a header-only log named on its own is still an error: there is nothing else to read
    with pytest.raises(rt.DataError, match="holds only the header"):
        rt.read(str(d / "data_with_llm_scoring.json"), errors="drop")


def test_qa_d15_task_with_aggregates_but_no_samples(capsys, tmp_path):
    real = shared_file("harness-logs/real/lm_eval")
    for cmd in (["report", real, "--task", "math_rephrased_full"],
                ["ingest", real, "--task", "math_rephrased_full", "--db", tmp_path / "s.duckdb"]):
        code, _, err = cli(capsys, *cmd)
        line = one_error(err)
        assert code == 1 and "task 'math_rephrased_full' has only aggregate scores (in " in line, line
        assert "no samples file samples_math_rephrased_full_*.jsonl" in line and "available: math_perturbed_full" in line
    code, _, err = cli(capsys, "report", real, "--task", "nosuchtask")
    assert code == 1 and "no task 'nosuchtask'; available: math_perturbed_full" in one_error(err)


def test_qa_d20_dataframe_corner_cases():
    pl = pytest.importorskip("polars")
    df = pd.DataFrame({"model": ["A", "A", "B", "B"], "item": ["q1", "q2", "q1", "q2"], "score": [1, 0, 0, 1]})
    long = rt.read_long(df)
    assert list(long.columns) == ["model", "item", "score"] and len(long) == 4
    wide = pd.DataFrame({"item": ["q1", "q2"], "A": [1, 0], "B": [0, 1]})
    assert sorted(map(tuple, rt.read_long(wide)[["model", "item", "score"]].values.tolist())) == \
        sorted(map(tuple, long.values.tolist()))
    lazy = pl.from_pandas(df).lazy()
    assert rt.read_long(lazy).shape == (4, 3)
    assert rt.read(lazy).models == ("A", "B")
    with pytest.raises(rt.DataError, match=r"`source` must be a path, a list of paths or a DataFrame, not int"):
        rt.read_long(3)
    # a duplicate after pd.concat (index labels 0, 1, 2, 3, 1) is named by position
    dup = pd.concat([df, df.iloc[[1]]])
    with pytest.raises(rt.DataError, match=r"DataFrame: row 4: duplicate row for model 'A', item 'q2' \(first at row 1\)"):
        rt.read(dup)


@pytest.mark.parametrize("name", ["new.parquet", "new.csv", "new.jsonl", "new.csv.gz"])
def test_qa_d21_new_store_named_like_a_data_file_refused(capsys, tmp_path, name):
    src = table(tmp_path, "in.csv", lambda a, i: (a + i) % 2)
    db = tmp_path / name
    code, out, err = cli(capsys, "ingest", src, "--db", db)
    line = one_error(err)
    assert code == 1 and "a store path must not end in ." in line and "new.duckdb" in line, line
    assert not db.exists()
    with pytest.raises(rt.FormatError, match="a store path must not end in"):
        rt.Store(str(db))


def test_qa_d14_the_qa_command(capsys):
    """`ranktrust report ../shared/data/harness-logs/real/inspect --errors drop`: the header-only log no longer stops
    it (the folder holds four tasks, so it asks for one); with a task it reads."""
    real = shared_file("harness-logs/real/inspect")
    code, _, err = cli(capsys, "report", real, "--errors", "drop", "--no-stability")
    line = one_error(err)
    assert code == 1 and "holds only the header" not in line and "pick one with --task" in line, line
    code, out, err = cli(capsys, "report", real, "--errors", "drop", "--task", "inspect_evals/arc_easy", "--align",
                         "pairwise", "--no-stability", "-f", "json")
    assert code == 0, err


def test_names_that_look_the_same_warned_on_the_score_path_as_in_arena():
    """'é' as one character and as 'e' + a combining accent, a name with a newline: one similar_names warning, the
    same key as arena's (both call data._long.warn_similar_names); each name shown with ascii()."""
    import pandas as pd

    names = ["\u00e9val", "e\u0301val", "nl\nname", "nl name", "other"]
    df = pd.DataFrame([{"model": n, "item": f"q{i}", "score": float((k + i) % 2)}
                       for k, n in enumerate(names) for i in range(6)])
    with pytest.warns(rt.errors.RanktrustWarning, match="differ only by case, whitespace or Unicode form") as rec:
        m = rt.read(df)
    assert m.models == tuple(names)   # kept apart
    (w,) = [r.message for r in rec if getattr(r.message, "code", None) == "similar_names"]
    assert sorted(map(sorted, w.data["groups"])) == sorted([sorted(names[:2]), sorted(names[2:4])])
    assert "'\\xe9val'" in str(w) and "'e\\u0301val'" in str(w)
