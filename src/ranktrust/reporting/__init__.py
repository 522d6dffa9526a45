"""Reports: text (rich), Markdown, JSON (versioned) and HTML.

:func:`note_text` words a :class:`~ranktrust.results.Note` record (a report's notes, ``DataQuality.notes()``):
analysis code builds the records, this package writes the sentences."""

from .notes import note_text

__all__ = ["note_text"]
