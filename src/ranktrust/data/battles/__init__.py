"""Read preference battles and judge verdicts into one canonical table: :func:`read_battles`.

Formats (docs/formats/battles.md has each one's source, fields and conventions), each a reader of the one
reader registry with ``kind = "battles"`` (``data/readers/_battles.py``; a plug-in registers one as it
registers a score reader):

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
statistics: ``rt.arena`` does. :func:`read_battle_table` returns the table with the integer codes the reader
computed (:class:`BattleTable`), which ``rt.arena`` rates from.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ...errors import ArgumentError, DataError, FormatError
from ..readers import readers
from ..readers._registry import by_priority
from ..readers._util import walk_files
from ._canon import (COLUMNS, OPTIONAL, PER_ITEM, STYLE_A, STYLE_B, WINNER_SCORES, BattleOptions, BattleTable, Coded,
                     Where)
from ._formats import (ARENA_HARD_LABELS, CLUSTER_GUESSES, JSON_SUFFIXES, TABLE_SUFFIXES, check_not_empty,
                       from_table, per_item_table, strong_weight, what_it_holds)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["read_battles", "read_battle_table", "sniff_battles", "battle_formats", "BattleTable", "Coded",
           "FORMATS", "COLUMNS", "OPTIONAL", "WINNER_SCORES", "ARENA_HARD_LABELS", "STYLE_A", "STYLE_B",
           "CLUSTER_GUESSES", "PER_ITEM"]


def battle_formats() -> tuple[str, ...]:
    """The names of the registered battles readers (the built-in ones and any plug-in's), as `format` takes them."""
    return tuple(dict.fromkeys(r.name for r in readers("battles").values()))


def __getattr__(name: str) -> Any:
    if name == "FORMATS":   # the formats `format` accepts ("auto" sniffs each file's content): the registry's
        return battle_formats()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
        ``"auto"`` recognises each file by its content; a battles reader a plug-in registers is named the same way.
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
    return read_battle_table(source, format=format, weight_strong=weight_strong, baseline=baseline,
                             prompt=prompt).table


def read_battle_table(
    source: Any,
    *,
    format: str = "auto",
    weight_strong: bool | float = False,
    baseline: str | None = None,
    prompt: str | None = None,
    text: bool = True,
) -> BattleTable:
    """:func:`read_battles` with the integer codes the reader computed on the way: a :class:`BattleTable`
    (``table``; ``codes``: the sorted model names, each row's two models and prompt id as codes, or None when
    the table was stacked from several sources). ``rt.arena`` rates from the codes without hashing millions of
    names again.

    ``text=False``, for a caller that rates from the codes and never reads the table's label columns (one
    file, not a folder or a list; elsewhere ignored): the reader may leave them as read (the model names
    categorical, whole-number prompt ids as numbers, no ``winner`` beside a ``score``); the checks, the
    notes, the numeric columns and the codes are those of ``text=True``."""
    import pandas as pd

    fmt = _check_format(format)
    opts = BattleOptions(strong_weight(weight_strong), baseline, prompt)   # a bad weight: refused before reading
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
                          strong=opts.weight_strong)
    if isinstance(source, (str, os.PathLike)):
        paths = [os.fspath(source)]
        if not text and not os.path.isdir(paths[0]):   # one file: its table is not stacked with another's
            opts = BattleOptions(opts.weight_strong, baseline, prompt, text=False)
    elif isinstance(source, (list, tuple)) and source and all(isinstance(p, (str, os.PathLike)) for p in source):
        paths = [os.fspath(p) for p in source]
    else:
        raise TypeError(f"`source` must be a path, a list of paths, a folder or a DataFrame, got "
                        f"{type(source).__name__}")
    regs = readers("battles")
    parts: list[BattleTable] = []
    skipped: list[dict[str, Any]] = []
    for path in paths:
        if os.path.isdir(path):
            found = walk_files(path, lambda f: f.lower().endswith(TABLE_SUFFIXES + JSON_SUFFIXES))
            taken = 0
            for f in found:
                kind = sniff_battles(f)
                if kind == "table" and per_item_table(f):   # model, item, score: not battles
                    skipped.append({"code": "skipped", "source": f, "format": None, "why": "per_item"})
                    continue
                if kind is None or (fmt != "auto" and kind != fmt and not (fmt == "table" and kind == "clean_battle")):
                    skipped.append({"code": "skipped", "source": f, "format": kind})
                    continue
                try:
                    got = _read_one(regs[fmt if fmt != "auto" else kind], f, opts)
                except DataError as e:
                    if e.code != "baseline_only":
                        raise
                    # the baseline's own Arena-Hard judgment file: itself against itself, nothing else
                    skipped.append({"code": "skipped", "source": f, "format": kind, "why": e.data["why"]})
                    continue
                parts.extend(got)
                taken += 1
            if not taken:
                want = "battle files" if fmt == "auto" else f"{fmt} files"
                raise DataError(f"{path}: no {want} in this folder ({len(found)} data files looked at); give the "
                                "file itself, or `format`", param="source")
        elif os.path.exists(path):
            kind = fmt if fmt != "auto" else sniff_battles(path)
            if kind is None:
                raise FormatError(f"{path}: not a battles file ({what_it_holds(path)}); expected a battles table "
                                  "(model_a, model_b, winner), a clean_battle JSON, Arena-Hard judgments, AlpacaEval "
                                  "annotations or MT-Bench pairwise judgments; or name it with `format`",
                                  param="format")
            parts.extend(_read_one(regs[kind], path, opts))
        else:
            raise DataError(f"{path}: no such file or folder", param="source")
    return _stack(parts, skipped)


def _read_one(reader: type, path: str, opts: BattleOptions) -> list[BattleTable]:
    """One file's battles through its reader (a fresh reader object per read, as the score path's registry)."""
    check_not_empty(path)
    got = list(reader().read(path, opts))
    if not got:
        raise DataError(f"{path}: the {reader.name} reader found no battles in this file", param="source",
                        code="no_battles", data={"source": path, "format": reader.name})
    return got


def _check_format(format: Any) -> str:
    known = battle_formats()
    if format != "auto" and format not in known:
        raise ArgumentError(f"`format` must be one of 'auto', {', '.join(map(repr, known))}; got {format!r}",
                            param="format")
    return str(format)


def _is_polars(obj: Any) -> bool:
    return type(obj).__module__.split(".")[0] == "polars" and (hasattr(obj, "to_pandas") or hasattr(obj, "collect"))


def sniff_battles(path: str) -> str | None:
    """The battle format of one file from its name and content (the first registered battles reader, highest
    priority first, whose sniffer accepts it), or None."""
    for r in by_priority("battles"):
        if r().sniff(os.fspath(path)):
            return str(r.name)
    return None


def _stack(parts: list[BattleTable], skipped: list[dict[str, Any]]) -> BattleTable:
    import pandas as pd

    if len(parts) == 1:
        out = parts[0].table
        out.attrs["notes"] = [*out.attrs["notes"], *skipped]
        return parts[0]
    frames = [p.table for p in parts]
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
    return BattleTable(out, None)
