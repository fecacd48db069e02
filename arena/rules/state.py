"""The match state machine: deal, card exchange, kitty, contract, discards, tricks, scoring,
next hand, match end and placings (RULES.md sections 2-7).

Drive it decision by decision, OpenSpiel style::

    state = MatchState.new(make_config("sergeant-major"), seed=7)
    while not state.finished:
        state.apply(choose(state.current_seat, state.legal_actions()))
    state.placings   # e.g. (1, 3, 2)
    view_of(state, seat)   # what one seat may know (arena.rules.view)

Seats 0..2 are positions in the match's seating; seat 0 deals the first hand (RULES.md 7). Each
hand assigns roles S0 (dealer), S1, S2 from the dealer in the direction of play. The state holds
no RNG and does no I/O: deals come from the match seed (SHAKE-256) or are given explicitly.
The exchange logic lives in :mod:`arena.rules.exchange` (it returns what happened; this
module applies it), views in :mod:`arena.rules.view` (which reads this state; nothing here
imports it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from . import exchange, scoring
from .actions import CONTRACT_BASE, MISERE, Decision, action_str, contract_action
from .cards import CARDS_IN_SUIT, SUIT_MASKS, cards_of, suit_cards
from .contracts import CONTRACTS_IN, contracts_mask, replay_contracts
from .config import RulesConfig
from .deal import Deal, SeededDeals, check_seed
from .errors import IllegalActionError, RulesError
from .exchange import ExchangeEvent, ExchangeProgress
from .history import HandStep, HandSummary, TrickRecord, hand_steps, step_of
from .infoset import View
from .sample import draw_hidden
from .tricks import F1, F3, FOLLOW_CODES, legal_play_mask

_PLAY = Decision.PLAY
#: bit of each card
_BIT = tuple(1 << c for c in range(52))
#: ``TrickRecord(...)`` without the named tuple's Python-level ``__new__`` (once per trick)
_new_tuple = tuple.__new__

DealSource = Mapping[int, Deal] | Callable[[int], Deal | None] | None

@dataclass(slots=True, init=False, eq=False, repr=False)
class MatchState:
    """Full (omniscient) state of one match; see the module docstring. Build it with
    :meth:`new`, :meth:`from_position` or (determinization) :meth:`from_view`; see a seat's
    part of it with :func:`arena.rules.view.view_of`.

    Public attributes are read-only to callers (only :meth:`apply` changes them); per-seat lists
    and tuples are indexed by seat 0..2.
    """

    cfg: RulesConfig
    #: 1-based number of the hand in play
    hand_number: int
    dealer: int
    declarer: int
    #: role per seat this hand: 0 = S0 (dealer), 1 = S1, 2 = S2
    roles: tuple[int, int, int]
    #: seat per role this hand (the inverse of ``roles``)
    seat_of_role: tuple[int, int, int]
    #: trick targets per seat this hand
    targets: tuple[int, int, int]
    #: misère limits per seat this hand
    limits: tuple[int, int, int]
    #: 0..3 trump suit, 4 no-trump, 5 misère; None before it is chosen
    contract: int | None
    #: trump suit 0..3, or None (no contract yet, no-trump, misère)
    trump: int | None
    #: follow rule in force (``tricks.F1``..``F3``): F1 until a trump contract is chosen
    follow: int
    #: bitmask of each seat's cards
    hands: list[int]
    #: the declarer's first 6 dealt cards (six-contracts ``first6`` view), as a bitmask
    first6: int
    kitty: tuple[int, ...]
    kitty_taken: bool
    #: the declarer's discards this hand, in order
    discards: list[int]
    #: cards on the current trick, in play order (their seats: :attr:`trick_seats`)
    trick: list[int]
    #: the seat leading the current trick (None before play starts)
    leader: int | None
    tricks: list[TrickRecord]
    tricks_won: list[int]
    #: this hand's card exchange in progress, or None
    exchange: ExchangeProgress | None
    #: this hand's exchange events (full information)
    events: list[ExchangeEvent]
    #: the pending decision (None when finished) and the seat that makes it
    decision: Decision | None
    current_seat: int | None
    scores: list[int]
    #: points per seat of each finished hand
    hand_points: list[tuple[int, int, int]]
    #: the previous hand's points (they drive the exchange), None on the first hand
    prev_points: tuple[int, int, int] | None
    #: per seat, bitmask of the contract indexes chosen in his current cycle (RULES.md 16)
    contracts_used: list[int]
    #: the deal of every hand so far
    deals: list[Deal]
    #: every action code applied in the match, in order
    actions: list[int]
    completed_hands: list[HandSummary]
    finished: bool
    end_reason: str | None
    twelve_trick_winner: int | None
    _seed: int | str | bytes
    #: the canonical deals of ``_seed``
    _seeded: SeededDeals
    _deal_source: DealSource
    _all_contracts: int
    _trump_follow: int
    #: ``cfg`` values read on the hot path, kept as plain ints (they are properties there)
    _tricks_per_hand: int
    _kitty_size: int
    _declarer_role: int
    _role_limits: tuple[int, int, int]
    #: a hand's steps (``history.hand_steps``), last first
    _steps_reversed: tuple[HandStep, ...]
    _next_seat: tuple[int, int, int]
    #: per dealer seat: (seat of each role, role of each seat), the hand's ``seat_of_role``
    #: and ``roles``
    _seatings: tuple[tuple[tuple[int, int, int], tuple[int, int, int]], ...]
    _pending_steps: list[HandStep]
    _legal_cache: list[int] | None
    _placings: tuple[int, int, int] | None

    # ----- construction ---------------------------------------------------------------------
    @classmethod
    def new(cls, cfg: RulesConfig, seed: int | str | bytes = 0, deals: DealSource = None,
            *, first_deal: Deal | None = None) -> MatchState:
        """Start a match and deal its first hand (seat 0 deals).

        Args:
            cfg: the rules (see :func:`arena.rules.config.make_config`).
            seed: match seed; hand ``n``'s deal is ``seeded_deal(cfg, seed, n)`` unless given.
            deals: explicit deals, as a mapping hand number -> :class:`Deal`, or a callable
                returning a Deal (or None for the seeded deal).
            first_deal: shorthand for ``deals={1: first_deal}``.

        Raises:
            DealError: when an explicit deal does not fit ``cfg``.
            SeedError: when ``seed`` is not an int, str or bytes.
        """
        if first_deal is not None:
            deals = {1: first_deal}
        return cls.from_position(cfg, seed=seed, deals=deals)

    @classmethod
    def from_position(cls, cfg: RulesConfig, *, seed: int | str | bytes = 0,
                      deals: DealSource = None, deal: Deal | None = None, hand_number: int = 1,
                      dealer: int = 0, scores: tuple[int, int, int] = (0, 0, 0),
                      prev_points: tuple[int, int, int] | None = None,
                      contracts_used: tuple[tuple[int, ...], ...] | None = None) -> MatchState:
        """Start a match at the beginning of any hand (tests, puzzles, resuming).

        Args:
            cfg, seed, deals: as in :meth:`new`; ``deal`` is this hand's explicit deal.
            hand_number: the hand to start (1-based); dealer: its dealer seat 0..2.
            scores: match scores before this hand, per seat.
            prev_points: the previous hand's points per seat (they drive the card exchange);
                None on hand 1.
            contracts_used: per seat, the contract indexes (0..5) he has chosen in this match so
                far, in order; they are replayed into his current cycle (RULES.md decision 16:
                once he has chosen every contract of the rule set, all are open again). A
                set of the contracts of his current cycle (e.g. ``view.contracts_used``) is
                such a sequence too.

        Raises:
            DealError: when an explicit deal does not fit ``cfg``.
            SeedError: when ``seed`` is not an int, str or bytes.
            RulesError: when ``hand_number`` is not an int >= 1, ``dealer`` not 0..2, or
                ``contracts_used`` names a contract the rules do not have (or, with
                ``contract_once``, one twice in a cycle).
        """
        check_seed(seed)
        if type(hand_number) is not int or hand_number < 1 or type(dealer) is not int \
                or dealer not in (0, 1, 2):
            raise RulesError(f"bad position: hand_number {hand_number!r}, dealer {dealer!r} "
                             "(expected an int >= 1 and 0, 1 or 2)")
        if deal is not None:
            deals = {hand_number: deal}
        self = cls._match(cfg, seed, deals, scores, (), prev_points, contracts_used)
        self.hand_number = hand_number - 1
        self.dealer = self._next_seat.index(dealer)  # the seat before ``dealer`` in play order
        self._start_next_hand()
        return self

    @classmethod
    def from_view(cls, view: View, rng: random.Random) -> MatchState:
        """A full state consistent with ``view``, the cards hidden from its seat drawn at
        random (determinization, as OpenSpiel's ``ResampleFromInfostate``; how the cards are
        drawn: :mod:`arena.rules.sample`).

        The state's ``view_of(state, view.seat)`` equals ``view``; its later hands are dealt
        from a seed drawn from ``rng`` (the real match seed is never in a view), and it has no
        history before the current hand (``actions``, ``deals`` and ``completed_hands`` are
        empty).

        Args:
            view: a seat's view of an unfinished match.
            rng: the random source (the caller owns it; nothing global is used).

        Raises:
            RulesError: when the match is finished or the view's constraints are inconsistent.
        """
        if view.finished:
            raise RulesError("cannot sample a finished match")
        decision, to_act = view.decision, view.to_act
        if decision is None or to_act is None:
            raise RulesError("cannot sample a view with no pending decision")
        hidden = draw_hidden(view, rng)
        self = cls._match(view.cfg, hidden.seed, None, view.scores, view.hand_points,
                          view.prev_points, view.contracts_used)
        self.hand_number, self.dealer, self.roles = view.hand_number, view.dealer, view.roles
        r = view.roles
        self.seat_of_role = (r.index(0), r.index(1), r.index(2))
        self.declarer, self.targets, self.limits = view.declarer, view.targets, view.limits
        self.contract, self.trump = view.contract, view.trump
        self.follow = F1 if view.trump is None else self._trump_follow
        self.hands, self.first6, self.kitty = hidden.hands, hidden.first6, hidden.kitty
        self.kitty_taken = view.kitty_taken
        self.discards = hidden.discards
        self.trick = [c for _, c in view.trick]
        self.leader, self.tricks = view.leader, list(view.tricks)
        self.tricks_won = list(view.tricks_won)
        self.events = list(view.exchange_events)
        self.exchange = hidden.exchange
        self.decision, self.current_seat = decision, to_act
        order = hand_steps(view.cfg)
        self._pending_steps = order[order.index(step_of(decision)) + 1:][::-1]
        self._legal_cache = None
        return self

    @classmethod
    def _match(cls, cfg: RulesConfig, seed: int | str | bytes, deals: DealSource,
               scores: Sequence[int], hand_points: Sequence[tuple[int, int, int]],
               prev_points: Sequence[int] | None,
               contracts_used: Sequence[Sequence[int]] | None) -> MatchState:
        """The one constructor: a state with the match-wide fields set (the rules and what
        the hot path reads of them, the deal source, scores, points, contract cycles, no
        history); the caller sets the hand's fields (:meth:`from_position` by dealing,
        :meth:`from_view` from the view)."""
        self = cls.__new__(cls)
        self.cfg = cfg
        self._seed = seed
        self._seeded = SeededDeals(seed)
        self._deal_source = deals
        self._all_contracts = contracts_mask(cfg)
        self._trump_follow = FOLLOW_CODES[cfg.follow]
        self._tricks_per_hand = cfg.tricks_per_hand
        self._kitty_size = cfg.kitty_size
        self._declarer_role = cfg.declarer_role
        self._role_limits = cfg.limits
        self._steps_reversed = tuple(reversed(hand_steps(cfg)))
        self._next_seat = nxt = (1, 2, 0) if cfg.direction == "clockwise" else (2, 0, 1)
        seatings = []
        for dealer in range(3):
            order = (dealer, nxt[dealer], nxt[nxt[dealer]])   # seats of roles S0, S1, S2
            seatings.append((order, (order.index(0), order.index(1), order.index(2))))
        self._seatings = (seatings[0], seatings[1], seatings[2])
        self.scores = list(scores)
        self.hand_points = list(hand_points)
        self.prev_points = None if prev_points is None else \
            (prev_points[0], prev_points[1], prev_points[2])
        self.contracts_used = [0, 0, 0] if contracts_used is None else \
            replay_contracts(cfg, contracts_used)
        self.deals = []
        self.actions = []
        self.completed_hands = []
        self.finished = False
        self.end_reason = None
        self.twelve_trick_winner = None
        self._placings = None
        return self

    def copy(self) -> MatchState:
        """An independent copy (cheap: flat lists and ints are copied, immutables shared)."""
        c = MatchState.__new__(MatchState)
        for name in _FIELDS:
            setattr(c, name, getattr(self, name))
        c.hands = self.hands[:]
        c.tricks_won = self.tricks_won[:]
        c.trick = self.trick[:]
        c.tricks = self.tricks[:]
        c.discards = self.discards[:]
        c.scores = self.scores[:]
        c.hand_points = self.hand_points[:]
        c.contracts_used = self.contracts_used[:]
        c.deals = self.deals[:]
        c.actions = self.actions[:]
        c.completed_hands = self.completed_hands[:]
        c.events = self.events[:]
        c._pending_steps = self._pending_steps[:]
        c.exchange = self.exchange.copy() if self.exchange is not None else None
        return c

    # ----- queries --------------------------------------------------------------------------
    @property
    def trick_seats(self) -> list[int]:
        """The seats that played the current trick's cards, in play order (one per card of
        :attr:`trick`, from :attr:`leader`); a new list."""
        lead, n = self.leader, len(self.trick)
        if lead is None or not n:
            return []
        nxt = self._next_seat
        return [lead, nxt[lead], nxt[nxt[lead]]][:n]

    @property
    def phase(self) -> str:
        """The pending decision kind's value (``"play"`` ...) or ``"finished"``."""
        d = self.decision
        return "finished" if self.finished or d is None else d.value

    @property
    def tricks_per_hand(self) -> int:
        """Tricks in a hand (16, or 17 with 51 cards)."""
        return self.cfg.tricks_per_hand

    def legal_actions(self) -> list[int]:
        """Legal action codes for :attr:`current_seat`, sorted ascending; empty when finished.

        The list is cached until the next :meth:`apply`; do not mutate it.
        """
        legal = self._legal_cache
        if legal is not None:
            return legal
        seat = self.current_seat
        if self.decision is _PLAY and seat is not None:
            # the hot path, inline: leading, or following suit without an overtrump rule
            trick = self.trick
            mask = self.hands[seat]
            if trick:
                led = trick[0] // 13
                ranks = mask >> 13 * led & 0x1FFF  # his cards of the suit led, as ranks
                if ranks and (self.follow != F3 or led != self.trump):
                    # following suit: one suit's cards, straight from the table
                    try:
                        legal = self._legal_cache = [*CARDS_IN_SUIT[led][ranks]]
                    except IndexError:  # the table is filled on first use
                        legal = self._legal_cache = [*suit_cards(led, ranks)]
                    return legal
                if ranks or self.follow != F1:   # void under F1: any card, no call
                    mask = legal_play_mask(mask, trick, self.trump, self.follow)
            legal = self._legal_cache = cards_of(mask)
            return legal
        legal = self._legal_cache = self._compute_legal()
        return legal

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` may be applied now (never raises; anything but an ``int``,
        ``bool`` included, is not an action)."""
        if self.finished or type(action) is not int:
            return False
        return action in self.legal_actions()

    def _play_mask(self) -> int:
        """Bitmask of the current seat's legal cards (``tricks.legal_play_mask``, with its two
        common cases inline: leading, and following suit when no overtrump rule applies)."""
        seat = self.current_seat
        if seat is None:
            raise RulesError("no decision is pending: the match is over")
        trick = self.trick
        hand = self.hands[seat]
        if not trick:
            return hand
        led = trick[0] // 13
        suit_cards = hand & SUIT_MASKS[led]
        if suit_cards and (self.follow != F3 or led != self.trump):
            return suit_cards
        return legal_play_mask(hand, trick, self.trump, self.follow)

    def seat_to_act(self) -> int:
        """The seat (0..2) whose decision is pending: :attr:`current_seat`, typed as an int.

        Raises:
            RulesError: when the match is over (no decision is pending).
        """
        return self._seat()

    def _seat(self) -> int:
        """The current seat (only called while a decision is pending)."""
        seat = self.current_seat
        if seat is None:
            raise RulesError("no decision is pending: the match is over")
        return seat

    def _compute_legal(self) -> list[int]:
        d = self.decision
        if d is Decision.DISCARD:  # any card of the declarer's
            return cards_of(self.hands[self.declarer])
        if d is None or self.finished:
            return []
        if d is _PLAY:
            return cards_of(self._play_mask())
        if d is Decision.CONTRACT:
            return [contract_action(c) for c in self._contract_choices()]
        if self.exchange is None:
            raise RulesError(f"decision {d} pending without an exchange in progress")
        return exchange.legal(self.exchange, self.hands)

    def _contract_choices(self) -> tuple[int, ...]:
        """Contract indexes open to the declarer: all of the rule set, or with
        ``contract_once`` those not chosen in his current cycle (RULES.md decision 16)."""
        avail = self._all_contracts
        if self.cfg.contract_once:
            avail &= ~self.contracts_used[self.declarer]
        return CONTRACTS_IN[avail]

    @property
    def placings(self) -> tuple[int, int, int] | None:
        """Places per seat once finished (1 = first; equal scores share, e.g. (1, 1, 3));
        a 12-trick winner is first and the others are ranked by match score. None while playing."""
        return self._placings

    # ----- applying -------------------------------------------------------------------------
    def _illegal(self, action: object, why: str) -> IllegalActionError:
        legal = tuple(self.legal_actions())
        seat = None if self.finished else self.current_seat
        shown = ", ".join(action_str(a) for a in legal[:60])
        try:
            text = action_str(action) if type(action) is int else repr(action)
        except (ValueError, TypeError):
            text = repr(action)
        return IllegalActionError(
            f"illegal action {text} by seat {seat} in phase {self.phase}: {why}; "
            f"legal: [{shown}]", phase=self.phase, seat=seat, action=action, legal=legal)

    def apply(self, action: int) -> None:
        """Apply ``action`` (an int code, see :mod:`arena.rules.actions`) for the current seat.

        Raises:
            IllegalActionError: when the match is over or the action is not legal now; the
                message names the phase, seat, action and the legal set; the state is unchanged.
        """
        d = self.decision
        if d is _PLAY:  # the engine's hot path, inline (a finished match has no decision)
            if type(action) is not int:
                raise self._illegal(action, "an action is an int code")
            legal = self._legal_cache
            if action not in (legal if legal is not None else self.legal_actions()):
                raise self._illegal(action, self._why_not_play(action))
            self._legal_cache = None
            self.actions.append(action)
            # the card goes to the trick
            seat = self.current_seat
            if seat is None:
                raise RulesError("no decision is pending: the match is over")
            self.hands[seat] ^= 1 << action  # the card is in his hand (checked above)
            trick = self.trick
            trick.append(action)
            following = self._next_seat[seat]
            if following != self.leader:   # the trick is complete when it is back to him
                self.current_seat = following
            else:
                self._end_trick(trick)
            return
        if self.finished:
            raise self._illegal(action, "the match is over")
        if type(action) is not int:
            raise self._illegal(action, "an action is an int code")
        if d is None:
            raise RulesError("no decision is pending")
        self._apply_decision(d, action)

    def _apply_decision(self, d: Decision, action: int) -> None:
        """Check and apply a decision other than a card play."""
        if d is Decision.DISCARD:  # any card in hand: a bit test, not a list scan
            legal = 0 <= action < 52 and self.hands[self.declarer] >> action & 1
        else:
            legal = action in self.legal_actions()
        if not legal:
            raise self._illegal(action, "not among the legal actions")
        self._legal_cache = None
        self.actions.append(action)
        if d is Decision.DISCARD:
            self._discard(action)
        elif d is Decision.CONTRACT:
            self._set_contract(action - CONTRACT_BASE)
        else:
            self._exchange(action)

    def _exchange(self, action: int) -> None:
        progress = self.exchange
        if progress is None:
            raise RulesError("an exchange action without an exchange in progress")
        if exchange.apply(progress, self.hands, self.trump, action, self.events):
            self.exchange = None
            self._next_step()
        else:
            self.decision, self.current_seat = progress.decision, progress.to_act

    def _why_not_play(self, action: int) -> str:
        if not (0 <= action < 52):
            return "not a card"
        if not self.hands[self._seat()] >> action & 1:
            return "card not held"
        return "must follow the follow rule " + ("F1" if self.follow == F1 else self.cfg.follow)

    # ----- hand flow ------------------------------------------------------------------------
    def _start_next_hand(self) -> None:
        cfg = self.cfg
        self.hand_number += 1
        dealer = self.dealer = self._next_seat[self.dealer]
        self.seat_of_role, self.roles = self._seatings[dealer]
        deal = self._deal_for(self.hand_number)
        self.deals.append(deal)
        by_role = deal.hands  # distinct cards (Deal.check): their bits add up to the mask
        r0, r1, r2 = self.roles
        bit = _BIT.__getitem__
        self.hands = [sum(map(bit, by_role[r0])), sum(map(bit, by_role[r1])),
                      sum(map(bit, by_role[r2]))]
        self.first6 = sum(map(bit, by_role[self._declarer_role][:6]))
        self.kitty = deal.kitty
        self.kitty_taken = False
        self.discards = []
        self.declarer = self.seat_of_role[self._declarer_role]
        self.targets = (cfg.targets[r0], cfg.targets[r1], cfg.targets[r2])
        lim = self._role_limits
        self.limits = (lim[r0], lim[r1], lim[r2])
        self.contract = None
        self.trump = None
        self.follow = F1
        self.trick = []
        self.leader = None
        self.tricks = []
        self.tricks_won = [0, 0, 0]
        self.events = []
        self.exchange = None
        self.decision = self.current_seat = None
        self._legal_cache = None
        self._pending_steps = list(self._steps_reversed)  # popped from the end
        self._next_step()

    def _deal_for(self, n: int) -> Deal:
        src = self._deal_source
        deal = None
        if src is not None:
            deal = src(n) if callable(src) else src.get(n)
        if deal is None:
            return self._seeded.deal(self.cfg, n)
        deal.check(self.cfg)
        return deal

    def _next_step(self) -> None:
        """Run automatic steps until one needs a decision.

        Raises:
            RulesError: for a step that is not a :class:`HandStep` (it does not start play).
        """
        while self._pending_steps:
            step = self._pending_steps.pop()
            if step is HandStep.EXCHANGE:
                progress = exchange.begin(self.cfg, self.prev_points, self.contract, self.roles,
                                          self.targets)
                if progress is not None:
                    self.exchange = progress
                    self.decision, self.current_seat = progress.decision, progress.to_act
                    return
            elif step is HandStep.KITTY:
                if self._kitty_size:
                    self.hands[self.declarer] |= sum(map(_BIT.__getitem__, self.kitty))
                    self.kitty_taken = True
            elif step is HandStep.CONTRACT:
                self.decision, self.current_seat = Decision.CONTRACT, self.declarer
                return
            elif step is HandStep.DISCARD:
                if self._kitty_size:
                    self.decision, self.current_seat = Decision.DISCARD, self.declarer
                    return
            elif step is HandStep.PLAY:
                lead = self.seat_of_role[1] if self.cfg.first_lead == "S1" else self.declarer
                self.leader = lead
                self.decision, self.current_seat = _PLAY, lead
                return
            else:
                raise RulesError(f"unknown hand step {step!r}")

    def _set_contract(self, contract: int) -> None:
        self.contract = contract
        used = self.contracts_used[self.declarer] | 1 << contract
        # a completed cycle opens every contract again (RULES.md decision 16)
        self.contracts_used[self.declarer] = 0 if used == self._all_contracts else used
        if contract < 4:
            self.trump, self.follow = contract, self._trump_follow
        self._next_step()

    def _discard(self, card: int) -> None:
        self.hands[self.declarer] ^= 1 << card   # a card he holds (checked)
        self.discards.append(card)
        if len(self.discards) == self._kitty_size:
            self._next_step()

    def _end_trick(self, trick: list[int]) -> None:
        """The third card is on ``trick`` (``self.trick``): record it, give it to its winner,
        who leads next."""
        a, b, c = trick
        sa = self.leader
        if sa is None:
            raise RulesError("a trick without a leader")
        nxt = self._next_seat
        sb = nxt[sa]
        sc = nxt[sb]
        # tricks.trick_winner for three cards, inline: the highest trump, else the highest
        # card of the suit led (RULES.md 2.2)
        trump = self.trump
        winner, best = sa, a
        if b // 13 == a // 13:
            if b > a:
                winner, best = sb, b
        elif b // 13 == trump:
            winner, best = sb, b
        if c // 13 == best // 13:
            if c > best:
                winner = sc
        elif c // 13 == trump:
            winner = sc
        self.tricks.append(_new_tuple(TrickRecord, (sa, ((sa, a), (sb, b), (sc, c)), winner)))
        self.tricks_won[winner] += 1
        self.trick = []
        self.leader = self.current_seat = winner
        if len(self.tricks) == self._tricks_per_hand:
            self._finish_hand()

    # ----- scoring and match end ------------------------------------------------------------
    def hand_points_now(self) -> tuple[int, int, int]:
        """Points per seat of the current hand if it ended now (see ``scoring.hand_points``)."""
        return scoring.hand_points(self.tricks_won, self.targets, self.limits,
                                   self.contract == MISERE)

    def _finish_hand(self) -> None:
        pts = scoring.hand_points(self.tricks_won, self.targets, self.limits,
                                  self.contract == MISERE)   # hand_points_now()
        self.hand_points.append(pts)
        scores = self.scores
        scores[0] += pts[0]
        scores[1] += pts[1]
        scores[2] += pts[2]
        self.prev_points = pts
        contract = self.contract
        if contract is None:
            raise RulesError("a hand ended without a contract")
        won = self.tricks_won
        self.completed_hands.append(HandSummary(
            self.hand_number, self.dealer, self.declarer, self.roles, self.targets, self.limits,
            contract, self.deals[-1] if self.deals else None, tuple(self.discards),
            tuple(self.events), tuple(self.tricks), (won[0], won[1], won[2]), pts,
            (scores[0], scores[1], scores[2])))
        reason, winner = scoring.end_reason(self.cfg, self.hand_number, self.scores,
                                            self.tricks_won, self.contract == MISERE,
                                            self.hand_points)
        if reason is None:
            self._start_next_hand()
            return
        self.finished = True
        self.end_reason = reason
        self.twelve_trick_winner = winner
        self.decision = None
        self.current_seat = None
        self._legal_cache = []
        self._placings = scoring.placings(self.scores, winner)

    def __repr__(self) -> str:
        return (f"MatchState(preset={self.cfg.preset!r}, hand={self.hand_number}, "
                f"phase={self.phase}, seat={self.current_seat}, scores={self.scores})")


#: the fields :meth:`MatchState.copy` carries over
_FIELDS: tuple[str, ...] = MatchState.__slots__
