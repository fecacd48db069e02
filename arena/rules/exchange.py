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

The functions here work on an :class:`ExchangeProgress` and the hands' bitmasks and report
what happened (:func:`apply`: the events, appended to the hand's list, and whether the exchange
is over); the match state (:mod:`arena.rules.state`) runs the hand's next step itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from .actions import DEMAND_BASE, GIVE_BASE, STOP, Decision
from .cards import SUIT_MASKS, cards_of, highest_in_suit
from .config import RulesConfig
from .errors import RulesError


class ExchangeKind(StrEnum):
    """What one :class:`ExchangeEvent` records (section 4); the value is the text records,
    logs and the replay use."""

    DEMAND = "demand"   #: down -> up: the down player's highest card of the suit named
    VOID = "void"       #: the down player declared a void in the suit named
    GIVE = "give"       #: up -> down: a card given (or given back, demand-suit)
    RETURN = "return"   #: down -> up: the card returned for a given one (pass-and-return)
    STOP = "stop"       #: the up player stopped exchanging (``exchange_optional``)


class ExchangeEvent(NamedTuple):
    """One step of a card exchange, in the order it happened (immutable and hashable: a named
    tuple, cheap to build).

    Attributes:
        kind: an :class:`ExchangeKind`: ``DEMAND`` (down -> up: his highest ``suit``), ``VOID``
            (down declared a void in ``suit``), ``GIVE`` (up -> down), ``RETURN`` (down -> up),
            ``STOP``.
        up, down: the seats involved (``down`` is None for ``stop``).
        suit: suit named (demand/void) or the moved card's suit; None when hidden from a viewer.
        card: the card moved, None when hidden from a viewer (or for void/stop).
        came_back: for ``return``: the card returned is the card just given (public).
    """

    kind: ExchangeKind
    up: int
    down: int | None
    suit: int | None
    card: int | None
    came_back: bool = False

    def seen_by(self, seat: int) -> ExchangeEvent:
        """The event as ``seat`` sees it: card (and for give/return the suit) hidden unless
        ``seat`` is the up or the down player."""
        if self.card is None or seat in (self.up, self.down):
            return self
        suit = self.suit if self.kind is ExchangeKind.DEMAND else None
        return ExchangeEvent(self.kind, self.up, self.down, suit, None, self.came_back)

    def transfer(self) -> tuple[int, int] | None:
        """``(giver, taker)``: the seats a card went from and to (demand and return: down ->
        up; give: up -> down), whether or not the card is shown; None for a void or a stop."""
        down = self.down
        if down is None or self.kind is ExchangeKind.VOID:
            return None
        if self.kind is ExchangeKind.GIVE:
            return self.up, down
        return down, self.up


@dataclass(slots=True)
class ExchangeProgress:
    """Mutable progress of the exchange of one hand (public information but ``batch``).

    Attributes:
        mechanism: ``cfg.exchange`` (``demand-suit``, ``pass-return-interactive`` or
            ``pass-return-batch``); optional: ``cfg.exchange_optional``.
        up_amounts: per seat, the cards an up player owes (previous points times the payment
            multiplier; 0 for the others).
        queue: up seats still to act, in order. up: the acting up seat (-1 before the first).
        up_left: exchanges he still owes. down_left: per seat, exchanges still owed to/by that
        down seat.
        voids: per seat, bitmask of suits declared void for the card being settled.
        give_to: demand-suit: the down seat awaiting the give-back card, else None.
        batch: pass-return-batch: ``(down, card)`` chosen so far; batch_mask: their cards.
        return_from: the down seat choosing a return (six-contracts trump), else None;
        given: the trump card he was given (it may come back), else -1.
        decision: the pending exchange decision kind; to_act: the seat that makes it.
    """

    mechanism: str
    optional: bool
    up_amounts: tuple[int, int, int]
    queue: list[int]
    down_left: list[int]
    up: int = -1
    up_left: int = 0
    voids: list[int] = field(default_factory=lambda: [0, 0, 0])
    give_to: int | None = None
    batch: list[tuple[int, int]] = field(default_factory=list)
    batch_mask: int = 0
    return_from: int | None = None
    given: int = -1
    decision: Decision = Decision.EXCHANGE_GIVE
    to_act: int = -1

    def copy(self) -> ExchangeProgress:
        """An independent copy (lists copied)."""
        return ExchangeProgress(
            self.mechanism, self.optional, self.up_amounts, self.queue[:], self.down_left[:],
            self.up, self.up_left, self.voids[:], self.give_to, self.batch[:], self.batch_mask,
            self.return_from, self.given, self.decision, self.to_act)


def payment_multiplier(cfg: RulesConfig) -> int:
    """Cards per overtrick: 2 with double payment, else 1."""
    return 2 if cfg.double_payment else 1


def up_order(cfg: RulesConfig, points: tuple[int, ...], roles: tuple[int, ...],
             targets: tuple[int, ...]) -> list[int]:
    """Up seats (points > 0) in the order they exchange (RULES.md 5 and 7).

    ``larger-up-first``: larger up amount first, ties in play order from the new S1 ("first from
    the new dealer's left"). ``higher-target-first``: higher target this hand first, then larger
    up amount, then play order from S1. ``roles`` and ``targets`` are this hand's, per seat.
    """
    ups = [s for s in range(3) if points[s] > 0]
    if len(ups) < 2:
        return ups
    larger_first = cfg.exchange_order == "larger-up-first"
    keyed = sorted((0 if larger_first else -targets[s], -points[s], (roles[s] - 1) % 3, s)
                    for s in ups)
    return [k[3] for k in keyed]


def begin(cfg: RulesConfig, prev_points: tuple[int, int, int] | None, contract: int | None,
          roles: tuple[int, ...], targets: tuple[int, ...]) -> ExchangeProgress | None:
    """The exchange of a hand, its first decision pending; None when there is none.

    No exchange on the first hand (``prev_points`` None), with mechanism ``none``, when nobody is
    up, or when the exchange comes after the contract and the contract is not a trump suit (the
    entitlement lapses, RULES.md 7 decision 7).
    """
    if cfg.exchange == "none" or prev_points is None:
        return None
    if cfg.exchange_timing == "after-contract" and (contract is None or contract >= 4):
        return None
    queue = up_order(cfg, prev_points, roles, targets)
    if not queue:
        return None
    mult = payment_multiplier(cfg)
    a, b, c = prev_points
    progress = ExchangeProgress(
        cfg.exchange, cfg.exchange_optional,
        (max(0, a) * mult, max(0, b) * mult, max(0, c) * mult), queue,
        [max(0, -a) * mult, max(0, -b) * mult, max(0, -c) * mult])
    _next_up(progress)
    return progress


def _next_up(x: ExchangeProgress) -> bool:
    """Hand the turn to the next up player; False when none is left (the exchange is over)."""
    if not x.queue:
        return False
    x.up = x.to_act = x.queue.pop(0)
    x.up_left = x.up_amounts[x.up]
    x.give_to = None
    x.voids = [0, 0, 0]
    x.decision = (Decision.EXCHANGE_DEMAND if x.mechanism == "demand-suit"
                  else Decision.EXCHANGE_GIVE)
    return True


#: per down seat, the demand codes of the four suits (``demand_action(down, suit)``)
_DEMANDS = tuple(tuple(DEMAND_BASE + 4 * dn + s for s in range(4)) for dn in range(3))


def legal(x: ExchangeProgress, hands: list[int]) -> list[int]:
    """Legal action codes of the pending exchange decision, sorted."""
    d = x.decision
    if d is Decision.EXCHANGE_DEMAND:
        demands: list[int] = []
        down_left, voids = x.down_left, x.voids
        for dn in (0, 1, 2):
            if down_left[dn] > 0:
                void = voids[dn]
                demands += _DEMANDS[dn] if not void else [
                    code for s, code in enumerate(_DEMANDS[dn]) if not void >> s & 1]
        if x.optional:
            demands.append(STOP)
        return demands
    if d is Decision.EXCHANGE_RETURN:
        return cards_of(hands[x.to_act])
    if x.mechanism == "demand-suit":
        return cards_of(hands[x.up])
    avail = cards_of(hands[x.up] & ~x.batch_mask)
    gives = [GIVE_BASE + 52 * dn + c for dn in range(3) if x.down_left[dn] > 0 for c in avail]
    return ([STOP] if x.optional else []) + gives


def _move(hands: list[int], frm: int, to: int, card: int) -> None:
    hands[frm] &= ~(1 << card)
    hands[to] |= 1 << card


def apply(x: ExchangeProgress, hands: list[int], trump: int | None, action: int,
          events: list[ExchangeEvent]) -> bool:
    """Apply a legal exchange action (already checked by the caller) to ``x`` and the hands'
    bitmasks ``hands`` (per seat, changed in place); ``trump`` is the trump suit or None.

    The events it produces are appended to ``events`` (the hand's, in order). Returns True
    when the exchange is over for this hand, False when it goes on (``x.decision`` and
    ``x.to_act`` name the next decision).
    """
    d = x.decision
    if action == STOP:
        events.append(ExchangeEvent(ExchangeKind.STOP, x.up, None, None, None))
        x.up_left = 0
        return _after_up(x, hands, events)
    if d is Decision.EXCHANGE_DEMAND:
        _demand(x, hands, action, events)
        return False
    if d is Decision.EXCHANGE_RETURN:
        return _return(x, hands, x.to_act, action, x.given, events)
    if x.mechanism == "demand-suit":
        return _give_back(x, hands, action, events)
    return _give(x, hands, trump, action, events)


def _demand(x: ExchangeProgress, hands: list[int], action: int,
            events: list[ExchangeEvent]) -> None:
    """demand-suit: the down player hands over his highest card of the suit, or is void."""
    down, suit = divmod(action - DEMAND_BASE, 4)
    cards = hands[down] & SUIT_MASKS[suit]
    if not cards:
        x.voids[down] |= 1 << suit
        events.append(ExchangeEvent(ExchangeKind.VOID, x.up, down, suit, None))
        return
    card = cards.bit_length() - 1   # his highest of the suit
    bit = 1 << card
    hands[down] ^= bit
    hands[x.up] |= bit
    events.append(ExchangeEvent(ExchangeKind.DEMAND, x.up, down, suit, card))
    x.give_to = down
    x.decision = Decision.EXCHANGE_GIVE


def _give_back(x: ExchangeProgress, hands: list[int], card: int,
               events: list[ExchangeEvent]) -> bool:
    """demand-suit: the up player gives ``card`` back to the down player who gave him one."""
    down = x.give_to
    if down is None:
        raise RulesError("a give-back with no demanded card pending")
    bit = 1 << card
    hands[x.up] ^= bit   # a card of his (checked by the caller)
    hands[down] |= bit
    events.append(ExchangeEvent(ExchangeKind.GIVE, x.up, down, card // 13, card))
    x.voids = [0, 0, 0]
    x.give_to = None
    return _settled(x, hands, down, events)


def _give(x: ExchangeProgress, hands: list[int], trump: int | None, action: int,
          events: list[ExchangeEvent]) -> bool:
    """pass-and-return: the up player gives a card to a down player (batched in blato)."""
    down, card = divmod(action - GIVE_BASE, 52)
    if x.mechanism == "pass-return-batch":
        x.batch.append((down, card))
        x.batch_mask |= 1 << card
        x.down_left[down] -= 1
        x.up_left -= 1
        return _after_up(x, hands, events) if x.up_left == 0 else False
    _move(hands, x.up, down, card)
    events.append(ExchangeEvent(ExchangeKind.GIVE, x.up, down, card // 13, card))
    if card // 13 == trump:  # a trump: the down player chooses the return
        x.return_from = x.to_act = down
        x.given = card
        x.decision = Decision.EXCHANGE_RETURN
        return False
    ret = highest_in_suit(hands[down], card // 13)
    return _return(x, hands, down, card if ret is None else ret, card, events)


def _return(x: ExchangeProgress, hands: list[int], down: int, card: int, given: int,
            events: list[ExchangeEvent]) -> bool:
    """``down`` returns ``card`` to the up player (``given`` is the card he was given)."""
    _move(hands, down, x.up, card)
    events.append(ExchangeEvent(ExchangeKind.RETURN, x.up, down, card // 13, card,
                                card == given))
    x.return_from = None
    x.given = -1
    x.decision, x.to_act = Decision.EXCHANGE_GIVE, x.up
    return _settled(x, hands, down, events)


def _settled(x: ExchangeProgress, hands: list[int], down: int,
             events: list[ExchangeEvent]) -> bool:
    """One exchange with ``down`` is settled; True when the whole exchange is over."""
    x.down_left[down] -= 1
    x.up_left -= 1
    if x.up_left == 0:
        return _after_up(x, hands, events)
    if x.mechanism == "demand-suit":
        x.decision = Decision.EXCHANGE_DEMAND
    return False


def _after_up(x: ExchangeProgress, hands: list[int], events: list[ExchangeEvent]) -> bool:
    """The up player is done (or stopped): resolve a pending batch, then pass the turn to the
    next up player; True when there is none (the exchange is over)."""
    batch, x.batch, x.batch_mask = x.batch, [], 0
    for down, card in batch:
        _move(hands, x.up, down, card)
        events.append(ExchangeEvent(ExchangeKind.GIVE, x.up, down, card // 13, card))
        ret = highest_in_suit(hands[down], card // 13)
        if ret is None:  # cannot happen: the given card is in his hand now
            ret = card
        _move(hands, down, x.up, ret)
        events.append(ExchangeEvent(ExchangeKind.RETURN, x.up, down, card // 13, ret,
                                    ret == card))
    return not _next_up(x)
