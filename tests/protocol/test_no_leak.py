"""No leak over the wire, under random accepted rule options (not only the presets): every card
named anywhere in a seat's ``View`` message, as ``view_to_proto`` builds it and as the arena's
``ViewEncoder`` builds it from the state, is a card that seat has seen (the oracle of
``tests/rules/seen.py``); both encodings agree, and the bot side decodes them (``view_from_proto``
and the SDK's ``ViewDecoder``) back to the engine's view."""

from __future__ import annotations

import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb
from arena.protocol.convert import view_from_proto, view_to_proto
from arena.protocol.viewcache import ViewDecoder, ViewEncoder
from arena.rules import MatchState, make_config, parse_card
from tests.rules.seen import SeenCards
from tests.rules.strategies import accepted_configs
from arena.rules.view import view_of

_CARD = re.compile(r"(?:^|:)(10|[2-9JQKA])([SHDC])$")


def card_texts(msg) -> set[int]:
    """Every card named by a string anywhere in ``msg`` (a card, or a ``give:2:AS`` action);
    suit-letter strings (voids) and other actions name none."""
    out: set[int] = set()
    for field, value in msg.ListFields():
        values = value if field.is_repeated else [value]
        for v in values:
            if field.type == field.TYPE_MESSAGE:
                out |= card_texts(v)
            elif field.type == field.TYPE_STRING:
                m = _CARD.search(v)
                if m:
                    out.add(parse_card(m.group(1) + m.group(2)))
    return out


def test_card_texts_finds_cards_in_every_kind_of_field():
    state = MatchState.new(make_config("six-contracts"), seed=3)
    msg = view_to_proto(view_of(state, state.declarer))
    assert card_texts(msg) == set(state.deals[0].hands[1][:6])     # his first six, nothing else
    msg.exchange.batch.add(down=2, card="10C")
    msg.legal_actions.append("give:0:AH")
    msg.exchange.voids.append("SH")
    added = {parse_card("10C"), parse_card("AH")}
    assert card_texts(msg) == set(state.deals[0].hands[1][:6]) | added


def _check(cfg, seed: int, play_seed: int) -> int:
    state = MatchState.new(cfg, seed=seed)
    rng = random.Random(play_seed)
    seen = SeenCards(state)
    enc, decoders = ViewEncoder(), [ViewDecoder() for _ in range(3)]   # a bot per seat
    steps = 0
    while not state.finished:
        for seat in range(3):
            view = view_of(state, seat)
            msg = view_to_proto(view)
            leak = card_texts(msg) - {c for c in range(52) if seen.seen[seat] >> c & 1}
            assert not leak, (seat, sorted(leak), msg)
            encoded = enc.encode(view, "m")     # what the arena sends
            assert encoded == msg
            assert view_from_proto(msg, cfg) == view
            if seat == state.current_seat:      # a bot decodes the views it is sent
                wire = pb.View.FromString(encoded.SerializeToString())
                assert decoders[seat].decode(wire, cfg, "m") == view
        state.apply(rng.choice(state.legal_actions()))
        seen.update(state)
        steps += 1
    return steps


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(cfg=accepted_configs(), seed=st.integers(0, 2**32), play_seed=st.integers(0, 2**32))
def test_both_encodings_hide_unseen_cards_under_any_accepted_options(cfg, seed, play_seed):
    assert _check(cfg, seed, play_seed) > 0
