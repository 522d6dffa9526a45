"""Every genuine harness output in ``../shared/data/harness-logs/real/`` (see its PROVENANCE.md), read exactly.

Per-item scores are checked against the source files (parsed here independently of the readers),
aggregates against HELM's own ``stats.json`` and the SWE-bench run summary, and the model, task,
split and metric against ``ScoreMatrix.provenance``. Skips with a reason where ``../shared`` is absent.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import ranktrust as rt
from conftest import SHARED, shared_file
from ranktrust.data.readers._helm import _task_from_name
from ranktrust.reporting import note_text

REAL = "harness-logs/real"


def _real(sub: str) -> Path:
    return shared_file(f"{REAL}/{sub}")


# ------------------------------------------------------------------------------------------ HELM
def _helm_runs() -> list[str]:
    root = SHARED / REAL / "helm"
    return sorted(str(p.relative_to(root.parent)) for p in root.rglob("per_instance_stats.json")) or ["helm/<absent>"]


def _metric_of(run: str) -> str:
    return "harm_bench_score" if "harm_bench" in run else "exact_match"


def _expected_helm(run_dir: Path, metric: str) -> tuple[str, dict[str, float]]:
    """(split, {instance: mean over trials}) as HELM's summary reads it: test split, entries merged."""
    entries = json.loads((run_dir / "per_instance_stats.json").read_text())
    split_of, vals = {}, {}
    for e in entries:
        for st in e["stats"]:
            n = st["name"]
            if "perturbation" in n:
                continue
            split_of[e["instance_id"]] = n["split"]
            if n["name"] == metric:
                vals.setdefault((e["instance_id"], n["split"]), []).append(st["sum"] / st["count"])
    split = "test" if "test" in split_of.values() else sorted(set(split_of.values()))[0]
    return split, {i: sum(v) / len(v) for (i, sp), v in vals.items() if sp == split}


@pytest.mark.parametrize("run", _helm_runs())
def test_helm_run_scores_match_source_and_stats_json(run):
    pis = _real(run)
    run_dir = pis.parent
    metric = _metric_of(run)
    m = rt.read(str(pis), metric=metric)
    split, exp = _expected_helm(run_dir, metric)
    assert dict(zip(m.items, m.scores[0].tolist())) == pytest.approx(exp)
    # HELM's own aggregate for this metric and split
    (agg,) = [s for s in json.loads((run_dir / "stats.json").read_text())
              if s["name"]["name"] == metric and s["name"]["split"] == split and "perturbation" not in s["name"]]
    assert math.isclose(float(m.scores[0].mean()), agg["mean"], rel_tol=1e-12)
    # stats.json agrees: no check fires (a note of other splits left out may stand beside that)
    assert not [n for n in m.notes if getattr(n, "code", "") in ("helm_mean", "helm_instances")]
    spec = json.loads((run_dir / "run_spec.json").read_text())
    (prov,) = m.provenance.values()
    assert m.models == (spec["adapter_spec"]["model"],)
    assert prov["harness"] == "helm" and prov["split"] == split and prov["metric"] == metric
    assert prov["task"] == _task_from_name(spec["name"])
    assert prov["files"] == [str(pis)]


def test_helm_suites_read_as_folders():
    v1 = _real("helm/crfm_bbq_v1")
    m = rt.read(str(v1), align="pairwise")
    assert m.n_models == 5 and m.n_items == 50
    assert {p["task"] for p in m.provenance.values()} == {"bbq:subject=all,method=multiple_choice_joint"}
    v3 = _real("helm/crfm_safety_v3")
    hb = rt.read(str(v3), task="harm_bench", metric="harm_bench_score")
    bbq = rt.read(str(v3), task="bbq")
    assert hb.n_models == bbq.n_models == 9 and hb.n_items == bbq.n_items == 2
    eee = _real("helm/eee_fixtures")
    for task, metric, split, n in [("mmlu", "exact_match", "test", 9), ("commonsense", "exact_match", "valid", 10),
                                   ("narrative_qa", "f1_score", "test", 4)]:
        m = rt.read(str(eee), task=task, metric=metric)
        assert m.n_items == n and next(iter(m.provenance.values()))["split"] == split


# ------------------------------------------------------------------------------------- SWE-bench
RUN = "swebench/mini_swe_agent_gemini3/swebench_results/20251118_gemini-3-pro-74pct"


def test_swebench_run_folder_matches_run_summary_and_reports():
    run = _real(RUN)
    summary = json.loads((run / "results_summary.json").read_text())
    m = rt.read(str(run))
    assert m.models == ("gemini-3-pro-74pct",)
    exp = {i["instance_id"]: float(i["resolved"]) for i in summary["instances"]}
    assert dict(zip(m.items, m.scores[0].tolist())) == exp
    assert m.n_items == summary["total"] == 500
    assert int(m.scores.sum()) == summary["passed"] == 371
    assert round(100 * float(m.scores.mean()), 1) == summary["pass_rate"] == 74.2
    # every per-instance report agrees with the summary, and is not read a second time
    reports = sorted((run / "logs").glob("*/report.json"))
    assert len(reports) == 60
    for r in reports:
        assert exp[r.parent.name] == float(json.loads(r.read_text())["resolved"])
    (note,) = [n for n in map(note_text, m.notes) if "per-instance report.json" in n]   # a record, worded
    assert "60 per-instance report.json files of gemini-3-pro-74pct were checked against the run report" in note
    assert "disagree" not in note
    (prov,) = m.provenance.values()
    assert prov == {"harness": "swebench", "task": "swebench-verified", "split": None, "metric": "resolved",
                    "files": [str(run / "results_summary.json")]}


def test_swebench_every_report_json_read_exactly():
    logs = _real(RUN) / "logs"
    m = rt.read(str(logs))
    exp = {r.parent.name: float(json.loads(r.read_text())["resolved"]) for r in logs.glob("*/report.json")}
    assert dict(zip(m.items, m.scores[0].tolist())) == exp
    assert m.models == ("gemini-3-pro-74pct",)


# ------------------------------------------------------------------------------- lm-eval, inspect
def test_lm_eval_real_files_scores_and_sample_count_note():
    d = _real("lm_eval/eee/tests/data/lm_eval")
    (samples,) = d.glob("samples_*.jsonl")
    m = rt.read(str(d))
    exp = {str(json.loads(line)["doc_id"]): float(json.loads(line)["exact_match"])
           for line in samples.read_text().splitlines() if line.strip()}
    assert dict(zip(m.items, m.scores[0].tolist())) == exp
    # the results file still reports 5,000 samples beside a samples file trimmed to 10
    (note,) = m.notes   # a record (issue 23 §1); its count has fmt.count's separator, as every count printed has
    assert note.code == "lm_eval_sample_count" and (note.data["reported"], note.data["n_samples"]) == (5000, 10)
    assert "reports 5,000 samples for 'math_perturbed_full' but this samples file holds 10; only those 10 are " \
           "scored (a trimmed or partial samples file?)" in note_text(note)
    (prov,) = m.provenance.values()
    assert prov["harness"] == "lm_eval" and prov["task"] == "math_perturbed_full" and prov["metric"] == "exact_match"


@pytest.mark.parametrize("name", ["data_arc_qwen.json", "data_arc_sonnet.json", "data_pubmedqa_gpt4o_mini.json",
                                  "data_cvebench_empty_choices.json"])
def test_inspect_real_logs_scores_match_source(name):
    # data_with_llm_scoring.json (a header-only log) is covered by the inspect reader's own tests
    p = _real(f"inspect/eee/tests/data/inspect/{name}")
    log = json.loads(p.read_text())
    m = rt.read(str(p), errors="wrong")
    exp = {}
    for s in log["samples"]:
        vals = [v["value"] for v in (s.get("scores") or {}).values()]
        exp[str(s["id"])] = 0.0 if s.get("error") else float(vals[0] == "C")
    assert dict(zip(m.items, m.scores[0].tolist())) == exp
    assert m.models == (log["eval"]["model"],)


def test_detection_and_reading_search_to_the_same_depth(tmp_path):
    """Issue 16: format detection and the reader searched folders to different depths (lm-eval found logs
    3 folders down, read them 8 down). One depth now: a log 6 folders down is both detected and read."""
    import shutil

    from ranktrust.data.readers import _util, _lighteval as lighteval, _lm_eval as lm_eval

    deep = tmp_path.joinpath(*[f"d{k}" for k in range(6)])
    deep.mkdir(parents=True)
    (deep / "samples_t_2026.jsonl").write_text("{}\n")
    (deep / "details_t_2026.parquet").write_bytes(b"")
    lm, le = lm_eval.LmEvalReader(), lighteval.LightevalReader()
    assert lm.sniff(str(tmp_path)) and lm.units(str(tmp_path)) == [str(deep / "samples_t_2026.jsonl")]
    assert le.sniff(str(tmp_path)) and le.units(str(tmp_path)) == [str(deep / "details_t_2026.parquet")]
    too_deep = tmp_path / "x"
    too_deep = too_deep.joinpath(*[f"e{k}" for k in range(_util.SEARCH_DEPTH + 1)])
    too_deep.mkdir(parents=True)
    shutil.move(str(deep / "samples_t_2026.jsonl"), str(too_deep / "samples_t_2026.jsonl"))
    assert lm.units(str(tmp_path / "x")) == [] and not lm.sniff(str(tmp_path / "x"))
