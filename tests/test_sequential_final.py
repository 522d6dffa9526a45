"""The final look of the best set (ranktrust.sequential._final): a fixed-n test at the last item that holds
back FINAL_LOOK of alpha, only when every model is scored to the end (no elimination), scope population, with
a known benchmark size. Error at every stopping time, where it is off, and what it buys."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import ranktrust as rt
from conftest import shared_file
from ranktrust.sequential import Watch
from ranktrust.sequential._engine import EngineConfig, run_engine
from ranktrust.sequential._final import FINAL_LOOK, final_look_rejects
from test_sequential_watch import ALPHA, _draw, _not_above

def _close_pair(n: int = 300, plus: int = 170, seed: int = 0) -> np.ndarray:
    """#1 beats #2 by a paired z of about 2.3 on n items (no bet can separate them: the hindsight-best constant
    bet grows to about e^2.7), four far weaker models; continuous scores in [0, 1], items in a seeded order."""
    g = np.random.default_rng(seed)
    u = g.uniform(0.3, 0.7, n)
    d = np.where(np.arange(n) < plus, 0.2, -0.2)
    X = np.vstack([u, u - d] + [0.05 + 0.1 * g.uniform(0, 1, n) for _ in range(4)])
    return X[:, g.permutation(n)]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["binary", "continuous"])
@pytest.mark.parametrize("mus,n", [([0.6] * 5, 300), ([0.6, 0.59, 0.59, 0.59, 0.59], 150),
                                   ([0.6, 0.595] + [0.56] * 6, 300)])
def test_final_look_error_at_every_stopping_time(kind, mus, n):
    """Every model tied, or the best a hair ahead: with the final look on (no elimination, horizon n), each best
    model is excluded at some stopping time at most alpha of the time (exclusion is permanent, so "excluded at
    the end" is "excluded at some time": a user who peeks after every item). With ties each tied model is a best
    model and each one's guarantee holds on its own (the set's promise is per best model, as in
    test_sequential_watch.py)."""
    rng = np.random.default_rng(len(mus) * 1000 + n + (kind == "binary"))
    best = np.flatnonzero(np.asarray(mus) == max(mus))
    cfg = EngineConfig(alpha=ALPHA, pairs=False, eliminate=False, horizon=n)
    reps, looks = 300, 0
    err = np.zeros(len(best), dtype=int)
    for _ in range(reps):
        e = run_engine(_draw(rng, mus, n, kind), cfg)
        assert e.final_look == FINAL_LOOK
        err += e.excluded_at[best] > 0
        looks += e.final_look_excluded
    assert all(_not_above(k, reps) for k in err), err / reps
    assert looks > 0          # the final look did exclude models in these runs (it is not idle)


def test_final_look_only_without_elimination_at_scope_population_with_a_horizon():
    X = _close_pair()
    n = X.shape[1]
    on = run_engine(X, EngineConfig(pairs=False, eliminate=False, horizon=n))
    assert on.final_look == FINAL_LOOK
    for cfg in (EngineConfig(pairs=False, eliminate=True, horizon=n),          # elimination: rivals lack scores at N
                EngineConfig(pairs=False, eliminate=False, horizon=None),       # no known end
                EngineConfig(pairs=False, eliminate=False, horizon=n, population_size=n),   # scope benchmark
                EngineConfig(pairs=False, eliminate=False, horizon=n, target="top", k=2),
                EngineConfig(pairs=False, eliminate=False, horizon=n, best_method="pairs")):
        e = run_engine(X, cfg)
        assert e.final_look == 0.0 and e.final_look_excluded == 0
        off = run_engine(X, EngineConfig(**{**cfg.__dict__, "final_look": 0.0}))
        assert np.array_equal(e.excluded_at, off.excluded_at)    # where it is off, nothing changes
    # stopping before the last item: no final look
    part = run_engine(X[:, : n - 1], EngineConfig(pairs=False, eliminate=False, horizon=n))
    assert part.final_look_excluded == 0


def test_final_look_separates_a_pair_no_bet_can():
    """z = 2.3 between #1 and #2: the bets rarely certify it (with elimination the set keeps both in most item
    orders: 17 of these 20), the fixed-n test at the last item always does when every model is scored to the end."""
    kept_both = 0
    for seed in range(20):
        X = _close_pair(seed=seed)
        n = X.shape[1]
        elim = run_engine(X, EngineConfig(pairs=False, horizon=n))
        kept_both += set(np.flatnonzero(elim.excluded_at == 0)) == {0, 1}
        full = run_engine(X, EngineConfig(pairs=False, eliminate=False, horizon=n))
        assert set(np.flatnonzero(full.excluded_at == 0)) == {0}
        assert full.excluded_at[1] > 0
    assert kept_both >= 15


def test_final_look_test_is_berger_boos_with_the_sample_leader_not_privileged():
    """phi_j only pays for rivals that could beat j: with one close rival the critical value is about the
    one-rival t quantile; #1 is never rejected by a rival it beats."""
    X = _close_pair()
    n = X.shape[1]
    level = FINAL_LOOK * 0.05
    rej = final_look_rejects(X, np.arange(6), level)
    assert rej.tolist() == [False, True, True, True, True, True]
    d = X[0] - X[1]
    z = d.mean() / (d.std(ddof=1) / np.sqrt(n))
    assert stats.t.isf(level * (1 - 0.04), n - 1) < z                      # the single-rival critical value
    assert not final_look_rejects(X[:2] * 0 + X[:1], np.arange(2), level).any()   # identical models: no rejection


def test_watch_without_elimination_reports_the_final_look():
    X = _close_pair()
    models = [f"m{k}" for k in range(6)]
    items = [f"i{k}" for k in range(X.shape[1])]
    m = rt.ScoreMatrix.from_array(X, models=models, items=items)
    w = Watch(models=models, items=items, target="best", confidence_level=0.95, eliminate=False).update_matrix(m)
    st = w.status()
    assert st.best_set == ("m0",) and st.done
    assert {"model": "m1", "at_item": X.shape[1]} in st.excluded      # excluded by the final look, at N
    w2 = Watch(models=models, items=items, target="best", confidence_level=0.95).update_matrix(m)
    assert set(w2.status().best_set) == {"m0", "m1"}


def test_arena_hard_best_set_at_the_last_item():
    """The matrix behind issue 15's missed figure: 15 judge-scored models, 271 prompts; fixed-n Holm keeps only
    #1. With elimination the anytime set keeps #1 and #2 (no bet separates them); every model scored to the
    end, the final look excludes #2."""
    m = rt.read(str(shared_file("arenabench_v1_judge_scores.csv.gz")), align="intersect", scale=10)
    m = m.select(items=np.flatnonzero(~np.isnan(m.scores).any(axis=0)))
    g = np.random.default_rng(1)
    for _ in range(5):
        X = m.scores[:, g.permutation(m.n_items)]
        assert (run_engine(X, EngineConfig(alpha=0.05, pairs=False, horizon=m.n_items)).excluded_at == 0).sum() == 2
        e = run_engine(X, EngineConfig(alpha=0.05, pairs=False, horizon=m.n_items, eliminate=False))
        assert (e.excluded_at == 0).sum() == 1 and e.final_look_excluded == 1


def test_final_look_share_is_a_parameter(tmp_path, capsys):
    """final_look= on Watch and watch_replay, --final-look on the command line: 0 puts all of alpha on the bets
    (the close pair then stays together); a share outside [0, 1) is refused in one line."""
    import json

    from conftest import run_cli
    from ranktrust.sequential import watch_replay

    X = _close_pair()
    models = [f"m{k}" for k in range(6)]
    items = [f"i{k}" for k in range(X.shape[1])]
    m = rt.ScoreMatrix.from_array(X, models=models, items=items)
    off = Watch(models=models, items=items, eliminate=False, final_look=0.0).update_matrix(m).status()
    assert set(off.best_set) == {"m0", "m1"}
    for bad, exc in ((1.0, ValueError), (-0.1, ValueError), ("0.4", TypeError), (True, TypeError)):
        with pytest.raises(exc, match="`final_look` must be in \\[0, 1\\), got .* \\(a share of alpha\\)"):
            Watch(models=models, items=items, final_look=bad)
    r0 = watch_replay(m, 20, rng=0, eliminate=False, final_look=0.0)
    r4 = watch_replay(m, 20, rng=0, eliminate=False)
    assert np.all(r4.items_needed == X.shape[1])            # certified at the last item, in every order
    assert np.isnan(r0.items_needed).mean() >= 0.75           # the bets alone: rarely (1 of these 20 orders)
    path = tmp_path / "close.csv"
    rows = [{"model": a, "item": i, "score": float(X[k, j])} for k, a in enumerate(models) for j, i in enumerate(items)]
    import pandas as pd

    pd.DataFrame(rows).to_csv(path, index=False)
    for flags, want in ((["--no-eliminate"], ["m0"]), (["--no-eliminate", "--final-look", "0"], ["m0", "m1"])):
        code, out, err = run_cli(capsys, "watch", str(path), *flags, "--format", "json")
        assert code == 0, err
        assert sorted(json.loads(out)["best_set"]) == want
    code, out, err = run_cli(capsys, "watch", str(path), "--no-eliminate", "--final-look", "1")
    assert code == 1 and "--final-look" in err and len(err.strip().splitlines()) == 1
