"""Bad input to the state machine: typed errors naming phase, seat, action and the legal set;
the state is left unchanged."""

import random

import pytest

from arena.rules import (IllegalActionError, MatchState, make_config, parse_action,
                         parse_card)

from .helpers import act
from arena.rules.view import view_of


def snapshot(s: MatchState):
    return (s.hands[:], s.decision, s.current_seat, s.trick[:], s.discards[:], s.actions[:],
            s.contract, s.scores[:], [v for v in (view_of(s, 0), view_of(s, 1), view_of(s, 2))])


def check_rejected(s: MatchState, action, match: str):
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match=match) as info:
        s.apply(action)
    assert snapshot(s) == before
    assert info.value.legal == tuple(s.legal_actions())
    assert info.value.seat == s.current_seat and info.value.phase == s.phase
    assert not s.is_legal(action)
    return info.value


def test_wrong_phase_action_names_phase_seat_and_legal_set():
    s = MatchState.new(make_config(), seed=1)
    err = check_rejected(s, parse_card("2S") if not s.hands[0] >> 0 & 1 else 99,
                         r"seat 0 in phase contract.*legal: \[trump:S, trump:H, trump:D, trump:C\]")
    assert isinstance(err, ValueError)


def test_card_not_held_and_wrong_seat():
    s = MatchState.new(make_config(), seed=1)
    act(s, "trump:S")
    for _ in range(4):
        s.apply(s.legal_actions()[0])
    seat = s.current_seat
    other = next(c for c in range(52) if s.hands[(seat + 1) % 3] >> c & 1)
    check_rejected(s, other, "card not held")          # the next seat's card: wrong seat


def test_must_follow_suit():
    for seed in range(50):
        s = MatchState.new(make_config(), seed=seed)
        act(s, "trump:S")
        for _ in range(4):
            s.apply(s.legal_actions()[0])
        s.apply(s.legal_actions()[0])              # S1 leads his lowest card
        hand, led = s.hands[s.current_seat], s.trick[0] // 13
        off = [c for c in range(52) if hand >> c & 1 and c // 13 != led]
        if hand & (0x1FFF << (13 * led)) and off:
            check_rejected(s, off[0], "must follow the follow rule F1")
            return
    raise AssertionError("no seed gave a follow-suit position")


def test_duplicate_discard_is_rejected():
    s = MatchState.new(make_config(), seed=1)
    act(s, "trump:S")
    c = s.legal_actions()[0]
    s.apply(c)
    check_rejected(s, c, "not among the legal actions")


def test_non_int_and_out_of_range_actions():
    s = MatchState.new(make_config(), seed=1)
    check_rejected(s, "trump:S", "an action is an int code")
    check_rejected(s, 10_000, "not among the legal")
    check_rejected(s, -1, "not among the legal")
    check_rejected(s, True, "an action is an int code")


def test_finished_match_rejects_everything():
    s = MatchState.new(make_config(hand_cap=1), seed=1)
    rng = random.Random(1)
    while not s.finished:
        s.apply(rng.choice(s.legal_actions()))
    assert s.legal_actions() == [] and s.current_seat is None
    with pytest.raises(IllegalActionError, match="the match is over") as info:
        s.apply(0)
    assert info.value.phase == "finished" and info.value.legal == ()


def test_view_of_bad_seat():
    s = MatchState.new(make_config(), seed=1)
    with pytest.raises(ValueError, match="seat must be 0, 1 or 2"):
        view_of(s, 3)


def test_from_position_rejects_bad_arguments():
    with pytest.raises(ValueError, match="bad position"):
        MatchState.from_position(make_config(), hand_number=0)
    assert parse_action("stop") == 99


@pytest.mark.parametrize("bad", [True, False, None, 1.0, "AS", b"x", [0], 60.0])
def test_anything_but_an_int_is_not_an_action(bad):
    """Booleans are not actions (True == 1 would otherwise be the 3S): is_legal says no and
    apply raises the typed error, in every decision kind."""
    s = MatchState.new(make_config(), seed=1)
    rng = random.Random(4)
    for _ in range(80):                      # contract, discards, plays
        assert s.is_legal(bad) is False
        check_rejected(s, bad, "an action is an int code")
        s.apply(rng.choice(s.legal_actions()))


def test_parse_action_and_action_str_raise_the_typed_error():
    from arena.rules import CardParseError, action_str, parse_card
    from arena.rules.cards import parse_cards, parse_suit
    for bad in (None, 5, b"AS", ["AS"]):
        with pytest.raises(CardParseError, match="not an action"):
            parse_action(bad)
        with pytest.raises(CardParseError, match="not a card"):
            parse_card(bad)
        with pytest.raises(CardParseError, match="not a suit"):
            parse_suit(bad)
    with pytest.raises(CardParseError, match="not a list of cards"):
        parse_cards(None)
    for bad in ("AS", None, True, False, 1.0, 52, 256, -1, 99.0):
        with pytest.raises(CardParseError, match="not an action code"):
            action_str(bad)
    assert action_str(99) == "stop" and action_str(0) == "2S"


@pytest.mark.parametrize("seed", [None, True, False, 1.5, 2.0, [1], (1,), {"a": 1}])
def test_a_seed_is_an_int_str_or_bytes(seed):
    from arena.rules import SeedError, derive_seed, seeded_deal
    with pytest.raises(SeedError, match="a seed is an int, str or bytes"):
        MatchState.new(make_config(), seed=seed)
    with pytest.raises(SeedError):
        MatchState.from_position(make_config(), seed=seed, hand_number=2)
    with pytest.raises(SeedError):
        seeded_deal(make_config(), seed, 1)
    with pytest.raises(SeedError):
        derive_seed("table", seed)


def test_valid_seeds_deal_as_before():
    from arena.rules import seeded_deal
    cfg = make_config()
    for seed in (0, 7, -3, 2**80, "7", "", "\udc80", b"7", b""):
        assert MatchState.new(cfg, seed=seed).deals[0] == seeded_deal(cfg, seed, 1)
    assert seeded_deal(cfg, 7, 1) != seeded_deal(cfg, "7", 1) != seeded_deal(cfg, b"7", 1)
    # the seeds that used to be accepted by accident dealt like an unrelated int or text
    assert seeded_deal(cfg, "None", 1) != seeded_deal(cfg, 1, 1)


@pytest.mark.parametrize("kwargs", [{"hand_number": 0}, {"hand_number": True},
                                    {"hand_number": "2"}, {"dealer": 3}, {"dealer": True},
                                    {"dealer": None}])
def test_from_position_rejects_bad_positions(kwargs):
    from arena.rules import RulesError
    with pytest.raises(RulesError, match="bad position"):
        MatchState.from_position(make_config(), **kwargs)


@pytest.mark.parametrize("seat", [True, False, -1, 3, None, 1.0, "1"])
def test_views_only_of_seats_0_1_2(seat):
    with pytest.raises(ValueError, match="seat must be 0, 1 or 2"):
        view_of(MatchState.new(make_config(), seed=1), seat)
