"""Style control of ``rt.arena``: the style coefficient is recovered without shrinkage and its interval covers.

Battles between 20 models (arena-rank's top-ten ratings and ten below), per-side response lengths drawn
log-normal (sd 0.6, so relative length differences look like arena ones), 500 prompt ids per 20,000 battles
(the sandwich clusters on them), ties drawn so that a tie as half a win is the true model (``E[y] = p``; 30% ties
between equals; prompt random effects or independent ties would change what the half-win fit estimates, the
non-collapsibility of the logit). The true model is ``logit P(a) = theta_a - theta_b + 0.25 f`` with ``f`` the feature ``rt.arena`` builds
(``(len_a - len_b) / (len_a + len_b + 1)`` over its population root mean square, computed once from 4M draws).

* large board: 1,000,000 battles, |gamma-hat - 0.25| (goal <= 0.01); arena-rank's default ridge (reg = 1 on the
  mean loss, i.e. n in sum units) is shown beside for comparison, fitted by the same Newton with the ridge;
* coverage: ``--reps`` boards of 20,000 battles, share of 95% intervals for gamma that hold 0.25 (goal >= 0.93),
  and the share of boards whose simultaneous rank sets (with gamma's uncertainty in the joint sandwich) hold
  every true rank.

    .venv/bin/python bench/bench_arena_style.py --reps 400
"""

from __future__ import annotations

import argparse
import os
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import special  # noqa: E402

import ranktrust as rt  # noqa: E402

LN = 400 / np.log(10)
TOP10 = np.array([1124.07, 1097.88, 1093.34, 1079.39, 1078.14, 1074.8, 1074.48, 1071.28, 1067.21, 1061.26])
THETA = np.concatenate([TOP10, 1061.26 - 8 * np.arange(1, 11)]) / LN
THETA -= THETA.mean()
M = len(THETA)
GAMMA = 0.25
NAMES = np.array([f"m{i:02d}" for i in range(M)], dtype=object)


def _lengths(g: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    return (np.round(np.exp(g.normal(6.0, 0.6, n))), np.round(np.exp(g.normal(6.0, 0.6, n))))


def population_rms() -> float:
    la, lb = _lengths(np.random.default_rng(99), 4_000_000)
    f = (la - lb) / (la + lb + 1)
    return float(np.sqrt(np.mean(f * f)))


def board(n: int, g: np.random.Generator, rms: float) -> pd.DataFrame:
    a = g.integers(0, M, n)
    b = g.integers(0, M - 1, n)
    b = b + (b >= a)
    P = max(1, n // 40)
    prompts = g.integers(0, P, n)
    la, lb = _lengths(g, n)
    f = (la - lb) / (la + lb + 1) / rms
    p = special.expit(THETA[a] - THETA[b] + GAMMA * f)
    # ties with E[y] = p exactly (so the half-win model is the true one): P(tie) = 0.6 min(p, 1 - p), 30% at p = 1/2
    tie = 0.6 * np.minimum(p, 1 - p)
    u = g.random(n)
    y = np.where(u < p - tie / 2, 1.0, np.where(u < p + tie / 2, 0.5, 0.0))
    return pd.DataFrame({"model_a": NAMES[a], "model_b": NAMES[b], "score": y, "cluster": prompts,
                         "style_a_length": la, "style_b_length": lb})


def ridge_gamma(df: pd.DataFrame, reg_sum: float) -> float:
    """arena-rank's contextual BT objective: -mean(ll) + 0.5 * reg * ||gamma||^2, i.e. a ridge of reg * n in
    sum units on gamma (its ratings are unpenalised up to hessian_reg); Newton on (theta, gamma)."""
    from ranktrust.preference import _fit

    names = sorted(set(df.model_a) | set(df.model_b))
    a = df.model_a.map(names.index).to_numpy()
    b = df.model_b.map(names.index).to_numpy()
    y = df.score.to_numpy()
    la, lb = df.style_a_length.to_numpy(), df.style_b_length.to_numpy()
    f = (la - lb) / (la + lb + 1)
    f = (f / np.sqrt(np.mean(f * f)))[:, None]
    w = np.ones(len(y))
    a2, b2, y2, f2, _ = _fit.canonical(a, b, y, f)
    c = _fit.cells(a2, b2, y2, w, M)
    th, ga = np.zeros(M), np.zeros(1)
    for _ in range(30):
        g, H, _, _ = _fit._style_terms(th, ga, a2, b2, y2, w, f2, c.index, len(c.A), c.A, c.B, M)
        g[M:] -= reg_sum * ga
        H[M:, M:] += reg_sum
        step = _fit._solve(H, g, M)
        th, ga = th + step[:M], ga + step[M:]
        th -= th.mean()
        if np.abs(step).max() < 1e-12:
            break
    return float(ga[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--large", type=int, default=1_000_000)
    args = ap.parse_args()
    rms = population_rms()
    g = np.random.default_rng(2024)
    t = time.perf_counter()
    df = board(args.large, g, rms)
    r = rt.arena(df, style=True, rng=0, n_resamples=500)
    st = r.style
    print(f"large board, {args.large:,} battles: gamma-hat {st.gamma[0]:.4f} [{st.ci_low[0]:.4f}, {st.ci_high[0]:.4f}]"
          f", |gamma-hat - 0.25| = {abs(st.gamma[0] - GAMMA):.4f} (goal <= 0.01); {time.perf_counter() - t:.1f} s")
    sub = df.iloc[:200_000]
    print(f"arena-rank's default ridge (reg = 1 on the mean loss) on the first 200,000 battles: gamma "
          f"{ridge_gamma(sub, float(len(sub))):.4f}; unpenalised {ridge_gamma(sub, 0.0):.4f}")
    cover, ranks_cover, t = 0, 0, time.perf_counter()
    true_rank = 1 + (THETA[None, :] > THETA[:, None]).sum(axis=1)
    for i in range(args.reps):
        rr = rt.arena(board(20_000, g, rms), style=True, rng=i, n_resamples=500)
        cover += int(rr.style.ci_low[0] <= GAMMA <= rr.style.ci_high[0])
        idx = [rr.models.index(m) for m in NAMES]
        ranks_cover += int(np.all((rr.rank_low[idx] <= true_rank) & (true_rank <= rr.rank_high[idx])))
    R = args.reps
    print(f"coverage over {R} boards of 20,000 battles: gamma interval {cover / R:.3f} (goal >= 0.93; MC SE "
          f"{np.sqrt(0.95 * 0.05 / R):.3f}); simultaneous rank sets {ranks_cover / R:.3f}; "
          f"{time.perf_counter() - t:.0f} s")


if __name__ == "__main__":
    main()
