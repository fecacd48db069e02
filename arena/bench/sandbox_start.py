"""Bot start time with and without the sandbox: from spawning a bot process to its
registration with the arena (``arena bench arena`` prints it;).

Each measurement starts one trivial bot (:mod:`arena.bench.trivial_bot`) through the tournament's
bot pool, with a :class:`~arena.sandbox.Launcher` in ``mode = "none"`` or ``"bwrap"``, over the
arena's Unix socket, waits until it has registered, and ends it. The two modes alternate for
``rounds`` rounds; medians are compared.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal


@dataclass(frozen=True)
class StartFigures:
    """Start times in milliseconds per round, per mode."""

    plain_ms: tuple[float, ...]
    sandboxed_ms: tuple[float, ...]

    def lines(self) -> list[str]:
        plain, boxed = statistics.median(self.plain_ms), statistics.median(self.sandboxed_ms)
        return [
            f"bot start, no sandbox   : {plain:8.0f} ms (spawn to registered; median of "
            f"{len(self.plain_ms)})",
            f"bot start, bwrap sandbox: {boxed:8.0f} ms ({boxed - plain:+.0f} ms, "
            f"x{boxed / plain:.2f})",
        ]


async def _start_once(mode: Literal["bwrap", "none"], tmp: Path) -> float:
    from ..protocol.server import ArenaServer
    from ..sandbox import Launcher, SandboxConfig, SocketDir
    from ..tournament.config import BotEntry
    from ..processes.pool import BotPool
    entry = BotEntry(name="bot", command=[sys.executable, "-m", "arena.bench.trivial_bot"])
    with SocketDir() as sock:
        server = ArenaServer("127.0.0.1:0", unix_socket=sock.socket)
        await server.start()
        address = server.unix_address
        if address is None:                 # the server was given a socket, so it listens there
            raise RuntimeError(f"the arena is not listening on {sock.socket}")
        launcher = Launcher(SandboxConfig(mode=mode), [entry], socket=sock.socket)
        pool = BotPool(server, [entry], address, tmp, slots=1,
                       register_timeout_s=30, max_crashes=0, launcher=launcher)
        try:
            t0 = time.perf_counter()
            (_, inst, bot), = await pool.acquire(["bot"])
            elapsed = time.perf_counter() - t0
            if inst is None:
                raise RuntimeError(f"the bot did not start in mode {mode}: "
                                   f"{bot.gone_reason or ''}")
            return elapsed * 1000
        finally:
            await pool.close()
            await launcher.close()
            await server.stop()


async def bench_start(rounds: int = 5) -> StartFigures:
    """Alternate ``rounds`` starts in each mode. Raises RuntimeError if a bot cannot start
    (e.g. bwrap missing)."""
    plain: list[float] = []
    boxed: list[float] = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        await _start_once("none", Path(tmp))            # warm the file cache
        for _ in range(rounds):
            plain.append(await _start_once("none", Path(tmp)))
            boxed.append(await _start_once("bwrap", Path(tmp)))
    return StartFigures(tuple(plain), tuple(boxed))
