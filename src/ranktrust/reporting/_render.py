"""Writing a command's output: text, Markdown or JSON, to stdout or a file.

JSON output is the result's ``to_dict()`` plus a ``meta`` block::

    {"meta": {"format": 2, "kind": "report", "version": "0.2.0", "seed": 0,
              "input_hash": "…", "command": "ranktrust report …", "created": "…"}, …}

Changelog of ``meta.format``:
1: first version.
"""

from __future__ import annotations

import io
import json
import os
from typing import Any, Callable

from ._meta import FORMAT_VERSION, meta, version  # noqa: F401  (the meta block, re-exported)


def to_json(payload: dict[str, Any], meta_block: dict[str, Any]) -> str:
    return dumps_indented({"meta": meta_block, **payload}) + "\n"


# ``json.dumps(o, indent=2)`` is Python's own encoder, item by item (Python 3.11's C encoder has no indent): 0.9 CPU
# s for the 31,125 pairs of a 250-model arena against 0.3 without indent. Containers of plain values, and lists of
# such dicts (table rows), go to the C encoder whole, its item separator the newline and indent of their depth (a
# string never holds a raw newline: the encoder writes \n); the rest is walked here. The same text.
_PLAIN = frozenset((str, int, float, bool, type(None)))
_C_ENCODERS: dict[int, Any] = {}


def _c_json(o: Any, depth: int) -> str:
    enc = _C_ENCODERS.get(depth)
    if enc is None:
        make = getattr(json.encoder, "c_make_encoder")
        enc = _C_ENCODERS[depth] = make(None, None, json.encoder.encode_basestring_ascii, None, ": ",
                                        ",\n" + "  " * depth, False, False, False)
    return "".join(enc(o, 0))


def _plain(o: Any) -> bool:
    return len(o) > 0 and {type(v) for v in (o.values() if isinstance(o, dict) else o)} <= _PLAIN


def _indented(o: Any, depth: int, out: list[str]) -> None:
    is_list = isinstance(o, (list, tuple))
    if not (is_list or isinstance(o, dict)):
        out.append(_c_json(o, 0))
        return
    if not o:
        out.append("[]" if is_list else "{}")
        return
    ind, ind1 = "\n" + "  " * depth, "\n" + "  " * (depth + 1)
    if _plain(o):
        out.append(("[" if is_list else "{") + ind1 + _c_json(o, depth + 1)[1:-1] + ind + ("]" if is_list else "}"))
    elif is_list and all(type(v) is dict and _plain(v) for v in o):   # rows: "}," + the rows' indent + "{" between
        ind2 = "\n" + "  " * (depth + 2)
        body = _c_json(o, depth + 2)[2:-2].replace("}," + ind2 + "{", ind1 + "}," + ind1 + "{" + ind2)
        out.append("[" + ind1 + "{" + ind2 + body + ind1 + "}" + ind + "]")
    else:
        out.append("[" if is_list else "{")
        items = enumerate(o) if is_list else o.items()
        for i, (k, v) in enumerate(items):
            if not (is_list or type(k) is str):
                raise TypeError("a key that is not text")   # the standard encoder writes it (or says why not)
            key = "" if is_list else json.encoder.encode_basestring_ascii(k) + ": "
            out.append(("," if i else "") + ind1 + key)
            _indented(v, depth + 1, out)
        out.append(ind + ("]" if is_list else "}"))


def dumps_indented(o: Any) -> str:
    """``json.dumps(o, indent=2, allow_nan=False)``, the same text, with the C encoder writing the values; what it
    cannot write (a value that is not JSON, NaN, a key that is not text) goes to ``json.dumps``, which raises as it
    would or writes it."""
    if getattr(json.encoder, "c_make_encoder", None) is not None:
        out: list[str] = []
        try:
            _indented(o, 0, out)
            return "".join(out)
        except (TypeError, ValueError, RecursionError):
            pass
    return json.dumps(o, indent=2, allow_nan=False)


def write_output(text: str, out: str) -> None:
    """Write ``text`` to ``out`` ('-' = stdout); a partial file is removed on failure.

    Errors name ``out`` as the user gave it (never the temporary ``out.partial``).
    """
    if out in ("-", "", None):
        import sys

        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from ..errors import DataError

    if os.path.isdir(out):
        raise DataError(f"`out`={out!r}: is a folder; give a file name", param="out")
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise DataError(f"`out`={out!r}: the folder {parent} does not exist; create it first", param="out")
    tmp = f"{out}.partial"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, out)
    except OSError as exc:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise DataError(f"`out`={out!r}: cannot write it ({exc.strerror or exc})", param="out") from None
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


_SUFFIX_FORMATS = {"html": "html", "htm": "html", "md": "md", "json": "json", "csv": "csv",
                   "txt": "text", "text": "text", "log": "text"}


def output_format(fmt: str | None, out: str | None) -> str:
    """The output format: ``fmt`` when given, else from the ``--out`` suffix, else text.

    A ``fmt`` that contradicts the suffix (``-f json --out x.html``) is an error: the file would
    hold something other than its name says. So is a suffix that names no format when ``fmt`` is not
    given (``--out r.jsn``, a typo for .json, would otherwise be written as text); a name without a
    suffix is written as text.
    """
    from ..errors import DataError

    suffix = os.path.splitext(os.path.basename(out))[1][1:].lower() if out and out != "-" else ""
    implied = _SUFFIX_FORMATS.get(suffix)
    if fmt is None:
        if suffix and implied is None:
            raise DataError(f"`out`={out!r} ends in .{suffix}, which names no output format: name the file .txt, "
                            ".md, .json, .html or .csv, or give `format`", param="out")
        return implied or "text"
    if implied not in (None, "text") and implied != fmt:     # a .txt or .log file may hold any format asked for
        raise DataError(f"`format`={fmt!r} but `out`={out!r} ends in .{suffix}: drop `format` (the suffix picks "
                        f"{implied}) or name the file .{ {'text': 'txt', 'md': 'md', 'json': 'json', 'html': 'html', 'csv': 'csv'}[fmt] }")
    return fmt


def rich_to_text(renderables: list[Any], *, width: int = 110, color: bool = False) -> str:
    from rich.console import Console

    buf = io.StringIO()
    # markup=False: model names such as "gpt [beta]" or "[red]x" are data, not rich style tags
    console = Console(file=buf, width=width, force_terminal=color, color_system="auto" if color else None,
                      highlight=False, markup=False)
    for r in renderables:
        console.print(r)
    return buf.getvalue()


def _displayable(x: Any) -> Any:
    from .._text import display_name, needs_escaping

    if isinstance(x, str):
        return display_name(x) if needs_escaping(x) else x
    if isinstance(x, dict):
        return {(_displayable(k) if isinstance(k, str) else k): _displayable(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_displayable(v) for v in x]
    return x


def compose(
    payload: dict[str, Any],
    *,
    kind: str,
    fmt: str,
    text: Callable[[dict[str, Any]], list[Any]] | None = None,
    markdown: Callable[[dict[str, Any]], str] | None = None,
    html: Callable[[dict[str, Any], dict[str, Any]], str] | None = None,
    csv: Callable[[dict[str, Any]], str] | None = None,
    seed: int | None = None,
    input_hash: str | None = None,
    command: str | None = None,
    title: str | None = None,
    color: bool = False,
) -> str:
    """``payload`` (a ``to_dict()``) rendered in ``fmt`` (text, md, json, html or csv) as a string.

    Every command has the same four formats: text, md, json and html (``html`` renders the
    Markdown as one self-contained page unless the command has its own page); results that are a
    table also have csv.
    """
    if fmt == "csv":
        if csv is None:
            from ..errors import DataError

            raise DataError(f"the {kind} output is not a table: csv is not available for it; "
                            "use text, md, json or html")
        return csv(payload)
    m = meta(kind, seed=seed, input_hash=input_hash, command=command)
    if fmt in ("text", "md"):
        # names are data: control and bidirectional characters are shown escaped in the terminal and
        # in Markdown (JSON, HTML and the store keep them exact)
        payload = _displayable(payload)
    if fmt == "json":
        return to_json(payload, m)
    if fmt in ("md", "html"):
        if fmt == "html" and html is not None:
            return html(payload, m)
        body = markdown(payload) if markdown else "```json\n" + json.dumps(payload, indent=2) + "\n```\n"
        parts = [f"ranktrust {m['version']}"] + ([f"seed {seed}"] if seed is not None else []) \
            + ([f"input {input_hash}"] if input_hash is not None else []) + ([f"`{command}`"] if command else [])
        s = body + "\n<sub>" + " · ".join(parts) + "</sub>\n"
        if fmt == "html":
            from ._html import markdown_page

            s = markdown_page(s, title=title or f"ranktrust {kind}", payload=payload, meta=m)
        return s
    if text is None:
        return json.dumps(payload, indent=2) + "\n"
    return rich_to_text(text(payload), color=color)


def emit(payload: dict[str, Any], *, kind: str, fmt: str | None, out: str, **kw: Any) -> None:
    """Render ``payload`` in ``fmt`` (None: from the ``out`` suffix, else text) with :func:`compose` and write
    it to ``out`` ('-' = stdout; a partial file is removed on failure)."""
    import sys

    fmt = output_format(fmt, out)
    color = fmt == "text" and out in ("-", "", None) and sys.stdout.isatty()
    write_output(compose(payload, kind=kind, fmt=fmt, color=color, **kw), out)
