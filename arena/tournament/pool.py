"""Bot processes: spawn, register, lease to matches, restart after crashes, never orphan.

Each configured bot gets up to ``slots`` instances (one per concurrent match, like cutechess's
one engine process per game); a remote bot has one. A match leases one instance of each of its
three bots (in name order, so two matches can never wait on each other). An instance is a
process in its own process group, its stdout/stderr appended to ``logs/<bot>.log``; it is given
the arena's address and a fresh token (``--arena HOST:PORT --token T`` appended to the command,
or substituted for ``{arena}``/``{token}`` placeholders; also ``ARENA_ADDRESS``/``ARENA_TOKEN``).

A bot that does not register in time, whose command cannot start, or whose process dies counts
a **crash**; it is restarted before its next match, and after more than ``max_crashes`` crashes
it is **disqualified**: its remaining matches are forfeited (an :class:`UnavailableBot` sits in).
An instance that forfeited a match after timing out (it may hang) is killed and restarted too.
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
from datetime import datetime, timezone
from pathlib import Path

from ..match import Bot
from ..match.bot import DecisionRequest
from ..protocol.errors import redact
from .config import BotEntry

log = logging.getLogger("arena.tournament")

#: process-group ids of every live bot process this arena started (any pool)
LIVE_GROUPS: set[int] = set()


def kill_all_now() -> None:
    """SIGKILL every bot process group still alive, synchronously. The last line of defence
    against orphans when asynchronous cleanup was itself interrupted (a second Ctrl-C)."""
    for pgid in list(LIVE_GROUPS):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        LIVE_GROUPS.discard(pgid)


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


@dataclass
class Instance:
    """One running bot process (or the connection of a remote bot)."""

    bot: Bot
    proc: asyncio.subprocess.Process | None = None
    token: str = ""


@dataclass
class _BotState:
    entry: BotEntry
    slots: asyncio.Queue = field(default_factory=asyncio.Queue)
    crashes: int = 0
    disqualified: str | None = None
    started: int = 0


def safe_filename(name: str) -> str:
    """A file-name-safe form of a bot name: other characters become ``_`` and, when any did,
    a short hash of the name keeps names such as ``a/b`` and ``a_b`` apart."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:80].lstrip(".") or "bot"
    if safe != name:
        import hashlib
        safe += "-" + hashlib.sha256(name.encode()).hexdigest()[:8]
    return safe


def last_log_line(path: Path, limit: int = 200) -> str:
    """The last non-empty line of a bot's log (its dying words), shortened to ``limit``."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            lines = [ln.strip() for ln in f.read().decode("utf-8", "replace").splitlines()]
    except OSError:
        return ""
    lines = [ln for ln in lines if ln and not ln.startswith("=== ")]
    return lines[-1][:limit] if lines else ""


def bot_argv(entry: BotEntry, address: str, token: str) -> list[str]:
    """The command to start ``entry``: placeholders ``{python}``, ``{arena}``, ``{token}``
    substituted; ``--arena``/``--token`` appended unless both placeholders are used."""
    argv = [a.replace("{python}", sys.executable).replace("{arena}", address)
            .replace("{token}", token) for a in entry.command or []]
    joined = " ".join(entry.command or [])
    if "{arena}" not in joined or "{token}" not in joined:
        argv += ["--arena", address, "--token", token]
    return argv


class BotPool:
    """Leases bot instances to matches (see the module docstring).

    Args:
        server: the started ``ArenaServer``.
        entries: the configured bots.
        address: ``HOST:PORT`` bots connect to.
        log_dir: where ``<bot>.log`` files go.
        slots: instances per spawned bot (the tournament's concurrency).
        register_timeout_s: time a new process has to register, seconds.
        max_crashes: crashes allowed before disqualification.
        on_event: called with one-line messages (crash, restart, disqualification).
        launcher: an :class:`arena.sandbox.Launcher` that wraps each spawn in the bot's
            sandbox and supervises the process (None: plain processes).
    """

    def __init__(self, server, entries: Sequence[BotEntry], address: str,  # noqa: ANN001
                 log_dir: Path, *, slots: int, register_timeout_s: float, max_crashes: int,
                 on_event: Callable[[str], None] = lambda msg: None,
                 launcher=None) -> None:  # noqa: ANN001 - an arena.sandbox.Launcher
        self.server = server
        self.launcher = launcher
        self.address = address
        self.log_dir = log_dir
        self.register_timeout_s = register_timeout_s
        self.max_crashes = max_crashes
        self.on_event = on_event
        self.bots: dict[str, _BotState] = {}
        #: one line per disqualification, for the end-of-run summary
        self.disqualifications: list[str] = []
        self.procs: set[asyncio.subprocess.Process] = set()
        for e in entries:
            st = _BotState(e)
            for _ in range(1 if e.remote else slots):
                st.slots.put_nowait(None)
            if e.remote:
                server.expect(e.token, e.name)
            self.bots[e.name] = st

    def log_path(self, name: str) -> Path:
        return self.log_dir / f"{safe_filename(name)}.log"

    # ----- leasing --------------------------------------------------------------------------
    async def acquire(self, names: Sequence[str]) -> list[tuple[str, Instance | None, Bot]]:
        """Lease one instance per bot (acquired in sorted name order). Returns per name, in the
        given order, ``(name, instance or None, bot to play with)``."""
        leased: dict[str, tuple[Instance | None, Bot]] = {}
        for name in sorted(names):
            st = self.bots[name]
            inst = await st.slots.get()
            if st.disqualified:
                leased[name] = (inst, UnavailableBot(name, st.disqualified))
                continue
            if inst is None or not inst.bot.alive:
                if inst is not None:
                    await self._discard(inst)
                inst, reason = await self._start(st)
                if inst is None:
                    leased[name] = (None, UnavailableBot(name, reason))
                    continue
            leased[name] = (inst, inst.bot)
        return [(n, *leased[n]) for n in names]

    async def release(self, name: str, inst: Instance | None, forfeit: str | None) -> None:
        """Give an instance back after a match; a dead one counts a crash, one that forfeited
        is restarted before its next match."""
        st = self.bots[name]
        if inst is not None and not inst.bot.alive:
            where = "" if st.entry.remote else f" (log: {self.log_path(name)})"
            self._crash(st, f"bot {name!r} disconnected or crashed{where}")
            await self._discard(inst)
            inst = None
        elif (inst is not None and forfeit is not None and "timeout" in forfeit
              and inst.proc is not None):
            self.on_event(f"restarting {name!r} after it forfeited a match ({forfeit})")
            await self._discard(inst)
            inst = None
        st.slots.put_nowait(inst)

    def _crash(self, st: _BotState, message: str) -> None:
        st.crashes += 1
        self.on_event(message)
        if st.crashes > self.max_crashes and not st.disqualified:
            st.disqualified = f"disqualified after {st.crashes} crashes"
            self.disqualifications.append(f"{st.entry.name!r} was disqualified after "
                                          f"{st.crashes} crashes; last: {message}")
            self.on_event(f"bot {st.entry.name!r} is disqualified after {st.crashes} crashes; "
                          "its remaining matches are forfeited")

    # ----- processes ------------------------------------------------------------------------
    async def _start(self, st: _BotState) -> tuple[Instance | None, str]:
        e = st.entry
        if e.remote:
            try:
                bot = await self.server.wait_for_bot(e.token, self.register_timeout_s)
            except Exception as exc:  # noqa: BLE001 - the server's typed timeout / token errors
                reason = f"remote bot {e.name!r} did not connect: {exc}"
                self._crash(st, reason)
                return None, reason
            return Instance(bot), ""
        st.started += 1
        token = secrets.token_hex(16)
        self.server.expect(token, e.name)
        argv = bot_argv(e, self.address, token)
        env = {**os.environ, **e.env, "ARENA_ADDRESS": self.address, "ARENA_TOKEN": token}
        log_path = self.log_path(e.name)
        try:
            with open(log_path, "ab") as logf:
                stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
                shown = [a.replace(token, redact(token)) for a in argv]  # no secrets in logs
                logf.write(f"=== {stamp} instance {st.started}: {shown}\n".encode())
                logf.flush()
                launch = (self.launcher.prepare(e, argv, env) if self.launcher is not None
                          else None)
                proc = await asyncio.create_subprocess_exec(
                    *(launch.argv if launch else argv), stdin=asyncio.subprocess.DEVNULL,
                    stdout=logf, stderr=asyncio.subprocess.STDOUT,
                    cwd=launch.cwd if launch else e.cwd, env=launch.env if launch else env,
                    start_new_session=True, preexec_fn=launch.preexec if launch else None)
                if self.launcher is not None:
                    self.launcher.started(e.name, proc, log_path)
        except OSError as exc:
            self.server.forget(token)
            reason = f"cannot start bot {e.name!r}: {exc}"
            self._crash(st, reason)
            return None, reason
        self.procs.add(proc)
        LIVE_GROUPS.add(proc.pid)
        reg = asyncio.ensure_future(self.server.wait_for_bot(token, self.register_timeout_s))
        died = asyncio.ensure_future(proc.wait())
        await asyncio.wait({reg, died}, return_when=asyncio.FIRST_COMPLETED)
        if reg.done() and reg.exception() is None:
            died.cancel()
            return Instance(reg.result(), proc, token), ""
        reg.cancel()
        if not died.done():
            died.cancel()
            why = f"did not register within {self.register_timeout_s:g} s"
        else:
            why = f"exited with status {proc.returncode} before registering"
            last = last_log_line(log_path)
            if last:
                why += f" ({last})"
        reason = f"bot {e.name!r} {why}; see its log: {log_path}"
        await self._discard(Instance(None, proc, token))  # type: ignore[arg-type]
        self._crash(st, reason)
        return None, reason

    async def _discard(self, inst: Instance) -> None:
        if inst.token:
            self.server.forget(inst.token)
        if inst.proc is not None:
            await terminate(inst.proc)
            self.procs.discard(inst.proc)

    async def close(self) -> None:
        """End every bot process this pool started (and its children)."""
        await asyncio.gather(*(terminate(p) for p in list(self.procs)), return_exceptions=True)
        self.procs.clear()


async def terminate(proc: asyncio.subprocess.Process, grace_s: float = 2.0) -> None:
    """SIGTERM the process group, wait up to ``grace_s``, then SIGKILL it."""
    try:
        await _terminate(proc, grace_s)
    finally:
        if proc.returncode is not None:
            LIVE_GROUPS.discard(proc.pid)


async def _terminate(proc: asyncio.subprocess.Process, grace_s: float) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            await asyncio.wait_for(proc.wait(), grace_s)
            if sig == signal.SIGTERM:
                try:  # children of a bot that outlived it
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            return
        except asyncio.TimeoutError:
            continue
