import sys, numpy as np, time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
import bench_watch as B
from ranktrust.sequential._engine import EngineConfig, run_engine
from ranktrust.sequential import _final
fls = [float(x) for x in sys.argv[1].split(",")]
elim = sys.argv[2] == "elim"
_final.IN_PLAY_ONLY = sys.argv[3] == "inplay"
names = sys.argv[4].split(",") if len(sys.argv) > 4 else None
mats = [(n, f, kw) for n, f, kw in (("GPQA", "gpqa_main_openllm.csv.gz", {}), ("SWE-mini", "swebench_verified_mini.csv", {}),
                     ("AlpacaEval", "alpacaeval2_weighted.csv.gz", {}), ("Arena-Hard", "arenabench_v1_judge_scores.csv.gz", {"scale": 10}))]
for name, fn, kw in mats:
    if names and name not in names: continue
    m = B.load(B.SHARED / fn, **kw)
    for fl in fls:
        gen = np.random.default_rng(1); sizes = []; t0 = time.time()
        for _ in range(10):
            e = run_engine(m.scores[:, gen.permutation(m.n_items)], EngineConfig(alpha=0.05, pairs=False, horizon=m.n_items, final_look=fl, eliminate=elim))
            sizes.append(int((e.excluded_at == 0).sum()))
        print(f"{sys.argv[2]} {sys.argv[3]} {name:<11} f={fl}: median {np.median(sizes)} ({min(sizes)}-{max(sizes)}) {time.time()-t0:.1f}s", flush=True)
