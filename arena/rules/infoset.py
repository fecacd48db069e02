"""The types of what one seat may know: :class:`View` (the engine's information set, OpenSpiel's
term) and the public :class:`ExchangeStatus` in it.

Pure data: :func:`arena.rules.view.view_of` builds a view from the match state, and
:meth:`arena.rules.state.MatchState.from_view` builds a state back from one (with the hidden
cards drawn); both import these types, which import neither.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Decision
from .config import RulesConfig
from .exchange import ExchangeEvent
from .history import TrickRecord


@dataclass(frozen=True, slots=True)
class ExchangeStatus:
    """Public progress of the current exchange (see ``exchange.ExchangeProgress``).

    ``batch`` lists the ``(down, card)`` choices of a pass-return batch only to the up player
    (empty for the others; ``batch_count`` is public).
    """

    up: int
    up_left: int
    queue: tuple[int, ...]
    down_left: tuple[int, int, int]
    voids: tuple[int, int, int]
    give_to: int | None
    return_from: int | None
    batch: tuple[tuple[int, int], ...]
    batch_count: int


@dataclass(frozen=True, slots=True)
class View:
    """One seat's view of a match (see the module docstring). Seats are 0..2; per-seat tuples
    are indexed by seat; cards are ints (``arena.rules.cards``)."""

    cfg: RulesConfig
    seat: int
    hand_number: int                      #: 1-based
    dealer: int
    declarer: int
    roles: tuple[int, int, int]           #: role per seat: 0 = S0 (dealer), 1 = S1, 2 = S2
    targets: tuple[int, int, int]
    limits: tuple[int, int, int]          #: misère limits per seat
    contract: int | None                  #: 0..3 trump suit, 4 no-trump, 5 misère
    trump: int | None
    decision: Decision | None             #: pending decision kind, None when finished
    to_act: int | None
    legal_actions: tuple[int, ...]        #: only when ``to_act == seat``, else ()
    hand: tuple[int, ...]                 #: own cards, sorted (visible ones only)
    hand_sizes: tuple[int, int, int]
    hidden_own: int                       #: own cards not yet seen (first6 declarer)
    kitty: tuple[int, ...] | None         #: None when not visible to this seat
    kitty_taken: bool
    discards: tuple[int, ...]             #: own discards (declarer), else ()
    discard_count: int
    trick: tuple[tuple[int, int], ...]    #: (seat, card) on the current trick
    leader: int | None
    tricks: tuple[TrickRecord, ...]
    tricks_won: tuple[int, int, int]
    exchange_events: tuple[ExchangeEvent, ...]
    exchange: ExchangeStatus | None
    prev_points: tuple[int, int, int] | None  #: last hand's points (up > 0, down < 0)
    scores: tuple[int, int, int]
    hand_points: tuple[tuple[int, int, int], ...]
    contracts_used: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
    finished: bool
    placings: tuple[int, int, int] | None

    @property
    def tricks_per_hand(self) -> int:
        """Tricks in a hand (16, or 17 with 51 cards)."""
        return self.cfg.tricks_per_hand

    def cards_given(self) -> list[int]:
        """Cards this seat handed over in this hand's exchange, in order."""
        return self._cards_moved(0)

    def cards_received(self) -> list[int]:
        """Cards this seat received in this hand's exchange, in order."""
        return self._cards_moved(1)

    def _cards_moved(self, side: int) -> list[int]:
        """The shown cards this seat gave (``side`` 0) or took (1), in order."""
        out: list[int] = []
        for e in self.exchange_events:
            moved = e.transfer()
            if e.card is not None and moved is not None and moved[side] == self.seat:
                out.append(e.card)
        return out
