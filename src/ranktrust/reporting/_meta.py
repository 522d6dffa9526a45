"""The ``meta`` block every JSON output carries: format version, kind, package version, seed, input hash,
command and time (``reporting/_render.py`` writes it; the report page shows it in its footer)."""

from __future__ import annotations

import datetime as _dt
from typing import Any

__all__ = ["FORMAT_VERSION", "meta", "version"]

FORMAT_VERSION = 2


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _v

    try:
        return _v("ranktrust")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


def meta(kind: str, *, seed: int | None = None, input_hash: str | None = None,
         command: str | None = None) -> dict[str, Any]:
    return {
        "format": FORMAT_VERSION,
        "kind": kind,
        "version": version(),
        "seed": seed,
        "input_hash": input_hash,
        "command": command,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
