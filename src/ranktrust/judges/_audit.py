"""Judge audit: probes of a judge's verdicts, each with an estimate, an interval, a test and ``flagged``.

Every probe is a record named after it (``position``, ``consistency``, ``self_preference``, ``agreement``):
``rate`` (or ``kappa``), ``ci_low``, ``ci_high``, ``p_value`` and ``flagged`` (``p_value < 1 - level``; None
for a probe that is a figure, not a test), with the counts it rests on. A noisy but unbiased judge is never
flagged for its noise: each test's null hypothesis is "no bias" (a mean of zero), not "no disagreement", and
its p-value is the finite-sample hedged-capital bound of :mod:`ranktrust.stats._bounded` (Waudby-Smith &
Ramdas 2024), valid at every number of games whatever the distribution of the verdicts.

``position`` (swapped games: one question judged twice, the two answers in both orders, as MT-Bench's g1/g2
and Arena-Hard's two games do). Per question, the first slot's score averaged over its two games (a win 1,
a tie 1/2, a loss 0): ``rate`` is its mean, H0 "the first slot wins half" (the two orders are judged alike).
Errors (no verdict parsed) are left out, with their count.

``consistency`` (the same games): the share of questions whose two verdicts name the same winner (or both a
tie) once mapped back to the models; a figure with a Wilson interval, never flagged (an inconsistent judge is
noisy; ``position`` says whether the noise leans to one slot).

``self_preference`` (the judge's verdicts and reference verdicts, a person's or another judge's, on the same
battles line by line; ``family`` names the models of the judge's own family, given by the caller, never guessed
from names): on the battles with exactly one family model, ``d`` = the family model's score by the judge minus
its score by the reference (a win 1, a tie 1/2, a loss 0). ``rate`` is the mean of ``d``, in [-1, 1], with a
two-sided interval; the test is one-sided (H0: ``rate <= 0``; a judge that favours its family is flagged, one
that is harder on it is not, though its interval shows it). Unbiased means: the judge's verdict has, battle by
battle, the reference's expected score, as another rater of the same kind would; a judge more or less decisive
than the reference (fewer ties) can move ``rate`` without any self-preference, so read it with ``agreement``.

``agreement`` (the same battles): Cohen's kappa of the judge and the reference over the verdicts "a wins",
"b wins", "tie", with a normal interval from its influence function (approximate: thousands of battles in the
data it is meant for); a figure, never flagged.

``length`` (battles or swapped games with the answers' lengths, with or without reference verdicts), ``repeats``
and ``judge_shift`` (a long table of judged scores, each answer judged by several judges or more than once): see
:mod:`ranktrust.judges._length` and :mod:`ranktrust.judges._twoway`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np

from .. import _validate
from .._kernel import normal_quantile, wilson_bounds
from ..errors import DataError
from ..results import Result, jsonable
from ..stats import betting_bounds
from ._length import find_lengths, length_probe
from ._twoway import judge_shift, repeat_variance

__all__ = ["AuditHeadline", "JudgeAudit", "JudgeAuditJSON", "ProbeJSON", "judge_audit", "VERDICTS"]

#: how a verdict is read: the score of the first-named model (model_1 / model_a); None = no verdict (an error)
VERDICTS = {"model_1": 1.0, "model_2": 0.0, "model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5,
            "error": None}


class ProbeJSON(TypedDict, total=False):
    """One probe's record: ``rate`` (``kappa`` for agreement), its interval, ``p_value`` and ``flagged`` (None
    for a figure that is not a test), and the counts it rests on."""

    rate: float
    kappa: float
    ci_low: float
    ci_high: float
    p_value: float | None
    flagged: bool | None
    n_questions: int
    n_errors: int
    n_battles: int
    first_slot_won_both: int
    second_slot_won_both: int
    family: list[str]
    judge_score: float
    reference_score: float
    agreement: float
    slope: float
    versus: str
    n_pairs: int
    n_clusters: int
    judge_slope: float
    reference_slope: float
    twice_as_long: float
    icc: float
    n_cells: int
    n_repeated_cells: int
    n_judgments: int
    judgments_per_cell: float
    n_judges: int
    repeat_sd: float
    judge: str
    offsets: dict[str, float]
    t2: float


class AuditHeadline(TypedDict):
    """The command's one sentence (``text``, composed by the renderers) and the flagged probes."""

    text: str
    flagged: list[str]


class JudgeAuditJSON(TypedDict, total=False):
    """Layout of :meth:`JudgeAudit.to_dict`: one record per probe that ran."""

    confidence_level: float
    position: ProbeJSON
    consistency: ProbeJSON
    self_preference: ProbeJSON
    agreement: ProbeJSON
    length: ProbeJSON
    repeats: ProbeJSON
    judge_shift: ProbeJSON
    flagged: list[str]
    not_run: dict[str, str]


@dataclass(frozen=True, eq=False)
class JudgeAudit(Result):
    """The probes :func:`judge_audit` could run on the data it was given (see the module docstring).

    Attributes
    ----------
    probes : dict
        ``{name: record}``; a probe the data cannot support is absent and named in ``not_run`` with why.
    not_run : dict
        ``{name: code}``: ``no_games`` (no swapped games), ``no_reference`` (no reference verdicts on the same
        battles), ``no_family`` (the judge's family not named), ``no_lengths`` (no answer lengths),
        ``no_repeats`` (judged scores with no answer judged more than once, or one judge only for
        ``judge_shift``), ``too_few_items`` (``judge_shift``: fewer item clusters than judges, or no cell that
        every judge scored). Without ``scores`` neither ``repeats`` nor ``judge_shift`` is listed.
    confidence_level : float
    """

    probes: dict
    not_run: dict
    confidence_level: float = 0.95

    @property
    def flagged(self) -> list[str]:
        """The probes whose test flagged a bias."""
        return [k for k, v in self.probes.items() if v.get("flagged")]

    def to_dict(self) -> JudgeAuditJSON:
        return jsonable({"confidence_level": self.confidence_level, **{k: dict(v) for k, v in self.probes.items()},
                         "flagged": self.flagged, "not_run": dict(self.not_run)})


def _column(table: Any, name: str, what: str) -> np.ndarray:
    try:
        return np.asarray(table[name], dtype=object)
    except (KeyError, IndexError, TypeError):
        raise DataError(f"{what} has no {name!r} column", param=what) from None


def _scores(v: np.ndarray, what: str) -> np.ndarray:
    """Verdict labels -> the first-named model's score (NaN = an error verdict)."""
    out = np.empty(len(v))
    for i, x in enumerate(v):
        if x is None or (isinstance(x, float) and math.isnan(x)):
            out[i] = np.nan
            continue
        key = str(x).strip().lower()
        if key not in VERDICTS:
            raise DataError(f"{what}: row {i}: verdict {x!r} is not one of {', '.join(sorted(set(VERDICTS)))}",
                            param=what)
        s = VERDICTS[key]
        out[i] = np.nan if s is None else s
    return out


def _test(x: np.ndarray, half_range: float, level: float, alternative: str = "two-sided") -> tuple[float, float, float]:
    """Finite-sample two-sided interval of the mean of ``x`` and the p-value of mean 0 (hedged capital; the
    items in a fixed order: the rows as given, which carry no information about the verdicts)."""
    lo, hi, p = betting_bounds(np.asarray(x, dtype=float), confidence_level=level, half_range=half_range,
                               alternative=alternative)
    return float(lo), float(hi), float(p)


def _position(games: Any, level: float) -> tuple[dict, dict]:
    g1 = _scores(_column(games, "g1_winner", "games"), "games")
    g2 = _scores(_column(games, "g2_winner", "games"), "games")
    ok = ~np.isnan(g1) & ~np.isnan(g2)
    n, err = int(ok.sum()), int((~ok).sum())
    if n < 1:
        raise DataError("games: no question has a verdict in both orders (every pair has an error verdict)",
                        param="games")
    # game 1: model_1 in the first slot; game 2: model_2 in the first slot (FastChat maps g2 back to the models)
    first = (g1[ok] + (1 - g2[ok])) / 2
    lo, hi, p = _test(first - 0.5, 0.5, level)
    alpha = 1 - level
    position = {"rate": float(first.mean()), "ci_low": 0.5 + lo, "ci_high": 0.5 + hi, "p_value": p,
                "flagged": bool(p < alpha), "n_questions": n, "n_errors": err,
                "first_slot_won_both": int(np.sum((g1[ok] == 1) & (g2[ok] == 0))),
                "second_slot_won_both": int(np.sum((g1[ok] == 0) & (g2[ok] == 1)))}
    same = g1[ok] == g2[ok]
    z = normal_quantile(level)
    clo, chi = wilson_bounds(same.mean(), n, z)
    consistency = {"rate": float(same.mean()), "ci_low": float(clo), "ci_high": float(chi), "p_value": None,
                   "flagged": None, "n_questions": n}
    return position, consistency


def _paired_verdicts(battles: Any, reference: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    a, b = _column(battles, "model_a", "battles"), _column(battles, "model_b", "battles")
    ra, rb = _column(reference, "model_a", "reference"), _column(reference, "model_b", "reference")
    if len(a) != len(ra):
        raise DataError(f"battles has {len(a):,} rows and reference {len(ra):,}: the two must be the same battles "
                        "line by line", param="reference")
    bad = np.flatnonzero((a != ra) | (b != rb))
    if bad.size:
        i = int(bad[0])
        raise DataError(f"row {i}: battles has {a[i]!r} vs {b[i]!r} and reference {ra[i]!r} vs {rb[i]!r} "
                        f"({bad.size:,} such rows): the two must be the same battles line by line", param="reference")
    sj = _scores(_column(battles, "winner", "battles"), "battles")
    sr = _scores(_column(reference, "winner", "reference"), "reference")
    return a, b, sj, sr


def _self_preference(a, b, sj, sr, family: tuple[str, ...], level: float) -> dict:
    fam = set(family)
    ina, inb = np.isin(a, list(fam)), np.isin(b, list(fam))
    one = (ina ^ inb) & ~np.isnan(sj) & ~np.isnan(sr)
    if not one.any():
        raise DataError(f"no battle has exactly one model of the family {sorted(fam)}: self-preference cannot be "
                        "measured", param="family")
    # the family model's score by the judge and by the reference
    fj = np.where(ina[one], sj[one], 1 - sj[one])
    fr = np.where(ina[one], sr[one], 1 - sr[one])
    d = fj - fr
    lo, hi, p = _test(d, 1.0, level, "greater")
    return {"rate": float(d.mean()), "ci_low": lo, "ci_high": hi, "p_value": p, "flagged": bool(p < 1 - level),
            "n_battles": int(one.sum()), "family": sorted(fam), "judge_score": float(fj.mean()),
            "reference_score": float(fr.mean())}


def _kappa(sj: np.ndarray, sr: np.ndarray, level: float) -> dict:
    ok = ~np.isnan(sj) & ~np.isnan(sr)
    x, y = sj[ok], sr[ok]
    n = int(ok.sum())
    cats = np.array([0.0, 0.5, 1.0])
    X = (x[:, None] == cats).astype(float)
    Y = (y[:, None] == cats).astype(float)
    agree = (X * Y).sum(axis=1)               # 1 where the two agree
    px, py = X.mean(axis=0), Y.mean(axis=0)
    po, pe = agree.mean(), float(px @ py)
    kappa = (po - pe) / (1 - pe) if pe < 1 else float("nan")
    # influence function of kappa = (po - pe) / (1 - pe): d po = agree_i - po; d pe = X_i . py + px . Y_i - 2 pe
    dpo = agree - po
    dpe = X @ py + Y @ px - 2 * pe
    infl = (dpo - (1 - kappa) * dpe) / (1 - pe) if pe < 1 else np.zeros(n)
    se = float(np.sqrt(np.sum(infl ** 2)) / n)
    z = normal_quantile(level)
    return {"kappa": float(kappa), "ci_low": float(kappa - z * se), "ci_high": float(kappa + z * se),
            "p_value": None, "flagged": None, "n_battles": n, "agreement": float(po)}


def _optional(table: Any, name: str) -> np.ndarray | None:
    try:
        return np.asarray(table[name], dtype=object)
    except (KeyError, IndexError, TypeError):
        return None


def _games_length(games: Any, level: float) -> dict | None:
    """``length`` on swapped games: model_1's score averaged over the two orders (position cancels)."""
    lengths = find_lengths(games)
    if lengths is None:
        return None
    g1 = _scores(_column(games, "g1_winner", "games"), "games")
    g2 = _scores(_column(games, "g2_winner", "games"), "games")
    n = len(g1)
    m1 = _optional(games, "model_1")
    m2 = _optional(games, "model_2")
    a = m1 if m1 is not None else np.full(n, "model_1", dtype=object)
    b = m2 if m2 is not None else np.full(n, "model_2", dtype=object)
    return length_probe(a, b, lengths[0], lengths[1], (g1 + g2) / 2, None, _optional(games, "question_id"), level)


def _scores_records(scores: Any, judge_col: str, level: float) -> tuple[dict[str, dict], dict[str, str]]:
    from ._twoway import _read_long

    d = _read_long(scores, "model", "item", judge_col, "score", None)
    if int(d["cell_code"].max()) + 1 == d["cell_code"].size:
        return {}, {"repeats": "no_repeats", "judge_shift": "no_repeats"}
    out = {"repeats": repeat_variance(d, level)}
    if out["repeats"]["n_judges"] < 2:
        return out, {"judge_shift": "no_repeats"}
    try:
        out["judge_shift"] = judge_shift(d, level)
    except DataError:    # fewer item clusters than judges, or no cell every judge scored: the figure still stands
        return out, {"judge_shift": "too_few_items"}
    return out, {}


def judge_audit(games: Any = None, *, battles: Any = None, reference: Any = None, family: Any = None,
                scores: Any = None, judge_col: str = "judge", confidence_level: float = 0.95) -> JudgeAudit:
    """Probe a judge for position bias, inconsistency, self-preference, length bias, agreement with a reference,
    repeat-judgment variance and judge shifts.

    Parameters
    ----------
    games : table, optional
        Swapped games, one row per question and model pair: ``g1_winner`` (``model_1`` in the first slot) and
        ``g2_winner`` (``model_2`` in the first slot), each ``model_1``, ``model_2``, ``tie`` or ``error``, in
        the models' terms (FastChat's MT-Bench pairwise files). Runs ``position`` and ``consistency``, and
        ``length`` where the answers' lengths are there (``length_1``/``length_2`` columns, or the answers in
        ``g1_user_prompt``).
    battles, reference : tables, optional
        The judge's verdicts and reference verdicts (a person's, another judge's) on the same battles, line by
        line: ``model_a``, ``model_b``, ``winner`` (``model_a``, ``model_b``, ``tie``, ``tie (bothbad)``).
        Runs ``agreement``, and with ``family`` ``self_preference``. With the answers' lengths (``length_a``
        and ``length_b``) ``battles`` runs ``length``, against the reference when one is given.
    family : sequence of str, optional
        The models of the judge's own family (named by the caller: ranktrust does not guess families from names).
    scores : table, optional
        Judged scores, one row per judgment: ``model``, ``item``, ``score`` and ``judge_col`` (the judge or the
        repeat). Runs ``repeats`` and, with two judges or more, ``judge_shift``. Per-model intervals that count
        the judges' variance: :func:`ranktrust.judges.judged_intervals` on the same table.
    judge_col : str, default ``"judge"``
    confidence_level : float

    Returns
    -------
    JudgeAudit
    """
    level = _validate.confidence_level(confidence_level)
    probes: dict[str, dict] = {}
    not_run: dict[str, str] = {}
    if games is not None:
        probes["position"], probes["consistency"] = _position(games, level)
    else:
        not_run["position"] = not_run["consistency"] = "no_games"
    if battles is not None and reference is not None:
        a, b, sj, sr = _paired_verdicts(battles, reference)
        probes["agreement"] = _kappa(sj, sr, level)
        if family is not None:
            fam = (family,) if isinstance(family, str) else tuple(str(x) for x in family)
            probes["self_preference"] = _self_preference(a, b, sj, sr, fam, level)
        else:
            not_run["self_preference"] = "no_family"
    else:
        not_run["agreement"] = not_run["self_preference"] = "no_reference"
    lengths = find_lengths(battles) if battles is not None else None
    if lengths is not None:
        if reference is None:
            a, b = _column(battles, "model_a", "battles"), _column(battles, "model_b", "battles")
            sj, sr = _scores(_column(battles, "winner", "battles"), "battles"), None
        probes["length"] = length_probe(a, b, lengths[0], lengths[1], sj, sr, _optional(battles, "question_id"),
                                        level)
    elif games is not None and (g := _games_length(games, level)) is not None:
        probes["length"] = g
    elif games is not None or battles is not None:
        not_run["length"] = "no_lengths"
    if scores is not None:          # (without judged scores the two probes are not listed: nothing to run them on)
        recs, skipped = _scores_records(scores, judge_col, level)
        probes.update(recs)
        not_run.update(skipped)
    if not probes:
        raise DataError("nothing to audit: give swapped `games`, `battles` with `reference` verdicts or answer "
                        "lengths, or judged `scores`", param="games")
    return JudgeAudit(probes=probes, not_run=not_run, confidence_level=level)
