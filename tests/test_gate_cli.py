"""`ranktrust gate` through the command line: formats, exit codes, real data, bad input.

Real data: SWE-bench Verified (per repository: its subject column mapped to tasks with --task-col),
MMLU-Pro (per subject) and lm-evaluation-harness logs with two tasks (../shared/data/harness-logs/
lm_eval/0.4.13: mcq_tiny_lm and mcq_tiny_lm_gen, three seeds of a tiny model). On each, every task's
decision is the one `ranktrust compare` gives on that task (p-values Holm-adjusted over the tasks).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import ranktrust as rt
from conftest import run_cli

OPUS = "Claude 4.5 Opus medium (20251101)"
GEMINI = "Gemini 3 Pro Preview (2025-11-18)"
SEED1, SEED2, SEED3 = (f"/opt/models/tinylm/seed{i}" for i in (1, 2, 3))


def _suite_csv(path, tasks: dict[str, tuple[int, int, int]], seed: int = 0) -> str:
    """A long CSV with a task column: per task (n, b, c) = items, only-candidate-right, only-baseline-right."""
    rng = np.random.default_rng(seed)
    rows = ["task,model,item,score"]
    for t, (n, b, c) in tasks.items():
        base = (rng.random(n) < 0.6).astype(int)
        cand = base.copy()
        cand[:b], base[:b] = 1, 0
        cand[b:b + c], base[b:b + c] = 0, 1
        for i in range(n):
            rows += [f"{t},new,{t}-{i},{cand[i]}", f"{t},old,{t}-{i},{base[i]}"]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


@pytest.fixture
def suites(tmp_path):
    return {
        "pass": _suite_csv(tmp_path / "pass.csv", {"arc": (8000, 360, 352), "gsm": (8000, 280, 288)}),
        "fail": _suite_csv(tmp_path / "fail.csv", {"arc": (4000, 200, 200), "gsm": (4000, 150, 330)}),
        "unsure": _suite_csv(tmp_path / "unsure.csv", {"arc": (8000, 360, 352), "tiny": (100, 5, 5)}),
    }


def _gate(capsys, *args):
    return run_cli(capsys, "gate", *map(str, args))


# ------------------------------------------------------------------ verdicts and exit codes
def test_pass_fail_inconclusive_strict_exit_codes(suites, capsys):
    code, out, err = _gate(capsys, suites["pass"], "--candidate", "new", "--baseline", "old")
    assert code == 0 and out.splitlines()[0] == "PASS: 2 tasks non-inferior at 1 point (95%, Holm)" and not err
    code, out, err = _gate(capsys, suites["fail"], "--candidate", "new", "--baseline", "old")
    assert code == 3
    assert out.startswith("FAIL: gsm -4.50 points [") and "new is worse than old on 1 task of 2 (95%, Holm)" in out
    code, out, err = _gate(capsys, suites["unsure"], "--candidate", "new", "--baseline", "old")
    assert code == 0 and out.startswith("INCONCLUSIVE: no regression shown, but 1 of 2 tasks cannot rule out")
    assert err.startswith("warning: the gate is inconclusive: 1 task cannot rule out a drop of 1 point: tiny "
                          "(has 100 items; equal models would need about ") and err.count("\n") == 1
    code, _, _ = _gate(capsys, suites["unsure"], "--candidate", "new", "--baseline", "old", "--strict")
    assert code == 4
    # a margin of 3 points: the small task's interval still reaches below -3
    code, out, _ = _gate(capsys, suites["unsure"], "--candidate", "new", "--baseline", "old", "--margin", "30")
    assert code == 0 and out.startswith("PASS: 2 tasks non-inferior at 30 points")
    # --require better: nothing is shown better -> inconclusive
    code, out, err = _gate(capsys, suites["pass"], "--candidate", "new", "--baseline", "old", "--require", "better")
    assert code == 0 and out.startswith("INCONCLUSIVE: 2 tasks non-inferior at 1 point, but none shown better")
    # --task keeps some tasks only
    code, out, _ = _gate(capsys, suites["fail"], "--candidate", "new", "--baseline", "old", "--task", "arc")
    assert code == 0 and "gsm" not in out


def test_every_format_puts_the_verdict_first(suites, capsys, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    args = [suites["fail"], "--candidate", "new", "--baseline", "old", "--plan"]
    heads = {}
    for fmt in ("text", "md", "json", "html", "csv"):
        code, out, _ = _gate(capsys, *args, "--format", fmt)
        assert code == 3, fmt
        heads[fmt] = out
    line = heads["text"].splitlines()[0]
    assert line.startswith("FAIL: gsm")
    md = heads["md"].splitlines()
    assert md[0] == f"**{line}**"
    assert md[2] == ("| task | items | baseline | candidate | difference [CI] | CI level | decision | detectable drop "
                     "| items for margin |")
    assert md[4].startswith("| gsm | 4,000 |") and md[4].endswith(" |") and "| worse |" in md[4]  # deciding first
    d = json.loads(heads["json"])
    assert d["meta"]["kind"] == "gate" and d["headline"]["text"] == line and d["verdict"] == "FAIL"
    assert [t["task"] for t in d["tasks"]] == ["gsm", "arc"] and d["show_plan"] is True
    jsonschema.validate(d, rt.json_schema("gate"), cls=jsonschema.Draft202012Validator)
    assert line.replace("-", "-") in heads["html"] and "<table" in heads["html"]
    csv = heads["csv"].splitlines()
    assert csv[0].startswith("verdict,task,n_items,score_baseline,score_candidate,diff,ci_low")
    assert csv[1].startswith("FAIL,gsm,4000,") and len(csv) == 3
    out_csv = tmp_path / "g.csv"
    code, _, _ = _gate(capsys, *args, "-o", out_csv)
    assert code == 3
    df = pd.read_csv(out_csv)                  # machine-readable as is: header first, the verdict on every row
    assert list(df["verdict"]) == ["FAIL", "FAIL"] and list(df["task"]) == ["gsm", "arc"]
    assert list(df["decision"]) == [t["decision"] for t in d["tasks"]] and df["n_items"].tolist() == [4000, 4000]
    out_file = tmp_path / "gate.md"
    code, out, _ = _gate(capsys, *args, "--out", out_file)
    assert code == 3 and out == "" and out_file.read_text().startswith(f"**{line}**")


# ------------------------------------------------------------------ bad input: one line, exit 1
@pytest.mark.parametrize("extra, message", [
    (["--candidate", "nwe", "--baseline", "old"], "error: unknown candidate model 'nwe' (in no task); did you mean 'new'?"),
    (["--candidate", "new", "--baseline", "old", "--margin", "-1"],
     "error: Invalid value for '--margin': must be >= 0 points (the drop the gate tolerates), got -1"),
    (["--candidate", "new", "--baseline", "old", "--margin", "nan"],    # in points, not the API's fraction (D14)
     "error: Invalid value for '--margin': must be a number of points in [0, 100) (the drop the gate tolerates), "
     "got nan"),
    (["--candidate", "new", "--baseline", "old", "--task", "gms"], "error: no task 'gms'; did you mean 'gsm'?"),
])
def test_bad_input_is_one_line(suites, capsys, extra, message):
    code, out, err = _gate(capsys, suites["fail"], *extra)
    assert code == 1 and out == "" and err.splitlines()[0].startswith(message) and err.count("\n") == 1


def test_a_task_the_candidate_lacks_and_no_shared_items(tmp_path, capsys):
    p = tmp_path / "lacks.csv"
    p.write_text("task,model,item,score\na,new,1,1\na,new,2,0\na,old,1,1\na,old,2,1\nb,old,1,1\nb,old,2,0\n"
                 "b,other,1,1\nb,other,2,1\n")
    code, _, err = _gate(capsys, p, "--candidate", "new", "--baseline", "old")
    assert code == 1 and err.startswith("error: the candidate 'new' has no results on task 'b'; it has 'a': score "
                                        "it on that task, or leave the task out with --task") and err.count("\n") == 1
    q = tmp_path / "disjoint.csv"
    q.write_text("task,model,item,score\na,new,1,1\na,new,2,0\na,old,3,1\na,old,4,1\n")
    code, _, err = _gate(capsys, q, "--candidate", "new", "--baseline", "old")
    assert code == 1 and err == "error: task 'a': models 'new' and 'old' share no scored item: nothing to compare\n"


# ------------------------------------------------------------------ real data
def _compare_p(capsys, path, task_args, a, b):
    code, out, err = run_cli(capsys, "compare", str(path), *task_args, "--a", a, "--b", b, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def _decisions_match_compare(capsys, gate_json, per_task_args, path, a, b):
    tasks = gate_json["tasks"]
    ref = {t["task"]: _compare_p(capsys, path, per_task_args(t["task"]), a, b) for t in tasks}
    names = list(ref)
    adj = dict(zip(names, rt.adjust_pvalues(np.array([ref[n]["p_value"] for n in names]), "holm")))
    for t in tasks:
        r = ref[t["task"]]
        assert t["n_items"] == r["n_items"] and t["p_value"] == pytest.approx(r["p_value"], rel=1e-12)
        assert t["diff"] == pytest.approx(r["diff"], rel=1e-12, abs=1e-15)
        shown = "worse" if adj[t["task"]] < 0.05 and r["diff"] < 0 else (
            "better" if adj[t["task"]] < 0.05 and r["diff"] > 0 else "neither")
        assert (t["decision"] if t["decision"] in ("worse", "better") else "neither") == shown, t["task"]
        if gate_json["n_tasks"] == 1 or t["ci_level"] == 0.95:
            assert [t["ci_low"], t["ci_high"]] == pytest.approx([r["ci_low"], r["ci_high"]], rel=1e-12)


def test_swebench_per_repository(swebench_path, capsys, tmp_path):
    """SWE-bench Verified has no task column: --task-col subject makes each of its 12 repositories a task
    (--cluster-by cannot then name the same column)."""
    code, out, err = _gate(capsys, swebench_path, "--candidate", OPUS, "--baseline", GEMINI, "--task-col", "subject",
                           "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["n_tasks"] == 12 and d["verdict"] == "INCONCLUSIVE"    # 1-231 items a repository: nothing shown
    # compare on one repository: the same rows, read with the repository as the only items
    import pandas as pd

    df = pd.read_csv(swebench_path)
    paths = {}
    for repo, part in df.groupby("subject"):
        p = tmp_path / (repo.replace("/", "__") + ".csv")
        part.to_csv(p, index=False)
        paths[repo] = p
    tasks = d["tasks"]
    for t in tasks:
        r = _compare_p(capsys, paths[t["task"]], [], OPUS, GEMINI)
        assert (t["n_items"], t["p_value"]) == (r["n_items"], pytest.approx(r["p_value"], rel=1e-12))
        assert t["decision"] not in ("worse", "better") and r["p_value"] * 1 >= 0.05 / 12


def test_mmlu_pro_per_subject(mmlupro_path, capsys):
    code, out, err = _gate(capsys, mmlupro_path, "--candidate", "Meta-Llama-3_1-70B", "--baseline", "Meta-Llama-3-70B",
                           "--task-col", "subject", "--format", "json")
    assert code in (0, 3), err
    d = json.loads(out)
    assert d["n_tasks"] == 14 and sum(t["n_items"] for t in d["tasks"]) == 12032
    m = rt.read(mmlupro_path, align="pairwise")
    groups = np.asarray(m.groups, dtype=object)
    p = {t["task"]: rt.compare(m.select(items=groups == t["task"]), "Meta-Llama-3_1-70B", "Meta-Llama-3-70B")
         for t in d["tasks"]}
    adj = dict(zip(p, rt.adjust_pvalues(np.array([r.p_value for r in p.values()]), "holm")))
    for t in d["tasks"]:
        assert t["p_value"] == pytest.approx(p[t["task"]].p_value, rel=1e-12)
        assert (t["decision"] in ("worse", "better")) == (adj[t["task"]] < 0.05)


def test_lm_eval_logs_with_two_tasks(harness_logs, capsys):
    folder = harness_logs / "lm_eval" / "0.4.13"
    code, out, err = _gate(capsys, folder, "--candidate", SEED3, "--baseline", SEED1, "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    assert sorted(t["task"] for t in d["tasks"]) == ["mcq_tiny_lm", "mcq_tiny_lm_gen"]
    assert all(t["n_items"] == 32 for t in d["tasks"])
    _decisions_match_compare(capsys, d, lambda task: ["--task", task], folder, SEED3, SEED1)
    # exact_match is 0 on every item for every seed: the two agree everywhere; the exact McNemar interval
    # (minus the Wilson bound z^2 / (n + z^2) below) clears -1 point from the items the plan names
    gen = next(t for t in d["tasks"] if t["task"] == "mcq_tiny_lm_gen")
    assert gen["diff"] == 0 and gen["disagreement"] == 0
    zq = 2.241402727604947                                          # z_{1 - 0.025/2}: Holm's first level of 2 tasks
    assert gen["items_needed"] == int(np.floor(zq * zq * 0.99 / 0.01)) + 1
    assert "mcq_tiny_lm_gen (has 32 items; equal models would need about 498)" in err


def test_a_store_with_several_tasks(suites, tmp_path, capsys):
    db = tmp_path / "s.duckdb"
    with rt.Store(db) as st:
        st.ingest(suites["fail"])
    code, out, err = _gate(capsys, "--db", db, "--candidate", "new", "--baseline", "old")
    code2, out2, _ = _gate(capsys, suites["fail"], "--candidate", "new", "--baseline", "old")
    assert code == code2 == 3 and out.splitlines()[0] == out2.splitlines()[0]


def test_cluster_by_inside_each_task_and_warnings_name_the_task(tmp_path, capsys):
    rng = np.random.default_rng(4)
    rows = ["task,model,item,score,repo"]
    for t, n in (("a", 400), ("b", 1)):
        for i in range(n):
            s = rng.random() < 0.5
            rows += [f"{t},new,{t}{i},{int(s)},r{i % 25}", f"{t},old,{t}{i},{int(s if rng.random() < 0.8 else not s)},r{i % 25}"]
    p = tmp_path / "c.csv"
    p.write_text("\n".join(rows) + "\n")
    code, out, err = _gate(capsys, p, "--candidate", "new", "--baseline", "old", "--cluster-by", "repo", "--format", "json")
    d = json.loads(out)
    a = next(t for t in d["tasks"] if t["task"] == "a")
    assert a["method"] == "cluster" and a["clustered"] and a["n_clusters"] == 25
    # the one-item task: one sentence naming the task (compare's small-sample warning is not said again)
    assert "b (has 1 item: too few for an interval)" in err and "fewer than 2" not in err
    assert code == 0


def test_metrics_per_task(tmp_path, capsys):
    """A suite mixing metrics: each task is gated on its only metric; a task with two needs --metric; in a store,
    --metric leaves out (and names) the tasks without it."""
    rows = ["task,model,item,metric,score"]
    for i in range(40):
        rows += [f"mc,new,{i},acc,{i % 2}", f"mc,old,{i},acc,{(i // 2) % 2}", f"gen,new,{i},em,{i % 3 == 0:d}",
                 f"gen,old,{i},em,{i % 3 == 1:d}"]
    p = tmp_path / "mixed.csv"
    p.write_text("\n".join(rows) + "\n")
    code, out, err = _gate(capsys, p, "--candidate", "new", "--baseline", "old", "--format", "json")
    assert code == 0 and sorted(t["task"] for t in json.loads(out)["tasks"]) == ["gen", "mc"]
    q = tmp_path / "two.csv"
    q.write_text("\n".join(rows + [f"mc,new,{i},acc_norm,1" for i in range(40)] + [f"mc,old,{i},acc_norm,1" for i in range(40)]) + "\n")
    code, _, err = _gate(capsys, q, "--candidate", "new", "--baseline", "old")
    assert code == 1 and "task 'mc' holds 2 metrics (acc, acc_norm); pick one with --metric NAME" in err
    db = tmp_path / "m.duckdb"
    with rt.Store(db) as st:
        st.ingest(str(p))
    code, out, err = _gate(capsys, "--db", db, "--candidate", "new", "--baseline", "old", "--metric", "acc",
                           "--format", "json")
    assert [t["task"] for t in json.loads(out)["tasks"]] == ["mc"]
    assert "1 task(s) hold no metric 'acc' and are not gated: gen" in err


def test_a_helm_folder_whose_tasks_have_other_metrics(tmp_path, capsys):
    """HELM's safety suite (real logs): bbq is scored by exact_match, harm_bench by harm_bench_score. Read as one
    folder the gate cannot take one metric for both; it says so in its own words (it said "pick one with
    --task-col", the flag of another option) and names the store route, which gates both tasks."""
    from conftest import shared_file

    runs = shared_file("harness-logs/real/helm/crfm_safety_v3/benchmark_output_TRUE_latest/runs/v3")
    cand, base = "openai/gpt-4o-2024-05-13", "openai/gpt-4-turbo-2024-04-09"
    for extra in ((), ("--metric", "harm_bench_score")):
        code, _, err = _gate(capsys, runs, "--candidate", cand, "--baseline", base, *extra)
        assert code == 1 and err.count("\n") == 1, err
        assert "no stat" in err and "the gate reads every task with one metric (--metric NAME)" in err
        assert "ranktrust ingest PATH --db STORE --task TASK --metric METRIC" in err and "--task-col" not in err
    # the reader's own advice holds for the gate: one task at a time, with its metric
    code, out, err = _gate(capsys, runs, "--candidate", cand, "--baseline", base, "--task", "harm_bench", "--metric",
                           "harm_bench_score", "--format", "json")
    assert code == 0 and [t["task"] for t in json.loads(out)["tasks"]] == ["harm_bench"], err
    db = tmp_path / "h.duckdb"
    for task, metric in (("harm_bench", ["--metric", "harm_bench_score"]), ("bbq", [])):
        assert run_cli(capsys, "ingest", runs, "--db", db, "--task", task, *metric)[0] == 0
    code, out, err = _gate(capsys, "--db", db, "--candidate", cand, "--baseline", base, "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    assert sorted(t["task"] for t in d["tasks"]) == ["bbq", "harm_bench"] and d["verdict"] == "INCONCLUSIVE"


def test_piped_text_never_cuts_a_name_or_header_inside_a_word(tmp_path, capsys):
    """Piped (110 columns): long task and model names, the headers and the plan columns stay whole words;
    --plan puts its two columns in a second table."""
    long = {"swebench_verified_mini": (500, 20, 19), "mmlu_pro_engineering_subset": (900, 30, 31)}
    p = _suite_csv(tmp_path / "long.csv", long)
    code, out, _ = _gate(capsys, p, "--candidate", "new", "--baseline", "old", "--plan")
    assert code == 0
    words = set(re.findall(r"[\w.,%\-\[\]+/]+", out))
    for w in ("swebench_verified_mini", "mmlu_pro_engineering_subset", "candidate", "baseline", "detectable",
              "drop", "margin", "decision", "inconclusive"):
        assert w in words, (w, out)
    assert max(len(line) for line in out.splitlines()) <= 110
    assert re.search(r"^Plan \(power 80%\)", out, re.M)
    assert out.count("swebench_verified_mini") == 3                          # the verdict and the two tables


def test_a_one_item_task_is_worded_for_its_one_pair(tmp_path, capsys):
    """compare's '1 pair(s) share fewer than 2 scored items' is said of the gate's one pair; one item is 'their
    one item', not 'all 1 item'."""
    p = _suite_csv(tmp_path / "one.csv", {"arc": (400, 10, 11), "one": (1, 0, 0)})
    code, _, err = _gate(capsys, p, "--candidate", "new", "--baseline", "old")
    assert code == 0
    assert "fewer than 2" not in err and "pair(s)" not in err and "all 1 item" not in err   # one sentence (m2)
    assert "one (has 1 item: too few for an interval; equal models would need about 498 items)" in err


# ------------------------------------------------------------------ issue 30: align, D1, D3, D4
def _partial_csv(path, drop_from: str = "cand") -> str:
    """The audit's g3 (smaller): t1 holds 600 items; the candidate's log lacks the 40 it fails (true -6.7 points)."""
    rows = ["task,model,item,score"]
    g = np.random.default_rng(7)
    b = (g.random(600) < 0.7).astype(int)
    lost = set(np.flatnonzero(b == 1)[:40].tolist())
    for i in range(600):
        rows.append(f"t1,base,i{i},{b[i]}")
        if not (drop_from == "cand" and i in lost):
            rows.append(f"t1,cand,i{i},{0 if i in lost else b[i]}")
    for i in range(300):
        rows += [f"t0,base,j{i},1", f"t0,cand,j{i},1"]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_align_error_refuses_a_side_that_lacks_items_with_counts_per_task(tmp_path, capsys):
    p = _partial_csv(tmp_path / "partial.csv")
    code, out, err = _gate(capsys, p, "--candidate", "cand", "--baseline", "base", "--margin", "1")
    assert code == 1 and not out and err.count("\n") == 1
    assert err.startswith("error: the candidate and the baseline are scored on different items: task 't1': 'cand' "
                          "lacks 40 of the 600 items 'base' scored.") and "--align intersect" in err
    assert "t0" not in err


def test_align_intersect_says_what_each_side_lost_in_every_format(tmp_path, capsys):
    p = _partial_csv(tmp_path / "partial.csv")
    args = (p, "--candidate", "cand", "--baseline", "base", "--align", "intersect")
    said = "Compared on the items both scored: t1: cand lacks 40, base lacks 0 of the items the other scored."
    for fmt in ("text", "md"):
        code, out, _ = _gate(capsys, *args, "--format", fmt)
        assert code in (0, 3) and said in " ".join(out.split()), fmt
    code, out, _ = _gate(capsys, *args, "--format", "json")
    d = json.loads(out)
    t1 = next(t for t in d["tasks"] if t["task"] == "t1")
    assert d["align"] == "intersect" and (t1["missing_candidate"], t1["missing_baseline"], t1["n_items"]) == (40, 0, 560)
    code, out, _ = _gate(capsys, *args, "--format", "csv")
    df = pd.read_csv(__import__("io").StringIO(out))
    assert df.set_index("task").loc["t1", ["missing_candidate", "missing_baseline"]].tolist() == [40, 0]
    out_html = tmp_path / "g.html"
    code, _, _ = _gate(capsys, *args, "--out", str(out_html))
    assert said.split(": t1")[0] in " ".join(re.sub("<[^>]+>", " ", out_html.read_text()).split())


def test_margin_0_never_says_the_models_agree(tmp_path, capsys):
    """D1: at --margin 0 no count of items is 'needed'; the models disagree on many items here."""
    p = _suite_csv(tmp_path / "m0.csv", {"arc": (1200, 47, 52)})
    for fmt in ("text", "md", "json"):
        code, out, err = _gate(capsys, p, "--candidate", "new", "--baseline", "old", "--margin", "0", "--format", fmt)
        assert code == 0 and "agree on" not in out + err and "alike" not in out + err
        said = " ".join(out.split()) if fmt != "json" else json.loads(out)["headline"]["text"]
        assert "at a margin of 0 no number of items rules out a drop" in said


def test_items_needed_are_those_of_equal_models_and_never_contradict_the_count(tmp_path, capsys):
    """D3: a task with more items than equal models need, inconclusive because of what was observed, says the
    observed difference and its bound (PR comment and JSON headline, not only stderr)."""
    p = _suite_csv(tmp_path / "d3.csv", {"arc": (1200, 30, 41)})        # observed -0.92 points, 71 discordant
    code, out, err = _gate(capsys, p, "--candidate", "new", "--baseline", "old", "--margin", "2", "--format", "md")
    assert code == 0 and out.startswith("**INCONCLUSIVE")
    head = out.splitlines()[0]
    assert "arc (observed -0.92 points, lower bound -" in head and "more than the" in head
    assert "equal models would need)" in head and "needs about" not in head
    code, out, _ = _gate(capsys, p, "--candidate", "new", "--baseline", "old", "--margin", "2", "--format", "json")
    assert "observed -0.92 points" in json.loads(out)["headline"]["text"]


def test_read_errors_name_the_file_and_line(tmp_path, capsys):
    """D4: the file and its line, not 'DataFrame: row N'."""
    nan = tmp_path / "nan_score.csv"
    nan.write_text("task,model,item,score\nt,A,i1,0.5\nt,B,i1,0.4\nt,A,i2,\nt,B,i2,0.3\n")
    code, _, err = _gate(capsys, nan, "--candidate", "A", "--baseline", "B")
    assert code == 1 and err.startswith("error: nan_score.csv: line 4: score is missing") or \
        err.startswith(f"error: {nan}: line 4: score is missing"), err
    dup = tmp_path / "dup.csv"
    dup.write_text("task,model,item,score\nt,A,i1,0.5\nt,B,i1,0.4\nt,A,i1,0.2\nt,B,i2,0.3\n")
    code, _, err = _gate(capsys, dup, "--candidate", "A", "--baseline", "B")
    assert code == 1 and "line 4: duplicate row for model 'A', item 'i1' (first at line 2)" in err
    code, _, err = _gate(capsys, dup, "--candidate", "A", "--baseline", "B", "--cluster-by", "nosuch")
    assert code == 1 and "DataFrame" not in err and "dup.csv: no group column 'nosuch'" in err


def test_continuous_tasks_use_the_betting_interval_and_t_is_labelled_asymptotic(tmp_path, capsys):
    g = np.random.default_rng(3)
    base = g.beta(2, 2, 300)
    cand = np.clip(base + g.normal(0, 0.05, 300), 0, 1)
    rows = ["task,model,item,score"] + [f"j,{m},i{i},{s[i]:.6f}" for m, s in (("new", cand), ("old", base))
                                        for i in range(300)]
    p = tmp_path / "cont.csv"
    p.write_text("\n".join(rows) + "\n")
    code, out, _ = _gate(capsys, p, "--candidate", "new", "--baseline", "old", "--format", "md")
    assert "continuous scores: betting interval, valid at every number of items" in out and "Approximate" not in out
    code, out, _ = _gate(capsys, p, "--candidate", "new", "--baseline", "old", "--format", "md", "--method", "t")
    assert "Approximate on 1 task (j): the paired t and the clustered SE are asymptotic" in out
    code, out, _ = _gate(capsys, p, "--candidate", "new", "--baseline", "old", "--format", "json")
    g_json = json.loads(out)
    cmp_json = json.loads(run_cli(capsys, "compare", str(p), "--a", "new", "--b", "old", "--format", "json")[1])
    t = g_json["tasks"][0]
    assert t["method"] == cmp_json["method"] == "betting"
    assert [t["ci_low"], t["ci_high"], t["p_value"]] == pytest.approx(
        [cmp_json["ci_low"], cmp_json["ci_high"], cmp_json["p_value"]], rel=1e-12)


def test_a_one_item_continuous_task_is_one_sentence(tmp_path, capsys):
    """Audit m2: a 1-item continuous task has a (wide) betting interval: one sentence, the items it would need."""
    rows = ["task,model,item,score", "one,cand,x,0.4", "one,base,x,0.5"]
    rows += [f"arc,{m},a{i},0.5" for i in range(100) for m in ("cand", "base")]
    p = tmp_path / "one.csv"
    p.write_text("\n".join(rows) + "\n")
    code, out, err = _gate(capsys, p, "--candidate", "cand", "--baseline", "base")
    assert code == 0 and err.count("\n") == 1 and "not defined" not in err
    assert "one (has 1 item; equal models would need about 1,454)" in err
    assert "arc (has 100 items; equal models would need about 596)" in err      # identical items, 2 tasks


# ------------------------------------------------------------------ the API does what the command line does
def test_the_api_reads_files_and_a_store_as_the_command_line(tmp_path, capsys):
    """rt.gate(paths) and rt.gate(store) give the gate `ranktrust gate` gives; print(gate) is its text and to_dict()
    its JSON (less meta); each task holds the PairedComparison of compare at its level."""
    from ranktrust.data.store import Store

    p = _suite_csv(tmp_path / "s.csv", {"gsm": (4000, 40, 220), "arc": (1500, 30, 31)})
    code, out, _ = _gate(capsys, p, "--candidate", "new", "--baseline", "old", "--format", "json", "--plan")
    assert code == 3
    cli = json.loads(out)
    del cli["meta"]
    g = rt.gate(p, "new", "old", plan=True)
    assert g.verdict == "FAIL" and g.to_dict() == cli
    assert g.headline["text"] == cli["headline"]["text"] and g.headline["text"].startswith("FAIL: gsm")
    code, text, _ = _gate(capsys, p, "--candidate", "new", "--baseline", "old", "--plan")
    assert str(g).rstrip("\n") == text.rstrip("\n") and str(g).splitlines()[0] == g.headline["text"]
    for t in g.tasks:
        ref = rt.compare(rt.read(p, task=t.task, align="pairwise"), "new", "old", confidence_level=t.ci_level)
        assert (t.comparison.diff, t.comparison.ci_low, t.comparison.p_value) == (ref.diff, ref.ci_low, ref.p_value)
    db = tmp_path / "s.duckdb"
    assert run_cli(capsys, "ingest", p, "--db", db)[0] == 0
    code, out, _ = _gate(capsys, "--db", db, "--candidate", "new", "--baseline", "old", "--format", "json")
    from_store = json.loads(out)
    del from_store["meta"]
    for source in (str(db), Store(db, read_only=True)):
        assert rt.gate(source, "new", "old").to_dict() == from_store
    with pytest.raises(rt.errors.ArgumentError, match="`task_col` reads files or a store"):
        rt.gate({"a": rt.read(p, task="arc")}, "new", "old", task_col="task")


def test_gold_labels_correct_each_task_as_compare_does():
    """gold=: each task's difference is compare's gold-corrected paired difference (PPI; post-stratified for 0/1),
    at the task's level; the judge alone is biased here (it favours the candidate), the gold-corrected one is not."""
    rng = np.random.default_rng(3)
    suite, golds = {}, {}
    for t, n in (("qa", 3000), ("math", 2000)):
        truth = (rng.random((2, n)) < np.array([[0.70], [0.70]])).astype(float)
        flip = rng.random((2, n)) < np.array([[0.05], [0.25]])       # the judge errs more on the baseline
        judge = np.where(flip, 1 - truth, truth)
        gold = np.full((2, n), np.nan)
        lab = rng.random(n) < 0.2
        gold[:, lab] = truth[:, lab]
        suite[t] = rt.ScoreMatrix.from_array(judge, models=["cand", "base"])
        golds[t] = rt.ScoreMatrix.from_array(gold, models=["cand", "base"])
    g = rt.gate(suite, "cand", "base", gold=golds, margin=0.05)
    judge_only = rt.gate(suite, "cand", "base", margin=0.05)
    for t in g.tasks:
        ref = rt.compare(suite[t.task], "cand", "base", gold=golds[t.task], confidence_level=t.ci_level)
        assert (t.diff, t.ci_low, t.ci_high, t.p_value) == (ref.diff, ref.ci_low, ref.ci_high, ref.p_value)
        assert t.n_labelled == ref.n_labelled and t.method == ref.method == "stratified"
        assert t.to_dict()["n_labelled"] == ref.n_labelled
    assert all(t.ci_low < 0 < t.ci_high for t in g.tasks)          # truly equal: no difference shown
    assert judge_only.verdict != "FAIL" and all(t.ci_low > 0 for t in judge_only.tasks)   # the judge's bias
    assert "Gold-corrected on 2 tasks" in str(g)
    with pytest.raises(rt.errors.DataError, match="`gold` has no labels for task 'math'"):
        rt.gate(suite, "cand", "base", gold={"qa": golds["qa"]})
    with pytest.raises(rt.errors.ArgumentError, match="`method` must be one of"):
        rt.gate(suite, "cand", "base", gold=golds, method="t")
    ppi = rt.gate(suite, "cand", "base", gold=golds, method="ppi++")
    assert [t.method for t in ppi.tasks] == ["ppi++", "ppi++"]


def test_gold_col_reads_the_labels_beside_the_judge(tmp_path, capsys):
    """--gold-col COL: a long table with the judge's score on every row and a person's label on some (empty
    elsewhere); each task is gated on the gold-corrected difference, the number rt.gate(path, gold=COL) and
    rt.compare(judge, gold=labels) give; a store has no gold column (refused, one line)."""
    rng = np.random.default_rng(5)
    rows = ["task,model,item,score,human"]
    for t, n in (("qa", 1500), ("code", 900)):
        truth = (rng.random((2, n)) < 0.6).astype(int)
        judge = np.where(rng.random((2, n)) < np.array([[0.05], [0.2]]), 1 - truth, truth)
        lab = rng.random(n) < 0.25
        for k, model in enumerate(("new", "old")):
            rows += [f"{t},{model},{t}{i},{judge[k, i]},{truth[k, i] if lab[i] else ''}" for i in range(n)]
    p = tmp_path / "judged.csv"
    p.write_text("\n".join(rows) + "\n")
    code, out, err = _gate(capsys, p, "--candidate", "new", "--baseline", "old", "--gold-col", "human",
                           "--margin", "5", "--format", "json")
    assert code in (0, 3), err
    d = json.loads(out)
    del d["meta"]
    g = rt.gate(str(p), "new", "old", gold="human", margin=0.05)
    assert g.to_dict() == d
    judge_df = pd.read_csv(p)
    for t in g.tasks:
        part = judge_df[judge_df.task == t.task].drop(columns=["task"])
        labels = part.dropna(subset=["human"]).assign(score=lambda x: x.human).drop(columns=["human"])
        m, gm = rt.read(part.drop(columns=["human"])), rt.read(labels)
        gold = gm.select(models=list(m.models))
        full = np.full((m.n_models, m.n_items), np.nan)
        pos = {x: k for k, x in enumerate(m.items)}
        full[:, [pos[x] for x in gold.items]] = np.asarray(gold.scores)
        ref = rt.compare(m, "new", "old", gold=rt.ScoreMatrix.from_array(full, models=list(m.models),
                                                                          items=list(m.items)),
                         confidence_level=t.ci_level)
        assert t.n_labelled == ref.n_labelled and t.diff == pytest.approx(ref.diff, rel=1e-12)
        assert t.ci_low == pytest.approx(ref.ci_low, rel=1e-12)
    db = tmp_path / "j.duckdb"
    assert run_cli(capsys, "ingest", p, "--db", db)[0] == 0
    code, _, err = _gate(capsys, "--db", db, "--candidate", "new", "--baseline", "old", "--gold-col", "human")
    assert code == 1 and err.count("\n") == 1 and "--gold-col reads a column of files" in err, err
