"""Per-bot counts and head-to-head records against hand-counted data."""

from __future__ import annotations

import numpy as np
import pytest

from arena.ratings import MatchResult, rate
from arena.ratings.headtohead import bot_counts, head_to_head
from .ratings_synth import FOUR, FOUR_TABLES, simulate

RESULTS = [
    MatchResult(("A", "B", "C"), (1, 2, 3), "b0"),
    MatchResult(("B", "C", "A"), (1, 1, 3), "b0"),
    MatchResult(("C", "A", "B"), (1, 2, 2), "b0"),
    MatchResult(("A", "B", "D"), (2, 1, 3), "b1", (False, False, True)),
    MatchResult(("D", "C", "A"), (2, 2, 1), "b1", (True, True, False)),
]


def test_bot_counts_by_hand():
    counts = bot_counts(RESULTS, ["A", "B", "C", "D"])
    a = counts["A"]
    assert (a.matches, a.firsts, a.place_sum, a.forfeits) == (5, 2, 1 + 3 + 2 + 2 + 1, 0)
    assert a.average_place == pytest.approx(9 / 5)
    b = counts["B"]
    assert (b.matches, b.firsts, b.place_sum, b.forfeits) == (4, 2, 2 + 1 + 2 + 1, 0)
    c = counts["C"]
    assert (c.matches, c.firsts, c.place_sum, c.forfeits) == (4, 2, 3 + 1 + 1 + 2, 1)
    d = counts["D"]
    assert (d.matches, d.firsts, d.place_sum, d.forfeits) == (2, 0, 5, 2)


def test_head_to_head_by_hand():
    table = {(h.a, h.b): h for h in head_to_head(RESULTS, ["A", "B", "C", "D"])}
    assert len(table) == 12  # all ordered pairs
    ab = table[("A", "B")]
    # A vs B: above (m0), below (m1), equal (m2: both 2), below (m3)
    assert (ab.matches, ab.above, ab.below, ab.equal) == (4, 1, 2, 1)
    ba = table[("B", "A")]
    assert (ba.matches, ba.above, ba.below, ba.equal) == (4, 2, 1, 1)
    cd = table[("C", "D")]
    assert (cd.matches, cd.above, cd.below, cd.equal) == (1, 0, 0, 1)
    bd = table[("B", "D")]
    assert (bd.matches, bd.above, bd.below, bd.equal) == (1, 1, 0, 0)
    assert ab.score == pytest.approx((1 + 0.5) / 4)


def test_report_counts_are_consistent_with_the_data():
    results = simulate(FOUR, FOUR_TABLES, 2, np.random.default_rng(3))
    report = rate(results, bootstrap=0)
    assert len(report.head_to_head) == 12
    assert [(h.a, h.b) for h in report.head_to_head[:3]] == [
        (report.names[0], b) for b in report.names[1:]
    ]
    for h in report.head_to_head:
        mirror = report.head_to_head_of(h.b, h.a)
        assert (h.matches, h.above, h.below, h.equal) == (
            mirror.matches, mirror.below, mirror.above, mirror.equal)
        assert h.above + h.below + h.equal == h.matches == 2 * 2 * 6  # 2 shared tables x 2 deals
    assert sum(b.firsts for b in report.bots) == len(results)  # no ties in simulated data
    assert sum(b.matches for b in report.bots) == 3 * len(results)
    total_places = sum(b.average_place * b.matches for b in report.bots)
    assert total_places == pytest.approx(6 * len(results))
    with pytest.raises(KeyError):
        report.head_to_head_of("W", "W")
