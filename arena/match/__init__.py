"""Match runner and the bot interface (arena layer above the pure rules engine)."""

from .bot import Bot, BotFault, DecisionRequest, LocalBot, MatchEnd, MatchInfo, Policy
from .faults import FAULT_KINDS, FaultKind, Forfeit
from .runner import (DecisionLog, MatchOutcome, MatchSpec, fallback_action,
                     placings_with_forfeits, run_match)

__all__ = [
    "FAULT_KINDS",
    "Bot",
    "BotFault",
    "DecisionLog",
    "DecisionRequest",
    "FaultKind",
    "Forfeit",
    "LocalBot",
    "MatchEnd",
    "MatchInfo",
    "MatchOutcome",
    "MatchSpec",
    "Policy",
    "fallback_action",
    "placings_with_forfeits",
    "run_match",
]
