"""Pure rules engine for Three Five Eight (RULES.md): no I/O, no global RNG.

Public API::

    from arena.rules import make_config, MatchState, Deal, parse_card, card_str, action_str
    state = MatchState.new(make_config("blato", hand_cap=30), seed=1)
    state.legal_actions(); state.apply(code); view_of(state, seat); state.copy()
"""

from .actions import (CONTRACT_BASE, MISERE, NO_TRUMP, STOP, Decision, action_str,
                      contract_action, contract_name, demand_action, give_action, parse_action)
from .cards import (SUITS, card_str, cards_of, format_cards, mask_of, parse_card, parse_cards,
                    rank_of, suit_of)
from .config import (DEFAULT_PRESET, OPTION_NAMES, PRESETS, RulesConfig, config_from_options,
                     make_config)
from .deal import Deal, derive_seed, seeded_deal
from .errors import (CardParseError, DealError, IllegalActionError, RulesConfigError,
                     RulesError, SeedError)
from .exchange import ExchangeEvent, ExchangeKind
from .history import HandSummary, TrickRecord
from .state import MatchState
from .view import View, view_of

__all__ = [
                      "CONTRACT_BASE",
                      "DEFAULT_PRESET",
                      "MISERE",
                      "NO_TRUMP",
                      "OPTION_NAMES",
                      "PRESETS",
                      "STOP",
                      "SUITS",
                      "CardParseError",
                      "Deal",
                      "DealError",
                      "Decision",
                      "ExchangeEvent",
                      "ExchangeKind",
                      "HandSummary",
                      "IllegalActionError",
                      "MatchState",
                      "RulesConfig",
                      "RulesConfigError",
                      "RulesError",
                      "SeedError",
                      "TrickRecord",
                      "View",
                      "action_str",
                      "card_str",
                      "cards_of",
                      "config_from_options",
                      "contract_action",
                      "contract_name",
                      "demand_action",
                      "derive_seed",
                      "format_cards",
                      "give_action",
                      "make_config",
                      "mask_of",
                      "parse_action",
                      "parse_card",
                      "parse_cards",
                      "rank_of",
                      "seeded_deal",
                      "suit_of",
                      "view_of",
]
