"""The JSON Schema (draft 2020-12) of ranktrust's JSON output, generated from the result classes.

Nothing here is written by hand per key: a result whose ``to_dict()`` is the default
(:meth:`ranktrust.results.Result.to_dict`) is described by its dataclass fields and their
type hints; a result that overrides ``to_dict()`` declares its layout as the method's return
annotation, a ``TypedDict`` next to the class (nested rows are ``TypedDict`` s too). The type
hints become JSON Schema as follows:

* ``float`` -> number or null (NaN and infinities are written as null), ``int`` -> integer,
  ``bool``, ``str``, ``None``; ``Literal[...]`` -> ``enum``; ``X | Y`` -> ``anyOf``;
* ``list[X]``, ``tuple[X, ...]``, ``Sequence[X]`` -> array of X; ``dict[str, X]`` -> object of X;
* ``numpy.ndarray`` -> nested arrays of numbers, booleans, strings or null;
* a ``TypedDict`` -> a closed object (its required keys required, no others allowed);
* a result class or another dataclass -> a closed object (``$ref`` to its definition).

A result with a ``"headline"`` renderer whose layout declares no ``"headline"`` gets one, required and first,
where its ``to_dict()`` is called from outside (a command's JSON, ``result_schema``, an added key that is a whole
result): :class:`HeadlineText`, its one sentence under ``text``. As a section of another result's JSON it is its
layout alone.

A command's JSON is its result's ``to_dict()`` plus a ``meta`` block (:class:`Meta`) and, for
a few commands, keys the command adds (:data:`COMMANDS`). ``tests/test_schema.py`` validates the
JSON of every command on the bundled dataset against this schema.

>>> import ranktrust as rt
>>> s = rt.json_schema("stability")
>>> s["$schema"]
'https://json-schema.org/draft/2020-12/schema'
>>> s["$ref"]
'#/$defs/output.stability'
"""

from __future__ import annotations

import collections.abc
import copy
import dataclasses
import functools
import importlib
import types
import typing
from typing import Any, Literal, TypedDict, Union

import numpy as np

from .errors import ArgumentError
from .results import Result

__all__ = ["json_schema", "result_schema", "undeclared", "COMMANDS", "Meta"]

DIALECT = "https://json-schema.org/draft/2020-12/schema"


class Meta(TypedDict):
    """The ``meta`` block of every command's JSON (``reporting/_render.py``)."""

    format: Literal[2]
    kind: str
    version: str
    seed: int | None
    input_hash: str | None
    command: str | None
    created: str


class HeadlineText(TypedDict):
    """The ``"headline"`` of a result whose layout has none: its answer in one sentence (``result.headline``),
    which ``to_dict()`` and every command's JSON carry first (``reporting/_notebook.py``, ``result_payload``)."""

    text: str


def _has_headline(cls: type) -> bool:
    """Whether ``cls.to_dict()`` carries a ``"headline"`` its layout does not declare: a ``"headline"`` renderer
    is registered for it (the presentation layer adds ``{"text": ...}``)."""
    from .reporting.renderers import renderer_for

    return renderer_for(cls, "headline") is not None


#: meta.kind -> (the result class as "module:Class", keys the command adds next to the result's own)
COMMANDS: dict[str, tuple[str, dict[str, Any]]] = {
    "report": ("ranktrust.leaderboard._result:LeaderboardReport",
               {"gold": "ranktrust.leaderboard._gold:GoldSectionJSON"}),    # with --gold-col
    "compare": ("ranktrust.stats._paired:PairedComparison", {}),
    "power": ("ranktrust.stats._power:PowerResult", {"disagreement_source": str}),
    "stability": ("ranktrust.ranking._stability:Stability", {}),
    "ranks": ("ranktrust.ranking._ranksets:RankSets", {"tiers": "ranktrust.ranking._tiers:Tiers",
                                                       "gold": "ranktrust.leaderboard._gold:GoldRanksJSON"}),
    "splithalf": ("ranktrust.ranking._splithalf:SplitHalf", {}),
    "microbench": ("ranktrust.subsets._mdad:MDADResult", {}),
    "microbench-subset": ("ranktrust.subsets._select:Subset", {}),
    "repeats": ("ranktrust.runs:Repeats", {}),
    "sensitivity": ("ranktrust.runs._sensitivity:Sensitivity", {}),
    "ingest": ("ranktrust.data.store:IngestSummary", {}),
    "db-list": ("ranktrust.data.store:StoreSummary", {}),
    "score": ("ranktrust.score._runner:ScoreResults", {}),
    "watch": ("ranktrust.sequential._watch:WatchStatus", {}),
    "watch-replay": ("ranktrust.sequential._replay:ReplayResult", {}),
    "gate": ("ranktrust.gating:Gate", {"headline": "ranktrust.gating:GateHeadline"}),
    "arena": ("ranktrust.preference._result:ArenaResult", {}),
    "suite": ("ranktrust.ranking._suite:SuiteResult", {}),
    "judge": ("ranktrust.judges._audit:JudgeAudit", {"headline": "ranktrust.judges._audit:AuditHeadline"}),
}

#: modules whose layouts the report's layout names (its sections) beyond those of COMMANDS
_ALSO_LOAD = ("ranktrust.quality", "ranktrust.ranking._tiers", "ranktrust.stats._paired")

_NDARRAY = {
    "type": "array",
    "items": {"anyOf": [{"type": ["number", "boolean", "string", "null"]}, {"$ref": "#/$defs/ndarray"}]},
}


def _load(path: str) -> Any:
    mod, _, name = path.partition(":")
    return getattr(importlib.import_module(mod), name)


def _layout_names() -> dict[str, Any]:
    """Every TypedDict and result class of the loaded ranktrust modules, by name: a layout may name
    another module's layout or result (the report's sections) imported only for type checking."""
    import sys

    out: dict[str, Any] = {}
    for name, mod in list(sys.modules.items()):
        if name.startswith("ranktrust.") and mod is not None:
            for k, v in vars(mod).items():
                if isinstance(v, type) and (typing.is_typeddict(v) or issubclass(v, Result)):
                    out.setdefault(k, v)
    return out


class _Builder:
    """Turns type hints into JSON Schema, collecting named definitions in ``defs``."""

    def __init__(self) -> None:
        for path, _extra in COMMANDS.values():      # load every layout the hints may name
            try:
                _load(path)
            except ImportError:                     # an optional extra (e.g. scoring) not installed
                pass
        for extra in _ALSO_LOAD:
            importlib.import_module(extra)
        self.names = _layout_names()
        self.undeclared: list[str] = []
        self.unresolved: list[str] = []
        self.defs: dict[str, Any] = {"ndarray": _NDARRAY, "Meta": None}
        self.defs["Meta"] = self._typeddict(Meta)

    # ---------------------------------------------------------------- hints
    def of(self, tp: Any) -> dict[str, Any]:
        if tp is Any or tp is object:
            return {}
        if tp is None or tp is type(None):
            return {"type": "null"}
        if isinstance(tp, str):
            return self.of(_load(tp)) if ":" in tp else {}
        if isinstance(tp, typing.ForwardRef):
            return {}
        if tp is bool:
            return {"type": "boolean"}
        if tp is int:
            return {"type": "integer"}
        if tp is float:
            return {"type": ["number", "null"]}
        if tp is str:
            return {"type": "string"}
        if tp is np.ndarray:
            return {"$ref": "#/$defs/ndarray"}
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is Literal:
            return {"enum": list(args)}
        if origin in (Union, types.UnionType):
            subs = [self.of(a) for a in args]
            return {} if {} in subs else {"anyOf": subs}
        if origin in (list, tuple, collections.abc.Sequence, set, frozenset):
            if origin is tuple and args and (len(args) != 2 or args[1] is not Ellipsis):
                return {"type": "array", "prefixItems": [self.of(a) for a in args], "items": False}
            return {"type": "array", "items": self.of(args[0]) if args else {}}
        if tp in (list, tuple):
            return {"type": "array"}
        if origin in (dict, collections.abc.Mapping):
            return {"type": "object", "additionalProperties": self.of(args[1]) if args else {}}
        if tp is dict:
            return {"type": "object"}
        if typing.is_typeddict(tp):
            return self._ref(tp.__name__, lambda: self._typeddict(tp))
        if isinstance(tp, type) and issubclass(tp, Result):
            return self._ref(tp.__name__, lambda: self.result(tp))
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            return self._ref(tp.__name__, lambda: self._fields(tp))
        return {}

    def _ref(self, name: str, make: Any) -> dict[str, Any]:
        if name not in self.defs:
            self.defs[name] = None          # placeholder: a type may refer to itself
            self.defs[name] = make()
        return {"$ref": f"#/$defs/{name}"}

    def _hints(self, obj: Any) -> dict[str, Any]:
        try:
            return typing.get_type_hints(obj, localns=self.names)
        except (NameError, TypeError, AttributeError):
            # a hint names a type only imported for type checking (e.g. pandas): resolve key by key
            ns = {**vars(importlib.import_module(obj.__module__)), **self.names}
            out = {}
            for k, v in getattr(obj, "__annotations__", {}).items():
                text = v.__forward_arg__ if isinstance(v, typing.ForwardRef) else v
                try:
                    out[k] = eval(text, ns) if isinstance(text, str) else text  # noqa: S307 - own annotations
                except Exception:
                    self.unresolved.append(f"{obj.__qualname__}.{k}: {text}")
                    out[k] = Any
            return out

    def _typeddict(self, td: Any) -> dict[str, Any]:
        hints = self._hints(td)
        props = {k: self.of(v) for k, v in hints.items()}
        out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
        req = [k for k in hints if k in td.__required_keys__]
        if req:
            out["required"] = req
        if td.__doc__:
            out["description"] = " ".join(td.__doc__.split())
        return out

    def _fields(self, cls: type) -> dict[str, Any]:
        hints = self._hints(cls)
        names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
        return {"type": "object", "properties": {k: self.of(hints.get(k, Any)) for k in names},
                "required": names, "additionalProperties": False}

    def result(self, cls: type) -> dict[str, Any]:
        """The schema of ``cls().to_dict()``: the fields, or the layout ``to_dict`` declares."""
        if cls.to_dict is Result.to_dict:
            out = self._fields(cls)
        else:
            ret = self._hints(cls.to_dict).get("return")
            if not typing.is_typeddict(ret):
                # to_dict overrides the default without declaring its layout: an open object, listed
                # by undeclared() (tests/test_schema.py keeps that list from growing)
                self.undeclared.append(cls.__name__)
                return {"type": "object", "description": f"{cls.__name__}: layout not declared yet"}
            out = self._typeddict(ret)
        doc = (cls.__doc__ or "").strip().splitlines()
        if doc:
            out["description"] = doc[0]
        return out

    def called(self, tp: Any) -> dict[str, Any]:
        """The schema of ``tp().to_dict()`` called from outside another ``to_dict`` (a command's JSON, an extra
        key that is a whole result): the layout, and first a required ``"headline"`` (:class:`HeadlineText`)
        where the presentation layer adds one. Inside another result's JSON (a section) a result is its layout
        alone, ``$defs[name]``."""
        ref = self.of(tp)
        if not (isinstance(tp, type) and issubclass(tp, Result)):
            return ref
        base = self.defs[tp.__name__]
        if "properties" not in base or "headline" in base["properties"] or not _has_headline(tp):
            return ref
        return self._headlined(base)

    def _headlined(self, layout: dict[str, Any]) -> dict[str, Any]:
        return {**layout, "properties": {"headline": self.of(HeadlineText), **layout["properties"]},
                "required": ["headline", *layout.get("required", [])]}

    @staticmethod
    def _meta(kind: str) -> dict[str, Any]:
        return {"allOf": [{"$ref": "#/$defs/Meta"}], "properties": {"kind": {"const": kind}}}

    def output(self, kind: str) -> dict[str, Any]:
        path, extra = COMMANDS[kind]
        cls = _load(path)
        self.of(cls)
        base = self.defs[cls.__name__]
        if "properties" in base and "headline" not in base["properties"] and _has_headline(cls):
            base = self._headlined(base)
        if "properties" not in base:        # undeclared layout: anything next to meta (and its headline)
            said = _has_headline(cls)
            return {"type": "object", "properties": {"meta": self._meta(kind),
                                                     **({"headline": self.of(HeadlineText)} if said else {})},
                    "required": ["meta", *(["headline"] if said else [])]}
        props = {"meta": self._meta(kind), **base["properties"],
                 **{k: self.called(_load(v) if isinstance(v, str) else v) for k, v in extra.items()}}
        return {"type": "object", "description": f"the JSON of `ranktrust {kind.split('-')[0]}` "
                f"({cls.__name__}.to_dict() plus meta)", "properties": props,
                "required": ["meta", *base.get("required", [])], "additionalProperties": False}


def _document(b: _Builder, top: dict[str, Any], title: str) -> dict[str, Any]:
    return {"$schema": DIALECT, "$id": "https://ranktrust.dev/schema/format-2.json", "title": title,
            **top, "$defs": dict(sorted(b.defs.items()))}


def undeclared() -> list[str]:
    """Result classes reached from :data:`COMMANDS` whose ``to_dict`` declares no layout (open objects),
    and layout keys whose type hint did not resolve (``"Class.key: hint"``; described as anything)."""
    b = _Builder()
    for k in COMMANDS:
        b.output(k)
    return sorted(set(b.undeclared)) + sorted(set(b.unresolved))


def result_schema(cls: type) -> dict[str, Any]:
    """The schema of ``cls.to_dict()`` for one result class (a whole document with its ``$defs``)."""
    b = _Builder()
    return _document(b, b.called(cls), f"ranktrust {cls.__name__}")


def json_schema(kind: str | None = None) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ranktrust's JSON output (format 2).

    Parameters
    ----------
    kind : str, optional
        A command's ``meta.kind`` (``"report"``, ``"compare"``, ``"power"``, ``"stability"``,
        ``"ranks"``, ``"splithalf"``, ``"microbench"``, ``"repeats"``, ...; see :data:`COMMANDS`):
        the schema of that command's JSON. Default: any command's JSON (``oneOf``, told apart by
        ``meta.kind``).

    Returns
    -------
    dict
        A JSON-ready schema document; every result class it reaches is in ``$defs`` by name.
    """
    # a fresh copy each call: callers may change what they get
    return copy.deepcopy(_json_schema(kind))


@functools.lru_cache(maxsize=None)
def _json_schema(kind: str | None) -> dict[str, Any]:
    b = _Builder()
    if kind is not None:
        if kind not in COMMANDS:
            raise ArgumentError(f"`kind` must be one of {', '.join(map(repr, COMMANDS))}, got {kind!r}")
        b.defs[f"output.{kind}"] = b.output(kind)
        return _document(b, {"$ref": f"#/$defs/output.{kind}"}, f"ranktrust {kind} JSON")
    for k in COMMANDS:
        b.defs[f"output.{k}"] = b.output(k)
    return _document(b, {"oneOf": [{"$ref": f"#/$defs/output.{k}"} for k in COMMANDS]}, "ranktrust JSON")
