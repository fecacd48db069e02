"""Streams that have not registered yet, and the warnings they cause: the server's waiting
room (:class:`WaitingRoom`) and its warning gate (:class:`WarningGate`).

Waiting room. Every new Play stream gets a place in the room of its listener (one room for the
TCP port, one for the Unix socket) until it registers or is refused. A place is held while the
stream waits for its first message (*idle*) and while a failed registration waits out its
back-off before it is answered (*penalised*). The room has two caps: ``per_peer`` places for
one peer (a TCP peer is its address; every connection on the Unix socket is the same peer to
gRPC, which tells no connection from another there) and ``total`` places in all. A new stream
is never turned away: at a cap, the oldest stream of that peer (at the total cap: of anyone)
loses its place, an idle one first (it is told to try again later), else a penalised one (it
gets its rejection at once). An honest bot sends its RegisterRequest together with the stream,
so it is checked at once and leaves the room within a few milliseconds: streams that squat
places (open and send nothing) only ever push out each other, never a bot that registers.

Warning gate. The arena prints security warnings even with ``--quiet``: a flood of failed
registrations must not flood the terminal. For each kind of warning (a key such as
``("failed", "127.0.0.1")``) the gate passes the first ``burst`` lines of a window of
``window_s`` seconds and counts the rest; when the window ends (or at :meth:`WarningGate.flush`)
one summary line tells how many were left out, with the latest. So a flood gives at most
``burst`` lines plus one summary per window and kind; a kind (failed registrations from any
address) passes at most ``kind_burst`` lines a window in all.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import OrderedDict
from collections.abc import Callable, Hashable

#: the two states of a place in the waiting room
IDLE, PENALISED = "idle", "penalised"


class Place:
    """One stream's place in a :class:`WaitingRoom`.

    Attributes:
        peer: the peer's key; state: :data:`IDLE` or :data:`PENALISED`; lost: resolved
            (with the state the place had) when a newer stream pushed this one out.
    """

    __slots__ = ("lost", "peer", "seq", "state")

    def __init__(self, peer: str, seq: int) -> None:
        self.peer = peer
        self.seq = seq
        self.state = IDLE
        self.lost: asyncio.Future[str] = asyncio.get_running_loop().create_future()


class WaitingRoom:
    """The places of streams that have not registered (see the module docstring).

    Args:
        total: places in all (>= 1). per_peer: places for one peer (>= 1; at most ``total``).
    """

    def __init__(self, total: int, per_peer: int) -> None:
        self.total = max(1, total)
        self.per_peer = max(1, min(per_peer, self.total))
        self._seq = itertools.count()
        self._all: OrderedDict[int, Place] = OrderedDict()        # oldest first
        self._by_peer: dict[str, OrderedDict[int, Place]] = {}
        #: places taken from streams by newer ones, in all
        self.pushed_out = 0

    def __len__(self) -> int:
        return len(self._all)

    def count(self, peer: str) -> int:
        """Places held by ``peer``."""
        return len(self._by_peer.get(peer, ()))

    def enter(self, peer: str) -> tuple[Place, Place | None]:
        """A place for a new stream of ``peer``; returns it and the place it took (whose
        ``lost`` future is resolved), if a cap was reached."""
        victim = None
        mine = self._by_peer.get(peer)
        if mine is not None and len(mine) >= self.per_peer:
            victim = self._oldest(mine)
        elif len(self._all) >= self.total:
            victim = self._oldest(self._all)
        if victim is not None:
            self.leave(victim)
            self.pushed_out += 1
            if not victim.lost.done():
                victim.lost.set_result(victim.state)
        place = Place(peer, next(self._seq))
        self._all[place.seq] = place
        self._by_peer.setdefault(peer, OrderedDict())[place.seq] = place
        return place, victim

    @staticmethod
    def _oldest(places: OrderedDict[int, Place]) -> Place:
        """The oldest idle place, else the oldest penalised one."""
        for place in places.values():
            if place.state == IDLE:
                return place
        return next(iter(places.values()))

    def penalise(self, place: Place) -> None:
        """Mark ``place`` as a failed registration waiting out its back-off."""
        place.state = PENALISED

    def leave(self, place: Place) -> None:
        """Free ``place`` (idempotent)."""
        if self._all.pop(place.seq, None) is None:
            return
        mine = self._by_peer.get(place.peer)
        if mine is not None:
            mine.pop(place.seq, None)
            if not mine:
                del self._by_peer[place.peer]


class WarningGate:
    """Rate-limits warning lines per kind (see the module docstring).

    Args:
        emit: where the lines go (the server's ``on_warning``).
        burst: lines passed per key and window; kind_burst: per kind (all keys ``(kind,
        ...)``) and window, so a flood from many addresses is bounded too. window_s: the
        window, seconds.
    """

    def __init__(self, emit: Callable[[str], None], *, burst: int = 3, kind_burst: int = 5,
                 window_s: float = 60.0) -> None:
        self.emit = emit
        self.burst = max(1, burst)
        self.kind_burst = max(1, kind_burst)
        self.window_s = window_s
        #: key -> [lines passed this window, lines left out, the latest left out]
        self._windows: dict[Hashable, list[int | str]] = {}
        self._timers: dict[Hashable, asyncio.TimerHandle] = {}

    def warn(self, key: Hashable, text: str, *, burst: int | None = None) -> None:
        """Emit ``text`` unless ``key`` has had ``burst`` lines (default: the gate's) in this
        window, or its kind (``key[0]`` of a tuple key: e.g. failed registrations from any
        address) has had :attr:`kind_burst`; else it is counted for a summary."""
        kind = ("kind", key[0]) if isinstance(key, tuple) and key else None
        for k, limit in ((kind, self.kind_burst), (key, self.burst if burst is None else burst)):
            if k is None:
                continue
            window = self._window(k)
            if int(window[0]) >= limit:
                window[1] = int(window[1]) + 1
                window[2] = text
                return
        for k in (kind, key):
            if k is not None:
                window = self._windows[k]
                window[0] = int(window[0]) + 1
        self.emit(text)

    def _window(self, key: Hashable) -> list[int | str]:
        window = self._windows.get(key)
        if window is None:
            window = self._windows[key] = [0, 0, ""]
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if loop is not None:
                self._timers[key] = loop.call_later(self.window_s, self._close, key)
        return window

    def _close(self, key: Hashable) -> None:
        """End ``key``'s window: one summary line if lines were left out."""
        self._timers.pop(key, None)
        window = self._windows.pop(key, None)
        if window is not None and int(window[1]):
            n = int(window[1])
            self.emit(f"{n} more warning{'s' if n > 1 else ''} of this kind in the last "
                      f"{self.window_s:g} s {'were' if n > 1 else 'was'} not shown; the latest: "
                      f"{window[2]}")

    def flush(self) -> None:
        """End every window now (summaries included); e.g. when the server stops."""
        for timer in self._timers.values():
            timer.cancel()
        for key in list(self._windows):
            self._close(key)
