"""An inspect_ai early-stopping manager backed by :class:`~ranktrust.sequential.Watch` (optional).

inspect_ai (PyPI ``inspect-ai``) asks an early-stopping manager, before each sample, whether to run it, and tells
it each sample's scores when done. ``WatchStopping`` shares one ``Watch`` between the tasks of an evaluation of
several models (one task per model): a model that has left the target set, or every model once the target is
decided, gets ``EarlyStop`` for its remaining samples. inspect_ai is imported only when a sample is stopped.

Usage (one manager, one view per model; run the models' tasks together so that they advance side by side)::

    from inspect_ai import Task, eval
    from ranktrust.sequential import Watch
    from ranktrust.sequential.inspect_adapter import WatchStopping

    w = Watch(models=["openai/gpt-4o", "anthropic/claude-3-5-sonnet"], items=[str(s.id) for s in samples])
    ordered = sorted(samples, key=lambda s: w.position(str(s.id)))      # the analysis order
    mgr = WatchStopping(w)
    tasks = [Task(dataset=ordered, solver=..., scorer=..., model=m, early_stopping=mgr.for_model(m))
             for m in w.models]
    eval(tasks, max_tasks=len(tasks))

Score the samples in ``w.position`` order (as above): the analysis reads items in that seeded random order,
and results for later items wait until the earlier ones are in. Each epoch is a run; runs are averaged.
Not yet tested against inspect_ai itself (it is not installed here); the tests drive the manager the way
inspect's protocol does.
"""

from __future__ import annotations

from typing import Any

from .watch import Watch

__all__ = ["WatchStopping"]


def _early_stop(id: str | int, epoch: int, reason: str, metadata: dict[str, Any]) -> Any:
    from inspect_ai.util import EarlyStop  # lazy: inspect_ai is optional

    return EarlyStop(id=id, epoch=epoch, reason=reason, metadata=metadata)


def _to_float(score: Any) -> float:
    s = getattr(score, "score", score)
    if hasattr(s, "as_float"):
        try:
            return float(s.as_float())
        except (TypeError, ValueError):
            pass
    v = getattr(s, "value", s)
    if isinstance(v, str):
        table = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
        if v in table:
            return table[v]
    if isinstance(v, bool):
        return float(v)
    return float(v)


class WatchStopping:
    """inspect_ai ``EarlyStopping`` manager: stop scoring models once ranktrust certifies the decision.

    Parameters
    ----------
    watch : Watch
        Shared by every task (model) of the evaluation. Its ``models`` must be inspect's model names
        (``EvalSpec.model``, e.g. ``"openai/gpt-4o"``).
    scorer : str, optional
        Which scorer's value is the item score (default: the first one reported).
    every : int, default: ``1``
        Re-analyse after this many new results (the analysis is vectorised, but a very large run may prefer
        a larger value; decisions are only ever delayed by it, never made less valid).
    """

    def __init__(self, watch: Watch, *, scorer: str | None = None, every: int = 1) -> None:
        if not isinstance(watch, Watch):
            raise TypeError(f"`watch` must be a ranktrust Watch, got {type(watch).__name__}")
        if int(every) != every or every < 1:
            raise ValueError(f"`every` must be a positive integer, got {every!r}")
        self.watch, self.scorer, self.every = watch, scorer, int(every)
        self._model: str | None = None
        self._pending = 0
        self._out: set[str] = set()
        self._done = False
        self.stopped: list[tuple[str, str, int]] = []

    def for_model(self, model: str) -> "WatchStopping":
        """A view of this manager bound to one model (for harnesses that do not pass the model)."""
        view = object.__new__(WatchStopping)
        view.__dict__ = self.__dict__.copy()
        view._model = model
        view._shared = self  # type: ignore[attr-defined]
        return view

    def _root(self) -> "WatchStopping":
        return getattr(self, "_shared", self)

    def _refresh(self) -> None:
        root = self._root()
        e, _, _ = root.watch._run()
        root._done = bool(e.done_at)
        root._out = {root.watch.models[i] for i in range(len(root.watch.models)) if not e.in_play[i]}
        root._pending = 0

    async def start_task(self, task: Any, samples: list[Any], epochs: int) -> str:
        model = str(getattr(task, "model", "") or self._model or "")
        if model not in self.watch._midx:
            raise ValueError(f"model {model!r} of this task is not one of the Watch's models "
                             f"({', '.join(self.watch.models)})")
        self._model = model
        return "ranktrust.watch"

    async def schedule_sample(self, id: str | int, epoch: int) -> Any:
        root = self._root()
        if root._pending:
            self._refresh()
        model = self._model or ""
        if root._done or model in root._out:
            why = "decision certified" if root._done else "model left the target set"
            root.stopped.append((model, str(id), epoch))
            return _early_stop(id, epoch, f"ranktrust watch: {why}", {"model": model})
        return None

    async def complete_sample(self, id: str | int, epoch: int, scores: dict[str, Any]) -> None:
        if not scores:
            return
        key = self.scorer if self.scorer is not None else next(iter(scores))
        if key not in scores:
            raise ValueError(f"scorer {key!r} is not among this sample's scores ({', '.join(scores)})")
        root = self._root()
        root.watch.update(self._model or "", str(id), _to_float(scores[key]), run=str(epoch))
        root._pending += 1
        if root._pending >= root.every:
            self._refresh()

    async def complete_task(self) -> dict[str, Any]:
        self._refresh()
        st = self._root().watch.status(next_budget=0)
        return {"best_set": list(st.best_set), "items_seen": st.items_seen, "cells_scored": st.cells_scored,
                "done": st.done, "stopped_samples": len(self._root().stopped)}
