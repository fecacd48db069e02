"""Limits of the arena's server against connections that do not register (see
:class:`arena.protocol.server.ArenaServer`): gRPC transport options, and the per-address
back-off after failed registrations.

Transport (gRPC core channel arguments, checked by tests/protocol/test_limits.py):

- ``grpc.server_handshake_timeout_ms``: a TCP connection that does not complete its HTTP/2
  start (e.g. raw TCP that never sends the preface) is closed after the handshake timeout;
- ``grpc.max_connection_idle_ms``: a connection with no open stream is closed after the idle
  timeout;
- ``grpc.max_allowed_incoming_connections``: connections over the cap are closed at once;
- ``grpc.max_concurrent_streams``: streams per connection (a bot needs one; a program that
  hosts several bots may open one per bot on a shared connection).

Back-off (:class:`Backoff`): every failed registration from an address (unknown token,
unsupported version, a first message that is not a registration or none in time, a token
already in use) makes the next registrations from that address wait before they are checked:
``base_s * 2**(failures - 1)``, at most ``max_s``; the count is forgotten ``forget_s`` seconds
after the last failure. It slows down token guessing (the arena answers a wrong token at once
otherwise) at the price of slowing honest bots on the same address while it lasts.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

#: streams per connection (a bot uses one)
MAX_STREAMS_PER_CONNECTION = 100
#: default cap on streams waiting for their RegisterRequest at once
MAX_UNREGISTERED = 32
#: addresses whose failures are remembered (the oldest is forgotten past this)
_MAX_ADDRESSES = 4096


def transport_options(handshake_timeout_s: float, idle_timeout_s: float,
                      max_connections: int | None) -> list[tuple[str, int]]:
    """gRPC server options for the limits above (times in seconds, converted to ms)."""
    opts = [("grpc.server_handshake_timeout_ms", max(1, round(handshake_timeout_s * 1000))),
            ("grpc.max_connection_idle_ms", max(1, round(idle_timeout_s * 1000))),
            ("grpc.max_concurrent_streams", MAX_STREAMS_PER_CONNECTION)]
    if max_connections is not None:
        opts.append(("grpc.max_allowed_incoming_connections", max_connections))
    return opts


def peer_host(peer: str) -> str:
    """The address part of gRPC's peer string (``"ipv4:127.0.0.1:5555"`` -> ``"127.0.0.1"``,
    ``"ipv6:[::1]:5555"`` -> ``"::1"``); other forms are returned whole."""
    kind, sep, rest = peer.partition(":")
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
