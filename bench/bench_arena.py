"""Speed of ``rt.arena`` / ``ranktrust arena`` at LMArena scale, beside the floor and FastChat's bootstrap.

2,000,000 battles, 250 models (Pareto-skewed sampling, ties 30%), 1,000,000 prompt ids (864,706 used), written to
a Parquet file (model_a, model_b as text, score, cluster as integer prompt ids) by a child process, so this
process's memory high-water mark is that of the timed work. ranktrust runs with its defaults: clustered by prompt,
``cluster_correction="cr2"``, stepdown max-|t| over all 31,125 pairs (2,000 draws), rank sets, tiers, headline.

* the floor: read the file with pandas (pyarrow) and count its model-pair-outcome cells with numpy
  (``factorize`` of the two name columns, one ``bincount``): what any tool must do before it fits anything;
* ranktrust in process: ``rt.arena(path)``, reading included;
* the command line as a user runs it: ``ranktrust arena file -f json`` as a subprocess (what its console script
  runs, as ``python -c``), start-up and imports included, beside the floor run the same way; CPU seconds of each
  child from ``os.wait4``, its peak memory from its own ``/proc/self/status`` (VmHWM) at exit;
* FastChat's practice (rating_systems.compute_bootstrap_bt): unique (model_a, model_b, outcome) rows with counts,
  a multinomial bootstrap of those counts, each round an L-BFGS-B fit of the logistic loss (maxiter=100,
  gtol=1e-6); neither clustered nor simultaneous. 100 rounds, timed for ``--rounds`` and extrapolated linearly;
* a prompt-cluster bootstrap (the same kind of answer by resampling): each round draws the prompts with
  replacement, reweights the battles and refits with ranktrust's Newton on cells; 1,000 rounds, timed for
  ``--cluster-rounds`` and extrapolated.

Each repetition runs the four one after the other (floor, ranktrust, in process then as commands), so a ratio is
taken between runs seconds apart: on a loaded machine absolute times move between repetitions, ratios less.
Wall and CPU seconds (CPU of the process or of the child). The exact optimum is computed by an independent method
(Zermelo/Hunter MM iterations to a relative change below 1e-13) and compared in Elo points.

    .venv/bin/python bench/bench_arena.py                 # about 5 minutes on 2 shared cores (load 6-12)
    .venv/bin/python bench/bench_arena.py --steps         # CPU seconds per step of rt.arena(path)
    .venv/bin/python bench/bench_arena.py --rounds 100    # the full FastChat reference (minutes more)
    .venv/bin/python bench/bench_arena.py --pyc           # commands with cached bytecode (PYTHONDONTWRITEBYTECODE)
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

# one BLAS thread: on a loaded 2-core machine two OpenBLAS threads spin against each other and a 250 x 250
# solve costs 70x more (measured: 0.16 s against 0.0024 s); set RT_BENCH_BLAS_THREADS to change it. Children
# (the commands timed) inherit it.
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, os.environ.get("RT_BENCH_BLAS_THREADS", "1"))

import numpy as np
import pandas as pd
from scipy import optimize, special

#: the goal of the issue: arena within this many times the floor (reading the file and counting its cells)
GOAL_RATIO = 3.0

#: the floor, as a program: read the file, count the model-pair-outcome cells
FLOOR = """
import sys, numpy as np, pandas as pd
df = pd.read_parquet(sys.argv[1])
codes, names = pd.factorize(pd.concat([df["model_a"], df["model_b"]], ignore_index=True))
n, M = len(df), len(names)
key = (codes[:n] * M + codes[n:]) * 3 + np.rint(2 * df["score"].to_numpy()).astype(np.int64)
cells = np.bincount(key, minlength=M * M * 3)
print(int(np.count_nonzero(cells)))
"""


def make(n=2_000_000, M=250, n_prompts=1_000_000, seed=0):
    g = np.random.default_rng(seed)
    theta = np.sort(g.normal(0, 0.8, M))[::-1]
    pop = 1.0 / np.arange(1, M + 1) ** 0.8            # Pareto-skewed sampling of the models
    pop /= pop.sum()
    a = g.choice(M, n, p=pop)
    b = g.choice(M, n, p=pop)
    same = a == b
    while same.any():
        b[same] = g.choice(M, int(same.sum()), p=pop)
        same = a == b
    prompt = g.integers(0, n_prompts, n)
    u = g.normal(0, 0.5, n_prompts)[prompt] * np.where(g.random(n) < 0.5, 1, -1)
    p = special.expit(theta[a] - theta[b] + u)
    r = g.random(n)
    y = np.where(r < 0.3, 0.5, (g.random(n) < p).astype(float))
    names = np.array([f"model-{i:03d}" for i in range(M)], dtype=object)
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "score": y, "cluster": prompt})


def unique_rows(df):
    """FastChat's preprocess_for_bt: unique (model_a, model_b, outcome) rows and their counts."""
    codes, names = pd.factorize(pd.concat([df.model_a, df.model_b], ignore_index=True))
    n = len(df)
    a, b = codes[:n], codes[n:]
    y2 = (2 * df.score.to_numpy()).astype(np.int64)
    M = len(names)
    key = (a * M + b) * 3 + y2
    uk, cnt = np.unique(key, return_counts=True)
    return (uk // 3) // M, (uk // 3) % M, (uk % 3) / 2.0, cnt.astype(float), M, names


def fastchat_fit(ua, ub, uy, w, M, x0=None):
    """FastChat's fit_bt: L-BFGS-B on the weighted logistic loss, maxiter=100, gtol=1e-6 (base e, scale 1)."""
    def f(th):
        d = th[ua] - th[ub]
        p = special.expit(d)
        loss = -np.sum(w * (uy * np.log(np.clip(p, 1e-300, None)) + (1 - uy) * np.log(np.clip(1 - p, 1e-300, None))))
        r = w * (p - uy)
        g = np.bincount(ua, r, M) - np.bincount(ub, r, M)
        return loss / w.sum(), g / w.sum()

    return optimize.minimize(f, np.zeros(M) if x0 is None else x0, jac=True, method="L-BFGS-B",
                             options={"maxiter": 100, "gtol": 1e-6}).x


def mm_optimum(ua, ub, uy, w, M, tol=1e-13, max_iter=200_000):
    """Hunter's (2004) MM for Bradley-Terry with half-win ties, on cells: an independent exact optimum."""
    A, B = ua, ub
    wins = np.bincount(A, w * uy, M) + np.bincount(B, w * (1 - uy), M)
    key = np.minimum(A, B) * M + np.maximum(A, B)
    ck, inv = np.unique(key, return_inverse=True)
    nij = np.bincount(inv, w)
    i, j = ck // M, ck % M
    p = np.ones(M)
    for it in range(max_iter):
        s = nij / (p[i] + p[j])
        den = np.bincount(i, s, M) + np.bincount(j, s, M)
        new = wins / den
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(new / p - 1)) < tol:
            p = new
            break
        p = new
    th = np.log(p)
    return th - th.mean(), it + 1


def floor_in_process(path: str) -> int:
    ns: dict = {}
    sys.argv, argv = ["floor", path], sys.argv
    try:
        exec(FLOOR.replace("print(", "result = ("), ns)
    finally:
        sys.argv = argv
    return int(ns["result"])


def timed(fn, *args):
    """(wall s, CPU s, result) of a call in this process."""
    w, c = time.perf_counter(), time.process_time()
    out = fn(*args)
    return time.perf_counter() - w, time.process_time() - c, out


#: run as ``python -c``: a program's own peak memory, written to stderr at exit. The kernel's VmHWM belongs to the
#: process's address space, which exec replaces; ``ru_maxrss`` of a child would also count the RSS this process
#: had when it forked the child.
PEAK = """
import atexit, sys
def _peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            sys.stderr.write("\\nPEAK_KIB " + line.split()[1] + "\\n")
atexit.register(_peak)
"""
#: the command line as its console script runs it, after PEAK
CLI = "import sys\nfrom ranktrust.cli import main\nsys.argv[0] = 'ranktrust'\nsys.exit(main())\n"


def timed_child(cmd: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS GiB) of a Python program run as ``cmd`` (``[python, -c, code, args...]``, the
    code prefixed with PEAK), start-up included; its output goes to a file."""
    cmd = [cmd[0], "-c", PEAK + cmd[2], *cmd[3:]]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        w = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - w
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode()
        if p.returncode:
            raise SystemExit(f"{' '.join(cmd[:2])} ... {' '.join(cmd[3:])} failed:\n{text[-2000:]}")
    peak = [int(x.split()[1]) for x in text.splitlines() if x.startswith("PEAK_KIB ")]
    return wall, ru.ru_utime + ru.ru_stime, (peak[-1] / 2**20 if peak else float("nan"))


def spread(xs) -> str:
    xs = sorted(xs)
    return f"{xs[len(xs) // 2]:.2f} (min {xs[0]:.2f}, max {xs[-1]:.2f})" if len(xs) > 1 else f"{xs[0]:.2f}"


#: the steps of rt.arena, as (label, function names whose cumulative time is the step's); first match wins
STEPS = (("imports on the first call (the first run's extra CPU seconds)", ("<import>",)),
         ("read: the file into the canonical table (read_battle_table)", ("read_battle_table",)),
         ("read: the table as integer codes (battles_arrays)", ("battles_arrays",)),
         ("canonical (lower code first) + cells + refusals", ("_canonical_battles", "cells", "_refuse_degenerate")),
         ("fit (Newton on cells)", ("fit_half",)),
         ("covariance: exposure (CR2 leverages)", ("exposure",)),
         ("covariance: meat (clustered scores)", ("meat_clusters",)),
         ("stepdown max-|t| over all pairs", ("_claims",)),
         ("tie-convention check (Davidson fit)", ("fit_davidson",)))


def steps(path: str) -> None:
    """CPU seconds of each step of ``rt.arena(path)`` (cProfile on the CPU clock, run twice: the second run's
    figures, and the first run's extra as the imports it triggers, scipy.stats among them; the profiler adds a
    little to Python-heavy steps)."""
    import cProfile
    import pstats

    import ranktrust as rt

    totals = []
    for run in range(2):
        pr = cProfile.Profile(time.process_time)
        c = time.process_time()
        pr.enable()
        rt.arena(path)
        pr.disable()
        totals.append(time.process_time() - c)
    total, t_import = totals[1], totals[0] - totals[1]
    st = pstats.Stats(pr).stats   # {(file, line, name): (cc, nc, tt, ct, callers)}
    cum: dict[str, float] = {}
    for (_, _, name), (_, _, _, ct, _) in st.items():
        cum[name] = max(cum.get(name, 0.0), ct)
    print(f"rt.arena(path), CPU seconds per step (second run; {total:.2f} s in all, under the profiler):")
    told = 0.0
    for label, names in STEPS:
        v = t_import if names == ("<import>",) else sum(cum.get(n, 0.0) for n in names)
        if names != ("<import>",):
            told += v
        print(f"  {label:66s} {v:6.2f}")
    print(f"  {'the rest (win rates, ranks, tiers, headline, notes, the result)':66s} {total - told:6.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2_000_000)
    ap.add_argument("--models", type=int, default=250)
    ap.add_argument("--prompts", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=3, help="repetitions, each timing the four in turn")
    ap.add_argument("--rounds", type=int, default=10, help="FastChat bootstrap rounds timed (100 = no extrapolation)")
    ap.add_argument("--cluster-rounds", type=int, default=5,
                    help="prompt-cluster bootstrap rounds timed (extrapolated to 1,000; 0 leaves it out)")
    ap.add_argument("--steps", action="store_true", help="only the CPU seconds of each step of rt.arena(path)")
    ap.add_argument("--pyc", action="store_true",
                    help="run the commands with cached bytecode (as an installed package has), where "
                         "PYTHONDONTWRITEBYTECODE is set: a PYTHONPYCACHEPREFIX in the temporary folder, warmed once")
    ap.add_argument("--write", help=argparse.SUPPRESS)   # the child that writes the file
    args = ap.parse_args()
    if args.write:
        make(args.n, args.models, args.prompts).to_parquet(args.write, index=False)
        return

    tmp = tempfile.mkdtemp(prefix="bench_arena_")
    path = os.path.join(tmp, "battles.parquet")
    t = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--write", path, "--n", str(args.n), "--models", str(args.models),
                    "--prompts", str(args.prompts)], check=True)
    print(f"data: {args.n:,} battles, {args.models} models, prompt ids from {args.prompts:,}; "
          f"{os.path.getsize(path) / 2**20:.1f} MiB Parquet ({time.perf_counter() - t:.1f} s to simulate and write)")
    if args.steps:
        steps(path)
        shutil.rmtree(tmp, ignore_errors=True)
        return
    if args.pyc:   # the children write and read their bytecode under the temporary folder
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        timed_child([sys.executable, "-c", CLI, "arena", path, "-f", "json"])
        timed_child([sys.executable, "-c", FLOOR, path])
    elif os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("note: PYTHONDONTWRITEBYTECODE is set, so each command compiles ranktrust's modules from source (about "
              "0.5 CPU s that an installed package does not spend); --pyc runs them with cached bytecode")
    import ranktrust as rt   # imported after the child wrote the file; its import cost is in the first in-process run
    from ranktrust.preference import ELO_SCALE

    rows: dict[str, list[tuple[float, float]]] = {k: [] for k in ("floor", "arena", "floor_cli", "arena_cli")}
    peaks: dict[str, float] = {}
    r = None
    for rep in range(args.reps):
        w, c, _ = timed(floor_in_process, path)
        rows["floor"].append((w, c))
        w, c, r = timed(rt.arena, path)
        rows["arena"].append((w, c))
        if rep == 0:
            peaks["in_process"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        w, c, m = timed_child([sys.executable, "-c", FLOOR, path])
        rows["floor_cli"].append((w, c))
        peaks["floor_cli"] = max(peaks.get("floor_cli", 0.0), m)
        w, c, m = timed_child([sys.executable, "-c", CLI, "arena", path, "-f", "json"])
        rows["arena_cli"].append((w, c))
        peaks["arena_cli"] = max(peaks.get("arena_cli", 0.0), m)
        print(f"  repetition {rep + 1}: " + ", ".join(f"{k} {v[-1][0]:.2f} s wall / {v[-1][1]:.2f} s CPU"
                                                    for k, v in rows.items()) + f"; load {os.getloadavg()[0]:.1f}")
    assert r is not None
    s = r.to_dict()["settings"]
    print(f"ranktrust: {s['iterations']} Newton steps, gradient {s['gradient']:.1e}, {s['n_clusters']:,} clusters, "
          f"correction {s['cluster_correction']}, {s['n_resamples']:,} max-|t| draws over "
          f"{s['n_models'] * (s['n_models'] - 1) // 2:,} pairs; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")

    def ratios(num: str, den: str, k: int) -> list[float]:
        return [x[k] / y[k] for x, y in zip(rows[num], rows[den])]

    print(f"\n{'figure':58s} {'measured (median of ' + str(args.reps) + ')':34s} goal")
    for label, key in (("floor in process (read + count cells), wall s", "floor"),
                       ("rt.arena(path) in process, wall s", "arena"),
                       ("floor as a command (python -c, start-up included), wall s", "floor_cli"),
                       ("ranktrust arena file -f json, wall s", "arena_cli")):
        print(f"{label:58s} {spread([x[0] for x in rows[key]]):34s} "
              f"{'<= 20 s' if key.startswith('arena') else '(the floor)'}")
    for label, num, den in (("rt.arena / floor, in process", "arena", "floor"),
                            ("ranktrust arena / floor, as commands", "arena_cli", "floor_cli")):
        for k, unit in ((0, "wall"), (1, "CPU")):
            # the goal is the command's, as a user runs it (the issue measured the command line); the in-process
            # ratio is shown beside it: there the floor has no start-up or imports to share
            goal = f"<= {GOAL_RATIO:.0f}x" if num == "arena_cli" else "(shown; the goal is the commands')"
            print(f"{label + ', ' + unit:58s} {spread(ratios(num, den, k)) + 'x':34s} {goal}")
    print(f"{'peak RSS, ranktrust arena command, GiB':58s} {peaks['arena_cli']:<34.2f} (floor command "
          f"{peaks['floor_cli']:.2f})")
    print(f"{'peak RSS of this process after rt.arena(path), GiB':58s} {peaks['in_process']:<34.2f} (floor and "
          "imports included)")

    # the exact optimum and FastChat's reference, on the same battles
    df = pd.read_parquet(path)
    ua, ub, uy, cnt, M, names = unique_rows(df)
    th_mm, it_mm = mm_optimum(ua, ub, uy, cnt, M)
    table = r.to_dict()["models"]
    order = [list(names).index(m["model"]) for m in table]
    ours = (np.array([m["rating"] for m in table]) - 1000) / ELO_SCALE
    dev = ELO_SCALE * np.max(np.abs(ours - th_mm[order]))
    t = time.perf_counter()
    g = np.random.default_rng(0)
    for _ in range(args.rounds):
        w = g.multinomial(int(cnt.sum()), cnt / cnt.sum()).astype(float)
        fastchat_fit(ua, ub, uy, w, M)
    per = (time.perf_counter() - t) / args.rounds
    th_fc = fastchat_fit(ua, ub, uy, cnt, M)
    fc_dev = ELO_SCALE * np.max(np.abs((th_fc - th_fc.mean()) - th_mm))
    t_fc = per * 100
    ex = "" if args.rounds == 100 else f", extrapolated from {args.rounds} rounds"
    t_rt = float(np.median([x[0] for x in rows["arena"]]))
    print(f"{'FastChat 100-round L-BFGS bootstrap, wall s':58s} {t_fc:<34.1f} (reference{ex}; "
          f"{len(ua):,} unique rows, its fit stops {fc_dev:.2f} Elo from the optimum)")
    print(f"{'FastChat 100 rounds / rt.arena in process':58s} {t_fc / t_rt:<34.1f} (reference: neither clustered "
          "nor simultaneous)")
    print(f"{'rating error against Hunter MM optimum, Elo':58s} {dev:<34.1e} <= 0.01 ({it_mm:,} MM iterations)")
    if args.cluster_rounds:
        # a prompt-cluster bootstrap (the same kind of answer by resampling): each round draws the prompts with
        # replacement, reweights the battles and refits with our own Newton on cells (warm start)
        from ranktrust.preference import _fit

        codes = pd.factorize(df.cluster)[0]
        G = codes.max() + 1
        ia = pd.Categorical(df.model_a, categories=names).codes.astype(np.int64)
        ib = pd.Categorical(df.model_b, categories=names).codes.astype(np.int64)
        a2, b2, y2, _, _ = _fit.canonical(ia, ib, df.score.to_numpy())
        base = _fit.fit_half(_fit.cells(a2, b2, y2, np.ones(len(y2)), M)).theta
        t = time.perf_counter()
        for _ in range(args.cluster_rounds):
            cw = g.multinomial(G, np.full(G, 1.0 / G)).astype(float)[codes]
            keep = cw > 0
            _fit.fit_half(_fit.cells(a2[keep], b2[keep], y2[keep], cw[keep], M), theta0=base)
        t_cb = (time.perf_counter() - t) / args.cluster_rounds * 1000
        print(f"{'prompt-cluster bootstrap, 1,000 rounds, wall s':58s} {t_cb:<34.0f} (reference, extrapolated from "
              f"{args.cluster_rounds} rounds; {t_cb / t_rt:.0f}x rt.arena in process)")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
