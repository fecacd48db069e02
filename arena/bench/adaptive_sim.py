"""Adaptive against balanced scheduling in simulation: how many matches until a question is
settled, with both designs checked at the same moments (``bench/adaptive.py``).

A run plays rounds of blocks on a simulated field (:mod:`.ratings_sim`, known Plackett-Luce
strengths): round 1 is a balanced schedule's tables (:func:`arena.tournament.balanced.
balanced_tables`, every pair meets once) for both designs; every later round has as many
blocks, the same tables again with new deals (``balanced``) or the tables
:func:`arena.ratings.adaptive.next_tables` chooses (``adaptive``). After each round the
results are rated with :func:`arena.ratings.rate` and the run stops when its question is
settled:

* ``top``: the best 3 bots in order with 95% confidence: the 95% intervals of rank 1 minus
  rank 2, rank 2 minus rank 3, and rank 3 minus every other bot all lie above 0;
* ``widest``: every bot's 95% interval is at most ``width`` Elo points wide.

Recorded per run: matches played, whether the settled answer is right (``top``: the true best
3 in the true order), and whether each bot's interval holds its true rating at the stop
(coverage under each design).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..ratings import MatchResult, rate
from ..ratings.adaptive import next_tables
from ..tournament.balanced import balanced_tables
from .ratings_sim import simulate_blocks

__all__ = ["RunOutcome", "run"]


@dataclass(frozen=True)
class RunOutcome:
    """One run: ``matches`` at the stop (or at the cap, ``settled`` False), whether the
    answer is right, and per bot whether its interval held the truth at the stop."""

    matches: int
    settled: bool
    right: bool
    covered: tuple[bool, ...]


def _settled(report: object, target: str, width: float) -> bool:
    from ..ratings.report import RatingReport
    if not isinstance(report, RatingReport):
        raise TypeError("a RatingReport is needed")
    names = report.names
    if target == "widest":
        return all(b.ci_low is not None and b.ci_high is not None
                   and b.ci_high - b.ci_low <= width for b in report.bots)
    checks = [(names[0], names[1]), (names[1], names[2])]
    checks += [(names[2], other) for other in names[3:]]
    for a, b in checks:
        low = report.difference_of(a, b).ci_low
        if low is None or low <= 0:
            return False
    return True


def run(truth: Mapping[str, float], design: str, target: str, seed: int, *,
        width: float = 100.0, max_rounds: int = 200, rho: float = 0.5,
        tie: float = 0.1) -> RunOutcome:
    """One run of ``design`` (``"balanced"`` or ``"adaptive"``) on the field ``truth`` until
    ``target`` (``"top"`` or ``"widest"``) is settled or ``max_rounds`` rounds are played.

    Raises:
        ValueError: an unknown design or target.
    """
    if design not in ("balanced", "adaptive") or target not in ("top", "widest"):
        raise ValueError(f"unknown design {design!r} or target {target!r}")
    bots = sorted(truth)
    warm = balanced_tables(bots, 1, seed)
    rng = np.random.default_rng(seed)
    results: list[MatchResult] = []
    blocks = 0
    round_tables = list(warm)
    report = None
    for _ in range(max_rounds):
        results += simulate_blocks(truth, round_tables, rng, rho=rho, tie=tie, first=blocks)
        blocks += len(round_tables)
        report = rate(results, bootstrap=1)
        if _settled(report, target, width):
            break
        round_tables = list(warm) if design == "balanced" else next_tables(
            results, bots, len(warm), target=target, seed=seed, warm_up=warm)
    if report is None:      # never: max_rounds >= 1
        raise ValueError("max_rounds must be >= 1")
    settled = _settled(report, target, width)
    true_order = sorted(bots, key=lambda n: -truth[n])
    right = list(report.names[:3]) == true_order[:3] if target == "top" else True
    anchor = [n for n in bots if report.bot(n).one_sided is None] or bots
    centre = float(np.mean([truth[n] for n in anchor]))
    covered = []
    for n in bots:
        b = report.bot(n)
        true = truth[n] - centre + 1500.0
        covered.append((b.ci_low is None or b.ci_low <= true)
                       and (b.ci_high is None or true <= b.ci_high))
    return RunOutcome(len(results), settled, right, tuple(covered))
