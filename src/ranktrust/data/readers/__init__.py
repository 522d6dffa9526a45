"""Harness readers: the :class:`Reader` protocol, the registry, and the helpers readers share.

A third-party reader needs only this module: write a class that follows :class:`Reader` and declare
it in the ``ranktrust.readers`` entry-point group (or call :func:`register`); see docs/readers.md.
The public names other packages use (the command line, ``score``) live here; ``_registry``
and ``_util`` are this package's private modules (tests/test_layering.py checks it).
"""

from ._registry import BUILTIN_READERS, ENTRY_POINT_GROUP, ReadOptions, Reader, Skip, readers, register, sniff
from ._util import SEARCH_DEPTH, RowBuffer, iter_jsonl, load_json, walk_files

__all__ = ["BUILTIN_READERS", "ENTRY_POINT_GROUP", "SEARCH_DEPTH", "ReadOptions", "Reader", "RowBuffer", "Skip", "iter_jsonl",
           "load_json", "readers", "register", "sniff", "walk_files"]
