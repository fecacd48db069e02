"""Watching one sandboxed bot process: its CPU time and memory, its limits, its pause.

A :class:`Watcher` per bot process (made by :meth:`arena.sandbox.launch.Launcher.started`)
reads its tree from one machine-wide ``/proc`` scan several times a second: it records CPU
time and peak memory (resident memory plus the files in its ``/tmp`` and ``/dev/shm``), and
in ``bwrap`` mode stops a bot over a limit (:mod:`arena.sandbox.limits`), telling the match
runner why, so the seat is forfeited with ``"memory limit 1 GiB reached"`` instead of a
generic crash. Between matches it stops the bot's processes (:mod:`.freeze`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable

from . import freeze, limits, pidlimit
from .config import SandboxConfig
from .usage import (ProcInfo, Usage, peak_rss, pss, read_stat, reset_peak, scratch_bytes,
                    tree)

#: how the session of a bot stopped at a limit ends (its forfeit: ``"disconnect: " + this +
#: ": " + the limit's name``)
SANDBOX_STOP = "stopped by the sandbox"
#: the forfeit of a bot that exited by itself, its last log lines naming a limit
LOG_NAMES = "its log names a limit"


@runtime_checkable
class Session(Protocol):
    """The bot's session in the arena (:class:`arena.protocol.session.RemoteBot`): what the
    watcher ends when it stops the bot."""

    def connection_lost(self, reason: str) -> None: ...


_WATCHERS: dict[int, Watcher] = {}


def watcher_of(proc: object) -> Watcher | None:
    """The watcher of a bot process (an ``asyncio`` process or a pid), if any."""
    pid = proc if isinstance(proc, int) else getattr(proc, "pid", None)
    return _WATCHERS.get(pid) if pid is not None else None


def watch(watcher: Watcher) -> None:
    """Register ``watcher`` for :func:`watcher_of`."""
    _WATCHERS[watcher.pid] = watcher


def unwatch(watcher: Watcher) -> None:
    """Forget ``watcher`` (its process ended, or the launcher closed)."""
    _WATCHERS.pop(watcher.pid, None)


class Watcher:
    """Watches one bot process tree (see the module docstring). ``fault`` names the limit that
    stopped the bot, if one did. (The process's own parent, outside the sandbox, is the
    process supervisor of :mod:`arena.processes.supervisor`.)"""

    def __init__(self, name: str, proc: asyncio.subprocess.Process, cfg: SandboxConfig,
                 log_path: Path | None, on_event: Callable[[str], None]) -> None:
        self.name, self.proc, self.pid, self.cfg = name, proc, proc.pid, cfg
        self.log_path, self.on_event = log_path, on_event
        #: where this process's output starts in the bot's log (shared by its instances)
        self.log_start = _size(log_path)
        self.fault: str | None = None
        #: the fault's name is read from the bot's last log lines only (not measured)
        self.fault_from_log = False
        self.bot: Session | None = None
        self.cpu_s = 0.0          # the tree's CPU seconds at the last reading
        self.peak_tasks = 0
        self.peak_rss = 0         # bytes, over the process's life
        self.match_cpu0: float | None = None
        #: the tree's CPU seconds when its last match ended (0 before the first): CPU used
        #: between two matches is counted in the next one
        self.cpu_mark = 0.0
        self.match_peak = 0       # bytes, in the current match
        #: a process of the sandbox (inside its mount namespace), for the scratch reading
        self.inside: int | None = None
        #: stopped between matches (:mod:`.freeze`)
        self.paused = False
        self.pids: list[int] = []
        self.done = False
        self.cgroup: pidlimit.BotCgroup | None = None

    def reason(self) -> str | None:
        """The forfeit detail of a bot stopped at a limit (see :meth:`Launcher.limit_fault`),
        None when no limit stopped it."""
        if self.fault is None:
            return None
        if self.fault_from_log:
            return f"the bot exited (status {self.proc.returncode}); {LOG_NAMES}: {self.fault}"
        return f"{SANDBOX_STOP}: {self.fault}"

    @property
    def limited(self) -> bool:
        return self.cfg.mode == "bwrap"

    def read(self, table: dict[int, ProcInfo],
             kids: dict[int, list[int]] | None = None) -> None:
        """Take one reading from a :func:`~arena.sandbox.usage.scan` (``kids``: its
        :func:`~arena.sandbox.usage.children`, if computed); enforce the limits."""
        if self.done:
            return
        pids = tree(table, self.pid, kids)
        if self.proc.returncode is not None or (not pids and read_stat(self.pid) is None):
            self._exited()
            return
        if not pids:          # started after the table was read: next time
            return
        self.pids = pids
        inner = [p for p in pids if p != self.pid] if self.limited else pids
        self.cpu_s = max(self.cpu_s, sum(table[p].cpu_s for p in pids))
        scratch = self._scratch(inner) if self.limited else 0
        rss = sum(table[p].rss for p in inner) + scratch
        if len(inner) > 3 and rss >= self.cfg.memory_mib << 19:
            rss = pss(inner) + scratch      # forked children: count shared pages once
        tasks = sum(table[p].threads for p in inner)
        self.peak_rss = max(self.peak_rss, rss)
        self.match_peak = max(self.match_peak, rss)
        self.peak_tasks = max(self.peak_tasks, tasks)
        if not self.limited or self.fault:
            return
        if tasks >= self.cfg.processes or self._refused():
            self.stop(limits.PROCESSES)
        elif rss >= self.cfg.memory_mib << 20:
            self.stop(limits.MEMORY)
        elif (self.match_cpu0 is not None
              and self.cpu_s - self.match_cpu0 >= self.cfg.cpu_s_per_match):
            self.stop(limits.CPU)

    def _scratch(self, inner: list[int]) -> int:
        """Bytes of the sandbox's ``/tmp`` and ``/dev/shm`` in use (0 when unread)."""
        if self.inside in inner:
            used = scratch_bytes(self.inside)
            if used is not None:
                return used
        for pid in reversed(inner):      # the deepest first: inside the sandbox
            used = scratch_bytes(pid)
            if used is not None:
                self.inside = pid
                return used
        return 0

    def pause(self) -> None:
        """Stop the bot's processes between two matches (:func:`.freeze.stop_tree`)."""
        if not self.done and not self.paused:
            freeze.stop_tree(self.pid)
            self.paused = True

    def resume(self) -> None:
        """Continue a paused bot (before its next match, or before it is ended)."""
        if self.paused:
            freeze.continue_tree(self.pid)
            self.paused = False

    def _refused(self) -> bool:
        """The kernel refused a fork of the bot at its pids cgroup's limit."""
        return self.cgroup is not None and self.cgroup.refusals() > 0

    def stop(self, kind: str) -> None:
        """Stop the bot for going over limit ``kind``: report it, end its session with the
        fault's name (its seat forfeits with it), kill every process of its sandbox."""
        self.fault = limits.fault_text(kind, self.cfg)
        self.on_event(f"bot {self.name!r} stopped: {self.fault}")
        if self.bot is not None:
            self.bot.connection_lost(f"{SANDBOX_STOP}: {self.fault}")
        self.kill()

    def kill(self) -> None:
        """SIGKILL the sandbox (its process group and every process seen in its tree)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        for pid in self.pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def _exited(self) -> None:
        if self.done:
            return
        self.done = True
        if self.cgroup is not None:
            self.cgroup.ended = True
        if self.fault or not self.limited or self.proc.returncode in (None, 0):
            return
        if self.proc.returncode in (-signal.SIGTERM, -signal.SIGKILL, 143, 137):
            return  # the arena ended it
        rc = self.proc.returncode
        fault = limits.fault_text(limits.PROCESSES, self.cfg) if self._refused() else None
        # measured first (a signal, the peaks seen), then the runtime's last words
        fault = fault or limits.classify_exit(rc, "", self.cfg, peak_rss=self.peak_rss,
                                              peak_tasks=self.peak_tasks)
        if fault is None:
            fault = limits.classify_exit(rc, _tail(self.log_path, self.log_start), self.cfg)
            self.fault_from_log = fault is not None
        if fault is not None:
            self.fault = fault
            self.on_event(f"bot {self.name!r} stopped: {fault}")
            if self.bot is not None:     # mid-match: its seat forfeits with the limit's name
                self.bot.connection_lost(self.reason() or fault)

    def begin(self, bot: object, table: dict[int, ProcInfo]) -> None:
        """A match starts: attach the bot's session, reset the per-match peak; the match's CPU
        counts from the end of the bot's previous match (or its start)."""
        self.bot = bot if isinstance(bot, Session) else None
        self.read(table)
        self.match_cpu0 = self.cpu_mark
        self.match_peak = 0
        reset_peak(self.pids)

    def end(self, table: dict[int, ProcInfo]) -> Usage:
        """A match ended: this bot's CPU seconds and peak MiB in it."""
        self.read(table)
        cpu = self.cpu_s - (self.match_cpu0 if self.match_cpu0 is not None else 0.0)
        inner = [p for p in self.pids if p != self.pid] if self.limited else self.pids
        peak = max(self.match_peak, peak_rss(inner))
        self.match_cpu0 = None
        self.cpu_mark = self.cpu_s
        return Usage(round(max(cpu, 0.0), 3), round(peak / 2**20, 1))


def _size(path: Path | None) -> int:
    """Bytes in ``path`` now (0: none, or unreadable)."""
    try:
        return os.path.getsize(path) if path is not None else 0
    except OSError:
        return 0


def _tail(path: Path | None, start: int = 0, size: int = 2048) -> str:
    """The last ``size`` bytes of ``path`` written at or after offset ``start``, as text."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(start, f.tell() - size))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


