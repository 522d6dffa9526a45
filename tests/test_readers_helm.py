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

FIX = Path(__file__).parent / "fixtures" / "helm"


def _expected(metric):
    out = {}
    for f in glob.glob(str(FIX / "**" / "per_instance_stats.json"), recursive=True):
        spec = json.load(open(os.path.join(os.path.dirname(f), "run_spec.json")))
        rows = {}
        for e in json.load(open(f)):
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
    assert len(m.notes) == 2 and all("1 perturbed instances were left out" in n for n in m.notes)


def test_qa_m10_stat_outside_unit_interval_is_not_a_score():
    """A HELM stat that is not a score in [0, 1] (a token count) is refused, naming the value (QA M10)."""
    exp = _expected("num_prompt_tokens")
    assert max(v for rows in exp.values() for v in rows.values()) > 1
    with pytest.raises(DataError, match=r"score \d+ for model .* is outside \[0, 1\]"):
        rt.read(str(FIX), metric="num_prompt_tokens")


def test_task_and_model_from_run_spec():
    from ranktrust.data.io import read_long

    df = read_long(str(FIX))
    assert set(df["task"]) == {"mmlu:subject=anatomy,method=multiple_choice_joint"}
    assert set(df["run"]) == {"0"}


def test_missing_metric_and_model(tmp_path):
    with pytest.raises(DataError, match=r"per_instance_stats.json: entry 1 \(instance id12\): no stat 'f1' in split test; it has exact_match, num_prompt_tokens, quasi_exact_match"):
        rt.read(str(FIX), metric="f1")
    (f,) = glob.glob(str(FIX / "**" / "*gpt2" / "per_instance_stats.json"), recursive=True)
    shutil.copyfile(f, tmp_path / "per_instance_stats.json")
    with pytest.raises(DataError, match="no model name.*--model-name"):
        rt.read(str(tmp_path / "per_instance_stats.json"))
