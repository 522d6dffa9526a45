"""SWE-bench results reader: harness report, experiments results.json, per-instance dicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ranktrust as rt
from ranktrust.data._io import read_long
from ranktrust.errors import DataError, FormatError
from ranktrust.reporting import note_text
from ranktrust.results import Note

FIX = Path(__file__).parent / "fixtures"


def test_harness_report_uses_submitted_ids():
    p = FIX / "swebench" / "report" / "gpt-4o-2024-08-06.run_1.json"
    raw = json.loads(p.read_text())
    m = rt.read(str(p))
    assert m.models == ("gpt-4o-2024-08-06",)
    assert list(m.items) == raw["submitted_ids"]
    assert dict(zip(m.items, m.scores[0])) == {i: float(i in raw["resolved_ids"]) for i in raw["submitted_ids"]}
    assert m.groups[m.items.index("django__django-11099")] == "django/django"
    assert m.notes[0] == Note("swebench_not_submitted", {"path": str(p), "n_unsent": 494, "total": 500})
    assert note_text(m.notes[0]) == (f"{p}: 494 of the dataset's 500 instances were not submitted and are not in "
                                     "the matrix (`dataset` scores them as unresolved)")


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
    with pytest.raises(DataError, match=r"only_resolved.json: the file lists only resolved, not every instance of the run.*pass `dataset`='lite\|verified\|full'"):
        rt.read(str(FIX / "swebench_bad" / "only_resolved.json"), format="swebench", model_name="x")
    p = FIX / "swebench_dicts" / "agent_results.json"
    with pytest.raises(DataError, match="no model name.*`model_name`='NAME'"):
        rt.read(str(p))
    raw = json.loads(p.read_text())
    m = rt.read(str(p), model_name="agent")
    assert dict(zip(m.items, m.scores[0])) == {k: float(v["resolved"]) for k, v in raw.items()}


# ---------------------------------------------------------- defects found on real SWE-bench output (issue 16)
import shutil  # noqa: E402

from conftest import shared_file  # noqa: E402
from ranktrust.data.readers._swebench import dataset_ids  # noqa: E402

RUN = "harness-logs/real/swebench/mini_swe_agent_gemini3/swebench_results/20251118_gemini-3-pro-74pct"


def _verified_run_results(tmp_path, lists):
    """An experiments-style ``<date>_<model>/results/results.json`` holding only ``lists``."""
    d = tmp_path / "20251118_agent" / "results"
    d.mkdir(parents=True)
    (d / "results.json").write_text(json.dumps(lists, indent=2))
    return d / "results.json"


def test_swebench_partial_lists_never_become_the_denominator(tmp_path):
    """'resolved' beside a few failure lists: 54 of 300 resolved must read 18%, not 54 / (listed ids)."""
    ids = dataset_ids("verified")
    lists = {"resolved": ids[:90], "no_apply": ids[90:100], "test_errored": ids[100:104]}
    p = _verified_run_results(tmp_path, lists)
    with pytest.raises(DataError, match=r"results.json: the file lists only resolved, no_apply, test_errored, not every "
                                        r"instance of the run.*pass `dataset`='lite\|verified\|full'"):
        rt.read(str(p))
    m = rt.read(str(p), dataset="verified")
    assert m.n_items == 500 and m.scores.mean() == pytest.approx(90 / 500)
    assert m.provenance["agent"]["task"] == "swebench-verified"
    assert any("396 of the 500 SWE-bench Verified instances are not in the results and were scored unresolved "
               "(`dataset`)" in n for n in map(note_text, m.notes))
    # a task list beside the run gives the denominator too
    (p.parent.parent / "all_preds.jsonl").write_text("".join(json.dumps({"instance_id": i, "model_patch": "resolved"})
                                                            + "\n" for i in ids[:300]))
    m = rt.read(str(p))
    assert m.n_items == 300 and m.scores.mean() == pytest.approx(90 / 300)
    # lists that together are exactly one dataset's instances are the denominator themselves
    lite = dataset_ids("lite")
    m = rt.read(str(_verified_run_results(tmp_path / "lite", {"generated": lite[:280], "no_generation": lite[280:],
                                                              "resolved": lite[:54]})))
    assert m.n_items == 300 and m.scores.mean() == pytest.approx(0.18)
    with pytest.raises(DataError, match=r"not every instance of the run"):  # 249 of them: not a whole dataset
        rt.read(str(_verified_run_results(tmp_path / "part", {"generated": lite[:249], "no_generation": [],
                                                              "resolved": lite[:54]})))
    with pytest.raises(DataError, match=r": 1 instance is not in SWE-bench Verified \(e.g. nope__nope-1\); is `dataset`='verified'"):
        rt.read(str(_verified_run_results(tmp_path / "x", {"resolved": ["nope__nope-1"]})), dataset="verified")


def test_swebench_harness_report_with_only_resolved_ids_is_refused(tmp_path):
    p = tmp_path / "agent.run1.json"
    p.write_text(json.dumps({"total_instances": 500, "resolved_ids": ["django__django-11099"], "schema_version": 2}))
    with pytest.raises(DataError, match=r"agent.run1.json: the file lists only resolved_ids, not every instance"):
        rt.read(str(p))


def test_swebench_per_instance_reports_alone_say_how_many_are_missing(tmp_path):
    logs = shared_file(RUN) / "logs"
    m = rt.read(str(logs))
    assert m.n_items == 60
    (rec,) = m.notes   # a record (issue 23 §1), worded in reporting/
    assert rec.code == "swebench_missing_instances" and (rec.data["n_scored"], rec.data["n_listed"],
                                                         rec.data["n_missing"]) == (60, 500, 440)
    note = note_text(rec)
    assert "MISSING INSTANCES: only the 60 instances with a report.json are scored" in note
    assert "results_summary.json lists 500, so 440 are missing" in note
    # the run folder: the run summary beside them is used (371 / 500 = 74.2%, the published figure)
    m = rt.read(str(shared_file(RUN)))
    assert m.n_items == 500 and m.scores.mean() == pytest.approx(0.742)
    # without a summary the count is unknown, and said so; --dataset scores the rest as unresolved
    shutil.copytree(logs, tmp_path / "20251118_agent" / "logs")
    m = rt.read(str(tmp_path / "20251118_agent"))
    assert "(how many is unknown)" in note_text(m.notes[0]) and m.models == ("agent",)
    m = rt.read(str(tmp_path / "20251118_agent"), dataset="verified")
    assert m.n_items == 500 and m.scores.sum() == 42


def test_swebench_unkeyed_per_instance_report_shape(tmp_path):
    """The experiments bucket's logs/<instance>/report.json has no instance-id key."""
    r = shared_file(RUN) / "logs" / "django__django-11206" / "report.json"
    assert "django__django-11206" not in json.loads(r.read_text())
    m = rt.read(str(r))
    assert m.models == ("gemini-3-pro-74pct",) and m.items == ("django__django-11206",)
    # the keyed variant under <run>/logs/ is named after the run folder, not 'logs'
    d = tmp_path / "20240101_my-agent" / "logs" / "django__django-11206"
    d.mkdir(parents=True)
    (d / "report.json").write_text(json.dumps({"django__django-11206": json.loads(r.read_text())}))
    assert rt.read(str(d / "report.json")).models == ("my-agent",)


def test_swebench_harness_output_folder_read_once(tmp_path):
    """The harness writes <model>.<run_id>.json into the working folder and logs/run_evaluation/... below it."""
    shutil.copy(FIX / "swebench" / "report" / "gpt-4o-2024-08-06.run_1.json", tmp_path)
    logs = tmp_path / "logs" / "run_evaluation" / "run_1" / "gpt-4o-2024-08-06"
    shutil.copytree(FIX / "swebench" / "logs" / "run_evaluation" / "run1" / "my-agent", logs)
    raw = json.loads((tmp_path / "gpt-4o-2024-08-06.run_1.json").read_text())
    m = rt.read(str(tmp_path))
    assert m.models == ("gpt-4o-2024-08-06",) and list(m.items) == raw["submitted_ids"]
    assert any("6 per-instance report.json files of gpt-4o-2024-08-06 were checked against the run report" in n
               and "disagree" in n for n in map(note_text, m.notes))


def test_swebench_errors_option_for_error_ids(tmp_path):
    raw = json.loads((FIX / "swebench" / "report" / "gpt-4o-2024-08-06.run_1.json").read_text())
    err = raw["unresolved_ids"][0]
    raw["unresolved_ids"].remove(err)
    raw["error_ids"] = [err]
    p = tmp_path / "gpt-4o.run_1.json"
    p.write_text(json.dumps(raw))
    with pytest.raises(DataError, match=rf"gpt-4o.run_1.json: 1 instance errored in the harness \(error_ids\) "
                                        rf"\(e.g. {err}\); pass `errors`='wrong' to score it .* or `errors`='drop' to leave it out"):
        rt.read(str(p))
    m = rt.read(str(p), errors="wrong")
    assert m.n_items == 6 and m.scores[0, m.items.index(err)] == 0
    assert any("1 instance errored in the harness (error_ids) and was scored unresolved (`errors`='wrong')" in n
               for n in map(note_text, m.notes))
    (rec,) = [n for n in m.notes if n.code == "swebench_errored"]
    assert dict(rec.data) == {"path": str(p), "n_instances": 1, "how": "error_ids", "errors": "wrong"}
    m = rt.read(str(p), errors="drop")
    assert m.n_items == 5 and err not in m.items
    assert any("1 instance errored in the harness (error_ids) and was left out (`errors`='drop')" in n
               for n in map(note_text, m.notes))


def test_swebench_notes_say_one_instance_and_several_instances(tmp_path):
    """Issue 21: the noun and the verb follow the count ('1 instance ... was', '2 instances ... were')."""
    raw = json.loads((FIX / "swebench" / "report" / "gpt-4o-2024-08-06.run_1.json").read_text())
    two = raw["unresolved_ids"][:2]
    raw["unresolved_ids"] = raw["unresolved_ids"][2:]
    raw["error_ids"] = two
    p = tmp_path / "gpt-4o.run_1.json"
    p.write_text(json.dumps(raw))
    with pytest.raises(DataError, match=r": 2 instances errored in the harness \(error_ids\) .* to score them "):
        rt.read(str(p))
    (note,) = [n for n in map(note_text, rt.read(str(p), errors="drop").notes) if "errored" in n]
    assert "2 instances errored in the harness (error_ids) and were left out" in note
    # one per-instance report left empty by the harness: "has an empty report.json", "it"
    logs = tmp_path / "logs"
    for iid, body in (("django__django-11099", ""), ("django__django-11133", '{"django__django-11133": {"resolved": true}}')):
        (logs / iid).mkdir(parents=True)
        (logs / iid / "report.json").write_text(body)
    with pytest.raises(DataError, match=r"1 instance has an empty report.json \(errored in the harness\) "
                                        r"\(e.g. django__django-11099\); pass `errors`='wrong' to score it unresolved"):
        rt.read(str(logs))
    notes = [note_text(n) for n in rt.read(str(logs), errors="wrong").notes]
    assert any("1 instance has an empty report.json (errored in the harness) and was scored unresolved" in n
               for n in notes), notes
    assert not any("1 instances" in n or "1 samples" in n for n in notes)


def test_swebench_unrelated_json_does_not_abort_a_folder(tmp_path):
    shutil.copytree(FIX / "swebench" / "experiments", tmp_path / "experiments")
    (tmp_path / "notes.json").write_text(json.dumps({"ticket": 12, "resolved": "yes, in March"}))
    # the experiments repository writes these beside results.json
    res = tmp_path / "experiments" / "20240620_sweagent_claude3.5sonnet" / "results"
    (res / "resolved_by_repo.json").write_text(json.dumps({"django/django": {"resolved": 2, "total": 2},
                                                           "sympy/sympy": {"resolved": 2, "total": 2}}))
    (res / "resolved_by_time.json").write_text(json.dumps({"2019": {"resolved": 2, "total": 3}}))
    m = rt.read(str(tmp_path))
    assert m.models == ("sweagent_claude3.5sonnet",)
    assert any("3 JSON files that mention 'resolved' are not SWE-bench results and were skipped" in note_text(n)
               for n in m.notes)
    with pytest.raises(FormatError, match=r"notes.json: not a SWE-bench results file"):
        rt.read(str(tmp_path / "notes.json"), format="swebench")


def test_swebench_detection_and_reader_search_the_same_depth(tmp_path):
    # report.json files 7 folders down: the sniffer once stopped at 5, the reader at 8
    shutil.copytree(FIX / "swebench" / "logs", tmp_path / "a" / "b" / "logs")
    from ranktrust.data.readers._registry import sniff

    assert sniff(str(tmp_path)).name == "swebench"
    assert rt.read(str(tmp_path)).models == ("my-agent",)


def test_swebench_cli_dataset_option(tmp_path, capsys):
    from ranktrust.cli._main import main

    p = _verified_run_results(tmp_path, {"resolved": dataset_ids("verified")[:10], "no_apply": []})
    with pytest.raises(SystemExit) as exc:
        main(["report", str(p), "--format", "json"])
    assert exc.value.code == 1 and "pass --dataset lite|verified|full" in capsys.readouterr().err
    try:
        main(["report", str(p), "--dataset", "verified", "--format", "json", "--no-stability"])
    except SystemExit as e:
        assert not e.code
    out = capsys.readouterr().out
    assert json.loads(out)["meta"]["format"] >= 1


def test_swebench_bundled_instance_lists():
    lite, verified, full = (dataset_ids(n) for n in ("lite", "verified", "full"))
    assert (len(lite), len(verified), len(full)) == (300, 500, 2294)
    assert len(set(full)) == 2294 and set(lite) <= set(full) and set(verified) <= set(full)
    assert sum(i.startswith("django__") for i in lite) == 114
    with pytest.raises(DataError, match="unknown SWE-bench dataset 'pro'; choose lite, verified or full"):
        dataset_ids("pro")


def test_swebench_harness_logs_folder_alone_counts_missing_from_the_run_report(tmp_path):
    shutil.copy(FIX / "swebench" / "report" / "gpt-4o-2024-08-06.run_1.json", tmp_path)
    logs = tmp_path / "logs" / "run_evaluation" / "run_1" / "gpt-4o-2024-08-06"
    shutil.copytree(FIX / "swebench" / "logs" / "run_evaluation" / "run1" / "my-agent", logs)
    shutil.rmtree(logs / "django__django-11099")
    m = rt.read(str(logs))
    assert m.n_items == 5
    assert "the run report " + str(tmp_path / "gpt-4o-2024-08-06.run_1.json") + " lists 6, so 1 is missing" in note_text(m.notes[0])


GOLD = FIX / "swebench_gold"  # genuine run_evaluation reports (see its SOURCE.md)


@pytest.mark.parametrize("name", ["gold.validate-gold.json", "gold.jest-gold.json", "gold.fresh-verified.json"])
def test_swebench_real_harness_reports_read_exactly(name):
    raw = json.loads((GOLD / name).read_text())
    m = rt.read(str(GOLD / name), errors="wrong")
    evaluated = set(raw["completed_ids"]) | set(raw["empty_patch_ids"]) | set(raw["error_ids"])
    assert set(m.items) == evaluated and m.models == ("gold",)
    assert dict(zip(m.items, m.scores[0])) == {i: float(i in raw["resolved_ids"]) for i in evaluated}
    assert int(m.scores.sum()) == raw["resolved_instances"]


def test_swebench_predictions_outside_the_run_are_not_the_denominator():
    """validate-gold: 300 Lite predictions submitted, the run restricted to 1 instance (total_instances 1)."""
    m = rt.read(str(GOLD / "gold.validate-gold.json"))
    assert m.items == ("sympy__sympy-20590",) and m.scores.mean() == 1.0
    assert "299 of the 300 submitted predictions were not evaluated in this run" in note_text(m.notes[0])
    assert m.notes[0] == Note("swebench_not_evaluated", {"path": str(GOLD / "gold.validate-gold.json"),
                                                         "n_left_out": 299, "n_submitted": 300, "run_total": 1})
    m = rt.read(str(GOLD / "gold.validate-gold.json"), dataset="lite")
    assert m.n_items == 300 and m.scores.sum() == 1


def test_swebench_real_error_ids_follow_errors_option():
    p = GOLD / "gold.jest-gold.json"
    with pytest.raises(DataError, match=r"gold.jest-gold.json: 288 instances errored in the harness \(error_ids\)"):
        rt.read(str(p))
    assert rt.read(str(p), errors="drop").n_items == 12


def test_issue21_results_json_with_all_preds_beside_it(tmp_path, monkeypatch):
    """The model is all_preds.jsonl's model_name_or_path (not the folder name), and notes print paths as given."""
    run = tmp_path / "exp" / "20240620_some-folder-name"
    shutil.copytree(FIX / "swebench" / "experiments" / "20240620_sweagent_claude3.5sonnet", run)
    monkeypatch.chdir(tmp_path)
    m = rt.read("exp/20240620_some-folder-name/results/results.json")
    assert m.models == ("sweagent_claude3.5sonnet",)
    # issue 23 §1: a record (the paths as the user gave them), worded by reporting/ as the reader did
    assert m.notes == (Note("swebench_task_list", {"path": "exp/20240620_some-folder-name/results/results.json",
                                                   "n_instances": 6, "n_unlisted": 0,
                                                   "task_list": "exp/20240620_some-folder-name/all_preds.jsonl"}),)
    assert note_text(m.notes[0]) == ("exp/20240620_some-folder-name/results/results.json: the instance list (6) is "
                                     "taken from exp/20240620_some-folder-name/all_preds.jsonl")
    monkeypatch.chdir(run / "results")
    assert [note_text(n) for n in rt.read("results.json").notes] == [
        "results.json: the instance list (6) is taken from ../all_preds.jsonl"]
    # an absolute path stays absolute
    assert str(run / "all_preds.jsonl") in note_text(rt.read(str(run / "results" / "results.json")).notes[0])
    # predictions naming several models name none: the path does
    preds = (run / "all_preds.jsonl").read_text().splitlines()
    preds[0] = preds[0].replace("sweagent_claude3.5sonnet", "other")
    (run / "all_preds.jsonl").write_text("\n".join(preds) + "\n")
    assert rt.read("results.json").models == ("some-folder-name",)


def test_issue21_truncated_only_when_it_is(tmp_path, swebench_path):
    with pytest.raises(DataError) as exc:
        rt.read(str(swebench_path), format="swebench")
    assert "truncated" not in str(exc.value) and "is not JSON (it starts with 'model,item" in str(exc.value)
    cut = tmp_path / "agent.run1.json"
    cut.write_text('{"resolved_ids": ["django__django-11099"], "submitted_ids": ["django__dj')
    with pytest.raises(DataError, match=r"agent.run1.json: not valid JSON .*; the file may be truncated"):
        rt.read(str(cut))
    bad = tmp_path / "agent.run2.json"
    bad.write_text('{"resolved_ids": ["django__django-11099"],, "submitted_ids": []}\n')
    with pytest.raises(DataError, match=r"agent.run2.json: not valid JSON \(Expecting .* at line 1\); the file is "
                                        r"malformed there"):
        rt.read(str(bad), format="swebench")
    preds = tmp_path / "p" / "all_preds.jsonl"
    preds.parent.mkdir()
    preds.write_text('{"instance_id": "a__b-1"}\n{"instance_id": oops}\n{"instance_id": "a__b-2"}\n')
    from ranktrust.data.readers._util import iter_jsonl

    with pytest.raises(DataError, match=r"line 2 is not valid JSON \(Expecting value\); fix or remove that line"):
        list(iter_jsonl(str(preds)))
    preds.write_text('{"instance_id": "a__b-1"}\n{"instance_id": "a__')
    with pytest.raises(DataError, match=r"line 2 is not valid JSON .*; the file may be truncated"):
        list(iter_jsonl(str(preds)))


@pytest.mark.parametrize("code, data, text", [
    # the sentences the reader wrote before its notes were records (issue 23 §1), one and several of each
    ("swebench_not_evaluated", {"path": "r.json", "n_left_out": 1, "n_submitted": 3, "run_total": 2},
     "r.json: 1 of the 3 submitted predictions was not evaluated in this run (in no completed/empty-patch/error "
     "list; the run covered 2 instances) and is left out"),
    ("swebench_not_evaluated", {"path": "r.json", "n_left_out": 299, "n_submitted": 300, "run_total": 1},
     "r.json: 299 of the 300 submitted predictions were not evaluated in this run (in no completed/empty-patch/error "
     "list; the run covered 1 instances) and are left out"),
    ("swebench_total", {"path": "s.json", "total": 5, "n_listed": 1},
     "s.json: the file says total 5 but lists 1 instance; that one was read"),
    ("swebench_total", {"path": "s.json", "total": 5, "n_listed": 3},
     "s.json: the file says total 5 but lists 3 instances; the 3 listed were read"),
    ("swebench_passed", {"path": "s.json", "passed": 4, "n_resolved": 1},
     "s.json: the file says 4 passed but lists 1 resolved instance; the listed instances were read"),
    ("swebench_passed", {"path": "s.json", "passed": 4, "n_resolved": 2},
     "s.json: the file says 4 passed but lists 2 resolved instances; the listed instances were read"),
    ("swebench_skipped_files", {"path": "d", "n_files": 1, "example": "d/x.json"},
     "d: 1 JSON file that mentions 'resolved' is not SWE-bench results and was skipped (e.g. d/x.json)"),
    ("swebench_skipped_files", {"path": "d", "n_files": 3, "example": "d/x.json"},
     "d: 3 JSON files that mention 'resolved' are not SWE-bench results and were skipped (e.g. d/x.json)"),
    ("swebench_task_list", {"path": "r.json", "n_instances": 6, "task_list": "p.jsonl", "n_unlisted": 1},
     "r.json: the instance list (6) is taken from p.jsonl; the one instance the results file does not list is "
     "scored unresolved"),
    ("swebench_task_list", {"path": "r.json", "n_instances": 6, "task_list": "p.jsonl", "n_unlisted": 2},
     "r.json: the instance list (6) is taken from p.jsonl; the 2 instances the results file does not list are "
     "scored unresolved"),
    ("swebench_reports_checked", {"path": "d", "model": "m", "n_reports": 1, "run_report": "d/m.r.json",
                                  "n_disagree": 0, "disagree_example": None, "n_absent": 0, "absent_example": None},
     "d: the one per-instance report.json file of m was checked against the run report d/m.r.json, which lists "
     "every instance, and not read a second time"),
    ("swebench_reports_checked", {"path": "d", "model": "m", "n_reports": 6, "run_report": "d/m.r.json",
                                  "n_disagree": 1, "disagree_example": "a__b-1", "n_absent": 2,
                                  "absent_example": "a__b-2"},
     "d: the 6 per-instance report.json files of m were checked against the run report d/m.r.json, which lists "
     "every instance, and not read a second time; 1 disagrees with it (e.g. a__b-1); 2 are not in it (e.g. a__b-2)"),
    ("swebench_reports_checked", {"path": "d", "model": "m", "n_reports": 6, "run_report": "d/m.r.json",
                                  "n_disagree": 3, "disagree_example": "a__b-1", "n_absent": 1,
                                  "absent_example": "a__b-2"},
     "d: the 6 per-instance report.json files of m were checked against the run report d/m.r.json, which lists "
     "every instance, and not read a second time; 3 disagree with it (e.g. a__b-1); 1 is not in it (e.g. a__b-2)"),
    ("swebench_no_report", {"path": "logs", "n_missing": 1, "n_instances": 6, "task_list": "p.jsonl"},
     "logs: 1 of the 6 instances in p.jsonl has no report.json (their evaluation did not finish: the harness "
     "counts them as errors)"),
    ("swebench_no_report", {"path": "logs", "n_missing": 2, "n_instances": 6, "task_list": "p.jsonl"},
     "logs: 2 of the 6 instances in p.jsonl have no report.json (their evaluation did not finish: the harness "
     "counts them as errors)"),
])
def test_swebench_note_records_are_worded_as_before(code, data, text):
    assert note_text(Note(code, data)) == text


def test_swebench_summary_counts_are_records(tmp_path):
    """A run summary whose total and passed disagree with its list: two records, worded with both counts."""
    p = tmp_path / "results_summary.json"
    p.write_text(json.dumps({"model_name_or_path": "m", "total": 5, "passed": 3, "instances": [
        {"instance_id": "django__django-1", "resolved": True},
        {"instance_id": "django__django-2", "resolved": False}]}))
    m = rt.read(str(p), format="swebench")
    recs = m.notes[:2]   # then the 3 instances not submitted
    assert [n.code for n in m.notes] == ["swebench_total", "swebench_passed", "swebench_not_submitted"]
    assert [note_text(n) for n in recs] == [
        f"{p}: the file says total 5 but lists 2 instances; the 2 listed were read",
        f"{p}: the file says 3 passed but lists 1 resolved instance; the listed instances were read"]
