"""Writing a command's output: text, Markdown or JSON, to stdout or a file.

JSON output is the result's ``to_dict()`` plus a ``meta`` block::

    {"meta": {"format": 2, "kind": "report", "version": "0.2.0", "seed": 0,
              "input_hash": "…", "command": "ranktrust report …", "created": "…"}, …}

Changelog of ``meta.format``:
1: first version.
"""

from __future__ import annotations

import io
import itertools
import json
import os
from typing import Any, Callable

from ._meta import FORMAT_VERSION, meta, version  # noqa: F401  (the meta block, re-exported)


def to_json(payload: dict[str, Any], meta_block: dict[str, Any]) -> str:
    return dumps_indented({"meta": meta_block, **payload}) + "\n"


_PLAIN = frozenset((str, int, float, bool, type(None)))
_DICT = frozenset((dict,))
_ENCODERS: dict[int, json.JSONEncoder] = {}


def _encode(o: Any, depth: int) -> str:
    """``o`` by the standard encoder with ``indent=None`` (the C encoder, one call for the whole value) and, as its
    item separator, the newline and indent of items at ``depth``: ``json.dumps(indent=2)``'s text of a container
    with no container inside, less its brackets' own lines (a string never holds a raw newline: the encoder writes
    ``\\n``)."""
    enc = _ENCODERS.get(depth)
    if enc is None:
        enc = _ENCODERS[depth] = json.JSONEncoder(check_circular=False, allow_nan=False,
                                                  separators=(",\n" + "  " * depth, ": "))
    return enc.encode(o)


def _plain(o: Any) -> bool:
    """``o`` (a dict, list or tuple) is not empty and holds plain values only (exact types: no container)."""
    return len(o) > 0 and _PLAIN.issuperset(map(type, o.values() if isinstance(o, dict) else o))


def _rows(o: Any) -> bool:
    """``o`` (a list or tuple) is not empty and holds non-empty dicts of plain values only: a table's rows."""
    return (len(o) > 0 and _DICT.issuperset(map(type, o)) and all(o)
            and _PLAIN.issuperset(map(type, itertools.chain.from_iterable(map(dict.values, o)))))


def _indented(o: Any, depth: int) -> str:
    is_list = isinstance(o, (list, tuple))
    if not (is_list or isinstance(o, dict)) or not o:
        return _encode(o, 0)
    ind, ind1 = "\n" + "  " * depth, "\n" + "  " * (depth + 1)
    if _plain(o):
        text = _encode(o, depth + 1)
        return text[0] + ind1 + text[1:-1] + ind + text[-1]
    if is_list and _rows(o):
        # table rows: the whole list in one call with the rows' item separator; between two rows (the only place
        # "}," + that separator's indent + "{" occurs) go the rows' own bracket lines
        ind2 = "\n" + "  " * (depth + 2)
        body = _encode(o, depth + 2)[2:-2].replace("}," + ind2 + "{", ind1 + "}," + ind1 + "{" + ind2)
        return "[" + ind1 + "{" + ind2 + body + ind1 + "}" + ind + "]"
    if is_list:
        body = [ind1 + _indented(v, depth + 1) for v in o]
    else:
        if not all(type(k) is str for k in o):
            raise TypeError("a key that is not text")   # the standard encoder writes it (or says why not)
        body = [ind1 + json.encoder.encode_basestring_ascii(k) + ": " + _indented(v, depth + 1) for k, v in o.items()]
    return ("[" if is_list else "{") + ",".join(body) + ind + ("]" if is_list else "}")


def dumps_indented(o: Any) -> str:
    """``json.dumps(o, indent=2, allow_nan=False)``, the same text, 1.5-2x as fast on a large table.

    Python's ``indent=2`` encoder is written in Python and walks every value; without ``indent`` the C encoder
    writes a whole container in one call. So a container with no container inside goes to the standard encoder
    whole (:func:`_encode`, its item separator the newline and indent of its items), a list of such dicts (the
    rows of a table) too, with the rows' bracket lines put between the rows, and only the levels above are walked
    here. On the 31,125 pairs of a 250-model arena: 0.24 CPU s against 0.37-0.48 for ``json.dumps(indent=2)``
    (``bench/bench_json_writer.py``); encoding the rows one call each, without the one ``replace``, costs 0.07-0.12 s
    more, so the rows stay one call. Only the public encoder is used (no ``json.encoder.c_make_encoder``), and
    without the C encoder the text is the same, slower. What it cannot write (a value that is not JSON,
    NaN, a key that is not text) goes to ``json.dumps``, which raises as it would or writes it."""
    try:
        return _indented(o, 0)
    except (TypeError, ValueError, RecursionError):
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
    renderers: dict[str, Callable[..., Any] | None] | None = None,
    seed: int | None = None,
    input_hash: str | None = None,
    command: str | None = None,
    title: str | None = None,
    color: bool = False,
) -> str:
    """``payload`` (a ``to_dict()``) rendered in ``fmt`` (text, md, json, html or csv) as a string.

    ``renderers`` maps each format of :data:`~ranktrust.reporting._registry.FORMATS` to the result type's renderer
    (or None). Every command has the same four formats: text, md, json and html (``html`` renders the Markdown as
    one self-contained page unless the command has its own page); results that are a table also have csv.
    """
    given = renderers or {}
    text, markdown, html, csv = (given.get(f) for f in ("text", "md", "html", "csv"))
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
