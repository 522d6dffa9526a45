"""Bundled real data (see README.md beside this file for source and licence)."""

from __future__ import annotations

from importlib.resources import files

from ..errors import ArgumentError

__all__ = ["path"]

_FILES = {"mmlupro": "mmlupro_outputs.csv.gz"}


def path(name: str = "mmlupro") -> str:
    """Filesystem path of a bundled dataset (``"mmlupro"``: MMLU-Pro, 29 models x 12,032 items, Apache-2.0)."""
    if name not in _FILES:
        raise ArgumentError(f"`name`={name!r} is no bundled dataset; bundled: {', '.join(_FILES)}", param="name")
    return str(files(__package__) / _FILES[name])
