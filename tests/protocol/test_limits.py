"""Server limits against connections that do not register, on 127.0.0.1 only and bounded in
count and time: handshake and idle timeouts close the socket, a cap on connections, a waiting
room for streams that have not registered (idle streams are pushed out by bots that register),
a back-off on the answers to failed registrations (valid tokens never wait), rate-limited
warnings; tokens are compared with hmac.compare_digest."""

from __future__ import annotations

import asyncio
import socket
import time

import grpc
import pytest

from arena.protocol import tokens as tokens_module
from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb
from arena.protocol.admission import WarningGate
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


async def _until(predicate, what: str) -> None:
    """Wait (on the event loop) until ``predicate()`` holds, bounded by PATIENCE_S."""
    deadline = time.monotonic() + PATIENCE_S
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def test_idle_streams_are_pushed_out_by_a_bot_that_registers() -> None:
    """Streams that send nothing fill the waiting room; a bot that registers still gets in,
    and the oldest idle stream is told TRY_AGAIN_LATER (gRPC status UNAVAILABLE)."""
    async def scenario():
        warnings: list[str] = []
        server, port = await started_server(max_unregistered=4, register_timeout_s=30,
                                            on_warning=warnings.append)
        server.expect("good-token", "alpha")
        server.expect("other-token", "beta")
        waiting: list[RawClient] = []
        bots: list[RawClient] = []
        try:
            for n in range(4):   # streams that send nothing, one by one (the oldest is known)
                waiting.append(RawClient(port))
                await _until(lambda n=n: server.unregistered > n, "a waiting stream")
            # a bot registers: it takes the oldest idle stream's place
            bots.append(RawClient(port))
            assert (await bots[0].register("good-token")).accepted
            reply = (await waiting[0].recv()).register
            assert reply.reason == pb.REGISTER_REJECT_REASON_TRY_AGAIN_LATER
            assert "register again after a short pause" in reply.detail
            assert await waiting[0].status() == grpc.StatusCode.UNAVAILABLE
            assert server.unregistered == 3      # the bot is registered, not waiting
            bots.append(RawClient(port))         # with room, nobody is pushed out
            assert (await bots[1].register("other-token")).accepted
            assert server.unregistered == 3
            assert set(server.bots) == {"good-token", "other-token"}
            assert len(warnings) == 1 and "too many streams waiting to register from " \
                "127.0.0.1 (at most 4)" in warnings[0], warnings
        finally:
            for c in (*waiting, *bots):
                await c.close()
            await server.stop()
        # the idle streams' cancels at the end are failed registrations
        assert [w for w in warnings if "too many streams waiting" in w] == warnings[:1]
        assert warnings[1].startswith("1 failed registration from 127.0.0.1 (latest from "
                                      "ipv4:127.0.0.1:"), warnings
    run(scenario())


def test_streams_are_capped_per_address_and_in_all() -> None:
    room_kwargs = {"max_unregistered": 6, "max_unregistered_per_peer": 2}

    async def scenario():
        server, _port = await started_server(register_timeout_s=30, **room_kwargs)
        room = server.rooms["tcp"]
        places = [room.enter("10.0.0.1")[0] for _ in range(2)]
        place, lost = room.enter("10.0.0.1")        # the address's cap: its oldest goes
        assert lost is places[0] and lost.lost.result() == "idle"
        for host in ("10.0.0.2", "10.0.0.3"):
            for _ in range(2):
                assert room.enter(host)[1] is None
        assert len(room) == 6
        _, lost = room.enter("10.0.0.4")            # the total cap: the oldest of anyone
        assert lost is places[1]
        room.penalise(place)
        assert room.count("10.0.0.1") == 1 and len(room) == 6
        await server.stop()
    run(scenario())


def test_failed_registrations_slow_down_only_failures() -> None:
    """Each failed registration from an address delays the answers to the next failed ones;
    a valid token is answered at once, however many failures came before it."""
    async def scenario():
        warnings: list[str] = []
        server, port = await started_server(
            backoff=Backoff(base_s=0.2, max_s=0.8), on_warning=warnings.append)
        server.expect("good-token", "alpha")
        try:
            waited = []
            for _ in range(4):   # guesses: answered at once, then after 0.2, 0.4, 0.8 s
                c = RawClient(port)
                t0 = time.monotonic()
                reply = await c.register("guess")
                waited.append(time.monotonic() - t0)
                await c.close()
                assert reply.reason == pb.REGISTER_REJECT_REASON_BAD_TOKEN
            assert waited[1] >= 0.19 and waited[2] >= 0.39 and waited[3] >= 0.79, waited
            assert server.backoff.failures("127.0.0.1") == 4
            assert len(warnings) == 1 and warnings[0].startswith(
                "1 failed registration from 127.0.0.1 (latest from ipv4:127.0.0.1:")
            assert "unknown token" in warnings[0]
            c = RawClient(port)
            reply = await c.register("good-token")   # not delayed: checked and answered
            await c.close()
            assert reply.accepted
        finally:
            await server.stop()
        assert len(warnings) == 2 and warnings[1].startswith(
            "3 more warnings of this kind in the last 60 s were not shown; the latest: 4 "
            "failed registrations from 127.0.0.1"), warnings
    run(scenario())


def test_a_first_message_over_the_size_limit_counts_as_a_failure() -> None:
    async def scenario():
        server, port = await started_server()
        c = RawClient(port)
        try:
            await c.send(b"\x0a" + b"x" * (5 << 20))     # over gRPC's 4 MiB
            assert await c.status() == grpc.StatusCode.RESOURCE_EXHAUSTED
            await _until(lambda: server.backoff.failures("127.0.0.1") == 1, "the failure")
            assert server.unregistered == 0
        finally:
            await c.close()
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
                                       ("ipv6:[::1]:5555", "::1"), ("unix:/tmp/s", "unix"),
                                       ("unix:", "unix"), ("other:x", "other:x")])
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
    real = tokens_module.hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(tokens_module.hmac, "compare_digest", spy)

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


def test_warning_gate_bounds_a_flood_then_summarises() -> None:
    async def scenario():
        lines: list[str] = []
        gate = WarningGate(lines.append, burst=2, kind_burst=3, window_s=3600)
        for i in range(500):                     # one address, then many addresses
            gate.warn(("failed", "10.0.0.1"), f"failure {i} from 10.0.0.1", burst=1)
        for i in range(500):
            gate.warn(("failed", f"10.1.{i // 250}.{i % 250}"), f"failure from host {i}",
                      burst=1)
        gate.warn("other", "a different warning")
        assert lines == ["failure 0 from 10.0.0.1", "failure from host 0",
                         "failure from host 1", "a different warning"]
        gate.flush()
        assert sorted(lines[4:]) == [      # held back by the kind's cap, and by the key's
            "498 more warnings of this kind in the last 3600 s were not shown; the latest: "
            "failure from host 499",
            "499 more warnings of this kind in the last 3600 s were not shown; the latest: "
            "failure 499 from 10.0.0.1"]
        gate.warn(("failed", "10.0.0.1"), "after the window")    # a new window
        assert lines[-1] == "after the window"
    run(scenario())
