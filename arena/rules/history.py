"""What a match keeps of its past: completed tricks and hand summaries, and the order of a
hand's steps (RULES.md 7). Pure data, shared by the state machine, views and records."""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from .actions import Decision
from .config import RulesConfig
from .deal import Deal
from .exchange import ExchangeEvent


class TrickRecord(NamedTuple):
    """A completed trick: ``leader`` seat, ``cards`` as ``(seat, card)`` in play order,
    ``winner`` seat. Immutable and hashable (a named tuple: the engine builds one per trick, and
    a tuple is four times cheaper to build than a frozen dataclass)."""

    leader: int
    cards: tuple[tuple[int, int], ...]
    winner: int


class HandStep(StrEnum):
    """A step of a hand (RULES.md 7), in the order :func:`hand_steps` gives; a step that does
    not apply (no kitty, nobody owed an exchange) is skipped when run."""

    EXCHANGE = "exchange"   #: the card exchange (its decisions: ``Decision.EXCHANGE_*``)
    KITTY = "kitty"         #: the declarer takes the kitty (no decision)
    CONTRACT = "contract"   #: the declarer names the contract
    DISCARD = "discard"     #: the declarer discards as many cards as he took
    PLAY = "play"           #: the tricks


def hand_steps(cfg: RulesConfig) -> list[HandStep]:
    """The steps of a hand in order (RULES.md 7): exchange, kitty (taken), contract,
    discard, play, the exchange and the kitty placed by ``declarer_view`` and
    ``exchange_timing``."""
    s = HandStep
    if cfg.declarer_view == "kitty":
        return [s.EXCHANGE, s.KITTY, s.CONTRACT, s.DISCARD, s.PLAY]
    if cfg.exchange_timing == "before-contract":
        return [s.EXCHANGE, s.CONTRACT, s.KITTY, s.DISCARD, s.PLAY]
    return [s.CONTRACT, s.EXCHANGE, s.KITTY, s.DISCARD, s.PLAY]


def step_of(decision: Decision) -> HandStep:
    """The hand step a pending decision belongs to."""
    if decision is Decision.PLAY:
        return HandStep.PLAY
    if decision is Decision.CONTRACT:
        return HandStep.CONTRACT
    if decision is Decision.DISCARD:
        return HandStep.DISCARD
    return HandStep.EXCHANGE


class HandSummary(NamedTuple):
    """A completed hand, kept in ``MatchState.completed_hands`` (for records and replay);
    immutable (a named tuple, like :class:`TrickRecord`).

    Per-seat tuples are indexed by seat; ``contract`` as in :class:`MatchState`; ``deal`` is
    the hand's deal (by role, dealing order; its ``kitty`` is the kitty); ``points`` the hand's
    points and ``scores`` the match scores after it.
    """

    hand_number: int
    dealer: int
    declarer: int
    roles: tuple[int, int, int]
    targets: tuple[int, int, int]
    limits: tuple[int, int, int]
    contract: int
    deal: Deal | None
    discards: tuple[int, ...]
    events: tuple[ExchangeEvent, ...]
    tricks: tuple[TrickRecord, ...]
    tricks_won: tuple[int, int, int]
    points: tuple[int, int, int]
    scores: tuple[int, int, int]
