"""Imports every built-in reader module so that each registers its reader class (``@register``).

A reader module that needs an optional dependency must import it lazily, inside
its read method, so that this import never fails. Third-party readers do not belong
here: they register through the ``ranktrust.readers`` entry-point group.
"""

import importlib

from ._registry import BUILTIN_BATTLE_READERS, BUILTIN_READERS

for _m in (*BUILTIN_READERS, *BUILTIN_BATTLE_READERS):
    try:
        importlib.import_module(f"{__package__}._{_m}")
    except ModuleNotFoundError as exc:  # a format module not written yet
        if exc.name != f"{__package__}._{_m}":
            raise
