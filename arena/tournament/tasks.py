"""The two asyncio patterns the runners share: ``n`` match workers that fail together
(:func:`run_workers`) and a write that a cancellation cannot cut in half
(:func:`uncancellable`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any


async def uncancellable(coro: Coroutine[Any, Any, None]) -> None:
    """Run ``coro`` to its end even when the caller is cancelled meanwhile, then pass the
    cancellation on (a finished match is stored whole or not at all).

    Raises:
        asyncio.CancelledError: the caller was cancelled while ``coro`` ran (after it ended).
        Exception: what ``coro`` raised.
    """
    task = asyncio.ensure_future(coro)
    cancelled = False
    while True:
        try:
            await asyncio.shield(task)
            break
        except asyncio.CancelledError:
            if task.done():
                raise
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError


async def run_workers(worker: Callable[[], Coroutine[Any, Any, None]], n: int) -> None:
    """Run ``n`` workers; when one fails, the others are cancelled (their matches are
    abandoned, never stored) and the first error is raised as itself (not in a group)."""
    try:
        async with asyncio.TaskGroup() as tg:
            for _ in range(n):
                tg.create_task(worker())
    except BaseExceptionGroup as group:
        raise group.exceptions[0]  # noqa: B904 - the error itself, its traceback intact
