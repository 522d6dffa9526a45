"""One presentation layer: renderers registered by result type, csv for tables, one number format."""

from __future__ import annotations

import csv
import io
import json

import pytest

from conftest import run_cli
from ranktrust.reporting import _fmt as fmt
from ranktrust.reporting.renderers import formats_for, renderer, renderer_for


@pytest.mark.parametrize("name", ["PairedComparison", "PowerResult", "RankSets", "Stability", "SplitHalf",
                                  "MDADResult", "Subset", "Repeats", "Sensitivity", "IngestSummary",
                                  "StoreSummary", "ScoreResults", "LeaderboardReport", "WatchStatus",
                                  "ReplayResult"])
def test_every_command_result_has_text_and_markdown(name):
    """Each command's result class (registered by its "package.module:Class") has both; a class of the same name
    defined elsewhere has neither: the registry is keyed by the class, not its name."""
    from ranktrust.reporting._registry import REGISTRY, resolve

    renderer_for(object, "text")                  # loads the built-in renderers
    (key,) = [n for n in REGISTRY.names("text") if n.rpartition(":")[2] == name]
    cls = resolve(key)
    assert renderer_for(cls, "text") is not None and renderer_for(cls, "md") is not None
    look_alike = type(name, (), {})
    assert renderer_for(look_alike, "text") is None and renderer_for(look_alike, "md") is None


def test_lookup_follows_base_classes_and_names():
    class RendererTestBase:   # a name no result type has
        pass

    class Child(RendererTestBase):
        pass

    from ranktrust.reporting._registry import REGISTRY

    try:
        @renderer(RendererTestBase, "csv")
        def _csv(d):
            return "x\n"

        assert renderer_for(Child(), "csv") is _csv and "csv" in formats_for(Child)
        with pytest.raises(ValueError, match="`fmt` must be one of"):
            renderer(RendererTestBase, "pdf")
    finally:   # the registry is the process's: a local class left in it breaks later tests that resolve every name
        REGISTRY.discard(RendererTestBase, "csv")
    assert renderer_for(Child(), "csv") is None


def test_one_rule_per_number():
    assert fmt.p_value(5e-5) == "<0.0001" and fmt.p_value(0.0512) == "0.051" and fmt.p_value(None) == "n/a"
    assert fmt.points(0.7183) == "71.83" and fmt.points(0.0185, signed=True) == "+1.85"
    assert fmt.interval(0.7057, 0.7823) == "[70.57, 78.23]" and fmt.interval(None, 0.5) == "n/a"
    assert fmt.interval(0.7057, 0.7823, sep="–", brackets=False) == "70.57–78.23"   # the digits are fmt's
    assert fmt.percent(0.5535) == "55%" and fmt.share(0.083) == "8.3%" and fmt.share(0.31) == "31%"
    assert fmt.points(float("nan")) == fmt.MISSING == "n/a"


@pytest.mark.parametrize("cmd", [["ranks"], ["stability", "--n-resamples", "20", "--sizes", "30,full"],
                                 ["report", "--no-stability"]])
def test_tables_write_csv(capsys, swebench_path, cmd):
    code, out, err = run_cli(capsys, cmd[0], swebench_path, *cmd[1:], "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and all("np.float" not in v for r in rows for v in r.values() if v)
    if cmd[0] != "stability":
        assert {"model", "rank_low", "rank_high"} <= set(rows[0])
        assert 0 < float(rows[0]["score"]) < 1


def test_csv_suffix_picks_csv_and_non_tables_refuse_it(capsys, swebench_path, tmp_path):
    out = tmp_path / "ranks.csv"
    code, _, err = run_cli(capsys, "ranks", swebench_path, "--out", str(out))
    assert code == 0, err
    assert out.read_text().startswith("tier,model,score")
    code, out_, err = run_cli(capsys, "splithalf", swebench_path, "--n-resamples", "10", "--format", "csv")
    assert code == 1 and "not a table" in err and "Traceback" not in err


def test_power_json_keeps_the_command_extras(capsys):
    code, out, err = run_cli(capsys, "power", "--gap", "2", "--disagreement", "0.27", "-f", "json")
    d = json.loads(out)
    assert code == 0 and d["items_needed"] == 5390 and d["table"] and d["disagreement_source"]
    assert d["meta"]["kind"] == "power"


def test_to_string_renders_a_result_as_the_command_line_would(swebench):
    import ranktrust as rt
    from ranktrust.reporting.renderers import to_string

    a, b = swebench.models[:2]
    r = rt.compare(swebench, a, b)
    md = to_string(r, "md")
    assert md.startswith(f"## {a} vs {b}") and "| p-value |" in md
    assert json.loads(to_string(r, "json"))["meta"]["kind"] == "PairedComparison"
    assert to_string(rt.rank_sets(swebench), "csv").startswith("tier,model,score")


def test_every_report_section_is_one_partial():
    from importlib import resources

    from ranktrust.reporting._html import REPORT_SECTIONS

    folder = resources.files("ranktrust.reporting").joinpath("templates", "sections")
    partials = {p.name.removesuffix(".html.j2") for p in folder.iterdir() if p.name.endswith(".html.j2")}
    # "extra": a section added by a builder and its renderers only, drawn from its Markdown
    assert partials == {sid for sid, _, _ in REPORT_SECTIONS} | {"extra"}
