"""Results a person can read in Python: every result a top-level analysis returns prints what its command prints
(``print(result)``), answers in one sentence (``result.headline["text"]``), has ``to_dict()`` equal to the JSON its
command writes (headline and notes with their sentences, without ``meta``), ``to_markdown()``, ``to_html()`` (one
self-contained page), ``save(path)`` (the format from the suffix) and, where it is a table of models,
``to_frame()`` rows in leaderboard order.

The functions are enumerated from ``ranktrust.__all__``: each is either called in :data:`CALLS` (the least
arguments that run it on the small data below), or listed in :data:`NOT_RESULTS` (it returns no result object) or
:data:`NOT_CALLED` (it needs what a unit test cannot have), each with why; a new public function in none of them
fails :func:`test_every_public_function_is_called_or_listed`.
"""

from __future__ import annotations

import json
import math
import warnings
from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest

import ranktrust as rt
from ranktrust.results import ORDER_BY, SAVE_FORMATS, Result

MODELS = ["ada", "bo", "cy", "dee"]


def _matrix(seed: int = 0, n: int = 80, p=(0.8, 0.6, 0.55, 0.3), order=(2, 0, 3, 1)) -> rt.ScoreMatrix:
    """4 models in neither score nor name order (cy, ada, dee, bo), 0/1 scores on ``n`` items."""
    g = np.random.default_rng(seed)
    p = np.asarray(p)[list(order), None]
    return rt.ScoreMatrix.from_array((g.random((4, n)) < p).astype(float), models=[MODELS[k] for k in order],
                                     items=[f"q{i}" for i in range(n)])


def _six() -> rt.ScoreMatrix:
    g = np.random.default_rng(5)
    p = np.array([0.85, 0.75, 0.6, 0.5, 0.4, 0.3])[:, None]
    return rt.ScoreMatrix.from_array((g.random((6, 120)) < p).astype(float), models=[f"m{k}" for k in range(6)])


def _runs() -> rt.ScoreMatrix:
    g = np.random.default_rng(1)
    rows = [{"model": f"m{k}", "item": f"q{i}", "run": str(r), "score": float(g.random() < p)}
            for k, p in enumerate((0.7, 0.55, 0.4)) for i in range(30) for r in range(3)]
    return rt.read(pd.DataFrame(rows))


def _battles() -> pd.DataFrame:
    g = np.random.default_rng(2)
    strength = {"ada": 1.0, "bo": 0.4, "cy": 0.0, "dee": -0.6}
    a, b = g.integers(0, 4, 400), g.integers(0, 3, 400)
    b = np.where(b >= a, b + 1, b)
    ma, mb = [MODELS[i] for i in a], [MODELS[i] for i in b]
    pa = 1 / (1 + np.exp([strength[y] - strength[x] for x, y in zip(ma, mb)]))
    return pd.DataFrame({"model_a": ma, "model_b": mb, "score": (g.random(400) < pa).astype(float)})


def _judge_and_gold() -> tuple[rt.ScoreMatrix, rt.ScoreMatrix]:
    g = np.random.default_rng(3)
    truth = (g.random((3, 300)) < np.array([0.8, 0.6, 0.45])[:, None]).astype(float)
    judge = np.where(g.random(truth.shape) < 0.85, truth, 1 - truth)
    gold = np.where(np.arange(300) < 120, truth, np.nan)
    models = ["m0", "m1", "m2"]
    return rt.ScoreMatrix.from_array(judge, models=models), rt.ScoreMatrix.from_array(gold, models=models)


def _games() -> pd.DataFrame:
    g = np.random.default_rng(4)
    pairs = [("ada", "bo"), ("ada", "cy"), ("bo", "cy")]
    rows = []
    for q in range(60):
        m1, m2 = pairs[q % 3]
        w1, w2 = g.choice(["model_1", "model_2", "tie"], 2, p=[0.5, 0.35, 0.15])
        rows.append({"question_id": q, "model_1": m1, "model_2": m2, "g1_winner": w1, "g2_winner": w2})
    return pd.DataFrame(rows)


def _watch_status() -> Result:
    m = _matrix(n=40)
    w = rt.Watch(list(m.models), list(m.items))
    w.update_matrix(m)
    return w.status()


#: how to call each public analysis on small data: name -> the call
CALLS: dict[str, Callable[[], Any]] = {
    "intervals": lambda: rt.intervals(_matrix()),
    "compare": lambda: rt.compare(_matrix(), "ada", "bo"),
    "all_pairs": lambda: rt.all_pairs(_matrix()),
    "power": lambda: rt.power(gap=0.05, disagreement=0.3),
    "tiers": lambda: rt.tiers(_matrix()),
    "bootstrap_ci": lambda: rt.intervals(_matrix(), method="percentile", n_resamples=200),   # its replacement
    "stability": lambda: rt.stability(_matrix(), sizes=[20, 40], n_resamples=30),
    "rank_sets": lambda: rt.rank_sets(_matrix()),
    "split_half": lambda: rt.split_half(_matrix(), n_resamples=30),
    "select_subset": lambda: rt.select_subset(_matrix(), size=20),
    "estimate": lambda: rt.estimate(rt.select_subset(_matrix(), size=20), _matrix()),
    "mdad": lambda: rt.mdad(_six(), methods=("random",), sizes=(20, 40), n_resamples=5),
    "data_quality": lambda: rt.data_quality(_matrix(), person_fit=False),
    "repeats": lambda: rt.repeats(_runs()),
    "pass_at_k_matrix": lambda: rt.pass_at_k_matrix(_runs(), 1),
    "choose_n": lambda: rt.choose_n(_runs(), margin=0.05),
    "run_until_enough": lambda: rt.run_until_enough(
        lambda n: np.random.default_rng(n).normal(0.6, 0.02, (2, n)), n0=4, margin=0.05),
    "sensitivity": lambda: rt.sensitivity(_runs(), by="run"),
    "variance_components": lambda: rt.variance_components(_runs()),
    "report": lambda: rt.report(_matrix(), stability=False, quality=False),
    "watch_replay": lambda: rt.watch_replay(_matrix(n=40), n_resamples=5),
    "Watch": _watch_status,                                                      # Watch.status()
    "arena": lambda: rt.arena(_battles()),
    "gate": lambda: rt.gate(_matrix(), "ada", "bo", margin=0.05),
    "suite": lambda: rt.suite({"t1": _matrix(0), "t2": _matrix(1)}, n_resamples=50),
    "gold_corrected": lambda: rt.gold_corrected(*_judge_and_gold(), n_resamples=200),
    "judge_audit": lambda: rt.judge_audit(_games()),
}

#: public names that return no result object (data, arrays, numbers, a schema, a module, a class to build)
NOT_RESULTS = {
    "ScoreMatrix": "the data (a class)", "read": "a ScoreMatrix", "read_long": "a DataFrame",
    "read_battles": "a DataFrame", "write_eee": "files written (EEEExport: paths)", "mcnemar_exact": "an array",
    "adjust_pvalues": "an array", "estimate_disagreement": "a float", "pass_at_k": "an array",
    "Store": "a database (its summaries are results, shown by `ranktrust ingest`)", "plot": "a module of figures",
    "json_schema": "a dict",
}

#: public functions that return a result but need what a unit test cannot have
NOT_CALLED = {"score_models": "local model weights and torch (the optional extra)"}


def _quiet(call: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rt.SmallSampleWarning)
        warnings.simplefilter("ignore", rt.DegenerateDataWarning)
        return call()


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    return {name: _quiet(call) for name, call in CALLS.items()}


def test_every_public_function_is_called_or_listed():
    public = {n for n in rt.__all__ if n not in vars(rt.errors)    # the error and warning classes aside,
              and not (n[0].isupper() and issubclass(getattr(rt, n), Result))}   # and the result classes
    unlisted = sorted(public - set(CALLS) - set(NOT_RESULTS) - set(NOT_CALLED))
    assert not unlisted, f"say how to call these in CALLS (or why not, in NOT_RESULTS / NOT_CALLED): {unlisted}"
    stale = sorted((set(CALLS) | set(NOT_RESULTS) | set(NOT_CALLED)) - public)
    assert not stale, f"listed but no longer public: {stale}"


def test_every_call_returns_a_result(results):
    for name, r in results.items():
        assert isinstance(r, Result), (name, type(r))


def test_the_result_classes_are_importable_from_ranktrust(results):
    import ranktrust

    for name, r in results.items():      # every result a top-level analysis returns
        cls = type(r)
        assert getattr(ranktrust, cls.__name__) is cls and cls.__name__ in dir(ranktrust), name
    for cls in ("LeaderboardReport", "ArenaResult", "Gate", "PairedComparison", "ScoreIntervals", "RankSets",
                "Stability", "SplitHalf", "PowerResult", "Repeats", "Sensitivity", "WatchStatus", "SuiteResult",
                "GoldCorrected", "JudgeAudit"):
        assert issubclass(getattr(ranktrust, cls), Result), cls
        assert cls in dir(ranktrust)


#: results whose headline or JSON another change is rebuilding now (their headline["text"] is not yet in the JSON)
IN_REBUILD: dict[str, str] = {}


def _xfail_in_rebuild(name: str) -> Any:
    return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=IN_REBUILD[name])) \
        if name in IN_REBUILD else name


@pytest.mark.parametrize("name", sorted(CALLS))
def test_print_is_what_the_command_line_prints(results, name, capsys):
    from ranktrust.reporting.renderers import renderer_for, to_string

    r = results[name]
    print(r)
    shown = capsys.readouterr().out
    assert renderer_for(r, "text") is not None, f"{name}: {type(r).__name__} has no text renderer (prints its repr)"
    assert str(r) == to_string(r, "text"), name
    assert shown == str(r) + "\n"
    assert repr(r) != str(r) and "\n" not in repr(r) and len(repr(r)) < 2000, name   # repr stays one short line


@pytest.mark.parametrize("name", [_xfail_in_rebuild(n) for n in sorted(CALLS)])
def test_the_headline_is_one_sentence_and_in_the_json(results, name):
    r = results[name]
    h = r.headline
    assert isinstance(h, dict), (name, type(h))
    text = h["text"]
    assert isinstance(text, str) and text.strip() and "\n" not in text and text.rstrip()[-1] in ".!?)", (name, text)
    assert "{" not in text and "None" not in text and "nan" not in text.lower().split(), (name, text)
    d = r.to_dict()
    if "headline" in d:     # where the JSON has a headline, it is the same one, with its sentence
        assert d["headline"] == h, name


@pytest.mark.parametrize("name", sorted(CALLS))
def test_to_dict_is_the_json_the_command_line_writes(results, name):
    from ranktrust.reporting.renderers import to_string

    r = results[name]
    d = r.to_dict()
    cli = json.loads(to_string(r, "json"))
    assert cli.pop("meta")["version"]
    assert json.loads(json.dumps(d, allow_nan=False)) == cli, name
    for note in d.get("notes") or []:      # every note record with its sentence, as in the JSON
        assert isinstance(note, str) or note["text"], (name, note)


def test_to_dict_is_the_command_lines_json_for_commands(tmp_path, capsys):
    """The same through the command line itself, for a command of each kind (a result, the whole report)."""
    from conftest import run_cli

    m = _matrix()
    path = tmp_path / "m.csv"
    pd.DataFrame([{"model": a, "item": i, "score": m.scores[k, j]} for k, a in enumerate(m.models)
                  for j, i in enumerate(m.items)]).to_csv(path, index=False)
    for args, result in ((("compare", str(path), "--a", "ada", "--b", "bo"), rt.compare(rt.read(str(path)), "ada", "bo")),
                         (("report", str(path), "--no-stability"),
                          _quiet(lambda: rt.report(str(path), stability=False)))):
        code, out, err = run_cli(capsys, *args, "--format", "json")
        assert code == 0, err
        cli = json.loads(out)
        cli.pop("meta")
        mine = json.loads(json.dumps(result.to_dict()))
        assert mine.keys() == cli.keys() and mine.get("headline") == cli.get("headline"), args[0]
        assert mine == cli, [(k, mine[k], cli[k]) for k in mine if mine[k] != cli[k]]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_markdown_html_and_save(results, name, tmp_path):
    from ranktrust.reporting.renderers import formats_for, to_string

    r = results[name]
    md = r.to_markdown()
    assert md.strip() and md == to_string(r, "md"), name
    page = r.to_html()
    assert page.lstrip().lower().startswith("<!doctype html") and page.rstrip().endswith("</html>"), name
    assert "<script src=" not in page and 'rel="stylesheet" href="http' not in page, name   # self-contained
    for suffix, fmt in SAVE_FORMATS.items():
        if fmt == "html" and name not in ("compare", "gate"):
            continue   # the page to_html() gave (checked above); saved for two results, not drawn twice for each
        out = tmp_path / f"r{suffix}"
        if fmt not in formats_for(r):
            with pytest.raises(rt.RanktrustError) as exc:
                r.save(out)
            assert "\n" not in str(exc.value) and not out.exists()
            continue
        assert r.save(out) == out and out.exists()
        text = out.read_text(encoding="utf-8")
        if fmt == "json":
            saved = json.loads(text)
            assert saved["meta"]["version"] and set(r.to_dict()) <= set(saved), name
        elif fmt == "text":
            assert text == str(r) if str(r).endswith("\n") else text == str(r) + "\n"
        elif fmt == "md":
            assert text == md
        elif fmt == "html":
            assert text.lstrip().lower().startswith("<!doctype html") and text.rstrip().endswith("</html>")
        elif fmt == "csv":
            assert text.strip() and "," in text.splitlines()[0]
    assert not list(tmp_path.glob("*.partial"))


def test_save_refuses_an_unknown_suffix_in_one_line(results, tmp_path):
    r = results["compare"]
    for bad in ("r.xlsx", "r"):
        with pytest.raises(rt.ArgumentError) as exc:
            r.save(tmp_path / bad)
        msg = str(exc.value)
        assert "\n" not in msg and ".json" in msg and ".csv" in msg and exc.value.param == "path"
        assert not (tmp_path / bad).exists()
    with pytest.raises(rt.DataError, match="does not exist"):
        r.save(tmp_path / "no" / "such" / "r.md")


def test_the_report_still_prints_its_report(results):
    from ranktrust.reporting.renderers import to_string

    rep = results["report"]
    assert str(rep) == to_string(rep, "text", kind="report") and "Is #1 really #1?" in str(rep)
    assert " ".join(rep.verdict.split()[:6]) in " ".join(str(rep).replace("│", " ").split())


@pytest.mark.parametrize("name", sorted(CALLS))
def test_frames_of_models_come_in_leaderboard_order(results, name):
    r = results[name]
    if not r._table or isinstance(r._table, str) and r._table != "models":
        return
    df = r.to_frame()
    if "model" not in df.columns and not (isinstance(r._table, str)):
        return
    key = next((c for c in ORDER_BY if c in df.columns), None)
    if key is None:
        return
    v = pd.to_numeric(df[key], errors="coerce").to_numpy(dtype=float)
    fin = v[np.isfinite(v)] * (1 if ORDER_BY[key] else -1)
    assert np.all(np.diff(fin) <= 0), (name, df[["model", key]] if "model" in df.columns else df[key])
    assert np.all(np.isfinite(v[: len(fin)])), name   # NaN last


def test_intervals_frame_is_in_score_order_with_the_same_numbers():
    """QA D11: ``rt.intervals(m).to_frame()`` rows came in the matrix's order (neither score nor name)."""
    m = _matrix()
    iv = rt.intervals(m)
    assert list(m.models) == ["cy", "ada", "dee", "bo"]
    df = iv.to_frame()
    assert df["model"].to_list() == [iv.models[k] for k in np.argsort(-iv.score, kind="stable")]
    assert df["model"].to_list() != list(m.models)
    for _, row in df.iterrows():
        k = list(iv.models).index(row["model"])
        assert row["score"] == iv.score[k] and row["ci_low"] == iv.ci_low[k] and row["n_items"] == iv.n_items[k]


def test_a_result_without_a_text_renderer_prints_its_repr():
    from dataclasses import dataclass

    @dataclass(frozen=True, eq=False)
    class Bare(Result):
        x: float

    b = Bare(0.5)
    assert str(b) == repr(b) == "Bare(x=0.5)" and not hasattr(b, "headline")   # no 'headline' renderer: none
    assert "0.5" in b.to_markdown() and b.to_html().lstrip().lower().startswith("<!doctype html")


def test_bootstrap_ci_is_deprecated_for_intervals():
    """``rt.bootstrap_ci`` warns and names its replacement, ``rt.intervals(method=...)``, which gives the same
    intervals; the difference of a pair stays ``ranktrust.stats.bootstrap_ci(pair=...)`` (no warning)."""
    m = _matrix()
    with pytest.warns(DeprecationWarning, match=r"rt\.intervals\(m, method='percentile' or 'bca'") as caught:
        old = rt.bootstrap_ci(m, method="bca", n_resamples=300, rng=2)
    assert caught[0].filename == __file__            # the warning points at the caller's line
    new = rt.intervals(m, method="bca", n_resamples=300, rng=2)
    np.testing.assert_array_equal(old.ci_low, new.ci_low)
    np.testing.assert_array_equal(old.ci_high, new.ci_high)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rt.stats.bootstrap_ci(m, pair=("ada", "bo"), n_resamples=100)


# ------------------------------------------------------------------ to_dict() is the command's JSON, command by command
SEED = 7


def _long_csv(m: rt.ScoreMatrix, path: Any, **cols: Any) -> str:
    """``m`` as a long CSV (model, item, score and the constant columns ``cols``)."""
    pd.DataFrame([{"model": a, "item": i, "score": m.scores[k, j], **cols} for k, a in enumerate(m.models)
                  for j, i in enumerate(m.items)]).to_csv(path, index=False)
    return str(path)


@pytest.fixture(scope="module")
def cli_inputs(tmp_path_factory) -> dict[str, str]:
    """The small data of :data:`CALLS` as the files the commands read."""
    d = tmp_path_factory.mktemp("cli_inputs")
    g = np.random.default_rng(1)
    runs = pd.DataFrame([{"model": f"m{k}", "item": f"q{i}", "run": str(r), "condition": ("plain", "cot")[r % 2],
                          "score": float(g.random() < p)}
                         for k, p in enumerate((0.7, 0.55, 0.4)) for i in range(30) for r in range(4)])
    runs.to_csv(d / "runs.csv", index=False)
    _battles().to_csv(d / "battles.csv", index=False)
    _games().to_csv(d / "games.csv", index=False)
    pd.concat([pd.read_csv(_long_csv(_matrix(0), d / "t1.csv", task="t1")),
               pd.read_csv(_long_csv(_matrix(1), d / "t2.csv", task="t2"))]).to_csv(d / "tasks.csv", index=False)
    return {"m": _long_csv(_matrix(), d / "m.csv"), "six": _long_csv(_six(), d / "six.csv"),
            "runs": str(d / "runs.csv"), "battles": str(d / "battles.csv"), "games": str(d / "games.csv"),
            "tasks": str(d / "tasks.csv"), "t1": str(d / "t1.csv"), "t2": str(d / "t2.csv")}


def _NONE(f: dict[str, str]) -> dict[str, Any]:
    return {}


def _watch_of(path: str) -> Result:
    m = rt.read(path, align="pairwise")
    w = rt.Watch(sorted(m.models), list(m.items), declared=False, rng=SEED)   # the command's default order
    w.update_matrix(m)
    return w.status(next_budget=64)


def _ranks_tiers(f: dict[str, str]) -> dict[str, Any]:
    from ranktrust.ranking import tiers_of

    return {"tiers": tiers_of(rt.rank_sets(rt.read(f["m"]), rng=SEED)).to_dict()}


#: command -> (its arguments on the files of ``cli_inputs``, the same analysis in Python on the same files and seed,
#: the keys the command adds beside the result's own). Every command whose result a top-level analysis returns
#: (``compare`` and ``report``: test_to_dict_is_the_command_lines_json_for_commands); ``rt.intervals`` has no
#: command of its own (its table is the report's ``models``).
CLI_CASES: dict[str, tuple[Callable[[dict[str, str]], list[str]], Callable[[dict[str, str]], Any],
                           Callable[[dict[str, str]], dict[str, Any]]]] = {
    "ranks": (lambda f: ["ranks", f["m"], "--seed", str(SEED)],
              lambda f: rt.rank_sets(rt.read(f["m"]), rng=SEED), _ranks_tiers),
    "stability": (lambda f: ["stability", f["m"], "--sizes", "20,40", "--n-resamples", "30", "--seed", str(SEED)],
                  lambda f: rt.stability(rt.read(f["m"]), sizes=[20, 40], n_resamples=30, rng=SEED), _NONE),
    "splithalf": (lambda f: ["splithalf", f["m"], "--n-resamples", "30", "--seed", str(SEED)],
                  lambda f: rt.split_half(rt.read(f["m"]), n_resamples=30, rng=SEED), _NONE),
    "power": (lambda f: ["power", "--gap", "5", "--disagreement", "0.3"],
              lambda f: rt.power(gap=0.05, disagreement=0.3, binary=True),
              lambda f: {"disagreement_source": "given with --disagreement"}),
    "repeats": (lambda f: ["repeats", f["runs"], "--pass-at", "1,2"],
                lambda f: rt.repeats(rt.read(f["runs"]), pass_at=(1, 2)), _NONE),
    "sensitivity": (lambda f: ["sensitivity", f["runs"]],
                    lambda f: rt.sensitivity(rt.read(f["runs"]), by="condition"), _NONE),
    "microbench": (lambda f: ["microbench", f["six"], "--methods", "random", "--sizes", "20,40", "--n-resamples", "5",
                              "--seed", str(SEED)],
                   lambda f: rt.mdad(rt.read(f["six"]), methods=("random",), sizes=(20, 40), n_resamples=5, rng=SEED),
                   _NONE),
    "arena": (lambda f: ["arena", f["battles"], "--seed", str(SEED)],
              lambda f: rt.arena(f["battles"], rng=SEED), _NONE),
    "gate": (lambda f: ["gate", f["m"], "--candidate", "ada", "--baseline", "bo", "--margin", "5"],
             lambda f: rt.gate(f["m"], "ada", "bo", margin=0.05), _NONE),
    "watch": (lambda f: ["watch", f["m"], "--seed", str(SEED)], lambda f: _watch_of(f["m"]), _NONE),
    "suite": (lambda f: ["suite", f["tasks"], "--task-col", "task", "--n-resamples", "50", "--seed", str(SEED)],
              lambda f: rt.suite({"t1": rt.read(f["t1"]), "t2": rt.read(f["t2"])}, n_resamples=50, rng=SEED), _NONE),
    "judge": (lambda f: ["judge", f["games"]], lambda f: rt.judge_audit(pd.read_csv(f["games"])), _NONE),
}


def _in_command_words(d: Any, command: str) -> Any:
    """``d`` with each sentence (a ``"text"``) in the command's words, as the command line writes them: a Python
    user reads "`rt.sensitivity`" and "`cluster`=False" where a terminal user reads "`ranktrust sensitivity`" and
    "--no-groups" (``cli_words``); the records (code and data) are the same."""
    from ranktrust.cli._main import cli_words

    if isinstance(d, dict):
        return {k: cli_words(v, command) if k == "text" and isinstance(v, str) else _in_command_words(v, command)
                for k, v in d.items()}
    if isinstance(d, list):
        return [_in_command_words(v, command) for v in d]
    return d


def _close(a: Any, b: Any, where: str = "") -> list[str]:
    """Where ``a`` and ``b`` (JSON values) differ, floats within 4 ulps: the command reads its files through its own
    loader (alignment, reader options) and may hold the items in another order than ``rt.read``, so a sum over
    items can differ in its last bits while every number the analysis reports is the same."""
    if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool) \
            or isinstance(b, float) and isinstance(a, (int, float)) and not isinstance(a, bool):
        ok = math.isclose(a, b, rel_tol=4 * np.finfo(float).eps, abs_tol=4 * np.finfo(float).tiny)
        return [] if ok else [f"{where}: {a!r} != {b!r}"]
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return [f"{where}: keys {list(a)} != {list(b)}"]
        return [x for k in a for x in _close(a[k], b[k], f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: {len(a)} != {len(b)} entries"]
        return [x for k, (u, v) in enumerate(zip(a, b)) for x in _close(u, v, f"{where}[{k}]")]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


@pytest.mark.parametrize("command", sorted(CLI_CASES))
def test_to_dict_is_the_json_each_command_writes(cli_inputs, command, capsys):
    """``ranktrust COMMAND -f json`` (less ``meta``) is the Python result's ``to_dict()`` on the same files and seed,
    plus the keys the command adds, key for key and in the same order."""
    from conftest import run_cli

    args, call, extra = CLI_CASES[command]
    code, out, err = run_cli(capsys, *args(cli_inputs), "--format", "json")
    assert code in (0, 1, 2) and out, (command, err)          # the gate exits 1 or 2 on FAIL / INCONCLUSIVE
    cli = json.loads(out)
    cli.pop("meta")
    mine = json.loads(json.dumps({**_quiet(lambda: call(cli_inputs)).to_dict(), **extra(cli_inputs)}))
    mine = _in_command_words(mine, args(cli_inputs)[0])
    diff = _close(mine, cli, command)
    assert not diff, "\n".join(diff[:10])


def test_the_comparison_can_fail():
    """Negative control of :func:`_close`: a changed last digit beyond a few ulps, a reordered key or a changed
    sentence is caught; a difference of one ulp is not."""
    d = {"a": 0.1, "rows": [{"x": 1.0, "t": "yes"}]}
    assert _close(d, json.loads(json.dumps(d))) == []
    assert _close(d, {"a": float(np.nextafter(0.1, 1.0)), "rows": [{"x": 1.0, "t": "yes"}]}) == []
    assert _close(d, {"a": 0.1 * (1 + 1e-12), "rows": [{"x": 1.0, "t": "yes"}]})
    assert _close(d, {"rows": [{"x": 1.0, "t": "yes"}], "a": 0.1})
    assert _close(d, {"a": 0.1, "rows": [{"x": 1.0, "t": "no"}]})


@pytest.mark.parametrize("command", ["compare", "ranks", "arena"])
def test_json_output_loads_neither_scipy_stats_nor_matplotlib(cli_inputs, command):
    """``-f json`` renders through the one registry without importing every result class it names: the renderers
    register by ``"package.module:Class"``, so a command's JSON loads no other analysis (nor scipy.stats) and no
    figure (nor matplotlib)."""
    import subprocess
    import sys

    args = {"compare": ["compare", cli_inputs["m"], "--a", "ada", "--b", "bo"], "ranks": ["ranks", cli_inputs["m"]],
            "arena": ["arena", cli_inputs["battles"]]}[command]
    code = ("import contextlib, io, json, sys; from ranktrust.cli._main import main; buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            "    try:\n        main(sys.argv[1:])\n    except SystemExit as e:\n        assert not e.code, e.code\n"
            "assert json.loads(buf.getvalue())['meta']['kind']\n"
            "print([m for m in ('scipy.stats', 'matplotlib') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code, *args, "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]", command
