"""Determinization: the cards hidden from one seat's :class:`View`, drawn at random.

Monte Carlo bots sample the cards hidden from them, then simulate on the engine:
:meth:`arena.rules.state.MatchState.from_view` (OpenSpiel's ``ResampleFromInfostate``) builds
the full state from the view and the :class:`HiddenCards` drawn here. Hidden cards go
to "holders": each opponent's hand, the seat's own unseen cards (six-contracts declarer before
the contract), the kitty not yet taken, and another declarer's discards. Constraints used:

- voids shown in play: a player who did not follow suit holds no card of the suit led; under F2
  (and F3 when no trump was on the trick) one who neither followed nor trumped holds no trump;
- voids declared in a demand-suit exchange (forgotten once that player receives a hidden card);
- cards located by the seat's own exchanges (a card it gave stays with the receiver until that
  player hands over a card the seat cannot see);
- a public kitty, once taken, is in the declarer's hand or among his discards.

Sampling is random-greedy (most constrained card first, holder drawn in proportion to its free
places) with augmenting-path repair, so it always succeeds when the constraints are consistent;
it is close to, not exactly, uniform over consistent deals. Future hands of the sampled state
are dealt from a seed drawn from ``rng`` (the real match seed is never in a view).
"""

from __future__ import annotations

import random
from typing import NamedTuple

from .cards import mask_of, parse_card
from .errors import RulesError
from .exchange import ExchangeKind, ExchangeProgress, payment_multiplier
from .infoset import View
from .tricks import F1, F2, F3, FOLLOW_CODES

KITTY, DISCARDS, HIDDEN_OWN = 3, 4, 5


def _play_voids(view: View) -> list[int]:
    """Per seat, bitmask of suits that seat is known to hold none of (from trick play)."""
    voids = [0, 0, 0]
    trump = view.trump
    follow = FOLLOW_CODES[view.cfg.follow] if trump is not None else F1
    tricks = [t.cards for t in view.tricks] + ([view.trick] if view.trick else [])
    for cards in tricks:
        led = cards[0][1] // 13
        trumped = False
        for seat, card in cards[1:]:
            suit = card // 13
            if suit != led:
                voids[seat] |= 1 << led
                no_trump_shown = follow == F2 or (follow == F3 and not trumped)
                if suit != trump and trump is not None and no_trump_shown:
                    voids[seat] |= 1 << trump
            trumped = trumped or suit == trump
    return voids


def _exchange_knowledge(view: View) -> tuple[dict[int, int], list[int]]:
    """Cards located in a seat's hand by exchange events, and suits declared void."""
    loc: dict[int, int] = {}
    voids = [0, 0, 0]
    for e in view.exchange_events:
        if e.kind is ExchangeKind.VOID:
            if e.down is not None and e.suit is not None:  # always: a void names its suit
                voids[e.down] |= 1 << e.suit
            continue
        moved = e.transfer()
        if moved is None:  # a stop
            continue
        giver, taker = moved
        if e.card is None:  # a transfer this seat cannot see
            for c in [c for c, s in loc.items() if s == giver]:
                del loc[c]
            voids[taker] = 0
        else:
            loc[e.card] = taker
    return loc, voids


def _known_cards(view: View) -> int:
    """Bitmask of the cards whose place ``view``'s seat knows: its hand and discards, every
    played card, and the card removed from a 51-card deck."""
    known = mask_of(view.hand) | mask_of(view.discards)
    for t in view.tricks:
        known |= mask_of(c for _, c in t.cards)
    known |= mask_of(c for _, c in view.trick)
    if view.cfg.deck == 51:
        known |= 1 << parse_card(view.cfg.removed_card)
    return known


def _holders(view: View) -> tuple[dict[int, int], dict[int, int]]:
    """Capacity per holder and allowed-holder bitmask per hidden card."""
    me = view.seat
    cap = {s: view.hand_sizes[s] for s in range(3) if s != me}
    if view.hidden_own:
        cap[HIDDEN_OWN] = view.hidden_own
    if view.cfg.kitty_size and not view.kitty_taken:
        cap[KITTY] = view.cfg.kitty_size
    if view.declarer != me and view.discard_count:
        cap[DISCARDS] = view.discard_count
    known = _known_cards(view)
    voids = _play_voids(view)
    loc, xvoids = _exchange_knowledge(view)
    everyone = 0
    for h in cap:
        everyone |= 1 << h
    allowed = {}
    kitty = mask_of(view.kitty or ())
    for c in range(52):
        if known >> c & 1:
            continue
        if c in loc and loc[c] != me:
            allowed[c] = 1 << loc[c]
            if loc[c] == view.declarer and DISCARDS in cap:  # it may have been discarded
                allowed[c] |= 1 << DISCARDS
            continue
        mask = everyone
        if kitty >> c & 1 and view.declarer != me:
            mask &= (1 << view.declarer) | (1 << DISCARDS)
        for s in range(3):
            if s != me and (voids[s] | xvoids[s]) >> (c // 13) & 1:
                mask &= ~(1 << s)
        allowed[c] = mask
    return cap, allowed


def _assign(cap: dict[int, int], allowed: dict[int, int], rng: random.Random) -> dict[int, int]:
    """Random assignment card -> holder meeting capacities, with augmenting-path repair."""
    free = dict(cap)
    owner: dict[int, int] = {}
    cards = list(allowed)
    rng.shuffle(cards)
    cards.sort(key=lambda c: bin(allowed[c]).count("1"))
    for c in cards:
        options = [h for h in free if allowed[c] >> h & 1 and free[h] > 0]
        if options:
            h = rng.choices(options, weights=[free[o] for o in options])[0]
            owner[c] = h
            free[h] -= 1
        elif not _augment(c, allowed, free, owner):
            raise RulesError("no deal is consistent with this view (inconsistent constraints)")
    return owner


def _augment(card: int, allowed: dict[int, int], free: dict[int, int],
             owner: dict[int, int]) -> bool:
    """Place ``card`` by shifting placed cards along a shortest path of holders (BFS)."""
    parent: dict[int, tuple[int, int | None]] = {}  # holder -> (card moved in, holder it left)
    queue: list[tuple[int, int | None]] = [(card, None)]
    i = 0
    while i < len(queue):
        c, src = queue[i]
        i += 1
        for h, room in free.items():
            if h in parent or not allowed[c] >> h & 1:
                continue
            parent[h] = (c, src)
            if room > 0:
                free[h] -= 1
                at = h
                while True:  # shift the cards along the path back to ``card``
                    moved, left = parent[at]
                    owner[moved] = at
                    if left is None:
                        return True
                    at = left
            queue.extend((o, h) for o, oh in owner.items() if oh == h)
    return False


class HiddenCards(NamedTuple):
    """Where :func:`draw_hidden` put the cards hidden from a view's seat, and what follows from
    it: all :meth:`MatchState.from_view` needs beyond the view."""

    #: bitmask of each seat's cards (the viewing seat's own: its hand plus unseen cards)
    hands: list[int]
    #: the declarer's first 6 dealt cards (``first6`` view), as a bitmask
    first6: int
    kitty: tuple[int, ...]
    #: the declarer's discards this hand
    discards: list[int]
    #: the exchange in progress (another up player's batch drawn from his hand), or None
    exchange: ExchangeProgress | None
    #: the seed future hands are dealt from (drawn from ``rng``)
    seed: int


def draw_hidden(view: View, rng: random.Random) -> HiddenCards:
    """Draw the cards hidden from ``view``'s seat (module docstring).

    Args:
        view: a seat's view of a match with a decision pending.
        rng: the random source (the caller owns it; nothing global is used).

    Raises:
        RulesError: when the view's constraints are inconsistent.
    """
    cap, allowed = _holders(view)
    owner = _assign(cap, allowed, rng)
    piles: dict[int, list[int]] = {h: [] for h in (0, 1, 2, KITTY, DISCARDS, HIDDEN_OWN)}
    for c, h in owner.items():
        piles[h].append(c)
    me = view.seat
    hands = [mask_of(piles[s]) for s in range(3)]
    hands[me] = mask_of(view.hand) | mask_of(piles[HIDDEN_OWN])
    seed = rng.getrandbits(64)
    return HiddenCards(
        hands=hands,
        first6=mask_of(view.hand) if view.hidden_own else hands[view.declarer],
        kitty=view.kitty if view.kitty is not None else tuple(piles[KITTY]),
        discards=list(view.discards) if view.declarer == me else piles[DISCARDS],
        exchange=_progress(view, hands, rng), seed=seed)


def _progress(view: View, hands: list[int], rng: random.Random) -> ExchangeProgress | None:
    s = view.exchange
    decision, to_act = view.decision, view.to_act
    if s is None or decision is None or to_act is None:
        return None
    cfg = view.cfg
    mult = payment_multiplier(cfg)
    prev = view.prev_points or (0, 0, 0)
    ups = (max(0, prev[0]) * mult, max(0, prev[1]) * mult, max(0, prev[2]) * mult)
    given = -1
    if s.return_from is not None and view.exchange_events:
        card = view.exchange_events[-1].card  # the trump he was given (hidden: -1)
        given = -1 if card is None else card
    progress = ExchangeProgress(
        cfg.exchange, cfg.exchange_optional, ups, list(s.queue), list(s.down_left), up=s.up,
        up_left=s.up_left, voids=list(s.voids), give_to=s.give_to, return_from=s.return_from,
        given=given, decision=decision, to_act=to_act)
    if s.batch or not s.batch_count:
        progress.batch = list(s.batch)
    else:  # another player's batch: draw its cards from his sampled hand, downs by count
        settled = [0, 0, 0]
        for e in view.exchange_events:
            if e.kind is ExchangeKind.RETURN and e.down is not None:
                settled[e.down] += 1
        downs: list[int] = []
        for d in range(3):
            owed = max(0, -prev[d]) * mult
            downs += [d] * (owed - s.down_left[d] - settled[d])
        cards = rng.sample([c for c in range(52) if hands[s.up] >> c & 1], s.batch_count)
        progress.batch = list(zip(downs[:len(cards)], cards, strict=False))
    progress.batch_mask = mask_of(c for _, c in progress.batch)
    return progress
