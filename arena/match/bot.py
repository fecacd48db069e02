"""The interface between the match runner and a bot, in-process or remote.

The match runner only talks to :class:`Bot`; ``arena.protocol`` implements it over gRPC and
:class:`LocalBot` wraps an in-process policy (anything with ``decide(view) -> int``), so tests
and benchmarks can run matches without sockets (docs/architecture.md: imports run one way).
"""

from __future__ import annotations

import abc
import asyncio
import time
from typing import Protocol

from ..rules import MatchState
from ..rules.view import View
# the types a bot sees live in the SDK (arena.sdk.types); re-exported for the arena side
from ..sdk.types import MatchEnd, MatchInfo

__all__ = ["Bot", "BotFault", "DecisionRequest", "LocalBot", "MatchEnd", "MatchInfo", "Policy"]


class DecisionRequest:
    """One decision asked of a bot: the seat's full view (legal actions included) and its time.

    Build it from a view (``DecisionRequest(id, match, view, time_ms)``) or, as the match runner
    does, from the position (``DecisionRequest(id, match, None, time_ms, state=s, seat=k)``):
    then :attr:`view` is computed on first use, and adapters that encode views themselves (the
    gRPC session) can read the position instead and skip building it.

    Attributes:
        request_id: unique among all requests of the arena process, increasing.
        match_id: the match this decision belongs to.
        view: ``state.view(seat)``; ``view.legal_actions`` holds the legal action codes.
        time_ms: time allowed for the answer, in milliseconds (the arena adds a grace margin).
        state, seat: the position the view is taken from, or None. The state is the live
            match state: read it only during ``Bot.decide`` and never change it. Likewise a
            lazily built :attr:`view` shows the position of the moment it is first read: a bot
            that hands the request on (to a thread, a queue) reads ``view`` inside ``decide``.

    Raises:
        ValueError: neither a view nor a state and seat were given.
    """

    __slots__ = ("_view", "match_id", "request_id", "seat", "state", "time_ms")

    def __init__(self, request_id: int, match_id: str, view: View | None, time_ms: int, *,
                 state: MatchState | None = None, seat: int | None = None) -> None:
        if view is None and (state is None or seat is None):
            raise ValueError("a DecisionRequest needs a view, or a state and a seat")
        self.request_id = request_id
        self.match_id = match_id
        self.time_ms = time_ms
        self.state = state
        self.seat = seat
        self._view = view

    @property
    def view(self) -> View:
        """The seat's view (built from the position on first use)."""
        if self._view is None:
            self._view = self.state.view(self.seat)  # type: ignore[union-attr]
        return self._view

    def __repr__(self) -> str:
        return (f"DecisionRequest(request_id={self.request_id}, match_id={self.match_id!r}, "
                f"time_ms={self.time_ms})")


class BotFault(Exception):
    """A bot failed to answer properly.

    Attributes:
        kind: ``"malformed"`` (an answer that is not an action), ``"error"`` (the bot reported
            an exception), ``"disconnect"`` (stream closed / process gone), ``"crash"``.
        detail: human-readable explanation for the logs and the record.
        answer: what the bot answered, when it answered something unusable (else None).
    """

    def __init__(self, kind: str, detail: str, answer: str | None = None) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.answer = answer


class Bot(abc.ABC):
    """A bot as the match runner sees it. Implementations must be safe to call from one
    asyncio task at a time per match (a bot may play several matches concurrently only if
    the implementation multiplexes them by ``match_id``)."""

    name: str = "bot"
    version: str = ""

    async def start_match(self, info: MatchInfo) -> None:
        """Announce a match (default: nothing)."""

    @abc.abstractmethod
    async def decide(self, request: DecisionRequest) -> int:
        """Return the chosen action code.

        The runner enforces the time limit (``asyncio.wait_for``) and validates the action
        against the rules engine; this method only transports.

        Raises:
            BotFault: malformed answer, reported error, or lost connection.
        """

    async def reject(self, request_id: int, reason: str, detail: str) -> None:
        """Tell the bot its answer was rejected (illegal, late, malformed) and why."""

    async def end_match(self, info: MatchEnd) -> None:
        """Announce the end of a match (default: nothing)."""

    @property
    def alive(self) -> bool:
        """False once the bot is known to be gone (crashed, disconnected)."""
        return True


class Policy(Protocol):
    """Anything that chooses an action from a view (the SDK's ``Player`` satisfies it)."""

    def decide(self, view: View) -> int: ...


class LocalBot(Bot):
    """An in-process bot: runs ``policy.decide(view)`` in a worker thread so a slow policy
    cannot block the event loop (and the runner's timeout still applies)."""

    def __init__(self, policy: Policy, name: str, version: str = "local",
                 *, threaded: bool = False) -> None:
        self.policy = policy
        self.name = name
        self.version = version
        self.threaded = threaded
        self.think_s = 0.0

    async def start_match(self, info: MatchInfo) -> None:
        hook = getattr(self.policy, "on_match_start", None)
        if hook is not None:
            hook(info)

    async def decide(self, request: DecisionRequest) -> int:
        t0 = time.perf_counter()
        try:
            if self.threaded:
                action = await asyncio.to_thread(self.policy.decide, request.view)
            else:
                action = self.policy.decide(request.view)
        except Exception as exc:  # a bot's own bug is a fault, not an arena crash
            raise BotFault("error", f"{type(exc).__name__}: {exc}") from exc
        finally:
            self.think_s += time.perf_counter() - t0
        if type(action) is not int:
            raise BotFault("malformed", f"policy returned {action!r}, not an action code",
                           repr(action)[:200])
        return action

    async def end_match(self, info: MatchEnd) -> None:
        hook = getattr(self.policy, "on_match_end", None)
        if hook is not None:
            hook(info)
