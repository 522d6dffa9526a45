"""Reader registry: one module per format, each registered with a sniffer.

A reader is a function ``read(path, opts) -> Iterator[pandas.DataFrame]`` that
streams chunks of canonical long rows with columns ``model, item, score`` and,
where known, ``run, condition, group, task, metric``. A sniffer
``sniff(path) -> bool`` says whether a path looks like the reader's format.
Readers never compute statistics.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

from ...errors import DataError, FormatError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["ReadOptions", "Reader", "SEARCH_DEPTH", "load_json", "reader", "readers", "read_units", "sniff",
           "tag_source", "walk_files"]

# How deep a folder is searched for a format's files, by the sniffer and by the reader alike: a
# harness output folder (``benchmark_output/runs/<suite>/<run>/``,
# ``logs/run_evaluation/<run_id>/<model>/<instance>/``) sits well within it.
SEARCH_DEPTH = 8


@dataclass(frozen=True)
class ReadOptions:
    """Options every reader receives (a reader ignores those that do not apply)."""

    model_col: str = "model"
    item_col: str = "item"
    score_col: str = "score"
    group_col: str | None = None  # None = auto-detect ("subject", "group", ...); "" = none
    run_col: str | None = None
    condition_col: str | None = None
    task: str | None = None
    metric: str | None = None
    errors: str = "error"  # for samples that errored: "error" | "wrong" | "drop"
    model_name: str | None = None  # override the model name a log gives
    wide: bool | None = None  # None = auto-detect
    extra: dict = field(default_factory=dict)
    split: str | None = None  # HELM: the split to read (None = the one HELM reports, test)
    dataset: str | None = None  # SWE-bench: the dataset whose instance list is the denominator (lite, verified, full)


@dataclass(frozen=True)
class Reader:
    name: str
    read: Callable[[str, ReadOptions], "Iterator[pd.DataFrame]"]
    sniff: Callable[[str], bool]
    priority: int = 0  # higher is tried first when sniffing
    description: str = ""


_READERS: dict[str, Reader] = {}


def reader(
    name: str, *, sniff: Callable[[str], bool], priority: int = 0, description: str = ""
) -> Callable[[Callable[[str, ReadOptions], "Iterator[pd.DataFrame]"]], Callable]:
    """Register a reader function under ``name`` with its sniffer."""

    def deco(fn: Callable[[str, ReadOptions], "Iterator[pd.DataFrame]"]) -> Callable:
        _READERS[name] = Reader(name, fn, sniff, priority, description or (fn.__doc__ or "").strip().split("\n")[0])
        return fn

    return deco


def readers() -> dict[str, Reader]:
    """All registered readers by name (importing the built-in ones first)."""
    from . import _builtin  # noqa: F401  (registers the built-in readers)

    out = dict(_READERS)
    # hyphenated aliases (lm-eval for lm_eval): users type both
    for name, r in list(out.items()):
        if "_" in name:
            out.setdefault(name.replace("_", "-"), r)
    return out


def accepting(path: str) -> "Iterator[Reader]":
    """The readers whose sniffer accepts ``path``, highest priority first, each once (lazily)."""
    seen: set[str] = set()
    for r in sorted(readers().values(), key=lambda r: -r.priority):
        if r.name in seen:      # a hyphenated alias of a reader already tried
            continue
        seen.add(r.name)
        try:
            if r.sniff(path):
                yield r
        except (OSError, ValueError):  # an unreadable or undecodable file is not this reader's
            continue


def sniff(path: str) -> Reader:
    """The reader whose sniffer accepts ``path`` (highest priority first)."""
    if not os.path.exists(path):
        raise FormatError(f"{path}: no such file or directory")
    for r in accepting(path):
        return r
    raise FormatError(
        f"{path}: could not tell the format; pass --format with one of "
        + ", ".join(sorted(_READERS))
    )


def walk_files(path: str, match: Callable[[str], bool], *, max_depth: int = SEARCH_DEPTH,
               limit: int | None = None) -> list[str]:
    """Files under ``path`` (sorted, at most ``max_depth`` folders down) whose base name satisfies ``match``.

    Symbolic links to folders are not followed and a file reached twice (through a link) is listed
    once, so a harness folder with ``runs/latest -> v1`` is read once. ``limit`` stops the search
    after that many files (a sniffer needs one).
    """
    out: list[str] = []
    seen: set[str] = set()
    base_depth = path.rstrip(os.sep).count(os.sep)

    def unreadable(exc: OSError) -> None:
        # a folder that cannot be listed must not drop its logs in silence (QA M4b)
        if limit is not None:      # sniffing: not this reader's problem
            return
        raise DataError(f"{exc.filename}: cannot read this folder ({exc.strerror}); fix its permissions or "
                        "move it out of the input") from None

    for root, dirs, files in os.walk(path, onerror=unreadable):
        dirs.sort()
        if root.count(os.sep) - base_depth >= max_depth:
            dirs[:] = []
        for f in sorted(files):
            if not match(f):
                continue
            p = os.path.join(root, f)
            real = os.path.realpath(p)
            if real in seen:
                continue
            seen.add(real)
            out.append(p)
            if limit is not None and len(out) >= limit:
                return out
    return out


def load_json(path: str, *, what: str = "file") -> Any:
    """A whole JSON file; invalid JSON is a DataError naming the file and the line."""
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise DataError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}); the {what} may be truncated"
        ) from None


def read_units(units: list[str], read_one: "Callable[[str, ReadOptions], Iterator[pd.DataFrame]]",
               opts: ReadOptions) -> "Iterator[pd.DataFrame]":
    """Stream the rows of each file in ``units``; with several files each row says its file."""
    for u in units:
        yield from (tag_source(read_one(u, opts), u) if len(units) > 1 else read_one(u, opts))


def tag_source(chunks: "Iterator[pd.DataFrame]", path: str) -> "Iterator[pd.DataFrame]":
    """Add a ``source`` column (the file the rows came from) to every chunk that lacks one.

    Readers that expand a directory into several files use it, so that an error about rows
    from two files (the same run logged twice) can name both files.
    """
    for df in chunks:
        if "source" not in df.columns:
            attrs = dict(df.attrs)
            df = df.assign(source=path)
            df.attrs.update(attrs)
        yield df
