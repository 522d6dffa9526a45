"""Imports every built-in reader module so that each registers its reader class (``@register``).

A reader module that needs an optional dependency must import it lazily, inside
its read method, so that this import never fails. Third-party readers do not belong
here: they register through the ``ranktrust.readers`` entry-point group.

The registry calls :func:`load` with the names it lists (``BUILTIN_READERS``, ``BUILTIN_BATTLE_READERS``), so
this module imports nothing from it: the two do not import each other.
"""

import importlib
from typing import Iterable

_loaded = False


def load(names: Iterable[str]) -> None:
    """Import the reader module ``_<name>`` of each name (once; each registers its reader class)."""
    global _loaded
    if _loaded:
        return
    for _m in names:
        try:
            importlib.import_module(f"{__package__}._{_m}")
        except ModuleNotFoundError as exc:  # a format module not written yet
            if exc.name != f"{__package__}._{_m}":
                raise
    _loaded = True
