"""Hand points, end conditions and placings (RULES.md 2.6, 2.9, 5, 7): exact tables."""

import pytest

from arena.rules import make_config
from arena.rules.scoring import end_reason, hand_points, placings

SM = make_config()
S38 = make_config("six-three-eight")
SIX = make_config("six-contracts")
BLATO = make_config("blato")


def test_w9_and_w11_points():
    assert hand_points((12, 3, 1), (8, 5, 3), (3, 5, 8), False) == (4, -2, -2)
    # W11 six-contracts: dealer (S0, 3) 1 trick, declarer (S1, 8) 10, third (S2, 5) 5
    assert hand_points((1, 10, 5), (3, 8, 5), (8, 3, 5), False) == (-2, 2, 0)
    assert hand_points((2, 6, 8), (8, 5, 3), (3, 5, 8), True) == (1, -1, 0)


@pytest.mark.parametrize("cfg,hand,scores,tricks,misere,expected", [
    (SM, 1, (4, -2, -2), (12, 3, 1), False, ("twelve-tricks", 0)),
    (SM, 1, (4, -2, -2), (12, 3, 1), True, (None, None)),        # not in a miz hand
    (SM, 9, (5, 0, -5), (8, 5, 3), False, (None, None)),
    (SM, 10, (5, 0, -5), (8, 5, 3), False, ("hands", None)),     # hand limit 10
    (SM, 10, (3, 3, -6), (8, 5, 3), False, (None, None)),         # tie for first: extra hand
    (SM, 12, (3, 3, -6), (8, 5, 3), False, (None, None)),
    (SM, 13, (3, 3, -6), (8, 5, 3), False, ("hands", None)),     # after 3 extra hands
    (SM, 11, (4, 3, -7), (8, 5, 3), False, ("hands", None)),     # tie broken
    (SM, 10, (6, -3, -3), (8, 5, 3), False, ("hands", None)),    # tie for 2nd: no extra hand
    (S38, 5, (10, -4, -6), (8, 6, 3), False, ("score", None)),
    (S38, 5, (4, 6, -10), (8, 6, 3), False, ("score", None)),    # -10 also ends
    (S38, 5, (9, 0, -9), (8, 6, 3), False, (None, None)),
    (S38, 5, (0, 0, 0), (12, 2, 3), False, (None, None)),        # no 12-trick win here
    (SIX, 17, (5, 0, -5), (3, 8, 5), False, (None, None)),
    (SIX, 18, (5, 5, -10), (3, 8, 5), False, ("hands", None)),   # fixed hands, shared place
    (BLATO, 9, (21, 0, -21), (3, 8, 5), False, ("score", None)),
    (BLATO, 9, (22, 22, -44), (3, 8, 5), False, (None, None)),   # tie: continue
    (BLATO, 9, (20, 1, -21), (3, 8, 5), False, (None, None)),    # -21 does not end blato
    (make_config(hand_cap=4), 4, (1, 1, -2), (8, 5, 3), False, ("hand-cap", None)),
    (BLATO.replace(hand_cap=9), 9, (22, 22, -44), (3, 8, 5), False, ("hand-cap", None)),
])
def test_end_conditions(cfg, hand, scores, tricks, misere, expected):
    assert end_reason(cfg, hand, scores, tricks, misere) == expected


@pytest.mark.parametrize("scores,winner,expected", [
    ((5, 0, -5), None, (1, 2, 3)),
    ((3, 3, -6), None, (1, 1, 3)),
    ((-6, 3, 3), None, (3, 1, 1)),
    ((6, -3, -3), None, (1, 2, 2)),
    ((0, 0, 0), None, (1, 1, 1)),
    ((-2, 9, -7), 0, (1, 2, 3)),     # a 12-trick winner is first whatever the score
    ((-2, 1, 1), 0, (1, 2, 2)),
])
def test_placings(scores, winner, expected):
    assert placings(scores, winner) == expected
