"""Writing a command's output: text, Markdown or JSON, to stdout or a file.

JSON output is the result's ``to_dict()`` plus a ``meta`` block::

    {"meta": {"format": 1, "kind": "report", "version": "0.1.0", "seed": 0,
              "input_hash": "…", "command": "ranktrust report …", "created": "…"}, …}

Changelog of ``meta.format``:
1: first version.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import os
from typing import Any, Callable

FORMAT_VERSION = 1


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


def to_json(payload: dict[str, Any], meta_block: dict[str, Any]) -> str:
    return json.dumps({"meta": meta_block, **payload}, indent=2, allow_nan=False) + "\n"


def write_output(text: str, out: str) -> None:
    """Write ``text`` to ``out`` ('-' = stdout); a partial file is removed on failure."""
    if out in ("-", "", None):
        import click

        click.echo(text, nl=False)
        return
    tmp = f"{out}.partial"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def rich_to_text(renderables: list[Any], *, width: int = 110, color: bool = False) -> str:
    from rich.console import Console

    buf = io.StringIO()
    # markup=False: model names such as "gpt [beta]" or "[red]x" are data, not rich style tags
    console = Console(file=buf, width=width, force_terminal=color, color_system="auto" if color else None,
                      highlight=False, markup=False)
    for r in renderables:
        console.print(r)
    return buf.getvalue()


def emit(
    payload: dict[str, Any],
    *,
    kind: str,
    fmt: str,
    out: str,
    text: Callable[[dict[str, Any]], list[Any]] | None = None,
    markdown: Callable[[dict[str, Any]], str] | None = None,
    seed: int | None = None,
    input_hash: str | None = None,
    command: str | None = None,
) -> None:
    """Render ``payload`` (a ``to_dict()``) in ``fmt`` and write it to ``out``."""
    import sys

    m = meta(kind, seed=seed, input_hash=input_hash, command=command)
    if fmt == "json":
        s = to_json(payload, m)
    elif fmt == "md":
        body = markdown(payload) if markdown else "```json\n" + json.dumps(payload, indent=2) + "\n```\n"
        parts = [f"ranktrust {m['version']}"] + ([f"seed {seed}"] if seed is not None else []) \
            + ([f"input {input_hash}"] if input_hash is not None else []) + [f"`{command}`"]
        s = body + "\n<sub>" + " · ".join(parts) + "</sub>\n"
    else:
        if text is None:
            s = json.dumps(payload, indent=2) + "\n"
        else:
            color = out in ("-", "", None) and sys.stdout.isatty()
            s = rich_to_text(text(payload), color=color)
    write_output(s, out)
