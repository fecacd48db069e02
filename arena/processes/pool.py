"""Bot processes: spawn, register, lease to matches, restart after crashes, never orphan.

Each configured bot gets up to ``slots`` instances (one per concurrent match, like cutechess's
one engine process per game); a remote bot has one. A match leases one instance of each of its
three bots (in name order, so two matches can never wait on each other). An instance is a
process under a supervisor (:mod:`arena.processes.spawn`: no process started for a bot
outlives the arena, whatever kills it), its stdout/stderr appended to ``logs/<bot>.log``
together with a line when each instance starts and ends. It is given the arena's address
(``--arena HOST:PORT`` appended to the command, or substituted for an ``{arena}`` placeholder;
also ``ARENA_ADDRESS``) and a fresh token **in the environment only** (``ARENA_TOKEN``, which
other users cannot read; an explicit ``{token}`` placeholder puts it on the command line, where
any local user can see it in ``/proc``). Registrations with that token are checked to come from
the process started for it (:mod:`arena.processes.peercheck`); one that does not is a warning.

A bot that does not register in time, whose command cannot start, or whose process dies counts
a **crash**; a remote bot that is not connected when a match needs it is waited for
``register_timeout_s`` and, if it does not come, **did not connect** (in ``defer_absent``
mode, the round-robin's: the match is deferred instead and nothing is counted, see
:mod:`arena.tournament.lobby`). Both count towards ``max_crashes``: when the count
**reaches** ``max_crashes`` the bot is **disqualified**, is no longer started or waited for,
and its remaining matches are forfeited (an :class:`UnavailableBot` sits in). An instance
that forfeited a match after timing out (it may hang) is killed and restarted too. At the
end (:meth:`BotPool.close`) every bot is sent ``Goodbye`` and given :data:`GOODBYE_GRACE_S`
to exit before it is signalled.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import secrets
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, UTC
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..match import Bot
from ..match.bot import DecisionRequest
from ..match.faults import FaultKind, Forfeit
from ..protocol.errors import redact
from ..safetext import printable
from .peercheck import check_peer, check_unix_peer
from .spawn import describe_exit, spawn, terminate
from .reaper import INSTANCE_ENV, ProcessRecord, kill_leftovers, start_ticks

if TYPE_CHECKING:
    from ..protocol.server import ArenaServer
    from ..sandbox import Launcher
    from ..sandbox.config import BotSandbox


class BotEntry(Protocol):
    """What the pool reads of a configured bot (:class:`arena.tournament.config.BotEntry`
    has it): its name, how to start it, or that it is remote with a token."""

    @property
    def name(self) -> str: ...
    @property
    def command(self) -> list[str] | None: ...
    @property
    def env(self) -> dict[str, str]: ...
    @property
    def cwd(self) -> str | None: ...
    @property
    def remote(self) -> bool: ...
    @property
    def token(self) -> str | None: ...
    @property
    def sandbox(self) -> BotSandbox | None: ...

__all__ = [
    "AbsentBot",
    "BotPool",
    "UnavailableBot",
    "bot_argv",
    "last_log_line",
    "safe_filename",
]

log = logging.getLogger("arena.tournament")

#: seconds bots have to exit by themselves after the end-of-tournament Goodbye
GOODBYE_GRACE_S = 2.0


class ProcessTracker(Protocol):
    """Where the pool reports processes and start outcomes (the store's
    :class:`arena.processes.proctable.ProcessTable`)."""

    def spawned(self, instance: str, bot: str, pgid: int, start_ticks: int) -> None: ...

    def ended(self, instance: str) -> None: ...

    def start_result(self, bot: str, ok: bool, error: str | None = None) -> None: ...


class UnavailableBot(Bot):
    """Stands in for a bot that could not be started or is disqualified: never asked, so the
    match runner forfeits its seat with :attr:`gone_reason`."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.version = ""
        self.gone_reason = reason

    @property
    def alive(self) -> bool:
        return False

    async def decide(self, request: DecisionRequest) -> int:  # pragma: no cover - never asked
        raise RuntimeError("an unavailable bot is never asked")


class AbsentBot(UnavailableBot):
    """A remote bot that is not connected when its match comes up, in ``defer_absent`` mode:
    the match is not played (:class:`arena.tournament.local.MatchDeferred`), so it stays
    pending for a later run (:mod:`arena.tournament.lobby`)."""


@dataclass
class Instance:
    """One running bot process (or the connection of a remote bot). ``tag``: the instance's
    :data:`~arena.processes.reaper.INSTANCE_ENV`; ``number``: 1, 2, ... per bot."""

    bot: Bot
    proc: asyncio.subprocess.Process | None = None
    token: str = ""
    tag: str = ""
    number: int = 0
    log_path: Path | None = None
    start_ticks: int = 0


@dataclass
class _BotState:
    entry: BotEntry
    slots: asyncio.Queue[Instance | None] = field(default_factory=asyncio.Queue)
    crashes: int = 0          # crashes, failed starts and (remote) failed connections
    no_shows: int = 0         # of which: a remote bot that did not connect
    disqualified: str | None = None
    started: int = 0
    last_crash: str = ""      # the last crash's message (a repeat is shown short)
    absent: bool = False      # a remote bot not connected (defer_absent mode): not waited for
    retired: bool = False     # no instance kept between matches (:meth:`BotPool.retire`)


def safe_filename(name: str) -> str:
    """A file-name-safe form of a bot name: other characters become ``_`` and, when any did,
    a short hash of the name keeps names such as ``a/b`` and ``a_b`` apart."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:80].lstrip(".") or "bot"
    if safe != name:
        import hashlib
        safe += "-" + hashlib.sha256(name.encode()).hexdigest()[:8]
    return safe


def last_log_line(path: Path, limit: int = 200) -> str:
    """The last non-empty line of a bot's log (its dying words), shortened to ``limit`` and
    made printable (:func:`arena.safetext.printable`: it is bot text bound for a terminal)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            lines = [ln.strip() for ln in f.read().decode("utf-8", "replace").splitlines()]
    except OSError:
        return ""
    lines = [ln for ln in lines if ln and not ln.startswith("=== ")]
    return printable(lines[-1][:limit]) if lines else ""


def bot_argv(entry: BotEntry, address: str, token: str) -> list[str]:
    """The command to start ``entry``: placeholders ``{python}``, ``{arena}``, ``{token}``
    substituted; ``--arena ADDRESS`` appended unless ``{arena}`` is used. The token is never
    added: the bot reads ``ARENA_TOKEN`` (``{token}`` puts it on the command line, visible to
    every local user in ``/proc``)."""
    argv = [a.replace("{python}", sys.executable).replace("{arena}", address)
            .replace("{token}", token) for a in entry.command or []]
    if not any("{arena}" in a for a in entry.command or []):
        argv += ["--arena", address]
    return argv


class BotPool:
    """Leases bot instances to matches (see the module docstring).

    Args:
        server: the started ``ArenaServer``.
        entries: the configured bots.
        address: ``HOST:PORT`` bots connect to.
        log_dir: where ``<bot>.log`` files go.
        slots: instances per spawned bot (the tournament's concurrency).
        register_timeout_s: time a new process has to register, and time a remote bot is
            waited for when a match needs it, seconds.
        max_crashes: a bot is disqualified when its crashes (failed starts, failed
            connections) reach this count (>= 1).
        on_event: called with one-line messages (crash, restart, disqualification).
        tracker: told about every process started and ended, and every start's outcome.
        extra_env: environment for every started bot (e.g. ``ARENA_TLS_CA``); a bot's own
            ``env`` overrides it.
        launcher: an :class:`arena.sandbox.Launcher` that wraps each bot command in the bot's
            sandbox (run under the process supervisor) and watches its limits and usage (None:
            plain processes under the supervisor).
        defer_absent: a remote bot not connected when a match needs it (after one wait of
            ``register_timeout_s``, or marked by :meth:`mark_absent`) is an :class:`AbsentBot`
            (the match is deferred, no crash is counted) and is not waited for again: each of
            its later matches is deferred at once unless it has connected meanwhile. Without
            it, a no-show counts as a crash and forfeits the match.
    """

    def __init__(self, server: ArenaServer, entries: Sequence[BotEntry], address: str,
                 log_dir: Path, *, slots: int, register_timeout_s: float, max_crashes: int,
                 on_event: Callable[[str], None] = lambda msg: None,
                 tracker: ProcessTracker | None = None,
                 extra_env: dict[str, str] | None = None,
                 launcher: Launcher | None = None, defer_absent: bool = False) -> None:
        self.server = server
        self.launcher = launcher
        self.address = address
        self.log_dir = log_dir
        self.register_timeout_s = register_timeout_s
        self.max_crashes = max(1, max_crashes)
        self.on_event = on_event
        self.tracker = tracker
        self.extra_env = dict(extra_env or {})
        self.defer_absent = defer_absent
        self.bots: dict[str, _BotState] = {}
        #: one line per disqualification, for the end-of-run summary
        self.disqualifications: list[str] = []
        #: the live spawned instances (process -> instance)
        self.live: dict[asyncio.subprocess.Process, Instance] = {}
        self.slots = slots
        self.add(entries)

    def add(self, entries: Sequence[BotEntry]) -> None:
        """Take more bots (a league's new versions, added while it plays): ``slots``
        instances each (a remote bot: one), started when a match first needs them.

        Raises:
            ValueError: a name the pool has already.
        """
        for e in entries:
            if e.name in self.bots:
                raise ValueError(f"the pool has a bot {e.name!r} already")
        for e in entries:
            st = _BotState(e)
            for _ in range(1 if e.remote else self.slots):
                st.slots.put_nowait(None)
            if e.remote and e.token:     # the config gives every remote bot a token
                self.server.expect(e.token, e.name, transport="tcp")
            self.bots[e.name] = st

    async def retire(self, name: str) -> None:
        """Stop keeping ``name``'s instances (a league's retired version): its idle ones end
        now, a leased one when its match ends (a match that still needs it starts one); a
        remote bot's token is no longer accepted and its connection is told goodbye.
        Unknown names are ignored."""
        st = self.bots.get(name)
        if st is None or st.retired:
            return
        st.retired = True
        if st.entry.remote and st.entry.token:
            self.server.forget(st.entry.token)
        idle = []
        while not st.slots.empty():
            idle.append(st.slots.get_nowait())
        for inst in idle:
            if inst is not None:
                await self._discard(inst)
            st.slots.put_nowait(None)

    def disqualified(self, name: str) -> str | None:
        """Why ``name`` is disqualified (``"disqualified after 3 crashes"``), or None."""
        st = self.bots.get(name)
        return st.disqualified if st is not None else None

    def log_path(self, name: str) -> Path:
        return self.log_dir / f"{safe_filename(name)}.log"

    # ----- leasing --------------------------------------------------------------------------
    async def acquire(self, names: Sequence[str]) -> list[tuple[str, Instance | None, Bot]]:
        """Lease one instance per bot: the slots are taken in sorted name order (so two matches
        never wait on each other), then the instances that need a (re)start are started
        together. Returns per name, in the given order, ``(name, instance or None, bot to play
        with)``."""
        slots: dict[str, Instance | None] = {}
        for name in sorted(names):
            slots[name] = await self.bots[name].slots.get()

        async def ready(name: str) -> tuple[Instance | None, Bot]:
            st, inst = self.bots[name], slots[name]
            if st.disqualified:
                return inst, UnavailableBot(name, st.disqualified)
            if inst is None or not inst.bot.alive:
                if inst is not None:
                    await self._discard(inst)
                inst, reason = await self._start(st)
                if inst is None:
                    return None, (AbsentBot if st.absent else UnavailableBot)(name, reason)
            return inst, inst.bot

        leased = dict(zip(slots, await asyncio.gather(*(ready(n) for n in slots)),
                          strict=True))
        if self.launcher is not None:   # stopped since their last match: continue them only
            for inst, _ in leased.values():    # now, once every seat is ready to play
                if inst is not None and inst.proc is not None:
                    self.launcher.resume(inst.proc)
        return [(n, *leased[n]) for n in names]

    async def release(self, name: str, inst: Instance | None, forfeit: Forfeit | None) -> None:
        """Give an instance back after a match; a dead one counts a crash, one that forfeited
        on a timeout (it may still be busy with the late decision) is restarted before its
        next match. ``forfeit``: the bot's forfeit in the match, None if it did not forfeit or
        the match was stopped."""
        st = self.bots[name]
        if inst is not None and not inst.bot.alive:
            where = "" if st.entry.remote else f" (log: {self.log_path(name)})"
            self._crash(st, f"bot {name!r} {_lost(name, forfeit)}{where}")
            await self._discard(inst)
            inst = None
        elif (inst is not None and forfeit is not None and forfeit.kind is FaultKind.TIMEOUT
              and inst.proc is not None):
            self.on_event(f"restarting {name!r} after it forfeited a match ({forfeit})")
            await self._discard(inst)
            inst = None
        if inst is not None and st.retired:    # not kept: a match that needs it starts one
            await self._discard(inst)
            inst = None
        if inst is not None and inst.proc is not None and self.launcher is not None:
            self.launcher.pause(inst.proc)       # no CPU until its next match
        st.slots.put_nowait(inst)

    def _crash(self, st: _BotState, message: str, *, no_show: bool = False) -> None:
        st.crashes += 1
        st.no_shows += no_show
        if st.disqualified:       # an instance that was in flight: counted and logged, not said
            log.info("%s (after its disqualification)", message)
            return
        if message == st.last_crash:   # the whole message once; the log has every one
            log.info("%s", message)
            self.on_event(f"bot {st.entry.name!r} again: the same as before (crash "
                          f"{st.crashes}; max_crashes = {self.max_crashes})")
        else:
            self.on_event(message)
        st.last_crash = message
        if st.crashes >= self.max_crashes and not st.disqualified:
            n = st.crashes
            if st.no_shows == n:
                why = f"did not connect ({n} time{'s' if n > 1 else ''}, " \
                      f"{self.register_timeout_s:g} s each)"
            else:
                why = f"{n} crash{'es' if n > 1 else ''}"
            st.disqualified = f"disqualified: {why}" if st.no_shows == n else \
                f"disqualified after {why}"
            self.disqualifications.append(f"{st.entry.name!r} was {st.disqualified}; "
                                          f"last: {message}")
            self.on_event(f"bot {st.entry.name!r} is {st.disqualified}; its remaining "
                          "matches are forfeited")

    def _started(self, st: _BotState, ok: bool, error: str | None = None) -> None:
        if self.tracker is not None:
            self.tracker.start_result(st.entry.name, ok, error)

    # ----- processes ------------------------------------------------------------------------
    def _peer_check(self, pid: int) -> Callable[[str], str | None]:
        """The check that a registration comes from the process tree of ``pid`` (TCP: the
        connection's port; the Unix socket: the connected processes' ``SO_PEERCRED``)."""
        port, unix = self.server.port, self.server.unix_socket

        def check(peer: str) -> str | None:
            if peer.startswith("unix:"):
                return check_unix_peer(unix, pid) if unix else None
            return check_peer(peer, port, pid) if port else None
        return check

    def mark_absent(self, name: str, reason: str) -> None:
        """``defer_absent`` mode: the remote bot ``name`` did not connect (the lobby's wait
        is over): its matches are deferred without waiting, unless it connects meanwhile."""
        st = self.bots[name]
        st.absent = True
        self._started(st, False, reason)

    def absent_now(self, names: Sequence[str]) -> list[str]:
        """Those of ``names`` that are absent remote bots still not connected (checked
        without waiting; one that has connected is absent no more)."""
        out = []
        for name in names:
            st = self.bots[name]
            if not st.absent:
                continue
            bot = self.server.bots.get(st.entry.token or "")
            if bot is not None and bot.alive:
                st.absent = False
            else:
                out.append(name)
        return out

    async def _start_remote(self, st: _BotState) -> tuple[Instance | None, str]:
        e = st.entry
        wait_s = 0.0 if st.absent else self.register_timeout_s
        try:
            bot = await self.server.wait_for_bot(e.token or "", wait_s)
        except Exception:
            reason = (f"remote bot {e.name!r} did not connect within "
                      f"{self.register_timeout_s:g} s")
            if self.defer_absent:         # not a result: its matches wait for a later run
                if not st.absent:
                    st.absent = True
                    self.on_event(f"{reason}: its matches are left for a later run")
                    self._started(st, False, reason)
                return None, reason
            self._crash(st, reason, no_show=True)
            self._started(st, False, reason)
            return None, reason
        st.absent = False
        self._started(st, True)
        return Instance(bot), ""

    async def _spawn(self, e: BotEntry, argv: list[str], env: dict[str, str], log_path: Path,
                     header: str) -> asyncio.subprocess.Process:
        """Start one instance of ``e`` (in its sandbox, if any) logging to ``log_path``.

        Raises:
            OSError: it cannot be started.
        """
        with open(log_path, "ab") as logf:
            logf.write(header.encode())
            logf.flush()
            # the supervisor runs outside the sandbox (parent-death signal, subreaper,
            # process group in the process table); bwrap inside it (PID namespace)
            if self.launcher is None:
                return await spawn(argv, env=env, cwd=e.cwd, log_file=logf.fileno())
            launch = self.launcher.prepare(e, argv, env)
            proc = await spawn(launch.argv, env=launch.env, cwd=launch.cwd,
                               log_file=logf.fileno(), preexec=launch.preexec)
            self.launcher.started(e.name, proc, log_path, launch.cgroup)
            return proc

    async def _start(self, st: _BotState) -> tuple[Instance | None, str]:
        e = st.entry
        if e.remote:
            return await self._start_remote(st)
        st.started += 1
        number = st.started
        token, tag = secrets.token_hex(16), secrets.token_hex(8)
        self.server.expect(token, e.name,
                           transport="unix" if self.address.startswith("unix:") else "tcp")
        argv = bot_argv(e, self.address, token)
        env = {**os.environ, **self.extra_env, **e.env, "ARENA_ADDRESS": self.address,
               "ARENA_TOKEN": token, INSTANCE_ENV: tag}
        log_path = self.log_path(e.name)
        shown = [a.replace(token, redact(token)) for a in argv]  # no secrets in logs
        try:
            proc = await self._spawn(e, argv, env, log_path,
                                     f"=== {_stamp()} instance {number}: {shown}\n")
        except OSError as exc:
            self.server.forget(token)
            reason = f"cannot start bot {e.name!r}: {exc}"
            self._crash(st, reason)
            self._started(st, False, reason)
            return None, reason
        inst = Instance(None, proc, token, tag, number, log_path)  # type: ignore[arg-type]
        self.live[proc] = inst
        inst.start_ticks = start_ticks(proc.pid) or 0
        if self.tracker is not None:
            self.tracker.spawned(tag, e.name, proc.pid, inst.start_ticks)
        self.server.set_peer_check(token, self._peer_check(proc.pid))
        reg = asyncio.ensure_future(self.server.wait_for_bot(token, self.register_timeout_s))
        died = asyncio.ensure_future(proc.wait())
        try:
            await asyncio.wait({reg, died}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for fut in (reg, died):
                if not fut.done():
                    fut.cancel()
        if reg.done() and not reg.cancelled() and reg.exception() is None:
            inst.bot = reg.result()
            self._started(st, True)
            return inst, ""
        if not died.done() or died.cancelled():
            why = f"did not register within {self.register_timeout_s:g} s"
        else:
            rc = proc.returncode
            named = (await self.launcher.limit_fault(proc, 0)
                     if self.launcher is not None else None)
            why = (f"exited with status {rc}" if rc is not None and rc >= 0
                   else f"was {describe_exit(rc)}") + " before registering"
            if named is not None:        # a sandbox limit, measured or named by its log
                why = f"was {named}" if named.startswith("stopped") else named
                why += " before registering"
            last = last_log_line(log_path)
            if last:
                why += f" ({last})"
        reason = f"bot {e.name!r} {why}; see its log: {log_path}"
        await self._discard(inst)
        self._crash(st, reason)
        self._started(st, False, reason)
        return None, reason

    async def _discard(self, inst: Instance) -> None:
        if inst.proc is not None and self.launcher is not None:
            self.launcher.resume(inst.proc)     # a stopped bot cannot exit by itself
        if inst.token:
            self.server.forget(inst.token)
        if inst.proc is not None:
            await terminate(inst.proc)
            if inst.proc.returncode == -signal.SIGKILL and inst.tag:
                # the supervisor may have been killed before it could end the bot's children
                # (or the bot was): end whatever carries the instance's tag or group
                record = ProcessRecord(inst.tag, "", inst.proc.pid, inst.start_ticks)
                await asyncio.to_thread(kill_leftovers, [record], 1.0)
            self._ended(inst)

    def _ended(self, inst: Instance) -> None:
        """Note the end of an instance's process (log line, tracker)."""
        if inst.proc is None or self.live.pop(inst.proc, None) is None:
            return
        if inst.log_path is not None:
            try:
                with open(inst.log_path, "ab") as f:
                    f.write(f"=== {_stamp()} instance {inst.number} ended: "
                            f"{describe_exit(inst.proc.returncode)}\n".encode())
            except OSError:
                pass
        if self.tracker is not None and inst.proc.returncode is not None:
            self.tracker.ended(inst.tag)

    async def close(self, grace_s: float = GOODBYE_GRACE_S) -> None:
        """End every bot process this pool started (and their children): each is sent
        ``Goodbye`` and given ``grace_s`` seconds to exit, then signalled
        (:func:`~arena.processes.spawn.terminate`)."""
        live = list(self.live.values())
        for inst in live:
            if inst.proc is not None and self.launcher is not None:
                self.launcher.resume(inst.proc)
            if inst.bot is not None and inst.bot.alive:
                close = getattr(inst.bot, "close", None)
                if close is not None:
                    close("the tournament is over")
        waiting = [inst.proc.wait() for inst in live
                   if inst.proc is not None and inst.proc.returncode is None]
        if waiting:
            await asyncio.wait([asyncio.ensure_future(w) for w in waiting], timeout=grace_s)
        await asyncio.gather(*(self._discard(inst) for inst in live), return_exceptions=True)


def _lost(name: str, forfeit: Forfeit | None) -> str:
    """How a bot was lost mid-match, from its forfeit (``"crashed: the bot's process died
    (exit status 139 (128 + SIGSEGV)); last line of its output: ..."``)."""
    if forfeit is None or forfeit.kind is not FaultKind.DISCONNECT:
        return "disconnected or crashed"
    detail = forfeit.detail.removeprefix("disconnect: ").removeprefix(f"bot {name!r}: ")
    return f"{'crashed' if 'process died' in detail else 'disconnected'}: {detail}"


def _stamp() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
