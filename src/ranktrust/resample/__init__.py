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

__all__ = [
    "BLOCK", "ResampleBatch", "complete_scores", "halves", "iter_half_means",
    "iter_resample_means", "rank_order", "resample_means", "weights", "bootstrap_ci",
]


def __getattr__(name: str):
    if name == "bootstrap_ci":
        from .intervals import bootstrap_ci

        return bootstrap_ci
    raise AttributeError(name)
