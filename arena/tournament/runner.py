"""The tournament runner: schedule -> store -> executor (gRPC server, bot pool, concurrent
matches) -> records + results -> standings (issue 4).

:func:`run_tournament` locks the output directory (:mod:`.outdir`, whose docstring gives its
layout), sweeps what a killed arena left, plays the pending matches of the schedule ``slots`` at
a time on a match executor (:class:`~arena.tournament.local.LocalExecutor`, or Ray's), stores
each finished match whole (record, then row) and writes the standings. Remote bots are waited
for in a lobby before the first match; the matches of one that does not come are left pending
for a later run, not stored (:mod:`.lobby`). What happens is reported as progress events
(:mod:`.reporter`) and, for the live page, as :mod:`arena.events`.

Every spawned bot process is ended on a normal end, an error, Ctrl-C or SIGTERM (the CLI turns
SIGTERM into cancellation, which runs the ``finally`` blocks here).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..events import EventSink
from .adaptive import AdaptiveSchedule
from .config import TournamentConfig
from .executor import MatchExecutor
from .growth import prepare_schedule
from .lobby import LOBBY_KEY
from .local import LobbyPlan, LocalExecutor, MatchDeferred, sandbox_banner
from .outdir import (leftovers_notice, out_dir_lock, prepare_out_dir, save_played,
                     sweep_unfinished_records, write_standings)
from .pool import ProcessTracker
from .proctable import ProcessTable
from .reporter import (Alert, ConsoleReporter, MatchStored, Message, Notice, Reporter, RunEnded,
                       RunStarted)
from .schedule import ScheduledMatch, make_schedule
from .standings import Standings, compute_standings
from .store import Store
from .tasks import run_workers, uncancellable


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


@dataclass
class _Tally:
    """Matches played now and the faults in them; matches deferred per absent bot."""

    played: int = 0
    faults: int = 0
    deferred: dict[str, int] = field(default_factory=dict)


async def run_tournament(cfg: TournamentConfig, out: Path, *, progress: bool = True,
                         on_match: Callable[[ScheduledMatch], None] | None = None,
                         events: EventSink | None = None,
                         reporter: Reporter | None = None) -> TournamentOutcome:
    """Run (or resume) the tournament of ``cfg`` into directory ``out``.

    Args:
        cfg: validated config. out: output directory (created).
        progress: show a progress bar / lines on stderr (the default reporter's ``enabled``).
        on_match: called after each match is stored (tests use it to interrupt).
        events: optional sink of :mod:`arena.events` (match started, decisions applied, match
            finished); it must not block (the live page's ``EventBus.publish``).
        reporter: where progress events go (default: a :class:`ConsoleReporter`).

    Raises:
        OutDirError: ``out`` cannot be created or another arena runs on it.
        StoreError: ``out`` holds another tournament. ServerStartError: cannot bind.
        PreflightError: a bot command cannot start (nothing is played; the directory,
            holding no result, takes the corrected config: :mod:`.growth`).
    """
    report = reporter if reporter is not None else ConsoleReporter(progress)
    with out_dir_lock(out):
        return await _run_locked(cfg, out, report, on_match, events)


async def _run_locked(cfg: TournamentConfig, out: Path, report: Reporter,
                      on_match: Callable[[ScheduledMatch], None] | None,
                      events: EventSink | None) -> TournamentOutcome:
    names = [b.name for b in cfg.bots]
    tally = _Tally()
    disqualified: list[str] = []
    with Store(out / "results.sqlite") as store:   # refuses a file that is not a store
        prepare_out_dir(out)  # we hold the directory's lock: no other writer
        schedule = make_schedule(names, cfg.tournament.deals_per_table, cfg.tournament.seed,
                                 schedule=cfg.tournament.schedule,
                                 pair_meetings=cfg.tournament.pair_meetings,
                                 deal_key=store.deal_key())
        growth = prepare_schedule(store, cfg, schedule)   # a new, resumed or grown league
        if growth.added:
            report(Notice(f"arena: {growth.summary()}"))
        store.results()        # every stored row is checked before anything is played
        procs = ProcessTable(store.db)
        left = procs.end_leftovers()  # an arena that died on this directory left them
        if left:
            report(Notice(leftovers_notice(left, out)))
        pending = store.pending()
        sweep_unfinished_records(out, pending)
        # schedule = "adaptive": the blocks after the first round come as slots free
        adaptive = AdaptiveSchedule(cfg, store) if cfg.tournament.schedule == "adaptive" \
            else None
        done_before = store.scheduled_count() - len(pending)
        scheduled = adaptive.total_matches if adaptive else store.scheduled_count()
        report(RunStarted(scheduled, done_before))
        executor: MatchExecutor | None = None
        try:
            if pending or done_before < scheduled:
                executor = make_executor(cfg, out, report, procs, events,
                                         lobby=_lobby(cfg, store, pending))
                await _play(cfg, out, store, executor, pending, tally, report, on_match, events,
                            adaptive.refill if adaptive else None)
        finally:
            report(RunEnded())
            if executor is not None:
                disqualified = executor.disqualifications
                # shielded: a cancellation arriving now must not cut the bots' shutdown short
                await asyncio.shield(executor.close())
        absent = procs.never_started()
        notes = {b.name: "did not connect" if b.remote else "never started"
                 for b in cfg.bots if b.name in absent}
        standings = compute_standings(store.results(), names, absent=notes)
    write_standings(out, standings)
    return TournamentOutcome(tally.played, scheduled, done_before, standings, out,
                             tally.faults, tuple(disqualified), tuple(absent.items()),
                             tuple(tally.deferred.items()))


def _lobby(cfg: TournamentConfig, store: Store, pending: list[ScheduledMatch]) -> LobbyPlan:
    """The lobby of this run (:mod:`.lobby`): the remote bots with a pending match, waited
    for up to ``start_after`` (default ``register_timeout_s``) seconds; its state goes to the
    store's ``lobby`` meta entry for the live page."""
    remote = {b.name for b in cfg.bots if b.remote}
    needed = {name for m in pending for name in m.seats} & remote
    limit = cfg.tournament.start_after
    return LobbyPlan(tuple(b.name for b in cfg.bots if b.name in needed),
                     cfg.faults.register_timeout_s if limit is None else limit,
                     lambda state: store.set_meta({LOBBY_KEY: state.to_json() if state else ""}))


async def _play(cfg: TournamentConfig, out: Path, store: Store, executor: MatchExecutor,
                pending: list[ScheduledMatch], tally: _Tally, report: Reporter,
                on_match: Callable[[ScheduledMatch], None] | None,
                events: EventSink | None,
                refill: Callable[[], Awaitable[list[ScheduledMatch]]] | None = None) -> None:
    """Start ``executor`` and play ``pending`` on ``executor.slots`` workers, storing each
    finished match whole before the next is taken; a worker that finds nothing left asks
    ``refill`` (an adaptive schedule) for more, and stops when it gives nothing."""
    queue: asyncio.Queue[ScheduledMatch] = asyncio.Queue()
    for m in pending:
        queue.put_nowait(m)

    async def worker() -> None:
        while True:
            if queue.empty() and refill is not None:
                for new in await refill():
                    queue.put_nowait(new)
            if queue.empty():
                break
            m = queue.get_nowait()
            try:
                done = await executor.play(m)
            except MatchDeferred as exc:   # a remote bot is absent: left for a later run
                for name in exc.absent:
                    tally.deferred[name] = tally.deferred.get(name, 0) + 1
                continue
            # finished normally: the record and its row are written even if the run is being
            # cancelled meanwhile (a cancelled match never gets here)
            await uncancellable(save_played(out, store, done))
            row = done.row
            if events is not None:
                events(done.finished())
            tally.played += 1
            tally.faults += sum(row.faults)
            report(MatchStored(m, row))
            if on_match is not None:
                on_match(m)

    await executor.start()      # the pre-flight check first: its errors alone
    report(Notice(sandbox_banner(cfg)))
    await run_workers(worker, executor.slots)


def make_executor(cfg: TournamentConfig, out: Path, report: Reporter,
                  tracker: ProcessTracker | None,
                  events: EventSink | None = None, *,
                  lobby: LobbyPlan | None = None) -> MatchExecutor:
    """The executor ``[cluster] backend`` asks for: :class:`LocalExecutor` or Ray's (whose
    bots run on the cluster's nodes: ``tracker`` gets their start outcomes, not their
    processes; it publishes no per-decision ``events``, only the runner's match finished).
    Its one-line news go to ``report`` as :class:`Message`, its warnings as :class:`Alert`.
    ``lobby`` (round-robin runs): wait for the remote bots first, and defer the matches of
    one that does not come (:class:`MatchDeferred`); without it (the gauntlet) a no-show
    forfeits. Ray runs have no remote bots (a config problem)."""
    def message(text: str) -> None:
        report(Message(text))

    def alert(text: str) -> None:
        report(Alert(text))

    if cfg.cluster.backend == "ray":
        from ..cluster.executor import RayExecutor
        return RayExecutor(cfg, out, message, tracker)
    hide = [out] if cfg.source is None else [out, cfg.source]    # the config: tokens
    return LocalExecutor(cfg, out / "logs", message, on_warning=alert, tracker=tracker,
                         events=events, hide=hide, lobby=lobby, defer_absent=lobby is not None)
