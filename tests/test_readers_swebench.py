"""SWE-bench results reader: harness report, experiments results.json, per-instance dicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ranktrust as rt
from ranktrust.data.io import read_long
from ranktrust.errors import DataError

FIX = Path(__file__).parent / "fixtures"


def test_harness_report_uses_submitted_ids():
    p = FIX / "swebench" / "report" / "gpt-4o-2024-08-06.run_1.json"
    raw = json.loads(p.read_text())
    m = rt.read(str(p))
    assert m.models == ("gpt-4o-2024-08-06",)
    assert list(m.items) == raw["submitted_ids"]
    assert dict(zip(m.items, m.scores[0])) == {i: float(i in raw["resolved_ids"]) for i in raw["submitted_ids"]}
    assert m.groups[m.items.index("django__django-11099")] == "django/django"
    assert "494 of the dataset's 500 instances were not submitted" in m.notes[0]


def test_experiments_results_json_and_per_instance_reports():
    p = FIX / "swebench" / "experiments" / "20240620_sweagent_claude3.5sonnet" / "results" / "results.json"
    raw = json.loads(p.read_text())
    m = rt.read(str(p))
    assert m.models == ("sweagent_claude3.5sonnet",)
    universe = {i for v in raw.values() for i in v}
    assert dict(zip(m.items, m.scores[0])) == {i: float(i in raw["resolved"]) for i in universe}
    df = read_long(str(FIX / "swebench" / "logs"))
    exp = {}
    for r in (FIX / "swebench" / "logs").rglob("report.json"):
        ((iid, v),) = json.loads(r.read_text()).items()
        exp[iid] = float(v["resolved"])
    assert dict(zip(df["item"], df["score"])) == exp and set(df["model"]) == {"my-agent"}


def test_directory_of_three_layouts():
    m = rt.read(str(FIX / "swebench"))
    assert sorted(m.models) == ["gpt-4o-2024-08-06", "my-agent", "sweagent_claude3.5sonnet"]
    assert m.n_items == 6 and m.is_complete


def test_bad_inputs():
    with pytest.raises(DataError, match=r"only_resolved.json: the file lists only resolved, not every instance of the run.*pass --dataset lite\|verified\|full"):
        rt.read(str(FIX / "swebench_bad" / "only_resolved.json"), format="swebench", model_name="x")
    p = FIX / "swebench_dicts" / "agent_results.json"
    with pytest.raises(DataError, match="no model name.*--model-name"):
        rt.read(str(p))
    raw = json.loads(p.read_text())
    m = rt.read(str(p), model_name="agent")
    assert dict(zip(m.items, m.scores[0])) == {k: float(v["resolved"]) for k, v in raw.items()}
