"""Leaderboard scale (issues 14 and 33): the full report at leaderboard sizes, the command line on long files,
rank stability against the article's reference and the random-number floor, and 1 vs 2 dask workers.

    .venv/bin/python bench/bench_scale.py --skip-huge     # GPQA, 1,000 x 14,000, CLI on long Parquet, stability, dask
    .venv/bin/python bench/bench_scale.py --only report   # part 1 (add --skip-huge to leave out 3,000 x 14,000 etc.)
    .venv/bin/python bench/bench_scale.py --only stability
    .venv/bin/python bench/bench_scale.py --only gpqa     # the GPQA report alone, beside its goal (seconds; --reps runs)
    .venv/bin/python bench/bench_scale.py --only cli      # part 1's command-line cases alone (ranktrust report FILE)

1. ``rt.report(m)`` then the JSON written to a file, every default section, each case in a
   fresh process (its peak RSS, from getrusage, is the case's peak memory), after a warm-up report on a tiny
   matrix (imports are not timed). Goals (issue 33): GPQA 420 x 448 < 0.4 s; synthetic 1,000 x 14,000 0/1
   < 5 s and < 1.5 GB. Then ``ranktrust report FILE -f json --out x.json`` as a user runs it (start-up,
   imports, reading included) on long Parquet files (model, item, score), each run beside the naive reference
   timed in the same loop, taking turns: a Python process that reads the file with pandas and pivots it to a
   models x items array. Peak memory of each process from ``/usr/bin/time -f %M``. Goals: 1,000 x 14,000
   < 10 s, <= 2.5x the read + pivot, < 1.5 GB; 3,000 x 14,000 < 40 s, < 5 GB; 300 x 50,000 < 15 s,
   < 2 GB (``--skip-huge`` leaves out the last two). Where the time goes: ``bench/bench_profile.py``.
2. Stability, 100 x 14,000 int8 scores, 2,000 draws: ``rt.stability(..., sizes=[n])``
   (P(#1) and top-k orders, what the reference computes; also with the M x M rank
   distributions) against the article's reference as written there (one (draws, n) index
   matrix; for each model row ``row[idx].mean(axis=1)``; stack; 1e-9 uniform jitter;
   argmax), and the floor: the time to draw the same (draws, n) indices. Goals: >= 4x the
   reference at n = 200; at n = N within 1.5x of the floor. Best of 3 x 5 (n = 200) or
   5 (n = N) interleaved runs; at n = N also what the steps after the draws cost alone (one
   bincount per draw; the float32 product of the counts with the scores).
3. dask.distributed: the same stability run on a LocalCluster of 1 and of 2 worker
   processes (1 thread each, TCP), and the blocked all-pairs from a Parquet file.
5. Rank sets (``method="pairs"``) by screen-then-refine against the full all-pairs table:
   seconds, share of pairs screened, same sets (``bench/bench_ranksets.py``; ``--only ranksets``).

The machine is shared: the load average is printed; ratios matter more than seconds.
"""

from __future__ import annotations

import argparse
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
GPQA = next((p for p in (Path("/work/shared/data/gpqa_main_openllm.csv.gz"),
                          ROOT / "tests" / "data" / "gpqa_main_openllm.csv.gz") if p.exists()), None)
BEFORE = {"gpqa": 0.54, "1k": 22.6}  # issue 33's table: report + JSON before it (the best of its runs)
GOALS = {"gpqa": (0.4, None), "1k": (5.0, 1.5), "huge": (180.0, 10.0)}
#: ranktrust report on a long Parquet file: shape -> (seconds, x the pandas read + pivot, GB)
CLI_GOALS = {(1000, 14000): (10.0, 2.5, 1.5), (3000, 14000): (40.0, None, 5.0), (300, 50000): (15.0, None, 2.0)}


# ------------------------------------------------------------------ part 1: the report
def synthetic(m: int, n: int, seed: int = 0) -> np.ndarray:
    """0/1 scores from a one-parameter logistic model (abilities x item difficulties), int8."""
    g = np.random.default_rng(seed)
    ability = g.normal(0.0, 1.0, (m, 1))
    difficulty = g.normal(0.0, 1.5, (1, n))
    out = np.empty((m, n), dtype=np.int8)
    for r in range(0, m, 256):
        p = 1.0 / (1.0 + np.exp(difficulty - ability[r:r + 256]))
        out[r:r + 256] = g.random(p.shape) < p
    return out


def huge_parquet(path: Path, m: int, n: int) -> Path:
    if not path.exists():
        from ranktrust.stats._blocked import write_parquet

        s = synthetic(m, n, seed=1)
        write_parquet(str(path), s, models=[f"model_{k:05d}" for k in range(m)], block_items=5000, dtype=np.int8)
    return path


def run_case(case: str, out_json: str, huge_path: str | None) -> dict:
    """One case in this process: returns seconds and peak RSS (GB)."""
    import ranktrust as rt
    from ranktrust.data._matrix import ScoreMatrix

    warm = ScoreMatrix.from_array((np.random.default_rng(0).random((5, 60)) < 0.5).astype(float))
    rt.report(warm, stability_n_resamples=50).to_dict()   # imports and first calls, not timed
    t0, c0 = time.perf_counter(), time.process_time()
    if case == "gpqa":
        m = rt.read(str(GPQA))
        t0, c0 = time.perf_counter(), time.process_time()   # the file read is not the report
    elif case == "1k":
        m = ScoreMatrix.from_array(synthetic(1000, 14000))
        t0, c0 = time.perf_counter(), time.process_time()
    else:
        from ranktrust.stats._blocked import read_parquet_matrix

        m = read_parquet_matrix(huge_path)   # timed: the case starts from the file
    t_read = time.perf_counter() - t0
    rep = rt.report(m)
    t_rep = time.perf_counter() - t0
    d = rep.to_dict()
    # written as `ranktrust report -f json` writes it (the house's writer, json's C encoder); json.dump to a file
    # goes through json's pure-Python encoder (0.05 s on GPQA's 0.9 MB against 0.03)
    from ranktrust.reporting._render import dumps_indented

    with open(out_json, "w") as f:
        f.write(dumps_indented(d))
    t_all = time.perf_counter() - t0
    return {"case": case, "shape": [m.n_models, m.n_items], "read_s": t_read, "report_s": t_rep,
            "total_s": t_all, "cpu_s": time.process_time() - c0, "json_mb": os.path.getsize(out_json) / 1e6,
            "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6}


def part1(skip_huge: bool, huge_shape: tuple[int, int], with_huge: bool = False, gpqa_only: bool = False,
          gpqa_reps: int = 3) -> None:
    print(f"== 1. full report, JSON written (each case in a fresh process; best of the runs); "
          f"load average {os.getloadavg()[0]:.1f} ==")
    cases = ([("gpqa", gpqa_reps)] if GPQA is not None else []) + ([] if gpqa_only else [("1k", 1)]) \
        + ([("huge", 1)] if with_huge else [])
    if GPQA is None:
        print("   (GPQA 420 x 448 skipped: gpqa_main_openllm.csv.gz is in neither /work/shared/data nor tests/data)")
    tmp = Path(tempfile.gettempdir())
    huge = tmp / f"ranktrust_bench_{huge_shape[0]}x{huge_shape[1]}.parquet"
    if with_huge:
        t = time.perf_counter()
        huge_parquet(huge, *huge_shape)
        print(f"   (Parquet file {huge}: {huge.stat().st_size / 1e6:.0f} MB, made in {time.perf_counter() - t:.0f} s)")
    rows = []
    for case, reps in cases:
        best, runs = None, []
        for _ in range(reps):
            out = subprocess.run(
                [sys.executable, __file__, "--case", case, "--huge-path", str(huge)],
                capture_output=True, text=True, check=True, cwd=ROOT)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            runs.append(r["total_s"])
            best = r if best is None or r["total_s"] < best["total_s"] else best
        best["runs"] = runs
        rows.append(best)
    print(f"{'case':>24} {'seconds':>8} {'(report)':>9} {'CPU s':>6} {'peak GB':>8} {'JSON MB':>8} {'goal s':>7} "
          f"{'goal/s':>7} {'goal GB':>8} {'before s':>9} {'speed-up':>9}")
    for r in rows:
        goal_s, goal_gb = GOALS[r["case"]]
        before = BEFORE.get(r["case"])
        name = f"{r['case']} {r['shape'][0]}x{r['shape'][1]}"
        speed = f"{before / r['total_s']:.1f}x" if before else "-"
        print(f"{name:>24} {r['total_s']:8.2f} {r['report_s']:9.2f} {r.get('cpu_s', float('nan')):6.2f} "
              f"{r['peak_gb']:8.2f} {r['json_mb']:8.2f} "
              f"{goal_s:7.1f} {goal_s / r['total_s']:6.2f}x {goal_gb if goal_gb else '-':>8} "
              f"{before if before else '-':>9} {speed:>9}")
        if len(r["runs"]) > 1:
            print(f"{'':>24} every run, s: {', '.join(f'{x:.3f}' for x in r['runs'])} "
                  f"(median {float(np.median(r['runs'])):.3f})")
    if gpqa_only:
        return
    part1_cli([(1000, 14000)] + ([] if skip_huge else [(3000, 14000), (300, 50000)]))


def part1_cli(shapes: list[tuple[int, int]], reps: int = 2) -> None:
    """``ranktrust report FILE -f json`` on long Parquet files beside a pandas read + pivot, taking turns."""
    from bench_profile import long_file

    print(f"== 1b. ranktrust report on a long Parquet file (model, item, score), as a user runs it, beside a pandas "
          f"read + pivot of the file; best of {reps}, taking turns; load average {os.getloadavg()[0]:.1f} ==")
    print(f"{'shape':>14} {'pandas s':>9} {'(CPU)':>6} {'GB':>5} {'ranktrust s':>12} {'(CPU)':>6} {'GB':>5} "
          f"{'ratio':>6}   goal")
    exe = str(Path(sys.executable).parent / "ranktrust")
    for shape in shapes:
        path = long_file(shape, "parquet")
        cmds = {
            "pandas": [sys.executable, "-c", "import pandas as pd,sys; df=pd.read_parquet(sys.argv[1]); "
                       "df.pivot(index='model',columns='item',values='score').to_numpy(dtype=float)", str(path)],
            "ranktrust": [exe, "report", str(path), "-f", "json", "--out", str(Path(tempfile.gettempdir()) / "rt_cli.json")],
        }
        best: dict = {}
        for _ in range(reps):
            for k, cmd in cmds.items():
                t = time.perf_counter()
                r = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", *cmd], capture_output=True, text=True, cwd=ROOT)
                dt = time.perf_counter() - t
                if r.returncode:
                    raise SystemExit(r.stderr[-2000:])
                kb, us, sy = r.stderr.strip().splitlines()[-1].split()
                if k not in best or dt < best[k][0]:
                    best[k] = (dt, int(kb) / 1e6, float(us) + float(sy))
        (tp, gp, cp), (tr, gr, cr) = best["pandas"], best["ranktrust"]
        gs, gx, gg = CLI_GOALS.get(shape, (None, None, None))
        goal = ", ".join(x for x in (f"< {gs:g} s" if gs else "", f"<= {gx:g}x" if gx else "",
                                     f"< {gg:g} GB" if gg else "") if x)
        print(f"{shape[0]:>6,}x{shape[1]:<7,} {tp:9.2f} {cp:6.1f} {gp:5.2f} {tr:12.2f} {cr:6.1f} {gr:5.2f} "
              f"{tr / tp:5.2f}x   {goal}")


# ------------------------------------------------------------------ part 2: stability
def article_reference(scores: np.ndarray, n: int, draws: int, seed: int) -> np.ndarray:
    """The article's code as written: one (draws, n) index matrix, row[idx].mean(axis=1) per
    model, stacked, 1e-9 uniform jitter, argmax: the #1 of every draw."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, scores.shape[1], size=(draws, n))
    means = np.stack([row[idx].mean(axis=1) for row in scores], axis=1)
    means = means + rng.uniform(0, 1e-9, size=means.shape)
    return np.argmax(means, axis=1)


def draw_floor(n_items: int, n: int, draws: int, seed: int) -> np.ndarray:
    """Only the random indices of the reference: the floor of any method that draws them."""
    return np.random.default_rng(seed).integers(0, n_items, size=(draws, n))


CPU: dict = {}   # the process's CPU seconds of the best run of each method of the last best_of


def best_of(fns: dict, reps: int) -> dict:
    times = {k: [] for k in fns}
    for _ in range(reps):
        for k, f in fns.items():   # interleaved, so that load changes hit every method alike
            t, c = time.perf_counter(), time.process_time()
            f()
            times[k].append((time.perf_counter() - t, time.process_time() - c))
    CPU.clear()
    CPU.update({k: min(v)[1] for k, v in times.items()})
    return {k: min(v)[0] for k, v in times.items()}


def part2(reps: int) -> None:
    from ranktrust.ranking._stability import stability

    print("== 2. stability, 100 x 14,000 int8, 2,000 draws (best of %d, interleaved) ==" % reps)
    s = synthetic(100, 14000, seed=2)
    m_, n_items = s.shape
    draws = 2000
    print(f"{'n':>6} {'reference s':>12} {'floor s':>9} {'ranktrust s':>12} {'(+rank dist.)':>14} "
          f"{'x reference':>12} {'/ floor':>8}  goal")
    for n in (200, n_items):
        t = best_of({
            "ref": lambda: article_reference(s, n, draws, 0),
            "floor": lambda: draw_floor(n_items, n, draws, 0),
            "rt": lambda: stability(s, sizes=[n], n_resamples=draws, rng=0, rank_distribution=False),
            "rt_full": lambda: stability(s, sizes=[n], n_resamples=draws, rng=0),
        }, 3 * reps if n < n_items else reps)
        full = n == n_items
        ok = t["rt"] / t["floor"] <= 1.5 if full else t["ref"] / t["rt"] >= 4
        goal = ("<= 1.5x floor" if full else ">= 4x reference") + (": met" if ok else ": not met")
        print(f"{n:>6} {t['ref']:12.3f} {t['floor']:9.3f} {t['rt']:12.3f} {t['rt_full']:14.3f} "
              f"{t['ref'] / t['rt']:11.1f}x {t['rt'] / t['floor']:7.2f}x  {goal}")
        print(f"{'':>6} CPU s: reference {CPU['ref']:.3f}, floor {CPU['floor']:.3f}, ranktrust {CPU['rt']:.3f} "
              f"({CPU['rt'] / max(CPU['floor'], 1e-9):.2f}x the floor's CPU"
              + (f", goal <= 1.5x: {'met' if CPU['rt'] <= 1.5 * CPU['floor'] else 'not met'}" if full else "")
              + "; the engine draws and counts on 2 threads)")
    # n = N: what the steps after the draws cost alone (the engine overlaps the draws with them)
    idx = draw_floor(n_items, n_items, draws, 0)
    st = np.ascontiguousarray(s.T.astype(np.float32))
    cnt = np.empty((512, n_items), dtype=np.float32)

    def count():
        for r in range(draws):
            cnt[r % 512] = np.bincount(idx[r], minlength=n_items)

    t = best_of({"floor": lambda: draw_floor(n_items, n_items, draws, 0), "count": count,
                 "product": lambda: [cnt @ st for _ in range(-(-draws // 512))]}, reps)
    print(f"   n = N, each step alone: draw {t['floor']:.3f} s, count (bincount per draw) {t['count']:.3f} s, "
          f"float32 product {t['product']:.3f} s: {(t['count'] + t['product']) / t['floor']:.2f}x the draws "
          "on top of them")


# ------------------------------------------------------------------ part 3: dask
def part3() -> None:
    from dask.distributed import Client, LocalCluster

    from ranktrust.ranking._stability import stability
    from ranktrust.stats._blocked import all_pairs_blocked, write_parquet

    import warnings

    warnings.filterwarnings("ignore", message="Port .* is already in use")   # worker dashboards
    print("== 3. dask.distributed LocalCluster (worker processes, 1 thread each, TCP) ==")
    s = synthetic(100, 14000, seed=2)
    kw = dict(sizes=[200, "full"], n_resamples=4000, rng=0, rank_distribution=False)
    t = time.perf_counter()
    local = stability(s, **kw)
    t_local = time.perf_counter() - t
    tmp = Path(tempfile.mkdtemp())
    pq = write_parquet(str(tmp / "s.parquet"), synthetic(1000, 14000, seed=3),
                       models=[f"m{k}" for k in range(1000)], block_items=2000, dtype=np.int8)
    t = time.perf_counter()
    pairs_local = all_pairs_blocked(pq)
    t_pairs_local = time.perf_counter() - t
    res = {}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, protocol="tcp",
                          dashboard_address=None, env={"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}) as cl, \
                Client(cl) as c:
            stability(s, client=c, **dict(kw, n_resamples=64))   # workers import ranktrust, not timed
            best = []
            for _ in range(2):
                t = time.perf_counter()
                out = stability(s, client=c, **kw)
                best.append(time.perf_counter() - t)
            assert np.array_equal(out.p_first, local.p_first)
            t = time.perf_counter()
            pt = all_pairs_blocked(pq, client=c)
            t_pairs = time.perf_counter() - t
            assert np.array_equal(pt.p_adjusted, pairs_local.p_adjusted)
            res[workers] = (min(best), t_pairs)
    print(f"{'':>34} {'in-process':>11} {'1 worker':>9} {'2 workers':>10} {'1->2 speed-up':>14}")
    print(f"{'stability 100x14,000, 2 sizes, 4,000':>34} {t_local:11.2f} {res[1][0]:9.2f} {res[2][0]:10.2f} "
          f"{res[1][0] / res[2][0]:13.2f}x")
    print(f"{'blocked all-pairs 1,000x14,000 pq':>34} {t_pairs_local:11.2f} {res[1][1]:9.2f} {res[2][1]:10.2f} "
          f"{res[1][1] / res[2][1]:13.2f}x")
    print("   (identical results in every column; in-process BLAS uses both cores, a worker one)")


# ------------------------------------------------------------------ part 4: kernels
def part4() -> None:
    """The unit costs docs/scale.md projects a 10,000 x 100,000 run from."""
    from scipy.sparse import csr_matrix

    from ranktrust.stats._paired import mcnemar_ci

    print("== 4. kernels (best of 3): unit costs for the plan in docs/scale.md ==")
    g = np.random.default_rng(0)
    out = {}

    def best(f, reps=3):
        ts = []
        for _ in range(reps):
            t = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t)
        return min(ts)

    n, m, b = 14000, 1000, 512
    st = np.ascontiguousarray((g.random((n, m)) < 0.5).astype(np.float32))
    cnt = np.ascontiguousarray(g.integers(0, 3, (b, n)).astype(np.float32))
    out["GEMM float32 (512 x 14,000) @ (14,000 x 1,000), GFLOP/s"] = 2 * b * n * m / best(lambda: cnt @ st) / 1e9
    size = 500
    idx = g.integers(0, n, (b, size))
    a = csr_matrix((np.ones(b * size, np.float32), idx.ravel(), np.arange(0, b * size + 1, size)), shape=(b, n))
    out["sparse gather-add, ns per (drawn item x model)"] = best(lambda: a @ st) / (b * size * m) * 1e9
    out["random indices (PCG64 int64, 64 x 14,000 blocks), ns each"] = best(
        lambda: [np.random.default_rng(k).integers(0, n, size=(64, n)) for k in range(8)]) / (8 * 64 * n) * 1e9
    row = g.integers(0, n, n)
    out["bincount per resample (14,000 of 14,000), ns per index"] = best(
        lambda: [np.bincount(row, minlength=n) for _ in range(200)]) / (200 * n) * 1e9
    k = 500_000
    bb, cc = g.integers(0, 60, k), g.integers(0, 60, k)
    out["exact McNemar CI (mcnemar_ci), us per pair"] = best(lambda: mcnemar_ci(bb, cc, np.full(k, 448)), 1) / k * 1e6
    for name, v in out.items():
        print(f"   {name:>62}: {v:8.2f}")


def part5(skip_huge: bool) -> None:
    """Rank sets by screen-then-refine against the full all-pairs table (bench/bench_ranksets.py)."""
    import bench_ranksets

    argv = sys.argv
    sys.argv = [argv[0], "--reps", "2"] + ([] if skip_huge else ["--huge"])
    try:
        bench_ranksets.main()
    finally:
        sys.argv = argv


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skip-huge", action="store_true", help="skip the 3,000 x 14,000 and 300 x 50,000 CLI cases")
    ap.add_argument("--with-5000", action="store_true", help="add the 5,000 x 50,000 Parquet report (issue 14; slow)")
    ap.add_argument("--only", choices=["report", "gpqa", "cli", "stability", "dask", "kernels", "ranksets"])
    ap.add_argument("--huge-shape", default="5000x50000", help="models x items of the Parquet case")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--huge-path", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.case:
        out = Path(tempfile.gettempdir()) / f"ranktrust_bench_{a.case}.json"
        print(json.dumps(run_case(a.case, str(out), a.huge_path)))
        return
    shape = tuple(int(x) for x in a.huge_shape.lower().split("x"))
    if a.only in (None, "report", "gpqa"):
        part1(a.skip_huge, shape, a.with_5000, gpqa_only=a.only == "gpqa", gpqa_reps=a.reps if a.only == "gpqa" else 3)
    if a.only == "cli":   # part 1's command-line cases alone
        part1_cli([(1000, 14000)] + ([] if a.skip_huge else [(3000, 14000), (300, 50000)]))
    if a.only in (None, "stability"):
        part2(a.reps)
    if a.only in (None, "kernels"):
        part4()
    if a.only in (None, "ranksets"):
        part5(a.skip_huge)
    if a.only in (None, "dask"):
        try:
            import distributed  # noqa: F401
        except ImportError:
            print("== 3. skipped: dask.distributed is not installed (pip install 'ranktrust[scale]') ==")
        else:
            part3()


if __name__ == "__main__":
    main()
