"""Long and wide tables -> ScoreMatrix, with validation that names the row or item."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from ..errors import DataError, warn
from ..results import Note
from ._canonical import (DUPLICATE_ADVICE, check_scale, missing_columns, numeric_scores, resolve_group_col, row_data,
                         row_where)
from ._canonical import check_range as _check_range

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import pyarrow as pa

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
    c_codes = _codes(df[condition]) if condition is not None else None
    k_pos, k_order = run_key((r_pos, r_order), c_codes)
    g_codes = _codes(df[group]) if group is not None else None

    data = scatter(vals, m_pos, i_pos, k_pos, len(m_order), len(i_order), len(k_order))
    groups = item_groups(g_codes, i_pos, len(i_order)) if data is not None and g_codes is not None else None
    if data is None or (g_codes is not None and groups is None):
        warn_similar_names(list(m_order), "model", source)
    if data is None:
        n_i, n_k = len(i_order), len(k_order)
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
    if g_codes is not None and groups is None:
        g_pos, g_order = g_codes
        g_item, k = _group_of_items(g_pos, i_pos, len(i_order))
        raise DataError(
            f"{row_where(source, df.index[k], line_offset)}: item {i_order[i_pos[k]]!r} is in group "
            f"{g_order[g_pos[k]]!r} here but {g_order[g_item[i_pos[k]]]!r} elsewhere; each item needs one {group!r}"
        )
    del m_pos, i_pos, k_pos, r_pos, vals, c_codes, g_codes   # the per-row arrays are not held while the matrix is made
    return assemble(cls, data, m_order, i_order, k_order, condition is not None, groups, source, warned=False)


def run_key(r: "tuple[np.ndarray, list[str]]", c: "tuple[np.ndarray, list[str]] | None",
            ) -> tuple[np.ndarray, list[str]]:
    """The run axis's codes and keys: the run's own without a condition column, else the (condition, run) pairs
    in first-seen order, each key the condition and the run joined by a unit separator (0x1f)."""
    r_pos, r_order = r
    if c is None:
        return r_pos, r_order
    c_pos, c_order = c
    k_pos, k_first = _codes_of_ints(c_pos.astype(np.int64) * len(r_order) + r_pos)
    return k_pos, [f"{c_order[int(v) // len(r_order)]}\x1f{r_order[int(v) % len(r_order)]}" for v in k_first]


def scatter(vals: np.ndarray, m_pos: np.ndarray, i_pos: np.ndarray, k_pos: np.ndarray, n_m: int, n_i: int,
            n_k: int) -> np.ndarray | None:
    """The dense ``(models, items, runs)`` array with each row's score at its codes, NaN elsewhere; None when two
    rows share a cell (scores are never NaN here: fewer filled cells than rows means a repeated key)."""
    data = np.full((n_m, n_i, n_k), np.nan)
    data[m_pos, i_pos, k_pos] = vals
    if int(np.count_nonzero(~np.isnan(data))) != len(vals):
        return None
    return data


def _first_rows(i_pos: np.ndarray, n_i: int) -> np.ndarray:
    """The first row of each item code (every code in ``range(n_i)`` occurs)."""
    first_pos = np.full(n_i, -1, dtype=np.int64)
    rev = np.arange(len(i_pos))[::-1]
    first_pos[i_pos[rev]] = rev
    return first_pos


def _group_of_items(g_pos: np.ndarray, i_pos: np.ndarray, n_i: int) -> tuple[np.ndarray, int | None]:
    """Each item's group code (that of its first row) and the first row whose group is not its item's (None when
    every item's rows name one group)."""
    g_item = g_pos[_first_rows(i_pos, n_i)]
    bad = np.flatnonzero(g_pos != g_item[i_pos])
    return g_item, (int(bad[0]) if len(bad) else None)


def item_groups(g: "tuple[np.ndarray, list[str]]", i_pos: np.ndarray, n_i: int) -> tuple[str, ...] | None:
    """Each item's group label (the group of its first row); None when an item's rows name two groups."""
    g_pos, g_order = g
    g_item, conflict = _group_of_items(g_pos, i_pos, n_i)
    if conflict is not None:
        return None
    return tuple(g_order[int(c)] for c in g_item)


def assemble(cls: type["ScoreMatrix"], data: np.ndarray, m_order: list[str], i_order: list[str],
             k_order: list[str], conditions: bool, groups: tuple[str, ...] | None, source: str | None, *,
             warned: bool = True, provenance: dict | None = None) -> "ScoreMatrix":
    """The matrix of a checked dense array and its labels (run keys as :func:`run_key` makes them), with the
    mixed-scoring note; ``warned=False``: the similar-names warning is said here."""
    if not warned:
        warn_similar_names(list(m_order), "model", source)
    notes = mixed_scale_notes(data, list(m_order))
    if conditions:
        run_labels = [k.split("\x1f", 1)[1] for k in k_order]
        cond_labels = [k.split("\x1f", 1)[0] for k in k_order]
        # run labels need to be unique on the axis: prefix with condition
        run_axis = [f"{c}/{r}" for c, r in zip(cond_labels, run_labels)]
        cond: tuple[str, ...] | None = tuple(cond_labels)
    else:
        run_axis = [str(k) for k in k_order]
        cond = None
    return cls(data, tuple(m_order), tuple(i_order), runs=tuple(run_axis), groups=groups, conditions=cond,
               source=source, notes=notes, **({"provenance": provenance} if provenance is not None else {}))


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
    """What a reader sees of a name: NFKC-normalised (``é`` written as one character or as ``e`` and a combining
    accent, full-width letters), invisible format characters dropped, runs of whitespace and control characters
    as one space, case folded."""
    if name.isascii() and name.isprintable():   # nothing for NFKC or the control characters to change
        return " ".join(name.split()).casefold()
    import unicodedata

    text = unicodedata.normalize("NFKC", name)
    text = "".join(" " if unicodedata.category(c) == "Cc" else c for c in text if unicodedata.category(c) != "Cf")
    return " ".join(text.split()).casefold()


def warn_similar_names(names: Sequence[str], what: str = "model", source: str | None = None, *,
                       stacklevel: int = 3) -> None:
    """Warn (``similar_names``) when labels that are kept apart would look the same to a reader: they differ only by
    case, whitespace, control characters or Unicode form ('Model A', 'model a', 'Model A ', 'é' and 'e' + U+0301).
    Each name is shown with ``ascii()``, so two that look the same are printed differently."""
    groups: dict[str, list[str]] = {}
    for n in map(str, names):
        groups.setdefault(_name_key(n), []).append(n)
    clash = [g for g in groups.values() if len(g) > 1]
    if not clash:
        return
    src = f"{source}: " if source else ""
    shown = "; ".join(" vs ".join(ascii(n) for n in g) for g in clash[:3])
    more = f" (and {len(clash) - 3} more groups)" if len(clash) > 3 else ""
    warn(f"{src}{what} names that differ only by case, whitespace or Unicode form: {shown}{more}; they are kept as "
         f"different {what}s. Rename them if they are the same {what}", code="similar_names",
         data={"source": source, "what": what, "groups": clash}, stacklevel=stacklevel)


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


# ---------------------------------------------------------------- an Arrow table straight to a matrix
def arrow_codes(col: "pa.ChunkedArray", empty: bool = True) -> tuple[np.ndarray, list[str]] | None:
    """Integer codes of an Arrow label column and its labels as text, in first-seen order, as :func:`_codes`
    gives for the same column read into pandas (the column as Arrow casts it to text). The codes come from the
    column's dictionary (a Parquet column read with ``read_dictionary``) or one ``dictionary_encode`` pass: no
    Python string per row. None when a label is missing (null), or empty where ``empty`` is False (a CSV cell
    read as missing by the pandas path): the pandas path names the row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if col.null_count:
        return None
    if not pa.types.is_dictionary(col.type):
        if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
            col = pc.cast(col, pa.string())
        col = col.dictionary_encode()
    if col.num_chunks == 0:
        return None
    col = col.unify_dictionaries()
    values = col.chunk(0).dictionary
    if values.null_count:
        return None
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        values = pc.cast(values, pa.string())
    n_dict = len(values)
    codes = np.empty(len(col), dtype=np.int32 if n_dict < 2**31 else np.int64)
    at = 0
    for ch in col.chunks:
        idx = ch.indices.to_numpy(zero_copy_only=False)
        codes[at:at + len(idx)] = idx
        at += len(idx)
    # first-seen order of the dictionary's entries (a file's dictionary may be in any order), block by block:
    # a column sorted by its labels sees a new one in every block, another column sees them all in the first
    n = len(codes)
    first = np.full(n_dict, n, dtype=np.int64)
    left = n_dict
    block = 1 << 20
    for start in range(0, n, block):
        blk = codes[start:start + block]
        pos = np.full(n_dict, len(blk), dtype=np.int64)
        pos[blk[::-1]] = np.arange(len(blk) - 1, -1, -1)
        new = (pos < len(blk)) & (first == n)
        if new.any():
            first[new] = pos[new] + start
            left -= int(np.count_nonzero(new))
            if left == 0:
                break
    present = np.flatnonzero(first < n)
    order = present[np.argsort(first[present], kind="stable")]
    text = values.take(pa.array(order)).to_pylist()
    if not empty and "" in text:
        return None
    remap = np.empty(n_dict, dtype=codes.dtype)
    remap[order] = np.arange(len(order), dtype=codes.dtype)
    codes = remap[codes]
    if len(set(text)) < len(text):   # two dictionary entries with the same text (a cast): one label, as _codes
        import pandas as pd

        merged, uniq = pd.factorize(pd.Index(text, dtype=object), sort=False)
        codes = merged.astype(codes.dtype)[codes]
        text = [str(t) for t in uniq]
    return codes, text


def arrow_scores(col: "pa.ChunkedArray", scale: "float | str | Sequence[float] | None") -> np.ndarray | None:
    """The score column as float64, mapped by ``scale`` as :func:`numeric_scores` maps it; None unless every score is
    a number that ends up finite and in [0, 1] (the pandas path says what is wrong and where)."""
    import pyarrow as pa

    t = col.type
    if col.null_count or not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)) \
            or pa.types.is_float16(t):
        return None
    # the column's own values cast to float64 by NumPy, chunk by chunk: what pandas' to_numeric(...).to_numpy(float64)
    # does with the whole column
    vals = np.empty(len(col), dtype=np.float64)
    at = 0
    for ch in col.chunks:
        vals[at:at + len(ch)] = ch.to_numpy(zero_copy_only=False)
        at += len(ch)
    if not np.isfinite(vals).all():
        return None
    rng = check_scale(scale)
    if rng is not None:
        lo, hi = rng
        vals = (vals - lo) / (hi - lo)
    if ((vals < 0) | (vals > 1)).any():
        return None
    return vals


def matrix_from_arrow(
    cls: type["ScoreMatrix"],
    columns: "dict[str, pa.ChunkedArray]",
    *,
    model: str,
    item: str,
    score: str,
    group: str | None = None,
    run: str | None = None,
    condition: str | None = None,
    source: str | None = None,
    scale: float | None = None,
    empty_labels: bool = True,
    provenance: "Callable[[list[str]], dict] | None" = None,
) -> "ScoreMatrix | None":
    """The matrix :func:`matrix_from_long` makes of the same rows read into pandas (the same labels, order and
    values), made from the label codes of an Arrow table's ``columns`` (by name) without a pandas DataFrame or a
    Python string per row; each column is dropped from ``columns`` once read (its memory freed where nothing else
    holds it). None when a row needs one of the pandas path's one-line errors (a
    missing label or score, a score that is not a finite number in [0, 1], a repeated key, an item in two
    groups; an empty label unless ``empty_labels``): the caller then reads the file the pandas way, which names
    the row. ``provenance``: the matrix's provenance made from its models."""
    n = len(columns[score])
    if n == 0:
        return None
    vals = arrow_scores(columns.pop(score), scale)
    if vals is None:
        return None
    labels = {}
    for c in dict.fromkeys(x for x in (model, item, run, condition, group) if x is not None):
        got = arrow_codes(columns.pop(c), empty_labels)
        if got is None:
            return None
        labels[c] = got
    m_pos, m_order = labels[model]
    i_pos, i_order = labels[item]
    r = labels[run] if run is not None else (np.zeros(1, dtype=np.int32), ["0"])   # (broadcast over the rows)
    k_pos, k_order = run_key(r, labels[condition] if condition is not None else None)
    data = scatter(vals, m_pos, i_pos, k_pos, len(m_order), len(i_order), len(k_order))
    if data is None:
        return None
    groups = None
    if group is not None:
        groups = item_groups(labels[group], i_pos, len(i_order))
        if groups is None:
            return None
    del m_pos, i_pos, k_pos, r, vals, labels
    return assemble(cls, data, m_order, i_order, k_order, condition is not None, groups, source, warned=False,
                    provenance=provenance(list(m_order)) if provenance is not None else None)
