import sys, numpy as np, time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2] / "tests"))
from test_sequential_watch import _draw, _fwer, ALPHA
from ranktrust.sequential import _final
from scipy import stats
_final.IN_PLAY_ONLY = sys.argv[1] == "inplay"
fl = float(sys.argv[2]); reps = int(sys.argv[3])
for mus, n, kind, elim in (([0.6, 0.59, 0.59, 0.59, 0.59], 150, "binary", True),
                           ([0.6, 0.59, 0.59, 0.59, 0.59], 150, "continuous", True),
                           ([0.6, 0.6, 0.6, 0.6, 0.6], 300, "continuous", False),
                           ([0.6, 0.595, 0.56, 0.56, 0.56, 0.56, 0.56, 0.56], 300, "continuous", True),
                           ([0.6, 0.595, 0.56, 0.56, 0.56, 0.56, 0.56, 0.56], 300, "binary", True)):
    t0 = time.time()
    rng = np.random.default_rng(7)
    err = _fwer(rng, mus, n, reps, kind, eliminate=elim, horizon=n, final_look=fl)
    p = stats.binomtest(int(err), reps, ALPHA, alternative="greater").pvalue
    print(f"{sys.argv[1]} f={fl} {kind} n={n} elim={elim} K={len(mus)}: error {err}/{reps} = {err/reps:.3f} (alpha {ALPHA}; p {p:.3f}) {time.time()-t0:.0f}s", flush=True)
