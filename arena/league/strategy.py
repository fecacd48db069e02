"""One generation of the league's play: the tournament driver's :class:`League` strategy over
the roster active now (:mod:`arena.tournament.driver`).

The league has no schedule written up front: each time a worker finds nothing to play,
:meth:`League.refill` asks :func:`.schedule.next_table` for the next table (among the bots that
can play now: a remote version only while it is connected) and writes its whole duplicate
block (one new deal in all 6 seatings) to the store before it is played, so a killed server
resumes it and nothing is played twice. Match ids follow the other schedules
(``t{table}-d{deal}-s{seating}``: a table keeps the index it first got, its deals count up); a
deal's seed is HMAC-keyed by the league's secret deal key (:func:`arena.tournament.schedule.
keyed`) over SHA-256 of (seed, ``"league"``, the table's bots in roster order, deal index).

When the roster changes (a version activated or retired: :attr:`League.changed` is set) the
strategy takes no new block, the blocks in flight finish, and the driver ends: the service
starts the next generation with the new roster. Pending matches of bots no longer in the
roster stay pending (they are not played and not listed).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from ..processes.proctable import ProcessTable
from ..rules.deal import derive_seed
from ..tournament.config import TournamentConfig
from ..tournament.driver import Tally
from ..tournament.local import LobbyPlan
from ..tournament.reporter import MatchStored, Reporter
from ..tournament.schedule import SEATINGS, ScheduledMatch, keyed
from ..tournament.store import ResultRow, Store
from .schedule import History, next_table


def history(store: Store) -> History:
    """The blocks scheduled so far (their tables, in the order they were written)."""
    rows = store.db.execute("SELECT seat0, seat1, seat2 FROM schedule WHERE seating_idx = 0 "
                            "ORDER BY rowid").fetchall()
    return History(tuple((a, b, c) for a, b, c in rows))


class League:
    """The strategy of one generation (see the module docstring).

    Args:
        cfg: the tournament config of this roster (its bots in roster order, oldest first).
        first_blocks: blocks a new version plays before it joins the fill.
        online: whether a bot can play now (a remote version: connected); default all.
        changed: set when the roster changes (the generation then winds down).
        stopping: set when the service stops (no new match is started).
    """

    def __init__(self, cfg: TournamentConfig, *, first_blocks: int,
                 online: Callable[[str], bool] = lambda name: True,
                 changed: asyncio.Event | None = None,
                 stopping: asyncio.Event | None = None) -> None:
        self.cfg = cfg
        self.roster = [b.name for b in cfg.bots]
        self.first_blocks = first_blocks
        self.online = online
        self.changed = changed or asyncio.Event()
        self.stopping = stopping or asyncio.Event()
        self.store: Store | None = None
        self._lock = asyncio.Lock()
        self.added = 0

    def schedule(self, store: Store, report: Reporter) -> None:
        self.store = store
        if store.meta("name") is None:
            store.set_meta({"name": self.cfg.tournament.name})

    def begin(self, store: Store, procs: ProcessTable, pending: list[ScheduledMatch],
              report: Reporter) -> list[ScheduledMatch] | None:
        here = set(self.roster)
        mine = [m for m in pending if set(m.seats) <= here]
        return mine if mine or len(self.roster) >= 3 else None

    def executor_config(self) -> TournamentConfig:
        return self.cfg

    def lobby(self, store: Store, pending: list[ScheduledMatch]) -> LobbyPlan:
        """Remote versions are not waited for: a match of one that is offline is deferred
        (left pending, not stored: :class:`arena.tournament.local.MatchDeferred`)."""
        remote = tuple(b.name for b in self.cfg.bots if b.remote)
        return LobbyPlan(remote, 0.0, lambda state: None)

    async def refill(self) -> list[ScheduledMatch]:
        async with self._lock:
            if self.changed.is_set() or self.stopping.is_set() or self.store is None:
                return []
            playing = [b for b in self.roster if self.online(b)]
            table = next_table(playing, history(self.store), first_blocks=self.first_blocks)
            if table is None:
                return []
            matches = self._block(self.store, table)
            self.store.extend_schedule(matches, {})
            self.added += 1
            return matches

    def _block(self, store: Store, table: Sequence[str]) -> list[ScheduledMatch]:
        """The 6 matches of a new deal at ``table`` (in roster order)."""
        index, deal = store.next_deal(frozenset(table))
        seed = keyed(store.deal_key(),
                     derive_seed(self.cfg.tournament.seed, "league", *table, "deal", deal))
        block = f"t{index:03d}-d{deal:04d}"
        return [ScheduledMatch(f"{block}-s{k}", block, index, deal, k,
                               (table[p[0]], table[p[1]], table[p[2]]), seed)
                for k, p in enumerate(SEATINGS)]

    def done(self) -> bool:
        return self.stopping.is_set()

    def stored(self, m: ScheduledMatch, row: ResultRow, store: Store,
               report: Reporter) -> None:
        report(MatchStored(m, row))

    def finish(self, store: Store, procs: ProcessTable, tally: Tally) -> Tally:
        return tally
