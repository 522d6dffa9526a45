"""Bundled real data (see README.md beside this file for source and licence)."""

from __future__ import annotations

from importlib.resources import files

_FILES = {"mmlupro": "mmlupro_outputs.csv.gz"}


def path(name: str = "mmlupro") -> str:
    """Filesystem path of a bundled dataset (``"mmlupro"``: MMLU-Pro, 29 models x 12,032 items, Apache-2.0)."""
    if name not in _FILES:
        raise ValueError(f"unknown dataset {name!r}; bundled: {', '.join(_FILES)}")
    return str(files(__package__) / _FILES[name])
