"""MonteCarloBot: legal with small budgets in every preset, within its time, reproducible
when bounded by playouts instead of time."""

from __future__ import annotations

import time

import pytest

from arena.rules import PRESETS, MatchState, make_config
from arena.sdk import MatchEnd, MatchInfo
from sample_bots.greedy_bot import GreedyBot
from sample_bots.montecarlo_bot import MonteCarloBot
from sample_bots.random_bot import RandomBot

from .helpers import drive
from arena.rules.view import view_of


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_montecarlo_finishes_matches_of_every_preset(preset):
    cfg = make_config(preset, hand_cap=2)
    mc = MonteCarloBot(time_ms=10, seed=1)
    state = MatchState.new(cfg, seed=f"mc/{preset}")
    drive(state, [RandomBot(seed=5), mc, GreedyBot()])
    assert state.finished
    assert mc.stats["decisions"] > 0 and mc.stats["playouts"] > 0


def test_montecarlo_with_every_contract_and_double_payment():
    cfg = make_config("sergeant-major", hand_cap=3, no_trump=True, misere=True,
                      double_payment=True)
    state = MatchState.new(cfg, seed=11)
    drive(state, [MonteCarloBot(time_ms=10, seed=s) for s in range(3)])
    assert state.finished


def test_decisions_stay_within_the_time_allowed():
    mc = MonteCarloBot(time_ms=60, seed=2)  # rounds start within 39 ms
    state = MatchState.new(make_config("blato", hand_cap=1), seed=4)
    bots = [mc, GreedyBot(), GreedyBot()]
    times = []
    while not state.finished:
        seat = state.current_seat
        view = view_of(state, seat)
        t0 = time.perf_counter()
        action = bots[seat].decide(view)
        if seat == 0 and len(view.legal_actions) > 1:
            times.append(time.perf_counter() - t0)
        state.apply(action)
    times.sort()
    assert mc.stats["fallbacks"] == 0
    assert times[len(times) // 2] < 0.060
    assert times[-1] < 0.160  # slack for a loaded machine (other processes share the cores)


def test_trivial_decision_returns_at_once():
    state = MatchState.new(make_config("sergeant-major"), seed=3)
    greedy = GreedyBot()
    while len(state.legal_actions()) != 1:
        state.apply(greedy.decide(view_of(state, state.current_seat)))
    view = view_of(state, state.current_seat)
    mc = MonteCarloBot(time_ms=5000, seed=0)
    t0 = time.perf_counter()
    assert mc.decide(view) == view.legal_actions[0]
    assert time.perf_counter() - t0 < 0.01 and mc.stats["playouts"] == 0


def test_reproducible_when_bounded_by_playouts():
    cfg = make_config("six-contracts", hand_cap=1)
    runs = []
    for _ in range(2):
        mc = MonteCarloBot(time_ms=60_000, seed=7, max_playouts=2)
        actions, _ = drive(MatchState.new(cfg, seed=8), [GreedyBot(), mc, GreedyBot()])
        runs.append(actions)
    assert runs[0] == runs[1]


def test_budget_follows_the_match_time_announced_by_the_sdk():
    mc = MonteCarloBot(time_ms=1000, seed=0, budget_fraction=0.5)
    assert mc.budget_s() == pytest.approx(0.5)
    cfg = make_config()
    mc.on_match_start(MatchInfo("m1", cfg, 0, ("a", "b", "c"), 200))
    mc.on_match_start(MatchInfo("m2", cfg, 1, ("a", "b", "c"), 300))
    assert mc.budget_s() == pytest.approx(0.1)
    mc.on_match_end(MatchEnd("m1", (0, 0, 0), (1, 1, 1), "hand-cap"))
    assert mc.budget_s() == pytest.approx(0.15)


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError):
        MonteCarloBot(time_ms=0)
    with pytest.raises(ValueError):
        MonteCarloBot(budget_fraction=1.5)
