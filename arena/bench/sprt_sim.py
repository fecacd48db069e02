"""Simulated gauntlets for validating the SPRT (:mod:`arena.ratings.sprt`): the false-positive
rate at ``elo = elo0``, the power at ``elo = elo1`` and the average number of blocks to a
decision, under luck models in which the 6 seatings of a duplicate block are correlated.

One table: the candidate (bot 0) and two field bots whose ratings are ``field`` (default both
0: equal), the candidate ``elo`` points above the field's mean, so the truth is known on the
ratings' scale (the Plackett-Luce difference). Luck model ``rho`` and ties ``tie`` as in
:mod:`.ratings_sim` (every match on its own an exact Plackett-Luce draw, ties a censoring that
does not depend on the order). ``rho = 1`` is pure card luck, which duplicate seating cancels;
``rho = 0`` independent matches. Used by ``bench/sprt.py`` and the slow tests in
``tests/ratings/test_sprt.py``.

The statistic is :func:`arena.ratings.sprt.llr_arrays` itself, evaluated after every block for
all runs still going (vectorised over runs), exactly as the gauntlet evaluates it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..ratings import ELO_PER_NAT, MatchResult
from ..ratings.plackett_luce import Patterns, encode
from ..ratings.sprt import CONTINUE, H0, H1, SprtParameters, decisions, llr_arrays
from .ratings_sim import simulate_places

__all__ = ["SimulationSummary", "placing_patterns", "simulate_block_counts", "simulate_sprt"]


def placing_patterns() -> tuple[Patterns, dict[tuple[int, int, int], int]]:
    """The 13 placings of bots 0, 1, 2 as patterns, and the pattern of each placing."""
    placings: list[tuple[int, int, int]] = sorted(
        {(a, b, c) for s in [(1, 2, 3), (1, 1, 3), (1, 2, 2), (1, 1, 1)]
         for a, b, c in itertools.permutations(s)})
    results = [MatchResult(("a", "b", "c"), p, "x") for p in placings]
    patterns = encode(results, {"a": 0, "b": 1, "c": 2})
    return patterns, {p: int(k) for p, k in zip(placings, patterns.of_match, strict=True)}


_PATTERNS, _OF_PLACING = placing_patterns()
_CODE = np.zeros((4, 4, 4), dtype=np.intp)
for _placing, _k in _OF_PLACING.items():
    _CODE[_placing] = _k


def simulate_block_counts(elo: float, rho: float, runs: int, rng: np.random.Generator, *,
                          field: tuple[float, float] = (0.0, 0.0), tie: float = 0.0
                          ) -> npt.NDArray[np.float64]:
    """Pattern counts (runs, 13) of one block per run: the candidate ``elo`` points above the
    mean of the two field bots (rated ``field``, Elo)."""
    mean = (field[0] + field[1]) / 2
    theta = np.array([mean + elo, field[0], field[1]]) / ELO_PER_NAT
    places = simulate_places(np.broadcast_to(theta, (runs, 3)), rho, tie, rng)   # (runs, 6, 3)
    codes = _CODE[places[..., 0], places[..., 1], places[..., 2]]                # (runs, 6)
    counts = np.zeros((runs, len(_PATTERNS.players)))
    np.add.at(counts, (np.repeat(np.arange(runs), 6), codes.ravel()), 1.0)
    return counts


@dataclass(frozen=True)
class SimulationSummary:
    """``runs`` simulated tests at true ``elo``: the fraction accepting H1 (``h1_rate``) and
    H0, undecided at the cap (or stopped by zero variance), mean / median blocks to the end,
    and the mean estimate at the end (Elo)."""

    elo: float
    rho: float
    runs: int
    h1_rate: float
    h0_rate: float
    undecided: float
    mean_blocks: float
    median_blocks: float
    mean_estimate: float = 0.0

    @property
    def h1_se(self) -> float:
        """Monte Carlo standard error of ``h1_rate``."""
        return float(np.sqrt(self.h1_rate * (1 - self.h1_rate) / self.runs))


def simulate_sprt(elo: float, rho: float, params: SprtParameters, runs: int, max_blocks: int,
                  seed: int, *, field: tuple[float, float] = (0.0, 0.0),
                  tie: float = 0.0) -> SimulationSummary:
    """Run ``runs`` gauntlets of at most ``max_blocks`` blocks with the statistic of the
    gauntlet (:func:`arena.ratings.sprt.llr_arrays`, one evaluation per block)."""
    rng = np.random.default_rng(seed)
    p = len(_PATTERNS.players)
    counts = np.zeros((runs, p))
    second = np.zeros((runs, p, p))
    theta = np.zeros((runs, 3))
    verdict = np.zeros(runs, dtype=int)          # +1 H1, -1 H0, 0 none
    length = np.full(runs, max_blocks)
    estimate = np.zeros(runs)
    live = np.arange(runs)
    for k in range(1, max_blocks + 1):
        m = simulate_block_counts(elo, rho, live.size, rng, field=field, tie=tie)
        counts[live] += m
        second[live] += m[:, :, None] * m[:, None, :]
        arr = llr_arrays(_PATTERNS, counts[live], second[live], np.full(live.size, float(k)),
                         params, theta0=theta[live])
        theta[live] = arr.theta
        estimate[live] = arr.d_hat * ELO_PER_NAT
        code, _ = decisions(arr, k, params)
        stop = code != CONTINUE
        verdict[live[stop]] = np.where(code[stop] == H1, 1, np.where(code[stop] == H0, -1, 0))
        length[live[stop]] = k
        live = live[~stop]
        if live.size == 0:
            break
    return SimulationSummary(elo, rho, runs, float(np.mean(verdict == 1)),
                             float(np.mean(verdict == -1)), float(np.mean(verdict == 0)),
                             float(length.mean()), float(np.median(length)),
                             float(estimate.mean()))
