"""lm-evaluation-harness reader: every real sample file, checked against the raw JSON."""

from __future__ import annotations

import glob
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import ranktrust as rt
from ranktrust.data._io import read_long
from ranktrust.errors import DataError, FormatError
from ranktrust.reporting import note_text


@pytest.fixture(scope="module")
def lm_dir(harness_logs):
    return str(harness_logs / "lm_eval" / "0.4.13")


def _raw(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _model(dirpath):
    (res,) = glob.glob(os.path.join(dirpath, "results_*.json"))
    with open(res) as fh:
        return json.load(fh)["model_name"]


@pytest.mark.parametrize("task,metric", [("mcq_tiny_lm", "acc"), ("mcq_tiny_lm", "acc_norm"),
                                         ("mcq_tiny_lm_gen", "exact_match")])
def test_every_samples_file_matches_raw_json(lm_dir, task, metric):
    from ranktrust.data.readers._registry import ReadOptions

    df = read_long(lm_dir, options=ReadOptions(task=task, metric=metric))
    for d in sorted(glob.glob(os.path.join(lm_dir, "*"))):
        (samples,) = [p for p in glob.glob(os.path.join(d, f"samples_{task}_2*.jsonl"))]
        raw = _raw(samples)
        expected = {str(r["doc_id"]): float(r[metric]) for r in raw}
        got = df[df["model"] == _model(d)]
        assert len(got) == len(expected) == 32
        assert dict(zip(got["item"], got["score"])) == expected
        assert set(got["task"]) == {task} and set(got["metric"]) == {metric}
        assert dict(zip(got["item"], got["doc_hash"])) == {str(r["doc_id"]): r["doc_hash"] for r in raw}
        assert dict(zip(got["item"], got["group"])) == {str(r["doc_id"]): r["doc"]["subject"] for r in raw}


def test_means_equal_results_json_and_readme(lm_dir):
    for metric in ("acc", "acc_norm"):
        m = rt.read(lm_dir, task="mcq_tiny_lm", metric=metric)
        for k, model in enumerate(m.models):
            d = os.path.join(lm_dir, "__opt__models__tinylm__" + model.rsplit("/", 1)[1])
            (res,) = glob.glob(os.path.join(d, "results_*.json"))
            with open(res) as fh:
                agg = json.load(fh)["results"]["mcq_tiny_lm"][f"{metric},none"]
            assert m.scores[k].mean() == pytest.approx(agg, abs=1e-12)
    m = rt.read(lm_dir, task="mcq_tiny_lm")  # default metric: acc (first of `metrics`)
    np.testing.assert_allclose(m.scores.mean(axis=1), [0.15625, 0.25, 0.25])
    assert m.groups is not None and set(m.groups) == {"arithmetic", "geography", "science"}


def test_several_tasks_need_task(lm_dir):
    with pytest.raises(DataError, match="mcq_tiny_lm, mcq_tiny_lm_gen.*`task`='NAME'") as exc:
        rt.read(lm_dir)
    assert exc.value.param == "task"


def _copy_model_dir(lm_dir, tmp_path, name="__opt__models__tinylm__seed1"):
    dst = tmp_path / name
    shutil.copytree(os.path.join(lm_dir, name), dst)
    os.chmod(dst, 0o755)
    for p in dst.iterdir():
        os.chmod(p, 0o644)
    return dst


def test_truncated_line_names_file_and_line(lm_dir, tmp_path):
    d = _copy_model_dir(lm_dir, tmp_path)
    (p,) = d.glob("samples_mcq_tiny_lm_2*.jsonl")
    text = p.read_text()
    p.write_text(text[: len(text) - 200])  # cut inside the last line
    with pytest.raises(DataError, match=r"samples_mcq_tiny_lm_2.*line 32 is not valid JSON.*truncated"):
        rt.read(str(p))


def test_unknown_version(lm_dir, tmp_path):
    d = _copy_model_dir(lm_dir, tmp_path)
    (res,) = d.glob("results_*.json")
    obj = json.loads(res.read_text())
    obj["lm_eval_version"] = "0.9.1"
    res.write_text(json.dumps(obj))
    with pytest.raises(FormatError, match=r"results_.*json: lm_eval_version '0.9.1'.*known: 0\.4\.x"):
        rt.read(str(d), task="mcq_tiny_lm")


def test_sample_without_metric(lm_dir):
    (p,) = glob.glob(os.path.join(lm_dir, "__opt__models__tinylm__seed1", "samples_mcq_tiny_lm_2*.jsonl"))
    with pytest.raises(DataError, match=r"samples_mcq_tiny_lm_2.*line 1: the sample has no metric 'f1'; it has acc, acc_norm"):
        rt.read(p, metric="f1")


def test_missing_model_name(lm_dir, tmp_path):
    (p,) = glob.glob(os.path.join(lm_dir, "__opt__models__tinylm__seed1", "samples_mcq_tiny_lm_2*.jsonl"))
    q = tmp_path / os.path.basename(p)
    shutil.copyfile(p, q)
    with pytest.raises(DataError, match="no model name.*`model_name`='NAME'"):
        rt.read(str(q))
    m = rt.read(str(q), model_name="tiny")
    assert m.models == ("tiny",)


def test_doc_hash_mismatch_names_item(lm_dir, tmp_path):
    _copy_model_dir(lm_dir, tmp_path, "__opt__models__tinylm__seed1")
    d2 = _copy_model_dir(lm_dir, tmp_path, "__opt__models__tinylm__seed2")
    (p,) = d2.glob("samples_mcq_tiny_lm_2*.jsonl")
    lines = p.read_text().splitlines()
    rec = json.loads(lines[4])
    rec["doc_hash"] = "0" * 64
    lines[4] = json.dumps(rec)
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"line 5: item 4 of task 'mcq_tiny_lm' has doc_hash 000000000000.*do not align"):
        rt.read(str(tmp_path), task="mcq_tiny_lm")


def _group_output(lm_dir, root, plan: dict, distinct: bool = True):
    """lm-eval output of a group task stored one samples file per subtask (``mmlu`` -> ``mmlu_stem`` ->
    ``mmlu_abstract_algebra`` ...), as lm-eval 0.4 writes a group: ``group_subtasks`` in the results file.
    Each subtask's samples are the genuine mcq_tiny_lm samples of that seed (cut to a different length per
    subject, so the files differ); ``plan`` = {seed folder: [subjects]}. ``distinct``: each subject's questions
    get its name in front (real subtasks hold different questions; pooled copies of one question are refused)."""
    tree = {"mmlu": ["mmlu_stem", "mmlu_humanities"], "mmlu_stem": ["mmlu_abstract_algebra", "mmlu_anatomy"],
            "mmlu_humanities": ["mmlu_philosophy"]}
    for seed, subjects in plan.items():
        src = os.path.join(lm_dir, seed)
        (res,) = glob.glob(os.path.join(src, "results_*.json"))
        ts = os.path.basename(res)[len("results_"):-len(".json")]
        (samples,) = glob.glob(os.path.join(src, "samples_mcq_tiny_lm_2*.jsonl"))
        lines = Path(samples).read_text().splitlines()
        d = root / seed
        d.mkdir(parents=True)
        obj = json.loads(Path(res).read_text())
        obj["group_subtasks"], obj["n-samples"] = tree, {}
        for k, subj in enumerate(subjects):
            keep = lines[: len(lines) - k]
            if distinct:
                recs = [json.loads(x) for x in keep]
                for r in recs:
                    r["doc"]["question"] = f"[{subj}] " + r["doc"]["question"]
                keep = [json.dumps(r) for r in recs]
            (d / f"samples_mmlu_{subj}_{ts}.jsonl").write_text("\n".join(keep) + "\n")
            obj["n-samples"][f"mmlu_{subj}"] = {"original": len(keep), "effective": len(keep)}
        (d / f"results_{ts}.json").write_text(json.dumps(obj))
    return root


def test_issue21_lm_eval_subtasks_pooled_with_task_group(lm_dir, tmp_path):
    seeds = sorted(os.listdir(lm_dir))[:2]
    out = _group_output(lm_dir, tmp_path / "out", {seeds[0]: ["abstract_algebra", "anatomy", "philosophy"],
                                                   seeds[1]: ["abstract_algebra", "philosophy"]})
    m = rt.read(str(out), task="mmlu", align="pairwise")
    assert m.n_models == 2 and {i.split("/")[0] for i in m.items} == {"abstract_algebra", "anatomy", "philosophy"}
    n = len(_raw(glob.glob(os.path.join(lm_dir, seeds[0], "samples_mcq_tiny_lm_2*.jsonl"))[0]))
    assert m.n_items == n + (n - 1) + (n - 1) and len(set(m.items)) == m.n_items   # philosophy: n-2 and n-1 items
    assert "abstract_algebra/0" in m.items and dict(zip(m.items, m.groups))["anatomy/0"] == "anatomy"
    assert any("task 'mmlu' is read from lm-eval subtasks stored one per subject" in x and "3 of 3" in x
               and "2 of 3" in x for x in map(note_text, m.notes)), m.notes
    # the scores are the samples' own
    raw = {str(r["doc_id"]): float(r["acc"]) for r in _raw(glob.glob(os.path.join(lm_dir, seeds[0],
                                                                                "samples_mcq_tiny_lm_2*.jsonl"))[0])}
    row = dict(zip(m.items, m.scores[m.index_of(_model(os.path.join(lm_dir, seeds[0])))]))
    assert all(row[f"anatomy/{k}"] == v for k, v in raw.items() if f"anatomy/{k}" in row)
    # a subtask by its own name: unpooled, ids as written
    one = rt.read(str(out), task="mmlu_anatomy")
    assert one.n_items == n - 1 and "0" in one.items
    # ingest pools the same way
    db = str(tmp_path / "s.duckdb")
    from ranktrust.data.readers._registry import ReadOptions

    with rt.Store(db) as st:
        st.ingest(str(out), options=ReadOptions(task="mmlu"))
    with rt.Store(db, read_only=True) as st:
        assert set(st.matrix(task="mmlu", align="pairwise").items) == set(m.items)


def test_pooled_subtasks_read_with_different_filters_are_noted(lm_dir, tmp_path):
    """bbh-like: one subtask scored through filter 'none', another through 'get-answer' (issue 31, review E4)."""
    seeds = sorted(os.listdir(lm_dir))[:1]
    out = _group_output(lm_dir, tmp_path / "out", {seeds[0]: ["abstract_algebra", "anatomy"]})
    (p,) = (out / seeds[0]).glob("samples_mmlu_anatomy_*.jsonl")
    recs = [json.loads(x) for x in p.read_text().splitlines()]
    for r in recs:
        r["filter"] = "get-answer"
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    m = rt.read(str(out), task="mmlu")
    (note,) = [n for n in m.notes if n.code == "lm_eval_pooled_filters"]
    assert note.data["filters"] == [["mmlu_abstract_algebra", ["none"]], ["mmlu_anatomy", ["get-answer"]]]
    assert "were read with different filters (mmlu_abstract_algebra: none; mmlu_anatomy: get-answer)" in \
        note_text(note)
