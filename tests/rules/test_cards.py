import pytest

from arena.rules import CardParseError, action_str, card_str, parse_action, parse_card
from arena.rules.actions import CONTRACT_BASE, STOP, demand_action, give_action
from arena.rules.cards import cards_of, mask_of, parse_suit


def test_every_card_round_trips_through_text():
    texts = [card_str(c) for c in range(52)]
    assert len(set(texts)) == 52
    assert [parse_card(t) for t in texts] == list(range(52))


@pytest.mark.parametrize("text,expected", [("10H", "10H"), ("th", "10H"), ("as", "AS"),
                                           (" 2C ", "2C"), ("QD", "QD")])
def test_parse_card_accepts_common_spellings(text, expected):
    assert card_str(parse_card(text)) == expected


def test_card_order_is_suit_then_rank():
    assert parse_card("2S") == 0 and parse_card("AS") == 12 and parse_card("2H") == 13
    assert parse_card("AC") == 51
    assert cards_of(mask_of([parse_card("AS"), parse_card("2S")])) == [0, 12]


@pytest.mark.parametrize("bad", ["", "1", "11H", "AX", "ZZ", "10"])
def test_parse_card_rejects_garbage_with_message(bad):
    with pytest.raises(CardParseError, match="not a card"):
        parse_card(bad)


def test_parse_suit():
    assert parse_suit("hearts") == 1 and parse_suit("c") == 3
    with pytest.raises(CardParseError):
        parse_suit("x")


def test_action_text_round_trips_for_every_code():
    codes = (list(range(52)) + [CONTRACT_BASE + i for i in range(6)] + [STOP]
             + [demand_action(s, u) for s in range(3) for u in range(4)]
             + [give_action(s, c) for s in range(3) for c in range(52)])
    for code in codes:
        assert parse_action(action_str(code)) == code
    assert action_str(give_action(2, parse_card("AS"))) == "give:2:AS"
    assert action_str(demand_action(1, 1)) == "demand:1:H"
    assert action_str(CONTRACT_BASE + 4) == "no-trump"


@pytest.mark.parametrize("bad", ["give:3:AS", "demand:1:X", "trump:", "stop:1", "play"])
def test_parse_action_rejects_garbage(bad):
    with pytest.raises(CardParseError):
        parse_action(bad)


def test_action_str_rejects_unknown_codes():
    with pytest.raises(CardParseError):
        action_str(56)
