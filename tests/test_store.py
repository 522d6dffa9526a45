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
from ranktrust.errors import DataError

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
    with pytest.raises(DataError, match="holds 4 tasks .*gpqa_main_openllm.*pick one with --task"):
        real_store.matrix()
    with pytest.raises(DataError, match="no task 'gpqa'; available"):
        real_store.matrix(task="gpqa")
    with pytest.raises(DataError, match="models are scored on different items"):
        real_store.matrix(task="mmlupro_outputs")
    sub = real_store.matrix(task="gpqa_main_openllm", models=["meta-llama__Llama-2-13b-chat-hf"])
    assert sub.n_models == 1


def test_idempotent_changed_and_replace(tmp_path, swebench_path):
    src = tmp_path / "sw.csv"
    shutil.copyfile(swebench_path, src)
    st = Store(tmp_path / "s.duckdb")
    assert st.ingest(str(src)).rows_added == 12500
    again = st.ingest(str(src))
    assert again.rows_added == 0 and again.files[0].action == "skipped" and "already ingested" in again.files[0].reason
    copy = tmp_path / "copy.csv"
    shutil.copyfile(src, copy)
    assert "same content already ingested as" in st.ingest(str(copy)).files[0].reason
    df = pd.read_csv(src)
    df.loc[0, "score"] = 1 - df.loc[0, "score"]
    df.to_csv(src, index=False)
    with pytest.raises(DataError, match=r"sw.csv changed since it was ingested.*--replace.*12500 rows"):
        st.ingest(str(src))
    r = st.ingest(str(src), replace=True)
    assert r.files[0].action == "replaced" and r.files[0].removed == 12500 and r.files[0].rows == 12500
    _same(st.matrix(), rt.read(src))


def test_rows_already_in_store_are_not_overwritten(tmp_path, swebench_path):
    st = Store(tmp_path / "s.duckdb")
    st.ingest(str(swebench_path))
    df = pd.read_csv(swebench_path).head(10)
    other = tmp_path / "swebench_verified_mini.csv"
    df.assign(score=1).to_csv(other, index=False)
    before = st.list()
    with pytest.raises(DataError, match="is already in the store from .*nothing was overwritten"):
        st.ingest(str(other))
    assert st.list() == before


def _snapshot(st):
    return [st.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("results", "items", "models", "files", "notes")]


def test_kill_midway_leaves_store_as_it_was(tmp_path, swebench_path, gpqa_path, monkeypatch):
    st = Store(tmp_path / "s.duckdb")
    st.ingest(str(swebench_path))
    before, listing = _snapshot(st), st.list()

    # 1. the reader dies after its first chunk
    from ranktrust.data.readers import _registry

    def boom(path, opts):
        yield pd.DataFrame({"model": ["a", "b"], "item": ["1", "1"], "score": [1.0, 0.0]})
        raise RuntimeError("killed while reading")

    monkeypatch.setitem(_registry._READERS, "boom", _registry.Reader("boom", boom, lambda p: False))
    with pytest.raises(RuntimeError, match="killed while reading"):
        st.ingest(str(gpqa_path), format="boom")
    assert _snapshot(st) == before and st.list() == listing

    # 2. the process dies after the rows were inserted, before the file is recorded
    orig = Store._commit_stage

    def commit_then_die(self, apath, now):
        n = orig(self, apath, now)
        assert self.con.execute("SELECT count(*) FROM results").fetchone()[0] == before[0] + n
        raise KeyboardInterrupt
    monkeypatch.setattr(Store, "_commit_stage", commit_then_die)
    with pytest.raises(KeyboardInterrupt):
        st.ingest(str(gpqa_path))
    assert _snapshot(st) == before and st.list() == listing
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
    assert any("2 samples errored" in n for n in s.notes)
    _same(st.matrix(task="mcq_tiny_lm", metric="acc"), rt.read(str(logs / "lm_eval"), task="mcq_tiny_lm", metric="acc"))
    _same(st.matrix(task="mcq_tiny_lighteval|0"), rt.read(str(logs / "lighteval"), metric="acc"))
    m = st.matrix(task="mcq_tiny", metric="accuracy", align="pairwise")
    assert m.n_runs == 3 and any("scored as wrong" in n for n in m.notes)
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
    with pytest.raises(DataError, match=r"item '7' of task 'mcq_tiny_lm' has doc_hash ffffffffffff.*do not align"):
        st.ingest(str(tmp_path / "seed2"), options=ReadOptions(task="mcq_tiny_lm"))


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
    with pytest.raises(DataError, match=r"rows 1 and 2: duplicate entry for model 'a', item '1'"):
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
