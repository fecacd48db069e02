"""What one seat may know: :class:`View` and :func:`view_of` (the engine's information sets).

A view holds everything public plus the seat's own private information, and nothing else:
own hand (for a six-contracts declarer choosing the contract: only his first 6 dealt cards),
roles/targets/limits, the contract, every played card, public exchange events (names of suits
demanded, voids, stops, whether a card came back) with the cards shown only to the two players
who exchanged them, the kitty only where the preset shows it (or to the declarer who took it),
the seat's own discards, scores and contracts used. The match seed is never in a view (it would
reveal every deal).
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Decision
from .cards import cards_of
from .config import RulesConfig
from .contracts import CONTRACTS_IN
from .exchange import ExchangeEvent
from .history import TrickRecord
from .state import MatchState


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
        out: list[int] = []
        for e in self.exchange_events:
            if e.card is None:
                continue
            giver = e.down if e.kind in ("demand", "return") else e.up
            if giver == self.seat and e.kind != "void":
                out.append(e.card)
        return out

    def cards_received(self) -> list[int]:
        """Cards this seat received in this hand's exchange, in order."""
        out: list[int] = []
        for e in self.exchange_events:
            if e.card is None:
                continue
            taker = e.up if e.kind in ("demand", "return") else e.down
            if taker == self.seat:
                out.append(e.card)
        return out


def kitty_visible(state: MatchState, seat: int) -> bool:
    """Whether ``seat`` sees the kitty now: once taken, where the preset shows it, and always
    to the declarer who took it."""
    if not state.cfg.kitty_size or not state.kitty_taken:
        return False
    return state.cfg.kitty_shown or seat == state.declarer


def exchange_status(state: MatchState, seat: int) -> ExchangeStatus | None:
    """``seat``'s view of the exchange in progress (the batch only to the up player), or None."""
    progress = state.exchange
    if progress is None:
        return None
    down_left, voids = progress.down_left, progress.voids
    return ExchangeStatus(
        up=progress.up, up_left=progress.up_left, queue=tuple(progress.queue),
        down_left=(down_left[0], down_left[1], down_left[2]),
        voids=(voids[0], voids[1], voids[2]), give_to=progress.give_to,
        return_from=progress.return_from,
        batch=tuple(progress.batch) if seat == progress.up else (),
        batch_count=len(progress.batch))


def visible_discards(state: MatchState, seat: int) -> tuple[int, ...]:
    """The discards ``seat`` sees: all of them for the declarer who made them, else none."""
    return tuple(state.discards) if seat == state.declarer else ()


def visible_hand(state: MatchState, seat: int) -> tuple[int, int]:
    """(bitmask of the cards ``seat`` sees in its own hand, number of its cards not yet seen):
    a six-contracts declarer choosing the contract sees only his first 6 dealt cards."""
    hand = state.hands[seat]
    if (state.cfg.declarer_view == "first6" and seat == state.declarer
            and state.contract is None and not state.finished):
        return hand & state.first6, (hand & ~state.first6).bit_count()
    return hand, 0


def view_of(state: MatchState, seat: int) -> View:
    """Build ``seat``'s view of ``state``: the only way a seat's knowledge leaves the engine.

    Raises:
        ValueError: when ``seat`` is not 0, 1 or 2.
    """
    if type(seat) is not int or seat not in (0, 1, 2):
        raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
    hands = state.hands
    hand, hidden = visible_hand(state, seat)
    finished = state.finished
    won, scores, used = state.tricks_won, state.scores, state.contracts_used
    return View(
        cfg=state.cfg, seat=seat, hand_number=state.hand_number, dealer=state.dealer,
        declarer=state.declarer, roles=state.roles, targets=state.targets, limits=state.limits,
        contract=state.contract, trump=state.trump if state.trump >= 0 else None,
        decision=None if finished else state.decision,
        to_act=None if finished else state.current_seat,
        legal_actions=tuple(state.legal_actions()) if state.current_seat == seat and not finished
        else (),
        hand=tuple(cards_of(hand)),
        hand_sizes=(hands[0].bit_count(), hands[1].bit_count(), hands[2].bit_count()),
        hidden_own=hidden,
        kitty=tuple(state.kitty) if kitty_visible(state, seat) else None,
        kitty_taken=state.kitty_taken,
        discards=visible_discards(state, seat),
        discard_count=len(state.discards),
        trick=tuple(zip(state.trick_seats, state.trick, strict=True)),
        leader=state.leader, tricks=tuple(state.tricks), tricks_won=(won[0], won[1], won[2]),
        exchange_events=tuple([e.seen_by(seat) for e in state.events]),
        exchange=exchange_status(state, seat),
        prev_points=state.prev_points, scores=(scores[0], scores[1], scores[2]),
        hand_points=tuple(state.hand_points),
        contracts_used=(CONTRACTS_IN[used[0]], CONTRACTS_IN[used[1]], CONTRACTS_IN[used[2]]),
        finished=finished, placings=state.placings,
    )
