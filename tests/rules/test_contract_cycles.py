"""Contracts once per cycle (RULES.md decision 16, W12): each player's declarations run in
cycles through every contract of the rule set; views, positions and sampling agree."""

import random

import pytest

from arena.rules import (Decision, MatchState, RulesConfigError, RulesError, action_str,
                         make_config)
from arena.rules.view import view_of

ALL_SIX = ["trump:S", "trump:H", "trump:D", "trump:C", "no-trump", "misere"]


def play_recording_contracts(cfg, seed: int, play_seed: int):
    """Play a random match; per seat, (contract chosen, legal choices, view's contracts_used)
    at each of his contract decisions."""
    s = MatchState.new(cfg, seed=seed)
    rng = random.Random(play_seed)
    log = {0: [], 1: [], 2: []}
    while not s.finished:
        if s.decision is Decision.CONTRACT:
            legal = [action_str(a) for a in s.legal_actions()]
            used = view_of(s, s.declarer).contracts_used[s.declarer]
            other = view_of(s, (s.declarer + 1) % 3)
            assert other.contracts_used == view_of(s, s.declarer).contracts_used
            a = rng.choice(s.legal_actions())
            log[s.declarer].append((action_str(a), legal, used))
        else:
            a = rng.choice(s.legal_actions())
        s.apply(a)
    return s, log


@pytest.mark.parametrize("hands", [36, 21])
def test_six_contracts_beyond_18_hands_runs_in_cycles_of_six(hands):
    cfg = make_config("six-contracts", end_hands=hands, hand_cap=hands)
    s, log = play_recording_contracts(cfg, seed=hands, play_seed=3)
    assert s.hand_number == hands and s.end_reason == "hands"
    for seat in range(3):
        chosen = [c for c, _, _ in log[seat]]
        assert len(chosen) == hands // 3            # every player declares equally often
        for k, (_c, legal, used) in enumerate(log[seat]):
            cycle_start = k - k % 6
            before = chosen[cycle_start:k]          # chosen earlier in this cycle
            assert sorted(legal) == sorted(set(ALL_SIX) - set(before))
            assert sorted(ALL_SIX[i] for i in used) == sorted(before)   # what the view shows
            if k % 6 == 5:
                assert len(legal) == 1              # the sixth choice of a cycle is forced
        for start in range(0, len(chosen) - len(chosen) % 6, 6):
            assert sorted(chosen[start:start + 6]) == sorted(ALL_SIX)


def test_contract_once_with_four_suits_cycles_through_four():
    cfg = make_config("six-contracts", no_trump=False, misere=False, end_hands=30, hand_cap=30)
    _, log = play_recording_contracts(cfg, seed=5, play_seed=5)
    chosen = [c for c, _, _ in log[0]]
    assert len(chosen) == 10
    for start in (0, 4):
        assert sorted(chosen[start:start + 4]) == ["trump:C", "trump:D", "trump:H", "trump:S"]
    assert len(log[0][4][1]) == 4 and len(log[0][7][1]) == 1   # a new cycle, its last choice


def test_from_position_replays_contracts_into_the_current_cycle():
    cfg = make_config("six-contracts", end_hands=36, hand_cap=36)
    # seat 1 declares hand 4 (dealer 0): six chosen (a full cycle), then spades again
    s = MatchState.from_position(cfg, hand_number=4, dealer=0,
                                 contracts_used=((), (0, 1, 2, 3, 4, 5, 0), ()))
    assert s.declarer == 1 and s.contracts_used == [0, 1, 0]
    assert [action_str(a) for a in s.legal_actions()] == ALL_SIX[1:]
    assert view_of(s, 0).contracts_used == ((), (0,), ())
    full = MatchState.from_position(cfg, hand_number=4, dealer=0,
                                    contracts_used=((), (5, 4, 3, 2, 1, 0), ()))
    assert [action_str(a) for a in full.legal_actions()] == ALL_SIX     # all open again
    again = MatchState.from_position(cfg, hand_number=4, dealer=0,
                                     contracts_used=view_of(s, 1).contracts_used)
    assert again.legal_actions() == s.legal_actions()


@pytest.mark.parametrize("used,msg", [
    (((), (0, 0), ()), "trump:S is chosen twice in one cycle"),
    (((), (6,), ()), "6 is not a contract of these rules"),
    (((), (True,), ()), "True is not a contract"),
    (((), (), (), ()), "3 sequences"),
    ("SHD", "3 sequences"),
])
def test_from_position_rejects_bad_contracts_used(used, msg):
    with pytest.raises(RulesError, match=msg):
        MatchState.from_position(make_config("six-contracts"), hand_number=2, dealer=0,
                                 contracts_used=used)


def test_contracts_not_in_the_rule_set_are_rejected():
    with pytest.raises(RulesError, match=r"misere is not|5 is not a contract"):
        MatchState.from_position(make_config(), hand_number=2, dealer=0,
                                 contracts_used=((5,), (), ()))


def test_sampled_states_keep_the_cycle():
    cfg = make_config("six-contracts", end_hands=24, hand_cap=24)
    s = MatchState.new(cfg, seed=8)
    rng = random.Random(8)
    while s.hand_number < 20 or s.decision is not Decision.CONTRACT:
        s.apply(rng.choice(s.legal_actions()))
    for seat in range(3):
        t = MatchState.from_view(view_of(s, seat), rng)
        assert t.contracts_used == s.contracts_used
        if seat == s.declarer:
            assert t.legal_actions() == s.legal_actions()


@pytest.mark.parametrize("hands", [1, 2, 4, 10, 19, 20, 10_000])
def test_six_contracts_fixed_hands_must_be_a_multiple_of_3(hands):
    with pytest.raises(RulesConfigError, match=rf"'end_hands' {hands} is not a multiple of 3"):
        make_config("six-contracts", end_hands=hands)


@pytest.mark.parametrize("hands", [3, 6, 9, 18, 21, 36, None])
def test_six_contracts_accepts_multiples_of_3(hands):
    assert make_config("six-contracts", end_hands=hands).end_hands == hands
