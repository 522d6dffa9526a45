"""EvalPlus eval_results.json on genuine files (tests/data/evalplus/, SOURCES.md there: evalplus/evalplus @ 7887006,
Apache-2.0; solutions and failing inputs cut out).

EvalPlus's own aggregation is recomputed with its rule, written out here: per task, n samples and c correct (base:
``base_status == "pass"``; plus: ``base_status == plus_status == "pass"``); pass@1 = mean over tasks of
1 - C(n-c, 1)/C(n, 1) = c/n (``estimate_pass_at_k``), printed with three decimals.
"""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

import numpy as np
import pytest

import ranktrust as rt
from ranktrust.data.readers import ReadOptions
from ranktrust.errors import DataError, FormatError

DATA = Path(__file__).parent / "data" / "evalplus"
HE = DATA / "humaneval"
LLAMA = HE / "meta-llama--Meta-Llama-3-8B-Instruct_vllm_temp_0.0-sanitized_eval_results.json"


def evalplus_pass_at_1(path: Path, metric: str) -> float:
    ev = json.loads(path.read_text())["eval"]
    vals = []
    for samples in ev.values():
        n = len(samples)
        if metric == "base":
            c = sum(s["base_status"] == "pass" for s in samples)
        else:
            c = sum(s["base_status"] == s["plus_status"] == "pass" for s in samples)
        vals.append(1.0 if n - c < 1 else 1 - comb(n - c, 1) / comb(n, 1))
    return float(np.mean(vals))


@pytest.mark.parametrize("metric", ["plus", "base"])
def test_every_model_equals_evalplus_pass_at_1(metric):
    files = sorted(DATA.glob("*/*.json"))
    assert len(files) == 6
    for f in files:
        df = rt.read_long(str(f), options=ReadOptions(metric=None if metric == "plus" else metric))
        assert df.metric.unique().tolist() == [metric]
        assert df.score.mean() == pytest.approx(evalplus_pass_at_1(f, metric), abs=1e-12)


def test_llama3_instruct_printed_figures():
    """EvalPlus prints pass@1 with three decimals: humaneval 0.640 (base), humaneval+ 0.573 (plus)."""
    plus = rt.read_long(str(LLAMA)).score.mean()
    base = rt.read_long(str(LLAMA), options=ReadOptions(metric="base")).score.mean()
    assert f"{base:.3f}" == "0.640" and f"{plus:.3f}" == "0.573"
    assert base == pytest.approx(105 / 164, abs=1e-15) and plus == pytest.approx(94 / 164, abs=1e-15)


def test_plus_needs_base_and_plus_both():
    """HumanEval/9 of Llama-3-8B-Instruct fails base and passes plus: EvalPlus counts it as a plus failure."""
    df = rt.read_long(str(LLAMA)).set_index("item")
    assert df.loc["HumanEval/9", "score"] == 0.0
    base = rt.read_long(str(LLAMA), options=ReadOptions(metric="base")).set_index("item")
    assert base.loc["HumanEval/9", "score"] == 0.0 and base.loc["HumanEval/0", "score"] == 1.0


def test_folder_reads_each_model_and_names_them_after_the_file():
    m = rt.read(str(HE))
    assert m.n_models == 4 and m.n_items == 164 and m.is_binary and m.is_complete
    assert "meta-llama--Meta-Llama-3-8B-Instruct_vllm_temp_0.0-sanitized" in m.models


def test_two_datasets_in_one_folder_refused_then_chosen_with_task():
    with pytest.raises(DataError, match=r"2 datasets \(humaneval, mbpp\); choose one with `task`"):
        rt.read_long(str(DATA))
    df = rt.read_long(str(DATA), options=ReadOptions(task="mbpp"))
    assert df.task.unique().tolist() == ["mbpp"] and df.model.nunique() == 2 and len(df) == 2 * 378


def test_unknown_metric_and_different_dataset_versions_refused(tmp_path):
    with pytest.raises(DataError, match=r"no metric 'pass@1' in EvalPlus results; they have plus"):
        rt.read_long(str(LLAMA), options=ReadOptions(metric="pass@1"))
    d = tmp_path / "runs"
    d.mkdir()
    obj = json.loads(LLAMA.read_text())
    (d / "a_eval_results.json").write_text(json.dumps(obj))
    obj["hash"] = "0" * 32
    (d / "b_eval_results.json").write_text(json.dumps(obj))
    with pytest.raises(DataError, match=r"b_eval_results.json: dataset hash 0{32} differs from fe585eb4"):
        rt.read_long(str(d))


def test_several_samples_per_task_are_runs_and_pass_at_1(tmp_path):
    obj = {"date": "2024-08-08 17:18", "hash": "h", "eval": {
        "HumanEval/0": [{"task_id": "HumanEval/0", "base_status": "pass", "plus_status": "pass"},
                        {"task_id": "HumanEval/0", "base_status": "pass", "plus_status": "fail"}],
        "HumanEval/1": [{"task_id": "HumanEval/1", "base_status": "fail", "plus_status": "fail"},
                        {"task_id": "HumanEval/1", "base_status": "pass", "plus_status": "pass"}]}}
    p = tmp_path / "m_temp_0.8_eval_results.json"
    p.write_text(json.dumps(obj))
    m = rt.read(str(p))
    assert m.n_runs == 2 and m.models == ("m_temp_0.8",)
    assert float(np.mean(m.scores)) == pytest.approx(evalplus_pass_at_1(p, "plus"), abs=1e-15) == 0.5


def test_old_layout_and_base_only_refused_in_one_line(tmp_path):
    p = tmp_path / "eval_results.json"
    p.write_text(json.dumps({"hash": "h", "eval": {"HumanEval/0": {"nfiles": 1, "base": [["success", []]],
                                                                   "plus": [["success", []]]}}}))
    with pytest.raises(FormatError, match=r"evalplus 0.2.0 or earlier"):
        rt.read_long(str(p))
    p.write_text(json.dumps({"hash": "h", "eval": {"HumanEval/0": [{"task_id": "HumanEval/0", "base_status": "pass",
                                                                    "plus_status": None}]}}))
    with pytest.raises(DataError, match=r"no plus status \(run with --base-only\?\); read the base tests"):
        rt.read_long(str(p))
    assert rt.read_long(str(p), options=ReadOptions(metric="base")).model.tolist() == [tmp_path.name]


def test_sniffed_only_as_evalplus():
    from ranktrust.data.readers._registry import accepting

    for f in DATA.glob("*/*.json"):
        assert [r.name for r in accepting(str(f))] == ["evalplus"]
