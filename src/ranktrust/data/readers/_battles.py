"""The built-in battles readers: a battles table, Chatbot Arena ``clean_battle`` JSON, Arena-Hard-Auto
judgments, AlpacaEval annotations and MT-Bench pairwise judgments (docs/formats/battles.md).

A battles reader is a reader of the one registry (:mod:`._registry`) with ``kind = "battles"``: ``name``,
``priority``, ``description``, ``looks_for``, ``sniff(path)``, ``units(path)`` and ``read(unit, opts)``, where
``opts`` is a :class:`~ranktrust.data.battles._canon.BattleOptions` and ``read`` yields the
:class:`~ranktrust.data.battles._canon.BattleTable` of the unit: the canonical columns, checked by
``finish``, with their notes (``table.attrs["notes"]``) and integer codes. ``rt.read`` never sees these
readers; ``rt.read_battles`` and ``rt.arena`` see only them. The parsing itself is in ``data/battles/_formats.py``.
"""

from __future__ import annotations

import os
from typing import Iterator

from ...errors import DataError
from ..battles._canon import BattleOptions, BattleTable
from ..battles._formats import (JSON_SUFFIXES, TABLE_SUFFIXES, from_alpaca_eval, from_arena_hard, from_mt_bench,
                                json_format, read_table_file)
from ._registry import register
from ._util import walk_files


class _BattleFiles:
    """What the five built-in battles readers share: a folder's units are its data files, in order."""

    kind = "battles"
    priority = 10
    looks_for = "battle files (.csv, .tsv, .parquet, .jsonl, .json, gzipped or not)"

    def units(self, path: str) -> list[str]:
        return walk_files(path, lambda f: f.lower().endswith(TABLE_SUFFIXES + JSON_SUFFIXES))

    def sniff(self, path: str) -> bool:
        return os.path.isfile(path) and json_format(path) == self.name  # type: ignore[attr-defined]

    def read(self, unit: str, opts: BattleOptions) -> Iterator[BattleTable]:
        """A file of one battle per row or record (a table, clean_battle JSON); the others override it."""
        yield read_table_file(unit, opts.prompt, opts.weight_strong, text=opts.text)


@register
class BattlesTableReader(_BattleFiles):
    """Any table with model_a, model_b and winner (or score): the fallback, sniffed last."""

    name = "table"
    priority = 0
    description = "a battles table (CSV, TSV, Parquet or JSON lines) with model_a, model_b and winner or score"

    def sniff(self, path: str) -> bool:
        p = os.fspath(path).lower()
        return p.endswith(TABLE_SUFFIXES) or (os.path.isfile(path) and json_format(path) == "table")


@register
class CleanBattleReader(_BattleFiles):
    name = "clean_battle"
    description = "Chatbot Arena clean_battle_*.json (a JSON array of battles; conv_metadata as style counts)"


@register
class ArenaHardReader(_BattleFiles):
    name = "arena_hard"
    description = "Arena-Hard-Auto judgments (v0.1 and v2): two games per question, the positions swapped"

    def read(self, unit: str, opts: BattleOptions) -> Iterator[BattleTable]:
        got = from_arena_hard(unit, weight_strong=opts.weight_strong, baseline=opts.baseline)
        if got is None:
            raise DataError(f"{unit}: every judgment is the baseline judged against itself (the baseline's own "
                            "judgment file): nothing to rank; read the folder of judgments, or the other models' "
                            "files", param="source", code="baseline_only",
                            data={"source": unit, "why": "baseline_against_itself"})
        yield got


@register
class AlpacaEvalReader(_BattleFiles):
    name = "alpaca_eval"
    description = "AlpacaEval annotations.json (preference 1 / 2 / 1.5, weighted probabilities)"

    def read(self, unit: str, opts: BattleOptions) -> Iterator[BattleTable]:
        yield from_alpaca_eval(unit)


@register
class MTBenchReader(_BattleFiles):
    name = "mt_bench"
    description = "MT-Bench pairwise judgments (gpt-4_pair.jsonl: g1/g2 winners, turns)"

    def read(self, unit: str, opts: BattleOptions) -> Iterator[BattleTable]:
        yield from_mt_bench(unit)
