"""Plot functions, tested through the Figures they return (axes, labels, number of marks), not pixels."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure

from ranktrust.reporting import plots

# --------------------------------------------------------------------------- report dicts: the real rt.report
# (tests/_reports.py; the hand-written copy of the JSON contract that lived here is gone)
from _reports import LONG, real_report  # noqa: E402


class _Wrapped:
    """A result object: anything with to_dict()."""

    def __init__(self, d: dict) -> None:
        self._d = d

    def to_dict(self) -> dict:
        return self._d


def _tips(fig: Figure, kind: str) -> dict[str, str]:
    return {g: t for g, t in fig.rt_tooltips.items() if g.startswith(f"rt-{kind}-")}


def _lines_with_gid(ax, prefix: str) -> list:
    return [ln for ln in ax.get_lines() if (ln.get_gid() or "").startswith(prefix)]


# --------------------------------------------------------------------------- forest

def test_forest_one_errorbar_per_model_in_order():
    d = real_report(8)
    fig = plots.forest(_Wrapped(d))
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    lines = _lines_with_gid(ax, "rt-forest-")
    assert len(lines) == 8
    # each line runs ci_low -> score -> ci_high in points, top model at the top
    for r, ln in zip(d["models"], lines):
        xs = ln.get_xdata()
        assert np.allclose(xs, [100 * r["ci_low"], 100 * r["score"], 100 * r["ci_high"]])
    ys = [ln.get_ydata()[0] for ln in lines]
    assert ys == sorted(ys, reverse=True)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == d["models"][0]["model"] and len(labels) == 8
    assert "score" in ax.get_xlabel()
    assert len(_tips(fig, "forest")) == 8


def test_forest_accepts_plain_intervals_dict_and_truncates_long_names():
    d = {"models": [{"model": LONG, "score": 0.7, "ci_low": 0.68, "ci_high": 0.72},
                    {"model": "short", "score": 0.6, "ci_low": 0.58, "ci_high": 0.62}]}
    fig = plots.forest(d)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels[1].endswith("…") and len(labels[1]) <= 42
    assert LONG in next(iter(_tips(fig, "forest").values()))  # the tooltip keeps the full name
    assert not fig.axes[0].texts  # no tiers, no tier labels


def test_forest_many_models_grows_and_caps():
    d = real_report(420, extras=False)
    fig = plots.forest(d)
    assert len(_lines_with_gid(fig.axes[0], "rt-forest-")) == 420
    assert fig.get_figheight() > 60  # grows with the number of models: no overlapping labels
    small = plots.forest(d, max_models=50)
    assert len(_lines_with_gid(small.axes[0], "rt-forest-")) == 50
    assert "top 50 of 420" in small.axes[0].get_title(loc="left")
    # label spacing: at least ~7pt font fits in each row
    assert fig.get_figheight() * 72 / 420 >= 7 * 1.4


def test_forest_tier_labels_and_separators():
    d = real_report(12)
    fig = plots.forest(d)
    ax = fig.axes[0]
    tiers = [r["tier"] for r in d["models"]]
    starts = [t for i, t in enumerate(tiers) if i == 0 or t != tiers[i - 1]]
    assert len(starts) > 1
    assert [t.get_text() for t in ax.texts] == [f"tier {t}" for t in starts]
    seps = [ln for ln in ax.get_lines() if (ln.get_gid() or "").startswith("rt-tiersep-")]
    assert len(seps) == len(starts) - 1
    # the separator sits between the last row of one tier and the first of the next
    first_of_2 = tiers.index(starts[1])
    assert seps[0].get_ydata()[0] == pytest.approx(len(tiers) - 1 - first_of_2 + 0.5)


# --------------------------------------------------------------------------- heatmap

def test_pair_heatmap_marks_significant_cells():
    d = real_report(10)
    fig = plots.pair_heatmap(d)
    ax = fig.axes[0]
    sig = [c for c in ax.collections if isinstance(c, PathCollection) and c.get_gid() == "rt-significant"]
    assert len(sig) == 1
    p = np.array([[np.nan if v is None else v for v in row] for row in d["pair_matrix"]["p_adjusted"]])
    expected = int(np.sum(np.nan_to_num(p, nan=1.0) < 0.05))
    assert len(sig[0].get_offsets()) == expected
    assert [t.get_text() for t in ax.get_xticklabels()] == d["pair_matrix"]["models"]
    img = ax.get_images()[0].get_array()
    assert img.shape == (10, 10)
    assert np.ma.is_masked(img[0, 0])  # diagonal
    assert img[0, 1] == pytest.approx(100 * d["pair_matrix"]["diff"][0][1])
    assert len(_tips(fig, "cell")) == 10 * 9
    assert fig.axes[1].get_ylabel() == "row − column (points)"  # the colour bar


def test_pair_heatmap_60_models_no_per_cell_text():
    d = real_report(80, extras=False)
    fig = plots.pair_heatmap(d)
    ax = fig.axes[0]
    assert ax.get_images()[0].get_array().shape == (60, 60)
    assert not ax.texts
    with pytest.raises(ValueError, match="pair_matrix"):
        plots.pair_heatmap({"models": []})


# --------------------------------------------------------------------------- rank ranges, stability, power

def test_rank_ranges_one_bar_per_model():
    d = real_report(12)
    fig = plots.rank_ranges(d)
    bars = _lines_with_gid(fig.axes[0], "rt-rank-")
    assert len(bars) == 12
    for r, b in zip(d["rank_sets"]["models"], bars):
        lo, hi = b.get_xdata()
        assert lo == pytest.approx(r["rank_low"] - 0.35) and hi == pytest.approx(r["rank_high"] + 0.35)
    assert fig.axes[0].get_xlabel() == "rank (1 = best)"
    assert "95% confidence" in fig.axes[0].get_title(loc="left")
    # the leaderboard rows (no rank_sets section) work too
    d2 = {"models": d["models"]}
    assert len(_lines_with_gid(plots.rank_ranges(d2).axes[0], "rt-rank-")) == 12


def test_stability_curve_series_and_familiar_marks():
    d = real_report(8)
    fig = plots.stability_curve(_Wrapped(d))
    ax = fig.axes[0]
    series = _lines_with_gid(ax, "rt-series-")
    assert [ln.get_label() for ln in series] == ["P(#1 stays #1)", "P(top 2 keep their order)",
                                                  "P(top 3 keep their order)"]
    assert list(series[0].get_xdata()) == [s["n"] for s in d["stability"]["by_size"]]
    assert list(series[0].get_ydata()) == [s["p_top_stays_top"] for s in d["stability"]["by_size"]]
    marks = _lines_with_gid(ax, "rt-familiar-")
    assert sorted(ln.get_xdata()[0] for ln in marks) == [30, 164, 500]
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "AIME\n30" in texts and "HumanEval\n164" in texts and "SWE-bench Verified\n500" in texts
    assert "this benchmark\n2000" in texts
    assert ax.get_xscale() == "log"
    # a bare rt.stability dict
    fig2 = plots.stability_curve({"by_size": d["stability"]["by_size"][:2]})
    assert len(_lines_with_gid(fig2.axes[0], "rt-series-")) == 3


def test_power_curve_points():
    d = real_report(8)
    fig = plots.power_curve(d)
    ax = fig.axes[0]
    (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == "rt-power"]
    assert list(line.get_xdata()) == pytest.approx([1, 2, 3, 5, 10])
    assert list(line.get_ydata()) == [r["items_needed"] for r in d["power"]["table"]]
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "items needed"
    assert f"disagreement {d['power']['disagreement']:.0%}" in ax.get_title(loc="left")
    with pytest.raises(ValueError, match="power"):
        plots.power_curve({"models": []})


# --------------------------------------------------------------------------- micro-benchmarks, repeats, sensitivity

def test_mdad_curve_one_line_per_method():
    d = real_report(8)
    fig = plots.mdad_curve(d)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["random", "stratified", "anchor"]
    lines = _lines_with_gid(ax, "rt-method-")
    assert len(lines) == 3
    assert list(lines[0].get_xdata()) == [10, 25, 50, 100, 250]
    assert ax.get_ylabel() == "MDAD (points)"
    # the bare rt.mdad result layout
    assert len(_lines_with_gid(plots.mdad_curve({"mdad": d["microbench"]["mdad"]}).axes[0], "rt-method-")) == 3


def test_agreement_curve_panels():
    d = real_report(8)
    fig = plots.agreement_curve(d)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 5
    assert [ax.get_title(loc="left") for ax in visible] == [f"{s} items" for s in (10, 25, 50, 100, 250)]
    assert all(len(ax.get_lines()) == 4 for ax in visible)  # 3 methods + the 80% line
    fig2 = plots.agreement_curve(d, sizes=[25])
    assert len([ax for ax in fig2.axes if ax.get_visible()]) == 1
    with pytest.raises(ValueError, match="sizes"):
        plots.agreement_curve(d, sizes=[7])


def test_condition_spread_and_runs_vs_items():
    d = real_report(8)
    fig = plots.condition_spread(d)
    n_models = len(d["sensitivity"]["models"])
    assert len(_lines_with_gid(fig.axes[0], "rt-cond-")) == n_models * 3
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["A first", "A last", "shuffled"]
    fig = plots.runs_vs_items(d)
    ax = fig.axes[0]
    assert len(ax.containers) == 2 and all(len(c.patches) == len(d["repeats"]["models"]) for c in ax.containers)
    widths = [p.get_width() for p in ax.containers[1].patches]
    assert widths == pytest.approx([r["within_item_var"] for r in d["repeats"]["models"]])


def test_bad_inputs():
    with pytest.raises(TypeError, match="result"):
        plots.forest(42)
    with pytest.raises(ValueError, match="models"):
        plots.forest({"models": []})
    with pytest.raises(ValueError, match="stability"):
        plots.stability_curve({"models": []})


# --------------------------------------------------------------------------- SVG and files

def test_figure_svg_has_titles_unique_ids_and_no_urls():
    d = real_report(6, long_names=True)
    a = plots.figure_svg(plots.forest(d), salt="a")
    b = plots.figure_svg(plots.pair_heatmap(d), salt="b")
    assert a.startswith("<svg") and "<?xml" not in a and "<metadata" not in a
    assert a.count("<title>") >= 6
    assert "&lt;script&gt;" in a and "<script>" not in a  # names are escaped in tooltips
    ids_a = set(re.findall(r'\sid="([^"]+)"', a))
    ids_b = set(re.findall(r'\sid="([^"]+)"', b))
    assert not (ids_a & ids_b - {i for i in ids_a if i.startswith("rt-")})
    assert not re.search(r'(?:src|href)="https?:|url\(\s*["\']?https?:', a + b)
    assert 'class="rt-fig"' in a


def test_save_figures(tmp_path):
    d = real_report(8)
    paths = plots.save_figures(d, tmp_path / "figs")
    names = [p.name for p in paths]
    for n in ("forest", "pair_heatmap", "rank_ranges", "stability_curve", "power_curve", "mdad_curve",
              "agreement_curve", "condition_spread", "runs_vs_items"):
        assert f"{n}.png" in names and f"{n}.svg" in names
    assert all(p.stat().st_size > 1000 for p in paths)
    assert (tmp_path / "figs" / "forest.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # sections that are absent are skipped
    d2 = real_report(8, extras=False)
    d2["stability"] = None
    names2 = {p.stem for p in plots.save_figures(d2, tmp_path / "f2", formats=("svg",))}
    assert names2 == {"forest", "pair_heatmap", "rank_ranges", "power_curve"}
    with pytest.raises(ValueError, match="formats"):
        plots.save_figures(d, tmp_path, formats=("gif",))


# --------------------------------------------------------------------------- QA regressions: layout and colours

def _overlaps(boxes) -> list:
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if boxes[i].overlaps(boxes[j])]


@pytest.mark.parametrize("n_items,sizes", [
    (448, [30, 100, 200, 448]),            # the worked example: HumanEval (164) ran into "this benchmark (≈ SWE-bench)"
    (200, [30, 100, 200]),                 # this benchmark right next to HumanEval
    (40, [10, 20, 40]),                    # AIME next to this benchmark on a short axis
    (2000, [30, 100, 200, 500, 1000, 2000]),
])
def test_stability_size_labels_never_overlap(n_items, sizes):
    stab = {"by_size": [{"n": n, "p_top_stays_top": 0.5 + n / 5000, "p_topk_order": {"2": 0.3}} for n in sizes],
            "top_model": "m"}
    stab["by_size"][-1]["label"] = "full"
    fig = plots.stability_curve({"stability": stab, "n_items": n_items})
    fig.set_dpi(150)  # as save_figures writes it: text does not scale exactly with dpi
    fig.canvas.draw()
    ax = fig.axes[0]
    labels = [t for t in ax.texts if t.get_text()]
    assert any(t.get_text().startswith("this benchmark") for t in labels)
    r = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(r) for t in labels]
    assert _overlaps(boxes) == [], [t.get_text() for t in labels]
    # and none runs into the title
    title = ax.title.get_window_extent(r)
    assert not any(b.overlaps(title) for b in boxes)
    if n_items == 448:
        texts = [t.get_text() for t in labels]
        assert "HumanEval\n164" in texts and "this benchmark (≈ SWE-bench Verified)\n448" in texts


@pytest.mark.parametrize("n,gap", [(4320, 0.01), (173, 0.05), (448, 0.031), (100_000, 0.002)])
def test_power_label_inside_the_axes(n, gap):
    d = {"disagreement": 0.06, "alpha": 0.05, "power": 0.8,
         "table": [{"gap": g, "items_needed": k} for g, k in ((0.01, 4320), (0.02, 1080), (0.03, 480), (0.05, 173))],
         "at_n": {"n": n, "detectable_gap": gap}}
    fig = plots.power_curve(d)
    fig.canvas.draw()
    ax = fig.axes[0]
    r = fig.canvas.get_renderer()
    (label,) = [t for t in ax.texts if t.get_gid() == "rt-power-label"]
    box, axbox = label.get_window_extent(r), ax.get_window_extent(r)
    assert axbox.x0 - 1 <= box.x0 and box.x1 <= axbox.x1 + 1 and axbox.y0 - 1 <= box.y0 and box.y1 <= axbox.y1 + 1
    # minor ticks read as plain numbers (400, 2,000), never 4×10²
    assert not any("times" in t.get_text() or "×" in t.get_text() for t in ax.get_yticklabels(minor=True))


def test_tier_colours_adjacent_differ_and_no_black():
    cols = [plots.tier_colour(t) for t in range(1, 21)]
    assert all(a != b for a, b in zip(cols, cols[1:]))
    assert "#000000" not in cols and "#F0E442" not in cols
    assert cols[:6] == list(plots.TIER_COLOURS)            # tiers 1-6 keep the Okabe-Ito colours
    assert plots.tier_colour(None) == plots.tier_colour(0) == "#555555"


def test_tier_colours_never_repeat():
    """Distinct tiers never share a colour (tier 7 used to get tier 1's blue), however many there are;
    each is dark enough for its bold label on white, none is black, yellow or the no-tier grey."""
    import colorsys

    cols = [plots.tier_colour(t) for t in range(1, 601)]
    assert len(set(cols)) == len(cols)
    assert plots.tier_colour(7) != plots.tier_colour(1) and plots.tier_colour(13) != plots.tier_colour(7)
    assert not {"#000000", "#F0E442", "#555555"} & set(cols)
    light = [colorsys.rgb_to_hls(*(int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)))[1] for c in cols[6:]]
    assert 0.15 < min(light) and max(light) < 0.55
    assert [plots.tier_colour(t) for t in range(1, 601)] == cols          # the same colour on every call
    d = real_report(12)
    for i, r in enumerate(d["models"]):
        r["tier"] = i + 1
    fig = plots.forest(d)
    colours = [t.get_color() for t in fig.axes[0].texts]
    assert colours == cols[:12]


def test_score_axes_stay_within_0_and_100_points():
    zero = {"models": [{"model": m, "score": 0.0, "ci_low": 0.0, "ci_high": 0.0, "tier": 1} for m in "ab"]}
    lo, hi = plots.forest(zero).axes[0].get_xlim()
    assert -0.1 < lo <= 0 and hi >= 1.9          # not -0.04 … 0.04
    full = {"models": [{"model": "top", "score": 1.0, "ci_low": 0.97, "ci_high": 1.0}]}
    lo, hi = plots.forest(full).axes[0].get_xlim()
    assert hi <= 100.1 and lo < 97
    d = real_report(8)
    lo, hi = plots.forest(d).axes[0].get_xlim()   # an ordinary leaderboard is left as matplotlib draws it
    s = [100 * r[k] for r in d["models"] for k in ("ci_low", "ci_high")]
    assert lo < min(s) and hi > max(s) and hi - lo < 1.2 * (max(s) - min(s))
    sens = {"models": [{"model": "z", "conditions": {c: {"score": 0.0, "ci_low": 0.0, "ci_high": 0.0}
                                                     for c in ("A", "B")}}]}
    lo, hi = plots.condition_spread(sens).axes[0].get_xlim()
    assert -0.1 < lo <= 0 and hi >= 1.9


# --------------------------------------------------------------------------- the type -> figure registry

@pytest.fixture(scope="module")
def small():
    """Seven models x 300 items of made-up 0/1 scores; one name needs escaping."""
    import ranktrust as rt

    rng = np.random.default_rng(0)
    names = [f"model-{i}" for i in range(7)]
    names[2] = "<script>alert('x')</script>"
    p = np.linspace(0.35, 0.8, 7)[::-1, None]
    return rt.ScoreMatrix.from_array((rng.random((7, 300)) < p).astype(float), models=names)


def test_registry_names_are_result_classes():
    """Every renderer, figure and notebook page is registered under one key, the result class
    (``"package.module:Class"``): each name resolves to a class defined there (a moved class fails here)."""
    from ranktrust.reporting._registry import HOOKS, LEADERBOARD_REPORT, REGISTRY, resolve
    from ranktrust.reporting.renderers import renderer_for
    from ranktrust.results import Result

    import ranktrust.reporting._notebook  # noqa: F401  (registers the notebook page)

    renderer_for(object, "text")                  # loads the built-in renderers
    names = {n for hook in HOOKS for n in REGISTRY.names(hook)}
    assert len(names) > 30 and set(REGISTRY.names("figure")) <= names and REGISTRY.names("page") == [LEADERBOARD_REPORT]
    parts = {"ranktrust.reporting.renderers._report:ReportHeadline", "ranktrust.reporting.renderers._report:ReportNotes"}
    for name in names:
        cls = resolve(name)  # a moved result class fails here: rename it where it is registered
        assert name in parts or issubclass(cls, Result) or cls.__name__.endswith("Section"), name
    assert [s.name for s in plots.report_figures()] == [
        "forest", "pair_heatmap", "rank_ranges", "stability_curve", "power_curve", "mdad_curve",
        "agreement_curve", "condition_spread", "runs_vs_items"]
    assert resolve(LEADERBOARD_REPORT).__name__ == "LeaderboardReport"
    assert len({s.slot for s in plots.report_figures()}) == 9


def test_figures_looked_up_by_type_along_the_mro():
    from ranktrust.ranking._stability import Stability
    from ranktrust.runs._variance import VarianceComponents
    from ranktrust.stats._intervals import ScoreIntervals
    from ranktrust.stats._paired import PairedComparison
    from ranktrust.subsets._mdad import MDADResult

    assert [s.name for s in plots.figures_for(ScoreIntervals)] == ["forest"]
    assert [s.name for s in plots.figures_for(MDADResult)] == ["mdad_curve", "agreement_curve"]
    assert [s.name for s in plots.figures_for(VarianceComponents)] == ["runs_vs_items"]

    class MyStability(Stability):  # a subclass draws as its base
        pass

    assert [s.name for s in plots.figures_for(MyStability)] == ["stability_curve"]
    assert plots.figures_for(PairedComparison) == () and plots.figures_for({"models": []}) == ()


def test_notebook_result_html_shows_figures(small):
    import ranktrust as rt
    from ranktrust.reporting._notebook import result_html

    iv = rt.intervals(small)
    html = iv._repr_html_()  # registered by `import ranktrust`
    assert html.startswith("<b>ScoreIntervals</b>") and result_html(iv).startswith("<b>ScoreIntervals</b>")
    assert html.count("<svg") == 1 and html.count('class="rt-tip"') >= 7 and "<table>" in html
    assert "<script>alert" not in html
    st = result_html(rt.stability(small, n_resamples=100, sizes=(50, "full"), rng=0))
    assert "<svg" in st and "P(#1 stays #1)" in st
    from ranktrust.stats import power_table

    pw = result_html(power_table(0.27))
    assert "<svg" in pw and "items_needed" in pw
    plain = result_html(rt.compare(small, small.models[0], small.models[1]))
    assert "<svg" not in plain and "<table>" in plain


def test_notebook_shows_the_report_as_the_html_page(small):
    import ranktrust as rt

    rep = rt.report(small, stability=False)
    full = rep._repr_html_()
    assert full.startswith("<iframe srcdoc=") and "&lt;!DOCTYPE html&gt;" in full


def test_results_do_not_import_reporting():
    """results.py is the bottom layer: the notebook display registers itself there, never the reverse."""
    import ast
    import inspect

    import ranktrust.results as results

    tree = ast.parse(inspect.getsource(results))
    mods = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    mods |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any("reporting" in m or "plot" in m for m in mods), mods
    saved = results._html_display
    try:
        results.set_html_display(None)
        assert results.Result._repr_html_(object.__new__(results.Result)) is None  # plain repr
    finally:
        results.set_html_display(saved)


def test_familiar_sizes_defined_once(small):
    from ranktrust.ranking._stability import FAMILIAR_SIZES

    assert not hasattr(plots, "FAMILIAR_SIZES")
    stab = {"by_size": [{"n": n, "p_top_stays_top": 0.6, "p_topk_order": {}} for n in (30, 100, 500)]}
    fig = plots.stability_curve(stab)  # no familiar_sizes in the result: the analysis's constant
    marks = [a for a in fig.axes[0].lines if str(a.get_gid()).startswith("rt-familiar")]
    assert len(marks) == len(FAMILIAR_SIZES)


def test_save_figures_of_one_result(small, tmp_path):
    import ranktrust as rt

    paths = plots.save_figures(rt.rank_sets(small, n_resamples=100, rng=0), tmp_path, formats=("svg",))
    assert [p.name for p in paths] == ["rank_ranges.svg"]
    assert plots.save_figures(rt.compare(small, small.models[0], small.models[1]), tmp_path / "x") == []


def test_import_ranktrust_loads_no_presentation_and_the_first_display_registers_it():
    """``import ranktrust`` loads no presentation; the first Jupyter display (or ``str(report)``) imports the
    display module, which registers the HTML display and the report's wording, still without the plots."""
    import subprocess
    import sys

    code = ("import sys, ranktrust, ranktrust.results as r; assert r._html_display is None; "
            "assert 'ranktrust.reporting' not in sys.modules; "
            "import ranktrust.leaderboard._result as lr; "
            "r._load_html_display(); assert r._html_display is not None and lr._presenter is not None; "
            "print(sorted(m for m in ('matplotlib', 'jinja2', 'ranktrust.reporting.plots') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_names_in_any_script_draw_without_a_warning_per_glyph(tmp_path):
    """D18: CJK and emoji names: the inline SVG draws quietly (the browser has the fonts); PNG files say once
    which characters no installed font has (not one matplotlib warning per glyph); a bidi override in a
    name is shown escaped in the figure."""
    import warnings

    import ranktrust as rt
    from ranktrust.reporting.plots import _style
    from ranktrust.reporting.plots._svg import figure_svg, save_figures

    names = ["模型-甲", "モデル乙", "🦙 llama", "LTR \u202eedirrevo", "plain"]
    rng = np.random.default_rng(0)
    m = rt.ScoreMatrix.from_array((rng.random((5, 300)) < np.linspace(0.4, 0.7, 5)[:, None]).astype(float),
                                  models=names)
    iv = rt.intervals(m)
    svg = figure_svg(plots.forest(iv))                   # filterwarnings=error: any glyph warning fails here
    assert "模型-甲" in svg and "\u202e" not in svg and "\\u202e" in svg
    _style._WARNED_MISSING.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        save_figures(iv, tmp_path / "a", formats=("png",))
        save_figures(iv, tmp_path / "b", formats=("png",))
    said = [str(w.message) for w in caught]
    if _style.fallback_families(set("模🦙"))[1]:          # no installed font has them (as on the CI box)
        assert len(said) == 1 and said[0].startswith("no installed font has the characters")
    else:                                                 # a CJK/emoji font is installed: drawn with it, quietly
        assert said == []
