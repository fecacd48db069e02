"""Card exchange (RULES.md section 4): W6, W7, W8, the order rules and the six-contracts rules."""

import pytest

from arena.rules import (Deal, Decision, ExchangeEvent, ExchangeKind, IllegalActionError,
                         MatchState, action_str, make_config, parse_action)

from .helpers import act, hand_text
from arena.rules.view import view_of

# W6: seat 1 (A, declarer S1 in six-contracts) up 2, seat 2 (B) down 2.
W6_DEAL = Deal.parse(
    "2C 4C 5C 6C 7C 9C 10C JC QC KC 3D 6D 7D 8D 9D 10D",                 # S0 = seat 0
    "3C 4D AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H 5D",                  # S1 = seat 1 (A)
    "AC 8C 2D AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S",                  # S2 = seat 2 (B)
    "JD QD KD AD")


def test_w6_pass_and_return_interactive():
    s = MatchState.from_position(make_config("six-contracts"), deal=W6_DEAL, hand_number=2,
                                 dealer=0, prev_points=(0, 2, -2))
    act(s, "trump:H")
    assert (s.decision, s.current_seat) == (Decision.EXCHANGE_GIVE, 1)
    legal = [action_str(a) for a in s.legal_actions()]
    assert legal[0] == "stop" and "give:2:3C" in legal and all(
        a == "stop" or a.startswith("give:2:") for a in legal)
    act(s, "give:2:3C", "give:2:4D")
    assert {"AC", "4D"} <= hand_text(s, 1) and "3C" not in hand_text(s, 1)
    assert {"8C", "3C", "2D"} <= hand_text(s, 2) and not {"AC", "4D"} & hand_text(s, 2)
    assert [(e.kind, action_str(e.card), e.came_back) for e in s.events] == [
        ("give", "3C", False), ("return", "AC", False),
        ("give", "4D", False), ("return", "4D", True)]
    # the talon comes after the exchange, shown to all
    assert s.decision is Decision.DISCARD and view_of(s, 0).kitty == W6_DEAL.kitty
    # the third player sees that exchanges happened and that a card came back, not the cards
    seen = view_of(s, 0).exchange_events
    assert [(e.kind, e.card, e.suit, e.came_back) for e in seen] == [
        ("give", None, None, False), ("return", None, None, False),
        ("give", None, None, False), ("return", None, None, True)]


def test_w6_pass_and_return_batch_blato():
    # blato, seat 0 deals: S1 = seat 2 (declarer), S2 = seat 1. A = seat 2 up 2, B = seat 1.
    deal = Deal(W6_DEAL.hands, W6_DEAL.kitty)
    s = MatchState.from_position(make_config("blato"), deal=deal, hand_number=2, dealer=0,
                                 prev_points=(0, -2, 2))
    assert (s.declarer, s.roles) == (2, (0, 2, 1))
    act(s, "trump:H")
    act(s, "give:1:3C")
    assert "3C" in hand_text(s, 2) and s.events == []       # chosen, not yet resolved
    assert view_of(s, 2).exchange.batch == ((1, parse_action("3C")),)
    assert view_of(s, 0).exchange.batch == () and view_of(s, 0).exchange.batch_count == 1
    with pytest.raises(IllegalActionError):
        act(s, "give:1:3C")                                   # already in the batch
    act(s, "give:1:4D")
    assert {"AC", "4D"} <= hand_text(s, 2) and {"8C", "3C", "2D"} <= hand_text(s, 1)
    assert [e.came_back for e in s.events if e.kind == "return"] == [False, True]


def test_six_contracts_trump_given_down_player_chooses_any_card():
    s = MatchState.from_position(make_config("six-contracts"), deal=W6_DEAL, hand_number=2,
                                 dealer=0, prev_points=(0, 2, -2))
    act(s, "trump:H", "give:2:2H")
    assert (s.decision, s.current_seat) == (Decision.EXCHANGE_RETURN, 2)
    assert "2H" in [action_str(a) for a in s.legal_actions()]   # the trump itself allowed
    assert len(s.legal_actions()) == 17
    act(s, "2S")
    assert "2S" in hand_text(s, 1) and "2H" in hand_text(s, 2)
    assert (s.decision, s.current_seat) == (Decision.EXCHANGE_GIVE, 1)
    act(s, "stop")                                              # the rest lapses
    assert s.decision is Decision.DISCARD and s.current_seat == 1


def test_stop_before_the_first_card():
    s = MatchState.from_position(make_config("six-contracts"), deal=W6_DEAL, hand_number=2,
                                 dealer=0, prev_points=(0, 2, -2))
    act(s, "trump:H", "stop")
    assert s.decision is Decision.DISCARD
    assert [e.kind for e in s.events] == ["stop"]


def test_no_trump_or_misere_contract_lapses_the_exchange():
    for contract in ("no-trump", "misere"):
        s = MatchState.from_position(make_config("six-contracts"), deal=W6_DEAL, hand_number=2,
                                     dealer=0, prev_points=(0, 2, -2))
        act(s, contract)
        assert s.decision is Decision.DISCARD and s.events == []


# W7: sergeant-major, seat 0 deals; A = seat 1 up 2, B = seat 2 down 2 holds QH 7H 9D, no spades.
W7_DEAL = Deal.parse(
    "AS KS QS JS 10S 9S 8S 7S AH KH JH 10H 9H 8H 6H 5H",                 # S0 = seat 0
    "6S 5S 4S 3S 2S 4H 3H 2H AD KD QD JD 10D 8D 7D 6D",                  # S1 = seat 1 (A)
    "QH 7H 9D 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",                  # S2 = seat 2 (B)
    "5D 4D 3D 2D")


def test_w7_demand_suit():
    s = MatchState.from_position(make_config(), deal=W7_DEAL, hand_number=2, dealer=0,
                                 prev_points=(0, 2, -2))
    assert (s.decision, s.current_seat) == (Decision.EXCHANGE_DEMAND, 1)
    assert [action_str(a) for a in s.legal_actions()] == [
        "demand:2:S", "demand:2:H", "demand:2:D", "demand:2:C"]
    act(s, "demand:2:H")
    assert "QH" in hand_text(s, 1) and s.decision is Decision.EXCHANGE_GIVE
    assert "QH" in [action_str(a) for a in s.legal_actions()]     # received card allowed
    act(s, "2S")                                                  # A gives back a card
    assert "2S" in hand_text(s, 2)
    act(s, "demand:2:S")                                          # B now holds the 2S!
    assert "2S" in hand_text(s, 1)
    act(s, "3S")
    assert s.decision is Decision.CONTRACT                        # both cards settled


def test_w7_void_is_declared_and_not_used_up():
    s = MatchState.from_position(make_config(), deal=W7_DEAL, hand_number=2, dealer=0,
                                 prev_points=(0, 2, -2))
    act(s, "demand:2:H", "2C" if False else "6S", "demand:2:S")
    assert "6S" in hand_text(s, 1)                                # B gave back the 6S
    act(s, "6S")
    s = MatchState.from_position(make_config(), deal=W7_DEAL, hand_number=2, dealer=0,
                                 prev_points=(0, 2, -2))
    act(s, "demand:2:S")
    assert s.decision is Decision.EXCHANGE_DEMAND and s.current_seat == 1
    assert [action_str(a) for a in s.legal_actions()] == ["demand:2:H", "demand:2:D",
                                                          "demand:2:C"]
    ev = view_of(s, 0).exchange_events[-1]
    assert (ev.kind, ev.down, action_str(60 + ev.suit)) == ("void", 2, "trump:S")  # public
    act(s, "demand:2:D")
    assert "9D" in hand_text(s, 1)
    act(s, "6S")
    assert s.legal_actions() == [parse_action(f"demand:2:{u}") for u in "SHDC"]  # reset
    # what the third player (seat 0) saw: demands with suits, no cards
    seen = [(e.kind, e.suit, e.card) for e in view_of(s, 0).exchange_events]
    assert seen == [("void", 0, None), ("demand", 2, None), ("give", None, None)]
    mine = [(e.kind, action_str(e.card)) for e in view_of(s, 2).exchange_events
            if e.card is not None]
    assert mine == [("demand", "9D"), ("give", "6S")]


def test_w8_allocation_up_player_chooses_which_down_player():
    cfg = make_config()
    s = MatchState.from_position(cfg, seed=3, hand_number=2, dealer=0, prev_points=(3, -1, -2))
    assert s.current_seat == 0 and s.exchange.down_left == [0, 1, 2]
    assert {action_str(a)[:8] for a in s.legal_actions()} == {"demand:1", "demand:2"}
    settled = {1: 0, 2: 0}
    while s.decision in (Decision.EXCHANGE_DEMAND, Decision.EXCHANGE_GIVE):
        if s.decision is Decision.EXCHANGE_DEMAND:
            target = 1 if settled[1] == 0 else 2
            for a in s.legal_actions():
                if action_str(a).startswith(f"demand:{target}:"):
                    before = s.hands[target]
                    s.apply(a)
                    if s.hands[target] != before:
                        settled[target] += 1
                    break
        else:
            s.apply(s.legal_actions()[0])
        if settled[1] == 1 and s.decision is Decision.EXCHANGE_DEMAND:
            assert all(action_str(a).startswith("demand:2:") for a in s.legal_actions())
    assert settled == {1: 1, 2: 2}
    assert sum(e.kind == "give" for e in s.events) == 3


def test_double_payment_doubles_the_cards():
    s = MatchState.from_position(make_config(double_payment=True), seed=1, hand_number=2,
                                 dealer=0, prev_points=(1, -1, 0))
    n = 0
    while s.decision is not Decision.CONTRACT:
        s.apply(s.legal_actions()[-1])
        n += s.events[-1].kind == "give"
    assert n == 2


@pytest.mark.parametrize("prev,dealer,order", [
    ((1, 1, -2), 0, [1, 0]),    # equal up: first from the new dealer's left (S1 = seat 1)
    ((1, 1, -2), 1, [0, 1]),    # dealer 1: S1 = seat 2, then seat 0 before seat 1
    ((1, 2, -3), 0, [1, 0]),    # larger up first
    ((2, 1, -3), 2, [0, 1]),
])
def test_sergeant_exchange_order(prev, dealer, order):
    from arena.rules.exchange import up_order
    s = MatchState.from_position(make_config(), seed=1, hand_number=2, dealer=dealer,
                                 prev_points=prev)
    assert up_order(s.cfg, prev, s.roles, s.targets) == order and s.current_seat == order[0]


def test_six_contracts_higher_current_target_first():
    from arena.rules.exchange import up_order
    # dealer 0: targets seat0 3, seat1 8, seat2 5; ups seat 0 (+2) and seat 2 (+1)
    s = MatchState.from_position(make_config("six-contracts"), seed=1, hand_number=2,
                                 dealer=0, prev_points=(2, -3, 1))
    assert up_order(s.cfg, (2, -3, 1), s.roles, s.targets) == [2, 0]


def test_exchange_moves_exactly_the_owed_number_of_cards():
    import random
    rng = random.Random(4)
    for preset in ("sergeant-major", "six-contracts", "blato", "six-three-eight"):
        for seed in range(10):
            prev = (3, -1, -2)
            s = MatchState.from_position(make_config(preset), seed=seed, hand_number=2,
                                         dealer=seed % 3, prev_points=prev)
            if s.decision is Decision.CONTRACT:
                s.apply(s.legal_actions()[0])    # a trump contract where it comes first
            while s.exchange is not None:
                legal = [a for a in s.legal_actions() if a != 99]
                s.apply(rng.choice(legal))
            moved_to_up = sum(e.kind in ("demand", "return") for e in s.events)
            moved_to_down = sum(e.kind == "give" for e in s.events)
            assert moved_to_up == moved_to_down == 3
            assert sorted(bin(h).count("1") for h in s.hands)[:2] == [
                16 if preset != "six-three-eight" else 17] * 2


def test_views_list_the_cards_each_seat_gave_and_received():
    s = MatchState.from_position(make_config(), deal=W7_DEAL, hand_number=2, dealer=0,
                                 prev_points=(0, 2, -2))
    act(s, "demand:2:H", "6S", "demand:2:D", "5S")
    up, down, third = view_of(s, 1), view_of(s, 2), view_of(s, 0)
    assert [action_str(c) for c in up.cards_received()] == ["QH", "9D"]
    assert [action_str(c) for c in up.cards_given()] == ["6S", "5S"]
    assert [action_str(c) for c in down.cards_given()] == ["QH", "9D"]
    assert [action_str(c) for c in down.cards_received()] == ["6S", "5S"]
    assert third.cards_given() == [] and third.cards_received() == []


def test_demand_suit_with_exchange_optional_may_stop_at_a_demand():
    """exchange_optional applies to demand-suit too: 'stop' at any demand decision (before the
    first card too), never between a demanded card and its give-back."""
    cfg = make_config(exchange_optional=True)
    s = MatchState.from_position(cfg, deal=W7_DEAL, hand_number=2, dealer=0,
                                 prev_points=(0, 2, -2))
    assert [action_str(a) for a in s.legal_actions()] == [
        "demand:2:S", "demand:2:H", "demand:2:D", "demand:2:C", "stop"]
    act(s, "demand:2:H")
    assert "stop" not in [action_str(a) for a in s.legal_actions()]   # must give back
    act(s, "2S", "stop")
    assert s.decision is Decision.CONTRACT                             # the second card lapsed
    assert [(e.kind, e.up) for e in view_of(s, 2).exchange_events] == [
        ("demand", 1), ("give", 1), ("stop", 1)]
    s = MatchState.from_position(cfg, deal=W7_DEAL, hand_number=2, dealer=0,
                                 prev_points=(0, 2, -2))
    act(s, "stop")
    assert s.decision is Decision.CONTRACT and s.hands == [
        sum(1 << c for c in d) for d in (W7_DEAL.hands[0] + W7_DEAL.kitty, W7_DEAL.hands[1],
                                         W7_DEAL.hands[2])]
    with pytest.raises(IllegalActionError):
        MatchState.from_position(make_config(), deal=W7_DEAL, hand_number=2, dealer=0,
                                 prev_points=(0, 2, -2)).apply(parse_action("stop"))


def test_events_are_typed_and_name_who_gave_and_who_took():
    """Every event's kind is an ExchangeKind; ``transfer()`` is the one giver/taker rule
    (demand and return: down -> up; give: up -> down; void and stop move nothing), used alike
    by views, determinization and the replay, whether or not the card is shown."""
    s = MatchState.from_position(make_config("six-contracts"), deal=W6_DEAL, hand_number=2,
                                 dealer=0, prev_points=(0, 2, -2))
    act(s, "trump:H", "give:2:3C", "give:2:4D")
    assert all(type(e.kind) is ExchangeKind for e in s.events)
    assert [e.transfer() for e in s.events] == [(1, 2), (2, 1), (1, 2), (2, 1)]
    assert [e.transfer() for e in view_of(s, 0).exchange_events] == [(1, 2), (2, 1)] * 2
    assert view_of(s, 1).cards_given() == [parse_action("3C"), parse_action("4D")]
    assert view_of(s, 1).cards_received() == [parse_action("AC"), parse_action("4D")]
    assert view_of(s, 0).cards_given() == view_of(s, 0).cards_received() == []
    demand = ExchangeEvent(ExchangeKind.DEMAND, 0, 2, 1, 20)
    assert demand.transfer() == (2, 0)
    assert ExchangeEvent(ExchangeKind.VOID, 0, 2, 1, None).transfer() is None
    assert ExchangeEvent(ExchangeKind.STOP, 0, None, None, None).transfer() is None
