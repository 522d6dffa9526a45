"""The final look of the best set (ranktrust.sequential._final): a fixed-n test at the last item that holds back
``final_look`` of alpha (off by default), only when every model is scored to the end (no elimination), scope
population, with a declared benchmark size. Its test is the Maurer-Pontil empirical-Bernstein bound with
Bonferroni over the rivals: valid in finite samples for scores in [0, 1], and a rival with zero variance never
means "reject" (the audit's W1)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import ranktrust as rt
from ranktrust.sequential import Watch
from ranktrust.sequential._engine import EngineConfig, run_engine
from ranktrust.sequential._final import FINAL_LOOK, eb_lower_bound, final_look_rejects
from test_sequential_watch import ALPHA, _draw, _not_above


def _cp_high(k: int, n: int) -> float:
    """One-sided 95% Clopper-Pearson upper bound."""
    return 1.0 if k == n else float(stats.beta.ppf(0.95, k + 1, n - k))


def test_final_look_is_off_by_default_and_only_without_elimination_with_a_declared_size():
    assert FINAL_LOOK == 0.0
    rng = np.random.default_rng(0)
    X = _draw(rng, [0.6, 0.5, 0.5], 200, "binary")
    n = X.shape[1]
    assert run_engine(X, EngineConfig(pairs=False, eliminate=False, horizon=n)).final_look == 0.0
    on = run_engine(X, EngineConfig(pairs=False, eliminate=False, horizon=n, final_look=0.4))
    assert on.final_look == 0.4
    for cfg in (EngineConfig(pairs=False, eliminate=True, horizon=n),          # elimination: rivals lack scores at N
                EngineConfig(pairs=False, eliminate=False, horizon=None),       # no declared size
                EngineConfig(pairs=False, eliminate=False, horizon=n, population_size=n),   # scope benchmark
                EngineConfig(pairs=False, eliminate=False, horizon=n, target="top", k=2),
                EngineConfig(pairs=False, eliminate=False, horizon=n, best_method="pairs")):
        e = run_engine(X, EngineConfig(**{**cfg.__dict__, "final_look": 0.4}))
        off = run_engine(X, EngineConfig(**{**cfg.__dict__, "final_look": 0.0}))
        assert e.final_look == 0.0 and e.final_look_excluded == 0
        assert np.array_equal(e.excluded_at, off.excluded_at)    # where it is off, nothing changes
    # a source still growing (fewer items than declared) never takes the look
    part = run_engine(X[:, : n - 1], EngineConfig(pairs=False, eliminate=False, horizon=n, final_look=0.4))
    assert part.final_look_excluded == 0


def test_eb_lower_bound_is_maurer_pontil():
    """Theorem 4 of Maurer & Pontil (2009), written out: mean - sqrt(2 V log(2/d) / n) - 7 log(2/d) / (3 (n - 1))."""
    rng = np.random.default_rng(1)
    z = rng.random(50)
    d = 0.01
    want = z.mean() - np.sqrt(2 * z.var(ddof=1) * np.log(2 / d) / 50) - 7 * np.log(2 / d) / (3 * 49)
    np.testing.assert_allclose(eb_lower_bound(z.mean(), z.var(ddof=1), 50, d), want, rtol=1e-12)  # same formula


def test_a_zero_variance_rival_never_means_reject():
    """A rival that scores 1 everywhere against a model at 0.9 everywhere: the old max-t test gave Z = +inf."""
    X = np.vstack([np.full(30, 0.9), np.ones(30)])
    assert not final_look_rejects(X, np.array([0]), 0.02).any()
    # with enough items the same gap is certain, and it does reject
    X = np.vstack([np.full(400, 0.5), np.ones(400)])
    assert final_look_rejects(X, np.array([0]), 0.02).all()
    assert not final_look_rejects(np.vstack([X[0], X[0]]), np.arange(2), 0.02).any()   # identical models


@pytest.mark.slow
def test_audit_w1_constant_rival_holds_its_level():
    """The audit's W1 (stat-repro-2026-12/w8_final_look_api.py): five models with mean 0.9, one of them 0.9 on
    every item, 30 items, final look on, no elimination; M0 (a best model) is excluded at most alpha of the time
    (was 0.15 at alpha 0.05)."""
    R, K, N = 400, 5, 30
    rng = np.random.default_rng(8)
    items = [f"q{i}" for i in range(N)]
    models = [f"M{k}" for k in range(K)]
    bad = 0
    for _ in range(R):
        X = (rng.random((K, N)) < 0.9).astype(float)
        X[0] = 0.9
        w = Watch(models, items, eliminate=False, confidence_level=0.95, final_look=0.4)
        w.update_matrix(rt.ScoreMatrix.from_array(X, models=models, items=items))
        bad += "M0" not in w.status(next_budget=0).best_set
    assert _cp_high(bad, R) <= 0.05 or _not_above(bad, R, 0.05), bad / R


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["binary", "continuous"])
@pytest.mark.parametrize("mus,n", [([0.6] * 5, 300), ([0.6] * 5, 30), ([0.9] * 3, 100)])
def test_final_look_error_at_every_stopping_time(kind, mus, n):
    """Every model tied: with the final look on (f = 0.4, no elimination, declared n), each best model is
    excluded at some stopping time at most alpha of the time (exclusion is permanent)."""
    rng = np.random.default_rng(len(mus) * 1000 + n + (kind == "binary"))
    best = np.flatnonzero(np.asarray(mus) == max(mus))
    cfg = EngineConfig(alpha=ALPHA, pairs=False, eliminate=False, horizon=n, final_look=0.4)
    reps = 300
    err = np.zeros(len(best), dtype=int)
    for _ in range(reps):
        e = run_engine(_draw(rng, mus, n, kind), cfg)
        err += e.excluded_at[best] > 0
    assert all(_not_above(k, reps) for k in err), err / reps


def test_final_look_share_is_validated(capsys):
    from conftest import run_cli

    models, items = ["a", "b"], ["q1", "q2"]
    for bad, exc in ((1.0, ValueError), (-0.1, ValueError), ("0.4", TypeError), (True, TypeError)):
        with pytest.raises(exc, match="`final_look` must be in \\[0, 1\\), got .* \\(a share of alpha\\)"):
            Watch(models=models, items=items, final_look=bad)
    code, out, err = run_cli(capsys, "watch", "x.csv", "--final-look", "1.5")
    assert code != 0 and "--final-look" in err
