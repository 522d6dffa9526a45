"""Reader registry: the :class:`Reader` protocol, registration, sniffing and the reading skeleton.

A reader turns one harness's logs into chunks of canonical long rows (columns ``model, item,
score`` and, where known, ``run, condition, group, task, metric``). It is a class with:

* ``name``, ``priority`` (higher is sniffed first), ``description`` and ``looks_for`` (what a
  folder must hold, for the "nothing found" error: ``"samples_*.jsonl files"``);
* ``sniff(path) -> bool``: does ``path`` (a file or a folder) look like this format?
* ``units(path) -> list[str]``: the units a folder expands into (usually files), ``[]`` when
  it holds none; only called for folders;
* ``read(unit, opts) -> Iterator[DataFrame]``: the rows of one unit (a file, or the path given).

and, optionally:

* ``skip(unit, opts) -> Skip | None``: why a unit found in a folder holds nothing for
  ``opts.task``/``opts.metric``, decided without reading it all (the unit is then left out and
  said so);
* ``absent(path, option, chosen) -> str | None``: why ``path`` holds nothing for ``option`` = ``chosen``
  when the reader can say more than "not there" (lm-eval: a task with aggregates but no samples file);
* ``companions(unit) -> list[str]``: other files whose content the unit's rows depend on
  (the store fingerprints them with the unit);
* ``combine(chunks) -> list[DataFrame]``: a step over the chunks of every unit of one path
  (inspect numbers the runs of several logs of one model).

The registry makes one reader object per read (:func:`open_reader`), so a reader may keep what
it learns across the units of that read on ``self`` (lm-eval's ``doc_hash`` table). The registry
owns the skeleton every reader used to repeat (:func:`read`): folder expansion, the empty-folder
error, ``skip``, tagging each row with its ``source`` file when there are several units, and the
error when every unit was skipped. Chunk metadata travels in ``DataFrame.attrs``: ``line_numbers``
(the index holds file line numbers), ``notes`` (sentences for the user) and ``provenance``.

A reader of battles (pairwise verdicts, for ``rt.arena``) is a reader of this same registry with
``kind = "battles"``: the same attributes and methods, its ``read(unit, opts)`` taking the battles options
and yielding the unit's canonical battles table with its codes (:mod:`._battles`,
``data/battles/_canon.py``). ``readers(kind="battles")`` lists them; the score path never sees them.

Built-in readers are named in :data:`BUILTIN_READERS` and :data:`BUILTIN_BATTLE_READERS` (:mod:`._builtin`
imports them);
third-party readers register through the entry-point group ``ranktrust.readers`` (a reader
class), loaded when readers are first listed or sniffed. A plug-in that fails to load gives one
warning naming it and is left out. Readers never compute statistics.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Protocol, runtime_checkable

from ...errors import DataError, FormatError, warn
from ._util import did_you_mean

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["BUILTIN_BATTLE_READERS", "BUILTIN_READERS", "ENTRY_POINT_GROUP", "ReadOptions", "Reader", "Skip", "UnitPlan", "accepting", "open_reader",
           "plan_units", "read", "readers", "register", "sniff"]

ENTRY_POINT_GROUP = "ranktrust.readers"
#: the readers that ship with ranktrust (each the name of its module here, imported by ``_builtin``)
BUILTIN_READERS = ("table", "lm_eval", "inspect", "helm", "lighteval", "swebench", "eee",
                   "mtbench", "single_grade", "evalplus", "promptfoo")
#: the modules here that hold the built-in battles readers (``kind = "battles"``)
BUILTIN_BATTLE_READERS = ("battles",)


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
    split: str | None = None  # HELM: the split to read (None = the one HELM reports, test)
    dataset: str | None = None  # SWE-bench: the dataset whose instance list is the denominator (lite, verified, full)
    # the scores' range mapped onto [0, 1] (a largest score, or 'MIN,MAX'): applied where rows become results
    # (the store's ingest; rt.read takes its own `scale`); readers yield the scores as the harness wrote them
    scale: "float | str | tuple[float, float] | None" = None


@dataclass(frozen=True)
class Skip:
    """Why a unit holds no rows for the chosen ``option`` (``"task"`` or ``"metric"``), and what it holds."""

    option: str
    chosen: str
    found: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"no rows for {self.option} {self.chosen!r} (it has {', '.join(map(repr, self.found)) or 'none'})"


@runtime_checkable
class Reader(Protocol):
    """What a reader class provides (see the module docstring for the optional methods)."""

    name: str
    priority: int
    description: str
    looks_for: str
    # kind: str = "scores"  (optional; "battles" for a reader of battles)

    def sniff(self, path: str) -> bool: ...

    def units(self, path: str) -> list[str]: ...

    def read(self, unit: str, opts: ReadOptions) -> "Iterator[pd.DataFrame]": ...


_READERS: dict[str, type] = {}
_BATTLE_READERS: dict[str, type] = {}
_PLUGINS_LOADED = False
KINDS = ("scores", "battles")


def register(cls: type) -> type:
    """Class decorator: register a reader class under its ``name`` and ``kind`` (a later one of the same name
    and kind wins)."""
    missing = [a for a in ("name", "sniff", "units", "read") if not hasattr(cls, a)]
    if missing:
        raise TypeError(f"reader {cls!r} lacks {', '.join(missing)}; see ranktrust.data.readers._registry.Reader")
    kind = getattr(cls, "kind", "scores")
    if kind not in KINDS:
        raise TypeError(f"reader {cls!r}: kind {kind!r} is not one of {', '.join(KINDS)}")
    (_BATTLE_READERS if kind == "battles" else _READERS)[cls.name] = cls
    return cls


def _load_plugins() -> None:
    """Register the readers that installed distributions declare under ``ranktrust.readers`` (once)."""
    global _PLUGINS_LOADED
    if _PLUGINS_LOADED:
        return
    _PLUGINS_LOADED = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            cls = ep.load()
            register(cls)
        except Exception as exc:  # noqa: BLE001 - a broken plug-in must not stop reading anything else
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            warn(f"ranktrust: reader plug-in {ep.name!r} ({ep.value}) was not loaded: {why}",
                 code="plugin_not_loaded", data={"name": ep.name, "value": ep.value, "error": type(exc).__name__},
                 stacklevel=3)


def readers(kind: str = "scores") -> dict[str, type]:
    """All registered reader classes of ``kind`` (``"scores"``, or ``"battles"``) by name: the built-in ones, then
    the entry-point plug-ins."""
    from ._builtin import load

    load((*BUILTIN_READERS, *BUILTIN_BATTLE_READERS))   # registers the built-in readers (once)

    _load_plugins()
    out = dict(_BATTLE_READERS if kind == "battles" else _READERS)
    # hyphenated aliases (lm-eval for lm_eval): users type both
    for name, r in list(out.items()):
        if "_" in name:
            out.setdefault(name.replace("_", "-"), r)
    return out


def open_reader(name: str) -> Reader:
    """A fresh reader object for one read (an unknown name is a FormatError listing the known ones)."""
    regs = readers()
    if name not in regs:
        battles = " (a battles format: read it with rt.read_battles, rank it with rt.arena)" \
            if name in readers("battles") else ""
        raise FormatError(f"unknown format {name!r}{battles}; known formats: {', '.join(sorted(regs))}",
                          param="format", code="unknown_format", data={"format": name, "known": sorted(regs)})
    return regs[name]()


def by_priority(kind: str = "scores") -> "Iterator[type]":
    """The reader classes of ``kind``, highest priority first, each once (not again under its hyphenated alias)."""
    seen: set[str] = set()
    for r in sorted(readers(kind).values(), key=lambda r: -getattr(r, "priority", 0)):
        if r.name not in seen:
            seen.add(r.name)
            yield r


def accepting(path: str) -> "Iterator[type]":
    """The reader classes whose sniffer accepts ``path``, highest priority first, each once (lazily)."""
    for r in by_priority():
        try:
            if r().sniff(path):
                yield r
        except (OSError, ValueError):  # an unreadable or undecodable file is not this reader's
            continue


def sniff(path: str) -> type:
    """The reader class whose sniffer accepts ``path`` (highest priority first).

    A file that two harness readers accept is refused with both names (the table reader, which takes any
    CSV/JSONL, is the fallback and never counts): the format is never guessed between two harnesses.
    """
    if not os.path.exists(path):
        raise FormatError(f"{path}: no such file or directory", code="no_such_file", data={"path": path})
    found = list(accepting(path))
    harness = [r.name for r in found if r.name != "table"]
    if len(harness) > 1 and not os.path.isdir(path):
        raise FormatError(f"{path}: the file looks like {' and '.join(harness)} logs at once; name its format with "
                          "`format`", param="format", code="format_ambiguous", data={"path": path, "formats": harness})
    for r in found:
        return r
    raise FormatError(
        f"{path}: could not tell the format; name it with `format` (one of "
        + ", ".join(sorted(_READERS)) + ")", param="format", code="format_unknown_file", data={"path": path}
    )


@dataclass
class UnitPlan:
    """The units one reader found for one path, in order, each with why it is skipped (or None)."""

    reader: Reader
    path: str
    entries: list[tuple[str, "Skip | None"]]

    @property
    def units(self) -> list[str]:
        """The units to read."""
        return [u for u, why in self.entries if why is None]

    @property
    def skipped(self) -> list[tuple[str, Skip]]:
        """The units left out, with the reason."""
        return [(u, why) for u, why in self.entries if why is not None]


def plan_units(rd: "Reader | type", path: str, opts: ReadOptions) -> UnitPlan:
    """Expand ``path`` into the reader's units (a folder: ``units()``; a file: itself) and apply ``skip``.

    Raises DataError when a folder holds none of the reader's units.
    """
    reader: Reader = rd() if isinstance(rd, type) else rd
    if opts.item_col == "doc_hash" and reader.name != "table" and not getattr(reader, "content_key", False):
        raise DataError(f"{path}: {reader.name} logs carry no question content to pair items by; `item`='doc_hash' "
                        "pairs items by content for the readers whose files carry the question (lighteval, lm_eval, inspect, helm, "
                        "eee)", param="item")
    if os.path.isdir(path):
        units = reader.units(path)
        if not units:
            what = getattr(reader, "looks_for", "") or f"{reader.name} files"
            raise DataError(f"{path}: no {what} found in this folder", code="empty_folder",
                            data={"path": path, "reader": reader.name})
    else:
        units = [path]
    # only units found in a folder are skipped: a file named by the user that holds nothing for the
    # options is the reader's error to report
    skip = getattr(reader, "skip", None) if os.path.isdir(path) else None
    return UnitPlan(reader, path, [(u, skip(u, opts) if skip is not None else None) for u in units])


def nothing_left(path: str, skipped: list[tuple[str, Skip]], reader: "Reader | None" = None) -> DataError:
    """The error for an input whose every unit was skipped: what was asked for, and what is there.

    A reader may say more with an optional ``absent(path, option, chosen) -> str | None`` (lm-eval: the task
    is in a results file but has no samples file).
    """
    first = skipped[0][1]
    found = sorted({f for _, s in skipped if s.option == first.option for f in s.found})
    available = f"available: {', '.join(found) or 'none'}"
    why = getattr(reader, "absent", None)
    said = why(path, first.option, first.chosen) if why is not None else None
    if said:
        return DataError(f"{said}; {available}", param=first.option)
    return DataError(f"{path}: no {first.option} {first.chosen!r}{did_you_mean(str(first.chosen), found)}; "
                     f"{available}", param=first.option)


def read(rd: "Reader | type", path: str, opts: ReadOptions) -> "Iterator[pd.DataFrame]":
    """Every row ``rd`` reads from ``path``: units in order, each row tagged with its unit when there are several."""
    plan = plan_units(rd, path, opts)
    if not plan.units:
        raise nothing_left(path, plan.skipped, plan.reader)
    if opts.task is None or not plan.skipped:
        yield from _read_plan(plan, path, opts)
        return
    # a task chosen in a folder of several tasks: if its logs give no rows (header-only and skipped, or every
    # sample dropped), say so and list the other tasks, not "no task ...; available: " with nothing after it
    rows, said = 0, []
    for chunk in _read_plan(plan, path, opts):
        rows += len(chunk)
        if not len(chunk) and chunk.attrs.get("skipped"):
            # why the reader skipped the log, said as an error is (its note is a record worded in reporting/)
            said.append(str(chunk.attrs["skipped"]))
        yield chunk
    if not rows:
        found = sorted({f for _, sk in plan.skipped if sk.option == "task" for f in sk.found})
        why = "; ".join(dict.fromkeys(said)) or "every sample of its logs was dropped"
        raise DataError(f"{path}: no rows of task {opts.task!r} were read ({why}); the folder's other tasks: "
                        f"{', '.join(found) or 'none'}", param="task", code="task_not_found",
                        data={"path": path, "task": opts.task, "found": list(found)})


def _read_plan(plan: UnitPlan, path: str, opts: ReadOptions) -> "Iterator[pd.DataFrame]":
    reader, units = plan.reader, plan.units
    combine = getattr(reader, "combine", None)
    if len(units) == 1:
        one = reader.read(units[0], opts)
        # a folder's one unit still goes through combine (a pooled read notes its subjects); a file streams
        yield from (combine(list(one)) if combine is not None and os.path.isdir(path) else one)
        return
    chunks = (c for u in units for c in tag_source(reader.read(u, opts), u))
    yield from (combine(list(chunks)) if combine is not None else chunks)


def tag_source(chunks: "Iterator[pd.DataFrame]", path: str) -> "Iterator[pd.DataFrame]":
    """Add a ``source`` column (the unit the rows came from) to every chunk that lacks one.

    Used when a path expands into several units, so that an error about rows from two files
    (the same run logged twice) can name both. Such rows carry no file line numbers.
    """
    for df in chunks:
        attrs: dict[str, Any] = dict(df.attrs)
        if "source" not in df.columns:
            df = df.assign(source=path)
        df.attrs.update(attrs)
        df.attrs["line_numbers"] = False
        yield df
