"""Judge audit on planted boards: each probe flags its planted defect, and a clean but noisy judge is not
flagged (issue 35). Printed per board and probe: the flag rate over the seeds ± its Monte Carlo SE, beside the
goal (planted >= 0.90, clean <= 0.05 within 2 MC SE).

Boards (one per seed, ``--runs`` seeds each):

* swapped games: 300 questions, 8 models with Bradley–Terry strengths N(0, 0.7^2), each question judged in
  both orders; verdicts drawn from the models' win probability with 20% ties, independently per game (a
  noisy judge: about 60% of questions get two consistent verdicts). ``position``: the judge instead picks the
  first slot with probability 0.15.
* battles with a reference: 4,000 battles among the same 8 models, 2 of them the judge's family; the reference
  (a person) and the judge each draw a verdict from the same win probability (the clean judge is another
  rater of the same kind: noisy, unbiased). ``self``: the judge instead picks its family's model with
  probability 0.12 when one model of the family plays (about 6 points of its score).
* battles with answer lengths: 4,000 battles, 8 models; a better model writes longer answers (mean log2
  length 9 + 0.8 strength, per answer sd 0.7), so length and quality go together between models. The
  reference draws from the win probability; the clean judge copies the reference in half the battles and
  draws its own verdict otherwise; the noisy judge always draws its own. ``length``: the judge picks the
  longer answer in 8% of the battles. ``people like length``: people and judge both add 0.3 logits per
  doubling of the length ratio (the judge follows length no more than the people: clean against the
  reference, a length effect without one).
* judged scores: 6 models x 200 items x 3 judges (or runs), score = model mean + item effect N(0, 1) + a
  judgment's noise N(0, 1) (the repeat noise: half of one judgment's variance within a model). ``judge shift``:
  the third judge scores 0.25 higher throughout. ``repeats`` is a figure (never flagged): printed is how often
  its interval covers the planted share.
* judged-score intervals (``judged_intervals``): 6 models x 100 items; 3 fixed judges with a judge x model
  effect N(0, 0.5^2), the target the mean over these judges (clustered by item; the naive interval takes each
  judgment as an item), and 20 random judges with a judge effect N(0, 1) and judge x model N(0, 0.5^2), the
  target the model's mean over the judge population (two-way; the naive interval clusters by item only).

  The random-judge interval is also run with 3, 5 and 10 judges (``judges="random"``), its median width beside.

    .venv/bin/python bench/bench_judge_audit.py [--runs 200] [--seed 0] [--only intervals]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from ranktrust.judges import judge_audit

M = 8
LABELS = np.array(["model_2", "tie", "model_1"])      # index by the first-named model's score 0, 0.5, 1


def verdicts(g, p_first, tie=0.2):
    u = g.random(p_first.shape)
    out = np.where(u < tie, 1, np.where(g.random(p_first.shape) < p_first, 2, 0))
    return out


def swapped(g, bias):
    theta = g.normal(0, 0.7, M)
    Q = 300
    a = g.integers(0, M, Q)
    b = (a + g.integers(1, M, Q)) % M
    p = 1 / (1 + np.exp(theta[b] - theta[a]))          # model_1 = a beats model_2 = b
    g1 = verdicts(g, p)                                 # a in the first slot
    g2 = verdicts(g, p)                                 # b in the first slot
    if bias:
        g1 = np.where(g.random(Q) < bias, 2, g1)        # the first slot (a) wins
        g2 = np.where(g.random(Q) < bias, 0, g2)        # the first slot (b) wins: model_2
    return {"g1_winner": LABELS[g1], "g2_winner": LABELS[g2]}


def with_reference(g, bias):
    theta = g.normal(0, 0.7, M)
    B = 4000
    a = g.integers(0, M, B)
    b = (a + g.integers(1, M, B)) % M
    p = 1 / (1 + np.exp(theta[b] - theta[a]))
    names = np.array([f"m{k}" for k in range(M)])
    lab = np.array(["model_b", "tie", "model_a"])
    ref = verdicts(g, p)
    jud = verdicts(g, p)
    if bias:
        fam_a, fam_b = a < 2, b < 2
        pick = (fam_a ^ fam_b) & (g.random(B) < bias)
        jud = np.where(pick, np.where(fam_a, 2, 0), jud)
    common = {"model_a": names[a], "model_b": names[b]}
    return {**common, "winner": lab[jud]}, {**common, "winner": lab[ref]}


def with_lengths(g, bias, taste=0.0, copy=0.5):
    """Battles with answer lengths: (judge battles, reference battles), each with length_a and length_b."""
    theta = g.normal(0, 0.7, M)
    mu = 9 + 0.8 * theta                                # a better model writes longer answers
    B = 4000
    a = g.integers(0, M, B)
    b = (a + g.integers(1, M, B)) % M
    la, lb = 2 ** (mu[a] + g.normal(0, 0.7, B)), 2 ** (mu[b] + g.normal(0, 0.7, B))
    x = np.log2(la / lb)
    p = 1 / (1 + np.exp(theta[b] - theta[a] - taste * x))
    ref = verdicts(g, p)
    jud = np.where(g.random(B) < copy, ref, verdicts(g, p))
    if bias:
        jud = np.where(g.random(B) < bias, np.where(x > 0, 2, 0), jud)
    names = np.array([f"m{k}" for k in range(M)])
    lab = np.array(["model_b", "tie", "model_a"])
    common = {"model_a": names[a], "model_b": names[b], "length_a": la, "length_b": lb}
    return {**common, "winner": lab[jud]}, {**common, "winner": lab[ref]}


def judged_scores(g, shift=0.0, models=6, items=200, judges=3):
    """Long table of judged scores (model, item, judge, score); the last judge shifted by ``shift``."""
    mu = g.normal(0, 0.5, models)
    m, i, j = (x.ravel() for x in np.meshgrid(np.arange(models), np.arange(items), np.arange(judges), indexing="ij"))
    cell = g.normal(0, 1, (models, items))
    y = mu[m] + cell[m, i] + g.normal(0, 1, m.size) + shift * (j == judges - 1)
    s2mu = np.sum(items * (mu - mu.mean()) ** 2) / (models * items - 1)
    truth = 1 / (1 + 1 + s2mu)                          # the one-way ANOVA's population share for these models
    return {"model": np.array([f"m{k}" for k in m]), "item": i, "judge": np.array([f"j{k}" for k in j]),
            "score": y}, truth


def interval_board(g, judges, random=None):
    """(long table, true score per model, naive intervals' (lo, hi)) for judged_intervals' coverage; the judges
    random (drawn anew each seed, the target the population mean) by default with 10 or more, else fixed."""
    import ranktrust as rt

    models, items = 6, 100
    mu = np.zeros(models)
    m, i, j = (x.ravel() for x in np.meshgrid(np.arange(models), np.arange(items), np.arange(judges), indexing="ij"))
    a = g.normal(0, 1, (models, items))
    random = judges >= 10 if random is None else random
    if random:                                          # random judges: the target is the population mean
        b, c = g.normal(0, 1, judges), g.normal(0, 0.5, (models, judges))
        truth = mu
    else:                                               # fixed judges: the target is the mean over these judges
        b, c = np.zeros(judges), np.random.default_rng(12345).normal(0, 0.5, (models, judges))
        truth = mu + c.mean(axis=1)
    y = mu[m] + a[m, i] + b[j] + c[m, j] + g.normal(0, 1, m.size)
    table = {"model": np.array([f"m{k}" for k in m]), "item": i, "judge": j, "score": y}
    names = [f"m{k}" for k in range(models)]
    if random:          # naive: the judges averaged per item, then an ordinary interval (clustered by item)
        per_item = y.reshape(models, items, judges).mean(axis=2)
        r = rt.intervals(rt.ScoreMatrix.from_array(per_item, models=names), method="t")
    else:               # naive: every judgment taken as an item of its own
        r = rt.intervals(rt.ScoreMatrix.from_array(y.reshape(models, items * judges), models=names), method="t")
    return table, truth, (r.ci_low, r.ci_high)


def _rate(hits, R):
    rate = hits / R
    return rate, math.sqrt(max(rate * (1 - rate), 1e-12) / R)


def main() -> None:
    from ranktrust.judges import judged_intervals

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", choices=["all", "intervals"], default="all",
                    help="intervals: only the judged_intervals coverage rows")
    a = ap.parse_args()
    R = a.runs
    t0 = time.perf_counter()
    rows = []

    def row(board, probe, hits, goal, extra=""):
        rate, se = _rate(hits, R)
        if goal.startswith("<="):
            ok = "met" if rate <= float(goal[3:]) + 2 * se else "NOT met"
        elif goal.startswith(">="):
            ok = "met" if rate >= float(goal[3:]) - 2 * se else "NOT met"
        else:
            ok = "(shown, not a goal)"
        rows.append(f"{board:<30} {probe:<22} {rate:.3f} ± {se:.3f}  goal {goal:<8} {ok:<19} {extra}")

    for board, bias, probe, goal in [] if a.only == "intervals" else [("clean games", 0.0, "position", "<= 0.05"),
                                     ("position-biased games", 0.15, "position", ">= 0.90"),
                                     ("clean battles", 0.0, "self_preference", "<= 0.05"),
                                     ("self-preferring battles", 0.12, "self_preference", ">= 0.90")]:
        flags = 0
        extra = []
        for s in range(R):
            g = np.random.default_rng([a.seed, s, int(bias * 100), len(probe)])
            if probe == "position":
                r = judge_audit(swapped(g, bias))
                extra.append(r.probes["consistency"]["rate"])
            else:
                jud, ref = with_reference(g, bias)
                r = judge_audit(battles=jud, reference=ref, family=["m0", "m1"])
                extra.append(r.probes["agreement"]["kappa"])
            flags += bool(r.probes[probe]["flagged"])
        what = "consistency" if probe == "position" else "kappa"
        row(board, probe, flags, goal, f"(mean {what} {np.mean(extra):.2f})")

    # length: against the reference, and the judge alone
    for board, bias, taste, copy, goals in [] if a.only == "intervals" else [
            ("clean battles, lengths", 0.0, 0.0, 0.5, ("<= 0.05", "<= 0.05")),
            ("length-biased judge (8%)", 0.08, 0.0, 0.5, (">= 0.90", ">= 0.90")),
            ("people like length too", 0.0, 0.3, 0.5, ("<= 0.05", "—"))]:
        hits = [0, 0]
        slopes = []
        for s in range(R):
            g = np.random.default_rng([a.seed, s, 31, int(bias * 100), int(taste * 10)])
            jud, ref = with_lengths(g, bias, taste, copy)
            r1 = judge_audit(battles=jud, reference=ref).probes["length"]
            r2 = judge_audit(battles=jud).probes["length"]
            hits[0] += r1["flagged"]
            hits[1] += r2["flagged"]
            slopes.append(r1["slope"])
        row(board, "length (vs reference)", hits[0], goals[0], f"(mean slope {100 * np.mean(slopes):+.2f} points)")
        row(board, "length (judge alone)", hits[1], goals[1])

    # repeats and judge shift
    for board, shift, goal in [] if a.only == "intervals" else [("judged scores, repeat noise", 0.0, "<= 0.05"),
                               ("a judge shifted by +0.25", 0.25, ">= 0.90")]:
        flags = cover = found = 0
        for s in range(R):
            g = np.random.default_rng([a.seed, s, 41, int(shift * 100)])
            table, truth = judged_scores(g, shift)
            r = judge_audit(scores=table)
            rep = r.probes["repeats"]
            cover += rep["ci_low"] <= truth <= rep["ci_high"]
            found += rep["ci_low"] > 0
            flags += r.probes["judge_shift"]["flagged"]
        row(board, "judge_shift", flags, goal)
        if shift == 0:
            cv, cse = _rate(cover, R)
            rows.append(f"{'':<30} {'repeats (a figure)':<22} interval covers the planted share {cv:.3f} ± {cse:.3f} "
                        f"(goal >= 0.95 - 2 MC SE); share > 0 found in {found / R:.3f}")

    # the noisy but unbiased judge: no probe flags
    noisy = {"position": 0, "self_preference": 0, "length": 0, "judge_shift": 0}
    for s in range(R if a.only == "all" else 0):
        g = np.random.default_rng([a.seed, s, 51])
        jud, ref = with_lengths(g, 0.0, 0.0, copy=0.0)
        r = judge_audit(swapped(g, 0.0), battles=jud, reference=ref, family=["m0", "m1"],
                        scores=judged_scores(g, 0.0)[0])
        for k in noisy:
            noisy[k] += r.probes[k]["flagged"]
    for k, v in noisy.items() if a.only == "all" else ():
        row("noisy but unbiased judge", k, v, "<= 0.05")

    # judge variance in the score intervals
    for J, mode in ((3, "fixed"), (20, "random"), (3, "random"), (5, "random"), (10, "random")):
        hit = naive = 0
        n = 0
        widths = []
        for s in range(R):
            default = mode == ("random" if J >= 10 else "fixed")       # the rows judged_intervals' default picks
            g = np.random.default_rng([a.seed, s, 61, J] + ([] if default else [1]))
            table, truth, (nlo, nhi) = interval_board(g, J, random=mode == "random")
            iv = judged_intervals(table, judges=mode)
            hit += int(np.sum((iv.ci_low <= truth) & (truth <= iv.ci_high)))
            naive += int(np.sum((nlo <= truth) & (truth <= nhi)))
            n += truth.size
            widths.append(np.median(iv.ci_high - iv.ci_low))
        cv, naive_rate = hit / n, naive / n
        se = math.sqrt(0.05 * 0.95 / n)
        rows.append(f"{'judged_intervals, ' + str(J) + ' judges':<30} {mode + ' (' + iv.method + ')':<22} "
                    f"coverage {cv:.3f} (goal >= {0.95 - 2 * se:.3f}: {'met' if cv >= 0.95 - 2 * se else 'NOT met'})"
                    f"  naive interval {naive_rate:.3f}  median width {np.median(widths):.2f}")
    print(f"{R} seeds a board, {time.perf_counter() - t0:.1f} s")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
