"""CSV for results that are a table: full precision (like JSON), one header row, no formatting."""

from __future__ import annotations

import csv
import io
from typing import Any, Iterable, Sequence


def _cell(x: Any) -> Any:
    if x is None:
        return ""
    if hasattr(x, "item") and not isinstance(x, (list, tuple, dict)):   # a NumPy scalar
        x = x.item()
    if isinstance(x, float):
        return repr(x) if x == x and abs(x) != float("inf") else ""
    if isinstance(x, (list, tuple)):
        return ";".join(str(v) for v in x)
    return x


def table_csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """``header`` then one line per row; floats as they round-trip, missing values empty."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow([_cell(x) for x in r])
    return buf.getvalue()
