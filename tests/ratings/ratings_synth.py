"""Synthetic match results drawn from a known Plackett-Luce model (test helper, not a test)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from arena.ratings import ELO_PER_NAT, MatchResult


def draw_places(ratings: Sequence[float], rng: np.random.Generator) -> tuple[int, int, int]:
    """Places of 3 bots with Elo ``ratings`` under PL (Gumbel-max trick: sorting
    ``theta + Gumbel noise`` in decreasing order samples a PL ordering exactly)."""
    theta = np.asarray(ratings, dtype=float) / ELO_PER_NAT
    keys = theta + rng.gumbel(size=3)
    order = np.argsort(-keys)
    places = [0, 0, 0]
    for pos, slot in enumerate(order):
        places[slot] = pos + 1
    return (places[0], places[1], places[2])


def simulate(
    truth: Mapping[str, float],
    tables: Sequence[tuple[str, str, str]],
    deals_per_table: int,
    rng: np.random.Generator,
) -> list[MatchResult]:
    """Duplicate blocks: every table plays ``deals_per_table`` deals in all 6 seatings.

    Each match's placing is an independent PL draw (the model has no seat or deal effect).
    """
    results = []
    for t, table in enumerate(tables):
        for d in range(deals_per_table):
            block = f"t{t}-d{d}"
            for seating in itertools.permutations(table):
                places = draw_places([truth[name] for name in seating], rng)
                results.append(MatchResult(tuple(seating), places, block))
    return results


THREE = {"A": 1700.0, "B": 1500.0, "C": 1300.0}
FOUR = {"W": 1650.0, "X": 1550.0, "Y": 1450.0, "Z": 1350.0}
FOUR_TABLES = list(itertools.combinations(sorted(FOUR), 3))
