"""ViewEncoder builds exactly view_to_proto's message, at every decision, for every seat (its
serialised bytes, written from snippets by arena.protocol.wire, parse equal to it, and so does
the whole DecisionRequest); ViewDecoder rebuilds exactly view_from_proto's View."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb
from arena.protocol.convert import ConversionError, view_to_proto
from arena.protocol.viewcache import ViewDecoder, ViewEncoder
from arena.protocol.wire import decision_message, varint
from arena.rules import PRESETS, MatchState, make_config
from arena.rules.view import view_of

from ..rules.strategies import accepted_configs

PRESET_NAMES = sorted(PRESETS)


def _play_and_compare(enc: ViewEncoder, states: dict[str, MatchState], rng: random.Random,
                      every_seat: bool) -> int:
    """Advance the matches in random interleaving, comparing at every step; returns checks."""
    checks = 0
    live = [m for m, s in states.items() if not s.finished]
    while live:
        mid = rng.choice(live)
        state = states[mid]
        seats = (0, 1, 2) if every_seat else (state.current_seat,)
        for seat in seats:
            view = view_of(state, seat)
            want = view_to_proto(view)
            assert enc.encode(view, mid) == want, (mid, seat, state.hand_number)
            nested = pb.ArenaMessage()
            enc.encode_into(nested.decision.view, view, mid)
            assert nested.decision.view == want, ("encode_into", mid, seat, state.hand_number)
            _check_request(enc, view, mid, want, request_id=checks + 1)
            checks += 1
        state.apply(rng.choice(state.legal_actions()))
        live = [m for m, s in states.items() if not s.finished]
    return checks


def _check_request(enc: ViewEncoder, view, mid: str, want: pb.View, request_id: int) -> None:
    """The serialised DecisionRequest of :mod:`arena.protocol.wire` parses as the one built
    field by field with the protobuf API, byte for byte once re-serialised."""
    data = decision_message(request_id, mid, 1000 + request_id, enc.encode_bytes(view, mid))
    expected = pb.ArenaMessage()
    d = expected.decision
    d.request_id, d.match_id, d.time_ms = request_id, mid, 1000 + request_id
    d.view.CopyFrom(want)
    got = pb.ArenaMessage.FromString(data)
    assert got == expected and got.WhichOneof("kind") == "decision"
    assert got.SerializeToString(deterministic=True) == \
        expected.SerializeToString(deterministic=True)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_encoder_equals_view_to_proto_at_every_step(preset: str) -> None:
    rng = random.Random(preset)
    cfg = make_config(preset, hand_cap=4)
    enc = ViewEncoder()
    states = {f"m{i}": MatchState.new(cfg, seed=f"{preset}/{i}") for i in range(3)}
    assert _play_and_compare(enc, states, rng, every_seat=True) > 300


def test_encoder_across_options_and_reused_match_ids() -> None:
    rng = random.Random(5)
    enc = ViewEncoder()
    for k in range(6):
        cfg = make_config(rng.choice(PRESET_NAMES), hand_cap=3)
        # the same ids again on the same encoder without forget(): stale templates must not leak
        states = {"a": MatchState.new(cfg, seed=k), "b": MatchState.new(cfg, seed=100 + k)}
        _play_and_compare(enc, states, rng, every_seat=False)
        if k % 2:
            enc.forget("a")


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(cfg=accepted_configs(), seed=st.integers(0, 2**32), play=st.integers(0, 2**32))
def test_encoder_over_random_option_combinations(cfg, seed: int, play: int) -> None:
    """Not only the presets: any accepted option combination (tests/rules/strategies.py), two
    matches interleaved, every seat at every decision."""
    enc = ViewEncoder()
    states = {"x": MatchState.new(cfg, seed=seed), "y": MatchState.new(cfg, seed=seed + 1)}
    assert _play_and_compare(enc, states, random.Random(play), every_seat=True) > 0


@pytest.mark.parametrize("n", [0, 1, 127, 128, 300, 16_383, 16_384, 2**31 - 1, 2**63])
def test_varint_is_protobufs(n: int) -> None:
    """Request ids grow without bound on a long-lived connection; every size is written as
    protobuf writes it."""
    msg = pb.DecisionRequest(request_id=n)
    assert msg.SerializeToString() == (b"\x08" + varint(n) if n else b"")   # 0: not written
    data = decision_message(n, "m" * 200, 0, b"")         # a long id, no time limit written
    assert pb.ArenaMessage.FromString(data) == pb.ArenaMessage(
        decision=pb.DecisionRequest(request_id=n, match_id="m" * 200, view=pb.View()))


def test_encoder_at_the_end_of_a_match() -> None:
    state = MatchState.new(make_config("blato", hand_cap=1), seed=4)
    rng = random.Random(4)
    while not state.finished:
        state.apply(rng.choice(state.legal_actions()))
    enc = ViewEncoder()
    for seat in (0, 1, 2):
        msg = enc.encode(view_of(state, seat), "m")
        assert msg == view_to_proto(view_of(state, seat))
        assert list(msg.placings) == list(state.placings) and msg.finished


def test_encode_into_fills_a_nested_message() -> None:
    state = MatchState.new(make_config("six-contracts"), seed=9)
    enc = ViewEncoder()
    msg = pb.ArenaMessage()
    msg.decision.request_id = 4
    enc.encode_into(msg.decision.view, view_of(state, state.current_seat), "m")
    assert msg.decision.view == view_to_proto(view_of(state, state.current_seat))
    assert msg.decision.request_id == 4


def _decode_along(dec: ViewDecoder, states: dict[str, MatchState], rng: random.Random) -> int:
    """Advance the matches in random interleaving; each match is seen from one seat (as a bot
    sees it), decoded at every step; returns the number of checks."""
    checks = 0
    seat_of = {mid: rng.randrange(3) for mid in states}
    live = [m for m, s in states.items() if not s.finished]
    while live:
        mid = rng.choice(live)
        state = states[mid]
        view = view_of(state, seat_of[mid])
        msg = pb.View.FromString(view_to_proto(view).SerializeToString())
        assert dec.decode(msg, state.cfg, mid) == view, (mid, state.hand_number)
        checks += 1
        state.apply(rng.choice(state.legal_actions()))
        live = [m for m, s in states.items() if not s.finished]
    return checks


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_decoder_equals_view_from_proto_at_every_step(preset: str) -> None:
    rng = random.Random(f"dec/{preset}")
    cfg = make_config(preset, hand_cap=4)
    dec = ViewDecoder()
    states = {f"m{i}": MatchState.new(cfg, seed=f"{preset}/d{i}") for i in range(4)}
    assert _decode_along(dec, states, rng) > 200


def test_decoder_with_reused_match_ids_and_other_rules() -> None:
    rng = random.Random(11)
    dec = ViewDecoder()
    for k in range(6):
        cfg = make_config(rng.choice(PRESET_NAMES), hand_cap=3)
        dec.forget("a")            # as the SDK does on MatchStart
        dec.forget("b")
        _decode_along(dec, {"a": MatchState.new(cfg, seed=k), "b": MatchState.new(cfg, seed=-k)},
                      rng)


def test_decoder_checks_the_fields_it_converts() -> None:
    state = MatchState.new(make_config("sergeant-major"), seed=2)
    dec = ViewDecoder()
    msg = view_to_proto(view_of(state, state.current_seat))
    dec.decode(msg, state.cfg, "m")           # cached now: the next decode is a cache hit
    msg.legal_actions.append("not-a-card")
    with pytest.raises(ConversionError, match="not an action"):
        dec.decode(msg, state.cfg, "m")
    del msg.legal_actions[-1]
    msg.hand_sizes.append(4)
    with pytest.raises(ConversionError, match="hand_sizes"):
        dec.decode(msg, state.cfg, "m")


def _first_play_decision(preset: str, seed: int) -> MatchState:
    """A state at the first card play of hand 1 (kitty taken, discards made, no trick yet),
    always taking the first legal action: same contract whatever the deal."""
    state = MatchState.new(make_config(preset), seed=seed)
    while state.decision.value != "play":
        state.apply(state.legal_actions()[0])
    return state


@pytest.mark.parametrize("preset", ["six-contracts", "blato"])
def test_a_new_match_under_a_reused_id_never_gets_stale_kitty_or_discards(preset: str) -> None:
    a, b = _first_play_decision(preset, 1), _first_play_decision(preset, 2)
    declarer = a.declarer
    assert a.discards and b.discards and a.discards != b.discards and not a.tricks
    assert (a.contract, a.trump, a.declarer) == (b.contract, b.trump, b.declarer)
    enc, dec = ViewEncoder(), ViewDecoder()
    for state in (a, b):              # same id "x", no forget() in between on the arena side
        view = view_of(state, declarer)
        want = view_to_proto(view)
        assert enc.encode(view, "x") == want
        dec.forget("x")               # the SDK forgets on MatchStart
        assert dec.decode(want, state.cfg, "x") == view


def test_reused_id_same_deal_different_first_trick_is_not_taken_from_the_template() -> None:
    """Two matches on one deal, one id, no forget(): same second trick, other first trick."""
    cfg = make_config("sergeant-major")
    rng = random.Random(0)
    seen: dict = {}
    pair = None
    for _ in range(5000):
        state = MatchState.new(cfg, seed=3)
        while len(state.tricks) < 2:
            state.apply(rng.choice(state.legal_actions()))
        other = seen.setdefault(state.tricks[1], state)
        if other.tricks[0] != state.tricks[0]:
            pair = (other, state)
            break
    assert pair is not None
    enc = ViewEncoder()
    seat = pair[1].current_seat
    for state in pair:
        view = view_of(state, seat)
        assert enc.encode(view, "x") == view_to_proto(view)


def test_new_matches_under_one_id_never_get_an_old_template() -> None:
    """Fresh matches (same contract and declarer, other kitty and discards) under one id."""
    enc = ViewEncoder()
    for seed in range(40):
        state = _first_play_decision("six-contracts", seed)
        view = view_of(state, state.declarer)
        assert enc.encode(view, "m") == view_to_proto(view), seed
