"""Signal handling shared by long-running commands (``arena run``, ``arena play``).

The first SIGINT, SIGTERM or SIGHUP cancels the running coroutine, so its ``finally`` blocks end
every bot process and close the store; later signals are ignored while that bounded cleanup runs
(bots get Goodbye, then SIGTERM after 2 s, then SIGKILL 2 s later). :func:`kill_all_now` runs
afterwards regardless, so no bot process outlives the arena even if cleanup was cut short.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from ..errors import UserError
from ..processes.spawn import kill_all_now

T = TypeVar("T")
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(Exception):
    """The command was stopped by a signal; ``code`` is the conventional exit status."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.code = 128 + signum


async def _guarded(coro: Coroutine[Any, Any, T], stopping: str) -> T:
    task = asyncio.ensure_future(coro)
    loop = asyncio.get_running_loop()
    caught: list[int] = []

    def on_signal(signum: int) -> None:
        if not caught:
            caught.append(signum)
            print(f"arena: {signal.Signals(signum).name}: stopping {stopping} ...",
                  file=sys.stderr, flush=True)
            task.cancel()

    for sig in SIGNALS:
        loop.add_signal_handler(sig, on_signal, sig)
    try:
        return await task
    except asyncio.CancelledError:
        if caught:
            raise Interrupted(caught[0]) from None
        raise
    finally:
        for sig in SIGNALS:
            loop.remove_signal_handler(sig)
            if caught:  # stopping already: further signals must not cut the exit short
                signal.signal(sig, signal.SIG_IGN)


def run_guarded(coro: Coroutine[Any, Any, T], stopping: str = "the bots") -> T:
    """``asyncio.run(coro)`` with the signal policy above; ``stopping`` names what a signal
    stops in the one line it prints (``arena: SIGTERM: stopping <stopping> ...``).

    Raises:
        Interrupted: a signal stopped it (after cleanup).
    """
    try:
        return asyncio.run(_guarded(coro, stopping))
    finally:
        kill_all_now()


def run_resumable(coro: Coroutine[Any, Any, T], config: str, out: Path) -> T:
    """:func:`run_guarded` for a command that writes a tournament directory (``arena run``,
    ``arena gauntlet``): what stops it is turned into a one-line :class:`UserError` that says
    how to resume.

    Raises:
        Interrupted: a signal stopped it (rerun to resume).
        UserError: the server could not start, the store or the directory failed.
    """
    from ..protocol.errors import ServerStartError
    try:
        return run_guarded(coro)
    except ServerStartError as exc:
        raise UserError(f"{config}: [server] {exc}") from None
    except sqlite3.Error as exc:
        raise UserError(f"{out}/results.sqlite: {exc}; free space or fix the file, then rerun "
                        "to resume") from None
    except OSError as exc:
        raise UserError(f"{out}: {exc.strerror or exc}: {exc.filename or ''}; rerun to "
                        "resume once fixed") from None
