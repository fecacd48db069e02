"""The types a bot sees, in one module: what it is told when a match starts and ends
(:class:`MatchInfo`, :class:`MatchEnd`, from :mod:`arena.match.info`) and what it decides on
(:class:`View`, :class:`Decision`, :class:`RulesConfig`, from the rules engine).

The arena's side (:mod:`arena.match`, :mod:`arena.protocol`) builds these same objects, so an
in-process bot (:class:`arena.match.LocalBot`) and a bot over gRPC (:func:`arena.sdk.run`) get
equal values. This module loads the rules engine and the match types only: ``from
arena.sdk.types import MatchInfo`` does not load grpc.
"""

from __future__ import annotations

from ..match.info import MatchEnd, MatchInfo
from ..rules import Decision, RulesConfig
from ..rules.view import View

__all__ = ["Decision", "MatchEnd", "MatchInfo", "RulesConfig", "View"]
