import sys, numpy as np, time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
import bench_watch as B
from ranktrust.sequential import watch_replay
m = B.load(B.MMLU)
for w, el in ((0.2, True), (0.15, True), (0.1, True), (1.0, False), (0.5, False), (0.4, False)):
    t0 = time.time()
    r = watch_replay(m, 200, rng=0, confidence_level=1 - 0.05 * w, eliminate=el)
    v = np.asarray(r.items_needed, float)
    print(f"w={w} eliminate={el}: median {np.nanmedian(v):.1f} p10 {np.nanpercentile(v,10):.0f} p90 {np.nanpercentile(v,90):.0f} errors {int(np.sum(r.errors))} ({time.time()-t0:.1f}s)", flush=True)
