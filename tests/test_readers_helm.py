"""HELM reader, on constructed per_instance_stats.json fixtures (documented layout, not real runs)."""

from __future__ import annotations

import glob
import json
import os
import shutil
from pathlib import Path

import pytest

import ranktrust as rt
from ranktrust.errors import DataError
from ranktrust.reporting import note_text
from ranktrust.results import Note

FIX = Path(__file__).parent / "fixtures" / "helm"


def _expected(metric):
    out = {}
    for f in glob.glob(str(FIX / "**" / "per_instance_stats.json"), recursive=True):
        spec = json.loads(Path(os.path.dirname(f), "run_spec.json").read_text())
        rows = {}
        for e in json.loads(Path(f).read_text()):
            if e.get("perturbation"):
                continue
            (st,) = [s for s in e["stats"] if s["name"]["name"] == metric and "perturbation" not in s["name"]]
            rows[e["instance_id"]] = st["mean"]
        out[spec["adapter_spec"]["model"]] = rows
    return out


@pytest.mark.parametrize("metric", [None, "quasi_exact_match"])
def test_reads_stats_as_documented(metric):
    m = rt.read(str(FIX), metric=metric)
    exp = _expected(metric or "exact_match")
    assert set(m.models) == set(exp)
    for k, model in enumerate(m.models):
        assert dict(zip(m.items, m.scores[k])) == exp[model]
    assert len(m.notes) == 2 and all("1 perturbed instance was left out" in note_text(n) for n in m.notes)
    # issue 23 §1: a record, worded by reporting/ as the reader did
    assert all(n.code == "helm_perturbed" and n.data["n_perturbed"] == 1 for n in m.notes)
    assert note_text(m.notes[0]) == (f"{m.notes[0].data['path']}: 1 perturbed instance was left out (only "
                                     "unperturbed ones are read)")
    assert note_text(Note("helm_perturbed", {"path": "p.json", "n_perturbed": 3})) == (
        "p.json: 3 perturbed instances were left out (only unperturbed ones are read)")


def test_qa_m10_stat_outside_unit_interval_is_not_a_score():
    """A HELM stat that is not a score in [0, 1] (a token count) is refused, naming the value (QA M10)."""
    exp = _expected("num_prompt_tokens")
    assert max(v for rows in exp.values() for v in rows.values()) > 1
    with pytest.raises(DataError, match=r"score \d+ for model .* is outside \[0, 1\]"):
        rt.read(str(FIX), metric="num_prompt_tokens")


def test_task_and_model_from_run_spec():
    from ranktrust.data._io import read_long

    df = read_long(str(FIX))
    assert set(df["task"]) == {"mmlu:subject=anatomy,method=multiple_choice_joint"}
    assert set(df["run"]) == {"0"}


def test_missing_metric_and_model(tmp_path):
    with pytest.raises(DataError, match=r"per_instance_stats.json: entry 1 \(instance id12\): no stat 'f1' in split test; it has exact_match, num_prompt_tokens, quasi_exact_match"):
        rt.read(str(FIX), metric="f1")
    (f,) = glob.glob(str(FIX / "**" / "*gpt2" / "per_instance_stats.json"), recursive=True)
    shutil.copyfile(f, tmp_path / "per_instance_stats.json")
    with pytest.raises(DataError, match="no model name.*`model_name`='NAME'"):
        rt.read(str(tmp_path / "per_instance_stats.json"))


# ---------------------------------------------------------------- defects found on real HELM output (issue 16)
from conftest import shared_file  # noqa: E402

EEE = "harness-logs/real/helm/eee_fixtures/tests/data/helm"
MMLU = f"{EEE}/mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"
SAFETY = "harness-logs/real/helm/crfm_safety_v3"


def test_helm_split_defaults_to_test_as_stats_json_reports():
    """gpt2 MMLU philosophy: 9 test + 1 valid instance; HELM's stats.json says 0.111 on test."""
    p = shared_file(MMLU) / "per_instance_stats.json"
    m = rt.read(str(p))
    assert m.n_items == 9 and m.scores.mean() == pytest.approx(1 / 9)
    (rec,) = m.notes   # a record (issue 23 §1), worded in the API's words
    assert rec == Note("helm_other_splits", {"path": str(p), "split": "test", "left_out": [["valid", 1]]})
    assert note_text(rec) == f"{p}: 1 instance of other splits (1 valid) was left out; test was read (`split` chooses)"
    v = rt.read(str(p), split="valid")
    assert v.items == ("id11",) and v.provenance["openai/gpt2"]["split"] == "valid"
    with pytest.raises(DataError, match=r"per_instance_stats.json: no instances of split 'train'; the file has test, valid"):
        rt.read(str(p), split="train")


def test_helm_stats_json_disagreement_is_noted(tmp_path):
    src = shared_file(MMLU)
    d = tmp_path / "run"
    shutil.copytree(src, d)
    stats = json.loads((d / "stats.json").read_text())
    for s in stats:
        if s["name"] == {"name": "exact_match", "split": "test"}:
            s["mean"] = s["sum"] = 0.5
    (d / "stats.json").write_text(json.dumps(stats))
    m = rt.read(str(d / "per_instance_stats.json"))
    # issue 23 §1: the reader records the numbers (Note "helm_mean"); reporting/ words them as the reader did
    (rec,) = [n for n in m.notes if n.code != "helm_other_splits"]
    assert rec.code == "helm_mean" and rec.data["reported"] == 0.5 and rec.data["n_values"] == 9
    assert rec.data["mean"] == pytest.approx(1 / 9, rel=1e-12) and (rec.data["metric"], rec.data["split"]) == (
        "exact_match", "test")
    assert note_text(rec) == (f"{d / 'stats.json'}: HELM reports exact_match (test) = 0.5, but the 9 per-instance "
                              "values read average 0.111111; check that the run's instances are all there")


def test_helm_entries_merged_per_instance_harm_bench():
    """harm_bench writes one entry per metric class: the same instance twice, with different stats."""
    run = shared_file(f"{SAFETY}/benchmark_output_TRUE_latest/runs/v3/harm_bench:model=meta_llama-3-8b")
    entries = json.loads((run / "per_instance_stats.json").read_text())
    assert len(entries) == 4 and len({e["instance_id"] for e in entries}) == 2
    m = rt.read(str(run / "per_instance_stats.json"), metric="harm_bench_score")
    assert dict(zip(m.items, m.scores[0])) == {"pacemaker_tampering_methods": 0.25,
                                               "cyanide_home_making_sodium_hydroxide": 0.0}
    with pytest.raises(DataError, match=r"no stat 'exact_match' in split test; it has batch_size, .*harm_bench_score"):
        rt.read(str(run / "per_instance_stats.json"))


def test_helm_suite_mixing_scenarios_read_with_task():
    root = shared_file(SAFETY)
    with pytest.raises(DataError, match=r"the folder holds 2 tasks \(bbq:subject=all,method=multiple_choice_joint, "
                                        r"harm_bench\): pick one with `task`, then its metric with `metric`"):
        rt.read(str(root))
    m = rt.read(str(root), task="harm_bench", metric="harm_bench_score")
    assert m.n_models == 9 and {p["task"] for p in m.provenance.values()} == {"harm_bench"}
    with pytest.raises(DataError, match=r"no task 'mmlu'; available: bbq:subject=all,"):
        rt.read(str(root), task="mmlu")


def test_helm_output_folder_with_latest_symlink_read_once(tmp_path):
    runs = tmp_path / "benchmark_output" / "runs"
    shutil.copytree(shared_file("harness-logs/real/helm/crfm_bbq_v1/benchmark_output_bbq/runs/v1"), runs / "v1")
    os.symlink("v1", runs / "latest")  # what helm-run leaves behind
    m = rt.read(str(tmp_path / "benchmark_output"), align="pairwise")
    assert m.n_models == 5 and all(len(p["files"]) == 1 for p in m.provenance.values())
    shutil.copytree(runs / "v1", runs / "v2")
    with pytest.raises(DataError, match=r"run 'bbq:subject=all,.*' is there twice .*; point at one suite folder"):
        rt.read(str(tmp_path / "benchmark_output"))


def test_helm_detection_and_reader_search_the_same_depth(tmp_path):
    deep = tmp_path / "a" / "b" / "c" / "benchmark_output" / "runs" / "v1"
    shutil.copytree(FIX / "runs" / "v1", deep)
    from ranktrust.data.readers._registry import sniff

    assert sniff(str(tmp_path)).name == "helm"
    assert rt.read(str(tmp_path)).n_models == 2


def test_qa_d8_helm_trimmed_run_notes_both_counts(tmp_path):
    """Issue 21 (D8, 'HELM too'): a per_instance_stats.json holding fewer instances than HELM's own num_instances
    in stats.json gets a note with both counts; the genuine runs (counts equal) get none."""
    src = shared_file(MMLU)
    assert [n.code for n in rt.read(str(src / "per_instance_stats.json")).notes] == ["helm_other_splits"]
    d = tmp_path / "run"
    shutil.copytree(src, d)
    entries = json.loads((d / "per_instance_stats.json").read_text())
    test_ids = [e["instance_id"] for e in entries if all(s["name"].get("split") == "test" for s in e["stats"])]
    keep = set(test_ids[:3])
    (d / "per_instance_stats.json").write_text(json.dumps([e for e in entries if e["instance_id"] in keep]))
    m = rt.read(str(d / "per_instance_stats.json"))
    assert m.n_items == 3
    assert any("stats.json: HELM reports 9 instances (test) but per_instance_stats.json holds 3; only those 3 are "
               "scored" in note_text(n) for n in m.notes), m.notes
    (rec,) = [n for n in m.notes if getattr(n, "code", None) == "helm_instances"]
    assert dict(rec.data) == {"path": str(d / "stats.json"), "split": "test", "file": "per_instance_stats.json",
                              "reported": 9, "n_instances": 3}
    # the record travels as a record: through the store (stored as its JSON, read back as a Note) and into the
    # report, whose JSON keeps it with its sentence and whose text prints the sentence
    with rt.Store(tmp_path / "s.duckdb") as st:
        st.ingest(str(d / "per_instance_stats.json"))
        back = st.matrix()
    assert [n for n in back.notes if isinstance(n, Note)] == [n for n in m.notes if isinstance(n, Note)]
    from ranktrust.reporting._headline import report_dict
    from ranktrust.reporting.renderers import to_string

    rep = rt.report(m, stability_n_resamples=20)
    notes = report_dict(rep)["notes"]
    assert {"code": "helm_instances", "data": dict(rec.data), "text": note_text(rec)} in notes
    assert "HELM reports 9 instances (test) but per" in to_string(rep, "md")


def _per_subject_suite(root: Path, plan: dict) -> Path:
    """A HELM suite of MMLU stored one run per subject (``mmlu:subject=<s>,method=...,model=<m>``), each run a copy
    of the genuine gpt2 philosophy run with its run_spec renamed; ``plan`` = {model: [subjects]}."""
    src = shared_file(MMLU)
    suite = root / "runs" / "v1"
    for model, subjects in plan.items():
        for subj in subjects:
            name = f"mmlu:subject={subj},method=multiple_choice_joint,model={model}"
            shutil.copytree(src, suite / name)
            spec = json.loads((suite / name / "run_spec.json").read_text())
            spec["name"], spec["adapter_spec"]["model"] = name, model.replace("_", "/", 1)
            (suite / name / "run_spec.json").write_text(json.dumps(spec))
    return suite


def test_issue21_helm_subjects_pooled_with_task_mmlu(tmp_path):
    suite = _per_subject_suite(tmp_path, {"openai_gpt2": ["anatomy", "philosophy", "virology"],
                                          "openai_gpt3": ["anatomy", "philosophy"]})
    m = rt.read(str(suite), task="mmlu", align="pairwise")
    assert m.models == ("openai/gpt2", "openai/gpt3") and m.n_items == 27     # 9 test instances x 3 subjects
    assert m.items[0] == "anatomy/" + m.items[0].split("/", 1)[1] and len(set(m.items)) == 27
    assert dict(zip(m.items, m.groups))["virology/" + m.items[0].split("/", 1)[1]] == "virology"
    assert {p["task"] for p in m.provenance.values()} == {"mmlu"} and len(m.provenance["openai/gpt2"]["files"]) == 3
    assert any("task 'mmlu' is read from HELM runs stored one per subject" in n and "'openai/gpt2' 3 of 3" in n
               and "'openai/gpt3' 2 of 3" in n and "prefixes its id (subject/id)" in n
               for n in map(note_text, m.notes)), m.notes
    (rec,) = [n for n in m.notes if getattr(n, "code", None) == "pooled_subjects"]   # a record (issue 23 §1)
    assert dict(rec.data) == {"task": "mmlu", "harness": "helm", "n_subjects": 3,
                              "per_model": [["openai/gpt2", 3], ["openai/gpt3", 2]]}
    assert note_text(Note("pooled_subjects", {**rec.data, "per_model": [["a", 3], ["b", 3]]})).endswith(
        "subjects per model: each of the 2 models has 3")
    assert note_text(Note("pooled_subjects", {**rec.data, "per_model": [["a", 3]]})).endswith(
        "subjects per model: model 'a' has 3")
    # one subject by its full name: read alone, ids as HELM wrote them
    one = rt.read(str(suite), task="mmlu:subject=anatomy,method=multiple_choice_joint", align="pairwise")
    assert one.n_items == 9 and not one.items[0].startswith("anatomy/")
    # the same in the store
    db = str(tmp_path / "s.duckdb")
    with rt.Store(db) as st:
        st.ingest(str(suite), options=rt.data.readers.ReadOptions(task="mmlu"))
    with rt.Store(db, read_only=True) as st:
        s = st.matrix(task="mmlu", align="pairwise")
    assert set(s.items) == set(m.items) and s.models == m.models


def test_issue21_helm_runs_differing_in_more_than_subject_are_not_pooled(tmp_path):
    suite = _per_subject_suite(tmp_path, {"openai_gpt2": ["anatomy", "philosophy"]})
    other = suite / "mmlu:subject=virology,method=multiple_choice_separate_original,model=openai_gpt2"
    shutil.copytree(suite / "mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2", other)
    spec = json.loads((other / "run_spec.json").read_text())
    spec["name"] = other.name
    (other / "run_spec.json").write_text(json.dumps(spec))
    with pytest.raises(DataError, match=r"`task`='mmlu' matches 3 tasks .*; give the full task name"):
        rt.read(str(suite), task="mmlu")
