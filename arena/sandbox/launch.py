"""Starting bots in their sandbox, and supervising them (limits and accounting).

The bot pool calls :meth:`Launcher.prepare` where it spawns a bot (the sandbox wraps the
command, environment and ``preexec_fn``) and :meth:`Launcher.started` with the new process; the
tournament runner calls :meth:`Launcher.begin` / :meth:`Launcher.end` around each match to get
every bot's :class:`~arena.sandbox.usage.Usage` for it.

A :class:`Supervisor` per bot process watches its tree (``/proc`` read every
:data:`TICK_S` seconds, one scan for all bots): it records CPU time and peak memory, and in
``bwrap`` mode stops a bot over a limit (:mod:`arena.sandbox.limits`), telling the match runner
why, so the seat is forfeited with ``"memory limit 1 GiB reached"`` instead of a generic crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import os
import shutil
import signal
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from . import freeze, limits, pidlimit
from .bwrap import SANDBOX_SOCKET, bot_paths, bwrap_argv, python_dirs, sandbox_env_path
from .config import BotSandbox, SandboxConfig, effective, require_bwrap, resolve
from .usage import (ProcInfo, Usage, children, peak_rss, pss, read_stat, reset_peak, scan,
                    scratch_bytes, tree)

#: seconds between two readings of the sandboxed bots' process trees (only while a bot with
#: limits runs; bots in mode "none" are read at the start and end of their matches)
TICK_S = 0.2
#: a machine-wide scan at most this old serves a match's start or end, seconds
TABLE_MAX_AGE_S = 0.5
#: seconds a match's end waits for the process of a seat whose stream ended to exit, so that
#: a limit the kernel enforced is named in the stored forfeit (:meth:`Launcher.limit_fault`)
EXIT_SETTLE_S = 1.0
#: how the session of a bot stopped at a limit ends (its forfeit: ``"disconnect: " + this +
#: ": " + the limit's name``)
SANDBOX_STOP = "stopped by the sandbox"
#: the forfeit of a bot that exited by itself, its last log lines naming a limit
LOG_NAMES = "its log names a limit"
#: environment a sandboxed bot gets besides its config's ``env`` and ARENA_ADDRESS/ARENA_TOKEN
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp",
            "LANG": "C.UTF-8"}

log = logging.getLogger("arena.sandbox")


class BotSpec(Protocol):
    """What the launcher reads of a configured bot (:class:`arena.tournament.config.BotEntry`
    has it)."""

    @property
    def name(self) -> str: ...
    @property
    def cwd(self) -> str | None: ...
    @property
    def env(self) -> dict[str, str]: ...
    @property
    def remote(self) -> bool: ...
    @property
    def sandbox(self) -> BotSandbox | None: ...


@runtime_checkable
class Session(Protocol):
    """The bot's session in the arena (:class:`arena.protocol.session.RemoteBot`): what the
    supervisor ends when it stops the bot."""

    def connection_lost(self, reason: str) -> None: ...
_SUPERVISORS: dict[int, Supervisor] = {}


def supervisor_of(proc: object) -> Supervisor | None:
    """The supervisor of a bot process (an ``asyncio`` process or a pid), if any."""
    pid = proc if isinstance(proc, int) else getattr(proc, "pid", None)
    return _SUPERVISORS.get(pid) if pid is not None else None


@dataclass(frozen=True)
class Launch:
    """How to spawn one bot: argv, environment, working directory, ``preexec_fn``."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | None
    preexec: Callable[[], None] | None
    #: the kernel's process limit of this start (:mod:`.pidlimit`), if a pids cgroup is used
    cgroup: pidlimit.BotCgroup | None = None


class Supervisor:
    """Watches one bot process tree (see the module docstring). ``fault`` names the limit that
    stopped the bot, if one did."""

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


def _command_of(entry: BotSpec) -> list[str]:
    """The configured command of ``entry`` with ``{python}`` substituted (what its files
    are), or empty."""
    import sys
    command = getattr(entry, "command", None) or []
    return [a.replace("{python}", sys.executable) for a in command]


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


class Launcher:
    """Sandbox settings of one tournament; wraps bot starts and supervises the processes.

    Args:
        base: the ``[sandbox]`` section. entries: the configured bots (their ``sandbox``
            overrides, ``cwd`` and ``command``).
        socket: the arena's Unix socket (bound into each sandbox), or None.
        hide: directories no bot may see (the output directory); other bots' directories are
            hidden from each bot too.
        on_event: one-line messages (a bot stopped at a limit).

    Raises:
        SandboxUnavailable: a spawned bot's mode is ``bwrap`` and bubblewrap is missing.
    """

    def __init__(self, base: SandboxConfig, entries: Sequence[BotSpec], *,
                 socket: str | None, hide: Iterable[str | Path] = (),
                 on_event: Callable[[str], None] = lambda msg: None) -> None:
        self.socket = socket
        self.on_event = on_event
        self.configs = {e.name: resolve(effective(base, e.sandbox))
                        for e in entries if not e.remote}
        self.bwrap = (require_bwrap() if any(c.mode == "bwrap" for c in self.configs.values())
                      else None)
        #: what each started bot may read of its own (its cwd, the files of its command)
        self.own: dict[str, list[str]] = {e.name: bot_paths(e.cwd, _command_of(e))
                                          for e in entries if not e.remote}
        self.hide = [str(h) for h in hide]
        self.supervisors: list[Supervisor] = []
        self._ticker: asyncio.Task[None] | None = None
        self._table: dict[int, ProcInfo] = {}
        self._table_at = -1e9
        #: the kernel's process limit (None: no writable pids cgroup; see :mod:`.pidlimit`)
        self.cgroups = pidlimit.find() if self.bwrap is not None else None

    def mode(self, name: str) -> str:
        return self.configs[name].mode

    def prepare(self, entry: BotSpec, argv: list[str], env: dict[str, str]) -> Launch:
        """The spawn of ``entry`` (whose plain ``argv``/``env`` the pool built, with the
        arena's address and the bot's token) in its mode."""
        name, cwd = entry.name, entry.cwd
        cfg = self.configs[name]
        if cfg.mode == "none":
            return Launch(argv, env, cwd, None)
        outside = env.get("ARENA_ADDRESS", "")
        inside = f"unix:{SANDBOX_SOCKET}"
        swap = (lambda s: s.replace(outside, inside)) if outside.startswith("unix:") else str
        # what the pool added for this bot (its instance tag, ARENA_TLS_CA), not the
        # arena's own environment
        carried = {k: v for k, v in env.items()
                   if k.startswith("ARENA_") and os.environ.get(k) != v}
        box_env = {**BASE_ENV, **carried, **entry.env,
                   "ARENA_ADDRESS": swap(outside), "ARENA_TOKEN": env.get("ARENA_TOKEN", "")}
        others = [p for n, paths in self.own.items() if n != name for p in paths]
        prefix = limits.inner_prefix(cfg)
        if argv and "/" not in argv[0]:   # a program found on the arena's PATH
            argv = [shutil.which(argv[0]) or argv[0], *argv[1:]]
        python = python_dirs()
        inner_path = sandbox_env_path(python, entry.env)
        if inner_path is not None:
            box_env["PYTHONPATH"] = inner_path
        if self.bwrap is None:
            raise RuntimeError("Launcher.prepare: a bwrap-mode bot without a bubblewrap")
        wrapped = bwrap_argv(self.bwrap, prefix + [swap(a) for a in argv],
                             cwd=os.path.realpath(cwd) if cwd else None, socket=self.socket,
                             hide=self.hide, others=others, scratch_mib=cfg.scratch_mib,
                             extra_ro=cfg.ro_paths, python=python)
        group = self._cgroup(cfg)
        if group is not None:
            # a shell joins the group and becomes bubblewrap (exec): no Python runs between
            # fork and exec in the arena's threaded process (gRPC), and everything bubblewrap
            # starts is in the group from its first instruction
            wrapped = [*pidlimit.join_command(group), *wrapped]
        return Launch(wrapped, box_env, cwd, None if prefix else limits.preexec(cfg), group)

    def _cgroup(self, cfg: SandboxConfig) -> pidlimit.BotCgroup | None:
        """A new pids cgroup for one sandboxed start (None: none available)."""
        if self.cgroups is None:
            return None
        self.cgroups.sweep()
        try:
            group = self.cgroups.new(cfg.processes)
        except OSError as exc:
            log.warning("sandbox: cannot create a pids cgroup (%s); the process limit is "
                        "the /proc reading only", exc)
            return None
        return group

    def started(self, name: str, proc: asyncio.subprocess.Process,
                log_path: Path | None = None,
                cgroup: pidlimit.BotCgroup | None = None) -> Supervisor:
        """Supervise a freshly spawned bot process (``cgroup``: its :attr:`Launch.cgroup`)."""
        sup = Supervisor(name, proc, self.configs[name], log_path, self.on_event)
        sup.cgroup = cgroup
        _SUPERVISORS[proc.pid] = sup
        self.supervisors.append(sup)
        if sup.limited and (self._ticker is None or self._ticker.done()):
            self._ticker = asyncio.ensure_future(self._tick())
        return sup

    async def _scan(self) -> dict[int, ProcInfo]:
        self._table = await asyncio.to_thread(scan)
        self._table_at = time.monotonic()
        return self._table

    async def _recent(self, sups: Sequence[Supervisor]) -> dict[int, ProcInfo]:
        """A machine-wide table at most :data:`TABLE_MAX_AGE_S` old, with the processes of
        ``sups`` read afresh (their CPU time is exact to the tick)."""
        if (time.monotonic() - self._table_at > TABLE_MAX_AGE_S
                or any(not s.pids for s in sups)):     # a new process: find its children
            return await self._scan()
        table = dict(self._table)
        for sup in sups:
            for pid in sup.pids or [sup.pid]:
                info = read_stat(pid)
                if info is None:
                    table.pop(pid, None)
                else:
                    table[pid] = info
        return table

    async def _tick(self) -> None:
        while True:
            live = [s for s in self.supervisors if not s.done]
            self.supervisors = live
            if any(s.limited for s in live):
                try:
                    table = await self._scan()
                    kids = children(table)
                    for sup in live:
                        sup.read(table, kids)
                except Exception:
                    log.exception("sandbox supervisor: reading /proc failed")
            await asyncio.sleep(TICK_S)

    async def begin(self, leased: Sequence[tuple[object, object]]) -> None:
        """A match starts with ``leased`` = (process or None, bot session) per seat."""
        sups = [(supervisor_of(p), bot) for p, bot in leased if p is not None]
        live = [s for s, _ in sups if s is not None]
        if live:
            table = await self._recent(live)
            for sup, bot in sups:
                if sup is not None:
                    sup.begin(bot, table)

    def pause(self, proc: object) -> None:
        """Stop an idle bot instance's processes until :meth:`resume` (no CPU between its
        matches; see :mod:`.freeze`). Nothing for a process this launcher does not watch."""
        sup = supervisor_of(proc)
        if sup is not None:
            sup.pause()

    def resume(self, proc: object) -> None:
        """Continue a paused instance (before a match, or before the pool ends it)."""
        sup = supervisor_of(proc)
        if sup is not None:
            sup.resume()

    async def limit_fault(self, proc: object, wait_s: float = EXIT_SETTLE_S) -> str | None:
        """Why the sandbox stopped ``proc`` (a spawned bot's process), as a forfeit detail,
        waiting up to ``wait_s`` seconds for the process to exit and its exit to be
        classified: ``"stopped by the sandbox: memory limit 128 MiB reached"`` when the limit
        was measured (the arena's reading, a signal, the kernel's refusal),
        ``"the bot exited (status 1); its log names a limit: open files limit 64 reached"``
        when only the bot's own last log lines name it; None when no limit is named (it
        still runs, it exited for another reason, or it is not supervised). For a bot whose
        stream ended mid-match: the stream usually ends before the exit is seen."""
        sup = supervisor_of(proc)
        if sup is None:
            return None
        if sup.fault is None and sup.limited and not sup.done:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(sup.proc.wait()), wait_s)
            if sup.proc.returncode is not None:
                sup._exited()
        return sup.reason()

    async def end(self, procs: Sequence[object]) -> list[Usage | None]:
        """Per seat, the usage of its process in the match now ended (None: not spawned by
        this arena, or it exited before the match ended and was not restarted)."""
        sups = [supervisor_of(p) if p is not None else None for p in procs]
        if not any(sups):
            return [None] * len(procs)
        table = await self._recent([s for s in sups if s is not None])
        out = [s.end(table) if s is not None and s.match_cpu0 is not None else None
               for s in sups]
        for s in sups:
            if s is not None and s.done:
                _SUPERVISORS.pop(s.pid, None)
        return out

    async def close(self) -> None:
        """Stop supervising (the pool ends the processes)."""
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        for sup in self.supervisors:
            _SUPERVISORS.pop(sup.pid, None)
        self.supervisors.clear()
        if self.cgroups is not None:
            for group in self.cgroups.groups:     # the pool has ended every bot
                group.ended = True
            for _ in range(40):          # the last tasks of an ended sandbox are exiting
                self.cgroups.sweep()
                if not self.cgroups.groups:
                    break
                await asyncio.sleep(0.05)
            self.cgroups.close()
