"""Which table a league plays next: a pure function of the roster and the blocks played.

A league has no fixed schedule: bots arrive (a new version), leave (retired), and the league
runs for days. Every step plays one whole duplicate block (one deal in all 6 seatings) at the
table :func:`next_table` picks:

1. **a new version is rated quickly** (as fishtest and CodinGame players ask): while a version
   has played fewer than ``first_blocks`` blocks it is *provisional*, and the next table is the
   newest provisional version with the two bots it has met least (a spread of opponents,
   settled ones first, since their ratings anchor it);
2. **then the balanced fill**: a table of the bots that played least (the fewest blocks for
   the most-played of its three), among those the one whose pairs met least (the sum, then
   the most-met pair), then the table not played for longest. Every bot then plays as many
   blocks as every other (within one) and pair meetings stay within two of each other
   (checked over 6 to 13 bots in the tests), close to the balanced schedules of ``arena run``
   (:mod:`arena.tournament.balanced`), which a greedy choice cannot always match.

Ties are broken by the bots' names (deterministic: the same league history gives the same
next table).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

Table = tuple[str, str, str]


@dataclass(frozen=True)
class History:
    """What the choice reads of the blocks played (or started): each block's table, in the
    order they were started."""

    tables: tuple[Table, ...] = ()

    def blocks(self) -> Counter[str]:
        """Blocks per bot."""
        return Counter(b for t in self.tables for b in t)

    def pairs(self) -> Counter[frozenset[str]]:
        """Blocks per pair of bots."""
        return Counter(frozenset(p) for t in self.tables for p in itertools.combinations(t, 2))

    def last_seen(self) -> dict[frozenset[str], int]:
        """Per table (as a set), the index of its last block (absent: never played)."""
        return {frozenset(t): i for i, t in enumerate(self.tables)}


def next_table(roster: Sequence[str], history: History, *, first_blocks: int = 5
               ) -> Table | None:
    """The table of the next block (see the module docstring), its bots in roster order;
    None when the roster has fewer than 3 bots.

    Args:
        roster: the active bots, oldest first (the last is the newest version).
        history: the blocks played so far (of any bots, retired ones included).
        first_blocks: blocks a new version plays before it joins the balanced fill (>= 0).

    >>> h = History((("a", "b", "c"),))
    >>> next_table(["a", "b", "c", "d"], h, first_blocks=1)     # d is new: rated first
    ('a', 'b', 'd')
    >>> next_table(["a", "b", "c", "d"], History(h.tables + (("a", "b", "d"),)),
    ...            first_blocks=1)                              # the pairs met least
    ('a', 'c', 'd')
    """
    if len(roster) < 3:
        return None
    blocks, pairs, last = history.blocks(), history.pairs(), history.last_seen()
    order = {name: i for i, name in enumerate(roster)}
    new = [b for b in roster if blocks[b] < first_blocks]
    if new:
        bot = new[-1]
        settled = set(roster) - set(new)
        others = sorted((b for b in roster if b != bot),
                        key=lambda b: (b not in settled, pairs[frozenset((bot, b))], blocks[b],
                                       b))
        pick = [bot, *others[:2]]
        if len(settled) >= 2:
            # among settled bots, the two it met least that met each other least too
            pick = [bot, *min(itertools.combinations(sorted(settled), 2),
                              key=lambda ab: (pairs[frozenset((bot, ab[0]))]
                                              + pairs[frozenset((bot, ab[1]))],
                                              pairs[frozenset(ab)], ab))]
        return _in_roster_order(pick, order)

    def cost(table: Table) -> tuple[int, int, int, int, Table]:
        met = [pairs[frozenset(p)] for p in itertools.combinations(table, 2)]
        return (max(blocks[b] for b in table), sum(met), max(met),
                last.get(frozenset(table), -1), table)
    best = min(itertools.combinations(sorted(roster), 3), key=cost)
    return _in_roster_order(best, order)


def _in_roster_order(bots: Sequence[str], order: dict[str, int]) -> Table:
    a, b, c = sorted(bots, key=order.__getitem__)
    return a, b, c
