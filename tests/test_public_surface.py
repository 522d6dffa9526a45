"""The public surface (issue 23 §2): the docs and the README cite only ``rt.*`` names, public sub-packages and
names in a public sub-package's ``__all__``; each public sub-package has an ``__all__`` of what users touch.

A citation ``ranktrust.P.name`` is public when ``P`` is a package (not a module) and ``name`` is in its
``__all__`` (or is itself a public package); anything reached through a module (``ranktrust.stats.power.x``)
is an implementation path. :data:`MENTIONS_TO_MOVE` lists the citations still to fix, with the area whose
document cites them; it may only shrink.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import ranktrust as rt

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "ranktrust"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

#: citations of implementation paths still in the docs -> the area that fixes its document (shrink only)
MENTIONS_TO_MOVE: dict[str, str] = {}

_MENTION = re.compile(r"(?<![\w.])ranktrust(?:\.[A-Za-z_]\w*)+")
_FROM = re.compile(r"^[ \t]*from[ \t]+(ranktrust(?:\.[A-Za-z_]\w*)+)[ \t]+import[ \t]+(?:\(([\w\s,]+)\)|([\w ,]+))",
                   re.M)


def mentions(text: str) -> set[str]:
    """Every dotted ``ranktrust.x.y`` in a text, with ``from ranktrust.x import a, b`` read as x.a and x.b."""
    out = set(_MENTION.findall(text))
    for mod, in_parens, names in _FROM.findall(text):
        out.discard(mod)
        out.update(f"{mod}.{n.strip()}" for n in (in_parens or names).split(",") if n.strip())
    # a dotted name that is no path of the package (the plug-in entry-point group "ranktrust.readers")
    return {m for m in out if m.split(".")[1] in rt.__all__ or (SRC / m.split(".")[1]).exists()
            or (SRC / f"{m.split('.')[1]}.py").exists()}


def _is_package(dotted: str) -> bool:
    return (SRC.joinpath(*dotted.split(".")[1:]) / "__init__.py").exists()


def is_public(dotted: str) -> bool:
    parts = dotted.split(".")
    if len(parts) == 2:
        return parts[1] in rt.__all__ or (_is_package(dotted) and not parts[1].startswith("_"))
    k = max(i for i in range(1, len(parts)) if _is_package(".".join(parts[:i])))
    pkg, rest = ".".join(parts[:k]), parts[k:]
    if any(p.startswith("_") for p in parts[1:]):
        return False
    if k == 1 and len(rest) == 2 and (SRC / f"{rest[0]}.py").exists():   # a public root module: errors, results
        return rest[1] in getattr(importlib.import_module(f"ranktrust.{rest[0]}"), "__all__", ())
    if not rest:
        return True
    if len(rest) > 1:
        return False
    if _is_package(dotted):
        return True
    return rest[0] in getattr(importlib.import_module(pkg), "__all__", ())


def test_the_checker_tells_public_from_implementation_paths():
    assert is_public("ranktrust.stats.power_table") and is_public("ranktrust.data.readers")
    assert is_public("ranktrust.intervals") and is_public("ranktrust.stats")
    assert not is_public("ranktrust.stats.power.mcnemar_power")      # through a module
    assert not is_public("ranktrust.resample.engine")                 # a module
    assert not is_public("ranktrust.resample.halves")                 # not in the package's __all__
    assert not is_public("ranktrust.data.readers._registry.ReadOptions")
    assert mentions("see `ranktrust.stats.power.x`\nfrom ranktrust.stats import a, b\n") == {
        "ranktrust.stats.power.x", "ranktrust.stats.a", "ranktrust.stats.b"}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_docs_cite_only_the_public_surface(doc):
    bad = sorted(m for m in mentions(doc.read_text(encoding="utf-8")) if not is_public(m) and m not in MENTIONS_TO_MOVE)
    assert not bad, f"{doc.name} cites implementation paths: {bad}; cite rt.* or a name in a public __all__"


def test_the_list_of_citations_to_move_only_shrinks():
    cited = set().union(*(mentions(d.read_text(encoding="utf-8")) for d in DOCS))
    stale = sorted(m for m in MENTIONS_TO_MOVE if m not in cited or is_public(m))
    assert not stale, f"fixed or gone: remove from MENTIONS_TO_MOVE: {stale}"


#: the public modules (issue 23 §2: "at most about 25"): the root, its two public root modules, the command line's
#: entry and the public sub-packages; every other module is private (``_name.py``) and reached through these
PUBLIC_MODULES = {
    "ranktrust", "ranktrust.errors", "ranktrust.results", "ranktrust.plot", "ranktrust.cli",
    "ranktrust.data", "ranktrust.data.readers", "ranktrust.data.store", "ranktrust.data.battles", "ranktrust.datasets",
    "ranktrust.stats", "ranktrust.resample", "ranktrust.ranking", "ranktrust.runs", "ranktrust.subsets",
    "ranktrust.quality", "ranktrust.sequential", "ranktrust.score", "ranktrust.preference", "ranktrust.gating",
    "ranktrust.judges", "ranktrust.leaderboard", "ranktrust.reporting", "ranktrust.reporting.plots", "ranktrust.reporting.renderers",
}


def test_every_module_but_the_curated_few_is_private():
    found = set()
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(p.startswith("_") for p in parts[1:]):
            found.add(".".join(parts))
    assert found == PUBLIC_MODULES, (f"new public modules (make them private, _name.py): {sorted(found - PUBLIC_MODULES)}; "
                                     f"gone: {sorted(PUBLIC_MODULES - found)}")
    assert len(PUBLIC_MODULES) <= 25


@pytest.mark.parametrize("pkg", ["stats", "ranking", "resample", "runs", "score", "data", "subsets", "quality",
                                 "sequential", "leaderboard", "reporting", "preference", "gating", "judges", "cli",
                                 "data.readers", "data.store", "data.battles", "reporting.plots", "datasets"])
def test_every_public_subpackage_curates_its_names(pkg):
    mod = importlib.import_module(f"ranktrust.{pkg}")
    names = getattr(mod, "__all__", None)
    assert names, f"ranktrust.{pkg} has no __all__"
    missing = [n for n in names if not hasattr(mod, n)]
    assert not missing, f"ranktrust.{pkg}.__all__ names what it does not have: {missing}"
