"""The leaderboard report: builder, JSON keys, CLI formats, real data."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import run_cli_completed

import ranktrust as rt
from ranktrust.reporting._headline import report_dict
from ranktrust.reporting._notes import note_text

MODEL_KEYS = {"model", "n_items", "score", "ci_low", "ci_high", "rank", "tier"}
PAIR_KEYS = {"a", "b", "n_items", "only_a", "only_b", "diff", "ci_low", "ci_high", "p_value", "p_adjusted"}


@pytest.fixture(scope="module")
def swe_report(swebench):
    return rt.report(swebench, stability_n_resamples=500, rng=0)


def test_json_keys_and_order(swe_report, swebench):
    d = swe_report.to_dict()
    assert d["n_models"] == 25 and d["n_items"] == 500
    assert all(MODEL_KEYS <= set(r) for r in d["models"])
    assert all(PAIR_KEYS <= set(p) for p in d["pairs"])
    scores = [r["score"] for r in d["models"]]
    assert scores == sorted(scores, reverse=True)
    assert [r["rank"] for r in d["models"]] == list(range(1, 26))
    # adjacent pairs: each model vs the next one down
    assert len(d["pairs"]) == 24 and d["pairs_scope"] == "adjacent"
    for p, (hi, lo) in zip(d["pairs"], zip(d["models"], d["models"][1:])):
        assert {p["a"], p["b"]} == {hi["model"], lo["model"]}
    # scores equal resolved / 500
    resolved = dict(zip(swebench.models, swebench.scores.sum(axis=1)))
    for r in d["models"]:
        assert r["score"] == pytest.approx(resolved[r["model"]] / 500, abs=1e-12)
    json.dumps(d, allow_nan=False)  # strictly valid JSON


def test_swebench_top_two_one_tier(swe_report):
    d = report_dict(swe_report)
    top, second = d["models"][0], d["models"][1]
    assert top["model"].startswith("Claude 4.5 Opus") and second["model"].startswith("Gemini 3 Pro")
    assert top["tier"] == second["tier"] == 1
    first = d["pairs"][0]
    assert (first["only_a"], first["only_b"]) == (29, 28)
    assert d["headline"]["separable"] is False
    assert d["headline"]["text"].startswith("No: 3 models could be #1")
    assert {top["model"], second["model"]} <= set(d["rank_sets"]["could_be_first"])


def test_all_pairs_option(swebench):
    d = rt.report(swebench, all_pairs=True, stability=False).to_dict()
    assert len(d["pairs"]) == 25 * 24 // 2 and d["pairs_scope"] == "all"


def test_pair_table_p_values_say_their_family():
    """Issue 23 §2 (house review 2026-12 §5.5): the report's table of adjacent pairs keeps the p-values
    adjusted over all M(M-1)/2 pairs, which are ``rt.all_pairs(m, pairs="all")``'s for those pairs, and says
    so (``adjust_family="all"``, "all pairs" in every format's column); ``rt.all_pairs(m, pairs="adjacent")``
    adjusts over the M-1 neighbours, gives other p-values and says ``adjust_family="adjacent"``."""
    from ranktrust.reporting.renderers import to_string

    # 5 models x 3,000 items, as in the review; close enough that a non-adjacent pair has a larger p than an
    # adjacent one, so Holm over all 10 pairs and over the 4 neighbours differ (m3 vs m2: 0.46 vs 0.39)
    rng = np.random.default_rng(11)
    s = (rng.random((5, 3000)) < np.linspace(0.50, 0.56, 5)[:, None]).astype(float)
    m = rt.ScoreMatrix.from_array(s, models=[f"m{i}" for i in range(5)])
    rep = rt.report(m, stability=False, rng=0)
    full, adj = rt.all_pairs(m, pairs="all"), rt.all_pairs(m, pairs="adjacent")
    assert (rep.pairs.pairs_scope, rep.pairs.adjust_family) == ("adjacent", "all")
    assert (full.adjust_family, adj.adjust_family) == ("all", "adjacent")
    d = rep.to_dict()
    assert (d["pairs_scope"], d["adjust_family"]) == ("adjacent", "all")
    assert adj.to_dict()["adjust_family"] == "adjacent" and full.to_dict()["adjust_family"] == "all"

    def by_pair(rows):
        return {frozenset((r["a"], r["b"])): r["p_adjusted"] for r in rows}

    mine, everything, neighbours = by_pair(d["pairs"]), by_pair(full.to_dict()["pairs"]), by_pair(adj.to_dict()["pairs"])
    assert len(mine) == 4 and set(mine) == set(neighbours)
    # the same tests and the same Holm step-down over the same family: equal to a few ulps (one path
    # selects rows of the other's arrays; the tolerance only guards against a reordering of float sums)
    np.testing.assert_allclose([mine[k] for k in mine], [everything[k] for k in mine], rtol=1e-12)
    assert any(abs(mine[k] - neighbours[k]) > 0.05 for k in mine)
    # every format labels the column with its family
    assert "p adj (all pairs)" in to_string(rep, "md")
    assert "adjusted p (all pairs)" in to_string(rep, "html")
    assert "(all pairs)" in to_string(rep, "text")


def test_single_model_is_not_an_error(tmp_path):
    p = tmp_path / "one.csv"
    p.write_text("model,item,score\nA,q1,1\nA,q2,0\nA,q3,1\n")
    r = run_cli_completed("report", str(p), "--format", "json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert len(d["models"]) == 1 and d["pairs"] == []
    assert "nothing to compare" in d["headline"]["text"]


def test_cli_json_meta_and_formats(tmp_path, swebench_path):
    out = tmp_path / "r.json"
    r = run_cli_completed("report", str(swebench_path), "--format", "json", "--out", str(out), "--seed", "7",
                          "--stability-n-resamples", "200")
    assert r.returncode == 0, r.stderr
    d = json.loads(out.read_text())
    assert d["meta"]["format"] == 2 and d["meta"]["seed"] == 7 and d["meta"]["kind"] == "report"
    assert len(d["meta"]["input_hash"]) == 16 and d["meta"]["version"]
    md = tmp_path / "r.md"
    r = run_cli_completed("report", str(swebench_path), "--out", str(md), "--stability-n-resamples", "200")
    assert r.returncode == 0, r.stderr
    text = md.read_text()
    assert text.startswith("# ") and "| 1 | Claude 4.5 Opus medium (20251101) | 74.40 |" in text
    assert "seed 0" in text


def test_same_seed_same_report(swebench):
    a = rt.report(swebench, stability_n_resamples=300, rng=3).to_dict()
    b = rt.report(swebench, stability_n_resamples=300, rng=3).to_dict()
    assert a == b


def test_cluster_by_widens(swebench):
    plain = rt.report(swebench, stability=False, cluster=False).to_dict()
    clus = rt.report(swebench, stability=False, cluster=True).to_dict()
    assert clus["settings"]["clustered"] and not plain["settings"]["clustered"]
    w = lambda d: np.mean([r["ci_high"] - r["ci_low"] for r in d["models"]])  # noqa: E731
    assert w(clus) > w(plain)


def test_pairwise_alignment_mmlupro(mmlupro_path):
    m = rt.read(mmlupro_path, align="pairwise")
    d = rt.report(m, stability=False).to_dict()
    n = {r["model"]: r["n_items"] for r in d["models"]}
    assert n["DeepSeek-Coder-V2"] == 10351 and n["Yi-6B"] == 12032
    assert d["settings"]["align"] == "pairwise"


def test_report_says_when_ranking_flips_with_condition():
    import runpy
    from pathlib import Path

    ex = runpy.run_path(str(Path(__file__).resolve().parents[1] / "examples" / "option_order_flip.py"),
                        run_name="not_main")
    df = ex["generate"](seed=0)
    m = rt.ScoreMatrix.from_long(df)
    d = report_dict(rt.report(m, stability_n_resamples=100))
    assert d["sensitivity"]["ranking_flips"] and d["repeats"]["models"]
    assert "changes with the condition" in d["headline"]["text"] and d["headline"]["separable"] is False
    from ranktrust.reporting.renderers import to_string

    # the report's sensitivity section is drawn by `ranktrust sensitivity`'s own renderer
    assert "The ranking flips with the condition" in to_string(rt.report(m, stability_n_resamples=100), "md")


def test_result_repr_is_short_for_many_models(gpqa):
    r = repr(rt.intervals(gpqa))
    assert r.startswith("ScoreIntervals(") and "<array 420 float64>" in r and len(r) < 600
    c = repr(rt.compare(gpqa, gpqa.models[0], gpqa.models[1]))
    assert "only_a=" in c and "\n" not in c


@pytest.mark.parametrize("n_models", [4, 5, 8])
def test_microbench_section_on_a_small_leaderboard(n_models):
    """report(microbench=True) on a few models: 5 or more get the section (at least 3 target models are left),
    fewer get a note saying why it is left out; never the mdad error (the review's defect 1)."""
    rng = np.random.default_rng(0)
    s = (rng.random((n_models, 300)) < np.linspace(0.5, 0.8, n_models)[:, None]).astype(float)
    m = rt.ScoreMatrix.from_array(s, models=[f"m{i}" for i in range(n_models)])
    rep = rt.report(m, microbench=True, microbench_n_resamples=3, rng=0)
    if n_models >= 5:
        mb = rep.extra["microbench"]
        assert mb.n_target_models >= 3 and mb.n_source_models >= 2
    else:
        assert "microbench" not in rep.extra
        (note,) = [n for n in rep.notes if n.code == "microbench_too_few_models"]
        assert note.data == {"n_models": n_models}
        assert "micro-benchmark section needs at least 5 models" in note_text(note)


# ---- the report as a composition (issue 23 §1; issue 21: print(rt.report(m)), report.verdict) ------------
@pytest.fixture(scope="module")
def small_report():
    rng = np.random.default_rng(3)
    s = (rng.random((5, 400)) < np.linspace(0.45, 0.75, 5)[:, None]).astype(float)
    m = rt.ScoreMatrix.from_array(s, models=[f"m{i}" for i in range(5)])
    return m, rt.report(m, stability_n_resamples=50, rng=1)


def test_print_report_is_the_terminal_report_with_the_verdict_first(small_report):
    from ranktrust.reporting.renderers import to_string

    _m, rep = small_report
    text = str(rep)
    assert text == to_string(rep, "text")
    first = text.splitlines()[1]            # the line under the panel's top border
    assert "Is #1 really #1?" in text.splitlines()[0] and rep.verdict.split()[0] in first
    assert rep.verdict == rep.headline["text"] == report_dict(rep)["headline"]["text"]
    assert rep.verdict.startswith(("Yes:", "No:"))
    assert rep.to_dict()["headline"]["text"] == rep.verdict   # to_dict() is the JSON the command writes
    assert repr(rep).startswith("LeaderboardReport(<5 models x 400 items>") and len(repr(rep)) < 300


def test_to_frame_is_the_leaderboard_table(small_report):
    _m, rep = small_report
    df = rep.to_frame()
    rows = rep.to_dict()["models"]
    assert list(df["model"]) == [r["model"] for r in rows] and list(df["rank"]) == list(range(1, 6))
    np.testing.assert_array_equal(df["score"].to_numpy(), [r["score"] for r in rows])
    assert {"ci_low", "ci_high", "tier", "rank_low", "rank_high", "n_items", "se"} <= set(df.columns)


def test_sections_are_typed_results(small_report):
    from ranktrust.leaderboard import Note, PowerSection
    from ranktrust.stats._power import PowerResult, PowerTable, power_table

    m, rep = small_report
    names = [k for k, _v in rep.sections]
    assert names[:4] == ["intervals", "pairs_all", "rank_sets", "pairs"]
    assert rep.section("intervals") is rep.intervals and rep.microbench is None and rep.repeats is None
    pw = rep.power
    assert isinstance(pw, PowerSection) and isinstance(pw.table, PowerTable) and isinstance(pw.at_n, PowerResult)
    ref = power_table(pw.disagreement, binary=True)       # alpha and power are the table's, not typed in
    np.testing.assert_array_equal(pw.table.items_needed, ref.items_needed)
    assert rep.to_dict()["power"]["alpha"] == ref.alpha and rep.to_dict()["power"]["power"] == ref.power
    assert all(isinstance(n, Note) for n in rep.notes)
    # every built-in section has its place in the page (none is drawn again as an "other" section)
    from ranktrust.reporting.renderers._report import known_sections

    assert {s["name"] for s in rep.to_dict()["sections"]} <= known_sections()
    with pytest.raises(TypeError):
        rep.settings["confidence_level"] = 0.5            # read-only: the JSON cannot drift from the result


def test_option_objects_and_keywords_are_one_call(small_report):
    from ranktrust.leaderboard import Inference, Resampling, Sections

    m, rep = small_report
    same = rt.report(m, resampling=Resampling(stability_n_resamples=50), inference=Inference(), sections=Sections(),
                     rng=1)
    assert same.to_dict() == rep.to_dict()
    bh = rt.report(m, inference=Inference(adjust="bh"), stability=False, rng=1)
    assert bh.settings["adjust"] == "bh" and bh.stability is None
    with pytest.raises(ValueError, match="`inference` and `adjust` are both given"):
        rt.report(m, inference=Inference(), adjust="bh")
    with pytest.raises(TypeError, match="unexpected keyword argument 'stability_draws'"):
        rt.report(m, stability_draws=10)


def test_notes_are_records_worded_in_reporting():
    """The analysis writes no sentence: each note is (code, data); reporting/_notes.py words it, once."""
    from ranktrust.leaderboard import Note
    from ranktrust.reporting._notes import NOTE_WORDS

    n = Note("dropped", {"total": 10326, "by_model": {"a": 10000, "b": 326}})
    assert note_text(n) == "align=intersect dropped 10,326 (model, item) results: a 10,000, b 326"
    assert note_text(n.to_dict()) == note_text(n) and note_text("an older report's sentence") == "an older report's sentence"
    assert note_text(Note("new_code", {"x": 1})) == "new_code: x 1"      # a code without words still says its data
    import inspect

    import ranktrust.leaderboard._pipeline as pipeline
    import ranktrust.leaderboard._sections as sections
    import ranktrust.quality as quality

    codes = set()
    for mod in (pipeline, sections, quality):
        src = inspect.getsource(mod)
        codes |= set(__import__("re").findall(r'(?:note|Note)\("([a-z_]+)"', src))
    assert codes and codes <= set(NOTE_WORDS), codes - set(NOTE_WORDS)


def test_quality_notes_are_worded_as_data_quality_words_them(gpqa):
    """The report's data-quality notes are DataQuality.notes()'s records, worded in reporting/_notes.py: GPQA's
    identical rows and one shuffled row (a flagged misfit)."""
    import warnings

    from ranktrust.leaderboard._sections import quality_notes

    y = np.array(gpqa.scores)
    top = int(np.argmax(y.mean(axis=1)))
    y[top] = np.random.default_rng(0).permutation(y[top])
    m = rt.ScoreMatrix.from_array(y, models=list(gpqa.models), items=list(gpqa.items))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q = rt.data_quality(m)
    notes = quality_notes(q)
    assert {n.code for n in notes} == {"similar_models", "misfit"}
    assert notes == q.notes()
    words = [note_text(n) for n in notes]
    assert any(f"{gpqa.models[top]}: its per-item pattern does not fit" in w for w in words)
    assert any("have identical per-item results on all 448 items they share" in w for w in words)


def test_a_constant_model_gets_one_note():
    """D23: a model with the same score on every item is one note (code zero_spread), not one per interval
    (the intervals' CLT and the repeats' t both warn about it)."""
    import pandas as pd

    rng = np.random.default_rng(0)
    rows = [(m, f"q{i}", float(0 if m == "flat" else rng.random() < 0.6), r)
            for m in ("flat", "b", "c") for i in range(60) for r in range(3)]
    m = rt.read(pd.DataFrame(rows, columns=["model", "item", "score", "run"]))
    rep = rt.report(m, stability_n_resamples=50)
    assert [n.data for n in rep.notes if n.code == "zero_spread"] == [{"models": ["flat"], "values": [0.0]}]
    assert not [n for n in rep.notes if n.code == "warning" and "zero spread" in n.data["text"]]
    assert sum("'flat'" in note_text(n) for n in rep.notes) == 1
    # the repeats section's own "CI is not defined" is the same cause: not a second note (verifier re-run)
    assert not [n for n in rep.repeats.notes if n.data.get("model") == "flat"]
    text = str(rep)
    assert text.count("note: ") and sum("flat" in ln for ln in text.splitlines() if ln.startswith("note: ")) == 1
    assert "CI is not defined" not in text and "zero spread" in text


def test_a_constant_model_in_real_logs_gets_one_note(harness_logs):
    """The verifier's case: `report harness-logs/inspect_ai --errors wrong`, model mockllm/model (all 0)."""
    r = run_cli_completed("report", str(harness_logs / "inspect_ai"), "--errors", "wrong", "-f", "md")
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    assert "CI is not defined" not in out
    assert out.count("(zero spread)") == 1 and "'mockllm/model' (all 0): every item has the same score" in out


def test_pair_table_names_never_break_inside_a_word():
    """D23: the terminal pair table stacks the two names in one column, so names of the demo's length
    (gemini-1.5-pro-002, Meta-Llama-3_1-70B-Instruct) are never cut in two."""
    from ranktrust.reporting.renderers import to_string

    names = ["gemini-1.5-pro-002", "gemini-1.5-flash-002", "Meta-Llama-3_1-70B-Instruct", "DeepSeek-Coder-V2-Instruct",
             "Meta-Llama-3_1-70B"]
    rng = np.random.default_rng(1)
    s = (rng.random((5, 500)) < np.linspace(0.7, 0.5, 5)[:, None]).astype(float)
    rep = rt.report(rt.ScoreMatrix.from_array(s, models=names), stability=False, quality=False)
    text = to_string(rep, "text")
    for name in names:
        assert text.count(name) >= 2, name                 # whole in the leaderboard and in the pair table
    table = text[text.index("Each model vs the next one down"):]
    table = table[:table.index("└")]
    cells = [line.split("│")[1].strip() for line in table.splitlines() if line.startswith("│")]
    assert set(cells) <= set(names)


def test_a_new_section_is_a_builder_and_its_renderers(small_report):
    """docs/architecture.md, "a report section": one @section builder and one @renderer per format, nothing
    else: the section is in the JSON under its name, in the terminal and in Markdown."""
    from dataclasses import dataclass

    from ranktrust.leaderboard import _sections as sections
    from ranktrust.reporting._registry import REGISTRY
    from ranktrust.reporting.renderers import renderer, to_string
    from ranktrust.results import Result

    @dataclass(frozen=True, eq=False)
    class TopScore(Result):
        model: str
        score: float

    @sections.section("top_score")
    def build_top_score(b):
        iv = b.done["intervals"]
        k = int(np.argmax(iv.score))
        return TopScore(model=iv.models[k], score=float(iv.score[k]))

    @renderer(TopScore, "text")
    def _text(d):
        from rich.text import Text

        return [Text(f"top score: {d['model']} {d['score']:.3f}")]

    @renderer(TopScore, "md")
    def _md(d):
        return f"## Top score\n\n{d['model']}\n"

    try:
        m, _rep = small_report
        rep = rt.report(m, stability=False, rng=1)
        d = rep.to_dict()
        assert d["top_score"]["model"] == "m4" and {"name": "top_score", "type": "TopScore"} in d["sections"]
        assert "top score: m4" in str(rep) and "## Top score" in to_string(rep, "md")
        assert '<section id="top_score" class="extra">\n<h2>Top score</h2>' in to_string(rep, "html")
        assert str(rep).rstrip().splitlines()[-1].startswith("note:") or "note:" not in str(rep)  # notes stay last
    finally:
        sections.SECTIONS[:] = [s for s in sections.SECTIONS if s.name != "top_score"]
        sections.BUILDERS[:] = [(s.name, s.build) for s in sections.SECTIONS]
        for fmt in ("text", "md"):
            REGISTRY.discard(TopScore, fmt)


def test_adjust_phrase_says_the_tables_family():
    """fmt.adjust_phrase said "over all N pairs" whatever the table: it follows the table's adjust_family."""
    from ranktrust.reporting._fmt import adjust_phrase

    s = {"adjust": "holm", "n_pairs": 28}
    assert adjust_phrase({"settings": s, "adjust_family": "all", "n_models": 8}) == "Holm over all 28 pairs"
    assert adjust_phrase({"settings": s, "adjust_family": "adjacent", "n_models": 8}) == "Holm over the 7 adjacent pairs"
    assert adjust_phrase(s) == "Holm over all 28 pairs" and adjust_phrase(s, "adjacent") == "Holm over the adjacent pairs"
    assert adjust_phrase({"settings": s, "adjust_family": "adjacent", "n_models": 2}) == "one pair: nothing to adjust"
    assert adjust_phrase({"settings": {**s, "adjust": "none"}, "adjust_family": "adjacent"}) != "Holm over all 28 pairs"
    # the report's table is adjusted over all pairs, and its text, Markdown and HTML say so
    rng = np.random.default_rng(2)
    m = rt.read_long(__import__("pandas").DataFrame(
        [(f"m{j}", f"q{i}", float(rng.random() < 0.3 + 0.1 * j)) for j in range(4) for i in range(200)],
        columns=["model", "item", "score"]))
    rep = rt.report(m, stability_n_resamples=20)
    d = report_dict(rep)
    assert d["adjust_family"] == "all" and adjust_phrase(d) == f"Holm over all {d['settings']['n_pairs']} pairs"
    flat = " ".join(str(rep).split())
    from ranktrust.reporting import render_html
    from ranktrust.reporting._render import meta as make_meta

    page = render_html(rep, make_meta("report", seed=0, input_hash="sha256:0", command="ranktrust report x.csv"))
    assert "p adj: Holm over all 6 pairs" in flat and page.count("Holm over all 6 pairs") >= 2


def test_the_reports_person_fit_follows_its_seed():
    """The quality section's random steps (the person fit's folds, its healthy reference) take the report's
    `rng` (a named stream: another section's numbers do not move), as every random step does."""
    rng = np.random.default_rng(0)
    th, b = rng.normal(0, 1, 30)[:, None], rng.normal(0, 1, 400)[None, :]
    m = rt.ScoreMatrix.from_array((rng.random((30, 400)) < 1 / (1 + np.exp(-(th - b)))).astype(float))
    q0, q0b, q1 = (dict(rt.report(m, rng=s, stability=False, split_half=False).sections)["quality"]
                   for s in (0, 0, 1))
    np.testing.assert_array_equal(q0.ceiling_z, q0b.ceiling_z)
    assert not np.allclose(q0.ceiling_z, q1.ceiling_z)


def test_the_section_spec_is_the_one_list_of_sections():
    """leaderboard.SECTIONS names every section once, with the type that draws it and its HTML partial; the report's
    properties, its text and Markdown parts and its HTML page all follow it."""
    from ranktrust.leaderboard import SECTIONS
    from ranktrust.leaderboard._result import _NAMED
    from ranktrust.reporting._html import REPORT_SECTIONS
    from ranktrust.reporting.renderers import renderer_named

    names = [s.name for s in SECTIONS]
    assert len(set(names)) == len(names) and tuple(names) == tuple(_NAMED)
    partials = {sid for sid, _, _ in REPORT_SECTIONS}
    for s in SECTIONS:
        assert s.partial is None or s.partial in partials, s
        if s.alone:
            assert renderer_named(s.type, "text") is not None and renderer_named(s.type, "md") is not None, s
