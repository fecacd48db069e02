"""Serving the live page beside a running tournament (``arena run --web``) or over a
tournament directory (``arena serve``)."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from starlette.applications import Starlette

from ..errors import UserError
from ..events import EventBus, EventSink
from ..inflight import JournalReader
from .app import WebServer, create_app, is_loopback, keep_fresh
from .state import LiveState, SnapshotWorker

T = TypeVar("T")
#: seconds between two reads of the in-flight journal by arena serve
JOURNAL_POLL_S = 0.25


def _announce(server: WebServer, what: str) -> None:
    print(f"arena: {what} at {server.url}", file=sys.stderr, flush=True)
    if not is_loopback(server.host):
        print(f"arena: WARNING: the page is reachable from other machines on {server.host} "
              "(no authentication; bot names, results and bots' log tails are visible)",
              file=sys.stderr, flush=True)


async def _start(app: Starlette, host: str, port: int, option: str) -> WebServer:
    """Start the page's server; ``option`` names the address's option in errors."""
    server = WebServer(app, host, port)
    try:
        await server.start()
    except OSError as exc:
        raise UserError(f"{option}: cannot listen on {host}:{port}: {exc.strerror or exc}"
                        ) from None
    return server


async def run_with_page(out: Path, host: str, port: int,
                        run: Callable[[EventSink], Awaitable[T]], *, linger_s: float = 0.5,
                        bus: EventBus | None = None, secrets: tuple[str, ...] = (),
                        hide_cards: bool | None = None) -> T:
    """Serve the live page of ``out`` while ``run(bus.publish)`` (the tournament) runs; the
    page gets its final state, then the server stops ``linger_s`` s after the run ends.
    ``secrets``: the remote bots' tokens (never shown); ``hide_cards``: the tournament has a
    remote bot (default: it has when it has tokens, which only remote bots have).

    Raises: UserError when the address cannot be bound; whatever ``run`` raises.
    """
    bus = bus or EventBus()
    state = LiveState(out, secrets, bool(secrets) if hide_cards is None else hide_cards)
    bus.listen(state.on_event)
    server = await _start(create_app(state, bus, live=True), host, port, "--web")
    worker = SnapshotWorker()   # the rating fits run beside the arena, not in its process
    fresh = asyncio.create_task(keep_fresh(state, bus, poll_s=1.0, worker=worker))
    _announce(server, "live page")
    try:
        return await run(bus.publish)
    finally:
        fresh.cancel()
        with contextlib.suppress(Exception):
            await asyncio.shield(_final(state, bus, linger_s, worker))
        worker.close()
        bus.close()
        await asyncio.shield(_stop_soon(server))


async def _final(state: LiveState, bus: EventBus, linger_s: float,
                 worker: SnapshotWorker) -> None:
    from ..events import StandingsChanged
    snap = await worker.refresh(state)
    bus.publish(StandingsChanged(snap.done, snap.scheduled))
    await asyncio.sleep(linger_s)


async def serve_directory(out: Path, host: str, port: int, poll_s: float = 1.0) -> None:
    """Serve the page of tournament directory ``out`` (read-only, polling its store every
    ``poll_s`` s and following its in-flight journal, :mod:`arena.inflight`) until cancelled.

    Raises: UserError when ``out`` holds no results store or the address cannot be bound.
    """
    from ..tournament.store import StoreError
    state = LiveState(out)
    try:
        await asyncio.to_thread(state.refresh)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    bus = EventBus()
    bus.listen(state.on_event)
    server = await _start(create_app(state, bus, live=False), host, port,
                          "--host/--port")
    fresh = asyncio.create_task(keep_fresh(state, bus, poll_s=poll_s))
    journal = asyncio.create_task(follow_journal(out, bus))
    _announce(server, "tournament page (read-only)")
    try:
        await asyncio.Event().wait()
    finally:
        fresh.cancel()
        journal.cancel()
        bus.close()
        await asyncio.shield(_stop_soon(server))


async def follow_journal(out: Path, bus: EventBus, poll_s: float = JOURNAL_POLL_S) -> None:
    """Publish on ``bus`` the matches in flight that another process's arena writes to
    ``out/live/`` (:class:`arena.inflight.JournalReader`, polled every ``poll_s`` s in a
    thread); a match leaving the journal is published as finished, which refreshes the
    standings. Runs until cancelled."""
    reader = JournalReader(out)
    try:
        while True:
            for event in await asyncio.to_thread(reader.poll):
                bus.publish(event)
            await asyncio.sleep(poll_s)
    finally:
        reader.close()


async def _stop_soon(server: WebServer) -> None:
    await asyncio.sleep(0.1)    # the streams end their responses
    await server.stop()
