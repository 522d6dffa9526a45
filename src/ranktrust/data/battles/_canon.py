"""The canonical battles table: its columns, the winner labels, the checks every format's rows pass.

One row per battle or judged game: ``model_a, model_b, score, winner, weight`` and, where the source
has them, ``cluster``, ``judge``, ``user``, ``turn`` and the style counts ``style_a_<feat>`` /
``style_b_<feat>``. Every format's parser builds these columns and hands them to :func:`finish`, which
checks them (one :class:`~ranktrust.errors.DataError` naming the file and row) and fixes their types.
Notes are structured records (``{"code": ..., ...}``) in ``DataFrame.attrs["notes"]``; sentences are
composed elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import DataError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: the columns, in order (``cluster`` and the optional ones only when the source has them)
COLUMNS = ("model_a", "model_b", "score", "winner", "weight")
OPTIONAL = ("cluster", "judge", "user", "turn")
STYLE_A, STYLE_B = "style_a_", "style_b_"
#: FastChat / LMArena ``conv_metadata`` keys -> the style feature name (a dict value is summed, as
#: FastChat's ``preprocess_for_style`` does: h1..h6, ordered + unordered, ** + __)
CONV_METADATA = (("sum_assistant_{}_tokens", "tokens"), ("header_count_{}", "headers"),
                 ("list_count_{}", "lists"), ("bold_count_{}", "bold"))

#: battle-table winner labels -> score of model_a (FastChat, arena-rank, Arena-Hard: a tie is half a win;
#: ``both_bad`` is arena-human-preference-140k's spelling of ``tie (bothbad)``)
WINNER_SCORES = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5, "both_bad": 0.5}


#: the one message for a per-item score table given where battles are expected
PER_ITEM = ("{source}: this is a per-item score table (columns {columns}), not battles: each row scores one model "
            "on one item, and renaming columns cannot make it pairs. Rank it with `rt.report` (scale 10 for 1-10 "
            "judge scores)")


def label_of(score: np.ndarray) -> Any:
    """The label a score stands for: 1 'model_a', 0 'model_b', 0.5 'tie', anything else '' (a probability);
    taken from the four labels by code (pandas' strings), not built row by row."""
    import pandas as pd

    k = np.full(len(score), 3, dtype=np.int64)
    k[score == 1.0] = 0
    k[score == 0.0] = 1
    k[score == 0.5] = 2
    return pd.Series(np.array(["model_a", "model_b", "tie", ""], dtype=object)).array.take(k)


@dataclass(frozen=True)
class Coded:
    """The integer codes :func:`finish` computed for the table it returned, so a caller that reads a file and
    rates it at once need not hash millions of names and prompt ids a second time.

    ``models``: the distinct model names, sorted; ``a``, ``b``: per row, the position of model_a and model_b
    in ``models``; ``cluster``: per row, the prompt id's code in the order of first appearance of its text (as
    ``factorize`` of the ``cluster`` column gives), None without prompt ids; ``n_clusters``: its distinct
    count."""

    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    cluster: np.ndarray | None
    n_clusters: int


@dataclass(frozen=True)
class BattleOptions:
    """The options every battles reader receives (a reader ignores those that do not apply):
    ``weight_strong`` the weight of a strong verdict (1 = none; Arena-Hard's 3), ``baseline`` the baseline of
    Arena-Hard v0.1 judgments, ``prompt`` a table's prompt-id column (None: guessed; ``""``: none);
    ``text`` False when the caller rates from the codes and never reads the label columns (``finish``'s
    ``text``; a reader may ignore it and write them)."""

    weight_strong: float = 1.0
    baseline: str | None = None
    prompt: str | None = None
    text: bool = True


@dataclass(frozen=True)
class BattleTable:
    """What a battles reader returns for one source: the canonical ``table`` (notes in ``table.attrs["notes"]``)
    and the integer ``codes`` :func:`finish` computed on the way (None for a table stacked from several
    sources), which ``rt.arena`` rates from without hashing millions of names and prompt ids again."""

    table: "pd.DataFrame"
    codes: Coded | None = None


@dataclass(frozen=True)
class Where:
    """How to name row ``i`` of one source in an error: ``<file>: line 12`` / ``record 3`` / ``row 7``."""

    source: str                       # the file path, or "`battles`" for a DataFrame
    kind: str = "row"                 # "line" (JSONL, CSV with its header), "record" (JSON array), "row"
    numbers: Any = None               # per-row numbers (JSONL line numbers, DataFrame index labels)
    offset: int = 1                   # else row i is number i + offset

    def at(self, i: int) -> str:
        num = self.numbers[i] if self.numbers is not None else int(i) + self.offset
        return f"{self.source}: {self.kind} {num}"


@dataclass(frozen=True)
class Labels:
    """A label column factorised once: ``codes`` into ``text`` (each distinct value as written), -1 where missing.

    Every check and conversion runs on the few distinct values, not on the millions of rows (pandas'
    Arrow strings are slow to convert element by element). Whole-number ids (prompt ids) keep their numbers
    (``ids``): their texts are made by Arrow, per row in one cast, and ``text`` only when asked for."""

    codes: np.ndarray
    text_: Any                # object array of str; None when ``ids`` is set (``text`` makes it then)
    missing: np.ndarray       # per row: None, NaN or blank text
    source: Any = None        # the column itself, when its values are already these texts (str, none missing)
    distinct: bool = False    # the texts are known to differ from each other (whole-number ids)
    ids: np.ndarray | None = None   # the distinct values as int64, when they are whole numbers

    @property
    def text(self) -> np.ndarray:
        """The distinct values as text (object array of str), in code order."""
        if self.text_ is None:   # made on each call: only messages and integer model names ask for it
            import pyarrow as pa

            return pa.array(self.ids).cast(pa.string()).to_numpy(zero_copy_only=False).astype(object, copy=False)
        return self.text_

    @classmethod
    def of(cls, values: Any) -> "Labels":
        import pandas as pd

        if isinstance(values, pd.Series) and isinstance(values.dtype, np.dtype) and values.dtype.kind in "iu":
            dense = _dense_codes(values.to_numpy())
            if dense is not None:   # whole numbers in a compact range (prompt ids 0..N): no hashing
                return cls(dense[0], None, np.zeros(len(values), dtype=bool), None, distinct=True, ids=dense[1])
        codes, uniq = pd.factorize(pd.Series(values) if not isinstance(values, pd.Series) else values,
                                   use_na_sentinel=True)
        codes = np.asarray(codes, dtype=np.int64)
        missing = codes < 0
        ids = _integer_ids(uniq)
        if ids is not None:   # whole numbers (prompt ids): their decimal text, never blank
            return cls(codes, None, missing, None, distinct=True, ids=ids)
        uniq = np.asarray(uniq, dtype=object)          # one conversion, not one per element
        as_written = all(type(u) is str for u in uniq)
        text = uniq if as_written else np.array([_text(u) for u in uniq], dtype=object)
        blank = np.array([not t.strip() for t in text], dtype=bool)
        if blank.any():
            missing = missing | blank[np.maximum(codes, 0)] & (codes >= 0)
        keep = as_written and not (codes < 0).any() and isinstance(values, pd.Series)
        return cls(codes, text, missing, values.reset_index(drop=True) if keep else None)

    @classmethod
    def of_names(cls, values: Any) -> "Labels":
        """:meth:`of` for a column of model names, where the order of the codes does not matter (:func:`finish`
        codes the names again through their texts): a categorical column (a Parquet dictionary read as such)
        takes its own codes, its unused categories left out, without hashing a text per row; other columns as
        :meth:`of`. The texts, missing rows and ``source`` are those :meth:`of` gives; only the codes' order
        differs (the categories' order instead of the first appearance)."""
        import pandas as pd

        if not (isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype)):
            return cls.of(values)
        cats = np.asarray(values.cat.categories, dtype=object)
        if not all(type(u) is str for u in cats):   # numbers as names: as `of` writes them
            return cls.of(values)
        codes = values.cat.codes.to_numpy().astype(np.int64)
        missing = codes < 0
        keep = not missing.any()
        used = np.bincount(codes if keep else codes[~missing], minlength=len(cats)) > 0
        if not used.all():   # categories no row takes: left out, as factorize leaves them out
            new = np.cumsum(used) - 1
            codes = np.where(missing, -1, new[np.maximum(codes, 0)])
            cats = cats[used]
        blank = np.array([not t.strip() for t in cats], dtype=bool)
        if blank.any():
            missing = missing | blank[np.maximum(codes, 0)] & ~missing
        return cls(codes, cats, missing, values.reset_index(drop=True) if keep else None)

    def values(self) -> Any:
        """Per-row text (None where the cell was None or NaN): the column itself when it already is that."""
        if self.source is not None:
            return self.source
        if len(self.codes) and self.codes.min() >= 0:
            import pandas as pd

            if self.ids is not None:   # the numbers per row, cast to text by Arrow in one call
                import pyarrow as pa

                return pd.array(pa.array(self.ids[self.codes]).cast(pa.large_string()), dtype="str")
            # the distinct texts taken by code: with pandas' Arrow strings, no per-row text objects to convert
            return pd.Series(self.text).array.take(self.codes)
        return np.append(self.text, None)[self.codes]   # code -1 picks the appended None

    def text_codes(self) -> tuple[np.ndarray, int]:
        """(per row, the code of its text in the order of first appearance; the number of distinct texts), for
        a column with none missing: two values written alike (``1`` and ``"1"``) share a code, as when the
        texts themselves are factorized."""
        if self.distinct:
            return self.codes, int(self.codes.max(initial=-1)) + 1
        import pandas as pd

        # the distinct values are in the order of their first appearance, so their texts' codes are too
        merged, uniq = pd.factorize(pd.Series(self.text, dtype=object))
        return np.asarray(merged, dtype=np.int64)[self.codes], len(uniq)


def _dense_codes(v: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(codes, distinct values) of integers as ``pandas.factorize`` gives them (codes in the order of first
    appearance), by a table over their range instead of a hash table: for ids in a range at most a few times
    the number of rows; None otherwise (or when they do not fit int64)."""
    n = len(v)
    if not n:
        return None
    lo, hi = int(v.min()), int(v.max())
    if hi - lo > 4 * n + 1024 or hi >= 2**63:
        return None
    off = (v - lo if lo else v).astype(np.int64, copy=False)
    first = np.full(hi - lo + 1, n, dtype=np.int64)
    np.minimum.at(first, off, np.arange(n, dtype=np.int64))   # each value's first row
    is_first = np.zeros(n, dtype=bool)
    is_first[first[first < n]] = True
    order = off[is_first]                                       # the distinct values, first seen first
    rank = np.empty(hi - lo + 1, dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank[off], order + lo


def _integer_ids(uniq: Any) -> np.ndarray | None:
    """The distinct values as int64 when they are all whole numbers held as numbers (as :func:`_text` writes
    them: ``1.0`` is the id 1), else None."""
    arr = np.asarray(uniq)
    if arr.dtype.kind == "i" or (arr.dtype.kind == "u" and (not len(arr) or int(arr.max()) < 2**63)):
        return arr.astype(np.int64, copy=False)
    if arr.dtype.kind == "f" and len(arr) and bool(np.all(np.isfinite(arr))) \
            and float(np.abs(arr).max()) < 2.0**53 and bool(np.all(arr == np.round(arr))):
        return arr.astype(np.int64)
    return None


def _text(v: Any) -> str:
    # an integer-valued float from a numeric column (1.0) is the id 1; everything else as written
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def missing_text(values: "pd.Series") -> np.ndarray:
    """True where a label cell is missing: None, NaN or empty text."""
    return Labels.of(values).missing


def finish(df: "pd.DataFrame", where: Where, notes: list[dict[str, Any]], *, fmt: str,
           records: int | None = None, text: bool = True) -> BattleTable:
    """Check the canonical columns of one source and return the table with its notes and its codes.

    ``df`` holds :data:`COLUMNS` (``score`` and ``weight`` as floats, labels as objects) and any of
    :data:`OPTIONAL` and the style columns; its rows are positions ``0..n-1`` for ``where``.

    ``text=False``: for a caller that rates from the codes and never reads the label columns (``rt.arena``
    on one file): the ``cluster`` column is left as read (whole-number prompt ids stay numbers, not made
    text per row), ``winner`` may be absent (``df`` without it), and the model names may stay categorical.
    The checks, the notes and the codes are the same.
    """
    import pandas as pd

    n = len(df)
    if n == 0:
        raise DataError(f"{where.source}: no battles in this source (the file is empty or every record was "
                        "left out); give a file with one battle or judged game per row", param="source")
    a, b = Labels.of_names(df["model_a"]), Labels.of_names(df["model_b"])
    for lab, col in ((a, "model_a"), (b, "model_b")):
        if lab.missing.any():
            i = int(np.flatnonzero(lab.missing)[0])
            raise DataError(f"{where.at(i)}: {col} is missing ({int(lab.missing.sum())} such rows); every battle "
                            "names both models: fill it or drop the row", param="source")
    ta, tb = a.text, b.text
    joint = {t: k for k, t in enumerate(dict.fromkeys([*ta, *tb]))}
    # each row's two models as positions among the sorted names: the distinct texts mapped first, one gather per side
    names = sorted(joint)
    pos = np.empty(len(joint), dtype=np.int64)
    pos[[joint[t] for t in names]] = np.arange(len(names))
    ja = pos[np.array([joint[t] for t in ta], dtype=np.int64)][a.codes]
    jb = pos[np.array([joint[t] for t in tb], dtype=np.int64)][b.codes]
    same = ja == jb
    if same.any():
        i = int(np.flatnonzero(same)[0])
        raise DataError(f"{where.at(i)}: model_a and model_b are both {a.text[a.codes[i]]!r}, a model against "
                        f"itself ({int(same.sum())} such rows); a self-battle says nothing about the ranking: drop "
                        "these rows (Arena-Hard writes the baseline judged against itself this way)", param="source")
    score = np.asarray(df["score"], dtype=np.float64)
    bad = ~np.isfinite(score) | (score < 0) | (score > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"{where.at(i)}: score {score[i]:g} is not a number in [0, 1] (1 = model_a wins, 0 = "
                        f"model_b wins, 0.5 = tie; {int(bad.sum())} such rows); fix or drop the row", param="source")
    weight = np.asarray(df["weight"], dtype=np.float64)
    bad = ~np.isfinite(weight) | (weight <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"{where.at(i)}: weight {weight[i]:g} is not a positive number ({int(bad.sum())} such "
                        "rows); a battle's weight must be > 0: fix it, or drop the row to leave the battle out",
                        param="source")
    hi, lo = int(np.argmax(weight)), int(np.argmin(weight))
    if weight[hi] > 1e150 or weight[hi] > 1e12 * weight[lo]:
        raise DataError(f"{where.at(hi)}: weight {weight[hi]:g} is "
                        + ("too large to compute with (its square overflows); weights are relative: divide them all "
                           "by the same number" if weight[hi] > 1e150 else
                           f"more than 1e12 times the smallest ({weight[lo]:g}); weights this far apart leave the "
                           "small ones without any effect on the sums: check the column"), param="source")
    out = {"model_a": a.values(), "model_b": b.values(), "score": score}
    if text or "winner" in df.columns:
        wcol = df["winner"]
        if isinstance(wcol.dtype, pd.StringDtype) and not wcol.hasnans:   # labels as text already (none missing)
            out["winner"] = wcol.reset_index(drop=True)
        else:
            win = Labels.of(wcol)
            out["winner"] = win.values() if win.source is not None else np.append(win.text, "")[win.codes]
    out["weight"] = weight
    cl = None
    if "cluster" in df.columns:
        cl = Labels.of(df["cluster"])
        if cl.missing.any():
            i = int(np.flatnonzero(cl.missing)[0])
            raise DataError(f"{where.at(i)}: the prompt id (cluster) is missing ({int(cl.missing.sum())} such "
                            f"row{'' if int(cl.missing.sum()) == 1 else 's'}); "
                            "give every battle its prompt id, or read the table without prompt ids: an empty "
                            "`prompt` ('')",
                            param="prompt")
        out["cluster"] = cl.values() if text else df["cluster"].reset_index(drop=True)
    for col in ("judge", "user"):
        if col in df.columns:
            out[col] = Labels.of(df[col]).values()
    if "turn" in df.columns:
        t = pd.to_numeric(df["turn"], errors="coerce")
        bad = t.isna().to_numpy() & df["turn"].notna().to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataError(f"{where.at(i)}: turn {df['turn'].iloc[i]!r} is not a number", param="source")
        whole = not t.isna().any() and bool((t % 1 == 0).all())
        out["turn"] = t.to_numpy(dtype=np.int64) if whole else t.to_numpy(dtype=np.float64)
    for col in df.columns:
        if str(col).startswith((STYLE_A, STYLE_B)):
            v = pd.to_numeric(df[col], errors="coerce")
            bad = v.isna().to_numpy() & df[col].notna().to_numpy()
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise DataError(f"{where.at(i)}: style count {col} = {df[col].iloc[i]!r} is not a number",
                                param="source")
            out[str(col)] = v.to_numpy(dtype=np.float64)
    # text=False: an internal table the rating reads column by column, so its float columns are not copied into one
    # block (a pandas DataFrame of the arrays as they are)
    res = pd.DataFrame(out) if text else pd.DataFrame(out, copy=False)
    read = {"code": "read", "source": where.source, "format": fmt, "battles": int(n),
            "weight_total": float(weight.sum())}
    if records is not None:
        read["records"] = int(records)
    res.attrs["notes"] = [read, *notes]
    if cl is not None:
        # rows per (prompt, model_a, model_b), counted on integer codes
        m = len(joint)
        key = (cl.codes * m + ja) * m + jb
        key.sort()                       # np.unique's counts, without its copy of the keys
        ends = np.append(np.flatnonzero(key[1:] != key[:-1]), len(key) - 1)
        per = np.diff(ends, prepend=-1)
        hist = np.bincount(per)          # how many keys have each count: the sizes in order, no second sort
        size = np.flatnonzero(hist)
        count = hist[size]
        res.attrs["notes"].append({"code": "rows_per_prompt_and_pair", "source": where.source,
                                   "counts": {int(k): int(v) for k, v in zip(size, count)}})
    cc, nc = cl.text_codes() if cl is not None else (None, n)
    return BattleTable(res, Coded(tuple(names), ja, jb, cc, nc))
