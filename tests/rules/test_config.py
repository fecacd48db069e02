import pytest

from arena.rules import PRESETS, RulesConfigError, make_config


def test_five_presets_with_their_table_values():
    assert set(PRESETS) == {"sergeant-major", "nine-five-two", "six-three-eight",
                            "six-contracts", "blato"}
    sm = make_config()
    assert (sm.preset, sm.targets, sm.limits, sm.declarer, sm.first_lead) == (
        "sergeant-major", (8, 5, 3), (3, 5, 8), "S0", "S1")
    assert (sm.exchange, sm.follow, sm.end_hands, sm.twelve_trick_win) == (
        "demand-suit", "F1", 10, True)
    assert make_config("nine-five-two").limits == (2, 5, 9)
    s38 = make_config("six-three-eight")
    assert (s38.deck, s38.kitty_size, s38.tricks_per_hand, s38.targets) == (51, 0, 17, (8, 6, 3))
    assert (s38.end_score, s38.end_score_either_sign) == (10, True)
    six = make_config("six-contracts")
    assert (six.targets, six.limits, six.follow, six.end_hands) == ((3, 8, 5), (8, 3, 5), "F2", 18)
    assert (six.declarer_view, six.exchange, six.contract_once) == (
        "first6", "pass-return-interactive", True)
    bl = make_config("blato")
    assert (bl.direction, bl.follow, bl.end_score, bl.tie_break, bl.misere) == (
        "counterclockwise", "F3", 21, "continue", False)


def test_overrides_apply_and_lists_are_accepted():
    c = make_config("sergeant-major", no_trump=True, misere=True, hand_cap=20,
                    targets=[9, 5, 2])
    assert (c.no_trump, c.misere, c.hand_cap, c.targets) == (True, True, 20, (9, 5, 2))
    assert c.replace(double_payment=True).double_payment is True


def test_unknown_preset_names_the_valid_ones():
    with pytest.raises(RulesConfigError, match=r"unknown preset 'bridge'.*sergeant-major.*blato"):
        make_config("bridge")


def test_unknown_option_names_the_valid_ones():
    with pytest.raises(RulesConfigError, match=r"unknown rule option 'trumps'.*no_trump"):
        make_config(trumps=True)


@pytest.mark.parametrize("opt,value,msg", [
    ("follow", "F4", "'follow'.*'F1', 'F2', 'F3'"),
    ("deck", 50, "'deck'.*52, 51"),
    ("no_trump", "yes", "'no_trump'.*true or false"),
    ("targets", (8, 5, 2), "adds up to 15.*16 tricks"),
    ("targets", (8, 5), "three non-negative integers"),
    ("misere_limits", (3, 5, 9), "adds up to 17"),
    ("hand_cap", 0, "'hand_cap'.*from 1 to 10000"),
    ("hand_cap", 10**9, "'hand_cap'.*from 1 to 10000"),
    ("deck", 52.0, "'deck'"),
    ("end_hands", -3, "'end_hands'"),
    ("removed_card", "1X", "'removed_card'"),
    ("exchange", "swap", "'exchange'.*demand-suit"),
])
def test_invalid_values_are_rejected_with_choices(opt, value, msg):
    with pytest.raises(RulesConfigError, match=msg):
        make_config(**{opt: value})


def test_invalid_combinations_are_rejected():
    with pytest.raises(RulesConfigError, match="double_payment"):
        make_config("blato", double_payment=True)
    with pytest.raises(RulesConfigError, match="dealt singly"):
        make_config(deck=51, targets=(8, 6, 3))
    with pytest.raises(RulesConfigError, match="kitty"):
        make_config("six-three-eight", declarer_view="kitty")


def test_options_dict_round_trips():
    c = make_config("blato", hand_cap=7)
    opts = c.options()
    assert opts["targets"] == [3, 8, 5]
    assert make_config(opts.pop("preset"), **opts) == c


@pytest.mark.parametrize("exchange", ["demand-suit", "pass-return-batch",
                                      "pass-return-interactive"])
def test_first6_declarer_cannot_exchange_before_the_contract(exchange):
    """The six-contracts declarer sees only his first 6 cards until he has chosen; an exchange
    before the contract would show him (in his legal gives) cards he has not seen."""
    with pytest.raises(RulesConfigError, match="declarer_view 'first6' cannot be combined with "
                       f"exchange '{exchange}' and exchange_timing 'before-contract'"):
        make_config("six-contracts", exchange=exchange, exchange_timing="before-contract")
    with pytest.raises(RulesConfigError, match="first6"):
        make_config(declarer_view="first6", exchange=exchange, double_payment=False)
    assert make_config("six-contracts", exchange=exchange).exchange_timing == "after-contract"
    assert make_config("six-contracts", exchange="none",
                       exchange_timing="before-contract").declarer_view == "first6"
