"""Typed errors of the rules engine.

All derive from :class:`ValueError` (as python-chess's ``IllegalMoveError`` does) so callers
that only know "bad value" still catch them.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class of every error the rules engine raises on bad input."""


class RulesConfigError(RulesError):
    """A preset name, option name or option value is not valid.

    The message names the offending key and the valid choices.
    """


class CardParseError(RulesError):
    """A card or action string could not be parsed (e.g. ``"1X"``)."""


class SeedError(RulesError):
    """A match seed is not an ``int``, ``str`` or ``bytes`` (``bool``, ``None`` and ``float``
    are refused: they would deal like an unrelated int or text)."""


class DealError(RulesError):
    """An explicit deal is inconsistent (wrong counts, duplicate or unknown cards)."""


class IllegalActionError(RulesError):
    """An action is not legal in the current state; the state is left unchanged.

    Attributes:
        phase: the decision kind that was pending (e.g. ``"play"``), or ``"finished"``.
        seat: the seat that was asked to act (0..2), or ``None`` when the match is over.
        action: the rejected action code (int) or the raw value that was given.
        legal: the legal action codes at that moment (sorted), empty when the match is over.
    """

    def __init__(self, message: str, *, phase: str, seat: int | None, action: object,
                 legal: tuple[int, ...]) -> None:
        super().__init__(message)
        self.phase = phase
        self.seat = seat
        self.action = action
        self.legal = legal
