"""What the store's calls return: :class:`IngestSummary` (per file) and :class:`StoreSummary` (per task)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from ...results import Note, NoteJSON, Result

__all__ = ["FileOutcome", "IngestSummary", "StoreSummary", "TaskSummary"]


@dataclass(frozen=True)
class FileOutcome:
    """What happened to one file: ``added``, ``skipped`` or ``replaced``."""

    path: str
    action: str
    rows: int = 0
    reason: str = ""
    removed: int = 0


class FileRow(TypedDict):
    """One file of :meth:`IngestSummary.to_dict` ``"files"`` (the fields of :class:`FileOutcome`)."""

    path: str
    action: str
    rows: int
    removed: int
    reason: str


class IngestSummaryJSON(TypedDict):
    """Layout of :meth:`IngestSummary.to_dict`: the fields plus ``rows_added``."""

    db: str
    rows_added: int
    files: list[FileRow]
    notes: list[str | NoteJSON]   # a reader's sentence, or its record {"code", "data"}


@dataclass(frozen=True, eq=False)
class IngestSummary(Result):
    """What :meth:`Store.ingest` did, file by file.

    Attributes
    ----------
    files : tuple of FileOutcome
        One entry per file considered (a directory expands into its files).
    notes : tuple of str or Note
        Things the readers reported: a sentence, or a :class:`~ranktrust.results.Note` record (e.g. errored
        samples scored as wrong, ``samples_errored``), worded by ``ranktrust.reporting.note_text``.
    """

    db: str
    files: tuple[FileOutcome, ...] = ()
    notes: tuple[str | Note, ...] = ()

    @property
    def added(self) -> tuple[FileOutcome, ...]:
        return tuple(f for f in self.files if f.action == "added")

    @property
    def skipped(self) -> tuple[FileOutcome, ...]:
        return tuple(f for f in self.files if f.action == "skipped")

    @property
    def replaced(self) -> tuple[FileOutcome, ...]:
        return tuple(f for f in self.files if f.action == "replaced")

    @property
    def rows_added(self) -> int:
        return int(sum(f.rows for f in self.files if f.action in ("added", "replaced")))

    def to_dict(self) -> IngestSummaryJSON:
        return {
            "db": self.db,
            "rows_added": self.rows_added,
            "files": [
                {"path": f.path, "action": f.action, "rows": f.rows, "removed": f.removed, "reason": f.reason}
                for f in self.files
            ],
            "notes": [n.to_dict() if isinstance(n, Note) else n for n in self.notes],
        }


@dataclass(frozen=True)
class TaskSummary:
    task: str
    metric: str
    n_models: int
    n_items: int
    n_runs: int
    rows: int
    models: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class StoreSummary(Result):
    """What a store holds: per (task, metric) the models, items, runs and rows."""

    db: str
    tasks: tuple[TaskSummary, ...] = ()
    n_files: int = 0
    n_rows: int = 0

    # to_dict: the default (db, tasks as one object per TaskSummary with its fields, n_files, n_rows)
