"""The tournament runner: schedule -> store -> gRPC server -> bot pool -> concurrent matches ->
records + results -> standings (issue 4).

Output directory layout::

    OUT/results.sqlite        schedule and one row per finished match (resume reads it)
    OUT/records/<match>.jsonl.gz   one record per match (docs/records.md), written atomically
    OUT/logs/<bot>.log        each bot's stdout/stderr
    OUT/standings.{md,csv,json}   the standings (ratings plus arena columns)
    OUT/los.csv, OUT/headtohead.csv   likelihood of superiority, head-to-head (one table each)

Spawned bots connect over the arena's Unix socket (a private 0700 temporary directory, removed
at the end) and run in the ``[sandbox]`` mode of their config (:mod:`arena.sandbox`; the mode is
printed at the start); remote bots use the TCP address.

Every spawned bot process is ended on a normal end, an error, Ctrl-C or SIGTERM (the CLI turns
SIGTERM into cancellation, which runs the ``finally`` blocks here).
"""

from __future__ import annotations

import asyncio
import fcntl
import gzip
import logging
import os
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..events import EventSink, MatchFinished, decision_hook
from ..match import MatchResult, MatchSpec, run_match
from ..protocol.server import ArenaServer
from ..records import record_from_result
from ..ratings.formatting import CSV_FILES, H2H_COLUMNS, LOS_COLUMNS, csv_tables
from ..records.codec import atomic_write_bytes, dumps_record
from ..safetext import printable
from ..sandbox import Launcher, SocketDir, Usage
from ..sandbox.config import describe, effective
from .config import BotEntry, TournamentConfig
from .executor import MatchExecutor, PlayedMatch, record_relpath
from .growth import prepare_schedule
from .pool import BotPool, ProcessTracker
from .preflight import preflight
from .proctable import ProcessTable
from .schedule import ScheduledMatch, make_schedule
from .standings import Standings, compute_standings, format_standings
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


def server_address(bind: str, port: int) -> str:
    """The address bots should dial: the bound host (loopback for wildcard binds) and port."""
    host = bind.rpartition(":")[0]
    if host in ("0.0.0.0", "[::]", "::", ""):
        host = "127.0.0.1"
    return f"{host}:{port}"


def lock_out_dir(out: Path) -> int:
    """Create ``out`` and hold an exclusive lock on ``out/.arena.lock`` (released when the
    process exits), so two arenas never write the same tournament.

    Raises:
        OutDirError: the directory cannot be created or another arena holds the lock.
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd = os.open(out / ".arena.lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise OutDirError(f"cannot use output directory {out}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise OutDirError(f"another arena is running on {out}; wait for it or use another "
                          "--out directory") from None
    return fd


def result_row(m: ScheduledMatch, result: MatchResult, record: str,
               usage: list[Usage | None] | None = None) -> ResultRow:
    """The store row of a finished match (``usage``: per seat, the sandbox's accounting)."""
    usage = usage or [None, None, None]
    return ResultRow(
        m.match_id, m.block_id, m.seats, result.termination, tuple(result.placings),
        result.scores, tuple(result.faults), tuple(result.forfeited),
        tuple(result.forfeit_reasons), result.state.end_reason, result.state.hand_number,
        tuple(result.decisions_asked), tuple(round(t, 3) for t in result.think_ms), record,
        tuple(u.cpu_s if u else None for u in usage),  # type: ignore[arg-type]
        tuple(u.peak_mib if u else None for u in usage))  # type: ignore[arg-type]


def write_standings(out: Path, st: Standings) -> None:
    """standings.md / .csv / .json, and los.csv / headtohead.csv (one table per CSV file;
    header only while there are no ratings) in ``out`` (atomic each)."""
    for fmt in ("md", "csv", "json"):
        atomic_write_bytes(out / f"standings.{fmt}", format_standings(st, fmt).encode("utf-8"))
    tables = csv_tables(st.ratings) if st.ratings is not None else {
        CSV_FILES["los"]: ",".join(LOS_COLUMNS) + "\n",
        CSV_FILES["head_to_head"]: ",".join(H2H_COLUMNS) + "\n"}
    for name in (CSV_FILES["los"], CSV_FILES["head_to_head"]):
        atomic_write_bytes(out / name, tables[name].encode("utf-8"))


def sweep_temp_files(out: Path) -> int:
    """Remove temp files a killed arena left behind (``.<name>.<random>.tmp`` beside records
    and standings; the real files are only ever replaced whole). Returns how many."""
    stale = list((out / "records").glob(".*.tmp")) + list(out.glob(".*.tmp"))
    for p in stale:
        p.unlink(missing_ok=True)
    return len(stale)


class OutDirError(UserError):
    """The output directory cannot be used (not creatable, or another arena holds it)."""


class PreflightError(UserError):
    """A bot command cannot start (checked before the first match); one line per bot."""


def check_bots(cfg: TournamentConfig) -> None:
    """The pre-flight check of every spawned bot's command (:mod:`.preflight`).

    Raises:
        PreflightError: naming each bot that cannot start and why.
    """
    problems = preflight(cfg.bots)
    if problems:
        raise PreflightError("; ".join(problems) + " (nothing was played)")


def max_connections(cfg: TournamentConfig, slots: int | None = None,
                    bots: Sequence[BotEntry] | None = None) -> int:
    """The server's connection cap: every bot instance (``slots`` per spawned bot, default
    the tournament's concurrency; ``bots``, default the config's), plus as many waiting to
    register (restarts overlap) and the unregistered allowance."""
    from ..protocol.limits import MAX_UNREGISTERED
    per_bot = slots or cfg.tournament.concurrency
    instances = sum(1 if b.remote else per_bot for b in (cfg.bots if bots is None else bots))
    return 2 * instances + MAX_UNREGISTERED


class _Progress:
    """A rich progress bar on a terminal; plain lines otherwise (CI, pipes)."""

    def __init__(self, total: int, done: int, enabled: bool) -> None:
        self.total, self.done, self.faults = total, done, 0
        self.enabled = enabled
        self.bar = None
        self.t0 = time.monotonic()
        if enabled and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)
            self.bar = Progress(TextColumn("[bold]matches"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("faults {task.fields[faults]}"), TimeElapsedColumn(),
                                TextColumn("ETA"), TimeRemainingColumn(),
                                console=Console(stderr=True), transient=False)
            self.task = self.bar.add_task("matches", total=total, completed=done, faults=0)
            self.bar.start()

    def message(self, text: str) -> None:
        logging.getLogger("arena.tournament").info("%s", text)   # also in OUT/arena.log
        if not self.enabled:
            return
        text = printable(text)   # it may quote a bot's log line
        if self.bar is not None:
            self.bar.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=sys.stderr, flush=True)

    def advance(self, m: ScheduledMatch, result: ResultRow) -> None:
        self.done += 1
        self.faults += sum(result.faults)
        logging.getLogger("arena.tournament").info(
            "match %s done: placings %s, faults %s", m.match_id,
            dict(zip(m.seats, result.placings)), list(result.faults))
        if self.bar is not None:
            self.bar.update(self.task, advance=1, faults=self.faults)
        elif self.enabled:
            places = " ".join(f"{n}:{p}" for n, p in zip(m.seats, result.placings))
            print(f"[{self.done}/{self.total}] {m.match_id} {places}"
                  + (f" faults {sum(result.faults)}" if any(result.faults) else ""),
                  file=sys.stderr, flush=True)

    def warning(self, text: str) -> None:
        """A security or process warning: always shown (even with --quiet)."""
        line = f"arena: WARNING: {text}"
        if self.bar is not None:
            self.bar.console.print(line, markup=False, highlight=False, style="bold red")
        else:
            print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


async def run_tournament(cfg: TournamentConfig, out: Path, *, progress: bool = True,
                         on_match: Callable[[ScheduledMatch], None] | None = None,
                         events: EventSink | None = None) -> TournamentOutcome:
    """Run (or resume) the tournament of ``cfg`` into directory ``out``.

    Args:
        cfg: validated config. out: output directory (created).
        progress: show a progress bar / lines on stderr.
        on_match: called after each match is stored (tests use it to interrupt).
        events: optional sink of :mod:`arena.events` (match started, decision applied, match
            finished); it must not block (the live page's ``EventBus.publish``).

    Raises:
        OutDirError: ``out`` cannot be created or another arena runs on it.
        StoreError: ``out`` holds another tournament. ServerStartError: cannot bind.
    """
    lock = lock_out_dir(out)
    try:
        return await _run_locked(cfg, out, progress, on_match, events)
    finally:
        os.close(lock)   # releases the lock


async def _run_locked(cfg: TournamentConfig, out: Path, progress: bool,
                      on_match: Callable[[ScheduledMatch], None] | None,
                      events: EventSink | None = None) -> TournamentOutcome:
    names = [b.name for b in cfg.bots]
    with Store(out / "results.sqlite") as store:   # refuses a file that is not a store
        (out / "records").mkdir(exist_ok=True)
        (out / "logs").mkdir(exist_ok=True)
        sweep_temp_files(out)  # we hold the directory's lock: no other writer
        schedule = make_schedule(names, cfg.tournament.deals_per_table, cfg.tournament.seed,
                                 schedule=cfg.tournament.schedule,
                                 pair_meetings=cfg.tournament.pair_meetings)
        growth = prepare_schedule(store, cfg, schedule)   # a new, resumed or grown league
        if growth.added:
            print(f"arena: {growth.summary()}", file=sys.stderr, flush=True)
        store.results()        # every stored row is checked before anything is played
        procs = ProcessTable(store.db)
        left = procs.end_leftovers()  # an arena that died on this directory left them
        if left:
            print(f"arena: ended {left} bot process{'es' if left > 1 else ''} left running by "
                  f"an earlier arena on {out}", file=sys.stderr, flush=True)
        pending = store.pending()
        sweep_unfinished_records(out, pending)
        scheduled = store.scheduled_count()
        prog = _Progress(scheduled, scheduled - len(pending), progress)
        played = 0
        disqualified: list[str] = []
        if pending:
            executor = make_executor(cfg, out, prog, procs, events)
            queue: asyncio.Queue[ScheduledMatch] = asyncio.Queue()
            for m in pending:
                queue.put_nowait(m)

            async def worker() -> None:
                nonlocal played
                while not queue.empty():
                    m = queue.get_nowait()
                    done = await executor.play(m)
                    # finished normally: the record and its row are written even if the run
                    # is being cancelled meanwhile (a cancelled match never gets here)
                    await _uncancellable(_save(out, store, done))
                    if events is not None:
                        row = done.row
                        events(MatchFinished(m.match_id, m.seats, tuple(row.placings),
                                             tuple(row.scores), row.record))
                    played += 1
                    prog.advance(m, done.row)
                    if on_match is not None:
                        on_match(m)

            try:
                await executor.start()      # the pre-flight check first: its errors alone
                print(sandbox_banner(cfg), file=sys.stderr, flush=True)
                await _run_workers(worker, executor.slots)
            finally:
                prog.close()
                disqualified = executor.disqualifications
                # shielded: a cancellation arriving now must not cut the bots' shutdown short
                await asyncio.shield(executor.close())
        absent = procs.never_started()
        notes = {b.name: "did not connect" if b.remote else "never started"
                 for b in cfg.bots if b.name in absent}
        standings = compute_standings(store.results(), names, absent=notes)
    write_standings(out, standings)
    return TournamentOutcome(played, scheduled, scheduled - len(pending), standings, out,
                             prog.faults, tuple(disqualified), tuple(absent.items()))


async def _save(out: Path, store: Store, done: PlayedMatch) -> None:
    """Write the record of a finished match (atomically), then its result row."""
    await asyncio.to_thread(atomic_write_bytes, out / done.row.record, done.record)
    store.save_result(done.row, done.started_at, done.ended_at)


async def _uncancellable(coro: Coroutine[Any, Any, None]) -> None:
    """Run ``coro`` to its end even when the caller is cancelled meanwhile, then pass the
    cancellation on (a finished match is stored whole or not at all)."""
    task = asyncio.ensure_future(coro)
    cancelled = False
    while True:
        try:
            await asyncio.shield(task)
            break
        except asyncio.CancelledError:
            if task.done():
                raise
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError


async def _run_workers(worker: Callable[[], Coroutine[Any, Any, None]], n: int) -> None:
    """Run ``n`` workers; when one fails, the others are cancelled (their matches are
    abandoned, never stored) and the first error is raised as itself."""
    try:
        async with asyncio.TaskGroup() as tg:
            for _ in range(n):
                tg.create_task(worker())
    except BaseExceptionGroup as group:
        raise group.exceptions[0]  # noqa: B904 - the error itself, its traceback intact


def sweep_unfinished_records(out: Path, pending: list[ScheduledMatch]) -> int:
    """Remove record files of matches without a result row (the arena was killed between
    writing a record and committing its row): only stored results have records. Returns how
    many."""
    n = 0
    for m in pending:
        path = out / "records" / f"{m.match_id}.jsonl.gz"
        if path.exists():
            path.unlink()
            n += 1
    return n


def make_executor(cfg: TournamentConfig, out: Path, prog: _Progress,
                  tracker: ProcessTracker | None,
                  events: EventSink | None = None) -> MatchExecutor:
    """The executor ``[cluster] backend`` asks for: :class:`LocalExecutor` or Ray's (whose
    bots run on the cluster's nodes: not in ``tracker``; it publishes no per-decision
    ``events``, only the runner's match finished)."""
    if cfg.cluster.backend == "ray":
        from ..cluster.executor import RayExecutor
        return RayExecutor(cfg, out, prog.message)
    return LocalExecutor(cfg, out / "logs", prog.message, on_warning=prog.warning,
                         tracker=tracker, events=events, hide=[out])


def played_from_result(m: ScheduledMatch, result: MatchResult,
                       usage: list[Usage | None] | None = None) -> PlayedMatch:
    """The store row and record bytes of ``result`` (the bytes ``write_record`` would write:
    gzip with ``mtime=0``, so equal games give equal files); ``usage``: per seat, the
    sandbox's CPU / peak-memory accounting."""
    data = gzip.compress(dumps_record(record_from_result(result)).encode("utf-8"),
                         compresslevel=6, mtime=0)
    return PlayedMatch(result_row(m, result, record_relpath(m.match_id), usage),
                       result.started_at,
                       result.ended_at, data)


class LocalExecutor:
    """Plays matches in this process: the pre-flight check, one gRPC server, one bot pool
    with ``slots`` instances per bot (``tournament.concurrency`` unless given). A Ray worker
    runs one per actor. ``bots``: the bots to start (default the config's; a gauntlet adds a
    twin of a one-bot field).

    Raises (from ``start``): PreflightError, ServerStartError.
    """

    def __init__(self, cfg: TournamentConfig, log_dir: Path, on_event: Callable[[str], None],
                 *, slots: int | None = None, bind: str | None = None,
                 on_warning: Callable[[str], None] | None = None,
                 tracker: ProcessTracker | None = None,
                 events: EventSink | None = None,
                 bots: Sequence[BotEntry] | None = None,
                 hide: list[Path] | None = None) -> None:
        self.cfg = cfg
        self.bots = list(cfg.bots if bots is None else bots)
        #: directories no sandboxed bot may see (the output directory; default: the logs)
        self.hide = hide if hide is not None else [log_dir]
        self.rules = cfg.rules_config()
        self.log_dir = log_dir
        self.on_event = on_event
        self.on_warning = on_warning or on_event
        self.tracker = tracker
        self.events = events
        self.slots = slots or cfg.tournament.concurrency
        self.bind = bind or cfg.server.bind
        self.server: ArenaServer | None = None
        self.pool: BotPool | None = None
        self.launcher: Launcher | None = None
        self.sockdir: SocketDir | None = None

    @property
    def disqualifications(self) -> list[str]:
        return self.pool.disqualifications if self.pool is not None else []

    async def start(self) -> None:
        cfg = self.cfg
        check_bots(cfg)
        self.sockdir = SocketDir()
        server = ArenaServer(self.bind, register_timeout_s=cfg.faults.register_timeout_s,
                             max_connections=max_connections(cfg, self.slots, self.bots),
                             on_warning=self.on_warning, tls=cfg.server.tls_config(),
                             unix_socket=self.sockdir.socket)
        try:
            port = await server.start()
        except BaseException:
            self.sockdir.close()
            self.sockdir = None
            raise
        self.server = server
        address = server_address(self.bind, port)
        remote = [b.name for b in self.bots if b.remote]
        if remote:  # shown even with --quiet: remote bots need the address
            # the token in the environment: a --token argument is readable in /proc
            print(f"arena listening on {address}; remote bots ({', '.join(remote)}) join "
                  f"with ARENA_TOKEN=<their token> in their environment and --arena "
                  f"{address}", file=sys.stderr, flush=True)
        self.launcher = Launcher(cfg.sandbox, self.bots, socket=self.sockdir.socket,
                                 hide=self.hide, on_event=self.on_event)
        # spawned bots dial the Unix socket (plaintext in a private 0700 directory: no TLS
        # files for them); TCP, with TLS when configured, is for remote bots
        self.pool = BotPool(server, self.bots, server.unix_address or address, self.log_dir,
                            slots=self.slots, register_timeout_s=cfg.faults.register_timeout_s,
                            max_crashes=cfg.faults.max_crashes, on_event=self.on_event,
                            tracker=self.tracker,
                            extra_env={} if server.unix_address else cfg.server.bot_env(),
                            launcher=self.launcher)

    async def play(self, m: ScheduledMatch) -> PlayedMatch:
        result, usage = await _play_one(self.cfg, self.rules, m, self.pool, self.launcher,
                                        self.events)
        return await asyncio.to_thread(played_from_result, m, result, usage)

    async def close(self) -> None:
        if self.pool is not None:
            await _shutdown(self.pool, self.server, self.launcher, self.sockdir)
        else:
            try:
                if self.server is not None:
                    await self.server.stop()
            finally:
                if self.sockdir is not None:
                    self.sockdir.close()


def sandbox_banner(cfg: TournamentConfig) -> str:
    """The line printed at the start of a run: the sandbox mode in force and its limits,
    and the bots whose own settings differ."""
    line = describe(cfg.sandbox)
    own = [f"{b.name}: {effective(cfg.sandbox, b.sandbox).mode}" for b in cfg.bots
           if not b.remote and b.sandbox is not None]
    return line + (f"; per bot: {', '.join(own)}" if own else "")


async def _shutdown(pool: BotPool, server: ArenaServer, launcher: Launcher | None,
                    sockdir: SocketDir | None) -> None:
    try:
        await pool.close()
    finally:
        try:
            if launcher is not None:
                await launcher.close()
            await server.stop()
        finally:
            if sockdir is not None:
                sockdir.close()


async def _play_one(cfg: TournamentConfig, rules, m: ScheduledMatch,
                    pool: BotPool, launcher: Launcher, events: EventSink | None = None
                    ) -> tuple[MatchResult, list[Usage | None]]:
    spec = MatchSpec(match_id=m.match_id, cfg=rules, seed=m.seed,
                     time_ms=cfg.time.per_decision_ms, grace_ms=cfg.time.grace_ms,
                     time_bank_ms=cfg.time.bank_ms or None, max_faults=cfg.faults.max_faults)
    leased = await pool.acquire(m.seats)
    result = None
    try:
        procs = [inst.proc if inst is not None else None for _, inst, _ in leased]
        await launcher.begin([(p, bot) for p, (_, _, bot) in zip(procs, leased)])
        hook = decision_hook(events, m.match_id, m.seats)
        bots = [bot for _, _, bot in leased]
        result = await (run_match(spec, bots) if hook is None else
                        run_match(spec, bots, on_decision=hook))
        return result, await launcher.end(procs)
    finally:
        for i, (name, inst, bot) in enumerate(leased):
            forget = getattr(bot, "forget_match", None)
            if forget is not None:  # also when the match was stopped before its end
                forget(m.match_id)
            forfeit = result.forfeit_reasons[i] if result is not None else "arena stopped"
            await pool.release(name, inst, forfeit)
