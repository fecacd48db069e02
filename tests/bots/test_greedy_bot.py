"""GreedyBot: legal and deterministic in every preset, and sensible choices on hand-crafted
positions (exact assertions; deals built with ``helpers.build_deal``; seat 0 deals hand 1, so
in sergeant-major seat 0 is S0 = declarer, seat 1 leads, seat 0 plays last to the first trick)."""

from __future__ import annotations

import pytest

from arena.rules import PRESETS, MatchState, action_str, make_config
from arena.rules.actions import Decision
from sample_bots.greedy_bot import GreedyBot
from sample_bots.random_bot import RandomBot

from .helpers import act, build_deal, drive
from arena.rules.view import view_of

STRONG_HEARTS = "AH KH QH JH 10H 9H 8H AS 3S 4D 5D 6D 2C 3C 4C 5C"
STRONG_KITTY = "7H 2S 3D 6C"
PLAY_HAND = "AH KH QH JH 10H 9H 3C 8C 10C QC KC AS KS 2D 3D 4D"
PLAY_KITTY = "5D 6D 7D 8D"


def _decide(state: MatchState) -> str:
    return action_str(GreedyBot().decide(view_of(state, state.current_seat)))


# ----- whole matches ---------------------------------------------------------------------------
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_greedy_finishes_matches_of_every_preset(preset):
    cfg = make_config(preset, hand_cap=3)
    kinds = set()
    for seed in range(3):
        state = MatchState.new(cfg, seed=f"greedy/{preset}/{seed}")
        _, met = drive(state, [GreedyBot(), RandomBot(seed=seed), GreedyBot()])
        kinds |= met
    assert Decision.PLAY in kinds and Decision.CONTRACT in kinds


def test_greedy_meets_every_decision_kind_and_is_deterministic():
    kinds = set()
    for preset, extra in (("sergeant-major", {"no_trump": True, "misere": True}),
                          ("six-contracts", {}), ("blato", {})):
        cfg = make_config(preset, hand_cap=4, **extra)
        runs = [drive(MatchState.new(cfg, seed=21), [GreedyBot(), GreedyBot(), RandomBot(1)])
                for _ in range(2)]
        assert runs[0][0] == runs[1][0]
        kinds |= runs[0][1]
    assert kinds >= {Decision.CONTRACT, Decision.DISCARD, Decision.PLAY,
                     Decision.EXCHANGE_DEMAND, Decision.EXCHANGE_GIVE}


# ----- contract and discards (000/003 tips) ----------------------------------------------------
def test_names_the_longest_strongest_suit_trump():
    cfg = make_config("sergeant-major")
    state = MatchState.new(cfg, first_deal=build_deal(cfg, STRONG_HEARTS, kitty=STRONG_KITTY))
    assert view_of(state, 0).decision is Decision.CONTRACT
    assert _decide(state) == "trump:H"  # 8 hearts with A K Q beat 5 low clubs


def test_discards_short_suit_low_cards_and_keeps_trumps_and_aces():
    cfg = make_config("sergeant-major")
    state = MatchState.new(cfg, first_deal=build_deal(cfg, STRONG_HEARTS, kitty=STRONG_KITTY))
    act(state, "trump:H")
    discards = []
    for _ in range(4):
        discards.append(_decide(state))
        act(state, discards[-1])
    # spades 2S 3S go (AS stays: a singleton ace is a winner), then the short diamonds
    assert discards == ["2S", "3S", "3D", "4D"]


def test_misere_only_when_allowed_and_the_hand_is_weak():
    low = " ".join(f"{r}{s}" for s in "SHDC" for r in "23456")  # 20 low cards
    deal_cards = low.split()
    for extra, expected in (({"misere": True}, "misere"), ({}, None)):
        cfg = make_config("sergeant-major", **extra)
        deal = build_deal(cfg, " ".join(deal_cards[:16]), kitty=" ".join(deal_cards[16:]))
        state = MatchState.new(cfg, first_deal=deal)
        choice = _decide(state)
        if expected:
            assert choice == expected
        else:
            assert choice.startswith("trump:")


# ----- trick play ------------------------------------------------------------------------------
def _first_trick(cfg, contract: str) -> MatchState:
    """Seat 0 (dealer) holds PLAY_HAND, discards the kitty; seat 1 leads 4C, seat 2 plays 9C."""
    deal = build_deal(cfg, PLAY_HAND, s1="4C", s2="9C", kitty=PLAY_KITTY)
    state = MatchState.new(cfg, first_deal=deal)
    act(state, contract, *PLAY_KITTY.split(), "4C", "9C")
    assert state.current_seat == 0 and state.decision is Decision.PLAY
    return state


def test_last_to_play_wins_with_the_lowest_winning_card_when_it_needs_tricks():
    state = _first_trick(make_config("sergeant-major"), "trump:H")
    assert _decide(state) == "10C"  # 10C, QC, KC all beat 9C


def test_last_to_play_plays_low_once_its_target_is_reached():
    # targets S0/S1/S2 = 0/10/6: the dealer has reached its target before the first trick
    state = _first_trick(make_config("sergeant-major", targets=(0, 10, 6)), "trump:H")
    assert _decide(state) == "3C"
    view = view_of(state, 0)
    assert action_str(GreedyBot(avoid_surplus=False).decide(view)) == "10C"


def test_misere_sheds_the_highest_card_that_still_loses():
    state = _first_trick(make_config("sergeant-major", misere=True), "misere")
    assert _decide(state) == "8C"  # 3C and 8C lose to 9C; 8C is the more dangerous


SECOND_DEALER = "AH KH QH JH 10H 9H 3C 8C 10C QC KC 2D 3D 4D 5D 6D"
SECOND_KITTY = "7D 8D 9D 10D"
SECOND_S2 = "{top} 4S 2H 3H 4H 5H 6H 7H 8H JD QD KD AD 2C 4C 5C"  # seat 2's only spades: top, 4S


@pytest.mark.parametrize("top,expected", [("AS", "AS"), ("KS", "4S")])
def test_second_hand_wins_with_a_master_else_plays_its_lowest_winner(top, expected):
    cfg = make_config("sergeant-major")
    deal = build_deal(cfg, SECOND_DEALER, s2=SECOND_S2.format(top=top), kitty=SECOND_KITTY)
    state = MatchState.new(cfg, first_deal=deal)
    act(state, "trump:H", *SECOND_KITTY.split(), "2S")  # seat 1 (holding the rest) leads 2S
    assert state.current_seat == 2
    assert _decide(state) == expected  # AS is a sure winner; KS is not (AS unseen)


@pytest.mark.parametrize("targets,expected", [((8, 5, 3), "AS"), ((0, 10, 6), "2D")])
def test_leader_cashes_a_master_when_short_and_leads_low_when_done(targets, expected):
    cfg = make_config("sergeant-major", targets=targets)
    state = _first_trick(cfg, "trump:H")
    act(state, "KC")  # the dealer wins trick 1 and leads trick 2
    assert state.current_seat == 0
    assert _decide(state) == expected


# ----- card exchange (RULES.md 4; 000/003 and 001 tips) ----------------------------------------
def _position(cfg, deal, prev_points) -> MatchState:
    if not hasattr(MatchState, "from_position"):
        pytest.skip("MatchState.from_position is not available")
    return MatchState.from_position(cfg, deal=deal, hand_number=2, dealer=0,
                                    prev_points=prev_points)


DEMAND_DEALER = "AS KS QS AH KH QH AD KD 2D 2C 3C 4C 5C 6C 7C 8C"


def test_demands_the_suit_where_the_down_player_likely_holds_the_ace_then_gives_back_low():
    cfg = make_config("sergeant-major")
    deal = build_deal(cfg, DEMAND_DEALER, s2="AC")
    state = _position(cfg, deal, (1, 0, -1))  # seat 0 (dealer) up 1, seat 2 down 1
    assert state.decision is Decision.EXCHANGE_DEMAND and state.current_seat == 0
    assert _decide(state) == "demand:2:C"  # the only suit whose ace he may hold
    act(state, "demand:2:C")
    assert state.decision is Decision.EXCHANGE_GIVE and state.current_seat == 0
    assert _decide(state) == "2D"  # lowest useless card (clubs, now 8 with the ace, stay)


def test_demand_avoids_a_suit_the_down_player_declared_void():
    cfg = make_config("sergeant-major")
    no_clubs = "JS 10S 9S 8S 7S JH 10H 9H 8H 7H QD JD 10D 9D 8D 7D"
    state = _position(cfg, build_deal(cfg, DEMAND_DEALER, s2=no_clubs), (2, 0, -2))
    act(state, "demand:2:C")  # void: declared publicly, the demand is not used up
    assert state.events[-1].kind == "void"
    for _ in range(2):  # both cards: clubs is legal again for the second, but known void
        choice = _decide(state)
        assert choice.startswith("demand:2:") and choice != "demand:2:C"
        act(state, choice)
        act(state, _decide(state))  # give back
    assert state.decision is Decision.CONTRACT


PASS_GIVER = "3S 4S 5S 6S 7S 8S AH 3H 5H 4D 9D KD 2C 7C JC QC"


@pytest.mark.parametrize("preset", ["blato", "six-contracts"])
def test_pass_and_return_gives_a_low_card_of_a_suit_without_the_ace(preset):
    cfg = make_config(preset)
    seat1_role = 2 if cfg.direction == "counterclockwise" else 1   # seat 1's role in hand 2
    hands = {seat1_role: PASS_GIVER}
    deal = build_deal(cfg, hands.get(0, ""), hands.get(1, ""), hands.get(2, ""))
    state = _position(cfg, deal, (-1, 1, 0))  # seat 1 up 1, seat 0 down 1
    act(state, "trump:S")  # the declarer's contract comes first in these presets
    assert state.decision is Decision.EXCHANGE_GIVE and state.current_seat == 1
    # clubs: A and K both missing -> the most to gain; never a trump, never "stop"
    assert _decide(state) == "give:0:2C"


def test_six_contracts_down_player_returns_its_least_useful_card_for_a_trump():
    cfg = make_config("six-contracts")
    deal = build_deal(cfg, "AS KS 9S AH KH QH JH 10H AD KD QD JD 10D AC KC 3C", "2S")
    state = _position(cfg, deal, (-1, 1, 0))  # seat 1 = S1 (declarer) up 1, seat 0 down 1
    act(state, "trump:S", "give:0:2S")
    assert state.decision is Decision.EXCHANGE_RETURN and state.current_seat == 0
    assert _decide(state) == "3C"  # the low card of the short club suit, not a trump
