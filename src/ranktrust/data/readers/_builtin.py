"""Imports every built-in reader module so that each registers itself.

A reader module that needs an optional dependency must import it lazily, inside
its read function, so that this import never fails.
"""

import importlib

_MODULES = ["table", "lm_eval", "inspect", "helm", "lighteval", "swebench", "eee"]

for _m in _MODULES:
    try:
        importlib.import_module(f"{__package__}.{_m}")
    except ModuleNotFoundError as exc:  # a format module not written yet
        if exc.name != f"{__package__}.{_m}":
            raise
