"""Bot processes at the OS level: start one under its supervisor, end it, end them all.

Every bot command runs as the child of :mod:`arena.processes.supervisor` (a small Python
script started with ``-I -S``), in a new session whose process group id is the supervisor's
pid. The supervisor ends the bot's whole process tree when the arena dies, when the bot exits
(its leftover children), or on request (see its docstring). Ending an instance
(:func:`terminate`): SIGTERM to the supervisor, which passes it to the bot and SIGKILLs what is
left after the grace; if the supervisor itself does not exit in time, the group is SIGKILLed.

:data:`LIVE_GROUPS` lists the process groups of every live instance this process started;
:func:`kill_all_now` ends them all synchronously (the last line of defence after a second
Ctrl-C). A Ray worker sets :attr:`LiveGroups.listener` to mirror the list to its reaper
(:mod:`arena.cluster.worker`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from .procstat import is_gone

SUPERVISOR = Path(__file__).with_name("supervisor.py")
#: the supervisor's signal for "SIGKILL the bot's whole tree now" (see supervisor.py)
KILL_NOW = signal.SIGUSR1
#: seconds a bot has to exit after SIGTERM before it is SIGKILLed
TERM_GRACE_S = 2.0



class LiveGroups:
    """Process-group ids (= supervisor pids) of the live bot instances this process started.

    ``listener``, when set, is called after each change with ``"+"`` (added) or ``"-"``
    (removed) and the group id; it must not raise.
    """

    def __init__(self) -> None:
        self._groups: set[int] = set()
        self.listener: Callable[[str, int], None] | None = None

    def add(self, pgid: int) -> None:
        """Record a started group."""
        self._groups.add(pgid)
        if self.listener is not None:
            self.listener("+", pgid)

    def discard(self, pgid: int) -> None:
        """Forget a group whose processes have ended (nothing when it is not listed)."""
        self._groups.discard(pgid)
        if self.listener is not None:
            self.listener("-", pgid)

    def snapshot(self) -> list[int]:
        """The groups listed now."""
        return list(self._groups)

    def __contains__(self, pgid: object) -> bool:
        return pgid in self._groups

    def __len__(self) -> int:
        return len(self._groups)


#: the live bot instances of this process (see :class:`LiveGroups`)
LIVE_GROUPS = LiveGroups()


def supervised(argv: Sequence[str], grace_s: float = TERM_GRACE_S) -> list[str]:
    """The command line that runs ``argv`` under the supervisor, watching this process."""
    return [sys.executable, "-I", "-S", str(SUPERVISOR), str(os.getpid()),
            str(round(grace_s * 1000)), "--", *argv]


async def spawn(argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None,
                log_file: int, preexec: Callable[[], None] | None = None
                ) -> asyncio.subprocess.Process:
    """Start ``argv`` under its supervisor in a new session, stdin from /dev/null, stdout and
    stderr to the open file ``log_file``. ``preexec``: run in the supervisor's process before
    it starts (e.g. the sandbox's rlimits, inherited by the bot).

    Raises:
        OSError: the supervisor cannot be started (e.g. ``cwd`` does not exist). A bot command
            that cannot be executed is reported by the supervisor instead (exit status 127).
    """
    proc = await asyncio.create_subprocess_exec(
        *supervised(argv), stdin=asyncio.subprocess.DEVNULL, stdout=log_file,
        stderr=asyncio.subprocess.STDOUT, cwd=cwd, env=dict(env), start_new_session=True,
        preexec_fn=preexec)
    LIVE_GROUPS.add(proc.pid)
    return proc


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_exit(returncode: int | None) -> str:
    """``"exit status 0"``, ``"killed by SIGKILL"``, ``"still running"``; a status of 129-192
    also names the signal it stands for as a shell or bubblewrap reports one (``"exit status
    139 (128 + SIGSEGV)"``: a sandboxed bot's death by a signal reaches the arena so)."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        return f"killed by {_signal_name(-returncode)}"
    if 128 < returncode <= 128 + 64:
        return f"exit status {returncode} (128 + {_signal_name(returncode - 128)})"
    return f"exit status {returncode}"


def _signal(pid: int, sig: int, group: bool = False) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        (os.killpg if group else os.kill)(pid, sig)


async def terminate(proc: asyncio.subprocess.Process, grace_s: float = TERM_GRACE_S) -> None:
    """End an instance: SIGTERM to its supervisor (the bot gets ``grace_s`` seconds, then its
    tree is SIGKILLed); SIGKILL to the whole group if the supervisor is not gone a second
    after that."""
    try:
        if proc.returncode is None:
            _signal(proc.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), grace_s + 1.0)
            except TimeoutError:
                _signal(proc.pid, signal.SIGKILL, group=True)
                await proc.wait()
        _signal(proc.pid, signal.SIGKILL, group=True)   # anything left in the group
    finally:
        if proc.returncode is not None:
            LIVE_GROUPS.discard(proc.pid)


def kill_all_now(wait_s: float = 1.0) -> None:
    """End every bot instance still alive, synchronously: the supervisors are told to SIGKILL
    their trees at once, and after up to ``wait_s`` seconds every group is SIGKILLed. The last
    line of defence when asynchronous cleanup was itself interrupted (a second Ctrl-C)."""
    groups = LIVE_GROUPS.snapshot()
    for pgid in groups:
        _signal(pgid, KILL_NOW)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and not all(is_gone(p) for p in groups):
        time.sleep(0.02)
    for pgid in groups:
        _signal(pgid, signal.SIGKILL, group=True)
        LIVE_GROUPS.discard(pgid)
