"""Ratings at the edges: one-sided bots, the anchor, intervals of differences, bootstrap
stability under block relabelling, the batched refit."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from arena.ratings import MatchResult, rate
from arena.ratings.batch_fit import fit_theta_batch
from arena.ratings.bootstrap import interval_scale
from arena.ratings.intervals import block_order
from arena.ratings.edges import NEVER_BEATEN, NEVER_WON, one_sided
from arena.ratings.plackett_luce import encode, fit_theta
from .ratings_synth import FOUR, FOUR_TABLES, simulate

TRUTH = {"A": 1650.0, "B": 1550.0, "C": 1450.0, "D": 1500.0}


def with_d_always_last(results):
    out = []
    for r in results:
        if "D" in r.players:
            place = dict(zip(r.players, r.places, strict=True))
            first, second = sorted((p for p in r.players if p != "D"), key=place.__getitem__)
            place = {first: 1, second: 2, "D": 3}
            out.append(MatchResult(r.players, tuple(place[p] for p in r.players), r.block,
                                   tuple(p == "D" for p in r.players)))
        else:
            out.append(r)
    return out


@pytest.fixture(scope="module")
def crashing_d():
    tables = list(itertools.combinations("ABCD", 3))
    return with_d_always_last(simulate(TRUTH, tables, 4, np.random.default_rng(3)))


def test_a_bot_that_always_loses_no_longer_drags_the_others(crashing_d):
    reports = {s: rate(crashing_d, bootstrap=100, prior_sigma=s) for s in (1.5, 3.0)}
    for report in reports.values():
        assert report.bot("D").one_sided == NEVER_WON
        assert all(report.bot(n).one_sided is None for n in "ABC")
        # the anchor: A, B, C average 1500; D is far below (a bound set by the prior)
        assert np.mean([report.bot(n).rating for n in "ABC"]) == pytest.approx(1500.0)
        assert report.bot("D").rating < 1000
    low, high = reports[1.5], reports[3.0]
    for n in "ABC":   # before: A read 1720 / 1771 with these priors; now a few points apart
        assert abs(low.bot(n).rating - high.bot(n).rating) < 5
    assert high.bot("D").rating < low.bot("D").rating - 100   # only D follows the prior


def test_never_beaten_and_all_ties_are_flagged():
    results = [MatchResult(("A", "B", "C"), (1, 2, 3), "b0"),
               MatchResult(("A", "C", "B"), (1, 2, 3), "b0"),
               MatchResult(("A", "B", "C"), (1, 3, 2), "b1"),
               MatchResult(("A", "B", "E"), (1, 2, 2), "b1"),
               MatchResult(("B", "C", "E"), (1, 2, 3), "b2"),
               MatchResult(("C", "B", "E"), (1, 2, 3), "b2")]
    flags = one_sided(results, ["A", "B", "C", "E"])
    assert flags == {"A": NEVER_BEATEN, "B": None, "C": None, "E": NEVER_WON}
    ties = [MatchResult(("A", "B", "C"), (1, 1, 1), "b0"),
            MatchResult(("A", "B", "C"), (1, 2, 3), "b1")]
    assert one_sided(ties, ["A", "B", "C"]) == {"A": NEVER_BEATEN, "B": None, "C": NEVER_WON}
    report = rate(results, bootstrap=0)
    assert report.bot("A").one_sided == NEVER_BEATEN
    assert report.bot("E").one_sided == NEVER_WON
    assert (report.bot("B").rating + report.bot("C").rating) / 2 == pytest.approx(1500.0)
    # every bot one-sided (a strict order): all of them form the anchor
    strict = [MatchResult(("A", "B", "C"), (1, 2, 3), f"b{k}") for k in range(3)]
    flags = [b.one_sided for b in rate(strict, bootstrap=0).bots]
    assert flags == [NEVER_BEATEN, None, NEVER_WON]
    assert np.mean([b.rating for b in rate(strict, bootstrap=0).bots]) != pytest.approx(1500.0)


def test_difference_intervals():
    results = simulate(FOUR, FOUR_TABLES, 6, np.random.default_rng(2))
    report = rate(results, bootstrap=300, seed=4)
    names = report.names
    assert len(report.differences) == len(names) * (len(names) - 1)
    for a, b in itertools.permutations(names, 2):
        d = report.difference_of(a, b)
        assert d.difference == pytest.approx(report.bot(a).rating - report.bot(b).rating)
        assert d.ci_low < d.difference < d.ci_high
        back = report.difference_of(b, a)
        assert (back.ci_low, back.ci_high) == pytest.approx((-d.ci_high, -d.ci_low))
    # W-Z differ by 300 true Elo points: the interval excludes 0; neighbours are closer
    wz = report.difference_of("W", "Z")
    assert wz.ci_low > 0 and wz.ci_low < 300 < wz.ci_high
    with pytest.raises(KeyError):
        report.difference_of("W", "W")
    assert rate(results, bootstrap=0).differences[0].ci_low is None


def test_bounds_do_not_depend_on_block_ids():
    results = simulate(FOUR, FOUR_TABLES, 3, np.random.default_rng(8))
    rng = np.random.default_rng(0)
    fresh = {b: f"x{rng.integers(1 << 40):x}" for b in {r.block for r in results}}
    relabelled = [MatchResult(r.players, r.places, fresh[r.block], r.forfeits)
                  for r in results]
    a = rate(results, bootstrap=200, seed=7)
    b = rate(list(reversed(relabelled)), bootstrap=200, seed=7)
    for x, y in zip(a.bots, b.bots, strict=True):
        assert (x.name, x.rating) == (y.name, y.rating)
        assert abs(x.ci_low - y.ci_low) < 1e-6 and abs(x.ci_high - y.ci_high) < 1e-6
    # the draw order follows block content, not ids
    order_a = [sorted(r.players for r in results if r.block == blk) for blk in block_order(results)]
    order_b = [sorted(r.players for r in relabelled if r.block == blk)
               for blk in block_order(relabelled)]
    assert order_a == order_b


def test_the_los_moves_less_than_its_monte_carlo_error_between_seeds():
    close = {"A": 1520.0, "B": 1500.0, "C": 1480.0}
    results = simulate(close, [("A", "B", "C")], 12, np.random.default_rng(1))
    los = np.array([rate(results, bootstrap=1000, seed=s).los_of("B", "C") for s in range(4)])
    # the sd of a fraction of 1000 resamples is at most 0.5 / sqrt(1000) = 0.016
    assert 0.0 < np.std(los) < 0.016


def test_batch_fit_matches_single_fits():
    results = simulate(FOUR, FOUR_TABLES, 2, np.random.default_rng(5))
    index = {n: i for i, n in enumerate(sorted(FOUR))}
    patterns = encode(results, index)
    theta = fit_theta(patterns, patterns.counts, 4, 1.5)
    rng = np.random.default_rng(1)
    weights = patterns.counts * rng.poisson(1.0, (40, len(patterns.counts)))
    batch = fit_theta_batch(patterns, weights, 4, 1.5, theta)
    single = np.array([fit_theta(patterns, w, 4, 1.5, theta0=theta) for w in weights])
    assert np.max(np.abs(batch - single)) < 1e-6


def test_interval_scale():
    assert interval_scale(8) == pytest.approx(2.3646 * np.sqrt(8 / 7), rel=1e-4)
    assert 1.96 < interval_scale(1000) < interval_scale(25) < interval_scale(8)
    assert interval_scale(1000) == pytest.approx(1.96, abs=0.005)


def test_a_lone_anchor_bot_has_no_interval_and_a_note_says_why():
    """A never beaten, C never beat another bot: the 1500 anchor is B alone, 1500 in every
    resample; its interval [1500, 1500] read as certainty. It has none, and a note says
    why; the one-sided bots keep their bounds."""
    place = {"A": 1, "B": 2, "C": 3}
    seatings = [("A", "B", "C"), ("A", "C", "B"), ("B", "A", "C"), ("B", "C", "A"),
                ("C", "A", "B"), ("C", "B", "A")]
    results = [MatchResult(s, tuple(place[p] for p in s), f"b{k}") for k in range(4)
               for s in seatings]
    report = rate(results, bootstrap=200, seed=1)
    b = report.bot("B")
    assert (b.rating, b.ci_low, b.ci_high) == (1500.0, None, None)
    assert report.bot("A").ci_low is not None and report.bot("C").ci_high is not None
    assert any(n.startswith("B is the only bot without one-sided results") for n in report.notes)
