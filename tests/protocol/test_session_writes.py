"""A decision cancelled by the time limit while its request is being written: gRPC's write
goes on in the core, so the stream's next write must wait for it (two writes at once fail the
call with ``GRPC_CALL_ERROR_TOO_MANY_OPERATIONS``, which ended a bot's stream under load)."""

from __future__ import annotations

import asyncio

from arena.match.bot import DecisionRequest
from arena.protocol.session import BotIdentity, RemoteBot
from arena.rules import MatchState, make_config
from arena.rules.view import view_of


class _SlowStream:
    """A stream's write that takes ``write_s`` and fails, as gRPC's core does, when another
    write starts before it ended."""

    def __init__(self, write_s: float) -> None:
        self.write_s = write_s
        self.in_flight = 0
        self.overlaps = 0
        self.written = 0

    async def write(self, msg: object) -> None:
        self.in_flight += 1
        if self.in_flight > 1:
            self.overlaps += 1
        loop = asyncio.get_running_loop()
        done = loop.create_future()

        def end() -> None:        # the core's write ends when it ends, awaited or not
            self.in_flight -= 1
            self.written += 1
            if not done.done():
                done.set_result(None)

        loop.call_later(self.write_s, end)
        await done


def _bot(stream: _SlowStream) -> RemoteBot:
    bot = RemoteBot("token", BotIdentity("b", "b", "1", "test", "1", "peer"))
    bot.writer = stream.write
    return bot


async def _pump(bot: RemoteBot) -> None:
    """The server's writer of queued messages (``ArenaServer._play``)."""
    while True:
        item = await bot.outbox.get()
        async with bot.write_lock:
            await bot.writer(item)


def test_a_timeout_during_a_write_holds_the_next_write_back() -> None:
    async def scenario() -> tuple[int, int, bool]:
        stream = _SlowStream(0.3)
        bot = _bot(stream)
        pump = asyncio.create_task(_pump(bot))
        state = MatchState.new(make_config("blato"), seed=4)
        bot._matches.add("m")
        req = DecisionRequest(1, "m", view_of(state, state.current_seat), 1000)
        first = asyncio.create_task(bot.decide(req))
        await asyncio.sleep(0.05)             # its request is being written
        first.cancel()                        # the runner's time limit
        await asyncio.gather(first, return_exceptions=True)
        # the next request (or the LATE rejection) waits for the write still in flight
        second = asyncio.create_task(bot.decide(DecisionRequest(
            2, "m", view_of(state, state.current_seat), 1000)))
        await asyncio.sleep(0.6)
        alive = bot.alive
        second.cancel()
        await asyncio.gather(second, return_exceptions=True)
        await asyncio.sleep(0.4)
        pump.cancel()
        return stream.overlaps, stream.written, alive

    overlaps, written, alive = asyncio.run(scenario())
    assert (overlaps, written, alive) == (0, 2, True)


def test_an_answer_after_the_arena_stopped_waiting_is_told_late_without_a_warning(
        caplog) -> None:
    """A decision cancelled (time up, or the arena stopping on Ctrl-C) then answered: the bot
    is told LATE once, the answer is not counted as a bad message and no WARNING is logged
    (a normal stop printed one per bot in flight)."""
    import logging

    from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb

    async def scenario() -> RemoteBot:
        stream = _SlowStream(0.0)
        bot = _bot(stream)
        state = MatchState.new(make_config("blato"), seed=4)
        bot._matches.add("m")
        task = asyncio.create_task(bot.decide(DecisionRequest(
            1, "m", view_of(state, state.current_seat), 1000)))
        await asyncio.sleep(0.05)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        while not bot.outbox.empty():
            bot.outbox.get_nowait()
        bot._on_answer(1, "QD")             # the answer comes in after all
        bot._on_answer(1, "QD")             # and again: told once
        return bot

    with caplog.at_level(logging.INFO, logger="arena.protocol"):
        bot = asyncio.run(scenario())
    told = [bot.outbox.get_nowait() for _ in range(bot.outbox.qsize())]
    assert [m.rejection.reason for m in told] == [pb.REJECTION_REASON_LATE]
    assert bot.bad_messages == 0
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("after the arena stopped waiting" in r.getMessage() for r in caplog.records)


def test_run_detached_steps_a_coroutine_to_its_end_and_reports_how_it_ended() -> None:
    """The write's driver (no task of its own): each step when the awaited future is done,
    a bare yield on the next loop turn, the result or the exception to ``done``; the
    caller's cancellation does not reach it."""
    from arena.protocol.session import run_detached

    async def scenario() -> list[object]:
        loop = asyncio.get_running_loop()
        ended: list[object] = []
        steps: list[str] = []
        gate: asyncio.Future[int] = loop.create_future()

        async def work(fail: bool) -> None:
            steps.append("first")               # runs before run_detached returns
            value = await gate
            await asyncio.sleep(0)
            steps.append(f"after {value}")
            if fail:
                raise ConnectionError("stream closed")

        async def caller() -> None:
            run_detached(work(False), ended.append)
            run_detached(work(True), ended.append)
            assert steps == ["first", "first"]
            await asyncio.sleep(10)

        task = asyncio.create_task(caller())
        await asyncio.sleep(0.01)
        task.cancel()                            # the caller's time limit
        await asyncio.gather(task, return_exceptions=True)
        assert ended == []                       # still waiting on the gate
        gate.set_result(7)
        for _ in range(5):
            await asyncio.sleep(0)
        return [steps, ended]

    steps, ended = asyncio.run(scenario())
    assert steps == ["first", "first", "after 7", "after 7"]
    assert ended[0] is None and isinstance(ended[1], ConnectionError)


def test_a_failed_write_ends_the_connection_and_frees_the_lock() -> None:
    async def scenario() -> RemoteBot:
        bot = RemoteBot("token", BotIdentity("b", "b", "1", "test", "1", "peer"))

        async def broken(_msg: object) -> None:
            await asyncio.sleep(0)
            raise RuntimeError("the call is over")

        bot.writer = broken
        state = MatchState.new(make_config("blato"), seed=4)
        bot._matches.add("m")
        try:
            await asyncio.wait_for(bot.decide(DecisionRequest(
                1, "m", view_of(state, state.current_seat), 1000)), 1)
        except Exception as exc:                 # the pending request fails with the stream
            assert type(exc).__name__ == "BotFault"
        return bot

    bot = asyncio.run(scenario())
    assert not bot.alive and not bot.write_lock.locked()
    assert "write failed: RuntimeError: the call is over" in bot._closed_reason
