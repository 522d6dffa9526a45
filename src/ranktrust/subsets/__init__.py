"""Micro-benchmarks: choosing a small subset of items, estimating full scores from it,
and measuring how reliably it orders models (MDAD).

>>> import ranktrust as rt
>>> s = rt.select_subset(m, method="anchor", size=100)            # doctest: +SKIP
>>> rt.estimate(s, targets)                                     # doctest: +SKIP
>>> rt.mdad(m, methods=["random", "anchor"], sizes=[10, 100])   # doctest: +SKIP

References
----------
.. [1] G. Yauney, S. Warraich, S. Swayamdipta, "How Reliable is Language Model
   Micro-Benchmarking?", ICLR 2026.
.. [2] R. Vivek, K. Ethayarajh, D. Yang, D. Kiela, "Anchor Points: Benchmarking Models
   with Much Fewer Examples", EACL 2024.
.. [3] F. M. Polo et al., "tinyBenchmarks: evaluating LLMs with fewer examples", ICML 2024.

Outside :data:`__all__`, for the command line: ``DEFAULT_METHODS`` and ``DEFAULT_SIZES``, what ``mdad`` compares
when not told.
"""

from __future__ import annotations

from . import _anchor as anchor, _diversity as diversity, _irt_method as irt_method  # noqa: F401  (register the built-in methods)
from ._irt import IRTParams, fit_2pl
from ._mdad import DEFAULT_METHODS, DEFAULT_SIZES, MDADResult, MDADResultJSON, default_source_models, mdad
from ._registry import methods, register
from ._select import Subset, SubsetEstimate, estimate, select_subset

__all__ = [
    "select_subset", "estimate", "mdad", "methods", "register", "fit_2pl", "default_source_models",
    "Subset", "SubsetEstimate", "MDADResult", "IRTParams",
]
