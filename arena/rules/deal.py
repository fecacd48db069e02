"""Dealing: seeded shuffles and the canonical deal patterns of RULES.md section 6.

A :class:`Deal` holds each role's cards in the order dealt (so the six-contracts declarer's
"first 6 cards" are the first six of his tuple) and the kitty (talon). Seeds are turned into a
deck order with SHAKE-256 (never Python's ``hash()`` or ``random``), so a deal is stable across
Python versions; records still store the dealt cards themselves.
"""

from __future__ import annotations

import hashlib
import operator
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .cards import NUM_CARDS, format_cards, parse_card, parse_cards
from .config import RulesConfig
from .errors import DealError, SeedError

ROLE_NAMES = ("S0", "S1", "S2")


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one hand before any exchange.

    Attributes:
        hands: cards per role ``(S0, S1, S2)`` (S0 = dealer), each in dealing order.
        kitty: the kitty/talon cards (empty with a 51-card deck).
    """

    hands: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
    kitty: tuple[int, ...]

    def check(self, cfg: RulesConfig) -> None:
        """Check the deal fits ``cfg``: hand and kitty sizes, no duplicate, no removed card.

        Raises:
            DealError: naming the first problem found.
        """
        per_hand = cfg.tricks_per_hand
        if len(self.hands) != 3:
            raise DealError(f"a deal has 3 hands, got {len(self.hands)}")
        for role, hand in enumerate(self.hands):
            if len(hand) != per_hand:
                raise DealError(f"hand of {ROLE_NAMES[role]} has {len(hand)} cards, "
                                f"expected {per_hand}")
        if len(self.kitty) != cfg.kitty_size:
            raise DealError(f"kitty has {len(self.kitty)} cards, expected {cfg.kitty_size}")
        cards = [c for h in self.hands for c in h] + list(self.kitty)
        if any(not isinstance(c, int) or not 0 <= c < NUM_CARDS for c in cards):
            raise DealError("a deal holds something that is not a card int 0..51")
        if len(set(cards)) != len(cards):
            raise DealError("a card is dealt twice")
        if cfg.deck == 51 and parse_card(cfg.removed_card) in cards:
            raise DealError(f"{cfg.removed_card} is removed from the 51-card deck but was dealt")

    @classmethod
    def parse(cls, s0: str, s1: str, s2: str, kitty: str = "") -> Deal:
        """Explicit deal from card strings per role, e.g. ``Deal.parse("AS KS ...", ...)``.

        Raises:
            CardParseError: when a token is not a card.
        """
        return cls((tuple(parse_cards(s0)), tuple(parse_cards(s1)), tuple(parse_cards(s2))),
                   tuple(parse_cards(kitty)))

    def __str__(self) -> str:
        parts = [f"{ROLE_NAMES[r]}: {format_cards(h)}" for r, h in enumerate(self.hands)]
        return "; ".join([*parts, f"kitty: {format_cards(self.kitty)}"])


def check_seed(seed: object) -> None:
    """Check that ``seed`` is a match seed: an ``int`` (not ``bool``), ``str`` or ``bytes``.

    Raises:
        SeedError: for anything else (``None``, ``True``, ``1.5``, a list ...).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, str, bytes)):
        raise SeedError(f"a seed is an int, str or bytes, got {type(seed).__name__} {seed!r}")


def seed_bytes(seed: int | str | bytes) -> bytes:
    """Canonical bytes of a match seed (int, str or bytes).

    Raises:
        SeedError: when ``seed`` is of another type (see :func:`check_seed`).
    """
    if isinstance(seed, bytes):
        return seed
    if isinstance(seed, str):
        return b"s" + seed.encode("utf-8", "surrogatepass")
    check_seed(seed)
    return b"i" + str(seed).encode()


def derive_seed(*parts: int | str | bytes) -> bytes:
    """SHA-256 of the parts (each canonicalised): seeds for tables, deals, fallbacks.

    Raises:
        SeedError: when a part is not an int, str or bytes.
    """
    return _absorb(hashlib.sha256(), parts).digest()


def _absorb(h: hashlib._Hash, parts: tuple[int | str | bytes, ...]) -> hashlib._Hash:
    """``h`` updated with each part, length-prefixed (``derive_seed``'s encoding)."""
    for p in parts:
        b = seed_bytes(p)
        h.update(len(b).to_bytes(4, "big") + b)
    return h


class SeededDeals:
    """The canonical deals of one match seed: :func:`seeded_deal` for each hand, with the
    seed's share of the hashing done once (a match deals every hand from one seed).

    Raises:
        SeedError: when ``seed`` is not an int, str or bytes.
    """

    __slots__ = ("_base",)

    def __init__(self, seed: int | str | bytes) -> None:
        self._base = _absorb(hashlib.sha256(), (b"deal/v1", seed))

    def deck(self, cfg: RulesConfig, hand_number: int) -> list[int]:
        """Deck order of hand ``hand_number`` (an int >= 1): :func:`shuffled_deck`."""
        h = self._base.copy()
        part = b"i%d" % hand_number   # seed_bytes of an int, without its type checks
        h.update(len(part).to_bytes(4, "big") + part)
        return _shuffle(cfg, h.digest())

    def deal(self, cfg: RulesConfig, hand_number: int) -> Deal:
        """The deal of hand ``hand_number`` (1-based): :func:`seeded_deal`."""
        return deal_from_deck(cfg, self.deck(cfg, hand_number))


def shuffled_deck(cfg: RulesConfig, seed: int | str | bytes, hand_number: int) -> list[int]:
    """Deck order of hand ``hand_number`` (1-based) of the match seeded ``seed``.

    Fisher-Yates driven by a SHAKE-256 stream of ``derive_seed(b"deal/v1", seed,
    hand_number)``: 64-bit draws, so the modulo bias is below 2**-58.
    """
    return _shuffle(cfg, derive_seed(b"deal/v1", seed, hand_number))


def _shuffle(cfg: RulesConfig, digest: bytes) -> list[int]:
    """The deck (less a 51-card deck's removed card) shuffled by the SHAKE-256 stream of
    ``digest``."""
    deck = list(range(NUM_CARDS))
    if cfg.deck == 51:
        deck.remove(parse_card(cfg.removed_card))
    n = len(deck)
    stream = hashlib.shake_256(digest).digest(8 * n)
    draws = struct.unpack(f">{n}Q", stream)  # draw i is bytes 8i..8i+8, big-endian
    swap = list(map(operator.mod, draws, range(1, n + 1)))  # position i swaps with swap[i]
    for i in range(n - 1, 0, -1):
        j = swap[i]
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal_from_deck(cfg: RulesConfig, deck: list[int]) -> Deal:
    """Split a deck order (positions 1..N) into a :class:`Deal` by ``cfg.deal_pattern``.

    Patterns (RULES.md section 6; receivers in play order S1, S2, S0):
    ``packets``: 4 rounds of 4 cards to each, the rest is the kitty;
    ``singles``: one card at a time, the rest is the kitty;
    ``blato``: 4 rounds of [4 to S1, 4 to S2, 4 to S0, 1 to the talon].
    """
    key = (cfg.deal_pattern, cfg.tricks_per_hand, len(deck))
    picks = _PICKS.get(key)
    if picks is None:  # which deck positions go where: the pattern run on the positions
        where = _split(cfg, list(range(len(deck))))
        picks = _PICKS[key] = tuple(_picker(p) for p in (*where.hands, where.kitty))
    s0, s1, s2, kitty = picks
    return Deal((s0(deck), s1(deck), s2(deck)), kitty(deck))


#: per (pattern, tricks per hand, deck size), what takes each role's cards and the kitty's
#: from a deck order, in dealing order
_PICKS: dict[tuple[str, int, int], tuple[Callable[[Sequence[int]], tuple[int, ...]], ...]] = {}


def _picker(positions: tuple[int, ...]) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """A function taking the items at ``positions`` of a sequence, as a tuple."""
    if len(positions) > 1:
        return operator.itemgetter(*positions)
    return lambda deck: tuple(deck[p] for p in positions)


def _split(cfg: RulesConfig, deck: list[int]) -> Deal:
    """The patterns of :func:`deal_from_deck`, written out (run once per pattern, on the
    deck positions)."""
    hands: list[list[int]] = [[], [], []]
    order = (1, 2, 0)
    kitty: list[int] = []
    n = cfg.tricks_per_hand
    if cfg.deal_pattern == "packets":
        pos = 0
        for _ in range(n // 4):
            for role in order:
                hands[role].extend(deck[pos:pos + 4])
                pos += 4
        kitty = deck[pos:]
    elif cfg.deal_pattern == "singles":
        for i in range(3 * n):
            hands[order[i % 3]].append(deck[i])
        kitty = deck[3 * n:]
    else:
        pos = 0
        for _ in range(4):
            for role in order:
                hands[role].extend(deck[pos:pos + 4])
                pos += 4
            kitty.append(deck[pos])
            pos += 1
    return Deal((tuple(hands[0]), tuple(hands[1]), tuple(hands[2])), tuple(kitty))


def seeded_deal(cfg: RulesConfig, seed: int | str | bytes, hand_number: int) -> Deal:
    """The canonical deal of hand ``hand_number`` (1-based) for match seed ``seed``."""
    return deal_from_deck(cfg, shuffled_deck(cfg, seed, hand_number))
