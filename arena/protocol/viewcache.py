"""Incremental ``View`` messages for the hot path: :class:`ViewEncoder` (arena side) and
:class:`ViewDecoder` (bot side, used by the SDK).

Most of a seat's view is the same from one of its decisions to the next within a hand: seat,
roles, targets, scores, contract, kitty, discards, and the hand's past tricks and exchange
events, which only grow. :func:`arena.protocol.convert.view_to_proto` rebuilds all of it for
every decision; a :class:`ViewEncoder` keeps, per (match, seat), a *template* message holding
those slow-changing fields, extends its tricks and exchange events in place as they grow, and
for each decision copies the template (one C-level copy) and sets only the fields that change
with every decision (hand, legal actions, current trick, trick counts, exchange status ...).
:meth:`ViewEncoder.encode_state_into` reads those fields straight from the match state through
the helpers ``view_of`` uses, so the arena does not build a :class:`View` per decision.

A template is rebuilt whenever anything it holds could have changed: its key is the hand
number, contract, trump, kitty state and cards, discards, scores, previous hand's points, hand
points so far, contracts used, the finished flag and the rules; past tricks and events are
append-only within a hand, so lists that do not start with the template's force a rebuild too.
From the state (:meth:`ViewEncoder.encode_state_into`) the template holds the state object
itself and the hand's key; the contract, kitty and discard fields are patched in place when
they change. A match's templates are dropped when it starts or ends; match ids must be unique
among the matches in play on one encoder (they are: the arena's ids are). The results always
equal ``view_to_proto`` / ``view_from_proto`` (``tests/protocol/test_viewcache.py`` checks it at
every decision of many matches under every preset, for every seat, with match ids reused).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..rules import RulesConfig
from ..rules.errors import RulesError
from ..rules.state import MatchState
from ..rules.view import (
    _CONTRACTS_IN_MASK,
    View,
    exchange_status,
    kitty_visible,
    view_of,
    visible_discards,
    visible_hand,
)
from ._gen.threefiveeight.v1 import arena_pb2 as pb
from .convert import (
    _ACTION_TEXT,
    _CARD_CODE,
    _CARD_TEXT,
    _DECISION_FROM_PB,
    _DECISION_TO_PB,
    ConversionError,
    _cards,
    _card,
    _event_from_proto,
    _event_to_proto,
    _opt_index,
    _played,
    _status_from_proto,
    _status_to_proto,
    _trick_from_proto,
    _trick_to_proto,
    _triple,
    action_to_text,
    actions_from_texts,
    view_from_proto,
    view_to_proto,
)

#: fields of ``pb.View`` set on every decision (never taken from the template)
DYNAMIC_FIELDS = ("decision", "to_act", "legal_actions", "hand", "hand_sizes", "hidden_own",
                  "trick", "leader", "tricks_won", "exchange", "placings")

#: per suit: 13-bit rank mask -> texts of those cards (filled on first use; a suit's table is
#: emptied when it reaches _SUIT_TEXTS_MAX, so a long run does not fill all 4 x 8192 masks)
_SUIT_TEXTS: tuple[dict[int, tuple[str, ...]], ...] = ({}, {}, {}, {})
_SUIT_TEXTS_MAX = 1024


def _hand_texts(mask: int) -> list[str]:
    """Texts of the cards in a bitmask, in ``cards_of`` order (suit by suit, rank ascending)."""
    out: list[str] = []
    for suit in range(4):
        ranks = (mask >> (13 * suit)) & 0x1FFF
        if ranks:
            table = _SUIT_TEXTS[suit]
            texts = table.get(ranks)
            if texts is None:
                if len(table) >= _SUIT_TEXTS_MAX:
                    table.clear()
                texts = table[ranks] = tuple(
                    _CARD_TEXT[13 * suit + r] for r in range(13) if ranks >> r & 1)
            out += texts
    return out


K = TypeVar("K")
V = TypeVar("V")

#: templates kept per encoder (one per (match, seat) in play; the oldest goes first)
_MAX_TEMPLATES = 64


def _template_key(view: View) -> tuple:
    return (view.hand_number, view.contract, view.trump, view.kitty_taken, view.discard_count,
            view.scores, view.prev_points, len(view.hand_points), view.contracts_used,
            view.finished, view.cfg, view.kitty, view.discards)


@dataclass(slots=True)
class _Template:
    key: tuple
    msg: pb.View
    n_tricks: int
    n_events: int
    tricks: tuple = ()   # encode_into: the tricks and events the template holds (a view
    events: tuple = ()   # whose lists do not start with them needs a new template)
    state: object = None  # encode_state_into: the match state it was built from (held, so
    semi: tuple = ()      # its id cannot be reused); the contract/kitty/discard state patched in


#: template fields that change at most a few times a hand (contract, kitty, discards): from the
#: state, encode_state_into patches them into the template instead of rebuilding it
SEMI_STATIC_FIELDS = ("contract", "trump", "contracts_used", "kitty_taken", "kitty_visible",
                      "kitty", "discards", "discard_count")


def _semi_key(state: MatchState) -> tuple:
    return (state.contract, state.trump, tuple(state.contracts_used), state.kitty_taken,
            len(state.discards))


def _patch_semi(msg: pb.View, state: MatchState, seat: int) -> None:
    """Set the :data:`SEMI_STATIC_FIELDS` of ``msg`` as ``view_to_proto(view_of(state, seat))``
    would (same helpers as ``view_of``)."""
    for name in SEMI_STATIC_FIELDS:
        msg.ClearField(name)
    msg.contract = _opt_index(state.contract)
    msg.trump = _opt_index(state.trump if state.trump >= 0 else None)
    msg.contracts_used.extend([pb.ContractsUsed(contracts=[c + 1 for c in _CONTRACTS_IN_MASK[u]])
                               for u in state.contracts_used])
    msg.kitty_taken = state.kitty_taken
    if kitty_visible(state, seat):
        msg.kitty_visible = True
        msg.kitty.extend([_CARD_TEXT[c] for c in state.kitty])
    msg.discards.extend([_CARD_TEXT[c] for c in visible_discards(state, seat)])
    msg.discard_count = len(state.discards)


def _template_msg(view: View) -> pb.View:
    """``view_to_proto(view)`` without its :data:`DYNAMIC_FIELDS`."""
    msg = view_to_proto(view)
    for name in DYNAMIC_FIELDS:
        msg.ClearField(name)
    return msg


def _legal_texts(actions: Sequence[int]) -> list[str]:
    """Texts of legal action codes (``action_to_text`` names a code that is not an action)."""
    texts = [_ACTION_TEXT.get(a) for a in actions]
    if None in texts:
        return [action_to_text(a) for a in actions]
    return texts  # type: ignore[return-value]


def _store(cache: dict[K, V], slot: K, value: V) -> V:
    """Keep ``value`` for ``slot``, dropping the oldest entry when a new slot is over the cap."""
    if slot not in cache and len(cache) >= _MAX_TEMPLATES:
        del cache[next(iter(cache))]
    cache[slot] = value
    return value


class ViewEncoder:
    """Builds ``View`` messages equal to ``view_to_proto(view)``, reusing per-(match, seat)
    templates (see the module docstring). Not thread-safe; one per bot connection is typical.
    """

    def __init__(self) -> None:
        self._templates: dict[tuple[str, int], _Template] = {}        # encode_into
        self._state_templates: dict[tuple[str, int], _Template] = {}  # encode_state_into

    def __len__(self) -> int:
        """Templates kept (over all matches not forgotten)."""
        return len(self._templates) + len(self._state_templates)

    def forget(self, match_id: str) -> None:
        """Drop the templates of a match (call when it ends)."""
        for templates in (self._templates, self._state_templates):
            for k in [k for k in templates if k[0] == match_id]:
                del templates[k]

    def encode_into(self, out: pb.View, view: View, match_id: str) -> None:
        """Fill the empty message ``out`` (e.g. ``request.view`` of a new ``DecisionRequest``)
        with ``view``'s content; ``match_id`` keys the template.

        Raises:
            ConversionError: when the view holds an action code that has no text form.
        """
        t = self._template(view, match_id)
        out.CopyFrom(t.msg)
        if view.decision is not None:
            out.decision = _DECISION_TO_PB[view.decision]
        if view.to_act is not None:
            out.to_act = view.to_act
        if view.legal_actions:
            out.legal_actions.extend(_legal_texts(view.legal_actions))
        out.hand.extend([_CARD_TEXT[c] for c in view.hand])
        out.hand_sizes.extend(view.hand_sizes)
        if view.hidden_own:
            out.hidden_own = view.hidden_own
        if view.trick:
            out.trick.extend(_played(view.trick))
        if view.leader is not None:
            out.leader = view.leader
        out.tricks_won.extend(view.tricks_won)
        if view.exchange is not None:
            out.exchange.CopyFrom(_status_to_proto(view.exchange))
        if view.placings:
            out.placings.extend(view.placings)

    def encode(self, view: View, match_id: str) -> pb.View:
        """A new ``View`` message equal to ``view_to_proto(view)`` (see :meth:`encode_into`)."""
        out = pb.View()
        self.encode_into(out, view, match_id)
        return out

    def encode_state_into(self, out: pb.View, state: MatchState, seat: int,
                          match_id: str) -> None:
        """Like :meth:`encode_into` for ``view_of(state, seat)``, without building the
        :class:`View` unless the template must be rebuilt: the per-decision fields are read
        from the state through the same visibility helpers ``view_of`` uses
        (``visible_hand``, ``exchange_status``).

        Raises:
            ValueError: when ``seat`` is not 0, 1 or 2.
        """
        if seat not in (0, 1, 2):
            raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
        t = self._state_template(state, seat, match_id)
        out.CopyFrom(t.msg)
        if not state.finished:
            out.decision = _DECISION_TO_PB[state.decision]
            to_act = out.to_act = state.current_seat
            if to_act == seat:
                out.legal_actions.extend(_legal_texts(state.legal_actions()))
        else:
            out.placings.extend(state.placings)
        hand, hidden = visible_hand(state, seat)
        out.hand.extend(_hand_texts(hand))
        h0, h1, h2 = state.hands
        out.hand_sizes.extend((h0.bit_count(), h1.bit_count(), h2.bit_count()))
        if hidden:
            out.hidden_own = hidden
        if state.trick:
            add = out.trick.add
            for s, c in zip(state.trick_seats, state.trick):
                add(seat=s, card=_CARD_TEXT[c])
        if state.leader is not None:
            out.leader = state.leader
        out.tricks_won.extend(state.tricks_won)
        if state.x is not None:
            out.exchange.CopyFrom(_status_to_proto(exchange_status(state, seat)))

    def _state_template(self, state: MatchState, seat: int, match_id: str) -> _Template:
        slot = (match_id, seat)
        # the same state object in the same hand: its tricks and events only grow
        key = (state.hand_number, state.prev_points, len(state.hand_points), state.finished)
        tricks, events = state.tricks, state.events
        t = self._state_templates.get(slot)
        if (t is None or t.state is not state or t.key != key or len(tricks) < t.n_tricks
                or len(events) < t.n_events):
            return _store(self._state_templates, slot, _Template(
                key, _template_msg(view_of(state, seat)), len(tricks), len(events),
                state=state, semi=_semi_key(state)))
        semi = _semi_key(state)
        if semi != t.semi:
            _patch_semi(t.msg, state, seat)
            t.semi = semi
        if len(tricks) > t.n_tricks:
            t.msg.tricks.extend([_trick_to_proto(x) for x in tricks[t.n_tricks:]])
            t.n_tricks = len(tricks)
        if len(events) > t.n_events:
            t.msg.exchange_events.extend(
                [_event_to_proto(e.seen_by(seat)) for e in events[t.n_events:]])
            t.n_events = len(events)
        return t

    def _template(self, view: View, match_id: str) -> _Template:
        slot = (match_id, view.seat)
        key = _template_key(view)
        t = self._templates.get(slot)
        if (t is None or t.key != key or len(view.tricks) < t.n_tricks
                or len(view.exchange_events) < t.n_events
                or view.tricks[:t.n_tricks] != t.tricks
                or view.exchange_events[:t.n_events] != t.events):
            return _store(self._templates, slot, _Template(
                key, _template_msg(view), len(view.tricks), len(view.exchange_events),
                view.tricks, view.exchange_events))
        if len(view.tricks) > t.n_tricks:
            t.msg.tricks.extend([_trick_to_proto(x) for x in view.tricks[t.n_tricks:]])
            t.n_tricks = len(view.tricks)
            t.tricks = view.tricks
        if len(view.exchange_events) > t.n_events:
            t.msg.exchange_events.extend(
                [_event_to_proto(e) for e in view.exchange_events[t.n_events:]])
            t.n_events = len(view.exchange_events)
            t.events = view.exchange_events
        return t


# ----- the bot's side ------------------------------------------------------------------------
def _decode_key(m: pb.View) -> tuple:
    return (m.hand_number, m.contract, m.kitty_taken, m.discard_count, m.finished)


@dataclass(slots=True)
class _Decoded:
    key: tuple
    view: View             # the last view decoded in full (its slow-changing fields are reused)
    tricks: tuple
    events: tuple


class ViewDecoder:
    """Rebuilds :class:`View` objects from ``View`` messages, equal to
    :func:`arena.protocol.convert.view_from_proto`, reusing per-match work (the bot's side of
    :class:`ViewEncoder`): the slow-changing fields come from the match's previous view while
    its key (hand number, contract, kitty taken, discard count, finished) and rules are
    unchanged, and past tricks and exchange events are converted only when new. The fields that
    change with every decision are converted (and checked) every time.

    It relies on what the arena guarantees within one match (RULES.md: a hand's tricks and
    exchange events only grow; the rest changes only with the key above), so call
    :meth:`forget` when a match starts and ends (the SDK does, on ``MatchStart`` / ``MatchEnd``).

    Raises (from :meth:`decode`): ``ConversionError`` like ``view_from_proto``.
    """

    def __init__(self) -> None:
        self._matches: dict[str, _Decoded] = {}

    def forget(self, match_id: str) -> None:
        """Drop what is kept for a match (call when it ends)."""
        self._matches.pop(match_id, None)

    def decode(self, m: pb.View, cfg: RulesConfig, match_id: str) -> View:
        """The :class:`View` of message ``m`` under rules ``cfg`` (``match_id`` keys the cache)."""
        key = _decode_key(m)
        d = self._matches.get(match_id)
        n_tricks, n_events = len(m.tricks), len(m.exchange_events)
        if (d is None or d.key != key or d.view.cfg is not cfg
                or n_tricks < len(d.tricks) or n_events < len(d.events)):
            view = view_from_proto(m, cfg)
            _store(self._matches, match_id, _Decoded(key, view, view.tricks,
                                                     view.exchange_events))
            return view
        try:
            return self._decode_hit(m, d, n_tricks, n_events)
        except ConversionError:
            raise
        except (RulesError, KeyError, IndexError) as exc:
            raise ConversionError(f"bad View message: {exc}") from exc

    @staticmethod
    def _decode_hit(m: pb.View, d: _Decoded, n_tricks: int, n_events: int) -> View:
        if n_tricks > len(d.tricks):
            d.tricks += tuple([_trick_from_proto(t) for t in m.tricks[len(d.tricks):]])
        if n_events > len(d.events):
            d.events += tuple([_event_from_proto(e) for e in m.exchange_events[len(d.events):]])
        decision = m.decision
        if decision:
            decision = _DECISION_FROM_PB.get(decision)
            if decision is None:
                raise ConversionError(f"View field 'decision': unknown value {m.decision}")
        else:
            decision = None
        hand_sizes, tricks_won, placings = tuple(m.hand_sizes), tuple(m.tricks_won), None
        if len(hand_sizes) != 3:
            _triple(hand_sizes, "hand_sizes")       # raises, naming the field
        if len(tricks_won) != 3:
            _triple(tricks_won, "tricks_won")
        if m.placings:
            placings = _triple(tuple(m.placings), "placings")
        try:
            trick = tuple([(p.seat, _CARD_CODE[p.card]) for p in m.trick])
        except KeyError:
            trick = tuple([(p.seat, _card(p.card)) for p in m.trick])
        b = d.view
        # positional, in View's field order (the tests compare with view_from_proto)
        return View(
            b.cfg, b.seat, b.hand_number, b.dealer, b.declarer, b.roles, b.targets, b.limits,
            b.contract, b.trump, decision,
            m.to_act if m.HasField("to_act") else None,
            actions_from_texts(m.legal_actions), _cards(m.hand), hand_sizes, m.hidden_own,
            b.kitty, b.kitty_taken, b.discards, b.discard_count, trick,
            m.leader if m.HasField("leader") else None,
            d.tricks, tricks_won, d.events,
            _status_from_proto(m.exchange) if m.HasField("exchange") else None,
            b.prev_points, b.scores, b.hand_points, b.contracts_used, b.finished, placings)
