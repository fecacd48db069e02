"""RandomBot: legal in every preset, reproducible with a seed."""

from __future__ import annotations

import pytest

from arena.rules import PRESETS, MatchState, make_config
from sample_bots.random_bot import RandomBot

from .helpers import drive
from arena.rules.view import view_of


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_bots_finish_matches_of_every_preset(preset):
    state = MatchState.new(make_config(preset, hand_cap=2), seed=f"random/{preset}")
    drive(state, [RandomBot(seed=s) for s in range(3)])
    assert state.finished and state.placings is not None


def test_same_seed_same_actions_and_other_seed_differs():
    cfg = make_config("six-contracts", hand_cap=2)
    runs = []
    for seeds in ((1, 2, 3), (1, 2, 3), (4, 5, 6)):
        actions, _ = drive(MatchState.new(cfg, seed=9), [RandomBot(seed=s) for s in seeds])
        runs.append(actions)
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_single_legal_action_is_returned():
    state = MatchState.new(make_config("sergeant-major"), seed=3)
    bot = RandomBot(seed=0)
    while len(state.legal_actions()) != 1:
        state.apply(bot.decide(view_of(state, state.current_seat)))
    view = view_of(state, state.current_seat)
    assert bot.decide(view) == view.legal_actions[0]
