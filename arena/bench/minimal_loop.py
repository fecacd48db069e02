"""The engine benchmark's baseline: the least work a Python trick-play loop can do.

Random legal play of whole sergeant-major-sized hands (48 cards to 3 seats, 16 tricks, follow
suit, a random trump) with cards as ints 0..51 and hands as bitmasks; no exchange, no kitty, no
legality checks beyond following suit, no history (the project's reference loop,
``shared/bench/minimal_loop.py``, unchanged but for types). ``arena bench engine`` runs it in
the same process as the engine and prints the ratio of hands/s.
"""

from __future__ import annotations

import random

SUIT_MASK = [((1 << 13) - 1) << (13 * s) for s in range(4)]


def cards_of(mask: int) -> list[int]:
    """Card ints of a bitmask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def deal(rng: random.Random) -> list[int]:
    """Three 16-card hands (bitmasks) from a shuffled 52-card deck."""
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [0, 0, 0]
    for i, c in enumerate(deck[:48]):
        hands[i % 3] |= 1 << c
    return hands


def play_hand(rng: random.Random) -> list[int]:
    """Play one hand at random (following suit); returns the tricks won per seat."""
    hands = deal(rng)
    trump = rng.randrange(4)
    leader, tricks = 1, [0, 0, 0]
    for _ in range(16):
        played: list[tuple[int, int]] = []
        seat, led = leader, -1
        for _ in range(3):
            legal = hands[seat]
            if led >= 0 and legal & SUIT_MASK[led]:
                legal &= SUIT_MASK[led]
            card = rng.choice(cards_of(legal))
            hands[seat] &= ~(1 << card)
            if led < 0:
                led = card // 13
            played.append((seat, card))
            seat = (seat + 1) % 3
        best = max(played, key=lambda sc: (2 if sc[1] // 13 == trump else
                                           1 if sc[1] // 13 == led else 0, sc[1] % 13))
        leader = best[0]
        tricks[leader] += 1
    return tricks
