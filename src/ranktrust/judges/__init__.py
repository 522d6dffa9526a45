"""Judged scores corrected with a few gold labels, and audits of the judge.

:func:`gold_corrected` returns a :class:`GoldCorrected`: each model's mean gold score from a judge's scores on
every item and a person's labels on a random subset (PPI++, or for 0/1 judges post-stratification on the
judge's verdict or the sensitivity/specificity correction), with the judge-only and gold-only answers beside it,
and the pairs, rank sets and tiers of one stepdown over all pairs. :func:`labels_needed` says how many labels
buy a given interval width. :func:`gold_corrected_battles` does the same for battles (prediction-powered
Bradley–Terry ratings), and :func:`judge_audit` probes a judge for position bias, inconsistency,
self-preference and agreement. The estimators themselves (their formulas and sources are in docs/judges.md) live
in the statistics layer, where ``rt.intervals``, ``rt.compare`` and ``rt.report`` take them with ``gold=``.
"""

from . import _audit as _audit
from . import _battles as _battles
from . import _core as _core
from ._audit import JudgeAudit, judge_audit
from ._battles import GoldCorrectedBattles, gold_corrected_battles
from ._core import METHODS, GoldCorrected, gold_corrected, labels_needed, model_intervals
from ._twoway import judged_intervals

__doc__ = f"{__doc__}\n{_core.__doc__}\n{_battles.__doc__}\n{_audit.__doc__}"

__all__ = ["GoldCorrected", "gold_corrected", "labels_needed", "model_intervals", "METHODS",
           "GoldCorrectedBattles", "gold_corrected_battles", "JudgeAudit", "judge_audit", "judged_intervals"]
