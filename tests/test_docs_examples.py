"""Every Python example in README.md and docs/ runs as documented, on real data.

The ```python blocks of README.md, docs/*.md and docs/formats/*.md are extracted and executed
in order (one namespace per file, so a later block may use what an earlier one defined), with
the placeholder inputs replaced by real files:

- ``"results.csv"`` -> SWE-bench Verified mini (25 models x 500 items, ../shared/data) or, for the
  README, also the bundled MMLU-Pro outputs read with ``align="pairwise"``; for docs/repeats.md a
  small runs-and-conditions table made by ``examples/option_order_flip.py``;
- ``"Model A"`` / ``"Model B"`` (and ``("A", "B")``) -> the two top models of that matrix;
- ``"lm-eval-output/"`` -> the real lm-evaluation-harness logs in ../shared/data/harness-logs;
- names a snippet leaves to the reader (``target_matrix``, ``produce_runs``, ``p``, ``b``, ``c``)
  are defined before the block runs (see ``PRELUDE``).

Blocks run in a temporary working directory, so files they write (report.html, figs/ ...) land
there. Where a line documents its value in a trailing comment (``# 5298``, ``# 0.056, 0.039``),
the value is checked to the digits shown. Blocks that cannot run are listed in ``SKIP`` with the
reason; nothing is skipped silently, and a skipped block still has the names and keywords it
uses checked against the real API where that is possible.

Inline calls in the prose (``rt.stability(m, sizes=[200, "full"], n_resamples=2000, rng=0)``) are run
too (``test_inline_calls``), with the sizes of resampling arguments reduced to keep the file fast.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import io
import json
import re
import tokenize
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import BUNDLED_MMLUPRO, ROOT, shared_file

import ranktrust as rt
from ranktrust.data._matrix import ScoreMatrix

DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "formats").glob("*.md"))]
BUNDLED = BUNDLED_MMLUPRO

# (file relative to the repo, a line the block contains) -> why it is not executed
SKIP: dict[tuple[str, str], str] = {
    ("docs/architecture.md", 'm.align("error" | "intersect" | "pairwise")'): (
        "an annotated listing of ScoreMatrix attributes, not code (`model=, item=` is not Python); "
        "test_architecture_listing checks every name it lists instead"
    ),
    ("docs/scoring.md", "from ranktrust.score import score_models"): (
        "needs local model checkpoints (/models/Qwen2.5-1.5B, /models/gemma-2-2b) and mmlu_2000.jsonl; "
        "tests/test_score.py runs score_models on tiny random-weight models; "
        "test_skipped_blocks_match_the_api checks every keyword it names"
    ),
}

# a block is one (file, first line number, code, info) tuple
FENCE = re.compile(r"^```([\w+-]*)[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _blocks(path: Path):
    text = path.read_text(encoding="utf-8")
    for mt in FENCE.finditer(text):
        line = text[: mt.start()].count("\n") + 2  # first line of code
        yield mt.group(1), line, mt.group(2)


def _python_blocks():
    out = []
    for path in DOC_FILES:
        rel = path.relative_to(ROOT).as_posix()
        for info, line, code in _blocks(path):
            if info == "python":
                out.append((rel, line, code))
    return out


def _skip_reason(rel: str, code: str) -> str | None:
    for (f, marker), why in SKIP.items():
        if f == rel and marker in code:
            return why
    return None


PY_BLOCKS = _python_blocks()
FILES_WITH_PY = sorted({b[0] for b in PY_BLOCKS})


# ---------------------------------------------------------------------------------------------
# inputs


@pytest.fixture(scope="module")
def runs_csv(tmp_path_factory) -> Path:
    """A small (5 models x 120 items x 4 option orders x 3 seeds) table from the worked example."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("option_order_flip", ROOT / "examples" / "option_order_flip.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    df = mod.generate(0, n_items=120, n_seeds=3)
    p = tmp_path_factory.mktemp("runs") / "runs.csv"
    df.to_csv(p, index=False)
    return p


def _top_two(path: Path, **read_kw) -> tuple[str, str]:
    iv = rt.intervals(rt.read(path, **read_kw))
    order = np.argsort(-np.asarray(iv.score), kind="stable")
    return iv.models[order[0]], iv.models[order[1]]


PRELUDE = """
import numpy as np
import ranktrust as rt
p = np.array([0.001, 0.02, 0.04, 0.3])      # statistics.md: rt.adjust_pvalues(p, "holm")
b = np.array([12, 3, 0])                   # statistics.md: rt.mcnemar_exact(b, c)
c = np.array([2, 9, 0])
"""


def _substitute(code: str, *, data: Path, read_kw: str, a: str, b: str, tmp: Path) -> str:
    if '"lm-eval-output/"' in code:  # the real harness logs are not bundled: skip outside CI without them
        code = code.replace('"lm-eval-output/"', repr(str(shared_file("harness-logs") / "lm_eval")))
    code = code.replace('rt.read("results.csv")', f"rt.read({str(data)!r}{read_kw})")
    code = code.replace('"results.csv"', repr(str(data)))
    code = code.replace('"Model A"', repr(a)).replace('"Model B"', repr(b))
    code = code.replace('("A", "B")', repr((a, b)))
    return code


def _expected_from_comment(comment: str):
    """`# 5298`, `# 0.056, 0.039`, `# [21192, 5298]`, `# 0.9167: text` -> (values, decimals) or None."""
    m = re.match(r"#\s*(\[?\s*-?\d[\d.,\s\-]*\]?)\s*(?::|$)", comment)
    if not m:
        return None
    body = m.group(1).strip()
    nums = re.findall(r"-?\d+(?:\.\d+)?", body)
    if not nums:
        return None
    dec = [len(n.split(".")[1]) if "." in n else 0 for n in nums]
    return [float(n) for n in nums], dec


def _keys_from_comment(comment: str) -> list[str] | None:
    """`# {"method", "models": [...], "x": {...}}` -> the top-level keys ["method", "models", "x"]."""
    text = comment.lstrip("#").strip()
    if not text.startswith("{"):
        return None
    keys, depth, i = [], 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                break
        elif ch == '"':
            j = text.index('"', i + 1)
            if depth == 1 and text[j + 1 : j + 2] in (",", ":", "}"):
                keys.append(text[i + 1 : j])
            i = j
        i += 1
    return keys or None


def _defaults_from_comment(comment: str) -> dict | None:
    """`# method="auto", cluster=None, confidence_level=0.95` -> {"method": "auto", ...}."""
    text = comment.lstrip("#").strip()
    if not re.fullmatch(r"\w+=[^,]+(,\s*\w+=[^,]+)*", text):
        return None
    out = {}
    for part in text.split(","):
        k, v = part.split("=", 1)
        out[k.strip()] = ast.literal_eval(v.strip())
    return out


def _check_defaults(node, defaults: dict, where: str) -> None:
    """The defaults a comment lists are those of the rt.<f> the statement calls."""
    call = next(n for n in ast.walk(node) if isinstance(n, ast.Call))
    assert isinstance(call.func, ast.Attribute) and getattr(call.func.value, "id", "") == "rt", where
    params = inspect.signature(getattr(rt, call.func.attr)).parameters
    for k, v in defaults.items():
        assert k in params, f"{where}: rt.{call.func.attr} has no keyword {k!r}"
        assert params[k].default == v, f"{where}: rt.{call.func.attr}({k}=) defaults to {params[k].default!r}, documented {v!r}"


def _comments_by_line(code: str) -> dict[int, str]:
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string
    return out


def _flatten(v):
    if isinstance(v, (tuple, list, np.ndarray)):
        return [x for item in v for x in _flatten(item)]
    return [v]


def _run_block(code: str, ns: dict, where: str) -> list[str]:
    """Execute statement by statement; check documented values. Returns the checks made."""
    tree = ast.parse(code)
    comments = _comments_by_line(code)
    checks = []
    for node in tree.body:
        src = ast.get_source_segment(code, node)
        try:
            if isinstance(node, ast.Expr):
                value = eval(compile(ast.Expression(node.value), where, "eval"), ns)
            else:
                exec(compile(ast.Module([node], []), where, "exec"), ns)  # noqa: S102 - running the docs is the point
                value = None
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    assigned = ns[node.targets[0].id]
                    if isinstance(assigned, (rt.results.Result, ScoreMatrix)):
                        _check_result(assigned, f"{where} line {node.lineno}")
        except Exception as e:
            raise AssertionError(f"{where} line {node.lineno}: `{src}` raised {type(e).__name__}: {e}") from e
        # a value documented in the comment on the last line of the statement
        comment = comments.get(node.end_lineno)
        exp = _expected_from_comment(comment) if comment and isinstance(node, ast.Expr) else None
        if exp is not None:
            want, dec = exp
            got = _flatten(value)
            assert len(got) == len(want), f"{where} line {node.lineno}: `{src}` gave {value!r}, documented {comment!r}"
            for g, w, d in zip(got, want, dec):
                assert abs(float(g) - w) <= 0.5 * 10.0**-d + 1e-12, (
                    f"{where} line {node.lineno}: `{src}` gave {value!r}, documented {comment!r}"
                )
            checks.append(src)
        defaults = _defaults_from_comment(comment) if comment else None
        if defaults:
            _check_defaults(node, defaults, f"{where} line {node.lineno}")
            checks.append(src)
        keys = _keys_from_comment(comment) if comment and isinstance(node, ast.Expr) else None
        if keys:
            if isinstance(value, tuple) and isinstance(node.value, ast.Tuple):  # `a, b, x.to_dict()  # {...}`
                value = value[-1]
            assert isinstance(value, dict), f"{where} line {node.lineno}: `{src}` is not a dict"
            missing = sorted(set(keys) - set(value))
            assert not missing, f"{where} line {node.lineno}: `{src}` has no keys {missing} (documented {comment!r})"
            checks.append(src)
        # results a notebook would display must display
        for v in (value if isinstance(value, tuple) else (value,)):
            if isinstance(v, rt.results.Result):
                _check_result(v, f"{where} line {node.lineno}")
    return checks


def _check_result(r, where: str) -> None:
    """What a notebook shows: a short repr, an HTML view, and (results) a JSON-ready to_dict()."""
    text = repr(r)
    assert len(text) < 2000, f"{where}: repr of {type(r).__name__} is {len(text)} characters"
    if isinstance(r, rt.results.Result):
        json.dumps(r.to_dict())
    html = r._repr_html_()
    assert isinstance(html, str) and html.strip(), f"{where}: {type(r).__name__}._repr_html_ is empty"


def _namespace(tmp: Path) -> dict:
    ns: dict = {"__name__": "__doc_example__"}
    exec(PRELUDE, ns)  # noqa: S102
    return ns


def _run_file(rel: str, *, data: Path, read_kw: str, tmp: Path, monkeypatch, extra: dict | None = None) -> list[str]:
    a, b = _top_two(data, **(eval(f"dict({read_kw.lstrip(', ')})") if read_kw else {}))
    monkeypatch.chdir(tmp)
    ns = _namespace(tmp)
    ns.update(extra or {})
    checks = []
    ran = 0
    for f, line, code in PY_BLOCKS:
        if f != rel or _skip_reason(f, code):
            continue
        code = _substitute(code, data=data, read_kw=read_kw, a=a, b=b, tmp=tmp)
        with warnings.catch_warnings():
            # the examples run on real data: small-sample and degenerate-pair warnings are expected
            warnings.simplefilter("ignore", rt.SmallSampleWarning)
            warnings.simplefilter("ignore", rt.DegenerateDataWarning)
            checks += _run_block(code, ns, f"{rel}:{line}")
        ran += 1
    assert ran, f"no runnable python block in {rel}"
    return checks


# ---------------------------------------------------------------------------------------------
# the blocks


def test_every_python_block_is_run_or_listed():
    """Each ```python block belongs to a file that a test below runs, or is in SKIP."""
    runnable = {"README.md", "docs/statistics.md", "docs/microbench.md", "docs/repeats.md", "docs/report.md",
                "docs/store.md", "docs/scale.md", "docs/readers.md",
                "docs/ci.md",   # run by tests/test_gate.py::test_the_ci_docs_example_runs
                "docs/formats/battles.md",   # run by tests/test_arena_readers.py::test_the_battles_docs_example_runs
                "docs/arena.md",   # run by tests/test_arena_core.py::test_the_arena_docs_example_runs
                "docs/judges.md"}   # run by tests/test_judges.py::test_the_judges_docs_example_runs
    for f, line, code in PY_BLOCKS:
        assert f in runnable or _skip_reason(f, code), f"{f}:{line}: a python block no test runs"
    # every SKIP entry still names a block (a stale entry would hide nothing but mislead)
    for (f, marker) in SKIP:
        assert any(bf == f and marker in code for bf, _, code in PY_BLOCKS), f"stale SKIP entry {f}: {marker}"


def test_unlabelled_blocks_are_not_python():
    """Python examples must be fenced ```python so that this file runs them."""
    for path in DOC_FILES:
        rel = path.relative_to(ROOT).as_posix()
        for info, line, code in _blocks(path):
            if info == "":
                assert "import ranktrust" not in code and not re.search(r"^\s*\w+\s*=\s*rt\.", code, re.MULTILINE), (
                    f"{rel}:{line}: a Python example in a block without the `python` label"
                )


def test_readme(tmp_path, monkeypatch):
    """The README's Python block runs as written: it reads the bundled demo data itself (nothing substituted)."""
    code = "\n".join(c for f, _, c in PY_BLOCKS if f == "README.md")
    assert "rt.read(datasets.path(" in code
    checks = _run_file("README.md", data=BUNDLED, read_kw=', align="pairwise"', tmp=tmp_path, monkeypatch=monkeypatch)
    assert any("items_needed" in c for c in checks), checks


def test_statistics(swebench_path, tmp_path, monkeypatch):
    checks = _run_file("docs/statistics.md", data=swebench_path, read_kw="", tmp=tmp_path, monkeypatch=monkeypatch)
    # the documented figures were compared, not just run
    assert any("items_needed" in c for c in checks) and any("power_table" in c for c in checks), checks


def test_microbench(swebench_path, tmp_path, monkeypatch):
    m = rt.read(swebench_path)
    _run_file("docs/microbench.md", data=swebench_path, read_kw="", tmp=tmp_path, monkeypatch=monkeypatch,
              extra={"target_matrix": m})


def test_repeats(runs_csv, tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    truth = np.array([0.62, 0.60, 0.59, 0.58, 0.56])

    def produce_runs(n):  # 5 models, run sd 2 points
        return truth[:, None] + rng.normal(0, 0.02, size=(5, n))

    checks = _run_file("docs/repeats.md", data=runs_csv, read_kw="", tmp=tmp_path, monkeypatch=monkeypatch,
                       extra={"produce_runs": produce_runs})
    assert any("pass_at_k(10, 3, 5)" in c for c in checks), checks


def test_report(swebench_path, tmp_path, monkeypatch):
    _run_file("docs/report.md", data=swebench_path, read_kw="", tmp=tmp_path, monkeypatch=monkeypatch)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html") and "</html>" in html
    assert (tmp_path / "forest.pdf").stat().st_size > 0
    figs = sorted(p.suffix for p in (tmp_path / "figs").iterdir())
    assert ".png" in figs and ".svg" in figs


def test_store(tmp_path, monkeypatch):
    # the data argument only feeds the "Model A"/"Model B" substitution, which this block does not use
    _run_file("docs/store.md", data=BUNDLED, read_kw=', align="pairwise"', tmp=tmp_path, monkeypatch=monkeypatch)
    assert (tmp_path / "results.duckdb").exists() and (tmp_path / "out.parquet").stat().st_size > 0


def test_readers(tmp_path, monkeypatch):
    # the example reader class is defined and checked against the protocol (not registered)
    _run_file("docs/readers.md", data=BUNDLED, read_kw=', align="pairwise"', tmp=tmp_path, monkeypatch=monkeypatch)


def test_scale(swebench_path, tmp_path, monkeypatch):
    from conftest import require

    require("distributed", install="pip install 'ranktrust[scale]'")
    _run_file("docs/scale.md", data=swebench_path, read_kw="", tmp=tmp_path, monkeypatch=monkeypatch)
    assert (tmp_path / "scores.parquet").stat().st_size > 0


# ---------------------------------------------------------------------------------------------
# what cannot run is still checked against the API


def test_architecture_listing(swebench):
    """Every ScoreMatrix name the architecture listing shows exists and behaves as annotated."""
    (code,) = [c for f, _, c in PY_BLOCKS if f == "docs/architecture.md"]
    names = set(re.findall(r"\bm\.(\w+)", code))
    missing = sorted(n for n in names if not hasattr(swebench, n))
    assert not missing, f"docs/architecture.md lists ScoreMatrix attributes that do not exist: {missing}"
    for meth in re.findall(r"ScoreMatrix\.(\w+)", code):
        assert callable(getattr(ScoreMatrix, meth, None)), f"ScoreMatrix.{meth} does not exist"
    for meth, kws in re.findall(r"ScoreMatrix\.(\w+)\(([^)]*)\)", code):
        params = inspect.signature(getattr(ScoreMatrix, meth)).parameters
        for kw in re.findall(r"(\w+)=", kws):
            assert kw in params, f"ScoreMatrix.{meth} has no keyword {kw!r} (docs/architecture.md)"
    m = swebench
    assert m.data.shape == (m.n_models, m.n_items, m.n_runs) and m.data.dtype == np.float64
    assert not m.data.flags.writeable
    assert m.scores.shape == (m.n_models, m.n_items)
    assert all(isinstance(x, tuple) for x in (m.models, m.items, m.runs))
    assert len(m.groups) == m.n_items and len(m.group_labels) == len(set(m.groups))
    assert m.group_codes.shape == (m.n_items,)
    for policy in ("error", "intersect", "pairwise"):
        assert isinstance(m.align(policy), ScoreMatrix)
    assert m.index_of(m.models[3]) == 3
    with pytest.raises(rt.DataError, match="Claude"):
        m.index_of("Claude 4.5 Opus")
    sub = m.select(models=list(m.models[:2]), items=np.arange(10))
    assert (sub.n_models, sub.n_items) == (2, 10)
    long = m.to_long()
    back = ScoreMatrix.from_long(long, model="model", item="item", score="score")
    assert back.models == m.models and np.array_equal(back.scores, m.scores)
    wide = long.pivot(index="item", columns="model", values="score").reset_index()
    assert ScoreMatrix.from_wide(wide, item="item").n_models == m.n_models
    assert ScoreMatrix.from_array(m.scores, models=m.models, items=m.items).n_items == m.n_items


def test_skipped_blocks_match_the_api():
    """The scoring example cannot run without checkpoints: its imports and keywords must still exist."""
    (code,) = [c for f, _, c in PY_BLOCKS if f == "docs/scoring.md"]
    tree = ast.parse(code)
    import importlib

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            mod = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(mod, alias.name), f"{node.module} has no {alias.name} (docs/scoring.md)"
    from ranktrust.score import ScoreResults, score_models

    params = inspect.signature(score_models).parameters
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "score_models")
    used = {k.arg for k in call.keywords}
    also = set(re.findall(r"(\w+)=", re.search(r"# also:(.*)", code).group(1)))
    unknown = sorted((used | also) - set(params))
    assert not unknown, f"docs/scoring.md passes keywords score_models does not take: {unknown}"
    for kw in call.keywords:  # documented defaults are the real defaults
        if isinstance(kw.value, ast.Constant) and kw.arg not in ("out",):
            assert params[kw.arg].default == kw.value.value, (kw.arg, params[kw.arg].default, kw.value.value)
    for attr in re.findall(r"res\.(\w+)", code):
        assert attr in ScoreResults.__dataclass_fields__ or hasattr(ScoreResults, attr), f"ScoreResults.{attr}"
    assert rt.score_models is score_models


# ---------------------------------------------------------------------------------------------
# calls quoted inline in the prose

INLINE = re.compile(r"`(rt\.\w+\([^`]*\)(?:\.\w+\(\))?)`")
# inline calls that are templates rather than calls, with the reason
INLINE_SKIP = {
    "rt.repeats(...)": "placeholder for the arguments",
    "rt.report(...)": "placeholder for the arguments",
    "rt.report(...).to_dict()": "placeholder for the arguments",
    "rt.read(path, run=..., condition=...)": "placeholder column names; run= / condition= are checked below",
    'rt.read(path, score="prob")': "run in test_inline_calls with the runs table",
    "rt.read()": "the bare name",
    "rt.write_eee(m, folder)": "writes a folder of files; run in tests/test_eee.py",
    'rt.write_eee(m, "eee_out/")': "writes a folder of files (here: into the repository); run in tests/test_eee.py",
    "rt.arena(judge_battles, gold=human_battles)": "placeholder names; rt.arena with gold runs in tests/test_judges_battles.py",
    "rt.arena(path)": "the 2M-battle file bench/bench_arena.py writes",
    "rt.arena(judged, gold=human)": "placeholder names; the worked example in docs/arena.md runs in tests/test_judges_battles.py",
    "rt.power(..., binary=True)": "placeholder for the arguments",
    "rt.data_quality(m, *, near_identical=0.98, min_kappa=0.9, min_items=20, person_fit=True,\n"
    "lz_threshold=-4.0, min_corr_ratio=0.7, folds=None, rng=0)": "a signature with its defaults",
}
# resampling sizes reduced so the whole file stays fast; the keyword itself is still exercised
SHRINK = {"n_resamples=2000": "n_resamples=200", "n_resamples=3000": "n_resamples=300"}


def _inline_calls():
    out = []
    for path in DOC_FILES:
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for mt in INLINE.finditer(text):
            line = text[: mt.start()].count("\n") + 1
            row = re.match(r"\| `(\w+)\(", lines[line - 1])
            if row and callable(getattr(rt.plot, row.group(1), None)):
                continue  # the plot table of docs/report.md: test_plot_table draws what it names
            out.append((rel, line, mt.group(1)))
    return out


def _gold_of(m: rt.ScoreMatrix, k: int) -> rt.ScoreMatrix:
    """Gold labels on the first ``k`` items (the scores themselves), NaN elsewhere: a stand-in for docs/judges.md."""
    x = np.array(m.scores, dtype=float)
    x[:, k:] = np.nan
    return rt.ScoreMatrix.from_array(x, models=list(m.models), items=list(m.items))


def test_inline_calls(swebench, runs_csv):
    calls = _inline_calls()
    assert len(calls) >= 8, calls
    mr = rt.read(runs_csv)
    a, b = _top_two(Path(swebench.source)) if swebench.source else (swebench.models[0], swebench.models[1])
    ran = 0
    for rel, line, call in calls:
        if call in INLINE_SKIP:
            continue
        if re.search(r"[(,=]\s*\.\.\.\s*[,)]", call):   # `rt.compare(..., gold=...)`: a placeholder whose keywords
            fn = getattr(rt, re.match(r"rt\.(\w+)", call).group(1))   # must be the function's own
            params = inspect.signature(fn).parameters
            if fn is rt.report:   # its settings are keywords of its three groups (rt.report(m, adjust="bh"))
                from ranktrust.leaderboard import Inference, Resampling, Sections
                params = {*params, *(f.name for c in (Inference, Resampling, Sections) for f in dataclasses.fields(c))}
            named = set(re.findall(r"(\w+)=", call)) - set(params)
            assert not named, f"{rel}:{line}: `{call}` names keywords {sorted(named)} that {fn.__name__} does not take"
            continue
        code = call
        for k, v in SHRINK.items():
            code = code.replace(k, v)
        code = code.replace('("A", "B")', repr((a, b)))
        m = mr if rel == "docs/repeats.md" else swebench
        ns = {"rt": rt, "m": m, "path": str(runs_csv)}
        if re.search(r"\bdf\b", code):   # `rt.intervals(df)`: the same matrix as a long DataFrame
            ns["df"] = m.to_frame()
        if rel == "docs/judges.md":   # `rt.intervals(judge, gold=g)`: the matrix as the judge, its first 120 items as gold
            ns.update(judge=m, g=_gold_of(m, 120), a=a, b=b)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rt.SmallSampleWarning)
            warnings.simplefilter("ignore", rt.DegenerateDataWarning)
            try:
                value = eval(code, ns)
            except Exception as e:
                raise AssertionError(f"{rel}:{line}: `{call}` raised {type(e).__name__}: {e}") from e
        if isinstance(value, rt.results.Result):
            _check_result(value, f"{rel}:{line}")
        ran += 1
    assert ran >= 7
    # the placeholder forms name real keywords
    params = inspect.signature(rt.read).parameters
    assert {"run", "condition", "score"} <= set(params)
    assert rt.read(runs_csv, run="run", condition="condition").n_runs == mr.n_runs


def test_inline_signatures():
    """Signatures quoted in the prose (`rt.f(m, *, kw=default, ...)`) match the code, defaults included."""
    found = 0
    for rel, line, call in _inline_calls():
        if INLINE_SKIP.get(call, "").startswith("a signature"):
            name = re.match(r"rt\.(\w+)", call).group(1)
            params = inspect.signature(getattr(rt, name)).parameters
            for kw, default in re.findall(r"(\w+)=([^,|()]+?)(?=[,)])", call.replace("\n", " ")):
                assert kw in params, f"{rel}:{line}: rt.{name} has no keyword {kw!r}"
                assert params[kw].default == ast.literal_eval(default.strip()), (
                    f"{rel}:{line}: rt.{name}({kw}=...) defaults to {params[kw].default!r}, documented {default.strip()}"
                )
            for alt in re.findall(r'method="(\w+)"', call):
                assert alt in ("percentile", "bca"), alt
            found += 1
    assert found >= 1


def test_ranking_prose_figures(swebench):
    """docs/ranking.md: on SWE-bench the joint ranges of the top two are both 1-3, and three models could be #1."""
    rs = rt.rank_sets(swebench, rng=0)
    d = rs.to_dict()
    top = sorted(d["models"], key=lambda r: -r["score"])[:2]
    assert [(r["rank_low"], r["rank_high"]) for r in top] == [(1, 3), (1, 3)], top
    assert [x.split(" (")[0] for x in d["could_be_first"]] == [
        "Claude 4.5 Opus medium", "Gemini 3 Pro Preview", "Claude 4.5 Sonnet"], d["could_be_first"]


@pytest.fixture(scope="module")
def plot_inputs(swebench, runs_csv, gpqa_path):
    """What the `takes` column of the plot table in docs/report.md names, on real data (small draws)."""
    from ranktrust.runs import variance_components
    from ranktrust.stats import power_table

    m, mr, g = swebench, rt.read(runs_csv), rt.read(gpqa_path)
    fast = {"stability_n_resamples": 100, "sizes": (100, "full")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rt.SmallSampleWarning)
        warnings.simplefilter("ignore", rt.DegenerateDataWarning)
        reports = {
            "plain": rt.report(m, **fast),
            "runs": rt.report(mr, **fast),
            # SWE-bench has too few target pairs per |Δ| bin for an agreement curve: GPQA (420 models)
            "microbench": rt.report(g, **fast, stability=False, microbench=True, microbench_n_resamples=3),
        }
        calls = {
            "rt.intervals(m)": rt.intervals(m),
            "rt.all_pairs(m)": rt.all_pairs(m),
            "rt.rank_sets(m)": rt.rank_sets(m, n_resamples=200, rng=0),
            "rt.stability(m)": rt.stability(m, n_resamples=100, sizes=(100, "full"), rng=0),
            "rt.power(...)": rt.power(gap=0.02, disagreement=0.27),
            "ranktrust.stats.power_table(q)": power_table(0.27),
            "rt.mdad(m)": rt.mdad(g, methods=["random", "anchor"], sizes=[25, 100], n_resamples=3, rng=0),
            "rt.sensitivity(m)": rt.sensitivity(mr),
            "rt.repeats(m)": rt.repeats(mr),
            "variance_components(m)": variance_components(mr),
        }
    return reports, calls


def test_plot_table(plot_inputs, tmp_path):
    """Each plot function draws every input the docs/report.md table says it takes (result and its dict),
    and refuses, with a one-line ValueError, the ones the table says it does not take."""
    from matplotlib.figure import Figure

    reports, calls = plot_inputs
    text = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)\(([^`]*)\)` \| ([^|]*(?:\\\|[^|]*)*) \|", text, re.MULTILINE)
    names = {r[0] for r in rows}
    public = {n for n in rt.plot.__all__ if callable(getattr(rt.plot, n))}
    assert {"forest", "pair_heatmap", "stability_curve"} <= public
    assert public <= names, f"plot functions missing from the docs/report.md table: {sorted(public - names)}"
    drawn = 0
    for name, _, takes in rows:
        if name in ("save_figures", "figure_svg"):
            continue
        fn = getattr(rt.plot, name)
        refused = re.findall(r"\(not `([^`]+)`", takes)
        accepted = [c for c in re.findall(r"`([^`]+\))`", takes) if c not in refused]
        inputs = [(c, calls[c]) for c in accepted]
        if "report" in takes:
            kind = ("microbench" if "microbench" in takes else
                    "runs" if ("runs" in takes or "conditions" in takes) else "plain")
            inputs.append((f"report ({kind})", reports[kind]))
        assert inputs, f"{name}: the table names no input"
        for label, obj in inputs:
            for form in (obj, obj.to_dict()):
                fig = fn(form)
                assert isinstance(fig, Figure) and fig.axes, f"rt.plot.{name}({label}) drew nothing"
                drawn += 1
        for c in refused:
            with pytest.raises(ValueError, match="nothing to plot") as exc:
                fn(calls[c])
            assert "\n" not in str(exc.value)
            # if this starts working, say so in docs/report.md instead of "(not ...)"
    assert drawn >= 30
    rep = reports["runs"]
    files = rt.plot.save_figures(rep, tmp_path / "figs")
    assert {p.stem for p in files} >= {"forest", "pair_heatmap", "runs_vs_items", "condition_spread"}
    svg = rt.plot.figure_svg(rt.plot.forest(rep))
    assert svg.startswith("<svg") and "<title>" in svg


def _split_args(args: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in args:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [a for a in [*out, cur.strip()] if a]


def test_architecture_api_table():
    """docs/architecture.md's public API table: every public name is listed, in the module it names,
    returning the class it names, with the keywords and defaults it shows."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Public API", 1)[1].split("\n## ", 1)[0]
    listed = set()
    for first, module, returns in re.findall(r"^\| (.+?) \| (.+?) \| (.+?) \|$", section, re.MULTILINE):
        if first.strip() in ("name", "---"):
            continue
        for entry in re.findall(r"`([^`]+)`", first):
            mt = re.match(r"(\w+)(?:\((.*)\))?$", entry)
            name, args = mt.group(1), mt.group(2)
            listed.add(name)
            obj = getattr(rt, name)
            where = f"docs/architecture.md: `{entry}`"
            real_mod = obj.__name__ if inspect.ismodule(obj) else obj.__module__
            prefixes = ["ranktrust." + m.strip().removesuffix(".py").strip("/").replace("/", ".")
                        for m in module.split(",")]
            assert any(real_mod == p or real_mod.startswith(p + ".") for p in prefixes), (where, real_mod)
            cls = re.fullmatch(r"`(\w+)`", returns.strip())
            if cls and not inspect.isclass(obj):
                ann = str(inspect.signature(obj).return_annotation)
                assert cls.group(1) in ann, f"{where} returns {ann}, documented {cls.group(1)}"
            if args is None:
                continue
            params = inspect.signature(obj).parameters
            for arg in _split_args(args):
                if arg in ("*", "...") or arg.startswith("..."):
                    continue
                k, _, v = arg.partition("=")
                assert k in params, f"{where}: no parameter {k!r}"
                if v and " or " not in v:
                    assert params[k].default == ast.literal_eval(v), (
                        f"{where}: {k} defaults to {params[k].default!r}, documented {v}")
                if k != "m" and "*" in _split_args(args) and _split_args(args).index("*") < _split_args(args).index(arg):
                    assert params[k].kind is inspect.Parameter.KEYWORD_ONLY, f"{where}: {k} is not keyword-only"
    unlisted = sorted(set(rt._LAZY) - listed)
    assert not unlisted, f"public names missing from the docs/architecture.md API table: {unlisted}"


def test_statistics_method_table(swebench):
    """Every `method` in the docs/statistics.md interval table is accepted by rt.intervals, and the
    bootstrap ones refuse an incomplete matrix as documented."""
    text = (ROOT / "docs" / "statistics.md").read_text(encoding="utf-8")
    table = text.split("| `method` | what it is |", 1)[1].split("\n\n", 1)[0]
    methods = re.findall(r'`"([\w-]+)"`', "\n".join(r.split(" | ")[0] for r in table.splitlines()))
    assert {"auto", "clt", "t", "wilson", "cluster", "percentile", "bca"} <= set(methods), methods
    assert inspect.signature(rt.intervals).parameters["method"].default == "auto"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rt.SmallSampleWarning)
        for meth in methods:
            iv = rt.intervals(swebench, method=meth, n_resamples=200, rng=0)
            assert np.all(iv.ci_low <= iv.ci_high)
            assert iv.method in (meth, "wilson", "t", "clt") if meth == "auto" else iv.method == meth
    incomplete = rt.read(BUNDLED, align="pairwise")
    with pytest.raises(rt.DataError, match="same items"):
        rt.intervals(incomplete, method="percentile", n_resamples=50, rng=0)
