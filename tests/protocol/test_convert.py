"""View, rules, actions and match messages survive the trip through protobuf unchanged."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.match.bot import MatchEnd, MatchInfo
from arena.protocol import convert
from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb
from arena.protocol.convert import ConversionError
from arena.rules import OPTION_NAMES, PRESETS, MatchState, make_config
from arena.rules.view import view_of

PRESET_NAMES = sorted(PRESETS)


def _wire(msg):  # through bytes, as on the stream
    return type(msg).FromString(msg.SerializeToString())


def _check_views(state: MatchState) -> None:
    for seat in range(3):
        view = view_of(state, seat)
        back = convert.view_from_proto(_wire(convert.view_to_proto(view)), view.cfg)
        assert back == view, f"seat {seat}: view changed in the round trip"


@settings(max_examples=25, deadline=None)
@given(preset=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**32),
       every=st.integers(1, 9))
def test_view_round_trip_random_play(preset: str, seed: int, every: int) -> None:
    cfg = make_config(preset, hand_cap=4)
    state = MatchState.new(cfg, seed=seed)
    rng = random.Random(seed)
    step = 0
    while not state.finished:
        if step % every == 0:
            _check_views(state)
        state.apply(rng.choice(state.legal_actions()))
        step += 1
    _check_views(state)  # finished: placings, no decision


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_view_round_trip_every_step_of_a_match(preset: str) -> None:
    """Every step of the first hands, including every exchange and kitty situation."""
    cfg = make_config(preset, hand_cap=3)
    seen = set()
    for seed in range(3):
        state = MatchState.new(cfg, seed=seed)
        rng = random.Random(seed)
        while not state.finished:
            _check_views(state)
            views = [view_of(state, s) for s in range(3)]
            seen |= {"exchange" for v in views if v.exchange is not None}
            seen |= {"hidden-card" for v in views for e in v.exchange_events
                     if e.card is None and e.kind in ("give", "return", "demand")}
            seen |= {"kitty" for v in views if v.kitty is not None}
            state.apply(rng.choice(state.legal_actions()))
        _check_views(state)
    expected = {"exchange", "hidden-card"} | ({"kitty"} if cfg.kitty_size else set())
    assert expected <= seen, f"random play did not reach {expected - seen}"


def test_rebuilt_view_can_be_sampled() -> None:
    state = MatchState.new(make_config("six-contracts"), seed=3)
    rng = random.Random(3)
    for _ in range(40):
        state.apply(rng.choice(state.legal_actions()))
    seat = state.current_seat
    view = convert.view_from_proto(_wire(convert.view_to_proto(view_of(state, seat))),
                                   state.cfg)
    sampled = MatchState.from_view(view, random.Random(0))
    assert sampled.legal_actions() == list(view.legal_actions)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_rules_round_trip_presets(preset: str) -> None:
    cfg = make_config(preset)
    assert convert.rules_from_proto(_wire(convert.rules_to_proto(cfg))) == cfg


@pytest.mark.parametrize("overrides", [
    {"misere": True, "misere_limits": (3, 5, 8), "no_trump": True},
    {"end_score": None, "end_hands": None, "hand_cap": 7},
    {"tie_extra_hands": None},
    {"tie_extra_hands": 0, "double_payment": True, "exchange_optional": True},
    {"deck": 51, "deal_pattern": "singles", "declarer_view": "hand", "removed_card": "3D",
     "targets": (9, 5, 3)},
])
def test_rules_round_trip_overrides(overrides: dict) -> None:
    cfg = make_config("sergeant-major", **overrides)
    assert convert.rules_from_proto(_wire(convert.rules_to_proto(cfg))) == cfg


def test_rules_message_covers_every_option() -> None:
    assert set(convert.OPTION_KINDS) == set(OPTION_NAMES)
    fields = {f.name for f in pb.RulesConfig.DESCRIPTOR.fields}
    assert fields == set(OPTION_NAMES) | {"preset"}


def test_bad_rules_message_is_a_conversion_error() -> None:
    msg = convert.rules_to_proto(make_config("blato"))
    msg.follow = "F9"
    with pytest.raises(ConversionError, match="follow"):
        convert.rules_from_proto(msg)
    msg = convert.rules_to_proto(make_config("blato"))
    msg.preset = "poker"
    with pytest.raises(ConversionError, match="unknown preset"):
        convert.rules_from_proto(msg)


def test_every_action_code_round_trips_as_text() -> None:
    codes = list(range(52)) + list(range(60, 66)) + list(range(70, 82)) + [99] + \
        list(range(100, 256))
    for code in codes:
        text = convert.action_to_text(code)
        assert convert.action_from_text(text) == code
        assert convert.action_from_text(text.lower()) == code
    assert convert.action_to_text(61) == "trump:H"
    assert convert.action_to_text(70 + 4 + 0) == "demand:1:S"
    assert convert.action_to_text(100 + 2 * 52 + 34) == "give:2:10D"


@pytest.mark.parametrize("text", ["", "11H", "trump:X", "give:3:AS", "play AS", "demand:1"])
def test_bad_action_text_is_a_conversion_error(text: str) -> None:
    with pytest.raises(ConversionError, match="not an action"):
        convert.action_from_text(text)


def test_bad_view_messages_are_conversion_errors() -> None:
    state = MatchState.new(make_config("sergeant-major"), seed=1)
    good = convert.view_to_proto(view_of(state, 0))
    bad = _wire(good)
    del bad.roles[2]
    with pytest.raises(ConversionError, match="roles"):
        convert.view_from_proto(bad, state.cfg)
    bad = _wire(good)
    bad.hand[0] = "1X"
    with pytest.raises(ConversionError, match="1X"):
        convert.view_from_proto(bad, state.cfg)
    bad = _wire(good)
    bad.decision = 42
    with pytest.raises(ConversionError, match="decision"):
        convert.view_from_proto(bad, state.cfg)


def test_match_start_and_end_round_trip() -> None:
    info = MatchInfo("m-1", make_config("blato", hand_cap=9), 2, ("a", "b", "c"), 250)
    assert convert.match_info_from_proto(_wire(convert.match_start_to_proto(info))) == info
    end = MatchEnd("m-1", (3, -1, -2), (1, 2, 3), "score")
    assert convert.match_end_from_proto(_wire(convert.match_end_to_proto(end))) == end
    bad = convert.match_start_to_proto(info)
    bad.seat = 3
    with pytest.raises(ConversionError, match="seat"):
        convert.match_info_from_proto(bad)
