"""Engine benchmark: random matches through the public, checked API.

Each decision costs one ``legal_actions()`` call, one uniform choice and one checked
``apply()`` — what a tournament or a Monte Carlo playout pays. Also measures the simulation
fast path: ``copy()`` and ``sample_state()`` (determinization).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from ..rules import MatchState, make_config
from ..rules.sample import sample_state
from ..rules.view import view_of


@dataclass(frozen=True)
class EngineFigures:
    """Results of :func:`bench_engine`; times in seconds, rates per second."""

    preset: str
    matches: int
    hands: int
    decisions: int
    seconds: float
    copy_us: float
    sample_us: float

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.seconds

    @property
    def us_per_decision(self) -> float:
        return self.seconds / self.decisions * 1e6

    def lines(self) -> list[str]:
        """Human-readable report lines."""
        return [
            f"engine benchmark, preset {self.preset}: {self.matches} random matches, "
            f"{self.hands} hands, {self.decisions} decisions in {self.seconds:.2f} s",
            f"  {self.hands_per_s:,.0f} hands/s   {self.us_per_decision:.2f} us/decision "
            f"(legal_actions + choice + checked apply)",
            f"  state.copy(): {self.copy_us:.2f} us   sample_state(view): {self.sample_us:.1f} us",
        ]


def bench_engine(preset: str = "sergeant-major", matches: int = 300, seed: int = 1) -> EngineFigures:
    """Play ``matches`` random matches of ``preset`` and time them (one core, wall clock).

    Raises:
        RulesConfigError: unknown preset.
    """
    cfg = make_config(preset)
    rng = random.Random(seed)
    choice = rng.choice
    hands = decisions = 0
    t0 = time.perf_counter()
    for m in range(matches):
        s = MatchState.new(cfg, seed=m)
        legal_actions, apply = s.legal_actions, s.apply
        while not s.finished:
            apply(choice(legal_actions()))
            decisions += 1
        hands += s.hand_number
    seconds = time.perf_counter() - t0
    s = MatchState.new(cfg, seed=0)
    for _ in range(60):
        s.apply(choice(s.legal_actions()))
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n):
        s.copy()
    copy_us = (time.perf_counter() - t0) / n * 1e6
    v = view_of(s, s.current_seat)
    n = 300
    t0 = time.perf_counter()
    for _ in range(n):
        sample_state(v, rng)
    sample_us = (time.perf_counter() - t0) / n * 1e6
    return EngineFigures(preset, matches, hands, decisions, seconds, copy_us, sample_us)
