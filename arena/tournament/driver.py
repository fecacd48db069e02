"""The one tournament driver: a **strategy** says which matches to play and when to stop; the
driver plays them through a match executor and stores each one whole.

Every kind of run (the round-robin of ``arena run``, its adaptive schedule, the SPRT gauntlet,
the league) is a :class:`Strategy` over the same frame, as cutechess's ``Tournament``
subclasses and fastchess's ``BaseTournament`` share one game manager:

1. lock the output directory (:mod:`.outdir`), open its store, let the strategy write or check
   its schedule (:meth:`Strategy.schedule`), check every stored row, end what a killed arena
   left behind, sweep unfinished records;
2. if the strategy has anything to play, start an executor (:data:`ExecutorFactory`: this
   process's :func:`local_executor`, or the Ray cluster's one that the CLI hands down) and
   keep ``executor.slots`` matches in flight: each worker takes the next pending match, or
   asks the strategy for more when none is left (:meth:`Strategy.refill`: an adaptive
   schedule's next block), plays it, stores it (record, then row), tells the strategy
   (:meth:`Strategy.stored`: the gauntlet re-tests its SPRT) and stops taking matches once
   the strategy says so (:meth:`Strategy.done`);
3. close the executor (every bot process ends, whatever ended the run) and let the strategy
   make its outcome from the store (:meth:`Strategy.finish`).

The driver knows nothing of round-robins or tests; the strategies know nothing of executors.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from ..events import EventSink
from ..processes.pool import ProcessTracker
from ..processes.proctable import ProcessTable
from .config import TournamentConfig
from .executor import MatchExecutor
from .local import LobbyPlan, LocalExecutor, MatchDeferred, sandbox_banner
from .outdir import (leftovers_notice, out_dir_lock, prepare_out_dir, save_played,
                     sweep_unfinished_records)
from .reporter import Alert, Message, Notice, Reporter
from .schedule import ScheduledMatch
from .store import ResultRow, Store
from .tasks import run_workers, uncancellable

_Outcome_co = TypeVar("_Outcome_co", covariant=True)
_Outcome = TypeVar("_Outcome")


class ExecutorFactory(Protocol):
    """Makes the executor of a run: ``(cfg, out, report, tracker, events, lobby)``.
    :func:`local_executor` plays in this process; the CLI hands down the Ray cluster's
    (:func:`arena.cluster.executor.ray_executor`) for ``[cluster] backend = "ray"``."""

    def __call__(self, cfg: TournamentConfig, out: Path, report: Reporter,
                 tracker: ProcessTracker | None, events: EventSink | None,
                 lobby: LobbyPlan | None) -> MatchExecutor: ...


@dataclass
class Tally:
    """What a run played: matches stored now, their faults, matches deferred per absent
    remote bot (:mod:`.lobby`), and the executor's disqualification lines."""

    played: int = 0
    faults: int = 0
    deferred: dict[str, int] = field(default_factory=dict)
    disqualified: tuple[str, ...] = ()


class Strategy(Protocol, Generic[_Outcome_co]):
    """Which matches a run plays and when it stops (see the module docstring)."""

    def schedule(self, store: Store, report: Reporter) -> None:
        """Write the run's schedule to a new store, or check (and grow) a stored one.

        Raises:
            StoreError, GrowthError: the directory holds another tournament."""

    def begin(self, store: Store, procs: ProcessTable, pending: list[ScheduledMatch],
              report: Reporter) -> list[ScheduledMatch] | None:
        """Called once the store is checked, with its pending matches: the matches to queue
        first (more may come from :meth:`refill`), or None to play nothing (report the run's
        start here)."""

    def executor_config(self) -> TournamentConfig:
        """The config the executor starts its bots from (the gauntlet adds a twin)."""

    def lobby(self, store: Store, pending: list[ScheduledMatch]) -> LobbyPlan | None:
        """Wait for remote bots before the first match (None: a no-show forfeits)."""

    async def refill(self) -> list[ScheduledMatch]:
        """More matches once none is pending (written to the store first); ``[]``: none."""

    def done(self) -> bool:
        """Start no further match (matches in flight still finish and are stored)."""

    def stored(self, m: ScheduledMatch, row: ResultRow, store: Store,
               report: Reporter) -> None:
        """One more match stored (the strategy reports it as it shows progress)."""

    def finish(self, store: Store, procs: ProcessTable, tally: Tally) -> _Outcome_co:
        """The run's outcome, from the store (still open) and what was played."""


def local_executor(cfg: TournamentConfig, out: Path, report: Reporter,
                   tracker: ProcessTracker | None, events: EventSink | None,
                   lobby: LobbyPlan | None) -> MatchExecutor:
    """:class:`~.local.LocalExecutor` for a run into ``out``: the output directory and the
    config file hidden from sandboxed bots, its news to ``report`` (:class:`Message`, its
    warnings as :class:`Alert`); ``lobby``: wait for the remote bots first and defer the
    matches of one that does not come (:class:`~.local.MatchDeferred`).

    Raises:
        ValueError: ``cfg`` asks for the Ray backend (its factory comes from the CLI).
    """
    if cfg.cluster.backend != "local":
        raise ValueError(f'[cluster] backend = "{cfg.cluster.backend}" needs its executor '
                         "factory (arena.cluster.executor.ray_executor)")
    hide = [out] if cfg.source is None else [out, cfg.source]    # the config: tokens

    def message(text: str) -> None:
        report(Message(text))

    def alert(text: str) -> None:
        report(Alert(text))

    return LocalExecutor(cfg, out / "logs", message, on_warning=alert, tracker=tracker,
                         events=events, hide=hide, lobby=lobby, defer_absent=lobby is not None)


async def drive(strategy: Strategy[_Outcome], cfg: TournamentConfig, out: Path,
                report: Reporter, *, executors: ExecutorFactory | None = None,
                on_match: Callable[[ScheduledMatch], None] | None = None,
                events: EventSink | None = None) -> _Outcome:
    """Run ``strategy`` into ``out`` (see the module docstring) and return its outcome.

    Args:
        executors: makes the executor (default :func:`local_executor`).
        on_match: called after each match is stored (tests use it to interrupt).
        events: sink of :mod:`arena.events` for the live page; it must not block.

    Raises:
        OutDirError: ``out`` cannot be used or another arena runs on it. StoreError: it holds
        another tournament. PreflightError, ServerStartError, ClusterError: from the
        executor's start (nothing is played).
    """
    make = executors or local_executor
    with out_dir_lock(out), Store(out / "results.sqlite") as store:
        prepare_out_dir(out)  # we hold the directory's lock: no other writer
        strategy.schedule(store, report)
        store.results()        # every stored row is checked before anything is played
        procs = ProcessTable(store.db)
        left = procs.end_leftovers()  # an arena that died on this directory left them
        if left:
            report(Notice(leftovers_notice(left, out)))
        pending = store.pending()
        sweep_unfinished_records(out, pending)
        tally = Tally()
        queue = strategy.begin(store, procs, pending, report)
        if queue is not None:
            executor = make(strategy.executor_config(), out, report, procs, events,
                            strategy.lobby(store, queue))
            try:
                await _play(strategy, cfg, out, store, executor, queue, tally, report,
                            on_match, events)
            finally:
                tally.disqualified = tuple(executor.disqualifications)
                # shielded: a cancellation arriving now must not cut the bots' shutdown short
                await asyncio.shield(executor.close())
        return strategy.finish(store, procs, tally)


async def _play(strategy: Strategy[_Outcome], cfg: TournamentConfig, out: Path, store: Store,
                executor: MatchExecutor, pending: list[ScheduledMatch], tally: Tally,
                report: Reporter, on_match: Callable[[ScheduledMatch], None] | None,
                events: EventSink | None) -> None:
    """Start ``executor`` and play on ``executor.slots`` workers (see the module
    docstring), storing each finished match whole before the next is taken."""
    queue: asyncio.Queue[ScheduledMatch] = asyncio.Queue()
    for m in pending:
        queue.put_nowait(m)

    async def worker() -> None:
        while not strategy.done():
            if queue.empty():
                for new in await strategy.refill():
                    queue.put_nowait(new)
            if queue.empty() or strategy.done():
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
            if events is not None:
                events(done.finished())
            tally.played += 1
            tally.faults += sum(done.row.faults)
            if on_match is not None:
                on_match(m)
            strategy.stored(m, done.row, store, report)

    await executor.start()      # the pre-flight check first: its errors alone
    report(Notice(sandbox_banner(cfg)))
    await run_workers(worker, executor.slots)
