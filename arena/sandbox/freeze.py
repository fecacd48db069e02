"""Stopping an idle bot: no CPU for a bot instance between its matches.

A bot instance is a long-running process that serves one match after another, so between
two matches it could compute unseen and unlimited (and slow down the matches being played).
Like Botzone, which keeps long-running bots stopped between their turns, the arena stops
every process of an idle instance with ``SIGSTOP`` when the instance is handed back after a
match (:func:`stop_tree`) and continues them with ``SIGCONT`` when a match leases it again
(:func:`continue_tree`). The process supervisor itself (the root, outside the sandbox) keeps
running: it must see the arena die.

The tree is walked from the root through ``/proc/PID/task/TID/children`` (each thread's
children), stopping each process before its children are read, so none can fork behind the
walk; a second walk stops what a fork in progress may still have added, until a walk finds
nothing new. ``SIGSTOP`` cannot be caught or ignored; a stopped process still dies of
``SIGKILL``, and the sandbox dies with the arena (``--die-with-parent``) stopped or not.
"""

from __future__ import annotations

import contextlib
import os
import signal

#: walks of the tree at most, per stop (each finds what a fork in progress added)
MAX_WALKS = 5


def children(pid: int) -> list[int]:
    """The children of every thread of process ``pid`` (empty when it is gone)."""
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return out


def _signal(pid: int, sig: int) -> bool:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _walk(root: int, sig: int, seen: set[int]) -> int:
    """Signal every descendant of ``root`` not in ``seen`` (parents before their children);
    returns how many were new."""
    new = 0
    todo = children(root)
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            new += _signal(pid, sig)
        todo.extend(children(pid))
    return new


def stop_tree(root: int) -> int:
    """``SIGSTOP`` every descendant of ``root`` (not ``root`` itself); returns how many
    processes were stopped."""
    seen: set[int] = set()
    total = 0
    for _ in range(MAX_WALKS):
        new = _walk(root, signal.SIGSTOP, seen)
        total += new
        if not new:
            break
    return total


def continue_tree(root: int) -> int:
    """``SIGCONT`` every descendant of ``root``; returns how many were signalled."""
    with contextlib.suppress(OSError):
        return _walk(root, signal.SIGCONT, set())
    return 0
