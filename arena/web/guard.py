"""What keeps the live page from starving the arena of file descriptors: caps on connections
and event streams, an idle-connection timeout, and log lines that never flood.

Every open HTTP connection costs the arena's process a file descriptor, the same resource its
bots' pipes, the store, the records and the sandbox's ``/proc`` readings need. So:

- **connections**: at most :attr:`Caps.connections` open at once (a quarter of the soft
  ``RLIMIT_NOFILE``, from 32 to 1,024); one more is answered ``503`` with ``Retry-After`` and
  closed at once, before its request is read. A connection that sends no request within
  :data:`IDLE_S` seconds is closed (a client holding sockets open costs nothing for long).
  The listening socket accepts at most :data:`BACKLOG` connections per loop turn, so a burst
  cannot take every descriptor before the caps are checked.
- **event streams** (``/events``, which stay open): at most :attr:`Caps.streams` in all and
  :attr:`Caps.per_client` per client address; over a cap the answer is a plain ``503`` with
  ``Retry-After`` (the page retries with back-off), no traceback.
- **log lines**: refusals are counted and logged at most once a minute, as one WARNING line
  with the counts (:class:`Refusals`); the event loop's "socket.accept() out of system
  resource" errors (EMFILE and its kin, should the process run out anyway) are summarised the
  same way instead of one traceback each (:func:`install_accept_error_filter`).

The arena also raises its soft ``RLIMIT_NOFILE`` to the hard limit at start
(:func:`arena.cli.raise_open_file_limit`).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import resource
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("arena.web")

#: seconds a connection may stay open without sending a request
IDLE_S = 10.0
#: seconds a client over a cap is told to wait (``Retry-After``)
RETRY_AFTER_S = 5
#: connections the listening socket accepts per event-loop turn (also its listen backlog)
BACKLOG = 64
#: seconds between two summaries of refusals or accept errors in the log
SUMMARY_S = 60.0
#: errno values of "the process or the system is out of descriptors or memory" on accept
OUT_OF_RESOURCES = frozenset((errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM))


@dataclass(frozen=True)
class Caps:
    """The page's caps: open ``connections``, event ``streams`` in all, streams
    ``per_client`` address."""

    connections: int
    streams: int
    per_client: int


def caps_for(soft_nofile: int | None = None) -> Caps:
    """Caps fitted to a soft descriptor limit (default: this process's): connections a
    quarter of it (32..1,024), streams half of those, 16 per client address."""
    if soft_nofile is None:
        soft_nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft_nofile == resource.RLIM_INFINITY:
            soft_nofile = 1 << 20
    connections = max(32, min(1024, soft_nofile // 4))
    return Caps(connections=connections, streams=max(16, connections // 2), per_client=16)


class Refusals:
    """Counts what the page refused (or failed to accept), logging the first at once and
    then at most one summary every ``every_s`` seconds (WARNING, logger ``arena.web``).

    ``clock``: seconds (monotonic), for tests.
    """

    def __init__(self, every_s: float = SUMMARY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.every_s = every_s
        self.clock = clock
        self.total: Counter[str] = Counter()
        self._pending: Counter[str] = Counter()
        self._last: float | None = None
        self._timer: asyncio.TimerHandle | None = None

    def note(self, what: str) -> None:
        """Count one ``what`` (e.g. ``"event streams over the per-client cap (16)"``)."""
        self.total[what] += 1
        self._pending[what] += 1
        now = self.clock()
        if self._last is None or now - self._last >= self.every_s:
            self.flush()
        elif self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._timer = loop.call_later(self.every_s - (now - self._last), self.flush)

    def flush(self) -> None:
        """Log what was counted since the last line (nothing when nothing was)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        parts = "; ".join(f"{what}: {n:,}" for what, n in sorted(self._pending.items()))
        first = self._last is None
        self._last = self.clock()
        self._pending.clear()
        log.warning("live page refused %s%s", parts,
                    "" if first else f" (in the last {self.every_s:.0f} s)")


def unavailable(reason: str) -> bytes:
    """A whole ``503`` response (``Retry-After``, ``Connection: close``) as bytes."""
    body = f"{reason}; retry in {RETRY_AFTER_S} s\n".encode()
    return (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"retry-after: " + str(RETRY_AFTER_S).encode() + b"\r\nconnection: close\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def guarded_protocol(caps: Caps, refusals: Refusals) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol class with the connection cap and the idle timeout (for
    ``uvicorn.Config(http=...)``)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Guarded(H11Protocol):
        _refused = False
        _idle: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            if len(self.connections) >= caps.connections:
                self._refused = True
                refusals.note(f"connections over the cap ({caps.connections})")
                transport.write(unavailable("too many connections"))
                transport.close()
                return
            super().connection_made(transport)
            self._idle = asyncio.get_running_loop().call_later(IDLE_S, self._idle_close)

        def _idle_close(self) -> None:
            self._idle = None
            if self.cycle is None and not self.transport.is_closing():
                self.transport.close()

        def _busy(self) -> None:
            if self._idle is not None:
                self._idle.cancel()
                self._idle = None

        def data_received(self, data: bytes) -> None:
            if not self._refused:
                self._busy()
                super().data_received(data)

        def connection_lost(self, exc: Exception | None) -> None:
            if not self._refused:
                self._busy()
                super().connection_lost(exc)

        def eof_received(self) -> None:
            if not self._refused:
                super().eof_received()

    return Guarded


def install_accept_error_filter(loop: asyncio.AbstractEventLoop,
                                refusals: Refusals) -> None:
    """Route the loop's "socket.accept() out of system resource" errors (and the retry's
    error once that socket is closed) to ``refusals`` (one summarised line) instead of one
    traceback each; every other error goes to the previous handler as before."""
    previous = loop.get_exception_handler()

    def handler(lp: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        message = str(context.get("message", ""))
        if isinstance(exc, OSError) and exc.errno in OUT_OF_RESOURCES and "accept" in message:
            refusals.note(f"connections the arena could not accept ({exc.strerror})")
            return
        if isinstance(exc, ValueError) and "_start_serving" in repr(context.get("handle")):
            return       # the accept retry of a socket closed meanwhile (the page stopped)
        if previous is not None:
            previous(lp, context)
        else:
            lp.default_exception_handler(context)

    loop.set_exception_handler(handler)
