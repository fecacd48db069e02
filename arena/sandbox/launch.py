"""Starting bots in their sandbox, and supervising them (limits and accounting).

The bot pool calls :meth:`Launcher.prepare` where it spawns a bot (the sandbox wraps the
command, environment and ``preexec_fn``) and :meth:`Launcher.started` with the new process; the
tournament runner calls :meth:`Launcher.begin` / :meth:`Launcher.end` around each match to get
every bot's :class:`~arena.sandbox.usage.Usage` for it.

A :class:`~arena.sandbox.watch.Watcher` per bot process watches its tree (``/proc`` read
every :data:`TICK_S` seconds, one scan for all bots): CPU time, memory, limits, the pause
between matches. Sandboxed bots run under the seccomp filter of :mod:`.seccomp`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import os
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
import tempfile
from typing import Protocol

from . import limits, pidlimit, seccomp
from .bwrap import (SANDBOX_SOCKET, absolute_files, bot_paths, bwrap_argv, python_dirs,
                    sandbox_env_path)
from .config import BotSandbox, SandboxConfig, effective, require_bwrap, resolve
from .usage import ProcInfo, Usage, children, read_stat, scan
from .which import Bubblewrap
from .watch import Watcher, unwatch, watch, watcher_of

#: seconds between two readings of the sandboxed bots' process trees (only while a bot with
#: limits runs; bots in mode "none" are read at the start and end of their matches)
TICK_S = 0.2
#: a machine-wide scan at most this old serves a match's start or end, seconds
TABLE_MAX_AGE_S = 0.5
#: seconds a match's end waits for the process of a seat whose stream ended to exit, so that
#: a limit the kernel enforced is named in the stored forfeit (:meth:`Launcher.limit_fault`)
EXIT_SETTLE_S = 1.0
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


@dataclass(frozen=True)
class Launch:
    """How to spawn one bot: argv, environment, working directory, ``preexec_fn``."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | None
    preexec: Callable[[], None] | None
    #: the kernel's process limit of this start (:mod:`.pidlimit`), if a pids cgroup is used
    cgroup: pidlimit.BotCgroup | None = None


def _filter_file() -> tuple[str, int | None] | None:
    """The seccomp filter of :mod:`.seccomp` where each bot start opens it: (its path, the
    descriptor to close when done, or None for a private file to remove); None: no filter
    for this machine, said once in the log. An anonymous memory file (``memfd_create``),
    opened through ``/proc/PID/fd/N``: nothing is left on disk, even when the arena is
    killed; a private temporary file where memory files are not available."""
    program = seccomp.program()
    if program is None:
        log.warning("sandbox: no seccomp filter for this machine (%s)", os.uname().machine)
        return None
    try:
        fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        with os.fdopen(os.dup(fd), "wb") as f:
            f.write(program)
        return f"/proc/{os.getpid()}/fd/{fd}", fd
    tmp, path = tempfile.mkstemp(prefix="arena-seccomp-", suffix=".bpf")
    with os.fdopen(tmp, "wb") as f:
        f.write(program)
    return path, None


def _command_of(entry: BotSpec) -> list[str]:
    """The configured command of ``entry`` with ``{python}`` substituted and, without a
    ``cwd``, its relative file arguments made absolute (what its files are), or empty."""
    import sys
    command = getattr(entry, "command", None) or []
    return absolute_files(entry.cwd, [a.replace("{python}", sys.executable) for a in command])


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
        self.base = base
        self.configs: dict[str, SandboxConfig] = {}
        #: what each started bot may read of its own (its cwd, the files of its command)
        self.own: dict[str, list[str]] = {}
        self.bwrap: Bubblewrap | None = None
        #: the kernel's process limit (None: no writable pids cgroup; see :mod:`.pidlimit`)
        self.cgroups: pidlimit.PidsCgroups | None = None
        #: the seccomp filter's file, opened for each sandbox (None: no table for this machine)
        self.seccomp_file: str | None = None
        self._seccomp_fd: int | None = None      # the memory file behind it (_filter_file)
        self.hide = [str(h) for h in hide]
        self.watchers: list[Watcher] = []
        self._ticker: asyncio.Task[None] | None = None
        self._table: dict[int, ProcInfo] = {}
        self._table_at = -1e9
        self.add(entries)

    def add(self, entries: Sequence[BotSpec]) -> None:
        """Take more bots (a league's new versions, added while it plays).

        Raises:
            SandboxUnavailable: one of them runs in ``bwrap`` mode and bubblewrap is missing.
        """
        configs = {e.name: resolve(effective(self.base, e.sandbox))
                   for e in entries if not e.remote}
        if self.bwrap is None and any(c.mode == "bwrap" for c in configs.values()):
            self.bwrap = require_bwrap()
            self.cgroups = pidlimit.find()
            made = _filter_file()
            if made is not None:
                self.seccomp_file, self._seccomp_fd = made
        self.configs.update(configs)
        self.own.update({e.name: bot_paths(e.cwd, _command_of(e))
                         for e in entries if not e.remote})

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
        argv = absolute_files(cwd, argv)    # no cwd: its script, named from where it runs
        python = python_dirs()
        inner_path = sandbox_env_path(python, entry.env)
        if inner_path is not None:
            box_env["PYTHONPATH"] = inner_path
        if self.bwrap is None:
            raise RuntimeError("Launcher.prepare: a bwrap-mode bot without a bubblewrap")
        wrapped = bwrap_argv(self.bwrap, prefix + [swap(a) for a in argv],
                             cwd=os.path.realpath(cwd) if cwd else None, socket=self.socket,
                             hide=self.hide, others=others, scratch_mib=cfg.scratch_mib,
                             extra_ro=cfg.ro_paths, python=python,
                             seccomp_fd=3 if self.seccomp_file else None)
        group = self._cgroup(cfg)
        if group is not None or self.seccomp_file:
            # a shell joins the group, opens the seccomp filter and becomes bubblewrap
            # (exec): no Python runs between fork and exec in the arena's threaded process
            # (gRPC), and everything bubblewrap starts is in the group from its first
            # instruction
            wrapped = [*pidlimit.start_command(group, self.seccomp_file), *wrapped]
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
                cgroup: pidlimit.BotCgroup | None = None) -> Watcher:
        """Supervise a freshly spawned bot process (``cgroup``: its :attr:`Launch.cgroup`)."""
        sup = Watcher(name, proc, self.configs[name], log_path, self.on_event)
        sup.cgroup = cgroup
        watch(sup)
        self.watchers.append(sup)
        if sup.limited and (self._ticker is None or self._ticker.done()):
            self._ticker = asyncio.ensure_future(self._tick())
        return sup

    async def _scan(self) -> dict[int, ProcInfo]:
        self._table = await asyncio.to_thread(scan)
        self._table_at = time.monotonic()
        return self._table

    async def _recent(self, sups: Sequence[Watcher]) -> dict[int, ProcInfo]:
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
            live = [s for s in self.watchers if not s.done]
            self.watchers = live
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
        sups = [(watcher_of(p), bot) for p, bot in leased if p is not None]
        live = [s for s, _ in sups if s is not None]
        if live:
            table = await self._recent(live)
            for sup, bot in sups:
                if sup is not None:
                    sup.begin(bot, table)

    def pause(self, proc: object) -> None:
        """Stop an idle bot instance's processes until :meth:`resume` (no CPU between its
        matches; see :mod:`.freeze`). Nothing for a process this launcher does not watch."""
        sup = watcher_of(proc)
        if sup is not None:
            sup.pause()

    def resume(self, proc: object) -> None:
        """Continue a paused instance (before a match, or before the pool ends it)."""
        sup = watcher_of(proc)
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
        sup = watcher_of(proc)
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
        sups = [watcher_of(p) if p is not None else None for p in procs]
        if not any(sups):
            return [None] * len(procs)
        table = await self._recent([s for s in sups if s is not None])
        out = [s.end(table) if s is not None and s.match_cpu0 is not None else None
               for s in sups]
        for s in sups:
            if s is not None and s.done:
                unwatch(s)
        return out

    async def close(self) -> None:
        """Stop supervising (the pool ends the processes)."""
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        for sup in self.watchers:
            unwatch(sup)
        self.watchers.clear()
        if self.cgroups is not None:
            for group in self.cgroups.groups:     # the pool has ended every bot
                group.ended = True
            for _ in range(40):          # the last tasks of an ended sandbox are exiting
                self.cgroups.sweep()
                if not self.cgroups.groups:
                    break
                await asyncio.sleep(0.05)
            self.cgroups.close()
        if self._seccomp_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._seccomp_fd)
            self._seccomp_fd = None
        elif self.seccomp_file is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.seccomp_file)
