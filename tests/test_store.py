"""DuckDB results store: round trips, idempotence, transactions, bad input."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pandas as pd
import pytest

import ranktrust as rt
from ranktrust.data.readers._registry import ReadOptions
from ranktrust.data.store import Store
from ranktrust.data.store._ingest import IngestContext
from ranktrust.errors import DataError
from ranktrust.reporting import note_text

REAL = ["swebench_verified_mini.csv", "mmlupro_outputs.csv.gz", "gpqa_main_openllm.csv.gz", "alpacaeval2_weighted.csv.gz"]


def _same(a, b):
    assert a.models == b.models and a.items == b.items and a.groups == b.groups and a.runs == b.runs
    np.testing.assert_array_equal(a.data, b.data)


@pytest.fixture(scope="module")
def real_store(tmp_path_factory, swebench_path):
    db = tmp_path_factory.mktemp("store") / "all.duckdb"
    st = Store(db)
    s = st.ingest([str(swebench_path.parent / f) for f in REAL])
    assert [f.action for f in s.files] == ["added"] * 4
    yield st
    st.close()


@pytest.mark.parametrize("name", REAL)
def test_four_real_matrices_round_trip(real_store, swebench_path, name):
    path = swebench_path.parent / name
    task = name.split(".")[0]
    _same(rt.read(path, align="pairwise"), real_store.matrix(task=task, align="pairwise"))


def test_list_and_choice_errors(real_store):
    s = real_store.list()
    got = {t.task: (t.n_models, t.n_items, t.rows) for t in s.tasks}
    assert got == {"swebench_verified_mini": (25, 500, 12500), "mmlupro_outputs": (29, 12032, 347215),
                   "gpqa_main_openllm": (420, 448, 188160), "alpacaeval2_weighted": (58, 805, 46680)}
    assert s.n_files == 4 and s.n_rows == 594555
    with pytest.raises(DataError, match="holds 4 tasks .*gpqa_main_openllm.*pick one with `task`='NAME'"):
        real_store.matrix()
    with pytest.raises(DataError, match="no task 'gpqa'; available"):
        real_store.matrix(task="gpqa")
    with pytest.raises(DataError, match="models are scored on different items"):
        real_store.matrix(task="mmlupro_outputs")
    sub = real_store.matrix(task="gpqa_main_openllm", models=["meta-llama__Llama-2-13b-chat-hf"])
    assert sub.n_models == 1


def test_idempotent_changed_and_replace(tmp_path, gpqa_path):
    # GPQA is bundled (tests/data): the store's own behaviour is tested on a fresh clone too
    src = tmp_path / "sw.csv"
    pd.read_csv(gpqa_path).to_csv(src, index=False)
    st = Store(tmp_path / "s.duckdb")
    assert st.ingest(str(src)).rows_added == 188160
    again = st.ingest(str(src))
    assert again.rows_added == 0 and again.files[0].action == "skipped" and "already ingested" in again.files[0].reason
    copy = tmp_path / "copy.csv"
    shutil.copyfile(src, copy)
    assert "same content already ingested as" in st.ingest(str(copy)).files[0].reason
    df = pd.read_csv(src)
    df.loc[0, "score"] = 1 - df.loc[0, "score"]
    df.to_csv(src, index=False)
    with pytest.raises(DataError, match=r"sw.csv changed since it was ingested.*`replace`=True.*188160 rows"):
        st.ingest(str(src))
    r = st.ingest(str(src), replace=True)
    assert r.files[0].action == "replaced" and r.files[0].removed == 188160 and r.files[0].rows == 188160
    _same(st.matrix(), rt.read(src))


def test_rows_already_in_store_are_not_overwritten(tmp_path, gpqa_path):
    st = Store(tmp_path / "s.duckdb")
    st.ingest(str(gpqa_path))
    df = pd.read_csv(gpqa_path).head(10)
    other = tmp_path / "gpqa_main_openllm.csv"
    df.assign(score=1).to_csv(other, index=False)
    before = st.list()
    with pytest.raises(DataError, match="is already in the store from .*nothing was overwritten"):
        st.ingest(str(other))
    assert st.list().to_dict() == before.to_dict()


def _snapshot(st):
    return [st.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("results", "items", "models", "files", "notes")]


def test_kill_midway_leaves_store_as_it_was(tmp_path, gpqa_path, monkeypatch):
    st = Store(tmp_path / "s.duckdb")
    first = tmp_path / "first.csv"
    pd.DataFrame([(f"m{a}", f"q{i}", (a + i) % 2) for a in range(3) for i in range(50)],
                 columns=["model", "item", "score"]).to_csv(first, index=False)
    st.ingest(str(first))
    before, listing = _snapshot(st), st.list()

    # 1. the reader dies after its first chunk
    from ranktrust.data.readers import _registry

    class Boom:
        name, priority, description, looks_for = "boom", 0, "", ""

        def sniff(self, path):
            return False

        def units(self, path):
            return [path]

        def read(self, unit, opts):
            yield pd.DataFrame({"model": ["a", "b"], "item": ["1", "1"], "score": [1.0, 0.0]})
            raise RuntimeError("killed while reading")

    monkeypatch.setitem(_registry._READERS, "boom", Boom)
    with pytest.raises(RuntimeError, match="killed while reading"):
        st.ingest(str(gpqa_path), format="boom")
    assert _snapshot(st) == before and st.list().to_dict() == listing.to_dict()

    # 2. the process dies after the rows were inserted, before the file is recorded
    orig = IngestContext.commit_stage

    def commit_then_die(self, apath, now):
        n = orig(self, apath, now)
        assert self.con.execute("SELECT count(*) FROM results").fetchone()[0] == before[0] + n
        raise KeyboardInterrupt
    monkeypatch.setattr(IngestContext, "commit_stage", commit_then_die)
    with pytest.raises(KeyboardInterrupt):
        st.ingest(str(gpqa_path))
    assert _snapshot(st) == before and st.list().to_dict() == listing.to_dict()
    monkeypatch.undo()
    assert st.ingest(str(gpqa_path)).rows_added == 188160  # nothing half-done blocks a retry


def test_harness_logs_into_one_store(tmp_path, harness_logs):
    st = Store(tmp_path / "h.duckdb")
    logs = harness_logs
    s = st.ingest([str(logs / "lm_eval"), str(logs / "lighteval")], options=ReadOptions(metric="acc"))
    assert all(f.action in ("added", "skipped") for f in s.files)
    inspect_logs = sorted(str(p) for p in (logs / "inspect_ai" / "0.3.285").glob("*.eval"))
    s = st.ingest(inspect_logs, options=ReadOptions(errors="wrong"))
    assert sum(f.rows for f in s.files) == 32 + 32 + 96 + 32
    assert any("2 samples errored" in note_text(n) for n in s.notes)   # a record (issue 23 §1)
    _same(st.matrix(task="mcq_tiny_lm", metric="acc"), rt.read(str(logs / "lm_eval"), task="mcq_tiny_lm", metric="acc"))
    _same(st.matrix(task="mcq_tiny_lighteval|0"), rt.read(str(logs / "lighteval"), metric="acc"))
    m = st.matrix(task="mcq_tiny", metric="accuracy", align="pairwise")
    assert m.n_runs == 3 and any("scored as wrong" in note_text(n) for n in m.notes)
    # the same logs again: all skipped; another metric of the same files: added as its own unit
    assert st.ingest(str(logs / "lm_eval"), options=ReadOptions(metric="acc")).rows_added == 0
    assert st.ingest(str(logs / "lm_eval"), options=ReadOptions(task="mcq_tiny_lm", metric="acc_norm")).rows_added == 96


def test_doc_hash_mismatch_across_ingests(tmp_path, harness_logs):
    import json

    src = harness_logs / "lm_eval" / "0.4.13"
    for seed in ("seed1", "seed2"):
        shutil.copytree(src / f"__opt__models__tinylm__{seed}", tmp_path / seed)
        os.chmod(tmp_path / seed, 0o755)
        for p in (tmp_path / seed).iterdir():
            os.chmod(p, 0o644)
    (p,) = (tmp_path / "seed2").glob("samples_mcq_tiny_lm_2*.jsonl")
    lines = p.read_text().splitlines()
    rec = json.loads(lines[7])
    rec["doc_hash"] = "f" * 64
    lines[7] = json.dumps(rec)
    p.write_text("\n".join(lines) + "\n")
    st = Store(tmp_path / "d.duckdb")
    st.ingest(str(tmp_path / "seed1"), options=ReadOptions(task="mcq_tiny_lm"))
    with pytest.raises(DataError, match=r"1 of its 32 items hold another question than the same item id in the "
                                        r"store \(e.g. item '7' of task 'mcq_tiny_lm': doc_hash ffffffffffff.*"
                                        r"do not align; ingest them by content with `item`='doc_hash'"):
        st.ingest(str(tmp_path / "seed2"), options=ReadOptions(task="mcq_tiny_lm"))
    # by content: the revised question is an item of its own, the 31 others pair as before
    st2 = Store(tmp_path / "e.duckdb")
    for seed in ("seed1", "seed2"):
        st2.ingest(str(tmp_path / seed), options=ReadOptions(task="mcq_tiny_lm", item_col="doc_hash"))
    m = st2.matrix(align="pairwise")
    assert m.n_items == 33 and int(np.isnan(m.scores).sum()) == 2


def test_parquet_fast_path_and_export(tmp_path, gpqa_path):
    st = Store(tmp_path / "p.duckdb")
    st.ingest(str(gpqa_path), options=ReadOptions(task="gpqa_main"))
    out = tmp_path / "gpqa.parquet"
    assert st.export_parquet(out, task="gpqa_main") == 188160
    ref = rt.read(gpqa_path)
    _same(rt.read(out), ref)
    st2 = Store(tmp_path / "q.duckdb")
    s = st2.ingest(str(out))  # long Parquet: read_parquet straight into DuckDB
    assert s.rows_added == 188160
    _same(st2.matrix(), ref)
    bad = tmp_path / "bad.parquet"
    pd.DataFrame({"model": ["a", "a"], "item": ["1", "1"], "score": [1.0, 0.0]}).to_parquet(bad)
    with pytest.raises(DataError, match=r"rows 1 and 2: duplicate row for model 'a', item '1'"):
        st2.ingest(str(bad))


def test_read_only_and_missing_store(tmp_path):
    with pytest.raises(DataError, match="no such store"):
        Store(tmp_path / "none.duckdb", read_only=True)
    Store(tmp_path / "e.duckdb").close()
    with Store(tmp_path / "e.duckdb", read_only=True) as st:
        with pytest.raises(DataError, match="holds no results"):
            st.matrix()
        with pytest.raises(DataError, match="read-only"):
            st.ingest("x.csv")


# ---------------------------------------------------------------- Parquet fast path: checks in SQL
def _pq(path, **cols):
    pd.DataFrame(cols).to_parquet(path)
    return str(path)


@pytest.mark.parametrize("bitmap", [True, False], ids=["bitmap", "hash"])
def test_parquet_duplicates_found_exactly(tmp_path, monkeypatch, bitmap):
    from ranktrust.data.store import _ingest as store_mod

    if not bitmap:
        monkeypatch.setattr(store_mod, "_BITMAP_BITS", 0)  # force the hash GROUP BY check
    models = np.repeat(["m0", "m1", "m2"], 400)
    items = np.tile([f"i{k}" for k in range(400)], 3)
    runs = np.zeros(1200, dtype=int).astype(str)
    st = Store(tmp_path / "d.duckdb")
    # the same (model, item) in two runs is not a duplicate; two tasks share item names
    ok = _pq(tmp_path / "ok.parquet", task=np.where(np.arange(1200) < 600, "a", "b"), model=models, item=items,
             run=np.where(np.arange(1200) % 2 == 0, "0", "1"), score=np.ones(1200))
    assert st.ingest(ok).rows_added == 1200
    items2 = items.copy()
    items2[1000] = items2[900]  # rows 901 and 1001 (1-based): model m2, item i100
    bad = _pq(tmp_path / "dup.parquet", model=models, item=items2, run=runs, score=np.ones(1200))
    before = _snapshot(st)
    with pytest.raises(DataError, match=r"dup.parquet: rows 901 and 1001: duplicate row for model 'm2', item 'i100'"):
        st.ingest(bad)
    assert _snapshot(st) == before


@pytest.mark.parametrize("bitmap", [True, False], ids=["bitmap", "hash"])
def test_parquet_duplicate_check_matches_pandas(tmp_path_factory, monkeypatch, bitmap):
    """Property: the SQL duplicate check refuses a file exactly when pandas finds a repeated key."""
    from hypothesis import given, settings, strategies as hs

    from ranktrust.data.store import _ingest as store_mod

    if not bitmap:
        monkeypatch.setattr(store_mod, "_BITMAP_BITS", 0)
    row = hs.tuples(hs.sampled_from(["a", "b"]), hs.sampled_from(["x", "y", "z"]), hs.sampled_from(["0", "1"]))

    @settings(max_examples=25, deadline=None)
    @given(hs.lists(row, min_size=1, max_size=12))
    def check(rows):
        d = tmp_path_factory.mktemp("prop")
        df = pd.DataFrame(rows, columns=["model", "item", "run"]).assign(score=0.5)
        path = _pq(d / "p.parquet", **{c: df[c].to_numpy() for c in df.columns})
        st = Store(d / "p.duckdb")
        dup = df.duplicated(["model", "item", "run"], keep=False)
        if dup.any():
            first = int(np.flatnonzero(dup)[0])
            second = int(np.flatnonzero(dup & (df[["model", "item", "run"]] == df.iloc[first][["model", "item", "run"]]).all(axis=1))[1])
            with pytest.raises(DataError, match=rf"rows {first + 1} and {second + 1}: duplicate row"):
                st.ingest(path)
            assert _snapshot(st)[0] == 0
        else:
            assert st.ingest(path).rows_added == len(df)
        st.close()

    check()


def test_parquet_overlap_with_store_refused(tmp_path):
    st = Store(tmp_path / "o.duckdb")
    st.ingest(_pq(tmp_path / "one.parquet", model=["a", "a", "b"], item=["1", "2", "1"], score=[1.0, 0.0, 1.0]),
              options=ReadOptions(task="t"))
    before, listing = _snapshot(st), st.list()
    # same model, other items: fine; an item it already has: refused, nothing added
    clash = _pq(tmp_path / "two.parquet", model=["c", "a", "a"], item=["1", "3", "2"], score=[1.0, 1.0, 1.0])
    with pytest.raises(DataError, match=r"model 'a', item '2', run '0' \(task 't', metric 'score'\) is already in the "
                                        r"store from .*one.parquet \[task=t\]; nothing was overwritten"):
        st.ingest(clash, options=ReadOptions(task="t"))
    assert _snapshot(st) == before and st.list().to_dict() == listing.to_dict()
    # the same rows under another metric are not a clash
    other = _pq(tmp_path / "three.parquet", model=["a"], item=["2"], metric=["f1"], score=[0.5])
    assert st.ingest(other, options=ReadOptions(task="t")).rows_added == 1
    m = st.matrix(task="t", metric="score", align="pairwise")
    assert m.models == ("a", "b") and m.items == ("1", "2")


def test_parquet_bad_values_and_filters(tmp_path):
    st = Store(tmp_path / "b.duckdb")
    nan = _pq(tmp_path / "nan.parquet", model=["a", "a", "a"], item=["1", "2", "3"], score=[1.0, np.nan, 0.0])
    with pytest.raises(DataError, match=r"nan.parquet: row 2: .*not a finite number"):
        st.ingest(nan)
    noitem = _pq(tmp_path / "noitem.parquet", model=["a", "a"], item=["1", None], score=[1.0, 0.0])
    with pytest.raises(DataError, match=r"noitem.parquet: row 2: a missing"):
        st.ingest(noitem)
    assert _snapshot(st) == [0, 0, 0, 0, 0]
    # a task column with a quote in a name; --task picks one, and an absent task lists what is there
    multi = _pq(tmp_path / "multi.parquet", task=["o'brien", "o'brien", "other"], model=["a", "b", "a"],
                item=["1", "1", "1"], score=[1.0, 0.0, 1.0])
    assert st.ingest(multi, options=ReadOptions(task="o'brien")).rows_added == 2
    with pytest.raises(DataError, match=r"no task 'gpqa' in the input; available: o'brien, other"):
        st.ingest(multi, options=ReadOptions(task="gpqa"))
    # one item only (bitmap of one bit); groups kept
    one = _pq(tmp_path / "one.parquet", model=["x", "y"], item=["q", "q"], subject=["s", "s"], score=[1.0, 0.0])
    assert st.ingest(one).rows_added == 2
    assert st.matrix(task="one").groups == ("s",)
    clash = _pq(tmp_path / "grp.parquet", model=["x", "y"], item=["q", "q"], subject=["s", "t"], score=[1.0, 0.0])
    with pytest.raises(DataError, match=r"item 'q' \(task 'grp'\) is in group 's' and 't'"):
        st.ingest(clash)


def test_parquet_changed_while_ingesting(tmp_path, monkeypatch):
    st = Store(tmp_path / "c.duckdb")
    path = _pq(tmp_path / "c.parquet", model=["a", "b"], item=["1", "1"], score=[1.0, 0.0])
    orig = IngestContext.commit_stage

    def touch_then_commit(self, apath, now):
        n = orig(self, apath, now)
        with open(path, "ab") as fh:
            fh.write(b"\0")
        return n
    monkeypatch.setattr(IngestContext, "commit_stage", touch_then_commit)
    with pytest.raises(DataError, match=r"c.parquet: the file changed while it was being ingested; nothing was added"):
        st.ingest(path)
    assert _snapshot(st) == [0, 0, 0, 0, 0]


def test_read_and_ingest_share_the_row_rules(tmp_path):
    """data/_canonical.py: the same missing-column message and the same refusal of a non-numeric score
    from rt.read (pandas) and Store.ingest (its staging checks)."""
    import ranktrust as rt

    st = Store(tmp_path / "r.duckdb")
    missing = tmp_path / "missing.csv"
    missing.write_text("model,item,value\nA,q1,1\n")
    with pytest.raises(DataError) as a:
        rt.read(missing)
    with pytest.raises(DataError) as b:
        st.ingest(str(missing))
    assert "missing column(s) 'score'; found columns 'model', 'item', 'value'" in str(a.value)
    assert str(a.value) == str(b.value)
    text = tmp_path / "text.csv"
    text.write_text("model,item,score\nA,q1,1\nA,q2,high\n")
    with pytest.raises(DataError, match=r"text.csv: line 3: score 'high' is not a number"):
        rt.read(text)
    with pytest.raises(DataError, match=r"text.csv: line 3: score 'high' is not a number"):
        st.ingest(str(text))


def test_inspect_log_after_stored_runs_is_renumbered_with_a_record(tmp_path, harness_logs):
    """A second inspect log of a stored model: its epochs follow the stored runs, and the note saying so is a
    record (issue 23 §1: inspect_runs_renumbered), worded by reporting/ as the store wrote it before."""
    from ranktrust.results import Note

    a = next((harness_logs / "inspect_ai" / "0.3.120").glob("*E3QMeiyp4JjYyEmPTPARRu.eval"))   # runs 1-2
    b = next((harness_logs / "inspect_ai" / "0.3.285").glob("*hSZvkf5HmSKtwnQAtn35Vx.eval"))
    with Store(tmp_path / "s.duckdb") as st:
        st.ingest([str(a)], options=ReadOptions(errors="drop"))
        s = st.ingest([str(b)], options=ReadOptions(errors="drop"))
        (rec,) = s.notes
        assert rec == Note("inspect_runs_renumbered", {"model": "mockllm/model", "task": "mcq_tiny", "n_before": 2,
                                                       "file": b.name, "first_run": 3, "last_run": 3})
        assert note_text(rec) == (f"model 'mockllm/model' (task mcq_tiny) already has runs 1-2 from other inspect "
                                  f"logs: {b.name} is stored as run 3")
        assert rec in st.matrix(task="mcq_tiny").notes   # stored as its JSON, read back as the record
    d = {"model": "m", "task": "t", "file": "x.eval"}
    assert note_text(Note("inspect_runs_renumbered", {**d, "n_before": 1, "first_run": 2, "last_run": 4})) == (
        "model 'm' (task t) already has run 1 from other inspect logs: x.eval is stored as runs 2-4")
