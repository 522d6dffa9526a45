"""Length probe: does the judge prefer longer answers beyond what the model pair (and the people) explain?

``length`` (battles or swapped games with the two answers' lengths). Per battle ``x = log2((len_a + 1) /
(len_b + 1))`` (one unit: the first-named answer twice as long) and ``y`` the judge's score of the first-named
model (a win 1, a tie 1/2, a loss 0; for swapped games the mean over the two orders, so position bias cancels),
or, with reference verdicts on the same battles, ``y`` = the judge's score minus the reference's. ``slope`` is
the least-squares slope of ``y`` on ``x`` *within each model pair* (a fixed effect per unordered pair, the rows
oriented to the pair's first model): points of score per doubling of the length ratio. A better model that
writes longer answers moves the pair's intercept, not the slope, so it is not counted as bias.

The scale is the score's (a linear probability model), not a logit: with a reference, "unbiased" means the
judge's verdict has, battle by battle, the reference's expected score, and then ``E[y | x] = 0`` and the slope is
exactly 0 however noisy either rater is (two logistic slopes would differ for a noisier rater with no bias).
The variance is cluster-robust (CR1, clusters = ``question_id`` where the table has one, else battles; the
factor ``G/(G-1) (N-1)/(N-K)`` with ``K`` the pairs + 1, statsmodels' OLS ``cov_type="cluster"``), t with
``G - 1`` df. The interval is two-sided; the test one-sided, H0 ``slope <= 0`` (a judge that favours shorter
answers shows in the interval but is not flagged, as ``self_preference``).

Without a reference the slope is the judge's own length effect within a pair: a real link between length and
quality inside a pair (a model's longer answers being its better ones) is counted too. Read it as "the judge's
verdicts follow length" and give reference verdicts to separate the two.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
from scipy import stats as _st

from ..errors import DataError

__all__ = ["LENGTH_COLUMNS", "length_probe", "within_pair_slope", "answer_lengths"]

#: (first, second) length columns looked for, in this order
LENGTH_COLUMNS = (("length_a", "length_b"), ("length_1", "length_2"),
                  ("sum_assistant_a_tokens", "sum_assistant_b_tokens"))

_ANSWER = {k: re.compile(rf"\[The Start of Assistant {k}'s Answer\]\n?(.*?)\n?\[The End of Assistant {k}'s Answer\]",
                         re.S) for k in "AB"}
_CONV = {k: re.compile(rf"<\|The Start of Assistant {k}'s Conversation with User\|>(.*?)"
                       rf"<\|The End of Assistant {k}'s Conversation with User\|>", re.S) for k in "AB"}


def answer_lengths(prompts: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Characters of assistant A's and B's answers in FastChat pairwise judge prompts (``g1_user_prompt``: A is
    ``model_1``); None when a prompt has neither an answer nor a conversation block for both."""
    la, lb = [], []
    for p in prompts:
        p = "" if p is None else str(p)
        got = []
        for k in "AB":
            m = _ANSWER[k].search(p) or _CONV[k].search(p)
            if m is None:
                return None
            got.append(len(m.group(1)))
        la.append(got[0])
        lb.append(got[1])
    return np.asarray(la, dtype=float), np.asarray(lb, dtype=float)


def find_lengths(table: Any,
                 pairs: tuple[tuple[str, str], ...] = LENGTH_COLUMNS) -> tuple[np.ndarray, np.ndarray] | None:
    """The first pair of length columns the table has, as floats; or the lengths of the answers in FastChat's
    ``g1_user_prompt``; None when neither is there."""
    for a, b in pairs:
        try:
            return np.asarray(table[a], dtype=float), np.asarray(table[b], dtype=float)
        except (KeyError, IndexError, TypeError):
            continue
        except ValueError:
            raise DataError(f"length columns {a!r} and {b!r} must be numbers", param="battles") from None
    try:
        prompts = table["g1_user_prompt"]
    except (KeyError, IndexError, TypeError):
        return None
    return answer_lengths(prompts)


def within_pair_slope(y: np.ndarray, x: np.ndarray, pair: np.ndarray, cluster: np.ndarray) -> dict[str, float]:
    """Slope of ``y`` on ``x`` with a fixed effect per ``pair``, its CR1 cluster-robust SE and df ``G - 1``."""
    y, x = np.asarray(y, dtype=float), np.asarray(x, dtype=float)
    _, pc = np.unique(pair, return_inverse=True)
    P = int(pc.max()) + 1
    cnt = np.bincount(pc, minlength=P).astype(float)
    xt = x - (np.bincount(pc, weights=x, minlength=P) / cnt)[pc]
    yt = y - (np.bincount(pc, weights=y, minlength=P) / cnt)[pc]
    sxx = float(np.sum(xt * xt))
    N = y.size
    if sxx <= 1e-12 * max(N, 1):
        raise DataError("the length difference does not vary within any model pair: no length effect can be "
                        "estimated", param="battles")
    beta = float(np.sum(xt * yt) / sxx)
    e = yt - beta * xt
    _, cc = np.unique(cluster, return_inverse=True)
    s = np.bincount(cc, weights=xt * e)
    G, K = s.size, P + 1
    if G < 2 or N <= K:
        raise DataError("too few battles or clusters for the length probe", param="battles")
    var = G / (G - 1) * (N - 1) / (N - K) * float(np.sum(s * s)) / sxx ** 2
    return {"slope": beta, "se": math.sqrt(var), "df": float(G - 1), "n": N, "n_pairs": P, "n_clusters": G}


def _oriented(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unordered pair code per row and +1 where ``a`` is the pair's first model (in sorted order), else -1."""
    _, c = np.unique(np.concatenate([np.asarray(a).astype(str), np.asarray(b).astype(str)]), return_inverse=True)
    ca, cb = c[: len(a)], c[len(a):]
    K = int(c.max()) + 1 if c.size else 1
    return np.minimum(ca, cb) * K + np.maximum(ca, cb), np.where(ca <= cb, 1.0, -1.0)


def length_probe(a: np.ndarray, b: np.ndarray, la: np.ndarray, lb: np.ndarray, sj: np.ndarray,
                 sr: np.ndarray | None, cluster: np.ndarray | None, level: float) -> dict:
    """The ``length`` record from the first- and second-named models, their answers' lengths, the judge's score
    of the first-named model and (optionally) the reference's, and optional cluster labels."""
    la, lb = np.asarray(la, dtype=float), np.asarray(lb, dtype=float)
    ok = ~np.isnan(sj) & ~np.isnan(la) & ~np.isnan(lb)
    if sr is not None:
        ok &= ~np.isnan(sr)
    if np.any((la[ok] < 0) | (lb[ok] < 0)):
        raise DataError("an answer length is negative", param="battles")
    key, sign = _oriented(a[ok], b[ok])
    x = sign * np.log2((la[ok] + 1) / (lb[ok] + 1))
    cl = np.arange(int(ok.sum())) if cluster is None else np.asarray(cluster[ok]).astype(str)

    def fit(score: np.ndarray, centred: bool) -> dict[str, float]:
        # orient: the pair's first model's score (a difference of scores flips sign, a score s becomes 1 - s)
        y = np.where(sign > 0, score, -score if centred else 1 - score)
        return within_pair_slope(y, x, key, cl)

    judge = fit(sj[ok], False)
    if sr is None:
        f = judge
    else:
        f = fit(sj[ok] - sr[ok], True)
    t = f["slope"] / f["se"] if f["se"] > 0 else (math.inf if f["slope"] > 0 else 0.0)
    p = float(_st.t.sf(t, f["df"]))
    tq = float(_st.t.ppf(0.5 + level / 2, f["df"]))
    out = {"slope": f["slope"], "ci_low": f["slope"] - tq * f["se"], "ci_high": f["slope"] + tq * f["se"],
           "p_value": p, "flagged": bool(p < 1 - level), "versus": "reference" if sr is not None else "none",
           "n_battles": int(f["n"]), "n_pairs": int(f["n_pairs"]), "n_clusters": int(f["n_clusters"]),
           "judge_slope": judge["slope"], "twice_as_long": float(np.mean(np.abs(x) >= 1))}
    if sr is not None:
        out["reference_slope"] = fit(sr[ok], False)["slope"]
    return out
