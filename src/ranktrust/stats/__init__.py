"""Statistics on a :class:`~ranktrust.ScoreMatrix`: intervals, paired tests, multiplicity, power.

Modules here use NumPy and SciPy only: they never print or import pandas, and read no files except
the Parquet score files of :mod:`._blocked` (PyArrow, imported when one is read).

- :mod:`._intervals`: per-model score intervals (Wilson, the default for 0/1 scores; CLT, t;
  clustered SE [M, eq. 4] with a small-cluster correction).
- :mod:`._paired`: paired comparison of two models (McNemar exact with the interval dual to it,
  paired t, sign-flip) and every pair at once (:func:`all_pairs`, vectorised by matrix products).
- :mod:`._multiplicity`: Holm, Bonferroni and Benjamini-Hochberg adjustment.
- :mod:`._power`: items needed for a gap (exact McNemar power for 0/1 scores, or the normal
  formula), detectable gap at a number of items.
- :mod:`._twoway`: intervals that count the judge (two-way clustering by item and judge), behind
  ``intervals(m, judges=...)`` and :func:`ranktrust.judges.judged_intervals`.
- :mod:`._blocked`: every pair of a leaderboard too large for one product (:func:`all_pairs_blocked`),
  block by block from a Parquet score file (:func:`write_parquet`), in-process or on a dask client.

What users touch is :data:`__all__`. Outside :data:`__all__`, for the other packages of the house: the rows of the
JSON tables (``ScoreIntervalRow``, ``PairRow``, ``PowerRow``), ``check_confidence_level``, ``ADJUST_METHODS``,
``score_order`` (models by score, for the pair screen), the judges' ``check_judges``, ``judged_ci`` and
``MIN_RANDOM_JUDGES``; and, loaded on first use, the betting bounds of :mod:`._bounded` (``betting_bounds``,
``items_needed``) and the gold-corrected means of :mod:`._ppi` (``gold_fit``, ``model_intervals``, its methods
as ``PPI_METHODS``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._blocked import all_pairs_blocked, write_parquet
from ._intervals import ScoreIntervalRow, ScoreIntervals, bootstrap_ci, check_confidence_level, intervals, score_ci
from ._multiplicity import ADJUST_METHODS, adjust_pvalues
from ._paired import PairedComparison, PairRow, PairTable, all_pairs, compare, mcnemar_ci, mcnemar_exact, score_order
from ._power import PowerResult, PowerRow, PowerTable, estimate_disagreement, mcnemar_power, power, power_table
from ._twoway import MIN_RANDOM_JUDGES, check_judges, judged_ci  # noqa: F401  (for ranktrust.judges)

if TYPE_CHECKING:  # pragma: no cover
    from ._bounded import betting_bounds, items_needed
    from ._ppi import METHODS as PPI_METHODS
    from ._ppi import gold_fit, model_intervals

__all__ = [
    "ScoreIntervals",
    "intervals",
    "bootstrap_ci",
    "score_ci",
    "adjust_pvalues",
    "PairedComparison",
    "PairTable",
    "all_pairs",
    "compare",
    "mcnemar_exact",
    "mcnemar_ci",
    "PowerResult",
    "PowerTable",
    "estimate_disagreement",
    "power",
    "power_table",
    "mcnemar_power",
    "all_pairs_blocked",
    "write_parquet",
]

#: names the other packages use that load on first use (not public API: outside __all__) -> (module, its name)
_LAZY = {"betting_bounds": ("._bounded", "betting_bounds"), "items_needed": ("._bounded", "items_needed"),
         "gold_fit": ("._ppi", "gold_fit"), "model_intervals": ("._ppi", "model_intervals"),
         "PPI_METHODS": ("._ppi", "METHODS")}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module, __name__), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
