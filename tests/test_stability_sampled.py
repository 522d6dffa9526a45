"""The report's rank stability above a size threshold: fewer draws, with their Monte Carlo error stated.

Above ``STABILITY_SAMPLE_ABOVE_CELLS`` cells the report draws at most ``STABILITY_SAMPLED_RESAMPLES``
benchmarks per size and says so in a ``stability_sampled`` note; ``stability="all"`` draws them all. The
switch is tested on a small matrix by lowering the module's threshold (never on a 14-million-cell matrix).
"""

from __future__ import annotations

import numpy as np
import pytest

import ranktrust as rt
from ranktrust.errors import ArgumentError
from ranktrust.leaderboard import Resampling
from ranktrust.leaderboard import _sections
from ranktrust.ranking._stability import stability
from ranktrust.reporting._notes import note_text


def _matrix(m=6, n=400, seed=0):
    rng = np.random.default_rng(seed)
    p = np.linspace(0.72, 0.6, m)[:, None]
    return rt.ScoreMatrix((rng.random((m, n)) < p).astype(float), [f"m{i}" for i in range(m)],
                          [f"q{j}" for j in range(n)])


@pytest.fixture(scope="module")
def small():
    return _matrix()


def _report(m, **kw):
    kw = {"stability_n_resamples": 200, "sizes": [30, "full"], "quality": False, "rng": 3, **kw}
    return rt.report(m, **kw)


def _sampled_notes(rep):
    return [n for n in rep.notes if n.code == "stability_sampled"]


@pytest.fixture
def low_threshold(monkeypatch, small):
    """The threshold just below / at the small matrix's cells, and a cap of 50 draws."""
    cells = small.n_models * small.n_items

    def set_(above):
        monkeypatch.setattr(_sections, "STABILITY_SAMPLE_ABOVE_CELLS", above)
        monkeypatch.setattr(_sections, "STABILITY_SAMPLED_RESAMPLES", 50)
        return cells
    return set_


def test_at_the_threshold_nothing_changes(small, low_threshold):
    low_threshold(small.n_models * small.n_items)      # cells == threshold: not above it
    rep = _report(small)
    assert rep.stability.n_resamples == 200 and not _sampled_notes(rep)


def test_above_the_threshold_fewer_draws_and_a_note(small, low_threshold):
    cells = low_threshold(small.n_models * small.n_items - 1)
    rep = _report(small)
    st = rep.stability
    assert st.n_resamples == 50
    (note,) = _sampled_notes(rep)
    d = note.data
    assert d["n_resamples"] == 50 and d["asked"] == 200 and d["cells"] == cells
    assert d["above_cells"] == cells - 1
    assert d["se_bound"] == pytest.approx(0.5 / np.sqrt(50))
    p = np.concatenate([st.p_top_stays_top, st.p_topk_order.ravel(), st.p_first.ravel()])
    assert d["max_se"] == pytest.approx(float(np.nanmax(np.sqrt(p * (1 - p) / 50))), rel=1e-12)
    assert d["max_se"] <= d["se_bound"] + 1e-15
    # the same draws as rt.stability with that many: the sampled section is that call, nothing else
    alone = stability(small, sizes=[30, "full"], n_resamples=50, rng=rep.settings["seed"],
                      rank_distribution=True)
    np.testing.assert_array_equal(st.p_first, alone.p_first)
    np.testing.assert_array_equal(st.p_topk_order, alone.p_topk_order)
    # worded, in the JSON and in the text
    text = note_text(note)
    assert "50 times per size, not 200" in text and "`stability`='all'" in text
    d_json = rep.to_dict()
    assert any(n["code"] == "stability_sampled" and n["data"]["n_resamples"] == 50 for n in d_json["notes"])
    assert d_json["stability"]["n_resamples"] == 50


def test_all_draws_every_resample(small, low_threshold):
    low_threshold(1)
    rep = _report(small, stability="all")
    assert rep.stability.n_resamples == 200 and not _sampled_notes(rep)
    rep = _report(small)   # the default (True) samples above the threshold
    assert rep.stability.n_resamples == 50


def test_fewer_draws_than_the_cap_are_kept(small, low_threshold):
    low_threshold(1)
    rep = _report(small, stability_n_resamples=30)
    assert rep.stability.n_resamples == 30 and not _sampled_notes(rep)


def test_stability_option_is_checked():
    with pytest.raises(ArgumentError, match="`stability` must be True, False or 'all'"):
        Resampling(stability="most")
    with pytest.raises(ArgumentError, match="`stability`"):
        rt.report(_matrix(3, 20), stability="sample")
    assert Resampling(stability=False).stability is False and Resampling(stability="all").stability == "all"


def test_stability_draws_rule():
    f, above, cap = _sections.stability_draws, _sections.STABILITY_SAMPLE_ABOVE_CELLS, _sections.STABILITY_SAMPLED_RESAMPLES
    assert f(above, 2000) == 2000
    assert f(above + 1, 2000) == cap
    assert f(above + 1, 2000, "all") == 2000
    assert f(above + 1, cap - 1) == cap - 1
    assert f(above + 1, 2000, True) == cap


def test_stated_se_matches_the_spread_over_seeds():
    """Seeded simulation: the stated Monte Carlo SE sqrt(p (1 - p) / draws) of 500 draws is the standard
    deviation of the figure over independent seeds (200 seeds: the sample SD is within about 5% of the
    truth, so 20% is a wide margin that a wrong formula, e.g. with 2,000 draws (half the SE), fails)."""
    m = _matrix(5, 300, seed=1)
    draws, seeds = 500, 200
    tops, firsts, stated = [], [], []
    for seed in range(seeds):
        st = stability(m, sizes=[60], n_resamples=draws, rng=seed, rank_distribution=False)
        tops.append(st.p_top_stays_top[0])
        firsts.append(st.p_first[0])
        stated.append(st.p_top_stays_top_se[0])
    tops, firsts = np.asarray(tops), np.asarray(firsts)
    p = tops.mean()
    assert 0.2 < p < 0.8                      # a figure with spread to measure
    assert np.std(tops, ddof=1) == pytest.approx(np.mean(stated), rel=0.2)
    # every model's P(#1): the same formula
    sd = np.std(firsts, ddof=1, axis=0)
    pf = firsts.mean(axis=0)
    ok = pf > 0.05
    np.testing.assert_allclose(sd[ok], np.sqrt(pf * (1 - pf) / draws)[ok], rtol=0.2)


@pytest.mark.parametrize("size", [3000, 200])
def test_fewer_draws_are_the_first_of_the_full_run(size):
    """500 draws are the first 500 of the 2,000 (each block of 64 draws from its own stream, a short last
    block the start of the full one), tie-break keys included: the sampled figures are those of the full
    run's first draws, and a seed reproduces them."""
    from ranktrust.resample._engine import iter_resample_means

    s = (np.random.default_rng(0).random((5, 3000)) < 0.6).astype(np.int8)

    def run(n):
        parts = list(iter_resample_means(s, n_resamples=n, size=size, rng=7, tie_keys=True))
        return np.concatenate([p.means for p in parts]), np.concatenate([p.keys for p in parts])

    m500, k500 = run(500)
    m2000, k2000 = run(2000)
    np.testing.assert_array_equal(m500, m2000[:500])      # exact integer sums: the same bits
    np.testing.assert_array_equal(k500, k2000[:500])
    again = stability(s, sizes=[size], n_resamples=500, rng=7)
    once = stability(s, sizes=[size], n_resamples=500, rng=7)
    np.testing.assert_array_equal(again.rank_distribution, once.rank_distribution)


def test_the_settings_record_the_draws_made(small, low_threshold):
    low_threshold(small.n_models * small.n_items - 1)
    assert _report(small).settings["stability_n_resamples"] == 50
    assert _report(small, stability="all").settings["stability_n_resamples"] == 200
    assert _report(small, stability=False).settings["stability_n_resamples"] == 200   # none drawn: as asked


def test_the_command_line_draws_them_all_with_no_sampling(small, low_threshold, tmp_path, capsys):
    """``ranktrust report --no-sampling`` is ``stability='all'`` and ``quality='all'``; the note names the flag."""
    import json

    import pandas as pd
    from conftest import run_cli

    low_threshold(small.n_models * small.n_items - 1)
    path = tmp_path / "m.csv"
    pd.DataFrame([{"model": mo, "item": it, "score": float(small.scores[i, j])}
                  for i, mo in enumerate(small.models) for j, it in enumerate(small.items)]).to_csv(path, index=False)
    args = ["report", path, "--sizes", "30,full", "--stability-n-resamples", "200", "--seed", "3", "-f", "json"]
    code, out, _ = run_cli(capsys, *args)
    sampled = json.loads(out)
    assert code == 0 and sampled["settings"]["stability_n_resamples"] == 50
    (note,) = [n for n in sampled["notes"] if n["code"] == "stability_sampled"]
    assert "--no-sampling" in note["text"] and "`stability`" not in note["text"]
    code, out, _ = run_cli(capsys, *args, "--no-sampling")
    full = json.loads(out)
    assert code == 0 and full["settings"]["stability_n_resamples"] == 200
    assert not [n for n in full["notes"] if n["code"] == "stability_sampled"]
