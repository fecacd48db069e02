"""What a Python bot author imports: :class:`Player`, :func:`run`, and simulation helpers.

A bot is a small program::

    import random
    from arena.sdk import Player, View, run

    class RandomPlayer(Player):
        name = "random"
        version = "1.0"

        def decide(self, view: View) -> int:
            return random.choice(view.legal_actions)

    if __name__ == "__main__":
        run(RandomPlayer())

Run it with ``ARENA_TOKEN=T python my_bot.py --arena 127.0.0.1:50051`` (``--token`` also works
but puts the secret on the command line, visible to every local user; the arena starts bots
with ``--arena`` and the token in ``ARENA_TOKEN`` only). ``run`` connects to the arena's gRPC
server, registers, answers every decision request with ``player.decide(view)`` and returns
when the arena closes the stream (exit status 0) or on SIGTERM/SIGINT. See ``docs/protocol.md``.

Simulation helpers re-exported from the rules engine: :func:`sample_state` (a full
``MatchState`` consistent with a view, for Monte Carlo search: ``MatchState.from_view``),
:func:`action_str`,
:func:`parse_action`, :func:`card_str`, :func:`parse_card`, :func:`rank_of` (0 = 2 ..
12 = ace), :func:`suit_of` (0..3 = S H D C), :class:`MatchState`,
:class:`Decision`, :class:`View`. The types a bot sees (:class:`MatchInfo`, :class:`MatchEnd`,
:class:`View`, ...) are also in :mod:`arena.sdk.types`.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from ..rules import (MatchState, action_str, card_str, make_config, parse_action, parse_card,
                     rank_of, suit_of)
from .player import Player
from .types import Decision, MatchEnd, MatchInfo, RulesConfig, View

if TYPE_CHECKING:
    from .client import run

__all__ = [
    "Decision",
    "MatchEnd",
    "MatchInfo",
    "MatchState",
    "Player",
    "RulesConfig",
    "View",
    "action_str",
    "card_str",
    "make_config",
    "parse_action",
    "parse_card",
    "rank_of",
    "run",
    "sample_state",
    "suit_of",
]


def sample_state(view: View, rng: random.Random) -> MatchState:
    """A full state consistent with ``view``, the hidden cards drawn with ``rng``: the SDK's
    name for :meth:`MatchState.from_view` (see there).

    Raises:
        RulesError: when the match is finished or the view's constraints are inconsistent.
    """
    return MatchState.from_view(view, rng)


def __getattr__(name: str) -> Any:
    """``run`` is loaded on first use: it brings grpc, which :mod:`.types` (imported by the
    arena's match runner) must not."""
    if name == "run":
        from .client import run
        return run
    raise AttributeError(f"module 'arena.sdk' has no attribute {name!r}")
