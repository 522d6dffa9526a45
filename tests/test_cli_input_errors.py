"""Bad input on the command line: one clear line, exit code 1, no traceback, nothing written."""

from __future__ import annotations

import gzip
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli_completed


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return run_cli_completed(*args, cwd=cwd)   # in-process: this file is part of make test-fast


def assert_clean_error(r: subprocess.CompletedProcess, *needles: str) -> None:
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: ")
    for n in needles:
        assert n in lines[0], (n, lines[0])


GOOD = "model,item,score\nA,q1,1\nA,q2,0\nB,q1,0\nB,q2,1\n"


@pytest.mark.parametrize("name, content, needles", [
    ("missing.csv", "model,item,value\nA,q1,1\n", ["missing.csv", "missing column(s) 'score'"]),
    ("notnum.csv", "model,item,score\nA,q1,1\nA,q2,yes\n", ["notnum.csv: line 3", "'yes' is not a number"]),
    ("nan.csv", "model,item,score\nA,q1,1\nA,q2,\n", ["nan.csv: line 3", "missing (NaN)"]),
    ("inf.csv", "model,item,score\nA,q1,inf\nA,q2,1\n", ["inf.csv: line 2", "infinite"]),
    ("dup.csv", GOOD + "A,q1,0\n", ["dup.csv: line 6", "duplicate row for model 'A', item 'q1'", "first at line 2"]),
    ("empty.csv", "", ["empty.csv", "empty"]),
    ("headeronly.csv", "model,item,score\n", ["headeronly.csv", "no rows"]),
    ("diff.csv", GOOD + "C,q1,1\n", ["diff.csv", "different items", "'C' has 1", "--align intersect"]),
])
def test_bad_csv(tmp_path, name, content, needles):
    p = tmp_path / name
    p.write_text(content)
    out = tmp_path / "out.json"
    r = run("report", str(p), "--format", "json", "--out", str(out))
    assert_clean_error(r, *needles)
    assert not out.exists()


def test_binary_flag(tmp_path):
    p = tmp_path / "cont.csv"
    p.write_text("model,item,score\nA,q1,1\nA,q2,0.5\nB,q1,0\nB,q2,1\n")
    assert_clean_error(run("report", str(p), "--binary"), "model 'A', item 'q2' has score 0.5", "--binary needs 0/1")


def test_truncated_gzip(tmp_path):
    data = gzip.compress(("model,item,score\n" + "".join(f"A,q{i},1\nB,q{i},0\n" for i in range(5000))).encode())
    p = tmp_path / "cut.csv.gz"
    p.write_bytes(data[: len(data) // 2])
    assert_clean_error(run("report", str(p)), "cut.csv.gz", "damaged or truncated")


def test_not_text(tmp_path):
    p = tmp_path / "blob.csv"
    p.write_bytes(bytes(range(256)) * 20)
    assert_clean_error(run("report", str(p)), "blob.csv", "not a text file")


def test_no_such_file(tmp_path):
    assert_clean_error(run("report", str(tmp_path / "nope.csv")), "nope.csv", "no such file")


def test_unknown_reader_format(tmp_path):
    p = tmp_path / "ok.csv"
    p.write_text(GOOD)
    r = run("report", str(p), "--format", "nonsense")
    assert_clean_error(r, "neither an output format")


def test_requested_score_column_missing(tmp_path):
    p = tmp_path / "ok.csv"
    p.write_text(GOOD)
    assert_clean_error(run("report", str(p), "--score-col", "prob"), "ok.csv", "no column 'prob'")


def test_long_table_with_other_column_names_cli(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text("name,question,correct\nA,q1,1\nA,q2,0\nB,q1,1\nB,q2,1\n")
    assert_clean_error(run("report", str(p)), "looks like a long table with other column names",
                       "--model-col, --item-col and --score-col")


def test_same_run_in_two_files_cli(tmp_path):
    a, b = tmp_path / "run.csv", tmp_path / "copy.csv"
    a.write_text(GOOD)
    b.write_text(GOOD)
    assert_clean_error(run("report", str(a), str(b)), "model 'A', item 'q1' appears in both run.csv and copy.csv",
                       "pass only one of them")
