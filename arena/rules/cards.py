"""Cards as small ints, suits and ranks, with round-tripping text (RULES.md section 1).

A card is an ``int`` in ``0..51``: ``suit * 13 + rank`` where suits are ordered
``S H D C`` (0..3) and ranks ``2 3 4 5 6 7 8 9 10 J Q K A`` (0..12), so a higher rank index is
a stronger card within its suit. Sorting card ints groups a hand by suit, low to high.
Sets of cards are often held as bitmasks (bit ``c`` set = card ``c`` present).
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import CardParseError

SUITS = "SHDC"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
NUM_CARDS = 52
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)

#: bitmask of all 13 cards of each suit, indexed by suit.
SUIT_MASKS = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
FULL_DECK_MASK = (1 << NUM_CARDS) - 1

_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)} | {"T": 8, "1": 12}
_CARD_STR = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(NUM_CARDS))


def make_card(rank: int, suit: int) -> int:
    """Card int from ``rank`` (0 = 2 .. 12 = ace) and ``suit`` (0..3 = S H D C).

    Raises:
        CardParseError: when either index is out of range.
    """
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise CardParseError(f"no card with rank index {rank} and suit index {suit}")
    return suit * 13 + rank


def suit_of(card: int) -> int:
    """Suit index 0..3 (S H D C) of a card int."""
    return card // 13


def rank_of(card: int) -> int:
    """Rank index 0..12 (2 .. ace) of a card int."""
    return card % 13


def card_str(card: int) -> str:
    """Text of a card: ``"10H"``, ``"AS"``, ``"2C"``. Inverse of :func:`parse_card`."""
    return _CARD_STR[card]


def parse_card(text: str) -> int:
    """Parse ``"10H"``, ``"AS"``, ``"2c"`` or ``"TH"`` (case-insensitive) into a card int.

    Raises:
        CardParseError: when the text is not a card (or not a ``str``).
    """
    if not isinstance(text, str):
        raise CardParseError(f"not a card: {text!r} (a card text is a str such as '10H')")
    t = text.strip().upper()
    if len(t) < 2 or t[-1] not in SUITS or t[:-1] not in _RANK_ALIASES:
        raise CardParseError(
            f"not a card: {text!r} (expected rank 2-10/J/Q/K/A + suit S/H/D/C, e.g. '10H')")
    return make_card(_RANK_ALIASES[t[:-1]], SUITS.index(t[-1]))


def parse_suit(text: str) -> int:
    """Parse a suit letter or name (``"H"``, ``"hearts"``) into 0..3.

    Raises:
        CardParseError: when the text is not a suit (or not a ``str``).
    """
    if not isinstance(text, str):
        raise CardParseError(f"not a suit: {text!r} (expected one of S, H, D, C)")
    t = text.strip().lower()
    for i, (letter, name) in enumerate(zip(SUITS, SUIT_NAMES, strict=True)):
        if t in (letter.lower(), name):
            return i
    raise CardParseError(f"not a suit: {text!r} (expected one of S, H, D, C)")


def mask_of(cards: Iterable[int]) -> int:
    """Bitmask of a collection of card ints."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


#: per suit, indexed by a 13-bit rank mask: the cards of that suit it holds, ascending. Empty
#: until the first look-up fills the four tables at once (4 x 8192 short tuples, about 3.5 MB,
#: some 10 ms: on first use, not at import); a look-up before that raises IndexError, which
#: :func:`cards_of`, :func:`suit_cards` and the engine's play path answer by filling them.
CARDS_IN_SUIT: tuple[list[tuple[int, ...]], ...] = ([], [], [], [])
_S, _H, _D, _C = CARDS_IN_SUIT


def _fill_suit_tables() -> None:
    for s, table in enumerate(CARDS_IN_SUIT):
        full: list[tuple[int, ...]] = [()] * 8192
        base = 13 * s
        for m in range(1, 8192):   # each entry from the one without its lowest card
            low = m & -m
            full[m] = (base + low.bit_length() - 1, *full[m ^ low])
        table[:] = full


def suit_cards(suit: int, ranks: int) -> tuple[int, ...]:
    """The cards of ``suit`` (0..3) whose ranks are set in the 13-bit mask ``ranks``,
    ascending (from :data:`CARDS_IN_SUIT`)."""
    try:
        return CARDS_IN_SUIT[suit][ranks]
    except IndexError:
        _fill_suit_tables()
        return CARDS_IN_SUIT[suit][ranks]


def cards_of(mask: int) -> list[int]:
    """Card ints in a bitmask of the 52 cards, ascending (by suit S H D C, then rank low to
    high); a new list.

    Suit by suit through a table of rank masks (about twice as fast as bit by bit: this is the
    engine's hottest function, it lists every legal set)."""
    try:
        return [*_S[mask & 0x1FFF], *_H[mask >> 13 & 0x1FFF], *_D[mask >> 26 & 0x1FFF],
                *_C[mask >> 39 & 0x1FFF]]
    except IndexError:
        _fill_suit_tables()
        return cards_of(mask)


def highest_in_suit(mask: int, suit: int) -> int | None:
    """Highest card of ``suit`` in the bitmask ``mask``, or ``None`` when void."""
    m = mask & SUIT_MASKS[suit]
    return m.bit_length() - 1 if m else None


def format_cards(cards: Iterable[int]) -> str:
    """Space-separated text of cards, e.g. ``"2S 10H AC"``."""
    return " ".join(_CARD_STR[c] for c in cards)


def parse_cards(text: str) -> list[int]:
    """Parse space/comma separated cards (``"AS 10H, 2C"``).

    Raises:
        CardParseError: when any token is not a card (or ``text`` is not a ``str``).
    """
    if not isinstance(text, str):
        raise CardParseError(f"not a list of cards: {text!r} (expected a str such as 'AS 10H')")
    return [parse_card(t) for t in text.replace(",", " ").split()]
