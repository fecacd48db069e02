"""Limits of the arena's server against connections that do not register, and its keepalive
(see :class:`arena.protocol.server.ArenaServer`): gRPC transport options, and the per-address
back-off after failed registrations.

Transport (gRPC core channel arguments, checked by tests/protocol/test_limits.py):

- ``grpc.server_handshake_timeout_ms``: a TCP connection that does not complete its HTTP/2
  start (e.g. raw TCP that never sends the preface) is closed after the handshake timeout;
- ``grpc.max_connection_idle_ms``: a connection with no open stream is closed after the idle
  timeout;
- ``grpc.max_allowed_incoming_connections``: connections over the cap are closed at once;
- ``grpc.max_concurrent_streams``: streams per connection (a bot needs one; a program that
  hosts several bots may open one per bot on a shared connection; on the Unix socket, where
  each bot the arena starts has a process of its own, 4).

Keepalive (tests/protocol/test_keepalive.py). The TCP port (remote bots) detects dead peers:
the arena pings a connection after :data:`KEEPALIVE_TIME_S` without traffic and closes it when
the ping is not answered within :data:`KEEPALIVE_TIMEOUT_S` (measured: this gRPC waits for the
answer ``grpc.http2.ping_timeout_ms``, 60 s by default, whatever ``grpc.keepalive_timeout_ms``
says, and sends no keepalive ping after two without data unless
``grpc.http2.max_pings_without_data`` is 0). It accepts the client's own
keepalive pings down to one per :data:`MIN_CLIENT_PING_INTERVAL_S`, with or without a call
(``grpc.http2.min_ping_interval_without_data_ms``, ``grpc.keepalive_permit_without_calls``);
a client that pings faster is sent GOAWAY ``too_many_pings`` (gRPC's rule, after two early
pings). The Unix socket (the bots the arena starts) sends no ping at all (no keepalive, no
BDP probes, no pings on stream resets): a bot process the arena stops between its matches
(SIGSTOP) cannot answer one, and its connection must outlive the pause, however long.

Back-off (:class:`Backoff`): every failed registration from an address (unknown token,
unsupported version, a first message that is not a registration or none in time, a stream
that ended before its registration, e.g. with a message over the size limit, a token already
in use or used over the wrong transport) makes the answers to the next *failed* registrations
from that address wait: ``base_s * 2**(failures - 1)``, at most ``max_s``; the count is
forgotten ``forget_s`` seconds after the last failure. It slows down retry loops and token
guessing; a registration with a valid token is answered at once, whatever its address.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

#: streams per connection (a bot uses one)
MAX_STREAMS_PER_CONNECTION = 100
#: ... on the Unix socket, where only the bots the arena starts connect (one stream each)
MAX_STREAMS_PER_UNIX_CONNECTION = 4
#: default cap on streams waiting to register at once, per listener (TCP port, Unix socket)
MAX_UNREGISTERED = 32
#: default cap on streams waiting to register at once from one TCP address
MAX_UNREGISTERED_PER_PEER = 8
#: the TCP port's keepalive: ping after this long without traffic, seconds
KEEPALIVE_TIME_S = 30.0
#: ... and close the connection when the ping is not answered within this, seconds
KEEPALIVE_TIMEOUT_S = 10.0
#: the fastest keepalive pings the TCP port accepts from a client, seconds apart
MIN_CLIENT_PING_INTERVAL_S = 5.0
#: gRPC's "never" for a time in ms (INT_MAX)
_NEVER_MS = 2**31 - 1
#: addresses whose failures are remembered (the oldest is forgotten past this)
_MAX_ADDRESSES = 4096


def _ms(seconds: float) -> int:
    return max(1, min(_NEVER_MS, round(seconds * 1000)))


def transport_options(handshake_timeout_s: float, idle_timeout_s: float,
                      max_connections: int | None,
                      max_streams: int = MAX_STREAMS_PER_CONNECTION) -> list[tuple[str, int]]:
    """gRPC server options for the limits above (times in seconds, converted to ms)."""
    opts = [("grpc.server_handshake_timeout_ms", _ms(handshake_timeout_s)),
            ("grpc.max_connection_idle_ms", _ms(idle_timeout_s)),
            ("grpc.max_concurrent_streams", max_streams),
            ("grpc.so_reuseport", 0)]
    if max_connections is not None:
        opts.append(("grpc.max_allowed_incoming_connections", max_connections))
    return opts


def tcp_keepalive_options(time_s: float = KEEPALIVE_TIME_S,
                          timeout_s: float = KEEPALIVE_TIMEOUT_S) -> list[tuple[str, int]]:
    """The TCP port's keepalive (see the module docstring): dead-peer detection after
    ``time_s`` + ``timeout_s`` seconds, client pings accepted every
    :data:`MIN_CLIENT_PING_INTERVAL_S` seconds."""
    return [("grpc.keepalive_time_ms", _ms(time_s)),
            ("grpc.keepalive_timeout_ms", _ms(timeout_s)),
            # what this gRPC waits for a ping's answer (default 60 s, keepalive or not)
            ("grpc.http2.ping_timeout_ms", _ms(timeout_s)),
            # gRPC stops pinging after 2 pings with no data between them: an idle remote bot
            # (waiting for its next match) would never be found dead
            ("grpc.http2.max_pings_without_data", 0),
            ("grpc.http2.min_ping_interval_without_data_ms", _ms(MIN_CLIENT_PING_INTERVAL_S)),
            ("grpc.keepalive_permit_without_calls", 1)]


def unix_keepalive_options() -> list[tuple[str, int]]:
    """The Unix socket's: the arena never pings (see the module docstring); the client's own
    pings are accepted as on the TCP port."""
    return [("grpc.keepalive_time_ms", _NEVER_MS),
            ("grpc.http2.ping_timeout_ms", _NEVER_MS),
            ("grpc.http2.bdp_probe", 0),
            ("grpc.http2.ping_on_rst_stream_percent", 0),
            ("grpc.http2.min_ping_interval_without_data_ms", _ms(MIN_CLIENT_PING_INTERVAL_S)),
            ("grpc.keepalive_permit_without_calls", 1)]


def peer_host(peer: str) -> str:
    """The address part of gRPC's peer string (``"ipv4:127.0.0.1:5555"`` -> ``"127.0.0.1"``,
    ``"ipv6:[::1]:5555"`` -> ``"::1"``); ``"unix:..."`` -> ``"unix"`` (every connection on
    the Unix socket is one peer to gRPC); other forms are returned whole."""
    kind, sep, rest = peer.partition(":")
    if kind == "unix":
        return "unix"
    if not sep or kind not in ("ipv4", "ipv6"):
        return peer
    host = rest.rpartition(":")[0]
    return host.strip("[]") or rest


class Backoff:
    """Failed registrations per address and the delay they impose (see the module docstring).

    Args:
        base_s: delay after the first failure, seconds. max_s: largest delay, seconds.
        forget_s: failures are forgotten this long after the last one, seconds.
        clock: time source (``time.monotonic``; tests pass their own).
    """

    def __init__(self, base_s: float = 0.1, max_s: float = 5.0, forget_s: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.base_s, self.max_s, self.forget_s = base_s, max_s, forget_s
        self.clock = clock
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()

    def failures(self, host: str) -> int:
        """Recent failures from ``host`` (0 once forgotten)."""
        entry = self._failures.get(host)
        if entry is None:
            return 0
        if self.clock() - entry[1] > self.forget_s:
            del self._failures[host]
            return 0
        return entry[0]

    def delay_s(self, host: str) -> float:
        """Seconds the next registration from ``host`` waits before it is checked."""
        n = self.failures(host)
        return 0.0 if n == 0 else min(self.max_s, self.base_s * 2 ** min(n - 1, 30))

    def failed(self, host: str) -> int:
        """Count a failed registration from ``host``; returns its recent failures."""
        n = self.failures(host) + 1
        self._failures[host] = (n, self.clock())
        self._failures.move_to_end(host)
        while len(self._failures) > _MAX_ADDRESSES:
            self._failures.popitem(last=False)
        return n
