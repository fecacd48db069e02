"""The parent of every bot process: no process started for a bot outlives the arena.

Run by the arena (:mod:`arena.processes.pool`), never imported by it::

    python -I -S supervisor.py ARENA_PID GRACE_MS -- COMMAND [ARG ...]

It starts COMMAND (the bot) as its only child and then:

- it is a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): every descendant of the bot
  that loses its parent (a double fork, a ``setsid`` daemon) is re-parented to it, not to init,
  so it can always find and end the bot's whole process tree;
- its *parent-death signal* (``prctl(PR_SET_PDEATHSIG)``) is :data:`KILL_NOW`: when the arena
  process dies, however (``kill -9`` included), the kernel signals it and it SIGKILLs every
  descendant and exits; it also checks every :data:`WATCH_S` seconds that ``ARENA_PID`` is
  still its parent. If the arena is already gone when it starts, it exits without starting the
  bot;
- SIGTERM, SIGINT or SIGHUP (the arena ending the bot): SIGTERM goes to the bot (and its
  process group); whatever is still alive ``GRACE_MS`` milliseconds later is SIGKILLed;
- when the bot exits, every descendant it left behind is SIGKILLed, and the supervisor exits
  with the bot's status (the same exit code, or it kills itself with the same signal);
- the bot gets ``PR_SET_PDEATHSIG`` SIGKILL too, so it dies if the supervisor itself is killed
  (its leftovers are then ended by the next ``arena run`` on the directory, from the process
  table in the store: :mod:`arena.processes.reaper`).

A COMMAND that cannot be executed is reported on stderr (the bot's log) in one line, with exit
status 127. Linux only (``prctl``, ``/proc``). It imports nothing from ``arena`` so it starts in
a few tens of milliseconds with ``-I -S``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
#: the signal that means "SIGKILL every descendant now" (also the parent-death signal)
KILL_NOW = signal.SIGUSR1
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
EXIT_CANNOT_START = 127
#: seconds between checks that the arena is still the parent (besides its death signal)
WATCH_S = 0.5


def parent_map() -> dict[int, int]:
    """Parent pid of every live process, ``{pid: ppid}`` (one scan of ``/proc/*/stat``).
    Reads the file itself, not through :mod:`arena.processes.procstat`: this module runs as a
    script (``python -I -S supervisor.py``), outside the package."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2:].split()  # after "pid (comm) "
        if len(fields) > 1:
            out[int(entry)] = int(fields[1])
    return out


def children(me: int) -> list[int]:
    """PIDs of the direct children of process ``me``."""
    return [pid for pid, ppid in parent_map().items() if ppid == me]


class Supervisor:
    """State of the supervisor process (see the module docstring)."""

    def __init__(self, parent: int, grace_ms: int) -> None:
        self.parent = parent
        self.grace_s = grace_ms / 1000
        self.me = os.getpid()
        self.bot = 0
        self.status: int | None = None    # the bot's wait status, once reaped
        self.deadline: float | None = None  # after SIGTERM: when the grace ends
        self.killing = False

    def on_signal(self, signum: int) -> None:
        """A signal taken from the pending set (see :func:`serve`)."""
        if signum == KILL_NOW or os.getppid() != self.parent:
            self.killing = True
        elif signum in STOP_SIGNALS and self.deadline is None:
            self.deadline = time.monotonic() + self.grace_s
            with contextlib.suppress(OSError):
                os.killpg(os.getpgrp(), signal.SIGTERM)
            with contextlib.suppress(OSError):
                os.kill(self.bot, signal.SIGTERM)

    def reap(self) -> bool:
        """Reap every child that has exited; False once no child is left."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if pid == self.bot:
                self.status = status

    def kill_children(self) -> None:
        """SIGKILL every direct child (orphaned descendants become children, and are killed
        on a later round)."""
        for pid in children(self.me):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

    def serve(self) -> int:
        """Wait for the bot's end (or the arena's), end every descendant; the bot's status.

        Signals stay blocked and are taken with ``sigtimedwait`` (no asynchronous handlers);
        every wake-up, at least every :data:`WATCH_S` seconds, also checks that the arena is
        still the parent, in case its death signal was missed.
        """
        waited = {signal.SIGCHLD, KILL_NOW, signal.SIGALRM, *STOP_SIGNALS}
        while True:
            timeout = 0.02 if self.killing else WATCH_S
            if self.deadline is not None:
                timeout = max(0.001, min(timeout, self.deadline - time.monotonic()))
            info = signal.sigtimedwait(waited, timeout)
            if info is not None:
                self.on_signal(info.si_signo)
            if os.getppid() != self.parent:
                self.killing = True
            if self.deadline is not None and time.monotonic() >= self.deadline:
                self.killing = True
            left = self.reap()
            if self.status is not None:
                self.killing = True   # the bot is gone: so goes whatever it left behind
            if not left:
                return self.status if self.status is not None else signal.SIGKILL
            if self.killing:
                self.kill_children()


def _start_bot(sup: Supervisor, libc: ctypes.CDLL, command: list[str],
               old_mask: set[int | signal.Signals]) -> int:
    pid = os.fork()
    if pid:
        return pid
    try:  # the child: default signal handling, then become the bot
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != sup.me:
            os._exit(1)
        os.execvp(command[0], command)
    except OSError as exc:
        os.write(2, f"arena: cannot start the bot command {command[0]!r}: "
                    f"{exc.strerror or exc}\n".encode("utf-8", "replace"))
    finally:
        os._exit(EXIT_CANNOT_START)


def _exit_like(status: int) -> None:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        except (OSError, ValueError):
            pass
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def main(argv: list[str]) -> None:
    if len(argv) < 5 or argv[3] != "--":
        sys.stderr.write("usage: supervisor.py ARENA_PID GRACE_MS -- COMMAND [ARG ...]\n")
        os._exit(2)
    sup = Supervisor(int(argv[1]), int(argv[2]))
    command = argv[4:]
    libc = ctypes.CDLL(None, use_errno=True)
    # every signal it acts on stays blocked: taken in order by sigtimedwait (Supervisor.serve)
    old_mask = signal.pthread_sigmask(
        signal.SIG_BLOCK, {signal.SIGCHLD, KILL_NOW, signal.SIGALRM, *STOP_SIGNALS})
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, KILL_NOW, 0, 0, 0)
    if os.getppid() != sup.parent:  # the arena died before we could watch it
        os._exit(1)
    sup.bot = _start_bot(sup, libc, command, old_mask)
    _exit_like(sup.serve())


if __name__ == "__main__":
    main(sys.argv)
