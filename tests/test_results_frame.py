"""``Result.to_frame()`` (issue 21, QA D19): users live in pandas, so every result with a table hands it over as a
DataFrame with the same numbers as ``to_dict()`` and its settings in ``df.attrs``; a result without a table says
so in one line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ranktrust as rt


@pytest.fixture(scope="module")
def m() -> rt.ScoreMatrix:
    rng = np.random.default_rng(3)
    p = np.array([0.8, 0.7, 0.65, 0.5])[:, None]
    return rt.ScoreMatrix.from_array((rng.random((4, 300)) < p).astype(float), models=["w", "x", "y", "z"])


def _same(df: pd.DataFrame, result, columns: dict[str, str]) -> None:
    for col, field in columns.items():
        want = getattr(result, field)
        got = df[col].to_list()
        if isinstance(want, np.ndarray) and want.dtype.kind == "f":
            np.testing.assert_array_equal(np.asarray(got, dtype=float), want)   # the same floats, not recomputed
        else:
            assert got == list(np.asarray(want).tolist() if isinstance(want, np.ndarray) else want), col


def test_intervals_rank_sets_tiers_and_split_half_are_one_row_per_model(m):
    iv = rt.intervals(m)
    df = iv.to_frame()
    assert list(df.columns) == ["model", "score", "se", "ci_low", "ci_high", "n_items"] and len(df) == 4
    _same(df, iv, {"model": "models", "score": "score", "ci_low": "ci_low", "ci_high": "ci_high", "n_items": "n_items"})
    assert df.attrs["method"] == "wilson" and df.attrs["confidence_level"] == 0.95
    rs = rt.rank_sets(m)
    _same(rs.to_frame(), rs, {"model": "models", "rank_low": "rank_low", "rank_high": "rank_high"})
    ti = rt.tiers(m)
    _same(ti.to_frame(), ti, {"model": "models", "tier": "tier"})
    sh = rt.split_half(m, n_resamples=50)
    df = sh.to_frame()
    _same(df, sh, {"model": "models", "p_wins_half": "p_wins_half"})
    assert df.attrs["p_same_winner"] == sh.p_same_winner


def test_the_pair_table_frame_is_its_json_rows(m):
    pt = rt.all_pairs(m)
    df = pt.to_frame()
    assert len(df) == 6 and {"a", "b", "diff", "p_value", "p_adjusted"} <= set(df.columns)
    rows = pt.to_dict()["pairs"]
    assert df[["a", "b"]].to_records(index=False).tolist() == [(r["a"], r["b"]) for r in rows]
    np.testing.assert_array_equal(df["p_adjusted"].to_numpy(), [r["p_adjusted"] for r in rows])
    assert df.attrs["adjust"] == "holm"


def test_stability_power_and_bootstrap_tables(m):
    st = rt.stability(m, sizes=(30, 100), n_resamples=40)
    df = st.to_frame()
    assert df["sizes"].to_list() == [30, 100] and df.attrs["top_model"] == st.top_model
    np.testing.assert_array_equal(df["p_top_stays_top"].to_numpy(), st.p_top_stays_top)
    tab = rt.power(gap=0.02, disagreement=0.27).table
    df = tab.to_frame()
    assert df.loc[df["gaps"] == 0.02, "items_needed"].item() == 5390   # the exact test's answer (docs/statistics.md)
    b = rt.stats.bootstrap_ci(m, pair=("w", "x"), n_resamples=100)
    assert b.to_frame()["labels"].to_list() == list(b.labels)


def test_arena_and_gate_frames_are_their_json_rows():
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 3, 400), rng.integers(0, 3, 400)
    keep = a != b
    battles = pd.DataFrame({"model_a": [f"m{i}" for i in a[keep]], "model_b": [f"m{i}" for i in b[keep]],
                            "score": (rng.random(keep.sum()) < 0.5 + 0.1 * (b[keep] - a[keep])).astype(float)})
    ar = rt.arena(battles, cluster_by=None, rng=0, n_resamples=50)
    df = ar.to_frame()
    assert df["model"].to_list() == [r["model"] for r in ar.to_dict()["models"]] and "rating" in df
    cand = np.r_[np.ones(30), np.zeros(10), np.ones(200)]
    base = np.r_[np.zeros(30), np.ones(10), np.ones(200)]
    g = rt.gate({"t1": rt.ScoreMatrix.from_array(np.stack([cand, base]), models=["cand", "base"])}, "cand", "base")
    df = g.to_frame()
    assert df["task"].to_list() == ["t1"] and df.attrs["verdict"] == g.verdict


def test_a_result_without_a_table_says_so(m):
    r = rt.compare(m, "w", "x")
    with pytest.raises(TypeError, match="PairedComparison has no table; use to_dict()"):
        r.to_frame()


def test_repeats_tables_are_one_row_per_model():
    rng = np.random.default_rng(4)
    d = (rng.random((3, 80, 5)) < np.array([0.7, 0.6, 0.5])[:, None, None]).astype(float)
    m = rt.ScoreMatrix(d, ("a", "b", "c"), tuple(map(str, range(80))), runs=tuple(map(str, range(5))))
    vc = rt.variance_components(m)
    df = vc.to_frame()
    assert df["model"].to_list() == ["a", "b", "c"]
    np.testing.assert_array_equal(df["se"].to_numpy(), vc.se)
    cn = rt.choose_n(m, margin=0.05)
    assert cn.to_frame()["n_required"].to_list() == np.asarray(cn.n_required).tolist()
