import sys, numpy as np, time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
import bench_watch as B
from ranktrust.sequential import watch_replay
m = B.load(B.MMLU)
for w in (1.0, 0.75, 0.5, 0.4, 0.3, 0.25):
    t0 = time.time()
    r = watch_replay(m, 200, rng=0, confidence_level=1 - 0.05 * w)
    v = np.asarray(r.items_needed, float)
    print(f"w={w}: median {np.nanmedian(v):.1f} p10 {np.nanpercentile(v,10):.0f} p90 {np.nanpercentile(v,90):.0f} errors {int(np.sum(r.errors))} ({time.time()-t0:.1f}s)", flush=True)
