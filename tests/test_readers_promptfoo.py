"""promptfoo results.json on genuine files (tests/data/promptfoo/, SOURCES.md there: three outputs committed in
promptfoo/promptfoo, MIT; response texts, token counts and assertion details cut out).

promptfoo's own numbers are in each file: per column (``results.prompts[k].metrics``) ``testPassCount``,
``testFailCount``, ``testErrorCount`` (its pass rate is passes over their sum) and ``score`` (the sum of the
tests' scores).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import ranktrust as rt
from ranktrust.data.readers import ReadOptions
from ranktrust.errors import DataError, FormatError
from ranktrust.reporting import note_text

DATA = Path(__file__).parent / "data" / "promptfoo"
FILES = sorted(DATA.glob("*.json"))


def promptfoo_columns(path: Path) -> dict[str, dict]:
    """promptfoo's per-column figures: provider -> pass rate and mean score, as its metrics give them."""
    out = {}
    for c in json.loads(path.read_text())["results"]["prompts"]:
        m = c["metrics"]
        n = m["testPassCount"] + m["testFailCount"] + m["testErrorCount"]
        out[c["provider"]] = {"pass_rate": m["testPassCount"] / n, "mean_score": m["score"] / n, "n": n}
    return out


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_column_equals_promptfoos_pass_rate_and_score(path):
    cols = promptfoo_columns(path)
    # errors counted as failed: promptfoo's own pass rate (no effect on the files without errored results)
    passed = rt.read_long(str(path), options=ReadOptions(errors="wrong"))
    scored = rt.read_long(str(path), options=ReadOptions(metric="score", errors="wrong"))
    assert set(passed.model) == set(cols)
    for model, c in cols.items():
        assert (passed.model == model).sum() == c["n"]
        assert passed[passed.model == model].score.mean() == pytest.approx(c["pass_rate"], abs=1e-12)
        assert scored[scored.model == model].score.mean() == pytest.approx(c["mean_score"], abs=1e-12)


def test_the_figures_themselves():
    pb = rt.read_long(str(DATA / "political_bias_results.json"), options=ReadOptions(metric="score"))
    assert pb.groupby("model").score.sum().to_dict() == pytest.approx({"xai:grok-4": 3.0,
                                                                       "google:gemini-2.5-flash": 2.83})
    fr = rt.read_long(str(DATA / "french_greeting_output.json"))
    assert fr.score.tolist() == [0.0]            # failed: the aggregate score 0.82 is under the 0.9 threshold
    named = rt.read_long(str(DATA / "french_greeting_output.json"), options=ReadOptions(metric="Topicality"))
    assert named.score.tolist() == [0.6015003324002018]
    w = rt.read(str(DATA / "weather_results.json"))
    assert set(w.models) == {"PydanticAI GPT-4o", "PydanticAI GPT-4o-mini"}
    assert w.n_items == 5 and w.is_complete


def test_a_run_of_fewer_tests_than_the_config_lists_is_noted():
    df = rt.read_long(str(DATA / "political_bias_results.json"))
    (n,) = [x for x in df.attrs["notes"] if x.code == "promptfoo_tests_missing"]
    assert (n.data["n_config"], n.data["n_read"]) == (50, 3)
    assert "the config lists 50 tests but the file holds results for 3" in note_text(n)
    assert not [x for x in rt.read_long(str(DATA / "weather_results.json")).attrs["notes"]
                if x.code == "promptfoo_tests_missing"]


def test_unknown_named_score_lists_the_choices():
    with pytest.raises(DataError, match=r"no named score 'Tone2'; `metric` is pass .* \(Correctness, Performance"):
        rt.read_long(str(DATA / "french_greeting_output.json"), options=ReadOptions(metric="Tone2"))


def test_genuine_errored_results_follow_errors():
    """gemini-2.5-pro's 5 results all errored (MAX_TOKENS): refused by default, 0 of 5 with errors='wrong' (promptfoo's
    own pass rate: testErrorCount 5), left out with a note with errors='drop'."""
    p = DATA / "political_bias_final_results.json"
    with pytest.raises(DataError, match=r"result 4 \(test 2, google:gemini-2.5-pro\) errored in promptfoo \(Error: No "
                                        r"output found"):
        rt.read_long(str(p))
    wrong = rt.read_long(str(p), options=ReadOptions(errors="wrong"))
    assert wrong.groupby("model").score.agg(["mean", "count"]).to_dict("index") == {
        "google:gemini-2.5-pro": {"mean": 0.0, "count": 5}, "xai:grok-4": {"mean": 1.0, "count": 5}}
    dropped = rt.read_long(str(p), options=ReadOptions(errors="drop"))
    assert dropped.model.unique().tolist() == ["xai:grok-4"]
    (n,) = [x for x in dropped.attrs["notes"] if x.code == "promptfoo_errored"]
    assert n.data["per_model"] == [["google:gemini-2.5-pro", 5]]
    assert "5 results errored in promptfoo and were left out" in note_text(n)
    assert not [x for x in dropped.attrs["notes"] if x.code == "promptfoo_count"]   # the counts agree with promptfoo's


def _errored_copy(tmp_path: Path) -> Path:
    obj = json.loads((DATA / "weather_results.json").read_text())
    r = obj["results"]["results"][3]              # test 1 of PydanticAI GPT-4o-mini
    r.update({"success": False, "score": 0, "failureReason": 2, "error": "API error: 500", "gradingResult": None})
    p = tmp_path / "results.json"
    p.write_text(json.dumps(obj))
    return p


def test_errored_results_follow_errors(tmp_path):
    p = _errored_copy(tmp_path)
    with pytest.raises(DataError, match=r"results.json: result 3 \(test 1, PydanticAI GPT-4o-mini\) errored in "
                                        r"promptfoo \(API error: 500\); pass `errors`='wrong'"):
        rt.read_long(str(p))
    wrong = rt.read_long(str(p), options=ReadOptions(errors="wrong"))
    mini = wrong[wrong.model == "PydanticAI GPT-4o-mini"]
    assert len(mini) == 5 and mini.score.mean() == pytest.approx(4 / 5)   # promptfoo: 4 passes of 5 tests
    dropped = rt.read_long(str(p), options=ReadOptions(errors="drop"))
    assert (dropped.model == "PydanticAI GPT-4o-mini").sum() == 4
    (n,) = [x for x in dropped.attrs["notes"] if x.code == "promptfoo_errored"]
    assert n.data["per_model"] == [["PydanticAI GPT-4o-mini", 1]]
    assert "1 result errored in promptfoo and was left out" in note_text(n)


def test_several_prompts_make_one_model_per_column(tmp_path):
    obj = json.loads((DATA / "weather_results.json").read_text())
    second = copy.deepcopy(obj["results"]["results"])
    for r in second:
        r["promptId"], r["promptIdx"] = "other", r["promptIdx"] + 2
    obj["results"]["results"] += second
    obj["results"]["prompts"] += [{**c, "id": "other", "label": "Answer briefly: {{query}}"}
                                  for c in copy.deepcopy(obj["results"]["prompts"])]
    p = tmp_path / "two_prompts.json"
    p.write_text(json.dumps(obj))
    df = rt.read_long(str(p))
    assert sorted(df.model.unique()) == ["PydanticAI GPT-4o [prompt 1]", "PydanticAI GPT-4o [prompt 2]",
                                         "PydanticAI GPT-4o-mini [prompt 1]", "PydanticAI GPT-4o-mini [prompt 2]"]
    (n,) = [x for x in df.attrs["notes"] if x.code == "promptfoo_prompts"]
    assert n.data["prompts"] == [[1, "{{query}}"], [2, "Answer briefly: {{query}}"]]


def test_two_columns_of_one_name_refused(tmp_path):
    obj = json.loads((DATA / "weather_results.json").read_text())
    for r in obj["results"]["results"]:      # both columns the same provider, unlabelled (two configs of one id)
        r["provider"] = {"id": "file://provider.py", "label": ""}
    p = tmp_path / "same.json"
    p.write_text(json.dumps(obj))
    with pytest.raises(DataError, match=r"same.json: columns 1 and 0 are both 'file://provider.py'"):
        rt.read_long(str(p))


def test_two_files_with_different_tests_under_one_index_refused():
    with pytest.raises(DataError, match=r"test 0 has other vars than test 0 of .*the two files ran different tests"):
        rt.read_long(str(DATA), options=ReadOptions(errors="wrong"))


def test_other_versions_and_exports_are_not_read(tmp_path):
    obj = json.loads((DATA / "weather_results.json").read_text())
    obj["results"]["version"] = 2
    p = tmp_path / "old.json"
    p.write_text(json.dumps(obj))
    with pytest.raises(FormatError, match=r"promptfoo results version 2 is not one this reader knows"):
        rt.read_long(str(p))
    from ranktrust.data.readers._registry import accepting

    q = tmp_path / "output.json"          # the layout of promptfoo's Eval record (no per-test results)
    q.write_text(json.dumps({"_resultsLoaded": False, "id": "eval-IF3", "results": [], "prompts": []}))
    assert [r.name for r in accepting(str(q))] == []
    for f in FILES:
        assert [r.name for r in accepting(str(f))] == ["promptfoo"]
