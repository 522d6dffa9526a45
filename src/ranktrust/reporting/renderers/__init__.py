"""Renderers registered by result type: one place says how each result looks in each format.

Every command's output goes through :func:`render`::

    render(result, fmt="md", out="-", kind="compare", seed=0, input_hash=h, command=cmd)

JSON is always ``result.to_dict()`` plus the ``meta`` block (see :mod:`ranktrust.reporting._render`); the other
formats are looked up here by the result's type (its class or any base class):

* ``"text"``: ``fn(payload) -> list`` of rich renderables (or strings) for the terminal;
* ``"md"``: ``fn(payload) -> str``, Markdown (``--format html`` wraps it in one page unless an ``"html"``
  renderer is registered);
* ``"html"``: ``fn(payload, meta) -> str``, a whole page;
* ``"csv"``: ``fn(payload) -> str``, for results that are a table;
* ``"headline"``: ``fn(payload) -> str``, the result's answer in one sentence: ``result.headline["text"]``, and
  the ``"text"`` of the JSON's ``"headline"`` where the result's JSON has one;
* ``"payload"``: ``fn(result) -> dict``, where the JSON is more than the layout with its sentences (the gate adds
  its verdict line); it reads ``result.to_dict()``, which inside it is the plain layout.

What every format renders, JSON included, is ``result.to_dict()``: the layout with each note's sentence and the
headline's (:func:`payload_of`, which ``ranktrust.results`` calls).

A renderer reads the result's ``to_dict()`` payload (the JSON contract), never the analysis internals, and formats
every number through :mod:`ranktrust.reporting._fmt`. A new command's output costs one module here with one
``@renderer`` per format::

    @renderer(PairedComparison, "text")
    def _text(d): ...

The renderers are entries of the one presentation registry (:mod:`ranktrust.reporting._registry`), keyed by the
result class like the figures and the notebook pages: the class itself, or ``"package.module:Class"`` where importing
the class would load its analysis (``-f json`` of one command must not load every analysis, nor scipy.stats).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from ...errors import ArgumentError
from .._registry import FORMATS, REGISTRY

_HOOKS = FORMATS + ("payload", "headline")

#: the modules holding the built-in renderers, imported on first lookup
_BUILTIN = ("report", "scores", "quality", "compare", "ranking", "subsets", "runs", "store", "watch", "gate", "arena", "suite", "judges", "gold")
_loaded = False


def renderer(result_type: type | str, fmt: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the ``fmt`` renderer of ``result_type`` (a class, or its
    ``"package.module:Class"``)."""
    if fmt not in _HOOKS:
        raise ArgumentError(f"`fmt` must be one of {', '.join(_HOOKS)}, got {fmt!r}", param="fmt")

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        REGISTRY.add(result_type, fmt, fn)
        return fn

    return deco


def _load_builtin() -> None:
    global _loaded
    if not _loaded:
        for name in _BUILTIN:
            importlib.import_module(f"{__name__}._{name}")
        _loaded = True


def renderer_for(result: Any, fmt: str) -> Callable[..., Any] | None:
    """The ``fmt`` renderer registered for ``result``'s type (or the nearest base class), or None."""
    _load_builtin()
    return REGISTRY.first(result, fmt)


def renderer_named(name: str | type, fmt: str) -> Callable[..., Any] | None:
    """The ``fmt`` renderer of the type ``name``: a class, its ``"package.module:Class"``, or its class name alone
    (the ``"type"`` of a report section's JSON, whose payload is a dict), or None."""
    _load_builtin()
    if isinstance(name, type):
        return REGISTRY.first(name, fmt)
    got = REGISTRY.under(name, fmt)
    return got[0] if got else None


def formats_for(result: Any) -> tuple[str, ...]:
    """The output formats ``result`` can be written in (json always; csv only for tables)."""
    return ("json", "text", "md", "html") + (("csv",) if renderer_for(result, "csv") else ())


def to_string(result: Any, fmt: str = "text", *, kind: str | None = None, extra: dict[str, Any] | None = None,
              **meta: Any) -> str:
    """``result`` in ``fmt`` (text, md, json, html or csv) as a string, as the command line would write it, in a
    Python user's words where they differ (``Watch.next()`` for the command line's 'score next' line).

    >>> print(to_string(rt.compare(m, "A", "B"), "md"))      # doctest: +SKIP
    """
    from .._render import compose

    return compose(_payload(result, extra), kind=kind or type(result).__name__, fmt=fmt,
                   renderers={f: renderer_for(result, f) for f in FORMATS}, **meta)


def _payload(result: Any, extra: dict[str, Any] | None) -> dict[str, Any]:
    """What every format renders: ``result.to_dict()`` (the layout with its sentences, :func:`payload_of`) and
    the keys the command adds (``extra``)."""
    payload = result.to_dict()
    if not getattr(type(result).to_dict, "__ranktrust_worded__", False):   # not a Result: word it here
        payload = payload_of(result, payload)
    return {**payload, **extra} if extra else payload


def payload_of(result: Any, layout: dict[str, Any]) -> dict[str, Any]:
    """``result``'s JSON as the command line writes it: its ``layout`` (or the ``"payload"`` renderer's dict)
    with each note's sentence beside its record (``{"code", "data", "text"}``: the top-level ``"notes"`` and
    those of each section) and the headline's sentence in ``headline["text"]``."""
    from .._notes import worded_payload

    to_payload = renderer_for(result, "payload")
    return worded_payload(to_payload(result) if to_payload is not None else layout, renderer_for(result, "headline"))


def headline_of(result: Any) -> dict[str, Any]:
    """``result.headline``: the JSON's ``"headline"`` where it has one (with its sentence), else the sentence of
    the ``"headline"`` renderer alone, as ``{"text": ...}``."""
    d = _payload(result, None)
    h = d.get("headline")
    if isinstance(h, dict) and "text" in h:
        return h
    if isinstance(h, str):          # a verdict line the payload renderer wrote
        return {"text": h}
    words = renderer_for(result, "headline")
    if words is None:
        raise AttributeError(f"{type(result).__name__} has no headline: register a 'headline' renderer for it")
    return {**(h if isinstance(h, dict) else {}), "text": words(d)}


def render(result: Any, *, fmt: str | None, out: str, kind: str, extra: dict[str, Any] | None = None,
           seed: int | None = None, input_hash: str | None = None, command: str | None = None,
           title: str | None = None, html: Callable[[dict[str, Any], dict[str, Any]], str] | None = None) -> None:
    """Write ``result`` in ``fmt`` (None: from the ``out`` suffix, else text) to ``out`` ('-' = stdout).

    ``extra`` holds keys the command adds to the payload next to the result's own (e.g. where an estimate
    came from); they are rendered and written to JSON like the result's. ``html`` replaces the registered
    HTML page where the page needs more than the payload (``watch``'s confidence bands).
    """
    from .._render import emit

    drawn = {f: _for_cli(renderer_for(result, f)) for f in FORMATS}
    if html is not None:
        drawn["html"] = html
    emit(_payload(result, extra), kind=kind, fmt=fmt, out=out, renderers=drawn, seed=seed, input_hash=input_hash,
         command=command, title=title)


def _for_cli(fn: Callable[..., Any] | None) -> Callable[..., Any] | None:
    """``fn`` writing for the command line: a renderer whose words differ by audience takes ``cli`` (a Python
    user reads "Watch.next()", a terminal user "the 'score next' line"); :func:`render` writes the commands'
    output, :func:`to_string` a Python user's."""
    import functools
    import inspect

    if fn is not None and "cli" in inspect.signature(fn).parameters:
        return functools.partial(fn, cli=True)
    return fn


__all__ = ["FORMATS", "formats_for", "headline_of", "payload_of", "render", "renderer", "renderer_for", "renderer_named",
           "to_string"]
