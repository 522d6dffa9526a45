"""The resampling engine (``_engine``) and bootstrap intervals built on it (``_intervals``).

What users touch is :data:`__all__`. Outside :data:`__all__`, for the other packages of the house: the engine's
tasks and plans (``matrix_input``, ``prepare``, ``product_tasks``, ``run_products``, ``half_tasks``,
``half_product``, ``rank_order``), ``bootstrap_intervals`` (behind ``rt.intervals(method='percentile')``) and
``map_tasks`` (a task list in-process or on a dask client); the last two load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._engine import (
    BLOCK,
    ResampleBatch,
    complete_scores,
    half_product,
    half_tasks,
    halves,
    iter_half_means,
    iter_resample_means,
    matrix_input,
    prepare,
    product_tasks,
    rank_order,
    resample_means,
    run_products,
    weights,
)

if TYPE_CHECKING:  # pragma: no cover
    from ._distributed import map_tasks
    from ._intervals import BootstrapIntervals, bootstrap_intervals

#: what users touch: the shared bootstrap resamples (for a statistic of their own) and the interval of a
#: difference (``rt.bootstrap_ci`` lives in ``ranktrust.stats``); the rest of ``engine`` (tasks, plans, halves, rank order) is the engine's own
__all__ = [
    "resample_means", "iter_resample_means", "weights", "ResampleBatch", "BootstrapIntervals",
]


def __getattr__(name: str) -> Any:
    # BootstrapIntervals: rt.bootstrap_ci(m, pair=(a, b)); per-model intervals are ScoreIntervals
    if name in ("BootstrapIntervals", "bootstrap_intervals"):
        from . import _intervals

        return getattr(_intervals, name)
    if name == "map_tasks":
        from . import _distributed

        return _distributed.map_tasks
    raise AttributeError(name)
