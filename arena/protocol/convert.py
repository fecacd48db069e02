"""Conversions between the rules engine's objects and the protocol's messages (both ways).

- :func:`rules_to_proto` / :func:`rules_from_proto`: :class:`RulesConfig` <-> ``RulesConfig``
  message (preset + every option; rebuilt with ``make_config(preset, **options)``).
- :func:`view_to_proto` / :func:`view_from_proto`: :class:`View` <-> ``View`` message. The
  message carries no rules (they come once per match in ``MatchStart``), so the reverse
  direction takes the match's ``cfg``: ``view_from_proto(view_to_proto(v), v.cfg) == v``.
- :func:`action_to_text` / :func:`action_from_text`: action code <-> text (``"AS"``,
  ``"trump:H"``, ``"demand:1:S"``, ``"give:2:10D"``, ``"stop"``), via the engine's
  ``action_str`` / ``parse_action``.
- match start / end <-> :class:`MatchInfo` / :class:`MatchEnd`.

Cards travel as text (``"10H"``); enums shift the engine's 0-based indexes by one because
protobuf enum value 0 means "unspecified" (``Contract``: index + 1, ``Suit``: suit + 1).

Every ``*_from_proto`` raises :class:`ConversionError` (a ``ValueError``) naming the field when
a message does not describe a valid object.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from ..match.bot import MatchEnd, MatchInfo
from ..rules import OPTION_NAMES, Decision, RulesConfig, make_config
from ..rules.actions import action_str, parse_action
from ..rules.cards import SUITS, card_str, parse_card
from ..rules.errors import RulesError
from ..rules.exchange import ExchangeEvent, ExchangeKind
from ..rules.history import TrickRecord
from ..rules.view import ExchangeStatus, View
from ._gen.threefiveeight.v1 import arena_pb2 as pb

T = TypeVar("T")


class ConversionError(ValueError):
    """A protocol message does not describe a valid engine object (the message says which
    field and why)."""


# ----- cards, actions ------------------------------------------------------------------------
CARD_TEXT = tuple(card_str(c) for c in range(52))
CARD_CODE = {t: c for c, t in enumerate(CARD_TEXT)}


def card_from_text(text: str) -> int:
    code = CARD_CODE.get(text)
    return parse_card(text) if code is None else code


def cards_from_texts(texts: Any) -> tuple[int, ...]:
    try:
        return tuple([CARD_CODE[t] for t in texts])
    except KeyError:  # not the canonical spelling (or not a card): parse_card decides
        return tuple([card_from_text(t) for t in texts])


def action_to_text(action: int) -> str:
    """Text form of an action code (``arena.rules.action_str``).

    Raises:
        ConversionError: when ``action`` is not an action code.
    """
    try:
        return action_str(action)
    except (RulesError, TypeError, IndexError) as exc:
        raise ConversionError(f"not an action code: {action!r}") from exc


_ACTION_CODE = {action_str(c): c for c in (
    list(range(52)) + list(range(60, 66)) + list(range(70, 82)) + [99] + list(range(100, 256)))}


#: action code -> its canonical text
ACTION_TEXT: dict[int, str] = {c: t for t, c in _ACTION_CODE.items()}


def actions_from_texts(texts: Any) -> tuple[int, ...]:
    """Action codes of a sequence of action texts (see :func:`action_from_text`).

    Raises:
        ConversionError: when a text is not an action.
    """
    try:
        return tuple([_ACTION_CODE[t] for t in texts])
    except KeyError:
        return tuple([action_from_text(t) for t in texts])


def action_from_text(text: str) -> int:
    """Action code of a text form (case-insensitive; ``arena.rules.parse_action``).

    Raises:
        ConversionError: when the text is not an action; the message shows the forms.
    """
    code = _ACTION_CODE.get(text)  # the canonical spelling: no parsing
    if code is not None:
        return code
    try:
        return parse_action(text)
    except (RulesError, AttributeError) as exc:
        raise ConversionError(
            f"not an action: {text!r} (expected a card like 'AS' or '10H', 'trump:H', "
            "'no-trump', 'misere', 'demand:1:S', 'give:2:10D' or 'stop')") from exc


# ----- rules ---------------------------------------------------------------------------------
_INT, _STR, _BOOL, _TRIPLE, _OPT_TRIPLE, _OPT_INT = range(6)
#: how each rule option travels (tests check this covers arena.rules.OPTION_NAMES exactly)
OPTION_KINDS: dict[str, int] = {
    "deck": _INT, "removed_card": _STR, "direction": _STR, "declarer": _STR,
    "targets": _TRIPLE, "first_lead": _STR, "no_trump": _BOOL, "misere": _BOOL,
    "contract_once": _BOOL, "declarer_view": _STR, "kitty_shown": _BOOL,
    "deal_pattern": _STR, "exchange": _STR, "exchange_timing": _STR, "exchange_order": _STR,
    "double_payment": _BOOL, "exchange_optional": _BOOL, "follow": _STR,
    "misere_limits": _OPT_TRIPLE, "twelve_trick_win": _BOOL, "end_score": _OPT_INT,
    "end_score_either_sign": _BOOL, "end_hands": _OPT_INT, "tie_break": _STR,
    "tie_extra_hands": _OPT_INT, "hand_cap": _INT,
}


def rules_to_proto(cfg: RulesConfig) -> pb.RulesConfig:
    """The ``RulesConfig`` message of ``cfg`` (preset and every option value)."""
    msg = pb.RulesConfig(preset=cfg.preset)
    for name in OPTION_NAMES:
        value = getattr(cfg, name)
        if value is None:
            continue  # optional scalar absent / repeated empty
        if OPTION_KINDS[name] in (_TRIPLE, _OPT_TRIPLE):
            getattr(msg, name).extend(value)
        else:
            setattr(msg, name, value)
    return msg


def rules_from_proto(msg: pb.RulesConfig) -> RulesConfig:
    """Rebuild the :class:`RulesConfig` (``make_config(msg.preset, **options)``).

    Raises:
        ConversionError: unknown preset, or an option value the rules engine rejects (the
            message names the option and its valid values).
    """
    options: dict[str, Any] = {}
    for name in OPTION_NAMES:
        kind = OPTION_KINDS[name]
        if kind == _OPT_INT:
            options[name] = getattr(msg, name) if msg.HasField(name) else None
        elif kind in (_TRIPLE, _OPT_TRIPLE):
            values = tuple(getattr(msg, name))
            options[name] = None if kind == _OPT_TRIPLE and not values else values
        else:
            options[name] = getattr(msg, name)
    try:
        return make_config(msg.preset, **options)
    except RulesError as exc:
        raise ConversionError(f"bad RulesConfig message: {exc}") from exc


# ----- view ----------------------------------------------------------------------------------
#: engine decision kind -> protobuf enum value
DECISION_TO_PB: dict[Decision, pb.DecisionKind] = {
    Decision.EXCHANGE_DEMAND: pb.DECISION_KIND_EXCHANGE_DEMAND,
    Decision.EXCHANGE_GIVE: pb.DECISION_KIND_EXCHANGE_GIVE,
    Decision.EXCHANGE_RETURN: pb.DECISION_KIND_EXCHANGE_RETURN,
    Decision.CONTRACT: pb.DECISION_KIND_CONTRACT,
    Decision.DISCARD: pb.DECISION_KIND_DISCARD,
    Decision.PLAY: pb.DECISION_KIND_PLAY,
}
#: protobuf enum value -> engine decision kind
DECISION_FROM_PB: dict[int, Decision] = {v: k for k, v in DECISION_TO_PB.items()}
_EVENT_TO_PB: dict[ExchangeKind, pb.ExchangeEventKind] = {
    ExchangeKind.DEMAND: pb.EXCHANGE_EVENT_KIND_DEMAND,
    ExchangeKind.VOID: pb.EXCHANGE_EVENT_KIND_VOID,
    ExchangeKind.GIVE: pb.EXCHANGE_EVENT_KIND_GIVE,
    ExchangeKind.RETURN: pb.EXCHANGE_EVENT_KIND_RETURN,
    ExchangeKind.STOP: pb.EXCHANGE_EVENT_KIND_STOP}
_EVENT_FROM_PB: dict[int, ExchangeKind] = {v: k for k, v in _EVENT_TO_PB.items()}
#: protobuf enum values by engine index + 1 (0 = unspecified, i.e. None)
_SUIT_TO_PB: tuple[pb.Suit, ...] = (pb.SUIT_UNSPECIFIED, pb.SUIT_SPADES, pb.SUIT_HEARTS,
                                    pb.SUIT_DIAMONDS, pb.SUIT_CLUBS)
_CONTRACT_TO_PB: tuple[pb.Contract, ...] = (
    pb.CONTRACT_UNSPECIFIED, pb.CONTRACT_TRUMP_SPADES, pb.CONTRACT_TRUMP_HEARTS,
    pb.CONTRACT_TRUMP_DIAMONDS, pb.CONTRACT_TRUMP_CLUBS, pb.CONTRACT_NO_TRUMP, pb.CONTRACT_MISERE)


def _suit_to_pb(suit: int | None) -> pb.Suit:
    """Engine suit (None or 0..3) -> ``Suit`` enum value (index + 1; 0 = unspecified)."""
    return _SUIT_TO_PB[0 if suit is None else suit + 1]


def _contract_to_pb(contract: int | None) -> pb.Contract:
    """Engine contract (None or 0..5) -> ``Contract`` enum value (index + 1)."""
    return _CONTRACT_TO_PB[0 if contract is None else contract + 1]


def _from_enum(value: int) -> int | None:
    return None if value == 0 else value - 1


def _suit_letters(mask: int) -> str:
    return "".join(SUITS[s] for s in range(4) if mask >> s & 1)


def _suit_mask(text: str) -> int:
    mask = 0
    for ch in text.upper():
        if ch not in SUITS:
            raise ConversionError(f"not a suit letter: {ch!r} in {text!r}")
        mask |= 1 << SUITS.index(ch)
    return mask


def played_to_proto(pairs: Any) -> list[pb.PlayedCard]:
    return [pb.PlayedCard(seat=s, card=CARD_TEXT[c]) for s, c in pairs]


_TRICK_CACHE: dict[TrickRecord, pb.Trick] = {}
#: tricks kept by the conversion caches: enough for the current hands of hundreds of concurrent
#: matches (a trick is useful only until its hand ends), small enough that a long run does not
#: keep megabytes of finished tricks
_TRICK_CACHE_MAX = 2048


def trick_to_proto(t: TrickRecord) -> pb.Trick:
    """``Trick`` message of a completed trick, cached: a hand's past tricks are sent again in
    every later view, and building them is most of a view's conversion cost (the cache holds
    immutable records only and is cleared when it grows past ``_TRICK_CACHE_MAX``)."""
    msg = _TRICK_CACHE.get(t)
    if msg is None:
        if len(_TRICK_CACHE) >= _TRICK_CACHE_MAX:
            _TRICK_CACHE.clear()
        msg = _TRICK_CACHE[t] = pb.Trick(leader=t.leader, cards=played_to_proto(t.cards),
                                         winner=t.winner)
    return msg


def event_to_proto(e: ExchangeEvent) -> pb.ExchangeEvent:
    msg = pb.ExchangeEvent(kind=_EVENT_TO_PB[e.kind], up=e.up, suit=_suit_to_pb(e.suit),
                           card="" if e.card is None else CARD_TEXT[e.card],
                           came_back=e.came_back)
    if e.down is not None:
        msg.down = e.down
    return msg


def status_to_proto(x: ExchangeStatus) -> pb.ExchangeStatus:
    msg = pb.ExchangeStatus(
        up=x.up, up_left=x.up_left, queue=x.queue, down_left=x.down_left,
        voids=[_suit_letters(v) for v in x.voids],
        batch=[pb.BatchEntry(down=d, card=CARD_TEXT[c]) for d, c in x.batch],
        batch_count=x.batch_count)
    if x.give_to is not None:
        msg.give_to = x.give_to
    if x.return_from is not None:
        msg.return_from = x.return_from
    return msg


def view_to_proto(view: View, *, history: bool = True) -> pb.View:
    """The ``View`` message of ``view`` (everything but ``cfg``, which ``MatchStart`` carries;
    with ``history=False`` also without the hand's past tricks and exchange events, which the
    view encoder keeps serialised on their own).

    Raises:
        ConversionError: when the view holds an action code that has no text form.
    """
    msg = pb.View(
        seat=view.seat, hand_number=view.hand_number, dealer=view.dealer,
        declarer=view.declarer, roles=view.roles, targets=view.targets, limits=view.limits,
        contract=_contract_to_pb(view.contract), trump=_suit_to_pb(view.trump),
        decision=(pb.DECISION_KIND_UNSPECIFIED if view.decision is None
                  else DECISION_TO_PB[view.decision]),
        legal_actions=[action_to_text(a) for a in view.legal_actions],
        hand=[CARD_TEXT[c] for c in view.hand], hand_sizes=view.hand_sizes,
        hidden_own=view.hidden_own, kitty_visible=view.kitty is not None,
        kitty=[CARD_TEXT[c] for c in view.kitty or ()], kitty_taken=view.kitty_taken,
        discards=[CARD_TEXT[c] for c in view.discards], discard_count=view.discard_count,
        trick=played_to_proto(view.trick),
        tricks=[trick_to_proto(t) for t in view.tricks] if history else (),
        tricks_won=view.tricks_won,
        exchange_events=[event_to_proto(e) for e in view.exchange_events] if history else (),
        scores=view.scores,
        hand_points=[pb.SeatPoints(by_seat=p) for p in view.hand_points],
        contracts_used=[pb.ContractsUsed(contracts=[_CONTRACT_TO_PB[c + 1] for c in used])
                        for used in view.contracts_used],
        finished=view.finished, placings=view.placings or (),
    )
    if view.to_act is not None:
        msg.to_act = view.to_act
    if view.leader is not None:
        msg.leader = view.leader
    if view.exchange is not None:
        msg.exchange.CopyFrom(status_to_proto(view.exchange))
    if view.prev_points is not None:
        msg.prev_points.by_seat.extend(view.prev_points)
    return msg


def triple(values: Sequence[T], field: str) -> tuple[T, T, T]:
    if len(values) != 3:
        raise ConversionError(f"View field '{field}' must have 3 entries (by seat), "
                              f"got {len(values)}")
    return (values[0], values[1], values[2])


def _opt(msg: Any, field: str) -> int | None:
    return getattr(msg, field) if msg.HasField(field) else None


def event_from_proto(m: pb.ExchangeEvent) -> ExchangeEvent:
    if m.kind not in _EVENT_FROM_PB:
        raise ConversionError(f"exchange event kind {m.kind} is not known")
    return ExchangeEvent(_EVENT_FROM_PB[m.kind], m.up, _opt(m, "down"), _from_enum(m.suit),
                         card_from_text(m.card) if m.card else None, m.came_back)


def status_from_proto(m: pb.ExchangeStatus) -> ExchangeStatus:
    return ExchangeStatus(
        up=m.up, up_left=m.up_left, queue=tuple(m.queue),
        down_left=triple(m.down_left, "exchange.down_left"),
        voids=triple([_suit_mask(v) for v in m.voids], "exchange.voids"),
        give_to=_opt(m, "give_to"), return_from=_opt(m, "return_from"),
        batch=tuple((b.down, card_from_text(b.card)) for b in m.batch), batch_count=m.batch_count)


def view_from_proto(msg: pb.View, cfg: RulesConfig) -> View:
    """Rebuild the engine's :class:`View` from its message and the match's rules.

    The result can be handed to ``MatchState.from_view``.

    Raises:
        ConversionError: a card or action that does not parse, a per-seat field without 3
            entries, or an unknown enum value.
    """
    try:
        return _view_from_proto(msg, cfg)
    except ConversionError:
        raise
    except (RulesError, KeyError, IndexError) as exc:
        raise ConversionError(f"bad View message: {exc}") from exc


_TRICK_FROM: dict[bytes, TrickRecord] = {}


def trick_from_proto(t: pb.Trick) -> TrickRecord:
    """``TrickRecord`` of a ``Trick`` message, cached by its bytes (a bot gets each past
    trick again in every later view of the hand); cleared past ``_TRICK_CACHE_MAX``."""
    key = t.SerializeToString()
    rec = _TRICK_FROM.get(key)
    if rec is None:
        if len(_TRICK_FROM) >= _TRICK_CACHE_MAX:
            _TRICK_FROM.clear()
        rec = _TRICK_FROM[key] = TrickRecord(
            t.leader, tuple((p.seat, card_from_text(p.card)) for p in t.cards), t.winner)
    return rec


def _view_from_proto(m: pb.View, cfg: RulesConfig) -> View:
    if m.decision != 0 and m.decision not in DECISION_FROM_PB:
        raise ConversionError(f"View field 'decision': unknown value {m.decision}")
    placings = tuple(m.placings)
    return View(
        cfg=cfg, seat=m.seat, hand_number=m.hand_number, dealer=m.dealer, declarer=m.declarer,
        roles=triple(m.roles, "roles"), targets=triple(m.targets, "targets"),
        limits=triple(m.limits, "limits"), contract=_from_enum(m.contract),
        trump=_from_enum(m.trump),
        decision=None if m.decision == 0 else DECISION_FROM_PB[m.decision],
        to_act=_opt(m, "to_act"),
        legal_actions=actions_from_texts(m.legal_actions),
        hand=cards_from_texts(m.hand), hand_sizes=triple(m.hand_sizes, "hand_sizes"),
        hidden_own=m.hidden_own, kitty=cards_from_texts(m.kitty) if m.kitty_visible else None,
        kitty_taken=m.kitty_taken, discards=cards_from_texts(m.discards),
        discard_count=m.discard_count,
        trick=tuple((p.seat, card_from_text(p.card)) for p in m.trick), leader=_opt(m, "leader"),
        tricks=tuple(trick_from_proto(t) for t in m.tricks),
        tricks_won=triple(m.tricks_won, "tricks_won"),
        exchange_events=tuple(event_from_proto(e) for e in m.exchange_events),
        exchange=status_from_proto(m.exchange) if m.HasField("exchange") else None,
        prev_points=(triple(m.prev_points.by_seat, "prev_points")
                     if m.HasField("prev_points") else None),
        scores=triple(m.scores, "scores"),
        hand_points=tuple(triple(p.by_seat, "hand_points") for p in m.hand_points),
        contracts_used=triple([tuple(c - 1 for c in u.contracts) for u in m.contracts_used],
                               "contracts_used"),
        finished=m.finished, placings=triple(placings, "placings") if placings else None,
    )


# ----- match start / end ---------------------------------------------------------------------
def match_start_to_proto(info: MatchInfo) -> pb.MatchStart:
    """The ``MatchStart`` message of a :class:`MatchInfo`."""
    return pb.MatchStart(match_id=info.match_id, rules=rules_to_proto(info.cfg), seat=info.seat,
                         names=info.names, time_per_decision_ms=info.time_per_decision_ms)


def match_info_from_proto(msg: pb.MatchStart) -> MatchInfo:
    """Rebuild the :class:`MatchInfo` of a ``MatchStart`` message.

    Raises:
        ConversionError: bad rules, a seat outside 0..2, or not 3 names.
    """
    if msg.seat not in (0, 1, 2):
        raise ConversionError(f"MatchStart field 'seat' must be 0, 1 or 2, got {msg.seat}")
    names = tuple(msg.names)
    if len(names) != 3:
        raise ConversionError(f"MatchStart field 'names' must have 3 entries, got {len(names)}")
    return MatchInfo(msg.match_id, rules_from_proto(msg.rules), msg.seat,
                     (names[0], names[1], names[2]), msg.time_per_decision_ms)


def match_end_to_proto(end: MatchEnd) -> pb.MatchEnd:
    """The ``MatchEnd`` message of a :class:`MatchEnd`."""
    return pb.MatchEnd(match_id=end.match_id, scores=end.scores, placings=end.placings,
                       reason=end.reason or "")


def match_end_from_proto(msg: pb.MatchEnd) -> MatchEnd:
    """Rebuild the :class:`MatchEnd` of a ``MatchEnd`` message.

    Raises:
        ConversionError: when scores or placings do not have 3 entries.
    """
    scores, placings = tuple(msg.scores), tuple(msg.placings)
    if len(scores) != 3 or len(placings) != 3:
        raise ConversionError("MatchEnd fields 'scores' and 'placings' must have 3 entries")
    return MatchEnd(msg.match_id, (scores[0], scores[1], scores[2]),
                    (placings[0], placings[1], placings[2]), msg.reason)
