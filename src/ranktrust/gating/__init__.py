"""The release gate: is a candidate non-inferior to a baseline on every task of a suite?

:func:`gate` returns a :class:`Gate` (PASS / FAIL / INCONCLUSIVE, one :class:`GateTask` per task);
:func:`read_tasks` reads a suite (harness logs, a long table with a task column, a store) as
``{task: ScoreMatrix}``, and :func:`tasks_of` makes one from matrices (the suite's input too).
The procedure and why it controls the family-wise error follow (``help(ranktrust.gating)``; written
once, in the docstring of the module that implements it).
"""

from . import _core as _core
from ._core import GATE_ADJUST, PLAN_POWER, Gate, GateHeadline, GateTask, gate, holm_levels
from ._tasks import read_tasks, tasks_of

__doc__ = f"{__doc__}\n{_core.__doc__}"

__all__ = ["Gate", "GateHeadline", "GateTask", "gate", "holm_levels", "read_tasks", "tasks_of", "GATE_ADJUST", "PLAN_POWER"]
