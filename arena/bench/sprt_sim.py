"""Simulated gauntlets for validating the SPRT (:mod:`arena.ratings.sprt`): the false-positive
rate at ``elo = elo0``, the power at ``elo = elo1`` and the average number of blocks to a
decision, under luck models in which the 6 seatings of a duplicate block are correlated.

Luck model ``rho`` (0 <= rho <= 1): a block deals 3 hands; hand ``k`` carries a Gumbel luck
value ``G_k``. In each of the 6 seatings, the bot holding hand ``k`` gets the performance key
``theta + G_k`` with probability ``rho`` (the cards decide), else ``theta`` plus a fresh Gumbel
(play decides); the match placing sorts the keys. Every match on its own is an exact
Plackett-Luce draw (Gumbel-max trick), so ``P(candidate above a field bot) = L(elo)`` exactly
and the truth is known on the ratings' Elo scale, while the matches of a block are correlated
(positively through the candidate's shared strength, negatively through hands changing seats):
``rho = 1`` is pure card luck, which duplicate seating cancels; ``rho = 0`` independent
matches. Used by ``bench/sprt.py`` and the slow tests in ``tests/ratings/test_sprt.py``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..ratings.plackett_luce import ELO_PER_NAT
from ..ratings.sprt import SprtParameters, llr_from_sums

__all__ = ["SimulationSummary", "simulate_block_scores", "simulate_sprt"]

_SEATINGS = np.array(list(itertools.permutations(range(3))))  # seating -> hand of each bot


def simulate_block_scores(elo: float, rho: float, runs: int, blocks: int,
                          rng: np.random.Generator) -> npt.NDArray[np.float64]:
    """Block scores (runs x blocks) of a candidate ``elo`` points above two equal field bots
    (bot 0 = candidate) under luck model ``rho``."""
    theta = np.array([elo / ELO_PER_NAT, 0.0, 0.0])
    hands = rng.gumbel(size=(runs, blocks, 1, 3))                 # luck of hand k
    held = hands[..., _SEATINGS].reshape(runs, blocks, 6, 3)      # bot b holds hand seat[b]
    fresh = rng.gumbel(size=(runs, blocks, 6, 3))
    shared = rng.random(size=(runs, blocks, 6, 3)) < rho
    keys = theta + np.where(shared, held, fresh)
    wins = (keys[..., :1] > keys[..., 1:]).astype(float)          # candidate vs each field bot
    scores: npt.NDArray[np.float64] = wins.mean(axis=(2, 3))
    return scores


@dataclass(frozen=True)
class SimulationSummary:
    """``runs`` simulated tests at true ``elo``: the fraction accepting H1 (``h1_rate``) and
    H0, undecided at the cap, mean / median blocks to the end, and the standard error of
    ``h1_rate``."""

    elo: float
    rho: float
    runs: int
    h1_rate: float
    h0_rate: float
    undecided: float
    mean_blocks: float
    median_blocks: float

    @property
    def h1_se(self) -> float:
        """Monte Carlo standard error of ``h1_rate``."""
        return float(np.sqrt(self.h1_rate * (1 - self.h1_rate) / self.runs))


def simulate_sprt(elo: float, rho: float, params: SprtParameters, runs: int, max_blocks: int,
                  seed: int, chunk: int = 128) -> SimulationSummary:
    """Run ``runs`` gauntlets of at most ``max_blocks`` blocks with the statistic of
    :func:`arena.ratings.sprt.sequential_test` (vectorised over runs)."""
    rng = np.random.default_rng(seed)
    total = np.zeros(runs)
    total_sq = np.zeros(runs)
    done = np.zeros(runs, dtype=bool)
    verdict = np.zeros(runs, dtype=int)          # +1 H1, -1 H0, 0 none
    length = np.full(runs, max_blocks)
    start = 0
    while start < max_blocks and not done.all():
        live = np.flatnonzero(~done)
        k = min(chunk, max_blocks - start)
        x = simulate_block_scores(elo, rho, live.size, k, rng)
        n = start + np.arange(1, k + 1)
        ct = total[live, None] + np.cumsum(x, axis=1)
        cq = total_sq[live, None] + np.cumsum(x * x, axis=1)
        llr, _ = llr_from_sums(n, ct, cq, params)
        hit = (llr >= params.upper) | (llr <= params.lower)
        first = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
        stop = first >= 0
        rows = live[stop]
        verdict[rows] = np.where(llr[stop, first[stop]] >= params.upper, 1, -1)
        length[rows] = start + first[stop] + 1
        done[rows] = True
        total[live], total_sq[live] = ct[:, -1], cq[:, -1]
        start += k
    return SimulationSummary(elo, rho, runs, float(np.mean(verdict == 1)),
                             float(np.mean(verdict == -1)), float(np.mean(verdict == 0)),
                             float(length.mean()), float(np.median(length)))
