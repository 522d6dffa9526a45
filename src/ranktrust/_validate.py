"""Argument validators shared by every public function (scipy's ``_iv`` discipline).

Each validator checks one kind of argument, **returns it normalised** (a ``float``, an
``int``, a ``Generator``, a tuple) and has one message template. Every message names the
parameter in backticks, says what is allowed and shows the value received, e.g.::

    `confidence_level` must be in the open interval (0, 1) (0.95 for 95%), got 95

The CLI turns the backticked names into its flags (``cli.main.cli_words``), so one message
serves a Python user and a terminal user. Wrong *values* raise :class:`~ranktrust.ArgumentError`
(a ``ValueError`` and a ``RanktrustError``, with ``param`` set; wrong *types* plain ``TypeError``);
a data state that an argument cannot work with (clustering without item groups) raises
:class:`~ranktrust.DataError`.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Iterable, Optional, Sequence, Union

import numpy as np

from .errors import ArgumentError, DataError

__all__ = [
    "confidence_level", "count", "counts", "probability", "rng", "seed", "choice", "choices", "cluster",
    "progress", "alternative", "ALTERNATIVES", "SeedLike", "Progress", "ArgumentError",
]

#: anything :func:`numpy.random.default_rng` accepts
SeedLike = Optional[Union[int, np.random.SeedSequence, np.random.Generator]]
#: the one progress protocol: called as ``progress(done, total)``
Progress = Optional[Callable[[int, int], None]]

ALTERNATIVES = ("two-sided", "greater", "less")


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _is_integral(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, (float, np.floating)) and float(value).is_integer()


def confidence_level(value: Any, name: str = "confidence_level") -> float:
    """A confidence level in the open interval (0, 1), as a ``float``."""
    if not _is_real(value) or not 0.0 < float(value) < 1.0:
        msg = f"`{name}` must be in the open interval (0, 1) (0.95 for 95%), got {value!r}"
        raise ArgumentError(msg, param=name) if _is_real(value) else TypeError(msg)
    return float(value)


def probability(value: Any, name: str, *, low_open: bool = False, high_open: bool = False, hint: str = "") -> float:
    """A probability or share in [0, 1] (either end open on request), as a ``float``; ``hint`` is added
    to the message (e.g. " (a fraction: 0.02 = 2 points)")."""
    lo, hi = ("(" if low_open else "["), (")" if high_open else "]")
    ok = _is_real(value) and (0.0 < float(value) if low_open else 0.0 <= float(value)) and (
        float(value) < 1.0 if high_open else float(value) <= 1.0)
    if not ok:
        msg = f"`{name}` must be in {lo}0, 1{hi}, got {value!r}{hint}"
        raise ArgumentError(msg, param=name) if _is_real(value) else TypeError(msg)
    return float(value)


def count(value: Any, name: str, *, minimum: int = 1) -> int:
    """A whole number ``>= minimum`` (an ``int``; an integral float such as ``100.0`` is accepted)."""
    if not _is_integral(value) or int(value) < minimum:
        msg = f"`{name}` must be an integer >= {minimum}, got {value!r}"
        raise ArgumentError(msg, param=name) if _is_real(value) else TypeError(msg)
    return int(value)


def counts(values: Any, name: str, *, minimum: int = 1) -> tuple[int, ...]:
    """A non-empty sequence of whole numbers ``>= minimum`` (a string is not a sequence here:
    the CLI parses ``"1,5,10"``; the API takes ``(1, 5, 10)``)."""
    if isinstance(values, (str, bytes)) or _is_integral(values):
        raise TypeError(f"`{name}` must be a sequence of integers >= {minimum}, got {values!r}")
    out = tuple(values)
    if not out or not all(_is_integral(v) and int(v) >= minimum for v in out):
        raise ArgumentError(f"`{name}` must be a sequence of integers >= {minimum}, got {values!r}", param=name)
    return tuple(int(v) for v in out)


def rng(value: Any, name: str = "rng") -> np.random.Generator:
    """A :class:`numpy.random.Generator` from anything ``default_rng`` takes: ``None``
    (fresh entropy), an int seed, a ``SeedSequence`` or a ``Generator`` (returned as is, so its
    stream continues)."""
    is_int = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if value is not None and not isinstance(value, (np.random.Generator, np.random.SeedSequence)) and not (
            is_int and value >= 0):
        msg = (f"`{name}` must be None, a non-negative int seed, a numpy SeedSequence or a numpy Generator, "
               f"got {value!r}")
        raise ArgumentError(msg, param=name) if is_int else TypeError(msg)   # -1: a value, 1.5: a type
    return np.random.default_rng(value)


def seed(value: Any, name: str = "rng") -> int:
    """The one int seed that a function records (and that keys its streams or hashes) from an ``rng``:
    a non-negative int is used as is; a ``Generator`` or ``SeedSequence`` draws one; ``None`` draws
    one from fresh entropy."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value >= 0:
        return int(value)
    return int(rng(value, name).integers(2**63 - 1))


def choice(value: Any, name: str, allowed: Iterable[Any]) -> Any:
    """One of ``allowed`` (returned as is)."""
    allowed = tuple(allowed)
    try:
        ok = value in allowed
    except TypeError:  # unhashable or incomparable
        ok = False
    if not ok:
        raise ArgumentError(f"`{name}` must be one of {', '.join(repr(a) for a in allowed)}, got {value!r}",
                            param=name)
    return value


def choices(values: Any, name: str, allowed: Iterable[Any]) -> tuple[Any, ...]:
    """A non-empty sequence of distinct members of ``allowed`` (a string is not a sequence here:
    the CLI parses ``"random,irt"``; the API takes ``("random", "irt")``)."""
    allowed = tuple(allowed)
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(
            f"`{name}` must be a sequence of {', '.join(repr(a) for a in allowed)}, got {values!r}")
    out = tuple(values)
    bad = [v for v in out if v not in allowed]
    if not out or bad or len(set(out)) != len(out):
        raise ArgumentError(
            f"`{name}` must be a non-empty sequence of distinct values among "
            f"{', '.join(repr(a) for a in allowed)}, got {values!r}", param=name)
    return out


def alternative(value: Any, name: str = "alternative") -> str:
    """``'two-sided'``, ``'greater'`` or ``'less'`` (as in scipy.stats)."""
    return str(choice(value, name, ALTERNATIVES))


def progress(value: Any, name: str = "progress") -> Progress:
    """``None`` or a callable ``progress(done, total)``."""
    if value is not None and not callable(value):
        raise TypeError(f"`{name}` must be None or a callable progress(done, total), got {value!r}")
    return value


def cluster(value: Any, groups: Sequence[Any] | None, *, method: str | None = None) -> bool:
    """The one clustering rule: cluster when ``cluster=True`` or ``method="cluster"``.

    ``groups`` are the item groups of the data (``ScoreMatrix.groups``). Asking for
    clustering without them is a :class:`~ranktrust.DataError`, with the same message in every
    function.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"`cluster` must be True or False, got {value!r}")
    want = bool(value) or method == "cluster"
    if want and groups is None:
        raise DataError(
            "clustering needs item groups, but the data has none: "
            "read it with `group`=COLUMN (the column that groups the items)", param="group"
        )
    return want
