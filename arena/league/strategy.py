"""The league's play: the tournament driver's :class:`League` strategy
(:mod:`arena.tournament.driver`) over a roster that changes while it plays.

The league has no schedule written up front: each time a worker finds nothing to play,
:meth:`League.refill` asks :func:`.schedule.next_table` for the next table (among the bots that
can play now: a remote version only while it is connected, no disqualified one) and writes its
whole duplicate block (one new deal in all 6 seatings) to the store before it is played, so a
killed server resumes it and nothing is played twice. Match ids follow the other schedules
(``t{table}-d{deal}-s{seating}``: a table keeps the index it first got, its deals count up); a
deal's seed is HMAC-keyed by the league's secret deal key (:func:`arena.tournament.schedule.
keyed`) over SHA-256 of (seed, ``"league"``, the table's bots in roster order, deal index).

When nothing can be played (fewer than 3 bots can play now) ``refill`` waits (polling every
:data:`POLL_S` seconds for a remote bot to connect) instead of ending the run, so one run of
the driver lasts as long as the service. A match deferred because a remote bot of it went
away (the service puts it in :attr:`League.retry`) is played again once its bots can play.

When the roster changes (a version activated or retired: :attr:`League.changed` is set),
the next ``refill`` asks the service to ``adopt`` the new roster: the running executor takes
the new versions and lets the retired ones go (bot processes and the gRPC server keep running,
so connected remote bots stay connected). When the executor cannot (the Ray executor, or no
room left in the server's connection cap) ``adopt`` answers None: the strategy takes no new
block, the matches queued finish, and the driver ends; the service then starts a new run with
the new roster (its bots restarted, remote bots connecting again).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence

from ..processes.proctable import ProcessTable
from ..rules.deal import derive_seed
from ..tournament.config import TournamentConfig
from ..tournament.driver import Tally
from ..tournament.local import LobbyPlan
from ..tournament.reporter import MatchStored, Reporter
from ..tournament.schedule import SEATINGS, ScheduledMatch, keyed
from ..tournament.store import ResultRow, Store
from .schedule import History, next_table

#: seconds between two looks at who can play, while nothing can
POLL_S = 1.0


def history(store: Store) -> History:
    """The blocks scheduled so far (their tables, in the order they were written)."""
    rows = store.db.execute("SELECT seat0, seat1, seat2 FROM schedule WHERE seating_idx = 0 "
                            "ORDER BY rowid").fetchall()
    return History(tuple((a, b, c) for a, b, c in rows))


async def _no_roster() -> TournamentConfig | None:
    return None


class League:
    """The league's strategy (see the module docstring).

    Args:
        cfg: the tournament config of the roster at the start (its bots in roster order,
            oldest first).
        first_blocks: blocks a new version plays before it joins the fill.
        online: whether a bot can play now (a remote version: connected; not disqualified);
            default all.
        changed: set when the roster changes.
        stopping: set when the service stops (no new match is started).
        adopt: the service's answer to a changed roster: the new roster's config once the
            executor has taken it, or None when it cannot (this run then ends).
    """

    def __init__(self, cfg: TournamentConfig, *, first_blocks: int,
                 online: Callable[[str], bool] = lambda name: True,
                 changed: asyncio.Event | None = None,
                 stopping: asyncio.Event | None = None,
                 adopt: Callable[[], Awaitable[TournamentConfig | None]] = _no_roster) -> None:
        self.cfg = cfg
        self.roster = [b.name for b in cfg.bots]
        self.first_blocks = first_blocks
        self.online = online
        self.changed = changed or asyncio.Event()
        self.stopping = stopping or asyncio.Event()
        self.adopt = adopt
        #: matches deferred (a remote bot went away), to play once their bots can
        self.retry: list[ScheduledMatch] = []
        self.store: Store | None = None
        self.tables: list[tuple[str, str, str]] = []
        self._lock = asyncio.Lock()
        self.ended = False          # the roster moved on without this run: take nothing new
        self.added = 0

    def schedule(self, store: Store, report: Reporter) -> None:
        self.store = store
        self.tables = list(history(store).tables)
        if store.meta("name") is None:
            store.set_meta({"name": self.cfg.tournament.name})

    def begin(self, store: Store, procs: ProcessTable, pending: list[ScheduledMatch],
              report: Reporter) -> list[ScheduledMatch] | None:
        here = set(self.roster)
        return [m for m in pending if set(m.seats) <= here]

    def executor_config(self) -> TournamentConfig:
        return self.cfg

    def lobby(self, store: Store, pending: list[ScheduledMatch]) -> LobbyPlan:
        """Remote versions are not waited for: a match of one that is offline is deferred
        (left pending, not stored: :class:`arena.tournament.local.MatchDeferred`)."""
        remote = tuple(b.name for b in self.cfg.bots if b.remote)
        return LobbyPlan(remote, 0.0, lambda state: None)

    async def refill(self) -> list[ScheduledMatch]:
        """The next matches: deferred ones whose bots can play again, else a new block; waits
        while nothing can be played; ``[]`` only when the service stops or this run ends."""
        async with self._lock:
            while not (self.stopping.is_set() or self.ended or self.store is None):
                if self.changed.is_set():
                    self.changed.clear()
                    cfg = await self.adopt()
                    if cfg is None:
                        self.ended = True
                        break
                    self.cfg, self.roster = cfg, [b.name for b in cfg.bots]
                ready = self._ready_retries()
                if ready:
                    return ready
                playing = [b for b in self.roster if self.online(b)]
                table = next_table(playing, History(tuple(self.tables)),
                                   first_blocks=self.first_blocks)
                if table is not None:
                    matches = self._block(self.store, table)
                    self.store.extend_schedule(matches, {})
                    self.tables.append(table)
                    self.added += 1
                    return matches
                await first_of(self.changed, self.stopping, timeout_s=POLL_S)
            return []

    def _ready_retries(self) -> list[ScheduledMatch]:
        here = set(self.roster)
        ready = [m for m in self.retry
                 if set(m.seats) <= here and all(self.online(b) for b in m.seats)]
        self.retry = [m for m in self.retry if m not in ready]
        return ready

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


async def first_of(a: asyncio.Event, b: asyncio.Event, timeout_s: float | None = None) -> None:
    """Wait for ``a`` or ``b`` to be set, or ``timeout_s`` seconds (None: no limit)."""
    waits = [asyncio.ensure_future(a.wait()), asyncio.ensure_future(b.wait())]
    try:
        await asyncio.wait(waits, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await w
