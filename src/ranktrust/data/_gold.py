"""A long table with a judge's score and a gold label column -> two aligned matrices (judge, gold).

``ranktrust report --gold-col human`` reads a table whose ``score`` column holds the judge's score on every row
and whose ``human`` column holds a person's label where there is one (empty elsewhere). :func:`read_with_gold`
reads it twice: once as the judge's :class:`ScoreMatrix` (the ``score`` column, every row), once as the gold
labels (the gold column, on the rows where it is not empty), and returns the gold labels in the judge's model
and item order, NaN where an item is not labelled, ready for ``gold=`` of ``rt.intervals``, ``rt.compare``,
``rt.all_pairs`` and ``rt.report``. It reads and aligns only: which items count as labelled, and every check
of the labels against the judge, is the estimators'.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DataError
from ._io import _one_options, read, read_long
from ._matrix import ScoreMatrix
from .readers import ReadOptions

__all__ = ["read_with_gold"]


def read_with_gold(source: Any, gold: str, *, format: str = "auto", align: str = "error", model: str = "model",
                   item: str = "item", score: str = "score", group: str | None = None, run: str | None = None,
                   condition: str | None = None, task: str | None = None, metric: str | None = None,
                   errors: str = "error", model_name: str | None = None, binary: bool = False,
                   scale: Any = None, split: str | None = None, dataset: str | None = None,
                   source_name: str | None = None, line_numbers: "int | str | None" = None,
                   options: ReadOptions | None = None) -> tuple[ScoreMatrix, ScoreMatrix]:
    """The judge's scores and the gold labels of one long table (see the module docstring).

    Parameters
    ----------
    source : path, list of paths or pandas.DataFrame
        A long table (what :func:`ranktrust.read` reads) with one more column, ``gold``.
    gold : str
        The column of gold labels; empty (or NaN) where an item is not labelled.
    format, align, model, item, score, group, run, condition, task, metric, errors, model_name, binary, scale, \
split, dataset
        As :func:`ranktrust.read`; the gold labels are read with the same columns, ``scale`` and ``binary``.
    source_name, line_numbers : optional
        A DataFrame ``source`` only, as :func:`ranktrust.read`: what errors call it and how they number its rows.
        A bad label then names the same file and line as a bad score (a file ``source`` names its own).
    options : ranktrust.data.readers.ReadOptions, optional
        The reader options (``model`` ... ``dataset``) as one object, as :func:`ranktrust.read` takes them.

    Returns
    -------
    (judge, gold) : ScoreMatrix, ScoreMatrix
        ``gold`` has the judge's models, items and groups, NaN where not labelled.

    Raises
    ------
    DataError
        No column ``gold`` (naming the columns found), or no label in it.
    """
    import pandas as pd

    opts = _one_options(options, ReadOptions(
        model_col=model, item_col=item, score_col=score, group_col=group, run_col=run, condition_col=condition,
        task=task, metric=metric, errors=errors, model_name=model_name, split=split, dataset=dataset, scale=scale))
    judge = read(source, format=format, align=align, binary=binary, options=opts, source_name=source_name,
                 line_numbers=line_numbers)
    # the labels' rows keep what names them in an error: the file and line of each, as the judge's rows do
    if isinstance(source, pd.DataFrame):
        name = source_name
        if line_numbers == "index":
            df, lines = source, "index"
        else:
            df = source.reset_index(drop=True)
            if line_numbers is not None:
                df.index = df.index + int(line_numbers)   # (validated by the judge's read above)
            lines = None if line_numbers is None else "index"
        names = (opts.model_col, opts.item_col, opts.score_col)
    else:
        df = read_long(source, format=format, options=opts)
        name, lines = judge.source, ("index" if df.attrs.get("line_numbers") else None)
        names = tuple(c if c in df.columns else d for c, d in
                      zip(("model", "item", "score"), (opts.model_col, opts.item_col, opts.score_col)))
    kw: dict[str, Any] = dict(model=names[0], item=names[1], score=names[2], group=opts.group_col, run=opts.run_col,
                              condition=opts.condition_col, task=opts.task, metric=opts.metric, scale=opts.scale)
    where = judge.source or "the input"
    if gold not in df.columns:
        cols = ", ".join(map(repr, [str(c) for c in df.columns][:12]))
        raise DataError(f"{where}: no gold-label column {gold!r}; found {cols}", param="gold")
    col = df[gold]
    labelled = col.notna().to_numpy() & (col.astype(str).str.strip() != "").to_numpy()
    if not labelled.any():
        raise DataError(f"{where}: the gold-label column {gold!r} is empty on every row: label a random subset of "
                        "the items", param="gold")
    rows = df.loc[labelled]
    if gold != kw["score"]:     # read the labels as the scores, so an error names the gold column
        rows = rows.drop(columns=[kw["score"]])
    labels = read(rows, binary=binary, source_name=name, line_numbers=lines, **{**kw, "score": gold})
    return judge, _aligned(judge, labels)


def _aligned(judge: ScoreMatrix, labels: ScoreMatrix) -> ScoreMatrix:
    """``labels`` in the judge's model and item order, NaN where not labelled (items the judge's matrix left out
    with ``align`` are left out here too)."""
    out = np.full((judge.n_models, judge.n_items), np.nan)
    mi = {x: k for k, x in enumerate(judge.models)}
    ii = {x: k for k, x in enumerate(judge.items)}
    rows = np.array([mi.get(x, -1) for x in labels.models], dtype=np.intp)
    cols = np.array([ii.get(x, -1) for x in labels.items], dtype=np.intp)
    keep_r, keep_c = rows >= 0, cols >= 0
    out[np.ix_(rows[keep_r], cols[keep_c])] = np.asarray(labels.scores)[np.ix_(keep_r, keep_c)]
    return ScoreMatrix.from_array(out, models=list(judge.models), items=list(judge.items),
                                  groups=list(judge.groups) if judge.groups is not None else None)
