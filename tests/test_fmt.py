"""reporting/_fmt: the digits are chosen once per kind of number, never by a caller (issue 23 §3).

``fmt.points`` and ``fmt.interval`` take no digits; the split-half shrinkage and its Monte Carlo SE have their
own rule (:func:`percent`, :func:`percent_se`), so the SE prints as the same string in the terminal, Markdown,
the HTML page and the notebook's tables.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import ranktrust as rt
from ranktrust.reporting import _fmt as F


def test_no_formatter_takes_digits_from_its_caller():
    for name in ("points", "rating", "interval", "percent", "percent_se", "probability", "share", "p_value"):
        params = inspect.signature(getattr(F, name)).parameters
        assert "nd" not in params, f"fmt.{name} still lets its caller choose the digits"


def test_percent_and_its_se():
    assert F.percent(0.1234) == "12%" and F.percent(-0.1234) == "-12%"
    assert F.percent(-0.001) == "0%" and F.percent(-0.004) == "0%" and F.percent(-0.006) == "-1%"  # never '-0%'
    assert F.percent_se(0.034) == "3" and F.percent_se(0.0) == "0"
    # an SE that is not known is not zero (the split-half row printed '±0' for a missing SE)
    assert F.percent_se(None) == F.percent_se(float("nan")) == F.MISSING
    assert F.value("shrinkage", 0.1234) == "12%" and F.value("shrinkage_se", 0.034) == "3"
    assert F.value("lead_other_half_se", 0.0123) == F.points(0.0123) == "1.23"


@pytest.fixture(scope="module")
def split_half():
    rng = np.random.default_rng(4)
    m = rt.ScoreMatrix.from_array((rng.random((4, 400)) < np.array([0.62, 0.6, 0.5, 0.4])[:, None]).astype(float),
                                  models=["a", "b", "c", "d"])
    return rt.split_half(m, n_resamples=200, rng=0)


@pytest.mark.parametrize("fmt", ["text", "md", "html"])
def test_the_shrinkage_se_is_one_string_in_every_format(split_half, fmt):
    from ranktrust.reporting._notebook import _cell, result_html
    from ranktrust.reporting.renderers import to_string

    d = split_half.to_dict()
    assert d["shrinkage_se"] is not None and d["shrinkage"] is not None
    want = f"{F.percent(d['shrinkage'])} ±{F.percent_se(d['shrinkage_se'])}"
    assert want == f"{F.percent(d['shrinkage'])} ±{100 * d['shrinkage_se']:.{F.PERCENT_DIGITS}f}"
    assert want in to_string(split_half, fmt)
    assert _cell(d["shrinkage"], "shrinkage") == F.percent(d["shrinkage"])            # the notebook's tables
    assert _cell(d["shrinkage_se"], "shrinkage_se") == F.percent_se(d["shrinkage_se"])
    assert f"<td>{F.percent_se(d['shrinkage_se'])}</td>" in result_html(split_half)


def test_ratings_have_one_rule():
    """An Elo rating, a difference of two and an interval bound: :data:`RATING_DIGITS` decimals, signed on
    request; a difference that rounds to zero keeps its sign; missing is 'n/a'."""
    assert F.RATING_DIGITS == 1
    assert F.rating(1012.345) == "1012.3" and F.rating(12.35, signed=True) == "+12.3"
    assert F.rating(-7.06, signed=True) == "-7.1" and F.rating(-0.04, signed=True) == "-0.0"
    assert F.rating(0.0, signed=True) == "+0.0"
    assert F.rating(None) == F.rating(float("nan"), signed=True) == F.MISSING


def test_an_adjusted_p_at_the_draws_floor_is_a_bound():
    """1/(B+1) is the smallest adjusted p B draws can give: at it, above a smaller p, it prints as a bound."""
    floor = 1 / 201
    assert F.at_floor(floor, 0.001, floor) and F.adjusted_p(floor, 0.001, floor) == "<0.005"
    assert not F.at_floor(floor, 0.01, floor) and F.adjusted_p(floor, 0.01, floor) == "0.005"   # p not below it
    assert not F.at_floor(0.02, 0.001, floor) and F.adjusted_p(0.02, 0.001, floor) == "0.020"
    assert F.adjusted_p(floor, 0.001) == "0.005" and not F.at_floor(None, 0.001, floor)         # no floor: a value


def test_one_headline_function_speaks_points_and_elo():
    """The score path's headline and arena's are one function: the unit (points ×100, or Elo) and arena's
    clauses (the stepdown's floor as a bound, LMArena's overlap rule) come from its arguments and the numbers."""
    from ranktrust.errors import ArgumentError
    from ranktrust.reporting._headline import headline_text

    h = {"top": "A", "runner_up": "B", "separable": True, "diff": 0.0123, "ci_low": 0.004, "ci_high": 0.02,
         "p_value": 0.001, "p_adjusted": 1 / 201, "could_be_first": ["A"]}
    pts = headline_text(h, 0.95, adjust="holm", n_pairs=3)
    assert "its lead over B is 1.23 points" in pts and "adjusted p = 0.005" in pts and "overlap" not in pts
    assert "adjusted p < 0.005" in headline_text(h, 0.95, n_pairs=3, p_floor=1 / 201)
    elo = headline_text({**h, "diff": 12.34, "ci_low": 3.0, "ci_high": 21.7, "overlap_could_be_first": ["A", "B"]},
                        0.95, unit="Elo", p_floor=1 / 201)
    assert elo == ("Yes: A is #1 with 95% joint confidence over all pairs: A leads B by 12.3 Elo points (marginal "
                   "95% CI [+3.0, +21.7]), adjusted p < 0.005. The overlap rule would name 2 models as possible #1 "
                   "(marginal intervals, not simultaneous).")
    no = headline_text({**h, "separable": False, "could_be_first": list("ABCDEFGH"), "diff": 1.0, "ci_low": -4.0,
                        "ci_high": 6.0, "p_adjusted": 0.3, "overlap_could_be_first": list("ABCDEFGH")}, 0.9, unit="Elo")
    assert no == ("No: 8 models could be #1 with 90% joint confidence (A, B, C, D, E, F and 2 more); A leads B by 1.0 "
                  "Elo points (marginal 90% CI [-4.0, +6.0]) but is not separated from it over all pairs "
                  "(adjusted p = 0.300).")
    with pytest.raises(ArgumentError, match="`unit`"):
        headline_text(h, 0.95, unit="percent")


def test_a_list_of_names_shows_the_first_few_and_counts_the_rest():
    assert F.names(["a", "b"]) == "a, b" and F.names("abcdef") == "a, b, c, d and 2 more"
    assert F.names([f"m{i}" for i in range(8)], 6) == "m0, m1, m2, m3, m4, m5 and 2 more" and F.names([]) == ""
