"""Errors and warnings raised by ranktrust.

Every error a user can cause derives from :class:`RanktrustError`. The CLI prints
its message as one line (no traceback) and exits with code 1; any other exception is a bug and keeps
its traceback (``cli/_main.py``).

Errors and warnings carry what :class:`ranktrust.results.Note` records carry: a ``code`` (a short, stable
snake_case name of what went wrong, listed in ``docs/errors.md``) and ``data`` (the values the message names).
Code that needs to know *which* error or warning it met branches on ``code`` and reads ``data``, never the
message text: a message can be reworded, a code cannot. A raise site stays one line::

    raise DataError(f"{src}model {name!r}: ...", code="zero_spread", data={"model": name})

and a site that gives no code gets its class's (``DataError.code == "data"``).
"""

from __future__ import annotations

__all__ = [
    "RanktrustError",
    "ArgumentError",
    "DataError",
    "FormatError",
    "SolverError",
    "RanktrustWarning",
    "SmallSampleWarning",
    "DegenerateDataWarning",
    "warn",
]


class _Coded:
    """``code`` and ``data`` for an exception or warning (a mixin: the class sets the default ``code``)."""

    code: str = ""

    def _set_code(self, code: str | None, data: dict | None) -> None:
        if code is not None:
            if not isinstance(code, str) or not code:
                raise TypeError(f"`code` must be a non-empty string, not {code!r}")
            self.code = code
        #: the values the message names (model, file, row, count, ...), keyed by what they are
        self.data: dict = dict(data) if data else {}


class RanktrustError(_Coded, Exception):
    """Base class of every error a user can cause.

    Messages speak the Python API: a parameter is named in backticks with the value to
    give (```align`='intersect'``), never as a command-line flag. The command line
    (``ranktrust.cli._main.cli_words``) turns those names into its flags (``--align intersect``).

    Parameters
    ----------
    message : str
        One line: what is wrong, where (file, row, item, model) and what to do.
    param : str, optional
        The parameter whose value caused the error or that fixes it (``"align"``, ``"task"``);
        ``None`` when no single parameter does.
    code : str, optional
        What went wrong, as a stable snake_case name (``"zero_spread"``, ``"bad_score"``; the table in
        ``docs/errors.md``). Without it, the class's code (``"data"`` for every :class:`DataError`).
    data : dict, optional
        The values the message names (``{"source": "tasks.csv", "row": 17}``): what a caller reads instead of
        the message text.
    """

    code = "error"
    param: str | None = None

    def __init__(self, message: str, *, param: str | None = None, code: str | None = None,
                 data: dict | None = None) -> None:
        super().__init__(message)
        if param is not None:
            self.param = param
        self._set_code(code, data)

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    def to_dict(self) -> dict:
        """The error as data: ``{"code", "message", "param", "data"}`` (``data`` as given, JSON-able by the caller)."""
        return {"code": self.code, "message": self.message, "param": self.param, "data": dict(self.data)}


class ArgumentError(RanktrustError, ValueError):
    """An argument has a value the function cannot work with (``n_resamples=0``, ``confidence_level=95``,
    a negative seed). A ``ValueError`` too, as in scipy; ``param`` names the argument. Wrong *types* stay
    plain ``TypeError``: the command line cannot pass one, so on the command line a ``TypeError`` is a bug."""

    code = "argument"


class DataError(RanktrustError, ValueError):
    """The input data is wrong: missing columns, bad scores, duplicates, misaligned items."""

    code = "data"


class FormatError(RanktrustError, ValueError):
    """A file could not be read in the requested or sniffed format."""

    code = "format"


class SolverError(RanktrustError, ArithmeticError):
    """A numerical solver could not produce an answer (with the reason and what to do instead).

    Raised by :func:`ranktrust.power` when the exact McNemar search for the items needed
    finds no answer below 10^9 items."""

    code = "solver"


class RanktrustWarning(_Coded, UserWarning):
    """Base class of every warning ranktrust emits: a ``UserWarning`` with a ``code`` and ``data``, as errors have.

    ``warnings.catch_warnings(record=True)`` gives records whose ``.message`` is this object: branch on
    ``w.message.code`` and read ``w.message.data``. Emit one with :func:`warn`.
    """

    code = "warning"

    def __init__(self, message: str, *, code: str | None = None, data: dict | None = None) -> None:
        super().__init__(message)
        self._set_code(code, data)


class SmallSampleWarning(RanktrustWarning):
    """Too few items for the requested statistic; the result is NaN."""

    code = "small_sample"


class DegenerateDataWarning(RanktrustWarning):
    """The data are degenerate for the statistic (e.g. zero variance)."""

    code = "degenerate_data"


def warn(message: str, category: type[RanktrustWarning] = RanktrustWarning, *, code: str | None = None,
         data: dict | None = None, stacklevel: int = 2) -> None:
    """Emit ``category(message, code=code, data=data)``; ``stacklevel`` means what it means to
    :func:`warnings.warn` called in ``warn``'s place (2: the line that called the function that warns)."""
    import warnings   # here, not at the top: the console script imports this module before it can catch Ctrl-C

    warnings.warn(category(message, code=code, data=data), stacklevel=stacklevel + 1)
