"""Tournament events and the in-process event bus (issue 17 item 1).

The tournament runner publishes typed events (:class:`MatchStarted`, :class:`DecisionsApplied`,
:class:`MatchFinished`; the live web state adds :class:`StandingsChanged`) to an
:class:`EventBus` through an optional sink (``run_tournament(..., events=bus.publish)``).
A match's decisions are published in batches (:class:`DecisionFeed`: at most every
:data:`BATCH_S` seconds per match, and the rest when the match ends, before its
:class:`MatchFinished`), not one event per decision: the runner's cost per decision is then one
list append, whatever listens.
Subscribers (the live page's event streams) each get a bounded queue: :meth:`EventBus.publish`
never blocks and never waits on a subscriber. A subscriber that falls behind (its queue full)
loses what was queued and gets one :data:`RESYNC` marker instead, meaning "send a fresh
snapshot"; the stream then continues from new events.

Everything here runs on one asyncio event loop (the runner's); :meth:`EventBus.publish` must be
called from that loop's thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .rules import action_str

if TYPE_CHECKING:
    from .match.runner import DecisionLog

__all__ = [
    "BATCH_S",
    "CLOSED",
    "RESYNC",
    "DecisionApplied",
    "DecisionFeed",
    "DecisionsApplied",
    "Event",
    "EventBus",
    "EventSink",
    "MatchFinished",
    "MatchStarted",
    "StandingsChanged",
    "Subscription",
]


@dataclass(frozen=True)
class MatchStarted:
    """A match got its three bots and starts; ``seats`` are bot names by seat 0..2."""

    match_id: str
    seats: tuple[str, str, str]


#: seconds a running match's decisions are held before they are published as one batch
BATCH_S = 0.1


@dataclass(frozen=True, slots=True)
class DecisionApplied:
    """One decision of a running match that was applied to the game state (an item of
    :class:`DecisionsApplied`).

    ``index`` counts decisions from 0 within the match; ``hand`` is the 1-based hand number;
    ``kind`` the decision kind (``arena.rules`` ``Decision`` values); ``action`` the card or
    action as text (``action_str``); ``fault`` the fault kind when the arena substituted a
    fallback action (timeout, illegal, ...), else None; ``think_ms`` milliseconds.
    """

    match_id: str
    index: int
    hand: int
    seat: int
    kind: str
    action: str
    fault: str | None = None
    think_ms: float = 0.0


@dataclass(frozen=True)
class DecisionsApplied:
    """Decisions of the running match ``match_id`` applied since its previous batch, in
    order (``moves[k].index`` are consecutive)."""

    match_id: str
    moves: tuple[DecisionApplied, ...]


@dataclass(frozen=True)
class MatchFinished:
    """A match ended and its record and result row are stored (``record`` is the record's
    path relative to the tournament directory)."""

    match_id: str
    seats: tuple[str, str, str]
    placings: tuple[int, ...]
    scores: tuple[int, ...]
    record: str


@dataclass(frozen=True)
class StandingsChanged:
    """The standings were recomputed over ``done`` of ``scheduled`` finished matches."""

    done: int
    scheduled: int


Event = MatchStarted | DecisionsApplied | MatchFinished | StandingsChanged
#: what the runner calls with each event (``EventBus.publish`` or any callable)
EventSink = Callable[[Event], None]


#: decision kinds whose card is private (the live page shows that a card moved, not which)
PRIVATE_KINDS = frozenset(("discard", "exchange-give", "exchange-return"))


def action_text(kind: str, action: int) -> str:
    """The public text of an applied action: its ``action_str``, or ``"a card"`` for the
    private kinds (:data:`PRIVATE_KINDS`: the discards and exchanged cards stay hidden, since
    anyone on the page, a bot included, could read them)."""
    return "a card" if kind in PRIVATE_KINDS else action_str(action)


def decision_hook(events: EventSink | None, match_id: str, seats: tuple[str, str, str]
                  ) -> DecisionFeed | None:
    """Publish :class:`MatchStarted` now and return the match's ``on_decision`` hook for
    ``arena.match.run_match`` (a :class:`DecisionFeed`: call its ``close()`` when the match
    ends); None without a sink."""
    if events is None:
        return None
    events(MatchStarted(match_id, (seats[0], seats[1], seats[2])))
    return DecisionFeed(events, match_id)


class DecisionFeed:
    """A running match's ``on_decision`` hook: holds each applied decision (one list append)
    and publishes what it holds as one :class:`DecisionsApplied` ``batch_s`` seconds after
    the first one held (on the running event loop; at once when no loop runs or
    ``batch_s`` is 0) and at :meth:`close`.

    Args:
        events: the sink. match_id: the match. batch_s: seconds, at least 0.
    """

    def __init__(self, events: EventSink, match_id: str, batch_s: float = BATCH_S) -> None:
        self.events = events
        self.match_id = match_id
        self.batch_s = batch_s
        self._held: list[DecisionLog] = []
        self._next = 0                       # the index of the first decision held
        self._timer: asyncio.TimerHandle | None = None

    def __call__(self, entry: DecisionLog) -> None:
        self._held.append(entry)
        if self._timer is None:
            self._schedule()

    def _schedule(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or self.batch_s <= 0:
            self.flush()
        else:
            self._timer = loop.call_later(self.batch_s, self.flush)

    def flush(self) -> None:
        """Publish the decisions held (nothing when none is)."""
        self._timer = None
        held, self._held = self._held, []
        if held:
            first, self._next = self._next, self._next + len(held)
            self.events(DecisionsApplied(self.match_id, _moves(self.match_id, first, held)))

    def close(self) -> None:
        """Publish what is held and stop the timer (the match ended or was stopped)."""
        if self._timer is not None:
            self._timer.cancel()
        self.flush()


def _moves(match_id: str, first: int, held: Sequence[DecisionLog]
           ) -> tuple[DecisionApplied, ...]:
    return tuple(DecisionApplied(match_id, first + k, e.hand, e.seat, e.kind,
                                 action_text(e.kind, e.action), e.fault, e.think_ms or 0.0)
                 for k, e in enumerate(held))


class _Resync:
    """The marker a subscriber gets after an overflow: its stream needs a fresh snapshot."""

    def __repr__(self) -> str:
        return "RESYNC"


RESYNC = _Resync()


class _Closed:
    """The marker a subscriber gets when the bus closes: end the stream."""

    def __repr__(self) -> str:
        return "CLOSED"


CLOSED = _Closed()


class Subscription:
    """One subscriber's bounded queue of events (and :data:`RESYNC` markers).

    Use as a context manager (or call :meth:`close`) so the bus forgets it.
    """

    def __init__(self, bus: EventBus, maxsize: int) -> None:
        self._bus = bus
        self._queue: asyncio.Queue[Event | _Resync | _Closed] = asyncio.Queue(maxsize)
        #: how many times this subscriber fell behind and was resynchronised
        self.overflows = 0

    def end(self) -> None:
        """Drop what is queued and queue :data:`CLOSED` (the bus is closing)."""
        while not self._queue.empty():
            self._queue.get_nowait()
        self._queue.put_nowait(CLOSED)

    def offer(self, event: Event) -> None:
        """Queue ``event`` without waiting; when the queue is full, drop what it holds and
        queue :data:`RESYNC` instead."""
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            self.overflows += 1
            while not self._queue.empty():
                self._queue.get_nowait()
            self._queue.put_nowait(RESYNC)

    async def get(self, timeout: float | None = None) -> Event | _Resync | _Closed | None:
        """The next event, :data:`RESYNC` or :data:`CLOSED`; None when ``timeout`` seconds
        pass first."""
        try:
            async with asyncio.timeout(timeout):
                return await self._queue.get()
        except TimeoutError:
            return None

    def take_ready(self, limit: int) -> list[Event | _Resync | _Closed]:
        """Up to ``limit`` items already queued (none waited for)."""
        out: list[Event | _Resync | _Closed] = []
        while len(out) < limit and not self._queue.empty():
            out.append(self._queue.get_nowait())
        return out

    def pending(self) -> int:
        """Events queued and not yet taken."""
        return self._queue.qsize()

    def close(self) -> None:
        self._bus._subscribers.discard(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EventBus:
    """Fan-out of events to listeners (called at once, in order) and to subscribers (bounded
    queues, see the module docstring).

    Args:
        maxsize: each subscriber's queue capacity (events), at least 2.

    Raises:
        ValueError: ``maxsize`` below 2.
    """

    def __init__(self, maxsize: int = 1024) -> None:
        if maxsize < 2:
            raise ValueError(f"maxsize must be at least 2, got {maxsize}")
        self.maxsize = maxsize
        self._subscribers: set[Subscription] = set()
        self._listeners: list[EventSink] = []
        self.closed = False

    def listen(self, listener: EventSink) -> None:
        """Call ``listener(event)`` for every event, before the subscribers get it. A
        listener must be quick and must not raise (it runs inside the runner's publish)."""
        self._listeners.append(listener)

    def subscribe(self, maxsize: int | None = None) -> Subscription:
        """A new subscriber with a queue of ``maxsize`` (default: the bus's) events."""
        sub = Subscription(self, maxsize or self.maxsize)
        self._subscribers.add(sub)
        if self.closed:
            sub.end()
        return sub

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def close(self) -> None:
        """Tell every subscriber to end (:data:`CLOSED`); later subscribers too."""
        self.closed = True
        for sub in tuple(self._subscribers):
            sub.end()

    def publish(self, event: Event) -> None:
        """Hand ``event`` to every listener and subscriber; never blocks."""
        for listener in self._listeners:
            listener(event)
        for sub in tuple(self._subscribers):
            sub.offer(event)
