"""The canonical long row: which columns it has, what a valid score is, what a duplicate is.

One set of rules for every path that turns rows into results: the pandas path
(:func:`._long.matrix_from_long`, ``rt.read``) and the store's ingest (pandas chunks and the
DuckDB SQL checks of :mod:`.store.ingest`). A rule lives here once, as a function for pandas
and, where the store checks it in SQL, as the SQL text derived from the same constants.

A canonical row has ``model, item, score`` (required), and ``task, run, condition, metric,
group, doc_hash`` where known. A score is a finite number in [0, 1]. Two rows with the same
:data:`KEY` are a duplicate. One item id carries one content hash (``doc_hash``) in every file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from ..errors import DataError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

REQUIRED = ("model", "item", "score")
# the key of one result: a second row with the same key is a duplicate (the store fills task, run,
# condition and metric with defaults when the input has none)
KEY = ("task", "model", "item", "run", "condition", "metric")
SCORE_RANGE = (0.0, 1.0)
DUPLICATE_ADVICE = "or add a 'run' column if these are repeats"


def missing_columns(source: str | None, need: Sequence[str], found: Sequence[str]) -> DataError:
    """The one "missing model/item/score column" error."""
    src = f"{source}: " if source else ""
    return DataError(
        f"{src}missing column(s) {', '.join(repr(c) for c in need)}; found columns "
        f"{', '.join(repr(str(c)) for c in list(found)[:12])}. A long table needs model, item and score "
        "columns (rename them, or name them with `model`, `item` and `score`)", param="model",
        code="missing_columns", data={"source": source, "missing": list(need), "found": [str(c) for c in found]}
    )


def looks_like_percent(lo: float, hi: float) -> bool:
    """Scores outside [0, 1] that all lie in [0, 100]: percentages, not fractions."""
    return lo >= 0 and hi <= 100 and hi < HUGE


def duplicate_key(rows: tuple[int, int], key: dict[str, Any]) -> str:
    """The duplicate-key sentence: ``rows a and b: duplicate row for model ..., item ..., run ... (task, metric)``."""
    what = f"model {key['model']!r}, item {key['item']!r}, run {key['run']!r}"
    ctx = ", ".join(f"{k} {key[k]!r}" for k in ("task", "metric") if k in key)
    return (f"rows {rows[0]} and {rows[1]}: duplicate row for {what}{f' ({ctx})' if ctx else ''}; "
            f"keep one row per key, {DUPLICATE_ADVICE}")


def check_doc_hash(df: "pd.DataFrame") -> None:
    """The same item id must carry the same content hash in every file (lm-eval ``doc_hash``)."""
    keys = [c for c in ("task", "item") if c in df.columns]
    h = df[keys + ["doc_hash"]].dropna()
    n = h.groupby(keys, sort=False)["doc_hash"].nunique()
    bad = n[n > 1]
    if len(bad):
        key = bad.index[0]
        item = key[-1] if isinstance(key, tuple) else key
        raise DataError(
            f"item {item!r} has different content hashes (doc_hash) in different files: the files score "
            f"different questions under one id ({len(bad)} such items); check that they come from the same "
            "dataset version, or pair them by content with `item`='doc_hash'"
        )


# ---------------------------------------------------------------- the same rules in SQL (the store)
def sql_invalid_row(score: str = "score") -> str:
    """SQL predicate: a row with a missing key column or a score that is not a finite number."""
    return " OR ".join([f"{score} IS NULL", f"isnan({score})", f"isinf({score})"]
                       + [f"{c} IS NULL" for c in KEY])


def sql_out_of_range(score: str = "score") -> str:
    """SQL predicate: a score outside :data:`SCORE_RANGE`."""
    lo, hi = SCORE_RANGE
    return f"{score} < {lo:g} OR {score} > {hi:g}"


GROUP_GUESSES = ("subject", "group", "category", "cluster")


def resolve_group_col(cols: list[str], group: str | None, source: str | None) -> str | None:
    """The item-group column: ``None`` = auto-detect (subject, group, ...), ``""`` = none."""
    if group is None:
        return next((g for g in GROUP_GUESSES if g in cols), None)
    if group == "":
        return None
    if group not in cols:
        src = f"{source}: " if source else ""
        raise DataError(f"{src}no group column {group!r}; found {', '.join(map(repr, list(cols)[:12]))}")
    return group


def row_where(source: str | None, row: Any, line_offset: int | None) -> str:
    src = f"{source}: " if source else ""
    if line_offset is not None:
        return f"{src}line {int(row) + line_offset}"
    return f"{src}row {row}"


def row_data(source: str | None, row: Any, line_offset: int | None) -> dict[str, Any]:
    """What :func:`row_where` names, as an error's data: ``{"source", "line"}`` or ``{"source", "row"}``."""
    if line_offset is not None:
        return {"source": source, "line": int(row) + line_offset}
    return {"source": source, "row": int(row) if isinstance(row, (int, np.integer)) else str(row)}


# a score this far from [0, 1] is not a rescaling slip but a broken value (-1e308, 1e30 ...)
HUGE = 1e6


def check_scale(scale: "float | str | Sequence[float] | None") -> tuple[float, float] | None:
    """``scale`` as the score range ``(lo, hi)`` that maps onto [0, 1]: a number ``S`` is the range 0..S (100 for
    percentages), a pair or the text ``'lo,hi'`` any other (``'-1,1'`` for right / abstained / wrong as +1 / 0 / -1)."""
    if scale is None:
        return None
    bad = DataError(f"`scale` must be a positive number, the largest possible score (100 for percentages), or the "
                    f"score range 'MIN,MAX' (e.g. '-1,1'), got {scale!r}", param="scale")
    parts: Any = scale
    if isinstance(scale, str):
        parts = [p for p in scale.replace(":", ",").split(",")]
        if len(parts) == 1:
            parts = parts[0]
    try:
        if isinstance(parts, (list, tuple)):
            if len(parts) != 2:
                raise bad
            lo, hi = float(parts[0]), float(parts[1])
        else:
            lo, hi = 0.0, float(parts)
    except (TypeError, ValueError):
        raise bad from None
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo:
        raise bad
    return lo, hi


def scale_text(rng: "tuple[float, float]") -> str:
    """The ``scale`` value as a user writes it: ``100`` (a largest score) or ``'-1,1'`` (a range)."""
    lo, hi = rng
    return f"{hi:g}" if lo == 0 else f"'{lo:g},{hi:g}'"


def check_range(
    vals: np.ndarray, df: "pd.DataFrame", source: str | None, line_offset: int | None,
    scale: "tuple[float, float] | float | None", model: str = "model",
    place: "Callable[[int], tuple[str, dict[str, Any]]] | None" = None,
) -> None:
    """Scores must be fractions in [0, 1]: refuse percentages, judge scales and huge values, naming the row
    (or what ``place(k)`` names the ``k``-th value: its text and data, for a wide table's model column and item)."""
    outside = (vals < 0) | (vals > 1)
    if not outside.any():
        return
    rng = check_scale(scale)
    n = int(outside.sum())
    huge = np.abs(vals) > HUGE
    k = int(np.flatnonzero(huge)[0]) if huge.any() else int(np.flatnonzero(outside)[0])
    if place is not None:
        where, at = place(k)
    else:
        where, at = row_where(source, df.index[k], line_offset), row_data(source, df.index[k], line_offset)
    who = f" for model {df.iloc[k].get(model, '?')!r}" if model in df.columns else ""
    lo, hi = float(np.min(vals)), float(np.max(vals))
    scaled = f" after `scale`={scale_text(rng)}" if rng is not None else ""
    # the data: where, the value and the range; ``reason`` is the message without its place (for a caller that
    # names the place its own way)
    data = {**at, "value": float(vals[k]), "count": n, "low": lo, "high": hi,
            "scale": None if rng is None else list(rng)}
    if huge.any():
        why = (f"score {vals[k]:g}{who}{scaled} is far outside [0, 1]; it looks like a broken value, not a score "
               f"({n} such rows; scores range from {lo:g} to {hi:g}). Scores must be fractions in [0, 1]: fix or drop "
               "these rows")
        raise DataError(f"{where}: {why}", code="score_broken", data={**data, "reason": why})
    if rng is not None:
        hint = f"check the `scale` value: {scale_text(rng)} does not cover these scores"
    elif lo < 0:
        hint = ("scores below 0 need their range declared: `scale`='MIN,MAX' maps MIN..MAX onto 0..1 (right / "
                "abstained / wrong scored +1 / 0 / -1: `scale`='-1,1')")
    elif looks_like_percent(lo, hi):
        hint = "these look like percentages: divide by 100 or pass `scale`=100"
    else:
        hint = ("scores must be fractions in [0, 1] (0/1 correct, or a partial credit); declare the range the "
                "scores are on with `scale`='MIN,MAX' (`scale`='1,10' for a 1-10 grade)")
    why = (f"score {vals[k]:g}{who}{scaled} is outside [0, 1] ({n} such rows; scores range from {lo:g} to {hi:g}); "
           f"{hint}")
    raise DataError(f"{where}: {why}", param="scale", code="score_out_of_range", data={**data, "reason": why})


def numeric_scores(
    df: "pd.DataFrame", score: str, source: str | None, line_offset: int | None,
    scale: "float | str | Sequence[float] | None" = None, model: str = "model",
) -> np.ndarray:
    """The score column as floats, checked: numbers, no NaN, finite, in [0, 1] (after mapping the ``scale``
    range onto [0, 1]: ``(x - lo) / (hi - lo)``)."""
    vals = parse_scores(df, score, source, line_offset)
    rng = check_scale(scale)
    if rng is not None:
        lo, hi = rng
        vals = (vals - lo) / (hi - lo)
    check_range(vals, df, source, line_offset, rng, model)
    return vals


def parse_scores(
    df: "pd.DataFrame", score: str, source: str | None, line_offset: int | None
) -> np.ndarray:
    import pandas as pd

    col = df[score]
    if col.dtype == bool:
        return col.to_numpy(dtype=np.float64)
    vals = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.isnan(vals) & col.notna().to_numpy()
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"{row_where(source, df.index[k], line_offset)}: score {col.iloc[k]!r} is not a number; "
            f"column {score!r} must hold numbers ({int(bad.sum())} such rows)", code="score_not_number",
            data={**row_data(source, df.index[k], line_offset), "value": col.iloc[k], "column": score,
                  "count": int(bad.sum())})
    nan = np.isnan(vals)
    if nan.any():
        k = int(np.flatnonzero(nan)[0])
        raise DataError(
            f"{row_where(source, df.index[k], line_offset)}: score is missing (NaN) for model "
            f"{df.iloc[k].get('model', '?')!r}; give every row a score, or leave the row out "
            f"({int(nan.sum())} such rows)", code="score_missing",
            data={**row_data(source, df.index[k], line_offset), "count": int(nan.sum())})
    inf = np.isinf(vals)
    if inf.any():
        k = int(np.flatnonzero(inf)[0])
        raise DataError(
            f"{row_where(source, df.index[k], line_offset)}: score {vals[k]} is infinite; "
            "scores must be finite numbers", code="score_infinite",
            data={**row_data(source, df.index[k], line_offset), "value": float(vals[k])})
    return vals
