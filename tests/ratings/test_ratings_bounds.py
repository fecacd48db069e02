"""One-sided bots get a one-sided 95% bound that the data set, not the prior: the profile
likelihood ratio bound, checked against an independent profile, its independence of the
bot's prior, its display, and the bounds of differences."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import minimize

from arena.ratings import ELO_PER_NAT, MatchResult, format_report, rate
from arena.ratings.bounds import DROP, difference_bounds
from arena.ratings.edges import NEVER_BEATEN, NEVER_WON
from arena.ratings.formatting import interval_text
from arena.ratings.plackett_luce import placing_probability
from arena.tournament.standings import compute_standings, format_standings
from tests.rows import result_row



def top_always_first(blocks: int, seed: int = 1, *, last: bool = False) -> list[MatchResult]:
    """'top' is first (``last``: last) in every match; b, c, d (1500/1450/1400) order the
    other two places by PL."""
    rng = np.random.default_rng(seed)
    others = {"b": 1500.0, "c": 1450.0, "d": 1400.0}
    out = []
    for k in range(blocks):
        pair = list(itertools.combinations(sorted(others), 2))[k % 3]
        for seating in itertools.permutations(("top", *pair)):
            x, y = (n for n in seating if n != "top")
            p_x = 1 / (1 + 10 ** (-(others[x] - others[y]) / 400))
            first, second = (x, y) if rng.random() < p_x else (y, x)
            ranked = ({first: 1, second: 2, "top": 3} if last else
                      {"top": 1, first: 2, second: 3})
            out.append(MatchResult(seating, tuple(ranked[n] for n in seating), f"b{k}"))
    return out


def test_a_never_beaten_bot_gets_a_lower_bound_that_the_prior_does_not_set():
    results = top_always_first(6)
    low, wide = rate(results, bootstrap=20), rate(results, bootstrap=20, prior_sigma=3.0)
    for report in (low, wide):
        top = report.bot("top")
        assert top.one_sided == NEVER_BEATEN and top.ci_high is None
        assert top.ci_low > max(report.bot(n).rating for n in "bcd")
    assert abs(wide.bot("top").rating - low.bot("top").rating) > 100   # the estimate: prior's
    assert abs(wide.bot("top").ci_low - low.bot("top").ci_low) < 5     # the bound: the data's


def test_the_bound_is_where_the_profile_likelihood_has_dropped_by_the_one_sided_95_cut():
    """An independent profile: fix top's anchored rating, maximise the log-likelihood plus
    the other bots' priors over their strengths (Nelder-Mead on the brute-force likelihood)."""
    results = top_always_first(4, seed=3)
    report = rate(results, bootstrap=20)
    names = ["top", "b", "c", "d"]
    index = {n: i for i, n in enumerate(names)}

    def profile(r_elo: float) -> float:
        d = (r_elo - 1500.0) / ELO_PER_NAT     # top's rating above the mean of b, c, d

        def neg(others):
            theta = np.array([d + others.mean(), *others])
            ll = sum(math.log(placing_probability([theta[index[x]] for x in m.players],
                                                  m.places)) for m in results)
            return -(ll - others @ others / (2 * 1.5**2))

        best = minimize(neg, np.zeros(3), method="Nelder-Mead",
                        options={"xatol": 1e-9, "fatol": 1e-11, "maxiter": 20_000})
        return -best.fun

    bound = report.bot("top").ci_low
    assert profile(8000.0) - profile(bound) == pytest.approx(DROP, abs=2e-3)


def test_a_bot_that_never_beat_another_gets_an_upper_bound_and_its_differences_bounds():
    flipped = top_always_first(6, last=True)
    report = rate(flipped, bootstrap=20)
    last = report.bot("top")
    assert last.one_sided == NEVER_WON and last.ci_low is None and last.ci_high is not None
    d = report.difference_of("top", "b")
    b = report.bot("b")
    assert d.ci_low is None and d.ci_high == pytest.approx(last.ci_high - b.ci_low)
    back = report.difference_of("b", "top")
    assert back.ci_high is None and back.ci_low == pytest.approx(b.ci_low - last.ci_high)
    assert f"< {last.ci_high:.1f}" in format_report(report, "md")


def test_difference_bounds_combine_the_two_bots_bounds():
    assert difference_bounds(10.0, None, -5.0, 3.0) == (7.0, None)
    assert difference_bounds(None, 4.0, -5.0, 3.0) == (None, 9.0)
    assert difference_bounds(10.0, None, 2.0, None) == (None, None)   # both only bounded below
    assert difference_bounds(1.0, 2.0, -1.0, 0.5) == (0.5, 3.0)


def test_bounds_are_shown_as_bounds():
    assert interval_text(1650.04, None, 0) == "> 1650"
    assert interval_text(None, 1320.4) == "< 1320.4"
    assert interval_text(-3.0, 12.0, sign=True) == "[-3.0, +12.0]"
    assert interval_text(None, None) == "-"
    rows = [result_row(f"m{k}", m.block, m.players, places=m.places, decisions=(4, 4, 4))
            for k, m in enumerate(top_always_first(6))]
    st = compute_standings(rows, ["top", "b", "c", "d"])
    bound = st.ratings.bot("top").ci_low
    text = format_standings(st, "text")
    line = next(x for x in text.splitlines() if " top " in x)
    assert f"> {bound:.0f}" in line
    assert f"> {bound:.1f}" in format_report(st.ratings, "md")
