"""The release gate (issue 25): is a candidate non-inferior to a baseline on every task of a suite?

:func:`gate` returns a :class:`Gate` (PASS / FAIL / INCONCLUSIVE, one :class:`GateTask` per task);
the procedure and why it controls the family-wise error are in :mod:`ranktrust.gating.core`.
"""

from .core import GATE_ADJUST, PLAN_POWER, Gate, GateTask, gate, holm_levels

__all__ = ["Gate", "GateTask", "gate", "holm_levels", "GATE_ADJUST", "PLAN_POWER"]
