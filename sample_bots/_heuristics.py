"""Rule-of-thumb evaluations shared by the sample bots (cards are ints, see ``arena.rules.cards``).

Every ``rank_*`` function takes a :class:`~arena.rules.view.View` whose pending decision is of the
matching kind and returns that decision's legal action codes ordered best first, so
:class:`~sample_bots.greedy_bot.GreedyBot` plays the first and
:class:`~sample_bots.montecarlo_bot.MonteCarloBot` searches a prefix. Sources of the tips: the
"Tips and Strategy" sections of rule texts 000/003 (trump in the longest/strongest suit, discard
short-suit losers, name suits where the down player likely holds an ace) and 001 "Tipps" (give a
low card of a suit without your ace, so the ace may come back). Rules: RULES.md sections 2-5.
"""

from __future__ import annotations

import random

from arena.rules.actions import (CONTRACT_BASE, DEMAND_BASE, GIVE_BASE, MISERE, NO_TRUMP, STOP)
from arena.rules.cards import SUIT_MASKS, mask_of, parse_card
from arena.rules.exchange import ExchangeKind
from arena.rules.view import View

ACE, KING, QUEEN, JACK = 12, 11, 10, 9
#: estimate_tricks under-counts by about this much (greedy self-play, all presets).
_TRICKS_BIAS = 0.5
#: trick-value of receiving a card of each rank index (A K Q J count, the rest barely).
_CARD_VALUE = (0.0, 0.0, 0.0, 0.0, 0.05, 0.05, 0.1, 0.1, 0.2, 0.5, 1.0, 2.0, 3.0)


# ----- small card helpers ----------------------------------------------------------------------
def ranks_in(cards: list[int] | tuple[int, ...], suit: int) -> list[int]:
    """Rank indexes (0 = 2 .. 12 = ace) of ``suit`` in ``cards``, high to low."""
    return sorted((c % 13 for c in cards if c // 13 == suit), reverse=True)


def unseen_mask(view: View) -> int:
    """Bitmask of the cards this seat has not seen played or held: the ones other players (or
    another declarer's discards / an untaken kitty) may hold. Excludes the removed card of a
    51-card deck (RULES.md 5, six-three-eight)."""
    known = mask_of(view.hand) | mask_of(view.discards) | mask_of(c for _, c in view.trick)
    for t in view.tricks:
        known |= mask_of(c for _, c in t.cards)
    if view.cfg.deck == 51:
        known |= 1 << parse_card(view.cfg.removed_card)
    return ((1 << 52) - 1) & ~known


def count_bits(mask: int) -> int:
    """Number of set bits of ``mask`` (cards in a card mask)."""
    return bin(mask).count("1")


def is_master(card: int, unseen: int) -> bool:
    """True when no unseen card of the same suit ranks above ``card``."""
    return not (unseen & SUIT_MASKS[card // 13]) >> (card + 1)


# ----- keeping and discarding (000/003 tip: discard short-suit losers, aim for voids) -----------
def _suit_stats(cards: list[int] | tuple[int, ...]) -> tuple[list[int], list[int]]:
    """Per suit: number of cards, and number of low cards (2..6) in ``cards``."""
    lengths, lows = [0, 0, 0, 0], [0, 0, 0, 0]
    for c in cards:
        lengths[c // 13] += 1
        if c % 13 <= 4:
            lows[c // 13] += 1
    return lengths, lows


def _keep(card: int, lengths: list[int], lows: list[int], contract: int | None) -> float:
    """:func:`keep_value` with the suit statistics precomputed."""
    s, r = card // 13, card % 13
    if contract == MISERE:
        return (12 - r) + 2.0 * lows[s]
    if contract is not None and contract < 4 and s == contract:
        return 100.0 + r
    if r == ACE:
        return 60.0 + lengths[s]
    if r == KING and lengths[s] >= 2:
        return 40.0 + lengths[s]
    return r + 4.0 * lengths[s]


def keep_value(card: int, cards: list[int] | tuple[int, ...], contract: int | None) -> float:
    """How much ``card`` is worth keeping in ``cards`` under ``contract`` (higher = keep).

    Contract: 0..3 trump suit, 4 no-trump, 5 misère, None unknown (plain-suit view). Trumps and
    aces are kept; otherwise low cards of short suits go first (voids to ruff with later). In
    misère the order is reversed: high cards not covered by low ones go first.
    """
    lengths, lows = _suit_stats(cards)
    return _keep(card, lengths, lows, contract)


def rank_by_keep(cards: list[int] | tuple[int, ...], contract: int | None,
                 hand: list[int] | tuple[int, ...] | None = None) -> list[int]:
    """``cards`` ordered from least to most worth keeping (judged within ``hand``, default
    ``cards`` itself); ties by card int."""
    lengths, lows = _suit_stats(cards if hand is None else hand)
    return sorted(cards, key=lambda c: (_keep(c, lengths, lows, contract), c))


def choose_discards(cards: list[int], contract: int | None, n: int) -> list[int]:
    """The ``n`` cards to discard one by one (each re-judged on the remaining cards)."""
    left = list(cards)
    out = []
    for _ in range(min(n, len(left))):
        c = rank_by_keep(left, contract)[0]
        left.remove(c)
        out.append(c)
    return out


# ----- contract estimation (000/003 tip: trump in the longest/strongest suit) -------------------
def _honour_tricks(ranks: list[int]) -> float:
    """Expected top-card tricks of a plain suit held as ``ranks`` (high to low)."""
    held = set(ranks)
    n = len(ranks)
    t = 1.0 if ACE in held else 0.0
    if KING in held and n >= 2:
        t += 1.0 if ACE in held else 0.6
    if QUEEN in held and n >= 3:
        t += 0.8 if ACE in held and KING in held else 0.3
    return t


def estimate_tricks(cards: list[int] | tuple[int, ...], contract: int) -> float:
    """Rough tricks ``cards`` (about one hand's worth) take under ``contract`` (0..4).

    Trump suit: its length minus the missing A/K/Q among its top three places, side-suit honours,
    and ruffs from short side suits while trumps remain. No-trump: honours plus long-suit winners.
    """
    if contract == NO_TRUMP:
        total = 0.0
        for s in range(4):
            rk = ranks_in(cards, s)
            total += _honour_tricks(rk)
            if len(rk) >= 5 and (ACE in rk or KING in rk):
                total += 0.7 * (len(rk) - 4)
        return total
    trumps = ranks_in(cards, contract)
    n = len(trumps)
    missing = sum(1 for i, honour in enumerate((ACE, KING, QUEEN))
                  if i < n and honour not in trumps)
    total = float(n - missing)
    short = 0
    for s in range(4):
        if s != contract:
            rk = ranks_in(cards, s)
            total += _honour_tricks(rk)
            short += max(0, 2 - len(rk))
    return total + 0.8 * min(short, max(0, n - 3))


def misere_danger(cards: list[int] | tuple[int, ...]) -> float:
    """Rough tricks a hand of ``cards`` (about 16) takes in misère despite ducking: high cards
    not covered by low ones. Calibrated on greedy self-play (tricks ~ 2.8 + 2.3 * raw)."""
    raw = 0.0
    for s in range(4):
        rk = ranks_in(cards, s)
        high = sum(_CARD_VALUE[r] / 3.0 for r in rk if r >= JACK)
        low = sum(1 for r in rk if r <= 4)
        raw += max(0.0, high - 0.5 * low)
    return (2.8 + 2.3 * raw) * len(cards) / 16.0


def _points_of(cards: list[int], contract: int, view: View) -> float:
    """Expected declarer points of a full hand ``cards`` (discards not yet made)."""
    per_hand = view.tricks_per_hand
    if len(cards) > per_hand:
        cards = list(cards)
        for c in choose_discards(cards, contract, len(cards) - per_hand):
            cards.remove(c)
    me = view.seat
    if contract == MISERE:
        return view.limits[me] - misere_danger(cards)
    return estimate_tricks(cards, contract) + _TRICKS_BIAS - view.targets[me]


def contract_points(view: View, contract: int, samples: int = 12) -> float:
    """Expected hand points of the declarer for ``contract`` (RULES.md 2.6): tricks - target or
    limit - tricks, the hand first trimmed by the discards when it holds the kitty. When part
    of the own hand is hidden (six-contracts: only the first 6 cards are seen, RULES.md 5) the
    hidden cards are drawn ``samples`` times from the unseen ones by an RNG seeded from the
    visible hand, so the estimate stays deterministic."""
    cards = list(view.hand)
    if not view.hidden_own:
        return _points_of(cards, contract, view)
    pool = [c for c in range(52) if unseen_mask(view) >> c & 1]
    rng = random.Random(mask_of(cards) * 7 + view.hidden_own)
    total = 0.0
    for _ in range(samples):
        total += _points_of(cards + rng.sample(pool, view.hidden_own), contract, view)
    return total / samples


def rank_contracts(view: View) -> list[int]:
    """Legal contract actions, best first: the suit contract with the most expected points, and
    no-trump / misère only when they beat it by a margin (the hand must clearly fit them)."""
    margin = {NO_TRUMP: 1.0, MISERE: 1.5}
    scored = []
    for a in view.legal_actions:
        c = a - CONTRACT_BASE
        scored.append((contract_points(view, c) - margin.get(c, 0.0), -a, a))
    scored.sort(reverse=True)
    return [a for _, _, a in scored]


def likely_trump(view: View) -> int | None:
    """The trump suit this seat would name if it is the declarer and no contract is set yet
    (demand-suit exchange comes before the contract); the contract's trump otherwise."""
    if view.contract is not None:
        return view.trump
    if view.declarer != view.seat:
        return None
    return max(range(4), key=lambda s: (estimate_tricks(view.hand, s), -s))


# ----- card exchange (RULES.md 4) --------------------------------------------------------------
def _declared_voids(view: View, down: int) -> int:
    """Suits ``down`` declared void in this hand's demand-suit exchange and cannot have refilled
    since (no hidden card received, no card of that suit given to him)."""
    voids = 0
    for e in view.exchange_events:
        if e.kind is ExchangeKind.VOID and e.down == down and e.suit is not None:
            voids |= 1 << e.suit
        elif e.kind is ExchangeKind.GIVE and e.down == down:
            voids = 0 if e.card is None else voids & ~(1 << (e.card // 13))
    return voids


def _expected_top(unseen_suit: list[int], p: float, skip: int = 0) -> tuple[float, float]:
    """For unseen cards of one suit (high to low), each held by a player with probability ``p``:
    (probability he holds any, expected value of his highest), ignoring his top ``skip`` cards."""
    none_above = 1.0
    value = 0.0
    cards = unseen_suit[skip:]
    for c in cards:
        value += none_above * p * _CARD_VALUE[c % 13]
        none_above *= 1.0 - p
    return 1.0 - none_above, value


def _share(view: View, seat: int, unseen: int) -> float:
    """Probability that ``seat`` holds a given unseen card (his hand size / unseen count)."""
    return min(1.0, view.hand_sizes[seat] / max(1, count_bits(unseen)))


def rank_demands(view: View) -> list[int]:
    """Demand-suit actions, best first: the suit where the down player most likely holds high
    cards (000/003: "name the suits where the down player is most likely to hold an Ace"), a
    bonus for the suit this seat expects to name trump, and suits he declared void last."""
    unseen = unseen_mask(view)
    trump = likely_trump(view)
    scored = []
    for a in view.legal_actions:
        down, suit = divmod(a - DEMAND_BASE, 4)
        cards = sorted((c for c in range(suit * 13, suit * 13 + 13) if unseen >> c & 1),
                       reverse=True)
        p_any, value = _expected_top(cards, _share(view, down, unseen))
        score = value + (0.5 * p_any if suit == trump else 0.0)
        if _declared_voids(view, down) >> suit & 1:
            score -= 10.0
        scored.append((score, -a, a))
    scored.sort(reverse=True)
    return [a for _, _, a in scored]


def rank_give_backs(view: View) -> list[int]:
    """Demand-suit give-back (any card of the hand): least useful first, never the likely trump
    when avoidable (000/003: the up player gives any card in exchange)."""
    return rank_by_keep(list(view.legal_actions), likely_trump(view), view.hand)


def rank_pass_gives(view: View) -> list[int]:
    """Pass-and-return actions, best first (001 tip: give a low card of a suit where you lack
    the ace, so the ace may come back). A given card returns as the down player's highest of
    its suit counting it, so the gain is the chance he holds higher cards times their value.
    Trumps are kept in six-contracts (a trump is answered by a card of his choice); ``stop``
    ranks above gives that cannot gain."""
    unseen = unseen_mask(view)
    batch = view.exchange.batch if view.exchange is not None else ()
    interactive = view.cfg.exchange == "pass-return-interactive"
    scored = []
    for a in view.legal_actions:
        if a == STOP:
            scored.append((0.0, 0, a))
            continue
        down, card = divmod(a - GIVE_BASE, 52)
        suit, rank = card // 13, card % 13
        if interactive and suit == view.trump:
            scored.append((-5.0 - rank, -a, a))
            continue
        higher = sorted((c for c in range(card + 1, suit * 13 + 13) if unseen >> c & 1),
                        reverse=True)
        skip = sum(1 for d, c in batch if d == down and c // 13 == suit)
        p_any, value = _expected_top(higher, _share(view, down, unseen), skip)
        if _declared_voids(view, down) >> suit & 1:
            p_any, value = 0.0, 0.0
        gain = value - p_any * _CARD_VALUE[rank] - 0.01 * keep_value(card, view.hand, view.contract)
        scored.append((gain + 0.02, -a, a))
    scored.sort(reverse=True)
    return [a for _, _, a in scored]


def rank_returns(view: View) -> list[int]:
    """Six-contracts return after receiving a trump (any card, the trump included): the least
    useful card first (RULES.md 4 / 7.9)."""
    return rank_by_keep(list(view.legal_actions), view.contract, view.hand)
