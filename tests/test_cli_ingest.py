"""CLI: ranktrust ingest / db list / db export, and report on every harness sample."""

from __future__ import annotations

import glob
import sys
import json

import pytest

import ranktrust as rt
from ranktrust.cli._main import main

FAST = ["--format", "json", "--stability-n-resamples", "100"]


def run(args, capsys):
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ingest_list_export_report(tmp_path, capsys, gpqa_path, swebench_path):
    db = str(tmp_path / "r.duckdb")
    code, out, err = run(["ingest", str(gpqa_path), "--task", "gpqa_main", "--db", db, "-f", "json"], capsys)
    assert code == 0, err
    d = json.loads(out)
    assert d["rows_added"] == 188160 and d["files"][0]["action"] == "added"
    code, out, _ = run(["ingest", str(gpqa_path), "--task", "gpqa_main", "--db", db], capsys)
    assert code == 0 and "skipped" in out and "0 rows added" in out
    code, out, _ = run(["ingest", str(swebench_path), "--db", db], capsys)
    code, out, _ = run(["db", "list", "--db", db, "-f", "json"], capsys)
    d = json.loads(out)
    assert {(t["task"], t["n_models"], t["n_items"], t["rows"]) for t in d["tasks"]} == {
        ("gpqa_main", 420, 448, 188160), ("swebench_verified_mini", 25, 500, 12500)}
    code, out, _ = run(["db", "export", "--db", db, "--out", str(tmp_path / "x.parquet"), "--task", "swebench_verified_mini"], capsys)
    assert code == 0 and "12,500 rows" in out
    assert rt.read(str(tmp_path / "x.parquet")).n_models == 25
    code, out_db, err = run(["report", "--db", db, "--task", "swebench_verified_mini", *FAST], capsys)
    assert code == 0, err
    code, out_file, err = run(["report", str(swebench_path), *FAST], capsys)
    a, b = json.loads(out_db), json.loads(out_file)
    for k in ("meta", "title", "source", "provenance"):   # the store also knows the task name
        a.pop(k, None), b.pop(k, None)
    assert a["models"] == b["models"] and a["pairs"] == b["pairs"] and a["tiers"] == b["tiers"]
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)  # the report from the store = from the file
    code, _, err = run(["report", "--db", db, *FAST], capsys)
    assert code == 1 and err.startswith("error:") and "pick one with --task" in err and "Traceback" not in err


def test_ingest_errors_are_one_line(tmp_path, capsys, harness_logs):
    db = str(tmp_path / "e.duckdb")
    (flaky,) = glob.glob(str(harness_logs / "inspect_ai" / "0.3.285" / "*NwprE*.eval"))
    code, _, err = run(["ingest", flaky, "--db", db], capsys)
    assert code == 1 and "2 of 32 samples errored" in err and "--errors wrong" in err and len(err.strip().splitlines()) == 1
    code, out, err = run(["ingest", flaky, "--db", db, "--errors", "drop"], capsys)
    assert code == 0 and "note: 2 samples errored" in out and "30" in out


@pytest.mark.parametrize("args", [
    ["lm_eval/0.4.13", "--task", "mcq_tiny_lm", "--metric", "acc_norm"],
    ["lm_eval/0.4.13", "--task", "mcq_tiny_lm_gen"],
    ["lighteval/0.13.0", "--metric", "acc"],
    ["inspect_ai/0.3.285/*Rs5AySw*.eval", "inspect_ai/0.3.285/*HBTL9Vz*.eval", "inspect_ai/0.3.285/*NwprE*.eval",
     "--metric", "accuracy", "--errors", "wrong", "--align", "pairwise"],
    ["inspect_ai/0.3.285/*3gXNZS8*.json", "inspect_ai/0.3.285/*nVEZESB*.json", "inspect_ai/0.3.285/*L2CrEdU*.json",
     "--errors", "drop", "--align", "pairwise"],
    ["inspect_ai/0.3.120/*.eval", "inspect_ai/0.3.285/*hSZvkf5*.eval", "--model-name", "x"],
])
def test_report_runs_on_every_harness_sample(args, capsys, harness_logs):
    paths = []
    rest = []
    for a in args:
        if "/" in a:
            paths += sorted(glob.glob(str(harness_logs / a)))
        else:
            rest.append(a)
    if "--model-name" in rest:  # two logs of one model: report each alone
        rest = [r for r in rest if r not in ("--model-name", "x")]
        for p in paths:
            code, out, err = run(["report", p, *rest, *FAST], capsys)
            assert code == 0, err
        return
    code, out, err = run(["report", *paths, *rest, *FAST], capsys)
    assert code == 0, err
    assert json.loads(out)["meta"]["kind"]


ROWS = ('SELECT r.task, r.model, r.item, r.run, r.condition, r.metric, r.score, i.pos, i."group" FROM results r '
        "JOIN items i USING (task, item) ORDER BY r.model, r.item")


def test_a_large_file_is_staged_in_slices_and_its_rows_counted(tmp_path, monkeypatch):
    """Issue 21: one big file reports the rows staged so far, slice by slice; the store holds the same rows
    as when the file is staged in one piece (slices of 3 rows here, 200,000 in use)."""
    from ranktrust.data.store import _ingest

    lines = ["model,item,score,subject"] + [f"m{i % 3},q{i // 3},{(i * 7) % 2},s{i // 3 % 2}" for i in range(20)]
    (tmp_path / "a.csv").write_text("\n".join(lines) + "\n")
    with rt.Store(tmp_path / "one.duckdb") as st:
        st.ingest(tmp_path / "a.csv")
        want = st.con.execute(ROWS).fetchall()
    monkeypatch.setattr(_ingest, "STAGE_SLICE_ROWS", 3)
    seen: list[tuple[int, int]] = []
    with rt.Store(tmp_path / "sliced.duckdb") as st:
        st.ingest(tmp_path / "a.csv", progress=lambda done, total: seen.append((done, total)))
        got = st.con.execute(ROWS).fetchall()
    assert seen == [(0, 0)] + [(min(k, 20), 0) for k in range(3, 22, 3)] + [(20, 20)]
    assert got == want and len(got) == 20


def test_ingest_shows_rows_on_a_terminal_only(tmp_path, capsys, monkeypatch):
    """The progress display (cli/_common.progress_bar) counts rows on a terminal, and prints nothing in a pipe."""
    (tmp_path / "a.csv").write_text("model,item,score\n" + "".join(f"m{i % 2},q{i // 2},1\n" for i in range(10)))
    main(["ingest", str(tmp_path / "a.csv"), "--db", str(tmp_path / "p.duckdb"), "-f", "json"])
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.chdir(tmp_path)
    main(["ingest", "a.csv", "--db", "t.duckdb", "-f", "json"])
    err = capsys.readouterr().err
    assert "ingesting into t.duckdb" in err and "10/10" in err and "rows/s" in err, err


def test_ingest_prints_and_writes_reader_records(tmp_path, capsys):
    """A reader's note that is a record (issue 23 §1): `ingest -f json` writes it as {"code", "data", "text"} (it raised
    'Note is not JSON serializable'), the text and Markdown print its sentence, and `report` from the store too."""
    import shutil
    from pathlib import Path

    from ranktrust.reporting import note_text

    d = tmp_path / "runs"
    shutil.copytree(Path(__file__).parent / "fixtures" / "swebench" / "experiments", d / "experiments")
    (d / "notes.json").write_text(json.dumps({"ticket": 12, "resolved": "yes, in March"}))
    sentence = (f"{d}: 1 JSON file that mentions 'resolved' is not SWE-bench results and was skipped "
                f"(e.g. {d / 'notes.json'})")
    code, out, err = run(["ingest", str(d), "--db", str(tmp_path / "a.duckdb"), "-f", "json"], capsys)
    assert code == 0, err
    rec = json.loads(out)["notes"][0]   # the record, and its sentence beside it (as the report's JSON has)
    assert rec == {"code": "swebench_skipped_files", "data": {"path": str(d), "n_files": 1,
                                                              "example": str(d / "notes.json")}, "text": sentence}
    assert note_text({"code": rec["code"], "data": rec["data"]}) == sentence
    code, out, err = run(["ingest", str(d), "--db", str(tmp_path / "b.duckdb"), "-f", "md"], capsys)
    assert code == 0 and f"- note: {sentence}" in out, err
    code, out, err = run(["report", "--db", str(tmp_path / "b.duckdb"), "--no-stability", "-f", "md"], capsys)
    assert code == 0 and f"- {sentence}" in out, err


def test_ingest_messages_name_paths_as_given(tmp_path, capsys, monkeypatch):
    """A relative input stays relative in the summary and in every refusal (issue 31 item 6, review E10)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.csv").write_text("model,item,score\nm,1,1\nm,2,0\n")
    (tmp_path / "runs" / "b.csv").write_text("model,item,score\nm,1,0\nm,2,1\n")
    code, out, err = run(["ingest", "runs/a.csv", "--task", "t", "--db", "s.duckdb", "-f", "json"], capsys)
    assert code == 0, err
    assert [f["path"] for f in json.loads(out)["files"]] == ["runs/a.csv [task=t]"]
    code, out, err = run(["ingest", "runs/b.csv", "--task", "t", "--db", "s.duckdb"], capsys)
    assert code == 1 and err.startswith("error: runs/b.csv: model 'm', item '1'") and "from runs/a.csv" in err
    assert str(tmp_path) not in err
