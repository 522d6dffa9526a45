"""Judged scores corrected with a few gold labels (issue 35, first part).

:func:`gold_corrected` returns a :class:`GoldCorrected`: each model's mean gold score from a judge's scores on
every item and a person's labels on a random subset (PPI++, or for 0/1 judges post-stratification on the
judge's verdict or the sensitivity/specificity correction), with the judge-only and gold-only answers beside it,
and the pairs, rank sets and tiers of one stepdown over all pairs. :func:`labels_needed` says how many labels
buy a given interval width. The estimators, their sources and their scope follow.
"""

from . import _core as _core
from . import _audit as _audit
from . import _estimators as _estimators
from ._audit import JudgeAudit, judge_audit
from ._core import METHODS, GoldCorrected, gold_corrected, labels_needed, model_intervals

__doc__ = f"{__doc__}\n{_core.__doc__}\n{_estimators.__doc__}\n{_audit.__doc__}"

__all__ = ["GoldCorrected", "gold_corrected", "labels_needed", "model_intervals", "METHODS", "JudgeAudit", "judge_audit"]
