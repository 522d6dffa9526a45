"""Power: the article's tables, statsmodels reference, a simulation, data-based disagreement."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ranktrust as rt
from ranktrust.errors import DataError
from ranktrust.stats._power import estimate_disagreement, power, power_table
from ranktrust.reporting import note_text


def test_article_power_table_q027():
    # METHODS.md section 3 [A]: q = 0.27 -> 21,192 / 5,298 / 2,355 / 848 / 212 items for 1/2/3/5/10 pts
    t = power_table(0.27, binary=False)
    assert t.items_needed.tolist() == [21192, 5298, 2355, 848, 212]
    assert power(gap=0.02, disagreement=0.27, binary=False).items_needed == 5298
    assert t.to_dict()["table"][1] == {"gap": 0.02, "items_needed": 5298}


def test_article_top_pair_and_factor():
    # factor (1.96 + 0.84)^2 ~ 7.85; top pair q = 0.20, d = 1.85 pts -> about 4,600 items
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert round(z**2, 2) == 7.85
    n = power(gap=0.0185, disagreement=0.20, binary=False).items_needed
    assert n == math.ceil(z**2 * 0.20 / 0.0185**2) and round(n, -2) == 4600


@pytest.mark.parametrize("n,pts", [(200, 6), (500, 4), (2000, 2)])
def test_article_half_widths_q020(n, pts):
    r = power(items=n, disagreement=0.20, binary=False)
    assert round(r.ci_half_width * 100) == pts
    assert r.ci_half_width == pytest.approx(stats.norm.ppf(0.975) * math.sqrt(0.2 / n), rel=1e-12)
    assert r.detectable_gap > r.ci_half_width
    d = r.to_dict()
    assert {"detectable_gap", "ci_half_width", "disagreement", "alpha", "power", "items", "solved_for"} <= set(d)
    assert d["solved_for"] == "gap"


def test_equals_statsmodels_one_sample_normal_power():
    from statsmodels.stats.power import NormalIndPower

    # ratio=0 is the one-sample z test; effect size d / sqrt(q)
    for q, d in [(0.27, 0.02), (0.2, 0.05), (0.1, 0.03)]:
        nobs = NormalIndPower().solve_power(effect_size=d / math.sqrt(q), nobs1=None, alpha=0.05, power=0.8,
                                            ratio=0)
        # statsmodels counts the (negligible) far rejection tail too
        assert power(gap=d, disagreement=q, binary=False).items_needed == pytest.approx(nobs, rel=2e-3)
        r = power(items=int(round(nobs)), disagreement=q, binary=False)
        assert r.detectable_gap == pytest.approx(d, rel=2e-3)


def test_inverse_round_trip():
    r = power(gap=0.03, disagreement=0.25, alpha=0.01, power=0.9, binary=False)
    back = power(items=r.items_needed, disagreement=0.25, alpha=0.01, power=0.9, binary=False)
    assert back.detectable_gap <= 0.03 < power(items=r.items_needed - 1, disagreement=0.25, alpha=0.01,
                                                power=0.9).detectable_gap
    d = r.to_dict()
    assert d["items_needed"] == r.items_needed and d["solved_for"] == "items" and d["gap"] == 0.03


@settings(max_examples=40, deadline=None)
@given(st.floats(0.05, 0.6), st.floats(0.005, 0.05))
def test_more_items_for_smaller_gaps(q, d):
    a = power(gap=min(d, q), disagreement=q, binary=False).items_needed
    b = power(gap=min(d, q) / 2, disagreement=q, binary=False).items_needed
    assert b >= 4 * a - 4


@pytest.mark.slow
def test_simulated_power_at_items_needed():
    # simulate paired 0/1 results at the computed n: b ~ share (q+d)/2, c ~ (q-d)/2; the paired
    # z test rejects with the power the normal formula predicts (with the exact variance q - d^2)
    q, d = 0.27, 0.05
    n = power(gap=d, disagreement=q, binary=False).items_needed
    rng = np.random.default_rng(31)
    reps = 20000
    counts = rng.multinomial(n, [(q + d) / 2, (q - d) / 2, 1 - q], size=reps)
    b, c = counts[:, 0], counts[:, 1]
    dd = (b - c) / n
    se = np.sqrt((b + c) / n - dd**2) / np.sqrt(n)
    rej = int(np.count_nonzero(np.abs(dd / se) > stats.norm.ppf(0.975)))
    z = stats.norm.ppf(0.975)
    expected = stats.norm.sf(z - d * math.sqrt(n) / math.sqrt(q - d * d))
    assert expected >= 0.8  # the approximation with q (not q - d^2) is slightly conservative
    assert stats.binomtest(rej, reps, expected).pvalue > 0.01, rej / reps


def test_estimate_disagreement(swebench):
    pair = ("Claude 4.5 Opus medium (20251101)", "Gemini 3 Pro Preview (2025-11-18)")
    assert estimate_disagreement(swebench, pair=pair) == pytest.approx((29 + 28) / 500)
    S = swebench.scores
    manual = [np.mean(S[i] != S[j]) for i in range(25) for j in range(i + 1, 25)]
    assert estimate_disagreement(swebench) == pytest.approx(np.median(manual))
    # continuous: mean squared difference
    x = np.random.default_rng(0).random((3, 40))
    m = rt.ScoreMatrix.from_array(x)
    want = np.median([np.mean((x[i] - x[j]) ** 2) for i, j in [(0, 1), (0, 2), (1, 2)]])
    assert estimate_disagreement(m) == pytest.approx(want)


def test_bad_input(swebench):
    with pytest.raises(ValueError, match="give exactly one of `gap` and `items`.*both"):
        power(gap=0.02, items=500, disagreement=0.2, binary=False)
    with pytest.raises(ValueError, match="give exactly one of `gap` and `items`.*neither"):
        power(disagreement=0.2, binary=False)
    with pytest.raises(ValueError, match="`disagreement` is required"):
        power(gap=0.02, binary=False)
    with pytest.raises(ValueError, match=r"`gap` must be in \(0, 1\), got 2 \(a fraction"):
        power(gap=2, disagreement=0.2, binary=False)
    with pytest.raises(ValueError, match="larger than `disagreement`"):
        power(gap=0.3, disagreement=0.2, binary=True)
    with pytest.raises(ValueError, match=r"larger than sqrt\(`disagreement`\)"):
        power(gap=0.5, disagreement=0.2, binary=False)
    with pytest.raises(ValueError, match=r"`alpha` must be in \(0, 1\)"):
        power(gap=0.02, disagreement=0.2, alpha=5, binary=False)
    with pytest.raises(ValueError, match="`items` must be an integer >= 1"):
        power(items=0, disagreement=0.2, binary=False)
    with pytest.raises(DataError, match="unknown model"):
        estimate_disagreement(swebench, pair=("nope", "Gemini 3 Pro Preview (2025-11-18)"))
    with pytest.raises(DataError, match="at least two models"):
        estimate_disagreement(rt.ScoreMatrix.from_array(np.ones((1, 5))))


# --- continuous scores: q = E[d^2], so the limit is gap <= sqrt(q) (QA: alpacaeval --gap 10 was refused)
def test_continuous_gap_limit_is_sqrt_q():
    z2 = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) ** 2
    # AlpacaEval-like: q = 0.064, gap 10 points: sqrt(q) = 0.253 allows it; n = ceil(7.849 * 0.064 / 0.01)
    r = power(gap=0.10, disagreement=0.064, binary=False)
    assert r.items_needed == math.ceil(z2 * 0.064 / 0.01) == 51
    assert power(gap=math.sqrt(0.064), disagreement=0.064, binary=False).items_needed == math.ceil(z2)  # the boundary itself
    with pytest.raises(ValueError, match="larger than `disagreement` 0.064: two models with 0/1 scores"):
        power(gap=0.10, disagreement=0.064, binary=True)
    with pytest.raises(ValueError, match=r"at most sqrt\(q\)"):
        power(gap=0.26, disagreement=0.064, binary=False)
    t = power_table(0.064, binary=False)
    assert t.gaps.tolist() == [0.01, 0.02, 0.03, 0.05, 0.10] and t.items_needed[-1] == 51
    tb = power_table(0.064, binary=True, method="normal")
    assert tb.gaps.tolist() == [0.01, 0.02, 0.03, 0.05]
    assert tb.items_needed.tolist() == t.items_needed[:4].tolist()
    # the published 0/1 figures do not depend on the flag with the formula (method="normal")
    assert power_table(0.27, binary=True, method="normal").items_needed.tolist() == [21192, 5298, 2355, 848, 212]
    # by default, 0/1 scores get the exact McNemar test's items (more than the formula's)
    ex = power_table(0.064, binary=True)
    assert ex.method == "exact" and np.all(ex.items_needed > tb.items_needed)


def test_continuous_gap_limit_matches_statsmodels():
    from statsmodels.stats.power import NormalIndPower

    # one-sample z test with effect size d / sqrt(q), at a gap beyond q but within sqrt(q)
    q, d = 0.04, 0.15
    nobs = NormalIndPower().solve_power(effect_size=d / math.sqrt(q), nobs1=None, alpha=0.05, power=0.8, ratio=0)
    assert power(gap=d, disagreement=q, binary=False).items_needed == math.ceil(nobs)
    assert power(items=math.ceil(nobs), disagreement=q, binary=False).detectable_gap <= d


@settings(max_examples=40, deadline=None)
@given(st.floats(0.001, 1.0), st.floats(0.01, 1.0))
def test_gap_accepted_iff_within_sqrt_q(q, frac):
    lim = math.sqrt(q)
    g = frac * lim
    if 0 < g < 1:
        r = power(gap=g, disagreement=q, binary=False)
        assert r.items_needed >= 1 and r.ci_half_width > 0
    bad = lim * 1.01
    if bad < 1:
        with pytest.raises(ValueError, match="sqrt"):
            power(gap=bad, disagreement=q, binary=False)
    assert all(x <= lim for x in power_table(q, binary=False).gaps.tolist())
    assert all(x <= q for x in power_table(q, binary=True, method="normal").gaps.tolist())


@pytest.mark.slow
def test_simulated_power_continuous_beyond_q():
    # per-item differences d_i = +-sqrt(q) (non-0/1 scores) with mean gap d > q: E[d_i^2] = q, variance
    # q - d^2. The paired z test (sample sd) at the computed n has at least the promised power: exactly
    # (sum over the binomial count of +sqrt(q) items) and in a seeded simulation.
    q, d = 0.064, 0.10
    n = power(gap=d, disagreement=q, binary=False).items_needed
    s = math.sqrt(q)
    z = stats.norm.ppf(0.975)
    p_plus = (1 + d / s) / 2

    def rejects(plus):
        dd = s * (2 * plus - n) / n
        sd = np.sqrt(np.maximum(q - dd**2, 0) * n / (n - 1))
        with np.errstate(divide="ignore"):
            return np.abs(dd) / (sd / math.sqrt(n)) > z

    k = np.arange(n + 1)
    exact = float(stats.binom.pmf(k, n, p_plus)[rejects(k)].sum())
    assert exact >= 0.8, exact
    reps = 20000
    rej = int(np.count_nonzero(rejects(np.random.default_rng(7).binomial(n, p_plus, size=reps))))
    assert stats.binomtest(rej, reps, exact).pvalue > 0.01, (rej / reps, exact)


# --- exact McNemar power (audit section 5 / D8): the items the package's own test needs
from ranktrust.stats._power import mcnemar_power  # noqa: E402

# (q, d, formula n, exact n): "n the exact test needs for 80%" in the audit's table (section 5)
AUDIT_EXACT = [(0.27, 0.02, 5298, 5390), (0.27, 0.03, 2355, 2413), (0.27, 0.05, 848, 881), (0.27, 0.10, 212, 223),
               (0.20, 0.0185, 4587, 4683), (0.10, 0.02, 1963, 2043), (0.05, 0.02, 982, 1035),
               (0.04, 0.02, 785, 843), (0.02, 0.01, 1570, 1686), (0.30, 0.20, 59, 61), (0.50, 0.30, 44, 46)]


@pytest.mark.parametrize("q,d,formula,exact", AUDIT_EXACT)
def test_exact_items_match_the_audit(q, d, formula, exact):
    r = power(gap=d, disagreement=q, binary=True)
    assert r.method == "exact" and r.items_needed == exact and r.items_needed_normal == formula
    f = mcnemar_power(np.arange(exact, exact + 20), gap=d, disagreement=q)
    assert np.all(f >= 0.8)  # stays at or above the target
    assert mcnemar_power(formula, gap=d, disagreement=q)[0] < 0.8  # the formula's n falls short
    assert power(gap=d, disagreement=q, binary=True, method="normal").items_needed == formula
    dd = r.to_dict()
    assert dd["method"] == "exact" and dd["items_needed_normal"] == formula and dd["achieved_power"] >= 0.8


def test_exact_power_published_formula_points():
    # audit section 5: exact power of the exact test at the formula's n
    for q, d, n, want in [(0.27, 0.01, 21192, 0.7964), (0.27, 0.05, 848, 0.7843), (0.05, 0.02, 982, 0.7768),
                          (0.20, 0.0185, 4587, 0.7916)]:
        assert round(float(mcnemar_power(n, gap=d, disagreement=q)[0]), 4) == want
    # 1-point gap at q = 0.27: the exact test needs 21,385 items (the formula says 21,192)
    assert power(gap=0.01, disagreement=0.27, binary=True).items_needed == 21385


def test_exact_power_equals_simulation_and_definition():
    q, d, n = 0.1, 0.04, 300
    rng = np.random.default_rng(8)
    mm = rng.binomial(n, q, 100000)
    b = rng.binomial(mm, (q + d) / (2 * q))
    sim = np.mean(rt.mcnemar_exact(b, mm - b) < 0.05)
    ex = float(mcnemar_power(n, gap=d, disagreement=q)[0])
    assert abs(sim - ex) < 4 * math.sqrt(ex * (1 - ex) / 100000)
    # by the definition, summing over every (m, b)
    tot = 0.0
    for m in range(n + 1):
        bb = np.arange(m + 1)
        rej = rt.mcnemar_exact(bb, m - bb) < 0.05
        tot += stats.binom.pmf(m, n, q) * stats.binom.pmf(bb, m, (q + d) / (2 * q))[rej].sum()
    assert ex == pytest.approx(tot, rel=1e-9)


@pytest.mark.parametrize("q,n", [(0.27, 881), (0.2, 500), (0.05, 1035), (0.5, 46)])
def test_exact_detectable_gap_is_the_inverse(q, n):
    r = power(items=n, disagreement=q, binary=True)
    g = r.detectable_gap
    assert r.method == "exact" and 0 < g <= q and r.achieved_power >= 0.8
    assert mcnemar_power(n, gap=g * 0.999, disagreement=q)[0] < 0.8 <= mcnemar_power(n, gap=g, disagreement=q)[0]
    # round trip: the items needed for that gap are about n (the "stays above" rule may add a few)
    back = power(gap=g, disagreement=q, binary=True).items_needed
    assert abs(back - n) <= max(3, 0.01 * n)


def test_exact_undetectable_gap_is_nan_and_method_errors():
    r = power(items=5, disagreement=0.2, binary=True)  # 5 items: the exact test can never reject at 5%
    assert math.isnan(r.detectable_gap) and r.note.code == "no_detectable_gap"
    assert r.note.data == {"items": 5, "disagreement": 0.2, "best_power": r.note.data["best_power"], "power": 0.8}
    assert r.to_dict()["note"] == {**r.note.to_dict(), "text": note_text(r.note)}   # to_dict() is the JSON: worded
    assert power(items=500, disagreement=0.2, binary=True).note is None
    # the record carries the numbers, reporting words them; the sentence is the one the analysis
    # wrote before (the item count now has fmt.count's separators: 1,500)
    assert note_text(r.note) == ("no possible gap is detectable: with 5 items and disagreement q = 0.2 even the "
                                 "largest possible gap (q) gives the exact McNemar test only 0% power (target 80%)")
    r20 = power(items=20, disagreement=0.3, binary=True)
    assert note_text(r20.note).endswith("only 58% power (target 80%)") and 0.57 < r20.note.data["best_power"] < 0.59
    assert "with 1,500 items and disagreement q = 0.001" in note_text(power(items=1500, disagreement=0.001).note)
    assert "with 1 item and" in note_text(power(items=1, disagreement=0.5).note)
    import json

    from ranktrust.reporting.renderers import to_string
    assert json.loads(to_string(r, "json"))["note"] == {**r.note.to_dict(), "text": note_text(r.note)}   # the JSON
    with pytest.raises(ValueError, match="`method` must be 'auto', 'exact' or 'normal'"):
        power(gap=0.02, disagreement=0.27, method="z", binary=False)
    with pytest.raises(ValueError, match="pass `binary`=True"):
        power(gap=0.02, disagreement=0.27, method="exact", binary=False)
    assert power_table(0.27, binary=False).method == "normal" and power_table(0.27).method == "exact"


def test_python_and_command_line_give_one_answer(capsys):
    """Issue 21 D9: rt.power and `ranktrust power` default to the exact test (5,390 items for 2 points at
    q = 0.27); the formula is method='normal' / --method normal in both; rt.power carries the table the
    command prints."""
    import json

    from ranktrust.cli._main import main

    r = rt.power(gap=0.02, disagreement=0.27)
    assert (r.items_needed, r.method, r.binary) == (5390, "exact", True)
    assert rt.power(gap=0.02, disagreement=0.27, method="normal").items_needed == 5298
    assert r.table.items_needed.tolist() == [21385, 5390, 2413, 881, 223]
    for args, want in ((["--gap", "2"], 5390), (["--gap", "2", "--method", "normal"], 5298)):
        main(["power", *args, "--disagreement", "0.27", "-f", "json"])
        d = json.loads(capsys.readouterr().out)
        py = rt.power(gap=0.02, disagreement=0.27, method="normal" if "normal" in args else "auto").to_dict()
        assert d["items_needed"] == want == py["items_needed"]
        assert d["table"] == py["table"] and d["binary"] is py["binary"] is True
        assert {k: v for k, v in d.items() if k not in ("meta", "disagreement_source")} == py


def test_exact_search_that_finds_nothing_raises_solver_error(monkeypatch):
    """SolverError: the exact search gives up at 10^9 items (forced here with a power curve stuck at 0)."""
    import sys

    from ranktrust.errors import RanktrustError, SolverError

    pm = sys.modules[power.__module__]  # the module (ranktrust.stats._power is the function)

    monkeypatch.setattr(pm, "_Curve", lambda *a: (lambda n: np.zeros(np.shape(n))))
    with pytest.raises(SolverError, match="found no item count up to 10\\^9.*use `method`='normal'") as e:
        power(gap=0.02, disagreement=0.27, binary=True, method="exact")
    assert isinstance(e.value, RanktrustError) and isinstance(e.value, ArithmeticError)
    assert e.value.param == "method"


def test_exact_curve_keeps_values_equal_to_a_fresh_computation():
    """The curve keeps its conditional power per m and the pmf's terms per integer across calls (and the rejection
    boundary across curves at one level): every value equals a fresh curve's, bit for bit, whatever the order of
    the calls, and the pmf equals scipy's binomial pmf."""
    from ranktrust.stats import _power as pm

    ns = [np.arange(880, 900), np.arange(40, 60), np.arange(5000, 5020), np.arange(870, 1200, 7), np.array([3]),
          np.arange(250_000, 250_020), np.arange(60, 4000, 50)]   # (above the pmf's tables; a range far apart)
    kept = pm._Curve(0.05, 0.27, 0.05)
    for n in ns + ns[::-1]:
        assert kept(n).tobytes() == pm._Curve(0.05, 0.27, 0.05)(n).tobytes()
    pm._REJECT_KEPT.clear()
    fresh = [pm._Curve(g, 0.3, 0.05)(np.arange(440, 460)) for g in (0.01, 0.1, 0.2)]
    assert all(f.tobytes() == pm._Curve(g, 0.3, 0.05)(np.arange(440, 460)).tobytes()
               for f, g in zip(fresh, (0.01, 0.1, 0.2)))
    m = np.arange(0, 120)
    n = np.array([50, 100, 119])
    want = stats.binom.pmf(m[None, :], n[:, None], 0.27)
    np.testing.assert_allclose(kept._pmf(m, n), want, rtol=1e-12, atol=1e-300)
    big, mm = np.array([250_000]), np.arange(67_000, 68_000)
    np.testing.assert_allclose(kept._pmf(mm, big), stats.binom.pmf(mm[None, :], 250_000, 0.27), rtol=1e-9)
    # the kept rejection boundary is _reject_k's, and the exact test's: p < alpha at k, not at k + 1
    k = pm._reject_range(20, 60, 0.05)
    assert np.array_equal(k, pm._reject_k(np.arange(20, 61), 0.05))
    for mm, kk in zip(range(20, 61), k.tolist()):
        p = lambda x: min(1.0, 2 * stats.binom.cdf(x, mm, 0.5))   # noqa: E731
        assert p(kk) < 0.05 <= p(kk + 1)


# ------------------------------------------------------------------ the exact search's speed-ups keep its answers
#: items needed (TABLE_GAPS) and the detectable gap at 50 / 448 / 3,000 items, from the code before the exact
#: search was sped up (commit 950d6f9: every window of the search computed whole, the pmf through the general
#: masked formula, the rejection boundaries recomputed for every far range)
_BEFORE = {
    0.05: ([4086, 1035, 463, 157], [float("nan"), 0.030430634319782254, 0.011693467944860456]),
    0.12: ([9602, 2438, 1096, 398, 95], [float("nan"), 0.047060379087924965, 0.018000927865505223]),
    0.27: ([21385, 5390, 2413, 881, 223], [0.20705495115369557, 0.07043363979086278, 0.026881915144622327]),
    0.3638392857142857: ([28751, 7234, 3234, 1176, 300],
                         [0.24149188375200276, 0.08154704259192969, 0.031154435626896366]),
    0.6: ([47289, 11870, 5296, 1920, 487], [0.3158265894278883, 0.10421936195343731, 0.039930019341409204]),
}


@pytest.mark.parametrize("q", sorted(_BEFORE))
def test_exact_items_and_gaps_are_those_before_the_search_was_sped_up(q):
    """The items needed are the same integers; the detectable gap (a bisection to 1e-9 on powers that now may
    differ in the last bits) within 1e-9."""
    from ranktrust.stats import _power as PW

    PW._REJECT_KEPT.clear()
    items, gaps = _BEFORE[q]
    assert power_table(q).items_needed.tolist() == items
    got = [power(items=n, disagreement=q).detectable_gap for n in (50, 448, 3000)]
    np.testing.assert_allclose(got, gaps, rtol=0, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.02, 0.9), st.integers(1, 30_000), st.integers(1, 40), st.integers(0, 200))
def test_pmf_of_a_window_is_the_binomial_pmf(q, n0, width, m_lo):
    """``_Curve._pmf`` on a window of n (every m below every n: the broadcast path) and on ranges that reach past
    some n (the masked path) against the direct log-gamma pmf, within 1e-12 of each cell's mass."""
    from ranktrust.stats._power import _binom_pmf, _Curve

    c = _Curve(q / 2, q, 0.05)
    n = np.arange(n0, n0 + width)
    for m in (np.arange(max(0, n0 - m_lo - 50), max(1, n0 - m_lo)), np.arange(max(0, n0 - 5), n0 + width + 5)):
        want = _binom_pmf(m[None, :], n[:, None], q)
        np.testing.assert_allclose(c._pmf(m, n), want, rtol=1e-9, atol=1e-12)


def test_rejection_boundaries_kept_and_joined_are_computed_afresh():
    """``_reject_range`` joins a range near the kept one to it (computing only the new m): the same integers as
    ``_reject_k`` on the whole range."""
    from ranktrust.stats import _power as PW

    PW._REJECT_KEPT.clear()
    for lo, hi in ((900, 1200), (1100, 1500), (700, 950), (5000, 5100), (690, 1510)):
        assert PW._reject_range(lo, hi, 0.05).tolist() == PW._reject_k(np.arange(lo, hi + 1), 0.05).tolist()
    PW._REJECT_KEPT.clear()
