"""The time limit of a match's decisions: one lazily re-armed timer per match.

``asyncio.timeout()`` per decision costs a context manager and a timer (a heap push, then a
cancelled handle left in the heap), about 7 us of the arena's CPU on an idle machine and several
times that between bot processes; decisions take about a millisecond while their limits are
about a second. A :class:`DecisionClock` keeps one timer for the whole match instead: starting
a decision's wait only records its deadline, and the timer, when it fires, either cancels the
waiting task (its deadline has passed) or re-arms itself for the deadline of the decision now
pending (the usual case: the decision it was set for was answered long ago). A timer that fires
while nothing waits is dropped; the next wait arms a new one. Timing semantics are those of
``asyncio.timeout``: the waiting task is cancelled at the deadline, and :meth:`stop` tells a
cancellation of ours (to be turned into a timeout) from any other (to be propagated), with
``Task.uncancel`` as ``asyncio.timeout`` does it.

Not thread-safe; one per match, made and used by the task that plays it.
"""

from __future__ import annotations

import asyncio

__all__ = ["DecisionClock"]


class DecisionClock:
    """One match's decision deadlines on one event loop (see the module docstring)."""

    __slots__ = ("_cancelling", "_deadline", "_expired", "_handle", "_loop", "_owner", "_task")

    def __init__(self) -> None:
        """Make the clock of the current task (the one whose waits it times).

        Raises:
            RuntimeError: not called from inside a task.
        """
        owner = asyncio.current_task()
        if owner is None:
            raise RuntimeError("a DecisionClock needs a running task")
        self._owner: asyncio.Task[object] = owner
        self._loop = asyncio.get_running_loop()
        self._handle: asyncio.TimerHandle | None = None
        self._deadline = 0.0
        self._task: asyncio.Task[object] | None = None
        self._cancelling = 0
        self._expired = False

    def start(self, seconds: float) -> None:
        """Begin a wait of the owning task that may last ``seconds`` (> 0); call :meth:`stop`
        when it ends, however it ends."""
        task = self._task = self._owner
        self._cancelling, self._expired = task.cancelling(), False
        self._deadline = deadline = self._loop.time() + seconds
        handle = self._handle
        if handle is None or handle.when() > deadline:   # later deadlines: re-armed on firing
            if handle is not None:
                handle.cancel()
            self._handle = self._loop.call_at(deadline, self._fire)

    def stop(self) -> bool:
        """End the current wait. Returns True when its deadline cancelled the task and no other
        cancellation is pending (the caller, catching ``CancelledError``, then reports a
        timeout instead); False otherwise (then a ``CancelledError`` is someone else's and
        must propagate)."""
        task, self._task = self._task, None
        if not self._expired or task is None:
            return False
        self._expired = False
        return task.uncancel() <= self._cancelling

    def close(self) -> None:
        """Drop the timer (the match is over); :meth:`start` arms a new one if called again."""
        self._task = None
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _fire(self) -> None:
        self._handle = None
        task = self._task
        if task is None or task.done():
            return
        if self._loop.time() >= self._deadline:
            self._expired = True
            task.cancel()
        else:
            self._handle = self._loop.call_at(self._deadline, self._fire)
