"""rt.arena at the edges of its promises (issue 30 §2): one prompt-id default for a DataFrame and a path, the
small-cluster correction (CR2-type meat, t references per contrast) for a model seen on few prompts, the note
on battles taken as independent, the star design's win-rate interval near 1, degenerate boards, the adjusted
p-values (never below the marginal one; no draws for one pair; the draws' floor said as a bound), per-item
tables and absurd weights. Reference values (a dense re-implementation with pandas and an exact CR2 by
matrix square roots), hypothesis properties, and seeded coverage on a small grid (slow; the full grid is
bench/bench_arena_edges.py)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import linalg, special

import ranktrust as rt
from conftest import run_cli
from ranktrust.errors import DataError, DegenerateDataWarning
from ranktrust.preference import ELO_SCALE
from ranktrust.reporting import note_text
from ranktrust.reporting.renderers import to_string


def _board(M=5, n=3000, P=400, seed=0, new_prompts=None, n_new=40, sd_new=1.2, col="cluster"):
    """BT board among M models on P prompts (no effects), optionally plus a model 'new' tied with the top whose
    ``n_new`` battles fall on only ``new_prompts`` prompts with prompt effects of sd ``sd_new``."""
    g = np.random.default_rng(seed)
    th = np.linspace(0, 1.0, M)
    a = g.integers(0, M, n)
    b = (a + g.integers(1, M, n)) % M
    y = (g.random(n) < special.expit(th[a] - th[b])).astype(float)
    A, B = [f"m{i}" for i in a], [f"m{i}" for i in b]
    cl = [f"p{i}" for i in g.integers(0, P, n)]
    if new_prompts:
        opp = g.integers(0, M, n_new)
        pn = g.integers(0, new_prompts, n_new)
        u = g.normal(0, sd_new, new_prompts)
        yn = (g.random(n_new) < special.expit(th[-1] + u[pn] - th[opp])).astype(float)
        A += ["new"] * n_new
        B += [f"m{i}" for i in opp]
        y = np.r_[y, yn]
        cl += [f"n{i}" for i in pn]
    return pd.DataFrame({"model_a": A, "model_b": B, "score": y, col: cl})


def _theta_cov(r):
    return r.covariance / ELO_SCALE ** 2


# ------------------------------------------------------------------ 1. one prompt-id default
@pytest.mark.parametrize("col", ["question_id", "prompt_id", "uid"])
def test_a_dataframe_and_a_path_are_clustered_by_the_same_prompt_column(col, tmp_path):
    df = _board(M=4, n=1500, P=200, seed=1, col=col)
    r = rt.arena(df, n_resamples=100)
    assert r.settings["cluster_by"] == col and r.settings["n_clusters"] == df[col].nunique()
    path = tmp_path / "b.csv"
    df.to_csv(path, index=False)
    rp = rt.arena(path, n_resamples=100)
    assert rp.settings["cluster_by"] == col
    np.testing.assert_allclose(rp.covariance, r.covariance, rtol=1e-9)
    assert not [n for n in r.notes if n.code == "arena_per_battle"]


# ------------------------------------------------------------------ 2. the small-cluster correction
def _dense_reference(df, correction):
    """The sandwich written out with dense design rows and pandas groupby: scores X_i r_i, CR2-type scale per
    battle from the per-(cluster, model) information, clusters summed, H^+ on both sides."""
    r_models = sorted(set(df.model_a) | set(df.model_b))
    M = len(r_models)
    ia = df.model_a.map(r_models.index).to_numpy()
    ib = df.model_b.map(r_models.index).to_numpy()
    X = np.zeros((len(df), M))
    X[np.arange(len(df)), ia] += 1
    X[np.arange(len(df)), ib] -= 1
    return X, ia, ib, r_models


def test_cr2_sandwich_equals_its_formula_written_out_with_pandas():
    df = _board(M=4, n=1200, P=150, seed=2, new_prompts=5)
    r = rt.arena(df, n_resamples=100)
    X, ia, ib, models = _dense_reference(df, "cr2")
    th = (r.rating - 1000) / ELO_SCALE
    p = special.expit(X @ th)
    q = p * (1 - p)
    H = (X * q[:, None]).T @ X
    Hp = np.linalg.pinv(H)
    long = pd.DataFrame({"cl": np.r_[df.cluster, df.cluster], "m": np.r_[ia, ib], "q": np.r_[q, q]})
    v = long.groupby(["cl", "m"]).q.sum()
    h = np.maximum(np.diag(Hp), 1 / np.diag(H))
    lev = v * h[v.index.get_level_values("m")]
    la = lev.loc[list(zip(df.cluster, ia))].to_numpy()
    lb = lev.loc[list(zip(df.cluster, ib))].to_numpy()
    s = 1 / np.sqrt(1 - np.minimum(np.maximum(la, lb), 0.99))
    S = pd.DataFrame(X * ((df.score.to_numpy() - p) * s)[:, None]).groupby(df.cluster.to_numpy()).sum().to_numpy()
    V = Hp @ (S.T @ S) @ Hp
    np.testing.assert_allclose(_theta_cov(r), V, rtol=1e-7, atol=1e-12)
    # the t reference: Kish's effective number of clusters per model, minus 1
    eff = v.groupby(level="m").sum() ** 2 / (v ** 2).groupby(level="m").sum()
    k = models.index("new")
    assert r.settings["min_df"] == pytest.approx(eff.iloc[k] - 1, rel=1e-9)


def _exact_cr2(df, th):
    """Bell & McCaffrey's CR2 for the logit fit: each cluster's Pearson residuals times (I - H_gg)^(-1/2)."""
    X, ia, ib, models = _dense_reference(df, "cr2")
    p = special.expit(X @ th)
    wq = np.sqrt(p * (1 - p))
    Xt = X * wq[:, None]
    Hp = np.linalg.pinv(Xt.T @ Xt)
    e = (df.score.to_numpy() - p) / wq
    meat = np.zeros((len(models), len(models)))
    for _, idx in df.groupby("cluster").indices.items():
        Xg = Xt[idx]
        A = linalg.sqrtm(np.linalg.inv(np.eye(len(idx)) - Xg @ Hp @ Xg.T)).real
        s = Xg.T @ (A @ e[idx])
        meat += np.outer(s, s)
    return Hp @ meat @ Hp, models


def test_cr2_type_correction_is_close_to_exact_cr2_where_it_matters():
    """A model on 6 prompts among 1,500 battles: the variance of its contrasts is within 5% of Bell & McCaffrey's
    exact CR2 (matrix square roots per cluster), while CR1 is more than 5% below it."""
    df = _board(M=4, n=1500, P=300, seed=3, new_prompts=6, n_new=40)
    r = rt.arena(df, n_resamples=100)
    r1 = rt.arena(df, n_resamples=100, cluster_correction="cr1")
    th = (r.rating - 1000) / ELO_SCALE
    Vx, models = _exact_cr2(df, th)
    k = models.index("new")
    others = [j for j in range(len(models)) if j != k]

    def contrast(V):
        return np.array([V[k, k] + V[j, j] - 2 * V[k, j] for j in others])

    exact = contrast(Vx)
    np.testing.assert_allclose(contrast(_theta_cov(r)), exact, rtol=0.05)
    assert (contrast(_theta_cov(r1)) < 0.95 * exact).all()


def test_a_model_on_few_prompts_gets_a_t_reference_and_a_note():
    df = _board(M=5, n=4000, P=600, seed=4, new_prompts=6, n_new=40)
    r = rt.arena(df, n_resamples=300)
    r1 = rt.arena(df, n_resamples=300, cluster_correction="cr1")
    k = r.models.index("new")
    w2 = r.ci_high[k] - r.ci_low[k]
    w1 = r1.ci_high[k] - r1.ci_low[k]
    assert w2 > 1.2 * w1     # t with about 4 df against the normal, and the bias-reduced meat
    note = next(n for n in r.notes if n.code == "arena_few_clusters_model")
    assert note.data["models"] == ["new"] and note.data["clusters"] == [6]
    text = note_text(note)
    assert "'new' (6 prompts)" in text and "t reference" in text
    assert "small-cluster correction (CR2-type; t references, the fewest degrees of freedom" in " ".join(
        to_string(r, "text", kind="arena").split())
    # each pair's marginal interval and p use the same t: p = 0.05 exactly where the interval touches 0
    pairs = r.to_dict()["pairs"]
    for p in pairs:
        if p["a"] == "new" or p["b"] == "new":
            assert (p["ci_low"] > 0) == (p["p_value"] < 0.05)


# ------------------------------------------------------------------ 3. no prompt ids
def test_battles_without_prompt_ids_are_said_to_be_taken_as_independent_in_every_format(tmp_path, capsys):
    df = _board(M=4, n=600, seed=5).drop(columns="cluster")
    df["judge_run"] = np.arange(len(df))
    rep = pd.concat([df, df.iloc[:100]], ignore_index=True)     # 100 rows copied exactly
    r = rt.arena(rep, n_resamples=100)
    note = next(n for n in r.notes if n.code == "arena_per_battle")
    assert note.data == {"asked": False, "duplicates": 100, "battles": 700}
    path = tmp_path / "rep.csv"
    rep.to_csv(path, index=False)
    for fmt in ("text", "md", "json", "html"):
        code, out, err = run_cli(capsys, "arena", str(path), "--n-resamples", "100", "-f", fmt)
        assert code == 0, err
        flat = " ".join(out.split())
        assert "each battle is taken as independent" in flat, fmt
        assert "100 of the 700 rows repeat an earlier row in every column" in flat, fmt
    # asked for: said in the option's words
    r = rt.arena(_board(M=4, n=600, seed=5), cluster_by=None, n_resamples=100)
    assert note_text(next(n for n in r.notes if n.code == "arena_per_battle")).startswith(
        "`cluster_by`=None: each battle is taken as independent")


# ------------------------------------------------------------------ 4. the star design's win rate near 1
def _star(g, s, Q=100):
    rows = []
    u = g.normal(0, 1, Q)
    q = [f"q{i}" for i in range(Q)]
    for game in range(2):
        z = s + u + g.logistic(0, 1, Q)
        y = np.select([z > .3, z > -.3], [1.0, 0.5], 0.0)
        w = np.where(np.abs(z) > 2, 3.0, 1.0)
        if game == 0:
            rows.append(pd.DataFrame({"model_a": "x", "model_b": "base", "score": y, "weight": w, "cluster": q}))
        else:
            rows.append(pd.DataFrame({"model_a": "base", "model_b": "x", "score": 1 - y, "weight": w, "cluster": q}))
    z = 0.3 + u + g.logistic(0, 1, Q)
    rows.append(pd.DataFrame({"model_a": "y", "model_b": "base", "score": np.select([z > .3, z > -.3], [1.0, .5], 0.0),
                              "weight": 1.0, "cluster": q}))
    return pd.concat(rows, ignore_index=True)


def test_the_star_win_rate_interval_is_inside_0_1_and_asymmetric_near_1():
    df = _star(np.random.default_rng(6), 4.0)
    r = rt.arena(df, baseline="base", n_resamples=100)
    k = r.models.index("x")
    assert 0 < r.win_rate_ci_low[k] < r.win_rate[k] < r.win_rate_ci_high[k] < 1
    assert r.win_rate[k] - r.win_rate_ci_low[k] > 2 * (r.win_rate_ci_high[k] - r.win_rate[k])


def _bench():
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "bench" / "bench_arena_edges.py"
    spec = importlib.util.spec_from_file_location("bench_arena_edges", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_arena_edges"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_star_win_rate_covers_near_1():
    """The audit's cell (a4_star_winrate.py: 100 questions x 2 games, strong verdicts weight 3, question effects;
    true weighted win rate 0.977, where the clipped delta method covered 0.870): 80 boards; at 0.95 the chance
    of 9 or more misses (coverage below 0.90) is 0.02."""
    bench = _bench()
    g = np.random.default_rng(7)
    truth = bench._truth(3.5, np.random.default_rng(8), 400_000)
    assert 0.97 < truth < 0.985
    hits = n = 0
    for i in range(80):
        try:
            r = rt.arena(bench.star_board({"x": 3.5, "mid": 0.5}, g), baseline="base", n_resamples=50, rng=i)
        except DataError:        # x won every game: refused, not a wrong interval
            continue
        k = r.models.index("x")
        hits += r.win_rate_ci_low[k] <= truth <= r.win_rate_ci_high[k]
        n += 1
    assert n >= 75 and n - hits <= 8, (hits, n)


# ------------------------------------------------------------------ 5. degenerate boards
def test_all_ties_are_refused():
    df = pd.DataFrame({"model_a": ["x", "y", "x"] * 10, "model_b": ["y", "z", "z"] * 10, "winner": "tie"})
    with pytest.raises(DataError, match="every one of the 30 battles is a tie"):
        rt.arena(df)


def test_a_model_in_one_cluster_gets_no_interval_and_no_claims():
    df = _board(M=4, n=2000, P=300, seed=9, new_prompts=1, n_new=30)
    with pytest.warns(DegenerateDataWarning, match="'new' is not estimable"):
        r = rt.arena(df, n_resamples=100)
    k = r.models.index("new")
    assert np.isnan(r.se[k]) and np.isnan(r.ci_low[k]) and np.isnan(r.ci_high[k])
    inv = (r.pair_a == k) | (r.pair_b == k)
    assert not r.separated[inv].any() and np.isnan(r.p_value[inv]).all()
    assert r.rank_low[k] == 1 and r.rank_high[k] == 4 + 1
    note = next(n for n in r.notes if n.code == "arena_not_estimable")
    assert note.data["models"] == ["new"]
    assert "n/a" in to_string(r, "text", kind="arena")
    json.dumps(r.to_dict(), allow_nan=False)  # NaN is written as null


# ------------------------------------------------------------------ 6. adjusted p-values
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), M=st.integers(3, 6), n_resamples=st.integers(10, 300))
def test_adjusted_p_is_never_below_the_marginal_p(seed, M, n_resamples):
    r = rt.arena(_board(M=M, n=300 * M, P=200, seed=seed), n_resamples=n_resamples, rng=seed)
    assert (r.p_adjusted >= r.p_value).all()
    assert ((r.p_adjusted < 0.05) == r.separated).all()


def test_one_pair_has_no_draws_and_adjusted_equals_marginal():
    df = _board(M=2, n=400, P=100, seed=10)
    a = rt.arena(df, rng=0)
    b = rt.arena(df, rng=1, n_resamples=50)
    assert a.p_adjusted[0] == a.p_value[0] == b.p_adjusted[0]
    assert a.settings["p_adjusted_floor"] is None


def test_the_floor_of_the_draws_is_printed_as_a_bound():
    g = np.random.default_rng(11)
    n = 3000
    a = g.integers(0, 3, n)
    b = (a + g.integers(1, 3, n)) % 3
    th = np.array([3.0, 0.0, -3.0])
    df = pd.DataFrame({"model_a": [f"m{i}" for i in a], "model_b": [f"m{i}" for i in b],
                       "score": (g.random(n) < special.expit(th[a] - th[b])).astype(float),
                       "cluster": g.integers(0, 500, n).astype(str)})
    r = rt.arena(df, n_resamples=2000)
    assert r.settings["p_adjusted_floor"] == pytest.approx(1 / 2001)
    d = r.to_dict()
    assert d["pairs"][0]["p_adjusted"] == pytest.approx(1 / 2001) and d["pairs"][0]["p_value"] < 1e-4
    text = to_string(r, "text", kind="arena")
    assert "<0.0005" in text and " 0.0005 " not in text
    assert "adjusted p < 0.0005" in d["headline"]["text"] if "headline" in d and "text" in d["headline"] else True
    md = to_string(r, "md", kind="arena")
    assert "| <0.0005 |" in md and "adjusted p &lt; 0.0005" in md


# ------------------------------------------------------------------ 7. per-item tables, absurd weights
def test_a_per_item_table_is_named_as_such(tmp_path, capsys):
    per_item = pd.DataFrame({"model": ["a", "b"] * 3, "item": ["i1", "i1", "i2", "i2", "i3", "i3"],
                             "score": [7, 8, 6, 9, 5, 7]})
    with pytest.raises(DataError, match=r"this is a per-item score table .* not battles.*`rt.report`"):
        rt.arena(per_item)
    path = tmp_path / "scores.csv"
    per_item.to_csv(path, index=False)
    code, out, err = run_cli(capsys, "arena", str(path))
    assert code == 1 and "per-item score table" in err and "`ranktrust report`" in err
    # in a folder beside battles: left out with a skipped note
    _board(M=3, n=300, seed=12).to_csv(tmp_path / "battles.csv", index=False)
    r = rt.arena(tmp_path, n_resamples=50)
    skipped = [n for n in r.notes if n.code == "battles_skipped"]
    assert skipped and "per-item score table" in note_text(skipped[0])


@pytest.mark.parametrize("weight, match", [(1e300, "too large to compute with"), (1e13, "more than 1e12 times")])
def test_absurd_weights_are_refused_by_row(weight, match, tmp_path):
    df = _board(M=3, n=300, seed=13)
    df["weight"] = 1.0
    df.loc[7, "weight"] = weight
    with pytest.raises(DataError, match=f"row 8: weight .*{match}"):
        rt.arena(df)
    path = tmp_path / "w.csv"
    df.to_csv(path, index=False)
    with pytest.raises(DataError, match=f"line 9: weight .*{match}"):
        rt.arena(path)


# ------------------------------------------------------------------ seeded coverage (small grid)
@pytest.mark.slow
def test_a_model_on_few_prompts_keeps_simultaneous_coverage():
    """6 models (the top two tied) on 1,500 battles + a new model tied with the top whose 40 battles fall on 4
    prompts with effects sd 1.5: 40 boards. The default keeps rank-set coverage (at most 4 misses: 5 or more
    has probability 0.048 at 0.95); CR1 misses more on the same boards (the audit's failure: 100 boards of this
    cell gave 8 misses against the default's 1)."""
    g = np.random.default_rng(14)
    th = np.r_[0.0, 0.0, -0.3, -0.6, -0.9, -1.2, 0.0]
    names = [f"m{i}" for i in range(6)] + ["new"]
    miss = {"cr2": 0, "cr1": 0}
    n, P = 1500, 4
    for i in range(40):
        a = g.integers(0, 6, n)
        b = (a + g.integers(1, 6, n)) % 6
        y = (g.random(n) < special.expit(th[a] - th[b])).astype(float)
        opp = g.integers(0, 6, 40)
        pn = g.integers(0, P, 40)
        u = g.normal(0, 1.5, P)
        yn = (g.random(40) < special.expit(u[pn] - th[opp])).astype(float)
        df = pd.DataFrame({"model_a": [names[k] for k in a] + ["new"] * 40,
                           "model_b": [names[k] for k in b] + [names[k] for k in opp],
                           "score": np.r_[y, yn], "cluster": [f"p{k}" for k in range(n)] + [f"n{k}" for k in pn]})
        tt = np.array([th[names.index(m)] for m in sorted(names)])
        better = (tt[:, None] > tt[None, :]).sum(0)
        worse = (tt[:, None] < tt[None, :]).sum(0)
        for corr in miss:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = rt.arena(df, n_resamples=300, rng=i, cluster_correction=corr)
            miss[corr] += not bool(np.all((r.rank_low <= 1 + better) & (r.rank_high >= 7 - worse)))
    assert miss["cr2"] <= 4, miss
    assert miss["cr1"] >= miss["cr2"] + 2, miss


def test_the_command_line_chooses_the_correction_and_says_it_in_its_flag(tmp_path, capsys):
    df = _board(M=4, n=1500, P=200, seed=4, new_prompts=6)
    path = tmp_path / "b.csv"
    df.to_csv(path, index=False)
    code, out, err = run_cli(capsys, "arena", str(path), "--n-resamples", "100", "--cluster-correction", "cr1",
                             "-f", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["settings"]["cluster_correction"] == "cr1" and d["settings"]["min_df"] is None
    (note,) = [n for n in d["notes"] if n["code"] == "arena_few_clusters_model"]
    assert note["text"].endswith("(no small-cluster correction: --cluster-correction cr2 gives one)")
