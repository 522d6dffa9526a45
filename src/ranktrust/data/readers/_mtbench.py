"""MT-Bench single-answer grading: FastChat llm_judge's ``model_judgment/<judge>_single.jsonl``.

One line per judgment: ``question_id, model, judge, user_prompt, judgment, score, turn, tstamp``, where
``judge`` is ``[judge model, prompt name]`` and ``score`` the judge's rating, 1-10, or ``-1`` when FastChat
found no ``[[rating]]`` in the judgment (see ``docs/formats/mtbench-single.md``).

* item = ``<question_id>:turn<turn>`` (a question's two turns are two items); group = the question id, so
  ``cluster`` treats a question's turns as one cluster;
* score = rating / 10: a model's score times 10 is FastChat's number (0.7843 is FastChat's 7.843);
* ``-1`` (no rating) is left out, as FastChat's ``show_result.py`` leaves it out, with a note counting it;
* a (model, question, turn) judged more than once is the mean of its judgments, with a note that gives
  FastChat's own mean too (``show_result`` averages rows, so a twice-judged item counts twice there);
* metric = the judge model; a file with several judges is refused unless ``metric`` names one;
* the question each judge prompt shows (``user_prompt``: ``[Question]`` for turn 1, the user turns for turn 2) is
  hashed per (question, turn): another question under the same id, in this file or another of the same read, is
  refused naming both lines;
* task = ``task``, else the bench folder (``data/<bench>/model_judgment/``), else ``mt_bench``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections import defaultdict
from typing import Any, Iterator

from ...errors import DataError, FormatError
from ...results import Note
from ._registry import ReadOptions, Skip, register
from ._util import JsonlFilesReader, first_record, iter_jsonl

REQUIRED = ("question_id", "model", "judge", "score", "turn")
NO_RATING = -1
# the judge is asked for 1-10; FastChat parses any [[n]] and keeps 0 in its means, so 0-10 is read
SCALE = (0.0, 10.0)


def bench_of(path: str) -> str | None:
    """The bench folder of ``.../data/<bench>/model_judgment/<file>`` (None when the path has no such folder)."""
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.basename(parent) == "model_judgment":
        return os.path.basename(os.path.dirname(parent)) or None
    return None


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def label(v: Any) -> str:
    """A label as text (JSON integers as written; a float id keeps its digits)."""
    return v if isinstance(v, str) else json.dumps(v)


def _looks(rec: Any) -> bool:
    return isinstance(rec, dict) and all(k in rec for k in REQUIRED) and isinstance(rec["judge"], list)


def _judge(rec: dict, path: str, lineno: int) -> str:
    j = rec["judge"]
    if not (isinstance(j, list) and j and isinstance(j[0], str)):
        raise DataError(f"{path}: line {lineno}: 'judge' is {j!r}, expected [judge model, prompt name]")
    return j[0]


def _judges(path: str) -> list[str]:
    """The judge models of a file, in order of appearance (a cheap scan for ``skip``)."""
    seen: dict[str, None] = {}
    for lineno, rec in iter_jsonl(path):
        if isinstance(rec, dict) and "judge" in rec:
            seen.setdefault(_judge(rec, path, lineno), None)
    return list(seen)


_TURN1 = re.compile(r"\[Question\]\n(.*?)\n\n\[The Start of ", re.S)
_TURNS = re.compile(r"### User:\n(.*?)\n\n### (?:Assistant A|Reference answer):", re.S)


def question_hash(prompt: Any, turn: int) -> str | None:
    """A hash of the question a judge prompt shows for ``turn`` (FastChat's single-v1 / single-math-v1 prompts and
    their multi-turn forms: the turns' user messages up to ``turn``), or None when the prompt has another layout."""
    if not isinstance(prompt, str):
        return None
    if turn == 1:
        m = _TURN1.search(prompt)
        text = [m.group(1)] if m else None
    else:
        found = _TURNS.findall(prompt)
        text = found[:turn] if len(found) >= turn else None
    if not text:
        return None
    return hashlib.sha1("\x00".join(text).encode("utf-8")).hexdigest()


@register
class MTBenchReader(JsonlFilesReader):
    """FastChat MT-Bench single-answer grading files (``gpt-4_single.jsonl``), or a folder of them."""

    name = "mtbench"
    priority = 25
    description = "MT-Bench single-answer grading (FastChat llm_judge *_single.jsonl)"
    looks_for = "MT-Bench single-grading files (model_judgment/*_single.jsonl)"

    _looks = staticmethod(_looks)

    def skip(self, unit: str, opts: ReadOptions) -> Skip | None:
        if opts.metric is None:
            return None
        judges = _judges(unit)
        return None if opts.metric in judges else Skip("metric", opts.metric, tuple(judges))

    def __init__(self) -> None:
        # (question, turn) -> (question hash, file, line), across the files of one read
        self._questions: dict[tuple[str, int], tuple[str, str, int]] = {}

    def read(self, unit: str, opts: ReadOptions) -> Iterator:
        return _read(unit, opts, self._questions)


def _read(path: str, opts: ReadOptions, questions: dict | None = None) -> Iterator:
    import pandas as pd

    if getattr(opts, "scale", None) is not None:
        raise DataError(f"{path}: the reader puts MT-Bench's 1-10 ratings on [0, 1] itself (rating / 10); "
                        "leave out `scale`")
    # (model, question, turn) -> [(rating, line)] ; judges seen ; the lines with no rating, per model
    rated: dict[tuple[str, str, int], list[tuple[float, int]]] = defaultdict(list)
    unrated: dict[tuple[str, str, int], list[int]] = defaultdict(list)
    judges: dict[str, None] = {}
    order: dict[str, None] = {}
    for lineno, rec in iter_jsonl(path):
        if not isinstance(rec, dict):
            raise FormatError(f"{path}: line {lineno} is not a JSON object; not an MT-Bench single-grading file")
        missing = [k for k in REQUIRED if k not in rec]
        if missing:
            raise FormatError(f"{path}: line {lineno} has no {missing[0]!r}; not an MT-Bench single-grading line "
                              "(FastChat llm_judge *_single.jsonl; a pairwise *_pair.jsonl is read by `arena`)")
        judge = _judge(rec, path, lineno)
        judges.setdefault(judge, None)
        if opts.metric is not None and judge != opts.metric:
            continue
        model = rec["model"]
        if not isinstance(model, str) or not model:
            raise DataError(f"{path}: line {lineno}: 'model' is {model!r}, expected the model's name")
        turn = rec["turn"]
        if not (isinstance(turn, int) and not isinstance(turn, bool) and turn >= 1):
            raise DataError(f"{path}: line {lineno}: 'turn' is {turn!r}, expected 1, 2, ...")
        score = rec["score"]
        if not is_number(score):
            raise DataError(f"{path}: line {lineno}: score {score!r} is not a number (MT-Bench ratings are 1-10, "
                            "-1 for no rating)")
        order.setdefault(model, None)
        key = (model, label(rec["question_id"]), turn)
        h = question_hash(rec.get("user_prompt"), turn)
        if h is not None and questions is not None:
            seen = questions.setdefault((key[1], turn), (h, path, lineno))
            if seen[0] != h:
                raise DataError(
                    f"{path}: line {lineno}: question {key[1]} (turn {turn}) is not the question of {seen[1]} line "
                    f"{seen[2]} under the same id: the judgments come from different benches or versions of the "
                    "questions; read them separately")
        if score == NO_RATING:
            if opts.errors == "wrong":
                raise DataError(
                    f"{path}: line {lineno}: the judge gave no rating (-1, FastChat's 'no rating'); that is the "
                    "judge's failure, with no score to count as wrong: leave `errors` at its default (or 'drop'), "
                    "which leaves such lines out as FastChat does")
            unrated[key].append(lineno)
            continue
        if not SCALE[0] <= score <= SCALE[1]:
            raise DataError(f"{path}: line {lineno}: score {score!r} is outside MT-Bench's 0-10 range (ratings are "
                            "1-10; -1 is FastChat's 'no rating')")
        rated[key].append((float(score), lineno))
    if opts.metric is None and len(judges) > 1:
        raise DataError(f"{path}: the file holds judgments by {len(judges)} judges ({', '.join(judges)}); choose one "
                        "with `metric`='JUDGE'")
    if opts.metric is not None and opts.metric not in judges:
        raise DataError(f"{path}: no judgments by judge {opts.metric!r}; the file's judges: "
                        f"{', '.join(judges) or 'none'}")
    if not rated:
        raise DataError(f"{path}: no rated judgments (every line has score -1, FastChat's 'no rating')")
    if opts.model_name and len(order) > 1:
        raise DataError(f"{path}: the file holds {len(order)} models ({', '.join(list(order)[:5])}); `model_name` "
                        "renames the model of a file that holds one")
    if opts.model_name:
        rated = {(opts.model_name, q, t): v for (_, q, t), v in rated.items()}
        unrated = defaultdict(list, {(opts.model_name, q, t): v for (_, q, t), v in unrated.items()})
        order = {opts.model_name: None}
    judge = opts.metric or next(iter(judges))
    task = opts.task or bench_of(path) or "mt_bench"
    keys = list(rated)
    df = pd.DataFrame({
        "model": [k[0] for k in keys],
        "item": [f"{k[1]}:turn{k[2]}" for k in keys],
        "score": [sum(s for s, _ in rated[k]) / len(rated[k]) / SCALE[1] for k in keys],
        "group": [k[1] for k in keys],
    })
    df["task"] = task
    df["metric"] = judge
    notes: list[Note] = []
    if unrated:
        per_model: dict[str, int] = defaultdict(int)
        for (m, _, _), lines in unrated.items():
            per_model[m] += len(lines)
        lines = sorted(ln for v in unrated.values() for ln in v)
        left_out = sum(1 for k in unrated if k not in rated)
        notes.append(Note("mtbench_no_rating", {
            "path": path, "n_lines": len(lines), "lines": lines[:5], "per_model": [[m, n] for m, n in per_model.items()],
            "n_items_left_out": left_out}))
    for model in order:
        twice = [k for k in keys if k[0] == model and len(rated[k]) > 1]
        if not twice:
            continue
        rows = [(k[2], s) for k in keys if k[0] == model for s, _ in rated[k]]
        turns = sorted({t for t, _ in rows})
        item_means = [sum(s for s, _ in rated[k]) / len(rated[k]) for k in keys if k[0] == model]
        notes.append(Note("mtbench_judged_twice", {
            "path": path, "model": model, "n_items": len(twice),
            "n_judgments": sum(len(rated[k]) for k in twice),
            "example": f"{twice[0][1]}:turn{twice[0][2]}",
            "item_mean": sum(item_means) / len(item_means), "n_items_total": len(item_means),
            "fastchat_mean": sum(s for _, s in rows) / len(rows), "fastchat_rows": len(rows),
            "fastchat_turns": [[t, sum(s for u, s in rows if u == t) / sum(1 for u, _ in rows if u == t),
                                sum(1 for u, _ in rows if u == t)] for t in turns]}))
    df.attrs["notes"] = notes
    df.attrs["line_numbers"] = False
    df.attrs["provenance"] = {m: {"harness": "fastchat", "task": task, "split": None, "metric": judge,
                                  "files": [path]} for m in order}
    yield df


__all__ = ["MTBenchReader", "bench_of", "is_number", "label"]
