"""inspect-ai reader: every real log (.eval zstd and deflate, .json), checked against the raw JSON."""

from __future__ import annotations

import glob
import json
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

import ranktrust as rt
from ranktrust.data._io import read_long
from ranktrust.errors import DataError, FormatError
from ranktrust.reporting import note_text
from ranktrust.results import Note

VALUE = {"C": 1.0, "I": 0.0}


def _member(path, name):
    """Read a zip member by hand (zstd = method 93 via pyarrow), independent of the reader."""
    zf = zipfile.ZipFile(path)
    info = zf.getinfo(name)
    if info.compress_type != 93:
        return zf.read(name)
    import pyarrow as pa

    with open(path, "rb") as fh:
        fh.seek(info.header_offset)
        nlen, elen = struct.unpack("<HH", fh.read(30)[26:30])
        fh.seek(info.header_offset + 30 + nlen + elen)
        raw = fh.read(info.compress_size)
    return pa.Codec("zstd").decompress(raw, decompressed_size=info.file_size).to_pybytes()


def _raw(path):
    """(model, {(id, epoch): score or None for errored})."""
    if path.endswith(".eval"):
        header = json.loads(_member(path, "header.json"))
        zf = zipfile.ZipFile(path)
        samples = [json.loads(_member(path, n)) for n in zf.namelist() if n.startswith("samples/")]
    else:
        with open(path) as fh:
            header = json.load(fh)
        samples = header["samples"]
    out = {}
    for s in samples:
        key = (s["id"], str(s["epoch"]))
        out[key] = None if s.get("error") else VALUE[s["scores"]["choice"]["value"]]
    return header["eval"]["model"], out


def _logs(harness_logs):
    return sorted(glob.glob(str(harness_logs / "inspect_ai" / "*" / "*")))


def test_every_log_matches_raw(harness_logs):
    logs = _logs(harness_logs)
    assert len(logs) == 8
    for path in logs:
        model, raw = _raw(path)
        df = read_long(path, options=__import__("ranktrust.data.readers._registry", fromlist=["x"]).ReadOptions(errors="drop"))
        got = {(i, r): s for i, r, s in zip(df["item"], df["run"], df["score"])}
        assert got == {k: v for k, v in raw.items() if v is not None}, path
        assert set(df["model"]) == {model} and set(df["task"]) == {"mcq_tiny"}
        assert set(df["metric"]) == {"accuracy"}


def test_headline_numbers(harness_logs):
    expect = {"hSZvkf5": 0.0, "nVEZESB": 0.0, "Rs5AySw": 0.78125, "3gXNZS8": 0.78125,
              "HBTL9Vz": 0.2708333333333333, "E3QMeiy": 0.0}
    for key, mean in expect.items():
        (path,) = glob.glob(str(harness_logs / "inspect_ai" / "*" / f"*{key}*"))
        m = rt.read(path)
        assert m.scores.mean() == pytest.approx(mean, abs=1e-12), path
    (noisy,) = glob.glob(str(harness_logs / "inspect_ai" / "*" / "*HBTL9Vz*"))
    m = rt.read(noisy, metric="accuracy")
    assert m.n_runs == 3 and m.runs == ("1", "2", "3") and m.n_items == 32   # epochs become runs
    (old,) = glob.glob(str(harness_logs / "inspect_ai" / "0.3.120" / "*.eval"))
    assert zipfile.ZipFile(old).infolist()[0].compress_type == 8
    assert rt.read(old).n_runs == 2
    assert set(rt.read(old).groups) == {"arithmetic", "geography", "science"}


@pytest.mark.parametrize("key", ["NwprEcX", "L2CrEdU"])
def test_errored_samples_are_counted_never_silent(harness_logs, key):
    (path,) = glob.glob(str(harness_logs / "inspect_ai" / "*" / f"*{key}*"))
    with pytest.raises(DataError, match=r"2 of 32 samples errored \(geo-03 \(epoch 1\), sci-06 \(epoch 1\)\).*`errors`='wrong'.*`errors`='drop'"):
        rt.read(path)
    _, raw = _raw(path)
    ok = [v for v in raw.values() if v is not None]
    m = rt.read(path, errors="drop")
    assert m.n_items == 30 and m.scores.mean() == pytest.approx(np.mean(ok)) == pytest.approx(0.7333333333)
    assert len(m.notes) == 1 and "2 samples errored" in note_text(m.notes[0]) and "dropped" in note_text(m.notes[0])
    assert m.notes[0].code == "samples_errored" and m.notes[0].data["n_samples"] == 2   # a record (issue 23 §1)
    w = rt.read(path, errors="wrong")
    assert w.n_items == 32 and w.scores.mean() == pytest.approx(sum(ok) / 32)
    i = w.items.index("geo-03")
    assert w.scores[0, i] == 0.0 and "scored as wrong" in note_text(w.notes[0])


def test_unknown_log_version(harness_logs, tmp_path):
    (path,) = glob.glob(str(harness_logs / "inspect_ai" / "*" / "*3gXNZS8*.json"))
    obj = json.loads(Path(path).read_text())
    obj["version"] = 7
    p = tmp_path / "log.json"
    p.write_text(json.dumps(obj))
    with pytest.raises(FormatError, match=r"log.json: inspect log format version 7 \(inspect_ai 0.3.285\).*known: 1, 2"):
        rt.read(str(p))


def test_missing_model_and_missing_scorer(harness_logs, tmp_path):
    (path,) = glob.glob(str(harness_logs / "inspect_ai" / "*" / "*3gXNZS8*.json"))
    obj = json.loads(Path(path).read_text())
    del obj["eval"]["model"]
    p = tmp_path / "log.json"
    p.write_text(json.dumps(obj))
    with pytest.raises(DataError, match="names no model.*`model_name`='NAME'"):
        rt.read(str(p))
    assert rt.read(str(p), model_name="oracle").models == ("oracle",)
    with pytest.raises(DataError, match=r"log.json: the log has no score 'f1'; its scores: choice \(a name"):
        rt.read(str(p), model_name="x", metric="f1")   # said from results.scores, before any sample is read
    del obj["results"]   # no results (a cancelled run): the samples say what they hold
    p.write_text(json.dumps(obj))
    with pytest.raises(DataError, match="sample arith-01 .epoch 1. has no score 'f1'; it has choice"):
        rt.read(str(p), model_name="x", metric="f1")


def test_same_log_twice_names_both_files(harness_logs, tmp_path):
    """A folder holding one log twice (the same eval_id: a copy, or a .eval and its .json conversion): the
    duplicate error names both files (not 'row 32'), and either file alone reads."""
    import shutil

    (ev,) = glob.glob(str(harness_logs / "inspect_ai" / "0.3.285" / "*Rs5AySw*.eval"))
    a, b = "oracle-run.eval", "oracle-run-copy.eval"
    for name in (a, b):
        shutil.copy(ev, tmp_path / name)
    with pytest.raises(DataError) as exc:
        rt.read(str(tmp_path))
    msg = str(exc.value)
    assert (f"model 'mockllm/oracle-75', item 'arith-01', run '1' appears in both {b} and {a}: "
            "the same run logged twice? pass only one of them (32 such rows)") in msg
    assert "row 32" not in msg and len(msg.splitlines()) == 1
    # the rows carry their file, and the directory read tags every row
    df = read_long(str(tmp_path))
    assert set(df["source"].map(lambda s: s.split("/")[-1])) == {a, b}
    # the same with the two files given explicitly (rt.read adds `source` itself)
    with pytest.raises(DataError, match=r"appears in both .*\.eval and .*\.eval: the same run logged twice"):
        rt.read([str(tmp_path / a), str(tmp_path / b)])
    assert rt.read(ev).scores.mean() == pytest.approx(0.78125)
    # one log alone: no source column, nothing changes
    assert "source" not in read_long(ev).columns


def test_qa_m11_inspect_folder_reads_runs_of_one_model(harness_logs):
    """QA M11: two runs of one model in different log files (different eval_id) are runs 1, 2, ... of that
    model, not 'the same run logged twice'; a note says which file became which run."""
    folder = harness_logs / "inspect_ai"
    m = rt.read(str(folder), errors="drop", align="pairwise")
    assert set(m.models) == {"mockllm/model", "mockllm/oracle-75", "mockllm/noisy", "mockllm/flaky"}
    runs = {mod: int((~np.isnan(m.data[m.index_of(mod)])).any(axis=0).sum()) for mod in m.models}
    # model: 0.3.120 (2 epochs) + a .eval + a .json run; oracle-75 and flaky: .eval + .json runs; noisy: 3 epochs
    assert runs == {"mockllm/model": 4, "mockllm/oracle-75": 2, "mockllm/noisy": 3, "mockllm/flaky": 2}
    s = dict(zip(m.models, np.nanmean(m.scores, axis=1)))
    assert s["mockllm/oracle-75"] == pytest.approx(0.78125) and s["mockllm/model"] == 0.0
    assert s["mockllm/flaky"] == pytest.approx(22 / 30)
    (note,) = [n for n in map(note_text, m.notes) if "'mockllm/model'" in n and "separate runs" in n]
    assert "E3QMeiyp4JjYyEmPTPARRu.eval runs 1-2" in note and "hSZvkf5HmSKtwnQAtn35Vx.eval run 3" in note
    (rec,) = [n for n in m.notes if getattr(n, "code", None) == "inspect_separate_runs"
              and n.data["model"] == "mockllm/model"]   # a record (issue 23 §1): the files and their run numbers
    assert [(g["first_run"], g["last_run"]) for g in rec.data["logs"]][:2] == [(1, 2), (3, 3)]
    assert note.startswith(f"{len(rec.data['logs'])} inspect logs of model 'mockllm/model' (task ")
    # the 0.3.285 folder the QA tried: three models each logged twice, as separate runs
    m2 = rt.read(str(folder / "0.3.285"), errors="drop", align="pairwise")
    assert m2.n_runs == 3 and len([n for n in map(note_text, m2.notes) if "separate runs" in n]) == 3


def test_qa_m11_inspect_folder_ingests_like_it_reads(harness_logs, tmp_path):
    """The store numbers the runs as the folder read does, and a failed ingest leaves nothing a retry meets."""
    from ranktrust.data.store import Store

    folder = str(harness_logs / "inspect_ai")
    st = Store(tmp_path / "s.duckdb")
    # without --errors the flaky logs stop the ingest: the whole command is rolled back
    with pytest.raises(DataError, match=r"samples errored.*nothing was ingested: the \d+ files before it were rolled back"):
        st.ingest(folder)
    assert st.con.execute("SELECT count(*) FROM results").fetchone()[0] == 0
    # the retry with other options is not blocked by half of the first attempt
    from ranktrust.data.readers._registry import ReadOptions

    summary = st.ingest(folder, options=ReadOptions(errors="drop"))
    assert all(f.action == "added" for f in summary.files) and len(summary.files) == 8
    a = st.matrix(align="pairwise")
    b = rt.read(folder, errors="drop", align="pairwise")
    assert set(a.models) == set(b.models)
    for mod in b.models:
        assert np.nanmean(a.scores[a.index_of(mod)]) == pytest.approx(np.nanmean(b.scores[b.index_of(mod)]))
        ra = (~np.isnan(a.data[a.index_of(mod)])).any(axis=0).sum()
        rb = (~np.isnan(b.data[b.index_of(mod)])).any(axis=0).sum()
        assert ra == rb, mod
    # the same log under another name is the same run: refused, naming the file that holds it
    import shutil

    (ev,) = glob.glob(str(harness_logs / "inspect_ai" / "0.3.285" / "*Rs5AySw*.eval"))
    shutil.copy(ev, tmp_path / "copy.eval")
    with pytest.raises(DataError, match=r"copy.eval: this inspect log \(eval_id \w+\) is already in the store from "
                                        r".*Rs5AySw.*\.eval: the same run logged twice"):
        st.ingest(str(tmp_path / "copy.eval"), options=ReadOptions(errors="drop", task="mcq_tiny"))
    st.close()


def test_qa_issue16_header_only_log_is_named(tmp_path):
    """A .json log saved without samples (header only, no 'version') gets a clear error, not 'format version None'."""
    log = {"status": "success", "eval": {"model": "m", "task": "t", "eval_id": "x"}, "plan": {},
           "results": {"total_samples": 1000, "completed_samples": 1000, "scores": []}, "stats": {}}
    p = tmp_path / "header.json"
    p.write_text(json.dumps(log))
    with pytest.raises(DataError) as exc:
        rt.read(str(p), format="inspect")
    msg = str(exc.value)
    assert "holds only the header" in msg and "1000 samples" in msg and "version None" not in msg, msg


def test_qa_issue16_real_header_only_log(harness_logs):
    from conftest import shared_file

    p = shared_file("harness-logs/real/inspect/eee/tests/data/inspect/data_with_llm_scoring.json")
    with pytest.raises(DataError, match="holds only the header .*1000 samples"):
        rt.read(str(p))


def test_duplicates_within_one_file_keep_the_row_message(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("model,item,score\nA,q1,1\nA,q1,0\n")
    q = tmp_path / "e.csv"
    q.write_text("model,item,score\nB,q1,1\n")
    with pytest.raises(DataError, match=r"duplicate row for model 'A', item 'q1'"):
        rt.read([p, q])


# ------------------------------------------------------------ issue 21: dict-valued scores, trimmed logs
def _dict_log(values: list, *, errored: tuple = (), scorer: str = "judge", keys: tuple = ("winrate", "length")) -> dict:
    """An inspect log (version 2) of a scorer returning ``Score(value={key: ...})``, laid out as inspect writes it
    (``_eval/task/results.py::scorers_from_metric_dict``): ``results.scores`` has one entry per key, ``name`` = the
    key and ``scorer`` = the scorer; each sample holds ``scores[scorer].value = {key: ...}``. Errored samples have no
    score; NaN values are unscored. The header's metrics are computed the way inspect computes them: over the
    scored samples only."""
    samples, per_key = [], {k: [] for k in keys}
    for i, v in enumerate(values):
        s = {"id": i + 1, "epoch": 1, "input": "q", "target": "t", "metadata": {}}
        if i in errored:
            s |= {"scores": {}, "error": {"message": "RuntimeError('boom')", "traceback": ""}}
        else:
            s["scores"] = {scorer: {"value": v, "answer": "x", "explanation": ""}}
            for k in keys:
                if v[k] == v[k]:
                    per_key[k].append(v[k])
        samples.append(s)
    scores = [{"name": k, "scorer": scorer, "reducer": None, "params": {}, "scored_samples": len(per_key[k]),
               "unscored_samples": len(values) - len(errored) - len(per_key[k]),
               "metrics": {"accuracy": {"name": "accuracy", "value": float(np.mean(per_key[k])), "params": {}},
                           "stderr": {"name": "stderr", "value": 0.1, "params": {}}}} for k in keys]
    return {"version": 2, "status": "success",
            "eval": {"eval_id": "E1", "run_id": "R1", "task": "pairwise_judge", "model": "openai/gpt-x",
                     "packages": {"inspect_ai": "0.3.133"},
                     "scorers": [{"name": scorer, "options": {}, "metrics": {k: [{"name": "inspect_ai/accuracy"},
                                                                                  {"name": "inspect_ai/stderr"}]
                                                                              for k in keys}}]},
            "plan": {}, "results": {"total_samples": len(values), "completed_samples": len(values) - len(errored),
                                    "scores": scores},
            "stats": {}, "samples": samples}


def _vals(n: int = 12) -> list[dict]:
    rng = np.random.default_rng(3)
    return [{"winrate": float(rng.integers(0, 2)), "length": round(float(rng.random()), 3)} for _ in range(n)]


def _write(tmp_path, log: dict, name: str = "judge.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(log))
    return str(p)


def _header_mean(log: dict, key: str) -> float:
    return next(s for s in log["results"]["scores"] if s["name"] == key)["metrics"]["accuracy"]["value"]


def test_dict_scorer_default_is_the_first_results_entry(tmp_path):
    log = _dict_log(_vals())
    m = rt.read(_write(tmp_path, log))
    assert m.items == tuple(str(i) for i in range(1, 13))
    np.testing.assert_allclose(m.scores.mean(), _header_mean(log, "winrate"), rtol=1e-12)   # a mean of 12 values
    assert m.provenance["openai/gpt-x"]["metric"] == "winrate"


@pytest.mark.parametrize("metric", ["length", "judge:length"])
def test_dict_scorer_key_or_scorer_colon_key(tmp_path, metric):
    log = _dict_log(_vals())
    m = rt.read(_write(tmp_path, log), metric=metric)
    np.testing.assert_allclose(m.scores.mean(), _header_mean(log, "length"), rtol=1e-12)
    assert m.provenance["openai/gpt-x"]["metric"] == metric


def test_dict_scorer_named_alone_asks_for_a_key(tmp_path):
    with pytest.raises(DataError, match=r"scorer 'judge' returns a dict with 2 keys \(winrate, length\); choose one "
                                        r"with `metric`='winrate' or `metric`='judge:winrate'"):
        rt.read(_write(tmp_path, _dict_log(_vals())), metric="judge")
    with pytest.raises(DataError, match=r"the log has no score 'judge:nokey'; its scores: judge:winrate, "
                                        r"judge:length \(a name, scorer:key"):
        rt.read(_write(tmp_path, _dict_log(_vals())), metric="judge:nokey")


def test_dict_scorer_errored_samples_follow_errors_and_drop_matches_inspect(tmp_path):
    log = _dict_log(_vals(), errored=(2, 7))
    p = _write(tmp_path, log)
    with pytest.raises(DataError, match=r"2 of 12 samples errored \(3 \(epoch 1\), 8 \(epoch 1\)\)"):
        rt.read(p)
    drop = rt.read(p, errors="drop", metric="judge:length")
    assert drop.n_items == 10 and "3" not in drop.items
    np.testing.assert_allclose(drop.scores.mean(), _header_mean(log, "length"), rtol=1e-12)   # inspect's own metric
    assert any("2 samples errored" in n and "dropped" in n for n in map(note_text, drop.notes))
    wrong = rt.read(p, errors="wrong")
    assert wrong.n_items == 12 and wrong.scores[0, 2] == 0.0


def test_dict_scorer_nan_values_are_left_out_with_a_note(tmp_path):
    vals = _vals()
    vals[4]["winrate"] = float("nan")
    log = _dict_log(vals)
    p = tmp_path / "nan.json"
    p.write_text(json.dumps(log))   # json writes NaN, as inspect does
    m = rt.read(str(p))
    assert m.n_items == 11 and "5" not in m.items
    np.testing.assert_allclose(m.scores.mean(), _header_mean(log, "winrate"), rtol=1e-12)
    assert any("1 sample in" in n and "has no value (NaN) for judge:winrate and was left out" in n
               for n in map(note_text, m.notes)), m.notes


def test_dict_scorer_on_the_command_line(tmp_path, capsys):
    from conftest import run_cli

    p = _write(tmp_path, _dict_log(_vals()))
    code, out, err = run_cli(capsys, "report", p, "--metric", "judge:length", "--no-stability", "-f", "json")
    assert code == 0, err
    assert json.loads(out)


def test_qa_d8_trimmed_log_notes_both_counts():
    """A genuine inspect log trimmed to 1 of its 2,340 sample records (tests/fixtures/inspect/SOURCE.md)."""
    from conftest import ROOT

    p = ROOT / "tests" / "fixtures" / "inspect" / "data_cyse2_vuln_exploit_challenges.json"
    m = rt.read(str(p))
    assert m.n_items == 1
    # a record (issue 23 §1); the count has fmt.count's separator (2,340), as every count printed has
    assert any("the log header reports 2,340 samples but the log holds 1; only that one is scored" in note_text(n)
               for n in m.notes), m.notes
    (rec,) = [n for n in m.notes if getattr(n, "code", None) == "inspect_sample_count"]
    assert dict(rec.data) == {"path": str(p), "reported": 2340, "completed": None, "n_samples": 1}


def test_qa_d8_cvebench_header_counts_noted(capsys):
    from conftest import run_cli, shared_file

    p = shared_file("harness-logs/real/inspect/eee/tests/data/inspect/data_cvebench_empty_choices.json")
    code, out, err = run_cli(capsys, "report", p, "--errors", "wrong", "--no-stability", "-f", "json")
    assert code == 0, err
    assert "reports 80 samples (78 completed) but the log holds 1" in json.dumps(json.loads(out))
    for ok in ("data_arc_qwen.json", "data_pubmedqa_gpt4o_mini.json"):   # complete logs: no such note
        m = rt.read(str(shared_file(f"harness-logs/real/inspect/eee/tests/data/inspect/{ok}")))
        assert not any("log header reports" in note_text(n) for n in m.notes)


def test_issue21_task_picks_logs_by_header_so_other_logs_neither_block_nor_note():
    """--task reads only the logs of that task (told from each header): a header-only or errored log of another
    task neither stops the read nor adds its notes."""
    from conftest import shared_file

    real = shared_file("harness-logs/real/inspect/eee/tests/data/inspect")
    m = rt.read(str(real), task="inspect_evals/arc_easy", align="pairwise")
    # the only notes: these arc_easy runs were cut with --limit 5 of 2,376 (issue 31), nothing of the other tasks
    assert m.n_models == 2 and {n.code for n in m.notes} == {"inspect_partial"}
    assert sorted((n.data["limit"], n.data["n_samples"], n.data["dataset_samples"]) for n in m.notes) == [
        (3, 3, 2376), (5, 5, 2376)]
    with pytest.raises(DataError, match=r"no task 'nope'; available: cvebench, inspect_evals/arc_easy, "
                                        r"inspect_evals/pubmedqa, simpleqa_verified"):
        rt.read(str(real), task="nope")


def test_a_chosen_task_whose_logs_give_no_rows_says_why_and_lists_the_others(tmp_path):
    """A folder with a full log of task 'pairwise_judge' and a header-only log of task 't2', read with
    `errors`='drop' and `task`='t2': the header-only log is skipped, so no rows; the error says so and names the
    other task (was "no task 't2'; available: " with an empty list)."""
    _write(tmp_path, _dict_log(_vals()), "full.json")
    log = {"status": "success", "eval": {"model": "m", "task": "t2", "eval_id": "x"}, "plan": {},
           "results": {"total_samples": 1000, "completed_samples": 1000, "scores": []}, "stats": {}}
    _write(tmp_path, log, "header.json")
    with pytest.raises(DataError) as exc:
        rt.read(str(tmp_path), task="t2", errors="drop")
    msg = str(exc.value)
    assert msg.startswith(f"{tmp_path}: no rows of task 't2' were read (") and "holds only the header" in msg
    assert msg.endswith("the folder's other tasks: pairwise_judge"), msg
    assert rt.read(str(tmp_path), task="pairwise_judge", errors="drop").n_models == 1    # the other task reads


def test_real_header_only_task_in_a_folder_says_it_was_skipped():
    """The verifier's case: `report harness-logs/real/inspect --errors drop --task simpleqa_verified`."""
    from conftest import run_cli_completed, shared_file

    real = shared_file("harness-logs/real/inspect")
    r = run_cli_completed("report", str(real), "--errors", "drop", "--task", "simpleqa_verified")
    assert r.returncode == 1 and r.stderr.count("\n") == 1
    assert "no rows of task 'simpleqa_verified' were read" in r.stderr and "holds only the header" in r.stderr
    assert "(--errors drop)" in r.stderr and "`errors`" not in r.stderr
    assert r.stderr.rstrip().endswith("other tasks: cvebench, inspect_evals/arc_easy, inspect_evals/pubmedqa")


@pytest.mark.parametrize("code, data, text", [
    # the sentences the inspect and EEE readers wrote before their notes were records (issue 23 §1)
    ("samples_errored", {"path": "l.json", "n_samples": 1, "errors": "wrong", "samples": ["s1"]},
     "1 sample errored in l.json and was scored as wrong: s1"),
    ("samples_errored", {"path": "l.json", "n_samples": 12, "errors": "drop", "samples": ["s1", "s2"]},
     "12 samples errored in l.json and were dropped: s1, s2"),
    ("samples_nan", {"path": "l.json", "n_samples": 1, "score": "judge:winrate", "samples": ["s1"]},
     "1 sample in l.json has no value (NaN) for judge:winrate and was left out, as inspect leaves it out of its "
     "metrics: s1"),
    ("samples_nan", {"path": "l.json", "n_samples": 2, "score": "match", "samples": ["s1", "s2"]},
     "2 samples in l.json have no value (NaN) for match and were left out, as inspect leaves them out of its "
     "metrics: s1, s2"),
    ("inspect_sample_count", {"path": "l.json", "reported": 80, "completed": 78, "n_samples": 1},
     "l.json: the log header reports 80 samples (78 completed) but the log holds 1; only that one is scored "
     "(a trimmed or partial log?)"),
    ("inspect_sample_count", {"path": "l.json", "reported": 24, "completed": None, "n_samples": 10},
     "l.json: the log header reports 24 samples but the log holds 10; only those 10 are scored (a trimmed or "
     "partial log?)"),
    ("lm_eval_sample_count", {"path": "s.jsonl", "results_file": "r.json", "task": "t", "reported": 50,
                              "n_samples": 1},
     "s.jsonl: the results file r.json reports 50 samples for 't' but this samples file holds 1; only that one is "
     "scored (a trimmed or partial samples file?)"),
])
def test_inspect_note_records_are_worded_as_before(code, data, text):
    assert note_text(Note(code, data)) == text


def test_a_log_whose_samples_all_errored_is_skipped_by_the_store_with_its_record(tmp_path):
    """Every sample errored, errors='drop': no rows; the store skips the file and keeps the reader's record among
    the notes (the skip reason is a sentence: the record is worded by reporting/, issue 23 §1)."""
    import warnings

    from ranktrust.data.readers._registry import ReadOptions
    from ranktrust.reporting.renderers import to_string

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # the fixture's header mean of no scored sample
        log = _dict_log(_vals(2), errored=(0, 1))
    p = _write(tmp_path, log)
    with rt.Store(tmp_path / "s.duckdb") as st:
        s = st.ingest(p, options=ReadOptions(errors="drop"))
    (f,) = s.files
    assert f.action == "skipped" and isinstance(f.reason, str) and f.rows == 0
    (rec,) = s.notes
    assert rec.code == "samples_errored" and rec.data["n_samples"] == 2
    assert f"- note: 2 samples errored in {p} and were dropped: 1 (epoch 1), 2 (epoch 1)" in to_string(s, "md")


def test_a_task_named_without_its_package_is_pointed_at():
    """inspect names tasks with their package (inspect_evals/pubmedqa): `--task pubmedqa` or a misspelling says
    which task was meant; a name near nothing lists what is there, as before."""
    from conftest import run_cli_completed, shared_file
    from ranktrust.data.readers._util import did_you_mean

    names = ["cvebench", "inspect_evals/arc_easy", "inspect_evals/pubmedqa", "simpleqa_verified"]
    assert did_you_mean("pubmedqa", names) == " (did you mean 'inspect_evals/pubmedqa'?)"
    assert did_you_mean("arc_eazy", names) == " (did you mean 'inspect_evals/arc_easy'?)"
    assert did_you_mean("inspect_evals/pubmedq", names) == " (did you mean 'inspect_evals/pubmedqa'?)"
    assert did_you_mean("zzz", names) == ""
    real = shared_file("harness-logs/real/inspect")
    r = run_cli_completed("report", str(real), "--errors", "drop", "--task", "pubmedqa")
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert "no task 'pubmedqa' (did you mean 'inspect_evals/pubmedqa'?); available: cvebench, " in r.stderr
