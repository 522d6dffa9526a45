"""The one registry of presentation: how each result type looks, keyed by the result class.

Every way a result is shown is one entry ``(result class, hook) -> value``:

* ``"text"``, ``"md"``, ``"html"``, ``"csv"``, ``"headline"``, ``"payload"``: the renderers
  (:mod:`ranktrust.reporting.renderers`, registered with ``@renderer(Type, fmt)``);
* ``"figure"``: the figures that draw it, in order (:mod:`ranktrust.reporting.plots`, ``@figure_for(Type, ...)``);
* ``"page"``: a notebook page that replaces the figure-and-tables display (``reporting/_notebook.py``).

The key is the result class. It is given either as the class itself or, where importing the class would load an
analysis (and its scipy) just to register how it looks, as the string ``"package.module:Class"`` that names it
without importing it; both are stored as that string, so a class and its name are one key. Lookup walks the
result's MRO and returns the entries of the nearest class that has any for the hook (a subclass looks like its
base). A report section's JSON names its type by the class name alone (``{"name": "stability", "type":
"Stability"}``): :meth:`Registry.named` finds that class's entries.

``tests/test_plots.py`` checks that every registered name is a class defined at that path (a result class that
moves must be renamed where it is registered).
"""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import ArgumentError

__all__ = ["FORMATS", "HOOKS", "LEADERBOARD_REPORT", "REGISTRY", "Registry", "class_key", "resolve"]

#: The output formats a renderer draws (JSON is ``to_dict()`` and needs none); a new format is its name here, its
#: branch in ``_render.compose`` (and suffix), and ``results.SAVE_FORMATS`` for ``save(path)``.
FORMATS = ("text", "md", "html", "csv")

#: What can be registered for a result class.
HOOKS = FORMATS + ("headline", "payload", "figure", "page")

#: The whole leaderboard report (``rt.report``): every report figure is registered for it.
LEADERBOARD_REPORT = "ranktrust.leaderboard._result:LeaderboardReport"


def class_key(result_type: type | str) -> str:
    """The registry key of a result class: ``"package.module:Class"`` (a string given is checked, not imported)."""
    if isinstance(result_type, type):
        return f"{result_type.__module__}:{result_type.__qualname__}"
    module, sep, qual = str(result_type).partition(":")
    if not (module and sep and qual):
        raise ArgumentError(f"a result type must be a class or 'package.module:Class', got {result_type!r}",
                            param="result_type")
    return result_type


def resolve(name: str) -> type:
    """The class a ``"package.module:Class"`` name stands for (imports its module)."""
    module, _, qual = name.partition(":")
    obj: Any = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, type) or class_key(obj) != name:
        raise LookupError(f"{name!r} is not a class defined at that path")
    return obj


class Registry:
    """Values registered per (result class, hook), looked up by an object's class (nearest in its MRO)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], list[Any]] = {}
        self._cache: dict[tuple[type, str], tuple[Any, ...]] = {}

    def add(self, result_type: type | str, hook: str, value: Any, *, replace: bool = True) -> None:
        """Register ``value`` as ``hook`` of ``result_type``: it replaces an earlier one (a renderer, a page), or
        with ``replace=False`` comes after the earlier ones (the figures, drawn in the order registered)."""
        if hook not in HOOKS:
            raise ArgumentError(f"`hook` must be one of {', '.join(HOOKS)}, got {hook!r}", param="hook")
        key = (class_key(result_type), hook)
        if replace:
            self._entries[key] = [value]
        else:
            self._entries.setdefault(key, []).append(value)
        self._cache.clear()

    def discard(self, result_type: type | str, hook: str) -> None:
        """Remove the ``hook`` entries of ``result_type`` (a test's temporary registration)."""
        self._entries.pop((class_key(result_type), hook), None)
        self._cache.clear()

    def names(self, hook: str) -> list[str]:
        """Every class name that has a ``hook`` entry, in the order first registered."""
        return [n for n, h in self._entries if h == hook]

    def under(self, name: str, hook: str) -> tuple[Any, ...]:
        """The ``hook`` entries of exactly the class ``name`` (its ``"package.module:Class"`` or, for a report
        section's JSON type, its class name alone), in the order registered."""
        got = self._entries.get((name, hook))
        if got is None and ":" not in name:
            got = next((v for (n, h), v in self._entries.items()
                        if h == hook and n.rpartition(":")[2].rpartition(".")[2] == name), None)
        return tuple(got or ())

    def lookup(self, obj: Any, hook: str) -> tuple[Any, ...]:
        """The ``hook`` entries for ``obj``'s class (or ``obj`` itself when it is a class); () when none matches."""
        cls = obj if isinstance(obj, type) else type(obj)
        hit = self._cache.get((cls, hook))
        if hit is None:
            hit = ()
            for base in cls.__mro__:
                hit = tuple(self._entries.get((class_key(base), hook), ()))
                if hit:
                    break
            self._cache[(cls, hook)] = hit
        return hit

    def first(self, obj: Any, hook: str) -> Any:
        """The first ``hook`` entry for ``obj``'s class, or None."""
        hit = self.lookup(obj, hook)
        return hit[0] if hit else None


#: The registry every renderer, figure and notebook page is registered in.
REGISTRY = Registry()
