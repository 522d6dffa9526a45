"""Judge verdicts as they are: a table of rows (JSON lines, JSON array, CSV or Parquet), for the judge audit.

Kept apart from the battles reader (``data/battles``), which turns verdicts into one score per battle and would
lose what the audit reads: the two orders of a swapped game (``g1_winner``/``g2_winner``) and the row-by-row
pairing of two judges' verdicts on the same battles.
"""

from __future__ import annotations

import os
from typing import Any

from ..errors import DataError

__all__ = ["read_verdicts"]

_JSON = (".jsonl", ".jsonl.gz", ".json", ".json.gz")


def read_verdicts(path: str) -> Any:
    """The file at ``path`` as a pandas DataFrame, one row per record; one-line errors for a missing, empty or
    unreadable file."""
    import pandas as pd

    from .readers._util import iter_jsonl, load_json

    if not os.path.isfile(path):
        raise DataError(f"{path}: no such file", param="path")
    low = path.lower()
    if low.endswith(_JSON):
        if low.endswith((".jsonl", ".jsonl.gz")) or low.endswith(".gz"):
            rows = [v for _, v in iter_jsonl(path)]
        else:
            data = load_json(path)
            rows = data if isinstance(data, list) else [data]
        if not rows or not all(isinstance(r, dict) for r in rows):
            raise DataError(f"{path}: no records (expected one JSON object per line)", param="path")
        return pd.DataFrame.from_records(rows)
    if low.endswith((".csv", ".csv.gz", ".tsv")):
        try:
            df = pd.read_csv(path, sep="\t" if low.endswith(".tsv") else ",")
        except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as e:
            raise DataError(f"{path}: not a readable CSV ({type(e).__name__})", param="path") from None
    elif low.endswith(".parquet"):
        df = pd.read_parquet(path)
    else:
        raise DataError(f"{path}: unknown file type; give .jsonl, .json, .csv or .parquet (optionally .gz)",
                        param="path")
    if df.empty:
        raise DataError(f"{path}: no rows", param="path")
    return df
