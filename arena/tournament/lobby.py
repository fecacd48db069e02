"""The lobby: before its first match, ``arena run`` waits for every remote bot that has a
match to play to connect, up to ``[tournament] start_after`` seconds (``arena run
--wait-remote SECONDS``; default ``[faults] register_timeout_s``), saying who is missing.

The matches start as soon as every one has connected, or when the time is up. A remote bot
that has not connected by then is **absent** for the run: its matches are not played and not
stored (a no-show is not a result), so they stay pending in the directory and a later ``arena
run`` plays them once it connects; matches without it are played meanwhile (the bot pool, in
``defer_absent`` mode, defers each match of an absent bot at once, and plays it if the bot has
connected by the time the match comes up). See :class:`arena.processes.pool.BotPool` and
:class:`arena.tournament.local.MatchDeferred`.

What the lobby says goes to ``say`` (the terminal) and, as :class:`LobbyState`, to
``publish`` (the store's ``lobby`` meta entry, which the live page shows under its standings).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from ..wording import plural

if TYPE_CHECKING:
    from ..protocol.server import ArenaServer
    from .config import BotEntry

#: seconds between two "still waiting" lines while nobody new connects
REMIND_S = 10.0
#: the store's ``meta`` key holding the lobby's :class:`LobbyState` (JSON; "" when over)
LOBBY_KEY = "lobby"


@dataclass(frozen=True)
class LobbyState:
    """Who the lobby still waits for (``waiting``, config order) and until when (``until``,
    Unix time, s); ``waiting == ()`` once it is over."""

    waiting: tuple[str, ...]
    connected: tuple[str, ...]
    until: float

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    def note(self) -> str:
        """The line the live page shows while the lobby waits."""
        left = max(0, round(self.until - time.time()))
        return (f"note: waiting for remote bots to connect: {', '.join(self.waiting)} (up to "
                f"{left} s more; the matches start when all have connected)")


def note_from_json(text: str | None) -> str | None:
    """The live page's note for a stored ``lobby`` entry (None when there is none, it is
    over, or it cannot be read)."""
    if not text:
        return None
    try:
        data = json.loads(text)
        state = LobbyState(tuple(data["waiting"]), tuple(data["connected"]),
                           float(data["until"]))
    except (ValueError, KeyError, TypeError):
        return None
    # over, or left behind by an arena that was killed while it waited
    return state.note() if state.waiting and state.until > time.time() else None


async def wait_for_remote(server: ArenaServer, bots: Sequence[BotEntry], limit_s: float,
                          say: Callable[[str], None],
                          publish: Callable[[LobbyState | None], None] = lambda s: None
                          ) -> list[str]:
    """Wait up to ``limit_s`` seconds for every remote bot of ``bots`` to connect (see the
    module docstring); returns the names of those that did not, in config order."""
    if not bots:
        return []
    names = [b.name for b in bots]
    until = time.time() + limit_s
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    waits = {asyncio.ensure_future(server.wait_for_bot(b.token or "", limit_s)): b.name
             for b in bots}
    connected: list[str] = []

    def missing() -> list[str]:
        return [n for n in names if n not in connected]

    say(f"waiting up to {limit_s:g} s for {plural(len(names), 'remote bot')} to connect: "
        f"{', '.join(names)} (the matches start when all have connected)")
    publish(LobbyState(tuple(names), (), until))
    pending = set(waits)
    try:
        while pending:
            left = deadline - loop.time()
            if left <= 0:
                break
            done, pending = await asyncio.wait(pending, timeout=min(REMIND_S, left),
                                               return_when=asyncio.FIRST_COMPLETED)
            came = [waits[t] for t in done if not t.cancelled() and t.exception() is None]
            connected += came
            left = max(0.0, deadline - loop.time())
            for name in came:
                rest = missing()
                say(f"remote bot {name!r} connected ({len(connected)} of {len(names)})"
                    + (f"; waiting for: {', '.join(rest)} ({left:.0f} s left)" if rest else ""))
            if not came and pending and left > 0:
                say(f"still waiting for: {', '.join(missing())} ({left:.0f} s left)")
            if came:
                publish(LobbyState(tuple(missing()), tuple(connected), until))
    finally:
        for t in pending:
            t.cancel()
        publish(None)
    absent = missing()
    if absent:
        say(f"{plural(len(absent), 'remote bot')} did not connect within {limit_s:g} s: "
            f"{', '.join(absent)}; starting without "
            f"{'it' if len(absent) == 1 else 'them'}: the matches "
            f"{'it has' if len(absent) == 1 else 'they have'} are left for a later run of the "
            "same command")
    else:
        say("every remote bot is connected; starting")
    return absent
