"""What a match keeps of its past: completed tricks and hand summaries, and the order of a
hand's steps (RULES.md 7). Pure data, shared by the state machine, views and records."""

from __future__ import annotations

from typing import NamedTuple

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


def hand_steps(cfg: RulesConfig) -> list[str]:
    """The steps of a hand in order (RULES.md 7): ``exchange``, ``kitty`` (taken),
    ``contract``, ``discard``, ``play``; steps that do not apply are skipped when run."""
    if cfg.declarer_view == "kitty":
        return ["exchange", "kitty", "contract", "discard", "play"]
    if cfg.exchange_timing == "before-contract":
        return ["exchange", "contract", "kitty", "discard", "play"]
    return ["contract", "exchange", "kitty", "discard", "play"]


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
