"""Matches played in this process (``[cluster] backend = "local"``, and each Ray worker):
the pre-flight check of the bot commands, one gRPC server (TCP for remote bots, a private Unix
socket for spawned ones), one bot pool, and per match: lease three bots, start the sandbox's
accounting, run the match, hand back the :class:`~arena.tournament.executor.PlayedMatch`.

Spawned bots connect over the arena's Unix socket (a private 0700 temporary directory, removed
at the end) and run in the ``[sandbox]`` mode of their config (:mod:`arena.sandbox`; the mode is
printed at the start, :func:`sandbox_banner`); remote bots use the TCP address.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..errors import UserError
from ..events import EventSink, decision_hook
from ..match import MatchOutcome, MatchSpec, run_match
from ..match.faults import FaultKind, Forfeit
from ..protocol.limits import MAX_UNREGISTERED
from ..protocol.server import ArenaServer
from ..rules import RulesConfig
from ..sandbox import Launcher, SocketDir, Usage
from ..sandbox.launch import EXIT_SETTLE_S
from ..sandbox.watch import LOG_NAMES, SANDBOX_STOP
from ..sandbox.config import auto_fallback_warning, describe, effective, resolve
from .config import BotEntry, TournamentConfig
from .executor import PlayedMatch, played_from_result
from .lobby import LobbyState, wait_for_remote
from ..processes.pool import AbsentBot, BotPool, ProcessTracker, last_log_line
from .preflight import preflight
from ..processes.spawn import describe_exit
from .schedule import ScheduledMatch


def server_address(bind: str, port: int) -> str:
    """The address bots should dial: the bound host (loopback for wildcard binds) and port."""
    host = bind.rpartition(":")[0]
    if host in ("0.0.0.0", "[::]", "::", ""):
        host = "127.0.0.1"
    return f"{host}:{port}"


class PreflightError(UserError):
    """A bot command cannot start (checked before the first match); one line per bot."""


def check_bots(cfg: TournamentConfig) -> None:
    """The pre-flight check of every spawned bot's command (:mod:`.preflight`).

    Raises:
        PreflightError: one line per bot that cannot start and why, then one line saying
            nothing was played.
    """
    problems = preflight(cfg.bots)
    if problems:
        raise PreflightError("\n".join([*problems, "nothing was played; fix the command and "
                                         "run again (the same --out directory is fine)"]))


def max_connections(cfg: TournamentConfig, slots: int | None = None,
                    bots: Sequence[BotEntry] | None = None) -> int:
    """The server's connection cap: every bot instance (``slots`` per spawned bot, default
    the tournament's concurrency; ``bots``, default the config's), plus as many waiting to
    register (restarts overlap) and the unregistered allowance."""
    per_bot = slots or cfg.tournament.concurrency
    instances = sum(1 if b.remote else per_bot for b in (cfg.bots if bots is None else bots))
    return 2 * instances + MAX_UNREGISTERED


class MatchDeferred(Exception):
    """A match was not played: a remote bot of it is absent (did not connect; see
    :mod:`.lobby`). Nothing is stored: the match stays pending for a later run."""

    def __init__(self, match_id: str, absent: Sequence[str]) -> None:
        super().__init__(f"match {match_id} deferred: {', '.join(map(repr, absent))} "
                         "not connected")
        self.match_id, self.absent = match_id, tuple(absent)


@dataclass(frozen=True)
class LobbyPlan:
    """Before the first match, wait up to ``limit_s`` seconds for the remote ``bots`` (those
    with a pending match) to connect; ``publish`` gets each :class:`~.lobby.LobbyState`
    (None at the end): see :mod:`.lobby`."""

    bots: tuple[str, ...]
    limit_s: float
    publish: Callable[[LobbyState | None], None] = lambda state: None


class LocalExecutor:
    """Plays matches in this process: the pre-flight check, one gRPC server, one bot pool
    with ``slots`` instances per bot (``tournament.concurrency`` unless given). A Ray worker
    runs one per actor. The bots started are the config's (a gauntlet's config has the twin
    of a one-bot field among them). ``lobby``: wait for remote bots before the first match;
    ``defer_absent``: a match with an absent remote bot raises :class:`MatchDeferred` from
    :meth:`play` instead of being played with its seat forfeited (:mod:`.lobby`).

    Raises (from ``start``): PreflightError, ServerStartError.
    """

    def __init__(self, cfg: TournamentConfig, log_dir: Path, on_event: Callable[[str], None],
                 *, slots: int | None = None, bind: str | None = None,
                 on_warning: Callable[[str], None] | None = None,
                 tracker: ProcessTracker | None = None,
                 events: EventSink | None = None,
                 hide: list[Path] | None = None, lobby: LobbyPlan | None = None,
                 defer_absent: bool = False, spare: int = 0) -> None:
        self.cfg = cfg
        #: bots :meth:`add_bots` may add beyond the config's (the server's connection cap
        #: is sized for them at the start)
        self.spare = spare
        self.lobby = lobby
        self.defer_absent = defer_absent
        self.bots = list(cfg.bots)
        #: directories no sandboxed bot may see (the output directory; default: the logs)
        self.hide = hide if hide is not None else [log_dir]
        self.rules = cfg.rules_config()
        self.log_dir = log_dir
        self.on_event = on_event
        self.on_warning = on_warning or on_event
        self.tracker = tracker
        self.events = events
        #: the live views show no card nor choice: the tournament has a remote bot (its owner
        #: can watch the page), or whoever made this executor says so (a league)
        self.hide_cards = any(b.remote for b in cfg.bots)
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
                             max_connections=max_connections(cfg, self.slots, self.bots)
                             + 2 * self.spare * self.slots,
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
            print(listening_line(address, cfg, remote), file=sys.stderr, flush=True)
        self.launcher = Launcher(cfg.sandbox, self.bots, socket=self.sockdir.socket,
                                 hide=self.hide, on_event=self.on_event)
        # spawned bots dial the Unix socket (plaintext in a private 0700 directory: no TLS
        # files for them); TCP, with TLS when configured, is for remote bots
        self.pool = BotPool(server, self.bots, server.unix_address or address, self.log_dir,
                            slots=self.slots, register_timeout_s=cfg.faults.register_timeout_s,
                            max_crashes=cfg.faults.max_crashes, on_event=self.on_event,
                            tracker=self.tracker,
                            extra_env={} if server.unix_address else cfg.server.bot_env(),
                            launcher=self.launcher, defer_absent=self.defer_absent)
        if self.lobby is not None and self.lobby.bots:
            await self._wait_in_lobby(self.lobby, self.pool, server)

    async def _wait_in_lobby(self, lobby: LobbyPlan, pool: BotPool, server: ArenaServer) -> None:
        """The lobby (:mod:`.lobby`): its lines on stderr (shown even with ``--quiet``, as
        the address is), the bots that did not come marked absent in ``pool``."""
        def say(text: str) -> None:
            print(f"arena: {text}", file=sys.stderr, flush=True)
        entries = [b for b in self.bots if b.name in lobby.bots]
        absent = await wait_for_remote(server, entries, lobby.limit_s, say, lobby.publish)
        for name in absent:
            pool.mark_absent(name, f"remote bot {name!r} did not connect within "
                                   f"{lobby.limit_s:g} s")

    def add_bots(self, entries: Sequence[BotEntry]) -> bool:
        """Take more bots while playing (after :meth:`start`; a league's new versions): the
        pre-flight check of their commands, then the sandbox and the pool take them (a remote
        one's token is accepted from now on). False, and nothing changed, when the server's
        connection cap has no room for them (more than ``spare`` bots added beyond those
        retired): a new executor must take the roster.

        Raises:
            PreflightError: a new bot's command cannot start (none is added).
            RuntimeError: not started.
        """
        if self.pool is None or self.launcher is None:
            raise RuntimeError("LocalExecutor.add_bots before start")
        if len(entries) > self.spare:
            return False
        problems = preflight(list(entries))
        if problems:
            raise PreflightError("\n".join(problems))
        self.launcher.add(entries)
        self.pool.add(entries)
        self.bots.extend(entries)
        self.spare -= len(entries)
        return True

    async def retire_bots(self, names: Sequence[str]) -> None:
        """Keep no instance of ``names`` between matches any more (a league's retired
        versions; :meth:`BotPool.retire`): each frees the room of one bot for
        :meth:`add_bots`."""
        if self.pool is None:
            return
        for name in names:
            if any(b.name == name for b in self.bots):
                await self.pool.retire(name)
                self.bots = [b for b in self.bots if b.name != name]
                self.spare += 1

    def disqualified(self, name: str) -> str | None:
        """Why bot ``name`` is disqualified in this executor's pool, or None."""
        return self.pool.disqualified(name) if self.pool is not None else None

    async def play(self, m: ScheduledMatch) -> PlayedMatch:
        """Play ``m`` (after :meth:`start`). Raises RuntimeError when not started."""
        if self.pool is None or self.launcher is None:
            raise RuntimeError("LocalExecutor.play before start")
        absent = self.pool.absent_now(m.seats) if self.defer_absent else []
        if absent:
            raise MatchDeferred(m.match_id, absent)
        result, usage = await _play_one(self.cfg, self.rules, m, self.pool, self.launcher,
                                        self.hide_cards, self.events)
        return await asyncio.to_thread(played_from_result, m, result, usage)

    async def close(self) -> None:
        if self.pool is not None and self.server is not None:
            await _shutdown(self.pool, self.server, self.launcher, self.sockdir)
        else:
            try:
                if self.server is not None:
                    await self.server.stop()
            finally:
                if self.sockdir is not None:
                    self.sockdir.close()


def listening_line(address: str, cfg: TournamentConfig, remote: Sequence[str]) -> str:
    """``arena listening on HOST:PORT (TLS); remote bots (...) join with ...``: the address,
    whether the port speaks TLS (and wants client certificates), and what a remote bot's
    command needs."""
    server = cfg.server
    if server.tls_cert is None:
        how, flags = "plaintext: tokens travel in clear", ""
    elif server.client_ca is None:
        how, flags = "TLS", " --tls-ca CA.pem"
    else:
        how, flags = "TLS, client certificates required", \
            " --tls-ca CA.pem --tls-cert BOT.pem --tls-key BOT.key"
    return (f"arena listening on {address} ({how}); remote bots ({', '.join(remote)}) join "
            f"with ARENA_TOKEN=<their token> in their environment and --arena {address}"
            + flags)


def sandbox_banner(cfg: TournamentConfig) -> str:
    """The line printed at the start of a run: the sandbox mode in force and its limits,
    and the bots whose own settings differ."""
    line = describe(cfg.sandbox)
    own = [f"{b.name}: {resolve(effective(cfg.sandbox, b.sandbox)).mode}" for b in cfg.bots
           if not b.remote and b.sandbox is not None]
    line += f"; per bot: {', '.join(own)}" if own else ""
    modes = [effective(cfg.sandbox, b.sandbox).mode for b in cfg.bots if not b.remote]
    warning = auto_fallback_warning() if "auto" in modes else ""
    return line + (f"\nWARNING: {warning}" if warning else "")


async def _shutdown(pool: BotPool, server: ArenaServer, launcher: Launcher | None,
                    sockdir: SocketDir | None) -> None:
    try:
        await pool.close()
    finally:
        await close_transport(launcher, server, sockdir)


class _Stoppable(Protocol):
    def stop(self) -> Awaitable[None]: ...


async def close_transport(launcher: Launcher | None, server: _Stoppable,
                          sockdir: SocketDir | None) -> None:
    """After the bots: stop supervising them, stop the gRPC server, remove the Unix socket's
    directory (that last even when a step before it failed); also ``arena check-bot``'s."""
    try:
        if launcher is not None:
            await launcher.close()
        await server.stop()
    finally:
        if sockdir is not None:
            sockdir.close()


async def _name_lost_seats(result: MatchOutcome, procs: Sequence[object | None],
                           launcher: Launcher, logs: Sequence[Path | None]) -> None:
    """A seat lost mid-match (its stream ended) forfeits with what ended it. A sandbox limit
    (the kernel's: the stream ended before the exit was seen) is named as when the arena
    stops the bot (:meth:`Launcher.limit_fault`: ``"disconnect: stopped by the sandbox:
    memory limit 128 MiB reached"``, or what the bot's last log lines name); else a process
    that died is named by its exit status or signal and the last line of its output
    (``logs``: per seat, the bot's log), e.g. ``"disconnect: the bot's process died (exit
    status 139 (128 + SIGSEGV)); last line of its output: Segmentation fault"``. A process
    still running after :data:`EXIT_SETTLE_S` keeps the stream's reason."""
    forfeits = list(result.forfeits)
    for i, (f, proc) in enumerate(zip(forfeits, procs, strict=True)):
        if (f is None or proc is None or f.kind is not FaultKind.DISCONNECT
                or SANDBOX_STOP in f.detail or LOG_NAMES in f.detail):
            continue
        named = await launcher.limit_fault(proc)
        if named is None and isinstance(proc, asyncio.subprocess.Process):
            named = await _died(proc, logs[i])
        if named is not None:
            forfeits[i] = Forfeit.disconnect(named)
    result.forfeits = (forfeits[0], forfeits[1], forfeits[2])


async def _died(proc: asyncio.subprocess.Process, log: Path | None) -> str | None:
    """``"the bot's process died (...); last line of its output: ..."`` once ``proc`` has
    exited (waited up to :data:`EXIT_SETTLE_S`), None while it runs."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(proc.wait()), EXIT_SETTLE_S)
    if proc.returncode is None:
        return None
    last = last_log_line(log) if log is not None else ""
    return (f"the bot's process died ({describe_exit(proc.returncode)})"
            + (f"; last line of its output: {last}" if last else ""))


async def _play_one(cfg: TournamentConfig, rules: RulesConfig, m: ScheduledMatch,
                    pool: BotPool, launcher: Launcher, hide_cards: bool,
                    events: EventSink | None = None
                    ) -> tuple[MatchOutcome, list[Usage | None]]:
    spec = MatchSpec(match_id=m.match_id, cfg=rules, seed=m.seed,
                     time_ms=cfg.time.per_decision_ms, grace_ms=cfg.time.grace_ms,
                     time_bank_ms=cfg.time.bank_ms or None, max_faults=cfg.faults.max_faults)
    leased = await pool.acquire(m.seats)
    absent = [name for name, _, bot in leased if isinstance(bot, AbsentBot)]
    if absent:           # a remote bot did not come (defer_absent): nothing is played
        for name, inst, _ in leased:
            await pool.release(name, inst, None)
        raise MatchDeferred(m.match_id, absent)
    result = None
    try:
        procs = [inst.proc if inst is not None else None for _, inst, _ in leased]
        await launcher.begin([(p, bot) for p, (_, _, bot) in zip(procs, leased, strict=True)])
        # the live views' public table is read from the match's state between decisions;
        # with a remote bot (its owner can watch the page) the events show no card
        # (arena/events.py)
        hook = decision_hook(events, m.match_id, m.seats, hide_cards=hide_cards)
        bots = [bot for _, _, bot in leased]
        try:
            result = await (run_match(spec, bots) if hook is None else
                            run_match(spec, bots, on_decision=hook, watch=hook.watch))
        finally:
            if hook is not None:    # the last decisions, before the match's MatchFinished
                hook.close()
        await _name_lost_seats(result, procs, launcher,
                               [pool.log_path(name) for name, _, _ in leased])
        return result, await launcher.end(procs)
    finally:
        for i, (name, inst, bot) in enumerate(leased):
            forget = getattr(bot, "forget_match", None)
            if forget is not None:  # also when the match was stopped before its end
                forget(m.match_id)
            await pool.release(name, inst, result.forfeits[i] if result is not None else None)
