"""Simulated tournaments with known Plackett-Luce strengths, for the ratings' calibration and
scheduling benchmarks (``bench/ratings_coverage.py``, ``bench/adaptive.py``) and their slow
tests.

A block is one deal at one table played in all 6 seatings. Luck model ``rho`` (as in
:mod:`arena.bench.sprt_sim`): the deal has 3 hands, hand ``k`` carrying a Gumbel luck value
``G_k``; in each seating the bot holding hand ``k`` gets the performance key ``theta + G_k``
with probability ``rho`` (the cards decide) and ``theta`` plus a fresh Gumbel value otherwise
(play decides). The match places the bots by decreasing key, so every match on its own is an
exact Plackett-Luce draw (Gumbel-max trick) while the 6 matches of a block are correlated.

Ties (``tie``): with probability ``tie`` a match's placing is reported with the first two
places shared, with the same probability with the last two shared (never both), whoever holds
them: a censoring that does not depend on the order, which is exactly what the ratings'
"order unknown" reading of a tie assumes.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from ..ratings import ELO_PER_NAT, MatchResult

__all__ = ["SEATINGS", "simulate_blocks", "simulate_places"]

SEATINGS = np.array(list(itertools.permutations(range(3))))   # seating -> hand of each bot


def simulate_places(theta: np.ndarray, rho: float, tie: float, rng: np.random.Generator
                    ) -> np.ndarray:
    """Places (B, 6, 3) of the 6 seatings of B blocks whose bots have log-strengths ``theta``
    (B, 3): ``places[b, s, j]`` is the place (1-3, competition ranking) of bot ``j`` of
    block ``b`` in seating ``s``."""
    theta = np.asarray(theta, dtype=float)
    b = len(theta)
    hands = rng.gumbel(size=(b, 1, 3))
    held = np.take_along_axis(np.broadcast_to(hands, (b, 6, 3)),
                              np.broadcast_to(SEATINGS, (b, 6, 3)), axis=2)
    fresh = rng.gumbel(size=(b, 6, 3))
    keys = theta[:, None, :] + np.where(rng.random((b, 6, 3)) < rho, held, fresh)
    rank = np.argsort(np.argsort(-keys, axis=2), axis=2)          # 0 = first
    places = rank + 1
    if tie:
        u = rng.random((b, 6))
        top = u < tie                                               # first two share 1st
        bottom = (u >= tie) & (u < 2 * tie)                         # last two share 2nd
        places = np.where(top[..., None] & (rank == 1), 1, places)
        places = np.where(bottom[..., None] & (rank == 2), 2, places)
    return places


def simulate_blocks(truth: Mapping[str, float], blocks: Sequence[Sequence[str]],
                    rng: np.random.Generator, *, rho: float = 0.0, tie: float = 0.0,
                    first: int = 0) -> list[MatchResult]:
    """The 6 matches of each block of ``blocks`` (each a table of 3 bot names; a table may
    come again), with Elo ratings ``truth``; block ids ``"b{k}"`` from ``k = first``."""
    if not blocks:
        return []
    names = np.array([list(t) for t in blocks])
    theta = np.vectorize(lambda n: truth[n] / ELO_PER_NAT)(names)
    places = simulate_places(theta, rho, tie, rng)
    out = []
    for k, table in enumerate(names.tolist()):
        block = f"b{first + k}"
        for s, perm in enumerate(SEATINGS.tolist()):
            a, b, c = perm
            out.append(MatchResult((table[a], table[b], table[c]),
                                   (int(places[k, s, a]), int(places[k, s, b]),
                                    int(places[k, s, c])), block))
    return out
