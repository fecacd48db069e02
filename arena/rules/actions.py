"""Decision kinds and action codes.

Every decision is one small ``int`` (as in OpenSpiel), so ``legal_actions()`` is a short sorted
list of ints and simulation stays cheap. The meaning of a code depends on the pending
:class:`Decision`; :func:`action_str` / :func:`parse_action` give a stable text form used by
records, logs and the bot protocol.

==============  ======================  ===========================================================
code range      text                    meaning
==============  ======================  ===========================================================
0..51           ``"AS"``, ``"10H"``     a card: play it, discard it, give it back (demand-suit),
                                        or return it (pass-and-return with a trump received)
60..63          ``"trump:S"``           contract with that trump suit (S H D C)
64              ``"no-trump"``          no-trump contract
65              ``"misere"``            misère contract
70..81          ``"demand:1:H"``        demand-suit: ask seat 1 for its highest heart
99              ``"stop"``              stop exchanging (when the preset allows it)
100..255        ``"give:2:AS"``         pass-and-return: give the AS to seat 2
==============  ======================  ===========================================================

Seats in action codes are match seats (0..2, the position in the match's seating), the same
numbers ``view_of(state, seat)`` uses, not hand roles.

Examples (the table's rows; text is case-insensitive on the way in, canonical on the way out)::

    >>> parse_action("10h"), action_str(parse_action("10h"))
    (21, '10H')
    >>> [parse_action(t) for t in ("trump:S", "trump:C", "no-trump", "misere", "stop")]
    [60, 63, 64, 65, 99]
    >>> action_str(demand_action(1, 1)), parse_action("demand:1:H")
    ('demand:1:H', 75)
    >>> give_action(2, parse_card("AS")), action_str(216)
    (216, 'give:2:AS')
    >>> contract_name(4), contract_name(None)
    ('no-trump', '-')
    >>> action_str(52)
    Traceback (most recent call last):
    ...
    arena.rules.errors.CardParseError: not an action code: 52
"""

from __future__ import annotations

from enum import StrEnum

from .cards import SUITS, card_str, parse_card, parse_suit
from .errors import CardParseError


class Decision(StrEnum):
    """Kind of the pending decision (RULES.md section 7 gives their order in a hand)."""

    EXCHANGE_DEMAND = "exchange-demand"   #: up player names a down player and a suit
    EXCHANGE_GIVE = "exchange-give"       #: up player gives a card (or stops, where allowed)
    EXCHANGE_RETURN = "exchange-return"   #: down player returns a card of his choice
    CONTRACT = "contract"                 #: declarer names trump, no-trump or misère
    DISCARD = "discard"                   #: declarer discards one card (4 decisions)
    PLAY = "play"                         #: play a card to the trick


CONTRACT_BASE = 60
NO_TRUMP = 4      #: contract index of no-trump
MISERE = 5        #: contract index of misère
DEMAND_BASE = 70
STOP = 99
GIVE_BASE = 100

CONTRACT_NAMES = ("trump:S", "trump:H", "trump:D", "trump:C", "no-trump", "misere")


def contract_action(contract: int) -> int:
    """Action code of contract index 0..3 (trump suit), 4 (no-trump) or 5 (misère)."""
    return CONTRACT_BASE + contract


def demand_action(seat: int, suit: int) -> int:
    """Action code of a demand-suit exchange: ask ``seat`` (0..2) for its highest ``suit``."""
    return DEMAND_BASE + seat * 4 + suit


def give_action(seat: int, card: int) -> int:
    """Action code of a pass-and-return exchange: give ``card`` to ``seat`` (0..2)."""
    return GIVE_BASE + seat * 52 + card


def contract_name(contract: int | None) -> str:
    """Text of a contract index (``"trump:H"``, ``"no-trump"``, ``"misere"``), ``"-"`` for none."""
    return "-" if contract is None else CONTRACT_NAMES[contract]


def action_str(action: int) -> str:
    """Stable text of an action code (see module table). Inverse of :func:`parse_action`.

    Raises:
        CardParseError: when the code is not a valid action (anything but an ``int`` in one of
            the ranges above; ``bool`` is not an action).
    """
    if type(action) is not int:
        if isinstance(action, bool) or not isinstance(action, int):
            raise CardParseError(f"not an action code: {action!r} (an action is an int)")
        action = int(action)
    if 0 <= action < 52:
        return card_str(action)
    if CONTRACT_BASE <= action <= CONTRACT_BASE + MISERE:
        return CONTRACT_NAMES[action - CONTRACT_BASE]
    if DEMAND_BASE <= action < DEMAND_BASE + 12:
        seat, suit = divmod(action - DEMAND_BASE, 4)
        return f"demand:{seat}:{SUITS[suit]}"
    if action == STOP:
        return "stop"
    if GIVE_BASE <= action < GIVE_BASE + 156:
        seat, card = divmod(action - GIVE_BASE, 52)
        return f"give:{seat}:{card_str(card)}"
    raise CardParseError(f"not an action code: {action!r}")


def _seat(text: str, whole: str) -> int:
    if text not in ("0", "1", "2"):
        raise CardParseError(f"not an action: {whole!r} (seat must be 0, 1 or 2)")
    return int(text)


#: actions written as one word
_WORD_ACTIONS = {"no-trump": CONTRACT_BASE + NO_TRUMP, "notrump": CONTRACT_BASE + NO_TRUMP,
                 "nt": CONTRACT_BASE + NO_TRUMP, "misere": CONTRACT_BASE + MISERE,
                 "misère": CONTRACT_BASE + MISERE, "miz": CONTRACT_BASE + MISERE, "stop": STOP}


def parse_action(text: str) -> int:
    """Parse the text form of an action (case-insensitive) into its code.

    Raises:
        CardParseError: when the text is not an action (or not a ``str``).
    """
    if not isinstance(text, str):
        raise CardParseError(f"not an action: {text!r} (an action text is a str)")
    t = text.strip().lower()
    code = _WORD_ACTIONS.get(t)
    if code is not None:
        return code
    parts = t.split(":")
    if parts[0] == "trump" and len(parts) == 2:
        return CONTRACT_BASE + parse_suit(parts[1])
    if parts[0] == "demand" and len(parts) == 3:
        return demand_action(_seat(parts[1], text), parse_suit(parts[2]))
    if parts[0] == "give" and len(parts) == 3:
        return give_action(_seat(parts[1], text), parse_card(parts[2]))
    if len(parts) == 1:
        return parse_card(t)
    raise CardParseError(f"not an action: {text!r}")
