"""Where the default report's time and memory go (issue 33): each section, the JSON, and the reading of a
long file, at leaderboard scale.

    .venv/bin/python bench/bench_profile.py                  # 1,000 x 14,000 0/1: report sections + reading
    .venv/bin/python bench/bench_profile.py --shape 3000x14000
    .venv/bin/python bench/bench_profile.py --only read      # reading only (long Parquet and CSV)
    .venv/bin/python bench/bench_profile.py --only report --quality-parts   # + the data-quality section's parts
    .venv/bin/python bench/bench_profile.py --only report --stability-parts # + the stability section's sizes

The report's total (report + ``to_dict`` + ``json.dump``) is printed beside its goal at 1,000 x 14,000
(< 5 s, < 1.5 GB), in wall and in CPU seconds. Each case runs in a fresh process (its imports and a warm-up
report on a tiny matrix are not timed). Per section: seconds and the peak resident memory of the process while it ran (Linux: the high-water mark is reset
before each step through /proc/self/clear_refs, so each row's peak is its own; "held" is what the process
holds after the step). Reading: the long file (one row per model x item, columns model, item, score) into a
ScoreMatrix with ``rt.read``, beside the naive floor timed in the same process: pandas' read of the file and a
``pivot`` to a models x items float array.

The machine is shared (2 cores, other work running): the load average is printed; compare ratios. "CPU s" is
the process's CPU time (all its threads): steadier than seconds under load, above them where BLAS or the
engine's count threads use both cores.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))


# ------------------------------------------------------------------ memory of this process
def _rss_gb(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1e6
    return float("nan")


def reset_peak() -> bool:
    """Reset the process's peak RSS (VmHWM) to its current RSS; False where the kernel does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_gb() -> float:
    """Peak resident memory since the last reset (or since start: getrusage where /proc is absent)."""
    if os.path.exists("/proc/self/status"):
        return _rss_gb("VmHWM")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def held_gb() -> float:
    return _rss_gb("VmRSS") if os.path.exists("/proc/self/status") else float("nan")


class Step:
    """Time and peak memory of the code in a ``with`` block."""

    def __init__(self, rows: list, name: str):
        self.rows, self.name = rows, name

    def __enter__(self):
        gc.collect()
        reset_peak()
        self.c = time.process_time()
        self.t = time.perf_counter()
        return self

    def __exit__(self, *exc):
        dt = time.perf_counter() - self.t
        self.rows.append({"step": self.name, "s": dt, "cpu_s": time.process_time() - self.c, "peak_gb": peak_gb(),
                          "held_gb": held_gb()})


# ------------------------------------------------------------------ data
def synthetic(m: int, n: int, seed: int = 0) -> np.ndarray:
    from bench_scale import synthetic as syn

    return syn(m, n, seed)


def long_file(shape: tuple[int, int], kind: str) -> Path:
    """A long file of the synthetic 0/1 matrix: model, item, score (made once, kept in the temp folder)."""
    m, n = shape
    path = Path(tempfile.gettempdir()) / f"ranktrust_long_{m}x{n}.{kind}"
    if path.exists():
        return path
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    s = synthetic(m, n)
    models = np.array([f"model_{k:05d}" for k in range(m)], dtype=object)
    items = np.array([f"item_{k:06d}" for k in range(n)], dtype=object)
    t = pa.table({"model": pa.DictionaryArray.from_arrays(np.repeat(np.arange(m, dtype=np.int32), n), models).cast(pa.string()),
                  "item": pa.DictionaryArray.from_arrays(np.tile(np.arange(n, dtype=np.int32), m), items).cast(pa.string()),
                  "score": pa.array(s.ravel().astype(np.int64))})
    tmp = path.with_suffix(".tmp")
    if kind == "parquet":
        pq.write_table(t, tmp)
    else:
        pacsv.write_csv(t, tmp, pacsv.WriteOptions(quoting_style="none"))
    tmp.rename(path)
    return path


# ------------------------------------------------------------------ cases (each in its own process)
def case_report(shape: tuple[int, int], quality_parts: bool, stability_parts: bool = False) -> dict:
    import ranktrust as rt
    from ranktrust.data._matrix import ScoreMatrix
    from ranktrust.leaderboard import _sections

    warm = ScoreMatrix.from_array((np.random.default_rng(0).random((6, 80)) < 0.5).astype(float))
    rt.report(warm, stability_n_resamples=50).to_dict()
    rows: list = []
    with Step(rows, "matrix from array (not the report)"):
        m = ScoreMatrix.from_array(synthetic(*shape))
    saved = list(_sections.BUILDERS)

    def timed(name, fn):
        def run(b):
            with Step(rows, f"section {name}"):
                return fn(b)
        return run

    _sections.BUILDERS[:] = [(k, timed(k, f)) for k, f in saved]
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        with Step(rows, "rt.report (all sections)"):
            rep = rt.report(m)
    finally:
        _sections.BUILDERS[:] = saved
    # the sections reset the high-water mark: the report's peak is the highest of theirs
    rows[-1]["peak_gb"] = max(r["peak_gb"] for r in rows if r["step"].startswith("section "))
    with Step(rows, "to_dict"):
        d = rep.to_dict()
    out = Path(tempfile.gettempdir()) / "ranktrust_profile.json"
    with Step(rows, "json.dump to a file"):
        with open(out, "w") as f:
            json.dump(d, f)
    total, total_cpu = time.perf_counter() - t0, time.process_time() - c0
    if quality_parts:
        rows.extend(_quality_parts(m, rep))
    if stability_parts:
        rows.extend(_stability_parts(m))
    stab = [n.data for n in rep.notes if n.code == "stability_sampled"]
    return {"shape": list(shape), "rows": rows, "total_s": total, "total_cpu_s": total_cpu,
            "json_mb": out.stat().st_size / 1e6, "max_peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
            "stability_draws": stab[0]["n_resamples"] if stab else 2000}


def _quality_parts(m, rep) -> list:
    """The data-quality section's two halves alone: identical rows, and the person fit with its reference."""
    from ranktrust.quality import data_quality

    rows: list = []
    pt = dict(rep.sections)["pairs_all"]
    with Step(rows, "  quality: person_fit=False"):
        data_quality(m, pair_table=pt, person_fit=False, rng=0)
    with Step(rows, "  quality: person_fit=True (all)"):
        data_quality(m, pair_table=pt, rng=0)
    return rows


def _stability_parts(m) -> list:
    """The stability section's sizes one at a time, with the draws the report uses at this size (at most
    500 above 10 million cells, ``stability_draws``), then the full size with every draw (``stability="all"``)."""
    from ranktrust.leaderboard._options import DEFAULT_SIZES
    from ranktrust.leaderboard._sections import HEATMAP_MAX_MODELS
    from ranktrust.ranking._stability import stability

    try:
        from ranktrust.leaderboard._sections import stability_draws
    except ImportError:     # a tree before the sampled stability: every draw
        def stability_draws(cells, n, stability=True):
            return n
    draws = stability_draws(m.n_models * m.n_items, 2000)
    rows: list = []
    for size in DEFAULT_SIZES:
        if size != "full" and size >= m.n_items:
            continue
        with Step(rows, f"  stability: size {size}, {draws:,} draws"):
            stability(m, sizes=[size], n_resamples=draws, rng=0, rank_distribution=m.n_models <= HEATMAP_MAX_MODELS)
    if draws != 2000:
        with Step(rows, "  stability: size full, 2,000 draws ('all')"):
            stability(m, sizes=["full"], n_resamples=2000, rng=0, rank_distribution=m.n_models <= HEATMAP_MAX_MODELS)
    return rows


def case_read(shape: tuple[int, int], kind: str) -> dict:
    import pandas as pd

    import ranktrust as rt
    from ranktrust.data._io import read_long

    path = long_file(shape, kind)
    rt.read(str(long_file((3, 5), kind)))   # imports, not timed
    rows: list = []
    for rep in range(2):      # taking turns: pandas floor, rt.read, its parts
        with Step(rows, f"pandas read + pivot [{rep}]"):
            df = pd.read_parquet(path) if kind == "parquet" else pd.read_csv(path)
            a = df.pivot(index="model", columns="item", values="score").to_numpy(dtype=float)
            del df, a
        with Step(rows, f"rt.read [{rep}]"):
            m = rt.read(str(path))
            del m
    try:   # the Arrow path rt.read takes for one long file (absent in a tree before it)
        from ranktrust.data._io import read_arrow
        from ranktrust.data.readers import ReadOptions
    except ImportError:
        read_arrow = None
    if read_arrow is not None:
        with Step(rows, "  part: read_arrow (Arrow codes)"):
            m = read_arrow(str(path), "auto", ReadOptions())
        del m
    # the pandas path (a DataFrame source, several files, a table with task/metric columns, any error)
    with Step(rows, "  part: read_long (the reader)"):
        df = read_long(str(path))
    from ranktrust.data._long import matrix_from_long
    from ranktrust.data._matrix import ScoreMatrix

    with Step(rows, "  part: matrix_from_long"):
        m = matrix_from_long(ScoreMatrix, df, source=str(path))
    return {"shape": list(shape), "kind": kind, "rows": rows, "file_mb": path.stat().st_size / 1e6}


def case_cli(shape: tuple[int, int], kind: str) -> dict:
    """``ranktrust report FILE -f json`` as a user runs it (start-up included), beside pandas read + pivot."""
    path = long_file(shape, kind)
    rows = []
    for rep in range(2):
        for name, cmd in (
            ("pandas read + pivot (python -c)", [sys.executable, "-c",
             "import pandas as pd,sys; df=pd.read_parquet(sys.argv[1]) if sys.argv[1].endswith('parquet') else "
             "pd.read_csv(sys.argv[1]); df.pivot(index='model',columns='item',values='score').to_numpy(dtype=float)",
             str(path)]),
            ("ranktrust report -f json", [str(Path(sys.executable).parent / "ranktrust"), "report", str(path),
                                          "-f", "json", "--out", str(Path(tempfile.gettempdir()) / "rt_cli.json")]),
        ):
            t = time.perf_counter()
            r = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", *cmd], capture_output=True, text=True)
            dt = time.perf_counter() - t
            if r.returncode:
                raise SystemExit(r.stderr[-2000:])
            kb, us, sy = r.stderr.strip().splitlines()[-1].split()
            rows.append({"step": f"{name} [{rep}]", "s": dt, "cpu_s": float(us) + float(sy), "peak_gb": int(kb) / 1e6,
                         "held_gb": float("nan")})
    return {"shape": list(shape), "kind": kind, "rows": rows}


# ------------------------------------------------------------------ driver
def sub(args: list[str]) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def show(title: str, res: dict) -> None:
    print(f"== {title} ==")
    print(f"{'step':>44} {'seconds':>8} {'CPU s':>7} {'peak GB':>8} {'held GB':>8}")
    for r in res["rows"]:
        print(f"{r['step']:>44} {r['s']:8.2f} {r.get('cpu_s', float('nan')):7.2f} {r['peak_gb']:8.2f} "
              f"{r['held_gb']:8.2f}")
    extra = {k: v for k, v in res.items() if k not in ("rows",)}
    print("  ", extra)


#: the goal of the in-process report + JSON by shape: (seconds, peak GB) (the other shapes' goals are the
#: command line's, bench_scale.py)
REPORT_GOALS = {(1000, 14000): (5.0, 1.5)}


def report_goal(shape: tuple[int, int], res: dict) -> None:
    """The report + JSON beside its goal: wall seconds (what the goal means; under load they stretch) and CPU
    seconds (steadier on a shared machine), the peak memory, and the stability draws the report used."""
    goal = REPORT_GOALS.get(tuple(shape))
    if goal is None:
        return
    s, gb = goal
    wall, cpu, peak = res["total_s"], res.get("total_cpu_s", float("nan")), res["max_peak_gb"]
    print(f"   goal: report + JSON < {s:g} s: {wall:.2f} s wall ({'met' if wall < s else 'not met'}), {cpu:.2f} CPU s "
          f"({'met' if cpu < s else 'not met'}); peak < {gb:g} GB: {peak:.2f} GB ({'met' if peak < gb else 'not met'}); "
          f"stability {res.get('stability_draws', 2000):,} draws per size")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", default="1000x14000")
    ap.add_argument("--only", choices=["report", "read", "cli"])
    ap.add_argument("--kinds", default="parquet,csv")
    ap.add_argument("--quality-parts", action="store_true")
    ap.add_argument("--stability-parts", action="store_true", help="time the stability section's sizes one by one")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    a = ap.parse_args()
    shape = tuple(int(x) for x in a.shape.lower().split("x"))
    if a.case:
        kind, _, what = a.case.partition(":")
        res = (case_report(shape, a.quality_parts, a.stability_parts) if kind == "report" else case_read(shape, what) if kind == "read"
               else case_cli(shape, what))
        print(json.dumps(res))
        return
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}, "
          f"{os.cpu_count()} CPUs; peak-per-step reset: {reset_peak()}")
    if a.only in (None, "report"):
        res = sub(["--case", "report", "--shape", a.shape] + (["--quality-parts"] if a.quality_parts else [])
                  + (["--stability-parts"] if a.stability_parts else []))
        show(f"rt.report + JSON, {shape[0]:,} x {shape[1]:,} 0/1", res)
        report_goal(shape, res)
    for kind in a.kinds.split(","):
        if a.only in (None, "read"):
            show(f"reading a long {kind} file, {shape[0]:,} x {shape[1]:,}", sub(["--case", f"read:{kind}", "--shape", a.shape]))
        if a.only == "cli":
            show(f"ranktrust report on a long {kind} file, {shape[0]:,} x {shape[1]:,}",
                 sub(["--case", f"cli:{kind}", "--shape", a.shape]))
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
