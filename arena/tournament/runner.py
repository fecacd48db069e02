"""The round-robin of ``arena run``: every table of the schedule, each deal in all 6 seatings,
played through the tournament driver (:mod:`.driver`), then the standings.

:func:`run_tournament` is the :class:`RoundRobin` strategy over :func:`.driver.drive`: its
schedule is written once (:func:`.schedule.make_schedule`; a directory that holds one is
resumed, or grown by added bots, :mod:`.growth`), remote bots are waited for in a lobby before
the first match and the matches of one that does not come are left pending for a later run,
not stored (:mod:`.lobby`); with ``schedule = "adaptive"`` the blocks after the first round
are chosen while it runs (:mod:`.adaptive`). Progress goes to a :class:`.reporter.Reporter`
and, for the live page, to :mod:`arena.events`; the standings are written at the end.

Every spawned bot process is ended on a normal end, an error, Ctrl-C or SIGTERM (the CLI turns
SIGTERM into cancellation, which runs the driver's ``finally`` blocks).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..events import EventSink
from ..processes.proctable import ProcessTable
from .adaptive import AdaptiveSchedule
from .config import TournamentConfig
from .driver import ExecutorFactory, Tally, drive
from .growth import prepare_schedule
from .local import LobbyPlan
from .lobby import LOBBY_KEY
from .outdir import write_standings
from .reporter import ConsoleReporter, MatchStored, Notice, Reporter, RunEnded, RunStarted
from .schedule import ScheduledMatch, make_schedule
from .standings import Standings, compute_standings
from .store import ResultRow, Store


@dataclass(frozen=True)
class TournamentOutcome:
    """What :func:`run_tournament` did: matches played now, total scheduled, standings."""

    played_now: int
    scheduled: int
    already_done: int
    standings: Standings
    out: Path
    faults: int
    disqualifications: tuple[str, ...] = ()
    #: bots that never started (never registered once): name -> the last failure's reason
    never_started: tuple[tuple[str, str], ...] = ()
    #: remote bots that did not connect: name -> their matches left pending (not stored) for
    #: a later run (:mod:`.lobby`)
    left_for_later: tuple[tuple[str, int], ...] = ()


class RoundRobin:
    """The round-robin strategy of :mod:`.driver` (see the module docstring)."""

    def __init__(self, cfg: TournamentConfig, out: Path) -> None:
        self.cfg, self.out = cfg, out
        self.names = [b.name for b in cfg.bots]
        self.adaptive: AdaptiveSchedule | None = None
        self.scheduled = self.done_before = 0

    def schedule(self, store: Store, report: Reporter) -> None:
        t = self.cfg.tournament
        schedule = make_schedule(self.names, t.deals_per_table, t.seed, schedule=t.schedule,
                                 pair_meetings=t.pair_meetings, deal_key=store.deal_key())
        growth = prepare_schedule(store, self.cfg, schedule)   # new, resumed or grown
        if growth.added:
            report(Notice(f"arena: {growth.summary()}"))

    def begin(self, store: Store, procs: ProcessTable, pending: list[ScheduledMatch],
              report: Reporter) -> list[ScheduledMatch] | None:
        # schedule = "adaptive": the blocks after the first round come as slots free
        if self.cfg.tournament.schedule == "adaptive":
            self.adaptive = AdaptiveSchedule(self.cfg, store)
        self.done_before = store.scheduled_count() - len(pending)
        self.scheduled = (self.adaptive.total_matches if self.adaptive
                          else store.scheduled_count())
        report(RunStarted(self.scheduled, self.done_before))
        return pending if pending or self.done_before < self.scheduled else None

    def executor_config(self) -> TournamentConfig:
        return self.cfg

    def lobby(self, store: Store, pending: list[ScheduledMatch]) -> LobbyPlan:
        """The remote bots with a pending match, waited for up to ``start_after`` (default
        ``register_timeout_s``) seconds; its state goes to the store's ``lobby`` meta entry
        for the live page."""
        remote = {b.name for b in self.cfg.bots if b.remote}
        needed = {name for m in pending for name in m.seats} & remote
        limit = self.cfg.tournament.start_after
        return LobbyPlan(tuple(b.name for b in self.cfg.bots if b.name in needed),
                         self.cfg.faults.register_timeout_s if limit is None else limit,
                         lambda state: store.set_meta({LOBBY_KEY: state.to_json() if state
                                                       else ""}))

    async def refill(self) -> list[ScheduledMatch]:
        return await self.adaptive.refill() if self.adaptive is not None else []

    def done(self) -> bool:
        return False

    def stored(self, m: ScheduledMatch, row: ResultRow, store: Store,
               report: Reporter) -> None:
        report(MatchStored(m, row))

    def finish(self, store: Store, procs: ProcessTable, tally: Tally) -> TournamentOutcome:
        absent = procs.never_started()
        notes = {b.name: "did not connect" if b.remote else "never started"
                 for b in self.cfg.bots if b.name in absent}
        standings = compute_standings(store.results(), self.names, absent=notes)
        write_standings(self.out, standings)
        return TournamentOutcome(tally.played, self.scheduled, self.done_before, standings,
                                 self.out, tally.faults, tally.disqualified,
                                 tuple(absent.items()), tuple(tally.deferred.items()))


async def run_tournament(cfg: TournamentConfig, out: Path, *, progress: bool = True,
                         on_match: Callable[[ScheduledMatch], None] | None = None,
                         events: EventSink | None = None,
                         reporter: Reporter | None = None,
                         executors: ExecutorFactory | None = None) -> TournamentOutcome:
    """Run (or resume) the tournament of ``cfg`` into directory ``out``.

    Args:
        cfg: validated config. out: output directory (created).
        progress: show a progress bar / lines on stderr (the default reporter's ``enabled``).
        on_match: called after each match is stored (tests use it to interrupt).
        events: optional sink of :mod:`arena.events` (match started, decisions applied, match
            finished); it must not block (the live page's ``EventBus.publish``).
        reporter: where progress events go (default: a :class:`ConsoleReporter`).
        executors: makes the match executor (default: this process's,
            :func:`.driver.local_executor`; the Ray cluster's comes from the CLI).

    Raises:
        OutDirError: ``out`` cannot be created or another arena runs on it.
        StoreError: ``out`` holds another tournament. ServerStartError: cannot bind.
        PreflightError: a bot command cannot start (nothing is played; the directory,
            holding no result, takes the corrected config: :mod:`.growth`).
    """
    report = reporter if reporter is not None else ConsoleReporter(progress)
    try:
        return await drive(RoundRobin(cfg, out), cfg, out, report, executors=executors,
                           on_match=on_match, events=events)
    finally:
        report(RunEnded())
