"""Arena throughput benchmark: decisions per second through the real arena (gRPC server,
bot processes, views, validation) against a raw gRPC bidi-stream ping-pong on the same machine.

Both are driven from the arena's side, one request in flight at a time, to a separate Python
process on 127.0.0.1, so the ratio shows what the arena's own work (views, protobuf
conversion, validation, records of decisions) costs on top of transport. Issue 4's target:
ratio >= 0.5.

Run: ``arena bench arena [--decisions N]``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from dataclasses import dataclass

import grpc

PING_METHOD = "/threefiveeight.bench.PingPong/Echo"


@dataclass(frozen=True)
class ThroughputFigures:
    """Rates in round trips (decisions) per second."""

    raw_per_s: float
    arena_per_s: float
    raw_n: int
    arena_n: int

    @property
    def ratio(self) -> float:
        return self.arena_per_s / self.raw_per_s

    def lines(self) -> list[str]:
        return [
            f"raw gRPC bidi ping-pong : {self.raw_per_s:8,.0f} round trips/s "
            f"({1e6 / self.raw_per_s:.0f} us each, {self.raw_n} trips)",
            f"arena, trivial bots     : {self.arena_per_s:8,.0f} decisions/s "
            f"({1e6 / self.arena_per_s:.0f} us each, {self.arena_n} decisions)",
            f"ratio arena / raw       : {self.ratio:.2f} (target >= 0.50)",
        ]


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

    try:
        asyncio.run(echo())
    except grpc.RpcError:
        pass


async def raw_pingpong(n: int) -> tuple[float, int]:
    """Round trips per second of ``n`` arena-driven pings to an echo process."""
    inbox: asyncio.Queue[bytes] = asyncio.Queue()
    outbox: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def echo(requests, context):  # noqa: ANN001, ANN202
        async def reader() -> None:
            async for msg in requests:
                inbox.put_nowait(msg)
        task = asyncio.ensure_future(reader())
        try:
            while True:
                msg = await outbox.get()
                if msg is None:
                    return
                yield msg
        finally:
            task.cancel()

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler("threefiveeight.bench.PingPong", {
        "Echo": grpc.stream_stream_rpc_method_handler(echo)})
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", f"from arena.bench.throughput import echo_client; "
        f"echo_client('127.0.0.1:{port}')", start_new_session=True)
    try:
        await asyncio.wait_for(inbox.get(), 30)          # the client's hello
        payload = b"x" * 600                              # about a decision request's size
        for _ in range(50):                               # warm-up
            outbox.put_nowait(payload)
            await inbox.get()
        t0 = time.perf_counter()
        for _ in range(n):
            outbox.put_nowait(payload)
            await inbox.get()
        seconds = time.perf_counter() - t0
    finally:
        outbox.put_nowait(None)
        await server.stop(0.5)
        proc.kill()
        await proc.wait()
    return n / seconds, n


# ----- through the arena --------------------------------------------------------------------
async def arena_rate(min_decisions: int) -> tuple[float, int]:
    """Decisions per second of real matches between three trivial bot processes."""
    from ..match import MatchSpec, run_match
    from ..protocol.server import ArenaServer
    from ..rules import make_config
    from ..tournament.config import BotEntry
    from ..tournament.pool import BotPool
    from ..tournament.runner import server_address
    import tempfile
    from pathlib import Path

    server = ArenaServer("127.0.0.1:0")
    port = await server.start()
    cmd = [sys.executable, "-m", "sample_bots.random_bot"]
    entries = [BotEntry(name=f"trivial-{i}", command=cmd) for i in range(3)]
    tmp = tempfile.TemporaryDirectory(prefix="arena-bench-")
    logs = Path(tmp.name)
    pool = BotPool(server, entries, server_address("127.0.0.1:0", port), logs, slots=1,
                   register_timeout_s=30, max_crashes=0)
    try:
        leased = await pool.acquire([e.name for e in entries])
        bots = [b for _, _, b in leased]
        cfg = make_config("sergeant-major")   # full-length matches (up to 10 hands)
        await run_match(MatchSpec("warmup", cfg, seed=0), bots)
        decisions = 0
        seconds = 0.0
        k = 0
        while decisions < min_decisions:
            k += 1
            t0 = time.perf_counter()
            res = await run_match(MatchSpec(f"bench-{k}", cfg, seed=k), bots)
            seconds += time.perf_counter() - t0
            decisions += len(res.decisions)
    finally:
        await pool.close()
        await server.stop()
        tmp.cleanup()
    return decisions / seconds, decisions


async def bench_throughput(n: int = 3000) -> ThroughputFigures:
    """Run both measurements (raw first) and return the figures."""
    raw, raw_n = await raw_pingpong(n)
    arena, arena_n = await arena_rate(n)
    return ThroughputFigures(raw, arena, raw_n, arena_n)


if __name__ == "__main__":  # pragma: no cover - manual use
    figs = asyncio.run(bench_throughput(int(os.environ.get("N", "3000"))))
    print("\n".join(figs.lines()))
