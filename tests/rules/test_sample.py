"""Determinization (arena.rules.sample): consistent with the view, random in what is hidden."""

import random

import pytest

from arena.rules import Decision, MatchState, RulesError, make_config

from .helpers import act
from arena.rules.view import view_of


def play_until(s: MatchState, rng: random.Random, pred, limit: int = 2000) -> bool:
    for _ in range(limit):
        if s.finished or pred(s):
            return not s.finished
        s.apply(rng.choice(s.legal_actions()))
    return False


def test_sampled_state_keeps_own_cards_and_public_facts():
    s = MatchState.new(make_config(), seed=2)
    rng = random.Random(0)
    play_until(s, rng, lambda t: t.decision is Decision.PLAY and len(t.tricks) == 5)
    v = view_of(s, 1)
    for _ in range(20):
        t = MatchState.from_view(v, rng)
        assert t.hands[1] == s.hands[1]
        assert t.tricks == s.tricks and t.scores == s.scores and t.contract == s.contract
        assert [bin(h).count("1") for h in t.hands] == [bin(h).count("1") for h in s.hands]
        assert view_of(t, 1) == v


def test_hidden_cards_are_redrawn():
    s = MatchState.new(make_config(), seed=2)
    rng = random.Random(1)
    play_until(s, rng, lambda t: t.decision is Decision.PLAY)
    v = view_of(s, 1)
    draws = {MatchState.from_view(v, rng).hands[2] for _ in range(20)}
    assert len(draws) > 10


def test_shown_voids_are_respected():
    rng = random.Random(3)
    for seed in range(40):
        s = MatchState.new(make_config(), seed=seed)
        act(s, "trump:S")
        for _ in range(4):
            s.apply(s.legal_actions()[0])
        # play until someone fails to follow suit
        def showed_out(t):
            return any(c // 13 != cards[0][1] // 13
                       for cards in [tr.cards for tr in t.tricks] for _, c in cards[1:])
        if not play_until(s, rng, showed_out):
            continue
        void_seat, suit = next((seat, cards[0][1] // 13) for tr in s.tricks
                               for cards in [tr.cards] for seat, c in cards[1:]
                               if c // 13 != cards[0][1] // 13)
        viewer = next(x for x in range(3) if x != void_seat)
        v = view_of(s, viewer)
        for _ in range(30):
            t = MatchState.from_view(v, rng)
            assert t.hands[void_seat] & (0x1FFF << (13 * suit)) == 0
        return
    raise AssertionError("nobody showed out in 40 deals")


def test_sampled_state_plays_to_the_end_in_every_preset():
    rng = random.Random(5)
    for preset in ("sergeant-major", "six-three-eight", "six-contracts", "blato"):
        s = MatchState.new(make_config(preset, hand_cap=3), seed=1)
        for step in range(0, 200, 13):
            while len(s.actions) < step and not s.finished:
                s.apply(rng.choice(s.legal_actions()))
            if s.finished:
                break
            t = MatchState.from_view(view_of(s, s.current_seat), rng)
            assert t.legal_actions() == s.legal_actions()
            while not t.finished:
                t.apply(rng.choice(t.legal_actions()))
            assert t.placings is not None


def test_finished_match_cannot_be_sampled():
    s = MatchState.new(make_config(hand_cap=1), seed=1)
    rng = random.Random(0)
    while not s.finished:
        s.apply(rng.choice(s.legal_actions()))
    with pytest.raises(RulesError, match="finished"):
        MatchState.from_view(view_of(s, 0), rng)


def test_from_view_is_the_sdk_sample_state_and_builds_the_state_in_state_py():
    """``arena.sdk.sample_state`` is ``MatchState.from_view`` under the SDK's name (same draw
    for the same rng), and only arena/rules/state.py constructs a MatchState: the sampling
    module draws cards and imports no state."""
    import ast
    from pathlib import Path

    import arena.rules.sample
    from arena.sdk import sample_state

    s = MatchState.new(make_config("blato"), seed=4)
    play_until(s, random.Random(2), lambda t: len(t.tricks) == 3)
    v = view_of(s, 2)
    a, b = MatchState.from_view(v, random.Random(9)), sample_state(v, random.Random(9))
    assert a.hands == b.hands and a.kitty == b.kitty and view_of(b, 2) == v
    rules = Path(arena.rules.sample.__file__).parent
    for path in rules.glob("*.py"):
        tree = ast.parse(path.read_text())
        news = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "__new__"
                and not (isinstance(n.value, ast.Name) and n.value.id == "tuple")]
        assert path.name == "state.py" or not news, path.name
    assert "state" not in {n.module for n in ast.walk(ast.parse(Path(
        arena.rules.sample.__file__).read_text())) if isinstance(n, ast.ImportFrom)}
