"""Showing user-supplied names (models, items, tasks) safely in a terminal.

Names are kept exactly as given in the data, the JSON output and the store. Only what is printed
to a terminal (text and Markdown tables, one-line messages) goes through :func:`display_name`:
control characters (ESC, newline, tab ...) and invisible format characters (the bidirectional
overrides U+202A-U+202E and isolates U+2066-U+2069, zero-width spaces ...) are shown as escapes,
so a name cannot move the cursor, reverse the text after it or break a table's alignment.

It also holds the few phrases a reader's error and its note's sentence share (:data:`SWEBENCH_ERRORED_HOW`), so that
presentation never imports a reader.
"""

from __future__ import annotations

import unicodedata

__all__ = ["SWEBENCH_ERRORED_HOW", "display_name", "needs_escaping"]

# categories never shown raw: control, format (bidi marks, zero-width), line/paragraph separators,
# surrogates, private use, unassigned
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    if ch in _SHORT:
        return _SHORT[ch]
    cp = ord(ch)
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def needs_escaping(s: str) -> bool:
    """Whether ``s`` holds a character :func:`display_name` would escape."""
    return any(unicodedata.category(ch) in _HIDDEN for ch in str(s))


def display_name(s: object) -> str:
    """``s`` as a terminal may show it: control and bidirectional characters escaped.

    >>> display_name("gpt\\u202e4")
    'gpt\\\\u202e4'
    >>> display_name("Model A")
    'Model A'

    Printable text (any script, emoji, spaces) is returned unchanged, so ordinary names cost
    nothing. Use it for terminal and Markdown output only; JSON, HTML (which escapes on its
    own) and the store keep the exact name.
    """
    text = str(s)
    if not needs_escaping(text):
        return text
    return "".join(_escape(ch) if unicodedata.category(ch) in _HIDDEN else ch for ch in text)


#: how the instances of a SWE-bench run errored in the harness: (said of one, said of several), by the reason a
#: ``swebench_errored`` note records; the reader's error and the note's sentence (reporting/) say it in these words
SWEBENCH_ERRORED_HOW: dict[str, tuple[str, str]] = {
    "error_ids": ("errored in the harness (error_ids)", "errored in the harness (error_ids)"),
    "empty_report": ("has an empty report.json (errored in the harness)",
                     "have an empty report.json (errored in the harness)"),
    "no_report": ("has no report.json or an empty one (errored in the harness)",
                  "have no report.json or an empty one (errored in the harness)"),
}
