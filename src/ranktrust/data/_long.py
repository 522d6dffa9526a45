"""Long and wide tables -> ScoreMatrix, with validation that names the row or item."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import DataError, warn
from ..results import Note
from ._canonical import DUPLICATE_ADVICE, missing_columns, numeric_scores, resolve_group_col, row_data, row_where
from ._canonical import check_range as _check_range

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ._matrix import ScoreMatrix

def _duplicate_across_files(
    df: "pd.DataFrame", order: np.ndarray, dup: np.ndarray, models_col: np.ndarray, items_col: np.ndarray,
    runs_col: np.ndarray | None, source: str | None,
) -> None:
    """Raise when duplicate rows come from two different files (the ``source`` column).

    ``order[dup]`` and ``order[dup + 1]`` are the row positions of each duplicate pair.
    Returns quietly when every duplicate pair lies within one file.
    """
    import os

    src_col = df["source"].astype(str).to_numpy()
    a, b = order[dup], order[dup + 1]
    cross = np.flatnonzero(src_col[a] != src_col[b])
    if cross.size == 0:
        return
    first, second = sorted((int(a[cross[0]]), int(b[cross[0]])))
    fa, fb = src_col[first], src_col[second]
    na, nb = os.path.basename(fa), os.path.basename(fb)
    if na == nb:  # same file name in two folders: show the paths
        na, nb = fa, fb
    what = f"model {models_col[first]!r}, item {items_col[first]!r}"
    if runs_col is not None:
        what += f", run {runs_col[first]!r}"
    pairs = {tuple(sorted(p)) for p in zip(src_col[a[cross]], src_col[b[cross]])}
    more = f" ({cross.size} such rows" + (f", across {len(pairs)} pairs of files)" if len(pairs) > 1 else ")")
    src = f"{source}: " if source else ""
    raise DataError(
        f"{src}{what} appears in both {na} and {nb}: the same run logged twice? pass only one of them{more}",
        code="duplicate_across_files", data={"source": source, "files": [fa, fb], "model": models_col[first],
                                             "item": items_col[first], "count": int(cross.size)})


def matrix_from_long(
    cls: type["ScoreMatrix"],
    df: "pd.DataFrame",
    *,
    model: str = "model",
    item: str = "item",
    score: str = "score",
    group: str | None = None,
    run: str | None = None,
    condition: str | None = None,
    source: str | None = None,
    line_offset: int | None = None,
    scale: float | None = None,
) -> "ScoreMatrix":
    src = f"{source}: " if source else ""
    if len(df) == 0:
        raise DataError(f"{src}the table has no rows; expected one row per (model, item) with a score")
    cols = [str(c) for c in df.columns]
    need = [c for c in (model, item, score) if c not in cols]
    if need:
        raise missing_columns(source, need, cols)
    group = resolve_group_col(cols, group, source)
    if run is None and "run" in cols:
        run = "run"
    if condition is None and "condition" in cols:
        condition = "condition"
    for c, what in ((run, "run"), (condition, "condition")):
        if c is not None and c not in cols:
            raise DataError(f"{src}no {what} column {c!r}; found {', '.join(map(repr, cols[:12]))}")

    for c in (model, item):
        nulls = df[c].isna().to_numpy()
        if nulls.any():
            k = int(np.flatnonzero(nulls)[0])
            raise DataError(f"{row_where(source, df.index[k], line_offset)}: the {c!r} column is empty; every row needs {'an' if c[:1] in 'aeiou' else 'a'} {c}")

    vals = numeric_scores(df, score, source, line_offset, scale, model)
    # integer codes of the labels (one hash pass each, first-seen order), never a string array per row:
    # a 1,000 x 14,000 long file is 14 million rows
    m_pos, m_order = _codes(df[model])
    i_pos, i_order = _codes(df[item])
    if run is not None:
        if df[run].isna().any():
            k = int(np.flatnonzero(df[run].isna().to_numpy())[0])
            raise DataError(f"{row_where(source, df.index[k], line_offset)}: the {run!r} column is empty")
        r_pos, r_order = _codes(df[run])
    else:
        r_pos, r_order = np.zeros(len(df), dtype=np.intp), ["0"]
    if condition is not None:
        # run-axis key: (condition, run) pairs, in first-seen order
        c_pos, c_order = _codes(df[condition])
        k_pos, k_first = _codes_of_ints(c_pos.astype(np.int64) * len(r_order) + r_pos)
        k_order = [f"{c_order[int(v) // len(r_order)]}\x1f{r_order[int(v) % len(r_order)]}" for v in k_first]
    else:
        k_pos, k_order = r_pos, r_order
    warn_similar_names(list(m_order), "model", source)

    n_m, n_i, n_k = len(m_order), len(i_order), len(k_order)
    data = np.full((n_m, n_i, n_k), np.nan)
    data[m_pos, i_pos, k_pos] = vals
    # scores are never NaN here (numeric_scores): fewer filled cells than rows means a repeated key
    if int(np.count_nonzero(~np.isnan(data))) != len(df):
        models_col = np.asarray(m_order, dtype=object)[m_pos]
        items_col = np.asarray(i_order, dtype=object)[i_pos]
        runs_col = np.asarray(r_order, dtype=object)[r_pos]
        flat = (m_pos.astype(np.int64) * n_i + i_pos) * n_k + k_pos
        order = np.argsort(flat, kind="stable")
        dup = np.flatnonzero(np.diff(flat[order]) == 0)
        a, b = order[dup[0]], order[dup[0] + 1]
        first, second = sorted((int(a), int(b)))
        what = f"model {models_col[first]!r}, item {items_col[first]!r}"
        if run is not None:
            what += f", run {runs_col[first]!r}"
        if "source" in cols and "source" not in (model, item, score, group, run, condition):
            _duplicate_across_files(df, order, dup, models_col, items_col, runs_col if run is not None else None,
                                    source)
        conflict = (f" with a different score ({vals[first]:g} there, {vals[second]:g} here)"
                    if vals[first] != vals[second] else "")
        raise DataError(
            f"{row_where(source, df.index[second], line_offset)}: duplicate row for {what} "
            f"(first at {row_where(None, df.index[first], line_offset)}){conflict}; {dup.size} duplicate rows in all. "
            "Keep one row per (model, item" + (", run" if run is not None else "") + f"), {DUPLICATE_ADVICE}",
            code="duplicate_row", data={**row_data(source, df.index[second], line_offset),
                                        "first": row_data(source, df.index[first], line_offset),
                                        "model": models_col[first], "item": items_col[first], "count": int(dup.size)})
    notes = mixed_scale_notes(data, list(m_order))

    groups = None
    if group is not None:
        g_pos, g_order = _codes(df[group])
        first_pos = np.full(n_i, -1, dtype=np.int64)
        # first row of each item
        rev = np.arange(len(df))[::-1]
        first_pos[i_pos[rev]] = rev
        g_item = g_pos[first_pos]
        conflict = g_pos != g_item[i_pos]
        if conflict.any():
            k = int(np.flatnonzero(conflict)[0])
            raise DataError(
                f"{row_where(source, df.index[k], line_offset)}: item {i_order[i_pos[k]]!r} is in group "
                f"{g_order[g_pos[k]]!r} here but {g_order[g_item[i_pos[k]]]!r} elsewhere; each item needs one {group!r}"
            )
        groups = tuple(g_order[int(c)] for c in g_item)
        del g_pos, first_pos, rev, conflict
    del m_pos, i_pos, k_pos, r_pos, vals   # the per-row arrays are not held while the matrix is made

    if condition is not None:
        run_labels = [k.split("\x1f", 1)[1] for k in k_order]
        cond_labels = [k.split("\x1f", 1)[0] for k in k_order]
        # run labels need to be unique on the axis: prefix with condition
        run_axis = [f"{c}/{r}" for c, r in zip(cond_labels, run_labels)]
        conditions: tuple[str, ...] | None = tuple(cond_labels)
    else:
        run_axis = [str(k) for k in k_order]
        conditions = None

    return cls(
        data,
        tuple(m_order),
        tuple(i_order),
        runs=tuple(run_axis),
        groups=groups,
        conditions=conditions,
        source=source,
        notes=notes,
    )


def _codes(col: "pd.Series") -> tuple[np.ndarray, list[str]]:
    """Integer codes of a label column and its labels as text, in first-seen order: ``labels[codes[r]]`` is
    ``str(col[r])``. One hash pass over the rows (``pandas.factorize``); values that read the same as text (``1``
    and ``"1"``) share a code, as the text labels they become."""
    import pandas as pd

    values = col.to_numpy() if col.dtype == object else None
    head = values[:10_000] if values is not None else None
    if head is not None and head.size > 1 and np.count_nonzero(head[1:] != head[:-1]) < head.size // 4:
        # Python strings in runs (a long file sorted by model): hash one value per run, not one per row
        starts = np.flatnonzero(np.concatenate([[True], values[1:] != values[:-1]]))
        codes, uniques = pd.factorize(values[starts], sort=False, use_na_sentinel=False)
        codes = np.repeat(codes, np.diff(np.append(starts, values.size)))
    else:
        codes, uniques = pd.factorize(col, sort=False, use_na_sentinel=False)
    text = [str(u) for u in (uniques.tolist() if hasattr(uniques, "tolist") else list(uniques))]
    if len(set(text)) < len(text):
        merged, first = pd.factorize(pd.Index(text, dtype=object), sort=False)
        codes = merged[codes]
        text = [str(t) for t in first]
    return np.asarray(codes, dtype=np.intp), text


def _codes_of_ints(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of integer keys in first-seen order, and the keys themselves in that order."""
    import pandas as pd

    codes, uniques = pd.factorize(v, sort=False)
    return np.asarray(codes, dtype=np.intp), np.asarray(uniques)


def mixed_scale_notes(data: np.ndarray, models: list[str]) -> tuple[Note, ...]:
    """A note when some models have only 0/1 scores and others fractional ones (two scoring schemes?): a record
    (``mixed_scoring``: the models of each kind) worded in reporting/."""
    finite = ~np.isnan(data)
    frac = finite & (data != 0) & (data != 1)
    has_frac = frac.reshape(len(models), -1).any(axis=1)
    if not has_frac.any() or has_frac.all():
        return ()
    # a model with a single scored cell says nothing about its scheme
    counts = finite.reshape(len(models), -1).sum(axis=1)
    binary = [m for m, f, c in zip(models, has_frac, counts) if not f and c > 1]
    cont = [m for m, f in zip(models, has_frac) if f]
    if not binary:
        return ()
    return (Note("mixed_scoring", {"binary": binary, "continuous": cont}),)


def _name_key(name: str) -> str:
    return " ".join(name.split()).casefold()


def warn_similar_names(names: list[str], what: str = "model", source: str | None = None) -> None:
    """Warn when labels differ only by case or whitespace ('Model A', 'model a', 'Model A ')."""
    groups: dict[str, list[str]] = {}
    for n in names:
        groups.setdefault(_name_key(n), []).append(n)
    clash = [g for g in groups.values() if len(g) > 1]
    if not clash:
        return
    src = f"{source}: " if source else ""
    shown = "; ".join(" vs ".join(repr(n) for n in g) for g in clash[:3])
    more = f" (and {len(clash) - 3} more groups)" if len(clash) > 3 else ""
    warn(f"{src}{what} names that differ only by case or whitespace: {shown}{more}; they are kept as different "
         f"{what}s. Rename them if they are the same {what}", code="similar_names",
         data={"source": source, "what": what, "groups": clash}, stacklevel=3)


def matrix_from_wide(
    cls: type["ScoreMatrix"],
    df: "pd.DataFrame",
    *,
    item: str | None = None,
    group: str | None = None,
    source: str | None = None,
) -> "ScoreMatrix":
    import pandas as pd

    src = f"{source}: " if source else ""
    if len(df) == 0:
        raise DataError(f"{src}the table has no rows; a wide table needs one row per item")
    if item is not None:
        if item not in df.columns:
            raise DataError(f"{src}no item column {item!r}")
        items = df[item].astype(str).tolist()
        df = df.drop(columns=[item])
    else:
        items = [str(i) for i in df.index]
    groups = None
    if group is not None:
        if group not in df.columns:
            raise DataError(f"{src}no group column {group!r}")
        groups = df[group].astype(str).tolist()
        df = df.drop(columns=[group])
    if df.shape[1] == 0:
        raise DataError(f"{src}no model columns in the wide table")
    cols = []
    for c in df.columns:
        v = pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(v) & df[c].notna().to_numpy()
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise DataError(
                f"{src}model column {c!r}, item {items[k]!r}: {df[c].iloc[k]!r} is not a number",
                code="score_not_number", data={"source": source, "model": str(c), "item": items[k],
                                               "value": df[c].iloc[k], "count": int(bad.sum())})
        if np.isinf(v).any():
            k = int(np.flatnonzero(np.isinf(v))[0])
            raise DataError(f"{src}model column {c!r}, item {items[k]!r}: score {v[k]} is infinite; scores must be "
                            "finite", code="score_infinite",
                            data={"source": source, "model": str(c), "item": items[k], "value": float(v[k])})
        fin = np.flatnonzero(~np.isnan(v))

        def place(k: int, c: object = c, fin: np.ndarray = fin) -> tuple[str, dict]:
            """The model column and item of the k-th scored cell (a wide table has no row to name)."""
            it = items[int(fin[k])]
            return f"{src}model column {c!r}, item {it!r}", {"source": source, "model": str(c), "item": it}

        _check_range(v[fin], df.iloc[fin], None, None, None, place=place)
        cols.append(v)
    data = np.vstack(cols)
    models = [str(c) for c in df.columns]
    warn_similar_names(models, "model", source)
    return cls(data, tuple(models), tuple(items), groups=groups, source=source,
               notes=mixed_scale_notes(data[:, :, None], models))
