"""The new user's first hour (issue 13), command-line findings of the QA report, one test each."""

from __future__ import annotations

import json
import os

import pytest

from ranktrust.cli._main import cli_words, main
from ranktrust.reporting import note_text

DEMO = os.path.join(os.path.dirname(__file__), "..", "src", "ranktrust", "datasets", "mmlupro_outputs.csv.gz")


def run(args, capsys):
    try:
        code = main(args)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code or 0, out, err


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    p = tmp_path_factory.mktemp("qa") / "small.csv"
    import numpy as np

    r = np.random.default_rng(0)
    rows = ["model,item,score"] + [f"m{k},q{i},{int(r.random() < 0.3 + 0.2 * k)}" for k in range(3) for i in range(60)]
    p.write_text("\n".join(rows) + "\n")
    return str(p)


@pytest.mark.parametrize("cmd", [["compare", "--a", "m0", "--b", "m1"], ["power", "--gap", "5"], ["stability", "--n-resamples", "20"],
                                 ["ranks"], ["splithalf", "--n-resamples", "50"]])
def test_qa_m12_every_command_writes_html(cmd, small, tmp_path, capsys):
    out = tmp_path / "x.html"
    code, _, err = run([cmd[0], small, *cmd[1:], "--out", str(out)], capsys)
    assert code == 0, err
    page = out.read_text()
    assert page.startswith("<!doctype html>") and "ranktrust-data" in page and "│" not in page
    code, _, err = run([cmd[0], small, *cmd[1:], "-f", "html"], capsys)
    assert code == 0, err


def test_qa_m12_format_contradicting_suffix_is_an_error(small, tmp_path, capsys):
    for fmt, name in (("json", "x.html"), ("json", "x.md"), ("md", "x.json")):
        code, _, err = run(["report", small, "--no-stability", "-f", fmt, "--out", str(tmp_path / name)], capsys)
        assert code == 1 and f"--format {fmt} but --out" in err and not (tmp_path / name).exists()
    code, _, err = run(["stability", small, "--n-resamples", "20", "--out", str(tmp_path / "s.json")], capsys)
    assert code == 0 and json.loads((tmp_path / "s.json").read_text())["meta"]["kind"] == "stability"


def test_qa_l4_out_errors_name_the_file_not_the_partial(small, tmp_path, capsys):
    code, _, err = run(["ranks", small, "--out", str(tmp_path / "missing" / "r.json")], capsys)
    assert code == 1 and ".partial" not in err and "does not exist" in err
    code, _, err = run(["ranks", small, "--out", str(tmp_path)], capsys)
    assert code == 1 and ".partial" not in err and "is a folder" in err
    assert not any(p.name.endswith(".partial") for p in tmp_path.rglob("*"))


def test_qa_l7_file_and_db_together_is_an_error(small, tmp_path, capsys):
    code, _, err = run(["report", small, "--db", str(tmp_path / "s.duckdb")], capsys)
    assert code == 1 and "not both" in err


def test_qa_m7_no_groups_with_cluster_by_is_an_error(small, capsys):
    code, _, err = run(["report", small, "--no-groups", "--cluster-by", "subject"], capsys)
    assert code == 1 and "--no-groups contradicts --cluster-by" in err
    code, _, err = run(["report", small, "--ci-method", "cluster"], capsys)
    assert code == 1 and "--ci-method cluster needs --cluster-by" in err


def test_qa_l6_power_gap_as_a_fraction_is_refused(capsys):
    code, out, err = run(["power", "--gap", "0.02", "--disagreement", "0.27"], capsys)
    assert code == 1 and "pass --gap 2" in err and "52,979,939" not in out


def test_qa_l3_errors_use_flags_not_python_names(small, capsys):
    assert cli_words("`confidence_level` must be in (0, 1)") == "--confidence must be in (0, 1)"
    assert cli_words("use `align`='intersect'") == "use --align intersect"
    assert cli_words("`unknown_thing` stays") == "`unknown_thing` stays"
    code, _, err = run(["stability", small, "--top-k", "0"], capsys)
    assert code == 1 and "--top-k" in err and "`top_k`" not in err


def test_qa_m8_compare_ignores_other_models(capsys):
    """M8: DeepSeek (10,351 items) vs Llama-70B-Instruct (12,032) in the bundled MMLU-Pro, whose gemini
    models lack other items: compared on the 10,351 items the two share."""
    code, out, err = run(["compare", DEMO, "--a", "DeepSeek-Coder-V2", "--b", "Meta-Llama-3_1-70B-Instruct",
                          "-f", "json"], capsys)
    assert code == 0, err
    d = json.loads(out)
    assert d["n_items"] == 10351 and d["ci_low"] < 0 < d["ci_high"] and d["p_value"] > 0.05


def test_qa_m4a_a_folder_of_several_harnesses_is_read_whole_or_says_what_was_skipped(harness_logs, capsys):
    """M4a: `report harness-logs --task mcq_tiny_lm` read lm-eval's logs and left lighteval's and inspect's out
    without a word. Every harness in the folder is read; one without that task is named in a note."""
    code, out, err = run(["report", str(harness_logs), "--task", "mcq_tiny_lm", "--errors", "wrong",
                          "--no-stability", "-f", "json"], capsys)
    assert code == 0, err
    d = json.loads(out)
    assert d["n_models"] == 3 and all(p["harness"] == "lm_eval" for p in d["provenance"].values())
    texts = [n["text"] if isinstance(n, dict) else n for n in d["notes"]]   # notes are records (issue 23 §1)
    assert any(t.startswith("lighteval logs skipped: they hold no task 'mcq_tiny_lm'") for t in texts)
    # without --task the error lists every harness's tasks, not only lm-eval's
    code, _, err = run(["report", str(harness_logs / "lighteval"), str(harness_logs / "lm_eval"), "--no-stability"],
                       capsys)
    assert code == 1 and "mcq_tiny_lm" in err and "mcq_tiny_lighteval" in err


def test_qa_d10_reader_notes_name_flags_on_the_command_line(harness_logs, capsys):
    """D10 leftover: the skipped-harness note said "read them with `task`='NAME'" on the command line; notes go
    through the same mapping as errors and warnings (text and JSON), and Python keeps the API words."""
    import re

    import ranktrust as rt

    for fmt in ("text", "json"):
        code, out, err = run(["report", str(harness_logs), "--task", "mcq_tiny_lm", "--errors", "wrong",
                              "--no-stability", "-f", fmt], capsys)
        assert code == 0, err
        flat = " ".join((out + err).split())
        assert "read them with --task NAME" in flat
        assert not re.search(r"`\w+`=", flat), "API syntax on the command line"
    m = rt.read(str(harness_logs), task="mcq_tiny_lm", errors="wrong")
    rec = next(n for n in m.notes if n.code == "harness_skipped")   # a record (issue 23 §1), in the API's words
    assert "read them with `task`='NAME'" in note_text(rec)
    # the command's JSON holds the same record as Python's, its sentence in the command's words
    code, out, err = run(["report", str(harness_logs), "--task", "mcq_tiny_lm", "--errors", "wrong",
                          "--no-stability", "-f", "json"], capsys)
    (cli_rec,) = [n for n in json.loads(out)["notes"] if n["code"] == "harness_skipped"]
    assert {k: cli_rec[k] for k in ("code", "data")} == json.loads(json.dumps(rec.to_dict()))
    assert "read them with --task NAME" in cli_rec["text"]
    assert "`task`" in note_text(rec)   # outside the command, the API's words again


def test_qa_m4b_an_unreadable_model_folder_is_an_error(harness_logs, tmp_path, monkeypatch, capsys):
    """M4b: a model folder that could not be listed dropped that model in silence (2 of 3 models, rc 0)."""
    import shutil

    logs = tmp_path / "lm"
    shutil.copytree(harness_logs / "lm_eval", logs)
    bad = next(p for p in logs.rglob("*seed1*") if p.is_dir())
    real_scandir = os.scandir

    def scandir(p="."):
        if os.fspath(p) == str(bad):
            raise PermissionError(13, "Permission denied", str(bad))
        return real_scandir(p)

    monkeypatch.setattr(os, "scandir", scandir)
    code, _, err = run(["report", str(logs), "--task", "mcq_tiny_lm", "--no-stability"], capsys)
    assert code == 1 and "cannot read this folder" in err and "seed1" in err


def test_qa_m15_python_takes_dataframes_and_paths(tmp_path):
    """M15 / issue 13 item 3: every analysis takes a ScoreMatrix, a long or wide DataFrame (pandas or Polars)
    or a path; ScoreMatrix.to_frame(); report.headline holds the verdict's numbers, the sentence is composed
    in reporting (issue 12)."""
    import numpy as np

    import ranktrust as rt
    from conftest import require

    m = rt.read(DEMO, align="intersect").select(models=[0, 1, 2, 3])
    long, wide = m.to_frame(), m.to_frame("wide")
    assert {"model", "item", "score"} <= set(long.columns) and wide.shape == (m.n_items, 2 + m.n_models)
    path = tmp_path / "wide.csv"
    wide.to_csv(path, index=False)
    ref = rt.intervals(m).score
    for data in (long, wide, str(path), path):
        np.testing.assert_allclose(rt.intervals(data).score, ref)
    assert rt.compare(long, m.models[0], m.models[1]).n_items == m.n_items
    assert rt.rank_sets(wide).could_be_first == rt.rank_sets(m).could_be_first
    rep = rt.report(wide, stability=False, quality=False)
    from ranktrust.reporting._headline import headline_sentence, report_dict

    # the result's headline is the JSON's numbers plus the sentence (QA 2026-12 D19: one attribute away)
    assert rep.headline == rep.to_dict()["headline"]       # to_dict() is the command's JSON: the sentence included
    assert rep.headline["text"] == rep.verdict == headline_sentence(rep.to_dict())
    assert headline_sentence(rep.to_dict()) == report_dict(rep)["headline"]["text"]
    require("polars", install="pip install polars")
    import polars as pl

    np.testing.assert_allclose(rt.intervals(pl.from_pandas(long)).score, ref)


def test_qa_l10_microbench_on_pairwise_data_says_which_items():
    """QA L10: `microbench --align pairwise` ran silently on a matrix with missing cells."""
    import warnings

    import numpy as np

    import ranktrust as rt

    r = np.random.default_rng(0)
    y = (r.random((30, 200)) < r.uniform(0.3, 0.8, (30, 1))).astype(float)
    y[0, :10] = np.nan
    m = rt.ScoreMatrix.from_array(y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = rt.mdad(m, methods=["random"], sizes=[10], n_resamples=2, source_models=20, rng=0)
    assert any("use the 190 items every model has (of 200)" in str(w.message) for w in caught)
    assert res.to_dict()["settings"]["n_items"] == 190


def test_every_command_says_what_the_reader_left_out(tmp_path, capsys):
    """"When the user asks to drop, say how much": `report` prints the reader's notes in its output, but `ranks`,
    `compare`, `splithalf`, `stability` and the others have no place for them and said nothing (1 SWE-bench
    instance errored and dropped with --errors drop). They go to stderr as `note:` lines, in the command's words and
    once each; stdout (JSON here) is unchanged."""
    from pathlib import Path

    fix = Path(__file__).parent / "fixtures" / "swebench" / "report" / "gpt-4o-2024-08-06.run_1.json"
    raw = json.loads(fix.read_text())
    err_id = raw["unresolved_ids"][0]
    raw["unresolved_ids"].remove(err_id)
    raw["error_ids"] = [err_id]
    a = tmp_path / "a.run_1.json"
    a.write_text(json.dumps(raw))
    b = tmp_path / "b.run_1.json"
    b.write_text(json.dumps({**json.loads(fix.read_text()), "resolved_ids": raw["submitted_ids"][:3]}))
    dropped = "1 instance errored in the harness (error_ids) and was left out (--errors drop)"
    common = [str(a), str(b), "--errors", "drop", "--align", "pairwise"]
    for cmd in (["ranks"], ["splithalf"], ["stability"], ["compare", "--a", "a", "--b", "b"]):
        code, out, err = run([*cmd, *common, "-f", "json"], capsys)
        assert code == 0, (cmd, err)
        json.loads(out)   # the JSON on stdout as before
        notes = [ln for ln in err.splitlines() if ln.startswith("note: ")]
        assert any(dropped in ln for ln in notes), (cmd, err)
        assert len(notes) == len(set(notes)) and "`" not in err, (cmd, err)
    # the report says them once, in its own output, not a second time on stderr
    code, out, err = run(["report", *common, "--no-stability"], capsys)
    assert code == 0 and dropped in " ".join(out.split()) and "note: " not in err, err
