"""Property tests over random legal play in every preset and option combination (hypothesis),
in the spirit of OpenSpiel's RandomSimTest (more over the whole option space in
``test_option_space.py``)."""

import random

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.rules import PRESETS, Deal, MatchState, make_config, parse_card
from arena.rules.actions import MISERE

from .strategies import accepted_configs
from arena.rules.view import view_of

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def configs(draw):
    preset = draw(st.sampled_from(sorted(PRESETS)))
    opts = {"hand_cap": draw(st.integers(1, 12))}
    if preset != "six-three-eight":
        opts["no_trump"] = draw(st.booleans())
        opts["misere"] = draw(st.booleans())
    if preset in ("sergeant-major", "nine-five-two", "six-three-eight"):
        opts["double_payment"] = draw(st.booleans())
    opts["exchange_optional"] = draw(st.booleans())
    return make_config(preset, **opts)


def deck_of(cfg):
    full = set(range(52))
    if cfg.deck == 51:
        full.discard(parse_card(cfg.removed_card))
    return full


def check_cards_accounted(s: MatchState):
    """Every card is in exactly one place: a hand, the kitty, discards, or played this hand."""
    places = [s.hands[0], s.hands[1], s.hands[2]]
    if s.cfg.kitty_size and not s.kitty_taken:
        places.append(sum(1 << c for c in s.kitty))
    places.append(sum(1 << c for c in s.discards))
    for t in s.tricks:
        places.append(sum(1 << c for _, c in t.cards))
    places.append(sum(1 << c for c in s.trick))
    total = 0
    for m in places:
        assert total & m == 0, "a card is in two places"
        total |= m
    assert total == sum(1 << c for c in deck_of(s.cfg))
    # hands hold the same number of cards while playing (the declarer after discarding)
    if s.decision is not None and s.decision.value == "play":
        sizes = sorted(bin(h).count("1") for h in s.hands)
        assert sizes[2] - sizes[0] <= 1


@SETTINGS
@given(cfg=configs() | accepted_configs(), seed=st.integers(0, 2**32),
       play_seed=st.integers(0, 2**32))
def test_random_play_invariants(cfg, seed, play_seed):
    s = MatchState.new(cfg, seed=seed)
    rng = random.Random(play_seed)
    while not s.finished:
        legal = s.legal_actions()
        assert legal == sorted(set(legal)) and legal
        check_cards_accounted(s)
        s.apply(rng.choice(legal))
    n = cfg.tricks_per_hand
    assert 1 <= s.hand_number <= cfg.hand_cap
    assert len(s.completed_hands) == s.hand_number == len(s.hand_points)
    assert list(map(sum, zip(*s.hand_points, strict=True))) == s.scores
    for i, h in enumerate(s.completed_hands):
        assert len(h.tricks) == n and sum(h.tricks_won) == n
        assert tuple(sum(t.winner == seat for t in h.tricks) for seat in range(3)) == h.tricks_won
        assert sum(h.points) == 0                       # misère too: limits sum to n
        assert h.dealer == (0, 1, 2)[i % 3] if cfg.direction == "clockwise" else True
        # targets rotate with the deal
        assert h.targets == tuple(cfg.targets[r] for r in h.roles)
        if i:
            prev = s.completed_hands[i - 1]
            assert h.dealer == prev.roles.index(1)      # the old S1 deals
            gives = sum(e.kind == "give" for e in h.events)
            stopped = any(e.kind == "stop" for e in h.events)
            lapsed = (cfg.exchange == "none" or (cfg.exchange_timing == "after-contract"
                                                and h.contract >= 4))
            owed = sum(p for p in prev.points if p > 0) * (2 if cfg.double_payment else 1)
            if not stopped:
                assert gives == (0 if lapsed else owed)
        else:
            assert h.events == ()                       # no exchange on the first hand
        if h.contract == MISERE:
            assert h.points == tuple(lim - t for lim, t in zip(h.limits, h.tricks_won, strict=True))
    assert s.placings is not None and min(s.placings) == 1
    if s.end_reason == "twelve-tricks":
        assert s.placings[s.twelve_trick_winner] == 1


@SETTINGS
@given(cfg=configs(), seed=st.integers(0, 2**32), play_seed=st.integers(0, 2**32),
       stop_at=st.integers(0, 400))
def test_views_reveal_nothing_hidden(cfg, seed, play_seed, stop_at):
    """Any state consistent with a seat's view (hidden cards redrawn) gives the same view."""
    s = MatchState.new(cfg, seed=seed)
    rng = random.Random(play_seed)
    for _ in range(stop_at):
        if s.finished:
            return
        s.apply(rng.choice(s.legal_actions()))
    if s.finished:
        return
    for seat in range(3):
        v = view_of(s, seat)
        other = MatchState.from_view(v, rng)
        assert view_of(other, seat) == v
        copy = s.copy()
        assert view_of(copy, seat) == v


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), play_seed=st.integers(0, 2**32), viewer=st.integers(0, 2))
def test_swapping_opponents_cards_does_not_change_a_view(seed, play_seed, viewer):
    """Two deals that differ only by a swap of same-suit cards between the viewer's opponents
    give the viewer identical views until one of the swapped cards is played."""
    cfg = make_config(hand_cap=1)
    s1 = MatchState.new(cfg, seed=seed)
    d = s1.deals[0]
    roles = s1.roles
    a, b = [s for s in range(3) if s != viewer]
    ha, hb = list(d.hands[roles[a]]), list(d.hands[roles[b]])
    pair = next(((x, y) for x in ha for y in hb if x // 13 == y // 13), None)
    if pair is None:
        return
    x, y = pair
    ha[ha.index(x)], hb[hb.index(y)] = y, x
    hands = list(d.hands)
    hands[roles[a]], hands[roles[b]] = tuple(ha), tuple(hb)
    s2 = MatchState.new(cfg, first_deal=Deal(tuple(hands), d.kitty))
    rng = random.Random(play_seed)
    steps = 0
    while not s1.finished:
        assert view_of(s1, viewer) == view_of(s2, viewer)
        action = rng.choice(s1.legal_actions())
        if action in (x, y) or not s2.is_legal(action):
            break
        s1.apply(action)
        s2.apply(action)
        steps += 1
    assert steps > 0 or s1.current_seat != viewer


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32),
       play_seed=st.integers(0, 2**32))
def test_full_length_matches_end_within_the_cap(preset, seed, play_seed):
    cfg = make_config(preset)
    s = MatchState.new(cfg, seed=seed)
    rng = random.Random(play_seed)
    while not s.finished:
        s.apply(rng.choice(s.legal_actions()))
    assert s.hand_number <= cfg.hand_cap
    assert s.end_reason in ("twelve-tricks", "score", "hands", "hand-cap")
    assert list(map(sum, zip(*s.hand_points, strict=True))) == s.scores
