"""Store speed: ingest of a long Parquet file, and ScoreMatrix from the store.

    .venv/bin/python bench/bench_store.py            # 10,000,000 rows; 1,000 models x 14,000 items
    .venv/bin/python bench/bench_store.py --quick    # 1,000,000 rows; 100 models x 14,000 items

References, run in the same process on the same file:

- raw DuckDB: ``BEGIN; INSERT INTO results SELECT ... FROM read_parquet(file); COMMIT`` into
  a fresh store with the same schema and no checks at all: the floor for the store's ingest
  (writing the nine columns is most of the time); the store's overhead is the ratio to it.
- naive: pandas.read_parquet + DuckDB executemany of row tuples, timed on a sample of rows
  and projected to the full file; and a Python loop over fetched rows to fill the matrix,
  timed on a sample and projected.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

import numpy as np


def make_parquet(path: str, n_models: int, n_items: int, seed: int = 0) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    models = pa.array([f"model_{k:04d}" for k in range(n_models)])
    items = pa.array([f"item_{k:05d}" for k in range(n_items)])
    writer = None
    for m0 in range(0, n_models, 50):
        m1 = min(n_models, m0 + 50)
        mi = np.repeat(np.arange(m0, m1), n_items)
        ii = np.tile(np.arange(n_items), m1 - m0)
        t = pa.table({"model": models.take(pa.array(mi)), "item": items.take(pa.array(ii)),
                      "score": (rng.random(mi.size) < 0.6).astype(np.float64)})
        writer = writer or pq.ParquetWriter(path, t.schema)
        writer.write_table(t)
    writer.close()
    return n_models * n_items


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rt_bench_")
    try:
        run(tmp, args.quick)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(tmp: str, quick: bool) -> None:
    from ranktrust.data.readers._registry import ReadOptions
    from ranktrust.data.store import Store

    n_models_ingest = 72 if quick else 715  # x 14,000 items = 1.0M / 10.0M rows
    n_items = 14_000
    pq_path = os.path.join(tmp, "long.parquet")
    n = make_parquet(pq_path, n_models_ingest, n_items)

    import datetime

    import duckdb

    from ranktrust.data.store import _SCHEMA

    def raw_insert(name: str) -> float:
        """The floor: same schema, one INSERT ... SELECT from read_parquet, no checks."""
        raw = duckdb.connect(os.path.join(tmp, name))
        raw.execute(_SCHEMA)
        t = time.perf_counter()
        raw.execute("BEGIN TRANSACTION")
        raw.execute(f"INSERT INTO results SELECT 'bench', model, item, '0', '', 'score', score, ?, ? "
                    f"FROM read_parquet('{pq_path}')", [pq_path, datetime.datetime.now()])
        raw.execute("COMMIT")
        dt = time.perf_counter() - t
        raw.close()
        return dt

    # the floor is timed before and after the store's ingest (the machine is shared: load drifts)
    t_raw1 = raw_insert("raw1.duckdb")

    # --- ingest: ranktrust (read_parquet straight into DuckDB with all checks, one transaction)
    db = os.path.join(tmp, "s.duckdb")
    st = Store(db)
    t = time.perf_counter()
    s = st.ingest(pq_path, options=ReadOptions(task="bench"))
    t_rt = time.perf_counter() - t
    assert s.rows_added == n
    t = time.perf_counter()
    again = st.ingest(pq_path, options=ReadOptions(task="bench"))
    t_again = time.perf_counter() - t
    assert again.rows_added == 0
    st.close()
    t_raw2 = raw_insert("raw2.duckdb")
    t_raw = (t_raw1 + t_raw2) / 2

    # --- ingest: naive (pandas + executemany), on a sample, projected
    import pandas as pd

    t = time.perf_counter()
    df = pd.read_parquet(pq_path)
    t_read = time.perf_counter() - t
    con = duckdb.connect(os.path.join(tmp, "naive.duckdb"))
    con.execute("CREATE TABLE results(task VARCHAR, model VARCHAR, item VARCHAR, run VARCHAR, condition VARCHAR, "
                "metric VARCHAR, score DOUBLE, source_file VARCHAR, ingested_at TIMESTAMP)")
    k = 20_000
    rows = [("bench", m, i, "0", "", "score", float(x), pq_path, None)
            for m, i, x in zip(df["model"].iloc[:k], df["item"].iloc[:k], df["score"].iloc[:k])]
    t = time.perf_counter()
    con.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    t_naive = t_read + (time.perf_counter() - t) * n / k
    con.close()
    del df
    print(f"ingest {n:,} rows: ranktrust {t_rt:.2f} s ({n / t_rt / 1e6:.2f} M rows/s)  [goal: > 1 M rows/s]\n"
          f"  raw DuckDB INSERT ... SELECT read_parquet, no checks: {t_raw1:.2f} s before, {t_raw2:.2f} s after "
          f"({n / t_raw / 1e6:.2f} M rows/s); ranktrust / raw {t_rt / t_raw:.2f}\n"
          f"  naive pandas+executemany {t_naive:.0f} s projected ({n / t_naive / 1e6:.3f} M rows/s); "
          f"naive / ranktrust {t_naive / t_rt:.0f}x\n"
          f"  the same file again (skipped: SHA-256 matches): {t_again:.2f} s")

    # --- matrix: 1,000 models x 14,000 items (the store from above grown to 1,000 models)
    n_models = 100 if quick else 1000
    st = Store(db)
    extra = n_models - n_models_ingest
    if extra > 0:
        pq2 = os.path.join(tmp, "more.parquet")
        make_parquet(pq2, extra, n_items, seed=1)
        # rename models so they do not clash with the first file
        st.con.execute(f"COPY (SELECT 'more_' || model AS model, item, score FROM read_parquet('{pq2}')) "
                       f"TO '{pq2}.b.parquet' (FORMAT parquet)")
        st.ingest(f"{pq2}.b.parquet", options=ReadOptions(task="bench"))
    t = time.perf_counter()
    m = st.matrix(task="bench")
    t_m = time.perf_counter() - t
    assert m.shape == (n_models, n_items, 1)
    # naive: fetch rows and fill with a Python loop, on a sample, projected
    t = time.perf_counter()
    rows = st.con.execute("SELECT model, item, score FROM results WHERE task = 'bench' LIMIT 200000").fetchall()
    mpos = {mm: j for j, mm in enumerate(m.models)}
    ipos = {ii: j for j, ii in enumerate(m.items)}
    a = np.full((n_models, n_items), np.nan)
    for mm, ii, x in rows:
        a[mpos[mm], ipos[ii]] = x
    t_naive_m = (time.perf_counter() - t) * (n_models * n_items) / len(rows)
    print(f"matrix {n_models:,} models x {n_items:,} items: ranktrust {t_m:.2f} s; naive fetchall + Python loop "
          f"{t_naive_m:.1f} s projected; ratio {t_naive_m / t_m:.1f}x  [goal: < 10 s]")
    st.close()


if __name__ == "__main__":
    main()
