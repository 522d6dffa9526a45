"""Base types shared by every result object.

Every result is a ``@dataclass(frozen=True, eq=False)`` subclass of :class:`Result`
(checked when the first instance is built, and by ``tests/test_results.py``).
Arrays stay arrays inside a result (no Python object per pair or per resample) and
are read-only: the base ``__post_init__`` stores a non-writeable view of every array
field, so the caller's own array is left as it was. ``to_dict()`` builds the
JSON-ready structure (plain floats, ints, strings, lists and dicts; no NaN) whose
keys are the stable public contract of the JSON output. By default it is derived
from the fields (one key per field, same name); a subclass overrides it only where
the JSON layout must differ, and then a field that is emitted keeps its name as
its key. ``ranktrust.json_schema()`` (``_schema.py``) describes that output.

Shared field names: ``estimate``/``score`` (point estimate), ``se``,
``ci_low``/``ci_high``, ``p_value``, ``clustered``, ``confidence_level``,
``n_resamples``, ``models``, and ``n_items`` (the number of items an estimate
uses, per model or per pair where it differs).
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import math
from typing import Any, Callable, ClassVar, Mapping, NamedTuple, TypedDict

import numpy as np

__all__ = ["ConfidenceInterval", "HeadlineJSON", "Note", "NoteJSON", "Result", "jsonable"]


class ConfidenceInterval(NamedTuple):
    """A confidence interval ``(low, high)``, as in ``scipy.stats``: what :attr:`Result.ci` returns."""

    low: float
    high: float


def _array_json(a: np.ndarray) -> Any:
    """An array as nested lists; non-finite floats become None (vectorised: no call per element)."""
    if a.dtype.kind == "f":
        fin = np.isfinite(a)
        if fin.all():
            return a.tolist()
        obj = a.astype(object)
        obj[~fin] = None
        return obj.tolist()
    if a.dtype.kind in "biu":
        return a.tolist()
    return [jsonable(v) for v in a.tolist()]


#: the types :func:`jsonable` returns as they are (exact types: a subclass, such as a NumPy scalar, is converted)
_ATOMS = frozenset((str, int, bool, type(None)))


def jsonable(value: Any) -> Any:
    """Convert NumPy scalars/arrays, tuples and dataclasses into JSON-ready values.

    Non-finite floats become ``None`` (JSON has no NaN). NumPy scalars become Python's ``bool``, ``int`` and
    ``float`` (``np.float64``, a subclass of ``float``, too), dict keys text (``str(key)``), tuples lists, a
    :class:`Result` its ``to_dict()``, another dataclass the dict of its fields; any other value (a ``str`` or
    ``int`` subclass, an object JSON cannot write) is returned as it is.

    A dict or list is walked in one loop that keeps its plain values (text, ints, booleans, None, finite floats)
    without a call each, so the JSON of a large report is not one call per number (``bench/bench_json_writer.py``).
    """
    t = type(value)
    if t in _ATOMS:
        return value
    if t is float:
        return value if value - value == 0.0 else None      # x - x is 0.0 for a finite x, NaN for NaN and inf
    if t is dict:
        return _dict_json(value)
    if t is list or t is tuple:
        return _list_json(value)
    if t is np.float64:                                      # the NumPy scalars results hold, without the search
        value = float(value)
        return value if value - value == 0.0 else None
    if t is np.int64:
        return int(value)
    return _other_json(value)


def _dict_json(d: Mapping[Any, Any]) -> dict[str, Any]:
    out = {}
    for k, v in d.items():
        t = type(v)
        if t is float:
            if v - v != 0.0:
                v = None
        elif t is np.float64:
            v = float(v)
            if v - v != 0.0:
                v = None
        elif t not in _ATOMS:
            v = jsonable(v)
        out[k if type(k) is str else str(k)] = v
    return out


def _list_json(items: Any) -> list[Any]:
    return [v if (t := type(v)) in _ATOMS or t is float and v - v == 0.0 else jsonable(v) for v in items]


def _other_json(value: Any) -> Any:
    """:func:`jsonable` of a value of any type but the exact plain ones (subclasses, NumPy, dataclasses, ...)."""
    if isinstance(value, np.generic):
        if isinstance(value, np.bool_):
            return bool(value)
        if isinstance(value, np.integer):
            return int(value)
        if isinstance(value, np.floating):
            f = float(value)
            return f if math.isfinite(f) else None
    if isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return _dict_json(value)
    if isinstance(value, (list, tuple)):
        return _list_json(value)
    if isinstance(value, np.ndarray):
        return _array_json(value)
    if isinstance(value, Result):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


@dataclasses.dataclass(frozen=True)
class Note:
    """One thing the reader must know, as data: ``code`` says what it is, ``data`` holds its numbers and names.

    Analysis code (the report's builders, the readers, :meth:`ranktrust.quality.DataQuality.notes`, ...) builds
    these records and writes no sentence; the sentence is composed in :mod:`ranktrust.reporting._notes`
    (``ranktrust.reporting.note_text(note)``), whose ``NOTE_WORDS`` is the list of codes (``tests/test_notes.py``
    fails on a code without words). Two codes carry text of their own: ``input`` (a matrix's string note,
    ``data["text"]``) and ``warning`` (a warning raised while the report was built: ``text``, ``category``).
    A sentence that names an API option does so in backticks (```split`` chooses``), which the command line
    turns into its flag (``--split``) while it renders (``ranktrust.reporting.option_words``); the record is the
    same on both.
    """

    code: str
    data: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "data": jsonable(dict(self.data))}


class HeadlineJSON(TypedDict):
    """"Is #1 really #1?" as numbers, the part every headline has (the leaderboard report's ``Headline`` and the
    arena's ``ArenaHeadline`` add their rank range and who could be #1): the top model, its runner-up, whether the
    two are separated, and the lead's paired test (difference with its CI, p-value, adjusted p-value)."""

    top: str
    runner_up: str | None
    separable: bool | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    p_adjusted: float | None


class _NoteJSON(TypedDict):
    code: str
    data: dict[str, Any]


class NoteJSON(_NoteJSON, total=False):
    """One note in the JSON: the record, and its sentence (``text``, added by the presentation layer)."""

    text: str


def _short(v: Any, limit: int = 6) -> str:
    """A one-line preview of a field value: small values in full, big ones summarised."""
    if isinstance(v, np.ndarray):
        if v.size <= limit and v.ndim <= 1:
            return np.array2string(v, precision=4, separator=", ")
        return f"<array {'x'.join(map(str, v.shape))} {v.dtype}>"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    if isinstance(v, (list, tuple)) and len(v) > limit:
        head = ", ".join(_short(x) for x in list(v)[:3])
        return f"[{head}, ... ({len(v)} in all)]"
    if isinstance(v, dict) and len(v) > limit:
        return f"{{... {len(v)} entries}}"
    if isinstance(v, Result):
        return f"<{type(v).__name__}>"
    r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."


_CHECKED: set[type] = set()


class FrozenDict(dict):
    """A read-only dict: a dict field of a result (``settings``, ``dropped``, ``power``) as the result holds it.
    Still a ``dict`` (JSON, ``isinstance``, ``dict(d)``, ``d | other`` all work); changing it raises TypeError.
    A copy to change is ``dict(d)``."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kw: Any) -> None:
        raise TypeError("a result is frozen: its dict fields are read-only (copy one with dict(...) to change it)")

    __setitem__ = __delitem__ = __ior__ = _refuse  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> Any:   # pickle and deepcopy rebuild it without __setitem__
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> "FrozenDict":
        return self

    def __deepcopy__(self, memo: Any) -> "FrozenDict":
        import copy

        return FrozenDict({k: copy.deepcopy(v, memo) for k, v in self.items()})


class FrozenList(list):
    """A read-only list: a list inside a result's dict field (``settings["style_features"]``) as the result holds
    it. Still a ``list`` (JSON, ``isinstance``, ``==`` with a list, ``list(x)`` all work); changing it raises
    TypeError. A copy to change is ``list(x)``."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kw: Any) -> None:
        raise TypeError("a result is frozen: the lists in its dict fields are read-only (copy one with list(...) "
                        "to change it)")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse  # type: ignore[assignment]
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> Any:   # pickle and deepcopy rebuild it without append
        return (FrozenList, (list(self),))

    def __copy__(self) -> "FrozenList":
        return self

    def __deepcopy__(self, memo: Any) -> "FrozenList":
        import copy

        return FrozenList(copy.deepcopy(v, memo) for v in self)


def _freeze(value: Any) -> Any:
    """A dict as a :class:`FrozenDict`, and the dicts and lists inside it (also inside its tuples) frozen too."""
    if isinstance(value, dict):
        if isinstance(value, FrozenDict) and all(not isinstance(v, (dict, list, tuple)) or isinstance(v, FrozenList)
                                                 for v in value.values()):
            return value
        return FrozenDict({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        done = isinstance(value, FrozenList) and all(not isinstance(v, (dict, list)) or isinstance(v, FrozenList)
                                                     for v in value)
        return value if done else FrozenList(_freeze(v) for v in value)
    if isinstance(value, tuple) and not hasattr(value, "_fields") and any(isinstance(v, (dict, list)) for v in value):
        return tuple(_freeze(v) for v in value)
    return value


def _read_only(value: Any) -> Any:
    """A non-writeable view of an array (tuples of arrays too); a dict as a :class:`FrozenDict`, a list as a
    :class:`FrozenList` (and the dicts and lists inside them, and inside a tuple, frozen too); anything else
    unchanged."""
    if isinstance(value, (dict, list)):
        return _freeze(value)
    if isinstance(value, tuple) and not hasattr(value, "_fields") and any(isinstance(v, (dict, list)) for v in value):
        return _freeze(value)
    if isinstance(value, np.ndarray):
        if not value.flags.writeable:
            return value
        view = value.view()
        view.flags.writeable = False
        return view
    if isinstance(value, tuple) and any(isinstance(v, np.ndarray) for v in value):
        return type(value)(*(_read_only(v) for v in value)) if hasattr(value, "_fields") \
            else tuple(_read_only(v) for v in value)
    return value


def _check_result_class(cls: type) -> None:
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or "__dataclass_params__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} subclasses Result but is not itself a @dataclass")
    if not params.frozen or params.eq:
        raise TypeError(f"{cls.__name__} must be @dataclass(frozen=True, eq=False) like every Result")
    _CHECKED.add(cls)


class Result:
    """Base of every result: a ``@dataclass(frozen=True, eq=False)`` with read-only arrays, dicts and lists
    (:class:`FrozenDict`, :class:`FrozenList`, and the dicts and lists inside them too).

    ``to_dict()`` is derived from the fields; subclasses override it only when the
    JSON layout differs from their fields (keys stay equal to field names where a
    field is emitted). ``_repr_html_`` shows the result in Jupyter as a table built
    from ``to_dict()``; ``print(result)``, ``to_markdown()``, ``to_html()`` and ``save(path)`` write what its
    command writes (its registered renderers). A subclass that needs its own ``__post_init__`` calls
    ``super().__post_init__()`` last.
    """

    def __post_init__(self) -> None:
        cls = type(self)
        if cls not in _CHECKED:
            _check_result_class(cls)
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            v = self.__dict__.get(f.name)
            locked = _read_only(v)
            if locked is not v:
                object.__setattr__(self, f.name, locked)

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        # @dataclass adds its own __repr__ only when the class defines none: give every result the
        # short one below (a 420-model result would otherwise print every array in full)
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = Result._short_repr  # type: ignore[method-assign]
        # a to_dict the class writes is its JSON layout; called from outside, it returns what the command line
        # writes (the layout with its sentences: _worded)
        layout = cls.__dict__.get("to_dict")
        if layout is not None and not getattr(layout, "__ranktrust_worded__", False):
            cls.to_dict = _worded(layout)  # type: ignore[method-assign]

    def _short_repr(self) -> str:
        parts = []
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if not f.repr:
                continue
            parts.append(f"{f.name}={_short(getattr(self, f.name))}")
        return f"{type(self).__name__}({', '.join(parts)})"

    @property
    def ci(self) -> ConfidenceInterval:
        """The confidence interval as one ``ConfidenceInterval(low, high)`` pair, from the
        ``ci_low``/``ci_high`` fields (arrays where the result has one interval per model or pair).

        >>> import ranktrust as rt
        >>> m = rt.ScoreMatrix.from_array([[1, 1, 0, 1], [0, 1, 0, 0]], models=["a", "b"])
        >>> lo, hi = rt.compare(m, "a", "b").ci
        >>> bool(lo < hi)
        True
        """
        try:
            low, high = self.ci_low, self.ci_high  # type: ignore[attr-defined]
        except AttributeError:
            raise AttributeError(f"{type(self).__name__} has no confidence interval (no ci_low/ci_high)") from None
        return ConfidenceInterval(low, high)

    def _fields_dict(self) -> dict[str, Any]:
        """The result as JSON-ready plain Python values (stable keys): one key per field."""
        return jsonable({f.name: getattr(self, f.name) for f in dataclasses.fields(self)})  # type: ignore[arg-type]

    #: what :meth:`to_frame` tabulates: a tuple of fields holding one value per row (the first names the rows;
    #: ``models`` becomes the column ``model``), or the key of ``to_dict()`` that holds a list of row records;
    #: empty: the result has no table
    _table: ClassVar[tuple[str, ...] | str] = ()

    def to_frame(self) -> Any:
        """This result's table as a ``pandas.DataFrame`` (one row per model, pair, task, ...), the same numbers
        as :meth:`to_dict`; the settings (method, confidence level, ...) are in ``df.attrs``. One row per model
        comes in leaderboard order: by the first column of :data:`ORDER_BY` the table has (score, rating, ...).

        >>> import ranktrust as rt
        >>> m = rt.ScoreMatrix.from_array([[1, 1, 0, 1], [0, 1, 0, 0]], models=["a", "b"])
        >>> rt.intervals(m).to_frame()[["model", "score"]]
          model  score
        0     a   0.75
        1     b   0.25
        """
        if not self._table:
            raise TypeError(f"{type(self).__name__} has no table; use to_dict()")
        import pandas as pd   # only here: the analyses never import pandas

        d = self.to_dict()
        if isinstance(self._table, str):
            df = pd.DataFrame(list(d[self._table]))
        else:
            df = pd.DataFrame(self._table_columns())
            key = next((c for c in ORDER_BY if c in df.columns), None) if self._table[0] == "models" else None
            if key is not None:     # leaderboard order; ties and NaN (last) as the result holds them
                df = df.sort_values(key, ascending=not ORDER_BY[key], kind="stable", na_position="last",
                                    ignore_index=True)
        df.attrs.update({k: v for k, v in d.items() if isinstance(v, (str, int, float, bool)) or v is None})
        return df

    def _table_columns(self) -> dict[str, Any]:
        """The columns of :meth:`to_frame` (a subclass with derived columns extends this)."""
        return {("model" if name == "models" else name): (v if isinstance(v := getattr(self, name), np.ndarray)
                                                           else list(v)) for name in self._table}

    def _repr_html_(self) -> str | None:
        """Jupyter's rich display: the registered renderer's HTML (figure and tables); None: plain repr."""
        if _html_display is None:
            _load_html_display()
        return None if _html_display is None else _html_display(self)

    # ------------------------------------------------------------------ what the command line prints
    def __str__(self) -> str:
        """What the command line prints for this result in text (``print(result)``); the short ``repr`` where
        the result has no text renderer. ``repr(result)`` stays the one-line field summary."""
        text = _formatted(self, "text")
        return self._short_repr() if text is None else text

    def to_markdown(self) -> str:
        """This result as Markdown, as ``--format md`` writes it.

        >>> import ranktrust as rt
        >>> m = rt.ScoreMatrix.from_array([[1, 1, 0, 1], [0, 1, 0, 0]], models=["a", "b"])
        >>> rt.compare(m, "a", "b").to_markdown().splitlines()[0]
        '## a vs b'
        """
        return _formatted(self, "md", required=True)   # type: ignore[return-value]

    def to_html(self) -> str:
        """This result as one self-contained HTML page, as ``--format html`` writes it (no network request)."""
        return _formatted(self, "html", required=True)   # type: ignore[return-value]

    def save(self, path: Any) -> Any:
        """Write this result to ``path`` in the format its suffix names: ``.json`` (``to_dict()`` with the
        ``meta`` block), ``.md``, ``.html``, ``.txt`` (what ``print`` shows) or ``.csv`` (results that are a
        table). The file is written whole or not at all; returns the path as a ``pathlib.Path``."""
        import os
        from pathlib import Path

        from .errors import ArgumentError, DataError

        out = Path(os.fspath(path))
        fmt = SAVE_FORMATS.get(out.suffix.lower())
        if fmt is None:
            where = f"ends in {out.suffix!r}" if out.suffix else "has no suffix"
            raise ArgumentError(f"`path`={str(path)!r} {where}: save writes {', '.join(SAVE_FORMATS)} (the suffix "
                                "names the format)", param="path")
        text = str(self) if fmt == "text" else _formatted(self, fmt, required=True)
        if not out.parent.is_dir():
            raise DataError(f"`path`={str(path)!r}: the folder {out.parent} does not exist; create it first",
                            param="path")
        tmp = out.with_name(out.name + ".partial")
        try:
            tmp.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
            os.replace(tmp, out)
        except OSError as exc:
            raise DataError(f"`path`={str(path)!r}: cannot write it ({exc.strerror or exc})", param="path") from None
        finally:
            if tmp.exists():
                tmp.unlink()
        return out


class _Headline:
    """``result.headline``: the result's answer in one sentence, under ``"text"``, beside the numbers of the JSON's
    ``"headline"`` where it has one (``report.headline["text"]``: "Yes: A is #1 ..."); a dict.

    >>> import ranktrust as rt
    >>> m = rt.ScoreMatrix.from_array([[1, 1, 0, 1], [0, 1, 0, 0]], models=["a", "b"])
    >>> rt.compare(m, "a", "b").headline["text"]
    'The data cannot tell a and b apart (p = 0.5; the CI contains 0).'

    A non-data descriptor: a result that holds a ``headline`` field of its own keeps it (and the class attribute
    reads as absent, so ``@dataclass`` takes no default from it).
    """

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        if obj is None:
            raise AttributeError("headline")
        if _headline_display is None:
            _load_html_display()
        if _headline_display is None:
            raise RuntimeError(f"no display registered for results ({HTML_DISPLAY} did not register one)")
        return _headline_display(obj)




#: the result whose to_dict() is being worded in this context (and its layout once built): inside, every to_dict()
#: is the plain layout, so the presentation layer reads the layout, and the report its sections' layouts
_WORDING: contextvars.ContextVar[tuple[Any, Any] | None] = contextvars.ContextVar("ranktrust_wording", default=None)


def _worded(layout: Callable[..., Any]) -> Callable[..., Any]:
    """``to_dict`` from a result class's JSON ``layout``: called from outside, the layout with its sentences (each
    note's ``"text"``, the headline's ``"text"``: what the command line writes as JSON, without ``meta``); inside
    another ``to_dict`` or while the presentation layer words one, the layout itself."""

    @functools.wraps(layout)
    def to_dict(self: Any, *args: Any, **kw: Any) -> Any:
        busy = _WORDING.get()
        if busy is not None:
            if busy[0] is self and busy[1] is not None and not args and not kw:
                return dict(busy[1])          # the layout being worded, not built again
            return layout(self, *args, **kw)
        token = _WORDING.set((self, None))
        try:
            raw = layout(self, *args, **kw)
            if _payload_display is None:
                _load_html_display()
            if _payload_display is None:
                return raw
            _WORDING.set((self, raw))
            return _payload_display(self, raw)
        finally:
            _WORDING.reset(token)

    to_dict.__ranktrust_worded__ = True  # type: ignore[attr-defined]
    return to_dict


Result.to_dict = _worded(Result._fields_dict)  # type: ignore[method-assign]
Result.headline = _Headline()  # type: ignore[attr-defined]


#: the suffixes :meth:`Result.save` writes, and the format of each
SAVE_FORMATS = {".json": "json", ".md": "md", ".html": "html", ".txt": "text", ".csv": "csv"}


#: the column a per-model :meth:`Result.to_frame` is ordered by, the first of these it has, and whether the
#: highest comes first (a tier: the lowest, tier 1)
ORDER_BY = {"score": True, "rating": True, "scores": True, "estimate": True, "p_wins_half": True, "tier": False}


def _formatted(result: Result, fmt: str, *, required: bool = False) -> str | None:
    """``result`` in ``fmt`` through the registered display (None where it has no renderer for ``fmt``, or
    no display is registered and ``required`` is false)."""
    if _format_display is None:
        _load_html_display()
    if _format_display is None:
        if required:
            raise RuntimeError(f"no display registered for results ({HTML_DISPLAY} did not register one)")
        return None
    return _format_display(result, fmt)


#: What ``Result._repr_html_`` shows. The module :data:`HTML_DISPLAY` sets it when imported, which the first
#: display does (a declared inversion, tests/test_layering.py ALLOWED_UP): ``import ranktrust`` loads no
#: presentation, and this base module imports the presentation layer only when Jupyter asks for HTML, or a
#: result is printed or written (``str``, ``to_markdown``, ``to_html``, ``save``: :data:`_format_display`).
_html_display: Callable[[Result], str] | None = None

#: What ``str(result)``, ``to_markdown()``, ``to_html()`` and ``save()`` write: ``fn(result, fmt)`` with
#: ``fmt`` one of text, md, html, json, csv; None for text where the result has no text renderer. Set by
#: :data:`HTML_DISPLAY` with :func:`set_format_display`, by the same declared inversion.
_format_display: Callable[[Result, str], str | None] | None = None

#: What ``to_dict()`` returns: ``fn(result, layout)``, the JSON layout with its sentences (the headline's and each
#: note's ``"text"``); set by :data:`HTML_DISPLAY` with :func:`set_payload_display`. None: the layout itself.
_payload_display: Callable[[Result, dict[str, Any]], dict[str, Any]] | None = None

#: What ``result.headline`` returns: ``fn(result)``, a dict with the sentence under ``"text"``; set by
#: :data:`HTML_DISPLAY` with :func:`set_payload_display`.
_headline_display: Callable[[Result], dict[str, Any]] | None = None

#: the module that registers the Jupyter display with :func:`set_html_display`
HTML_DISPLAY = "ranktrust.reporting._notebook"


def _load_html_display() -> None:
    import importlib

    importlib.import_module(HTML_DISPLAY)


def set_html_display(render: Callable[[Result], str] | None) -> None:
    """Set the function ``Result._repr_html_`` calls (None: results display as their plain repr)."""
    global _html_display
    _html_display = render


def set_format_display(render: Callable[[Result, str], str | None] | None) -> None:
    """Set the function ``str(result)``, ``to_markdown``, ``to_html`` and ``save`` call (None: ``str`` is the
    plain repr)."""
    global _format_display
    _format_display = render


def set_payload_display(payload: Callable[[Result, dict[str, Any]], dict[str, Any]] | None,
                        headline: Callable[[Result], dict[str, Any]] | None) -> None:
    """Set what ``to_dict()`` adds to a result's JSON layout (its sentences) and what ``result.headline`` returns
    (None, None: ``to_dict()`` is the plain layout)."""
    global _payload_display, _headline_display
    _payload_display, _headline_display = payload, headline
