"""Errors and warnings carry a ``code`` and ``data`` (as notes do); every code is documented in docs/errors.md,
raised with one class, and a literal at its raise site (so this file can enumerate them)."""

from __future__ import annotations

import ast
import pickle
import re
import warnings
from pathlib import Path

import pytest

import ranktrust as rt
from ranktrust import errors

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "ranktrust"
DOC = ROOT / "docs" / "errors.md"
SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")

CLASSES = {name: obj for name, obj in vars(errors).items()
           if isinstance(obj, type) and issubclass(obj, (errors.RanktrustError, errors.RanktrustWarning))}


def documented(text: str) -> dict[str, tuple[str, set[str]]]:
    """code -> (class, data keys) from the tables of docs/errors.md; a code listed twice fails."""
    out: dict[str, tuple[str, set[str]]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("| `") else []
        if len(cells) < 3:
            continue
        code, cls = cells[0].strip("`"), cells[1].strip("`")
        assert code not in out, f"docs/errors.md lists the code {code!r} twice"
        keys = set(re.findall(r"`(\w+)`", cells[3])) if len(cells) > 3 else set()
        out[code] = (cls, keys)
    return out


def _name(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def raise_sites(tree: ast.AST, classes: set[str]) -> list[tuple[int, str, object, object]]:
    """(line, class, the ``code=`` node, the ``data=`` node) of every construction of an error or warning class
    with a ``code=``, and every ``warn(message, Category, code=...)``."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if "code" not in kw:
            continue
        name = _name(node.func)
        if name in classes:
            out.append((node.lineno, name, kw["code"], kw.get("data")))
        elif name == "warn" and not (isinstance(node.func, ast.Attribute) and _name(node.func.value) == "warnings"):
            cat = node.args[1] if len(node.args) > 1 else kw.get("category")
            out.append((node.lineno, _name(cat) if cat is not None else "RanktrustWarning", kw["code"],
                        kw.get("data")))
    return sorted(out, key=lambda s: s[0])


def subclasses_in(tree: ast.AST, known: set[str]) -> set[str]:
    """Classes defined in ``tree`` that derive from one of ``known`` (an error class of a sub-package)."""
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and any(_name(b) in known for b in n.bases)}


@pytest.fixture(scope="module")
def house() -> tuple[dict[Path, ast.Module], set[str]]:
    """Every module's tree, and the names of the error and warning classes (with the package's subclasses)."""
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(SRC.rglob("*.py"))}
    known = set(CLASSES)
    for _ in range(3):      # subclasses of subclasses
        for t in trees.values():
            known |= subclasses_in(t, known)
    return trees, known


@pytest.fixture(scope="module")
def sites(house) -> dict[str, list[tuple[str, int, str]]]:
    """code -> [(file:line, class, data keys or None)] over the package."""
    trees, known = house
    found: dict[str, list] = {}
    bad = []
    for path, tree in trees.items():
        for line, cls, code, data in raise_sites(tree, known):
            where = f"{path.relative_to(SRC.parent)}:{line}"
            if isinstance(code, ast.Attribute) and code.attr == "code":
                continue        # an error re-raised with more context keeps the code it had (``code=exc.code``)
            if not (isinstance(code, ast.Constant) and isinstance(code.value, str)):
                bad.append(where)
                continue
            keys = ({k.value for k in data.keys if isinstance(k, ast.Constant)}
                    if isinstance(data, ast.Dict) and all(isinstance(k, ast.Constant) for k in data.keys) else None)
            found.setdefault(code.value, []).append((where, cls, keys))
    assert not bad, f"a code must be a string literal at its raise site (so it can be listed): {bad}"
    return found


def test_every_class_has_its_own_documented_default_code():
    docs = documented(DOC.read_text(encoding="utf-8"))
    defaults = {cls.code: name for name, cls in CLASSES.items()}
    assert len(defaults) == len(CLASSES), "two error or warning classes share a default code"
    for code, name in defaults.items():
        assert SNAKE.match(code), code
        assert docs.get(code, (None,))[0] == name, f"docs/errors.md: {code!r} should be the row of {name}"


def test_every_code_raised_is_documented_with_its_class_and_data(sites):
    docs = documented(DOC.read_text(encoding="utf-8"))
    wrong = []
    for code, uses in sites.items():
        if not SNAKE.match(code):
            wrong.append(f"{code!r} is not snake_case")
        if code not in docs:
            wrong.append(f"{code!r} ({uses[0][0]}) has no row in docs/errors.md")
            continue
        cls, keys = docs[code]
        for where, used, data in uses:
            if used != cls:
                wrong.append(f"{where}: {code!r} raised as {used}, documented as {cls} (one code, one class)")
            if data is not None and not keys <= data:
                wrong.append(f"{where}: {code!r} lacks the documented data keys {sorted(keys - data)}")
    assert not wrong, "\n".join(wrong)


def test_every_documented_code_is_raised(sites):
    defaults = {cls.code for cls in CLASSES.values()}
    unused = sorted(set(documented(DOC.read_text(encoding="utf-8"))) - set(sites) - defaults)
    assert not unused, f"docs/errors.md lists codes nothing raises: {unused}"


def test_the_enumeration_sees_every_form_of_raise_site(tmp_path):
    """The scan finds a one-line raise, a subclass, a warning built then warned and ``warn(...)``; and refuses a
    computed code (it could not be listed)."""
    tree = ast.parse(
        "class TaskError(DataError):\n    code = 'task'\n"
        "def f(x):\n"
        "    raise DataError(f'{x}: bad', code='bad_score', data={'row': 1, 'value': x})\n"
        "    raise TaskError('t', code='no_task')\n"
        "    warnings.warn(DegenerateDataWarning('w', code='zero_spread', data={'models': []}))\n"
        "    warn('w', SmallSampleWarning, code='few_items')\n"
        "    errors.warn('w', code='plain')\n"
        "    raise DataError('m', code=x)\n"
        "    raise DataError('m2', code=exc.code)\n"
        "    warnings.warn('text', UserWarning)\n")
    known = set(CLASSES) | subclasses_in(tree, set(CLASSES))
    got = [(line, cls, code.value if isinstance(code, ast.Constant) else ast.unparse(code))
           for line, cls, code, _d in raise_sites(tree, known)]
    assert got == [(4, "DataError", "bad_score"), (5, "TaskError", "no_task"),
                   (6, "DegenerateDataWarning", "zero_spread"), (7, "SmallSampleWarning", "few_items"),
                   (8, "RanktrustWarning", "plain"), (9, "DataError", "x"), (10, "DataError", "exc.code")]


def test_a_documented_table_with_a_code_twice_fails():
    with pytest.raises(AssertionError, match="twice"):
        documented("| `a` | `DataError` | x | |\n| `a` | `DataError` | y | |\n")


# ------------------------------------------------------------------------------------------ behaviour
def test_an_error_carries_code_data_and_param_and_stays_what_it_was():
    exc = rt.DataError("tasks.csv: row 17: 'x' is not a number", code="bad_score",
                       data={"source": "tasks.csv", "row": 17, "value": "x"}, param="score")
    assert (exc.code, exc.data["row"], exc.param) == ("bad_score", 17, "score")
    assert exc.message == str(exc) == "tasks.csv: row 17: 'x' is not a number"
    assert isinstance(exc, ValueError) and isinstance(exc, rt.RanktrustError)
    assert exc.to_dict() == {"code": "bad_score", "message": exc.message, "param": "score",
                             "data": {"source": "tasks.csv", "row": 17, "value": "x"}}
    with pytest.raises(rt.DataError, match=r"row 17: 'x'"):
        raise exc


def test_a_site_without_a_code_gets_its_class_code():
    assert [c("m").code for c in (rt.RanktrustError, rt.ArgumentError, rt.DataError, rt.FormatError,
                                  rt.SolverError)] == ["error", "argument", "data", "format", "solver"]
    assert rt.DataError("m").data == {} and rt.DataError("m").param is None
    assert rt.ArgumentError("m", param="rng").code == "argument"


def test_the_data_is_a_copy_and_a_code_is_a_non_empty_string():
    d = {"row": 1}
    exc = rt.DataError("m", data=d)
    d["row"] = 2
    assert exc.data == {"row": 1}
    with pytest.raises(TypeError, match="code"):
        rt.DataError("m", code="")
    with pytest.raises(TypeError, match="code"):
        errors.RanktrustWarning("m", code=3)        # type: ignore[arg-type]


@pytest.mark.parametrize("cls", [rt.DataError, rt.ArgumentError, rt.SolverError, errors.DegenerateDataWarning])
def test_code_and_data_survive_pickling(cls):
    """Errors cross process boundaries (joblib workers): the code, data and param come back."""
    kw = {"param": "rng"} if issubclass(cls, rt.RanktrustError) else {}
    back = pickle.loads(pickle.dumps(cls("msg", code="zero_spread", data={"models": ["a"]}, **kw)))
    assert (type(back), back.code, back.data, str(back)) == (cls, "zero_spread", {"models": ["a"]}, "msg")
    assert getattr(back, "param", "rng") == "rng"


def test_warnings_are_user_warnings_with_code_and_data():
    assert issubclass(rt.SmallSampleWarning, errors.RanktrustWarning)
    assert issubclass(rt.DegenerateDataWarning, UserWarning)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        errors.warn("model 'a': zero spread", rt.DegenerateDataWarning, code="zero_spread", data={"models": ["a"]})
        warnings.warn("no code", rt.SmallSampleWarning)
    assert [(w.category, w.message.code, w.message.data) for w in caught] == [
        (rt.DegenerateDataWarning, "zero_spread", {"models": ["a"]}), (rt.SmallSampleWarning, "small_sample", {})]
    with pytest.warns(rt.DegenerateDataWarning, match="zero spread"):
        errors.warn("model 'a': zero spread", rt.DegenerateDataWarning, code="zero_spread")


def test_warn_points_at_the_caller_of_the_function_that_warns():
    def analysis():
        errors.warn("careful", code="zero_spread")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        analysis(); line = __import__("inspect").currentframe().f_lineno    # noqa: E702
    assert (caught[0].filename, caught[0].lineno) == (__file__, line)


#: files that still emit a warning without a code (a plain ``UserWarning``), and how many places: the count only
#: falls. Emit ``errors.warn(message, code=..., data=...)`` (or a ``RanktrustWarning`` subclass) instead.
PLAIN_WARNINGS_LEFT = {
    "ranktrust/reporting/plots/_style.py": 1,
}


#: Python's own warnings about the API's life (a deprecated name): not about the data, they stay what users filter
LIFECYCLE = {"DeprecationWarning", "PendingDeprecationWarning", "FutureWarning"}


def plain_warnings(tree: ast.AST, classes: set[str]) -> list[int]:
    """Lines of ``warnings.warn`` calls whose category is no ranktrust warning class: ``warnings.warn(msg)``,
    ``warnings.warn(msg, UserWarning)``. A warning built from a ranktrust class (``warnings.warn(Cls(...))``) or
    re-emitted in its own category (``w.category``, keeping its code) is fine."""
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _name(node.func) == "warn" and isinstance(node.func, ast.Attribute)
                and _name(node.func.value) == "warnings" and node.args):
            continue
        cat = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "category"),
                                                           None)
        first = node.args[0]
        if cat is None and isinstance(first, ast.Call):
            cat = first.func
        if cat is None and isinstance(first, ast.Name):
            continue        # a warning object made earlier (its class is checked where it is made)
        if not (cat is not None and (_name(cat) in classes | LIFECYCLE or _name(cat) == "category")):
            out.append(node.lineno)
    return sorted(out)


def test_no_new_warning_without_a_code(house):
    trees, known = house
    found = {str(p.relative_to(SRC.parent)): len(s) for p, t in trees.items() if (s := plain_warnings(t, known))}
    grown = {f: (n, PLAIN_WARNINGS_LEFT.get(f, 0)) for f, n in found.items() if n > PLAIN_WARNINGS_LEFT.get(f, 0)}
    assert not grown, f"warnings without a code (found, allowed): {grown}; use ranktrust.errors.warn(..., code=...)"


def test_the_plain_warning_scan_can_fail():
    tree = ast.parse("import warnings\n"
                     "warnings.warn('a')\n"                                      # 2: no category
                     "warnings.warn('b', UserWarning)\n"                         # 3: plain
                     "warnings.warn('c', SmallSampleWarning)\n"
                     "warnings.warn(DegenerateDataWarning('d', code='x'))\n"
                     "warnings.warn(f'task: {w.message}', w.category)\n"
                     "warnings.warn(RuntimeWarning('e'))\n"                      # 7: plain
                     "warnings.warn('old', DeprecationWarning)\n")
    assert plain_warnings(tree, set(CLASSES)) == [2, 3, 7]


def test_the_docs_examples_run():
    """The ``pycon`` examples of docs/errors.md run as shown."""
    import doctest

    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"^```pycon\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    assert len(blocks) == 2
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    # one session: the second example uses the first one's imports
    runner.run(doctest.DocTestParser().get_doctest("".join(blocks), {}, "errors.md", str(DOC), 0))
    assert runner.failures == 0 and runner.tries >= 8
