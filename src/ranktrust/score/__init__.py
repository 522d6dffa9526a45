"""Score local language models on multiple-choice questions (optional extra).

``pip install ranktrust[score]`` installs torch and transformers; they are imported
only when a model is scored, so loading questions or building prompts needs neither.

>>> from ranktrust.score import score_models            # doctest: +SKIP
>>> res = score_models(["/models/Qwen2.5-1.5B"], "mmlu.jsonl", out="results.parquet")  # doctest: +SKIP
>>> res.frame.groupby("model")["score"].mean()          # doctest: +SKIP

Outside :data:`__all__`, for the command line: ``default_task_name`` (the task a questions file is stored under),
loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._prompt import MMLU_TEMPLATE, PromptTemplate, as_template, format_subject
from ._questions import LETTERS, Questions, load_questions

__all__ = [
    "score_models",
    "ScoreResults",
    "MissingDependencyError",
    "letter_tokens",
    "plan_units",
    "load_questions",
    "Questions",
    "PromptTemplate",
    "MMLU_TEMPLATE",
    "as_template",
    "format_subject",
    "LETTERS",
]

_RUNNER = {"score_models", "ScoreResults", "MissingDependencyError", "letter_tokens", "plan_units"}


def __getattr__(name: str) -> Any:
    # runner.py itself imports torch only inside functions; kept lazy all the same
    if name in _RUNNER:
        value = getattr(importlib.import_module(f"{__name__}._runner"), name)
        globals()[name] = value
        return value
    if name == "default_task_name":   # for the command line, outside __all__
        return importlib.import_module(f"{__name__}._output").default_task_name
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
