"""Trick winners and follow rules: worked examples W1-W5 of RULES.md section 8 and more."""

import pytest

from arena.rules import cards_of, format_cards, mask_of, parse_card, parse_cards
from arena.rules.tricks import F1, F2, F3, legal_play_mask, trick_winner

S, H, D, C = range(4)


def winner(trick: str, trump: int | None) -> str:
    cards = parse_cards(trick)
    return format_cards([cards[trick_winner(cards, trump)]])


def legal(hand: str, trick: str, trump: int | None, follow: int) -> str:
    return format_cards(cards_of(legal_play_mask(mask_of(parse_cards(hand)),
                                                 parse_cards(trick), trump, follow)))


def test_w1_trump_beats_the_led_ace():
    assert winner("KS 2H AS", H) == "2H"          # S2's 2H wins; S2 leads next


def test_w2_off_suit_ace_does_not_win():
    assert winner("10D AC JD", S) == "JD"


def test_w3_no_trump_highest_of_suit_led():
    assert winner("5H KD 9H", None) == "9H"


@pytest.mark.parametrize("trick,trump,expected", [
    ("2S 3S 4S", H, "4S"), ("AS 2H 3H", H, "3H"), ("AS 2H KH", None, "AS"),
    ("2C 2D 2H", S, "2C"), ("10C JC 2S", S, "2S"), ("KH 2S 3S", S, "3S"),
])
def test_trick_winner_table(trick, trump, expected):
    assert winner(trick, trump) == expected


@pytest.mark.parametrize("hand,rule,expected", [
    ("KS 2S 7C", F1, "2S KS 7C"), ("KS 2S 7C", F2, "2S KS"), ("KS 2S 7C", F3, "KS"),
    ("8S 2S 7C", F1, "2S 8S 7C"), ("8S 2S 7C", F2, "2S 8S"), ("8S 2S 7C", F3, "2S 8S 7C"),
    ("5D KS", F1, "5D"), ("5D KS", F2, "5D"), ("5D KS", F3, "5D"),
])
def test_w4_follow_rules_after_a_ruff(hand, rule, expected):
    # trump spades; 4D led; the second player ruffed with 9S
    assert legal(hand, "4D 9S", S, rule) == expected


@pytest.mark.parametrize("hand,expected", [
    ("5D 2H AH", "2H AH"), ("5D 7S", "7S 5D"), ("3C 2H", "3C"),
])
def test_w5_f2_must_trump_but_not_overtrump(hand, expected):
    assert legal(hand, "10C KH", H, F2) == expected


def test_f3_void_with_no_trump_on_trick_must_trump():
    assert legal("2S 9S 7C", "4D", S, F3) == "2S 9S"
    assert legal("2S 9S 7C", "4D 5D", S, F3) == "2S 9S"


def test_f3_trumps_led_must_overtrump_when_able():
    assert legal("3S 9S 2H", "5S", S, F3) == "9S"
    assert legal("3S 2H", "5S", S, F3) == "3S"
    assert legal("3S 9S KS", "5S JS", S, F3) == "KS"
    # F1/F2 have no overtrump duty when trumps are led
    assert legal("3S 9S 2H", "5S", S, F2) == "3S 9S"


def test_f3_no_obligation_to_beat_in_a_plain_suit():
    assert legal("2D KD 5S", "10D", S, F3) == "2D KD"


def test_no_trump_contract_is_f1_whatever_the_rule():
    assert legal("2S 9S 7C", "4D", None, F3) == "2S 9S 7C"


def test_leader_may_play_anything():
    hand = "2S 9S 7C AH"
    assert legal(hand, "", S, F3) == format_cards(sorted(parse_cards(hand)))
    assert parse_card("AH") in cards_of(mask_of(parse_cards(hand)))
