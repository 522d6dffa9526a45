"""``rt.arena(judged, gold=human)``: prediction-powered Bradley-Terry ratings and rank sets from a judge's verdicts on
every battle and people's verdicts on a random subset, matched by battle id; the parts, JSON and words of every
arena, with the judge-only and gold-only arenas beside them."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranktrust as rt
from conftest import SHARED, run_cli
from ranktrust.judges import gold_corrected_battles
from ranktrust.ranking import RankSets, Tiers
from ranktrust.stats import PairTable, ScoreIntervals

JUDGES = SHARED / "judges"


def _board(seed: int, M: int = 5, n: int = 2000, n_gold: int = 300, bias: float = 0.4):
    """Battles between M models of strengths ``linspace(0.6, -0.6)`` (people's verdicts ``h``); the judge agrees
    with the people except that it gives the last model (the weakest) the win in a share ``bias`` of its battles.
    The gold battles are a simple random sample of ``n_gold`` of them."""
    g = np.random.default_rng(seed)
    th = np.linspace(0.6, -0.6, M)
    names = [f"m{k}" for k in range(M)]
    a = g.integers(0, M, n)
    b = (a + g.integers(1, M, n)) % M
    h = (g.random(n) < 1 / (1 + np.exp(-(th[a] - th[b])))).astype(float)
    fav = g.random(n) < bias
    judge = np.where((a == M - 1) & fav, 1.0, np.where((b == M - 1) & fav, 0.0, h))
    judged = pd.DataFrame({"num": np.arange(n), "model_a": [names[i] for i in a],
                           "model_b": [names[i] for i in b], "score": judge})
    pick = np.sort(g.choice(n, n_gold, replace=False))
    gold = judged.iloc[pick].assign(score=h[pick]).reset_index(drop=True)
    return judged, gold


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rt.SmallSampleWarning)
        return fn(*args, **kw)


def test_the_ratings_are_the_judges_packages_ppi_fit_in_the_arenas_parts():
    """Reference value: the same strengths and covariance as ``ranktrust.judges.gold_corrected_battles`` (the PPI++
    Bradley-Terry estimator), held in the score path's types, with the judge-only and gold-only arenas beside."""
    judged, gold = _board(0)
    r = rt.arena(judged, gold=gold, n_resamples=300)
    ref = gold_corrected_battles(judged, gold, n_resamples=300)
    np.testing.assert_allclose(r.ratings.score, ref.rating, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.ratings.covariance, ref.covariance, rtol=1e-9, atol=1e-9)
    assert isinstance(r.ratings, ScoreIntervals) and isinstance(r.pairs, PairTable)
    assert isinstance(r.rank_sets, RankSets) and isinstance(r.tiers, Tiers)
    assert r.settings["method"] == "ppi" and r.settings["gold"]["n_gold"] == 300
    assert r.settings["gold"]["lam"] == ref.lam and r.settings["gold"]["battle_id"] == "num"
    assert isinstance(r.judge_only, rt.ArenaResult) and isinstance(r.gold_only, rt.ArenaResult)
    assert r.judge_only.settings["n_battles"] == 2000 and r.gold_only.settings["n_battles"] == 300
    d = r.to_dict()
    assert d["judge_only"]["headline"]["top"] == r.judge_only.headline["top"]
    assert d["gold_only"]["settings"]["n_battles"] == 300
    assert r.headline["text"].startswith(("Yes: ", "No: "))
    text = str(r)
    assert "Prediction-powered: 300 gold verdicts (matched by num)" in text and "PPI++" in text


def test_a_judge_that_favours_one_model_moves_the_judge_only_answer_not_the_corrected_one():
    """The judge lifts the weakest model; its own arena rates it above its true place, the corrected one does not."""
    judged, gold = _board(1, bias=0.6, n_gold=600)
    r = rt.arena(judged, gold=gold, n_resamples=300)
    weakest = r.models.index("m4")
    assert r.judge_only.ratings.score[weakest] > r.ratings.score[weakest] + 30
    assert r.rank_sets.rank_high[weakest] == 5


@pytest.mark.slow
def test_rank_sets_cover_the_peoples_ranking_where_the_judge_only_sets_do_not():
    """Seeded coverage: on 120 boards the prediction-powered simultaneous rank sets contain every model's true rank
    in at least 95% of boards less 2 Monte Carlo SE; the judge-only sets (the negative control) do not."""
    reps = 120
    hit = judge_hit = 0
    for seed in range(reps):
        judged, gold = _board(100 + seed, n=1500, n_gold=300, bias=0.5)
        r = _quiet(rt.arena, judged, gold=gold, n_resamples=200, rng=seed)
        true = np.arange(1, 6)
        order = [r.models.index(f"m{k}") for k in range(5)]
        hit += bool(np.all((r.rank_sets.rank_low[order] <= true) & (true <= r.rank_sets.rank_high[order])))
        j = r.judge_only.rank_sets
        judge_hit += bool(np.all((j.rank_low[order] <= true) & (true <= j.rank_high[order])))
    floor = 0.95 - 2 * np.sqrt(0.95 * 0.05 / reps)
    print(f"coverage: prediction-powered {hit / reps:.3f} (floor {floor:.3f}), judge only {judge_hit / reps:.3f}")
    assert hit / reps >= floor
    assert judge_hit / reps < 0.5


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_writing_a_gold_battle_the_other_way_round_changes_nothing(seed):
    """Property: a gold battle with its two models swapped (and its verdict flipped) is the same battle."""
    judged, gold = _board(seed, M=4, n=800, n_gold=120)
    flip = gold.assign(model_a=gold.model_b, model_b=gold.model_a, score=1 - gold.score)
    r1 = _quiet(rt.arena, judged, gold=gold, n_resamples=100)
    r2 = _quiet(rt.arena, judged, gold=flip, n_resamples=100)
    np.testing.assert_allclose(r1.ratings.score, r2.ratings.score, rtol=0, atol=1e-9)
    assert r2.settings["gold"]["swapped"] == 120 and r1.settings["gold"]["swapped"] == 0


def test_battle_ids_from_a_named_column_or_the_index():
    judged, gold = _board(2, n=1000, n_gold=100)
    by_num = rt.arena(judged, gold=gold, n_resamples=100)
    renamed = rt.arena(judged.rename(columns={"num": "id"}), gold=gold.rename(columns={"num": "id"}),
                       battle_id="id", n_resamples=100)
    indexed = rt.arena(judged.drop(columns="num"), gold=gold.set_index("num"), n_resamples=100)
    for r in (renamed, indexed):
        np.testing.assert_allclose(r.ratings.score, by_num.ratings.score, rtol=0, atol=1e-9)
    assert renamed.settings["gold"]["battle_id"] == "id" and indexed.settings["gold"]["battle_id"] == "index"


@pytest.mark.parametrize("change, match", [
    (lambda g: g.assign(num=g.num.where(g.index != 7, 10_000)), r"gold row 7: gold battle 10000 is not among the "
                                                                 r"judged battles \(num; 1 such rows\)"),
    (lambda g: g.assign(model_b=g.model_b.where(g.index != 3, "zz")), r"gold row 3: gold battle \d+ is .* but the "
                                                                      r"judged battle of that num is"),
    (lambda g: pd.concat([g, g.iloc[[5]]], ignore_index=True), r"gold row 100: battle \d+ \(num\) has two gold"),
    (lambda g: g.iloc[:10], r"10 gold battles: prediction-powered ratings need at least 20"),
])
def test_unmatched_mismatched_and_repeated_gold_rows_are_refused_naming_the_row(change, match):
    judged, gold = _board(3, n=1000, n_gold=100)
    with pytest.raises(rt.DataError, match=match) as e:
        rt.arena(judged, gold=change(gold), n_resamples=100)
    assert "\n" not in str(e.value)


def test_a_repeated_judged_id_and_options_the_gold_path_has_not_are_refused():
    judged, gold = _board(4, n=1000, n_gold=100)
    with pytest.raises(rt.DataError, match=r"battles row 9: battle id 0 \(num\) repeats"):
        rt.arena(judged.assign(num=judged.num.where(judged.index != 9, 0)), gold=gold)
    with pytest.raises(rt.DataError, match="`style`, `method`='bootstrap' and `ties`='davidson' are not available"):
        rt.arena(judged, gold=gold, method="bootstrap")
    with pytest.raises(rt.DataError, match="give `gold` too"):
        rt.arena(judged, battle_id="num")
    with pytest.raises(rt.DataError, match="has no battle-id column 'qid'"):
        rt.arena(judged, gold=gold, battle_id="qid")


def test_the_command_line_takes_gold_and_battle_id(tmp_path, capsys):
    judged, gold = _board(5, n=1000, n_gold=150)
    jp, gp = tmp_path / "judge.csv", tmp_path / "human.jsonl"
    judged.rename(columns={"num": "battle"}).to_csv(jp, index=False)
    gold.rename(columns={"num": "battle"}).to_json(gp, orient="records", lines=True)
    code, out, err = run_cli(capsys, "arena", str(jp), "--gold", str(gp), "--battle-id", "battle", "--n-resamples",
                             "200", "--format", "json")
    assert code == 0, err
    d = json.loads(out)
    r = rt.arena(str(jp), gold=str(gp), battle_id="battle", n_resamples=200)
    d.pop("meta")
    assert d == r.to_dict() and d["settings"]["gold"]["n_gold"] == 150
    code, _, err = run_cli(capsys, "arena", str(jp), "--gold", str(gp), "--n-resamples", "200")
    assert code != 0 and "judge.csv: no battle-id column 'num'" in err and "name it with --battle-id" in err


@pytest.mark.skipif(not (JUDGES / "ppr_human.jsonl.gz").exists(), reason="needs ../shared/data/judges (Chatzi et al.)")
def test_chatzi_battles_gold_subset_corrects_the_judge():
    """The shared data: GPT-4's verdicts on all 26,919 battles, 2,000 people's verdicts drawn at random. The ratings
    are the judges package's; the rank sets are narrower than the people-only ones and contain the rank of every
    model in the people's full ranking (all 26,919 verdicts, Bradley-Terry, as the paper takes it) for this draw."""
    human = pd.read_json(JUDGES / "ppr_human.jsonl.gz", lines=True)
    judge = JUDGES / "ppr_gpt-4-0125-preview.jsonl.gz"
    gold = human.sample(2000, random_state=0)
    r = _quiet(rt.arena, str(judge), gold=gold, n_resamples=1000)
    ref = gold_corrected_battles(pd.read_json(judge, lines=True), gold, n_resamples=1000)
    np.testing.assert_allclose(r.ratings.score, ref.rating, rtol=0, atol=1e-8)
    full = _quiet(rt.arena, human, cluster_by=None, n_resamples=200)
    truth = np.argsort(np.argsort(-full.ratings.score)) + 1
    assert full.models == r.models
    assert np.all((r.rank_sets.rank_low <= truth) & (truth <= r.rank_sets.rank_high))
    width = np.mean(r.rank_sets.rank_high - r.rank_sets.rank_low)
    assert width < np.mean(r.gold_only.rank_sets.rank_high - r.gold_only.rank_sets.rank_low)
