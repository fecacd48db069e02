"""Engine benchmark: random matches through the public, checked API.

Each decision costs one ``legal_actions()`` call, one uniform choice and one checked
``apply()`` — what a tournament or a Monte Carlo playout pays. The same process also runs the
minimal bitmask trick-play loop (:mod:`arena.bench.minimal_loop`), alternating with the engine
in rounds so a loaded machine slows both alike, and reports the ratio of hands/s (the target:
>= 0.7, a machine-independent figure). Also measures the simulation fast path: ``copy()`` and
``MatchState.from_view()`` (determinization).
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from ..rules import MatchState, make_config
from . import minimal_loop
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
    minimal_hands: int = 0
    minimal_seconds: float = 0.0
    #: per round, engine hands/s over minimal-loop hands/s, both in CPU time of this process
    round_ratios: tuple[float, ...] = ()

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.seconds

    @property
    def minimal_hands_per_s(self) -> float:
        """Hands/s of the minimal loop (0 when not measured)."""
        return self.minimal_hands / self.minimal_seconds if self.minimal_seconds else 0.0

    @property
    def ratio(self) -> float:
        """Engine hands/s over the minimal loop's: the median of the rounds' ratios in CPU
        time (robust to a loaded machine; 0 when not measured)."""
        return statistics.median(self.round_ratios) if self.round_ratios else 0.0

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
            f"  minimal bitmask loop (follow suit only, no exchange, no checks): "
            f"{self.minimal_hands_per_s:,.0f} hands/s",
            f"  ratio engine / minimal loop: {self.ratio:.2f} (target >= 0.70; median of "
            f"{len(self.round_ratios)} alternating rounds, CPU time)",
            f"  state.copy(): {self.copy_us:.2f} us   from_view(view): {self.sample_us:.1f} us",
        ]


def bench_engine(preset: str = "sergeant-major", matches: int = 300, seed: int = 1,
                 rounds: int = 10) -> EngineFigures:
    """Play ``matches`` random matches of ``preset`` and time them (one core, wall clock),
    in ``rounds`` rounds alternating with as many hands of the minimal loop.

    Raises:
        RulesConfigError: unknown preset.
    """
    cfg = make_config(preset)
    rng = random.Random(seed)
    choice = rng.choice
    hands = decisions = minimal_hands = 0
    seconds = minimal_seconds = 0.0
    round_ratios: list[float] = []
    per_round = max(1, matches // rounds)
    done = 0
    while done < matches:
        t0, c0 = time.perf_counter(), time.process_time()
        round_hands = 0
        for m in range(done, min(matches, done + per_round)):
            s = MatchState.new(cfg, seed=m)
            legal_actions, apply = s.legal_actions, s.apply
            while not s.finished:
                apply(choice(legal_actions()))
            decisions += len(s.actions)
            round_hands += s.hand_number
        seconds += time.perf_counter() - t0
        engine_cpu = time.process_time() - c0
        hands += round_hands
        done += per_round
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(round_hands):
            minimal_loop.play_hand(rng)
        minimal_seconds += time.perf_counter() - t0
        minimal_cpu = time.process_time() - c0
        minimal_hands += round_hands
        if engine_cpu > 0:
            round_ratios.append(minimal_cpu / engine_cpu)
    s = MatchState.new(cfg, seed=0)
    for _ in range(60):
        s.apply(choice(s.legal_actions()))
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n):
        s.copy()
    copy_us = (time.perf_counter() - t0) / n * 1e6
    v = view_of(s, s.current_seat if s.current_seat is not None else 0)
    n = 300
    t0 = time.perf_counter()
    for _ in range(n):
        MatchState.from_view(v, rng)
    sample_us = (time.perf_counter() - t0) / n * 1e6
    return EngineFigures(preset, matches, hands, decisions, seconds, copy_us, sample_us,
                         minimal_hands, minimal_seconds, tuple(round_ratios))
