"""Imports every built-in reader module so that each registers its reader class (``@register``).

A reader module that needs an optional dependency must import it lazily, inside
its read method, so that this import never fails. Third-party readers do not belong
here: they register through the ``ranktrust.readers`` entry-point group.
"""

import importlib

_MODULES = ["table", "lm_eval", "inspect", "helm", "lighteval", "swebench", "eee"]

for _m in _MODULES:
    try:
        importlib.import_module(f"{__package__}.{_m}")
    except ModuleNotFoundError as exc:  # a format module not written yet
        if exc.name != f"{__package__}.{_m}":
            raise
