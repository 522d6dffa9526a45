"""Data layer: ScoreMatrix, readers and the DuckDB store.

What users touch is :data:`__all__` (``rt.read``, ``rt.read_long`` and ``rt.write_eee`` are reached through
``ranktrust``). Outside :data:`__all__`, for the other packages of the house, loaded on first use so that
``from ..data import ScoreMatrix`` stays light: reading (``read``, ``read_long``, ``as_matrix``, ``accepts_data``,
``input_hash``, ``warn_similar_names``), a judge matrix with its gold labels (``read_with_gold``), judge verdicts (``read_verdicts``) and
the every-eval-ever export (``export_store``, ``SCHEMA_VERSION``).
"""

from __future__ import annotations

import importlib
from typing import Any

from ._matrix import AlignPolicy, ScoreMatrix

__all__ = ["ScoreMatrix", "AlignPolicy"]

#: names the other packages use (not public API: outside __all__) -> the module that holds them
_LAZY = {"read": "._io", "read_long": "._io", "as_matrix": "._io", "accepts_data": "._io", "input_hash": "._io",
         "read_with_gold": "._gold", "read_verdicts": "._verdicts", "export_store": "._eee",
         "SCHEMA_VERSION": "._eee", "warn_similar_names": "._long"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
