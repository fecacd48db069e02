"""``[tournament] schedule = "adaptive"``: the runner asks for the next block whenever a slot
frees, and the tables go where they inform most.

The tournament plays as many duplicate blocks as ``schedule = "balanced"`` would with the same
``pair_meetings`` and ``deals_per_table`` (:meth:`.config.TournamentSection.table_count` times
``deals_per_table``). The store holds the balanced schedule's first deal from the start (every
pair of bots meets once, :func:`.schedule.make_schedule`); after that, each time a worker finds
nothing left to play, :meth:`AdaptiveSchedule.refill` asks
:func:`arena.ratings.adaptive.next_tables` for one table given the stored results and the
blocks still in flight, and writes its block (one new deal in all 6 seatings) to the store
before anyone plays it, so a killed run resumes with it and nothing is played twice.

Block ids follow the other schedules: a table (a set of 3 bots) keeps the table index it first
got (the first round's, or the next free one), and its blocks count up ``d0000``,
``d0001``, ...; an added block's deal seed is SHA-256 of (tournament seed, ``"adaptive"``, the
table's bots in config order, deal index), keyed by the directory's secret deal key
(:func:`.schedule.keyed`). Which tables come depends on the results and, with
``concurrency > 1``, on the order matches finish in: two runs of the same config may play
different tables (each table's deals are still the same cards in all 6 seatings).
"""

from __future__ import annotations

import asyncio

from ..rules.deal import derive_seed
from .balanced import balanced_tables
from .config import TournamentConfig
from .schedule import SEATINGS, ScheduledMatch, keyed
from .store import Store

__all__ = ["AdaptiveSchedule", "budget_blocks"]


def budget_blocks(cfg: TournamentConfig) -> int:
    """Blocks an adaptive tournament of ``cfg`` plays: those of its balanced schedule."""
    t = cfg.tournament
    return t.table_count(len(cfg.bots)) * t.deals_per_table


class AdaptiveSchedule:
    """The blocks after the first round, one per :meth:`refill`, until the budget is spent.

    ``refill`` is safe to await from several workers: one table is chosen at a time.
    """

    def __init__(self, cfg: TournamentConfig, store: Store) -> None:
        self.cfg = cfg
        self.store = store
        self.names = [b.name for b in cfg.bots]
        self.budget = budget_blocks(cfg)
        self.warm = balanced_tables(self.names, 1, cfg.tournament.seed)
        self._lock = asyncio.Lock()

    @property
    def total_matches(self) -> int:
        """Matches of the whole tournament (at least those already scheduled)."""
        return max(self.budget * len(SEATINGS), self.store.scheduled_count())

    async def refill(self) -> list[ScheduledMatch]:
        """The next block's matches (written to the store), or ``[]`` once the tournament has
        all its blocks."""
        async with self._lock:
            scheduled = self.store.scheduled_count() // len(SEATINGS)
            if scheduled >= self.budget:
                return []
            results = self.store.results()
            in_flight = {m.block_id: m.seats for m in self.store.pending()}
            from ..ratings.adaptive import next_tables   # numpy: only when a run needs it
            tables = await asyncio.to_thread(
                next_tables, results, self.names, 1, pending=list(in_flight.values()),
                target=self.cfg.tournament.target, seed=self.cfg.tournament.seed,
                warm_up=self.warm)
            matches = self._block(tables[0])
            self.store.extend_schedule(matches, {})
            return matches

    def _block(self, table: tuple[str, str, str]) -> list[ScheduledMatch]:
        """The 6 matches of one new deal at ``table``."""
        order = {name: k for k, name in enumerate(self.names)}
        seats = tuple(sorted(table, key=order.__getitem__))
        index, deal = self.store.next_deal(frozenset(seats))
        seed = keyed(self.store.deal_key(),
                     derive_seed(self.cfg.tournament.seed, "adaptive", *seats, "deal", deal))
        block = f"t{index:03d}-d{deal:04d}"
        return [ScheduledMatch(f"{block}-s{k}", block, index, deal, k,
                               (seats[p[0]], seats[p[1]], seats[p[2]]), seed)
                for k, p in enumerate(SEATINGS)]
