"""DecisionClock: one lazily re-armed timer per match gives each wait asyncio.timeout's
semantics (cancelled at its own deadline, never at an earlier wait's; a foreign cancellation
propagates)."""

from __future__ import annotations

import asyncio

import pytest

from arena.match.clock import DecisionClock


async def _wait(clock: DecisionClock, seconds: float, fut: asyncio.Future[str]) -> str:
    """As the runner waits for an answer: ``"timeout"`` when the clock cancelled the wait."""
    clock.start(seconds)
    try:
        return await fut
    except asyncio.CancelledError:
        if not clock.stop():
            raise
        return "timeout"
    finally:
        clock.stop()


def test_a_wait_past_its_deadline_is_a_timeout_not_before() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        clock = DecisionClock()
        t0 = loop.time()
        assert await _wait(clock, 0.05, loop.create_future()) == "timeout"
        assert loop.time() - t0 >= 0.05
        fut = loop.create_future()
        loop.call_soon(fut.set_result, "e4")
        assert await _wait(clock, 0.05, fut) == "e4"        # the clock still works after one
        clock.close()
    asyncio.run(scenario())


def test_an_answered_wait_leaves_no_deadline_for_the_next() -> None:
    """The timer armed for the first wait fires during the second, whose deadline is later:
    it re-arms instead of cancelling."""
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        clock = DecisionClock()
        fut = loop.create_future()
        fut.set_result("first")
        assert await _wait(clock, 0.05, fut) == "first"
        slow = loop.create_future()
        loop.call_later(0.15, slow.set_result, "second")     # past the first deadline
        assert await _wait(clock, 5.0, slow) == "second"
        t0 = loop.time()
        assert await _wait(clock, 0.05, loop.create_future()) == "timeout"
        assert loop.time() - t0 >= 0.05
        clock.close()
    asyncio.run(scenario())


def test_an_earlier_deadline_than_the_armed_timer_is_kept() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        clock = DecisionClock()
        fut = loop.create_future()
        fut.set_result("x")
        await _wait(clock, 60.0, fut)                        # the timer is set 60 s ahead
        t0 = loop.time()
        assert await asyncio.wait_for(_wait(clock, 0.05, loop.create_future()), 10) == "timeout"
        assert 0.05 <= loop.time() - t0 < 10
        clock.close()
    asyncio.run(scenario())


def test_someone_elses_cancellation_propagates() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        clock = DecisionClock()
        task = asyncio.create_task(_wait(clock, 60.0, loop.create_future()))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # both at once: the deadline passed and the match is being stopped
        task = asyncio.create_task(_wait(clock, 0.01, loop.create_future()))
        await asyncio.sleep(0.05)
        assert task.done() and task.result() == "timeout"
        task = asyncio.create_task(_wait(clock, 60.0, loop.create_future()))
        await asyncio.sleep(0)
        clock._deadline = loop.time()                  # its deadline is now, and in the same
        clock._fire()                                  # step the runner's owner stops it too
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        clock.close()
    asyncio.run(scenario())


def test_start_outside_a_task_is_an_error() -> None:
    async def scenario() -> None:
        clock = DecisionClock()
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        loop.call_soon(lambda: _start_in_callback(clock, fut))
        with pytest.raises(RuntimeError, match="running task"):
            await fut

    def _start_in_callback(clock: DecisionClock, fut: asyncio.Future[None]) -> None:
        try:
            clock.start(1.0)
        except RuntimeError as exc:
            fut.set_exception(exc)
    asyncio.run(scenario())
