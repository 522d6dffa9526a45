"""The JSON contract is machine-checked: the schema generated from the result classes
(``rt.json_schema()``) validates the JSON every command writes on the bundled dataset.

There is no hand-written copy of the contract: a key renamed, added or retyped in a
``to_dict`` without its layout (the ``TypedDict`` it returns) fails here, and so does a
layout that no longer matches what the command writes.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from conftest import require, run_cli

require("jsonschema", install="pip install jsonschema (in the test extra)")
import jsonschema  # noqa: E402

import ranktrust as rt  # noqa: E402
from ranktrust import _schema  # noqa: E402

A, B = "gemini-1.5-pro-002", "Meta-Llama-3_1-70B-Instruct"


@pytest.fixture(scope="module")
def runs_csv(tmp_path_factory):
    """4 models x 30 items x 2 conditions x 3 runs of 0/1 scores (the bundled data has one run)."""
    rng = np.random.default_rng(0)
    rows = ["model,item,score,run,condition"]
    for k, model in enumerate("abcd"):
        for item in range(30):
            for cond in ("plain", "cot"):
                for run in range(3):
                    rows.append(f"{model},q{item},{int(rng.random() < 0.4 + 0.1 * k)},{run},{cond}")
    p = tmp_path_factory.mktemp("runs") / "runs.csv"
    p.write_text("\n".join(rows) + "\n")
    return p


def _commands(data: str, runs: str, db: str = "store.duckdb") -> dict[str, list[str]]:
    al = ["--align", "intersect"]
    return {
        # --microbench on 10k items takes minutes; its section is the microbench command's MDADResult layout
        "report": ["report", data, *al, "--sizes", "30,full", "--stability-n-resamples", "100", "--split-half"],
        "compare": ["compare", data, "--a", A, "--b", B],
        "power-gap": ["power", "--gap", "2", "--disagreement", "0.2"],
        "power-items": ["power", data, *al, "--pair", A, B, "--items", "500"],
        "ranks": ["ranks", data, *al],
        "stability": ["stability", data, *al, "--sizes", "30,full", "--n-resamples", "100"],
        "splithalf": ["splithalf", data, *al, "--n-resamples", "100"],
        "microbench": ["microbench", data, *al, "--methods", "random,anchor", "--sizes", "10,50",
                       "--n-resamples", "2", "--seed", "1"],
        "microbench-subset": ["microbench", data, *al, "--select", "anchor", "--size", "12"],
        "repeats": ["repeats", runs, "--pass-at", "1,2"],
        "sensitivity": ["sensitivity", runs],
        "ingest": ["ingest", runs, "--db", db],
        "db-list": ["db", "list", "--db", db],
    }


@pytest.fixture(scope="module")
def outputs(mmlupro_path, runs_csv, tmp_path_factory):
    """The JSON of every command on the bundled dataset (repeats, sensitivity and the store: runs_csv)."""
    capsys = _Capture()
    out = {}
    d = tmp_path_factory.mktemp("json")
    for name, args in _commands(str(mmlupro_path), str(runs_csv), str(d / "store.duckdb")).items():
        path = d / f"{name}.json"
        code, _, err = run_cli(capsys, *args, "--format", "json", "--out", str(path))
        assert code == 0, (name, err)
        out[name] = json.loads(path.read_text())
    return out


class _Capture:
    """run_cli's capsys for a module-scoped fixture: output went to --out, nothing to read back."""

    def readouterr(self):
        return "", ""


def test_the_schema_is_a_valid_draft_2020_12_schema():
    s = rt.json_schema()
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(s)
    json.dumps(s, allow_nan=False)
    for kind in _schema.COMMANDS:
        jsonschema.Draft202012Validator.check_schema(rt.json_schema(kind))


@pytest.mark.parametrize("name", list(_commands("x", "y")))
def test_every_command_json_matches_the_schema(outputs, name):
    d = outputs[name]
    kind = d["meta"]["kind"]
    assert kind in _schema.COMMANDS
    jsonschema.validate(d, rt.json_schema(kind), cls=jsonschema.Draft202012Validator)
    jsonschema.validate(d, rt.json_schema(), cls=jsonschema.Draft202012Validator)   # the oneOf document


def test_report_sections_are_all_present_and_checked(outputs):
    """The report run above fills every optional section the bundled data allows, so their layouts are checked."""
    d = outputs["report"]
    for key in ("tiers", "rank_sets", "stability", "split_half", "power", "quality"):
        assert d[key] is not None, key


@pytest.mark.parametrize("change", ["rename", "retype", "extra", "drop"])
def test_the_check_can_fail(outputs, change):
    """Negative control: a renamed, retyped, added or missing key is caught, deep in a row too."""
    d = copy.deepcopy(outputs["report"])
    row = d["models"][0]
    if change == "rename":
        row["ci_lo"] = row.pop("ci_low")
    elif change == "retype":
        d["stability"]["by_size"][0]["n"] = "30"
    elif change == "extra":
        d["headline"]["p_top_stays_top"] = 0.9
    else:
        del d["pairs_scope"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(d, rt.json_schema("report"), cls=jsonschema.Draft202012Validator)


def test_every_result_reached_declares_its_layout():
    """A to_dict that overrides the field-derived default declares its layout (a TypedDict return
    annotation), and every hint of a layout resolves. Not yet declared: the scorer's and watch's
    summaries (open objects)."""
    assert set(_schema.undeclared()) <= {"ScoreResults", "WatchStatus", "ReplayResult"}


def test_default_to_dict_results_are_described_by_their_fields():
    import dataclasses

    from ranktrust.results import Result
    from ranktrust.runs._passk import MajorityAtN

    from conftest import all_result_classes

    defaults = [c for c in all_result_classes() if c.to_dict is Result.to_dict]
    assert MajorityAtN in defaults
    for cls in defaults:
        props = _schema.result_schema(cls)["$defs"][cls.__name__]["properties"]
        assert list(props) == [f.name for f in dataclasses.fields(cls)], cls.__name__


def test_power_result_layout_has_its_fields_and_the_table():
    """PowerResult.to_dict: every field and the table ``ranktrust power`` prints (issue 21 D9)."""
    import dataclasses

    from ranktrust.stats._power import PowerResult

    s = _schema.result_schema(PowerResult)
    props = s["$defs"]["PowerResult"]["properties"]
    assert list(props) == [f.name for f in dataclasses.fields(PowerResult)] + ["table"]
    assert props["items_needed"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    r = rt.power(gap=0.02, disagreement=0.2, binary=True)
    jsonschema.validate(r.to_dict(), s, cls=jsonschema.Draft202012Validator)


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="`kind` must be one of"):
        rt.json_schema("leaderboard")


def test_layout_hints_resolve_in_a_fresh_interpreter():
    """The report's layout names other modules' layouts imported only for type checking: the schema
    must resolve them without the analyses having been run first."""
    import subprocess
    import sys

    code = ("from ranktrust._schema import undeclared, json_schema; "
            "d = json_schema('report')['$defs']; "
            "print(undeclared(), d['LeaderboardReport']['properties']['headline'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['ReplayResult', 'ScoreResults', 'WatchStatus'] {'$ref': '#/$defs/Headline'}"


def test_store_and_score_json_say_what_they_did(outputs):
    """ingest, db list and score carry a headline like every other command: one sentence of what was ingested,
    stored or scored, required by the schema."""
    assert list(outputs["ingest"])[:2] == ["meta", "headline"]
    assert outputs["ingest"]["headline"]["text"].startswith("Ingested 1 of 1 file (720 rows) into ")
    assert outputs["db-list"]["headline"]["text"].endswith(" holds 720 rows from 1 file: 1 task, 4 models.")
    for kind in ("ingest", "db-list", "score"):
        assert "headline" in rt.json_schema(kind)["$defs"][f"output.{kind}"]["required"], kind
    from ranktrust.reporting.renderers._store import score_headline

    d = {"out": "s.csv", "n_new": 600, "n_skipped": 0, "failed": {"m3": "OOM"},
         "models": [{"model": "m1"}, {"model": "m2"}]}
    assert score_headline(d) == "Scored 2 models: 600 new rows to s.csv, 0 already done; 1 failed."
