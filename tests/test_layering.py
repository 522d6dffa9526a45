"""The import contract of the house (issue 12, step 2), checked over the AST of ``src/ranktrust``.

Every ``import`` is read, including the ones inside functions and ``if TYPE_CHECKING:`` blocks, and
four rules are checked:

(a) **down** — a cross-package import points down :data:`LAYERS` (or sideways inside one layer);
(b) **cycle** — no cycle between packages (sideways imports included);
(c) **private** — no ``_private`` name of another package is imported or used through a module attribute.
    Every implementation module is private (``stats/_intervals.py``; the public surface is each package's
    ``__all__``, issue 23 §2), so another package may import such a module and its public names
    (``from ..data._matrix import ScoreMatrix``), never its ``_helpers`` (the root's own helpers ``_text``,
    ``_validate``, ``_kernel``, ``_random`` and ``_optim`` are the house's, and every package may use them);
(d) **cli-words** — no string literal below ``cli/`` (docstrings excluded) names a flag of the
    ``ranktrust`` command line (``--align``) or one of its commands (``ranktrust ingest``): the API
    names the parameter (```align`='intersect'``) and ``cli.main.cli_words`` translates it;
(e) **python-words** — no message below ``cli/`` (a ``raise`` or a warning) gives an API value as a bare
    ``name='value'``: it names the parameter in backticks (```method`='t'``), so the terminal can translate it;
(f) **argument-error** — a wrong argument (a message that starts with the parameter in backticks) raises
    ``ArgumentError``, not a plain ``ValueError``: the command line prints only ``RanktrustError`` as one line.

Issue 23 widened what counts as an import or a use, after the review found six ways round the rules:

- **string imports** — a string that is a module path of the package (``"pkg.reporting.text"``,
  ``"pkg.stats.power:PowerResult"``, as passed to ``importlib.import_module``, ``__import__`` or a lazy
  table) is an import for rules (a)-(c);
- **private attributes** — ``from ..stats import intervals as iv; iv._who`` reaches a private name of another
  package as surely as ``from ..stats.intervals import _who`` (rule c);
- **monkeypatching** — assigning to an attribute of another package's module or class
  (``matrix.Matrix.__repr__ = ...``) is refused: a lower layer offers a hook instead (``results.set_html_display``);
- **the facade** — the package root may import at module level only the bottom layer (errors, results, the
  house helpers): ``import ranktrust`` loads no analysis and no presentation; the rest is its lazy table;
- **sentences** — analysis code (everything but ``cli``, ``reporting``, ``plot`` and ``_schema``) does not
  format numbers into prose (an f-string with a format spec and words), except in the message of an error
  or a warning: sentences are composed in ``reporting/``. Known cases still being moved are listed in
  :data:`SENTENCES_TO_MOVE` with their issue, and the list may only shrink.

Three counts that may only fall (one parse of the tree, a few seconds): places that decide by parsing another
function's message text (``"no prompt-id column" in e.message``, ``str(w.message)`` through a regex;
:data:`MESSAGE_PARSING_LEFT` names today's, file by file), imports of another package's private module
(:data:`CROSS_PRIVATE_MAX`) and circles of modules that import each other (:data:`MODULE_CIRCLES_LEFT`).

Each failure says the file, the line and the rule. The checkers are plain functions of a source tree,
so the last tests run them on small synthetic trees to show that they can fail.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import Iterable

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "ranktrust"

#: the layer order, top to bottom: a package may import the packages of its own layer or of a lower
#: one. ``score`` is a side package (scoring local models) that uses ``data`` and ``stats``.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli",),
    ("reporting", "plot", "_schema"),                  # _schema: the JSON Schema of the JSON output
    ("leaderboard",),                                   # the report pipeline: rt.report()
    ("ranking", "subsets", "runs", "quality", "sequential", "score", "preference", "gating",
     "judges"),
    ("stats", "resample", "_analysis"),                # _analysis: the shared keywords of every analysis
    ("data", "datasets"),
    ("errors", "results", "_text", "_validate", "_kernel", "_random", "_optim"),
)

#: root modules that are the whole house's helpers, not one package's private parts
HOUSE_HELPERS = frozenset({"_text", "_validate", "_kernel", "_random", "_optim"})

#: documented exceptions to rule (a): (importing unit, imported unit) -> why
ALLOWED_UP: dict[tuple[str, str], str] = {
    ("results", "reporting"): "display: Result._repr_html_ (Jupyter) and str/to_markdown/to_html/save load "
                              "ranktrust.reporting._notebook by name on first use, which registers itself with "
                              "results.set_html_display and results.set_format_display (inversion)",
}

#: files that still raise a plain ValueError for a wrong argument, with the area that makes it an ArgumentError
#: (until then the command line shows a traceback for it); shrink only
ARGUMENT_ERRORS_TO_MOVE: dict[str, str] = {}

#: the layers that present: everything else is analysis, which composes no sentences (rule "sentences")
PRESENTATION = frozenset({"cli", "reporting", "plot", "_schema"})

#: analysis files that still format numbers into prose, with the issue that moves it to reporting/ (shrink only)
SENTENCES_TO_MOVE: dict[str, str] = {
}


# ---------------------------------------------------------------------------------------- checker
def _parse(path: Path) -> ast.Module:
    """The module's tree, parsed once per session for every check that reads it (the trees are only read)."""
    return _parse_at(str(path), path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=None)
def _parse_at(path: str, _mtime_ns: int) -> ast.Module:
    return ast.parse(Path(path).read_text(encoding="utf-8"), filename=path)


def _docstring_ids(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                out.add(id(body[0].value))
    return out


def _module_name(path: Path, root: Path, package: str) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = [package, *rel.parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.AST, modname: str, is_pkg: bool) -> Iterable[tuple[int, str, str | None]]:
    """(line, absolute module, imported name or None) for every import in the tree."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = modname.split(".") if is_pkg else modname.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for a in node.names:
                yield node.lineno, mod, a.name


def _unit(dotted: str, package: str, units: set[str]) -> str | None:
    """The top-level unit (package or root module) of a module, '' for the root itself."""
    parts = dotted.split(".")
    if parts[0] != package:
        return None
    if len(parts) == 1:
        return ""
    return parts[1]


def _string_imports(tree: ast.AST, docs: set[int], root: Path, package: str) -> Iterable[tuple[int, str, None]]:
    """(line, module, None) for every string that names a module of the package: "pkg.a.b" or "pkg.a.b:Name"
    (importlib.import_module, __import__, find_spec, lazy tables, "module:Class" registries). A dotted
    string that is no module of the package (an entry-point group such as "pkg.readers") is not one."""
    mod_re = re.compile(r"(" + re.escape(package) + r"(?:\.[A-Za-z_]\w*)+)(?::([A-Za-z_][\w.]*))?")
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            mm = mod_re.fullmatch(node.value)
            if mm:
                rel = Path(*mm.group(1).split(".")[1:])
                if (root / rel).with_suffix(".py").exists() or (root / rel / "__init__.py").exists():
                    yield node.lineno, mm.group(1), None


def _function_level(tree: ast.AST) -> set[int]:
    """ids of the import statements inside a function body (lazy imports)."""
    out: set[int] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.update(id(n) for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return out


def _module_aliases(tree: ast.AST, modname: str, is_pkg: bool, root: Path, package: str) -> dict[str, str]:
    """Local name -> absolute module, for every name bound to a module of the package by an import."""
    def is_module(dotted: str) -> bool:
        rel = Path(*dotted.split(".")[1:]) if "." in dotted else Path()
        return (root / rel).with_suffix(".py").exists() or (root / rel / "__init__.py").exists()

    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == package:
                    out[a.asname or a.name.split(".")[0]] = a.name if a.asname else package
        elif isinstance(node, ast.ImportFrom):
            for _line, mod, name in _imports(ast.Module(body=[node], type_ignores=[]), modname, is_pkg):
                if name and mod.split(".")[0] == package and is_module(f"{mod}.{name}"):
                    asname = next(a.asname for a in node.names if a.name == name) or name
                    out[asname] = f"{mod}.{name}"
    return out


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _message_parts(tree: ast.AST) -> set[int]:
    """ids of the nodes inside the message of a raise or of a warning / exception constructor call."""
    out: set[int] = set()
    for node in ast.walk(tree):
        inside = None
        if isinstance(node, ast.Raise) and node.exc is not None:
            inside = node.exc
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if fname.endswith(("Error", "Warning", "Exception")) or fname in ("warn", "warn_zero_spread"):
                inside = node
        if inside is not None:
            out.update(id(n) for n in ast.walk(inside))
    # a message assembled in a variable first (what = f"..."; raise DataError(f"{where}: {what}"))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) in out}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id in names for t in targets):
                out.update(id(n) for n in ast.walk(node.value))
    return out


#: where object.__setattr__ may set the fields of a frozen object: while it is built or unpickled
_BUILDING = frozenset({"__post_init__", "__init__", "__new__", "__setstate__"})

_WORDS = re.compile(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}")
_BARE = re.compile(r"(?<![`\w.])([a-z_][a-z0-9_]*)=('[^']*'|\"[^\"]*\"|True|False|None)")


def check_tree(root: Path, package: str, *, layers=LAYERS, flags: Iterable[str] = (),
               commands: Iterable[str] = (), allowed_up: dict | None = None,
               helpers: frozenset = HOUSE_HELPERS, presentation: frozenset = PRESENTATION,
               sentences_to_move: dict[str, str] | None = None, api_names: Iterable[str] | None = None,
               argument_errors_to_move: dict[str, str] | None = None) -> list[str]:
    """Every violation of the rules in the package at ``root``, as ``file:line: [rule] what``.

    ``api_names``: the parameter names of the API (rule python-words looks only at those, so a message may
    still quote another tool's option, inspect's ``log_samples=False``); default: the vocabulary's."""
    if api_names is None:
        from test_vocabulary import VOCABULARY

        api_names = VOCABULARY
    api_names = set(api_names)
    sentences_to_move = SENTENCES_TO_MOVE if sentences_to_move is None else sentences_to_move
    argument_errors_to_move = ARGUMENT_ERRORS_TO_MOVE if argument_errors_to_move is None else argument_errors_to_move
    bottom = set(layers[-1])
    allowed_up = ALLOWED_UP if allowed_up is None else allowed_up
    rank = {u: k for k, layer in enumerate(layers) for u in layer}
    units = set(rank)
    flags = set(flags)
    cmd_re = re.compile(r"\b" + re.escape(package) + r" (" + "|".join(map(re.escape, commands)) + r")\b") \
        if commands else None
    flag_re = re.compile(r"(?<![\w-])--[a-z][a-z0-9_-]*")
    problems: list[str] = []
    edges: dict[tuple[str, str], tuple[str, int]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)
        modname = _module_name(path, root, package)
        me = _unit(modname, package, units)
        tree = _parse(path)
        if me and me.removesuffix(".py") not in rank:
            problems.append(f"{rel}:1: [layers] package {me!r} is not in the layer order; add it to LAYERS")
            continue
        docs = _docstring_ids(tree)
        lazy = _function_level(tree)
        if me == "":   # the facade: module-level imports of the bottom layer only (the rest is its lazy table)
            for node in tree.body if isinstance(tree, ast.Module) else ():
                for sub_node in ast.walk(node):
                    if isinstance(sub_node, (ast.Import, ast.ImportFrom)) and id(sub_node) not in lazy:
                        for line, mod, name in _imports(ast.Module(body=[sub_node], type_ignores=[]), modname,
                                                        path.name == "__init__.py"):
                            tu = _unit(mod, package, units)
                            if tu == "" and name is not None:
                                tu = name
                            if tu and tu not in bottom:
                                problems.append(f"{rel}:{line}: [facade] the package root imports {mod}"
                                                f"{'.' + name if name and tu == name else ''} at module level: "
                                                f"`import {package}` would load {tu!r}; add it to the lazy table")
        found = list(_imports(tree, modname, path.name == "__init__.py"))
        if me:
            found += list(_string_imports(tree, docs, root, package))
        for line, mod, name in found:
            target = mod
            tu = _unit(target, package, units)
            if tu is None:
                continue
            if tu == "" and name is not None and (name in units or (root / f"{name}.py").exists()
                                                  or (root / name / "__init__.py").exists()):
                target, tu = f"{package}.{name}", name   # from .. import errors: the module errors
                name = None
            if not me or tu == me:
                continue
            if tu == "" and rank.get(me) != 0:
                problems.append(f"{rel}:{line}: [down] {modname} imports the package root {package} "
                                "(the public facade sits above every layer but the top one)")
                continue
            if tu == "":
                continue
            if tu not in rank:
                problems.append(f"{rel}:{line}: [layers] {modname} imports {target}, whose package {tu!r} "
                                "is not in the layer order")
                continue
            edges.setdefault((me, tu), (str(rel), line))
            if rank[tu] < rank[me] and (me, tu) not in allowed_up:
                problems.append(f"{rel}:{line}: [down] {me} imports {target}: {tu} is above {me} in the "
                                "layer order")
            # another package's implementation modules are all private (``stats/_intervals.py``, issue 23 §2):
            # importing one, or one of its public names, is how the house is built; its private names are not
            sub = root.joinpath(*target.split(".")[1:], name or "")
            is_module = name is not None and (sub.with_suffix(".py").exists() or (sub / "__init__.py").exists())
            if tu not in helpers and name is not None and name.startswith("_") and not name.startswith("__") \
                    and not is_module:
                problems.append(f"{rel}:{line}: [private] {modname} imports {name} from {target}, a private "
                                f"name of {tu}")
        aliases = _module_aliases(tree, modname, path.name == "__init__.py", root, package)
        for node in ast.walk(tree):
            targets: list[ast.AST] = []
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                    "setattr", "delattr") and node.args:
                targets = [ast.Attribute(value=node.args[0], attr="?", ctx=ast.Store(), lineno=node.lineno)]
            for t in targets:
                if isinstance(t, ast.Attribute) and (alias := _root_name(t)) in aliases:
                    tu = _unit(aliases[alias], package, units)
                    if tu and tu != me:
                        problems.append(f"{rel}:{node.lineno}: [monkeypatch] {modname} assigns to an attribute of "
                                        f"{aliases[alias]} ({tu}): give that layer a hook instead")
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases \
                    and node.attr.startswith("_") and not node.attr.startswith("__"):
                tu = _unit(aliases[node.value.id], package, units)
                if tu and tu != me and tu not in helpers:
                    problems.append(f"{rel}:{node.lineno}: [private] {modname} uses {node.attr} of "
                                    f"{aliases[node.value.id]}, a private name of {tu}")
        if me in ("cli", ""):
            continue
        messages = _message_parts(tree)
        relpath = str(path.relative_to(root.parent))
        for fn in ast.walk(tree):   # frozen means frozen: object.__setattr__ only while an object is built
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name not in _BUILDING:
                for node in ast.walk(fn):
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                            and node.func.attr == "__setattr__" and isinstance(node.func.value, ast.Name) \
                            and node.func.value.id == "object":
                        problems.append(f"{rel}:{node.lineno}: [frozen] object.__setattr__ in {fn.name}(): a frozen "
                                        "result changes only while it is built (__post_init__); build a new one")
        for node in ast.walk(tree) if relpath not in argument_errors_to_move else ():   # else a CLI traceback
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name) \
                    and node.exc.func.id == "ValueError" and node.exc.args:
                first = node.exc.args[0]
                head = first.values[0] if isinstance(first, ast.JoinedStr) and first.values else first
                if isinstance(head, ast.Constant) and isinstance(head.value, str) and head.value.startswith("`"):
                    problems.append(f"{rel}:{node.lineno}: [argument-error] a wrong argument raises a plain ValueError: "
                                    "raise ArgumentError (errors.py), which the command line prints as one line")
        if me not in presentation and relpath not in sentences_to_move:
            for node in ast.walk(tree):
                if isinstance(node, ast.JoinedStr) and id(node) not in messages:
                    specs = [v for v in node.values if isinstance(v, ast.FormattedValue) and v.format_spec is not None]
                    text = " ".join(v.value for v in node.values if isinstance(v, ast.Constant) and
                                    isinstance(v.value, str))
                    if specs and _WORDS.search(text):
                        problems.append(f"{rel}:{node.lineno}: [sentences] analysis code formats a number into a "
                                        f"sentence ({text.strip()[:60]!r}): return the number, word it in reporting/")
        for node in ast.walk(tree):
            if id(node) in messages and isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and (mm := next((x for x in _BARE.finditer(node.value) if x.group(1) in api_names), None)):
                problems.append(f"{rel}:{node.lineno}: [python-words] a message gives {mm.group(0)!r}: name the "
                                f"parameter in backticks (`{mm.group(1)}`={mm.group(2)}) so the terminal can translate it")
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                s = node.value
                for f in dict.fromkeys(flag_re.findall(s)):
                    if f in flags:
                        problems.append(f"{rel}:{node.lineno}: [cli-words] names the CLI flag {f} "
                                        f"(name the parameter in backticks instead): {s[:70]!r}")
                if cmd_re is not None and (mm := cmd_re.search(s)):
                    problems.append(f"{rel}:{node.lineno}: [cli-words] names the CLI command "
                                    f"'{mm.group(0)}' (name the API instead): {s[:70]!r}")
    # (b) cycles between packages
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        if (a, b) not in allowed_up:   # a declared inversion is not part of the import graph
            graph.setdefault(a, set()).add(b)
    for cyc in _cycles(graph):
        where = "; ".join(f"{a} -> {b} at {edges[(a, b)][0]}:{edges[(a, b)][1]}"
                          for a, b in zip(cyc, cyc[1:] + cyc[:1]))
        problems.append(f"{where.split(' at ')[1].split(';')[0]}: [cycle] packages import each other: {where}")

    def key(p: str) -> tuple[str, int]:
        f, line, _ = p.split(":", 2)
        return f, int(line)

    return sorted(dict.fromkeys(problems), key=key)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (as a list of nodes) per strongly connected component with more than one node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    sccs: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for comp in sccs:   # a concrete cycle through the component
        members = set(comp)
        start = min(comp)
        path, seen = [start], {start}
        while True:
            nxt = sorted(w for w in graph.get(path[-1], ()) if w in members)
            back = [w for w in nxt if w == start]
            if back and len(path) > 1:
                break
            fresh = [w for w in nxt if w not in seen]
            if not fresh:
                break
            path.append(fresh[0])
            seen.add(fresh[0])
        out.append(path)
    return out


def cli_vocabulary() -> tuple[set[str], set[str]]:
    """The flags and command names of the ``ranktrust`` command line, read from its click commands."""
    import click

    from ranktrust.cli._main import COMMANDS, cli

    flags: set[str] = set()
    ctx = click.Context(cli)
    for name in COMMANDS:
        cmd = cli.get_command(ctx, name)
        if cmd is None:
            continue
        stack = [cmd]
        while stack:
            c = stack.pop()
            for p in c.params:
                flags.update(o for o in [*p.opts, *p.secondary_opts] if o.startswith("--"))
            if isinstance(c, click.Group):
                stack.extend(c.commands.values())
    return flags, set(COMMANDS)


# ------------------------------------------------------------------------------------- the contract
def test_the_house_keeps_its_layers():
    """The rules hold, and SENTENCES_TO_MOVE and ARGUMENT_ERRORS_TO_MOVE name only files that still break theirs:
    a file that no longer does (or is gone) leaves its list, so a list records what is left (one run of the
    checker, without the lists, serves both)."""
    flags, commands = cli_vocabulary()
    assert "--align" in flags and "ingest" in commands   # the vocabulary was read
    strict = check_tree(SRC, "ranktrust", flags=flags, commands=commands, sentences_to_move={},
                        argument_errors_to_move={})
    lists = {"sentences": SENTENCES_TO_MOVE, "argument-error": ARGUMENT_ERRORS_TO_MOVE}
    problems = [p for p in strict if not any(f"[{rule}]" in p and p.split(":")[0] in table
                                             for rule, table in lists.items())]
    assert not problems, f"{len(problems)} layering problem(s):\n" + "\n".join(problems)
    for rule, table in lists.items():
        stale = sorted(f for f in table if not any(f"[{rule}]" in p and p.split(":")[0] == f for p in strict))
        assert not stale, f"these files keep the {rule} rule now; remove them from its list: {stale}"


def test_every_package_is_in_the_layer_order():
    here = {p.name.removesuffix(".py") for p in SRC.iterdir()
            if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.name != "__init__.py")}
    placed = {u for layer in LAYERS for u in layer}
    assert here <= placed, f"not in LAYERS: {sorted(here - placed)}"


# ------------------------------------------------------------------------------ the checker can fail
def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for rel, text in {"__init__.py": "", **files}.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        for d in p.relative_to(root).parents:
            if str(d) != ".":
                (root / d / "__init__.py").touch()
    return root


LAY = (("cli",), ("reporting",), ("ranking", "runs"), ("data",), ("errors",))


def test_checker_finds_an_upward_import_inside_a_function_and_under_type_checking(tmp_path):
    root = _tree(tmp_path, {
        "data/io.py": "def f():\n    from ..reporting.text import render\n",
        "data/matrix.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..ranking import tiers\n",
        "reporting/text.py": "from ..data.io import f\nfrom .. import errors\n",
        "errors.py": "",
    })
    problems = check_tree(root, "pkg", layers=LAY)
    assert any(p.startswith("pkg/data/io.py:2: [down]") and "reporting" in p for p in problems), problems
    assert any(p.startswith("pkg/data/matrix.py:3: [down]") and "ranking" in p for p in problems), problems
    assert not any("reporting/text.py" in p and "[down]" in p for p in problems), problems


def test_checker_finds_a_cycle_between_packages_of_one_layer(tmp_path):
    root = _tree(tmp_path, {
        "ranking/tiers.py": "from ..runs import variance\n",
        "runs/variance.py": "def g():\n    import pkg.ranking.tiers\n",
    })
    problems = check_tree(root, "pkg", layers=LAY)
    cyc = [p for p in problems if "[cycle]" in p]
    assert len(cyc) == 1 and "ranking -> runs" in cyc[0] and "runs -> ranking" in cyc[0], problems
    assert not any("[down]" in p for p in problems)   # sideways is not upward


def test_checker_finds_private_imports_across_packages(tmp_path):
    root = _tree(tmp_path, {
        "cli/repeats.py": "from ..runs.passk import _ks_from_text\nfrom ..data._long import to_long\n"
                          "from ..data import _long\nfrom ..runs.passk import pass_at_k\n",
        "runs/passk.py": "from ._helpers import x\n",   # a package's own private module: fine
        "runs/_helpers.py": "x = 1\n",
        "data/_long.py": "",
    })
    problems = check_tree(root, "pkg", layers=LAY)
    priv = sorted(p for p in problems if "[private]" in p)
    # line 1: a private name of another package; lines 2-3: its private modules, which hold the implementation
    assert [p.split(":")[1] for p in priv] == ["1"], problems


def test_checker_finds_cli_words_below_cli_but_not_in_docstrings(tmp_path):
    root = _tree(tmp_path, {
        "data/matrix.py": '"""Use --align intersect (a docstring may)."""\n'
                          'def f(n):\n    """ranktrust ingest FILES is fine here."""\n'
                          '    raise ValueError(f"{n} models; use --align intersect")\n'
                          'HINT = "create it with `pkg ingest FILES`"\n'
                          'OK = "run lm_eval with --log_samples"\n',
        "cli/main.py": 'X = "--align"\n',
    })
    problems = check_tree(root, "pkg", layers=LAY, flags={"--align"}, commands={"ingest"})
    words = [p for p in problems if "[cli-words]" in p]
    assert len(words) == 2, problems
    assert words[0].startswith("pkg/data/matrix.py:4: [cli-words]") and "--align" in words[0]
    assert words[1].startswith("pkg/data/matrix.py:5: [cli-words]") and "pkg ingest" in words[1]


def test_checker_names_a_package_missing_from_the_order(tmp_path):
    root = _tree(tmp_path, {"newpkg/x.py": "from ..data import y\n", "data/y.py": ""})
    problems = check_tree(root, "pkg", layers=LAY)
    assert any("[layers]" in p and "newpkg" in p for p in problems), problems


def test_checker_ignores_imports_outside_the_package(tmp_path):
    root = _tree(tmp_path, {"data/y.py": "import numpy\nfrom collections import abc\n"})
    assert check_tree(root, "pkg", layers=LAY) == []


def test_checker_reads_from_dot_dot_import_module_as_that_module(tmp_path):
    root = _tree(tmp_path, {
        "errors.py": "",
        "_helper.py": "",
        "data/io.py": "from .. import errors, _helper\n",
        "runs/x.py": "from .. import reporting\n",
        "reporting/__init__.py": "",
    })
    problems = check_tree(root, "pkg", layers=(*LAY[:-1], ("errors", "_helper")), helpers=frozenset({"_helper"}))
    assert [p.split(":")[:2] + [p.split("] ")[0].split("[")[1]] for p in problems] == [["pkg/runs/x.py", "1", "down"]], \
        problems


# ------------------------------------- the six ways round the rules that the Dec 2026 review found (issue 23)
LAY6 = (("cli",), ("reporting",), ("ranking", "runs"), ("stats",), ("data",), ("errors",))


@pytest.mark.parametrize("case, files, rule, where", [
    ("upward via importlib",
     {"data/io.py": "import importlib\ndef f():\n    return importlib.import_module('pkg.reporting.text')\n",
      "reporting/text.py": ""}, "down", "pkg/data/io.py:3"),
    ("upward via a module:Class string",
     {"data/io.py": "LAZY = {'x': 'pkg.ranking.t:Tiers'}\n", "ranking/t.py": "class Tiers: pass\n"},
     "down", "pkg/data/io.py:1"),
    ("private name via module attribute",
     {"ranking/t.py": "from ..stats import intervals as iv\nx = iv._who\n", "stats/intervals.py": "def _who(): pass\n"},
     "private", "pkg/ranking/t.py:2"),
    ("upper layer monkeypatches a lower class",
     {"reporting/nb.py": "from ..data import matrix\nmatrix.M.__repr__ = lambda s: 'x'\n", "data/matrix.py": "class M: pass\n"},
     "monkeypatch", "pkg/reporting/nb.py:2"),
    ("setattr on a lower module",
     {"reporting/nb.py": "from ..data import matrix\nsetattr(matrix, 'f', 1)\n", "data/matrix.py": ""},
     "monkeypatch", "pkg/reporting/nb.py:2"),
    ("root facade imports the top layer",
     {"__init__.py": "from .reporting import text\n", "reporting/text.py": ""}, "facade", "pkg/__init__.py:1"),
    ("root facade imports analysis",
     {"__init__.py": "from .stats.intervals import intervals\n", "stats/intervals.py": "def intervals(): pass\n"},
     "facade", "pkg/__init__.py:1"),
    ("analysis composes sentences",
     {"runs/v.py": "def notes(x):\n    return [f'agree on {100*x:.1f}% of items']\n"}, "sentences", "pkg/runs/v.py:2"),
    ("upward via __import__",
     {"stats/a.py": "m = __import__('pkg.cli.main')\n", "cli/main.py": ""}, "down", "pkg/stats/a.py:1"),
    ("a wrong argument as a plain ValueError",
     {"stats/a.py": "def f(n):\n    raise ValueError(f\"`n` must be >= 1, got {n}\")\n"}, "argument-error",
     "pkg/stats/a.py:2"),
    ("a frozen result changed after construction",
     {"stats/a.py": "def finish(r, notes):\n    object.__setattr__(r, 'notes', notes)\n"}, "frozen", "pkg/stats/a.py:2"),
    ("a message in Python words",
     {"stats/a.py": "def f():\n    raise ValueError(\"use method='t' instead\")\n"}, "python-words", "pkg/stats/a.py:2"),
])
def test_checker_finds_what_the_review_found_it_missed(tmp_path, case, files, rule, where):
    problems = check_tree(_tree(tmp_path, files), "pkg", layers=LAY6, api_names={"method"})
    assert any(p.startswith(f"{where}: [{rule}]") for p in problems), (case, problems)


def test_checker_allows_what_the_rules_allow(tmp_path):
    """Lazy imports in the facade, downward strings, an error message with numbers, a declared inversion,
    another tool's option in a message, and dotted strings that name no module (entry-point groups)."""
    root = _tree(tmp_path, {
        "__init__.py": "from . import errors\ndef __getattr__(n):\n    from .stats import a\n    return a\n"
                       "_LAZY = {'a': 'pkg.stats.a'}\n",
        "errors.py": "",
        "reporting/text.py": "import importlib\nM = importlib.import_module('pkg.stats.a')\n"
                             "def line(x):\n    return f'agree on {x:.1f}% of items'\n",
        "stats/a.py": "import warnings\nGROUP = 'pkg.readers'\n"
                      "def f(q):\n    msg = f'the gap {q:g} is larger than q'\n    raise ValueError(msg)\n"
                      "def g(q):\n    warnings.warn(f'only {q:.0%} of items are scored')\n"
                      "def h():\n    raise ValueError('was it run with log_samples=False?')\n",
        "data/d.py": "def f():\n    import importlib\n    return importlib.import_module('pkg.reporting.text')\n",
    })
    problems = check_tree(root, "pkg", layers=(*LAY6[:-1], ("errors",)), api_names={"method"},
                          allowed_up={("data", "reporting"): "a declared inversion"})
    assert problems == [], problems


# ------------------------------------------------------- one message, two views (Python and terminal)
def _cli(capsys, *args: str) -> str:
    from ranktrust.cli._main import main

    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    assert exc.value.code == 1
    return capsys.readouterr().err


def _ragged(tmp_path: Path) -> Path:
    p = tmp_path / "ragged.csv"
    p.write_text("model,item,score\nA,q1,1\nA,q2,0\nA,q3,1\nB,q1,1\nB,q2,1\n")
    return p


def test_align_message_python_and_terminal(tmp_path, capsys):
    import ranktrust as rt

    p = _ragged(tmp_path)
    with pytest.raises(rt.DataError) as exc:
        rt.read(p)
    assert "Use `align`='intersect'" in str(exc.value) and "`align`='pairwise'" in str(exc.value)
    assert exc.value.param == "align" and "--align" not in str(exc.value)
    err = _cli(capsys, "report", p)
    assert "Use --align intersect" in err and "--align pairwise" in err and "`align`" not in err


def test_task_message_python_and_terminal(tmp_path, capsys):
    import ranktrust as rt

    p = tmp_path / "tasks.csv"
    p.write_text("model,item,score,task\nA,q1,1,t1\nA,q2,0,t2\nB,q1,1,t1\nB,q2,1,t2\n")
    with pytest.raises(rt.DataError) as exc:
        rt.read(p)
    assert "pick one with `task`='NAME'" in str(exc.value) and exc.value.param == "task"
    err = _cli(capsys, "report", p)
    assert "pick one with --task NAME" in err and "`task`" not in err


def test_scale_message_python_and_terminal(tmp_path, capsys):
    import ranktrust as rt

    p = tmp_path / "pct.csv"
    p.write_text("model,item,score\nA,q1,100\nA,q2,0\nB,q1,50\nB,q2,100\n")
    with pytest.raises(rt.DataError) as exc:
        rt.read(p)
    assert "pass `scale`=100" in str(exc.value) and exc.value.param == "scale"
    assert "pass --scale 100" in _cli(capsys, "report", p)


def test_store_messages_python_and_terminal(tmp_path, capsys):
    import ranktrust as rt
    from ranktrust.cli._main import cli_words

    missing = tmp_path / "none.duckdb"
    with pytest.raises(rt.DataError) as exc:
        rt.Store(missing, read_only=True)
    assert "create it with `Store.ingest`" in str(exc.value)
    assert "create it with `ranktrust ingest FILES --db STORE`" in cli_words(str(exc.value))
    data, db = tmp_path / "r.csv", tmp_path / "s.duckdb"
    data.write_text("model,item,score\nA,q1,1\nA,q2,0\nB,q1,1\nB,q2,1\n")
    with rt.Store(db) as st:
        st.ingest(data)
    data.write_text("model,item,score\nA,q1,0\nA,q2,0\nB,q1,1\nB,q2,1\n")
    with rt.Store(db) as st, pytest.raises(rt.DataError) as exc:
        st.ingest(data)
    assert "pass `replace`=True to replace" in str(exc.value)
    assert "pass --replace to replace" in cli_words(str(exc.value), "ingest")
    err = _cli(capsys, "ingest", data, "--db", db)
    assert "pass --replace to replace" in err and "`replace`" not in err


def test_sensitivity_message_python_and_terminal(capsys):
    import numpy as np

    import ranktrust as rt
    from ranktrust.cli._main import cli_words

    m = rt.ScoreMatrix.from_array(np.random.default_rng(0).integers(0, 2, (2, 20)).astype(float))
    with pytest.raises(rt.DataError) as exc:
        rt.sensitivity(m)
    msg = str(exc.value)
    assert "`condition`='COLUMN'" in msg and "`by`='run'" in msg and exc.value.param == "condition"
    assert "--condition-col COLUMN" in cli_words(msg, "sensitivity") and "--by run" in cli_words(msg, "sensitivity")


def test_cluster_warning_python_and_terminal():
    from ranktrust.cli._main import cli_words
    from ranktrust.stats._intervals import warn_few_clusters

    with pytest.warns(Warning) as rec:
        warn_few_clusters(3)
    msg = str(rec[0].message)
    assert msg.endswith("compare with `cluster`=False") and cli_words(msg).endswith("compare with --no-groups")


def test_the_cli_words_come_from_the_running_command():
    """The flag for a parameter is the one of the command that runs: no global table (issue 23 §3)."""
    import click

    import ranktrust.cli._main as main_mod
    from ranktrust.cli._main import cli, cli_words, command_words

    assert not hasattr(main_mod, "FLAGS") and not hasattr(main_mod, "VALUE_FLAGS")
    # `items` is --items in power; in report (no such flag) it stays as the API names it
    assert cli_words("`items` must be unique", "power") == "--items must be unique"
    assert cli_words("`items` must be unique", "report") == "`items` must be unique"
    assert cli_words("use `rng`=3", "report") == "use --seed 3"
    assert cli_words("`power`=0.9", "power") == "--power 0.9"
    # every (name, value) and name of every command names one of that command's own flags
    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):
        cmd = cli.get_command(ctx, name)
        own = {o for p in cmd.params for o in [*p.opts, *p.secondary_opts]}
        names, values = command_words(cmd)
        assert {flag for _opt, flag in names.values()} <= own, name
        assert {v.split()[0] for v in values.values()} <= own, name


def test_a_message_below_cli_reaches_the_terminal_in_the_running_commands_words(tmp_path, capsys):
    p = tmp_path / "r.csv"
    p.write_text("model,item,score\nA,q1,1\nA,q2,0\nB,q1,1\nB,q2,1\n")
    err = _cli(capsys, "power", "--gap", "2", "--disagreement", "0.27", "--alpha", "1.5")
    assert err.startswith("error: --alpha must be in (0, 1), got 1.5") and "`" not in err


@pytest.mark.parametrize("api, terminal", [
    ("use `align`='intersect'", "use --align intersect"),
    ("pick one with `split`='NAME'", "pick one with --split NAME"),
    ("`binary`=True needs 0/1 scores", "--binary needs 0/1 scores"),
    ("compare with `cluster`=False", "compare with --no-groups"),
    ("cluster with `cluster`=True", "cluster with --cluster-by COLUMN"),
    ("`group_col`='' for none", "--no-groups for none"),
    ("read it with `group`=COLUMN", "read it with --group-col COLUMN"),
    ("`confidence_level` must be in (0, 1)", "--confidence must be in (0, 1)"),
    ("`errors`='wrong'", "--errors wrong"),
    ("create it with `Store.ingest`", "create it with `ranktrust ingest FILES --db STORE`"),
    ("`rt.sensitivity` compares them", "`ranktrust sensitivity` compares them"),
    ("`unknown_thing` and `np.mean` stay", "`unknown_thing` and `np.mean` stay"),
])
def test_cli_words(api, terminal):
    from ranktrust.cli._main import cli_words

    assert cli_words(api, "report") == terminal


@pytest.mark.parametrize("command, api, terminal", [
    ("score", "move it away or pass `resume`=False", "move it away or pass --no-resume"),
    ("score", "`out` must end in .parquet", "--out must end in .parquet"),
    ("ingest", "pass `replace`=True to replace", "pass --replace to replace"),
    ("ingest", "name it with `model`='COL'", "name it with --model-col COL"),
])
def test_cli_words_of_other_commands(command, api, terminal):
    from ranktrust.cli._main import cli_words

    assert cli_words(api, command) == terminal


def test_the_reviews_half_translated_message_is_in_command_line_words(tmp_path, capsys):
    """The review's example (issue 23 §3, issue 21 D10): one line, every name a flag of `report`."""
    err = _cli(capsys, "report", _ragged(tmp_path), "--align", "pairwise", "--rank-method", "bootstrap")
    assert err == ("error: --rank-method bootstrap needs the items every model shares: align the matrix with "
                   "--align intersect, or use --rank-method pairs (each pair on its shared items)\n")


# ------------------------------------------- message parsing, private imports, module circles (fast: one parse)
#: files that still decide behaviour by parsing another function's message text, and how many places in each
#: (the house review of Dec 2026, §2.4); a new place, or a new file, fails. Lower a count when a place goes:
#: errors and warnings carry a code and data instead (issue 32 §3).
MESSAGE_PARSING_LEFT: dict[str, tuple[int, str]] = {
    "ranktrust/cli/_main.py": (1, "cli_words: the one translator of API words (`align`='intersect') into the running "
                                  "command's flags, by design (rule cli-words)"),
}

#: imports of another package's private module (``from ..stats._intervals import x``, the house review's
#: ``cross_private.py``): none. Each package exposes what others use in its ``__init__`` (outside ``__all__``
#: where it is not for users; a heavy module's names load on first use)
CROSS_PRIVATE_MAX = 0

#: module import circles that exist today (each a set of modules importing each other, lazy imports included);
#: a new circle, or one that grows, fails
MODULE_CIRCLES_LEFT: tuple[frozenset[str], ...] = (
    frozenset({"ranktrust.data._long", "ranktrust.data._matrix"}),
)

_PARSE_METHODS = frozenset({"split", "rsplit", "partition", "rpartition", "startswith", "endswith", "find", "rfind",
                            "index", "rindex", "removeprefix", "removesuffix", "count"})
_RE_CALLS = frozenset({"match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split"})


def _sources(root: Path, package: str) -> list[tuple[str, str, bool, ast.Module, list]]:
    """(file relative to root's parent, module name, is a package __init__, tree, its imports) of every module."""
    out = []
    for path in sorted(root.rglob("*.py")):
        tree = _parse(path)
        modname, is_pkg = _module_name(path, root, package), path.name == "__init__.py"
        out.append((str(path.relative_to(root.parent)), modname, is_pkg, tree,
                    list(_imports(tree, modname, is_pkg))))
    return out


def message_parsing_sites(tree: ast.AST) -> list[int]:
    """The line of every place that reads another function's message text to decide something: an exception's
    ``str(exc)``, ``exc.args[0]`` or any ``x.message`` (``w.message`` of a caught warning too), directly or through
    a name or a same-module function parameter it was passed in, then split, searched (``in``, ``re.match``,
    ``startswith``, ...) or rewritten with a regex. Quoting a message into another one is not parsing."""
    caught: set[str] = set()
    read: set[str] = set()      # names whose .args or str() is read, and "message" where any .message is
    for n in ast.walk(tree):
        if isinstance(n, ast.ExceptHandler) and n.name:
            caught.add(n.name)
        elif isinstance(n, ast.Attribute) and n.attr in ("message", "args"):
            read.add("message" if n.attr == "message" else getattr(n.value, "id", ""))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "str" and n.args:
            read.add(getattr(n.args[0], "id", ""))
    if "message" not in read and not (read & caught):
        return []   # no message text read here (most modules): nothing to follow
    scopes = [tree] + [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    funcs = {f.name: f for f in scopes[1:]}

    def text(node: ast.AST, names: set[str]) -> bool:
        if isinstance(node, ast.Attribute) and node.attr == "message":
            return True
        if isinstance(node, ast.Name):
            return node.id in names
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str" and node.args:
            a = node.args[0]
            return (isinstance(a, ast.Name) and a.id in caught) or text(a, names)
        return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "args"
                and isinstance(node.value.value, ast.Name) and node.value.value.id in caught)

    tainted: dict[int, set[str]] = {id(s): set() for s in scopes}
    for _ in range(2):   # names bound to message text, and parameters of local functions given it (two hops)
        for s in scopes:
            names = tainted[id(s)]
            for node in ast.walk(s):
                if isinstance(node, ast.Assign) and text(node.value, names):
                    names.update(t.id for t in node.targets if isinstance(t, ast.Name))
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in funcs:
                    f = funcs[node.func.id]
                    params = [a.arg for a in f.args.posonlyargs + f.args.args]
                    tainted[id(f)].update(p for p, a in zip(params, node.args) if text(a, names))
    sites: dict[int, int] = {}
    for s in scopes:
        names = tainted[id(s)]
        for node in ast.walk(s):
            hit = False
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                hit = (node.func.attr in _PARSE_METHODS and text(node.func.value, names)) or \
                    (node.func.attr in _RE_CALLS and any(text(a, names) for a in node.args))
            elif isinstance(node, ast.Compare):
                hit = any(isinstance(op, (ast.In, ast.NotIn)) and text(c, names)
                          for op, c in zip(node.ops, node.comparators))
            if hit:
                sites[id(node)] = node.lineno
    return sorted(sites.values())


def cross_private_imports(sources, package: str) -> list[str]:
    """``file:line target`` for every import of another package's private module (``from ..stats._x import y``,
    ``from ..stats import _x``), as the house review counted them."""
    modules = {m for _r, m, *_ in sources}
    out = []
    for rel, modname, _p, _t, imports in sources:
        me = modname.split(".")[1] if "." in modname else ""
        for line, mod, name in imports:
            target = f"{mod}.{name}" if name and f"{mod}.{name}" in modules else mod
            parts = target.split(".")
            if parts[0] != package or len(parts) < 3 or parts[1] == me:
                continue
            if any(p.startswith("_") and not p.startswith("__") for p in parts[2:]):
                out.append(f"{rel}:{line} {target}")
    return out


def module_circles(sources, package: str) -> list[frozenset[str]]:
    """The sets of modules that import each other (an import inside a function counts: it is the same knot)."""
    known = {m for _r, m, *_ in sources}
    graph: dict[str, set[str]] = {}
    for _rel, modname, _p, _t, imports in sources:
        for _line, mod, name in imports:
            target = f"{mod}.{name}" if name and f"{mod}.{name}" in known else mod
            if target in known and target != modname and not modname.startswith(target + "."):
                graph.setdefault(modname, set()).add(target)
    return [frozenset(c) for c in _strongly_connected(graph)]


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[set[str]] = []
    for start in sorted(graph):   # iterative Tarjan
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    x = stack.pop()
                    comp.add(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(comp)
    return out


@pytest.fixture(scope="module")
def house() -> list[tuple[str, str, bool, ast.Module, list]]:
    return _sources(SRC, "ranktrust")


def test_no_new_place_parses_message_text(house):
    found = {rel: len(s) for rel, _m, _p, tree, _i in house if (s := message_parsing_sites(tree))}
    allowed = {f: n for f, (n, _why) in MESSAGE_PARSING_LEFT.items()}
    grown = {f: (n, allowed.get(f, 0)) for f, n in found.items() if n > allowed.get(f, 0)}
    assert not grown, ("these files decide by parsing another function's message text (places found, allowed): "
                       f"{grown}; give the error or warning a code and data, and branch on those")
    gone = sorted(f for f in MESSAGE_PARSING_LEFT if not (SRC.parent / f).exists())
    assert not gone, f"MESSAGE_PARSING_LEFT names files that are gone: {gone}"


def test_cross_package_private_imports_do_not_grow(house):
    found = cross_private_imports(house, "ranktrust")
    assert len(found) <= CROSS_PRIVATE_MAX, (
        f"{len(found)} imports of another package's private module (at most {CROSS_PRIVATE_MAX}): import what the "
        "package's __init__ exposes, or expose it there\n" + "\n".join(found))


def test_no_new_module_circle(house):
    new = [sorted(c) for c in module_circles(house, "ranktrust") if not any(c <= old for old in MODULE_CIRCLES_LEFT)]
    assert not new, f"modules that import each other (break the circle: move what both need down): {new}"


def test_the_fast_checks_can_fail(tmp_path):
    """Each of the three checks above fails on a synthetic snippet of what it forbids, and passes what it allows."""
    root = _tree(tmp_path, {
        "gating/core.py": (
            "import re, warnings\n"
            "from ..stats._paired import compare\n"                                   # private import
            "from ..stats import _paired as p2\n"                                     # private import
            "from ..stats import compare as c2\n"                                     # public: fine
            "def one(text):\n"
            "    return re.match(r'^1 pair', text)\n"                                 # 6: via a parameter
            "def f(m):\n"
            "    try:\n"
            "        compare(m)\n"
            "    except ValueError as exc:\n"
            "        if 'no prompt' in str(exc):\n"                                   # 11: `in`
            "            return exc.args[0].split('; ')[0]\n"                         # 12: split
            "        raise ValueError(f'task: {exc}') from None\n"                    # quoting: fine
            "    with warnings.catch_warnings(record=True) as rec:\n"
            "        compare(m)\n"
            "    for w in rec:\n"
            "        msg = str(w.message)\n"
            "        if msg.startswith('1 pair'):\n"                                  # 18: through a name
            "            one(str(w.message))\n"
            "    return 'x'.split(',')\n"),                                           # not a message: fine
        "stats/_paired.py": "def compare(m):\n    from ..gating.core import f\n",
        "stats/__init__.py": "from ._paired import compare\n",
        "data/a.py": "from . import b\n", "data/b.py": "def g():\n    from . import a\n",   # a module circle
        "data/c.py": "from .a import x\n",                                             # not in the circle
    })
    sources = _sources(root, "pkg")
    by_file = {rel: tree for rel, _m, _p, tree, _i in sources}
    assert message_parsing_sites(by_file["pkg/gating/core.py"]) == [6, 11, 12, 18]
    assert sorted(s.split()[0] for s in cross_private_imports(sources, "pkg")) == \
        ["pkg/gating/core.py:2", "pkg/gating/core.py:3"]
    circles = {tuple(sorted(c)) for c in module_circles(sources, "pkg")}
    assert ("pkg.data.a", "pkg.data.b") in circles
    assert any({"pkg.gating.core", "pkg.stats._paired"} <= set(c) for c in circles), circles
    assert not any("pkg.data.c" in c for c in circles)


#: "issue 33", "(#21)", "issue 23 §1": a tracker's number, which says nothing to a reader of the code
_ISSUE_REF = re.compile(r"\b[Ii]ssues? \d+|\(#\d+\)|\bD\d+\b(?=[:)])")


def issue_references(text: str) -> list[int]:
    """The lines of ``text`` that cite a tracker's issue by number."""
    return [i for i, line in enumerate(text.splitlines(), 1) if _ISSUE_REF.search(line)]


def test_docstrings_and_comments_speak_of_the_code_not_of_issue_numbers():
    found = [f"{p.relative_to(SRC.parent)}:{n}" for p in sorted(SRC.rglob("*.py"))
             for n in issue_references(p.read_text(encoding="utf-8"))]
    assert not found, ("these lines cite an issue by its number: say what the code does and why instead\n"
                       + "\n".join(found))


def test_the_issue_reference_check_can_fail():
    text = ('"""Suites (issue 34)."""\n'
            "x = 1  # the count path (Issue 33): measured\n"
            "y = 2  # see (#21)\n"
            "z = 3  # P(#1 is #1), D24 in the grid, 2 issues\n")
    assert issue_references(text) == [1, 2, 3]
