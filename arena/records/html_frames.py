"""The data of the HTML replay page: one frame per step for each perspective, computed from
the rules engine's views (:func:`arena.rules.view_of`).

A *perspective* is ``None`` (every card shown) or a seat 0..2 (only what that seat knew at that
moment). The page never decides visibility itself: for a seat perspective every card text in
its data comes from ``view_of(state, seat)`` (own hand, the kitty where ``kitty_visible``, own
discards, exchange cards only to the two seats who exchanged them), so the JSON of a seat
perspective holds no card that seat did not see by then. Played cards (tricks) are public.

Steps: per hand one "dealt" step (the state before the hand's first decision; where the rules
take the kitty before any decision, it is already in the declarer's hand), then one step per
decision. The shapes are typed: :class:`Frame` (one step as one perspective sees it),
:class:`StepInfo`, :class:`TrickInfo` and :class:`HandInfo` (public); their JSON keys are
their field names (:func:`as_json`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace

from ..rules import MISERE, card_str, contract_name, parse_action
from ..rules.actions import GIVE_BASE
from ..rules import parse_card as _card
from ..rules.cards import cards_of, rank_of, suit_of
from ..rules.exchange import ExchangeEvent
from .models import DecisionRecord, HandRecord, MatchRecord
from .replayer import Replayer, Step, deal_from_seats
from .text import clean, event_text
from .verify import rules_of

#: one JSON object of the page's data (a frame, a step, a hand; shapes in the docstrings)
Json = dict[str, object]
#: a card moved by an exchange: ``[from seat, to seat, card text or None]``
Flight = list[int | str | None]
#: a card on the table: ``[seat, card text]``
SeatCard = list[int | str]


@dataclass(frozen=True, slots=True)
class TrickInfo:
    """A completed trick (public): ``leader`` seat, ``cards`` ``[seat, card]`` in play order,
    ``winner`` seat, ``step`` the page step that completed it."""

    leader: int
    cards: list[SeatCard]
    winner: int
    step: int


@dataclass(frozen=True, slots=True)
class HandInfo:
    """One hand (public): its 1-based number, roles, contract name, per-seat ``targets``,
    misère ``limits``, ``points`` and the match ``scores`` after it, ``start`` the page step
    of its "dealt" frame and its completed ``tricks``."""

    hand: int
    dealer: int
    declarer: int
    contract: str | None
    targets: list[int]
    limits: list[int]
    points: list[int]
    scores: list[int]
    start: int
    tricks: list[TrickInfo]


@dataclass(frozen=True, slots=True)
class StepInfo:
    """One page step (public): ``hand_index`` (0-based index into the hands), ``seat`` who
    decided (None for a "dealt" step), ``kind`` (``"deal"`` or the decision kind),
    ``think_ms`` the bot's think time in milliseconds (None when it was not asked) and
    ``faulted`` whether the arena recorded a fault for it (the detail stays in the frames of
    the perspectives allowed to see it)."""

    hand_index: int
    seat: int | None
    kind: str
    think_ms: float | None
    faulted: bool


@dataclass(frozen=True, slots=True)
class Cards:
    """Where the cards are as one perspective sees them (a part of :class:`Frame`)."""

    #: per seat the card texts (None in a list: an own card not yet seen); None: hidden hand
    hands: list[list[str | None] | None]
    hand_sizes: list[int]
    kitty: list[str | None] | None          #: None: not shown to this perspective
    kitty_size: int
    kitty_taken: bool
    discards: list[str | None] | None       #: None: face down to this perspective
    discard_count: int


@dataclass(frozen=True, slots=True)
class Frame(Cards):
    """One step as one perspective sees it (all cards, or one seat's knowledge then).

    ``caption`` says what happened; ``trick`` the cards on the table ``[seat, card]``;
    ``winner`` of the trick just completed (else None); ``tricks_won`` and ``tricks_needed``
    (targets, or misère limits) per seat; ``scores`` the match scores; ``contract`` its name
    once chosen; ``tricks_done`` tricks completed this hand; ``hand_over``; ``exchange_count``
    exchange events so far this hand; ``flights`` the cards this step's exchange moved
    ``[from, to, card or None]``; ``fault`` ``[kind, detail]`` where this perspective may see
    it."""

    hand_index: int = 0
    caption: str = ""
    trick: list[SeatCard] = field(default_factory=list)
    winner: int | None = None
    tricks_won: list[int] = field(default_factory=list)
    tricks_needed: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    contract: str | None = None
    tricks_done: int = 0
    hand_over: bool = False
    exchange_count: int = 0
    flights: list[Flight] = field(default_factory=list)
    fault: list[str] | None = None


def as_json(item: TrickInfo | HandInfo | StepInfo | Frame) -> Json:
    """The JSON object of a typed item: its fields by name (a hand's tricks too). Shallow:
    the values are shared with ``item``, not copied (a page holds thousands of frames)."""
    out: Json = {name: getattr(item, name) for name in _names(type(item))}
    if isinstance(item, HandInfo):
        out["tricks"] = [as_json(t) for t in item.tricks]
    return out


_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    """The field names of dataclass ``cls`` (kept: a page builds thousands of frames)."""
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


def key_of(seat: int | None) -> str:
    """The JSON key of a perspective: ``"all"`` or ``"0"`` .. ``"2"``."""
    return "all" if seat is None else str(seat)


def replayer(record: MatchRecord) -> Replayer:
    """A full-information :class:`Replayer` at the start of ``record``."""
    deals = {hr.hand: deal_from_seats(tuple(tuple(map(_card, hr.dealt[s])) for s in range(3)),
                                      hr.roles, tuple(map(_card, hr.kitty)))
             for hr in record.hands}
    return Replayer(rules_of(record), record.header.seed.to_seed(), deals)


def texts(cards: Iterable[int], size: int | None = None) -> list[str | None]:
    """Card texts by suit (S H D C), high to low within a suit, padded with None (a card not
    seen, shown face down) up to ``size``."""
    out: list[str | None] = [card_str(c) for c in sorted(cards, key=lambda c: (suit_of(c),
                                                                               -rank_of(c)))]
    return out + [None] * ((size or 0) - len(out))


def public_data(record: MatchRecord) -> Json:
    """What every perspective may see: ``hands`` (:class:`HandInfo` per hand) and ``steps``
    (:class:`StepInfo` per page step), as JSON."""
    hands: list[HandInfo] = []
    steps: list[StepInfo] = []
    for i, hr in enumerate(record.hands):
        start = len(steps)
        steps.append(StepInfo(i, None, "deal", None, False))
        plays = 0
        tricks: list[TrickInfo] = []
        for d in hr.decisions:
            steps.append(StepInfo(i, d.seat, d.kind, d.think_ms, d.fault is not None))
            if d.kind == "play":
                plays += 1
                if plays % 3 == 0:
                    t = hr.tricks[plays // 3 - 1]
                    tricks.append(TrickInfo(t.leader, [list(c) for c in t.cards], t.winner,
                                            len(steps) - 1))
        hands.append(HandInfo(hr.hand, hr.dealer, hr.declarer, hr.contract, list(hr.targets),
                              list(hr.limits), list(hr.points), list(hr.scores), start, tricks))
    return {"hands": [as_json(h) for h in hands], "steps": [as_json(s) for s in steps]}


def perspective_data(record: MatchRecord, labels: list[str], seat: int | None) -> Json:
    """The frames of one perspective (``seat`` None: all cards) as JSON-ready dicts.

    Returns ``{"frames": [...], "moves": [...], "exchange": [...]}``: ``frames`` the
    :class:`Frame` of each step as deltas (:func:`delta_frames`; :func:`full_frames` restores
    them), ``moves`` one label per step (what this perspective saw of the decision),
    ``exchange`` per hand the exchange events in words as this perspective saw them.

    Raises:
        IllegalActionError / DealError: when the record does not replay (verify it first).
    """
    rep = replayer(record)
    frames: list[Frame] = []
    moves: list[str] = []
    exchange: list[list[str]] = []
    for i, hr in enumerate(record.hands):
        exchange.append([])
        _HandFrames(rep, hr, i, labels, seat, frames, moves, exchange[-1]).run()
    return {"frames": delta_frames([as_json(f) for f in frames]), "moves": moves,
            "exchange": exchange}


def delta_frames(frames: list[Json]) -> list[Json]:
    """Frames as deltas: the first whole, each later one only with the keys whose value
    changed since the frame before (the page fills the rest forward; about half the size)."""
    out: list[Json] = []
    prev: Json = {}
    for f in frames:
        out.append({k: v for k, v in f.items() if k not in prev or prev[k] != v})
        prev = f
    return out


def full_frames(frames: list[Json]) -> list[Json]:
    """Inverse of :func:`delta_frames` (what the page does on load)."""
    out: list[Json] = []
    prev: Json = {}
    for f in frames:
        prev = {**prev, **f}
        out.append(prev)
    return out


class _HandFrames:
    """Appends the frames of one hand for one perspective."""

    def __init__(self, rep: Replayer, hr: HandRecord, index: int, labels: list[str],
                 seat: int | None, frames: list[Frame], moves: list[str],
                 exchange: list[str]) -> None:
        self.rep, self.hr, self.index, self.L, self.seat = rep, hr, index, labels, seat
        self.frames, self.moves, self.exchange = frames, moves, exchange
        self.need = list(hr.targets)
        self.contract: str | None = None
        self.tno = 0
        self.last: Cards | None = None

    def run(self) -> None:
        rep, hr, L = self.rep, self.hr, self.L
        st = rep.state
        cap = f"Hand {hr.hand}: dealt; dealer {L[hr.dealer]}, declarer {L[hr.declarer]}"
        if st.kitty_taken:
            cap += f"; {L[hr.declarer]} takes the kitty"
        self.moves.append(f"Hand {hr.hand} dealt")
        self.emit(cap, self.cards_now(), [], None, [0, 0, 0], list(st.scores), False, [], None)
        for d in hr.decisions:
            taken_before = st.kitty_taken
            step = rep.step(parse_action(d.action))
            self.decision(step, d, taken_before)

    def decision(self, step: Step, d: DecisionRecord, taken_before: bool) -> None:
        rep, L, seat = self.rep, self.L, self.seat
        if step.contract is not None:
            self.contract = contract_name(step.contract)
            if step.contract == MISERE:
                self.need = list(self.hr.limits)
        if step.trick is not None:
            self.tno = step.trick[0]
        events = step.events
        if seat is not None and events:
            events = rep.view(seat).exchange_events[-len(events):]
        self.exchange.extend(event_text(e, tuple(L)) for e in events)
        cap = _move_text(step, L, seat, events)
        self.moves.append(cap if len(events) < 3 else
                          f"{event_text(events[0], tuple(L))} and {len(events) - 1} more "
                          "exchange events")
        if step.hand_end is None and rep.state.kitty_taken and not taken_before:
            cap += f"; {L[self.hr.declarer]} takes the kitty"
        if step.trick is not None:
            k, tr = step.trick
            cap += f"; {L[tr.winner]} wins trick {k}"
        if step.hand_end is not None:
            pts = ", ".join(f"{L[s]} {p:+d}" for s, p in enumerate(step.hand_end.points))
            cap += f"; hand over: {pts}"
        fault: list[str] | None = None
        if d.fault is not None and seat in (None, d.seat):
            fault = [clean(d.fault), clean(d.detail or "")]
            cap += f"; FAULT by {L[d.seat]}: {clean(d.fault)}" + (f" ({clean(d.detail)})"
                                                          if d.detail else "")
        t = step.table
        cards = self.cards_now() if step.hand_end is None or self.last is None else \
            replace(self.last, hands=[None if seat not in (None, s) else [] for s in range(3)],
                    hand_sizes=[0, 0, 0])
        self.emit(cap, cards, [[s, card_str(c)] for s, c in t.trick], t.winner,
                  list(t.tricks_won), list(t.scores), step.hand_end is not None,
                  [f for f in map(_flight, events) if f is not None], fault)

    def cards_now(self) -> Cards:
        """Hands, kitty and discards as this perspective sees them now (mid-hand)."""
        st, seat, hr = self.rep.state, self.seat, self.hr
        kn = len(hr.kitty)
        if seat is None:
            return Cards(hands=[texts(cards_of(h)) for h in st.hands],
                         hand_sizes=[h.bit_count() for h in st.hands],
                         kitty=texts(map(_card, hr.kitty)), kitty_size=kn,
                         kitty_taken=st.kitty_taken, discards=texts(st.discards),
                         discard_count=len(st.discards))
        v = self.rep.view(seat)
        return Cards(hands=[texts(v.hand, len(v.hand) + v.hidden_own) if s == seat else None
                            for s in range(3)],
                     hand_sizes=list(v.hand_sizes),
                     kitty=None if v.kitty is None else texts(v.kitty), kitty_size=kn,
                     kitty_taken=v.kitty_taken,
                     discards=texts(v.discards) if seat == v.declarer else None,
                     discard_count=v.discard_count)

    def emit(self, cap: str, cards: Cards, trick: list[SeatCard], winner: int | None,
             won: list[int], scores: list[int], end: bool, fly: list[Flight],
             fault: list[str] | None) -> None:
        self.last = cards
        self.frames.append(Frame(
            **{name: getattr(cards, name) for name in _names(Cards)},
            hand_index=self.index, caption=cap, trick=trick, winner=winner, tricks_won=won,
            tricks_needed=list(self.need), scores=scores, contract=self.contract,
            tricks_done=self.tno, hand_over=end, exchange_count=len(self.exchange),
            flights=fly, fault=fault))


def _flight(e: ExchangeEvent) -> Flight | None:
    """``[from, to, card or None]`` of a card moved by an exchange event, else None."""
    moved = e.transfer()
    if moved is None:
        return None
    return [moved[0], moved[1], None if e.card is None else card_str(e.card)]


def _move_text(step: Step, labels: list[str], seat: int | None,
               events: Sequence[ExchangeEvent]) -> str:
    """What a decision did, as ``seat`` (None: everybody) saw it."""
    who = labels[step.seat]
    if step.kind == "play":
        return f"{who} plays {card_str(step.action)}"
    if step.discard is not None:
        return f"{who} discards " + (card_str(step.action) if seat in (None, step.seat)
                                     else "a card")
    if step.contract is not None:
        return f"{who} chooses {contract_name(step.contract)}"
    return _exchange_text(step, labels, seat, events)


def _exchange_text(step: Step, labels: list[str], seat: int | None,
                   events: Sequence[ExchangeEvent]) -> str:
    """What an exchange decision did, as ``seat`` (None: everybody) saw it."""
    who = labels[step.seat]
    if events:
        return "; ".join(event_text(e, tuple(labels)) for e in events)
    if GIVE_BASE <= step.action < GIVE_BASE + 3 * 52:  # a pass-return batch choice
        down, card = divmod(step.action - GIVE_BASE, 52)
        if seat in (None, step.seat):
            return f"{who} picks {card_str(card)} to give to {labels[down]}"
        return f"{who} picks a card to give"
    return f"{who} exchanges"
