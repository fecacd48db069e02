"""Card exchange between hands (RULES.md section 4 and section 7).

Up and down amounts come from the previous hand's points (times 2 with ``double_payment``).
Up players act one at a time in the preset's order; each card settles one exchange with one down
player still owed (the up player names which, in the same decision). Mechanisms:

- ``demand-suit``: the up player names (down seat, suit); the down player's highest card of that
  suit moves to him, then he gives back any card (the received one allowed). A void is declared
  publicly and that suit cannot be named against that down player again for the same card.
- ``pass-return-interactive`` (six-contracts): the up player gives a card; the down player
  returns his highest card of its suit counting the received card (so it comes back when he holds
  nothing higher); a given trump is answered by a card of the down player's choice.
- ``pass-return-batch`` (blato): the up player chooses all his cards first (successive
  decisions), then each is resolved in order as above, without the trump choice.
- ``exchange_optional``: the up player may answer ``stop`` at any give decision (pass-and-return)
  or demand decision (demand-suit), before his first card too; his remaining exchanges lapse
  (six-contracts, RULES.md 7). In demand-suit a demanded card is always answered by a give-back.

The functions here operate on a :class:`~arena.rules.state.MatchState` (this module is its
exchange part, kept apart to keep modules small).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .actions import DEMAND_BASE, GIVE_BASE, STOP, Decision, demand_action, give_action
from .cards import cards_of, highest_in_suit

if TYPE_CHECKING:
    from .state import MatchState


@dataclass(frozen=True, slots=True)
class ExchangeEvent:
    """One step of a card exchange, in the order it happened.

    Attributes:
        kind: ``"demand"`` (down -> up: his highest ``suit``), ``"void"`` (down declared a void
            in ``suit``), ``"give"`` (up -> down), ``"return"`` (down -> up), ``"stop"``.
        up, down: the seats involved (``down`` is None for ``stop``).
        suit: suit named (demand/void) or the moved card's suit; None when hidden from a viewer.
        card: the card moved, None when hidden from a viewer (or for void/stop).
        came_back: for ``return``: the card returned is the card just given (public).
    """

    kind: str
    up: int
    down: int | None
    suit: int | None
    card: int | None
    came_back: bool = False

    def seen_by(self, seat: int) -> ExchangeEvent:
        """The event as ``seat`` sees it: card (and for give/return the suit) hidden unless
        ``seat`` is the up or the down player."""
        if self.card is None or seat == self.up or seat == self.down:
            return self
        suit = self.suit if self.kind == "demand" else None
        return ExchangeEvent(self.kind, self.up, self.down, suit, None, self.came_back)


class ExchangeProgress:
    """Mutable progress of the exchange of one hand (public information).

    Attributes:
        queue: up seats still to act, in order. up: the acting up seat. up_left: exchanges he
        still owes. down_left: per seat, exchanges still owed to/by that down seat.
        voids: per seat, bitmask of suits declared void for the card being settled.
        give_to: demand-suit: the down seat awaiting the give-back card, else None.
        batch: pass-return-batch: ``(down, card)`` chosen so far; batch_mask: their cards.
        return_from: the down seat choosing a return (six-contracts trump), else None.
    """

    __slots__ = (
        "batch",
        "batch_mask",
        "down_left",
        "give_to",
        "queue",
        "return_from",
        "up",
        "up_left",
        "voids",
    )

    def __init__(self, queue: list[int], down_left: list[int]) -> None:
        self.queue = queue
        self.up = -1
        self.up_left = 0
        self.down_left = down_left
        self.voids = [0, 0, 0]
        self.give_to: int | None = None
        self.batch: list[tuple[int, int]] = []
        self.batch_mask = 0
        self.return_from: int | None = None

    def copy(self) -> ExchangeProgress:
        c = ExchangeProgress(self.queue[:], self.down_left[:])
        c.up, c.up_left, c.voids = self.up, self.up_left, self.voids[:]
        c.give_to, c.batch, c.batch_mask = self.give_to, self.batch[:], self.batch_mask
        c.return_from = self.return_from
        return c


def payment_multiplier(state: MatchState) -> int:
    """Cards per overtrick: 2 with double payment, else 1."""
    return 2 if state.cfg.double_payment else 1


def up_order(state: MatchState, points: tuple[int, ...]) -> list[int]:
    """Up seats (points > 0) in the order they exchange (RULES.md 5 and 7).

    ``larger-up-first``: larger up amount first, ties in play order from the new S1 ("first from
    the new dealer's left"). ``higher-target-first``: higher target this hand first, then larger
    up amount, then play order from S1.
    """
    ups = [s for s in range(3) if points[s] > 0]
    def from_s1(s: int) -> int:
        return (state.roles[s] - 1) % 3
    if state.cfg.exchange_order == "larger-up-first":
        return sorted(ups, key=lambda s: (-points[s], from_s1(s)))
    return sorted(ups, key=lambda s: (-state.targets[s], -points[s], from_s1(s)))


def begin(state: MatchState) -> bool:
    """Set up the exchange of the current hand; True when a decision is now pending.

    No exchange on the first hand, with mechanism ``none``, when nobody is up, or when the
    exchange comes after the contract and the contract is not a trump suit (the entitlement
    lapses, RULES.md 7 decision 7).
    """
    cfg = state.cfg
    prev = state.prev_points
    if cfg.exchange == "none" or prev is None:
        return False
    if cfg.exchange_timing == "after-contract" and (state.contract is None or state.contract >= 4):
        return False
    mult = payment_multiplier(state)
    queue = up_order(state, prev)
    if not queue:
        return False
    state.x = ExchangeProgress(queue, [max(0, -p) * mult for p in prev])
    _next_up(state)
    return True


def _next_up(state: MatchState) -> None:
    x = state.x
    if not x.queue:
        state.x = None
        state._next_step()
        return
    x.up = x.queue.pop(0)
    x.up_left = state.prev_points[x.up] * payment_multiplier(state)
    x.give_to = None
    x.voids = [0, 0, 0]
    state.current_seat = x.up
    if state.cfg.exchange == "demand-suit":
        state.decision = Decision.EXCHANGE_DEMAND
    else:
        state.decision = Decision.EXCHANGE_GIVE


def legal(state: MatchState) -> list[int]:
    """Legal action codes of the pending exchange decision, sorted."""
    x = state.x
    d = state.decision
    if d is Decision.EXCHANGE_DEMAND:
        demands = [demand_action(dn, s) for dn in range(3) if x.down_left[dn] > 0
                   for s in range(4) if not x.voids[dn] >> s & 1]
        return demands + [STOP] if state.cfg.exchange_optional else demands
    if d is Decision.EXCHANGE_RETURN:
        return cards_of(state.hands[x.return_from])
    if state.cfg.exchange == "demand-suit":
        return cards_of(state.hands[x.up])
    avail = cards_of(state.hands[x.up] & ~x.batch_mask)
    gives = [give_action(dn, c) for dn in range(3) if x.down_left[dn] > 0 for c in avail]
    return ([STOP] if state.cfg.exchange_optional else []) + gives


def _move(state: MatchState, frm: int, to: int, card: int) -> None:
    state.hands[frm] &= ~(1 << card)
    state.hands[to] |= 1 << card


def apply(state: MatchState, action: int) -> None:
    """Apply a legal exchange action (already checked by the caller)."""
    x = state.x
    d = state.decision
    ev = state.events
    if action == STOP:
        ev.append(ExchangeEvent("stop", x.up, None, None, None))
        x.up_left = 0
        _after_up(state)
        return
    if d is Decision.EXCHANGE_DEMAND:
        down, suit = divmod(action - DEMAND_BASE, 4)
        card = highest_in_suit(state.hands[down], suit)
        if card is None:
            x.voids[down] |= 1 << suit
            ev.append(ExchangeEvent("void", x.up, down, suit, None))
            return
        _move(state, down, x.up, card)
        ev.append(ExchangeEvent("demand", x.up, down, suit, card))
        x.give_to = down
        state.decision = Decision.EXCHANGE_GIVE
        return
    if d is Decision.EXCHANGE_RETURN:
        _return(state, x.return_from, action)
        return
    if state.cfg.exchange == "demand-suit":
        down = x.give_to
        _move(state, x.up, down, action)
        ev.append(ExchangeEvent("give", x.up, down, action // 13, action))
        x.voids = [0, 0, 0]
        x.give_to = None
        _settled(state, down)
        return
    down, card = divmod(action - GIVE_BASE, 52)
    if state.cfg.exchange == "pass-return-batch":
        x.batch.append((down, card))
        x.batch_mask |= 1 << card
        x.down_left[down] -= 1
        x.up_left -= 1
        if x.up_left == 0:
            _after_up(state)
        return
    _move(state, x.up, down, card)
    ev.append(ExchangeEvent("give", x.up, down, card // 13, card))
    if state.trump >= 0 and card // 13 == state.trump:
        x.return_from = down
        state.decision, state.current_seat = Decision.EXCHANGE_RETURN, down
        state._legal = None
        return
    _return(state, down, highest_in_suit(state.hands[down], card // 13))


def _return(state: MatchState, down: int, card: int) -> None:
    x = state.x
    given = state.events[-1].card
    _move(state, down, x.up, card)
    state.events.append(ExchangeEvent("return", x.up, down, card // 13, card, card == given))
    x.return_from = None
    state.decision, state.current_seat = Decision.EXCHANGE_GIVE, x.up
    _settled(state, down)


def _settled(state: MatchState, down: int) -> None:
    x = state.x
    x.down_left[down] -= 1
    x.up_left -= 1
    if x.up_left == 0:
        _after_up(state)
    elif state.cfg.exchange == "demand-suit":
        state.decision = Decision.EXCHANGE_DEMAND


def _after_up(state: MatchState) -> None:
    """The up player is done (or stopped): resolve a pending batch, then the next up player."""
    x = state.x
    batch, x.batch, x.batch_mask = x.batch, [], 0
    for down, card in batch:
        _move(state, x.up, down, card)
        state.events.append(ExchangeEvent("give", x.up, down, card // 13, card))
        ret = highest_in_suit(state.hands[down], card // 13)
        _move(state, down, x.up, ret)
        state.events.append(ExchangeEvent("return", x.up, down, card // 13, ret, ret == card))
    _next_up(state)
