"""The resampling engine (``engine``) and bootstrap intervals built on it (``intervals``)."""

from .engine import (
    BLOCK,
    ResampleBatch,
    complete_scores,
    halves,
    iter_half_means,
    iter_resample_means,
    rank_order,
    resample_means,
    weights,
)

#: what users touch: the shared bootstrap resamples (for a statistic of their own) and the bootstrap
#: intervals; the rest of ``engine`` (tasks, plans, halves, rank order) is the engine's own
__all__ = [
    "resample_means", "iter_resample_means", "weights", "ResampleBatch", "bootstrap_ci", "BootstrapIntervals",
]


def __getattr__(name: str):
    if name in ("bootstrap_ci", "BootstrapIntervals"):
        from . import intervals

        return getattr(intervals, name)
    raise AttributeError(name)
