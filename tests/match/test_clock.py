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
        async with asyncio.timeout(10):                     # a guard, in the same task
            assert await _wait(clock, 0.05, loop.create_future()) == "timeout"
        assert 0.05 <= loop.time() - t0 < 10
        clock.close()
    asyncio.run(scenario())


def test_someone_elses_cancellation_propagates() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        clocks: list[DecisionClock] = []

        async def owned(seconds: float) -> str:    # a clock times the waits of its own task
            clocks.append(DecisionClock())
            return await _wait(clocks[-1], seconds, loop.create_future())
        task = asyncio.create_task(owned(60.0))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        task = asyncio.create_task(owned(0.01))
        await asyncio.sleep(0.05)
        assert task.done() and task.result() == "timeout"
        # both at once: the deadline passes and the match is being stopped, in one step
        task = asyncio.create_task(owned(60.0))
        await asyncio.sleep(0)
        clock = clocks[-1]
        clock._deadline = loop.time()
        clock._fire()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for c in clocks:
            c.close()
    asyncio.run(scenario())


def test_a_clock_belongs_to_a_task() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()

        def make() -> None:
            try:
                DecisionClock()
            except RuntimeError as exc:
                fut.set_exception(exc)
        loop.call_soon(make)                    # a callback, not a task
        with pytest.raises(RuntimeError, match="running task"):
            await fut
    asyncio.run(scenario())
