"""Arena throughput benchmark: decisions per second through the real arena (gRPC server,
bot processes, views, validation) against a raw gRPC bidi-stream ping-pong on the same machine.

Both are driven from the arena's side, one request in flight at a time, to separate Python
processes on 127.0.0.1 on the same client stack (``grpc.aio``, as the SDK). The arena plays
full sergeant-major matches between three trivial bots (:mod:`arena.bench.trivial_bot`: the
protocol spoken directly, first legal action answered, as little work per message as the echo
client), so the ratio shows what the arena's own work (views, protobuf conversion, validation,
fault checks, records of decisions) costs on top of transport. A third figure runs the same
matches between SDK bots (``sample_bots.random_bot``): it adds the SDK's per-decision work on
the bot's side (rebuilding the :class:`View`, calling the policy). Raw and arena measurements
alternate for several rounds (``rounds``, default 3) with the processes kept running, and
medians are compared, so a drift in machine load hits both alike; the SDK rounds follow on their
own. The target: arena / raw >= 0.8 (:data:`TARGET`, over TCP and over the Unix socket).

A reference figure between the two: the raw ping-pong with three echo clients asked in turn.
A match asks its three bots in turn, so each round trip wakes a process that has slept for two
decisions (cold caches, another core); that costs both sides CPU whatever the arena does, and
``arena / raw, 3 clients`` shows what is left of the arena's own work.

The same alternating comparison runs over the arena's Unix domain socket (``unix:PATH``, the
transport of local and sandboxed bots): raw ping-pong over a Unix socket against the
arena over its Unix socket, same target.

Run: ``arena bench arena [--decisions N] [--rounds R]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import grpc

if TYPE_CHECKING:
    from ..match import Bot
    from ..protocol.server import ArenaServer
    from ..processes.pool import BotPool

PING_METHOD = "/threefiveeight.bench.PingPong/Echo"


#: the arena / raw ratio aimed at, over each transport
TARGET = 0.8


def _median(rates: Sequence[float]) -> float:
    return statistics.median(rates) if rates else float("nan")


@dataclass(frozen=True)
class TransportFigures:
    """One transport's alternating rounds: per-round rates in round trips (decisions) per
    second, medians compared.

    Attributes:
        raw: raw ping-pong with one echo client.
        raw3: raw ping-pong with three echo clients asked in turn (a match's three bots are;
            each round trip then wakes another process, whose caches are cold).
        arena: the arena with three trivial bots.
        arena_n: decisions timed in all.
    """

    raw: tuple[float, ...]
    raw3: tuple[float, ...]
    arena: tuple[float, ...]
    arena_n: int

    @property
    def ratio(self) -> float:
        """arena / raw (one echo client): the target's ratio."""
        return _median(self.arena) / _median(self.raw)

    @property
    def ratio3(self) -> float:
        """arena / raw with three echo clients asked in turn."""
        return _median(self.arena) / _median(self.raw3)


def _rate(label: str, rate: float, unit: str, note: str) -> str:
    return f"{label:<24}: {rate:8,.0f} {unit} ({1e6 / rate:.0f} us each{note})"


def _raw3_lines(t: TransportFigures, prefix: str) -> list[str]:
    return [_rate(f"{prefix}raw, 3 clients", _median(t.raw3), "round trips/s",
                  "; asked in turn; rounds " + ", ".join(f"{x:,.0f}" for x in t.raw3)),
            f"{prefix}arena / raw, 3 clients: {t.ratio3:.2f} (what the arena's own work costs)"]


@dataclass(frozen=True)
class ThroughputFigures:
    """The figures of ``arena bench arena``: over TCP, then (optional) over Unix sockets, and
    the SDK bots' rates (optional); ``trips``: round trips timed per round."""

    tcp: TransportFigures
    trips: int
    unix: TransportFigures | None = None
    sdk_rates: tuple[float, ...] = ()

    def lines(self) -> list[str]:
        t, rounds = self.tcp, len(self.tcp.raw)
        sdk = _median(self.sdk_rates) if self.sdk_rates else None
        out = [
            _rate("raw gRPC bidi ping-pong", _median(t.raw), "round trips/s",
                  f"; median of {rounds} rounds of {self.trips} trips"),
            _rate("arena, trivial bots", _median(t.arena), "decisions/s",
                  f"; median of {rounds} rounds, {t.arena_n} decisions in all"),
        ]
        if sdk is not None:
            out.append(_rate("arena, SDK random bots", sdk, "decisions/s",
                             "; the SDK's view rebuilding and policy call included"))
        rows = zip(t.raw, t.arena, self.sdk_rates or [None] * rounds, strict=True)
        out += [
            "rounds (raw / arena" + (" / SDK" if sdk is not None else "") + ") : " + ", ".join(
                " / ".join(f"{x:,.0f}" for x in row if x is not None) for row in rows),
            f"ratio arena / raw       : {t.ratio:.2f} (target >= {TARGET:.2f})",
            *_raw3_lines(t, ""),
        ]
        if self.unix is not None:
            u = self.unix
            out += [
                _rate("Unix socket, raw gRPC", _median(u.raw), "round trips/s", ""),
                _rate("Unix socket, arena", _median(u.arena), "decisions/s", "; trivial bots"),
                "Unix rounds (raw / arena): " + ", ".join(
                    f"{r:,.0f} / {a:,.0f}" for r, a in zip(u.raw, u.arena, strict=True)),
                f"ratio arena / raw (unix): {u.ratio:.2f} (target >= {TARGET:.2f})",
                *_raw3_lines(u, "Unix socket, "),
            ]
        return out


# ----- raw ping-pong ------------------------------------------------------------------------
def echo_client(address: str) -> None:
    """Client process: open the stream and echo every message back, on one ``grpc.aio`` event
    loop like the SDK's bots (:mod:`arena.sdk.client`)."""
    async def echo() -> None:
        async with grpc.aio.insecure_channel(address) as channel:
            call = channel.stream_stream(PING_METHOD, request_serializer=lambda b: b,
                                         response_deserializer=lambda b: b)()
            await call.write(b"hello")
            while (msg := await call.read()) is not grpc.aio.EOF:
                await call.write(msg)

    with contextlib.suppress(grpc.RpcError):
        asyncio.run(echo())


class RawRig:
    """A ``grpc.aio`` server with ``clients`` echo client processes (one stream each);
    :meth:`rate` times ping-pongs, sent to the clients in turn (as a match asks its three
    bots in turn)."""

    def __init__(self, unix_socket: str | None = None, clients: int = 1) -> None:
        self.unix_socket = unix_socket
        self.clients = clients
        self.inbox: asyncio.Queue[bytes] = asyncio.Queue()
        #: one queue per connected client's stream, in the order they said hello
        self.outboxes: list[asyncio.Queue[bytes | None]] = []
        self.server: grpc.aio.Server | None = None
        self.procs: list[asyncio.subprocess.Process] = []

    async def _echo(self, requests: AsyncIterator[bytes],
                    context: grpc.aio.ServicerContext[bytes, bytes]) -> AsyncIterator[bytes]:
        outbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.outboxes.append(outbox)

        async def reader() -> None:
            async for msg in requests:
                self.inbox.put_nowait(msg)
        task = asyncio.ensure_future(reader())
        try:
            while (msg := await outbox.get()) is not None:
                yield msg
        finally:
            task.cancel()

    async def start(self) -> None:
        self.server = grpc.aio.server()
        self.server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
            "threefiveeight.bench.PingPong",
            {"Echo": grpc.stream_stream_rpc_method_handler(self._echo)}),))
        if self.unix_socket is not None:
            self.server.add_insecure_port(f"unix:{self.unix_socket}")
            address = f"unix:{self.unix_socket}"
        else:
            address = f"127.0.0.1:{self.server.add_insecure_port('127.0.0.1:0')}"
        await self.server.start()
        for _ in range(self.clients):
            self.procs.append(await asyncio.create_subprocess_exec(
                sys.executable, "-c", f"from arena.bench.throughput import echo_client; "
                f"echo_client({address!r})", start_new_session=True))
            await asyncio.wait_for(self.inbox.get(), 30)      # the client's hello
        await self.rate(50)                                    # warm-up

    async def rate(self, n: int) -> float:
        """Round trips per second of ``n`` pings (about a decision request's size)."""
        payload = b"x" * 600
        outboxes = self.outboxes
        k = len(outboxes)
        t0 = time.perf_counter()
        for i in range(n):
            outboxes[i % k].put_nowait(payload)
            await self.inbox.get()
        return n / (time.perf_counter() - t0)

    async def stop(self) -> None:
        for outbox in self.outboxes:
            outbox.put_nowait(None)
        if self.server is not None:
            await self.server.stop(0.5)
        for proc in self.procs:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()


# ----- through the arena --------------------------------------------------------------------
#: the bots of the two arena measurements
TRIVIAL_BOT = ("-m", "arena.bench.trivial_bot")
SDK_BOT = ("-m", "sample_bots.random_bot")


class ArenaRig:
    """The arena's server with three bot processes running ``python *bot``; :meth:`rate`
    times whole sergeant-major matches."""

    def __init__(self, bot: tuple[str, ...] = TRIVIAL_BOT, unix_socket: str | None = None) -> None:
        self.bot = bot
        self.unix_socket = unix_socket
        self._tmp = tempfile.TemporaryDirectory(prefix="arena-bench-")
        self.server: ArenaServer | None = None
        self.pool: BotPool | None = None
        self.bots: list[Bot] = []
        self.matches = 0

    async def start(self) -> None:
        from ..protocol.server import ArenaServer
        from ..tournament.config import BotEntry
        from ..processes.pool import BotPool
        from ..tournament.local import server_address
        self.server = server = ArenaServer("127.0.0.1:0", unix_socket=self.unix_socket)
        port = await server.start()
        cmd = [sys.executable, *self.bot]
        entries = [BotEntry(name=f"bot-{i}", command=cmd) for i in range(3)]
        address = server.unix_address or server_address("127.0.0.1:0", port)
        self.pool = pool = BotPool(server, entries, address, Path(self._tmp.name), slots=1,
                                   register_timeout_s=30, max_crashes=1)
        leased = await pool.acquire([e.name for e in entries])
        self.bots = [b for _, _, b in leased]
        await self._match()                                    # warm-up

    async def _match(self) -> int:
        from ..match import MatchSpec, run_match
        from ..rules import make_config
        self.matches += 1
        spec = MatchSpec(f"bench-{self.matches}", make_config("sergeant-major"),
                         seed=self.matches)
        return len((await run_match(spec, self.bots)).decisions)

    async def rate(self, min_decisions: int) -> tuple[float, int]:
        """(decisions per second, decisions) over whole matches, at least ``min_decisions``."""
        decisions, seconds = 0, 0.0
        while decisions < min_decisions:
            t0 = time.perf_counter()
            decisions += await self._match()
            seconds += time.perf_counter() - t0
        return decisions / seconds, decisions

    async def stop(self) -> None:
        if self.pool is not None:
            await self.pool.close()
        if self.server is not None:
            await self.server.stop()
        self._tmp.cleanup()


async def _alternate(unix: bool, n: int, rounds: int) -> TransportFigures:
    """``rounds`` rounds of raw (1 client), raw (3 clients) and arena measurements in turn,
    over TCP or (``unix``) each rig's own Unix socket, the processes kept running."""
    from ..sandbox import SocketDir
    with SocketDir() as d1, SocketDir() as d3, SocketDir() as da:
        raw = RawRig(d1.socket if unix else None)
        raw3 = RawRig(d3.socket if unix else None, clients=3)
        rig = ArenaRig(TRIVIAL_BOT, da.socket if unix else None)
        rates: tuple[list[float], list[float], list[float]] = ([], [], [])
        arena_n = 0
        try:
            for r in (raw, raw3, rig):
                await r.start()
            for _ in range(rounds):
                rates[0].append(await raw.rate(n))
                rates[1].append(await raw3.rate(n))
                rate, k = await rig.rate(n)
                rates[2].append(rate)
                arena_n += k
        finally:
            for r in (raw, raw3, rig):
                await r.stop()
    return TransportFigures(tuple(rates[0]), tuple(rates[1]), tuple(rates[2]), arena_n)


async def bench_throughput(n: int = 3000, rounds: int = 3, sdk: bool = True,
                           unix: bool = True) -> ThroughputFigures:
    """Alternate ``rounds`` measurements of ``n`` round trips / decisions each (raw with one
    echo client, raw with three in turn, arena with trivial bots) over TCP; then (``unix``)
    the same over Unix sockets; then (``sdk``) as many rounds of the arena with SDK bots, on
    their own (no other bot processes alive). Returns the figures (medians compared)."""
    tcp = await _alternate(False, n, rounds)
    over_unix = await _alternate(True, n, rounds) if unix else None
    sdk_rates: list[float] = []
    if sdk:
        sdk_rig = ArenaRig(SDK_BOT)
        try:
            await sdk_rig.start()
            for _ in range(rounds):
                sdk_rates.append((await sdk_rig.rate(n))[0])
        finally:
            await sdk_rig.stop()
    return ThroughputFigures(tcp, n, over_unix, tuple(sdk_rates))


if __name__ == "__main__":  # pragma: no cover - manual use
    figs = asyncio.run(bench_throughput(int(os.environ.get("N", "3000"))))
    print("\n".join(figs.lines()))
