"""ranktrust: which differences on an LLM leaderboard are real.

>>> import ranktrust as rt
>>> m = rt.read("results.csv")            # doctest: +SKIP
>>> rt.intervals(m)                         # doctest: +SKIP
>>> rt.compare(m, "Model A", "Model B")     # doctest: +SKIP

The public API is re-exported here and imported lazily, so ``import ranktrust``
stays fast (it loads the errors only) and optional parts (torch for scoring) are loaded only
when used. Results show themselves in Jupyter through ``ranktrust.reporting._notebook``, which
``Result._repr_html_`` loads on first display.
"""

from __future__ import annotations

# no import here but the errors (not typing, not importlib): the console script imports this module before the
# CLI can catch Ctrl-C, so the less it loads, the shorter that window (typing alone took tens of ms)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
del TYPE_CHECKING

from .errors import (
    ArgumentError,
    DataError,
    DegenerateDataWarning,
    FormatError,
    RanktrustError,
    SmallSampleWarning,
    SolverError,
)

__version__ = "0.2.0"

# public name -> module that defines it
_LAZY: dict[str, str] = {
    "ScoreMatrix": "ranktrust.data._matrix",   # lazy too: `import ranktrust` loads no numpy, pandas or reporting
    "read": "ranktrust.data._io",
    "read_long": "ranktrust.data._io",
    "read_battles": "ranktrust.data.battles",
    "write_eee": "ranktrust.data._eee",
    # stats
    "intervals": "ranktrust.stats._intervals",
    "compare": "ranktrust.stats._paired",
    "all_pairs": "ranktrust.stats._paired",
    "mcnemar_exact": "ranktrust.stats._paired",
    "adjust_pvalues": "ranktrust.stats._multiplicity",
    "power": "ranktrust.stats._power",
    "estimate_disagreement": "ranktrust.stats._power",
    "tiers": "ranktrust.ranking._tiers",
    # resampling and ranking
    "bootstrap_ci": "ranktrust.stats._intervals",
    "stability": "ranktrust.ranking._stability",
    "rank_sets": "ranktrust.ranking._ranksets",
    "split_half": "ranktrust.ranking._splithalf",
    # micro-benchmarks
    "select_subset": "ranktrust.subsets",
    "estimate": "ranktrust.subsets",
    "mdad": "ranktrust.subsets",
    "data_quality": "ranktrust.quality",
    # repeats and conditions
    "repeats": "ranktrust.runs",
    "pass_at_k": "ranktrust.runs",
    "pass_at_k_matrix": "ranktrust.runs",
    "choose_n": "ranktrust.runs",
    "run_until_enough": "ranktrust.runs",
    "sensitivity": "ranktrust.runs",
    "variance_components": "ranktrust.runs",
    # store
    "Store": "ranktrust.data.store",
    # report
    "report": "ranktrust.leaderboard",
    "plot": "ranktrust.plot",
    "Watch": "ranktrust.sequential", "watch_replay": "ranktrust.sequential",
    "arena": "ranktrust.preference",
    # scoring local models (optional extra)
    "score_models": "ranktrust.score",
    # the JSON contract
    "json_schema": "ranktrust._schema",
    # the release gate
    "gate": "ranktrust.gating",   # the package is not named gate: it would shadow rt.gate
    # judged scores corrected with gold labels
    "gold_corrected": "ranktrust.judges",
    "judge_audit": "ranktrust.judges",
    # suites: ranking over many tasks; in ranking/ (no package named suite: it would shadow rt.suite)
    "suite": "ranktrust.ranking._suite",
}

__all__ = [
    "RanktrustError",
    "ArgumentError",
    "DataError",
    "FormatError",
    "SolverError",
    "SmallSampleWarning",
    "DegenerateDataWarning",
    *_LAZY,
]

# the result classes the analyses return, for isinstance and type hints (rt.Gate, from ranktrust import Gate):
# lazy like the functions, and outside __all__, which lists what a user calls (tests/test_vocabulary.py reads
# every parameter of __all__; a result's fields are not parameters)
_LAZY.update({
    "LeaderboardReport": "ranktrust.leaderboard",
    "ArenaResult": "ranktrust.preference",
    "Gate": "ranktrust.gating",
    "PairedComparison": "ranktrust.stats",
    "PairTable": "ranktrust.stats",
    "ScoreIntervals": "ranktrust.stats",
    "PowerResult": "ranktrust.stats",
    "RankSets": "ranktrust.ranking",
    "Tiers": "ranktrust.ranking",
    "Stability": "ranktrust.ranking",
    "SplitHalf": "ranktrust.ranking",
    "Repeats": "ranktrust.runs",
    "Sensitivity": "ranktrust.runs",
    "PassAtK": "ranktrust.runs",
    "ChooseN": "ranktrust.runs",
    "RunUntilEnough": "ranktrust.runs",
    "VarianceComponents": "ranktrust.runs",
    "Subset": "ranktrust.subsets",
    "SubsetEstimate": "ranktrust.subsets",
    "MDADResult": "ranktrust.subsets",
    "WatchStatus": "ranktrust.sequential",
    "ReplayResult": "ranktrust.sequential",
    "SuiteResult": "ranktrust.ranking._suite",
    "GoldCorrected": "ranktrust.judges",
    "JudgeAudit": "ranktrust.judges",
    "DataQuality": "ranktrust.quality",
})


#: analyses whose first argument is the data: they also take a long or wide DataFrame (pandas or
#: Polars) or a path, read with rt.read (data.io.as_matrix)
_TAKES_DATA = frozenset({
    "intervals", "compare", "all_pairs", "estimate_disagreement", "tiers", "bootstrap_ci", "stability",
    "rank_sets", "split_half", "select_subset", "mdad", "repeats", "pass_at_k_matrix", "sensitivity",
    "variance_components", "report", "data_quality", "watch_replay",
})


#: public names kept for a while, each with what replaces it (``rt.NAME`` warns with a DeprecationWarning)
_DEPRECATED = {
    "bootstrap_ci": "rt.bootstrap_ci is deprecated: per-model bootstrap intervals are rt.intervals(m, "
                    "method='percentile' or 'bca', n_resamples=..., cluster=...), the same ScoreIntervals; the "
                    "interval of a difference (pair=(a, b)) is ranktrust.stats.bootstrap_ci(m, pair=(a, b))",
}


def _deprecated(fn: Any, message: str) -> Any:
    import functools
    import warnings

    @functools.wraps(fn)
    def call(*args: Any, **kw: Any) -> Any:
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return fn(*args, **kw)

    return call


def __getattr__(name: str) -> Any:
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'ranktrust' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(mod)
    value = module if name == "plot" else getattr(module, name)
    if name in _TAKES_DATA and not getattr(value, "__ranktrust_analysis__", False):   # @analysis reads data itself
        from .data import accepts_data

        value = accepts_data(value)
    if name in _DEPRECATED:
        value = _deprecated(value, _DEPRECATED[name])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *_LAZY})
