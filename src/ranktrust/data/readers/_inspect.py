"""inspect-ai logs: ``.eval`` (zip) and ``.json`` log files, or a directory of them.

What is read from where (see ``docs/formats/inspect.md``):

* ``.eval``: ``header.json`` (``version``, ``eval.model``, ``eval.task``, ``eval.scorers``,
  ``results``) and the per-sample scores from ``summaries.json`` (else the journal
  ``_journal/summaries/*.json``, else ``samples/*.json``, one member at a time);
* ``.json``: the same fields in one object, samples in ``samples[i]``;
* item = sample ``id``; run = ``epoch`` (epochs become runs); group = ``metadata.subject``
  (or ``category``/``group``); model = ``eval.model`` (``--model-name`` overrides);
  task = ``eval.task``;
* score = ``scores[<scorer>].value``: ``"C"`` 1, ``"I"`` 0, ``"P"`` 0.5, ``"N"`` 0 (inspect's
  own ``value_to_float``), ``yes``/``true`` 1, ``no``/``false`` 0, numbers as they are.
  Default scorer: the headline score (``results.headline``, else the first scorer);
  ``--metric`` names a scorer (``choice``) or one of its metrics (``accuracy``), and for
  dict-valued scores a key of the dict or ``scorer:key``; a name that fits several scores, or none
  of those the log lists, is an error naming them. The metric column is ``--metric`` when given,
  else the scorer's first metric (``accuracy``), else the scorer name;
* samples with ``error`` set: ``--errors error`` (default) stops and counts them,
  ``wrong`` scores them 0, ``drop`` leaves them out; either way the count is noted;
* log-format ``version`` must be a known one (1 or 2);
* content key ``doc_hash``: the sample's input and target (:func:`content_key`); another log whose same sample
  id holds another question is refused, naming both logs and the count;
* a run whose ``status`` is not ``success``, or that scored fewer samples than its dataset holds (``--limit``),
  is noted (``inspect_partial``); an unscored log is refused as unscored; inspect's ``logs.json`` index in a
  folder is skipped with a note (``inspect_index_skipped``).

``.eval`` members written by inspect-ai >= 0.3.1xx are Zstandard-compressed (zip method
93), which Python's ``zipfile`` cannot read before 3.14; they are decompressed with
``zstandard`` when installed, else with pyarrow's zstd codec.
"""

from __future__ import annotations

import json
import os
import re
import struct
import zipfile
from typing import Any, Iterator

from ...errors import DataError, FormatError
from ...results import Note
from ._registry import ReadOptions, Skip, register
from ._util import RowBuffer, content_hash, load_json, walk_files

KNOWN_LOG_VERSIONS = (1, 2)
_VALUE = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0, "yes": 1.0, "no": 0.0, "true": 1.0, "false": 0.0}


# ------------------------------------------------------------------ file access
def _looks_json_log(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    s = head.lstrip()
    return s.startswith(b"{") and b'"eval"' in head and (b'"version"' in head or b'"status"' in head)


_INDEX_RE = re.compile(rb'^\s*\{\s*"(?:[^"\\]|\\.)*\.(?:eval|json)"\s*:\s*\{')


def _is_index(path: str) -> bool:
    """inspect's log index (``logs.json``, ``write_log_dir_manifest``): log headers keyed by log file name."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return bool(_INDEX_RE.match(head))


def _is_log(name: str, full: str) -> bool:
    if name.endswith(".eval"):
        return True
    return name.endswith(".json") and _looks_json_log(full) and not _is_index(full)


def _zstd_decompress(raw: bytes, size: int) -> bytes:
    try:
        import zstandard  # type: ignore[import-not-found]

        return zstandard.ZstdDecompressor().decompress(raw, max_output_size=max(size, 1))
    except ImportError:
        import pyarrow as pa

        return pa.Codec("zstd").decompress(raw, decompressed_size=size).to_pybytes()


class _EvalZip:
    """Reads members of an inspect ``.eval`` zip, whatever their compression."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            self.zf = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as exc:
            raise FormatError(f"{path}: not a readable .eval (zip) log ({exc}); the file may be truncated") from None
        self.names = set(self.zf.namelist())
        self.fh = open(path, "rb")

    def close(self) -> None:
        self.fh.close()
        self.zf.close()

    def read(self, name: str) -> bytes:
        info = self.zf.getinfo(name)
        try:
            if info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
                return self.zf.read(name)
            if info.compress_type != 93:
                raise FormatError(
                    f"{self.path}: member {name} uses zip compression method {info.compress_type}; "
                    "known: stored, deflate, zstd (93)"
                )
            self.fh.seek(info.header_offset)
            hdr = self.fh.read(30)
            nlen, elen = struct.unpack("<HH", hdr[26:30])
            self.fh.seek(info.header_offset + 30 + nlen + elen)
            return _zstd_decompress(self.fh.read(info.compress_size), info.file_size)
        except FormatError:
            raise
        except Exception as exc:  # zlib.error, zipfile.BadZipFile, pyarrow errors
            raise FormatError(f"{self.path}: member {name} could not be read ({exc}); the log may be damaged") from None

    def json(self, name: str) -> Any:
        try:
            return json.loads(self.read(name))
        except json.JSONDecodeError as exc:
            raise DataError(f"{self.path}: member {name} is not valid JSON ({exc.msg}); the log may be truncated") from None


_TASK_RE = re.compile(rb'"task"\s*:\s*("(?:[^"\\]|\\.)*")')


def _task_of_log(path: str) -> str | None:
    """The ``eval.task`` of a log from its header alone (None when it cannot be told cheaply: then it is read)."""
    try:
        if path.endswith(".eval"):
            z = _EvalZip(path)
            try:
                name = "header.json" if "header.json" in z.names else "_journal/start.json"
                log = z.json(name) if name in z.names else {}
            finally:
                z.close()
            task = (log.get("eval") or {}).get("task") if isinstance(log, dict) else None
            return str(task) if task else None
        with open(path, "rb") as fh:
            head = fh.read(65536)
        at = head.find(b'"eval"')
        m = _TASK_RE.search(head, at) if at >= 0 else None
        return str(json.loads(m.group(1))) if m else None
    except (OSError, ValueError, DataError, FormatError):
        return None


# --------------------------------------------------------------------- parsing
def _header_only(log: dict, path: str, in_folder: bool = False) -> str:
    """The message for a log saved without its samples (``read_eval_log(header_only=True)``, a header dump)."""
    res = log.get("results") or {}
    n = res.get("completed_samples", res.get("total_samples"))
    held = f" for {n} samples" if isinstance(n, int) else ""
    skip = "; or pass `errors`='drop' to skip such logs in a folder (a note names each)" if in_folder else ""
    return (
        f"{path}: this inspect log holds only the header (eval, plan, results{held}) and no per-sample scores: "
        "it was saved header-only (inspect's read_eval_log(header_only=True) or a header dump). Use the full "
        f"log that inspect wrote (.eval, or .json from `inspect log convert`){skip}"
    )


def _skipped_header_only(log: dict, path: str) -> Iterator:
    """A header-only log in a folder read with ``errors='drop'``: no rows, a note saying it was skipped."""
    import pandas as pd

    res = log.get("results") or {}
    n = res.get("total_samples")
    df = pd.DataFrame({c: [] for c in ("item", "run", "score", "model", "task", "metric")})
    df.attrs["line_numbers"] = False
    df.attrs["notes"] = [Note("inspect_header_only", {"path": path, "n_samples": n if isinstance(n, int) else None})]
    # why the reader gave no rows, for an error or an ingest summary that must say it (the note is worded above)
    held = f" (its header reports {n} samples)" if isinstance(n, int) else ""
    df.attrs["skipped"] = (f"{path} holds only the header of an inspect log and no per-sample scores{held}: "
                           "skipped (`errors`='drop')")
    yield df


def _check_version(log: dict, path: str) -> None:
    v = log.get("version")
    if v not in KNOWN_LOG_VERSIONS:
        pkg = ((log.get("eval") or {}).get("packages") or {}).get("inspect_ai", "?")
        raise FormatError(
            f"{path}: inspect log format version {v!r} (inspect_ai {pkg}) is not one this reader knows "
            f"(known: {', '.join(map(str, KNOWN_LOG_VERSIONS))}); re-save it with a supported inspect-ai "
            "(`inspect log convert`) or convert it to a long table"
        )


def _scorers(log: dict) -> list[tuple[str, str, list[str]]]:
    """(name, scorer, metric names) of each ``results.scores`` entry, in the log's order.

    A scorer whose ``Score.value`` is a dict gets one entry per key: ``name`` is the key and ``scorer`` the
    scorer (the samples hold ``scores[scorer].value = {key: ...}``); otherwise ``name`` is the scorer.
    """
    out: list[tuple[str, str, list[str]]] = []
    for s in ((log.get("results") or {}).get("scores") or []):
        metrics = list((s.get("metrics") or {}).keys())
        name = str(s.get("name") or s.get("scorer"))
        out.append((name, str(s.get("scorer") or name), metrics))
    if not out:
        for s in ((log.get("eval") or {}).get("scorers") or []):
            metrics = [str(m.get("name", "")).split("/")[-1] for m in (s.get("metrics") or []) if isinstance(m, dict)]
            out.append((str(s.get("name")), str(s.get("name")), metrics))
    return out


def _entry(name: str, scorer: str) -> tuple[str, str | None]:
    """(scorer, dict key or None) of one ``results.scores`` entry."""
    return (scorer, None) if name == scorer else (scorer, name)


def _choose_scorer(log: dict, opts: ReadOptions, path: str) -> tuple[str | None, str | None, str]:
    """(scorer, dict key or None, metric label).

    Default: the headline score (``results.headline``: its ``score`` and ``scorer``), else the first
    ``results.scores`` entry, as inspect reports it. ``metric`` may name an entry (a scorer, or a key of a
    dict-valued scorer), ``scorer:key``, or one of an entry's metrics (``accuracy``). A name that fits several
    entries, or none while the log lists its scores, is an error that names them.
    """
    res = log.get("results") or {}
    listed = bool(res.get("scores"))     # the entries come from results.scores (else from eval.scorers)
    scorers = _scorers(log)
    head_line = res.get("headline") or {}
    names = [n for n, _, _ in scorers]
    if opts.metric is None:
        if not scorers:
            return None, None, "score"
        at = [k for k, (n, sc, _) in enumerate(scorers)
              if (n, sc) == (head_line.get("score"), head_line.get("scorer"))] or [
            k for k, n in enumerate(names) if n == head_line.get("scorer")]
        name, scorer, metrics = scorers[at[0] if at else 0]
        label = next((m for m in metrics if m not in ("stderr", "std")), None) if len(scorers) == 1 else None
        return (*_entry(name, scorer), label or name)
    want = opts.metric
    entries = [n if n == sc else f"{sc}:{n}" for n, sc, _ in scorers]

    def several(what: str, fits: list[str]) -> DataError:
        return DataError(f"{path}: `metric`={want!r} fits {len(fits)} scores of the log ({what}: "
                         f"{', '.join(fits)}); choose one with `metric`='{fits[0]}'", param="metric")

    if names.count(want) > 1:   # the same key in two dict-valued scorers
        raise several("a key of each", [e for e, n in zip(entries, names) if n == want])
    if want in names:
        name, scorer, _ = scorers[names.index(want)]
        return (*_entry(name, scorer), want)
    keys = [n for n, sc, _ in scorers if sc == want and n != sc]
    if keys:   # a dict-valued scorer named by itself: which of its keys?
        if len(keys) == 1:
            return want, keys[0], keys[0]
        raise DataError(
            f"{path}: scorer {want!r} returns a dict with {len(keys)} keys ({', '.join(keys)}); choose one with "
            f"`metric`='{keys[0]}' or `metric`='{want}:{keys[0]}'", param="metric")
    head, sep, tail = want.rpartition(":")
    if sep and any(sc == head and n == tail for n, sc, _ in scorers):
        return head, tail, want
    by_metric = [(name, scorer) for name, scorer, metrics in scorers
                 if want in metrics or want in (m.split("/")[-1] for m in metrics)]
    if len(by_metric) > 1:
        raise several(f"each reports a metric {want!r}", [n if n == sc else f"{sc}:{n}" for n, sc in by_metric])
    if by_metric:
        return (*_entry(*by_metric[0]), want)
    if listed:   # the log lists every score it holds: a name none of them has is a typo, said before any sample
        raise DataError(f"{path}: the log has no score {want!r}; its scores: {', '.join(entries)} (a name, "
                        "scorer:key, or a metric such as accuracy); choose one with `metric`", param="metric")
    if sep and head:   # scorer:key of a log without results.scores: checked per sample
        return head, tail, want
    # maybe a key of a dict-valued score; checked per sample
    return None, want, want


def _accepted_keys(log: dict, scorer: str, keys: list[str]) -> list[str]:
    """The keys of a dict-valued scorer that ``metric`` accepts: those the log lists as scores of their own
    (``results.scores``), else (a log without them) every key."""
    if not (log.get("results") or {}).get("scores"):
        return [str(k) for k in keys]
    listed = {n for n, sc, _ in _scorers(log) if sc == scorer and n != sc}
    return [str(k) for k in keys if str(k) in listed]


def _value(v: Any, key: str | None) -> float | None:
    if isinstance(v, dict):
        if key is None or key not in v:
            return None
        v = v[key]
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        s = v.strip()
        if s in _VALUE:
            return _VALUE[s]
        if s.lower() in _VALUE:
            return _VALUE[s.lower()]
        try:
            return float(s)
        except ValueError:
            return None
    return None


_KEY_TEXT = 4096   # inspect's summaries cut texts at 5,120 characters: the content key reads the first 4,096


def _key_text(v: Any, attachments: dict) -> Any:
    if not isinstance(v, str):
        return v
    if v.startswith("attachment://"):
        got = attachments.get(v[len("attachment://"):])
        if not isinstance(got, str):
            raise KeyError(v)
        v = got
    return v[:_KEY_TEXT]


def content_key(s: dict) -> str | None:
    """A sample's content key: its input (message roles and texts; other parts as inspect's summaries write them,
    ``(Image)``) and target, each text cut to 4,096 characters, so a ``.eval`` log's summary and a full
    sample give the same key. None when the sample holds no input (or one that cannot be resolved)."""
    att = s.get("attachments") if isinstance(s.get("attachments"), dict) else {}
    inp = s.get("input")
    if inp is None:
        return None
    try:
        if isinstance(inp, list):
            msgs = []
            for m in inp:
                if not isinstance(m, dict):
                    msgs.append(_key_text(str(m), att))
                    continue
                c = m.get("content")
                if isinstance(c, list):
                    c = [_key_text(p.get("text", ""), att) if isinstance(p, dict) and p.get("type") == "text" else
                         f"({str(p.get('type', '')).capitalize()})" if isinstance(p, dict) else str(p) for p in c]
                else:
                    c = _key_text(c, att)
                msgs.append([m.get("role"), c])
            inp = msgs
        else:
            inp = _key_text(inp, att)
        target = s.get("target")
        target = [_key_text(t, att) for t in target] if isinstance(target, list) else _key_text(target, att)
    except KeyError:
        return None
    # not the choices: inspect's summaries before 0.3.1xx leave them out, so they would tell one question apart
    # from itself across versions
    return content_hash(inp, target)


def _group(meta: Any) -> str | None:
    if isinstance(meta, dict):
        for k in ("subject", "category", "group"):
            if isinstance(meta.get(k), (str, int)):
                return str(meta[k])
    return None


def _samples_of_eval(z: _EvalZip) -> Iterator[dict]:
    if "summaries.json" in z.names:
        yield from z.json("summaries.json")
        return
    journal = sorted(
        (n for n in z.names if n.startswith("_journal/summaries/") and n.endswith(".json")),
        key=lambda n: int(os.path.splitext(os.path.basename(n))[0]) if os.path.basename(n)[:-5].isdigit() else 0,
    )
    if journal:
        for n in journal:
            yield from z.json(n)
        return
    for n in sorted(n for n in z.names if n.startswith("samples/") and n.endswith(".json")):
        yield z.json(n)


def _read_one(path: str, opts: ReadOptions, in_folder: bool = False, seen: dict | None = None) -> Iterator:
    z = None
    if path.endswith(".eval"):
        z = _EvalZip(path)
        if "header.json" in z.names:
            log = z.json("header.json")
        elif "_journal/start.json" in z.names:
            log = z.json("_journal/start.json")
        else:
            z.close()
            raise FormatError(f"{path}: no header.json in the .eval log; not an inspect log")
        samples: Any = _samples_of_eval(z)
    else:
        if _is_index(path):
            raise FormatError(f"{path}: this is inspect's log index (logs.json: the headers of the logs in its folder, "
                              "without per-sample scores), not a log; read the folder or the logs it lists")
        log = load_json(path, what="log")
        if not isinstance(log, dict) or "eval" not in log:
            raise FormatError(f"{path}: no 'eval' block; not an inspect log")
        if "samples" not in log and log.get("version") is None:
            if in_folder and opts.errors == "drop":
                yield from _skipped_header_only(log, path)
                return
            raise DataError(_header_only(log, path, in_folder))
        samples = iter(log.get("samples") or [])
    try:
        _check_version(log, path)
        ev = log.get("eval") or {}
        model = opts.model_name or ev.get("model")
        if not model:
            raise DataError(f"{path}: the log names no model (eval.model); pass `model_name`='NAME'")
        task = str(ev.get("task") or ev.get("task_registry_name") or "task")
        # which run of inspect wrote this log: a .eval and its .json conversion share it; two runs do not
        log_id = str(ev.get("eval_id") or ev.get("run_id") or os.path.abspath(path))
        ident = {"id": log_id, "path": path}
        scorer, key, label = _choose_scorer(log, opts, path)
        buf = RowBuffer(("item", "run", "score", "group", "doc_hash"))
        differ: list[tuple[str, str, str]] = []   # (sample, other file, other model): same id, another question
        keyed: dict[str, str | None] = {}
        errored: list[str] = []
        unscored: list[str] = []
        n = 0
        ids: set[str] = set()
        for k, s in enumerate(samples, 1):
            n += 1
            sid = str(s.get("id"))
            ids.add(sid)
            if sid not in keyed:
                h = keyed[sid] = content_key(s)
                if h is not None and seen is not None and opts.item_col != "doc_hash":
                    prev = seen.setdefault((task, sid), (h, path, str(model)))
                    if prev[0] != h and prev[1] != path:
                        differ.append((sid, prev[1], prev[2]))
            dh = keyed[sid]
            if opts.item_col == "doc_hash":   # the question is the item (two dataset versions paired by content)
                if dh is None:
                    raise DataError(f"{path}: sample {sid} holds no input to key it by, so `item`='doc_hash' cannot "
                                    "pair it by content", param="item")
                sid = dh[:16]
            epoch = str(s.get("epoch", 1))
            err = s.get("error")
            if err:
                errored.append(f"{sid} (epoch {epoch})")
                if opts.errors == "wrong":
                    buf.add(sid, epoch, 0.0, _group(s.get("metadata")), dh)
                continue
            scores = s.get("scores") or {}
            if not scores:
                raise DataError(f"{path}: sample {sid} (epoch {epoch}) has no scores: the log was not scored (score it "
                                "with inspect's `inspect score` first); no choice of metric can help")
            if scorer is None:
                if not scores:
                    raise DataError(f"{path}: sample {sid} (epoch {epoch}) has no scores; the log was not scored")
                if key is None and len(scores) == 1:
                    scorer = next(iter(scores))
                    label = scorer
                else:
                    cand = [n_ for n_, v in scores.items() if isinstance(v, dict) and isinstance(v.get("value"), dict)
                            and key in v["value"]]
                    if len(cand) != 1:
                        raise DataError(
                            f"{path}: sample {sid} (epoch {epoch}) has no score {key!r}; it has "
                            f"{', '.join(scores)}; choose one with `metric`"
                        )
                    scorer = cand[0]
            if scorer not in scores:
                raise DataError(
                    f"{path}: sample {sid} (epoch {epoch}) has no score {scorer!r}; it has "
                    f"{', '.join(scores) or 'none'}; choose one with `metric`"
                )
            raw = scores[scorer].get("value") if isinstance(scores[scorer], dict) else scores[scorer]
            val = _value(raw, key if isinstance(raw, dict) else None)
            if val is None:
                hint = ""
                if isinstance(raw, dict):
                    ok = _accepted_keys(log, str(scorer), list(raw))
                    hint = (f"; its keys are {', '.join(map(str, raw))}, of which the log reports "
                            + (f"{', '.join(ok)}: choose one with `metric`='{ok[0]}'" if ok else
                               "none as a score of its own: convert the log to a long table to read another"))
                raise DataError(
                    f"{path}: sample {sid} (epoch {epoch}): score value {raw!r} of {scorer!r} is not a number "
                    f"or C/I/P/N{hint}"
                )
            if val != val:   # NaN: inspect's "unscored" value, left out of its metrics too
                unscored.append(f"{sid} (epoch {epoch})")
                continue
            buf.add(sid, epoch, val, _group(s.get("metadata")), dh)
            if buf.full():
                yield _finish(buf, model, task, label, [], ident)
        if differ:
            other, other_model = differ[0][1], differ[0][2]
            n_other = sum(1 for d in differ if d[1] == other)
            raise DataError(
                f"{path} (model {model!r}): {n_other} of its {len(ids)} samples of task {task!r} hold another input, "
                f"target or choices than the same sample id in {other} (model {other_model!r}), e.g. sample "
                f"{', '.join(d[0] for d in differ[:3])}: the logs ran different versions of the dataset, so pairing "
                "them by id would compare different questions; read them separately", param="item")
        if errored:
            if opts.errors not in ("wrong", "drop"):
                raise DataError(
                    f"{path}: {len(errored)} of {n} samples errored ({', '.join(errored[:5])}"
                    f"{' ...' if len(errored) > 5 else ''}); choose `errors`='wrong' (score them 0) "
                    "or `errors`='drop' (leave them out)"
                )
        notes: list[Note] = []
        if errored:   # records: reporting/ words them
            notes.append(Note("samples_errored", {"path": path, "n_samples": len(errored), "errors": opts.errors,
                                                  "samples": list(errored[:10])}))
        if unscored:
            what = f"{scorer}:{key}" if key is not None else str(scorer)
            notes.append(Note("samples_nan", {"path": path, "n_samples": len(unscored), "score": what,
                                              "samples": list(unscored[:10])}))
        held = _count_note(log, path, n)
        if held:
            notes.append(held)
        cut = _partial_note(log, path, ids)
        if cut:
            notes.append(cut)
        if len(buf) or notes:
            out = _finish(buf, model, task, label, notes, ident)
            if out is not None:
                yield out
        if n == 0:
            raise DataError(f"{path}: the log holds no samples (was it run with log_samples=False?)")
    finally:
        if z is not None:
            z.close()


def _count_note(log: dict, path: str, n: int) -> Note | None:
    """A note when the log's header reports another sample count than the log holds (a trimmed log): the record
    ``inspect_sample_count`` (``path``, ``reported``, ``completed`` (None unless it differs), ``n_samples``)."""
    res = log.get("results") or {}
    total, done = res.get("total_samples"), res.get("completed_samples")
    if not n or not isinstance(total, int) or isinstance(total, bool) or total == n:
        return None
    also = done if isinstance(done, int) and not isinstance(done, bool) and done != total else None
    return Note("inspect_sample_count", {"path": path, "reported": total, "completed": also, "n_samples": n})


def _partial_note(log: dict, path: str, ids: set[str]) -> Note | None:
    """A note when the run did not cover its dataset: a status other than ``success`` (cancelled, error,
    started), or fewer distinct samples than the dataset holds (``--limit``, ``sample_ids``): the record
    ``inspect_partial`` (``path``, ``status``, ``n_samples``, ``dataset_samples``, ``limit``)."""
    ev = log.get("eval") or {}
    status = log.get("status")
    total = (ev.get("dataset") or {}).get("samples")
    total = total if isinstance(total, int) and not isinstance(total, bool) else None
    limit = (ev.get("config") or {}).get("limit")
    limit = limit if isinstance(limit, (int, float)) and not isinstance(limit, bool) else (
        str(limit) if isinstance(limit, (list, str)) else None)
    short = total is not None and len(ids) < total
    if not ids or (status in (None, "success") and not short):
        return None
    return Note("inspect_partial", {"path": path, "status": status, "n_samples": len(ids), "dataset_samples": total,
                                    "limit": limit})


def _finish(buf: RowBuffer, model: str, task: str, label: str, notes: list[Note], ident: dict):  # noqa: ANN202
    import pandas as pd

    df = buf.flush(model=model, task=task, metric=label)
    if df is None:
        df = pd.DataFrame({c: [] for c in ("item", "run", "score", "model", "task", "metric")})
    if "group" in df.columns and df["group"].isna().all():
        df = df.drop(columns=["group"])
    if "doc_hash" in df.columns and df["doc_hash"].isna().all():
        df = df.drop(columns=["doc_hash"])
    df.attrs["line_numbers"] = False
    df.attrs["notes"] = notes
    df.attrs["inspect_log"] = dict(ident)  # the store numbers runs across logs with it
    return df


def number_runs(chunks: list) -> list:  # noqa: ANN001
    """Several logs of one model (and task, metric) are several runs: number them 1, 2, ... across the logs.

    inspect numbers the epochs of each log from 1, so two runs of a model would both claim run 1. Logs are
    taken in the order given (file path order for a folder); each log's epochs follow the previous logs'.
    Two files of the same log (the same ``eval_id``: a ``.eval`` and its ``.json`` conversion) keep the same
    run numbers, so they are still reported as the same run logged twice.
    """
    import numpy as np
    import pandas as pd

    order: dict[tuple, list[str]] = {}
    bad: set[tuple] = set()
    epochs: dict[tuple, dict[str, set[int]]] = {}
    files_of: dict[tuple, dict[str, str]] = {}
    for df in chunks:
        ident = df.attrs.get("inspect_log")
        if ident is None or not len(df):
            continue
        for key, sub in df.groupby(["task", "model", "metric"], sort=False):
            logs = order.setdefault(key, [])
            if ident["id"] not in logs:
                logs.append(ident["id"])
            files_of.setdefault(key, {}).setdefault(ident["id"], ident["path"])
            labels = [str(r) for r in pd.unique(sub["run"])]
            if not all(x.isdigit() for x in labels):  # not epoch numbers: leave this model's runs as they are
                bad.add(key)
                continue
            epochs.setdefault(key, {}).setdefault(ident["id"], set()).update(int(x) for x in labels)
    offsets: dict[tuple, dict[str, int]] = {}
    notes: dict[tuple, Note] = {}
    for key, logs in order.items():
        if len(logs) < 2 or key in bad:
            continue
        off, parts, out = 0, [], {}
        for lid in logs:
            out[lid] = off
            top = max(epochs[key][lid])
            parts.append({"file": os.path.basename(files_of[key][lid]), "first_run": off + 1, "last_run": off + top})
            off += top
        offsets[key] = out
        notes[key] = Note("inspect_separate_runs", {"model": key[1], "task": key[0], "logs": parts})   # reporting/
    if not offsets:
        return chunks
    result = []
    for df in chunks:
        ident = df.attrs.get("inspect_log")
        if ident is not None and len(df):
            attrs = dict(df.attrs)
            keys = list(zip(df["task"], df["model"], df["metric"]))
            shift = np.array([offsets.get(k, {}).get(ident["id"], 0) for k in keys], dtype=np.int64)
            if shift.any():
                df = df.assign(run=(df["run"].astype(int).to_numpy() + shift).astype(str))
                df.attrs.update(attrs)
        result.append(df)
    # one note per model, on its last chunk
    last: dict[tuple, int] = {}
    for k, df in enumerate(result):
        if df.attrs.get("inspect_log") is not None and len(df):
            for key in set(zip(df["task"], df["model"], df["metric"])):
                last[key] = k
    for key, k in last.items():
        if key in notes:
            result[k].attrs["notes"] = list(result[k].attrs.get("notes", ())) + [notes[key]]
    return result


@register
class InspectReader:
    """inspect-ai logs: a .eval or .json log, or a folder of them.

    Several logs of one model become runs 1, 2, ... of that model (``combine``), and each row says
    its file, so a run logged twice (.eval and .json) is named.
    """

    name = "inspect"
    priority = 20
    description = "inspect-ai .eval / .json logs (epochs become runs)"
    looks_for = "inspect logs (.eval or .json)"
    content_key = True   # samples carry their input: `item`='doc_hash' pairs them by content

    def sniff(self, path: str) -> bool:
        if os.path.isdir(path):
            return bool(walk_files(path, lambda f: f.endswith(".eval"), limit=1)) or any(
                _looks_json_log(p) for p in walk_files(path, lambda f: f.endswith(".json"), limit=20)
            )
        if path.endswith(".eval"):
            # a damaged or truncated .eval is still inspect's: reading it then says what is wrong with it
            return True
        return path.endswith(".json") and _looks_json_log(path)

    def __init__(self) -> None:
        self._in_folder: set[str] = set()   # units found in a folder (a header-only one may be skipped)
        self._index: list[Note] = []        # log indexes (logs.json) found in a folder, said once
        self._keys: dict = {}               # (task, sample id) -> (content key, file, model) of the logs read

    def skip(self, unit: str, opts: ReadOptions) -> Skip | None:
        """A log of another task than ``opts.task`` (read from its header, not its samples), so that its notes
        and errors (errored samples, a trimmed or header-only log) do not concern a read of another task."""
        if opts.task is None:
            return None
        task = _task_of_log(unit)
        return None if task is None or task == opts.task else Skip("task", opts.task, (task,))

    def units(self, path: str) -> list[str]:
        cand = walk_files(path, lambda f: f.endswith((".eval", ".json")))
        found = [full for full in cand if _is_log(os.path.basename(full), full)]
        self._in_folder.update(found)
        # inspect's log index (logs.json) is not a log: left out, and said with the first rows read
        self._index += [Note("inspect_index_skipped", {"path": full}) for full in cand
                        if full.endswith(".json") and full not in found and _is_index(full)]
        return found

    def read(self, unit: str, opts: ReadOptions) -> Iterator:
        said, self._index = self._index, []
        for k, df in enumerate(_read_one(unit, opts, unit in self._in_folder, self._keys)):
            if k == 0 and said:
                df.attrs["notes"] = said + list(df.attrs.get("notes", ()))
            yield df

    def combine(self, chunks: list) -> list:  # noqa: ANN001
        return number_runs(chunks)
