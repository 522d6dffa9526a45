"""Issue 31: nothing about a harness file guessed in silence, on genuine files.

Each case here was read in silence (or not at all) before: a lighteval folder whose metric struct is alphabetical,
two revisions of one task, an lm-eval samples file written before 0.4.7 by a task with three filters, an inspect log
folder holding inspect's ``logs.json`` index, a cancelled inspect run, lm-eval subtasks pooled twice. Per model,
ranktrust's score is the harness's own number to the digits the file gives.

Fixtures: ``tests/fixtures/lm_eval_kt/`` (allenlee-37/KT-lm-evaluation-harness, MIT) and
``tests/fixtures/inspect_real/`` (UKGovernmentBEIS/inspect_ai, MIT): see their SOURCES.md. The lighteval and
inspect 0.3.285 logs are ../shared/data/harness-logs (the project's own runs, tests/data/README.md).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import ranktrust as rt
from conftest import run_cli
from ranktrust.data._io import read_long
from ranktrust.data.readers._lighteval import default_metric
from ranktrust.data.readers._registry import ReadOptions
from ranktrust.data.readers._util import is_failure_metric
from ranktrust.errors import DataError, FormatError
from ranktrust.reporting import note_text

FIX = Path(__file__).parent / "fixtures"
KT = FIX / "lm_eval_kt"
INSPECT = FIX / "inspect_real"


def _codes(m) -> list[str]:
    return [n.code for n in m.notes]


# ------------------------------------------------------------------------------------------------ lighteval
def _lighteval_copy(harness_logs, dst: Path) -> Path:
    out = dst / "le"
    shutil.copytree(harness_logs / "lighteval" / "0.13.0", out)
    return out


def _declare(root: Path, order: list[str]) -> None:
    """Rewrite each results file as lighteval writes a task that declares ``order``: config_tasks and results."""
    for rf in glob.glob(str(root / "results" / "**" / "results_*.json"), recursive=True):
        obj = json.loads(Path(rf).read_text())
        for task, cfg in obj["config_tasks"].items():
            by = {m["metric_name"]: m for m in cfg["metrics"]}
            cfg["metrics"] = [by[n] for n in order]
            res = obj["results"][task]
            obj["results"][task] = {k: res[k] for n in order for k in (n, n + "_stderr")}
        Path(rf).write_text(json.dumps(obj))


def test_lighteval_default_metric_is_the_tasks_declared_first_not_the_alphabetical_first(harness_logs, tmp_path):
    """lighteval writes the metric struct alphabetically (acc, acc_norm); a task that declares acc_norm first is
    ranked by acc_norm, with a note. The old reader took the struct's first field (acc) without a word."""
    root = _lighteval_copy(harness_logs, tmp_path)
    _declare(root, ["acc_norm", "acc"])
    m = rt.read(str(root))
    (note,) = [n for n in m.notes if n.code == "metric_chosen"]
    assert note.data["chosen"] == "acc_norm" and note.data["rule"] == "config_tasks"
    assert "read 'acc_norm', the task's first declared metric" in note_text(note)
    # per model: the harness's own acc_norm, to the digits of the results file
    for rf in glob.glob(str(root / "results" / "**" / "results_*.json"), recursive=True):
        obj = json.loads(Path(rf).read_text())
        model = obj["config_general"]["model_config"]["model_name"]
        (task,) = obj["config_tasks"]
        assert m.scores[m.index_of(model)].mean() == pytest.approx(obj["results"][task]["acc_norm"], abs=1e-12)
    assert set(read_long(str(root))["metric"]) == {"acc_norm"}
    # no config_tasks: the results file's own order decides
    for rf in glob.glob(str(root / "results" / "**" / "results_*.json"), recursive=True):
        obj = json.loads(Path(rf).read_text())
        obj.pop("config_tasks")
        Path(rf).write_text(json.dumps(obj))
    again = rt.read(str(root))
    assert [n.data["rule"] for n in again.notes if n.code == "metric_chosen"] == ["results"]
    assert np.array_equal(again.scores, m.scores)


def test_lighteval_failure_metrics_are_never_a_default():
    """The review's custom task: lighteval's struct order puts extract_fail first; the task declares trad_score."""
    available = ["extract_fail", "idk_freq", "idk_score", "trad_score"]     # the struct, alphabetical
    declared = {"config_tasks": {"t": {"metrics": [{"metric_name": n} for n in
                                                   ("trad_score", "idk_score", "idk_freq", "extract_fail")]}},
                "results": {"t": {}}}
    assert default_metric("f", available, declared, "t") == ("trad_score", "config_tasks")
    only_failures = {"results": {"t": {"extract_fail": 0.1, "idk_freq": 0.2, "trad_score": 0.8}}}
    assert default_metric("f", available, only_failures, "t") == ("trad_score", "results")
    with pytest.raises(DataError, match=r"4 metrics \(extract_fail, idk_freq, idk_score, trad_score\).*no results "
                                        r"file.*`metric`='idk_score'"):
        default_metric("f", available, None, "t")
    with pytest.raises(DataError, match="counts failures, errors or a frequency"):
        default_metric("f", ["extract_fail"], None, "t")
    assert [n for n in available + ["acc", "error_rate", "win_rate", "prompt_level_strict_acc"]
            if is_failure_metric(n)] == ["extract_fail", "idk_freq", "error_rate"]


def _revise(details: str, out: str) -> None:
    """The same task on a revised dataset: each question (doc, with its score) moved to another doc.id."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    t = pq.read_table(details)
    doc = t.column("doc").combine_chunks()
    ids = pc.struct_field(doc, "id").to_pylist()
    moved = ids[1:] + ids[:1]
    fields = [doc.type.field(i).name for i in range(doc.type.num_fields)]
    arrays = [pa.array(moved) if f == "id" else pc.struct_field(doc, f) for f in fields]
    new = pa.StructArray.from_arrays(arrays, fields=[doc.type.field(i) for i in range(doc.type.num_fields)])
    pq.write_table(t.set_column(t.schema.get_field_index("doc"), "doc", new), out)


def test_lighteval_two_revisions_same_ids_other_questions_are_refused_or_paired_by_content(harness_logs, tmp_path):
    root = _lighteval_copy(harness_logs, tmp_path)
    (seed2,) = glob.glob(str(root / "details" / "**" / "seed2" / "**" / "*.parquet"), recursive=True)
    original = rt.read(str(root), metric="acc")
    _revise(seed2, seed2)
    with pytest.raises(DataError) as exc:
        rt.read(str(root), metric="acc")
    msg = str(exc.value)
    assert "seed2" in msg and "seed1" in msg and "32 of its 32 items" in msg and "`item`='doc_hash'" in msg
    assert exc.value.param == "item"
    # on request, the questions are paired by content: every model's score per question is its original one
    by_content = rt.read(str(root), metric="acc", item="doc_hash")
    assert by_content.n_items == 32 and by_content.models == original.models
    orig_by_q = rt.read(str(_lighteval_copy(harness_logs, tmp_path / "o")), metric="acc", item="doc_hash")
    assert orig_by_q.items == by_content.items and np.array_equal(orig_by_q.scores, by_content.scores)
    # the store refuses the same way, and pairs by content on request
    with rt.Store(str(tmp_path / "s.duckdb")) as st:
        with pytest.raises(DataError, match="32 of its 32 items"):
            st.ingest(str(root), options=ReadOptions(metric="acc"))
        st.ingest(str(root), options=ReadOptions(metric="acc", item_col="doc_hash"))
        assert np.array_equal(st.matrix().scores, by_content.scores)


def test_lighteval_model_with_results_but_no_details_is_noted(harness_logs, tmp_path):
    root = _lighteval_copy(harness_logs, tmp_path)
    shutil.rmtree(root / "details" / "opt" / "models" / "tinylm_t4" / "seed3")
    m = rt.read(str(root), metric="acc")
    assert m.n_models == 2
    (note,) = [n for n in m.notes if n.code == "lighteval_no_details"]
    assert note.data["model"] == "/opt/models/tinylm_t4/seed3" and note.data["tasks"] == ["mcq_tiny_lighteval|0"]
    assert "no details file" in note_text(note) and "not in the comparison" in note_text(note)
    # paths as given: a relative folder gives relative paths in the note
    here = os.getcwd()
    try:
        os.chdir(tmp_path)
        rel = rt.read("le", metric="acc")
        (note,) = [n for n in rel.notes if n.code == "lighteval_no_details"]
        assert not os.path.isabs(note.data["results_file"]) and note.data["results_file"].startswith("le")
    finally:
        os.chdir(here)


# ------------------------------------------------------------------------------------------------- lm-eval
def test_lm_eval_pre_047_three_filters_read_by_block_named_from_results():
    """lm-eval before 0.4.7 (git 9b052fdc): 10 docs x 3 filters, lines without 'filter'. Each filter reads as its
    block; the score is lm-eval's own (0.0 each); the limit (10 of 1,643) is noted."""
    (res,) = KT.glob("ko_winogrande/*/results_*.json")
    obj = json.loads(res.read_text())
    for filt in ("get-option", "get-answer1", "get-answer2"):
        m = rt.read(str(KT / "ko_winogrande"), metric=f"exact_match,{filt}")
        assert m.n_items == 10 and m.items == tuple(str(k) for k in range(10))
        assert m.scores.mean() == obj["results"]["ko_winogrande"][f"exact_match,{filt}"]
        blocks = [n for n in m.notes if n.code == "lm_eval_filter_blocks"]
        assert [n.data["block"] for n in blocks] == [["get-option", "get-answer1", "get-answer2"].index(filt) + 1]
        (lim,) = [n for n in m.notes if n.code == "lm_eval_limited"]
        assert (lim.data["n_samples"], lim.data["original"], lim.data["limit"]) == (10, 1643, 10)
        assert "scored 10 of the 1,643 documents of 'ko_winogrande'" in note_text(lim)
    with pytest.raises(DataError, match=r"filters 'get-option' and 'get-answer1'; the results file gives filters "
                                        r"get-option, get-answer1, get-answer2\); choose the filter with "
                                        r"`metric`='exact_match,get-option'"):
        rt.read(str(KT / "ko_winogrande"))
    with pytest.raises(DataError, match="no line has filter 'strict'; the task's filters: get-option"):
        rt.read(str(KT / "ko_winogrande"), metric="exact_match,strict")


def test_lm_eval_limited_runs_are_noted_and_scores_are_lm_evals():
    """Four models, generate_until with filter get-answer, each run with --limit 10 of 1,267."""
    m = rt.read(str(KT / "winogrande"))
    assert m.n_models == 4 and m.n_items == 10
    for res in KT.glob("winogrande/*/results_*.json"):
        obj = json.loads(res.read_text())
        assert m.scores[m.index_of(obj["model_name"])].mean() == obj["results"]["winogrande"]["exact_match,get-answer"]
    lims = [n for n in m.notes if n.code == "lm_eval_limited"]
    assert len(lims) == 4 and {(n.data["n_samples"], n.data["original"], n.data["limit"]) for n in lims} == {
        (10, 1267, 10)}


def test_lm_eval_group_whose_subtasks_share_questions_is_refused():
    """leaderboard_gpqa: diamond / extended / main share questions and lm-eval gives no group number."""
    with pytest.raises(DataError, match=r"task 'leaderboard_gpqa' pools subtasks that share questions: .*repeat a "
                                        r"question of another subtask.*lm-eval reports no aggregate for it.*"
                                        r"`task`='leaderboard_gpqa_diamond'") as exc:
        rt.read(str(KT / "gpqa_group"), task="leaderboard_gpqa")
    assert exc.value.param == "task"
    (res,) = KT.glob("gpqa_group/*/results_*.json")
    obj = json.loads(res.read_text())
    for sub in ("diamond", "extended", "main"):
        m = rt.read(str(KT / "gpqa_group"), task=f"leaderboard_gpqa_{sub}")
        assert m.scores.mean() == obj["results"][f"leaderboard_gpqa_{sub}"]["exact_match,get-answer"]
        assert "lm_eval_limited" in _codes(m)


# ------------------------------------------------------------------------------------------------- inspect
def test_inspect_cancelled_run_is_noted_and_scored_as_inspect():
    p = INSPECT / "2025-05-12T20-28-13-04-00_popularity.json"
    m = rt.read(str(p))
    log = json.loads(p.read_text())
    assert m.scores.mean() == log["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    (note,) = [n for n in m.notes if n.code == "inspect_partial"]
    assert note.data == {"path": str(p), "status": "cancelled", "n_samples": 3, "dataset_samples": 100, "limit": 3}
    assert "the run's status is 'cancelled'; it scored 3 of the dataset's 100 samples (run with limit 3)" in \
        note_text(note)


def test_inspect_unscored_log_is_not_sent_to_metric():
    with pytest.raises(DataError, match="has no scores: the log was not scored.*no choice of metric can help"):
        rt.read(str(INSPECT / "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"))
    from test_readers_inspect import _member

    scored = INSPECT / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
    m = rt.read(str(scored))
    header = json.loads(_member(str(scored), "header.json"))
    assert m.n_items == 10 and m.scores.mean() == header["results"]["scores"][0]["metrics"]["accuracy"]["value"]


def _index(folder: Path, logs: list[Path]) -> Path:
    """inspect's logs.json (write_log_dir_manifest): each log's header (no samples) keyed by its file name."""
    from test_readers_inspect import _member

    out = {}
    for p in logs:
        if p.suffix == ".eval":
            out[p.name] = json.loads(_member(str(p), "header.json"))
        else:
            out[p.name] = {k: v for k, v in json.loads(p.read_text()).items() if k not in ("samples", "reductions")}
    (folder / "logs.json").write_text(json.dumps(out, indent=2))
    return folder / "logs.json"


def test_inspect_folder_with_logs_json_index_is_read_and_the_index_noted(harness_logs, tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    new = harness_logs / "inspect_ai" / "0.3.285"
    logs = [new / "2026-11-29T09-10-14-00-00_mcq-tiny_hSZvkf5HmSKtwnQAtn35Vx.eval",   # mockllm/model
            new / "2026-11-29T09-10-26-00-00_mcq-tiny_Rs5AySwMYqLHfTsRWv8RpZ.eval"]   # mockllm/oracle-75
    for p in logs:
        shutil.copy(p, folder)
    index = _index(folder, [folder / p.name for p in logs])
    m = rt.read(str(folder))
    assert m.models == ("mockllm/model", "mockllm/oracle-75") and m.scores.mean(axis=1).tolist() == [0.0, 0.78125]
    (note,) = [n for n in m.notes if n.code == "inspect_index_skipped"]
    assert note.data["path"] == str(index) and "inspect's log index" in note_text(note)
    with pytest.raises(FormatError, match="this is inspect's log index"):
        rt.read(str(index), format="inspect")
    # the store skips it the same way
    with rt.Store(str(tmp_path / "s.duckdb")) as st:
        summary = st.ingest(str(folder))
    assert sum(f.action == "added" for f in summary.files) == 2
    assert "inspect_index_skipped" in [n.code for n in summary.notes]


# -------------------------------------------------------------------------------------------- score range
def test_scale_range_maps_minus_one_to_one_everywhere(tmp_path):
    """right / abstained / wrong = +1 / 0 / -1 (lighteval's idk_score): declared once, read and ingested alike."""
    p = tmp_path / "idk.csv"
    p.write_text("model,item,score\na,1,1\na,2,0\na,3,-1\nb,1,1\nb,2,1\nb,3,-1\n")
    with pytest.raises(DataError, match=r"scores below 0 need their range declared: `scale`='MIN,MAX'.*"
                                        r"`scale`='-1,1'") as exc:
        rt.read(str(p))
    assert "`scale`=MAX" not in str(exc.value)
    m = rt.read(str(p), scale="-1,1")
    assert m.scores.tolist() == [[1.0, 0.5, 0.0], [1.0, 1.0, 0.0]]
    assert np.array_equal(rt.read(str(p), scale=(-1, 1)).scores, m.scores)
    assert 2 * m.scores.mean(axis=1) - 1 == pytest.approx([0.0, 1 / 3], abs=1e-15)   # the harness's own mean
    with rt.Store(str(tmp_path / "s.duckdb")) as st:
        st.ingest(str(p), options=ReadOptions(scale="-1,1"))
        assert np.array_equal(st.matrix().scores, m.scores)
    with pytest.raises(DataError, match="`scale` must be a positive number.*the score range 'MIN,MAX'"):
        rt.read(str(p), scale="1,-1")


def test_cli_scale_range_and_ingest_creates_no_store_on_failure(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("idk.csv").write_text("model,item,score\na,1,1\na,2,0\nb,1,-1\nb,2,1\n")
    code, out, err = run_cli(capsys, "ingest", "idk.csv", "--db", "new.duckdb")
    assert code == 1 and "--scale MIN,MAX" in err and "--scale -1,1" in err and not os.path.exists("new.duckdb")
    code, out, err = run_cli(capsys, "ingest", "nope.csv", "--db", "new.duckdb")
    assert code == 1 and "nope.csv: no such file or directory" in err and not os.path.exists("new.duckdb")
    code, out, err = run_cli(capsys, "ingest", "idk.csv", "--db", "new.duckdb", "--scale", "-1,1")
    assert code == 0 and os.path.exists("new.duckdb")
    # an empty store says so, in the command's words (no Python signature)
    rt.Store("empty.duckdb").close()
    code, out, err = run_cli(capsys, "report", "--db", "empty.duckdb")
    assert code == 1 and "the store holds no results; add some with `ranktrust ingest FILES --db STORE`" in err


def test_inspect_two_revisions_same_sample_ids_other_questions_are_refused(harness_logs, tmp_path):
    """Two models' logs of one task whose sample ids match but whose inputs do not (a revised dataset)."""
    new = harness_logs / "inspect_ai" / "0.3.285"
    a = new / "2026-11-29T09-10-20-00-00_mcq-tiny_nVEZESByN9sM7H2pRSRG7z.json"      # mockllm/model
    b = new / "2026-11-29T09-10-28-00-00_mcq-tiny_3gXNZS8ZBjdB8A8GKRtooo.json"      # mockllm/oracle-75
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(a, folder)
    log = json.loads(b.read_text())
    keys = ("input", "target", "choices", "metadata")
    qs = [tuple(s.get(k) for k in keys) for s in log["samples"]]
    for s, q in zip(log["samples"], qs[1:] + qs[:1]):   # each id now holds the next question
        s.update(zip(keys, q))
    (folder / b.name).write_text(json.dumps(log))
    with pytest.raises(DataError, match=r"oracle-75'\): 32 of its 32 samples of task 'mcq_tiny' hold another input"
                                        r".*mockllm/model") as exc:
        rt.read(str(folder))
    assert exc.value.param == "item"
    by_content = rt.read(str(folder), item="doc_hash")   # each question under its content key: 32 shared
    assert by_content.n_items == 32 and by_content.is_complete
    # the genuine pair (and the .eval and .json of every model, written by two inspect versions) is read as it was
    m = rt.read(str(new), errors="drop", align="pairwise")
    assert m.n_models == 4


def test_eee_never_defaults_to_a_failure_metric():
    from ranktrust.data.readers._eee import _choose_metric

    assert _choose_metric(["parse_error_rate", "accuracy"], None, [], "f")[0] == "accuracy"
    assert _choose_metric(["extract_fail", "acc"], None, ["extract_fail"], "f")[0] == "acc"
    with pytest.raises(DataError, match="counts failures, errors or a frequency"):
        _choose_metric(["extract_fail", "idk_freq"], None, [], "f")


def test_inspect_dict_scorer_refusal_lists_only_keys_metric_accepts():
    """scicode-bench's log (0.3.69): results.scores lists the scorer itself (its ratio metric) and one key,
    'Problem Correctness'; the samples' dicts have three keys. The hint names only the key `metric` accepts."""
    from ranktrust.data.readers._inspect import _accepted_keys

    log = {"results": {"scores": [
        {"name": "scicode_scorer", "scorer": "scicode_scorer", "metrics": {"sub_problem_correctness": {}}},
        {"name": "Problem Correctness", "scorer": "scicode_scorer", "metrics": {"mean": {}}}]}}
    keys = ["Problem Correctness", "Total Correct", "Total Steps"]
    assert _accepted_keys(log, "scicode_scorer", keys) == ["Problem Correctness"]
    assert _accepted_keys({"eval": {}}, "scicode_scorer", keys) == keys   # no results.scores: each key is checked


def test_helm_runs_whose_same_instance_holds_another_question_are_refused(tmp_path):
    """HELM's scenario_state.json carries each instance's input: two runs' "same" instance id is checked."""
    from conftest import shared_file

    src = shared_file("harness-logs/real/helm/crfm_bbq_v1/benchmark_output_bbq/runs/v1")
    runs = sorted(p for p in src.iterdir() if p.is_dir() and (p / "scenario_state.json").exists()
                  and "llama-3-8b" in p.name or "claude-3-haiku" in p.name)
    out = tmp_path / "runs"
    for p in runs:
        shutil.copytree(p, out / p.name)
    same = rt.read(str(out))
    assert same.n_models == 2 and "doc_hash" in read_long(str(out)).columns
    state = out / runs[1].name / "scenario_state.json"
    obj = json.loads(state.read_text())
    qs = [(rs["instance"]["input"], rs["instance"]["references"]) for rs in obj["request_states"]]
    for rs, (inp, refs) in zip(obj["request_states"], qs[1:] + qs[:1]):   # each id now holds the next question
        rs["instance"]["input"], rs["instance"]["references"] = inp, refs
    state.write_text(json.dumps(obj))
    with pytest.raises(DataError, match=r"different content hashes \(doc_hash\).*\(50 such items\).*`item`='doc_hash'"):
        rt.read(str(out))
    by_content = rt.read(str(out), item="doc_hash")   # the same 50 questions, each under its own content key
    assert by_content.n_items == 50 and np.array_equal(np.sort(by_content.scores.mean(axis=1)),
                                                       np.sort(same.scores.mean(axis=1)))


def test_eee_sample_hash_checks_two_models_same_sample(tmp_path):
    """EEE's sample_hash is its content key ("hash of input.raw + input.reference ... the same sample across
    models"): two models' files whose same sample_id carries another hash are refused; by content they pair."""
    src = FIX / "eee" / "helm_converter" / "None" / "mmlu" / "openai" / "gpt2" / "None_samples.jsonl"
    recs = [json.loads(x) for x in src.read_text().splitlines() if x.strip()]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(src, tmp_path / "a" / "a_samples.jsonl")
    hashes = [r["sample_hash"] for r in recs]
    for r, h in zip(recs, hashes[1:] + hashes[:1]):
        r["model_id"], r["sample_hash"] = "other/model", h
    (tmp_path / "b" / "b_samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    with pytest.raises(DataError, match=r"different content hashes \(doc_hash\).*\(10 such items\)"):
        rt.read(str(tmp_path))
    m = rt.read(str(tmp_path), item="doc_hash")
    assert m.n_models == 2 and m.n_items == 10 and sorted(m.items) == sorted(h[:16] for h in hashes)
