"""The live Watch keeps its guarantee (issue 22): an order fixed before the data, a declared size, re-reads that
continue one sequence, an incremental engine, one answer in every output; the audit's W2/W3 and the QA's D1, D2,
D6 and D11 cases."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ranktrust as rt
from conftest import run_cli, shared_file
from ranktrust.reporting._fmt import rank_range
from ranktrust.errors import DataError
from ranktrust.sequential import Watch
from ranktrust.sequential._engine import EngineConfig, run_engine


def _cp_high(k: int, n: int) -> float:
    """One-sided 95% Clopper-Pearson upper bound on a rate."""
    return 1.0 if k == n else float(stats.beta.ppf(0.95, k + 1, n - k))


def test_watch_refuses_without_an_order_fixed_before_the_data():
    with pytest.raises(ValueError, match="needs an analysis order fixed before the data: pass `items`"):
        Watch(["A", "B"])
    with pytest.raises(ValueError, match="needs the benchmark's size declared"):
        Watch(["A", "B"], order="arrival", scope="benchmark")
    with pytest.raises(ValueError, match="`n_items`=3 but 2 `items` were given"):
        Watch(["A", "B"], ["q1", "q2"], n_items=3)
    w = Watch(["A", "B"], order="arrival", n_items=2)
    w.update_many([("A", "q1", 1), ("B", "q1", 0), ("A", "q2", 1)])
    with pytest.raises(DataError, match="item .q3. would be item 3 of a benchmark declared with `n_items`=2"):
        w.update("A", "q3", 1.0)


def test_arrival_order_is_append_only_and_equals_the_engine_on_that_order():
    rng = np.random.default_rng(3)
    X = (rng.random((3, 400)) < np.array([[0.7], [0.55], [0.5]])).astype(float)
    w = Watch(["A", "B", "C"], order="arrival", n_items=400)
    for i in range(400):   # results arrive item by item, models in a shuffled order
        for k in rng.permutation(3):
            w.update(["A", "B", "C"][k], f"q{i}", X[k, i])
    st = w.status()
    e = run_engine(X, EngineConfig(alpha=0.05, horizon=400, stop_when_done=True))
    assert st.items_seen == e.t and [x["at_item"] for x in st.excluded] == sorted(e.excluded_at[e.excluded_at > 0])
    assert w.item_order()[:5] == ["q0", "q1", "q2", "q3", "q4"] and st.order == "arrival"


def test_feeding_item_by_item_equals_feeding_once_declared():
    """The incremental engine: one result at a time gives the status of all results at once (every quantity is
    per item; the intervals are sums in another order, so a few ulps apart)."""
    rng = np.random.default_rng(4)
    items = [f"q{i}" for i in range(300)]
    X = (rng.random((4, 300)) < np.array([[0.62], [0.6], [0.5], [0.45]])).astype(float)
    models = ["a", "b", "c", "d"]
    once = Watch(models, items, target="ranks", eliminate=False).update_matrix(
        rt.ScoreMatrix.from_array(X, models=models, items=items)).status().to_dict()
    w = Watch(models, items, target="ranks", eliminate=False)
    for it in w.item_order()[::-1]:    # against the order: everything waits until the first item arrives
        j = items.index(it)
        w.update_many([(m, it, X[k, j]) for k, m in enumerate(models)])
        if it == w.item_order()[150]:
            s = w.status()
            assert s.items_seen == 0 and s.held_back == 4 * 150 and s.waiting_for[0]["position"] == 1
    step = w.status().to_dict()
    for k in ("items_seen", "cells_scored", "decided", "best_set", "excluded"):
        assert step[k] == once[k]
    for a, b in zip(step["pairs"], once["pairs"]):
        np.testing.assert_allclose([a["low"], a["high"]], [b["low"], b["high"]], rtol=1e-9)   # sums, other order


@pytest.mark.slow
def test_audit_w2_live_watch_never_withdraws_and_holds_its_level():
    """stat-repro-2026-12/w7: two equal 0/1 models, a look after every item. With order='arrival' no exclusion is
    withdrawn, and the error at some look is at most alpha (was 12 of 60 withdrawn, 0.167 error). The
    reproducer's 60 data sets (seeds 0-59), run through the public API."""
    R, N, withdrawn, err = 60, 150, 0, 0
    for seed in range(R):
        rng = np.random.default_rng(seed)
        a = (rng.random(N) < 0.6).astype(float)
        b = (rng.random(N) < 0.6).astype(float)
        w = Watch(["A", "B"], order="arrival", confidence_level=0.95)
        hist = []
        for i in range(N):
            w.update_many([("A", f"q{i}", a[i]), ("B", f"q{i}", b[i])])
            hist.append(len(w.status(next_budget=0).best_set))
        h = np.array(hist)
        err += (h == 1).any()
        withdrawn += (h == 1).any() and (h[np.argmax(h == 1):] == 2).any()
    assert withdrawn == 0
    assert stats.binomtest(err, R, 0.05, alternative="greater").pvalue > 0.01, err / R


def test_d2_results_in_the_benchmark_order_say_what_blocks_them():
    """QA D2: fed in the benchmark's own order, declared items wait for the seeded order and the status says
    which item blocks them; with order='arrival' they are analysed as they come."""
    df = pd.read_csv(shared_file("swebench_verified_mini.csv"))
    items = sorted(df["item"].unique())
    models = sorted(df["model"].unique())
    w = Watch(models, items)
    a = Watch(models, order="arrival", n_items=len(items))
    for it in items[:400]:
        part = df[df["item"] == it][["model", "item", "score"]]
        w.update_many(part)
        a.update_many(part)
    s = w.status()
    assert s.waiting_for and s.held_back > 0 and s.waiting_for[0]["item"] not in items[:400]
    assert s.waiting_for[0]["item"] == w.next(1)[0][1]
    from ranktrust.reporting.renderers._watch import _waiting_lines

    (line,) = _waiting_lines(s.to_dict())
    assert line.startswith(f"{s.held_back:,} results wait for item {s.waiting_for[0]['item']} (place ")
    assert "score in the order Watch.next() proposes (the seeded order)" in line   # a Python user's words
    assert a.status().items_seen >= 50 and a.status().items_total == len(items)


def test_d11_api_messages():
    w = Watch(["A", "B"], ["q1", "q2"])
    with pytest.raises(DataError, match=r"score 1\.5 for model 'A', item 'q1' is outside the score range"):
        w.update("A", "q1", 1.5)
    for v in (None, float("nan")):
        with pytest.raises(DataError, match="item 'q1' is missing \\(None or NaN\\)"):
            w.update("A", "q1", v)
    with pytest.raises(DataError, match="score '1' for model 'A', item 'q1' is not a number"):
        w.update("A", "q1", "1")
    with pytest.raises(DataError, match="is not a number"):
        w.update_many(pd.DataFrame({"model": ["A"], "item": ["q1"], "score": ["1"]}))



def test_booleans_are_scores_and_no_numpy_repr_is_printed():
    """Verifier, 2026-12: Watch.update(m, i, np.bool_(True)) said "score np.True_ ... is not a number"."""
    a, b = Watch(["A", "B"], ["q1", "q2", "q3"]), Watch(["A", "B"], ["q1", "q2", "q3"])
    for k, (x, y) in enumerate(((True, False), (np.bool_(True), np.bool_(False)), (False, True))):
        a.update("A", f"q{k + 1}", x).update("B", f"q{k + 1}", y)
        b.update("A", f"q{k + 1}", float(x)).update("B", f"q{k + 1}", float(y))
    assert a.status().to_dict() == b.status().to_dict()
    c = Watch(["A", "B"], ["q1"])
    c.update_many(pd.DataFrame({"model": ["A", "B"], "item": ["q1", "q1"], "score": np.array([True, False])}))
    assert c.status().items_seen == 1
    with pytest.raises(DataError) as ei:
        c.update("A", "q1", np.str_("1"))
    assert "np." not in str(ei.value) and "score '1' for model 'A'" in str(ei.value)


def test_excluded_models_rank_below_the_set_and_decided_only_when_the_target_is():
    rng = np.random.default_rng(0)
    items = [f"q{i}" for i in range(400)]
    X = (rng.random((4, 400)) < np.array([[0.8], [0.8], [0.3], [0.2]])).astype(float)
    models = ["a", "b", "c", "d"]
    s = Watch(models, items).update_matrix(rt.ScoreMatrix.from_array(X, models=models, items=items)).status()
    d = s.to_dict()
    out = {x["model"] for x in d["excluded"]}
    assert out == {"c", "d"} and not d["target_decided"]
    for r in d["models"]:
        assert (r["rank_low"] >= 2) == (r["model"] in out)
    assert set(d["best_set"]) == {"a", "b"}


def _sw_first(tmp_path, n):
    df = pd.read_csv(shared_file("swebench_verified_mini.csv"))
    keep = sorted(df["item"].unique())[:n]
    p = tmp_path / f"sw_first{n}.csv"
    df[df["item"].isin(keep)][["model", "item", "score"]].to_csv(p, index=False)
    return p, sorted(df["item"].unique())


def test_d1_partial_input_is_not_the_whole_benchmark(tmp_path, capsys):
    """QA D1: on the first 400 of 500 SWE-bench items, --scope benchmark certified the wrong #1. The size is now
    declared or --scope benchmark is refused; with the 500 ids declared, 400 analysed is said as such."""
    p, all_items = _sw_first(tmp_path, 400)
    code, out, err = run_cli(capsys, "watch", p, "--scope", "benchmark")
    assert code == 1 and "needs the benchmark's size declared" in err and err.count("\n") == 1
    ids = tmp_path / "items.txt"
    ids.write_text("\n".join(all_items) + "\n")
    code, out, err = run_cli(capsys, "watch", p, "--items", ids, "--scope", "benchmark", "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["items_total"] == 500 and d["items_seen"] <= 400
    assert "Gemini 3 Pro Preview (2025-11-18)" not in d["best_set"] or len(d["best_set"]) > 1
    code, out, err = run_cli(capsys, "watch", p, "--items", ids, "--state", tmp_path / "population.state")
    assert code == 0, err      # another scope is another sequence: its own state file
    assert "500 items declared" in out


def test_d6_page_and_json_say_the_same(tmp_path, capsys):
    """QA D6: the page said 'Decided.' with three models in the set and rank set 1-25 for every model."""
    p = shared_file("swebench_verified_mini.csv")
    page = tmp_path / "w.html"
    code, out, err = run_cli(capsys, "watch", p, "--format", "json", "--html", page)
    assert code == 0, err
    d = json.loads(out)
    html = page.read_text()
    assert len(d["best_set"]) == 3 and not d["target_decided"] and "Decided." not in html
    assert 'name="viewport"' in html
    for r in d["models"]:
        excluded = r["model"] not in d["best_set"]
        assert (r["rank_low"] >= 2) == excluded
        assert f">{rank_range(r['rank_low'], r['rank_high'])}</td>" in html   # fmt's one rule: '2–25'


def test_w3_rereads_of_a_growing_file_continue_one_sequence(tmp_path, capsys):
    """The audit's W3: a growing file re-read with --order arrival continues one sequence (the state file keeps
    the order); a certified exclusion is never withdrawn; the source shrinking or changing is refused."""
    rng = np.random.default_rng(2)
    N = 300
    X = (rng.random((3, N)) < np.array([[0.75], [0.5], [0.45]])).astype(float)
    rows = [(m, f"q{i}", X[k, i]) for i in range(N) for k, m in enumerate("ABC")]
    df = pd.DataFrame(rows, columns=["model", "item", "score"])
    f = tmp_path / "live.csv"
    state = tmp_path / "live.state"
    seen, out_sets = [], []
    for cut in (60, 150, 240, 300):
        df.iloc[: 3 * cut].to_csv(f, index=False)
        code, out, err = run_cli(capsys, "watch", f, "--order", "arrival", "--n-items", N, "--state", state,
                                 "--format", "json")
        assert code == 0, err
        d = json.loads(out)
        seen.append(d)
        out_sets.append({x["model"]: x["at_item"] for x in d["excluded"]})
    for a, b in zip(out_sets, out_sets[1:]):
        assert all(b.get(m) == at for m, at in a.items())      # never withdrawn, same item
    e = run_engine(X, EngineConfig(alpha=0.05, horizon=N, stop_when_done=True))
    assert seen[-1]["items_seen"] == e.t
    kept = json.loads(state.read_text())["order"]
    assert len(kept) >= e.t > 10
    df.iloc[: 3 * (e.t // 2)].to_csv(f, index=False)        # the source shrank
    code, out, err = run_cli(capsys, "watch", f, "--order", "arrival", "--n-items", N, "--state", state)
    assert code == 1 and "no longer in the input: the source shrank" in err and err.count("\n") == 1
    df2 = df.copy()
    df2.loc[0, "score"] = 1 - df2.loc[0, "score"]
    df2.to_csv(f, index=False)
    code, out, err = run_cli(capsys, "watch", f, "--order", "arrival", "--n-items", N, "--state", state)
    assert code == 1 and "has changed scores since it was analysed" in err


def test_rereads_refuse_a_changed_setting(tmp_path, capsys):
    """Verifier, 2026-12: two tied models on 60 items certified "B is #1" with --n-items 60; a re-read of the same
    state without the size (or another size) said "Still open", withdrawing it. The state file now keeps every
    setting that changes the sequence, and a changed one is refused in one line naming it."""
    rows = [(m, f"q{i}", 1.0) for i in range(60) for m in "AB"]
    f = tmp_path / "tied.csv"
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(f, index=False)
    state = tmp_path / "tied.state"
    code, out, err = run_cli(capsys, "watch", f, "--order", "arrival", "--n-items", 60, "--state", state)
    assert code == 0, err
    first = out
    for extra, was, now in (([], "--n-items 60", "--n-items not given"),
                            (["--n-items", 100], "--n-items 60", "--n-items 100"),
                            (["--n-items", 60, "--confidence", 0.9], "--confidence 0.95", "--confidence 0.9"),
                            (["--n-items", 60, "--method", "eb"], "--method betting", "--method eb"),
                            (["--n-items", 60, "--no-eliminate"], "no --no-eliminate", "this run has --no-eliminate"),
                            (["--n-items", 60, "--seed", 3], "--seed 0", "--seed 3")):
        code, out, err = run_cli(capsys, "watch", f, "--order", "arrival", "--state", state, *extra)
        assert code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
        assert f"started with {was}" in err and now in err and "use a new --state file" in err, err
    code, out, err = run_cli(capsys, "watch", f, "--order", "arrival", "--n-items", 60, "--state", state)
    assert code == 0 and out == first                          # the same settings continue the sequence
    kept = json.loads(state.read_text())["settings"]
    assert kept["n_items"] == 60 and kept["confidence_level"] == 0.95 and kept["method"] == "betting"


def test_every_output_says_where_the_arrival_state_is_kept(tmp_path, capsys):
    """Verifier, 2026-12: --order arrival wrote <input>.watch-state beside the input without a word."""
    rows = [(m, f"q{i}", float((i * (k + 2)) % 3 == 0)) for i in range(40) for k, m in enumerate("AB")]
    f = tmp_path / "in.csv"
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_csv(f, index=False)
    where = f"{f}.watch-state"
    for fmt in ("text", "md", "json", "html"):
        code, out, err = run_cli(capsys, "watch", f, "--order", "arrival", "--format", fmt)
        assert code == 0, err
        if fmt == "json":
            assert json.loads(out)["state_file"] == where
        else:
            flat = " ".join(out.split())
            assert f"kept in {where}" in flat and "re-run with the same settings continues" in flat, (fmt, out)
    code, out, err = run_cli(capsys, "watch", f, "--format", "json")     # seeded order: no state file
    assert code == 0 and json.loads(out)["state_file"] is None


def test_cluster_by_help_says_what_watch_does(capsys):
    code, out, err = run_cli(capsys, "watch", "--help")
    assert code == 0 and "sampling unit" in out and "CR1" not in out


@pytest.mark.slow
@pytest.mark.parametrize("eliminate", [True, False])
def test_audit_w3_rereads_of_a_growing_source_hold_the_level(eliminate):
    """stat-repro-2026-12/w5, setting b: K = 2 tied 0/1 models, N = 200, a look every 4 arriving items (a re-read of
    a growing file), with and without elimination. 0.2 re-ordered the items, re-tuned the bets to the current count
    and repeated the final look at every read (errors 0.173 and 0.267 at alpha 0.05). With arrival order and the
    size declared, as the CLI's --order arrival --n-items does (the --follow path adds each read to the same Watch),
    the error at some look is at most alpha."""
    R, N, step = 60, 200, 4
    err = 0
    rng = np.random.default_rng(5)
    for _ in range(R):
        X = (rng.random((2, N)) < 0.6).astype(float)
        w = Watch(["A", "B"], order="arrival", n_items=N, eliminate=eliminate, confidence_level=0.95)
        bad = False
        for t in range(0, N, step):
            w.update_many([(m, f"q{i}", X[k, i]) for i in range(t, t + step) for k, m in enumerate("AB")])
            bad |= len(w.status(next_budget=0).best_set) < 2
        err += bad
    assert stats.binomtest(err, R, 0.05, alternative="greater").pvalue > 0.01, err / R
