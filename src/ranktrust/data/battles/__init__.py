"""Read preference battles and judge verdicts into one canonical table: :func:`read_battles`.

Formats (docs/formats/battles.md has each one's source, fields and conventions):

* ``table``: a battles table (CSV, TSV, Parquet, JSONL or a DataFrame) with ``model_a, model_b`` and
  ``winner`` (model_a, model_b, tie, tie (bothbad)) or ``score``; optional prompt id, judge, user,
  turn, weight and style columns;
* ``clean_battle``: Chatbot Arena's ``clean_battle_*.json`` (a JSON array; ``conv_metadata`` becomes
  the style columns);
* ``arena_hard``: Arena-Hard-Auto judgments (v0.1 and v2), two games per question with the positions
  swapped;
* ``alpaca_eval``: AlpacaEval ``annotations.json`` (preference 1 / 2 / 1.5 and weighted probabilities);
* ``mt_bench``: MT-Bench ``gpt-4_pair.jsonl`` (g1/g2 winners, turns).

The result has one row per battle or judged game: ``model_a, model_b`` (names as written),
``score`` (model_a's result in [0, 1]), ``winner`` (the label as written, ``''`` beside a probability),
``weight`` (1 unless the source or `weight_strong` says otherwise), ``cluster`` (the prompt id, when
the source has one), and where known ``judge``, ``user``, ``turn`` and ``style_a_<feat>`` /
``style_b_<feat>`` (raw per-side counts). ``DataFrame.attrs["notes"]`` holds structured records
(``{"code": "read" | "dropped" | "rows_per_prompt_and_pair" | ..., ...}``). Readers never compute
statistics: ``rt.arena`` does.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from typing import TYPE_CHECKING, Any

from ...errors import ArgumentError, DataError, FormatError
from ..readers._util import iter_jsonl, walk_files
from ._canon import CODES_KEPT, COLUMNS, OPTIONAL, PER_ITEM, STYLE_A, STYLE_B, WINNER_SCORES, Coded, Where
from ._formats import (ARENA_HARD_LABELS, CLUSTER_GUESSES, from_alpaca_eval, from_arena_hard, from_clean_battle,
                       from_mt_bench, from_table, strong_weight)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["read_battles", "sniff_battles", "FORMATS", "COLUMNS", "OPTIONAL", "WINNER_SCORES",
           "ARENA_HARD_LABELS", "STYLE_A", "STYLE_B", "CLUSTER_GUESSES", "PER_ITEM"]

#: the formats `format` accepts ("auto" sniffs each file's content)
FORMATS = ("table", "clean_battle", "arena_hard", "alpaca_eval", "mt_bench")
_TABLE_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".parquet", ".pq")
_JSON_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".json", ".json.gz")
_HEAD = 1 << 22  # bytes read to sniff a JSON file's first record


def read_battles(
    source: Any,
    *,
    format: str = "auto",
    weight_strong: bool | float = False,
    baseline: str | None = None,
    prompt: str | None = None,
) -> "pd.DataFrame":
    """Battles or judged games from files, a folder or a DataFrame, in one canonical table.

    Parameters
    ----------
    source : path, list of paths, folder, or DataFrame (pandas; polars is converted)
        A folder is searched for battle files (other files, such as Arena-Hard's ``question.jsonl``,
        are left out and named in a ``skipped`` note).
    format : {"auto", "table", "clean_battle", "arena_hard", "alpaca_eval", "mt_bench"}, default ``"auto"``
        ``"auto"`` recognises each file by its content.
    weight_strong : bool or float, default ``False``
        Arena-Hard judgments: weight of a strong verdict (``A>>B``, ``B>>A``). ``True`` is 3, as
        Arena-Hard's show_result.py; the game stays one row with that weight (never three rows).
        On a battles table that show_result.py wrote (each strong verdict as 3 identical rows), the
        copies are made one row of weight 3 again (``replicated_rows_collapsed`` note).
    baseline : str, optional
        Arena-Hard judgments whose records name no baseline (v0.1): the baseline model
        (``"gpt-4-0314"`` for arena-hard-v0.1). Records that name their own baseline (v2) keep it, so a
        v2 folder that mixes two baselines reads whole whatever `baseline` says.
    prompt : str, optional
        Battles tables: the column of prompt (question) ids, written to ``cluster``; by default the first
        of ``cluster``, ``question_id``, ``prompt_id``, ``uid`` present; ``""`` for none.

    Returns
    -------
    pandas.DataFrame
        Columns ``model_a, model_b, score, winner, weight`` [``, cluster, judge, user, turn,
        style_a_<feat>, style_b_<feat>``]; notes in ``attrs["notes"]``.

    Raises
    ------
    DataError
        An unknown winner label or verdict, a model against itself, a missing model or prompt id, a
        weight ≤ 0, an empty file: one line naming the file and row.
    FormatError
        A file in no battle format, or not in the one `format` names.
    """
    import pandas as pd

    fmt = _check_format(format)
    strong_weight(weight_strong)  # refuse a bad value before reading anything
    if prompt is not None and not isinstance(prompt, str):
        raise TypeError(f"`prompt` must be a column name, or '' for none; got {prompt!r}")
    if isinstance(source, pd.DataFrame) or _is_polars(source):
        if _is_polars(source):
            source = source.collect() if hasattr(source, "collect") else source   # a LazyFrame
        df = source.to_pandas() if _is_polars(source) else source
        if fmt not in ("auto", "table"):
            raise FormatError(f"`format`={fmt!r}: a DataFrame is read as a battles table (`format`='table')",
                              param="format")
        return from_table(df, Where("`battles`", "row", df.index.to_numpy()), cluster=prompt,
                          strong=strong_weight(weight_strong))
    if isinstance(source, (str, os.PathLike)):
        paths = [os.fspath(source)]
    elif isinstance(source, (list, tuple)) and source and all(isinstance(p, (str, os.PathLike)) for p in source):
        paths = [os.fspath(p) for p in source]
    else:
        raise TypeError(f"`source` must be a path, a list of paths, a folder or a DataFrame, got "
                        f"{type(source).__name__}")
    frames: list[pd.DataFrame] = []
    skipped: list[dict[str, Any]] = []
    for path in paths:
        if os.path.isdir(path):
            found = walk_files(path, lambda f: f.lower().endswith(_TABLE_SUFFIXES + _JSON_SUFFIXES))
            taken = 0
            for f in found:
                kind = sniff_battles(f)
                if kind == "table" and _per_item_table(f):   # model, item, score: not battles
                    skipped.append({"code": "skipped", "source": f, "format": None, "why": "per_item"})
                    continue
                if kind is None or (fmt != "auto" and kind != fmt and not (fmt == "table" and kind == "clean_battle")):
                    skipped.append({"code": "skipped", "source": f, "format": kind})
                    continue
                got = _read_one(f, fmt if fmt != "auto" else kind, weight_strong, baseline, prompt)
                if got is None:   # the baseline's own Arena-Hard judgment file: itself against itself, nothing else
                    skipped.append({"code": "skipped", "source": f, "format": kind, "why": "baseline_against_itself"})
                    continue
                frames.append(got)
                taken += 1
            if not taken:
                want = "battle files" if fmt == "auto" else f"{fmt} files"
                raise DataError(f"{path}: no {want} in this folder ({len(found)} data files looked at); give the "
                                "file itself, or `format`", param="source")
        elif os.path.exists(path):
            kind = fmt if fmt != "auto" else sniff_battles(path)
            if kind is None:
                raise FormatError(f"{path}: not a battles file ({_what_it_holds(path)}); expected a battles table "
                                  "(model_a, model_b, winner), a clean_battle JSON, Arena-Hard judgments, AlpacaEval "
                                  "annotations or MT-Bench pairwise judgments; or name it with `format`",
                                  param="format")
            got = _read_one(path, kind, weight_strong, baseline, prompt)
            if got is None:
                raise DataError(f"{path}: every judgment is the baseline judged against itself (the baseline's own "
                                "judgment file): nothing to rank; read the folder of judgments, or the other models' "
                                "files", param="source")
            frames.append(got)
        else:
            raise DataError(f"{path}: no such file or folder", param="source")
    return _stack(frames, skipped)


def read_battles_coded(source: Any, **options: Any) -> "tuple[pd.DataFrame, Coded | None]":
    """:func:`read_battles` and, when one source made the table, the integer codes it computed on the way
    (the sorted model names, each row's two models and prompt id as codes): ``rt.arena`` rates from them
    without hashing millions of names again. None when the table was stacked from several sources."""
    kept: list[tuple[pd.DataFrame, Coded]] = []
    token = CODES_KEPT.set(kept)
    try:
        df = read_battles(source, **options)
    finally:
        CODES_KEPT.reset(token)
    # the codes of the very table returned (by identity: a table stacked from several sources has none)
    return df, next((c for t, c in kept if t is df), None)


def _check_format(format: Any) -> str:
    if format not in ("auto", *FORMATS):
        raise ArgumentError(f"`format` must be one of 'auto', {', '.join(map(repr, FORMATS))}; got {format!r}",
                            param="format")
    return str(format)


def _is_polars(obj: Any) -> bool:
    return type(obj).__module__.split(".")[0] == "polars" and (hasattr(obj, "to_pandas") or hasattr(obj, "collect"))


def _read_one(path: str, kind: str, weight_strong: Any, baseline: str | None, prompt: str | None
              ) -> "pd.DataFrame | None":
    """One file's battles; None for an Arena-Hard file of the baseline judged against itself only."""
    _check_not_empty(path)
    if kind == "arena_hard":
        return from_arena_hard(path, weight_strong=weight_strong, baseline=baseline)
    if kind == "alpaca_eval":
        return from_alpaca_eval(path)
    if kind == "mt_bench":
        return from_mt_bench(path)
    if kind == "clean_battle" or (kind == "table" and _json_kind(path) == "array"):
        return from_clean_battle(path, cluster=prompt)
    return _read_table(path, prompt, strong_weight(weight_strong))


def _read_table(path: str, prompt: str | None, strong: float) -> "pd.DataFrame":
    import numpy as np
    import pandas as pd

    p = path.lower()
    if p.endswith((".parquet", ".pq")):
        try:
            df = pd.read_parquet(path)
        except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a bad file
            raise FormatError(f"{path}: not a readable Parquet file ({str(exc).splitlines()[0]})",
                              param="format") from None
        return from_table(df, Where(path, "row"), cluster=prompt, strong=strong)
    if p.endswith(_JSON_SUFFIXES):
        lines, recs = [], []
        for lineno, rec in iter_jsonl(path):
            if not isinstance(rec, dict):
                raise DataError(f"{path}: line {lineno} is not a JSON object (one battle per line)", param="source")
            lines.append(lineno)
            recs.append(rec)
        return from_table(pd.DataFrame(recs), Where(path, "line", np.asarray(lines, dtype=np.int64)),
                          cluster=prompt, strong=strong)
    sep = "\t" if p.endswith((".tsv", ".tsv.gz")) else ","
    try:
        df = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)
    except (UnicodeDecodeError, pd.errors.ParserError, EOFError, zlib.error, OSError) as exc:
        raise FormatError(f"{path}: not a readable {'TSV' if sep == chr(9) else 'CSV'} file "
                          f"({str(exc).splitlines()[0]})", param="format") from None
    return from_table(df, Where(path, "line", offset=2), cluster=prompt, strong=strong)


def _per_item_table(path: str) -> bool:
    """A CSV/TSV whose header names ``model`` and no ``model_a``: a per-item score table."""
    if not path.lower().endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz")):
        return False
    first = _head(path, 1 << 14).split(b"\n", 1)[0].decode("utf-8", errors="replace")
    cols = {c.strip().strip('"') for c in first.replace("\t", ",").split(",")}
    return "model" in cols and "model_a" not in cols


def _opener(path: str):
    return gzip.open if path.lower().endswith(".gz") else open


def _head(path: str, size: int = _HEAD) -> bytes:
    try:
        with _opener(path)(path, "rb") as fh:  # type: ignore[operator]
            return fh.read(size)
    except (EOFError, OSError, zlib.error) as exc:
        raise FormatError(f"{path}: the file cannot be read ({exc}); re-download or re-export it",
                          param="source") from None


def _check_not_empty(path: str) -> None:
    if path.lower().endswith((".parquet", ".pq")):
        return
    if not _head(path, 1 << 16).strip():
        raise DataError(f"{path}: the file is empty; expected one battle or judged game per row", param="source")


def _json_kind(path: str) -> str | None:
    """'array' (a JSON array), 'lines' (JSON objects, one per line) or None."""
    head = _head(path, 1 << 12).lstrip()
    if head.startswith(b"["):
        return "array"
    if head.startswith(b"{"):
        return "lines"
    return None


def _first_record(path: str) -> Any:
    """The first record of a JSON array or JSON-lines file (None when it cannot be parsed from the head)."""
    text = _head(path).decode("utf-8", errors="replace").lstrip()
    dec = json.JSONDecoder()
    try:
        if text.startswith("["):
            body = text[1:].lstrip()
            return dec.raw_decode(body)[0] if body and not body.startswith("]") else None
        if text.startswith("{"):
            return json.loads(text.split("\n", 1)[0])
    except json.JSONDecodeError:
        return None
    return None


def _classify(rec: Any, array: bool) -> str | None:
    if not isinstance(rec, dict):
        return None
    if "games" in rec and "model" in rec:
        return "arena_hard"
    if "g1_winner" in rec:
        return "mt_bench"
    if "generator_1" in rec and "preference" in rec:
        return "alpaca_eval"
    if "model_a" in rec and "model_b" in rec:
        return "clean_battle" if array else "table"
    return None


def sniff_battles(path: str) -> str | None:
    """The battle format of one file from its name and content (one of :data:`FORMATS`), or None."""
    p = os.fspath(path).lower()
    if p.endswith(_TABLE_SUFFIXES):
        return "table"
    if not p.endswith(_JSON_SUFFIXES):
        return None
    kind = _json_kind(path)
    if kind is None:
        return None
    return _classify(_first_record(path), kind == "array")


def _what_it_holds(path: str) -> str:
    rec = _first_record(path) if path.lower().endswith(_JSON_SUFFIXES) else None
    if isinstance(rec, dict):
        if "model" in rec and "score" in rec and "judge" in rec:
            return "it looks like single-answer grading: one score per answer, read it with `rt.read`"
        return "its first record has keys " + ", ".join(map(repr, list(rec)[:8]))
    return "unrecognised content or file name"


def _stack(frames: "list[pd.DataFrame]", skipped: list[dict[str, Any]]) -> "pd.DataFrame":
    import pandas as pd

    if len(frames) == 1:
        out = frames[0]
        out.attrs["notes"] = [*out.attrs["notes"], *skipped]
        return out
    with_cluster = ["cluster" in f.columns for f in frames]
    if any(with_cluster) and not all(with_cluster):
        src = frames[with_cluster.index(False)].attrs["notes"][0]["source"]
        raise DataError(f"{src}: these battles have no prompt id while the other sources have one; give every "
                        "source its prompt ids, or read all without them: an empty `prompt` ('')", param="prompt")
    notes = [n for f in frames for n in f.attrs["notes"]] + skipped
    out = pd.concat(frames, ignore_index=True, sort=False)
    style = [c for c in out.columns if c.startswith((STYLE_A, STYLE_B))]
    if style:
        missing = int(out[style].isna().any(axis=1).sum())
        if missing:
            notes.append({"code": "style_missing", "source": "(all sources)", "rows": missing})
    order = [c for c in (*COLUMNS, *OPTIONAL) if c in out.columns] + style
    out = out[order]
    out.attrs = {"notes": notes}
    return out
