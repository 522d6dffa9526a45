"""An inspect_ai early-stopping manager backed by :class:`~ranktrust.sequential.Watch` (optional).

inspect_ai (PyPI ``inspect-ai``, ``pip install 'ranktrust[inspect]'``) asks a task's early-stopping manager,
before each sample (and epoch), whether to run it, and tells it each sample's scores when done
(``inspect_ai.util.EarlyStopping``: ``start_task``, ``schedule_sample``, ``complete_sample``, ``complete_task``,
all async). ``WatchStopping`` shares one ``Watch`` between the tasks of an evaluation of several models (one
task per model): a model that has left the target set, or every model once the target is decided, gets
``EarlyStop`` for its remaining samples. inspect_ai is imported only when a sample is stopped.

Usage (one manager, one view per task; run the tasks together so that they advance side by side)::

    from inspect_ai import Task, eval
    from inspect_ai.model import get_model
    from ranktrust.sequential import Watch
    from ranktrust.sequential._inspect_adapter import WatchStopping

    models = ["openai/gpt-4o", "anthropic/claude-3-5-sonnet"]
    w = Watch(models=models, items=[str(s.id) for s in samples])
    ordered = sorted(samples, key=lambda s: w.position(str(s.id)))      # the analysis order
    mgr = WatchStopping(w)
    tasks = [Task(dataset=ordered, solver=..., scorer=..., model=get_model(m), early_stopping=mgr.for_model(m))
             for m in models]
    eval(tasks, max_tasks=len(tasks), max_samples=4)

inspect's protocol does not say which task a sample belongs to, so every task needs its own view
(``mgr.for_model(key)``); the key is a Watch model name. Without ``for_model`` a manager binds to the task
it first starts (its ``EvalSpec.model``, else its task name) and refuses a second, different one.

Score the samples in ``w.position`` order (as above): the analysis reads items in that seeded random order,
and results for later items wait until the earlier ones are in.

The manager records the dispatch order: the order in which inspect admits samples (``schedule_sample`` is called
when a sample gets its concurrency slot, before it runs; a sample's first admission by any task counts, so epochs
and the other models' tasks keep its place). It is ``mgr.dispatch_order`` and the ``dispatch_order`` of each
task's summary in the log. With ``Watch(models, order="dispatch", n_items=len(samples))`` the Watch analyses the
items in that order, each result held back until every sample admitted before it is complete: a shuffled dataset
(``shuffle=True``) then needs no ``w.position`` sort, and latency (a wrong answer that takes longer) cannot
reorder the analysis, as it would with ``order="arrival"``. Every task must admit the samples in the same order
(one dataset order for all tasks), so that the first admission of an item does not depend on any model's
latency. Samples already running when a decision
arrives still finish, so each task overshoots by about its sample concurrency: keep ``max_samples`` low
(inspect's default adaptive concurrency grows large with a fast model). Each epoch is a run and an item's score
is the mean of its runs. With ``epochs > 1`` the Watch's ``n_runs`` is set to the number of epochs, so an item
enters the analysis only once all its epochs are in: each item's score is final when first analysed, and the
decisions form one anytime-valid sequence. inspect runs epoch 1 over every sample before epoch 2, so with
several epochs decisions come, and samples are saved, in the last epoch only (see docs/watch.md). Each task's
summary (``EvalLog.results.early_stopping.metadata``) holds the certified set as it stood at that task's end.

Tested against inspect_ai 0.3.285 itself (``tests/test_sequential_inspect_live.py``: ``inspect_ai.eval`` of
three offline ``mockllm`` models, one and two epochs) and through the protocol methods alone
(``tests/test_sequential_inspect.py``, which runs without inspect_ai).
"""

from __future__ import annotations

from typing import Any

from .. import _validate
from ._watch import Watch

__all__ = ["WatchStopping"]

MANAGER_NAME = "ranktrust.watch"


def _early_stop(id: str | int, epoch: int, reason: str, metadata: dict[str, Any]) -> Any:
    from inspect_ai.util import EarlyStop  # lazy: inspect_ai is optional

    return EarlyStop(id=id, epoch=epoch, reason=reason, metadata=metadata)


_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


def _to_float(score: Any) -> float:
    """A ``SampleScore`` (or ``Score``, or a bare value) as a float, the way inspect's metrics read it."""
    s = getattr(score, "score", score)
    v = getattr(s, "value", s)
    if isinstance(v, (dict, list)):
        raise ValueError(f"the score value {v!r} is not a scalar; pass `scorer=` naming a scalar scorer")
    if isinstance(v, str) and v in _VALUES:
        return _VALUES[v]
    if isinstance(v, str):
        try:
            from inspect_ai.scorer import value_to_float  # yes/no, true/false, numeric strings
        except ImportError:  # pragma: no cover - only without inspect_ai
            return float(v)
        return float(value_to_float()(v))
    return float(v)


class _Shared:
    """The state every view of one manager shares."""

    def __init__(self, watch: Watch, scorer: str | None, every: int) -> None:
        self.watch, self.scorer, self.every = watch, scorer, every
        self.pending = 0
        self.out: set[str] = set()
        self.done = False
        self.stopped: list[tuple[str, str, int]] = []
        self.sent: dict[str, None] = {}    # sample ids in the order first admitted (the dispatch order)

    def refresh(self) -> None:
        self.done = self.watch.decided
        self.out = set(self.watch.models) - set(self.watch.models_in_play())
        self.pending = 0


class WatchStopping:
    """inspect_ai ``EarlyStopping`` manager: stop scoring models once ranktrust certifies the decision.

    Parameters
    ----------
    watch : Watch
        Shared by every task (model) of the evaluation. Its ``models`` are the keys given to
        :meth:`for_model` (inspect's model names, e.g. ``"openai/gpt-4o"``, or the task names); its ``items``
        are the samples' ids as strings.
    scorer : str, optional
        Which scorer's value is the item score (default: the first one reported).
    every : int, default: ``1``
        Re-analyse after this many new results (decisions are only ever delayed by a larger value, never made
        less valid).

    Attributes
    ----------
    stopped : list of (model, sample id, epoch)
        Every sample this manager (all its views) stopped.
    dispatch_order : list of str
        Sample ids in the order inspect first admitted them (the order they were sent; see the module notes).
    """

    def __init__(self, watch: Watch, *, scorer: str | None = None, every: int = 1) -> None:
        if not isinstance(watch, Watch):
            raise TypeError(f"`watch` must be a ranktrust Watch, got {type(watch).__name__}")
        self._s = _Shared(watch, scorer, _validate.count(every, "every"))
        self._model: str | None = None
        self._bound = False

    @property
    def watch(self) -> Watch:
        return self._s.watch

    @property
    def stopped(self) -> list[tuple[str, str, int]]:
        return self._s.stopped

    @property
    def dispatch_order(self) -> list[str]:
        """Sample ids in the order inspect first admitted them (any task, any epoch): the dispatch order."""
        return list(self._s.sent)

    def for_model(self, model: str) -> "WatchStopping":
        """A manager for one task, bound to the Watch model ``model``, sharing this one's state."""
        if str(model) not in self._s.watch.models:
            raise ValueError(f"model {model!r} is not one of the Watch's models ({', '.join(self._s.watch.models)})")
        view = object.__new__(WatchStopping)
        view._s, view._model, view._bound = self._s, str(model), True
        return view

    # ---- inspect_ai.util.EarlyStopping -------------------------------------------------------------------
    async def start_task(self, task: Any, samples: list[Any], epochs: int) -> str:
        """Register the task (``task`` is inspect's ``EvalSpec``); check its model and sample ids."""
        w = self._s.watch
        spec_model = str(getattr(task, "model", "") or "")
        spec_task = str(getattr(task, "task", "") or "")
        if self._bound:
            if spec_model in w.models and spec_model != self._model:
                raise ValueError(f"this manager is bound to model {self._model!r} but was given the task of "
                                 f"model {spec_model!r}; pass mgr.for_model({spec_model!r}) to that task")
            model = self._model
        else:
            model = spec_model if spec_model in w.models else (spec_task if spec_task in w.models else None)
            if model is None:
                raise ValueError(f"model {spec_model!r} of this task (task name {spec_task!r}) is not one of the "
                                 f"Watch's models ({', '.join(w.models)}); use mgr.for_model(name)")
            if self._model is not None and self._model != model:
                raise ValueError(f"this manager already serves the task of {self._model!r}; inspect does not say "
                                 f"which task a sample belongs to, so give each task its own mgr.for_model(name)")
        self._model = model
        if int(epochs) > 1 or w.n_runs is not None:
            if w.n_runs is None and not w.has_results():
                w.expect_runs(int(epochs))   # an item waits for all its epochs: one anytime-valid sequence
            elif w.n_runs != int(epochs):
                raise ValueError(f"this task runs {epochs} epochs but the Watch expects n_runs={w.n_runs} runs per "
                                 f"item; build the Watch with n_runs={epochs}")
        if w.fixed_items:
            unknown = [str(s.id) for s in samples if getattr(s, "id", None) is not None and not w.knows_item(str(s.id))]
            if unknown:
                raise ValueError(f"{len(unknown)} sample id(s) of this task are not among the Watch's items "
                                 f"(first: {unknown[0]!r}); build the Watch with items=[str(s.id) for s in samples]")
        return MANAGER_NAME

    async def schedule_sample(self, id: str | int, epoch: int) -> Any:
        """``EarlyStop`` when this task's model is out of the target set or the target is decided, else None."""
        s = self._s
        if s.pending:
            s.refresh()
        model = self._model or ""
        if s.done or model in s.out:
            why = "decision certified" if s.done else "model left the target set"
            s.stopped.append((model, str(id), int(epoch)))
            return _early_stop(id, epoch, f"ranktrust Watch: {why}", {"model": model})
        key = str(id)
        if key not in s.sent:          # sent now, before its result exists: its place in the dispatch order
            s.sent[key] = None
            if s.watch.order == "dispatch":
                s.watch.dispatch([key])
        return None

    async def complete_sample(self, id: str | int, epoch: int, scores: dict[str, Any]) -> None:
        """Add the sample's score (epoch = run) to the Watch."""
        if not scores:
            return
        s = self._s
        key = s.scorer if s.scorer is not None else next(iter(scores))
        if key not in scores:
            raise ValueError(f"scorer {key!r} is not among this sample's scores ({', '.join(scores)})")
        s.watch.update(self._model or "", str(id), _to_float(scores[key]), run=str(epoch))
        s.pending += 1
        if s.pending >= s.every:
            s.refresh()

    async def complete_task(self) -> dict[str, Any]:
        """JSON metadata for inspect's ``EarlyStoppingSummary``: the decision as it stands at this task's end."""
        s = self._s
        s.refresh()
        st = s.watch.status(next_budget=0)
        mine = sum(1 for m, _, _ in s.stopped if m == self._model)
        return {"model": self._model, "best_set": [str(m) for m in st.best_set],
                "excluded": [{"model": str(d["model"]), "at_item": int(d["at_item"])} for d in st.excluded],
                "items_seen": int(st.items_seen), "cells_scored": int(st.cells_scored), "done": bool(st.done),
                "stopped_samples": mine, "stopped_samples_all_models": len(s.stopped),
                "order": st.order, "dispatch_order": list(s.sent)}
