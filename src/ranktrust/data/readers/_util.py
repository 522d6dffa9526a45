"""Helpers every reader shares: folder search, JSON and JSONL loading, a row buffer.

None of these knows a format; a reader module imports what it needs from here.
"""

from __future__ import annotations

import gzip
import json
import os
from typing import TYPE_CHECKING, Any, Callable, Iterator

from ...errors import DataError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["CHUNK_ROWS", "SEARCH_DEPTH", "JsonlFilesReader", "RowBuffer", "content_hash", "did_you_mean",
           "first_record", "is_failure_metric", "iter_jsonl", "load_json", "n_of", "user_path", "walk_files"]

# How deep a folder is searched for a format's files, by the sniffer and by the reader alike: a
# harness output folder (``benchmark_output/runs/<suite>/<run>/``,
# ``logs/run_evaluation/<run_id>/<model>/<instance>/``) sits well within it.
SEARCH_DEPTH = 8
CHUNK_ROWS = 50_000


def n_of(n: int, word: str, words: str | None = None) -> str:
    """A count and its noun, the plural following the count: '1 instance', '2 instances' (``words``: an
    irregular plural). Readers word their own notes (they sit below reporting/, whose ``fmt.plural`` is the same)."""
    return f"{n} " + (word if n == 1 else (words or word + "s"))


def did_you_mean(chosen: str, names: "list[str]") -> str:
    """`` (did you mean 'x'?)`` for a name that is not there, or ``""``: inspect names its tasks with their
    package ("inspect_evals/pubmedqa"), so the name after the last "/" points at one; else the closest spellings."""
    import difflib

    def last(v: str) -> str:
        return v.rsplit("/", 1)[-1]

    near = [v for v in names if last(v) == chosen]
    if not near:   # a misspelling: of the name after the package, else of the whole name
        close_last = set(difflib.get_close_matches(last(chosen), [last(v) for v in names], n=3))
        near = [v for v in names if last(v) in close_last][:3] or difflib.get_close_matches(chosen, names, n=3)
    return f" (did you mean {' or '.join(map(repr, sorted(near)))}?)" if near else ""


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


def _cut_short(exc: json.JSONDecodeError) -> bool:
    """Did the JSON parser fail because the text ended (a truncated file), not at a wrong character?"""
    return exc.pos >= len(exc.doc.rstrip()) or exc.msg.startswith("Unterminated string")


def load_json(path: str, *, what: str = "file") -> Any:
    """A whole JSON file; invalid JSON is a DataError naming the file and the line.

    "may be truncated" only when the text ends where the JSON does not: a file that is not JSON at all
    (a CSV) or has a wrong character inside says that instead.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        if _cut_short(exc):
            why = f"the {what} may be truncated"
        elif not exc.doc.lstrip().startswith(("{", "[")):
            why = f"the {what} is not JSON (it starts with {exc.doc.lstrip()[:20]!r})"
        else:
            why = f"the {what} is malformed there"
        raise DataError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}); {why}") from None


def iter_jsonl(path: str, *, hint: str = "fix or remove that line",
               loads: Callable[[str], Any] = json.loads) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line of a JSON-lines file (``.gz`` read as gzip).

    A line that is not valid JSON is a DataError: ``"<path>: line N is not valid JSON (<why>); <hint>"``,
    where the hint is "the file may be truncated" when that line is the last one and ends inside the JSON
    (a cut file), else ``hint``. The file is read lazily, one line at a time; ``loads`` parses one line
    (the table reader keeps numbers as their text with it).
    """
    opener = gzip.open if path.lower().endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:  # type: ignore[operator]
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                value = loads(line)
            except json.JSONDecodeError as exc:
                last = not any(rest.strip() for rest in fh)
                cut = _cut_short(exc) or not line.endswith("\n")
                why = "the file may be truncated" if last and cut else hint
                raise DataError(f"{path}: line {lineno} is not valid JSON ({exc.msg}); {why}") from None
            yield lineno, value


class RowBuffer:
    """Collects rows column by column and yields DataFrames of at most ``size`` rows."""

    def __init__(self, columns: tuple[str, ...], size: int = CHUNK_ROWS) -> None:
        self.columns = columns
        self.size = size
        self.cols: dict[str, list[Any]] = {c: [] for c in columns}

    def __len__(self) -> int:
        return len(self.cols[self.columns[0]])

    def add(self, *values: Any) -> None:
        for c, v in zip(self.columns, values):
            self.cols[c].append(v)

    def full(self) -> bool:
        return len(self) >= self.size

    def flush(self, **const: Any) -> "pd.DataFrame | None":
        import pandas as pd

        if not len(self):
            return None
        df = pd.DataFrame(dict(self.cols))
        for k, v in const.items():
            df[k] = v
        self.cols = {c: [] for c in self.columns}
        return df


# a metric whose name says it counts failures, errors or how often something happened (extract_fail,
# idk_freq, parse_error_rate): never a default, whatever its place in the harness's list
_FAILURE_WORDS = ("fail", "failed", "failure", "failures", "fails", "error", "errors", "err", "freq", "frequency",
                  "invalid", "refusal", "refusals")


def is_failure_metric(name: str) -> bool:
    """Does the metric's name say failure, error or frequency (``extract_fail``, ``idk_freq``, ``error_rate``)?"""
    import re

    parts = [p for p in re.split(r"[^a-z0-9]+", str(name).lower()) if p]
    return any(p in _FAILURE_WORDS for p in parts)


def content_hash(*parts: Any) -> str:
    """SHA-256 (hex) of ``parts`` as canonical JSON: the key that names a question by its content (its text, its
    choices, its gold answer), as lm-eval's ``doc_hash`` does, so two runs' "same" item can be checked."""
    import hashlib

    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def user_path(path: str, given: str) -> str:
    """``path`` (made absolute somewhere) as the user would write it: relative to the working folder when
    ``given`` (what the user typed) was relative, else as it is."""
    if os.path.isabs(given) or not os.path.isabs(path):
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:   # another drive (Windows)
        return path
    return path if rel.startswith(".." + os.sep + ".." + os.sep) else rel


def first_record(path: str, limit: int = 1 << 20) -> Any:
    """The first non-blank line of a JSON-lines file, parsed (None when it is not JSON or the file is not text)."""
    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:  # type: ignore[operator]
            for line in fh:
                if line.strip():
                    return json.loads(line[:limit]) if len(line) <= limit else None
    except (OSError, UnicodeDecodeError, EOFError, ValueError):
        return None
    return None


class JsonlFilesReader:
    """The ``sniff`` and ``units`` of a reader of JSON-lines files (``.jsonl``, ``.jsonl.gz``), or a folder of
    them: a subclass gives ``_looks(record)``, the test of a file's first record (:func:`first_record`)."""

    @staticmethod
    def _looks(rec: Any) -> bool:          # pragma: no cover - every subclass defines it
        raise NotImplementedError

    @staticmethod
    def _is_jsonl(name: str) -> bool:
        return name.lower().endswith((".jsonl", ".jsonl.gz"))

    def _accepts(self, path: str) -> bool:
        return self._is_jsonl(os.path.basename(path)) and self._looks(first_record(path))

    def sniff(self, path: str) -> bool:
        if os.path.isdir(path):
            return any(self._accepts(p) for p in walk_files(path, self._is_jsonl, limit=200))
        return self._accepts(path)

    def units(self, path: str) -> list[str]:
        return [p for p in walk_files(path, self._is_jsonl) if self._accepts(p)]
