"""The live page's ASGI app (Starlette) and its server (uvicorn, on the caller's event loop).

Routes (all read-only, all relative so the page works behind a path prefix):

- ``/``: the page (:mod:`arena.web.page`); ``/snapshot.json``: the ``snapshot`` event's data.
- ``/live/<match id>``: the same page following that one match full size (the rest of the
  page hidden; once the match ends, a link to the whole page).
- ``/events``: server-sent events: ``snapshot`` first and after every standings change or
  when this client fell behind (by more than the 1,024 events the app keeps), ``started`` /
  ``decisions`` / ``finished`` for the matches in flight, a comment every 15 s to keep the
  stream open. Each event is encoded once for all streams (:class:`_Hub`). ``started``:
  ``{"id", "seats", "hidden", "started", "moves": [], "decisions": 0, "table": null}``;
  ``decisions`` a batch of one match's moves and its table after them: ``{"id": MATCH,
  "moves": [[index, hand, seat, kind, action, fault or null], ...], "table": {...} or null}``
  (:class:`arena.events.PublicTable`; private cards as ``"a card"``, and every card and
  choice so when ``hidden``). Over the stream caps (:mod:`arena.web.guard`) the answer is
  ``503`` with ``Retry-After``.
- ``/replay/<match id>``: the replay viewer (:func:`arena.records.html.render_html`) of a
  finished match whose whole duplicate block is finished (the snapshot lists no other); the
  record path comes from the store's result row and must resolve inside ``records/`` of the
  tournament directory, otherwise 404.

Nothing else is served: no config (tokens, bot commands and environments live only there), no
directory listing, no file by a client-supplied path.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import socket
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from ..events import (CLOSED, RESYNC, DecisionsApplied, EventBus, MatchFinished, MatchStarted,
                      StandingsChanged, Subscription)
from ..tournament.store import StoreError
from .guard import (BACKLOG, RETRY_AFTER_S, Caps, Refusals, caps_for, guarded_protocol,
                    install_accept_error_filter)
from .page import render_page, snapshot_json
from .state import LIVE_MOVES, LiveState, SnapshotWorker

if TYPE_CHECKING:
    import uvicorn

#: seconds between keep-alive comments on an idle event stream
KEEPALIVE_S = 15.0
#: seconds a stream gathers events before writing them (at most 4 writes per second per
#: browser, whatever the pace of the matches)
FLUSH_S = 0.25
#: seconds the app gathers the bus's events before encoding them (one wake-up per batch)
PUMP_S = 0.05
#: after a refresh that took d seconds, the next starts min(max(d * REST_FACTOR, MIN_REST_S),
#: MAX_REST_S) s later at the earliest (matches that end meanwhile are taken together): the
#: standings' bootstrap takes at most a tenth of a core, at most one refresh a second while
#: they are quick (a tournament of quick matches: trivial bots end some 20 matches a second
#: on 2 cores), and a change still reaches the page within about 3 s while a refresh takes
#: under a second
REST_FACTOR = 9.0
MIN_REST_S = 1.0
MAX_REST_S = 2.0
#: the reconnect delay the browser is told, milliseconds
RETRY_MS = 1000


def sse(event: str, data: str) -> str:
    """One server-sent event (``data`` is one line of JSON)."""
    return f"event: {event}\ndata: {data}\n\n"


def event_message(ev: object, render: Callable[[], str]) -> str | None:
    """The SSE text for one bus item: for new standings or a resync marker the snapshot
    ``render()`` makes (:func:`snapshot_json_sse`), else the match event's (None: nothing to
    send)."""
    if ev is RESYNC or isinstance(ev, StandingsChanged):
        return render()
    return _match_message(ev)


def _match_message(ev: object) -> str | None:
    """The SSE text of a match event (the hub encodes each once, whatever the number of
    browsers). A batch's moves are its last :data:`~.state.LIVE_MOVES` (the page keeps no
    more per match and numbers each by its index; a fast match's 0.1 s batch can hold
    hundreds)."""
    if isinstance(ev, DecisionsApplied):
        return sse("decisions", json.dumps({"id": ev.match_id, "moves": [
            [m.index, m.hand, m.seat, m.kind, m.action, m.fault]
            for m in ev.moves[-LIVE_MOVES:]],
            "table": None if ev.table is None else ev.table.to_json()}))
    if isinstance(ev, MatchStarted):
        return sse("started", json.dumps({"id": ev.match_id, "seats": list(ev.seats),
                                          "hidden": ev.hidden, "started": time.time(),
                                          "moves": [], "decisions": 0, "table": None}))
    if isinstance(ev, MatchFinished):
        return sse("finished", json.dumps({"id": ev.match_id}))
    return None


def snapshot_json_sse(state: LiveState, live: bool) -> str:
    """The ``snapshot`` event as SSE text."""
    return sse("snapshot", snapshot_json(state, live))


class _Hub:
    """One bus subscription for all of an app's event streams: a task takes each event once,
    encodes it once (:func:`event_message`) and appends the text to a ring of the last
    ``size`` texts that every stream reads from its own cursor. The runner's cost per event
    is then the same for 1 browser or 30; a stream whose cursor the ring has passed (it fell
    behind by more than ``size`` events) gets a fresh snapshot instead. A snapshot (new
    standings, or the bus's resync marker) is rendered once, by ``render``, when the hub
    takes it, and kept in the ring like any event; the moves that follow it in the ring may
    already be in it (the page skips a move it has)."""

    def __init__(self, bus: EventBus, render: Callable[[], str], size: int = 1024) -> None:
        self.bus = bus
        self.render = render
        self.texts: deque[str] = deque(maxlen=size)
        self.seq = 0                        #: texts appended so far
        self.streams = 0                    #: streams open
        self.closed = False
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._pump(self.bus.subscribe()))

    async def _pump(self, sub: Subscription) -> None:
        with sub:
            while True:
                first = await sub.get()
                if first is not CLOSED:   # take what comes within PUMP_S in one go
                    await asyncio.sleep(PUMP_S)
                for ev in [first, *sub.take_ready(self.bus.maxsize)]:
                    if ev is CLOSED:
                        self.closed = True
                        self._changed.set()
                        return
                    if self.streams == 0:       # nobody reads: skip the encoding
                        continue
                    text = event_message(ev, self.render)
                    if text is not None:
                        self._append(text)

    def _append(self, text: str) -> None:
        self.texts.append(text)
        self.seq += 1
        self._changed.set()

    async def wait(self, cursor: int, timeout: float) -> bool:
        """Wait until there is something after ``cursor`` (or the hub closed); False when
        ``timeout`` seconds passed first."""
        while cursor == self.seq and not self.closed:
            self._changed.clear()
            try:
                async with asyncio.timeout(timeout):
                    await self._changed.wait()
            except TimeoutError:
                return False
        return True

    def since(self, cursor: int) -> tuple[list[str], int]:
        """The texts after ``cursor`` (a fresh snapshot when the ring has passed it) and the
        new cursor."""
        first = self.seq - len(self.texts)
        if cursor < first:
            return [self.render()], self.seq
        return list(itertools.islice(self.texts, cursor - first, None)), self.seq


class _StreamCount:
    """Event streams open, in all and per client address, against the caps."""

    def __init__(self, caps: Caps, refusals: Refusals) -> None:
        self.caps, self.refusals = caps, refusals
        self.total = 0
        self.by_client: dict[str, int] = {}

    def admit(self, client: str) -> str | None:
        """Count a new stream of ``client``; the reason it is refused (over a cap), or
        None."""
        if self.total >= self.caps.streams:
            why = f"event streams over the cap ({self.caps.streams})"
        elif self.by_client.get(client, 0) >= self.caps.per_client:
            why = f"event streams over the per-client cap ({self.caps.per_client})"
        else:
            self.total += 1
            self.by_client[client] = self.by_client.get(client, 0) + 1
            return None
        self.refusals.note(why)
        return why

    def leave(self, client: str) -> None:
        self.total -= 1
        left = self.by_client[client] - 1
        if left:
            self.by_client[client] = left
        else:
            del self.by_client[client]


class _CountedStream(StreamingResponse):
    """A streaming response that calls ``release`` once it is over, however it ends (also
    when the client left before its first byte, so the stream never started)."""

    def __init__(self, content: AsyncIterator[str], release: Callable[[], None],
                 **kw: Any) -> None:
        super().__init__(content, **kw)
        self._release: Callable[[], None] | None = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            release, self._release = self._release, None
            if release is not None:
                release()


def create_app(state: LiveState, bus: EventBus, *, live: bool, caps: Caps | None = None,
               refusals: Refusals | None = None,
               extra: Sequence[BaseRoute] = ()) -> Starlette:
    """The app over ``state`` (kept fresh by :func:`keep_fresh`); ``live``: a running arena
    publishes to ``bus`` (matches in flight are shown). ``caps``: the event-stream caps
    (default :func:`arena.web.guard.caps_for` this process's descriptor limit); refusals are
    counted in ``refusals`` (kept in ``app.state`` for :class:`WebServer`). ``extra``: more
    routes (the league's API and pages, :mod:`arena.league.api`)."""
    caps = caps or caps_for()
    refusals = refusals or Refusals()
    streams = _StreamCount(caps, refusals)

    async def page(request: Request) -> Response:
        return HTMLResponse(render_page(state, live), headers=_NO_STORE)

    async def solo(request: Request) -> Response:
        return HTMLResponse(render_page(state, live, focus=request.path_params["match_id"]),
                            headers=_NO_STORE)

    async def snapshot(request: Request) -> Response:
        return Response(snapshot_json(state, live), media_type="application/json",
                        headers=_NO_STORE)

    hub = _Hub(bus, functools.partial(snapshot_json_sse, state, live))

    async def events(request: Request) -> Response:
        client = request.client.host if request.client else ""
        why = streams.admit(client)
        if why is not None:
            return PlainTextResponse(f"{why}; retry in {RETRY_AFTER_S} s\n", status_code=503,
                                     headers={**_NO_STORE, "Retry-After": str(RETRY_AFTER_S),
                                              "Connection": "close"})
        hub.start()

        async def stream() -> AsyncIterator[str]:
            cursor = hub.seq      # from here (an event may come twice, none is lost)
            hub.streams += 1
            try:
                yield f"retry: {RETRY_MS}\n\n"
                yield snapshot_json_sse(state, live)
                while not hub.closed:
                    if not await hub.wait(cursor, KEEPALIVE_S):
                        yield ": keep-alive\n\n"
                        continue
                    if not hub.closed:     # gather what comes within FLUSH_S: one write
                        await asyncio.sleep(FLUSH_S)
                    items, cursor = hub.since(cursor)
                    if items:
                        yield "".join(items)
            finally:
                hub.streams -= 1

        return _CountedStream(stream(), lambda: streams.leave(client),
                              media_type="text/event-stream",
                              headers={**_NO_STORE, "X-Accel-Buffering": "no"})

    async def replay(request: Request) -> Response:
        path = _record_path(state, request.path_params["match_id"])
        if path is None:
            return PlainTextResponse("no such finished match", status_code=404)
        from ..records import read_record
        from ..records.html import render_html
        try:
            text = await asyncio.to_thread(lambda: render_html(read_record(path)))
        except Exception as exc:
            return PlainTextResponse(f"cannot show this record: {type(exc).__name__}",
                                     status_code=500)
        return HTMLResponse(text)

    async def favicon(request: Request) -> Response:   # no icon (the replay page asks)
        return Response(status_code=204)

    app = Starlette(routes=[Route("/", page), Route("/snapshot.json", snapshot),
                            Route("/favicon.ico", favicon),
                            Route("/events", events),
                            Route("/live/{match_id:str}", solo),
                            Route("/replay/{match_id:str}", replay), *extra])
    app.state.caps, app.state.refusals = caps, refusals
    return app


_NO_STORE = {"Cache-Control": "no-store"}


def _record_path(state: LiveState, match_id: str) -> Path | None:
    """The record file of a finished match listed in the snapshot, inside ``records/``."""
    snap = state.snapshot
    if snap is None:
        return None
    row = next((r for r in snap.finished if r.match_id == match_id), None)
    if row is None:
        return None
    records = (state.out / "records").resolve()
    path = (state.out / row.record).resolve()
    if not path.is_relative_to(records) or not path.is_file():
        return None
    return path


async def keep_fresh(state: LiveState, bus: EventBus, poll_s: float = 1.0,
                     worker: SnapshotWorker | None = None) -> None:
    """Refresh ``state`` when a match finishes (a :class:`MatchFinished` on ``bus``) or the
    store's result count changes (polled every ``poll_s`` s: another process may be writing),
    then publish :class:`StandingsChanged`. Matches that finish during a refresh are taken
    by the next one (refreshes never pile up). ``worker``: rebuild snapshots in that worker
    process (else in a thread). Runs until cancelled."""
    dirty = asyncio.Event()
    bus.listen(lambda ev: dirty.set() if isinstance(ev, MatchFinished) else None)
    last: tuple[int, str] | None = None
    while True:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(poll_s):
                await dirty.wait()
        dirty.clear()
        try:
            key = await asyncio.to_thread(state.poll_key)   # matches stored, the lobby
            if key != last or state.snapshot is None:
                t0 = time.perf_counter()
                if worker is not None:
                    snap = await worker.refresh(state)
                    took = worker.last_s
                else:
                    snap = await asyncio.to_thread(state.refresh)
                    took = time.perf_counter() - t0
                last = (snap.done, key[1])     # matches stored during it are in it
                bus.publish(StandingsChanged(snap.done, snap.scheduled))
                await asyncio.sleep(min(max(took * REST_FACTOR, MIN_REST_S), MAX_REST_S))
        except StoreError:
            continue    # not created yet (the arena is starting)


def is_loopback(host: str) -> bool:
    return host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")


class WebServer:
    """uvicorn serving ``app`` on ``host:port`` inside the running event loop (no signal
    handlers of its own: the arena's stay in charge).

    Raises (from :meth:`start`): OSError when the address cannot be bound.
    """

    def __init__(self, app: Starlette, host: str, port: int) -> None:
        self.app, self.host, self.port = app, host, port
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> int:
        """Bind and start serving; returns the bound port."""
        import uvicorn

        class _Server(uvicorn.Server):
            @contextlib.contextmanager
            def capture_signals(self) -> Iterator[None]:
                yield

        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.create_server((self.host, self.port), family=family, reuse_port=False)
        self.port = sock.getsockname()[1]
        caps = getattr(self.app.state, "caps", None) or caps_for()
        refusals = getattr(self.app.state, "refusals", None) or Refusals()
        install_accept_error_filter(asyncio.get_running_loop(), refusals)
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off",
                                access_log=False, timeout_graceful_shutdown=1,
                                http=guarded_protocol(caps, refusals), backlog=BACKLOG)
        server = self._server = _Server(config)
        self._task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            if self._task.done():
                self._task.result()
                raise OSError(f"the web server on {self.host}:{self.port} stopped at start")
            await asyncio.sleep(0.01)
        return self.port

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    async def stop(self) -> None:
        refusals = getattr(self.app.state, "refusals", None)
        if refusals is not None:
            refusals.flush()      # what was refused since the last summary line
        if self._server is None or self._task is None:
            return
        self._server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task
