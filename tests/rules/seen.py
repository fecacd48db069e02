"""An independent oracle of what each seat has seen, for the no-leak property tests.

:class:`SeenCards` follows a match step by step (call :meth:`SeenCards.update` after every
``apply``) and accumulates, per seat and per hand, the cards that seat has legitimately seen
(RULES.md 2.10, 4, 5, 7), from the omniscient state and the hand's deal, without the view code:

- the cards it holds, except that a ``first6`` declarer sees only the first 6 cards dealt to him
  (from the deal, not from the engine's bookkeeping) until he has chosen the contract;
- every card played to a trick;
- the kitty once taken, by the declarer who takes it, and by everybody where it is shown;
- a card moved in an exchange, by the two players who moved it (the up and the down player).

:func:`cards_named` lists every card a :class:`View` mentions, legal actions included; the
property is ``cards_named(view) <= seen``. The removed card of a 51-card deck is public.
"""

from __future__ import annotations

from arena.rules import MatchState, mask_of, parse_card
from arena.rules.actions import GIVE_BASE
from arena.rules.view import View


class SeenCards:
    """Per seat, bitmask of the cards seen so far in the current hand (see module docstring)."""

    def __init__(self, state: MatchState) -> None:
        self.hand_number = -1
        self.seen = [0, 0, 0]
        self.update(state)

    def update(self, state: MatchState) -> None:
        """Add what each seat sees in ``state`` (a new hand starts from nothing)."""
        if state.hand_number != self.hand_number:
            self.hand_number = state.hand_number
            self.seen = [0, 0, 0]
        cfg = state.cfg
        deal = state.deals[-1]
        played = mask_of(c for t in state.tricks for _, c in t.cards) | mask_of(state.trick)
        public = played
        if cfg.deck == 51:
            public |= 1 << parse_card(cfg.removed_card)
        for seat in range(3):
            own = state.hands[seat]
            if (cfg.declarer_view == "first6" and seat == state.declarer
                    and state.contract is None and not state.finished):
                own &= mask_of(deal.hands[cfg.declarer_role][:6])
            seen = own | public
            if state.kitty_taken and (cfg.kitty_shown or seat == state.declarer):
                seen |= mask_of(state.kitty)
            for e in state.events:
                if e.card is not None and seat in (e.up, e.down):
                    seen |= 1 << e.card
            self.seen[seat] |= seen


def action_card(action: int) -> int | None:
    """The card an action code names (a card code, or the card of a give), else None."""
    if 0 <= action < 52:
        return action
    if GIVE_BASE <= action < GIVE_BASE + 156:
        return (action - GIVE_BASE) % 52
    return None


def cards_named(view: View) -> int:
    """Bitmask of every card ``view`` mentions: hand, kitty, discards, tricks, exchange events
    and batch, and the cards named by its legal actions."""
    cards = set(view.hand) | set(view.kitty or ()) | set(view.discards)
    cards |= {c for _, c in view.trick}
    cards |= {c for t in view.tricks for _, c in t.cards}
    cards |= {e.card for e in view.exchange_events if e.card is not None}
    if view.exchange is not None:
        cards |= {c for _, c in view.exchange.batch}
    cards |= {c for c in map(action_card, view.legal_actions) if c is not None}
    return mask_of(cards)
