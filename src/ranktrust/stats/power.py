"""How many items a benchmark needs to tell two models apart (and the inverse).

For a paired comparison of two models, let ``d_i`` be the per-item difference of their
scores and ``q = E[d_i^2]`` (the disagreement: for 0/1 scores the share of items on which
the two results differ, for continuous scores the mean squared per-item difference). With
a true gap ``d = E[d_i]`` the variance of one item's difference is ``q - d^2``, which the
formulas below approximate by ``q`` (slightly conservative, as in [A, M]), so

    n = (z_{1-alpha/2} + z_{power})^2 q / d^2          (items needed for gap d)
    d = (z_{1-alpha/2} + z_{power}) sqrt(q / n)       (detectable gap at n items)
    h = z_{1-alpha/2} sqrt(q / n)                      (paired CI half-width at n items)

A gap is possible only when ``q - d^2 >= 0``, i.e. ``d <= sqrt(q)`` (any scores in
[0, 1]); for 0/1 scores ``|d_i| = d_i^2``, so ``d = E[d_i] <= E|d_i| = q``, the tighter
limit ``d <= q``.

References
----------
.. [A] "Is the #1 AI Model Really #1?", Towards Data Science (2026): at q = 0.27 a gap of
   1 / 2 / 3 / 5 / 10 points needs about 21,200 / 5,300 / 2,350 / 850 / 210 items; at
   q = 0.20 the half-width is ±6 / ±4 / ±2 points at n = 200 / 500 / 2,000.
.. [M] E. Miller, "Adding Error Bars to Evals", arXiv:2411.00640 (2024), section on power.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from scipy import special

from ..errors import DataError
from ..results import Result, jsonable

if TYPE_CHECKING:  # pragma: no cover
    from ..data.matrix import ScoreMatrix

__all__ = ["PowerResult", "PowerTable", "power", "power_table", "estimate_disagreement"]


def _unit(name: str, value: Any, *, closed_high: bool = False, hint: str = "") -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a number, got {value!r}") from None
    ok = (0.0 < v <= 1.0) if closed_high else (0.0 < v < 1.0)
    if not ok or math.isnan(v):
        rng = "(0, 1]" if closed_high else "(0, 1)"
        raise ValueError(f"`{name}` must be in {rng}, got {value!r}{hint}")
    return v


def _max_gap(q: float, binary: bool) -> float:
    """Largest possible gap at disagreement ``q``: ``q`` for 0/1 scores, ``sqrt(q)`` otherwise."""
    return q if binary else math.sqrt(q)


def _z_sum(alpha: float, power: float) -> tuple[float, float]:
    z_a = float(special.ndtri(1.0 - alpha / 2.0))
    z_b = float(special.ndtri(power))
    return z_a, z_b


@dataclass(frozen=True, eq=False)
class PowerResult(Result):
    """Items needed for a gap, or the gap detectable with a number of items.

    Attributes
    ----------
    solved_for : str
        ``"items"`` or ``"gap"``.
    disagreement : float
        ``q = E[d_i^2]``: the share of items on which the two models differ (0/1 scores),
        or the mean squared per-item difference (continuous scores).
    alpha, power : float
        Two-sided significance level and power.
    gap : float or None
        The gap (fraction) asked about (``solved_for="items"``) or the detectable gap.
    items : int or None
        The number of items given (``solved_for="gap"``) or needed.
    items_needed : int or None
        ``ceil((z_{1-alpha/2} + z_power)^2 q / gap^2)``.
    detectable_gap : float or None
        ``(z_{1-alpha/2} + z_power) sqrt(q / items)``.
    ci_half_width : float
        ``z_{1-alpha/2} sqrt(q / n)`` at the given or needed number of items.
    """

    solved_for: str
    disagreement: float
    alpha: float
    power: float
    gap: float | None
    items: int | None
    items_needed: int | None
    detectable_gap: float | None
    ci_half_width: float

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"solved_for": self.solved_for}
        if self.solved_for == "items":
            d.update(items_needed=self.items_needed, gap=self.gap)
        else:
            d.update(detectable_gap=self.detectable_gap, ci_half_width=self.ci_half_width, items=self.items)
        d.update(disagreement=self.disagreement, alpha=self.alpha, power=self.power)
        return jsonable(d)


def power(
    *,
    gap: float | None = None,
    items: int | None = None,
    disagreement: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    binary: bool = False,
) -> PowerResult:
    """Items needed to detect a gap, or the gap detectable with a number of items.

    Exactly one of ``gap`` and ``items`` is ``None``: that one is solved for.

    Parameters
    ----------
    gap : float, optional
        Difference in score to detect, as a fraction (0.02 = 2 points).
    items : int, optional
        Number of items in the benchmark.
    disagreement : float
        Share ``q`` in (0, 1] of items on which the two models' results differ (for
        continuous scores, the mean squared per-item difference). Estimate it from data with
        :func:`estimate_disagreement`.
    alpha : float, default: ``0.05``
        Two-sided significance level.
    power : float, default: ``0.8``
        Probability of detecting a true gap of ``gap``.
    binary : bool, default: False
        True for 0/1 scores: ``q`` is then the share of discordant items and a gap can be
        at most ``q``. False (any scores in [0, 1]): ``q = E[d_i^2]`` and a gap can be at
        most ``sqrt(q)``.

    Returns
    -------
    PowerResult

    Raises
    ------
    ValueError
        Both or neither of ``gap``/``items`` given; values out of range; a gap that the
        disagreement does not allow: ``gap > sqrt(q)`` (the variance ``q - gap^2`` of a
        paired difference would be negative), or for ``binary=True`` ``gap > q``
        (``|b - c|/n`` cannot exceed ``(b + c)/n``).

    Notes
    -----
    ``n = (z_{1-alpha/2} + z_power)^2 q / d^2`` [A, M]. With ``d_i`` the per-item paired
    difference, ``q = E[d_i^2]`` and ``d = E[d_i]``, its variance is ``q - d^2``; the formula
    approximates it by ``q`` (slightly conservative; this gives [A]'s published figures).
    At ``alpha = 0.05`` and 80% power the factor is ``(1.960 + 0.842)^2 = 7.849``.

    References
    ----------
    .. [1] [A] "Is the #1 AI Model Really #1?" (2026), section on how many questions are needed.
    .. [2] E. Miller, arXiv:2411.00640 (2024).

    Examples
    --------
    >>> power(gap=0.02, disagreement=0.27).items_needed
    5298
    >>> round(power(items=500, disagreement=0.20).ci_half_width * 100, 1)
    3.9
    """
    if (gap is None) == (items is None):
        raise ValueError(
            "give exactly one of `gap` and `items` (the other is solved for); got "
            + ("both" if gap is not None else "neither")
        )
    if disagreement is None:
        raise ValueError(
            "`disagreement` is required: the share of items on which the two models differ "
            "(estimate it from data with estimate_disagreement(m))"
        )
    q = _unit("disagreement", disagreement, closed_high=True)
    a = _unit("alpha", alpha)
    pw = _unit("power", power)
    z_a, z_b = _z_sum(a, pw)
    if gap is not None:
        d = _unit("gap", gap, hint=" (a fraction: 0.02 = 2 points)")
        if d > _max_gap(q, bool(binary)):
            if binary:
                raise ValueError(
                    f"`gap` {d:g} is larger than `disagreement` {q:g}: two models with 0/1 scores that differ "
                    "on a share q of items cannot differ in score by more than q"
                )
            raise ValueError(
                f"`gap` {d:g} is larger than sqrt(`disagreement`) = {math.sqrt(q):.4g}: with a mean squared "
                f"per-item difference q = {q:g} the gap can be at most sqrt(q) (its variance q - gap^2 "
                "would be negative); give a smaller gap or a larger disagreement"
            )
        n_float = (z_a + z_b) ** 2 * q / (d * d)
        # guard against 5298.000000001 from rounding: round to 9 digits before ceil
        n_need = int(math.ceil(round(n_float, 9)))
        return PowerResult(
            solved_for="items", disagreement=q, alpha=a, power=pw, gap=d, items=None,
            items_needed=n_need, detectable_gap=None, ci_half_width=z_a * math.sqrt(q / n_need),
        )
    if isinstance(items, bool) or not float(items).is_integer() or int(items) < 1:  # type: ignore[arg-type]
        raise ValueError(f"`items` must be a positive integer, got {items!r}")
    n = int(items)  # type: ignore[arg-type]
    return PowerResult(
        solved_for="gap", disagreement=q, alpha=a, power=pw, gap=None, items=n, items_needed=None,
        detectable_gap=(z_a + z_b) * math.sqrt(q / n), ci_half_width=z_a * math.sqrt(q / n),
    )


@dataclass(frozen=True, eq=False)
class PowerTable(Result):
    """Items needed for several gaps at one disagreement.

    Attributes
    ----------
    disagreement, alpha, power : float
    gaps : ndarray
        Gaps (fractions).
    items_needed : ndarray of int
    """

    disagreement: float
    alpha: float
    power: float
    gaps: np.ndarray
    items_needed: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        return jsonable({
            "disagreement": self.disagreement, "alpha": self.alpha, "power": self.power,
            "table": [{"gap": g, "items_needed": n} for g, n in zip(self.gaps.tolist(), self.items_needed.tolist())],
        })


def power_table(
    disagreement: float,
    gaps: Sequence[float] = (0.01, 0.02, 0.03, 0.05, 0.10),
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    binary: bool = False,
) -> PowerTable:
    """Items needed for each gap in ``gaps`` (fractions) at one disagreement.

    Gaps the disagreement does not allow are left out: those above ``sqrt(q)``, or above
    ``q`` with ``binary=True`` (0/1 scores); see :func:`power`.

    Examples
    --------
    >>> power_table(0.27).items_needed.tolist()
    [21192, 5298, 2355, 848, 212]
    """
    q = _unit("disagreement", disagreement, closed_high=True)
    top = _max_gap(q, bool(binary))
    g = np.asarray([x for x in gaps if 0 < float(x) <= top and float(x) < 1], dtype=np.float64)
    needed = [_power_items(x, q, alpha, power, bool(binary)) for x in g.tolist()]
    return PowerTable(disagreement=q, alpha=float(alpha), power=float(power), gaps=g,
                      items_needed=np.asarray(needed, dtype=np.int64))


def _power_items(gap: float, q: float, alpha: float, pw: float, binary: bool) -> int:
    r = power(gap=gap, disagreement=q, alpha=alpha, power=pw, binary=binary)
    return int(r.items_needed)  # type: ignore[arg-type]


def estimate_disagreement(m: "ScoreMatrix", *, pair: tuple[str, str] | None = None) -> float:
    """Disagreement ``q`` estimated from data.

    Parameters
    ----------
    m : ScoreMatrix
        At least two models.
    pair : (str, str), optional
        Two model names: their disagreement. Default: the median over all pairs.

    Returns
    -------
    float
        Share of shared items on which the two models' results differ; for continuous
        scores the mean squared per-item difference (the same quantity for 0/1 scores).

    Raises
    ------
    DataError
        Fewer than two models, unknown models, or no shared items.
    """
    from .paired import pair_stats, _is_binary

    S = np.asarray(m.scores)
    if pair is not None:
        if len(pair) != 2:
            raise ValueError(f"`pair` must be two model names, got {pair!r}")
        ia, ib = m.index_of(pair[0]), m.index_of(pair[1])
        if ia == ib:
            raise DataError(f"`pair` names model {pair[0]!r} twice: give two different models")
        ii, jj = np.array([ia]), np.array([ib])
    else:
        if S.shape[0] < 2:
            raise DataError("estimating the disagreement needs at least two models; the data has one")
        ii, jj = np.triu_indices(S.shape[0], 1)
    st = pair_stats(S, ii, jj, binary=_is_binary(S))
    n = st["n"]
    with np.errstate(invalid="ignore", divide="ignore"):
        q = (st["ss"] + st["sum_d"] ** 2 / n) / n
    q = q[n > 0]
    if q.size == 0:
        raise DataError("no pair of models shares a scored item: cannot estimate the disagreement")
    return float(np.median(q))
