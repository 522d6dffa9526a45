import sys, numpy as np
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
import bench_watch as B
from ranktrust.sequential._engine import EngineConfig, run_engine
from ranktrust.sequential import _final
for fn, kw in (("arenabench_v1_judge_scores.csv.gz", {"scale": 10}), ("swebench_verified_mini.csv", {})):
    m = B.load(B.SHARED / fn, **kw)
    X = m.scores
    K = X.shape[0]
    # no elimination, full data: the smallest final-look level that rejects "j is best" for each model but the leader
    inp = np.ones(K, bool); su = np.full(K, X.shape[1])
    lead = np.argmax(X.mean(1)); order = np.argsort(-X.mean(1))
    for j in order[1:3]:
        lo, hi = 1e-6, 0.05
        if not _final.final_look_rejects(X, np.array([j]), inp, su, hi)[0]:
            print(fn, "rank", list(order).index(j) + 1, "not rejected at 0.05"); continue
        for _ in range(40):
            mid = (lo + hi) / 2
            if _final.final_look_rejects(X, np.array([j]), inp, su, mid)[0]: hi = mid
            else: lo = mid
        print(fn, "rank", list(order).index(j) + 1, f"final look rejects from level {hi:.4f} -> f >= {hi/0.05:.3f}")
