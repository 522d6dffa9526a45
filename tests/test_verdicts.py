"""One source of truth: tiers, rank ranges, "could be #1", the pair table and the headline agree.

Issue 11 (verdicts). Every verdict of ``rt.report`` comes from the paired tests of all pairs
(``rank_sets(method="pairs")``); these tests check the promised invariants on random matrices
(complete and with missing cells, 0/1 and continuous), the joint coverage and family-wise error
by seeded simulation, the statistics audit's reproducers (D1, D5, D9, D10) and the new user's
findings (H2, H3, M1, M2, M3, M9, L1) on the shared data.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.special import ndtri

import ranktrust as rt
from ranktrust.ranking._ranksets import layers, rank_sets
from ranktrust.reporting._headline import report_dict

FAST = dict(stability=False, quality=False)


def check_consistent(rep) -> None:
    """The invariants of issue 11, item 1, on one report."""
    d = report_dict(rep)
    alpha = 1 - d["settings"]["confidence_level"]
    rows = d["models"]
    tier_of = {r["model"]: r["tier"] for r in rows}
    # tiers are monotone in the displayed order (contiguous blocks)
    tiers = [r["tier"] for r in rows]
    assert tiers == sorted(tiers), tiers
    # each displayed rank lies inside that model's rank range
    for r in rows:
        assert r["rank_low"] <= r["rank"] <= r["rank_high"], r
    # no two models in one tier differ significantly (after the stated correction), and every
    # significant pair is ordered the way the rows are
    pos = {r["model"]: r["rank"] for r in rows}
    pt = rep.pairs_all
    names = pt.models
    for a, b, diff, padj in zip(pt.i, pt.j, pt.diff, pt.p_adjusted):
        if np.isfinite(padj) and padj < alpha and diff != 0:
            hi, lo = (names[a], names[b]) if diff > 0 else (names[b], names[a])
            assert tier_of[hi] < tier_of[lo], (hi, lo, padj)
            assert pos[hi] < pos[lo]
    # tier 1 is exactly the models that could be #1
    cbf = set(d["rank_sets"]["could_be_first"])
    assert cbf == {r["model"] for r in rows if r["tier"] == 1}
    assert cbf == {r["model"] for r in rows if r["rank_low"] == 1}
    # the adjacent pairs shown are the display order's neighbours, with the all-pairs p-values
    if d["pairs_scope"] == "adjacent":
        shown = [(p["a"], p["b"]) for p in d["pairs"]]
        assert shown == [(x["model"], y["model"]) for x, y in zip(rows, rows[1:])]
    check_headline(d)


def check_headline(d: dict) -> None:
    """The headline's words agree with its numbers."""
    h = d["headline"]
    text = h["text"]
    rows = d["models"]
    assert h["top"] == rows[0]["model"]
    if len(rows) < 2:
        return
    assert h["runner_up"] == rows[1]["model"]
    one = rows[0]["rank_low"] == 1 and rows[0]["rank_high"] == 1
    assert text.startswith("Yes:") == (one and not h["condition_flips"]) == bool(h["separable"])
    assert "redrawn" not in text and "stay #1" not in text   # D1: the resampling figure is not the verdict
    cbf = d["rank_sets"]["could_be_first"]
    mm = re.search(r"No: (\d+) models could be #1", text)
    if mm:
        assert int(mm.group(1)) == len(cbf) > 1
    if text.startswith("Yes:"):
        top = rows[0]["model"]
        others = [p for p in d["pairs"] if top in (p["a"], p["b"])]
        for p in others:
            assert p["p_adjusted"] < 1 - d["settings"]["confidence_level"]
    if h.get("p_adjusted") is not None:
        from ranktrust.reporting._fmt import p_clause

        assert p_clause(h["p_adjusted"], "adjusted p") in text


def _random_matrix(seed: int, missing: bool, binary: bool) -> rt.ScoreMatrix:
    r = np.random.default_rng(seed)
    m = int(r.integers(2, 9))
    n = int(r.integers(8, 300))
    ability = r.normal(0, 0.6, m)
    if r.random() < 0.3:
        ability[:] = ability[0]                   # ties
    b = r.normal(0, 1.2, n)
    p = 1 / (1 + np.exp(-(ability[:, None] - b)))
    s = (r.random((m, n)) < p).astype(float) if binary else np.clip(p + r.normal(0, 0.1, p.shape), 0, 1)
    if missing:
        mask = r.random((m, n)) < r.uniform(0, 0.3)
        mask[:, 0] = False                        # every model keeps at least one item
        s[mask] = np.nan
    return rt.ScoreMatrix.from_array(s)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans(), st.booleans(), st.sampled_from(["holm", "bonferroni"]))
def test_report_never_contradicts_itself(seed, missing, binary, adjust):
    m = _random_matrix(seed, missing, binary)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = rt.report(m, adjust=adjust, **FAST)
    check_consistent(rep)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_layers_invariants(seed):
    """For any acyclic 'found better' relation: tier 1 = nobody above, tiers contiguous in the
    order, no 'better' pair inside a tier, each position inside [1 + #above, M - #below]."""
    r = np.random.default_rng(seed)
    m = int(r.integers(1, 12))
    perm = r.permutation(m)
    better = np.zeros((m, m), bool)
    for x in range(m):
        for y in range(x + 1, m):
            if r.random() < 0.4:
                better[perm[x], perm[y]] = True   # acyclic: only "earlier in perm" beats "later"
    tier, order, acyclic = layers(better, r.random(m))
    assert acyclic
    pos = np.empty(m, int)
    pos[order] = np.arange(1, m + 1)
    assert np.all(np.diff(tier[order]) >= 0)
    assert not np.any(better & (tier[:, None] == tier[None, :]))
    assert np.all(1 + better.sum(0) <= pos) and np.all(pos <= m - better.sum(1))
    assert set(np.flatnonzero(tier == 1)) == set(np.flatnonzero(better.sum(0) == 0))


# --------------------------------------------------------------------------- coverage and error rates

@pytest.mark.slow
@pytest.mark.parametrize("n_models, n_items", [(5, 30), (5, 50), (10, 100)])
def test_pairs_rank_sets_joint_coverage_when_models_tie(n_models, n_items):
    """D5: all models equal (the least favourable case), 30-100 items. The joint coverage of
    the default rank sets (every true rank is 1, so: no pair is ordered) is at least 95%
    (one-sided binomial test); it is also the family-wise error of the tiers (more than one
    tier = a false separation)."""
    r = np.random.default_rng(n_models * 1000 + n_items)
    reps = 400
    hit = np.zeros(reps, bool)
    for k in range(reps):
        s = (r.random((n_models, n_items)) < 0.6).astype(float)
        hit[k] = np.all(rank_sets(s).simultaneous_low == 1)
    assert stats.binomtest(int(hit.sum()), reps, 0.95, alternative="less").pvalue > 0.01, hit.mean()


@pytest.mark.slow
def test_studentized_bootstrap_restores_coverage_at_small_n():
    """D5 for ``method="bootstrap"``: the audit measured 0.90-0.91 for 5 equal models at 30-50 items
    with the plain bootstrap; the studentized (bootstrap-t) sets cover about 95%."""
    r = np.random.default_rng(1)
    reps = 300
    hit = np.zeros(reps, bool)
    for k in range(reps):
        s = (r.random((5, 50)) < 0.6).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rank_sets(s, method="bootstrap", n_resamples=500, rng=k)
        assert res.studentized
        hit[k] = np.all(res.simultaneous_low == 1)
    # nominal within Monte Carlo error (two-sided: not the 0.90 of the plain bootstrap)
    assert stats.binomtest(int(hit.sum()), reps, 0.95).pvalue > 0.005, hit.mean()


@pytest.mark.slow
def test_pairs_rank_sets_cover_with_distinct_models_and_missing_cells():
    """Joint coverage >= 95% with distinct, correlated models and 20% missing cells (pairwise)."""
    ability = np.array([0.8, 0.6, 0.5, 0.45, 0.2])
    big = np.random.default_rng(5).normal(0, 1.2, 200_000)
    acc = (1 / (1 + np.exp(-(ability[:, None] - big)))).mean(1)
    true_rank = 1 + (acc[None, :] > acc[:, None]).sum(1)
    r = np.random.default_rng(8)
    reps = 300
    hit = np.zeros(reps, bool)
    for k in range(reps):
        b = r.normal(0, 1.2, 300)
        s = (r.random((5, 300)) < 1 / (1 + np.exp(-(ability[:, None] - b)))).astype(float)
        s[r.random(s.shape) < 0.2] = np.nan
        res = rank_sets(rt.ScoreMatrix.from_array(s))
        hit[k] = np.all((res.simultaneous_low <= true_rank) & (true_rank <= res.simultaneous_high))
    assert stats.binomtest(int(hit.sum()), reps, 0.95, alternative="less").pvalue > 0.01, hit.mean()


# --------------------------------------------------------------------------- the audit's reproducers

def _chain(seed: int = 7) -> rt.ScoreMatrix:
    rng = np.random.default_rng(seed)
    p = np.linspace(0.60, 0.50, 11)
    n = 2000
    lat = np.sqrt(.5) * rng.standard_normal(n) + np.sqrt(.5) * rng.standard_normal((11, n))
    return rt.ScoreMatrix.from_array((lat < ndtri(p)[:, None]).astype(float))


def test_audit_d9_tiers_do_not_chain():
    """D9: 11 models 1 point apart. Adjacent tiers put the best and worst (10 points apart,
    p = 2e-15) in one tier; the default tiers never hold a separated pair."""
    m = _chain()
    rep = rt.report(m, **FAST)
    check_consistent(rep)
    t = {r["model"]: r["tier"] for r in rep.to_dict()["models"]}
    assert t["model_0"] < t["model_10"]
    assert rt.compare(m, "model_0", "model_10").p_value < 1e-10
    # the adjacent tiers are still there on request, and labelled as non-transitive
    adj_rep = rt.report(m, tiers="adjacent", **FAST)
    adj = report_dict(adj_rep)
    assert adj["tiers"]["method"] == "adjacent"
    assert any("not transitive" in n["text"] and n["code"] == "tiers_adjacent" for n in adj["notes"])
    # D16: the leaderboard's tier column says which tiers it holds, in every format
    from ranktrust.reporting.renderers import to_string

    for fmt in ("text", "md", "html"):
        assert "tier (adjacent)" in to_string(adj_rep, fmt)
        assert "tier (adjacent)" not in to_string(rep, fmt)
    assert "not transitive" in to_string(adj_rep, "html")


def test_audit_d1_headline_does_not_state_the_resampling_figure():
    """D1: for two truly tied models the bootstrap 'stays #1' averages 0.75; the headline no longer
    carries it, and the stability section says what it is."""
    rng = np.random.default_rng(9)
    p = np.array([0.70, 0.70, 0.60])
    lat = np.sqrt(.5) * rng.standard_normal(2000) + np.sqrt(.5) * rng.standard_normal((3, 2000))
    m = rt.ScoreMatrix.from_array((lat < ndtri(p)[:, None]).astype(float))
    rep = rt.report(m, stability_n_resamples=200, quality=False)
    d = report_dict(rep)
    assert "stay" not in d["headline"]["text"] and "p_top_stays_top" not in d["headline"]
    from ranktrust.reporting._fmt import stability_title
    from ranktrust.reporting.renderers._report import report_markdown

    assert "Optimistic for close races" in stability_title(d["stability"])
    assert "Optimistic for close races" in report_markdown(d)


def test_audit_d4_cli_ci_and_p_agree(tmp_path):
    """D4 in the report: the pair CI and the exact test agree (b = 5, c = 0, n = 100: p = 0.0625 and
    a CI that contains 0)."""
    a = np.zeros(100)
    b = np.zeros(100)
    a[:60] = 1
    b[:55] = 1
    m = rt.ScoreMatrix.from_array(np.stack([a, b]), models=["A", "B"])
    d = report_dict(rt.report(m, **FAST))
    p = d["pairs"][0]
    assert p["p_value"] == pytest.approx(0.0625)
    assert p["ci_low"] <= 0 <= p["ci_high"]
    assert d["headline"]["text"].startswith("No:")


# --------------------------------------------------------------------------- same seed, same figure

def test_same_seed_same_stability_figure_across_commands(swebench):
    """L1: `report`, `stability`, `stability --sizes 500` and `report --sizes full` print one figure."""
    n = swebench.n_items
    rep = rt.report(swebench, stability_n_resamples=300, sizes=[30, 100, "full"], rng=0, quality=False).stability
    rep2 = rt.report(swebench, stability_n_resamples=300, sizes=[n], rng=0, quality=False).stability
    a = rt.stability(swebench, sizes=["full"], n_resamples=300, rng=0)
    b = rt.stability(swebench, sizes=[100, n], n_resamples=300, rng=0)
    vals = {float(rep.p_top_stays_top[-1]), float(rep2.p_top_stays_top[-1]), float(a.p_top_stays_top[-1]),
            float(b.p_top_stays_top[-1])}
    assert len(vals) == 1, vals
    assert rep.p_top_stays_top[1] == b.p_top_stays_top[0]     # n = 100 whatever else is asked


def test_qa_m2_report_sizes_at_or_above_n(swebench):
    """M2: `report --sizes 500` (= N) and 1000 (> N) give the full-size row instead of an error."""
    d = rt.report(swebench, stability_n_resamples=100, sizes=[500], quality=False).to_dict()
    assert [r["n"] for r in d["stability"]["by_size"]] == [swebench.n_items]
    d = rt.report(swebench, stability_n_resamples=100, sizes=[30, 1000], quality=False).to_dict()
    assert [r["n"] for r in d["stability"]["by_size"]] == [30, swebench.n_items]


# --------------------------------------------------------------------------- the shared data

def test_qa_h3_mmlupro_pairwise_demo_is_consistent(mmlupro_path):
    """H2/H3 on the demo: rows follow the rank ranges, tiers hold no separated pair."""
    m = rt.read(mmlupro_path, align="pairwise")
    rep = rt.report(m, **FAST)
    check_consistent(rep)
    d = rep.to_dict()
    row = {r["model"]: r for r in d["models"]}
    # DeepSeek-Coder-V2 (63.63 on its 10,351 items) trails Llama-3.1-70B-Instruct on the items both
    # scored, and gemini-flash is found better than DeepSeek but not than Llama-70B-Instruct
    assert row["Meta-Llama-3_1-70B-Instruct"]["rank"] < row["DeepSeek-Coder-V2"]["rank"]
    assert row["gemini-1.5-flash-002"]["tier"] == row["Meta-Llama-3_1-70B-Instruct"]["tier"]


@pytest.mark.parametrize("align", ["pairwise", "intersect"])
def test_qa_h2_m3_m9_alpacaeval_each_alignment(alpaca_path, align):
    """H2 (53-model chained tier), M3 (self-contradicting headline), M9 (non-monotone tiers)."""
    m = rt.read(alpaca_path, align=align)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = rt.report(m, **FAST)
    check_consistent(rep)
    d = report_dict(rep)
    assert "the paired test separates it" not in d["headline"]["text"]
    biggest = max(len(t["models"]) for t in d["tiers"]["tiers"])
    assert biggest < 53


def test_pairwise_with_no_item_shared_by_all(tmp_path):
    """Issue 16: `--align pairwise` works when no item is shared by every model but every pair
    shares items (SWE-bench subsets); stability is skipped with a note."""
    s = np.full((3, 60), np.nan)
    r = np.random.default_rng(0)
    s[0, :40] = r.random(40) < 0.8
    s[1, 20:60] = r.random(40) < 0.5
    s[2, list(range(0, 20)) + list(range(40, 60))] = r.random(40) < 0.2
    m = rt.ScoreMatrix.from_array(s)
    rep = rt.report(m, quality=False)
    check_consistent(rep)
    d = report_dict(rep)
    assert d["stability"] is None
    assert any("no item is scored by every model" in n["text"] for n in d["notes"])
    assert {"code": "no_shared_items", "data": {}} in [{k: n[k] for k in ("code", "data")} for n in rep.to_dict()["notes"]]
