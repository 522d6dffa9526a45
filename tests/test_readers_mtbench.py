"""MT-Bench single grading (FastChat) and single-grade judgment folders (Arena-Bench v1), on genuine files.

Fixtures (tests/data/mtbench/, tests/data/single_grade/; SOURCES.md there): two FastChat forks' gpt-4_single.jsonl
and three Arena-Bench v1 judgment files of lmarena/arena-hard-auto, all Apache-2.0. The harnesses' own numbers
are recomputed here with their own rules, written out independently of the reader:

* FastChat ``show_result.py --mode single``: rows with score != -1, mean per model (and per model and turn);
* Arena-Bench ``show_result.py``: per file, ``int(score)`` of the rows whose score is not NaN, their mean.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

import ranktrust as rt
from ranktrust.data.readers import ReadOptions
from ranktrust.errors import DataError, FormatError
from ranktrust.reporting import note_text

DATA = Path(__file__).parent / "data"
DP = DATA / "mtbench" / "dreaming-panda" / "gpt-4_single-origin.jsonl"
AB = DATA / "mtbench" / "alvarobartt" / "gpt-4_single.jsonl"
SG = DATA / "single_grade"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def fastchat_show_result(path: Path) -> dict[str, dict]:
    """FastChat's single-mode means: rows with score != -1, per model, per model and turn."""
    out: dict[str, dict] = {}
    for r in _lines(path):
        if r["score"] == -1:
            continue
        d = out.setdefault(r["model"], {"rows": [], 1: [], 2: []})
        d["rows"].append(r["score"])
        d[r["turn"]].append(r["score"])
    return {m: {"mean": float(np.mean(d["rows"])), "n": len(d["rows"]), "turn1": float(np.mean(d[1])),
                "turn2": float(np.mean(d[2]))} for m, d in out.items()}


def arena_bench_show_result(path: Path) -> tuple[float, int]:
    """Arena-Bench v1's show_result.py: int() of every non-NaN score of the file, their mean, and how many."""
    s = [int(r["score"]) for r in _lines(path) if r["score"] is not None and not math.isnan(r["score"])]
    return sum(s) / len(s), len(s)


def _notes(df, code: str) -> list:
    return [n for n in df.attrs["notes"] if n.code == code]


# ------------------------------------------------------------------------------------------- MT-Bench
def test_sniffed_as_mtbench_and_nothing_else():
    from ranktrust.data.readers._registry import accepting, sniff

    for p in (DP, AB):
        assert sniff(str(p)).name == "mtbench"
        assert [r.name for r in accepting(str(p))] == ["mtbench", "table"]   # the table is only the fallback


def test_model_without_duplicates_equals_fastchat_mean_to_the_digits():
    """Griffin (160 rows, none judged twice, no -1): ranktrust's score x 10 is FastChat's show_result mean."""
    fc = fastchat_show_result(DP)
    assert fc["Meta-Llama-3-8B-Instruct-Griffin"]["mean"] == pytest.approx(2.70, abs=5e-7)  # the review's figure
    m = rt.read(str(DP), align="intersect")
    k = m.index_of("Meta-Llama-3-8B-Instruct-Griffin")
    assert np.nanmean(m.scores[k]) * 10 == pytest.approx(fc["Meta-Llama-3-8B-Instruct-Griffin"]["mean"], abs=1e-12)
    ab = fastchat_show_result(AB)
    m2 = rt.read(str(AB))
    j = m2.index_of("mistral-orpo-trl")
    assert np.nanmean(m2.scores[j]) * 10 == pytest.approx(ab["mistral-orpo-trl"]["mean"], abs=1e-12)
    assert ab["mistral-orpo-trl"]["mean"] == pytest.approx(7.165625, abs=1e-12)


def test_per_turn_means_equal_fastchat_per_turn():
    df = rt.read_long(str(DP))
    fc = fastchat_show_result(DP)
    g = df[df.model == "Meta-Llama-3-8B-Instruct-Griffin"]
    for t in (1, 2):
        mean = g[g.item.str.endswith(f":turn{t}")].score.mean() * 10
        assert mean == pytest.approx(fc["Meta-Llama-3-8B-Instruct-Griffin"][f"turn{t}"], abs=1e-12)


def test_no_rating_dropped_with_a_note():
    df = rt.read_long(str(DP))
    (n,) = _notes(df, "mtbench_no_rating")
    assert n.data["n_lines"] == 4 and n.data["lines"] == [1, 2, 3, 4]
    assert n.data["per_model"] == [["Meta-Llama-3-8B-Instruct-Normal", 4]]
    assert n.data["n_items_left_out"] == 0          # each of the 4 was judged again, with a rating
    assert "4 judgments with no rating (score -1" in note_text(n)
    assert (df.score >= 0.1).all() and (df.score <= 1).all()   # -1 never becomes a score


def test_judged_twice_averaged_and_note_gives_fastchat_row_mean():
    """mistral-orpo: 159 (question, turn) items judged twice; the note reproduces FastChat's row mean."""
    df = rt.read_long(str(AB))
    fc = fastchat_show_result(AB)
    (n,) = [x for x in _notes(df, "mtbench_judged_twice") if x.data["model"] == "mistral-orpo"]
    assert n.data["fastchat_mean"] == pytest.approx(fc["mistral-orpo"]["mean"], abs=1e-12)
    assert n.data["fastchat_mean"] == pytest.approx(5.858934169278997, abs=1e-12)
    assert n.data["fastchat_rows"] == fc["mistral-orpo"]["n"] == 319
    assert [t for t, _, _ in n.data["fastchat_turns"]] == [1, 2]
    assert n.data["fastchat_turns"][0][1] == pytest.approx(fc["mistral-orpo"]["turn1"], abs=1e-12)
    assert n.data["fastchat_turns"][1][1] == pytest.approx(fc["mistral-orpo"]["turn2"], abs=1e-12)
    # ranktrust's own score: each (question, turn) once, the mean of its judgments
    rows = [r for r in _lines(AB) if r["model"] == "mistral-orpo" and r["score"] != -1]
    per_item: dict = {}
    for r in rows:
        per_item.setdefault((r["question_id"], r["turn"]), []).append(r["score"])
    item_mean = np.mean([np.mean(v) for v in per_item.values()])
    got = df[df.model == "mistral-orpo"]
    assert len(got) == len(per_item) == 160
    assert got.score.mean() * 10 == pytest.approx(item_mean, abs=1e-12)
    assert n.data["item_mean"] == pytest.approx(item_mean, abs=1e-12)
    text = note_text(n)
    assert "5.858934 over 319 rows" in text and "159 (question, turn) items judged more than once" in text


def test_dreaming_panda_normal_note_and_twice_judged_items():
    df = rt.read_long(str(DP))
    (n,) = _notes(df, "mtbench_judged_twice")
    assert n.data["model"] == "Meta-Llama-3-8B-Instruct-Normal"
    assert n.data["n_items"] == 6                    # (85..90, turn 1): two ratings each; 81..84 lost their -1
    assert n.data["fastchat_mean"] == pytest.approx(7.843373493975903, abs=1e-12)   # the review's 7.8434
    assert df[(df.model == "Meta-Llama-3-8B-Instruct-Normal") & (df.item == "85:turn1")].score.item() == 0.95


def test_items_are_question_and_turn_grouped_by_question():
    df = rt.read_long(str(AB))
    assert set(df.item.str.rsplit(":", n=1).str[1]) == {"turn1", "turn2"}
    assert (df.group == df.item.str.split(":").str[0]).all()
    assert df.metric.unique().tolist() == ["gpt-4"] and df.task.unique().tolist() == ["mt_bench"]


def test_scores_are_ratings_over_ten():
    df = rt.read_long(str(AB))
    assert set(np.round(df.score * 10 * 2) / 2) <= {x / 2 for x in range(2, 21)}


def _write(tmp_path: Path, rows: list[dict], name: str = "gpt-4_single.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return p


def _row(**kw) -> dict:
    base = {"question_id": 81, "model": "m", "judge": ["gpt-4", "single-v1"], "user_prompt": "", "judgment": "",
            "score": 7, "turn": 1, "tstamp": 0.0}
    return {**base, **kw}


def test_errors_name_file_and_line(tmp_path):
    p = _write(tmp_path, [_row(), _row(question_id=82, score=11)])
    with pytest.raises(DataError, match=r"gpt-4_single.jsonl: line 2: score 11 is outside MT-Bench's 0-10 range"):
        rt.read_long(str(p))
    p = _write(tmp_path, [_row(), _row(question_id=82, score=0)])     # FastChat's parser takes [[0]] and keeps it
    assert rt.read_long(str(p)).score.tolist() == [0.7, 0.0]
    p = _write(tmp_path, [_row(), {k: v for k, v in _row(question_id=82).items() if k != "turn"}])
    with pytest.raises(FormatError, match=r"line 2 has no 'turn'"):
        rt.read_long(str(p), format="mtbench")
    p = _write(tmp_path, [_row(), _row(question_id=82, score=-1)])
    with pytest.raises(DataError, match=r"line 2: the judge gave no rating"):
        rt.read_long(str(p), options=ReadOptions(errors="wrong"))


def test_two_judges_refused_unless_metric_names_one(tmp_path):
    p = _write(tmp_path, [_row(), _row(judge=["gpt-3.5-turbo", "single-v1"], score=5)])
    with pytest.raises(DataError, match=r"2 judges \(gpt-4, gpt-3.5-turbo\); choose one with `metric`"):
        rt.read_long(str(p))
    df = rt.read_long(str(p), options=ReadOptions(metric="gpt-3.5-turbo"))
    assert df.score.tolist() == [0.5] and df.metric.tolist() == ["gpt-3.5-turbo"]


def test_pairwise_file_is_not_mtbench_single(tmp_path):
    from ranktrust.data.readers._registry import accepting

    p = _write(tmp_path, [{"question_id": 81, "model_1": "a", "model_2": "b", "g1_winner": "model_1",
                           "g2_winner": "model_2", "judge": ["gpt-4", "pair-v2"], "turn": 1}], "gpt-4_pair.jsonl")
    assert "mtbench" not in [r.name for r in accepting(str(p))]


# ------------------------------------------------------------------------------------------- single-grade folders
def test_single_grade_folder_refused_by_default_naming_file_and_line():
    with pytest.raises(DataError, match=r"Llama-2-70b-chat.jsonl: line 292: the judge gave no score \(null"):
        rt.read_long(str(SG))


def test_single_grade_folder_with_errors_drop_equals_show_result():
    df = rt.read_long(str(SG), options=ReadOptions(errors="drop"))
    for f in sorted(SG.glob("*.jsonl")):
        model = _lines(f)[0]["model"]
        mean, n = arena_bench_show_result(f)
        got = df[df.model == model]
        assert len(got) == n
        assert got.score.mean() * 10 == pytest.approx(mean, abs=1e-12)
    assert df[df.model == "claude-instant-1"].score.mean() * 10 == pytest.approx(6.19, abs=1e-12)
    assert df[df.model == "Llama-2-70b-chat"].score.mean() * 10 == pytest.approx(4.351170568561873, abs=1e-12)
    notes = {n.data["path"].rsplit("/", 1)[-1]: n for n in _notes(df, "judge_no_score")}
    assert sorted(notes) == ["Llama-2-70b-chat.jsonl", "palm-2-chat-bison-001.jsonl"]
    assert notes["palm-2-chat-bison-001.jsonl"].data["n_lines"] == 6
    assert notes["palm-2-chat-bison-001.jsonl"].data["lines"] == [51, 147, 187, 206, 225]
    assert "6 judgments with no score (null" in note_text(notes["palm-2-chat-bison-001.jsonl"])


def test_single_grade_matrix_with_intersect_and_report_runs():
    m = rt.read(str(SG), errors="drop", align="intersect")
    assert m.n_models == 3 and m.n_items == 300 - 1 - 6   # no question misses for two models at once
    assert sorted(m.models) == ["Llama-2-70b-chat", "claude-instant-1", "palm-2-chat-bison-001"]


def test_single_grade_and_mtbench_are_told_apart(tmp_path):
    from ranktrust.data.readers._registry import accepting

    for f in SG.glob("*.jsonl"):
        assert [r.name for r in accepting(str(f))] == ["single_grade", "table"]
    d = tmp_path / "model_judgment"
    d.mkdir()
    shutil.copy(DP, d / "gpt-4_single.jsonl")
    shutil.copy(SG / "claude-instant-1.jsonl", d)
    assert {r.name for r in accepting(str(d))} == {"mtbench", "single_grade"}   # a folder of both: both read


def test_a_file_two_harness_readers_accept_is_refused(tmp_path, monkeypatch):
    """No guessing between formats: a file two harness sniffers accept is refused with both names."""
    from ranktrust.data.readers import _registry

    class Greedy:
        name, priority, description, looks_for = "greedy", 99, "accepts anything", "anything"

        def sniff(self, path):
            return True

        def units(self, path):
            return []

        def read(self, unit, opts):
            return iter(())

    monkeypatch.setitem(_registry._READERS, "greedy", Greedy)
    with pytest.raises(FormatError, match=r"looks like greedy and mtbench logs at once; name its format"):
        rt.read_long(str(DP))
    assert len(rt.read_long(str(DP), format="mtbench")) == 320


# ------------------------------------------------------------------------------------------- the question check
WP = DATA / "mtbench" / "with_prompts"


def test_same_question_in_two_forks_reads_together():
    """The judge prompts of two forks show the same question 81 (turns 1 and 2): read as one leaderboard."""
    df = rt.read_long(str(WP))
    assert sorted(df.model.unique()) == ["Meta-Llama-3-8B-Instruct-Griffin", "Meta-Llama-3-8B-Instruct-Normal",
                                         "mistral-orpo-trl"]
    assert sorted(df.item.unique()) == ["81:turn1", "81:turn2"]


def test_another_question_under_the_same_id_is_refused(tmp_path):
    from ranktrust.data.readers._mtbench import question_hash

    lines = _lines(WP / "dreaming-panda_gpt-4_single-origin.jsonl")
    assert all(question_hash(r["user_prompt"], r["turn"]) for r in lines)   # FastChat's prompts are understood
    d = tmp_path / "model_judgment"
    d.mkdir()
    shutil.copy(WP / "alvarobartt_gpt-4_single.jsonl", d / "a.jsonl")
    other = [dict(r) for r in lines]
    for r in other:      # a translated or edited bench: question 81 is another text under the same id
        r["user_prompt"] = r["user_prompt"].replace("travel blog post about a recent trip to Hawaii",
                                                    "travel blog post about a recent trip to Iceland")
    _write(d, other, "b.jsonl")
    with pytest.raises(DataError, match=r"b.jsonl: line 1: question 81 \(turn 1\) is not the question of .*a.jsonl "
                                        r"line \d under the same id"):
        rt.read_long(str(d))
    _write(tmp_path, [lines[0], other[1]], "mixed.jsonl")     # within one file too
    with pytest.raises(DataError, match=r"mixed.jsonl: line 2: question 81 \(turn 1\) is not the question of "
                                        r".*mixed.jsonl line 1"):
        rt.read_long(str(tmp_path / "mixed.jsonl"))


def test_rt_read_with_scale_is_refused_not_applied_twice():
    # the reader puts the 1-10 ratings on [0, 1] itself; a scale given to rt.read would divide them again
    import ranktrust as rt
    from ranktrust.errors import DataError

    path = sorted((Path(__file__).parent / "data" / "mtbench").rglob("*_single.jsonl"))[0]
    with pytest.raises(DataError, match=r"puts MT-Bench's 1-10 ratings on \[0, 1\] itself"):
        rt.read(str(path), scale=10)
