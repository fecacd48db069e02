"""The round-robin schedule: a pure function of the bot names, deals per table, seed and the
schedule options.

With ``schedule="all-tables"`` (the default) every 3-bot table of the N >= 3 bots
(``C(N, 3)`` tables) plays; with ``schedule="balanced"`` only the tables of
:func:`.balanced.balanced_tables`, in which every pair of bots meets ``pair_meetings`` times
(``L * N(N-1)/6`` tables when a Steiner triple system exists). Every table plays
``deals_per_table`` deals; each deal is played in all 6 seatings (3! permutations: every bot
deals first, i.e. sits in seat 0, twice), the 6 matches forming one duplicate **block**
(docs/architecture.md; the ACPC 3-player duplicate). With ``schedule="adaptive"`` the schedule
written up front is the balanced schedule's first deal (every pair meets once); the runner
adds the other blocks as slots free (:mod:`.adaptive`).
A deal's seed is SHA-256 of (tournament seed, table's bot names, deal index), so the same cards
come in every seating; since every hand's deal derives from the match seed, later hands are
duplicated too (their play diverges after hand 1 through the exchanges).

**Deal secrecy.** Bots know the match ids and the bot names, and tournament seeds are small
numbers in practice, so a seed alone would let a bot compute every hidden card. A tournament
directory therefore holds a secret **deal key** (32 random bytes made when its store is
created, :meth:`arena.tournament.store.Store.deal_key`), and each deal seed is
HMAC-SHA256(deal key, the seed above) (:func:`keyed`). The same seed in the same directory
gives the same deals; the records keep the dealt cards, so replay and verification need no
key (docs/records.md).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ..rules.deal import derive_seed
from .balanced import balanced_tables

SCHEDULES = ("all-tables", "balanced", "adaptive")

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


def keyed(key: bytes | None, seed: bytes) -> bytes:
    """``seed`` keyed by the directory's secret deal key: HMAC-SHA256(key, seed), 32 bytes;
    ``seed`` itself when there is no key (a store made before deal keys).

    >>> keyed(None, b"s") == b"s"
    True
    >>> keyed(bytes(32), b"s").hex()[:16] == keyed(bytes(32), b"s").hex()[:16] != keyed(
    ...     b"k" * 32, b"s").hex()[:16]
    True
    """
    return seed if key is None else hmac.new(key, seed, hashlib.sha256).digest()


def tables(bots: Sequence[str]) -> list[tuple[str, str, str]]:
    """All 3-bot tables in config order (``itertools.combinations``).

    >>> tables(["a", "b", "c", "d"])
    [('a', 'b', 'c'), ('a', 'b', 'd'), ('a', 'c', 'd'), ('b', 'c', 'd')]

    Raises:
        ValueError: fewer than 3 bots or repeated names.
    """
    if len(bots) < 3 or len(set(bots)) != len(bots):
        raise ValueError("a schedule needs at least 3 distinct bots")
    return list(itertools.combinations(bots, 3))


def make_schedule(bots: Sequence[str], deals_per_table: int,
                  seed: int | str | bytes, *, schedule: str = "all-tables",
                  pair_meetings: int = 1, deal_key: bytes | None = None
                  ) -> list[ScheduledMatch]:
    """The full schedule, ordered by deal, then table, then seating, so that an interrupted
    tournament has played whole rounds of every table rather than all deals of one table.

    Size: ``tables * deals_per_table * 6`` matches, with ``C(N, 3)`` tables for
    ``"all-tables"`` and ``len(balanced_tables(bots, pair_meetings, seed))`` for
    ``"balanced"``. A balanced table's deal seed also includes its position, since a table can
    occur twice when ``pair_meetings > 1``; all-tables seeds are unchanged. ``deal_key``: the
    directory's secret deal key (:func:`keyed`); the tables themselves do not depend on it.
    ``"adaptive"``: the first deal of the balanced schedule of one meeting per pair (its later
    blocks are chosen while it runs, :mod:`.adaptive`).

    Worked example: 3 bots, 2 deals: one table, 2 blocks of 6 seatings; a block's matches
    share the deal seed (the same cards in every seating)::

        >>> s = make_schedule(["a", "b", "c"], deals_per_table=2, seed=1)
        >>> len(s), s[0].match_id, s[0].block_id, s[6].match_id
        (12, 't000-d0000-s0', 't000-d0000', 't000-d0001-s0')
        >>> [" ".join(m.seats) for m in s[:6]]    # every bot in every seat twice
        ['a b c', 'a c b', 'b a c', 'b c a', 'c a b', 'c b a']
        >>> len({m.seed for m in s[:6]}), s[0].seed == s[6].seed
        (1, False)
        >>> len(make_schedule(["a", "b", "c", "d", "e"], 1, seed=1))   # C(5, 3) tables x 6
        60

    Raises:
        ValueError: fewer than 3 bots, repeated names, unknown ``schedule`` or
            ``pair_meetings < 1``.
    """
    if schedule == "all-tables":
        tabs = tables(bots)
    elif schedule == "balanced":
        tabs = balanced_tables(bots, pair_meetings, seed)
    elif schedule == "adaptive":
        tabs, deals_per_table = balanced_tables(bots, 1, seed), 1
    else:
        raise ValueError(f"unknown schedule {schedule!r}; expected one of {SCHEDULES}")
    out = []
    for d in range(deals_per_table):
        for t, table in enumerate(tabs):
            deal_seed = keyed(deal_key, derive_seed(seed, "table", *table, "deal", d)
                              if schedule == "all-tables"
                              else derive_seed(seed, "balanced", t, *table, "deal", d))
            block = f"t{t:03d}-d{d:04d}"
            for k, perm in enumerate(SEATINGS):
                seats = (table[perm[0]], table[perm[1]], table[perm[2]])
                out.append(ScheduledMatch(f"{block}-s{k}", block, t, d, k, seats, deal_seed))
    return out
