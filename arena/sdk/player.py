"""The :class:`Player` base class a Python bot author subclasses."""

from __future__ import annotations

import abc

from .types import MatchEnd, MatchInfo
from ..rules.view import View


class Player(abc.ABC):
    """Base class of a bot's decision policy.

    Subclasses implement :meth:`decide`; the hooks are optional. The same instance serves every
    match of the connection (matches may interleave when the arena runs several at once, so
    per-match state should be keyed by ``match_id``; the SDK calls ``decide`` one request at a
    time, never concurrently).

    Attributes:
        name: the bot's name, sent at registration (``--name`` on the command line overrides).
        version: free-form version text sent at registration.
        request_time_ms: time allowed for the decision being made, in milliseconds, set by
            the SDK just before each :meth:`decide` call (0 outside the SDK); the arena adds a
            grace margin before an answer is late.
    """

    name: str = "python-bot"
    version: str = "0"
    request_time_ms: int = 0

    @abc.abstractmethod
    def decide(self, view: View) -> int:
        """Choose an action for the pending decision.

        Args:
            view: the seat's full visible state; ``view.legal_actions`` lists the legal action
                codes (ints, see ``arena.rules.actions``), ``view.decision`` the decision kind.

        Returns:
            one of ``view.legal_actions``. Anything else is recorded as a fault and a fallback
            action is played for this decision.

        Raises:
            Any exception: the SDK reports it to the arena as an error for this decision (a
            fault) and keeps serving.

        It may be written ``async def decide``: the SDK awaits it on its own event loop (one
        request at a time, as always). A plain ``decide`` must not call ``asyncio.run``: it runs
        on that loop's thread.
        """

    def on_match_start(self, info: MatchInfo) -> None:
        """Called when a match starts (``info``: match id, rules, seat, names, time per
        decision in ms). Default: nothing."""
        return None

    def on_match_end(self, end: MatchEnd) -> None:
        """Called when a match ends (``end``: scores, placings, reason). Default: nothing."""
        return None
