"""Keepalive, with real bot processes: remote bots whose channels ping every 10 s or 60 s stay
connected through a long quiet spell and play on, while one pinging every second is sent GOAWAY
``too_many_pings`` and the arena does not report it as "the bot closed its stream"; a bot
process stopped (SIGSTOP) on the Unix socket keeps its connection past the TCP port's keepalive,
which drops a stopped TCP bot (dead-peer detection)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from arena.match import MatchSpec, run_match
from arena.protocol.server import ArenaServer
from arena.rules import make_config
from arena.sandbox import SocketDir

from .helpers import PATIENCE_S, BotProcesses, started_server

pytestmark = pytest.mark.e2e
PINGBOT = Path(__file__).with_name("pingbot.py")
#: the quiet spell: longer than the server's own keepalive (30 s + 10 s) and than three
#: 10 s client pings (gRPC's default policy sent GOAWAY at the third early one)
IDLE_S = 45.0


def _run(coro, timeout_s: float) -> object:
    return asyncio.run(asyncio.wait_for(coro, timeout_s))


@pytest.mark.slow
def test_client_keepalive_pings_through_a_quiet_spell(procs: BotProcesses) -> None:
    async def scenario():
        server, port = await started_server()   # the arena's own settings, untouched
        pings = {"none": 0, "1s": 1000, "10s": 10_000, "60s": 60_000}
        try:
            for label, ms in pings.items():
                server.expect(f"tok-{label}", label)
                procs.spawn([sys.executable, str(PINGBOT), "--arena", f"127.0.0.1:{port}",
                             "--token", f"tok-{label}", "--ping-ms", str(ms)], label)
            bots = {label: await server.wait_for_bot(f"tok-{label}", PATIENCE_S)
                    for label in pings}
            await asyncio.sleep(IDLE_S)             # all four concurrently: one quiet spell
            fast = procs.procs[1]
            assert await procs.wait(fast) == 1
            err = procs.output(fast)[1]
            assert "lost: UNAVAILABLE" in err and "too_many_pings" in err.lower().replace(
                "too many pings", "too_many_pings"), err
            assert not bots["1s"].alive
            reason = await bots["1s"].done
            assert "closed its stream" not in reason and "connection was closed" in reason, \
                reason
            for label in ("none", "10s", "60s"):
                assert bots[label].alive, (label, procs.output(procs.procs[list(pings)
                                                                     .index(label)]))
            result = await run_match(MatchSpec("after-idle", make_config("blato", hand_cap=3),
                                               seed=5), [bots["none"], bots["10s"], bots["60s"]])
            assert result.state.finished and result.faults == (0, 0, 0)
            assert sum(result.decisions_asked) > 20
        finally:
            await server.stop()
        for proc in (procs.procs[0], *procs.procs[2:]):
            assert await procs.wait(proc) == 0, procs.output(proc)
    _run(scenario(), IDLE_S + 60)


def _stop(proc, sig: signal.Signals) -> None:
    os.killpg(proc.pid, sig)


def test_a_stopped_bot_keeps_its_unix_connection_and_plays_on(procs: BotProcesses) -> None:
    """The TCP port's keepalive is shortened (1 s + 1 s) so that the pause outlasts it a few
    times over: the stopped TCP bot is dropped, the stopped Unix-socket bot is not."""
    async def scenario():
        with SocketDir() as d:
            server = ArenaServer("127.0.0.1:0", unix_socket=d.socket, keepalive_time_s=1,
                                 keepalive_timeout_s=1)
            port = await server.start()
            try:
                targets = [server.unix_address] * 3 + [f"127.0.0.1:{port}"]
                for i, target in enumerate(targets):
                    server.expect(f"t{i}", f"bot{i}")
                    procs.spawn([sys.executable, "-m", "sample_bots._testbots.bot", "--arena",
                                 target, "--token", f"t{i}", "--log-level", "WARNING"],
                                f"bot{i}")
                bots = [await server.wait_for_bot(f"t{i}", PATIENCE_S) for i in range(4)]
                cfg = make_config("blato", hand_cap=3)
                first = await run_match(MatchSpec("before", cfg, seed=1), bots[:3])
                assert first.state.finished and first.faults == (0, 0, 0)
                stopped, tcp = procs.procs[0], procs.procs[3]
                _stop(stopped, signal.SIGSTOP)
                _stop(tcp, signal.SIGSTOP)
                try:
                    # the TCP bot is found dead by the arena's keepalive: the pause is long
                    reason = await asyncio.wait_for(bots[3].done, PATIENCE_S)
                    assert "closed its stream" not in reason, reason
                    await asyncio.sleep(3 * (1 + 1))   # three more keepalive rounds
                    assert bots[0].alive
                finally:
                    _stop(stopped, signal.SIGCONT)
                    _stop(tcp, signal.SIGCONT)
                after = await run_match(MatchSpec("after", cfg, seed=2), bots[:3])
                assert after.state.finished and after.faults == (0, 0, 0)
                assert sum(after.decisions_asked) > 20
            finally:
                await server.stop()
        for proc in procs.procs[:3]:
            assert await procs.wait(proc) == 0, procs.output(proc)
        assert await procs.wait(procs.procs[3]) == 1   # its connection was gone
        assert "connection to the arena lost" in procs.output(procs.procs[3])[1]
    _run(scenario(), 90)
