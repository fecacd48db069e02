"""Re-simulation of a match, decision by decision, with the rules engine.

Every consumer of records (building one from a ``MatchOutcome``, verifying, the text replay and
the HTML page) walks a match the same way: :class:`Replayer` wraps a
:class:`~arena.rules.MatchState` started with explicit deals, applies one action code per
:meth:`Replayer.step` and reports what the action caused as a :class:`Step`: new exchange events,
a contract, a discard, a completed trick, and at the end of a hand the :class:`HandSummary`.

The engine starts the next hand inside the ``apply`` that completes a hand; the finished hand's
facts come from the engine's own summary (``MatchState.completed_hands``, a ``HandSummary``).
Only public ``MatchState`` attributes are read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..rules import Decision, Deal, ExchangeEvent, MatchState, RulesConfig, TrickRecord
from ..rules.cards import cards_of
from ..rules.errors import IllegalActionError
from ..rules.history import HandSummary
from ..rules.view import View, view_of


@dataclass(frozen=True, slots=True)
class Table:
    """The table right after a step (for pictures): each seat's cards (sorted ints; for a
    seat-restricted replay, hidden hands are None and only ``sizes`` count), the cards on the
    table (a just-completed trick stays shown with its ``winner``), tricks won, scores."""

    hands: tuple[tuple[int, ...] | None, ...]
    sizes: tuple[int, int, int]
    trick: tuple[tuple[int, int], ...]
    winner: int | None
    tricks_won: tuple[int, int, int]
    scores: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Step:
    """The effects of one applied decision.

    Attributes:
        index: 0-based index of the decision in the match; hand: its hand number.
        seat, kind, action: who decided, the decision kind value, the action code.
        events: exchange events the action produced (full information).
        contract: the contract index when this action chose it, else None.
        discard: the card discarded by this action, else None.
        trick: the trick this action completed (with its number, 1-based), else None.
        hand_end: the hand's facts when this action completed it, else None.
        table: the table after the action.
    """

    index: int
    hand: int
    seat: int
    kind: str
    action: int
    events: tuple[ExchangeEvent, ...]
    contract: int | None
    discard: int | None
    trick: tuple[int, TrickRecord] | None
    hand_end: HandSummary | None
    table: Table


class Replayer:
    """Walk a match from explicit deals: ``r = Replayer(cfg, seed, deals); r.step(code)``.

    Attributes:
        state: the live engine state (before the next decision; read-only for callers).
        index: decisions applied so far.
        seat: restrict :attr:`Step.table` hands to what this seat sees (None: all).
    """

    def __init__(self, cfg: RulesConfig, seed: int | str | bytes,
                 deals: Mapping[int, Deal] | None, seat: int | None = None) -> None:
        """Raises ``DealError`` when a deal for hand 1 does not fit ``cfg``."""
        self.state = MatchState.new(cfg, seed, deals)
        self.index = 0
        self.seat = seat

    @property
    def finished(self) -> bool:
        """The match is over."""
        return self.state.finished

    def view(self, seat: int) -> View:
        """``view_of(state, seat)`` now (before the next decision)."""
        return view_of(self.state, seat)

    def step(self, action: int) -> Step:
        """Apply ``action`` for the current seat and describe what it did.

        Raises:
            IllegalActionError: when the action is not legal (the state is unchanged).
            DealError: when the next hand's explicit deal does not fit the rules.
        """
        st = self.state
        seat, decision = st.current_seat, st.decision
        if seat is None or decision is None:
            raise IllegalActionError("the match is over: no action can be applied",
                                     phase="finished", seat=None, action=action, legal=())
        hand, kind = st.hand_number, decision.value
        n_events, n_tricks, n_done = len(st.events), len(st.tricks), len(st.completed_hands)
        st.apply(action)
        self.index += 1
        if len(st.completed_hands) > n_done:  # this action completed the hand
            facts = st.completed_hands[-1]
            last = facts.tricks[-1]
            hidden = tuple(None if self.seat not in (None, s) else () for s in range(3))
            table = Table(hidden, (0, 0, 0), last.cards, last.winner, facts.tricks_won,
                          facts.scores)
            return Step(self.index - 1, hand, seat, kind, action, (), None,
                        None, (len(facts.tricks), last), facts, table)
        events = tuple(st.events[n_events:])
        contract = st.contract if kind == Decision.CONTRACT.value else None
        discard = action if kind == Decision.DISCARD.value else None
        trick = (len(st.tricks), st.tricks[-1]) if len(st.tricks) > n_tricks else None
        return Step(self.index - 1, hand, seat, kind, action, events, contract, discard, trick,
                    None, self._table(trick[1] if trick else None))

    def _table(self, done: TrickRecord | None) -> Table:
        st = self.state
        first, second, third = (bin(h).count("1") for h in st.hands)
        sizes = (first, second, third)
        hands: tuple[tuple[int, ...] | None, ...]
        if self.seat is None:
            hands = tuple(tuple(cards_of(h)) for h in st.hands)
        else:
            own: tuple[int, ...] = tuple(view_of(self.state, self.seat).hand)
            hands = tuple(own if s == self.seat else None for s in range(3))
        if done is not None:
            trick, winner = done.cards, done.winner
        else:
            trick, winner = tuple(zip(st.trick_seats, st.trick, strict=False)), None
        won, scores = st.tricks_won, st.scores
        return Table(hands, sizes, trick, winner, (won[0], won[1], won[2]),
                     (scores[0], scores[1], scores[2]))


def deal_by_seat(deal: Deal, roles: tuple[int, int, int]
                 ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """A deal's hands re-indexed by seat (``roles[seat]`` is the seat's role)."""
    return deal.hands[roles[0]], deal.hands[roles[1]], deal.hands[roles[2]]


def deal_from_seats(dealt: Sequence[Sequence[int]], roles: tuple[int, int, int],
                    kitty: Sequence[int]) -> Deal:
    """Inverse of :func:`deal_by_seat`: a :class:`Deal` (by role) from hands by seat."""
    by_role: list[tuple[int, ...]] = [(), (), ()]
    for s in range(3):
        by_role[roles[s]] = tuple(dealt[s])
    return Deal((by_role[0], by_role[1], by_role[2]), tuple(kitty))
