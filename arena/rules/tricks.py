"""Trick play: legal cards under the follow rules F1/F2/F3 and trick winners (RULES.md 2.2-2.3).

Pure functions over bitmasks (see :mod:`arena.rules.cards`); ``trump`` is a suit index 0..3 or
None for no trump (before the contract, no-trump and misère, where F1 always applies).
"""

from __future__ import annotations

from .cards import SUIT_MASKS

F1, F2, F3 = 0, 1, 2
FOLLOW_CODES = {"F1": F1, "F2": F2, "F3": F3}


def _above(mask: int, card: int) -> int:
    """Cards of ``mask`` with a higher int than ``card`` (same suit when ``mask`` is one suit)."""
    return (mask >> (card + 1)) << (card + 1)


def legal_play_mask(hand: int, trick: list[int], trump: int | None, follow: int) -> int:
    """Bitmask of the cards of ``hand`` that may be played to ``trick``.

    Args:
        hand: bitmask of the player's cards (non-empty).
        trick: cards already on the trick, in play order (empty when leading).
        trump: trump suit 0..3, or None.
        follow: ``F1``, ``F2`` or ``F3`` (0..2).

    Rules: follow the suit led if able; F1: otherwise any card; F2: otherwise a trump if holding
    one; F3: otherwise a trump, a higher trump than any on the trick if holding one (any card when
    unable to overtrump), and when trumps are led a follower must overtrump if able.
    """
    if not trick:
        return hand
    led = trick[0] // 13
    suit_cards = hand & SUIT_MASKS[led]
    if suit_cards:
        if follow == F3 and led == trump:  # trumps led: overtrump if able
            higher = _above(suit_cards, max(c for c in trick if c // 13 == trump))
            return higher or suit_cards
        return suit_cards
    return _unable_to_follow(hand, trick, trump, follow)


def _unable_to_follow(hand: int, trick: list[int], trump: int | None, follow: int) -> int:
    """Legal cards of ``hand`` when it holds none of the suit led (see legal_play_mask)."""
    if trump is None or follow == F1:
        return hand
    trumps = hand & SUIT_MASKS[trump]
    if not trumps:
        return hand
    if follow == F2:
        return trumps
    on_trick = [c for c in trick if c // 13 == trump]
    if not on_trick:
        return trumps
    higher = _above(trumps, max(on_trick))
    return higher if higher else hand


def trick_winner(trick: list[int], trump: int | None) -> int:
    """Index (0..len-1) in ``trick`` of the winning card: the highest trump, else the highest
    card of the suit led (RULES.md 2.2)."""
    best = 0
    best_card = trick[0]
    for i in range(1, len(trick)):
        c = trick[i]
        if c // 13 == best_card // 13:
            if c > best_card:
                best, best_card = i, c
        elif c // 13 == trump:
            best, best_card = i, c
    return best
