"""The types a bot sees, in one module: what it is told when a match starts and ends
(:class:`MatchInfo`, :class:`MatchEnd`, defined here) and what it decides on (:class:`View`,
:class:`Decision`, :class:`RulesConfig`, from the rules engine).

The arena's side (:mod:`arena.match`, :mod:`arena.protocol`) builds these same objects, so an
in-process bot (:class:`arena.match.LocalBot`) and a bot over gRPC (:func:`arena.sdk.run`) get
equal values. This module imports nothing but the rules engine: ``from arena.sdk.types import
MatchInfo`` does not load grpc.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import Decision, RulesConfig
from ..rules.view import View

__all__ = ["Decision", "MatchEnd", "MatchInfo", "RulesConfig", "View"]


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
