"""Reports: text (rich), Markdown, JSON (versioned) and HTML.

Analysis code builds results and :class:`~ranktrust.results.Note` records; this package writes the sentences and
the pages. The public names:

- :func:`note_text` words a note record (a report's notes, ``DataQuality.notes()``); :func:`option_words` makes it
  name the options another way within a block (the command line: its flags);
- :func:`headline_text` writes the leaderboard verdict from the headline's numbers (``report.verdict``);
- :func:`describe_variance` says, for one model, what more runs or more items would buy (``rt.variance_components``);
- :func:`render_html` renders a ``LeaderboardReport`` as one self-contained page; :func:`meta` is the ``meta``
  block (version, seed, input hash) every JSON output carries;
- :mod:`fmt` is the one rule for every number (points, intervals, percentages, p-values).

Everything else in the package is private; the command line's helpers (``output_format``, ``write_output``, watch's
``follow_line`` and ``watch_html``, the gate's ``inconclusive_warning``) are reached here too, outside ``__all__``.
Names load on first use, so ``import ranktrust.reporting`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._notes import note_text, option_words

__all__ = ["note_text", "option_words", "headline_text", "describe_variance", "render_html", "meta", "fmt"]

_LAZY = {"headline_text": "._headline", "describe_variance": ".renderers._runs", "render_html": ".renderers._report",
         "meta": "._meta",
         # what the command line uses besides the renderers (not public API: outside __all__)
         "output_format": "._render", "write_output": "._render", "follow_line": ".renderers._watch",
         "watch_html": ".renderers._watch", "inconclusive_warning": ".renderers._gate"}


def __getattr__(name: str) -> Any:
    if name == "fmt":
        return importlib.import_module("._fmt", __name__)
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
