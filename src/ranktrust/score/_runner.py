"""Score local causal language models on multiple-choice questions: the orchestration.

One forward pass per (model, question, option order, run): no generation. The
probability of each answer letter is the softmax of the next-token logits after
``Answer:``, restricted to the letters of the question's choices.

The parts: :mod:`.plan` (which option orders, shots and runs each question gets),
:mod:`.lm` (torch and transformers: loading, tokens, the forward pass; imported lazily,
``pip install ranktrust[score]``), :mod:`.output` (the resumable results file and its
canonical order) and this module (:func:`score_models`, progress, failures). Nothing
else in ranktrust imports this module at import time. Scoring writes a results file; putting
it into a store is the caller's step (:meth:`ranktrust.Store.ingest`, ``ranktrust score --db``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, Sequence

import numpy as np

from .. import _validate
from .._validate import Progress
from ..errors import ArgumentError, DataError, warn
from ..results import Result
from ._lm import (MissingDependencyError, _device, _forward, _letter_probs, _load, _ModelFailure, _empty_cache,
                 _special_prefix, letter_tokens)
from ._output import _canonical, _key_strings, _one_line, _Output, _text_as_object, _to_frame
from ._plan import _setup_hash, plan_units
from ._prompt import as_template
from ._questions import LETTERS, load_questions

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["score_models", "ScoreResults", "MissingDependencyError", "letter_tokens", "plan_units"]

_DTYPES = ("float32", "bfloat16", "float16")


@dataclass(frozen=True, eq=False)
class ScoreResults(Result):
    """What :func:`score_models` did.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per (model, item, condition, run) this call asked for, rows already
        in ``out`` included: ``model, item, score`` (0/1), ``prob`` (probability of
        the correct letter), ``pred``, ``answer`` (letters as shown), ``subject``
        (when the questions have one), ``run`` (the seed), ``condition`` (option
        order), ``setup`` (hash of prompt settings and dtype) and ``p_A, p_B, ...``.
    failed : dict of str to str
        Model name -> one-line reason, for each model that could not be loaded or run.
    n_new : int
        Rows scored by this call.
    n_skipped : int
        Rows found already done in ``out`` and skipped.
    out : str or None
        The output file.
    letter_modes : dict of str to str
        Model name -> how its tokenizer spells the answer letter (``" A"``,
        ``" " + "A"`` or ``"A"``; see docs/scoring.md).
    stored : dict or None
        What :meth:`ranktrust.Store.ingest` did with ``out`` (its ``to_dict()``), when the caller
        ingested it (``ranktrust score --db``); :func:`score_models` itself leaves it None.
    """

    frame: "pd.DataFrame"
    failed: dict[str, str]
    n_new: int
    n_skipped: int
    out: str | None
    letter_modes: dict[str, str]
    stored: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        """True when no model failed."""
        return not self.failed

    def to_dict(self) -> dict[str, Any]:
        f = self.frame
        models = []
        if len(f):
            g = f.groupby("model", sort=False)
            for name, sub in g:
                models.append({
                    "model": str(name),
                    "rows": int(len(sub)),
                    "items": int(sub["item"].nunique()),
                    "accuracy": float(sub["score"].mean()),
                    "mean_prob": float(sub["prob"].mean()),
                    "letter_tokens": self.letter_modes.get(str(name)),
                })
        return {
            "out": self.out,
            "n_new": int(self.n_new),
            "n_skipped": int(self.n_skipped),
            "models": models,
            "failed": dict(self.failed),
            "stored": self.stored,
        }


class _Bar:
    """Calls ``progress(done, total)`` as questions are scored; ``total`` counts the questions of
    the models started so far (a model's share is added when its scoring begins)."""

    def __init__(self, callback: "Callable[[int, int], None] | None") -> None:
        self.callback = callback
        self.done = 0
        self.total = 0

    def __enter__(self) -> "_Bar":
        return self

    def task(self, name: str, total: int) -> Any:
        self.total += int(total)
        if self.callback is not None:
            self.callback(self.done, self.total)
        return name

    def advance(self, task: Any, n: int) -> None:
        self.done += int(n)
        if self.callback is not None:
            self.callback(self.done, self.total)

    def __exit__(self, *exc: Any) -> None:
        return None


def _model_specs(models: Any) -> list[tuple[str, str]]:
    if isinstance(models, (str, os.PathLike)):
        models = [models]
    if isinstance(models, Mapping):
        specs = [(str(k), os.fspath(v)) for k, v in models.items()]
    else:
        try:
            paths = [os.fspath(m) for m in models]
        except TypeError:
            raise TypeError("`models` must be a list of model directories or a dict name -> directory") from None
        specs = [(os.path.basename(os.path.normpath(p)) or p, p) for p in paths]
    if not specs:
        raise ArgumentError("`models` is empty; give at least one local model directory")
    names = [n for n, _ in specs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ArgumentError(f"`models`: several directories are named {dup[0]!r}; name them, e.g. "
                         "{'a': path1, 'b': path2}")
    return specs


def _iv(batch_size: Any, dtype: Any, shots: Any, permutations: Any, seeds: Any, flush_every: Any) -> tuple[int, ...]:
    _validate.count(batch_size, "batch_size")
    _validate.choice(dtype, "dtype", _DTYPES)
    _validate.count(shots, "shots", minimum=0)
    if permutations != "cyclic" and (isinstance(permutations, bool) or not isinstance(permutations, (int, np.integer))
                                     or permutations < 0):
        raise ArgumentError(f"`permutations` must be a non-negative integer or 'cyclic', got {permutations!r}")
    if isinstance(seeds, (int, np.integer)):
        seeds = (int(seeds),)
    seeds = tuple(seeds)
    if not seeds or any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0 for s in seeds):
        raise ArgumentError(f"`seeds` must be non-negative integers, got {seeds!r}")
    if len(set(seeds)) != len(seeds):
        raise ArgumentError(f"`seeds` has duplicates: {seeds!r}")
    if not isinstance(flush_every, (int, float)) or flush_every < 0:
        raise ArgumentError(f"`flush_every` must be a non-negative number of seconds, got {flush_every!r}")
    return tuple(int(s) for s in seeds)


def score_models(
    models: "Sequence[str | os.PathLike[str]] | Mapping[str, str | os.PathLike[str]]",
    questions: Any,
    *,
    out: "str | os.PathLike[str] | None" = None,
    batch_size: int = 8,
    device: str | None = None,
    dtype: Literal["float32", "bfloat16", "float16"] = "float32",
    template: Any = None,
    shots: int = 0,
    dev: Any = None,
    permutations: "int | Literal['cyclic']" = 0,
    seeds: "int | Sequence[int]" = (0,),
    resume: bool = True,
    progress: Progress = None,
    split: str | None = None,
    flush_every: float = 10.0,
    on_error: Callable[[str, str], None] | None = None,
) -> ScoreResults:
    """Score local causal LMs on multiple-choice questions by next-token letter probability.

    For each model, question, option order and seed: one forward pass over the
    prompt (no generation), the softmax of the next-token logits restricted to the
    choice letters, the predicted letter (argmax), 0/1 correctness and the
    probability of the correct letter.

    Parameters
    ----------
    models : list of path, or dict of name to path
        Local model directories (Hugging Face layout: ``config.json``, weights,
        tokenizer). Loaded with ``local_files_only=True``; the hub is never
        contacted. The model name is the directory's base name unless a dict names it.
    questions : path, DataFrame, list of dict or Questions
        See :func:`ranktrust.score.load_questions`.
    out : path, optional
        Results file (``.parquet``, ``.csv`` or ``.jsonl``). Rows are written as
        they come (the file is rewritten atomically every ``flush_every`` seconds
        and after each model); a rerun skips (model, item, condition, run) already
        in it.
    batch_size : int, default: 8
        Prompts per forward pass. Prompts are sorted by token length and
        left-padded; the result does not depend on the batch size.
    device : str, optional
        ``"cuda"``, ``"cuda:1"``, ``"cpu"``, ...; default: CUDA when available, else CPU.
    dtype : {"float32", "bfloat16", "float16"}, default: ``"float32"``
        Weights' dtype. Letter probabilities are computed in float64 from the logits.
    template : PromptTemplate, str or dict, optional
        Prompt layout; default: the MMLU layout (see
        :class:`ranktrust.score.PromptTemplate`).
    shots : int, default: 0
        Number of solved dev questions before each question (same subject when the
        dev set has at least ``shots`` of it). Seed 0 takes the first ``shots``
        (as in MMLU); other seeds draw them at random.
    dev : path, DataFrame or Questions, optional
        The dev split the shots come from; needed when ``shots > 0``.
    permutations : int or "cyclic", default: 0
        Option orders, one condition each. 0: the file's order only (condition
        ``"original"``). N: conditions ``perm0`` (the file's order) ... ``perm{N-1}``
        (random orders drawn per item from the seed). ``"cyclic"``: conditions
        ``cyc0`` ... rotating the choices so each sits in every position. The
        answer letter is re-mapped to the shown order.
    seeds : int or sequence of int, default: ``(0,)``
        One run per seed (the ``run`` column). The seed picks the random option
        orders and shots; with neither, runs are identical.
    resume : bool, default: True
        Keep rows already in ``out`` and skip them; False starts ``out`` afresh.
    progress : callable(done, total), optional
        Called as questions are scored (``total`` grows as each model starts); the CLI draws
        its progress bar (questions/s) with it.
    split : str, optional
        Split of a ``datasets`` directory given as ``questions``.
    flush_every : float, default: 10.0
        Seconds between rewrites of ``out`` (0: after every batch).
    on_error : callable, optional
        Called as ``on_error(model_name, message)`` when a model fails; the others
        still run.

    Returns
    -------
    ScoreResults
        ``.frame`` holds the long rows; ``.failed`` the models that failed.

    Raises
    ------
    MissingDependencyError
        When torch or transformers is not installed (``pip install ranktrust[score]``).
    DataError, FormatError
        Bad questions or an unreadable/foreign ``out`` file.

    Notes
    -----
    The letter token is ``" A"`` (with the leading space, as in lm-evaluation-harness's
    MMLU) when the tokenizer makes it one token; see :func:`letter_tokens` for the
    fallbacks. A model that fails to load, or fails while scoring, is reported in
    ``failed`` (and through ``on_error``); the rows it finished are kept.

    References
    ----------
    .. [1] D. Hendrycks et al., "Measuring Massive Multitask Language Understanding",
       ICLR 2021 (the prompt layout).
    .. [2] E. Miller, "Adding Error Bars to Evals", arXiv:2411.00640, 2024 (using
       the probability of the correct answer for a lower-variance score).
    """
    import pandas as pd

    seeds_t = _iv(batch_size, dtype, shots, permutations, seeds, flush_every)
    specs = _model_specs(models)
    tmpl = as_template(template)
    q = load_questions(questions, split=split)
    dev_q = None
    if shots:
        if dev is None:
            raise ArgumentError(f"`shots`={shots} needs `dev`: a file of solved questions to take the shots from")
        dev_q = load_questions(dev)
    elif dev is not None:
        warn("`dev` is ignored because `shots` is 0", code="dev_ignored", stacklevel=2)
    if len(seeds_t) > 1 and not shots and permutations in (0, "cyclic"):
        warn("several `seeds` but no random option orders or shots: the runs will be identical",
             code="identical_runs", data={"seeds": len(seeds_t)}, stacklevel=2)
    dev_t = _device(device)

    plan = plan_units(q, template=tmpl, shots=shots, dev=dev_q, permutations=permutations, seeds=seeds_t)
    setup = _setup_hash(tmpl, shots, dev_q, dtype)
    n_units = len(plan.item)
    k_max = q.max_choices
    n_choices_u = q.n_choices[plan.item]
    item_ids = np.asarray(q.ids, dtype=object)[plan.item]
    cond_labels = np.asarray(plan.conditions, dtype=object)[plan.cond]
    item_order = {it: i for i, it in enumerate(q.ids)}
    model_names = [n for n, _ in specs]

    output = _Output(out) if out is not None else None
    existing = output.read() if (output is not None and resume) else None
    if existing is None:
        existing = pd.DataFrame()
    done_keys: set[str] = set()
    if len(existing):
        mine = existing[existing["model"].isin(model_names)]
        if "setup" in mine.columns and len(mine):
            other = mine[mine["setup"].notna() & (mine["setup"] != setup)]
            if len(other):
                raise DataError(
                    f"{output.path}: holds results for model {other['model'].iloc[0]!r} made with other "  # type: ignore[union-attr]
                    f"prompt settings or dtype (setup {other['setup'].iloc[0]} vs {setup}); "
                    "use another `out`, or `resume`=False to start afresh", param="out"
                )
        done_keys = set(_key_strings(mine["model"], mine["item"], mine["condition"], mine["run"]))

    progress = _validate.progress(progress)

    frames: list[dict[str, np.ndarray]] = []  # new rows, all models (columns as arrays, one dict per batch)
    pending: list[dict[str, np.ndarray]] = []
    failed: dict[str, str] = {}
    modes: dict[str, str] = {}
    n_new = 0
    n_skipped = 0
    state = {"existing": existing}

    def flush() -> None:
        if output is None or not pending:
            return
        new = _to_frame(pending)
        full = pd.concat([state["existing"], new], ignore_index=True) if len(state["existing"]) else new
        full = _canonical(full, model_names, item_order)
        output.write(full)
        state["existing"] = full
        pending.clear()

    def fail(name: str, msg: str) -> None:
        failed[name] = msg
        if on_error is not None:
            on_error(name, msg)

    with _Bar(progress) as bar:
        for name, path in specs:
            unit_keys = _key_strings(np.full(n_units, name, dtype=object), item_ids, cond_labels, plan.run)
            todo = np.array([k not in done_keys for k in unit_keys], dtype=bool)
            n_skipped += int((~todo).sum())
            if not todo.any():
                continue
            try:
                lm = _load(name, path, dev_t, dtype)
                probe = plan.prompts[0].rsplit("\n", 1)[-1] or plan.prompts[0][-20:]
                letter_ids, suffix, mode = letter_tokens(lm.tokenizer, probe, k_max)
            except (_ModelFailure, DataError) as exc:
                fail(name, f"model {name}: {exc}")
                continue
            modes[name] = mode
            prefix = _special_prefix(lm.tokenizer, probe)
            tok_ids = lm.tokenizer(list(plan.prompts), add_special_tokens=False)["input_ids"]
            seqs = [prefix + list(t) + suffix for t in tok_ids]
            lengths = np.fromiter((len(s) for s in seqs), dtype=np.int64, count=n_units)
            # batches planned over every unit (longest first), so a resumed run forms the same batches
            order = np.lexsort((np.arange(n_units), -lengths))
            ptask = bar.task(name, int(todo.sum()))
            last = time.monotonic()
            for start in range(0, n_units, batch_size):
                idx = order[start: start + batch_size]
                idx = idx[todo[idx]]
                if not len(idx):
                    continue
                try:
                    z = _forward(lm, [seqs[i] for i in idx], letter_ids)
                except (RuntimeError, ValueError, IndexError, TypeError) as exc:
                    fail(name, f"model {name}: failed while scoring ({_one_line(exc)})")
                    break
                p = _letter_probs(z, n_choices_u[idx])
                pred = np.nanargmax(p, axis=1)
                ans = plan.answer[idx]
                cols: dict[str, Any] = {
                    "model": np.full(len(idx), name, dtype=object),
                    "item": item_ids[idx],
                    "score": (pred == ans).astype(np.int64),
                    "prob": p[np.arange(len(idx)), ans],
                    "pred": np.asarray(list(LETTERS), dtype=object)[pred],
                    "answer": np.asarray(list(LETTERS), dtype=object)[ans],
                }
                if q.subject is not None:
                    cols["subject"] = np.asarray(q.subject, dtype=object)[plan.item[idx]]
                cols["run"] = plan.run[idx]
                cols["condition"] = cond_labels[idx]
                cols["setup"] = np.full(len(idx), setup, dtype=object)
                for j in range(k_max):
                    cols[f"p_{LETTERS[j]}"] = p[:, j]
                frames.append(cols)
                pending.append(cols)
                n_new += len(idx)
                bar.advance(ptask, len(idx))
                now = time.monotonic()
                if now - last >= flush_every:
                    flush()
                    last = time.monotonic()
            flush()
            del lm
            _empty_cache(dev_t)
    flush()

    # the rows this call covers: existing (when resuming) + new, for these models, items, conditions, runs
    if output is not None:
        full = state["existing"]
        if len(full):
            want = set(_key_strings(np.repeat(np.asarray(model_names, dtype=object), n_units),
                                    np.tile(item_ids, len(model_names)), np.tile(cond_labels, len(model_names)),
                                    np.tile(plan.run, len(model_names))))
            keys = _key_strings(full["model"], full["item"], full["condition"], full["run"])
            frame = full[np.fromiter((k in want for k in keys), dtype=bool, count=len(keys))].reset_index(drop=True)
        else:
            frame = full
    else:
        frame = _canonical(_to_frame(frames), model_names, item_order) if frames else pd.DataFrame()
    return ScoreResults(_text_as_object(frame), failed, n_new, n_skipped, None if out is None else os.fspath(out),
                        modes)
