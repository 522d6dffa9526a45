"""Base types shared by every result object.

Results are frozen dataclasses (``@dataclass(frozen=True)``). Arrays stay arrays
inside a result (no Python object per pair or per resample); ``to_dict()`` builds
the JSON-ready structure (plain floats, ints, strings, lists and dicts) whose keys
are the stable public contract of the JSON output.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, NamedTuple

import numpy as np

__all__ = ["ConfidenceInterval", "Result", "jsonable"]


class ConfidenceInterval(NamedTuple):
    """A confidence interval ``(low, high)``, as in ``scipy.stats``."""

    low: float
    high: float


def _array_json(a: np.ndarray) -> Any:
    """An array as nested lists; non-finite floats become None (vectorised: no call per element)."""
    if a.dtype.kind == "f":
        fin = np.isfinite(a)
        if fin.all():
            return a.tolist()
        obj = a.astype(object)
        obj[~fin] = None
        return obj.tolist()
    if a.dtype.kind in "biu":
        return a.tolist()
    return [jsonable(v) for v in a.tolist()]


def jsonable(value: Any) -> Any:
    """Convert NumPy scalars/arrays, tuples and dataclasses into JSON-ready values.

    Non-finite floats become ``None`` (JSON has no NaN).
    """
    if value is None or isinstance(value, (str, bool, int)) and not isinstance(value, np.integer):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _array_json(value)
    if isinstance(value, Result):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        f = float(value)
        return f if math.isfinite(f) else None
    return value


def _short(v: Any, limit: int = 6) -> str:
    """A one-line preview of a field value: small values in full, big ones summarised."""
    if isinstance(v, np.ndarray):
        if v.size <= limit and v.ndim <= 1:
            return np.array2string(v, precision=4, separator=", ")
        return f"<array {'x'.join(map(str, v.shape))} {v.dtype}>"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    if isinstance(v, (list, tuple)) and len(v) > limit:
        head = ", ".join(_short(x) for x in list(v)[:3])
        return f"[{head}, ... ({len(v)} in all)]"
    if isinstance(v, dict) and len(v) > limit:
        return f"{{... {len(v)} entries}}"
    if isinstance(v, Result):
        return f"<{type(v).__name__}>"
    r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."


class Result:
    """Mixin for frozen result dataclasses.

    Subclasses are ``@dataclass(frozen=True)`` and override :meth:`to_dict` when the
    JSON layout differs from their fields. ``_repr_html_`` shows the result in
    Jupyter as a table built from ``to_dict()``.
    """

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        # @dataclass adds its own __repr__ only when the class defines none: give every result the
        # short one below (a 420-model result would otherwise print every array in full)
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = Result._short_repr  # type: ignore[method-assign]

    def _short_repr(self) -> str:
        parts = []
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if not f.repr:
                continue
            parts.append(f"{f.name}={_short(getattr(self, f.name))}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready plain Python values (stable keys)."""
        return jsonable({f.name: getattr(self, f.name) for f in dataclasses.fields(self)})  # type: ignore[arg-type]

    def _repr_html_(self) -> str:  # pragma: no cover - exercised through report tests
        from .reporting.notebook import result_html

        return result_html(self)
