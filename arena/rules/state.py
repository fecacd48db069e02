"""The match state machine: deal, card exchange, kitty, contract, discards, tricks, scoring,
next hand, match end and placings (RULES.md sections 2-7).

Drive it decision by decision, OpenSpiel style::

    state = MatchState.new(make_config("sergeant-major"), seed=7)
    while not state.finished:
        state.apply(choose(state.current_seat, state.legal_actions()))
    state.placings   # e.g. (1, 3, 2)

Seats 0..2 are positions in the match's seating; seat 0 deals the first hand (RULES.md 7). Each
hand assigns roles S0 (dealer), S1, S2 from the dealer in the direction of play. The state holds
no RNG and does no I/O: deals come from the match seed (SHAKE-256) or are given explicitly.
The exchange logic lives in :mod:`arena.rules.exchange`, views in :mod:`arena.rules.view`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from . import exchange as xchg
from . import scoring
from .actions import CONTRACT_BASE, MISERE, Decision, action_str, contract_action
from .cards import cards_of, mask_of
from .contracts import CONTRACTS_IN, contracts_mask, replay_contracts
from .config import RulesConfig
from .deal import Deal, check_seed, seeded_deal
from .errors import IllegalActionError, RulesError
from .history import HandSummary, TrickRecord, hand_steps
from .tricks import F1, FOLLOW_CODES, legal_play_mask, trick_winner

_PLAY = Decision.PLAY

DealSource = Mapping[int, Deal] | Callable[[int], Deal | None] | None

class MatchState:
    """Full (omniscient) state of one match; see the module docstring.

    Public read-only attributes (do not mutate):
        cfg, hand_number (1-based), dealer, declarer, roles (role per seat, 0=S0..2=S2),
        targets / limits (per seat, this hand), contract (0..3 trump suit, 4 no-trump,
        5 misère, None before it is chosen), trump (suit or -1), hands (bitmask per seat),
        kitty (tuple), kitty_taken, discards (list), trick (cards on the current trick),
        trick_seats, leader, tricks (list of TrickRecord this hand), tricks_won (per seat),
        scores (match score per seat), hand_points (list of per-seat tuples, one per hand),
        prev_points (previous hand's points or None), contracts_used (per seat, bitmask of the
        contract indexes chosen in his current cycle, RULES.md decision 16), events
        (ExchangeEvent list of this hand, full information), deals (Deal per hand played so far), actions (every action code
        applied in the match, in order), completed_hands (HandSummary per finished hand),
        finished, end_reason, twelve_trick_winner.
    """

    __slots__ = (
        "_all_contracts",
        "_deal_source",
        "_follow_cfg",
        "_legal",
        "_next",
        "_placings",
        "_seed",
        "_steps",
        "actions",
        "cfg",
        "completed_hands",
        "contract",
        "contracts_used",
        "current_seat",
        "dealer",
        "deals",
        "decision",
        "declarer",
        "discards",
        "end_reason",
        "events",
        "finished",
        "first6",
        "follow",
        "hand_number",
        "hand_points",
        "hands",
        "kitty",
        "kitty_taken",
        "leader",
        "limits",
        "prev_points",
        "roles",
        "scores",
        "seat_of_role",
        "targets",
        "trick",
        "trick_seats",
        "tricks",
        "tricks_won",
        "trump",
        "twelve_trick_winner",
        "x",
    )

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
        self = cls.__new__(cls)
        self.cfg = cfg
        self._seed = seed
        self._all_contracts = contracts_mask(cfg)
        if deal is not None:
            deals = {hand_number: deal}
        self._deal_source = deals
        self._follow_cfg = FOLLOW_CODES[cfg.follow]
        self._next = (1, 2, 0) if cfg.direction == "clockwise" else (2, 0, 1)
        self.scores = list(scores)
        self.hand_points = []
        self.prev_points = None if prev_points is None else tuple(prev_points)
        self.contracts_used = [0, 0, 0] if contracts_used is None else \
            replay_contracts(cfg, contracts_used)
        self.deals = []
        self.actions = []
        self.completed_hands = []
        self.finished = False
        self.end_reason = None
        self.twelve_trick_winner = None
        self._placings = None
        self.hand_number = hand_number - 1
        self.dealer = self._next.index(dealer)  # the seat before ``dealer`` in play order
        self._start_next_hand()
        return self

    def copy(self) -> MatchState:
        """An independent copy (cheap: flat lists and ints are copied, immutables shared)."""
        c = MatchState.__new__(MatchState)
        for name in MatchState.__slots__:
            setattr(c, name, getattr(self, name))
        c.hands = self.hands[:]
        c.tricks_won = self.tricks_won[:]
        c.trick = self.trick[:]
        c.trick_seats = self.trick_seats[:]
        c.tricks = self.tricks[:]
        c.discards = self.discards[:]
        c.scores = self.scores[:]
        c.hand_points = self.hand_points[:]
        c.contracts_used = self.contracts_used[:]
        c.deals = self.deals[:]
        c.actions = self.actions[:]
        c.completed_hands = self.completed_hands[:]
        c.events = self.events[:]
        c._steps = self._steps[:]
        c.x = self.x.copy() if self.x is not None else None
        return c

    # ----- queries --------------------------------------------------------------------------
    @property
    def phase(self) -> str:
        """The pending decision kind's value (``"play"`` ...) or ``"finished"``."""
        return "finished" if self.finished else self.decision.value

    @property
    def tricks_per_hand(self) -> int:
        """Tricks in a hand (16, or 17 with 51 cards)."""
        return self.cfg.tricks_per_hand

    def legal_actions(self) -> list[int]:
        """Legal action codes for :attr:`current_seat`, sorted ascending; empty when finished.

        The list is cached until the next :meth:`apply`; do not mutate it.
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` may be applied now (never raises; anything but an ``int``,
        ``bool`` included, is not an action)."""
        if self.finished or type(action) is not int:
            return False
        if self.decision is _PLAY:
            return 0 <= action < 52 and bool(self._play_mask() >> action & 1)
        return action in self.legal_actions()

    def _play_mask(self) -> int:
        return legal_play_mask(self.hands[self.current_seat], self.trick, self.trump, self.follow)

    def _compute_legal(self) -> list[int]:
        if self.finished:
            return []
        d = self.decision
        seat = self.current_seat
        if d is _PLAY:
            return cards_of(self._play_mask())
        if d is Decision.DISCARD:
            return cards_of(self.hands[seat])
        if d is Decision.CONTRACT:
            return [contract_action(c) for c in self._contract_choices()]
        return xchg.legal(self)

    def _contract_choices(self) -> list[int]:
        """Contract indexes open to the declarer: all of the rule set, or with
        ``contract_once`` those not chosen in his current cycle (RULES.md decision 16)."""
        avail = self._all_contracts
        if self.cfg.contract_once:
            avail &= ~self.contracts_used[self.declarer]
        return CONTRACTS_IN[avail]

    def view(self, seat: int):  # -> View (import kept local: view imports this module)
        """Everything ``seat`` (0..2) may know now; see :class:`arena.rules.view.View`.

        Raises:
            ValueError: when ``seat`` is not 0, 1 or 2.
        """
        from .view import view_of
        return view_of(self, seat)

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
            text = action_str(action)  # type: ignore[arg-type]
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
        if self.finished:
            raise self._illegal(action, "the match is over")
        if type(action) is not int:
            raise self._illegal(action, "an action is an int code")
        d = self.decision
        if d is _PLAY:
            if not (0 <= action < 52 and self._play_mask() >> action & 1):
                raise self._illegal(action, self._why_not_play(action))
            self._legal = None
            self.actions.append(action)
            self._play(action)
            return
        if action not in self.legal_actions():
            raise self._illegal(action, "not among the legal actions")
        self._legal = None
        self.actions.append(action)
        if d is Decision.DISCARD:
            self._discard(action)
        elif d is Decision.CONTRACT:
            self._set_contract(action - CONTRACT_BASE)
        else:
            xchg.apply(self, action)

    def _why_not_play(self, action: int) -> str:
        if not (0 <= action < 52):
            return "not a card"
        if not self.hands[self.current_seat] >> action & 1:
            return "card not held"
        return "must follow the follow rule " + ("F1" if self.follow == F1 else self.cfg.follow)

    # ----- hand flow ------------------------------------------------------------------------
    def _start_next_hand(self) -> None:
        cfg = self.cfg
        self.hand_number += 1
        self.dealer = self._next[self.dealer]
        s1 = self._next[self.dealer]
        self.seat_of_role = (self.dealer, s1, self._next[s1])
        roles = [0, 0, 0]
        for r, s in enumerate(self.seat_of_role):
            roles[s] = r
        self.roles = tuple(roles)
        deal = self._deal_for(self.hand_number)
        self.deals.append(deal)
        self.hands = [mask_of(deal.hands[self.roles[s]]) for s in range(3)]
        self.first6 = mask_of(deal.hands[cfg.declarer_role][:6])
        self.kitty = deal.kitty
        self.kitty_taken = False
        self.discards = []
        self.declarer = self.seat_of_role[cfg.declarer_role]
        self.targets = tuple(cfg.targets[r] for r in self.roles)
        lim = cfg.limits
        self.limits = tuple(lim[r] for r in self.roles)
        self.contract = None
        self.trump = -1
        self.follow = F1
        self.trick = []
        self.trick_seats = []
        self.leader = None
        self.tricks = []
        self.tricks_won = [0, 0, 0]
        self.events = []
        self.x = None
        self._legal = None
        self._steps = hand_steps(cfg)[::-1]  # popped from the end
        self._next_step()

    def _deal_for(self, n: int) -> Deal:
        src = self._deal_source
        deal = None
        if src is not None:
            deal = src(n) if callable(src) else src.get(n)
        if deal is None:
            return seeded_deal(self.cfg, self._seed, n)
        deal.check(self.cfg)
        return deal

    def _next_step(self) -> None:
        """Run automatic steps until one needs a decision."""
        while self._steps:
            step = self._steps.pop()
            if step == "exchange":
                if xchg.begin(self):
                    return
            elif step == "kitty":
                if self.cfg.kitty_size:
                    self.hands[self.declarer] |= mask_of(self.kitty)
                    self.kitty_taken = True
            elif step == "contract":
                self.decision, self.current_seat = Decision.CONTRACT, self.declarer
                return
            elif step == "discard":
                if self.cfg.kitty_size:
                    self.decision, self.current_seat = Decision.DISCARD, self.declarer
                    return
            else:
                lead = self.seat_of_role[1] if self.cfg.first_lead == "S1" else self.declarer
                self.leader = lead
                self.decision, self.current_seat = _PLAY, lead
                return

    def _set_contract(self, contract: int) -> None:
        self.contract = contract
        used = self.contracts_used[self.declarer] | 1 << contract
        # a completed cycle opens every contract again (RULES.md decision 16)
        self.contracts_used[self.declarer] = 0 if used == self._all_contracts else used
        if contract < 4:
            self.trump, self.follow = contract, self._follow_cfg
        self._next_step()

    def _discard(self, card: int) -> None:
        self.hands[self.declarer] &= ~(1 << card)
        self.discards.append(card)
        if len(self.discards) == self.cfg.kitty_size:
            self._next_step()

    def _play(self, card: int) -> None:
        seat = self.current_seat
        self.hands[seat] &= ~(1 << card)
        trick = self.trick
        trick.append(card)
        self.trick_seats.append(seat)
        if len(trick) < 3:
            self.current_seat = self._next[seat]
            return
        w = self.trick_seats[trick_winner(trick, self.trump)]
        self.tricks.append(TrickRecord(self.leader, tuple(zip(self.trick_seats, trick)), w))
        self.tricks_won[w] += 1
        self.trick = []
        self.trick_seats = []
        self.leader = self.current_seat = w
        if len(self.tricks) == self.cfg.tricks_per_hand:
            self._finish_hand()

    # ----- scoring and match end ------------------------------------------------------------
    def hand_points_now(self) -> tuple[int, int, int]:
        """Points per seat of the current hand if it ended now (see ``scoring.hand_points``)."""
        return scoring.hand_points(self.tricks_won, self.targets, self.limits,
                                   self.contract == MISERE)

    def _finish_hand(self) -> None:
        pts = self.hand_points_now()
        self.hand_points.append(pts)
        for s in range(3):
            self.scores[s] += pts[s]
        self.prev_points = pts
        self.completed_hands.append(HandSummary(
            self.hand_number, self.dealer, self.declarer, self.roles, self.targets, self.limits,
            self.contract, self.deals[-1] if self.deals else None, tuple(self.discards), tuple(self.events),
            tuple(self.tricks), tuple(self.tricks_won), pts, tuple(self.scores)))
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
        self._legal = []
        self._placings = scoring.placings(self.scores, winner)

    def __repr__(self) -> str:
        return (f"MatchState(preset={self.cfg.preset!r}, hand={self.hand_number}, "
                f"phase={self.phase}, seat={self.current_seat}, scores={self.scores})")
