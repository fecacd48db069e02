"""GreedyBot: deterministic rule-of-thumb play for every decision kind and every preset.

Contract, discards and exchanges come from :mod:`sample_bots._heuristics` (tips of rule texts
000/003/001); trick play is here:

- misère: never win a trick when avoidable, shed the highest card that still loses;
- a seat short of its target (RULES.md 2.6) wins cheaply: the lowest winning card when it plays
  last, a sure winner (a master) when it plays second, otherwise it plays low;
- a seat that has reached its target avoids surplus tricks (000/003 tip for the third player:
  "avoid winning tricks you don't need") and plays its lowest card that loses (switch this off
  with ``GreedyBot(avoid_surplus=False)`` / ``--take-surplus``: it scores better, see the class);
- leads: draw trumps when holding most of them, cash masters, else lead low from a short suit
  (000/003 tip for the eldest: "lead a low card in a suit you don't need").

Run against an arena: ``ARENA_TOKEN=T python -m sample_bots.greedy_bot --arena HOST:PORT``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from arena.rules.actions import MISERE, Decision
from arena.rules.cards import SUIT_MASKS
from arena.rules.tricks import trick_winner
from arena.rules.view import View
from arena.sdk import Player, run

from . import _heuristics as h


class GreedyBot(Player):
    """Deterministic heuristic bot: ``decide(view)`` returns ``ranked_actions(view)[0]``.

    Args:
        avoid_surplus: once at its target, duck tricks (the 000/003 tip; default). Under the
            scoring of RULES.md 2.6 every trick is worth +1 to its winner, so ``False`` (keep
            taking tricks cheaply) scores better; the tip is kept as the default on purpose.
    """

    name = "greedy"
    version = "1.0"

    def __init__(self, avoid_surplus: bool = True) -> None:
        self.avoid_surplus = avoid_surplus

    def decide(self, view: View) -> int:
        """The best action by the heuristics (always one of ``view.legal_actions``)."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        choice = ranked_actions(view, self.avoid_surplus)[0]
        return choice if choice in legal else legal[0]


def _rank_gives(view: View) -> list[int]:
    """Cards to give, best first: a give-back after a demand, or a pass-return give."""
    if view.cfg.exchange == "demand-suit":
        return h.rank_give_backs(view)
    return h.rank_pass_gives(view)


def _rank_discards(view: View) -> list[int]:
    return h.rank_by_keep(list(view.legal_actions), view.contract, view.hand)


#: the ranking of each decision but PLAY (contract, discard, card exchange)
_RANKERS: dict[Decision, Callable[[View], list[int]]] = {
    Decision.CONTRACT: h.rank_contracts,
    Decision.DISCARD: _rank_discards,
    Decision.EXCHANGE_DEMAND: h.rank_demands,
    Decision.EXCHANGE_GIVE: _rank_gives,
    Decision.EXCHANGE_RETURN: h.rank_returns,
}


def ranked_actions(view: View, avoid_surplus: bool = True) -> list[int]:
    """Legal actions of the pending decision, best first (for play decisions only the chosen
    card is ranked first; the rest follow in card order)."""
    rank = _RANKERS.get(view.decision) if view.decision is not None else None
    if rank is not None:
        return rank(view)
    card = choose_play(view, avoid_surplus)
    return [card] + [a for a in view.legal_actions if a != card]


# ----- trick play ------------------------------------------------------------------------------
def beats(card: int, best: int, trump: int | None) -> bool:
    """Whether ``card`` played now beats ``best``, the card currently winning the trick
    (RULES.md 2.2: highest trump, else highest card of the suit led)."""
    if card // 13 == best // 13:
        return card > best
    return trump is not None and card // 13 == trump


def _cheapest(cards: list[int], trump: int | None) -> int:
    """Lowest card, plain suits before trumps."""
    return min(cards, key=lambda c: (c // 13 == trump, c % 13, c))


def _lowest(cards: list[int], view: View) -> int:
    """The card least worth keeping (low, short suit, not a trump or an ace)."""
    return h.rank_by_keep(cards, view.contract, view.hand)[0]


def _highest(cards: list[int]) -> int:
    """Highest-ranked card (ties: the later suit)."""
    return max(cards, key=lambda c: (c % 13, c))


def choose_play(view: View, avoid_surplus: bool = True) -> int:
    """The card to play (view.decision is PLAY); ``avoid_surplus``: see :class:`GreedyBot`."""
    legal = list(view.legal_actions)
    if view.contract == MISERE:
        return _play_misere(view, legal)
    me = view.seat
    need = view.targets[me] - view.tricks_won[me] if avoid_surplus else 1
    if not view.trick:
        return _lead(view, legal, need > 0)
    trick = [c for _, c in view.trick]
    best = trick[trick_winner(trick, view.trump)]
    winners = [c for c in legal if beats(c, best, view.trump)]
    losers = [c for c in legal if c not in winners]
    last = len(trick) == 2
    if need > 0 and winners:
        if last:
            return _cheapest(winners, view.trump)
        unseen = h.unseen_mask(view)
        safe = [c for c in winners if _safe_second(c, view, unseen)]
        if safe:
            return _cheapest(safe, view.trump)
    if losers:
        return _lowest(losers, view)
    return _cheapest(winners, view.trump)


def _safe_second(card: int, view: View, unseen: int) -> bool:
    """Playing second, ``card`` wins the trick unless the last player beats it: true when it is
    a master of its suit and (for a plain card) no ruff is likely."""
    if not h.is_master(card, unseen):
        return False
    trump = view.trump
    if trump is None or card // 13 == trump:
        return True
    return not unseen & SUIT_MASKS[trump] or h.count_bits(unseen & SUIT_MASKS[card // 13]) >= 3


def _lead(view: View, legal: list[int], want: bool) -> int:
    """Lead a card: cash winners when tricks are needed, else lead low into higher cards."""
    unseen = h.unseen_mask(view)
    trump = view.trump
    plain = [c for c in legal if c // 13 != trump]
    if not want:
        underdogs = [c for c in plain if not h.is_master(c, unseen)]
        return min(underdogs or plain or legal, key=lambda c: (c % 13, c))
    if trump is not None:
        mine = [c for c in legal if c // 13 == trump]
        theirs = h.count_bits(unseen & SUIT_MASKS[trump])
        if mine and theirs and len(mine) >= theirs:
            top = max(mine)
            return top if h.is_master(top, unseen) else min(mine)
    no_ruff = trump is None or not unseen & SUIT_MASKS[trump]
    masters = [c for c in plain if h.is_master(c, unseen)
               and (no_ruff or h.count_bits(unseen & SUIT_MASKS[c // 13]) >= 3)]
    if masters:
        return max(masters, key=lambda c: (h.count_bits(unseen & SUIT_MASKS[c // 13]), c))
    if plain:
        return _lowest(plain, view)
    return max(legal) if h.is_master(max(legal), unseen) else min(legal)


def _play_misere(view: View, legal: list[int]) -> int:
    """Misère (RULES.md 2.6, points = limit - tricks): lose every trick you can, shedding the
    highest card that still loses; lead the lowest card that others can overtake."""
    unseen = h.unseen_mask(view)
    if not view.trick:
        under = [c for c in legal if not h.is_master(c, unseen)]
        return min(under or legal, key=lambda c: (c % 13, -h.count_bits(
            unseen & SUIT_MASKS[c // 13]), c))
    trick = [c for _, c in view.trick]
    best = trick[trick_winner(trick, -1)]
    losers = [c for c in legal if not beats(c, best, None)]
    if losers:
        return _highest(losers)
    return _highest(legal) if len(trick) == 2 else min(legal)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry: ``--take-surplus`` (``avoid_surplus=False``) plus the SDK's
    ``--arena``, ``--token`` and ``--name``, passed on to ``arena.sdk.run``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--take-surplus", action="store_true",
                        help="keep taking tricks after reaching the target")
    args, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    run(GreedyBot(avoid_surplus=not args.take_surplus), rest)


if __name__ == "__main__":
    main()
