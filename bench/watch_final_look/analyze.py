import sys, numpy as np
from scipy import stats, optimize
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
import bench_watch as B
import ranktrust as rt
mats = [("MMLU-Pro", B.load(B.MMLU), {}), ]
for name, fn, kw in (("GPQA", "gpqa_main_openllm.csv.gz", {}), ("SWE-mini", "swebench_verified_mini.csv", {}),
                     ("AlpacaEval", "alpacaeval2_weighted.csv.gz", {}), ("Arena-Hard", "arenabench_v1_judge_scores.csv.gz", {"scale": 10})):
    mats.append((name, B.load(B.SHARED / fn, **kw), kw))

def zmat(S):
    K, n = S.shape
    D = S[:, None, :] - S[None, :, :]
    mu = D.mean(-1); sd = D.std(-1, ddof=1)
    with np.errstate(all="ignore"):
        Z = np.where(sd > 0, mu / (sd / np.sqrt(n)), 0.0)
    return Z  # Z[k, j] > 0: k beats j

def bonf(Z, a):
    K = Z.shape[0]
    c = stats.norm.isf(a / (K - 1))
    Zo = Z.copy(); np.fill_diagonal(Zo, -np.inf)
    return int((Zo.max(0) < c).sum())

def bb(Z, a, beta):
    K = Z.shape[0]
    zb = stats.norm.isf(beta / (K - 1))
    keep = 0
    for j in range(K):
        z = np.delete(Z[:, j], j)
        th = np.minimum(0, z + zb)
        f = lambda c: stats.norm.sf(c - th).sum() - (a - beta)
        c = optimize.brentq(f, -200, 40)
        keep += z.max() < c
    return int(keep)

for name, m, _ in mats:
    S = m.scores
    Z = zmat(S)
    out = [f"{name:<11} K={S.shape[0]:>3} n={S.shape[1]:>6}"]
    for a in (0.05, 0.04, 0.0375, 0.025, 0.0125):
        h = B.holm_best_set(S, a, m.is_binary) if S.shape[0] < 100 or a in (0.05, 0.025) else -1
        out.append(f"a'={a}: holm {h} bonf {bonf(Z, a)} bb(.005) {bb(Z, a, 0.005)} bb(.001) {bb(Z, a, 0.001)}")
    print("\n   ".join(out), flush=True)
