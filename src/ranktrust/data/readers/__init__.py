"""Harness readers: one module per format, found by sniffing, and the registry that runs them.

The public names other packages use (the command line, ``score``) live here; ``_registry``
and ``_util`` are this package's private modules (tests/test_layering.py checks it).
"""

from ._registry import ReadOptions, Reader, readers, sniff
from ._util import iter_jsonl

__all__ = ["ReadOptions", "Reader", "readers", "sniff", "iter_jsonl"]
