"""The live page's ETA: the time left, as a range, from each pending match's expected cost.

Extrapolating the recent pace fails when tables differ: six quick matches of fast bots say
nothing of a table with a slow one (issue seen: "ETA 7 s" when the rest took 2.5 min). So each
pending match is costed by who plays it:

- a bot's **think time per decision** (ms): its think time over its decisions in the
  finished matches (the store's per-seat ``think_ms`` and ``decisions``);
- the arena's **overhead per decision** (ms): the median over finished matches of (wall time
  minus the seats' think time) per decision;
- **decisions per match**: the mean of the finished matches of the same three bots, else of
  all finished matches (hands per match vary with the rules and the play, not the seating);
- a pending match's expected wall time = decisions x (overhead + the mean think time per
  decision of its three bots); the sum over pending matches is divided by the parallelism
  seen so far (the finished matches' wall time over the span they covered).

The range comes from the model's own error on the finished matches: the 10th and 90th
percentiles of (actual wall time / expected wall time). Nothing is shown before
:data:`MIN_FINISHED` matches have finished; a pending match with a bot not yet measured makes
the estimate a lower bound (its think time counted as the fastest measured bot's).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

#: finished matches before an ETA is shown
MIN_FINISHED = 3


@dataclass(frozen=True)
class Finished:
    """A finished match: its bots by seat, decisions and think time (ms) by seat, and its
    start and end (seconds, any common origin)."""

    seats: tuple[str, str, str]
    decisions: tuple[int, int, int]
    think_ms: tuple[float, float, float]
    started: float
    ended: float

    @property
    def wall_s(self) -> float:
        return max(0.0, self.ended - self.started)


@dataclass(frozen=True)
class Eta:
    """Seconds left, as a range ``low_s`` .. ``high_s``; ``lower_bound``: some pending bot
    was never measured (the real figure may be larger); ``unmeasured``: those bots."""

    low_s: float
    high_s: float
    lower_bound: bool = False
    unmeasured: tuple[str, ...] = ()


def estimate(finished: Sequence[Finished], pending: Sequence[tuple[str, str, str]]
             ) -> Eta | None:
    """The ETA of ``pending`` matches (their bots by seat) given the ``finished`` ones;
    ``Eta(0, 0)`` when nothing is pending, None while fewer than :data:`MIN_FINISHED`
    matches have finished (or none took any time)."""
    if not pending:
        return Eta(0.0, 0.0)
    if len(finished) < MIN_FINISHED:
        return None
    per_bot = _think_per_decision(finished)
    overhead = statistics.median(
        max(0.0, f.wall_s * 1000 - sum(f.think_ms)) / max(1, sum(f.decisions))
        for f in finished)
    fastest = min(per_bot.values(), default=0.0)

    def expected_s(seats: tuple[str, str, str]) -> float:
        n = _decisions_per_match(finished, seats)
        think = statistics.fmean(per_bot.get(b, fastest) for b in seats)
        return n * (overhead + think) / 1000

    span = max(f.ended for f in finished) - min(f.started for f in finished)
    walls = sum(f.wall_s for f in finished)
    if span <= 0 or walls <= 0:
        return None
    parallel = max(1.0, walls / span)
    ratios = sorted(f.wall_s / e for f in finished if (e := expected_s(f.seats)) > 0)
    if not ratios:
        return None
    left = sum(expected_s(p) for p in pending) / parallel
    unmeasured = tuple(sorted({b for p in pending for b in p} - per_bot.keys()))
    return Eta(left * _quantile(ratios, 0.1), left * _quantile(ratios, 0.9),
               bool(unmeasured), unmeasured)


def _think_per_decision(finished: Sequence[Finished]) -> dict[str, float]:
    ms: dict[str, float] = {}
    n: dict[str, int] = {}
    for f in finished:
        for bot, d, t in zip(f.seats, f.decisions, f.think_ms, strict=True):
            ms[bot] = ms.get(bot, 0.0) + t
            n[bot] = n.get(bot, 0) + d
    return {b: ms[b] / n[b] for b in ms if n[b]}


def _decisions_per_match(finished: Sequence[Finished], seats: tuple[str, str, str]) -> float:
    same = [sum(f.decisions) for f in finished if sorted(f.seats) == sorted(seats)]
    return statistics.fmean(same or [sum(f.decisions) for f in finished])


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``sorted_values`` (linear between the two nearest)."""
    pos = q * (len(sorted_values) - 1)
    i = int(pos)
    if i + 1 >= len(sorted_values):
        return sorted_values[-1]
    return sorted_values[i] + (sorted_values[i + 1] - sorted_values[i]) * (pos - i)
