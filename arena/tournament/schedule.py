"""The round-robin schedule: a pure function of the bot names, deals per table and seed.

Every 3-bot table of the N >= 3 bots (``C(N, 3)`` tables) plays ``deals_per_table`` deals; each
deal is played in all 6 seatings (3! permutations: every bot deals first, i.e. sits in seat 0,
twice), the 6 matches forming one duplicate **block** (DESIGN.md; the ACPC 3-player duplicate).
A deal's seed is SHA-256 of (tournament seed, table's bot names, deal index), so the same cards
come in every seating; since every hand's deal derives from the match seed, later hands are
duplicated too (their play diverges after hand 1 through the exchanges).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ..rules.deal import derive_seed

SEATINGS = tuple(itertools.permutations(range(3)))


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    """One match of the schedule.

    Attributes:
        match_id: ``"t{table:03d}-d{deal:04d}-s{seating}"`` (sortable, unique).
        block_id: ``"t{table:03d}-d{deal:04d}"``: the duplicate block.
        table, deal, seating: indexes (0-based); seats: bot names by seat 0..2.
        seed: the match seed (32 bytes, hex in the store).
    """

    match_id: str
    block_id: str
    table: int
    deal: int
    seating: int
    seats: tuple[str, str, str]
    seed: bytes


def tables(bots: Sequence[str]) -> list[tuple[str, str, str]]:
    """All 3-bot tables in config order (``itertools.combinations``).

    Raises:
        ValueError: fewer than 3 bots or repeated names.
    """
    if len(bots) < 3 or len(set(bots)) != len(bots):
        raise ValueError("a schedule needs at least 3 distinct bots")
    return list(itertools.combinations(bots, 3))


def make_schedule(bots: Sequence[str], deals_per_table: int,
                  seed: int | str | bytes) -> list[ScheduledMatch]:
    """The full schedule, ordered by deal, then table, then seating, so that an interrupted
    tournament has played whole rounds of every table rather than all deals of one table.

    Size: ``C(N, 3) * deals_per_table * 6`` matches.
    """
    out = []
    tabs = tables(bots)
    for d in range(deals_per_table):
        for t, table in enumerate(tabs):
            deal_seed = derive_seed(seed, "table", *table, "deal", d)
            block = f"t{t:03d}-d{d:04d}"
            for k, perm in enumerate(SEATINGS):
                seats = (table[perm[0]], table[perm[1]], table[perm[2]])
                out.append(ScheduledMatch(f"{block}-s{k}", block, t, d, k, seats, deal_seed))
    return out
