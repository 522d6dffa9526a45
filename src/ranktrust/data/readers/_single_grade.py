"""Single-grade judgment files: one JSON line per (model, question) with a judge's 1-10 score.

The layout of Arena-Bench v1 (the 2023 prototype of arena-hard-auto): ``data/<bench>/model_judgment/<model>.jsonl``,
lines ``{"question_id", "model", "user_prompt", "judgment", "score"}``, where ``score`` is the rating the judge
wrote as ``[[n]]``, or ``null`` when the judgment has none (see ``docs/formats/single-grade.md``).

* item = the question id; score = rating / 10 (a model's score times 10 is the bench's own number);
* a null score (the judge wrote no rating) stops the read by default, naming the file and line;
  ``errors='drop'`` leaves such lines out, as the bench's ``show_result.py`` does, with a note counting them
  per file; ``errors='wrong'`` is refused (a judge failure has no score to count as wrong);
* a line with ``turn`` or ``judge`` is an MT-Bench line (the ``mtbench`` reader), never read here;
* task = ``task``, else the bench folder (``data/<bench>/model_judgment/``), else ``single_grade``.
"""

from __future__ import annotations

from typing import Any, Iterator

from ...errors import DataError, FormatError
from ...results import Note
from ._mtbench import bench_of, is_number, label
from ._util import first_record
from ._registry import ReadOptions, register
from ._util import JsonlFilesReader, iter_jsonl

REQUIRED = ("question_id", "model", "score", "judgment")
MTBENCH_KEYS = ("turn", "judge")
# the judge is asked for 1-10; the bench parses any [[n]], 0 included, so 0-10 is read
SCALE = (0.0, 10.0)


def _looks(rec: Any) -> bool:
    return (isinstance(rec, dict) and all(k in rec for k in REQUIRED)
            and not any(k in rec for k in MTBENCH_KEYS))


@register
class SingleGradeReader(JsonlFilesReader):
    """Single-grade judgment JSONL files (Arena-Bench v1 ``model_judgment/<model>.jsonl``), or a folder of them."""

    name = "single_grade"
    priority = 25
    description = "single-grade judgment JSONL (Arena-Bench v1 model_judgment/<model>.jsonl)"
    looks_for = "single-grade judgment files (model_judgment/<model>.jsonl)"

    _looks = staticmethod(_looks)

    def read(self, unit: str, opts: ReadOptions) -> Iterator:
        return _read(unit, opts)


def _read(path: str, opts: ReadOptions) -> Iterator:
    import pandas as pd

    if getattr(opts, "scale", None) is not None:
        raise DataError(f"{path}: the reader puts single-grade 1-10 ratings on [0, 1] itself (rating / 10); "
                        "leave out `scale`")
    models, items, scores, lines = [], [], [], []
    failed: list[int] = []
    failed_models: dict[str, int] = {}
    for lineno, rec in iter_jsonl(path):
        if not isinstance(rec, dict):
            raise FormatError(f"{path}: line {lineno} is not a JSON object; not a single-grade judgment file")
        missing = [k for k in REQUIRED if k not in rec]
        if missing:
            raise FormatError(f"{path}: line {lineno} has no {missing[0]!r}; not a single-grade judgment line "
                              "(question_id, model, judgment, score)")
        other = [k for k in MTBENCH_KEYS if k in rec]
        if other:
            raise FormatError(f"{path}: line {lineno} has {other[0]!r}, as MT-Bench single-grading lines do; read "
                              "MT-Bench files with `format`='mtbench' (a file mixing the two layouts is not read)")
        model = rec["model"]
        if not isinstance(model, str) or not model:
            raise DataError(f"{path}: line {lineno}: 'model' is {model!r}, expected the model's name")
        score = rec["score"]
        if score is None:
            if opts.errors == "drop":
                failed.append(lineno)
                failed_models[model] = failed_models.get(model, 0) + 1
                continue
            if opts.errors == "wrong":
                raise DataError(f"{path}: line {lineno}: the judge gave no score (null); that is the judge's failure, "
                                "with no score to count as wrong: pass `errors`='drop' to leave such lines out, as "
                                "the bench's show_result.py does")
            raise DataError(f"{path}: line {lineno}: the judge gave no score (null: no [[rating]] in its judgment); "
                            "pass `errors`='drop' to leave such lines out, as the bench's show_result.py does "
                            "(the count is reported)")
        if not is_number(score):
            raise DataError(f"{path}: line {lineno}: score {score!r} is not a number (expected a 1-10 rating or null)")
        if not SCALE[0] <= score <= SCALE[1]:
            raise DataError(f"{path}: line {lineno}: score {score!r} is outside the 0-10 range of single grading "
                            "(ratings are 1-10)")
        models.append(model)
        items.append(label(rec["question_id"]))
        scores.append(float(score) / SCALE[1])
        lines.append(lineno)
    if not scores:
        raise DataError(f"{path}: no scored lines (every line has a null score)")
    distinct = list(dict.fromkeys(models))
    if opts.model_name:
        if len(distinct) > 1:
            raise DataError(f"{path}: the file holds {len(distinct)} models ({', '.join(distinct[:5])}); `model_name` "
                            "renames the model of a file that holds one")
        models = [opts.model_name] * len(models)
        failed_models = {opts.model_name: len(failed)} if failed else {}
        distinct = [opts.model_name]
    task = opts.task or bench_of(path) or "single_grade"
    df = pd.DataFrame({"model": models, "item": items, "score": scores}, index=lines)
    df["task"] = task
    df["metric"] = "score"
    notes: list[Note] = []
    if failed:
        notes.append(Note("judge_no_score", {"path": path, "n_lines": len(failed), "lines": failed[:5],
                                             "per_model": [[m, n] for m, n in failed_models.items()],
                                             "n_scored": len(scores)}))
    df.attrs["notes"] = notes
    df.attrs["line_numbers"] = True
    df.attrs["provenance"] = {m: {"harness": "single_grade", "task": task, "split": None, "metric": "score",
                                  "files": [path]} for m in distinct}
    yield df
