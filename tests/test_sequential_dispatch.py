"""Issue 30 §3: an analysis order that cannot depend on the results. ``order="dispatch"`` analyses items in the
order the harness sent them, each result held back until every item sent before it is complete; ``order="arrival"``
says in every format that it needs completion order not to depend on the results; ``--items`` keeps state between
reads, so a second run (epoch) of an analysed item is refused, or waited for when ``--n-runs`` declares it; the QA's
D2 (``--state`` in a missing folder), D7 (``--n-items`` smaller than the data) and D13 (the ``--follow`` line)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_cli
from ranktrust.errors import ArgumentError, DataError
from ranktrust.sequential import Watch
from ranktrust.sequential._engine import EngineConfig, run_engine

MODELS = ("A", "B", "C")


def completion_order(rng: np.random.Generator, X: np.ndarray, sent: np.ndarray, in_flight: int) -> np.ndarray:
    """The audit's latency model (w1b_latency_min.py): each model's harness sends the items in the order ``sent``
    through ``in_flight`` workers; latency Exp(1), plus Exp(3) when model 0 answers wrong. An item is complete when
    every model has finished it; returns the items in completion order."""
    K, N = X.shape
    fin = np.zeros((K, N))
    for k in range(K):
        lat = rng.exponential(1.0, N) + (k == 0) * (X[k] == 0) * rng.exponential(3.0, N)
        free = np.zeros(in_flight)
        for i in sent:
            j = int(np.argmin(free))
            free[j] += lat[i]
            fin[k, i] = free[j]
    return np.argsort(fin.max(axis=0), kind="stable")


def test_dispatch_buffer_analyses_in_dispatch_order():
    """Results arriving in completion order (out of the sending order, cell by cell) give exactly the decisions of
    the engine run over the sending order, and at every moment the analysed items are the complete prefix of it."""
    rng = np.random.default_rng(11)
    N = 400
    X = (rng.random((3, N)) < np.array([[0.72], [0.55], [0.5]])).astype(float)
    items = [f"q{i}" for i in range(N)]
    sent = rng.permutation(N)
    w = Watch(MODELS, [items[i] for i in sent], order="dispatch")
    done = np.zeros(N, dtype=bool)
    rank = np.empty(N, dtype=np.int64)
    rank[sent] = np.arange(N)
    for step, i in enumerate(completion_order(rng, X, sent, 16)):
        for k in rng.permutation(3):
            w.update(MODELS[k], items[i], X[k, i])
        done[rank[i]] = True
        if step % 37 == 0:
            s = w.status(next_budget=0)
            prefix = int(np.argmin(done)) if not done.all() else N
            assert s.items_seen == prefix or s.target_decided
    e = run_engine(X[:, sent], EngineConfig(alpha=0.05, horizon=N, stop_when_done=True))
    s = w.status()
    assert s.order == "dispatch" and s.items_seen == e.t
    assert [x["at_item"] for x in s.excluded] == sorted(int(a) for a in e.excluded_at[e.excluded_at > 0])
    ref = Watch(MODELS, [items[i] for i in sent], order="dispatch")
    for i in sent:                                   # the same results sent and completed in order
        ref.update_many([(m, items[i], X[k, i]) for k, m in enumerate(MODELS)])
    assert ref.status().to_dict() == s.to_dict()
    assert w.item_order()[:3] == [items[i] for i in sent[:3]] and w.position(items[sent[5]]) == 5


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_dispatch_analyses_exactly_the_complete_prefix(data):
    """Property: whatever the arrival order of the cells, the analysed items are the longest prefix of the sending
    order whose items are complete (the target is never decided on 12 tied items)."""
    n = data.draw(st.integers(2, 12))
    sent = data.draw(st.permutations(list(range(n))))
    cells = data.draw(st.permutations([(k, i) for i in range(n) for k in range(2)]))
    cut = data.draw(st.integers(0, len(cells)))
    w = Watch(["A", "B"], [f"q{i}" for i in sent], order="dispatch", n_items=1000)   # never all-unresolvable
    have = np.zeros((2, n), dtype=bool)
    for k, i in cells[:cut]:
        w.update("AB"[k], f"q{i}", float((i + k) % 2))
        have[k, i] = True
    complete = have.all(axis=0)[sent]
    prefix = int(np.argmin(complete)) if not complete.all() else n
    s = w.status(next_budget=0)
    assert s.items_seen == prefix
    assert s.held_back == int(have.sum()) - 2 * prefix


def test_dispatch_list_grows_and_results_for_unsent_items_wait():
    w = Watch(["A", "B"], order="dispatch", n_items=10)
    w.dispatch(["x1", "x2"])
    w.update_many([("A", "x3", 1.0), ("B", "x3", 0.0), ("A", "x1", 1.0), ("B", "x1", 0.0)])
    s = w.status()
    assert s.items_seen == 1 and s.held_back == 2 and s.items_total == 10
    assert s.waiting_for[0]["item"] == "x2" and s.waiting_for[0]["position"] == 2
    w.dispatch(["x3", "x1"])        # a second send of x1 (an epoch, a retry) keeps its first place
    assert w.item_order() == ["x1", "x2", "x3"] and w.position("x3") == 2
    w.update_many([("A", "x2", 1.0), ("B", "x2", 0.0)])
    assert w.status().items_seen == 3 and w.analysed_items() == ["x1", "x2", "x3"]
    with pytest.raises(ArgumentError, match="has not been sent"):
        w.position("x9")
    with pytest.raises(ArgumentError, match="records the sending order of `order`='dispatch'"):
        Watch(["A", "B"], ["x"]).dispatch(["x"])
    with pytest.raises(ArgumentError, match="were already sent"):
        Watch(["A", "B"], ["x", "y", "z"], order="dispatch", n_items=2)
    full = Watch(["A", "B"], ["x", "y"], order="dispatch")      # the whole list: N = its length, nothing else
    assert full.status().items_total == 2
    with pytest.raises(DataError, match="is not one of the 2 items"):
        full.update("A", "z", 1.0)


def test_arrival_warns_in_every_format(tmp_path, capsys):
    """The arrival note names latency and the remedy, in the API's words in Python and the flags on the command
    line (text, Markdown, HTML and the JSON's record and text)."""
    from ranktrust.reporting.renderers import to_string

    w = Watch(["A", "B"], order="arrival")
    w.update_many([("A", "q1", 1.0), ("B", "q1", 0.0)])
    s = w.status()
    assert [n.code for n in s.notes] == ["watch_arrival_latency"]
    for fmt in ("text", "md"):
        flat = " ".join(to_string(s, fmt).split())
        assert "latency depends on correctness" in flat and "Use `order`='dispatch'" in flat, flat
    assert Watch(["A", "B"], ["q1"], order="dispatch").status().notes == ()
    rows = [(m, f"q{i}", float((i * (k + 2)) % 3 == 0)) for i in range(30) for k, m in enumerate("AB")]
    f = tmp_path / "in.csv"
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(f, index=False)
    for fmt in ("text", "md", "html", "json"):
        code, out, err = run_cli(capsys, "watch", f, "--order", "arrival", "--format", fmt,
                                 "--state", tmp_path / f"{fmt}.state")
        assert code == 0, err
        if fmt == "json":
            (note,) = json.loads(out)["notes"]
            assert note["code"] == "watch_arrival_latency" and "Use --order dispatch with --items" in note["text"]
            continue
        flat = " ".join(out.replace("&#x27;", "'").split())
        assert "latency depends on correctness" in flat and "Use --order dispatch with --items" in flat, (fmt, out)
        assert "`order`" not in flat
    code, out, err = run_cli(capsys, "watch", f, "--format", "json")
    assert code == 0 and json.loads(out)["notes"] == []


def _two_epochs(tmp_path):
    """The audit's w3b_items_rerun_withdraw.sh data: v1 = one run of 100 items (A strong), v2 = v1 + a second run
    of every item appended (A 0, B 1), with the run id in a column."""
    g = np.random.default_rng(1)
    N = 100
    items = [f"q{i}" for i in range(N)]
    (tmp_path / "items.txt").write_text("\n".join(items) + "\n")
    a = (g.random(N) < .85).astype(float)
    b = (g.random(N) < .35).astype(float)
    df = pd.DataFrame([("A", it, a[i], "0") for i, it in enumerate(items)]
                      + [("B", it, b[i], "0") for i, it in enumerate(items)], columns=["model", "item", "score", "run"])
    df.to_csv(tmp_path / "v1.csv", index=False)
    extra = pd.DataFrame([("A", it, 0.0, "1") for it in items] + [("B", it, 1.0, "1") for it in items],
                         columns=df.columns)
    pd.concat([df, extra]).to_csv(tmp_path / "v2.csv", index=False)
    return tmp_path / "v1.csv", tmp_path / "v2.csv", tmp_path / "items.txt"


def test_items_keep_state_and_a_second_epoch_is_refused(tmp_path, capsys):
    """Audit W3-EPOCHS: `watch v1 --items` certified A (B out at item 13); `watch v2 --items` (a second run appended)
    re-analysed every item and excluded A at item 37, exit 0. Now the state beside the --items file refuses the
    re-read in one line naming --n-runs, and keeps the decision; with --n-runs 2 the items wait for both runs."""
    v1, v2, items = _two_epochs(tmp_path)
    code, out, err = run_cli(capsys, "watch", v1, "--items", items, "--run-col", "run", "--format", "json")
    assert code == 0, err
    first = json.loads(out)
    assert first["excluded"] == [{"model": "B", "at_item": 13}]
    assert first["state_file"] == f"{items}.watch-state"
    kept = (tmp_path / "items.txt.watch-state").read_text()
    code, out, err = run_cli(capsys, "watch", v2, "--items", items, "--run-col", "run", "--format", "json")
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "was analysed with 1 run(s) of A and the input now has 2" in err and "--n-runs" in err, err
    assert (tmp_path / "items.txt.watch-state").read_text() == kept            # nothing written
    code, out, err = run_cli(capsys, "watch", v1, "--items", items, "--run-col", "run", "--format", "json")
    assert code == 0 and json.loads(out)["excluded"] == first["excluded"]     # a re-read continues, unchanged
    # declared repeats: every item waits for both runs; nothing is decided on one run, so nothing is withdrawn
    nr = tmp_path / "nr.state"
    code, out, err = run_cli(capsys, "watch", v1, "--items", items, "--run-col", "run", "--n-runs", 2,
                             "--state", nr, "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["items_seen"] == 0 and d["excluded"] == [] and d["held_back"] == 200
    code, out, err = run_cli(capsys, "watch", v2, "--items", items, "--run-col", "run", "--n-runs", 2,
                             "--state", nr, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["items_seen"] > 0
    # the same two reads in arrival order are refused too, now naming the run
    code, out, err = run_cli(capsys, "watch", v1, "--order", "arrival", "--n-items", 100, "--run-col", "run",
                             "--state", tmp_path / "a.state")
    assert code == 0, err
    code, out, err = run_cli(capsys, "watch", v2, "--order", "arrival", "--n-items", 100, "--run-col", "run",
                             "--state", tmp_path / "a.state")
    assert code == 1 and "a later run (epoch) cannot revise an analysed item" in err and err.count("\n") == 1


def test_dispatch_on_the_command_line(tmp_path, capsys):
    """`--order dispatch --items SENT` equals the Python Watch over the sending order; a growing list needs
    --n-items; a changed list, or results for items never sent, are refused in one line."""
    rng = np.random.default_rng(3)
    N = 120
    X = (rng.random((2, N)) < np.array([[0.8], [0.4]])).astype(float)
    items = [f"q{i}" for i in range(N)]
    sent = [items[i] for i in rng.permutation(N)]
    rows = [(m, it, X[k, int(it[1:])]) for it in reversed(sent) for k, m in enumerate("AB")]   # completed last first
    f = tmp_path / "res.csv"
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(f, index=False)
    lst = tmp_path / "sent.txt"
    lst.write_text("\n".join(sent) + "\n")
    code, out, err = run_cli(capsys, "watch", f, "--order", "dispatch", "--items", lst, "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    w = Watch(["A", "B"], sent, order="dispatch")
    w.update_many(rows)
    assert d["order"] == "dispatch" and d["excluded"] == w.status().to_dict()["excluded"] and d["excluded"]
    assert d["items_total"] == N and d["notes"] == []
    # a list still growing: the first 60 sent, N declared; results for items not yet listed wait
    grow = tmp_path / "grow.txt"
    grow.write_text("\n".join(sent[:60]) + "\n")
    g = tmp_path / "g.state"
    code, out, err = run_cli(capsys, "watch", f, "--order", "dispatch", "--items", grow, "--n-items", N,
                             "--state", g, "--format", "json")
    assert code == 0, err
    part = json.loads(out)
    assert part["items_total"] == N and part["items_seen"] <= 60
    grow.write_text("\n".join(sent) + "\n")
    code, out, err = run_cli(capsys, "watch", f, "--order", "dispatch", "--items", grow, "--n-items", N,
                             "--state", g, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["excluded"] == d["excluded"]
    grow.write_text("\n".join([sent[1], sent[0], *sent[2:]]) + "\n")
    code, out, err = run_cli(capsys, "watch", f, "--order", "dispatch", "--items", grow, "--n-items", N,
                             "--state", g)
    assert code == 1 and "the dispatch list changed: place 1" in err and err.count("\n") == 1, err
    short = tmp_path / "short.txt"
    short.write_text("\n".join(sent[:10]) + "\n")
    code, out, err = run_cli(capsys, "watch", f, "--order", "dispatch", "--items", short, "--state", g)
    assert code == 1 and "has results but is not in the dispatch list" in err and "--n-items" in err, err
    code, out, err = run_cli(capsys, "watch", f, "--order", "dispatch")
    assert code == 1 and "--order dispatch needs --items FILE" in err


def test_d2_state_in_a_folder_that_does_not_exist(tmp_path, capsys):
    """QA D2: `--state /proc/nope/state` was a FileNotFoundError traceback."""
    v1, _, items = _two_epochs(tmp_path)
    missing = tmp_path / "nope" / "state"
    for extra in (["--order", "arrival", "--n-items", 200], ["--items", items]):
        code, out, err = run_cli(capsys, "watch", v1, "--run-col", "run", *extra, "--state", missing)
        assert code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
        assert f"the folder {missing.parent} does not exist; create it first" in err


def test_d7_n_items_smaller_than_the_data_names_the_item_that_does_not_fit(tmp_path, capsys):
    """QA D7: 200 items with --n-items 150 said "item 'i0' would be item 1 ... n_items=150": the 151st item is the
    one that does not fit, and the command line names its flag."""
    rows = [(m, f"i{k}", float((k + j) % 2)) for k in range(200) for j, m in enumerate("AB")]
    f = tmp_path / "ab.csv"
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(f, index=False)
    code, out, err = run_cli(capsys, "watch", f, "--order", "arrival", "--n-items", 150, "--state", tmp_path / "s")
    assert code == 1 and err.count("\n") == 1, err
    assert "item 'i150' would be item 151 of a benchmark declared with --n-items 150" in err, err
    assert "200 items have results, 50 more than declared" in err and "n_items=" not in err


def test_d13_follow_line_says_why_nothing_is_analysed():
    """QA D13: "watch: 0 of 600 declared items analysed" while 300 items had arrived, with no reason."""
    from ranktrust.reporting.renderers._watch import follow_line

    items = [f"q{i}" for i in range(40)]
    w = Watch(["A", "B"], items)
    first = w.next(1)[0][1]
    w.update_many([(m, it, 1.0) for it in items if it != first for m in "AB"])
    line = follow_line(w.status().to_dict())
    assert line.startswith("watch: 0 of 40 declared items analysed, 0 cells; set: A, B; ")
    assert f"78 results wait for item {first} (place 1 in the seeded order), which lacks A, B" in line


@pytest.mark.slow
def test_dispatch_holds_the_level_under_correctness_dependent_latency():
    """The audit's W2-LAT (defect 1): two equal Bernoulli(0.6) models, 200 items shuffled by the harness, 16
    requests in flight, model A's wrong answers slower. Analysed in completion order (arrival) a true best model was
    excluded in 0.147 of runs; in the sending order (dispatch) the rate is at most 0.05 within 2 Monte Carlo SE.
    With every item in flight arrival order excludes B in most runs (0.927 in the audit): the test can fail."""
    R, N = 150, 200
    g = np.random.default_rng(2030)
    out = {("dispatch", 16): np.zeros(2), ("arrival", 200): np.zeros(2)}   # runs excluding A, B
    items = [f"q{i}" for i in range(N)]
    for _ in range(R):
        X = (g.random((2, N)) < 0.6).astype(float)
        sent = g.permutation(N)
        for mode, conc in out:
            order = completion_order(g, X, sent, conc)
            w = (Watch(["A", "B"], [items[i] for i in sent], order="dispatch") if mode == "dispatch"
                 else Watch(["A", "B"], order="arrival", n_items=N))
            # all results at once, rows in completion order: the same analysis as one item at a time (arrival
            # places an item where its last row is; dispatch waits for the sending order either way)
            w.update_many([(m, items[i], X[k, i]) for i in order for k, m in enumerate("AB")])
            best = w.status(next_budget=0).best_set      # an exclusion is never withdrawn: the last look holds all
            out[(mode, conc)] += [m not in best for m in "AB"]
    per_model = out[("dispatch", 16)].max() / R         # the guarantee is per true best model
    assert per_model <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / R), out
    assert out[("arrival", 200)][1] / R > 0.5, out


def test_an_arrival_state_file_from_before_the_order_was_kept_continues(tmp_path, capsys):
    """A state file written before --order and --n-runs were kept (0.2: arrival order only, no run counts) is read
    as arrival order without declared runs, and continues its sequence."""
    rows = [(m, f"q{i}", float((i * (k + 2)) % 3 == 0)) for i in range(40) for k, m in enumerate("AB")]
    f = tmp_path / "in.csv"
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(f, index=False)
    st = tmp_path / "old.state"
    code, out, err = run_cli(capsys, "watch", f, "--order", "arrival", "--state", st, "--format", "json")
    assert code == 0, err
    old = json.loads(st.read_text())
    # a file of 0.2 keys its settings by the command line's flags, and has no --order, --n-runs or runs
    flags = {"confidence_level": "--confidence", "rng": "--seed", "eliminate": "--no-eliminate"}
    old["settings"] = {flags.get(k, "--" + k.replace("_", "-")): (not v if k == "eliminate" else v)
                       for k, v in old["settings"].items() if k not in ("order", "n_runs")}
    assert "--no-eliminate" in old["settings"] and "--best-method" in old["settings"]
    del old["runs"]
    old["version"] = 2
    st.write_text(json.dumps(old))
    code, again, err = run_cli(capsys, "watch", f, "--order", "arrival", "--state", st, "--format", "json")
    assert code == 0, err
    assert json.loads(again)["excluded"] == json.loads(out)["excluded"]
    code, _, err = run_cli(capsys, "watch", f, "--order", "arrival", "--n-runs", 2, "--state", st)
    assert code == 1 and "started with --n-runs not given, this run has --n-runs 2" in err, err
