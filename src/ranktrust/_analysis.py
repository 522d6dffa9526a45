"""The shared keywords of every analysis, implemented once (as scipy's ``_axis_nan_policy_factory``).

:func:`analysis` decorates a function whose first argument is the data and normalises, before the function
runs, the keywords every analysis shares:

- the **data** (first argument): a ScoreMatrix as is; a long or wide pandas/Polars DataFrame or a path read
  with ``rt.read`` (:func:`ranktrust.data._io.as_matrix`); a NumPy array passes through;
- ``confidence_level``: a level in (0, 1), as a float (:func:`ranktrust._validate.confidence_level`);
- ``rng``: anything ``default_rng`` takes, else the one ``rng`` error (validated, passed on unchanged, so the
  function's own seed streams are what they were);
- ``cluster``: True or False; ``cluster=True`` on data without item groups is the one ``DataError``;
- ``progress``: None or a callable ``progress(done, total)``.

So ``ranktrust.stats.intervals(df)`` behaves as ``rt.intervals(df)``, and a wrong ``rng`` or ``cluster`` gives
the same error from every function. :data:`ANALYSES` lists the decorated functions;
``tests/test_analysis.py`` runs the same behaviour checks over all of them.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, TypeVar

from . import _validate

__all__ = ["analysis", "ANALYSES", "SHARED"]

F = TypeVar("F", bound=Callable[..., Any])

#: the keywords :func:`analysis` normalises
SHARED = ("confidence_level", "rng", "cluster", "progress")

#: every decorated function, by its public name
ANALYSES: dict[str, Callable[..., Any]] = {}


def analysis(fn: F) -> F:
    """Normalise the data argument and the shared keywords of ``fn`` (see the module docstring)."""
    sig = inspect.signature(fn)
    data_name = next(iter(sig.parameters))
    shared = tuple(k for k in SHARED if k in sig.parameters)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kw: Any) -> Any:
        try:
            bound = sig.bind_partial(*args, **kw)
        except TypeError as exc:   # as Python says it: "tiers() got an unexpected keyword argument 'x'"
            raise TypeError(f"{fn.__name__}() {exc}") from None
        given = bound.arguments
        if data_name in given:
            from .data import as_matrix

            given[data_name] = as_matrix(given[data_name])
        for name in shared:
            if name not in given:
                continue
            value = given[name]
            if name == "confidence_level":
                given[name] = _validate.confidence_level(value)
            elif name == "rng":
                _validate.rng(value)            # the one error; the value itself goes on unchanged
            elif name == "progress":
                _validate.progress(value)
            elif name == "cluster":
                from .data import ScoreMatrix

                m = given.get(data_name)
                _validate.cluster(value, m.groups if isinstance(m, ScoreMatrix) else ())
        return fn(*bound.args, **bound.kwargs)

    wrapper.__ranktrust_analysis__ = True  # type: ignore[attr-defined]
    ANALYSES[fn.__name__] = wrapper
    return wrapper  # type: ignore[return-value]
