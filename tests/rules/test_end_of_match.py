"""End of the match: one decision for every end condition (RULES.md 2.9, 5 "ties at the end",
7): a table over end condition x preset x ties, each row a worked example."""

import pytest

from arena.rules import make_config
from arena.rules.scoring import end_reason, placings

SM, NFT, STE, SIX, BL = ("sergeant-major", "nine-five-two", "six-three-eight", "six-contracts",
                         "blato")
PLAIN = (8, 5, 3)          # tricks of an ordinary hand (52 cards); nobody takes 12


def cfg(preset, **options):
    return make_config(preset, **options)


# (worked example, rules, hand just completed, scores after it, tricks in it,
#  expected reason (None: play on), expected placings when it ends)
ROWS = [
    # ---- hand limit / fixed number of hands (end_hands) --------------------------------------
    ("SM hand 10 of 10, 3/3/-6: first place shared -> extra hand 11",
     cfg(SM), 10, (3, 3, -6), PLAIN, None, None),
    ("SM hand 10 of 10, 5/0/-5: no tie -> ends",
     cfg(SM), 10, (5, 0, -5), PLAIN, "hands", (1, 2, 3)),
    ("SM hand 10 of 10, 6/-3/-3: tie below first -> ends, second place shared",
     cfg(SM), 10, (6, -3, -3), PLAIN, "hands", (1, 2, 2)),
    ("952 hand 10 of 10, -2/4/4: first place shared -> extra hand 11",
     cfg(NFT), 10, (-2, 4, 4), PLAIN, None, None),
    ("952 hand 10 of 10, 1/4/-5: no tie -> ends",
     cfg(NFT), 10, (1, 4, -5), PLAIN, "hands", (2, 1, 3)),
    ("952 hand 10 of 10, -2/-2/4: tie below first -> ends",
     cfg(NFT), 10, (-2, -2, 4), PLAIN, "hands", (2, 2, 1)),
    ("638 with end_hands 6, hand 6, 4/4/-8: ties shared -> ends, (1, 1, 3)",
     cfg(STE, end_hands=6), 6, (4, 4, -8), (8, 6, 3), "hands", (1, 1, 3)),
    ("638 with end_hands 6, hand 6, 4/1/-5: no tie -> ends",
     cfg(STE, end_hands=6), 6, (4, 1, -5), (8, 6, 3), "hands", (1, 2, 3)),
    ("638 with end_hands 6, hand 6, 6/-3/-3: tie below first -> ends",
     cfg(STE, end_hands=6), 6, (6, -3, -3), (8, 6, 3), "hands", (1, 2, 2)),
    ("six-contracts hand 18 of 18, 5/5/-10: ties shared -> ends, (1, 1, 3)",
     cfg(SIX), 18, (5, 5, -10), (3, 8, 5), "hands", (1, 1, 3)),
    ("six-contracts hand 18 of 18, 5/1/-6: no tie -> ends",
     cfg(SIX), 18, (5, 1, -6), (3, 8, 5), "hands", (1, 2, 3)),
    ("six-contracts hand 18 of 18, 8/-4/-4: tie below first -> ends",
     cfg(SIX), 18, (8, -4, -4), (3, 8, 5), "hands", (1, 2, 2)),
    ("blato with end_hands 6, hand 6, 7/7/-14: ties continue -> hand 7",
     cfg(BL, end_hands=6), 6, (7, 7, -14), (3, 8, 5), None, None),
    ("blato with end_hands 6, hand 6, 7/6/-13: no tie -> ends",
     cfg(BL, end_hands=6), 6, (7, 6, -13), (3, 8, 5), "hands", (1, 2, 3)),
    ("blato with end_hands 6, hand 6, 14/-7/-7: tie below first -> ends",
     cfg(BL, end_hands=6), 6, (14, -7, -7), (3, 8, 5), "hands", (1, 2, 2)),
    # ---- cumulative target reached upwards (end_score) ----------------------------------------
    ("SM with end_score 10, hand 4, 10/10/-20: +10 reached, first place shared -> extra hand 5",
     cfg(SM, end_score=10), 4, (10, 10, -20), PLAIN, None, None),
    ("SM with end_score 10, hand 4, 11/-1/-10: +11 reached, no tie -> ends",
     cfg(SM, end_score=10), 4, (11, -1, -10), PLAIN, "score", (1, 2, 3)),
    ("SM with end_score 10, hand 4, 12/-6/-6: tie below first -> ends",
     cfg(SM, end_score=10), 4, (12, -6, -6), PLAIN, "score", (1, 2, 2)),
    ("952 with end_score 10, hand 4, 10/-20/10: first place shared -> extra hand 5",
     cfg(NFT, end_score=10), 4, (10, -20, 10), PLAIN, None, None),
    ("952 with end_score 10, hand 4, 10/-1/-9: no tie -> ends",
     cfg(NFT, end_score=10), 4, (10, -1, -9), PLAIN, "score", (1, 2, 3)),
    ("952 with end_score 10, hand 4, -5/10/-5: tie below first -> ends",
     cfg(NFT, end_score=10), 4, (-5, 10, -5), PLAIN, "score", (2, 1, 2)),
    ("638 hand 4, 10/10/-20: ties shared -> ends, (1, 1, 3)",
     cfg(STE), 4, (10, 10, -20), (8, 6, 3), "score", (1, 1, 3)),
    ("638 hand 4, 10/-1/-9: no tie -> ends",
     cfg(STE), 4, (10, -1, -9), (8, 6, 3), "score", (1, 2, 3)),
    ("638 hand 4, 12/-6/-6: tie below first -> ends",
     cfg(STE), 4, (12, -6, -6), (8, 6, 3), "score", (1, 2, 2)),
    ("six-contracts with end_score 10, hand 6, 10/10/-20: ties shared -> ends",
     cfg(SIX, end_score=10), 6, (10, 10, -20), (3, 8, 5), "score", (1, 1, 3)),
    ("six-contracts with end_score 10, hand 6, 10/-1/-9: no tie -> ends",
     cfg(SIX, end_score=10), 6, (10, -1, -9), (3, 8, 5), "score", (1, 2, 3)),
    ("six-contracts with end_score 10, hand 6, 12/-6/-6: tie below first -> ends",
     cfg(SIX, end_score=10), 6, (12, -6, -6), (3, 8, 5), "score", (1, 2, 2)),
    ("blato hand 9, 22/22/-44: +21 reached, ties continue -> hand 10",
     cfg(BL), 9, (22, 22, -44), (3, 8, 5), None, None),
    ("blato hand 9, 21/0/-21: no tie -> ends (-21 does not count in blato)",
     cfg(BL), 9, (21, 0, -21), (3, 8, 5), "score", (1, 2, 3)),
    ("blato hand 9, 24/-12/-12: tie below first -> ends",
     cfg(BL), 9, (24, -12, -12), (3, 8, 5), "score", (1, 2, 2)),
    # ---- cumulative target reached downwards (end_score_either_sign) ---------------------------
    ("SM with end_score 10 either sign, hand 6, 5/5/-10: -10 reached, first place shared -> "
     "extra hand 7", cfg(SM, end_score=10, end_score_either_sign=True), 6, (5, 5, -10), PLAIN,
     None, None),
    ("SM with end_score 10 either sign, hand 6, 6/4/-10: -10 reached, no tie -> ends",
     cfg(SM, end_score=10, end_score_either_sign=True), 6, (6, 4, -10), PLAIN, "score",
     (1, 2, 3)),
    ("SM with end_score 10 either sign, hand 6, 20/-10/-10: tie below first -> ends",
     cfg(SM, end_score=10, end_score_either_sign=True), 6, (20, -10, -10), PLAIN, "score",
     (1, 2, 2)),
    ("952 with end_score 10 either sign, hand 6, -12/6/6: first place shared -> extra hand 7",
     cfg(NFT, end_score=10, end_score_either_sign=True), 6, (-12, 6, 6), PLAIN, None, None),
    ("952 with end_score 10 either sign, hand 6, -12/7/5: no tie -> ends",
     cfg(NFT, end_score=10, end_score_either_sign=True), 6, (-12, 7, 5), PLAIN, "score",
     (3, 1, 2)),
    ("952 with end_score 10 either sign, hand 6, -10/-10/20: tie below first -> ends",
     cfg(NFT, end_score=10, end_score_either_sign=True), 6, (-10, -10, 20), PLAIN, "score",
     (2, 2, 1)),
    ("638 hand 3, 5/5/-10: -10 reached, ties shared -> ends, (1, 1, 3)",
     cfg(STE), 3, (5, 5, -10), (8, 6, 3), "score", (1, 1, 3)),
    ("638 hand 3, 6/4/-10: no tie -> ends",
     cfg(STE), 3, (6, 4, -10), (8, 6, 3), "score", (1, 2, 3)),
    ("638 hand 3, 20/-10/-10: tie below first -> ends",
     cfg(STE), 3, (20, -10, -10), (8, 6, 3), "score", (1, 2, 2)),
    ("six-contracts with end_score 10 either sign, hand 6, 5/5/-10: ties shared -> ends",
     cfg(SIX, end_score=10, end_score_either_sign=True), 6, (5, 5, -10), (3, 8, 5), "score",
     (1, 1, 3)),
    ("six-contracts with end_score 10 either sign, hand 6, 6/4/-10: no tie -> ends",
     cfg(SIX, end_score=10, end_score_either_sign=True), 6, (6, 4, -10), (3, 8, 5), "score",
     (1, 2, 3)),
    ("six-contracts with end_score 10 either sign, hand 6, 20/-10/-10: tie below first -> ends",
     cfg(SIX, end_score=10, end_score_either_sign=True), 6, (20, -10, -10), (3, 8, 5), "score",
     (1, 2, 2)),
    ("blato with either sign, hand 9, 11/11/-22: -22 reached, ties continue -> hand 10",
     cfg(BL, end_score_either_sign=True), 9, (11, 11, -22), (3, 8, 5), None, None),
    ("blato with either sign, hand 9, 12/10/-22: no tie -> ends",
     cfg(BL, end_score_either_sign=True), 9, (12, 10, -22), (3, 8, 5), "score", (1, 2, 3)),
    ("blato with either sign, hand 9, 42/-21/-21: tie below first -> ends",
     cfg(BL, end_score_either_sign=True), 9, (42, -21, -21), (3, 8, 5), "score", (1, 2, 2)),
    # ---- 12 tricks in one hand (twelve_trick_win): ends at once, ties or not -------------------
    ("SM hand 3, seat 2 takes 12, 3/3/-6: ends at once, the 12-trick winner is first",
     cfg(SM), 3, (3, 3, -6), (2, 2, 12), "twelve-tricks", (2, 2, 1)),
    ("SM hand 3, seat 0 takes 12, 5/0/-5: ends",
     cfg(SM), 3, (5, 0, -5), (12, 1, 3), "twelve-tricks", (1, 2, 3)),
    ("SM hand 3, seat 1 takes 12, 6/-3/-3: ends, the others ranked by score",
     cfg(SM), 3, (6, -3, -3), (1, 12, 3), "twelve-tricks", (2, 1, 3)),
    ("952 hand 10 of 10, seat 0 takes 12, -2/4/4: no extra hand after a 12-trick win",
     cfg(NFT), 10, (-2, 4, 4), (12, 2, 2), "twelve-tricks", (1, 2, 2)),
    ("952 hand 3, seat 1 takes 12, 1/4/-5: ends",
     cfg(NFT), 3, (1, 4, -5), (2, 12, 2), "twelve-tricks", (2, 1, 3)),
    ("952 hand 3, seat 2 takes 12, -2/-2/4: ends",
     cfg(NFT), 3, (-2, -2, 4), (2, 2, 12), "twelve-tricks", (2, 2, 1)),
    ("638 with twelve_trick_win, hand 2, seat 0 takes 12 of 17, 4/4/-8: ends",
     cfg(STE, twelve_trick_win=True), 2, (4, 4, -8), (12, 3, 2), "twelve-tricks", (1, 2, 3)),
    ("638 with twelve_trick_win, hand 2, seat 1 takes 12, 1/4/-5: ends",
     cfg(STE, twelve_trick_win=True), 2, (1, 4, -5), (3, 12, 2), "twelve-tricks", (2, 1, 3)),
    ("638 with twelve_trick_win, hand 2, seat 2 takes 12, 6/-3/-3: ends",
     cfg(STE, twelve_trick_win=True), 2, (6, -3, -3), (3, 2, 12), "twelve-tricks", (2, 3, 1)),
    ("six-contracts with twelve_trick_win, hand 3, seat 1 takes 12, 2/2/-4: ends",
     cfg(SIX, twelve_trick_win=True), 3, (2, 2, -4), (2, 12, 2), "twelve-tricks", (2, 1, 3)),
    ("six-contracts with twelve_trick_win, hand 3, seat 0 takes 12, 5/0/-5: ends",
     cfg(SIX, twelve_trick_win=True), 3, (5, 0, -5), (12, 2, 2), "twelve-tricks", (1, 2, 3)),
    ("six-contracts with twelve_trick_win, hand 3, seat 2 takes 12, 6/-3/-3: ends",
     cfg(SIX, twelve_trick_win=True), 3, (6, -3, -3), (2, 2, 12), "twelve-tricks", (2, 3, 1)),
    ("blato with twelve_trick_win, hand 3, seat 0 takes 12, 7/7/-14: ends",
     cfg(BL, twelve_trick_win=True), 3, (7, 7, -14), (12, 2, 2), "twelve-tricks", (1, 2, 3)),
    ("blato with twelve_trick_win, hand 3, seat 1 takes 12, 7/6/-13: ends",
     cfg(BL, twelve_trick_win=True), 3, (7, 6, -13), (2, 12, 2), "twelve-tricks", (2, 1, 3)),
    ("blato with twelve_trick_win, hand 3, seat 2 takes 12, 14/-7/-7: ends",
     cfg(BL, twelve_trick_win=True), 3, (14, -7, -7), (2, 2, 12), "twelve-tricks", (2, 3, 1)),
    # ---- hand cap: ends whatever the scores when nothing else did ------------------------------
    ("SM with hand_cap 4, hand 4, 1/1/-2: the cap ends it, first place shared",
     cfg(SM, hand_cap=4), 4, (1, 1, -2), PLAIN, "hand-cap", (1, 1, 3)),
    ("SM with hand_cap 4, hand 4, 2/1/-3: ends",
     cfg(SM, hand_cap=4), 4, (2, 1, -3), PLAIN, "hand-cap", (1, 2, 3)),
    ("SM with hand_cap 4, hand 4, 2/-1/-1: ends",
     cfg(SM, hand_cap=4), 4, (2, -1, -1), PLAIN, "hand-cap", (1, 2, 2)),
    ("952 with hand_cap 4, hand 4, 1/1/-2: ends",
     cfg(NFT, hand_cap=4), 4, (1, 1, -2), PLAIN, "hand-cap", (1, 1, 3)),
    ("952 with hand_cap 4, hand 4, 2/1/-3: ends",
     cfg(NFT, hand_cap=4), 4, (2, 1, -3), PLAIN, "hand-cap", (1, 2, 3)),
    ("952 with hand_cap 4, hand 4, 2/-1/-1: ends",
     cfg(NFT, hand_cap=4), 4, (2, -1, -1), PLAIN, "hand-cap", (1, 2, 2)),
    ("638 with hand_cap 4, hand 4, 1/1/-2: ends",
     cfg(STE, hand_cap=4), 4, (1, 1, -2), (8, 6, 3), "hand-cap", (1, 1, 3)),
    ("638 with hand_cap 4, hand 4, 2/1/-3: ends",
     cfg(STE, hand_cap=4), 4, (2, 1, -3), (8, 6, 3), "hand-cap", (1, 2, 3)),
    ("638 with hand_cap 4, hand 4, 2/-1/-1: ends",
     cfg(STE, hand_cap=4), 4, (2, -1, -1), (8, 6, 3), "hand-cap", (1, 2, 2)),
    ("six-contracts with hand_cap 4, hand 4, 1/1/-2: ends before the 18 hands",
     cfg(SIX, hand_cap=4), 4, (1, 1, -2), (3, 8, 5), "hand-cap", (1, 1, 3)),
    ("six-contracts with hand_cap 4, hand 4, 2/1/-3: ends",
     cfg(SIX, hand_cap=4), 4, (2, 1, -3), (3, 8, 5), "hand-cap", (1, 2, 3)),
    ("six-contracts with hand_cap 4, hand 4, 2/-1/-1: ends",
     cfg(SIX, hand_cap=4), 4, (2, -1, -1), (3, 8, 5), "hand-cap", (1, 2, 2)),
    ("blato with hand_cap 9, hand 9, 22/22/-44: the cap ends the continued tie",
     cfg(BL, hand_cap=9), 9, (22, 22, -44), (3, 8, 5), "hand-cap", (1, 1, 3)),
    ("blato with hand_cap 4, hand 4, 2/1/-3: ends",
     cfg(BL, hand_cap=4), 4, (2, 1, -3), (3, 8, 5), "hand-cap", (1, 2, 3)),
    ("blato with hand_cap 4, hand 4, 2/-1/-1: ends",
     cfg(BL, hand_cap=4), 4, (2, -1, -1), (3, 8, 5), "hand-cap", (1, 2, 2)),
]


def test_the_table_covers_every_end_condition_preset_and_tie():
    presets = {c.preset for _, c, *_ in ROWS}
    assert presets == {SM, NFT, STE, SIX, BL} and len(ROWS) == 5 * 5 * 3


@pytest.mark.parametrize("example,rules,hand,scores,tricks,reason,places", ROWS,
                         ids=[r[0] for r in ROWS])
def test_end_of_match_table(example, rules, hand, scores, tricks, reason, places):
    got, winner = end_reason(rules, hand, scores, tricks, False)
    assert got == reason
    if reason is None:
        return
    assert winner == (tricks.index(max(tricks)) if reason == "twelve-tricks" else None)
    assert placings(scores, winner) == places


SM_SCORE = cfg(SM, end_score=10, end_score_either_sign=True)


# (worked example, rules, hand just completed, scores after it, scores after the hands before
#  it (most recent first), expected reason)
EXTRA_HANDS = [
    ("SM hand 11 after a tie at hand 10 (3/3/-6), now 4/3/-7: the tie is broken -> ends",
     cfg(SM), 11, (4, 3, -7), [(3, 3, -6)], "hands"),
    ("SM hand 12, tied at 10, 11 and now: 2 extra hands of 3 played -> hand 13",
     cfg(SM), 12, (2, 2, -4), [(3, 3, -6), (3, 3, -6)], None),
    ("SM hand 13, tied at 10, 11, 12 and now: 3 extra hands played -> ends, shared",
     cfg(SM), 13, (2, 2, -4), [(1, 1, -2), (3, 3, -6), (3, 3, -6)], "hands"),
    ("SM hand 13 with tie_extra_hands 5, tied since hand 10 -> hand 14",
     cfg(SM, tie_extra_hands=5), 13, (2, 2, -4), [(1, 1, -2), (3, 3, -6), (3, 3, -6)], None),
    ("SM with tie_extra_hands 0, hand 10, 3/3/-6: no extra hand -> ends, shared",
     cfg(SM, tie_extra_hands=0), 10, (3, 3, -6), [(1, 1, -2)], "hands"),
    ("SM hand 9, 3/3/-6 (the limit is 10): an ordinary tie -> hand 10",
     cfg(SM), 9, (3, 3, -6), [(1, 1, -2)], None),
    ("SM -10 reached at hand 6 (5/5/-10), hand 7 6/4/-10: the tie is broken -> ends, score",
     SM_SCORE, 7, (6, 4, -10), [(5, 5, -10)], "score"),
    ("SM -10 reached at hand 6 (5/5/-10), hand 7 4/4/-8: back above -10 but still tied -> "
     "hand 8", SM_SCORE, 7, (4, 4, -8), [(5, 5, -10)], None),
    ("SM -10 reached at hand 6, tied at 7 (4/4/-8), hand 8 5/3/-8: the tie is broken -> ends "
     "although no total is at +/-10 any more", SM_SCORE, 8, (5, 3, -8),
     [(4, 4, -8), (5, 5, -10)], "score"),
    ("SM -10 reached at hand 6, tied at 7, 8 and 9 (2/2/-4): 3 extra hands -> ends, score",
     SM_SCORE, 9, (2, 2, -4), [(4, 4, -8), (4, 4, -8), (5, 5, -10)], "score"),
    ("SM +10 reached at hand 4 (10/10/-20) and again tied at hand 5 (11/11/-22): the extra "
     "hands count from hand 4 -> hand 6", SM_SCORE, 5, (11, 11, -22), [(10, 10, -20)], None),
    ("SM +10 at hand 4 not tied (11/-1/-10) would have ended; hand 5 tied: a new tie-break",
     SM_SCORE, 5, (10, 10, -20), [(11, -1, -10)], None),
    ("SM with end_score 10, hand limit 10: +10 reached with a tie at hand 9, tied again at 10: "
     "extra hands count from hand 9 -> hand 11", cfg(SM, end_score=10), 10, (10, 10, -20),
     [(10, 10, -20)], None),
    ("952 hand 11 tied since hand 10, hand cap 11: the cap ends the extra hands",
     cfg(NFT, hand_cap=11), 11, (3, 3, -6), [(3, 3, -6)], "hand-cap"),
    ("SM from a position at hand 12 without history, tied: the limit (10) was passed, so the "
     "tie-break began at hand 10 -> hand 13", cfg(SM), 12, (3, 3, -6), [], None),
    ("SM from a position at hand 13 without history, tied: 3 extra hands since hand 10 -> ends",
     cfg(SM), 13, (3, 3, -6), [], "hands"),
    ("SM from a position at hand 11, one hand of history (tied): tie-break since hand 10 -> "
     "hand 12", cfg(SM), 11, (3, 3, -6), [(2, 2, -4)], None),
    ("six-contracts (shared) hand 18 tied, whatever came before -> ends",
     cfg(SIX), 18, (5, 5, -10), [(5, 5, -10)], "hands"),
    ("blato (continue) hand 10 after a tie at +21, now 20/19/-39: no total at +21 -> hand 11",
     cfg(BL), 10, (20, 19, -39), [(22, 22, -44)], None),
    ("blato (continue) hand 11, 23/20/-43: +21 reached, not tied -> ends",
     cfg(BL), 11, (23, 20, -43), [(20, 19, -39), (22, 22, -44)], "score"),
]


def points_of(scores, earlier):
    """The hand points history (oldest first, this hand last) that leads from the oldest of
    ``earlier`` (scores after previous hands, most recent first) to ``scores``."""
    chain = [*reversed(earlier), scores]
    return [tuple(y - x for x, y in zip(chain[i], chain[i + 1], strict=True))
            for i in range(len(earlier))]


@pytest.mark.parametrize("example,rules,hand,scores,earlier,reason", EXTRA_HANDS,
                         ids=[r[0] for r in EXTRA_HANDS])
def test_extra_hands_and_continued_ties(example, rules, hand, scores, earlier, reason):
    assert end_reason(rules, hand, scores, PLAIN, False, points_of(scores, earlier)) == (
        reason, None)


def test_extra_hands_read_only_the_tied_run_they_need():
    class Recorded(list):
        def __getitem__(self, i):
            read.append(i)
            return list.__getitem__(self, i)
    read = []
    earlier = [(3, 3, -6), (2, -1, -1), (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0)]
    points = Recorded(points_of((4, 3, -7), earlier))
    assert end_reason(cfg(SM), 7, (4, 3, -7), PLAIN, False, points) == (None, None)
    assert read == [6, 5]        # back to hand 5, the first without a shared first place


def test_a_twelve_trick_win_in_an_extra_hand_ends_at_once_but_not_in_misere():
    assert end_reason(cfg(SM), 11, (7, 3, -10), (12, 2, 2), False, [(4, 0, -4)]) == (
        "twelve-tricks", 0)
    # a misère hand of 12+ tricks is an ordinary hand: the tie is broken, the limit ends it
    assert end_reason(cfg(SM, misere=True), 11, (5, -8, 3), (1, 13, 2), True,
                      [(2, -11, 9)]) == ("hands", None)
