"""Coverage of the ratings' 95% intervals in simulation: tournaments from known Plackett-Luce
strengths (:mod:`.ratings_sim`) on fixed schedules and on adaptive ones
(:func:`arena.ratings.adaptive.next_tables`, after a balanced first round), rated with
:func:`arena.ratings.rate`, counting how often each interval holds the truth (a bot: the
truth centred like the ratings, mean 1500 over the bots that are not one-sided; a difference:
the true difference). A one-sided bot's bound (``> low`` or ``< high``) counts as its
interval. Used by ``bench/ratings_coverage.py`` and the slow test in
``tests/ratings/test_ratings_coverage.py``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..ratings import MatchResult, rate
from ..ratings.adaptive import next_tables
from ..tournament.balanced import balanced_tables
from .ratings_sim import simulate_blocks

__all__ = ["Coverage", "Setting", "measure", "settings", "spread"]

Blocks = list[tuple[str, str, str]]


def spread(n: int, low: float = 1300.0, high: float = 1700.0) -> dict[str, float]:
    """``n`` bots ``b00``, ``b01``, ... rated evenly from ``low`` to ``high``."""
    return {f"b{k:02d}": low + (high - low) * k / (n - 1) for k in range(n)}


@dataclass(frozen=True)
class Setting:
    """A simulated tournament: the truth, the blocks played (tables, one per block), a
    label, the luck model. With ``adaptive`` (a target of :func:`arena.ratings.adaptive.
    next_tables`), ``blocks`` is the first round only and ``rounds - 1`` more rounds of as
    many blocks follow, each chosen by ``next_tables`` from the results so far."""

    label: str
    truth: dict[str, float]
    blocks: Blocks
    rho: float = 0.5
    tie: float = 0.1
    adaptive: str | None = None
    rounds: int = 1

    def play(self, rng: np.random.Generator) -> list[MatchResult]:
        """One tournament's results."""
        results = simulate_blocks(self.truth, self.blocks, rng, rho=self.rho, tie=self.tie)
        for r in range(1, self.rounds):
            if self.adaptive is None:
                break
            tables = next_tables(results, sorted(self.truth), len(self.blocks),
                                 target=self.adaptive, warm_up=self.blocks)
            results += simulate_blocks(self.truth, tables, rng, rho=self.rho, tie=self.tie,
                                       first=r * len(self.blocks))
        return results

    @property
    def blocks_per_bot(self) -> int:
        """Blocks of the bot that plays fewest (adaptive: on average)."""
        if self.adaptive:
            return round(3 * len(self.blocks) * self.rounds / len(self.truth))
        return min(sum(name in t for t in self.blocks) for name in self.truth)


def settings(rho: float = 0.5, tie: float = 0.1) -> list[Setting]:
    """The grid of docs/ratings.md: one table, balanced schedules of 7, 9 and 21 bots, all
    tables of 7 bots, from 3 to 20 blocks per bot."""
    out = []
    three = {"A": 1700.0, "B": 1500.0, "C": 1300.0}
    for g in (3, 5, 10, 20):
        out.append(Setting(f"one table, {g} deals", three, [("A", "B", "C")] * g, rho, tie))
    for n, deal_counts in ((7, (1, 2, 4, 6)), (9, (1, 2, 5)), (21, (1, 2))):
        truth = spread(n)
        tables = balanced_tables(sorted(truth), 1, 1)
        for d in deal_counts:
            out.append(Setting(f"balanced, {n} bots x {d} deal{'s' if d > 1 else ''}", truth,
                               tables * d, rho, tie))
    truth = spread(7)
    out.append(Setting("all tables, 7 bots x 1 deal", truth,
                       list(itertools.combinations(sorted(truth), 3)), rho, tie))
    for n, rounds in ((9, 2), (9, 5), (21, 2)):
        truth = spread(n)
        for target in ("top", "widest"):
            out.append(Setting(f"adaptive ({target}), {n} bots x {rounds} rounds", truth,
                               balanced_tables(sorted(truth), 1, 1), rho, tie, target, rounds))
    return out


@dataclass(frozen=True)
class Coverage:
    """Hits per bot (name -> covered count) and over all differences, out of ``reps``
    tournaments; mean interval widths (Elo, two-sided intervals only)."""

    reps: int
    bot_hits: dict[str, int]
    diff_hits: int
    diff_trials: int
    bot_width: float
    diff_width: float

    @property
    def pooled(self) -> float:
        """Coverage over every bot of every tournament."""
        return sum(self.bot_hits.values()) / (self.reps * len(self.bot_hits))

    @property
    def differences(self) -> float:
        """Coverage over every pair of every tournament."""
        return self.diff_hits / self.diff_trials

    def worst(self) -> tuple[str, float]:
        """The bot covered least often, and its coverage."""
        name = min(self.bot_hits, key=lambda n: (self.bot_hits[n], n))
        return name, self.bot_hits[name] / self.reps


def _inside(low: float | None, high: float | None, true: float) -> bool:
    return (low is None or low <= true) and (high is None or true <= high)


def measure(setting: Setting, reps: int, seed: int) -> Coverage:
    """Rate ``reps`` tournaments of ``setting`` (tournament ``k`` drawn from
    ``default_rng([seed, k])``) and count the intervals that hold the truth."""
    names = sorted(setting.truth)
    bot_hits = dict.fromkeys(names, 0)
    diff_hits = diff_trials = 0
    widths: list[float] = []
    diff_widths: list[float] = []
    for k in range(reps):
        results = setting.play(np.random.default_rng([seed, k]))
        report = rate(results, bootstrap=1)   # the intervals do not depend on the resamples
        anchor = [n for n in names if report.bot(n).one_sided is None] or names
        centre = float(np.mean([setting.truth[n] for n in anchor]))
        for n in names:
            b = report.bot(n)
            bot_hits[n] += _inside(b.ci_low, b.ci_high, setting.truth[n] - centre + 1500.0)
            if b.ci_low is not None and b.ci_high is not None:
                widths.append(b.ci_high - b.ci_low)
        for a, b_name in itertools.combinations(names, 2):
            d = report.difference_of(a, b_name)
            diff_hits += _inside(d.ci_low, d.ci_high, setting.truth[a] - setting.truth[b_name])
            diff_trials += 1
            if d.ci_low is not None and d.ci_high is not None:
                diff_widths.append(d.ci_high - d.ci_low)
    return Coverage(reps, bot_hits, diff_hits, diff_trials, float(np.mean(widths)),
                    float(np.mean(diff_widths)))
