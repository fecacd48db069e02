"""Helpers for the protocol tests: bot subprocesses that are always killed, an in-process raw
client for the Play stream, and a scenario runner.

Bot processes start in their own session (process group) so teardown can kill the group;
their stdout/stderr go to files in the test's tmp_path (never an unread pipe).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import grpc

from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb
from arena.protocol.server import ArenaServer
import contextlib

REPO_ROOT = Path(__file__).resolve().parents[2]
JS_BOT = REPO_ROOT / "sample_bots" / "js_bot"
PLAY_METHOD = "/threefiveeight.v1.ArenaService/Play"
#: generous bound for anything that should happen "at once" (a hang fails, nothing is timed)
PATIENCE_S = 20.0


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run one test scenario in a fresh event loop, bounded so a hang fails the test."""
    return asyncio.run(asyncio.wait_for(coro, 60))


class BotProcesses:
    """Spawns bot processes; :meth:`kill_all` kills every process group still running."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.procs: list[subprocess.Popen[bytes]] = []

    def spawn(self, cmd: list[str], label: str) -> subprocess.Popen[bytes]:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(REPO_ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
        env.pop("ARENA_ADDRESS", None)
        env.pop("ARENA_TOKEN", None)
        with open(self.tmp / f"{label}.out", "wb") as out, \
                open(self.tmp / f"{label}.err", "wb") as err:
            proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=env, stdout=out, stderr=err,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        proc.label = label  # type: ignore[attr-defined]  # a tag for failure messages
        self.procs.append(proc)
        return proc

    def python_bot(self, port: int, token: str, label: str, *extra: str,
                   mode: str = "random") -> subprocess.Popen[bytes]:
        """A ``sample_bots._testbots.bot`` process in ``mode``."""
        return self.spawn([sys.executable, "-m", "sample_bots._testbots.bot", "--mode", mode,
                           "--arena", f"127.0.0.1:{port}", "--token", token,
                           "--log-level", "WARNING", *extra], label)

    def js_bot(self, port: int, token: str, label: str, *extra: str) -> subprocess.Popen[bytes]:
        node = shutil.which("node")
        return self.spawn([str(node), str(JS_BOT / "bot.js"), "--arena", f"127.0.0.1:{port}",
                           "--token", token, "--seed", "7", *extra], label)

    def output(self, proc: subprocess.Popen[bytes]) -> tuple[str, str]:
        label = proc.label  # type: ignore[attr-defined]  # set by spawn()
        return ((self.tmp / f"{label}.out").read_text(errors="replace"),
                (self.tmp / f"{label}.err").read_text(errors="replace"))

    async def wait(self, proc: subprocess.Popen[bytes]) -> int:
        """Exit status of ``proc`` (waits without blocking the event loop)."""
        return await asyncio.wait_for(asyncio.to_thread(proc.wait), PATIENCE_S)

    def kill_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


class RawClient:
    """An in-process client of the Play stream that sends raw bytes (to test bad input)."""

    def __init__(self, port: int | str, credentials: grpc.ChannelCredentials | None = None,
                 options: list[tuple[str, int]] | None = None) -> None:
        """``port``: the arena's TCP port on 127.0.0.1, or a whole target (``unix:PATH``)."""
        target = port if isinstance(port, str) else f"127.0.0.1:{port}"
        options = [*(options or []), ("grpc.max_send_message_length", 16 << 20)]
        self.channel = grpc.aio.insecure_channel(target, options=options) \
            if credentials is None else grpc.aio.secure_channel(target, credentials, options)
        self.call = self.channel.stream_stream(
            PLAY_METHOD, request_serializer=None,
            response_deserializer=pb.ArenaMessage.FromString)()

    async def send(self, msg: pb.BotMessage | bytes) -> None:
        await self.call.write(msg if isinstance(msg, bytes) else msg.SerializeToString())

    async def recv(self) -> pb.ArenaMessage | None:
        """The next arena message, or None when the stream has ended."""
        msg = await asyncio.wait_for(self.call.read(), PATIENCE_S)
        return None if msg is grpc.aio.EOF else msg

    async def status(self) -> grpc.StatusCode:
        """The stream's final gRPC status, after reading to its end (no messages may remain)."""
        try:
            msg = await self.recv()
        except grpc.aio.AioRpcError as exc:
            return exc.code()
        if msg is not None:
            raise AssertionError(f"expected the end of the stream, got {msg}")
        return grpc.StatusCode.OK

    async def register(self, token: str, version: str = "1") -> pb.RegisterResponse:
        await self.send(pb.BotMessage(register=pb.RegisterRequest(
            name="raw", version="0", protocol_version=version, token=token)))
        msg = await self.recv()
        if msg is None or msg.WhichOneof("kind") != "register":
            raise AssertionError(f"expected a RegisterResponse, got {msg}")
        return msg.register

    async def close(self) -> None:
        self.call.cancel()
        await self.channel.close()


#: the buf CLI from the npm package @bufbuild/buf (``npm ci --prefix tools``), when installed
BUF = REPO_ROOT / "tools" / "node_modules" / ".bin" / "buf"


def js_bot_installed() -> bool:
    """Node.js and the JS bot's npm packages are there."""
    return shutil.which("node") is not None and (JS_BOT / "node_modules").is_dir()


async def started_server(**kwargs: Any) -> tuple[ArenaServer, int]:
    server = ArenaServer("127.0.0.1:0", **kwargs)
    port = await server.start()
    return server, port
