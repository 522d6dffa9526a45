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
from ._io import read, read_long
from ._matrix import ScoreMatrix
from .readers import ReadOptions

__all__ = ["read_with_gold"]


def read_with_gold(source: Any, gold: str, *, format: str = "auto", align: str = "error", model: str = "model",
                   item: str = "item", score: str = "score", group: str | None = None, run: str | None = None,
                   condition: str | None = None, task: str | None = None, metric: str | None = None,
                   errors: str = "error", model_name: str | None = None, binary: bool = False,
                   scale: Any = None, split: str | None = None, dataset: str | None = None,
                   ) -> tuple[ScoreMatrix, ScoreMatrix]:
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

    kw: dict[str, Any] = dict(model=model, item=item, score=score, group=group, run=run, condition=condition,
                              task=task, metric=metric)
    judge = read(source, format=format, align=align, errors=errors, model_name=model_name, binary=binary,
                 split=split, dataset=dataset, **kw, **({"scale": scale} if scale is not None else {}))
    if isinstance(source, pd.DataFrame):
        df = source.reset_index(drop=True)
    else:
        df = read_long(source, format=format, options=ReadOptions(
            model_col=model, item_col=item, score_col=score, group_col=group, run_col=run, condition_col=condition,
            task=task, metric=metric, errors=errors, model_name=model_name, split=split, dataset=dataset))
        kw.update(model="model" if "model" in df.columns else model, item="item" if "item" in df.columns else item,
                  score="score" if "score" in df.columns else score)
    where = judge.source or "the input"
    if gold not in df.columns:
        cols = ", ".join(map(repr, [str(c) for c in df.columns][:12]))
        raise DataError(f"{where}: no gold-label column {gold!r}; found {cols}", param="gold")
    col = df[gold]
    labelled = col.notna().to_numpy() & (col.astype(str).str.strip() != "").to_numpy()
    if not labelled.any():
        raise DataError(f"{where}: the gold-label column {gold!r} is empty on every row: label a random subset of "
                        "the items", param="gold")
    rows = df.loc[labelled].copy()
    rows[kw["score"]] = rows[gold]
    if gold != kw["score"]:
        rows = rows.drop(columns=[gold])
    labels = read(rows, binary=binary, **kw, **({"scale": scale} if scale is not None else {}))
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
