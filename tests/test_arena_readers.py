"""read_battles: every battle format on genuine files, every bad row, round trips, published Arena-Hard figures.

Genuine fixtures are in tests/data/arena/ (README there: source repository, commit, licence). The shared
Arena-Hard sample and the full MT-Bench file are read from ../shared/data when present (skip otherwise).
AlpacaEval annotations are CC BY-NC, so their test builds records in the same schema instead (the check
on a genuine annotations.json is in docs/formats/battles.md).
"""

from __future__ import annotations

import collections
import gzip
import json
import math
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranktrust as rt
from ranktrust.data.battles import ARENA_HARD_LABELS, FORMATS, read_battles, sniff_battles
from ranktrust.reporting import note_text

from conftest import DATA, SHARED, shared_file

ARENA = DATA / "arena"
OFFICIAL = ARENA / "arenahard_v01_official_battles.jsonl.gz"
JUDGMENTS = ARENA / "arenahard_v01_judgments"
JUDGMENTS_BATTLES = ARENA / "arenahard_v01_judgments_battles.jsonl.gz"
V2_EXCERPT = ARENA / "arenahard_v2format_gpt-4-0613_excerpt.jsonl"
MTBENCH_SAMPLE = ARENA / "mtbench_gpt-4_pair_phi3_sample.jsonl.gz"
SHARED_MT = SHARED / "arena" / "mtbench_gpt-4_pair_phi3.jsonl.gz"

# lmarena/arena-hard-auto @ 196f6b8, leaderboard/arena_hard_leaderboard_20240731.csv (judge gpt-4-1106-preview,
# baseline gpt-4-0314): model -> (score, rating_q025, rating_q975), in percent
PUBLISHED = {"gpt-4-0613": (37.90, 35.60, 40.36), "gpt-3.5-turbo-0125": (23.34, 21.67, 25.27)}


def _jsonl(path) -> list[dict]:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _write_jsonl(path, records) -> str:
    with open(path, "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r) + "\n")
    return str(path)


def _one_line(exc: BaseException) -> str:
    msg = str(exc)
    assert "\n" not in msg, msg
    return msg


def _code(df, code):
    return [n for n in df.attrs["notes"] if n["code"] == code]


def _judgment(qid, model, s1, s2, *, key="question_id", baseline=None):
    rec = {key: qid, "model": model, "judge": "gpt-4-1106-preview",
           "games": [None if s1 is None else {"score": s1}, None if s2 is None else {"score": s2}]}
    if baseline is not None:
        rec["baseline"] = baseline
    return rec


# ----------------------------------------------------------------------------------- battles tables
def test_shared_arenahard_sample_reads_exactly():
    df = read_battles(shared_file("arenahard_battles.csv.gz"))
    assert list(df.columns) == ["model_a", "model_b", "score", "winner", "weight", "cluster"]
    assert len(df) == 600 and df["weight"].sum() == 1348                    # SOURCES.md: 600 battles, weight 1,348
    assert df["winner"].value_counts().to_dict() == {"model_b": 492, "model_a": 85, "tie": 23}
    assert df["weight"].value_counts().to_dict() == {3.0: 374, 1.0: 226}
    assert df["cluster"].nunique() == 100 and set(df["model_a"]) == {"claude-3-haiku-20240307"}
    # SOURCES.md's sanity table: model_b's weighted win rate (ties half)
    wr = df.assign(s=(1 - df.score) * df.weight).groupby("model_b").apply(lambda g: g.s.sum() / g.weight.sum())
    assert round(wr["claude-3-5-sonnet-20240620"], 3) == 0.909 and round(wr["gpt-4o"], 3) == 0.910
    notes = {n["code"]: n for n in df.attrs["notes"]}
    assert notes["read"]["battles"] == 600 and notes["dropped"]["rows"] == 0
    assert notes["columns_ignored"]["columns"] == ["game"]
    assert notes["rows_per_prompt_and_pair"]["counts"] == {2: 300}          # two games per question and model


def test_table_layouts_give_the_same_battles(tmp_path):
    base = pd.DataFrame({"model_a": ["A", "B", "A", "C"], "model_b": ["B", "C", "C", "A"],
                         "winner": ["model_a", "tie (bothbad)", "model_b", "tie"], "question_id": [1, 1, 2, 2]})
    ref = read_battles(base)
    assert ref["score"].tolist() == [1.0, 0.5, 0.0, 0.5]
    assert ref["cluster"].tolist() == ["1", "1", "2", "2"]                 # ids are text
    hot = base.drop(columns="winner").assign(winner_model_a=[1, 0, 0, 0], winner_model_b=[0, 0, 1, 0],
                                             winner_tie=[0, 1, 0, 1])      # arena-human-preference-55k layout
    assert read_battles(hot)["score"].tolist() == [1.0, 0.5, 0.0, 0.5]
    scored = base.drop(columns="winner").assign(score=[1, 0.5, 0, 0.25])
    s = read_battles(scored)
    assert s["winner"].tolist() == ["model_a", "tie", "model_b", ""]       # a probability has no label
    renamed = base.rename(columns={"question_id": "prompt"})
    assert "cluster" not in read_battles(renamed).columns
    assert read_battles(renamed, prompt="prompt")["cluster"].tolist() == ["1", "1", "2", "2"]
    assert "cluster" not in read_battles(base, prompt="").columns


def test_judge_user_turn_and_style_columns_pass_through():
    df = pd.DataFrame({"model_a": ["A"], "model_b": ["B"], "winner": ["both_bad"], "annotator": ["gpt-4"],
                       "user_id": ["u7"], "turn": [2], "style_a_tokens": [10], "style_b_tokens": [30]})
    out = read_battles(df)
    assert out.iloc[0].to_dict() == {"model_a": "A", "model_b": "B", "score": 0.5, "winner": "both_bad",
                                     "weight": 1.0, "judge": "gpt-4", "user": "u7", "turn": 2,
                                     "style_a_tokens": 10.0, "style_b_tokens": 30.0}


@pytest.mark.parametrize("kind", ["csv", "csv.gz", "tsv", "parquet", "jsonl", "polars"])
def test_round_trip_through_every_table_kind(kind, tmp_path):
    src = pd.DataFrame({"model_a": ["NA", "001", "m/ü", "1.10"], "model_b": ["x", "NA", "001", "m/ü"],
                        "score": [1.0, 0.25, 0.5, 0.0], "weight": [1.0, 3.0, 1.0, 2.5],
                        "cluster": ["q1", "q1", "0002", "q3"], "judge": ["j", "j", "k", "k"]})
    ref = read_battles(src)
    path = tmp_path / f"b.{kind}"
    out = ref.drop(columns=[])
    if kind == "polars":
        pl = pytest.importorskip("polars", reason="needs polars for the polars input")
        got = read_battles(pl.from_pandas(out))
        pd.testing.assert_frame_equal(read_battles(pl.from_pandas(out).lazy()), got)
    else:
        if kind == "parquet":
            out.to_parquet(path, index=False)
        elif kind == "jsonl":
            out.to_json(path, orient="records", lines=True)
        else:
            out.to_csv(path, index=False, sep="\t" if kind == "tsv" else ",",
                       compression="gzip" if kind.endswith("gz") else None)
        got = read_battles(path)
    # the same numbers written and read back: exact (they are printed with repr precision and parsed)
    pd.testing.assert_frame_equal(got.reset_index(drop=True), ref, check_dtype=False)
    assert got["model_a"].tolist() == ["NA", "001", "m/ü", "1.10"]         # names exactly as written


def test_a_folder_and_a_list_read_alike_and_skip_other_files(tmp_path):
    recs = _jsonl(JUDGMENTS_BATTLES)
    recs = [r for r in recs if r["model_b"] != "truth_model"]
    _write_jsonl(tmp_path / "battles.jsonl", recs[:50])
    _write_jsonl(tmp_path / "more.jsonl", recs[50:])
    (tmp_path / "question.jsonl").write_text('{"uid": "q1", "turns": [{"content": "hi"}]}\n')
    both = read_battles(tmp_path)
    assert len(both) == len(recs)
    assert _code(both, "skipped") == [{"code": "skipped", "source": str(tmp_path / "question.jsonl"), "format": None}]
    listed = read_battles([tmp_path / "battles.jsonl", tmp_path / "more.jsonl"])
    pd.testing.assert_frame_equal(both, listed)


# ------------------------------------------------------------------------------------ Arena-Hard
def _game_multiset(df) -> collections.Counter:
    return collections.Counter(zip(df["cluster"], df["model_a"], df["model_b"], df["winner"]))


def test_arena_hard_v01_games_match_the_battles_its_show_result_wrote():
    """The sign of game 2: our rows equal, game by game, the battles file that the same fork's show_result.py
    (get_battles_from_judgment) wrote from these judgments (BinaryFiddler/arena-hard-auto @ c585bf4)."""
    files = sorted(str(p) for p in JUDGMENTS.glob("*.jsonl.gz") if "truth_model" not in p.name)
    ours = read_battles(files, baseline="truth_model")
    theirs = pd.DataFrame(_jsonl(JUDGMENTS_BATTLES))
    theirs = theirs[theirs.model_b.isin({"mistral-7b", "dolphin-miner"})]
    assert len(ours) == len(theirs) == 40
    assert _game_multiset(ours) == _game_multiset(theirs.rename(columns={"question_id": "cluster"}))
    # the check can fail: reading game 2 without swapping the positions disagrees with the repo's file
    records = [r for f in files for r in _jsonl(f)]
    unswapped = collections.Counter()
    for r in records:
        for g in r["games"]:
            s = ARENA_HARD_LABELS[g["score"]][0]
            unswapped[(r["question_id"], "truth_model", r["model"], {1.0: "model_a", 0.0: "model_b"}.get(s, "tie"))] += 1
    assert unswapped != _game_multiset(ours)
    assert ours["judge"].unique().tolist() == ["gpt-4-1106-preview"]
    assert all(n["counts"] == {2: 10} for n in _code(ours, "rows_per_prompt_and_pair"))


def test_arena_hard_v2_records_match_the_official_v01_battles():
    """The same four official gpt-4-0613 judgments, once as v2-format records (uid, baseline in the record)
    and once in the v0.1 battles file the official show_result wrote (gpt-4-0314 is model_a in both)."""
    v2 = read_battles(V2_EXCERPT)
    assert v2["score"].tolist() == [1.0, 1.0, 0.5, 0.5, 1.0, 1.0, 0.5, 1.0]
    assert set(v2["model_a"]) == {"gpt-4-0314"} and set(v2["model_b"]) == {"gpt-4-0613"}
    official = pd.DataFrame(_jsonl(OFFICIAL))
    official = official[official.question_id.isin(set(v2["cluster"])) & (official.model_b == "gpt-4-0613")]
    assert _game_multiset(v2) == _game_multiset(official.rename(columns={"question_id": "cluster"}))


def test_strong_verdicts_are_one_row_of_weight_three(tmp_path):
    p = _write_jsonl(tmp_path / "m.jsonl", [_judgment("q1", "m", "A>>B", "A>>B", baseline="base"),
                                            _judgment("q2", "m", "B>A", "B<<A", key="uid", baseline="base"),
                                            _judgment("q3", "m", "A=B", "B=A", key="uid", baseline="base")])
    plain = read_battles(p)
    strong = read_battles(p, weight_strong=True)
    assert len(plain) == len(strong) == 6                                   # never replicated rows
    assert strong["weight"].tolist() == [3.0, 3.0, 1.0, 3.0, 1.0, 1.0]      # B<<A is strong too (v2)
    assert plain["weight"].tolist() == [1.0] * 6
    # game 1: baseline is A; game 2: the model is A (A>>B there = the model wins; B<<A = A wins = the model)
    assert strong["score"].tolist() == [1.0, 0.0, 0.0, 0.0, 0.5, 0.5]
    assert strong["winner"].tolist() == ["model_a", "model_b", "model_b", "model_b", "tie", "tie"]
    assert _code(strong, "strong_verdicts")[0]["games"] == 3
    assert read_battles(p, weight_strong=5)["weight"].max() == 5.0          # Arena-Hard's --weight
    # weight 3 as an analytic weight gives Arena-Hard's point estimate (its 3 rows): the same weighted share
    rows = np.repeat(strong["score"].to_numpy(), strong["weight"].to_numpy().astype(int))
    assert np.average(strong["score"], weights=strong["weight"]) == pytest.approx(rows.mean(), rel=1e-15)


def test_unjudged_games_are_left_out_as_each_version_does(tmp_path):
    v01 = _write_jsonl(tmp_path / "v01.jsonl", [_judgment("q1", "m", None, "A>B"), _judgment("q2", "m", "A>B", "B>A")])
    out = read_battles(v01, baseline="base")                                # v0.1 show_result: drop the game
    assert len(out) == 3
    assert _code(out, "dropped")[0] == {"code": "dropped", "source": v01, "rows": 1, "reasons": {"unjudged_game": 1}}
    v2 = _write_jsonl(tmp_path / "v2.jsonl", [_judgment("q1", "m", "A>B", None, key="uid", baseline="base"),
                                              _judgment("q2", "m", "A>B", "B>A", key="uid", baseline="base")])
    out = read_battles(v2)                                                  # v2 show_result: drop the record
    assert len(out) == 2 and out["cluster"].unique().tolist() == ["q2"]
    assert _code(out, "dropped")[0]["reasons"] == {"record_with_unjudged_game": 1}


def test_arena_hard_needs_its_baseline(tmp_path):
    files = [str(JUDGMENTS / "mistral-7b.jsonl.gz")]
    with pytest.raises(rt.DataError, match=r"mistral-7b\.jsonl\.gz: line 1: the judgment names no baseline.*`baseline`") as e:
        read_battles(files)
    assert e.value.param == "baseline"
    _one_line(e.value)
    # a record that names its baseline keeps it: `baseline` only fills the records that name none (v0.1)
    assert set(read_battles(V2_EXCERPT, baseline="x")["model_a"]) == {"gpt-4-0314"}


def test_a_v2_folder_with_two_baselines_reads_whole_whatever_baseline_says(tmp_path):
    """Arena-Hard v2 judges hard prompts against o3-mini and creative writing against gemini-2.0-flash:
    `baseline` (as `ranktrust arena --baseline` passes it) must not refuse the records of the other one."""
    d = tmp_path / "model_judgment"
    d.mkdir()
    _write_jsonl(d / "m1.jsonl", [_judgment("h1", "m1", "A>B", "B>A", key="uid", baseline="o3-mini"),
                                  _judgment("c1", "m1", "B>A", "A>B", key="uid", baseline="gemini-flash")])
    _write_jsonl(d / "m2.jsonl", [_judgment("h1", "m2", "B>>A", "A>>B", key="uid", baseline="o3-mini"),
                                  _judgment("c1", "m2", "A=B", "B=A", key="uid", baseline="gemini-flash")])
    for base in (None, "o3-mini", "gemini-flash"):
        out = read_battles(str(d), baseline=base)
        assert len(out) == 8
        assert out.groupby("model_a").size().to_dict() == {"gemini-flash": 4, "o3-mini": 4}


def test_the_baseline_judged_against_itself_is_left_out_and_said(tmp_path):
    """The fork's judge config names baseline truth_model, and its folder holds truth_model.jsonl: the baseline
    judged against itself, which says nothing about the ranking (its show_result.py wrote those 20 games as
    self-battles). The folder is read (it was refused whole), that file skipped with a note that rt.arena
    reports; the file named alone is an error; a self-record among others is left out and counted."""
    df = read_battles(JUDGMENTS, baseline="truth_model")
    assert len(df) == 40 and set(df["model_a"]) == {"truth_model"} and "truth_model" not in set(df["model_b"])
    (sk,) = _code(df, "skipped")
    assert sk == {"code": "skipped", "source": str(JUDGMENTS / "truth_model.jsonl.gz"), "format": "arena_hard",
                  "why": "baseline_against_itself"}
    # the same battles as the fork's own battles file without its self-battles
    ref = pd.read_json(JUDGMENTS_BATTLES, lines=True)
    ref = ref[ref["model_b"].isin(["mistral-7b", "dolphin-miner"])]
    assert len(ref) == 40
    with pytest.warns(rt.SmallSampleWarning, match="only 10 clusters"):   # 10 questions
        r = rt.arena(JUDGMENTS, baseline="truth_model", n_resamples=50)
    (note,) = [n for n in r.notes if n.code == "battles_skipped"]
    assert note_text(note) == (f"{JUDGMENTS / 'truth_model.jsonl.gz'}: skipped, every record is the baseline judged "
                               "against itself (its own judgment file; no information on the ranking)")
    with pytest.raises(rt.DataError, match=r"truth_model\.jsonl\.gz: every judgment is the baseline judged against "
                                           r"itself .*nothing to rank") as e:
        read_battles(JUDGMENTS / "truth_model.jsonl.gz", baseline="truth_model")
    _one_line(e.value)
    # one self-record among others: left out, counted in the dropped note
    recs = [json.loads(line) for line in gzip.open(JUDGMENTS / "mistral-7b.jsonl.gz", "rt")]
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("".join(json.dumps(r) + "\n" for r in [*recs, {**recs[0], "model": "truth_model"}]))
    df = read_battles(mixed, baseline="truth_model")
    assert len(df) == 20 and _code(df, "dropped")[0]["reasons"] == {"baseline_against_itself": 1}
    # a battles table is another matter: a model against itself there is an error, as before
    bad = tmp_path / "self.csv"
    bad.write_text("model_a,model_b,winner\nx,x,tie\nx,y,model_a\n")
    with pytest.raises(rt.DataError, match=r"self.csv: line 2: model_a and model_b are both 'x', a model against "
                                           r"itself \(1 such rows\)"):
        read_battles(bad)


# ------------------------------------------------------------------------ AlpacaEval, MT-Bench, clean_battle
def _alpaca(prefs) -> list[dict]:
    return [{"instruction": f"instruction {i}", "output_1": "o1", "generator_1": "gpt4_1106_preview",
             "output_2": "o2", "generator_2": "model-x", "annotator": "weighted_alpaca_eval_gpt4_turbo",
             "preference": p} for i, p in enumerate(prefs)]


def test_alpaca_eval_annotations(tmp_path):
    prefs = [1, 2, 1.5, 0, 1.25, None, "1.7"]
    p = tmp_path / "annotations.json"
    p.write_text(json.dumps(_alpaca(prefs)))
    df = read_battles(p)
    assert _code(df, "read")[0]["format"] == "alpaca_eval"
    assert df["score"].tolist() == pytest.approx([1.0, 0.0, 0.5, 0.5, 0.75, 0.3], rel=1e-15)
    assert df["winner"].tolist() == ["model_a", "model_b", "tie", "tie", "", ""]
    assert set(df["model_a"]) == {"gpt4_1106_preview"} and set(df["model_b"]) == {"model-x"}
    assert df["cluster"].tolist()[:2] == ["instruction 0", "instruction 1"]
    assert set(df["judge"]) == {"weighted_alpaca_eval_gpt4_turbo"}
    assert _code(df, "dropped")[0]["reasons"] == {"no_preference": 1}
    # AlpacaEval's win_rate: mean(preference - 1) * 100 over the preferences it keeps (0 -> 1.5)
    kept = [1.5 if x == 0 else float(x) for x in prefs if x is not None]
    assert 100 * (1 - df["score"]).mean() == pytest.approx(100 * (np.mean(kept) - 1), rel=1e-14)


# tatsu-lab/alpaca_eval @ cd543a1: src/alpaca_eval/leaderboards/data_AlpacaEval_2/
# weighted_alpaca_eval_gpt4_turbo_leaderboard.csv, model -> (win_rate, standard_error)
ALPACA_PUBLISHED = {"FuseChat-Llama-3.1-8B-Instruct": (63.33158292362734, 1.4225069834256892),
                    "alpaca-7b": (2.591450540223603, 0.4870855382635108)}


def test_alpaca_eval_published_win_rates_from_genuine_preferences(tmp_path):
    """annotations.json records rebuilt from the genuine weighted preferences (../shared, CC BY-NC, never
    copied here; stored there as preference - 1 to 6 decimals): AlpacaEval's win_rate and standard_error."""
    prefs = pd.read_csv(shared_file("alpacaeval2_weighted.csv.gz"))
    for model, (win_rate, se) in ALPACA_PUBLISHED.items():
        rows = prefs[prefs.model == model]
        recs = [{"instruction": i, "generator_1": "gpt4_1106_preview", "generator_2": model,
                 "annotator": "weighted_alpaca_eval_gpt4_turbo", "preference": 1 + s}
                for i, s in zip(rows["item"], rows["score"])]
        p = tmp_path / f"{model}.json"
        p.write_text(json.dumps(recs))
        x = 1 - read_battles(p)["score"].to_numpy()
        assert len(x) == 805
        assert abs(100 * x.mean() - win_rate) < 1e-3                          # 6-decimal storage: 1e-4 at most
        assert abs(100 * x.std(ddof=1) / math.sqrt(len(x)) - se) < 1e-3


def test_mt_bench_pairwise_sample():
    df = read_battles(MTBENCH_SAMPLE)
    # lines 7-10, 21, 74, 75 of the genuine file: (model_1, tie), (2, 2), (2, 2), (1, 1), (tie, tie), errors
    assert df["score"].tolist() == [0.5, 0.0, 0.0, 1.0, 0.5]
    assert df["winner"].tolist() == ["tie", "model_b", "model_b", "model_a", "tie"]
    assert df["cluster"].tolist() == ["87", "88", "89", "90", "131"]
    assert set(df["judge"]) == {"gpt-4/pair-v2"} and set(df["turn"]) == {1}
    assert _code(df, "inconsistent_as_tie")[0]["judgments"] == 1
    assert _code(df, "dropped")[0]["reasons"] == {"error_verdict": 2}


def test_mt_bench_full_file_matches_fastchat_show_result():
    df = read_battles(shared_file("arena/mtbench_gpt-4_pair_phi3.jsonl.gz"))
    # FastChat llm_judge/show_result.py display_result_pairwise, restated: error rows out; a tie in game 1
    # or two games that disagree is a tie; win_rate_adjusted = (win + tie / 2) / n for model_1
    res = collections.Counter()
    for r in _jsonl(SHARED_MT):
        if "error" in (r["g1_winner"], r["g2_winner"]):
            continue
        res["n"] += 1
        if r["g1_winner"] == "tie" or r["g1_winner"] != r["g2_winner"]:
            res["tie"] += 1
        elif r["g1_winner"] == "model_1":
            res["win"] += 1
    assert len(df) == res["n"] == 73
    assert _code(df, "inconsistent_as_tie")[0]["judgments"] == 27
    assert df["score"].mean() == pytest.approx((res["win"] + res["tie"] / 2) / res["n"], rel=1e-14)


def test_mt_bench_single_grading_is_refused(tmp_path):
    p = _write_jsonl(tmp_path / "gpt-4_single.jsonl", [{"question_id": 81, "model": "m", "judge": ["gpt-4", "single-v1"],
                                                       "score": 8, "turn": 1}])
    with pytest.raises(rt.FormatError, match=r"single-answer grading.*`rt.read`"):
        read_battles(p)
    with pytest.raises(rt.FormatError, match=r"line 1: this is MT-Bench single-answer grading"):
        read_battles(p, format="mt_bench")


def test_clean_battle_json_with_conv_metadata(tmp_path):
    meta = {"sum_assistant_a_tokens": 1854, "header_count_a": {"h1": 0, "h2": 0, "h3": 8, "h4": 0, "h5": 0, "h6": 0},
            "list_count_a": {"ordered": 0, "unordered": 39}, "bold_count_a": {"**": 65, "__": 0},
            "context_a_tokens": 11, "sum_assistant_b_tokens": 264,
            "header_count_b": {"h1": 1, "h2": 0, "h3": 0, "h4": 0, "h5": 0, "h6": 0},
            "list_count_b": {"ordered": 3, "unordered": 2}, "bold_count_b": {"**": 0, "__": 1}}
    battles = [
        {"question_id": "c0fc", "model_a": "vicuna-13b", "model_b": "koala-13b", "winner": "model_a",
         "judge": "arena_user_973", "conversation_a": [{"role": "user", "content": "hi"}], "turn": 1, "anony": True,
         "language": "English", "tstamp": 1682351591.1, "conv_metadata": meta},
        {"question_id": "d1e2", "model_a": "koala-13b", "model_b": "vicuna-13b", "winner": "tie (bothbad)",
         "judge": "arena_user_12", "turn": 2, "anony": True, "language": "English", "tstamp": 1682351600.0,
         "conv_metadata": meta},
    ]
    p = tmp_path / "clean_battle_20240814_public.json"
    p.write_text(json.dumps(battles))
    assert sniff_battles(str(p)) == "clean_battle"
    df = read_battles(p)
    row = df.iloc[0]
    assert (row.style_a_tokens, row.style_a_headers, row.style_a_lists, row.style_a_bold) == (1854, 8, 39, 65)
    assert (row.style_b_tokens, row.style_b_headers, row.style_b_lists, row.style_b_bold) == (264, 1, 5, 1)
    assert df["winner"].tolist() == ["model_a", "tie (bothbad)"] and df["score"].tolist() == [1.0, 0.5]
    assert df["judge"].tolist() == ["arena_user_973", "arena_user_12"] and df["turn"].tolist() == [1, 2]
    ignored = _code(df, "columns_ignored")[0]["columns"]
    assert {"conversation_a", "anony", "language", "tstamp"} <= set(ignored)
    simple = [{k: v for k, v in b.items() if k not in ("question_id", "conv_metadata")} for b in battles]
    p.write_text(json.dumps(simple))                                        # FastChat's "simple" mode
    df = read_battles(p)
    assert "cluster" not in df.columns and not any(c.startswith("style_") for c in df.columns)


# ----------------------------------------------------------------------------------------- sniffing
def test_each_fixture_is_recognised_by_its_content(tmp_path):
    assert sniff_battles(str(OFFICIAL)) == "table"
    assert sniff_battles(str(JUDGMENTS / "mistral-7b.jsonl.gz")) == "arena_hard"
    assert sniff_battles(str(V2_EXCERPT)) == "arena_hard"
    assert sniff_battles(str(MTBENCH_SAMPLE)) == "mt_bench"
    p = tmp_path / "annotations.json"
    p.write_text(json.dumps(_alpaca([1, 2])))
    assert sniff_battles(str(p)) == "alpaca_eval"
    assert set(FORMATS) == {"table", "clean_battle", "arena_hard", "alpaca_eval", "mt_bench"}


def test_format_overrides_the_sniffer(tmp_path):
    # an Arena-Hard battles file named .json that holds JSON lines is still read as a table when told so
    p = tmp_path / "battles.json"
    p.write_text(gzip.decompress(OFFICIAL.read_bytes()).decode())
    assert len(read_battles(p, format="table")) == 2658
    with pytest.raises(rt.DataError, match=r"line 1: not an MT-Bench pairwise judgment"):
        read_battles(p, format="mt_bench")
    with pytest.raises(rt.ArgumentError, match=r"`format` must be one of 'auto', 'table'"):
        read_battles(p, format="csv")


# ----------------------------------------------------------------------------------------- bad rows
BAD_TABLES = {
    "unknown winner": ("model_a,model_b,winner\nA,B,model_a\nA,B,draw\n",
                       r"b\.csv: line 3: winner 'draw' is not a known label"),
    "self battle": ("model_a,model_b,winner\nA,B,tie\nA,A,model_a\n",
                    r"b\.csv: line 3: model_a and model_b are both 'A', a model against itself"),
    "missing model": ("model_a,model_b,winner\nA,B,tie\n,B,model_a\n", r"b\.csv: line 3: model_a is missing"),
    "missing prompt id": ("model_a,model_b,winner,question_id\nA,B,tie,q1\nA,B,tie,\n",
                          r"b\.csv: line 3: the prompt id \(cluster\) is missing.*an empty `prompt` \(''\)"),
    "zero weight": ("model_a,model_b,winner,weight\nA,B,tie,1\nA,B,tie,0\n",
                    r"b\.csv: line 3: weight 0 is not a positive number"),
    "negative weight": ("model_a,model_b,winner,weight\nA,B,tie,-1\n", r"b\.csv: line 2: weight -1 is not a positive"),
    "weight not a number": ("model_a,model_b,winner,weight\nA,B,tie,x\n", r"b\.csv: line 2: weight 'x' is not a number"),
    "score out of range": ("model_a,model_b,score\nA,B,1.5\n", r"b\.csv: line 2: score 1\.5 is not a number in \[0, 1\]"),
    "missing winner": ("model_a,model_b,winner\nA,B,\n", r"b\.csv: line 2: winner is missing"),
    "no outcome": ("model_a,model_b,result\nA,B,1\n", r"b\.csv: no outcome column"),
    "no model_b": ("model_a,opponent,winner\nA,B,tie\n", r"b\.csv: no 'model_b' column"),
    "winner contradicts score": ("model_a,model_b,winner,score\nA,B,model_a,0\n", r"line 2: winner 'model_a' disagrees"),
    "empty": ("", r"b\.csv: the file is empty"),
    "header only": ("model_a,model_b,winner\n", r"b\.csv: no battles in this source"),
}


@pytest.mark.parametrize("case", sorted(BAD_TABLES))
def test_bad_table_rows_get_one_line_naming_the_file_and_row(case, tmp_path):
    text, pattern = BAD_TABLES[case]
    p = tmp_path / "b.csv"
    p.write_text(text)
    with pytest.raises(rt.DataError, match=pattern) as e:
        read_battles(p)
    _one_line(e.value)


def test_bad_dataframe_rows_are_named_by_their_index():
    df = pd.DataFrame({"model_a": ["A", "B"], "model_b": ["B", "B"], "winner": ["tie", "tie"]}, index=[10, 11])
    with pytest.raises(rt.DataError, match=r"^`battles`: row 11: model_a and model_b are both 'B'"):
        read_battles(df)


@pytest.mark.parametrize("record, pattern", [
    (_judgment("q1", "m", "A>B", "A>>>B", baseline="b"), r"line 1: game 2 has verdict 'A>>>B', not one of A>>B"),
    (_judgment(None, "m", "A>B", "B>A", baseline="b"), r"line 1: the prompt id \(cluster\) is missing"),
    (_judgment("q1", None, "A>B", "B>A", baseline="b"), r"line 1: model_b is missing"),
    ({"question_id": "q1", "model": "m", "games": [{"score": "A>B"}] * 3, "baseline": "b"},
     r"line 1: `games` must list the 1 or 2 judged games"),
])
def test_bad_arena_hard_records(record, pattern, tmp_path):
    p = _write_jsonl(tmp_path / "m.jsonl", [record])
    with pytest.raises(rt.DataError, match=pattern) as e:
        read_battles(p)
    _one_line(e.value)


@pytest.mark.parametrize("prefs, pattern", [([1, 2.5], r"record 2: preference 2\.5 is outside \[1, 2\]"),
                                            (["left"], r"record 1: preference 'left' is not a number")])
def test_bad_alpaca_eval_preferences(prefs, pattern, tmp_path):
    p = tmp_path / "annotations.json"
    p.write_text(json.dumps(_alpaca(prefs)))
    with pytest.raises(rt.DataError, match=pattern):
        read_battles(p)


def test_bad_mt_bench_label_and_empty_inputs(tmp_path):
    p = _write_jsonl(tmp_path / "gpt-4_pair.jsonl", [{"question_id": 1, "model_1": "a", "model_2": "b",
                                                      "g1_winner": "model_3", "g2_winner": "tie"}])
    with pytest.raises(rt.DataError, match=r"line 1: g1_winner 'model_3' is not one of model_1, model_2, tie"):
        read_battles(p)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(rt.DataError, match=r"empty\.jsonl: the file is empty"):
        read_battles(empty, format="arena_hard")
    folder = tmp_path / "nothing"
    folder.mkdir()
    (folder / "notes.txt").write_text("x")
    with pytest.raises(rt.DataError, match=r"nothing: no battle files in this folder"):
        read_battles(folder)
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"prompt": "x"}\n')
    with pytest.raises(rt.FormatError, match=r"odd\.jsonl: not a battles file \(its first record has keys 'prompt'\)"):
        read_battles(odd)
    with pytest.raises(rt.ArgumentError, match=r"`weight_strong` must be True"):
        read_battles(odd, weight_strong=0.5)


# ----------------------------------------------------------------------------------------- properties
names = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1, max_size=6)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_swapping_sides_with_one_minus_score_is_the_same_battle(data):
    n = data.draw(st.integers(1, 12))
    pairs = data.draw(st.lists(st.tuples(names, names).filter(lambda t: t[0] != t[1]), min_size=n, max_size=n))
    scores = data.draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=n, max_size=n))
    weights = data.draw(st.lists(st.sampled_from([1.0, 3.0, 0.5]), min_size=n, max_size=n))
    df = pd.DataFrame({"model_a": [a for a, _ in pairs], "model_b": [b for _, b in pairs], "score": scores,
                       "weight": weights, "style_a_tokens": range(n), "style_b_tokens": range(100, 100 + n)})
    fwd = read_battles(df)
    rev = read_battles(df.rename(columns={"model_a": "model_b", "model_b": "model_a", "style_a_tokens": "style_b_tokens",
                                          "style_b_tokens": "style_a_tokens"}).assign(score=1 - df["score"]))
    assert fwd["model_a"].tolist() == rev["model_b"].tolist() and fwd["model_b"].tolist() == rev["model_a"].tolist()
    np.testing.assert_array_equal(fwd["score"], 1 - rev["score"])          # 1 - (1 - s) is exact on these quarters
    np.testing.assert_array_equal(fwd["style_a_tokens"], rev["style_b_tokens"])
    swap = {"model_a": "model_b", "model_b": "model_a", "tie": "tie", "": ""}
    assert [swap[w] for w in fwd["winner"]] == rev["winner"].tolist()
    # every model's weighted share of wins is the same read either way round
    def shares(t):
        s = collections.defaultdict(float)
        for a, b, x, w in zip(t.model_a, t.model_b, t.score, t.weight):
            s[a] += w * x
            s[b] += w * (1 - x)
        return dict(s)
    f, r = shares(fwd), shares(rev)
    assert f.keys() == r.keys() and all(math.isclose(f[k], r[k], rel_tol=1e-12) for k in f)


@settings(max_examples=25, deadline=None)
@given(labels=st.lists(st.sampled_from(sorted(ARENA_HARD_LABELS)), min_size=2, max_size=2),
       strong=st.booleans())
def test_a_judgment_and_its_mirror_give_opposite_games(labels, strong, tmp_path_factory):
    """Swapping the two games' assistants (A<->B in both verdicts) turns each game's score s into 1 - s."""
    mirror = {k: k.replace("A", "#").replace("B", "A").replace("#", "B") for k in ARENA_HARD_LABELS}
    d = tmp_path_factory.mktemp("ah")
    p = _write_jsonl(d / "a.jsonl", [_judgment("q", "m", *labels, baseline="b")])
    q = _write_jsonl(d / "b.jsonl", [_judgment("q", "m", *(mirror[x] for x in labels), baseline="b")])
    one, two = read_battles(p, weight_strong=strong), read_battles(q, weight_strong=strong)
    np.testing.assert_array_equal(one["score"], 1 - two["score"])
    np.testing.assert_array_equal(one["weight"], two["weight"])


# ------------------------------------------------------------------------------- published numbers
def test_official_arena_hard_win_rates_reproduced():
    """Arena-Hard v0.1 (judge gpt-4-1106-preview, baseline gpt-4-0314): the official battles of gpt-4-0613 and
    gpt-3.5-turbo-0125 give the published scores to 0.01 points, with nothing but the weighted mean."""
    df = read_battles(OFFICIAL)
    assert len(df) == 2658 and set(df.model_a) == {"gpt-4-0314"}
    for model, (score, _, _) in PUBLISHED.items():
        mine = df[df.model_b == model]
        wr = 100 * np.average(1 - mine["score"], weights=mine["weight"])
        assert abs(wr - score) < 0.01, (model, wr)
        assert abs(wr - score) < 0.005                                          # the CSV rounds to 2 decimals


def test_official_arena_hard_intervals_reproduced_with_rt_arena():
    """rt.arena's per-battle interval of the win rate against the baseline (`cluster_by`=None, the way Arena-Hard
    resamples rows) matches the published 2.5/97.5% bootstrap bounds to half a point; clustering by question
    (the default) widens it."""
    df = read_battles(OFFICIAL)
    per_battle = {m["model"]: m for m in rt.arena(df, baseline="gpt-4-0314", cluster_by=None, rng=0).to_dict()["models"]}
    clustered = {m["model"]: m for m in rt.arena(df, baseline="gpt-4-0314", rng=0).to_dict()["models"]}
    for model, (score, lo, hi) in PUBLISHED.items():
        m = per_battle[model]
        assert abs(100 * m["win_rate"] - score) < 0.01
        assert abs(100 * m["win_rate_ci_low"] - lo) < 0.5 and abs(100 * m["win_rate_ci_high"] - hi) < 0.5, m
        c = clustered[model]
        assert c["win_rate_ci_high"] - c["win_rate_ci_low"] > 1.2 * (m["win_rate_ci_high"] - m["win_rate_ci_low"])


def test_replicated_strong_verdicts_of_a_battles_file_become_one_weighted_row():
    """`weight_strong` on Arena-Hard's own battles file: each game once again, a strong one with weight 3. The point
    estimate is unchanged (an analytic weight is the replication); the per-battle interval widens to what the
    1,000 games per model support, and the interval clustered by question is the same either way."""
    rows = read_battles(OFFICIAL)
    games = read_battles(OFFICIAL, weight_strong=True)
    note = _code(games, "replicated_rows_collapsed")[0]
    assert (note["rows"], note["games"], note["strong_games"]) == (2658, 2000, 329)
    assert _code(rows, "rows_per_prompt_and_pair")[0]["counts"] == {2: 759, 4: 153, 6: 88}
    assert _code(games, "rows_per_prompt_and_pair")[0]["counts"] == {2: 1000}      # two games per question
    for model, (score, _, _) in PUBLISHED.items():
        g = games[games.model_b == model]
        assert len(g) == 1000 and abs(100 * np.average(1 - g.score, weights=g.weight) - score) < 0.005
    def ci(df, cluster_by):
        return {m["model"]: (m["win_rate_ci_low"], m["win_rate_ci_high"])
                for m in rt.arena(df, baseline="gpt-4-0314", cluster_by=cluster_by, rng=0).to_dict()["models"]}
    per_row, per_game = ci(rows, None), ci(games, None)
    by_q_rows, by_q_games = ci(rows, "auto"), ci(games, "auto")
    for model in PUBLISHED:
        assert per_game[model][1] - per_game[model][0] > 1.2 * (per_row[model][1] - per_row[model][0])
        # the same question clusters hold the same weighted outcomes: equal up to rounding (sums in another order)
        np.testing.assert_allclose(by_q_games[model], by_q_rows[model], rtol=1e-9)


def test_replicated_rows_rebuild_the_shared_sample():
    """The shared sample's 600 games (weights 1 and 3), written out as show_result.py writes them, read back."""
    sample = pd.read_csv(shared_file("arenahard_battles.csv.gz"), dtype=str, keep_default_na=False)
    written = sample.loc[sample.index.repeat(sample.weight.astype(int))].drop(columns=["weight", "game"])
    back = read_battles(written, weight_strong=True)
    ref = read_battles(sample)
    key = lambda t: sorted(zip(t.cluster, t.model_b, t.score, t.weight))  # noqa: E731
    assert len(back) == 600 and key(back) == key(ref)


@pytest.mark.parametrize("text, kw, error, pattern", [
    ("question_id,model_a,model_b,winner\n1,b,m,model_a\n2,b,m,model_b\n1,b,m,model_a\n", {}, rt.DataError,
     r"line 4: the rows of question '1', 'b' against 'm' are not together"),
    ("question_id,model_a,model_b,winner\n" + "1,b,m,model_a\n" * 5, {}, rt.DataError,
     r"line 2: question '1', 'b' against 'm' has runs of 5 equal rows"),
    ("question_id,model_a,model_b,winner\n1,b,m,model_a\n1,b,m,tie\n1,b,m,model_b\n", {}, rt.DataError,
     r"has runs of 1, 1, 1 equal rows"),
    ("question_id,model_a,model_b,winner,weight\n1,b,m,model_a,1\n", {}, rt.DataError,
     r"this table has its own `weight` column"),
    ("model_a,model_b,winner\nb,m,model_a\n", {"prompt": ""}, rt.DataError, r"it needs the question ids"),
    ("question_id,model_a,model_b,winner\n1,b,m,model_a\n", {"weight_strong": 2.5}, rt.ArgumentError,
     r"must be a whole number >= 3"),
])
def test_replicated_rows_that_are_not_arena_hard_are_refused(text, kw, error, pattern, tmp_path):
    p = tmp_path / "battles.csv"
    p.write_text(text)
    with pytest.raises(error, match=pattern) as e:
        read_battles(p, **{"weight_strong": True, **kw})
    _one_line(e.value)


def test_every_format_feeds_rt_arena(tmp_path):
    """The output contract agreed with rt.arena: each format's table is rated as read (no renaming, no options)."""
    tables = {"mt_bench": read_battles(MTBENCH_SAMPLE), "arena_hard": read_battles(V2_EXCERPT, weight_strong=True),
              "table": read_battles(OFFICIAL, weight_strong=True)}
    p = tmp_path / "annotations.json"
    p.write_text(json.dumps(_alpaca([1, 2, 1.5, 1.25, 1.75, 1.1])))
    tables["alpaca_eval"] = read_battles(p)
    for fmt, df in tables.items():
        models = {m["model"] for m in rt.arena(df, cluster_by=None, rng=0).to_dict()["models"]}  # few prompts here
        assert models == set(df.model_a) | set(df.model_b), fmt
    rng = np.random.default_rng(1)
    meta = lambda: {f"{k}_{s}": int(rng.integers(0, 9)) for k in ("sum_assistant", "header_count", "list_count",  # noqa: E731
                                                                    "bold_count") for s in "ab"}
    recs = [{"question_id": str(i // 2), "model_a": a, "model_b": b, "winner": str(rng.choice(["model_a", "model_b", "tie"])),
             "conv_metadata": {k.replace("sum_assistant_a", "sum_assistant_a_tokens").replace(
                 "sum_assistant_b", "sum_assistant_b_tokens"): v for k, v in meta().items()}}
            for i, (a, b) in enumerate([("x", "y"), ("y", "z"), ("z", "x")] * 200)]
    p = tmp_path / "clean_battle.json"
    p.write_text(json.dumps(recs))
    res = rt.arena(read_battles(p), style=True, rng=0).to_dict()
    assert [f["feature"] for f in res["style"]["features"]] == ["tokens", "headers", "lists", "bold"]


def test_fixture_readme_names_every_fixture():
    text = (ARENA / "README.md").read_text()
    for p in sorted(ARENA.rglob("*")):
        if p.is_file() and p.name != "README.md":
            assert os.path.relpath(p, ARENA) in text, p


def test_the_battles_docs_example_runs(swebench_path, tmp_path, monkeypatch):
    """docs/formats/battles.md's Python block, run as tests/test_docs_examples.py runs every doc; its documented
    values (`# [1.0, 0.5, 0.0]`, `# 2`) are checked."""
    from test_docs_examples import _run_file

    checks = _run_file("docs/formats/battles.md", data=swebench_path, read_kw="", tmp=tmp_path, monkeypatch=monkeypatch)
    assert len(checks) == 2


# ------------------------------------------------------------------ the battles formats in the reader registry
def test_battles_formats_are_readers_of_the_one_registry():
    """Every battles format is a reader of the score formats' registry (kind "battles"), with the protocol's
    attributes; the score path never sees them and the battles path never sees the score readers."""
    from ranktrust.data.readers import _registry

    battles, scores = _registry.readers("battles"), _registry.readers()
    assert set(FORMATS) == {r.name for r in battles.values()}
    for name, cls in battles.items():
        assert cls.kind == "battles" and isinstance(cls(), _registry.Reader), name
        assert cls.description and cls.looks_for
    assert all(getattr(c, "kind", "scores") == "scores" for c in scores.values())
    assert "arena_hard" not in scores and "lm_eval" not in battles
    with pytest.raises(rt.FormatError, match="unknown format 'mt_bench'"):
        _registry.open_reader("mt_bench")
    # rt.read with a battles format: the same one error, which says where such a file goes
    with pytest.raises(rt.FormatError, match=r"unknown format 'arena_hard' \(a battles format: read it with "
                                             r"rt.read_battles, rank it with rt.arena\)") as e:
        rt.read(ARENA / "mtbench_gpt-4_pair_phi3_sample.jsonl.gz", format="arena_hard")
    assert e.value.code == "unknown_format" and e.value.param == "format"


PIPE_READER = '''
import pandas as pd
from ranktrust.data.battles._canon import Where, finish


class PipeReader:
    """a|b|1 per line: model_a, model_b and model_a's score"""
    name, kind, priority = "pipes", "battles", 50
    description, looks_for = "pipe-separated battles", "*.pipes files"

    def sniff(self, path):
        return str(path).endswith(".pipes")

    def units(self, path):
        return []

    def read(self, unit, opts):
        with open(unit) as fh:
            rows = [line.strip().split("|") for line in fh if line.strip()]
        df = pd.DataFrame({"model_a": [r[0] for r in rows], "model_b": [r[1] for r in rows],
                           "score": [float(r[2]) for r in rows], "weight": 1.0})
        df.insert(3, "winner", "")
        yield finish(df, Where(unit, "line"), [], fmt=self.name)
'''


def test_a_battles_reader_registers_as_a_score_reader_does(tmp_path, monkeypatch):
    """A new battles format is one class with ``kind = "battles"`` and ``@register`` (or an entry point): it is
    sniffed, named by `format`, read by rt.arena, and its codes reach the fit as the built-in formats' do."""
    from ranktrust.data.readers import _registry

    monkeypatch.setattr(_registry, "_BATTLE_READERS", dict(_registry._BATTLE_READERS))
    ns: dict = {}
    exec(PIPE_READER, ns)
    _registry.register(ns["PipeReader"])
    g = np.random.default_rng(3)
    lines = [f"{a}|{b}|{g.choice([0.0, 0.5, 1.0], p=[0.3, 0.1, 0.6] if a < b else [0.6, 0.1, 0.3])}"
             for a, b in (g.choice(["m1", "m2", "m3"], 2, replace=False) for _ in range(300))]
    p = tmp_path / "x.pipes"
    p.write_text("\n".join(lines) + "\n")
    assert sniff_battles(str(p)) == "pipes" and "pipes" in rt.data.battles.FORMATS
    got = rt.data.battles.read_battle_table(str(p), format="pipes")
    assert got.codes is not None and got.codes.models == ("m1", "m2", "m3") and len(got.table) == 300
    r = rt.arena(str(p), cluster_by=None, n_resamples=100)
    ref = rt.arena(got.table[["model_a", "model_b", "score"]], cluster_by=None, n_resamples=100)
    np.testing.assert_allclose(r.rating, ref.rating, rtol=1e-12)   # same arithmetic on the same battles
    with pytest.raises(rt.ArgumentError, match="'pipes'"):
        read_battles(str(p), format="nonsense")


def test_the_reader_returns_its_codes_no_side_channel():
    """The codes come back with the table (BattleTable), for a DataFrame too; nothing is kept between reads."""
    import ranktrust.data.battles._canon as canon

    assert not any(k for k in vars(canon) if k.isupper() and "CODES" in k)
    df = pd.DataFrame({"model_a": ["b", "a", "c"], "model_b": ["a", "c", "b"], "winner": ["model_a", "tie", "model_b"],
                       "question_id": [7, 8, 7]})
    got = rt.data.battles.read_battle_table(df)
    assert got.codes.models == ("a", "b", "c")
    assert got.codes.a.tolist() == [1, 0, 2] and got.codes.b.tolist() == [0, 2, 1]
    assert got.codes.cluster.tolist() == [0, 1, 0] and got.codes.n_clusters == 2
    assert read_battles(df).equals(got.table)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=1, max_size=300), st.sampled_from(["int64", "int32", "uint16"]))
def test_whole_number_ids_are_coded_as_factorize_codes_them(ids, dtype):
    """The prompt ids' codes from the table over their range equal pandas.factorize's (first seen first), and
    their text per row is each number's decimal text."""
    from ranktrust.data.battles._canon import Labels

    if dtype == "uint16":
        ids = [abs(i) for i in ids]
    s = pd.Series(np.asarray(ids, dtype=dtype))
    lab = Labels.of(s)
    codes, uniq = pd.factorize(s)
    np.testing.assert_array_equal(lab.codes, codes)
    assert lab.text.tolist() == [str(int(u)) for u in uniq]
    assert list(lab.values()) == [str(i) for i in ids]
    assert lab.text_codes()[1] == len(uniq)
