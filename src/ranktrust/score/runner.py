"""Score local causal language models on multiple-choice questions.

One forward pass per (model, question, option order, run): no generation. The
probability of each answer letter is the softmax of the next-token logits after
``Answer:``, restricted to the letters of the question's choices.

torch and transformers are imported here, lazily (``pip install ranktrust[score]``);
nothing else in ranktrust imports this module at import time.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import time
import warnings
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Literal, Mapping, Sequence

import numpy as np

from .. import _validate
from .._validate import Progress
from ..errors import DataError, FormatError, RanktrustError
from ..results import Result
from .prompt import PromptTemplate, as_template
from .questions import LETTERS, Questions, load_questions

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["score_models", "ScoreResults", "MissingDependencyError", "letter_tokens", "plan_units"]

_DTYPES = ("float32", "bfloat16", "float16")
_KEY_SEP = "\x1f"


class MissingDependencyError(RanktrustError, ImportError):
    """An optional dependency (torch, transformers) is not installed."""

    slug = "missing-dependency"


def _import_torch() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise MissingDependencyError(
            f"scoring models needs torch and transformers ({exc.name} is missing): pip install ranktrust[score]"
        ) from None
    return torch, transformers


# ----------------------------------------------------------------------------- results


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
        When ``db`` was given: what :meth:`ranktrust.Store.ingest` did (its ``to_dict()``).
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


# ----------------------------------------------------------------------------- planning


@dataclass(frozen=True)
class _Plan:
    """Every (item, run, condition) unit to score, independent of the model."""

    item: np.ndarray  # (n_units,) index into questions
    run: np.ndarray  # (n_units,) seed
    cond: np.ndarray  # (n_units,) index into conditions
    conditions: tuple[str, ...]
    order: tuple[tuple[int, ...], ...]  # displayed position -> original choice index
    answer: np.ndarray  # (n_units,) displayed index of the correct choice
    prompts: tuple[str, ...]


def _crc(s: str) -> int:
    return zlib.crc32(s.encode("utf-8"))


def _orders(q: Questions, permutations: int | str, seed: int) -> tuple[tuple[str, ...], list[list[tuple[int, ...]]]]:
    """Condition labels and, per condition, the displayed order of each item's choices."""
    n = q.n_choices
    if permutations == 0:
        return ("original",), [[tuple(range(k)) for k in n]]
    if permutations == "cyclic":
        m = q.max_choices
        labels = tuple(f"cyc{j}" for j in range(m))
        return labels, [[tuple((p + j) % k for p in range(k)) for k in n] for j in range(m)]
    labels = tuple(f"perm{j}" for j in range(int(permutations)))
    out = [[tuple(range(k)) for k in n]]  # perm0: the order in the file
    for j in range(1, int(permutations)):
        per = []
        for i, k in enumerate(n):
            # one stream per (seed, permutation, item id): stable when questions are added or reordered
            r = np.random.default_rng(np.random.SeedSequence([seed, j, _crc(q.ids[i])]))
            per.append(tuple(int(v) for v in r.permutation(int(k))))
        out.append(per)
    return labels, out


def _shots_for(q: Questions, dev: Questions | None, shots: int, seed: int) -> dict[str | None, list[tuple[str, tuple[str, ...], int]]]:
    """Per subject, the ``shots`` dev examples used by this run (seed 0: the first k, as in MMLU)."""
    if shots == 0 or dev is None:
        return {}
    out: dict[str | None, list] = {}
    subjects = sorted(set(q.subject)) if q.subject is not None else [None]
    dev_subj = np.asarray(dev.subject, dtype=object) if dev.subject is not None else None
    for s in subjects:
        idx = np.arange(len(dev))
        if s is not None and dev_subj is not None:
            same = np.flatnonzero(dev_subj == s)
            if len(same) >= shots:
                idx = same
        if len(idx) < shots:
            raise ValueError(f"`shots`={shots} but the dev set {dev.source or ''} has only {len(idx)} questions")
        if seed == 0:
            pick = idx[:shots]
        else:
            r = np.random.default_rng(np.random.SeedSequence([seed, _crc(str(s))]))
            pick = np.sort(r.choice(idx, size=shots, replace=False))
        out[s] = [(dev.question[i], dev.choices[i], int(dev.answer[i])) for i in pick]
    return out


def plan_units(
    questions: Questions,
    *,
    template: PromptTemplate,
    shots: int = 0,
    dev: Questions | None = None,
    permutations: int | str = 0,
    seeds: Sequence[int] = (0,),
) -> _Plan:
    """Every (item, run, condition) to score with its prompt and re-mapped answer."""
    items, runs, conds, orders, answers, prompts = [], [], [], [], [], []
    for seed in seeds:
        labels, per_cond = _orders(questions, permutations, seed)
        shot_map = _shots_for(questions, dev, shots, seed)
        for c, order_list in enumerate(per_cond):
            for i, order in enumerate(order_list):
                subj = questions.subject_of(i)
                ch = [questions.choices[i][o] for o in order]
                prompts.append(template.render(questions.question[i], ch, subj, shot_map.get(subj, ())))
                items.append(i)
                runs.append(int(seed))
                conds.append(c)
                orders.append(order)
                answers.append(order.index(int(questions.answer[i])))
    return _Plan(np.asarray(items, dtype=np.int64), np.asarray(runs, dtype=np.int64),
                 np.asarray(conds, dtype=np.int64), labels, tuple(orders),
                 np.asarray(answers, dtype=np.int64), tuple(prompts))


def _setup_hash(template: PromptTemplate, shots: int, dev: Questions | None, dtype: str) -> str:
    h = hashlib.sha256()
    h.update(template.key().encode())
    h.update(f"|shots={shots}|dtype={dtype}|".encode())
    if dev is not None and shots:
        for i in range(len(dev)):
            h.update(f"{dev.ids[i]}\x1f{dev.question[i]}\x1f{dev.answer[i]}\x1e".encode())
    return h.hexdigest()[:12]


# ----------------------------------------------------------------------------- tokens


def letter_tokens(tokenizer: Any, probe: str, n_letters: int) -> tuple[list[int], list[int], str]:
    """Token ids of the answer letters after ``probe`` (e.g. ``"Answer:"``).

    Tried in order:

    1. ``" A"`` is one token (GPT-2/Llama/Qwen style BPE and SentencePiece): the
       letter ids are those tokens, nothing is appended to the prompt.
    2. ``" A"`` is a space token then a letter token: the space token is appended to
       every prompt and the letter ids are the letter tokens.
    3. ``"A"`` right after ``probe`` is one token (e.g. a whitespace-split vocabulary).

    Returns
    -------
    letter_ids : list of int
        One id per letter ``A, B, ...``.
    suffix_ids : list of int
        Ids appended to every prompt (empty, or the space token in case 2).
    mode : str
        ``'" A"'``, ``'" " + "A"'`` or ``'"A"'``.

    Raises
    ------
    DataError
        When no rule gives distinct single-token letters.
    """
    letters = LETTERS[:n_letters]

    def enc(text: str) -> list[int]:
        return list(tokenizer(text, add_special_tokens=False)["input_ids"])

    base = enc(probe)

    def conts(sep: str) -> list[list[int]] | None:
        out = []
        for L in letters:
            full = enc(probe + sep + L)
            if full[: len(base)] != base:
                return None
            out.append(full[len(base):])
        return out

    c = conts(" ")
    if c is not None:
        lens = {len(x) for x in c}
        if lens == {1} and len({x[0] for x in c}) == n_letters:
            return [x[0] for x in c], [], '" A"'
        if len(lens) == 1 and (m := lens.pop()) > 1:
            prefix = c[0][: m - 1]
            if all(x[: m - 1] == prefix for x in c) and len({x[-1] for x in c}) == n_letters:
                return [x[-1] for x in c], prefix, '" " + "A"'
    c = conts("")
    if c is not None and {len(x) for x in c} == {1} and len({x[0] for x in c}) == n_letters:
        return [x[0] for x in c], [], '"A"'
    raise DataError(
        f"the tokenizer does not spell the answer letters {letters[0]}-{letters[-1]} as single tokens after "
        f"{probe!r}; change the template so the letter follows a space or a newline"
    )


def _special_prefix(tokenizer: Any, probe: str) -> list[int]:
    """Special tokens the tokenizer puts before text (e.g. BOS), without any it appends (EOS)."""
    with_sp = list(tokenizer(probe)["input_ids"])
    without = list(tokenizer(probe, add_special_tokens=False)["input_ids"])
    n = len(without)
    for pos in range(len(with_sp) - n + 1):
        if with_sp[pos: pos + n] == without:
            return with_sp[:pos]
    return []


# ----------------------------------------------------------------------------- model


@dataclass
class _LM:
    name: str
    model: Any
    tokenizer: Any
    device: Any
    pad_id: int
    takes_positions: bool
    takes_keep: str | None


class _ModelFailure(Exception):
    pass


def _one_line(exc: BaseException) -> str:
    s = str(exc).strip().splitlines()
    text = s[0] if s else type(exc).__name__
    return text if len(text) < 300 else text[:297] + "..."


class _Quiet:
    """Silence transformers' logging and progress bars while loading."""

    def __init__(self, transformers: Any) -> None:
        self.logging = transformers.utils.logging

    def __enter__(self) -> "_Quiet":
        self.verbosity = self.logging.get_verbosity()
        self.bars = self.logging.is_progress_bar_enabled()
        self.logging.set_verbosity_error()
        self.logging.disable_progress_bar()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.logging.set_verbosity(self.verbosity)
        if self.bars:
            self.logging.enable_progress_bar()


def _dtype_kw(transformers: Any) -> str:
    try:
        major, minor = (int(x) for x in transformers.__version__.split(".")[:2])
    except ValueError:  # pragma: no cover - odd version string
        return "dtype"
    return "dtype" if (major, minor) >= (4, 56) else "torch_dtype"


def _load(name: str, path: str, device: Any, dtype: str) -> _LM:
    torch, transformers = _import_torch()
    if not os.path.isdir(path):
        raise _ModelFailure(f"{path}: no such directory; pass a local model directory "
                            "(config.json, weights, tokenizer files)")
    if not os.path.exists(os.path.join(path, "config.json")):
        raise _ModelFailure(f"{path}: no config.json; pass a directory holding a Hugging Face model "
                            "(e.g. one made by huggingface-cli download or save_pretrained)")
    with _Quiet(transformers):
        try:
            tok = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
        except Exception as exc:  # noqa: BLE001 - any loader failure becomes one line
            raise _ModelFailure(f"{path}: could not load the tokenizer ({_one_line(exc)})") from None
        try:
            model = transformers.AutoModelForCausalLM.from_pretrained(
                path, local_files_only=True, **{_dtype_kw(transformers): getattr(torch, dtype)}
            )
        except Exception as exc:  # noqa: BLE001
            raise _ModelFailure(f"{path}: could not load the model ({_one_line(exc)})") from None
    try:
        model.to(device)
    except Exception as exc:  # noqa: BLE001 - e.g. CUDA out of memory
        raise _ModelFailure(f"{path}: could not move the model to {device} ({_one_line(exc)})") from None
    model.eval()
    params = inspect.signature(model.forward).parameters
    takes_keep = next((k for k in ("logits_to_keep", "num_logits_to_keep") if k in params), None)
    pad = tok.pad_token_id
    if pad is None:
        pad = tok.eos_token_id if tok.eos_token_id is not None else 0
    return _LM(name, model, tok, device, int(pad), "position_ids" in params, takes_keep)


def _forward(lm: _LM, seqs: Sequence[Sequence[int]], letter_ids: Sequence[int]) -> np.ndarray:
    """Letter logits at the last real token of each sequence, (batch, n_letters) float64.

    Sequences are left-padded; the attention mask hides the padding and position ids
    count real tokens only, so padding does not change the result.
    """
    import torch

    b = len(seqs)
    width = max(len(s) for s in seqs)
    ids = np.full((b, width), lm.pad_id, dtype=np.int64)
    mask = np.zeros((b, width), dtype=np.int64)
    for r, s in enumerate(seqs):
        ids[r, width - len(s):] = s
        mask[r, width - len(s):] = 1
    input_ids = torch.from_numpy(ids).to(lm.device)
    attn = torch.from_numpy(mask).to(lm.device)
    kw: dict[str, Any] = {"input_ids": input_ids, "attention_mask": attn, "use_cache": False}
    if lm.takes_positions:
        kw["position_ids"] = (attn.cumsum(-1) - 1).clamp(min=0)
    if lm.takes_keep:
        kw[lm.takes_keep] = 1
    with torch.inference_mode():
        logits = lm.model(**kw).logits[:, -1, :]
        sel = logits[:, torch.as_tensor(list(letter_ids), device=logits.device)]
        return sel.float().cpu().numpy().astype(np.float64)


def _letter_probs(z: np.ndarray, n_choices: np.ndarray) -> np.ndarray:
    """Softmax over each row's first ``n_choices`` letters; NaN beyond."""
    k = z.shape[1]
    valid = np.arange(k)[None, :] < n_choices[:, None]
    z = np.where(valid, z, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    p = e / e.sum(axis=1, keepdims=True)
    return np.where(valid, p, np.nan)


# ----------------------------------------------------------------------------- output


_TEXT_COLS = ("model", "item", "pred", "answer", "subject", "condition", "setup")


def _text_as_object(df: "pd.DataFrame") -> "pd.DataFrame":
    """Text columns as ``object`` holding str or None: one representation whatever pandas infers,
    so the returned frame and the written file do not depend on whether a run was resumed."""
    df = df.copy()
    for c in _TEXT_COLS:
        if c in df.columns:
            df[c] = df[c].astype(object).where(df[c].notna(), None)
    return df


class _Output:
    """The results file: read what is done, rewrite atomically with new rows."""

    _STR = _TEXT_COLS

    def __init__(self, path: str) -> None:
        self.path = os.fspath(path)
        p = self.path.lower()
        if p.endswith((".parquet", ".pq")):
            self.kind = "parquet"
        elif p.endswith(".csv"):
            self.kind = "csv"
        elif p.endswith((".jsonl", ".ndjson")):
            self.kind = "jsonl"
        else:
            raise ValueError(f"`out` must end in .parquet, .csv or .jsonl, got {self.path!r}")

    def read(self) -> "pd.DataFrame | None":
        import pandas as pd

        if not os.path.exists(self.path):
            return None
        try:
            if self.kind == "parquet":
                df = pd.read_parquet(self.path)
            elif self.kind == "csv":
                df = pd.read_csv(self.path, dtype={c: str for c in self._STR}, keep_default_na=False,
                                 na_values=[""])
            else:
                import json

                with open(self.path, encoding="utf-8") as fh:
                    df = pd.DataFrame([json.loads(line) for line in fh if line.strip()])
        except Exception as exc:  # noqa: BLE001 - any reader failure: one line
            raise FormatError(f"{self.path}: cannot read the existing results to resume ({_one_line(exc)}); "
                              "move it away or pass `resume`=False", param="resume") from None
        need = {"model", "item", "condition", "run", "score", "prob"}
        if len(df) and not need <= set(df.columns):
            raise DataError(f"{self.path}: exists but is not a score file written by score_models (no columns "
                            f"{', '.join(sorted(need - set(df.columns)))}); use another `out` or `resume`=False", param="out")
        df = _text_as_object(df)
        for c in self._STR:
            if c in df.columns:
                df[c] = df[c].map(lambda v: v if v is None else str(v)).astype(object)
        for c in df.columns:  # JSONL/CSV: a column of nulls reads back as text
            if c in ("run", "score"):
                df[c] = pd.to_numeric(df[c]).astype(np.int64)
            elif c == "prob" or (c.startswith("p_") and len(c) == 3):
                df[c] = pd.to_numeric(df[c]).astype(np.float64)
        return df

    def write(self, df: "pd.DataFrame") -> None:
        df = _text_as_object(df)
        parent = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(parent, exist_ok=True)
        tmp = f"{self.path}.partial"
        try:
            if self.kind == "parquet":
                df.to_parquet(tmp, index=False)
            elif self.kind == "csv":
                df.to_csv(tmp, index=False)
            else:
                df.to_json(tmp, orient="records", lines=True, force_ascii=False)
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise


def _nat_key(s: str) -> tuple[str, int, str]:
    head = s.rstrip("0123456789")
    tail = s[len(head):]
    return (head, int(tail) if tail else -1, s)


def _canonical(df: "pd.DataFrame", model_order: Sequence[str], item_order: Mapping[str, int]) -> "pd.DataFrame":
    """Rows in a fixed order (model, run, condition, item), so a resumed file equals a one-go file."""
    import pandas as pd

    if not len(df):
        return df.reset_index(drop=True)
    models = list(model_order) + sorted(set(df["model"]) - set(model_order))
    mrank = {m: i for i, m in enumerate(models)}
    conds = sorted(set(df["condition"]), key=_nat_key)
    crank = {c: i for i, c in enumerate(conds)}
    n = len(item_order)
    extra = sorted(set(df["item"]) - set(item_order))
    irank = dict(item_order) | {it: n + i for i, it in enumerate(extra)}
    keys = pd.DataFrame({
        "m": df["model"].map(mrank).to_numpy(), "r": df["run"].to_numpy(),
        "c": df["condition"].map(crank).to_numpy(), "i": df["item"].map(irank).to_numpy(),
    })
    order = np.lexsort((keys["i"].to_numpy(), keys["c"].to_numpy(), keys["r"].to_numpy(), keys["m"].to_numpy()))
    out = df.iloc[order].reset_index(drop=True)
    letter_cols = sorted((c for c in out.columns if c.startswith("p_") and len(c) == 3), key=lambda c: c[2])
    front = [c for c in ("model", "item", "score", "prob", "pred", "answer", "subject", "run", "condition", "setup")
             if c in out.columns]
    rest = [c for c in out.columns if c not in front and c not in letter_cols]
    return out[front + letter_cols + rest]


def _key_strings(model: Iterable[str], item: Iterable[str], cond: Iterable[str], run: Iterable[Any]) -> np.ndarray:
    return np.array([f"{m}{_KEY_SEP}{i}{_KEY_SEP}{c}{_KEY_SEP}{int(r)}" for m, i, c, r in zip(model, item, cond, run)],
                    dtype=object)


# ----------------------------------------------------------------------------- progress


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


# ----------------------------------------------------------------------------- main


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
        raise ValueError("`models` is empty; give at least one local model directory")
    names = [n for n, _ in specs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"`models`: several directories are named {dup[0]!r}; name them, e.g. "
                         "{'a': path1, 'b': path2}")
    return specs


def _iv(batch_size: Any, dtype: Any, shots: Any, permutations: Any, seeds: Any, flush_every: Any) -> tuple[int, ...]:
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"`batch_size` must be a positive integer, got {batch_size!r}")
    if dtype not in _DTYPES:
        raise ValueError(f"`dtype` must be one of {', '.join(_DTYPES)}, got {dtype!r}")
    if isinstance(shots, bool) or not isinstance(shots, (int, np.integer)) or shots < 0:
        raise ValueError(f"`shots` must be a non-negative integer, got {shots!r}")
    if permutations != "cyclic" and (isinstance(permutations, bool) or not isinstance(permutations, (int, np.integer))
                                     or permutations < 0):
        raise ValueError(f"`permutations` must be a non-negative integer or 'cyclic', got {permutations!r}")
    if isinstance(seeds, (int, np.integer)):
        seeds = (int(seeds),)
    seeds = tuple(seeds)
    if not seeds or any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0 for s in seeds):
        raise ValueError(f"`seeds` must be non-negative integers, got {seeds!r}")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"`seeds` has duplicates: {seeds!r}")
    if not isinstance(flush_every, (int, float)) or flush_every < 0:
        raise ValueError(f"`flush_every` must be a non-negative number of seconds, got {flush_every!r}")
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
    db: "str | os.PathLike[str] | None" = None,
    task: str | None = None,
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
    db : path, optional
        A ranktrust DuckDB store (:class:`ranktrust.Store`): at the end, ``out`` is
        ingested into it (``replace=True``, so a resumed run updates its rows).
        Needs ``out``.
    task : str, optional
        Task name in the store; default: the questions file name without suffix.

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
    if db is not None and out is None:
        raise ValueError("`db` needs `out`: the results file that is ingested into the store (and resumed from)")
    specs = _model_specs(models)
    tmpl = as_template(template)
    q = load_questions(questions, split=split)
    dev_q = None
    if shots:
        if dev is None:
            raise ValueError(f"`shots`={shots} needs `dev`: a file of solved questions to take the shots from")
        dev_q = load_questions(dev)
    elif dev is not None:
        warnings.warn("`dev` is ignored because `shots` is 0", UserWarning, stacklevel=2)
    if len(seeds_t) > 1 and not shots and permutations in (0, "cyclic"):
        warnings.warn("several `seeds` but no random option orders or shots: the runs will be identical",
                      UserWarning, stacklevel=2)
    torch, _ = _import_torch()
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        dev_t = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"`device` {device!r} is not a torch device ({_one_line(exc)})") from None

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
            if dev_t.type == "cuda":
                torch.cuda.empty_cache()
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
    stored = None
    if db is not None and output is not None and os.path.exists(output.path):
        stored = _ingest(db, output.path, task or _task_name(questions))
    return ScoreResults(_text_as_object(frame), failed, n_new, n_skipped, None if out is None else os.fspath(out),
                        modes, stored)


def _to_frame(chunks: list[dict[str, np.ndarray]]) -> "pd.DataFrame":
    """One DataFrame from per-batch column arrays (cheaper than a frame per batch)."""
    import pandas as pd

    return pd.DataFrame({k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]})


def _task_name(questions: Any) -> str:
    if isinstance(questions, (str, os.PathLike)):
        base = os.path.basename(os.path.normpath(os.fspath(questions)))
        for suf in (".jsonl.gz", ".csv.gz", ".tsv.gz", ".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".parquet", ".pq"):
            if base.lower().endswith(suf):
                return base[: -len(suf)]
        return base
    return "score"


def _ingest(db: Any, path: str, task: str) -> dict[str, Any]:
    """Add the results file to a ranktrust store (replacing its earlier rows)."""
    from ..data.readers._registry import ReadOptions
    from ..data.store import Store

    with Store(db) as st:
        return st.ingest(path, format="table", options=ReadOptions(task=task), replace=True).to_dict()
