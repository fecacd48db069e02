"""The interface between the match runner and a bot, in-process or remote.

The match runner only talks to :class:`Bot`; ``arena.protocol`` implements it over gRPC and
:class:`LocalBot` wraps an in-process policy (anything with ``decide(view) -> int``), so tests
and benchmarks can run matches without sockets (docs/architecture.md: imports run one way).
"""

from __future__ import annotations

import abc
import asyncio
import time
from dataclasses import dataclass
from typing import Protocol

from ..rules.view import View
from .info import MatchEnd, MatchInfo
from .faults import FaultKind

__all__ = ["Bot", "BotFault", "DecisionRequest", "LocalBot", "MatchEnd", "MatchInfo", "Policy"]


@dataclass(frozen=True, slots=True)
class DecisionRequest:
    """One decision asked of a bot: the seat's view (legal actions included) and its time.

    Attributes:
        request_id: unique among all requests of the arena process, increasing.
        match_id: the match this decision belongs to.
        view: ``arena.rules.view_of(state, seat)`` for the seat to act; ``view.legal_actions``
            holds the legal action codes. The bot sees the match only through it.
        time_ms: time allowed for the answer, in milliseconds (the arena adds a grace margin).
    """

    request_id: int
    match_id: str
    view: View
    time_ms: int

    def __repr__(self) -> str:
        return (f"DecisionRequest(request_id={self.request_id}, match_id={self.match_id!r}, "
                f"time_ms={self.time_ms})")


class BotFault(Exception):
    """A bot failed to answer properly.

    Attributes:
        kind: ``FaultKind.MALFORMED`` (an answer that is not an action), ``ERROR`` (the bot
            reported an exception), ``DISCONNECT`` (stream closed / process gone: a crash);
            a plain string is converted (``ValueError`` if it names no :class:`FaultKind`).
        detail: human-readable explanation for the logs and the record.
        answer: what the bot answered, when it answered something unusable (else None).
    """

    def __init__(self, kind: FaultKind, detail: str, answer: str | None = None) -> None:
        self.kind = FaultKind(kind)
        super().__init__(f"{self.kind}: {detail}")
        self.detail = detail
        self.answer = answer


class Bot(abc.ABC):
    """A bot as the match runner sees it. Implementations must be safe to call from one
    asyncio task at a time per match (a bot may play several matches concurrently only if
    the implementation multiplexes them by ``match_id``)."""

    name: str = "bot"
    version: str = ""
    #: why the bot is gone (never started, disqualified...), once it is not :attr:`alive`:
    #: recorded verbatim as the forfeit reason of the seats it then forfeits; None: unknown
    #: (recorded as ``"disconnect: bot is gone"``)
    gone_reason: str | None = None

    async def start_match(self, info: MatchInfo) -> None:
        """Announce a match (default: nothing)."""
        return None   # a default hook, not an abstract method

    @abc.abstractmethod
    async def decide(self, request: DecisionRequest) -> int:
        """Return the chosen action code.

        The runner enforces the time limit (it cancels this coroutine when the time is up)
        and validates the action against the rules engine; this method only transports.

        Raises:
            BotFault: malformed answer, reported error, or lost connection.
        """

    async def reject(self, request_id: int, kind: FaultKind, detail: str) -> None:
        """Tell the bot that its answer to request ``request_id`` was a fault of ``kind``
        (``ILLEGAL``, ``TIMEOUT``, ``MALFORMED``, ``ERROR``; never ``DISCONNECT``) and why
        (default: nothing)."""
        return None   # a default hook, not an abstract method

    async def end_match(self, info: MatchEnd) -> None:
        """Announce the end of a match (default: nothing)."""
        return None   # a default hook, not an abstract method

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
            raise BotFault(FaultKind.ERROR, f"{type(exc).__name__}: {exc}") from exc
        finally:
            self.think_s += time.perf_counter() - t0
        if type(action) is not int:
            raise BotFault(FaultKind.MALFORMED, f"policy returned {action!r}, not an action code",
                           repr(action)[:200])
        return action

    async def end_match(self, info: MatchEnd) -> None:
        hook = getattr(self.policy, "on_match_end", None)
        if hook is not None:
            hook(info)
