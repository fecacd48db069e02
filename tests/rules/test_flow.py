"""Flow of a hand and of a match: W9, W10, W12, W13 and the order of decisions (RULES.md 7)."""

import random

import pytest

from arena.rules import (Deal, Decision, MatchState, action_str, make_config, parse_action,
                         parse_card)

from arena.rules import RulesError
from arena.rules.history import HandStep, hand_steps

from .helpers import act, first_legal, hand_text, play_random
from arena.rules.view import view_of

# W9 deal (sergeant-major, seat 0 deals hand 1: S0 = seat 0, S1 = seat 1, S2 = seat 2)
W9_DEAL = Deal.parse(
    "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2H 3H 4H 5H",
    "AH KH QH JH 10H 9H AD KD QD JD 9D 8D 7D 6D 5D 2D",
    "10D 4D 3D 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
    "2S 6H 7H 8H")


def test_w9_dealer_takes_12_tricks_and_wins_the_match():
    s = MatchState.new(make_config(), first_deal=W9_DEAL)
    assert (s.decision, s.current_seat, s.kitty_taken) == (Decision.CONTRACT, 0, True)
    act(s, "trump:S", "2S", "6H", "7H", "8H")
    assert s.decision is Decision.PLAY and s.current_seat == 1      # S1 leads
    act(s, "AH", "2C", "2H", "KH", "3C", "3H", "QH", "4C", "4H")  # S1 wins three
    act(s, "2D", "10D", "5H")                                      # S2 wins with 10D
    assert [t.winner for t in s.tricks] == [1, 1, 1, 2]
    act(s, "5C", "3S", "9H")                                       # dealer ruffs
    first_legal(s)                                                 # dealer runs his spades
    assert s.hand_points == [(4, -2, -2)]
    assert (s.end_reason, s.twelve_trick_winner, s.placings) == ("twelve-tricks", 0, (1, 2, 2))


def test_misere_hand_points_use_the_limits_and_no_twelve_trick_win():
    s = MatchState.new(make_config(misere=True), first_deal=W9_DEAL)
    act(s, "misere", "2S", "6H", "7H", "8H")
    assert (s.trump, s.limits, s.follow) == (None, (3, 5, 8), 0)
    while s.hand_number == 1:
        s.apply(s.legal_actions()[0])
    h = s.completed_hands[0]
    # lowest-card play: S1 leads his hearts, then diamonds, and wins all 16 (no trump)
    assert h.tricks_won == (0, 16, 0)
    assert h.points == (3 - 0, 5 - 16, 8 - 0) == s.hand_points[0]
    assert not s.finished and s.twelve_trick_winner is None   # 12+ tricks in miz: play on


def test_w10_discards_count_zero_tricks():
    cfg = make_config(hand_cap=1)
    rng = random.Random(5)
    for seed in range(200):
        s = MatchState.new(cfg, seed=seed)
        act(s, "trump:H")
        if not {"AS", "KS", "QS", "JS"} <= hand_text(s, 0):
            continue
        act(s, "AS", "KS", "QS", "JS")
        play_random(s, rng)
        assert sum(t.winner == 0 for t in s.tricks) == s.tricks_won[0]
        assert sum(s.tricks_won) == 16
        assert s.hand_points[0][0] == s.tricks_won[0] - 8
        if s.tricks_won[0] == 7:
            assert s.hand_points[0][0] == -1
            return
    raise AssertionError("no seed gave the W10 position")


def test_first_hand_has_no_exchange_and_order_sergeant():
    s = MatchState.new(make_config(), seed=3)
    kinds = []
    while s.hand_number == 1:
        kinds.append(s.decision)
        s.apply(s.legal_actions()[0])
    assert kinds[:5] == [Decision.CONTRACT] + [Decision.DISCARD] * 4
    assert kinds[5:] == [Decision.PLAY] * 48


def test_w12_contract_once_per_match():
    cfg = make_config("six-contracts")
    s = MatchState.from_position(cfg, hand_number=4, dealer=0, contracts_used=((), (0, 1, 4), ()))
    assert s.declarer == 1 and s.decision is Decision.CONTRACT
    assert [action_str(a) for a in s.legal_actions()] == ["trump:D", "trump:C", "misere"]
    # an 18-hand match: each player declares 6 times, each contract exactly once
    s = MatchState.new(cfg, seed=11)
    rng = random.Random(2)
    chosen = {0: [], 1: [], 2: []}
    while not s.finished:
        if s.decision is Decision.CONTRACT:
            if len(chosen[s.declarer]) == 5:
                assert len(s.legal_actions()) == 1               # the sixth choice is forced
            a = rng.choice(s.legal_actions())
            chosen[s.declarer].append(action_str(a))
            s.apply(a)
        else:
            s.apply(rng.choice(s.legal_actions()))
    assert s.hand_number == 18 and s.end_reason == "hands"
    for seat in range(3):
        assert sorted(chosen[seat]) == sorted(["trump:S", "trump:H", "trump:D", "trump:C",
                                               "no-trump", "misere"])


def test_w13_six_contracts_seating():
    s = MatchState.new(make_config("six-contracts"), seed=4)
    # dealer A = seat 0; clockwise A -> B -> C: B declares (8), C needs 5, A needs 3
    assert (s.dealer, s.declarer, s.targets) == (0, 1, (3, 8, 5))
    v = view_of(s, 1)
    assert len(v.hand) == 6 and v.hidden_own == 10 and v.hand_sizes[1] == 16
    assert set(v.hand) == set(s.deals[0].hands[1][:6])            # his first 6 dealt cards
    act(s, "trump:S")
    assert len(view_of(s, 1).hand) == 20 and view_of(s, 1).hidden_own == 0   # hand 1: no exchange
    # no exchange in hand 1: talon shown to all, declarer discards 4, then leads
    assert s.kitty_taken and view_of(s, 2).kitty == s.deals[0].kitty
    for _ in range(4):
        s.apply(s.legal_actions()[0])
    assert (s.decision, s.current_seat) == (Decision.PLAY, 1)
    while s.hand_number == 1:
        s.apply(s.legal_actions()[0])
    assert (s.dealer, s.declarer, s.roles) == (1, 2, (2, 0, 1))


def test_blato_is_counterclockwise_declarer_leads():
    s = MatchState.new(make_config("blato"), seed=4)
    # seat 0 deals; play goes S1 (8) -> S2 (5) -> S0 (3, dealer), counterclockwise
    assert (s.dealer, s.declarer, s.roles, s.targets) == (0, 2, (0, 2, 1), (3, 5, 8))
    act(s, "trump:H")
    for _ in range(4):
        s.apply(s.legal_actions()[0])
    assert (s.decision, s.current_seat) == (Decision.PLAY, 2)
    s.apply(s.legal_actions()[0])
    assert s.current_seat == 1
    s.apply(s.legal_actions()[0])
    assert s.current_seat == 0


def test_sergeant_kitty_hidden_but_shown_to_the_declarer():
    s = MatchState.new(make_config(), seed=8)
    assert view_of(s, 0).kitty == s.deals[0].kitty and view_of(s, 1).kitty is None
    assert len(view_of(s, 0).hand) == 20
    act(s, "trump:D")
    for _ in range(4):
        s.apply(s.legal_actions()[0])
    assert len(view_of(s, 0).discards) == 4 and view_of(s, 1).discards == ()
    assert view_of(s, 1).discard_count == 4


def test_six_three_eight_has_no_kitty_and_17_tricks():
    s = MatchState.new(make_config("six-three-eight"), seed=2)
    assert s.decision is Decision.CONTRACT and len(view_of(s, 0).hand) == 17
    act(s, "trump:C")
    assert s.decision is Decision.PLAY
    while s.hand_number == 1:
        s.apply(s.legal_actions()[0])
    assert sum(s.hand_points[0]) == 0 and len(s.deals) == 2


def test_deal_passes_to_s1():
    s = MatchState.new(make_config(), seed=1)
    dealers = []
    rng = random.Random(0)
    while not s.finished and s.hand_number <= 4:
        if not dealers or dealers[-1] != (s.hand_number, s.dealer):
            dealers.append((s.hand_number, s.dealer))
        s.apply(rng.choice(s.legal_actions()))
    assert dealers[:4] == [(1, 0), (2, 1), (3, 2), (4, 0)]


def test_parse_card_is_reexported():
    assert parse_action("AS") == parse_card("AS")


def test_hand_steps_are_typed_and_an_unknown_step_does_not_start_play():
    """The hand's steps are HandStep members in RULES.md 7's order; a step that is not one
    is an error, not a silent start of trick play."""
    assert hand_steps(make_config()) == [HandStep.EXCHANGE, HandStep.KITTY, HandStep.CONTRACT,
                                         HandStep.DISCARD, HandStep.PLAY]
    assert hand_steps(make_config("blato"))[:2] == [HandStep.CONTRACT, HandStep.EXCHANGE]
    s = MatchState.new(make_config(), seed=1)
    act(s, "trump:S")
    for _ in range(3):
        s.apply(s.legal_actions()[0])
    s._pending_steps = ["bogus"]   # a corrupted step list (test only): play would be next
    with pytest.raises(RulesError, match="unknown hand step 'bogus'"):
        s.apply(s.legal_actions()[0])                 # the 4th discard runs the next step
    assert s.decision is not Decision.PLAY


def test_trump_is_none_until_a_trump_contract_in_the_state_and_every_view():
    """One representation: the trump suit 0..3, or None (no contract yet, no-trump, misère),
    the same in the state and in each view."""
    s = MatchState.new(make_config("six-contracts"), seed=3)
    assert s.trump is None and {view_of(s, seat).trump for seat in range(3)} == {None}
    t = s.copy()
    act(s, "no-trump")
    assert s.trump is None and {view_of(s, seat).trump for seat in range(3)} == {None}
    act(t, "trump:D")
    assert t.trump == 2 and {view_of(t, seat).trump for seat in range(3)} == {2}
