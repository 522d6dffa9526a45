"""Sequential leaderboard (ranktrust.sequential): family-wise error at every stopping time, scope benchmark,
the null construction on real data, idempotent re-reading, next(), unresolvable pairs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ranktrust as rt
from ranktrust.errors import DataError
from ranktrust.sequential import Watch, watch_replay
from ranktrust.sequential._engine import EngineConfig, run_engine

ALPHA = 0.1


def _not_above(errors: int, reps: int, alpha: float = ALPHA) -> bool:
    """The error count is consistent with a rate <= alpha (one-sided binomial test)."""
    return stats.binomtest(int(errors), reps, alpha, alternative="greater").pvalue > 0.01


def _draw(rng, mus, n, kind):
    mus = np.asarray(mus)
    if kind == "binary":
        # correlated 0/1 scores: a shared item difficulty, as on real benchmarks
        z = rng.normal(size=n)[None, :]
        p = stats.norm.cdf(stats.norm.ppf(mus)[:, None] * 1.4 + 0.8 * z)
        return (rng.random((len(mus), n)) < p).astype(float)
    return rng.beta(4 * mus[:, None], 4 * (1 - mus[:, None]), (len(mus), n))


def _fwer(rng, mus, n, reps, data, **cfg):
    # exclusion is permanent, so "the best is excluded at the end" == "excluded at some stopping time":
    # this is the error of a user who peeks after every item and stops whenever they like
    c = EngineConfig(alpha=ALPHA, pairs=False, **cfg)
    err = 0
    for _ in range(reps):
        X = _draw(rng, mus, n, data)
        best = np.argmax(X.mean(axis=1)) if c.population_size else int(np.argmax(mus))
        err += run_engine(X, c).excluded_at[best] > 0
    return err


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["binary", "continuous"])
@pytest.mark.parametrize("eliminate", [True, False])
@pytest.mark.parametrize("horizon", [None, 800])
def test_best_set_fwer_every_stopping_time(kind, eliminate, horizon):
    # near-null: the best leads four rivals by half a point, so wrong exclusions are as likely as they get;
    # with a horizon the bets are a mixture of adaptive and end-tuned bets (still one test supermartingale)
    rng = np.random.default_rng(10 + eliminate + (horizon or 0))
    mus = [0.60, 0.595, 0.595, 0.595, 0.595]
    reps = 150
    err = _fwer(rng, mus, 800, reps, kind, eliminate=eliminate, horizon=horizon)
    assert _not_above(err, reps), err / reps


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["binary", "continuous"])
def test_best_set_fwer_short_horizon_ramped_bets(kind):
    # a short benchmark: the end-tuned bets ramp up to their largest (clipped) size at the last items, where a
    # near-null best is most at risk
    rng = np.random.default_rng(31 if kind == "binary" else 32)
    reps = 300
    err = _fwer(rng, [0.6, 0.59, 0.59, 0.59, 0.59], 150, reps, kind, horizon=150)
    assert _not_above(err, reps), err / reps


@pytest.mark.slow
@pytest.mark.parametrize("method", ["eb", "betting"])
def test_best_set_fwer_pairs_method_and_prpl(method):
    rng = np.random.default_rng(4)
    reps = 150
    err = _fwer(rng, [0.6, 0.6 - 1e-9, 0.58, 0.5], 800, reps, "binary", kind=method, rule="prpl",
                best_method="pairs")
    assert _not_above(err, reps), err / reps


@pytest.mark.slow
def test_top_k_set_fwer_every_stopping_time():
    # a true top-2 model must never leave the certified top-2 set
    rng = np.random.default_rng(12)
    mus = np.array([0.62, 0.61, 0.605, 0.6, 0.5])
    c = EngineConfig(alpha=ALPHA, target="top", k=2, horizon=800)
    reps, err = 150, 0
    for _ in range(reps):
        e = run_engine(_draw(rng, mus, 800, "binary"), c)
        err += (e.excluded_at[:2] > 0).any()
    assert _not_above(err, reps), err / reps


@pytest.mark.slow
@pytest.mark.parametrize("kind, eliminate", [("binary", False), ("continuous", False), ("binary", True)])
def test_rank_sets_simultaneous_error(kind, eliminate):
    # every decided pair must be right, at every time: the simultaneous rank sets cover all true ranks
    rng = np.random.default_rng(8 if kind == "binary" else 9)
    mus = np.array([0.62, 0.61, 0.6, 0.59])
    c = EngineConfig(alpha=ALPHA, target="ranks", eliminate=eliminate, horizon=1000)
    reps, err = 120, 0
    for _ in range(reps):
        e = run_engine(_draw(rng, mus, 1000, kind), c)
        wrong = ((e.up_at > 0) & (mus[e.pair_i] < mus[e.pair_j])) | ((e.dn_at > 0) & (mus[e.pair_i] > mus[e.pair_j]))
        err += wrong.any()
    assert _not_above(err, reps), err / reps


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["binary", "continuous"])
def test_rank_sets_error_with_ties_once_clear_pairs_lower_the_eholm_threshold(kind):
    # e-Holm lowers the rank family's threshold as pairs are decided: two clear pairs go first, then the tied
    # pair (both directions true nulls) faces the lowest threshold the closed test allows; it must still be
    # decided (wrongly) at most alpha of the time, at any time
    rng = np.random.default_rng(21 if kind == "binary" else 22)
    mus = np.array([0.8, 0.5, 0.5])
    c = EngineConfig(alpha=ALPHA, target="ranks", eliminate=False, horizon=600)
    reps, err = 300, 0
    for _ in range(reps):
        X = _draw(rng, mus, 600, kind)
        X[2] = np.where(rng.random(600) < 0.5, X[1], X[2])   # an exact tie in the population, correlated pair
        e = run_engine(X, c)
        assert (e.up_at[:2] > 0).all()                       # the clear pairs are decided
        err += bool(e.up_at[2] > 0 or e.dn_at[2] > 0)
    assert _not_above(err, reps), err / reps


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["binary", "continuous"])
def test_scope_benchmark_agrees_with_full_data_at_every_time_and_is_exact_at_the_end(kind):
    rng = np.random.default_rng(21)
    mus = [0.6, 0.595, 0.59, 0.55]
    reps, n = 150, 600
    err = _fwer(rng, mus, n, reps, kind, population_size=n, horizon=n)
    assert _not_above(err, reps), err / reps
    # at the last item every pair is decided by its exact benchmark difference
    X = _draw(rng, mus, n, kind)
    e = run_engine(X, EngineConfig(alpha=ALPHA, population_size=n, target="ranks", eliminate=False))
    d = X.mean(axis=1)[e.pair_i] - X.mean(axis=1)[e.pair_j]
    assert ((e.up_at > 0) == (d > 1e-12)).all() and ((e.dn_at > 0) == (d < -1e-12)).all()


@pytest.fixture(scope="module")
def mmlupro():
    from ranktrust import datasets

    return rt.read(datasets.path("mmlupro"), align="intersect")


@pytest.mark.slow
def test_null_construction_on_real_data_keeps_both(mmlupro):
    # make the top two exchangeable (swap their scores on a random half of the items): the certified best set
    # must keep both at the nominal rate; the exchange is re-drawn in every replay
    S = mmlupro.scores
    o = np.argsort(-S.mean(axis=1))
    a, b = o[0], o[1]
    rng = np.random.default_rng(0)
    keep = o[:6]                                           # the top six keep the test quick
    reps, lost = 100, 0
    c = EngineConfig(alpha=ALPHA, pairs=False, horizon=3000)
    for _ in range(reps):
        X = S[keep][:, rng.permutation(S.shape[1])[:3000]].copy()
        sw = rng.random(X.shape[1]) < 0.5
        X[0, sw], X[1, sw] = X[1, sw], X[0, sw].copy()
        e = run_engine(X, c)
        lost += (e.excluded_at[:2] > 0).any()
    assert a == keep[0] and b == keep[1]
    assert _not_above(lost, reps), lost / reps


def test_replay_on_mmlupro_certifies_number_one_with_few_items(mmlupro):
    r = watch_replay(mmlupro, 20, rng=0)
    d = r.to_dict()
    assert d["decided_share"] == 1.0 and d["errors"] == 0
    assert d["full_answer"] == ["gemini-1.5-pro-002"]
    assert d["items_needed"]["median"] < 1000
    assert d["cells_share"]["median"] < 0.03
    assert r.excluded_at.shape == (20, mmlupro.n_models)


def _long(m, items=None):
    df = m.to_long()
    return df if items is None else df[df["item"].isin(items)]


def test_rereading_is_idempotent_and_pieces_equal_once(mmlupro):
    m = mmlupro.select(items=list(range(1500)))
    once = Watch(m.models, m.items, rng=3).update_matrix(m).status().to_dict()
    w = Watch(m.models, m.items, rng=3)
    df = m.to_long()
    for part in np.array_split(np.random.default_rng(0).permutation(len(df)), 4):
        w.update_many(df.iloc[part])
        w.update_matrix(m.select(items=list(range(200))))     # re-reading what is already there changes nothing
    again = w.status().to_dict()
    assert again == once
    assert once["done"] and once["best_set"] == ["gemini-1.5-pro-002"]


def test_conflicting_result_and_unknown_names_refused():
    w = Watch(["A", "B"], ["q1", "q2"])
    w.update("A", "q1", 1.0)
    w.update("A", "q1", 1.0)
    with pytest.raises(DataError, match="already has score 1, and now 0"):
        w.update("A", "q1", 0.0)
    with pytest.raises(DataError, match="unknown model 'C'"):
        w.update("C", "q1", 1.0)
    with pytest.raises(DataError, match="is not one of the 2 items"):
        w.update("A", "q9", 1.0)
    with pytest.raises(DataError, match="outside the score range"):
        w.update("A", "q2", 3.0)


@pytest.mark.parametrize("kw, match", [
    ({"target": "first"}, "`target` must be 'best', 'topK'"),
    ({"confidence_level": 95}, "`confidence_level` must be in the open interval"),
    ({"scope": "sample"}, "`scope` must be one of 'population', 'benchmark'"),
    ({"method": "hoeffding"}, "`method` must be one of 'betting', 'eb'"),
    ({"target": "top2"}, "needs more than 2 models"),
])
def test_watch_validation(kw, match):
    with pytest.raises(ValueError, match=match):
        Watch(["A", "B"], ["q1"], **kw)
    with pytest.raises(ValueError, match="needs an analysis order fixed before the data"):
        Watch(["A", "B"])
    with pytest.raises(ValueError, match="needs the benchmark's size declared"):
        Watch(["A", "B"], order="arrival", scope="benchmark")


def test_runs_are_averaged_into_the_item_score():
    import pandas as pd

    w = Watch(["A", "B"], ["q1"])
    w.update_many(pd.DataFrame({"model": ["A", "A", "B", "B"], "item": "q1", "score": [1.0, 0.0, 0.0, 0.0],
                                "run": ["0", "1", "0", "1"]}))
    s = w.status()
    assert s.items_seen == 1 and s.scores[0] == pytest.approx(0.5) and s.scores[1] == 0.0
    # the item is analysed now: a later run cannot revise it (append-only), n_runs makes it wait instead
    with pytest.raises(DataError, match="was already analysed with 2 run\\(s\\); run '2' cannot revise it"):
        w.update("A", "q1", 1.0, run="2")


def test_next_proposes_only_models_in_play_and_nothing_when_done():
    rng = np.random.default_rng(0)
    items = [f"q{i}" for i in range(4000)]
    models = ["strong", "mid", "weak"]
    w = Watch(models, items, rng=1)
    first = w.next(6)
    assert len(first) == 6 and {m for m, _ in first} == set(models)
    assert len({i for _, i in first}) == 2                 # item-major: both items for all three models
    p = {"strong": 0.9, "mid": 0.6, "weak": 0.1}
    for _ in range(200):
        cells = w.next(30)
        if not cells:
            break
        w.update_many([(m, i, float(rng.random() < p[m])) for m, i in cells])
    st = w.status()
    assert st.done and st.best_set == ("strong",)
    assert w.next(10) == []
    ex = {e["model"]: e["at_item"] for e in st.excluded}
    assert ex["weak"] < ex["mid"]
    # cells used: the weak model stopped early
    assert st.cells_scored < 3 * st.items_seen


def test_identical_models_are_unresolvable_near_the_end():
    rng = np.random.default_rng(2)
    n = 400
    x = (rng.random(n) < 0.6).astype(float)
    y = np.where(rng.random(n) < 0.1, 1 - x, x)
    items = [f"q{i}" for i in range(n)]
    w = Watch(["A", "B"], items)
    w.update_many(pd.DataFrame({"model": ["A"] * n + ["B"] * n, "item": items * 2, "score": np.r_[x, y]}))
    st = w.status()
    assert st.items_seen == n and not st.best_set == ()
    if len(st.best_set) == 2:
        assert st.unresolvable_pairs == [["A", "B"]] and st.done


def test_topk_and_ranks_targets_run(mmlupro):
    m = mmlupro.select(items=list(range(2000)))
    st = Watch(m.models, m.items, target="top2").update_matrix(m).status()
    assert "gemini-1.5-pro-002" in st.best_set and len(st.best_set) >= 2
    rk = Watch(m.models[:6], m.items, target="ranks", eliminate=False).update_matrix(
        m.select(models=list(m.models[:6]))).status()
    assert (rk.rank_low <= rk.rank_high).all()
    assert len(rk.decided) + len(rk.open_pairs) == 15


def test_replay_with_item_groups_as_the_unit(mmlupro):
    r = watch_replay(mmlupro, 5, rng=0, cluster=True)
    d = r.to_dict()
    assert d["unit"] == "cluster" and d["n_items"] == len(set(mmlupro.groups))
    # 14 subjects are far too few to certify anything, and nothing wrong is certified
    assert d["errors"] == 0
    with pytest.raises(DataError, match="needs item groups"):
        watch_replay(mmlupro._replace(groups=None), 2, cluster=True)


def _grouped(rng, G=150, per=4, p=(0.85, 0.6, 0.5)):
    items = [f"q{i}" for i in range(G * per)]
    groups = [f"g{i // per}" for i in range(G * per)]
    # a shared group effect: items of a group are correlated, as subjects/passages are
    eff = np.repeat(rng.normal(0, 0.8, G), per)
    X = np.array([(rng.random(G * per) < stats.norm.cdf(stats.norm.ppf(q) + eff)).astype(float) for q in p])
    return items, groups, X


def test_live_watch_with_item_groups_as_the_unit():
    rng = np.random.default_rng(4)
    items, groups, X = _grouped(rng)
    models = ["A", "B", "C"]
    w = Watch(models, items, cluster=True, groups=groups, rng=2)
    first = w.next(12)
    # a whole group first: its 4 items for all three models
    assert len(first) == 12 and len({groups[items.index(i)] for _, i in first}) == 1
    order = w.item_order()
    assert len({groups[items.index(i)] for i in order[:4]}) == 1
    # a group with one item missing is not analysed yet
    df = pd.DataFrame({"model": np.repeat(models, len(items)), "item": items * 3, "score": X.ravel()})
    g0 = [i for _, i in first[:: 3]]
    w.update_many(df[df["item"].isin(g0[:3])])
    assert w.status().items_seen == 0
    w.update_many(df)
    st = w.status()
    assert st.unit == "cluster" and st.items_total == 150 and st.to_dict()["unit"] == "cluster"
    # the same as the engine over the group means, in the Watch's group order
    G = np.array(groups)
    uniq = sorted(set(groups))
    Xg = np.stack([X[:, G == g].mean(axis=1) for g in uniq], axis=1)
    gorder = [uniq.index(groups[items.index(i)]) for i in order[::4]]
    e = run_engine(Xg[:, gorder], EngineConfig(alpha=0.05, horizon=150, stop_when_done=True))
    assert st.items_seen == e.t and st.best_set == tuple(models[i] for i in np.flatnonzero(e.excluded_at == 0))
    # cells count items: 4 per group per model in play
    assert st.cells_scored == 4 * e.cells
    # pieces equal once (idempotent), and a mapping gives the same as a sequence
    w2 = Watch(models, items, cluster=True, groups=dict(zip(items, groups)), rng=2)
    for part in np.array_split(rng.permutation(len(df)), 3):
        w2.update_many(df.iloc[part])
    assert w2.status().to_dict() == st.to_dict()


def test_live_watch_clusters_validation():
    with pytest.raises(DataError, match="needs item groups"):
        Watch(["A", "B"], ["q1", "q2"], cluster=True)
    with pytest.raises(ValueError, match="needs `items`"):
        Watch(["A", "B"], order="arrival", cluster=True, groups={"q1": "g"})
    with pytest.raises(ValueError, match="one group per item"):
        Watch(["A", "B"], ["q1", "q2"], cluster=True, groups=["g"])
    with pytest.raises(ValueError, match="no group for item 'q2'"):
        Watch(["A", "B"], ["q1", "q2"], cluster=True, groups={"q1": "g"})


def test_an_item_waits_for_all_its_runs_with_n_runs():
    w = Watch(["A", "B"], ["q1"], n_runs=2)
    w.update_many([("A", "q1", 1.0), ("B", "q1", 0.0)], run="1")
    assert w.status().items_seen == 0                     # one run of two: not analysed yet
    w.update_many([("A", "q1", 0.0), ("B", "q1", 0.0)], run="2")
    s = w.status()
    assert s.items_seen == 1 and s.scores[0] == pytest.approx(0.5)
    with pytest.raises(DataError, match="already has all its 2 runs"):
        w.update("A", "q1", 1.0, run="3")
    w.update("A", "q1", 0.0, run="2")                     # re-reading a result already here is fine
    with pytest.raises(ValueError, match="`n_runs` must be an integer >= 1"):
        Watch(["A", "B"], ["q1"], n_runs=0)
