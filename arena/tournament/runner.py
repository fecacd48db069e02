"""The tournament runner: schedule -> store -> gRPC server -> bot pool -> concurrent matches ->
records + results -> standings (issue 4).

Output directory layout::

    OUT/results.sqlite        schedule and one row per finished match (resume reads it)
    OUT/records/<match>.jsonl.gz   one record per match (docs/records.md), written atomically
    OUT/logs/<bot>.log        each bot's stdout/stderr
    OUT/standings.{md,csv,json}

Spawned bots connect over the arena's Unix socket (a private 0700 temporary directory, removed
at the end) and run in the ``[sandbox]`` mode of their config (:mod:`arena.sandbox`; the mode is
printed at the start); remote bots use the TCP address.

Every spawned bot process is ended on a normal end, an error, Ctrl-C or SIGTERM (the CLI turns
SIGTERM into cancellation, which runs the ``finally`` blocks here).
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from ..match import MatchResult, MatchSpec, run_match
from ..protocol.server import ArenaServer
from ..records import record_from_result, write_record
from ..records.codec import atomic_write_bytes
from ..sandbox import Launcher, SocketDir, Usage
from ..sandbox.config import describe, effective
from .config import TournamentConfig
from .pool import BotPool
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
    """standings.md / .csv / .json in ``out`` (atomic each)."""
    for fmt in ("md", "csv", "json"):
        atomic_write_bytes(out / f"standings.{fmt}", format_standings(st, fmt).encode("utf-8"))


def sweep_temp_files(out: Path) -> int:
    """Remove temp files a killed arena left behind (``.<name>.<random>.tmp`` beside records
    and standings; the real files are only ever replaced whole). Returns how many."""
    stale = list((out / "records").glob(".*.tmp")) + list(out.glob(".standings.*.tmp"))
    for p in stale:
        p.unlink(missing_ok=True)
    return len(stale)


class OutDirError(UserError):
    """The output directory cannot be used (not creatable, or another arena holds it)."""


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
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=sys.stderr, flush=True)

    def advance(self, m: ScheduledMatch, result: MatchResult) -> None:
        self.done += 1
        self.faults += sum(result.faults)
        if self.bar is not None:
            self.bar.update(self.task, advance=1, faults=self.faults)
        elif self.enabled:
            places = " ".join(f"{n}:{p}" for n, p in zip(m.seats, result.placings))
            print(f"[{self.done}/{self.total}] {m.match_id} {places}"
                  + (f" faults {sum(result.faults)}" if any(result.faults) else ""),
                  file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


async def run_tournament(cfg: TournamentConfig, out: Path, *, progress: bool = True,
                         on_match: Callable[[ScheduledMatch], None] | None = None
                         ) -> TournamentOutcome:
    """Run (or resume) the tournament of ``cfg`` into directory ``out``.

    Args:
        cfg: validated config. out: output directory (created).
        progress: show a progress bar / lines on stderr.
        on_match: called after each match is stored (tests use it to interrupt).

    Raises:
        OutDirError: ``out`` cannot be created or another arena runs on it.
        StoreError: ``out`` holds another tournament. ServerStartError: cannot bind.
    """
    lock = lock_out_dir(out)
    try:
        return await _run_locked(cfg, out, progress, on_match)
    finally:
        os.close(lock)   # releases the lock


async def _run_locked(cfg: TournamentConfig, out: Path, progress: bool,
                      on_match: Callable[[ScheduledMatch], None] | None) -> TournamentOutcome:
    (out / "records").mkdir(exist_ok=True)
    (out / "logs").mkdir(exist_ok=True)
    sweep_temp_files(out)  # we hold the directory's lock: no other writer
    names = [b.name for b in cfg.bots]
    rules = cfg.rules_config()
    with Store(out / "results.sqlite") as store:
        schedule = make_schedule(names, cfg.tournament.deals_per_table, cfg.tournament.seed)
        store.init_schedule(cfg.fingerprint(), cfg.tournament.name, schedule)
        pending = store.pending()
        scheduled = store.scheduled_count()
        prog = _Progress(scheduled, scheduled - len(pending), progress)
        played = 0
        disqualified: list[str] = []
        if pending:
            print(sandbox_banner(cfg), file=sys.stderr, flush=True)
            sockdir = SocketDir()
            server = ArenaServer(cfg.server.bind,
                                 register_timeout_s=cfg.faults.register_timeout_s,
                                 unix_socket=sockdir.socket)
            try:
                port = await server.start()
            except BaseException:
                sockdir.close()
                raise
            address = server_address(cfg.server.bind, port)
            remote = [b.name for b in cfg.bots if b.remote]
            if remote:  # shown even with --quiet: remote bots need the address
                print(f"arena listening on {address}; remote bots ({', '.join(remote)}) join "
                      f"with --arena {address} --token <their token>", file=sys.stderr,
                      flush=True)
            launcher = Launcher(cfg.sandbox, cfg.bots, socket=sockdir.socket, hide=[out],
                                on_event=prog.message)
            # spawned bots dial the Unix socket; TCP is for remote bots
            pool = BotPool(server, cfg.bots, server.unix_address or address, out / "logs",
                           slots=cfg.tournament.concurrency,
                           register_timeout_s=cfg.faults.register_timeout_s,
                           max_crashes=cfg.faults.max_crashes, on_event=prog.message,
                           launcher=launcher)
            queue: asyncio.Queue[ScheduledMatch] = asyncio.Queue()
            for m in pending:
                queue.put_nowait(m)

            async def worker() -> None:
                nonlocal played
                while not queue.empty():
                    m = queue.get_nowait()
                    result, usage = await _play_one(cfg, rules, m, pool, launcher)
                    path = out / "records" / f"{m.match_id}.jsonl.gz"
                    record = record_from_result(result)
                    await asyncio.to_thread(write_record, record, path)
                    store.save_result(result_row(m, result, str(path.relative_to(out)), usage),
                                      result.started_at, result.ended_at)
                    played += 1
                    prog.advance(m, result)
                    if on_match is not None:
                        on_match(m)

            try:
                await asyncio.gather(*(worker() for _ in range(cfg.tournament.concurrency)))
            finally:
                prog.close()
                disqualified = pool.disqualifications
                # shielded: a cancellation arriving now must not cut the bots' shutdown short
                await asyncio.shield(_shutdown(pool, server, launcher, sockdir))
        standings = compute_standings(store.results(), names)
    write_standings(out, standings)
    return TournamentOutcome(played, scheduled, scheduled - len(pending), standings, out,
                             prog.faults, tuple(disqualified))


def sandbox_banner(cfg: TournamentConfig) -> str:
    """The line printed at the start of a run: the sandbox mode in force and its limits,
    and the bots whose own settings differ."""
    line = describe(cfg.sandbox)
    own = [f"{b.name}: {effective(cfg.sandbox, b.sandbox).mode}" for b in cfg.bots
           if not b.remote and b.sandbox is not None]
    return line + (f"; per bot: {', '.join(own)}" if own else "")


async def _shutdown(pool: BotPool, server: ArenaServer, launcher: Launcher,
                    sockdir: SocketDir) -> None:
    try:
        await pool.close()
    finally:
        try:
            await launcher.close()
            await server.stop()
        finally:
            sockdir.close()


async def _play_one(cfg: TournamentConfig, rules, m: ScheduledMatch,  # noqa: ANN001
                    pool: BotPool, launcher: Launcher
                    ) -> tuple[MatchResult, list[Usage | None]]:
    spec = MatchSpec(match_id=m.match_id, cfg=rules, seed=m.seed,
                     time_ms=cfg.time.per_decision_ms, grace_ms=cfg.time.grace_ms,
                     time_bank_ms=cfg.time.bank_ms or None, max_faults=cfg.faults.max_faults)
    leased = await pool.acquire(m.seats)
    result = None
    try:
        procs = [inst.proc if inst is not None else None for _, inst, _ in leased]
        await launcher.begin([(p, bot) for p, (_, _, bot) in zip(procs, leased)])
        result = await run_match(spec, [bot for _, _, bot in leased])
        return result, await launcher.end(procs)
    finally:
        for i, (name, inst, _) in enumerate(leased):
            forfeit = result.forfeit_reasons[i] if result is not None else "arena stopped"
            await pool.release(name, inst, forfeit)
