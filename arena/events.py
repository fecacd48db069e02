"""Tournament events and the in-process event bus (what the live page shows).

The tournament runner publishes typed events (:class:`MatchStarted`, :class:`DecisionsApplied`,
:class:`MatchFinished`; the live web state adds :class:`StandingsChanged`) to an
:class:`EventBus` through an optional sink (``run_tournament(..., events=bus.publish)``).
A match's decisions are published in batches (:class:`DecisionFeed`: at most every
:data:`BATCH_S` seconds per match, and the rest when the match ends, before its
:class:`MatchFinished`), not one event per decision: the runner's cost per decision is then one
list append (and, for the live card table, one move applied to a replica of the match state,
about 3 us), whatever listens. Each batch carries the match's :class:`PublicTable` after it:
what anyone at the table may see (roles, contract, tricks won against the target, scores,
hand sizes, whose turn, the trick on the table and the last one).

**What the events show of the cards.** Discards and exchanged cards are never in an event
(``"a card"``). When the tournament has a remote bot (``hide_cards``), no card and no choice
is either: a remote bot's owner can watch the page, and the moves of a match in flight tell
the deal its duplicate block's other seatings are still to play. Played cards, contracts and
demands are then ``"a card"`` / ``"a contract"`` / ``"a demand"``, and the table keeps only
who played and the counts.
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

from .rules import MISERE, action_str, card_str, contract_name, view_of

if TYPE_CHECKING:
    from .match.runner import DecisionLog
    from .rules import MatchState

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
    "PublicTable",
    "StandingsChanged",
    "Subscription",
]


@dataclass(frozen=True)
class MatchStarted:
    """A match got its three bots and starts; ``seats`` are bot names by seat 0..2;
    ``hidden``: its events show no card (the tournament has a remote bot, see the module
    docstring)."""

    match_id: str
    seats: tuple[str, str, str]
    hidden: bool = False


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


#: a card on the table as the events show it: ``(seat, card text)``
SeatCard = tuple[int, str]


@dataclass(frozen=True, slots=True)
class PublicTable:
    """A running match as anyone at the table sees it, after a batch of decisions.

    ``hand`` 1-based; ``dealer`` / ``declarer`` seats; ``contract`` its name once chosen
    (``"a contract"`` when hidden), else None; per seat ``need`` (the trick target, or the
    misère limit), ``won`` (tricks this hand), ``scores`` (match score), ``hand_sizes``;
    ``to_act`` the seat to decide (None once the match is over); ``trick`` the cards on the
    table in play order; ``last_trick`` ``(leader, cards, winner)`` of the last completed
    trick (of this hand, or the hand before), or None.
    """

    hand: int
    dealer: int
    declarer: int
    contract: str | None
    need: tuple[int, int, int]
    won: tuple[int, int, int]
    scores: tuple[int, int, int]
    hand_sizes: tuple[int, int, int]
    to_act: int | None
    trick: tuple[SeatCard, ...]
    last_trick: tuple[int, tuple[SeatCard, ...], int] | None

    def to_json(self) -> dict[str, object]:
        """A JSON object (the field names as keys; tuples as arrays)."""
        last = self.last_trick
        return {"hand": self.hand, "dealer": self.dealer, "declarer": self.declarer,
                "contract": self.contract, "need": list(self.need), "won": list(self.won),
                "scores": list(self.scores), "hand_sizes": list(self.hand_sizes),
                "to_act": self.to_act, "trick": [list(c) for c in self.trick],
                "last_trick": None if last is None else
                [last[0], [list(c) for c in last[1]], last[2]]}

    @classmethod
    def from_json(cls, d: dict[str, object]) -> PublicTable:
        """The inverse of :meth:`to_json`.

        Raises:
            KeyError / TypeError / ValueError: ``d`` is not such an object.
        """
        def three(v: object) -> tuple[int, int, int]:
            a, b, c = (int(x) for x in v)  # type: ignore[attr-defined]
            return a, b, c

        def cards(v: object) -> tuple[SeatCard, ...]:
            return tuple((int(s), str(c)) for s, c in v)  # type: ignore[attr-defined]

        last = d["last_trick"]
        to_act, contract = d["to_act"], d["contract"]
        return cls(int(d["hand"]), int(d["dealer"]), int(d["declarer"]),  # type: ignore[call-overload]
                   None if contract is None else str(contract), three(d["need"]),
                   three(d["won"]), three(d["scores"]), three(d["hand_sizes"]),
                   None if to_act is None else int(to_act),  # type: ignore[call-overload]
                   cards(d["trick"]),
                   None if last is None else (int(last[0]), cards(last[1]),  # type: ignore[index]
                                              int(last[2])))  # type: ignore[index]


def public_table(state: MatchState, hide_cards: bool = False) -> PublicTable:
    """The :class:`PublicTable` of ``state`` (read through the engine's view of a seat not
    to act, of which only the public parts are kept); with ``hide_cards`` every card is
    ``"a card"`` and the contract ``"a contract"``."""
    to_act = None if state.finished else state.current_seat
    v = view_of(state, 0 if to_act is None else (to_act + 1) % 3)

    def shown(cards: Sequence[tuple[int, int]]) -> tuple[SeatCard, ...]:
        return tuple((s, HIDDEN_CARD if hide_cards else card_str(c)) for s, c in cards)

    last = v.tricks[-1] if v.tricks else None
    if last is None and state.completed_hands and state.completed_hands[-1].tricks:
        last = state.completed_hands[-1].tricks[-1]
    contract = None if v.contract is None else (
        "a contract" if hide_cards else contract_name(v.contract))
    return PublicTable(
        v.hand_number, v.dealer, v.declarer, contract,
        v.limits if v.contract == MISERE else v.targets, v.tricks_won, v.scores,
        v.hand_sizes, to_act, shown(v.trick),
        None if last is None else (last.leader, shown(last.cards), last.winner))


@dataclass(frozen=True)
class DecisionsApplied:
    """Decisions of the running match ``match_id`` applied since its previous batch, in
    order (``moves[k].index`` are consecutive), and the match's table after them (None
    when unknown)."""

    match_id: str
    moves: tuple[DecisionApplied, ...]
    table: PublicTable | None = None


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
#: what a hidden card is shown as
HIDDEN_CARD = "a card"
#: what a hidden choice is shown as, by decision kind (``hide_cards``)
HIDDEN_CHOICE = {"contract": "a contract", "exchange-demand": "a demand"}


def action_text(kind: str, action: int, hide_cards: bool = False) -> str:
    """The public text of an applied action: its ``action_str``, or ``"a card"`` for the
    private kinds (:data:`PRIVATE_KINDS`: the discards and exchanged cards stay hidden,
    since anyone on the page can read them); with ``hide_cards`` (the tournament has a
    remote bot) every card is ``"a card"`` and a contract or demand ``"a contract"`` /
    ``"a demand"``."""
    if kind in PRIVATE_KINDS:
        return HIDDEN_CARD
    if hide_cards:
        return HIDDEN_CHOICE.get(kind, HIDDEN_CARD)
    return action_str(action)


def decision_hook(events: EventSink | None, match_id: str, seats: tuple[str, str, str], *,
                  hide_cards: bool = False) -> DecisionFeed | None:
    """Publish :class:`MatchStarted` now and return the match's ``on_decision`` hook for
    ``arena.match.run_match`` (a :class:`DecisionFeed`: pass its ``watch`` too, for the
    batches to carry the :class:`PublicTable`; call its ``close()`` when the match ends);
    None without a sink. ``hide_cards``: show no card nor choice (see the module docstring).
    """
    if events is None:
        return None
    events(MatchStarted(match_id, (seats[0], seats[1], seats[2]), hide_cards))
    return DecisionFeed(events, match_id, hide_cards=hide_cards)


class DecisionFeed:
    """A running match's ``on_decision`` hook: holds each applied decision (one list append)
    and publishes what it holds as one :class:`DecisionsApplied` ``batch_s`` seconds after
    the first one held (on the running event loop; at once when no loop runs or
    ``batch_s`` is 0) and at :meth:`close`.

    Args:
        events: the sink. match_id: the match. batch_s: seconds, at least 0.
        state: the running match's state (the runner applies each decision; the feed only
            reads it: each batch carries its :func:`public_table`), or None (no table);
            :meth:`watch` sets it when the match starts.
        hide_cards: show no card nor choice (:func:`action_text`).
    """

    def __init__(self, events: EventSink, match_id: str, batch_s: float = BATCH_S, *,
                 state: MatchState | None = None, hide_cards: bool = False) -> None:
        self.events = events
        self.match_id = match_id
        self.batch_s = batch_s
        self.state = state
        self.hide_cards = hide_cards
        self._held: list[DecisionLog] = []
        self._next = 0                       # the index of the first decision held
        self._timer: asyncio.TimerHandle | None = None

    def watch(self, state: MatchState) -> None:
        """``run_match``'s ``watch``: the match's state, read at each batch (never changed:
        a batch is published between decisions, so the state is that of its last one)."""
        self.state = state

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
            table = None
            if self.state is not None:
                try:
                    table = public_table(self.state, self.hide_cards)
                except Exception:
                    self.state = None
            self.events(DecisionsApplied(
                self.match_id, _moves(self.match_id, first, held, self.hide_cards), table))

    def close(self) -> None:
        """Publish what is held and stop the timer (the match ended or was stopped)."""
        if self._timer is not None:
            self._timer.cancel()
        self.flush()


def _moves(match_id: str, first: int, held: Sequence[DecisionLog], hide_cards: bool
           ) -> tuple[DecisionApplied, ...]:
    return tuple(DecisionApplied(match_id, first + k, e.hand, e.seat, e.kind,
                                 action_text(e.kind, e.action, hide_cards), e.fault,
                                 e.think_ms or 0.0)
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
