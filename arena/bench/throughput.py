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
own. The target: arena / raw >= 0.8 (over TCP and over the Unix socket).

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
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import grpc

if TYPE_CHECKING:
    from ..match import Bot
    from ..protocol.server import ArenaServer
    from ..processes.pool import BotPool

PING_METHOD = "/threefiveeight.bench.PingPong/Echo"


@dataclass(frozen=True)
class ThroughputFigures:
    """Per-round rates in round trips (decisions) per second; medians compared."""

    raw_rates: tuple[float, ...]
    arena_rates: tuple[float, ...]
    raw_n: int
    arena_n: int
    sdk_rates: tuple[float, ...] = ()
    unix_raw_rates: tuple[float, ...] = ()
    unix_arena_rates: tuple[float, ...] = ()

    @property
    def raw_per_s(self) -> float:
        return statistics.median(self.raw_rates)

    @property
    def arena_per_s(self) -> float:
        return statistics.median(self.arena_rates)

    @property
    def sdk_per_s(self) -> float | None:
        return statistics.median(self.sdk_rates) if self.sdk_rates else None

    @property
    def ratio(self) -> float:
        return self.arena_per_s / self.raw_per_s

    def lines(self) -> list[str]:
        rounds = len(self.raw_rates)
        out = [
            f"raw gRPC bidi ping-pong : {self.raw_per_s:8,.0f} round trips/s "
            f"({1e6 / self.raw_per_s:.0f} us each; median of {rounds} rounds of "
            f"{self.raw_n // rounds} trips)",
            f"arena, trivial bots     : {self.arena_per_s:8,.0f} decisions/s "
            f"({1e6 / self.arena_per_s:.0f} us each; median of {rounds} rounds, "
            f"{self.arena_n} decisions in all)",
        ]
        sdk = self.sdk_per_s
        if sdk is not None:
            out.append(f"arena, SDK random bots  : {sdk:8,.0f} decisions/s "
                       f"({1e6 / sdk:.0f} us each; the SDK's view rebuilding and policy call "
                       "included)")
        rows = zip(self.raw_rates, self.arena_rates, self.sdk_rates or [None] * rounds,
                   strict=True)
        out += [
            "rounds (raw / arena" + (" / SDK" if sdk is not None else "") + ") : " + ", ".join(
                " / ".join(f"{x:,.0f}" for x in row if x is not None) for row in rows),
            f"ratio arena / raw       : {self.ratio:.2f} (target >= 0.50)",
        ]
        if self.unix_raw_rates and self.unix_arena_rates:
            raw_u = statistics.median(self.unix_raw_rates)
            arena_u = statistics.median(self.unix_arena_rates)
            out += [
                f"Unix socket, raw gRPC   : {raw_u:8,.0f} round trips/s ({1e6 / raw_u:.0f} us "
                "each)",
                f"Unix socket, arena      : {arena_u:8,.0f} decisions/s ({1e6 / arena_u:.0f} us "
                "each; trivial bots)",
                "Unix rounds (raw / arena): " + ", ".join(
                    f"{r:,.0f} / {a:,.0f}"
                    for r, a in zip(self.unix_raw_rates, self.unix_arena_rates, strict=True)),
                f"ratio arena / raw (unix): {arena_u / raw_u:.2f} (target >= 0.50)",
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
    """A ``grpc.aio`` server with one echo client process; :meth:`rate` times ping-pongs."""

    def __init__(self, unix_socket: str | None = None) -> None:
        self.unix_socket = unix_socket
        self.inbox: asyncio.Queue[bytes] = asyncio.Queue()
        self.outbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.server: grpc.aio.Server | None = None
        self.proc: asyncio.subprocess.Process | None = None

    async def _echo(self, requests: AsyncIterator[bytes],
                    context: grpc.aio.ServicerContext[bytes, bytes]) -> AsyncIterator[bytes]:
        async def reader() -> None:
            async for msg in requests:
                self.inbox.put_nowait(msg)
        task = asyncio.ensure_future(reader())
        try:
            while (msg := await self.outbox.get()) is not None:
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
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", f"from arena.bench.throughput import echo_client; "
            f"echo_client({address!r})", start_new_session=True)
        await asyncio.wait_for(self.inbox.get(), 30)          # the client's hello
        await self.rate(50)                                    # warm-up

    async def rate(self, n: int) -> float:
        """Round trips per second of ``n`` pings (about a decision request's size)."""
        payload = b"x" * 600
        t0 = time.perf_counter()
        for _ in range(n):
            self.outbox.put_nowait(payload)
            await self.inbox.get()
        return n / (time.perf_counter() - t0)

    async def stop(self) -> None:
        self.outbox.put_nowait(None)
        if self.server is not None:
            await self.server.stop(0.5)
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


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


async def _alternate(raw: RawRig, rig: ArenaRig, n: int, rounds: int
                     ) -> tuple[list[float], list[float], int]:
    raw_rates: list[float] = []
    arena_rates: list[float] = []
    arena_n = 0
    try:
        await raw.start()
        await rig.start()
        for _ in range(rounds):
            raw_rates.append(await raw.rate(n))
            rate, k = await rig.rate(n)
            arena_rates.append(rate)
            arena_n += k
    finally:
        await raw.stop()
        await rig.stop()
    return raw_rates, arena_rates, arena_n


async def bench_throughput(n: int = 3000, rounds: int = 3, sdk: bool = True,
                           unix: bool = True) -> ThroughputFigures:
    """Alternate ``rounds`` measurements of ``n`` round trips / decisions each, raw and arena
    with trivial bots, over TCP; then (``unix``) the same over Unix sockets; then (``sdk``) as
    many rounds of the arena with SDK bots, on their own (no other bot processes alive).
    Returns the figures (medians compared)."""
    from ..sandbox import SocketDir
    sdk_rates: list[float] = []
    raw_rates, arena_rates, arena_n = await _alternate(RawRig(), ArenaRig(TRIVIAL_BOT), n,
                                                       rounds)
    unix_raw: list[float] = []
    unix_arena: list[float] = []
    if unix:
        with SocketDir() as raw_dir, SocketDir() as arena_dir:
            unix_raw, unix_arena, _ = await _alternate(
                RawRig(raw_dir.socket), ArenaRig(TRIVIAL_BOT, arena_dir.socket), n, rounds)
    if sdk:
        sdk_rig = ArenaRig(SDK_BOT)
        try:
            await sdk_rig.start()
            for _ in range(rounds):
                sdk_rates.append((await sdk_rig.rate(n))[0])
        finally:
            await sdk_rig.stop()
    return ThroughputFigures(tuple(raw_rates), tuple(arena_rates), n * rounds, arena_n,
                             tuple(sdk_rates), tuple(unix_raw), tuple(unix_arena))


if __name__ == "__main__":  # pragma: no cover - manual use
    figs = asyncio.run(bench_throughput(int(os.environ.get("N", "3000"))))
    print("\n".join(figs.lines()))
