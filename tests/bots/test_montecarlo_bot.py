"""MonteCarloBot: legal with small budgets in every preset, within its time, reproducible
when bounded by playouts instead of time."""

from __future__ import annotations


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


class _Clock:
    """A fake ``time`` for the bot: ``perf_counter()`` advances ``step_s`` at each call (its
    time checks, deterministic whatever the machine's load)."""

    def __init__(self, step_s: float) -> None:
        self.now, self.step_s = 0.0, step_s

    def perf_counter(self) -> float:
        self.now += self.step_s
        return self.now


def _play_timed(monkeypatch, step_s: float) -> tuple[MonteCarloBot, list[float]]:
    """A blato hand, the Monte Carlo bot (60 ms a decision) against two greedy bots, on the
    fake clock; the bot's elapsed clock per decision with a choice."""
    import sample_bots.montecarlo_bot as mcmod
    clock = _Clock(step_s)
    monkeypatch.setattr(mcmod, "time", clock)
    mc = MonteCarloBot(time_ms=60, seed=2)
    state = MatchState.new(make_config("blato", hand_cap=1), seed=4)
    bots = [mc, GreedyBot(), GreedyBot()]
    spent = []
    while not state.finished:
        seat = state.current_seat
        view = view_of(state, seat)
        t0 = clock.now
        action = bots[seat].decide(view)
        if seat == 0 and len(view.legal_actions) > 1:
            spent.append(clock.now - t0)
        assert action in view.legal_actions
        state.apply(action)
    return mc, spent


def test_decisions_stay_within_the_time_allowed(monkeypatch):
    """Rounds start only before 65% of the 60 ms and a started round stops at it once one is
    complete: every decision ends by 39 ms plus the clock's first reading and one check
    past the deadline (0.5 ms each here), with playouts and no fallback."""
    step = 0.0005
    mc, spent = _play_timed(monkeypatch, step)
    assert spent and mc.stats["fallbacks"] == 0 and mc.stats["playouts"] > len(spent)
    assert max(spent) <= 0.060 * 0.65 + 2 * step + 1e-9


def test_a_first_round_past_the_hard_limit_falls_back_to_the_greedy_choice(monkeypatch):
    """A machine so slow that a single playout outlasts the time (30 ms a clock check): the
    first round is abandoned at 85% of the time (plus the clock's first reading and one
    check past it) and the greedy choice played, legal."""
    step = 0.030
    mc, spent = _play_timed(monkeypatch, step)
    assert mc.stats["fallbacks"] == len(spent) > 0
    assert max(spent) <= 0.060 * 0.85 + 2 * step + 1e-9


def test_trivial_decision_returns_at_once():
    state = MatchState.new(make_config("sergeant-major"), seed=3)
    greedy = GreedyBot()
    while len(state.legal_actions()) != 1:
        state.apply(greedy.decide(view_of(state, state.current_seat)))
    view = view_of(state, state.current_seat)
    mc = MonteCarloBot(time_ms=5000, seed=0)
    assert mc.decide(view) == view.legal_actions[0]
    assert mc.stats["playouts"] == 0 and mc.stats["decisions"] == 0   # no search at all


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
