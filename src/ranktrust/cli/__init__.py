"""Command-line interface: thin layers over the public API (parse -> API -> render).

The console script ``ranktrust`` calls :func:`main`; every command lives in a private module (``_report``,
``_watch``, ...) that :mod:`._main` loads on demand.
"""

from __future__ import annotations

TYPE_CHECKING = False   # this module is the console script's first import: it loads nothing (no typing)
if TYPE_CHECKING:
    from typing import Any
del TYPE_CHECKING

__all__ = ["main"]


def main(argv: list[str] | None = None) -> Any:
    """Run the ``ranktrust`` command line (``argv`` defaults to ``sys.argv[1:]``).

    Ctrl-C prints ``aborted`` and exits 130 at any moment, also while the command line is still loading
    (click, the command's module, pandas): a KeyboardInterrupt raised by an import is caught here, where the
    console script enters, not only once ``_main`` is loaded."""
    try:
        from ._main import main as run

        return run(argv)
    except KeyboardInterrupt:
        import sys

        sys.stderr.write("\naborted\n")   # as once click runs: a new line after the terminal's ^C, then the word
        raise SystemExit(130) from None
