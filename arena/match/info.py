"""What a bot is told when a match starts and ends: :class:`MatchInfo`, :class:`MatchEnd`.

Defined beside the match runner that sends them (:mod:`arena.match.bot`), below every layer that
passes them on (the protocol edge, the SDK: :mod:`arena.sdk.types` re-exports them for bot
authors), so imports run one way. Imports nothing but the rules engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import RulesConfig

__all__ = ["MatchEnd", "MatchInfo"]


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What a bot is told when a match starts.

    Attributes:
        match_id: unique id of the match in its tournament (text).
        cfg: the rules of the match.
        seat: the bot's seat 0..2 (seat 0 deals the first hand).
        names: bot names by seat.
        time_per_decision_ms: time allowed for each answer, in milliseconds.
    """

    match_id: str
    cfg: RulesConfig
    seat: int
    names: tuple[str, str, str]
    time_per_decision_ms: int


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """What a bot is told when a match ends: scores and placings by seat (placing 1 = first),
    and why it ended (:func:`arena.match.runner.match_end_reason`: the engine's end reason,
    e.g. ``"hand-cap"``, prefixed by ``"forfeit by seat 0, 2; "`` when seats forfeited)."""

    match_id: str
    scores: tuple[int, int, int]
    placings: tuple[int, int, int]
    reason: str
