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
"""

from __future__ import annotations

from ._blocked import all_pairs_blocked, write_parquet
from ._intervals import ScoreIntervals, bootstrap_ci, intervals, score_ci
from ._multiplicity import adjust_pvalues
from ._paired import PairedComparison, PairTable, all_pairs, compare, mcnemar_ci, mcnemar_exact
from ._power import PowerResult, PowerTable, estimate_disagreement, mcnemar_power, power, power_table
from ._twoway import MIN_RANDOM_JUDGES, check_judges, judged_ci  # noqa: F401  (for ranktrust.judges)

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
