"""Determinization: a full :class:`MatchState` consistent with one seat's :class:`View`.

Monte Carlo bots sample the cards hidden from them, then simulate on the engine. Hidden cards go
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

from .actions import Decision
from .cards import mask_of, parse_card
from .contracts import contracts_mask
from .errors import RulesError
from .exchange import ExchangeProgress, payment_multiplier
from .history import hand_steps
from .state import MatchState, cache_rules
from .tricks import F1, F2, F3, FOLLOW_CODES
from .view import View

KITTY, DISCARDS, HIDDEN_OWN = 3, 4, 5


def _play_voids(view: View) -> list[int]:
    """Per seat, bitmask of suits that seat is known to hold none of (from trick play)."""
    voids = [0, 0, 0]
    trump = -1 if view.trump is None else view.trump
    follow = FOLLOW_CODES[view.cfg.follow] if trump >= 0 else F1
    tricks = [t.cards for t in view.tricks] + ([view.trick] if view.trick else [])
    for cards in tricks:
        led = cards[0][1] // 13
        trumped = False
        for seat, card in cards[1:]:
            suit = card // 13
            if suit != led:
                voids[seat] |= 1 << led
                no_trump_shown = follow == F2 or (follow == F3 and not trumped)
                if suit != trump and trump >= 0 and no_trump_shown:
                    voids[seat] |= 1 << trump
            trumped = trumped or suit == trump
    return voids


def _exchange_knowledge(view: View) -> tuple[dict[int, int], list[int]]:
    """Cards located in a seat's hand by exchange events, and suits declared void."""
    loc: dict[int, int] = {}
    voids = [0, 0, 0]
    for e in view.exchange_events:
        if e.down is None:  # a stop
            continue
        if e.kind == "void":
            if e.suit is not None:  # always: a void names its suit publicly
                voids[e.down] |= 1 << e.suit
            continue
        giver, taker = (e.down, e.up) if e.kind in ("demand", "return") else (e.up, e.down)
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


def _remaining_steps(state: MatchState, decision: Decision) -> list[str]:
    order = hand_steps(state.cfg)
    step = {Decision.CONTRACT: "contract", Decision.DISCARD: "discard",
            Decision.PLAY: "play"}.get(decision, "exchange")
    return order[order.index(step) + 1:][::-1]


def sample_state(view: View, rng: random.Random) -> MatchState:
    """A full state consistent with ``view``, hidden cards drawn at random (module docstring).

    Args:
        view: a seat's view of an unfinished match.
        rng: the random source (the caller owns it; nothing global is used).

    Returns:
        an independent :class:`MatchState` that can be played on to the match end.

    Raises:
        RulesError: when the match is finished or the view's constraints are inconsistent.
    """
    if view.finished:
        raise RulesError("cannot sample a finished match")
    cap, allowed = _holders(view)
    owner = _assign(cap, allowed, rng)
    piles: dict[int, list[int]] = {h: [] for h in (0, 1, 2, KITTY, DISCARDS, HIDDEN_OWN)}
    for c, h in owner.items():
        piles[h].append(c)
    me = view.seat
    hands = [mask_of(piles[s]) for s in range(3)]
    hands[me] = mask_of(view.hand) | mask_of(piles[HIDDEN_OWN])

    decision, to_act = view.decision, view.to_act
    if decision is None or to_act is None:
        raise RulesError("cannot sample a view with no pending decision")
    st = MatchState.__new__(MatchState)
    cfg = view.cfg
    st.cfg = cfg
    st._seed = rng.getrandbits(64)
    st._deal_source = None
    st._trump_follow = FOLLOW_CODES[cfg.follow]
    cache_rules(st, cfg)
    st._next_seat = (1, 2, 0) if cfg.direction == "clockwise" else (2, 0, 1)
    st._all_contracts = contracts_mask(cfg)
    st.hand_number, st.dealer, st.roles = view.hand_number, view.dealer, view.roles
    r = view.roles
    st.seat_of_role = (r.index(0), r.index(1), r.index(2))
    st.declarer, st.targets, st.limits = view.declarer, view.targets, view.limits
    st.contract = view.contract
    st.trump = -1 if view.trump is None else view.trump
    st.follow = st._trump_follow if view.contract is not None and view.contract < 4 else F1
    st.hands = hands
    st.first6 = mask_of(view.hand) if view.hidden_own else hands[view.declarer]
    st.kitty = view.kitty if view.kitty is not None else tuple(piles[KITTY])
    st.kitty_taken = view.kitty_taken
    st.discards = list(view.discards) if view.declarer == me else piles[DISCARDS]
    st.decision, st.current_seat = decision, to_act
    st._pending_steps = _remaining_steps(st, decision)
    st._legal_cache = None
    st._legal_mask = -1
    st.exchange = _progress(view, hands, rng)
    st.events = list(view.exchange_events)
    st.trick = [c for _, c in view.trick]
    st.trick_seats = [s for s, _ in view.trick]
    st.leader, st.tricks = view.leader, list(view.tricks)
    st.tricks_won = list(view.tricks_won)
    st.scores, st.hand_points = list(view.scores), list(view.hand_points)
    st.prev_points = view.prev_points
    st.contracts_used = [mask_of(u) for u in view.contracts_used]
    st.deals, st.actions, st.completed_hands = [], [], []
    st.finished, st.end_reason, st.twelve_trick_winner, st._placings = False, None, None, None
    return st


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
            if e.kind == "return" and e.down is not None:
                settled[e.down] += 1
        downs: list[int] = []
        for d in range(3):
            owed = max(0, -prev[d]) * mult
            downs += [d] * (owed - s.down_left[d] - settled[d])
        cards = rng.sample([c for c in range(52) if hands[s.up] >> c & 1], s.batch_count)
        progress.batch = list(zip(downs[:len(cards)], cards, strict=False))
    progress.batch_mask = mask_of(c for _, c in progress.batch)
    return progress
