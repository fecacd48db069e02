"""Server limits against connections that do not register (issue 10 item 12), on 127.0.0.1
only and bounded in count and time: handshake and idle timeouts close the socket, a cap on
connections and on streams waiting to register, a per-address back-off after failed
registrations; tokens are compared with hmac.compare_digest."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from arena.protocol import server as server_module
from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb
from arena.protocol.limits import Backoff, peer_host

from .helpers import PATIENCE_S, RawClient, run, started_server

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def _open(port: int, payload: bytes | None = None) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if payload:
        s.sendall(payload)
    return s


async def _closed_within(sock: socket.socket, timeout_s: float) -> float | None:
    """Seconds until the server closed ``sock`` (EOF or reset), None if still open."""
    sock.setblocking(False)
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        try:
            data = sock.recv(65536)
            if data == b"":
                return time.monotonic() - t0
        except BlockingIOError:
            pass
        except ConnectionResetError:
            return time.monotonic() - t0
        await asyncio.sleep(0.02)
    return None


@pytest.mark.parametrize("payload,kind", [(None, "handshake"), (PREFACE, "idle")])
def test_connections_without_a_stream_are_closed(payload, kind) -> None:
    async def scenario():
        server, port = await started_server(handshake_timeout_s=0.5, idle_timeout_s=0.8)
        sock = _open(port, payload)
        try:
            # raw TCP without the HTTP/2 preface: the handshake timeout; a preface and no
            # stream: the idle timeout. Either way the server closes the socket.
            took = await _closed_within(sock, 10)
            assert took is not None, f"{kind}: the connection was not closed"
            assert took >= (0.3 if kind == "handshake" else 0.5)
        finally:
            sock.close()
            await server.stop()
    run(scenario())


def test_connections_over_the_cap_are_closed_at_once() -> None:
    async def scenario():
        server, port = await started_server(max_connections=3, handshake_timeout_s=30,
                                            idle_timeout_s=30)
        held = [_open(port, PREFACE) for _ in range(3)]
        extra = _open(port, PREFACE)
        try:
            assert await _closed_within(extra, 5) is not None
            for sock in held:   # the first three are served (and not closed for 30 s)
                assert await _closed_within(sock, 0.3) is None
        finally:
            for sock in (*held, extra):
                sock.close()
            await server.stop()
    run(scenario())


def test_streams_waiting_to_register_are_capped() -> None:
    async def scenario():
        server, port = await started_server(max_unregistered=4, register_timeout_s=30)
        server.expect("good-token", "alpha")
        waiting = [RawClient(port) for _ in range(4)]   # open streams that send nothing
        extra = None
        try:
            for _ in range(500):
                if server._unregistered == 4:
                    break
                await asyncio.sleep(0.02)
            assert server._unregistered == 4
            extra = RawClient(port)
            reply = (await extra.recv()).register
            assert reply.reason == pb.REGISTER_REJECT_REASON_NOT_REGISTERED
            assert "too many connections are waiting to register (at most 4)" in reply.detail
            # a waiting stream that registers is served as usual, and frees its place
            reply = await waiting[0].register("good-token")
            assert reply.accepted
            assert server._unregistered == 3
        finally:
            for c in (*waiting, extra):
                if c is not None:
                    await c.close()
            await server.stop()
    run(scenario())


def test_failed_registrations_slow_down_the_address() -> None:
    async def scenario():
        warnings: list[str] = []
        server, port = await started_server(
            backoff=Backoff(base_s=0.2, max_s=0.8), on_warning=warnings.append)
        server.expect("good-token", "alpha")
        try:
            for _ in range(4):   # guesses: answered, then later ones wait 0.2, 0.4, 0.8 s
                c = RawClient(port)
                reply = await c.register("guess")
                await c.close()
                assert reply.reason == pb.REGISTER_REJECT_REASON_BAD_TOKEN
            assert server.backoff.failures("127.0.0.1") == 4
            assert server.backoff.delay_s("127.0.0.1") == 0.8
            assert len(warnings) == 1 and warnings[0].startswith(
                "1 failed registration from 127.0.0.1 (latest from ipv4:127.0.0.1:")
            assert "unknown token" in warnings[0]
            c = RawClient(port)
            t0 = time.monotonic()
            reply = await c.register("good-token")   # even the right token waits now
            waited = time.monotonic() - t0
            await c.close()
            assert reply.accepted and waited >= 0.75
        finally:
            await server.stop()
    run(scenario())


def test_backoff_doubles_caps_and_forgets() -> None:
    now = [0.0]
    b = Backoff(base_s=0.1, max_s=1.0, forget_s=60, clock=lambda: now[0])
    assert b.delay_s("10.0.0.1") == 0
    delays = []
    for _ in range(6):
        b.failed("10.0.0.1")
        delays.append(b.delay_s("10.0.0.1"))
    assert delays == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.0, 1.0])
    assert b.delay_s("10.0.0.2") == 0              # per address
    now[0] = 59.0
    assert b.failures("10.0.0.1") == 6
    now[0] = 61.0
    assert b.failures("10.0.0.1") == 0 and b.delay_s("10.0.0.1") == 0


@pytest.mark.parametrize("peer,host", [("ipv4:127.0.0.1:5555", "127.0.0.1"),
                                       ("ipv6:[::1]:5555", "::1"), ("unix:/tmp/s", "unix:/tmp/s")])
def test_peer_host(peer, host) -> None:
    assert peer_host(peer) == host


def test_second_connection_with_a_token_in_use_is_a_warning() -> None:
    async def scenario():
        warnings: list[str] = []
        server, port = await started_server(on_warning=warnings.append)
        server.expect("tok", "alpha")
        first, second = RawClient(port), RawClient(port)
        try:
            assert (await first.register("tok")).accepted
            reply = await second.register("tok")
            assert reply.reason == pb.REGISTER_REJECT_REASON_ALREADY_CONNECTED
            assert len(warnings) == 1 and warnings[0].startswith(
                "a second connection (ipv4:127.0.0.1:")
            assert "already connected; it was refused" in warnings[0]
            assert "may have leaked" in warnings[0]
        finally:
            await first.close()
            await second.close()
            await server.stop()
    run(scenario())


def test_tokens_are_compared_in_constant_time(monkeypatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = server_module.hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(server_module.hmac, "compare_digest", spy)

    async def scenario():
        server, port = await started_server()
        server.expect("right-token", "alpha")
        c = RawClient(port)
        try:
            assert (await c.register("right-token")).accepted
            assert calls == [(b"right-token", b"right-token")]
            assert (await asyncio.wait_for(server.wait_for_bot("right-token", PATIENCE_S),
                                           PATIENCE_S)).name == "alpha"
        finally:
            await c.close()
            await server.stop()
    run(scenario())
