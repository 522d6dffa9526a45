"""Renderers of the data-quality check (DataQuality, ``rt.data_quality``): its findings are note records, worded
and drawn by the same renderers as the report's notes (where the report shows them)."""

from __future__ import annotations

from typing import Any

from .._fmt import plural
from . import renderer
from ._report import notes_markdown, notes_rich


@renderer("ranktrust.quality:DataQuality", "headline")
def quality_headline(d: dict[str, Any]) -> str:
    """'No data-quality problem found in 4 models.' or '2 findings: ...' (the first finding's sentence)."""
    n_models = len(d.get("person_fit") or []) or None
    found = [n for n in d.get("notes") or [] if n.get("code") in ("similar_models", "misfit")]
    if not found:
        return "No data-quality problem found" + (f" in {plural(n_models, 'model')}." if n_models else ".")
    from .._notes import note_text

    return f"{plural(len(found), 'finding')}; the first: {note_text(found[0])}"


@renderer("ranktrust.quality:DataQuality", "text")
def quality_text(d: dict[str, Any]) -> list[Any]:
    from rich.text import Text

    return [Text(quality_headline(d), style="bold"), *notes_rich(d)]


@renderer("ranktrust.quality:DataQuality", "md")
def quality_markdown(d: dict[str, Any]) -> str:
    return "## Data quality\n\n" + quality_headline(d) + "\n" + ("\n" + notes_markdown(d) if d.get("notes") else "")
