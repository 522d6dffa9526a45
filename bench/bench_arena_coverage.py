"""Coverage of ``rt.arena``'s simultaneous rank sets and pairwise claims on parametric boards (issue 24).

Boards of 20 models (the arena-rank README's top ten ratings and ten below, 8 Elo apart, unless said), Davidson
outcomes with nu = 0.86 (30% ties between equals), scored as half a win:

* ``iid``: 40,000 battles, each its own prompt;
* ``prompt``: prompt random effects (tau = 1 per model and prompt) on 2,000 prompts, clustered by prompt;
* ``star``: Arena-Hard's design, 500 prompts x 19 models x 2 games against one baseline, tau = 1;
* ``star_w3``: the same, decided verdicts "strong" with probability 0.6 and weighted 3 (one battle of weight 3);
* ``dense`` / ``dense_prompt``: 20 models 3 Elo apart, without / with prompt effects;
* ``tied10``: the top ten truly tied (prompt effects); ``tied2``: the top two tied;
* ``gap3se``: the top model 3 standard errors (of the top-two difference) above #2, the rest 60 Elo apart;
  ``gap3se_crowded``: the same gap above the arena-rank field (many open pairs: lower power, reported).

Per board: simultaneous coverage (every model's rank set holds its rank ``1 + #{strictly better}``), the share of
boards with any false pairwise claim ("j above k" when theta_j <= theta_k), the share naming a unique #1 (an error
in ``tied2``, power in ``gap3se``), and the mean rank-set width; LMArena's overlap rule on the same covariance
beside it (marginal intervals; 'ub95'), and for the star with weights the overlap rule as Arena-Hard computes it
(each strong verdict as 3 rows, per-row variance, 'ub95_rows').

    .venv/bin/python bench/bench_arena_coverage.py --reps 200      # about 15 minutes on 2 shared cores
"""

from __future__ import annotations

import argparse
import os
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import ranktrust as rt  # noqa: E402

LN = 400 / np.log(10)
TOP10 = np.array([1124.07, 1097.88, 1093.34, 1079.39, 1078.14, 1074.8, 1074.48, 1071.28, 1067.21, 1061.26])
M = 20
NU = 0.86
NAMES = np.array([f"m{i:02d}" for i in range(M)], dtype=object)


def spread() -> np.ndarray:
    th = np.concatenate([TOP10, 1061.26 - 8 * np.arange(1, 11)]) / LN
    return th - th.mean()


def dense() -> np.ndarray:
    th = (np.arange(M)[::-1] * 3.0) / LN
    return th - th.mean()


def outcomes(d: np.ndarray, g: np.random.Generator) -> np.ndarray:
    pa, pb = np.exp(d / 2), np.exp(-d / 2)
    den = pa + pb + NU
    u = g.random(len(d))
    return np.where(u < pa / den, 1.0, np.where(u < (pa + NU) / den, 0.5, 0.0))


def board(kind: str, theta: np.ndarray, g: np.random.Generator, tau: float) -> pd.DataFrame:
    if kind.startswith("star"):
        base = M // 2
        prompts = np.repeat(np.arange(500), (M - 1) * 2)
        others = np.array([m for m in range(M) if m != base])
        b = np.tile(np.repeat(others, 2), 500)
        a = np.full(len(b), base)
        u = g.normal(0, tau, (500, M))
        y = outcomes(theta[a] - theta[b] + u[prompts, a] - u[prompts, b], g)
        w = np.ones(len(y))
        if kind == "star_w3":
            w = np.where((y != 0.5) & (g.random(len(y)) < 0.6), 3.0, 1.0)
    else:
        N, P = 40_000, (40_000 if tau == 0 else 2_000)
        a = g.integers(0, M, N)
        b = g.integers(0, M - 1, N)
        b = b + (b >= a)
        prompts = g.integers(0, P, N)
        d = theta[a] - theta[b]
        if tau > 0:
            u = g.normal(0, tau, (P, M))
            d = d + u[prompts, a] - u[prompts, b]
        y = outcomes(d, g)
        w = np.ones(N)
    return pd.DataFrame({"model_a": NAMES[a], "model_b": NAMES[b], "score": y, "weight": w, "cluster": prompts})


def claims_from_sets(low: np.ndarray, high: np.ndarray, ci_low, ci_high) -> np.ndarray:
    """The overlap rule's pairwise claims: j above k when j's lower bound is above k's upper bound."""
    return ci_low[:, None] > ci_high[None, :]


def evaluate(theta: np.ndarray, better: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[bool, bool, bool]:
    true_rank = 1 + (theta[None, :] > theta[:, None]).sum(axis=1)
    covered = bool(np.all((low <= true_rank) & (true_rank <= high)))
    false_claim = bool(np.any(better & (theta[:, None] <= theta[None, :])))
    unique_first = bool(np.sum(low == 1) == 1)
    return covered, false_claim, unique_first


def run(name: str, kind: str, theta: np.ndarray, tau: float, reps: int, seed: int = 12345,
        n_resamples: int = 1000, rows_variant: bool = False, method: str = "sandwich") -> dict:
    g = np.random.default_rng(seed)
    order = [f"m{i:02d}" for i in range(M)]
    out = {k: [] for k in ("cov", "false", "uniq", "width", "cov_ub", "false_ub", "uniq_ub", "width_ub",
                           "cov_rows", "false_rows", "uniq_rows")}
    t0 = time.perf_counter()
    for r in range(reps):
        df = board(kind, theta, g, tau)
        res = rt.arena(df, rng=r, n_resamples=n_resamples, method=method)
        idx = [res.models.index(m) for m in order]
        th_r = theta
        B = res.better[np.ix_(idx, idx)]
        lo, hi = res.rank_low[idx], res.rank_high[idx]
        c, f, u = evaluate(th_r, B, lo, hi)
        out["cov"].append(c); out["false"].append(f); out["uniq"].append(u)
        out["width"].append(float(np.mean(hi - lo + 1)))
        olo, ohi = res.overlap_rank_low[idx], res.overlap_rank_high[idx]
        ob = claims_from_sets(olo, ohi, res.ci_low[idx], res.ci_high[idx])
        c, f, u = evaluate(th_r, ob, olo, ohi)
        out["cov_ub"].append(c); out["false_ub"].append(f); out["uniq_ub"].append(u)
        out["width_ub"].append(float(np.mean(ohi - olo + 1)))
        if rows_variant:   # Arena-Hard's practice: strong verdicts as 3 rows, each row its own unit
            ex = df.loc[df.index.repeat(df.weight.astype(int))].assign(weight=1.0)
            rr = rt.arena(ex, cluster_by=None, rng=r, n_resamples=100)
            ix = [rr.models.index(m) for m in order]
            rlo, rhi = rr.overlap_rank_low[ix], rr.overlap_rank_high[ix]
            c, f, u = evaluate(th_r, claims_from_sets(rlo, rhi, rr.ci_low[ix], rr.ci_high[ix]), rlo, rhi)
            out["cov_rows"].append(c); out["false_rows"].append(f); out["uniq_rows"].append(u)
    m = {k: (float(np.mean(v)) if v else None) for k, v in out.items()}
    m["seconds"] = time.perf_counter() - t0
    m["name"], m["reps"] = name, reps
    return m


def half_win_estimand(theta: np.ndarray) -> np.ndarray:
    """What the half-win fit estimates under Davidson outcomes on a uniform design: the Bradley-Terry strengths
    of the expected scores ``P(a) + P(tie) / 2`` (attenuated against Davidson's theta)."""
    from ranktrust.preference import _fit

    J, K = np.triu_indices(M, 1)
    u = (theta[J] - theta[K]) / 2
    den = np.exp(u) + np.exp(-u) + NU
    ey = (np.exp(u) + NU / 2) / den
    c = _fit.cells(J, K, ey, np.ones(len(J)), M)
    return _fit.fit_half(c).theta


def _gap_theta(th: np.ndarray, g: np.random.Generator) -> np.ndarray:
    """Move model 0 up until the half-win estimand puts it 3 SE (of its difference with model 1) above model 1."""
    from scipy.optimize import brentq

    th = th.copy()
    th[0] = th[1]
    pilot = rt.arena(board("iid", th, g, 0.0), rng=0, n_resamples=200)
    k0, k1 = pilot.models.index("m00"), pilot.models.index("m01")
    V = pilot.covariance / LN ** 2
    se = np.sqrt(V[k0, k0] + V[k1, k1] - 2 * V[k0, k1])

    def excess(x: float) -> float:
        t = th.copy()
        t[0] = th[1] + x
        e = half_win_estimand(t)
        return e[0] - e[1] - 3 * se

    th[0] = th[1] + brentq(excess, 0.0, 2.0)
    return th - th.mean()


def gap3se_theta(g: np.random.Generator, spacing: float = 60.0) -> np.ndarray:
    """The top model 3 SE (of its difference with #2, in the units the fit estimates) above #2, the rest
    ``spacing`` Elo apart below #2. "#1 is #1" is one of all the pairwise claims, so its power also depends on
    how many other pairs are still open at its step of the stepdown: with the rest far apart only the top pair
    is open and the critical value is about 1.96 (power about 85%); in a crowded field it is the max over every
    open pair (``gap3se_crowded``: the same gap above the arena-rank top ten's spacing)."""
    return _gap_theta((1000 - spacing * np.arange(M)) / LN, g)


def gap3se_crowded(g: np.random.Generator) -> np.ndarray:
    return _gap_theta(spread(), g)


def scenarios() -> list[tuple[str, str, np.ndarray, float, bool]]:
    sp, de = spread(), dense()
    t10 = sp.copy()
    t10[:10] = t10[:10].mean()
    t2 = sp.copy()
    t2[:2] = t2[:2].mean()
    return [("iid", "iid", sp, 0.0, False), ("prompt", "iid", sp, 1.0, False), ("star", "star", sp, 1.0, False),
            ("star_w3", "star_w3", sp, 1.0, True), ("dense", "iid", de, 0.0, False),
            ("dense_prompt", "iid", de, 1.0, False), ("tied10", "iid", t10, 1.0, False),
            ("tied2", "iid", t2, 1.0, False)]


def _fmt(x: float | None) -> str:
    return "   -  " if x is None else f"{x:6.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--only", default=None, help="comma-separated scenario names")
    ap.add_argument("--method", default="sandwich", choices=["sandwich", "bootstrap"],
                    help="rt.arena's covariance: the sandwich, or the cluster bootstrap (--n-resamples refits)")
    ap.add_argument("--n-resamples", type=int, default=1000)
    args = ap.parse_args()
    sc = scenarios() + [("gap3se", "iid", gap3se_theta(np.random.default_rng(7)), 0.0, False),
                        ("gap3se_crowded", "iid", gap3se_crowded(np.random.default_rng(7)), 0.0, False)]
    if args.only:
        keep = set(args.only.split(","))
        sc = [s for s in sc if s[0] in keep]
    print(f"method {args.method}, {args.n_resamples} draws; {args.reps} boards per scenario; MC standard error at 0.95 is {np.sqrt(0.95 * 0.05 / args.reps):.3f}")
    print("scenario      | rt.arena: coverage false-claim unique#1 width | overlap rule: coverage false-claim "
          "unique#1 width | width ratio | rows (Arena-Hard): coverage false unique#1 | seconds")
    for name, kind, th, tau, rows in sc:
        m = run(name, kind, th, tau, args.reps, rows_variant=rows, method=args.method, n_resamples=args.n_resamples)
        print(f"{name:14s} | {_fmt(m['cov'])} {_fmt(m['false'])} {_fmt(m['uniq'])} {m['width']:6.2f} | "
              f"{_fmt(m['cov_ub'])} {_fmt(m['false_ub'])} {_fmt(m['uniq_ub'])} {m['width_ub']:6.2f} | "
              f"{m['width'] / m['width_ub']:5.2f} | {_fmt(m['cov_rows'])} {_fmt(m['false_rows'])} "
              f"{_fmt(m['uniq_rows'])} | {m['seconds']:.0f}", flush=True)
    print("goals: coverage >= 0.93 everywhere; false claims <= 0.05 (tied10); unique #1 <= 0.05 (tied2) and "
          ">= 0.80 (gap3se)")


if __name__ == "__main__":
    main()
