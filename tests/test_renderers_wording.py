"""How the renderers word and mark what a reader could misread: the arena baseline's own win-rate row, the tie
check on a board of two, the watch page's band titles, and a leaderboard row that scores higher than a row above
it (tier first). One rule per item, the same in text, Markdown and HTML (and CSV where it is a table)."""

from __future__ import annotations

import copy
import io

import numpy as np
import pandas as pd
import pytest

import ranktrust as rt
from ranktrust.reporting.renderers import to_string


def _battles(models=("ada", "bo", "cy", "dee"), n=600, seed=2, ties=0.0) -> pd.DataFrame:
    g = np.random.default_rng(seed)
    k = len(models)
    strength = np.linspace(1.0, -0.6, k)
    a = g.integers(0, k, n)
    b = (a + g.integers(1, k, n)) % k
    p = 1 / (1 + np.exp(strength[b] - strength[a]))
    score = (g.random(n) < p).astype(float)
    score[g.random(n) < ties] = 0.5
    return pd.DataFrame({"model_a": [models[i] for i in a], "model_b": [models[i] for i in b], "score": score})


@pytest.fixture(scope="module")
def with_baseline():
    return rt.arena(_battles(), baseline="cy", n_resamples=50, rng=0)


def test_the_baseline_row_says_baseline_not_fifty_percent(with_baseline):
    """The baseline against itself is 50% by definition: text, Markdown and HTML say "baseline" and a dash, the
    CSV leaves its win-rate cells empty, the JSON keeps 0.5 with a zero-width interval (an exact value)."""
    r = with_baseline
    for fmt in ("text", "md", "html"):
        out = to_string(r, fmt)
        assert "50.00 [50.00, 50.00]" not in out and "[50.00, 50.00]" not in out, fmt
        assert "baseline" in out, fmt
    md = to_string(r, "md")
    row = next(line for line in md.splitlines() if line.startswith("| ") and " cy " in line)
    assert "| baseline | — |" in row
    others = [line for line in md.splitlines() if line.startswith("| ") and " ada " in line]
    assert others and "baseline" not in others[0]
    csv = pd.read_csv(io.StringIO(to_string(r, "csv")))
    base = csv[csv["model"] == "cy"].iloc[0]
    assert base[["win_rate", "win_rate_ci_low", "win_rate_ci_high"]].isna().all() and base["n_vs_baseline"] >= 0
    assert csv[csv["model"] != "cy"]["win_rate"].notna().all()
    row = next(m for m in r.to_dict()["models"] if m["model"] == "cy")
    assert (row["win_rate"], row["win_rate_ci_low"], row["win_rate_ci_high"]) == (0.5, 0.5, 0.5)


@pytest.mark.parametrize("differs", [False, True])
def test_the_tie_check_on_a_board_of_two_says_the_order(differs):
    """A 2-model board has no top three: the sentence speaks of the order."""
    from ranktrust.reporting.renderers._arena import ties_sentence

    d = {"models": [{"model": "a"}, {"model": "b"}],
         "settings": {"ties_check": {"convention": "davidson", "top": ["b", "a"] if differs else ["a", "b"],
                                     "differs": differs}}}
    s = ties_sentence(d)
    assert "three" not in s and "top two" not in s
    assert s == ("Note: with Davidson's tie model the order is b, a: the tie convention changes it." if differs
                 else "With Davidson's tie model the order is the same.")
    d["models"] += [{"model": "c"}, {"model": "d"}]      # a larger board keeps "the top two/three"
    assert "top two" in ties_sentence(d)


def test_a_two_model_arena_says_the_order_is_the_same():
    r = rt.arena(_battles(("ada", "bo"), n=400, ties=0.3), n_resamples=50, rng=0)
    tc = r.to_dict()["settings"].get("ties_check")
    text = to_string(r, "text")
    if tc:
        assert "top three" not in text and "the order is" in text


def test_the_watch_page_titles_each_band_once():
    """The watch HTML page captions each band; the figure inside carries no second title."""
    pytest.importorskip("matplotlib")
    from ranktrust.reporting.renderers._watch import watch_html

    g = np.random.default_rng(0)
    m = rt.ScoreMatrix.from_array((g.random((3, 400)) < np.array([0.85, 0.5, 0.45])[:, None]).astype(float),
                                  models=["good", "mid", "low"])
    w = rt.Watch(list(m.models), list(m.items), rng=0)
    w.update_matrix(m)
    bands = w.bands()
    assert bands
    page = watch_html({**w.status().to_dict(), "bands": bands}, {"version": "x", "seed": 0})
    b = bands[0]
    assert page.count("<figcaption>") == len([x for x in bands if len(x.get("t", ()))])
    assert "confidence sequence" in page
    svg = page[page.index("<figure>"):page.index("</figure>")]
    assert "confidence sequence" not in svg.split("</figcaption>", 1)[1], b["a"]   # not in the figure's own text


def _report_with_an_inversion():
    """A report whose table shows a higher score below a lower one (the rows' scores swapped in its dict)."""
    g = np.random.default_rng(3)
    m = rt.ScoreMatrix.from_array((g.random((4, 300)) < np.array([0.8, 0.6, 0.55, 0.3])[:, None]).astype(float),
                                  models=["ada", "bo", "cy", "dee"])
    d = copy.deepcopy(rt.report(m, stability=False, quality=False).to_dict())
    rows = d["models"]
    rows[2]["score"] = rows[1]["score"] - 0.01         # the third row now scores below ...
    rows[3]["score"] = rows[1]["score"] + 0.005        # ... and the fourth above the second
    return d


def test_a_row_scoring_above_a_row_listed_before_it_is_marked_in_every_format():
    from ranktrust.reporting._fmt import OUT_OF_ORDER, OUT_OF_ORDER_NOTE, out_of_order
    from ranktrust.reporting.renderers._report import render_html, report_markdown, report_text

    assert out_of_order([{"score": 0.7}, {"score": 0.6}, {"score": 0.65}, {"score": None}, {"score": 0.5}]) == [
        False, False, True, False, False]
    d = _report_with_an_inversion()
    dee = d["models"][3]["model"]
    md = report_markdown(d)
    marked = [line for line in md.splitlines() if line.startswith("| ") and f" {OUT_OF_ORDER} " in line]
    assert len(marked) == 1 and f" {dee} " in marked[0]
    assert md.count("scores higher than a model listed above it: the rows are ordered by tier first") == 1
    from rich.console import Console

    con = Console(file=io.StringIO(), width=140, color_system=None)
    for part in report_text(d):
        con.print(part)
    text = con.file.getvalue()
    assert text.count(OUT_OF_ORDER) == 2 and OUT_OF_ORDER_NOTE[:40] in text   # the mark and the note's own
    html = render_html(d, {"version": "x", "seed": 0})
    assert html.count('class="out-of-order"') == 1 and 'id="out-of-order-note"' in html
    # a table in order has neither mark nor note
    plain = rt.report(rt.ScoreMatrix.from_array(np.eye(3, 40) + 0.0, models=["a", "b", "c"]), stability=False,
                      quality=False).to_dict()
    assert OUT_OF_ORDER not in report_markdown(plain) and "out-of-order" not in render_html(plain, {"version": "x"})


@pytest.mark.parametrize("target, said", [("best", "Could be #1"), ("top-3", "Could be in the top-3"),
                                          ("ranks", "Rank set contains 1")])
def test_the_watch_verdict_second_sentence_starts_with_a_capital(target, said):
    from ranktrust.reporting.renderers._watch import _verdict

    d = {"target": target, "done": False, "target_decided": False, "best_set": ["a", "b"], "unresolvable_pairs": []}
    assert _verdict(d) == f"Still open. {said}: a, b."
    assert _verdict({**d, "target_decided": True}) == f"Decided. {said}: a, b."
