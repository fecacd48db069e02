"""The parent of every bot process: no process started for a bot outlives the arena.

Run by the arena (:mod:`arena.tournament.pool`), never imported by it::

    python -I -S supervisor.py ARENA_PID GRACE_MS -- COMMAND [ARG ...]

It starts COMMAND (the bot) as its only child and then:

- it is a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): every descendant of the bot
  that loses its parent (a double fork, a ``setsid`` daemon) is re-parented to it, not to init,
  so it can always find and end the bot's whole process tree;
- its *parent-death signal* (``prctl(PR_SET_PDEATHSIG)``) is :data:`KILL_NOW`: when the arena
  process dies, however (``kill -9`` included), the kernel signals it and it SIGKILLs every
  descendant and exits. If the arena is already gone when it starts (``ARENA_PID`` is not its
  parent any more), it exits without starting the bot;
- SIGTERM, SIGINT or SIGHUP (the arena ending the bot): SIGTERM goes to the bot (and its
  process group); whatever is still alive ``GRACE_MS`` milliseconds later is SIGKILLed;
- when the bot exits, every descendant it left behind is SIGKILLed, and the supervisor exits
  with the bot's status (the same exit code, or it kills itself with the same signal);
- the bot gets ``PR_SET_PDEATHSIG`` SIGKILL too, so it dies if the supervisor itself is killed
  (its leftovers are then ended by the next ``arena run`` on the directory, from the process
  table in the store: :mod:`arena.tournament.reaper`).

A COMMAND that cannot be executed is reported on stderr (the bot's log) in one line, with exit
status 127. Linux only (``prctl``, ``/proc``). It imports nothing from ``arena`` so it starts in
a few tens of milliseconds with ``-I -S``.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
#: the signal that means "SIGKILL every descendant now" (also the parent-death signal)
KILL_NOW = signal.SIGUSR1
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
EXIT_CANNOT_START = 127


def children(me: int) -> list[int]:
    """PIDs of the direct children of process ``me`` (a scan of ``/proc/*/stat``)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2:].split()  # after "pid (comm) "
        if len(fields) > 1 and int(fields[1]) == me:
            found.append(int(entry))
    return found


class Supervisor:
    """State of the supervisor process (see the module docstring)."""

    def __init__(self, parent: int, grace_ms: int) -> None:
        self.parent = parent
        self.grace_s = grace_ms / 1000
        self.me = os.getpid()
        self.bot = 0
        self.stopping = False
        self.killing = False

    def kill_children(self) -> None:
        """SIGKILL every direct child (orphaned descendants become children; the main loop
        calls this again after each one it reaps, until none is left)."""
        self.killing = True
        for pid in children(self.me):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def on_kill_now(self, _signum: int, _frame: object) -> None:
        self.kill_children()

    def on_stop(self, _signum: int, _frame: object) -> None:
        if os.getppid() != self.parent:  # the arena is gone: no grace
            self.kill_children()
            return
        if self.stopping:
            return
        self.stopping = True
        for send in (lambda: os.killpg(os.getpgrp(), signal.SIGTERM),
                     lambda: os.kill(self.bot, signal.SIGTERM)):
            try:
                send()
            except OSError:
                pass
        signal.setitimer(signal.ITIMER_REAL, max(self.grace_s, 0.001))

    def on_alarm(self, _signum: int, _frame: object) -> None:
        self.kill_children()


def _start_bot(sup: Supervisor, libc: ctypes.CDLL, command: list[str],
               old_mask: set[signal.Signals]) -> int:
    pid = os.fork()
    if pid:
        return pid
    try:  # the child: default signal handling, then become the bot
        for sig in (*STOP_SIGNALS, KILL_NOW, signal.SIGALRM, signal.SIGPIPE, signal.SIGXFSZ):
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
    handled = {*STOP_SIGNALS, KILL_NOW, signal.SIGALRM}
    # blocked until the bot's pid is known, so no signal can slip between check and fork
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, handled)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, KILL_NOW, 0, 0, 0)
    if os.getppid() != sup.parent:  # the arena died before we could watch it
        os._exit(1)
    signal.signal(KILL_NOW, sup.on_kill_now)
    signal.signal(signal.SIGALRM, sup.on_alarm)
    for sig in STOP_SIGNALS:
        signal.signal(sig, sup.on_stop)
    sup.bot = _start_bot(sup, libc, command, old_mask)
    signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
    status = None
    while True:
        try:
            pid, st = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid == sup.bot:
            status = st
            sup.killing = True
        if sup.killing:
            sup.kill_children()
    _exit_like(status if status is not None else 9)


if __name__ == "__main__":
    main(sys.argv)
