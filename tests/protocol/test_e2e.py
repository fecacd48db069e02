"""End-to-end: real bot processes (the Python SDK, and the Node.js sample bot when available)
connect to a real arena server on 127.0.0.1 and play matches through the match runner."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import sys

import pytest

from arena.match import MatchSpec, run_match
from arena.match.bot import BotFault, DecisionRequest, MatchInfo
from arena.rules import PRESETS, MatchState, make_config

from .helpers import JS_BOT, PATIENCE_S, BotProcesses, run, started_server
from arena.rules.view import view_of

pytestmark = pytest.mark.e2e


async def _three_bots(server, port: int, procs: BotProcesses, modes=("random",) * 3,
                      js_seat: int | None = None):
    bots = []
    for seat, mode in enumerate(modes):
        token = f"token-{seat}"
        server.expect(token, f"bot{seat}")
        if seat == js_seat:
            procs.js_bot(port, token, f"bot{seat}")
        else:
            procs.python_bot(port, token, f"bot{seat}", "--seed", str(seat), mode=mode)
    for seat in range(3):
        bots.append(await server.wait_for_bot(f"token-{seat}", PATIENCE_S))
    return bots


def test_sdk_bots_play_every_preset_then_exit_0(procs: BotProcesses) -> None:
    async def scenario():
        server, port = await started_server()
        try:
            bots = await _three_bots(server, port, procs, modes=("hooks",) * 3)
            for preset in sorted(PRESETS):
                spec = MatchSpec(f"m-{preset}", make_config(preset, hand_cap=6), seed=11)
                result = await run_match(spec, bots)
                assert result.state.finished
                assert result.faults == (0, 0, 0), result.decisions[-1]
                assert not any(d.fallback for d in result.decisions)
        finally:
            await server.stop()
        for proc in procs.procs:
            assert await procs.wait(proc) == 0, procs.output(proc)[1]
        out, _ = procs.output(procs.procs[1])
        assert "start m-blato seat=1 preset=blato" in out
        assert out.count("end m-") == len(PRESETS)
    run(scenario())


def test_async_decide_is_awaited(procs: BotProcesses) -> None:
    async def scenario():
        server, port = await started_server()
        try:
            bots = await _three_bots(server, port, procs, modes=("async", "random", "async"))
            result = await run_match(MatchSpec("m", make_config("blato", hand_cap=3), seed=2),
                                     bots)
            assert result.state.finished and result.faults == (0, 0, 0)
            assert result.decisions_asked[0] > 10
        finally:
            await server.stop()
        for proc in procs.procs:
            assert await procs.wait(proc) == 0, procs.output(proc)[1]
    run(scenario())


def test_concurrent_matches_on_the_same_bot_processes(procs: BotProcesses) -> None:
    async def scenario():
        server, port = await started_server()
        try:
            a, b, c = await _three_bots(server, port, procs)
            seatings = [(a, b, c), (b, c, a), (c, a, b)]
            results = await asyncio.gather(*(
                run_match(MatchSpec(f"m{i}", make_config("six-contracts", end_hands=3),
                                    seed=i), bots) for i, bots in enumerate(seatings)))
            for result in results:
                assert result.state.finished and result.faults == (0, 0, 0)
        finally:
            await server.stop()
    run(scenario())


@pytest.mark.skipif(shutil.which("node") is None or not (JS_BOT / "node_modules").is_dir(),
                    reason="Node.js bot not installed: needs `node` on PATH and "
                           "`npm ci --prefix sample_bots/js_bot`")
def test_js_bot_plays_a_match(procs: BotProcesses) -> None:
    async def scenario():
        server, port = await started_server()
        try:
            bots = await _three_bots(server, port, procs, js_seat=1)
            assert bots[1].identity.client.startswith("js-bot")
            result = await run_match(MatchSpec("js", make_config("blato", hand_cap=5), seed=3),
                                     bots)
            assert result.state.finished and result.faults == (0, 0, 0)
        finally:
            await server.stop()
        assert await procs.wait(procs.procs[1]) == 0, procs.output(procs.procs[1])[1]
    run(scenario())


@pytest.mark.skipif(shutil.which("node") is None or not (JS_BOT / "node_modules").is_dir(),
                    reason="Node.js bot not installed: needs `node` on PATH and "
                           "`npm ci --prefix sample_bots/js_bot`")
def test_js_bot_bad_token_exits_3(procs: BotProcesses) -> None:
    async def scenario():
        server, port = await started_server()
        try:
            proc = procs.js_bot(port, "wrong", "js-bad")
            assert await procs.wait(proc) == 3
        finally:
            await server.stop()
        assert "BAD_TOKEN" in procs.output(proc)[1]
    run(scenario())


def test_raising_decide_is_an_error_fault_and_the_bot_keeps_serving(procs) -> None:
    async def scenario():
        server, port = await started_server()
        try:
            bots = await _three_bots(server, port, procs, modes=("raise", "random", "illegal"))
            state = MatchState.new(make_config("sergeant-major"), seed=1)
            await bots[0].start_match(MatchInfo("direct", state.cfg, 0, ("a", "b", "c"), 1000))
            for rid in (1, 2):  # the same process answers again after an error
                with pytest.raises(BotFault) as err:
                    await asyncio.wait_for(bots[0].decide(DecisionRequest(
                        rid, "direct", view_of(state, state.current_seat), 1000)), PATIENCE_S)
                assert err.value.kind == "error"
                assert "deliberate failure" in err.value.detail
            spec = MatchSpec("faulty", make_config("sergeant-major"), seed=2, max_faults=3)
            result = await run_match(spec, bots)
            kinds = {d.seat: d.fault for d in result.decisions if d.fault}
            assert kinds[0] == "error" and kinds[2] == "illegal" and 1 not in kinds
            assert result.forfeited == (True, False, True)
            assert bots[0].alive and bots[2].alive
        finally:
            await server.stop()
        for proc in procs.procs:
            assert await procs.wait(proc) == 0
        assert "arena rejected request" in procs.output(procs.procs[2])[1]
    run(scenario())


def test_killed_bot_is_a_disconnect_fault_not_a_hang(procs: BotProcesses) -> None:
    async def scenario():
        server, port = await started_server()
        try:
            server.expect("slow", "slowpoke")
            proc = procs.python_bot(port, "slow", "slow", mode="slow")
            bot = await server.wait_for_bot("slow", PATIENCE_S)
            state = MatchState.new(make_config("blato"), seed=4)
            await bot.start_match(MatchInfo("k", state.cfg, 0, ("slowpoke", "b", "c"), 60_000))
            task = asyncio.create_task(bot.decide(DecisionRequest(
                1, "k", view_of(state, state.current_seat), 60_000)))
            await asyncio.sleep(0.2)  # the request is out; the bot is "thinking"
            os.killpg(proc.pid, signal.SIGKILL)
            with pytest.raises(BotFault) as err:
                await asyncio.wait_for(task, PATIENCE_S)
            assert err.value.kind == "disconnect"
            assert not bot.alive
        finally:
            await server.stop()
    run(scenario())


def test_bad_token_and_wrong_version_end_the_bot_with_a_reason(procs) -> None:
    async def scenario():
        server, port = await started_server()
        old, _ = await started_server(supported_versions=("2",))
        try:
            server.expect("good", "alpha")
            old.expect("good", "alpha")
            bad = procs.python_bot(port, "wrong-token", "bad")
            version = procs.python_bot(old.port, "good", "version")
            assert await procs.wait(bad) == 3
            assert await procs.wait(version) == 3
        finally:
            await server.stop()
            await old.stop()
        err = procs.output(bad)[1]
        assert "registration rejected (BAD_TOKEN)" in err and "Traceback" not in err
        err = procs.output(version)[1]
        assert "UNSUPPORTED_PROTOCOL_VERSION" in err and "speaks 2" in err
    run(scenario())


def test_sigterm_exits_0(procs: BotProcesses) -> None:
    async def scenario():
        server, port = await started_server()
        try:
            server.expect("t", "alpha")
            proc = procs.python_bot(port, "t", "term")
            bot = await server.wait_for_bot("t", PATIENCE_S)
            proc.send_signal(signal.SIGTERM)
            try:
                status = await procs.wait(proc)
            except TimeoutError:
                proc.send_signal(signal.SIGUSR1)
                await asyncio.sleep(1)
                raise AssertionError("bot hung after SIGTERM:\n" + procs.output(proc)[1]) from None
            assert status == 0, procs.output(proc)[1]
            await asyncio.wait_for(bot.done, PATIENCE_S)
            assert not bot.alive
        finally:
            await server.stop()
    run(scenario())


def test_arena_ending_the_session_while_decide_runs_is_a_normal_end(procs: BotProcesses):
    """The arena says goodbye and closes the stream while the bot is still deciding: the
    bot's late answer cannot be written, but it sees the Goodbye and exits 0."""
    async def scenario():
        server, port = await started_server()
        try:
            server.expect("t", "alpha")
            proc = procs.python_bot(port, "t", "slowgone", "--log-level", "INFO", mode="slow")
            bot = await server.wait_for_bot("t", PATIENCE_S)
            state = MatchState.new(make_config("sergeant-major"), seed=1)
            await bot.start_match(MatchInfo("m", state.cfg, 0, ("a", "b", "c"), 5000))
            task = asyncio.create_task(bot.decide(DecisionRequest(
                1, "m", view_of(state, state.current_seat), 5000)))
            await asyncio.sleep(0.5)                    # the bot sleeps 2 s in decide
            await server.stop()
            with pytest.raises(BotFault):
                await task
            assert await procs.wait(proc) == 0, procs.output(proc)[1]
            err = procs.output(proc)[1]
            assert "arena says goodbye" in err and "connection to the arena lost" not in err
        finally:
            await server.stop()
    run(scenario())


def test_usage_and_connection_errors_are_one_line_messages(procs) -> None:
    async def scenario():
        no_args = procs.spawn([sys.executable, "-m", "sample_bots._testbots.bot"], "noargs")
        with socket.socket() as s:  # a port nobody listens on
            s.bind(("127.0.0.1", 0))
            free = s.getsockname()[1]
        unreachable = procs.python_bot(free, "t", "unreach", "--connect-timeout", "0.3")
        assert await procs.wait(no_args) == 2
        assert await procs.wait(unreachable) == 1
        err = procs.output(no_args)[1]
        assert "--arena HOST:PORT" in err and "Traceback" not in err
        err = procs.output(unreachable)[1]
        assert "cannot reach the arena" in err and "Traceback" not in err
    run(scenario())
