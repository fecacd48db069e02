"""The Python SDK (and the JavaScript sample bot) registers again after TRY_AGAIN_LATER (a real
bot process against a scripted
gRPC server that answers the first registrations that way), and gives up with exit status 1
after ``--connect-timeout`` seconds of it."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import grpc
import pytest

from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb

from .helpers import PATIENCE_S, BotProcesses, run

pytestmark = pytest.mark.e2e


class _BusyArena:
    """Answers the first ``busy`` registrations with TRY_AGAIN_LATER (status UNAVAILABLE, as
    the arena's waiting room does), then accepts and says goodbye."""

    def __init__(self, busy: int) -> None:
        self.busy = busy
        self.tokens: list[str] = []

    async def play(self, _requests, context: grpc.aio.ServicerContext) -> None:
        first = await context.read()
        self.tokens.append(pb.BotMessage.FromString(first).register.token)
        if len(self.tokens) <= self.busy:
            await context.write(pb.ArenaMessage(register=pb.RegisterResponse(
                accepted=False, reason=pb.REGISTER_REJECT_REASON_TRY_AGAIN_LATER,
                detail="too many streams are waiting to register")))
            context.set_code(grpc.StatusCode.UNAVAILABLE)
            return
        await context.write(pb.ArenaMessage(register=pb.RegisterResponse(
            accepted=True, arena_name="alpha")))
        await context.write(pb.ArenaMessage(goodbye=pb.Goodbye(reason="that is all")))

    async def start(self) -> tuple[grpc.aio.Server, int]:
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
            "threefiveeight.v1.ArenaService", {"Play": grpc.stream_stream_rpc_method_handler(
                self.play, request_deserializer=None,
                response_serializer=pb.ArenaMessage.SerializeToString)}),))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        return server, port


def _bot(procs: BotProcesses, port: int, *extra: str):
    return procs.spawn([sys.executable, "-m", "sample_bots.random_bot", "--arena",
                        f"127.0.0.1:{port}", "--token", "tok", "--log-level", "INFO", *extra],
                       "bot")


def test_sdk_registers_again_after_try_again_later(procs: BotProcesses) -> None:
    async def scenario():
        arena = _BusyArena(busy=3)
        server, port = await arena.start()
        try:
            proc = _bot(procs, port)
            assert await procs.wait(proc) == 0, procs.output(proc)
        finally:
            await server.stop(0)
        assert arena.tokens == ["tok"] * 4      # three busy answers, then registered
        err = procs.output(proc)[1]
        assert err.count("the arena is busy") == 3 and "registered with the arena" in err, err
    run(scenario())


def test_sdk_gives_up_after_its_connect_timeout(procs: BotProcesses) -> None:
    async def scenario():
        arena = _BusyArena(busy=10_000)
        server, port = await arena.start()
        try:
            proc = _bot(procs, port, "--connect-timeout", "1")
            assert await asyncio.wait_for(procs.wait(proc), PATIENCE_S) == 1
        finally:
            await server.stop(0)
        err = procs.output(proc)[1]
        assert "the arena was too busy to take the registration within 1 s" in err, err
        assert 3 <= len(arena.tokens) <= 12      # 0.1 s doubling, up to 2 s: within 1 s
    run(scenario())


JS_BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "js_bot"


@pytest.mark.skipif(shutil.which("node") is None or not (JS_BOT / "node_modules").is_dir(),
                    reason="the JavaScript bot needs Node.js and `npm ci --prefix "
                    "sample_bots/js_bot`")
def test_the_javascript_bot_registers_again_after_try_again_later(procs: BotProcesses) -> None:
    async def scenario():
        arena = _BusyArena(busy=3)
        server, port = await arena.start()
        try:
            proc = procs.spawn(["node", str(JS_BOT / "bot.js"), "--arena", f"127.0.0.1:{port}",
                                "--token", "tok"], "js")
            assert await procs.wait(proc) == 0, procs.output(proc)
        finally:
            await server.stop(0)
        assert arena.tokens == ["tok"] * 4
        err = procs.output(proc)[1]
        assert err.count("the arena is busy") == 3 and "registered as alpha" in err, err
    run(scenario())
