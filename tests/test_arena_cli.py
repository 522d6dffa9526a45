"""``ranktrust arena`` end to end: the reader options through rt.arena and the command line, an Arena-Hard v2
folder that mixes two baselines, every output format on every real input we have, and the headline, tiers,
rank sets and pair table never contradicting each other."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special

import ranktrust as rt
from conftest import SHARED, require, run_cli, shared_file
from ranktrust.data.battles import read_battles

ARENA = Path(__file__).resolve().parent / "data" / "arena"
LABELS = ["A>>B", "A>B", "A=B", "B>A", "B>>A"]


def _v2_folder(d: Path, seed: int = 1, n_hard: int = 30, n_creative: int = 20) -> Path:
    """Arena-Hard v2 records: hard prompts judged against o3-mini, creative writing against gemini-flash."""
    g = np.random.default_rng(seed)
    strength = {"m1": 0.8, "m2": 0.3, "m3": -0.2, "o3-mini": 0.0, "gemini-flash": -0.4}
    d.mkdir()
    for m in ("m1", "m2", "m3"):
        lines = []
        for q in range(n_hard + n_creative):
            base, cat = ("o3-mini", "hard_prompt") if q < n_hard else ("gemini-flash", "creative_writing")
            p = special.expit(strength[m] - strength[base])
            games = []
            for gi in range(2):
                u = g.random()
                k = 4 if u < 0.4 * p else 3 if u < p else 2 if u < p + 0.1 else 1 if u < 0.95 else 0  # model's side
                games.append({"score": LABELS[k] if gi == 0 else LABELS[4 - k]})
            lines.append(json.dumps({"uid": f"q{q}", "category": cat, "judge": "j", "model": m, "baseline": base,
                                     "games": games}))
        (d / f"{m}.jsonl").write_text("\n".join(lines) + "\n")
    return d


def test_one_table_of_winner_labels():
    from ranktrust.data import battles
    from ranktrust.preference import _input

    assert _input.WINNER_SCORES is battles.WINNER_SCORES
    assert (_input.STYLE_PREFIX_A, _input.STYLE_PREFIX_B) == (battles.STYLE_A, battles.STYLE_B)


def test_baseline_on_a_v2_folder_with_two_baselines(tmp_path, capsys):
    folder = _v2_folder(tmp_path / "v2")
    out = tmp_path / "a.json"
    code, _, err = run_cli(capsys, "arena", str(folder), "--baseline", "o3-mini", "--n-resamples", "200",
                           "-o", str(out))
    assert code == 0, err
    d = json.loads(out.read_text())
    s = d["settings"]
    assert s["n_battles"] == 300 and s["baseline_battles"] == 180 and s["baseline_star"] is False
    rows = {r["model"]: r for r in d["models"]}
    assert [rows[m]["n_vs_baseline"] for m in ("m1", "m2", "m3", "gemini-flash", "o3-mini")] == [60, 60, 60, 0, 0]
    code, text, err = run_cli(capsys, "arena", str(folder), "--baseline", "o3-mini", "--n-resamples", "200",
                              "-f", "md")
    assert code == 0, err
    assert "Only 180 of the 300 battles are against o3-mini" in text and "1 model never met it (gemini-flash)" in text
    # the same question with the other baseline: that one too is read whole
    code, _, err = run_cli(capsys, "arena", str(folder), "--baseline", "gemini-flash", "--n-resamples", "200")
    assert code == 0, err
    # a name that is no model: one line, exit 1
    code, _, err = run_cli(capsys, "arena", str(folder), "--baseline", "o3-mini-2025")
    assert code == 1 and err.startswith("error: ") and "is not a model" in err and len(err.strip().splitlines()) == 1


def test_a_star_design_says_what_the_win_rate_is(capsys):
    r = rt.arena(read_battles(ARENA / "arenahard_v01_official_battles.jsonl.gz", weight_strong=True),
                 baseline="gpt-4-0314", n_resamples=200)
    assert r.settings["baseline_star"] is True and r.settings["baseline_battles"] == r.settings["n_battles"]
    from ranktrust.reporting.renderers import to_string

    md = to_string(r, "md", kind="arena")
    assert "Win rate: against gpt-4-0314, in percent" in md and "Only " not in md


def test_rt_arena_takes_the_reader_options(tmp_path, capsys):
    official = ARENA / "arenahard_v01_official_battles.jsonl.gz"
    one = rt.arena(official, weight_strong=True, baseline="gpt-4-0314", n_resamples=200)
    two = rt.arena(read_battles(official, weight_strong=True), baseline="gpt-4-0314", n_resamples=200)
    # the same battles through the same code: equal to a few ulps (the fit is deterministic; tolerance for safety)
    np.testing.assert_allclose(one.rating, two.rating, rtol=1e-12)
    np.testing.assert_allclose(one.se, two.se, rtol=1e-9)
    assert one.settings["n_battles"] == 2000 and one.settings["weighted"]
    plain = rt.arena(official, baseline="gpt-4-0314", n_resamples=200)
    assert plain.settings["n_battles"] == 2658 and not plain.settings["weighted"]
    # a DataFrame with a reader option goes through the reader: `prompt` names the prompt-id column
    df = pd.read_json(official, lines=True).rename(columns={"question_id": "qid"})
    r = rt.arena(df, prompt="qid", weight_strong=True, n_resamples=200)
    assert r.settings["cluster_by"] == "qid" and r.settings["n_clusters"] == 500
    np.testing.assert_allclose(r.rating, one.rating, rtol=1e-12)
    with pytest.raises(rt.FormatError, match="a DataFrame is read as a battles table"):
        rt.arena(df, format="arena_hard")
    # the command line: --weight-strong, --prompt-col, --input-format
    p = tmp_path / "b.csv"
    df.to_csv(p, index=False)
    out = tmp_path / "a.json"
    code, _, err = run_cli(capsys, "arena", str(p), "--prompt-col", "qid", "--weight-strong", "3",
                           "--baseline", "gpt-4-0314", "--n-resamples", "200", "-o", str(out))
    assert code == 0, err
    d = json.loads(out.read_text())
    assert d["settings"]["n_battles"] == 2000 and d["settings"]["n_clusters"] == 500
    np.testing.assert_allclose([m["rating"] for m in d["models"]], [one.ratings.score[one.models.index(m["model"])] for m in d["models"]],
                               rtol=1e-12)
    code, _, err = run_cli(capsys, "arena", str(p), "--input-format", "mt_bench")
    assert code == 1 and err.startswith("error: ") and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "arena", str(p), "--input-format", "nonsense")
    assert code != 0 and "nonsense" in err and "Traceback" not in err


def _real_inputs():
    out = [
        (ARENA / "arenahard_v01_official_battles.jsonl.gz", ["--weight-strong", "3", "--baseline", "gpt-4-0314"]),
        (ARENA / "arenahard_v01_official_battles.jsonl.gz", ["--cluster-by", "none"]),
        (ARENA / "arenahard_v2format_gpt-4-0613_excerpt.jsonl", ["--baseline", "gpt-4-0314", "--cluster-by", "none"]),
        (ARENA / "mtbench_gpt-4_pair_phi3_sample.jsonl.gz", ["--cluster-by", "none"]),
        (SHARED / "arenahard_battles.csv.gz", ["--baseline", "claude-3-haiku-20240307"]),
        (SHARED / "arena" / "mtbench_gpt-4_pair_phi3.jsonl.gz", []),
    ]
    return [pytest.param(p, a, id=f"{p.name}{' ' + ' '.join(a) if a else ''}") for p, a in out]


@pytest.mark.parametrize("path,args", _real_inputs())
def test_every_format_on_every_real_input(tmp_path, capsys, path, args):
    require("jsonschema")
    import jsonschema

    if not path.exists():
        pytest.skip(f"needs {path} (not bundled: see tests/data/README.md)")
    base = ["arena", str(path), *args, "--n-resamples", "200"]
    js = tmp_path / "a.json"
    code, _, err = run_cli(capsys, *base, "-o", str(js))
    assert code == 0, err
    d = json.loads(js.read_text())
    jsonschema.validate(d, rt.json_schema("arena"), cls=jsonschema.Draft202012Validator)
    top, names = d["headline"]["top"], [m["model"] for m in d["models"]]
    for fmt in ("text", "md", "csv", "html"):
        code, text, err = run_cli(capsys, *base, "-f", fmt)
        assert code == 0, err
        assert top in text and all(n in text for n in names), fmt
        if fmt == "csv":
            assert len(text.strip().splitlines()) == 1 + len(names)
        if fmt == "html":
            assert "<svg" in text and "RANKTRUST-ARENA-FIGURE" not in text and d["headline"]["text"][:40] in text
        if fmt == "md":
            _check_markdown_agrees(text, d)


def _check_markdown_agrees(md: str, d: dict) -> None:
    """The Markdown table's tiers and rank sets are the JSON's; the headline's count of possible #1s is the
    number of tier-1 rows."""
    rows = [ln for ln in md.splitlines() if ln.startswith("| ") and not ln.startswith("| tier") and "|" in ln[2:]]
    by_model = {m["model"]: m for m in d["models"]}
    seen = 0
    for ln in rows:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        name = cells[1].replace("\\", "")
        if name not in by_model:
            continue     # the neighbours table
        m = by_model[name]
        seen += 1
        assert int(cells[0]) == m["tier"]
        want = str(m["rank_low"]) if m["rank_low"] == m["rank_high"] else f"{m['rank_low']}–{m['rank_high']}"
        assert cells[4] == want
    assert seen == len(d["models"])
    head = d["headline"]["text"]
    n_first = sum(m["tier"] == 1 for m in d["models"])
    if head.startswith("Yes"):
        assert n_first == 1
    else:
        assert re.search(rf"^No: {n_first} models could be #1 with ", head)


def _board(seed: int, M: int, n: int, spread: float, tied_top: int) -> pd.DataFrame:
    g = np.random.default_rng(seed)
    th = np.linspace(0, spread, M)
    th[-tied_top:] = th[-1]
    a = g.integers(0, M, n)
    b = (a + g.integers(1, M, n)) % M
    y = np.where(g.random(n) < 0.1, 0.5, (g.random(n) < special.expit(th[a] - th[b])).astype(float))
    return pd.DataFrame({"model_a": [f"m{i}" for i in a], "model_b": [f"m{i}" for i in b], "score": y,
                         "cluster": g.integers(0, n // 4, n).astype(str)})


@pytest.mark.parametrize("seed,M,n,spread,tied_top", [
    (0, 3, 1500, 1.5, 1), (1, 5, 3000, 1.0, 2), (2, 8, 4000, 2.0, 1), (3, 8, 4000, 0.4, 3), (4, 12, 6000, 3.0, 1),
    (5, 6, 800, 0.8, 1), (6, 10, 5000, 1.2, 4),
])
def test_headline_tiers_rank_sets_and_pairs_never_contradict(seed, M, n, spread, tied_top):
    from ranktrust.reporting.renderers import to_string

    r = rt.arena(_board(seed, M, n, spread, tied_top), rng=seed, n_resamples=500)
    d = json.loads(to_string(r, "json", kind="arena", seed=seed))
    rows, pairs, h = d["models"], d["pairs"], d["headline"]
    tier = {m["model"]: m["tier"] for m in rows}
    rs = {m["model"]: (m["rank_low"], m["rank_high"]) for m in rows}
    alpha = 1 - d["confidence_level"]
    # the pair table: a above b, separated exactly when the adjusted p is below alpha
    for p in pairs:
        assert p["diff"] >= 0 and p["ci_low"] <= p["diff"] <= p["ci_high"]
        assert p["separated"] == (p["p_adjusted"] < alpha)
        if p["separated"]:   # a claim: a's tier above b's, and their rank sets say a is above b
            assert tier[p["a"]] < tier[p["b"]]
            assert rs[p["a"]][0] < rs[p["b"]][0] and rs[p["a"]][1] < rs[p["b"]][1]
    # each rank set counts the claims for and against the model
    for m in rows:
        above = sum(p["separated"] and p["b"] == m["model"] for p in pairs)
        below = sum(p["separated"] and p["a"] == m["model"] for p in pairs)
        assert (m["rank_low"], m["rank_high"]) == (1 + above, M - below)
        assert m["rank_low"] <= m["rank"] <= m["rank_high"]
    # tiers: contiguous in the display order; tier 1 is exactly "could be #1"
    tiers = [m["tier"] for m in rows]
    assert tiers == sorted(tiers) and set(tiers) == set(range(1, max(tiers) + 1))
    first = [m["model"] for m in rows if m["rank_low"] == 1]
    assert first == [m["model"] for m in rows if m["tier"] == 1] == h["could_be_first"]
    # the headline: its pair is the pair table's, its verdict the pair's, and "Yes" only with one possible #1
    top_pair = [p for p in pairs if {p["a"], p["b"]} == {h["top"], h["runner_up"]}]
    assert len(top_pair) == 1 and top_pair[0]["separated"] == h["separable"]
    assert h["top"] == rows[0]["model"] and (h["rank_low"], h["rank_high"]) == rs[h["top"]]
    if h["separable"]:
        assert h["could_be_first"] == [h["top"]] and h["text"].startswith("Yes")
    else:
        assert len(h["could_be_first"]) >= 2 and h["text"].startswith("No: ")
        assert h["text"].startswith(f"No: {len(h['could_be_first'])} models could be #1 with ")
        assert f"{h['top']} leads {h['runner_up']} by " in h["text"] and "but is not separated from it" in h["text"]
    _check_markdown_agrees(to_string(r, "md", kind="arena"), d)


def test_the_worked_example_in_the_docs_is_the_output(capsys):
    """docs/arena.md's console block on the shared Arena-Hard sample: its table rows and its win-rate sentence
    are lines of the command's output as it is now."""
    path = SHARED / "arenahard_battles.csv.gz"
    if not path.exists():
        pytest.skip("needs ../shared/data/arenahard_battles.csv.gz (not bundled: see tests/data/README.md)")
    text = (Path(__file__).resolve().parents[1] / "docs" / "arena.md").read_text(encoding="utf-8")
    block = re.search(r"```console\n\$ ranktrust arena \.\./shared/data/arenahard_battles\.csv\.gz (.*?)\n(.*?)```",
                      text, re.DOTALL)
    assert block
    code, out, err = run_cli(capsys, "arena", str(path), *block.group(1).split())
    assert code == 0, err
    lines = set(out.splitlines())
    shown = [ln for ln in block.group(2).splitlines() if ln.startswith(("| ", "|--", "Win rate"))]
    assert len(shown) >= 7 and all(ln in lines for ln in shown), [ln for ln in shown if ln not in lines]
    head = " ".join(block.group(2).split("\n\n")[0].split())
    assert head in " ".join(out.split())


def test_a_shortened_neighbour_table_says_so():
    from ranktrust.reporting.renderers import to_string

    r = rt.arena(_board(7, 15, 6000, 3.0, 1), rng=0, n_resamples=200)
    md = to_string(r, "md", kind="arena")
    assert "### Neighbours in this order (the first 12 of 14; every pair is in the JSON output)" in md
    assert "the first 12 of 14" in to_string(r, "text", kind="arena")


def test_cluster_by_takes_the_files_own_column_names(tmp_path, capsys):
    """`--cluster-by question_id` names the file's prompt-id column (read as the internal `cluster`); the output
    names the user's column; any other column of a table clusters too; a wrong name lists the file's columns and
    suggests `--cluster-by none`, the spelling the help gives."""
    g = np.random.default_rng(3)
    n, models = 1200, np.array(["a", "b", "c", "d"])
    i = g.integers(0, 4, n)
    j = (i + g.integers(1, 4, n)) % 4
    df = pd.DataFrame({"model_a": models[i], "model_b": models[j], "winner": g.choice(["model_a", "model_b"], n),
                       "question_id": g.integers(0, 200, n), "topic": g.integers(0, 30, n)})
    p = tmp_path / "b.csv"
    df.to_csv(p, index=False)
    base = ["arena", p, "--n-resamples", "100", "-f", "json"]
    code, out, err = run_cli(capsys, *base, "--cluster-by", "question_id")
    assert code == 0, err
    s = json.loads(out)["settings"]
    assert s["cluster_by"] == "question_id" and s["n_clusters"] == df["question_id"].nunique()
    code, auto, _ = run_cli(capsys, *base)                                   # auto: the same clusters, same name
    assert code == 0 and json.loads(auto)["settings"] == s
    code, text, _ = run_cli(capsys, "arena", p, "--n-resamples", "100", "--cluster-by", "question_id")
    assert code == 0 and "clustered by the column question_id" in " ".join(text.split())
    code, out, _ = run_cli(capsys, *base, "--cluster-by", "topic")          # a column the reader does not keep
    assert code == 0 and json.loads(out)["settings"]["cluster_by"] == "topic"
    assert json.loads(out)["settings"]["n_clusters"] == df["topic"].nunique()
    code, out, _ = run_cli(capsys, *base, "--cluster-by", "none")
    assert code == 0 and json.loads(out)["settings"]["cluster_by"] is None
    code, _, err = run_cli(capsys, *base, "--cluster-by", "question")
    assert code == 1 and err.count("\n") == 1 and "'question_id'" in err and "--cluster-by none" in err
    assert "weight" not in err and "None" not in err
    code, _, err = run_cli(capsys, *base, "--cluster-by", "topic", "--prompt-col", "question_id")
    assert code == 1 and "--cluster-by question_id" in err
    # a column the reader keeps beside the prompt ids (judge, user) may cluster while --prompt-col names the prompts
    p2 = tmp_path / "bj.csv"
    df.assign(judge=g.choice(["j1", "j2", "j3", "j4", "j5", "j6"], n)).to_csv(p2, index=False)
    code, out, err = run_cli(capsys, "arena", p2, "--n-resamples", "100", "-f", "json", "--cluster-by", "judge",
                             "--prompt-col", "question_id")
    assert code == 0, err
    assert json.loads(out)["settings"]["cluster_by"] == "judge" and json.loads(out)["settings"]["n_clusters"] == 6


def test_piped_text_never_cuts_a_model_name_inside_a_word(capsys):
    """Piped (110 columns) with --baseline: every model name and header is whole; the win rates are a table of
    their own."""
    path = shared_file("arenahard_battles.csv.gz")
    code, out, err = run_cli(capsys, "arena", path, "--baseline",
                             "claude-3-haiku-20240307", "--n-resamples", "200")
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 110
    rows = [line for line in out.splitlines() if line.startswith("│")]
    for name in ("gpt-4o", "claude-3-5-sonnet-20240620", "claude-3-opus-20240229", "claude-3-haiku-20240307"):
        assert sum(f" {name} " in r for r in rows) >= 2, name      # ratings and win-rate tables, whole
    assert "Win rate against claude-3-haiku-20240307" in out
    for h in ("rating", "95% CI", "battles", "win rate %", "win-rate CI", "adjusted p", "separated"):
        assert h in out, h


def test_a_missing_prompt_id_names_the_empty_prompt_col(tmp_path, capsys):
    """The way out of a missing prompt id is an empty --prompt-col; the hint shows the '' it needs."""
    p = tmp_path / "gap.csv"
    p.write_text("model_a,model_b,winner,question_id\na,b,model_a,1\nb,a,model_b,\na,b,tie,2\n")
    code, _, err = run_cli(capsys, "arena", p)
    assert code == 1 and err.count("\n") == 1 and "line 3: " in err and "(1 such row)" in err
    assert "an empty --prompt-col ('')" in err and "--prompt-col )" not in err
    with pytest.raises(rt.errors.DataError, match=r"an empty `prompt` \(''\)"):
        read_battles(str(p))


def test_what_the_reader_left_out_is_said_in_every_format(capsys, tmp_path):
    """Never dropped in silence: the MT-Bench sample has 2 judgments with an error verdict (left out, as FastChat
    does) and 1 whose two orders disagree (a tie); rt.arena kept neither fact (the reader's notes stopped at the
    DataFrame). Now the result carries them as records, and every format says them; the command line puts a
    named option in its flag."""
    from ranktrust.reporting import note_text

    sample = ARENA / "mtbench_gpt-4_pair_phi3_sample.jsonl.gz"
    with pytest.warns(rt.SmallSampleWarning):
        r = rt.arena(sample, n_resamples=50)
    assert [(n.code, {k: v for k, v in n.data.items() if k != "source"}) for n in r.notes
            if n.code.startswith("battles_")] == [
        ("battles_inconsistent_as_tie", {"judgments": 1}),
        ("battles_dropped", {"rows": 2, "reasons": {"error_verdict": 2}})]
    said = [note_text(n) for n in r.notes]
    assert said[1] == f"{sample}: left out 2 judgments with an error verdict (as FastChat leaves them out)"
    # the same notes from the DataFrame read_battles made
    with pytest.warns(rt.SmallSampleWarning):
        assert rt.arena(read_battles(sample), n_resamples=50).notes == r.notes
    for fmt, where in (("text", None), ("md", "### Notes"), ("json", None)):
        code, out, err = run_cli(capsys, "arena", sample, "--n-resamples", "50", "-f", fmt)
        assert code == 0, err
        flat = " ".join(out.split())
        if fmt == "json":
            d = json.loads(out)
            assert [n["text"] for n in d["notes"]] == said and d["notes"][1]["code"] == "battles_dropped"
        else:
            assert all(" ".join(s.split()) in flat for s in said) and (where is None or where in out)
    # a folder of Arena-Hard judgments: one note for all its files, the option in the command's words
    code, out, err = run_cli(capsys, "arena", ARENA / "arenahard_v01_judgments", "--baseline", "truth_model",
                             "--n-resamples", "50", "-f", "json")
    assert code == 0, err
    (strong,) = [n for n in json.loads(out)["notes"] if n["code"] == "battles_strong_verdicts"]
    assert strong["text"].startswith("2 files: 6 strong verdicts (A>>B, B>>A) counted as one win each; "
                                     "--weight-strong 3 weights them 3")
    # with --weight-strong 3 the note says the weight, and nothing needs a flag
    code, out, err = run_cli(capsys, "arena", ARENA / "arenahard_v01_judgments", "--baseline", "truth_model",
                             "--n-resamples", "50", "--weight-strong", "3", "-f", "json")
    notes = json.loads(out)["notes"]
    assert [n["code"] for n in notes if n["code"].startswith("battles_")] == ["battles_strong_verdicts",
                                                                            "battles_skipped"]
    assert notes[0]["text"] == "2 files: 6 strong verdicts (A>>B, B>>A) weighted 3"
    # nothing left out, nothing said
    code, out, err = run_cli(capsys, "arena", ARENA / "arenahard_v01_official_battles.jsonl.gz", "--n-resamples",
                             "50", "-f", "json")
    assert code == 0 and [n for n in json.loads(out)["notes"] if n["code"].startswith("battles_")] == [], err


def test_arena_hard_judgments_name_their_own_prompt_column(capsys):
    """The clustering is named as the files name the prompt ids: v0.1 `question_id`, v2 `uid` (it read "clustered
    by the column cluster", a name of neither); `--cluster-by` takes that name, and refuses the other."""
    for path, col, other in ((ARENA / "arenahard_v01_judgments", "question_id", "uid"),
                             (ARENA / "arenahard_v2format_gpt-4-0613_excerpt.jsonl", "uid", "question_id")):
        args = ["arena", path, "--baseline", "truth_model" if col == "question_id" else "gpt-4-0314",
                "--n-resamples", "50", "-f", "json"]
        code, out, err = run_cli(capsys, *args)
        assert code == 0, err
        assert json.loads(out)["settings"]["cluster_by"] == col
        code, out, err = run_cli(capsys, *args, "--cluster-by", col)
        assert code == 0 and json.loads(out)["settings"]["cluster_by"] == col, err
        code, _, err = run_cli(capsys, *args, "--cluster-by", other)
        assert code == 1 and f"--cluster-by {other}: the battles have no such column (their prompt ids are {col})" \
            in err, err


def test_the_result_is_the_score_paths_parts_and_to_dict_is_the_command_lines_json(tmp_path, capsys):
    """``ArenaResult`` holds the house's result types (the ratings as intervals, a pair table, rank sets, tiers,
    win rates as intervals); its JSON is read off them, ``to_dict()`` is what ``ranktrust arena -f json``
    writes (less ``meta``), and ``headline["text"]`` is the sentence the command prints."""
    from ranktrust.ranking import RankSets, Tiers
    from ranktrust.stats import PairTable, ScoreIntervals

    df = _board(3, M=5, n=1500, spread=0.4, tied_top=1)
    path = tmp_path / "b.csv"
    df.to_csv(path, index=False)
    r = rt.arena(str(path), baseline="m2", rng=4, n_resamples=300)
    assert isinstance(r.ratings, ScoreIntervals) and isinstance(r.pairs, PairTable)
    assert isinstance(r.rank_sets, RankSets) and isinstance(r.tiers, Tiers) and isinstance(r.win_rates, ScoreIntervals)
    d = r.to_dict()
    rows = {m["model"]: m for m in d["models"]}
    for k, m in enumerate(r.models):
        assert rows[m]["rating"] == r.ratings.score[k] and rows[m]["rank_low"] == r.rank_sets.rank_low[k]
        assert rows[m]["tier"] == r.tiers.tier[k] and rows[m]["win_rate"] == r.win_rates.score[k]
        assert rows[m]["overlap_rank_high"] == r.rank_sets.marginal_high[k]
    assert [x["model"] for x in d["models"]] == [r.models[k] for k in r.tiers.order]
    assert np.array_equal(r.separated, r.pairs.p_adjusted < 1 - r.confidence_level)
    assert r.rank_sets.could_be_first == d["headline"]["could_be_first"] == r.could_be_first
    code, out, err = run_cli(capsys, "arena", str(path), "--baseline", "m2", "--seed", "4", "--n-resamples", "300",
                             "--format", "json")
    assert code == 0, err
    cli = json.loads(out)
    cli.pop("meta")
    assert cli == d
    text = r.headline["text"]
    assert text == d["headline"]["text"] and text.startswith(("Yes: ", "No: "))
    code, out, _ = run_cli(capsys, "arena", str(path), "--baseline", "m2", "--seed", "4", "--n-resamples", "300")
    assert " ".join(text.split()) in " ".join(out.split()) and str(r).split()[:8] == out.split()[:8]
