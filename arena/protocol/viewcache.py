"""Incremental ``View`` messages for the hot path: :class:`ViewEncoder` (arena side) and
:class:`ViewDecoder` (bot side, used by the SDK).

Most of a seat's view is the same from one of its decisions to the next within a hand: seat,
roles, targets, scores, contract, kitty, and the hand's past tricks and exchange events, which
only grow. :func:`arena.protocol.convert.view_to_proto` rebuilds all of it for
every decision; a :class:`ViewEncoder` keeps, per (match, seat), a *template*: those
slow-changing fields serialised, extended with each new trick and exchange event as they come,
and for each decision appends to it only the fields that change with every decision (hand,
legal actions, current trick, trick counts, exchange status, and the discards, which grow one
card a decision while the declarer discards ...), written from bytes made once
(:mod:`arena.protocol.wire`; serialised fields concatenate into one message). The encoder
reads nothing but the :class:`~arena.rules.view.View` the rules engine built
(``arena.rules.view_of``): the protocol never sees the match state.

A template is rebuilt whenever anything it holds could have changed: its key is the hand
number, contract, trump, kitty state and cards, scores, previous hand's points, hand points so
far, contracts used, the finished flag and the rules; past tricks and events are
append-only within a hand, so lists that do not start with the template's force a rebuild too.
A match's templates are dropped when it starts or ends; match ids must be unique among the
matches in play on one encoder (they are: the arena's ids are). The results always equal
``view_to_proto`` / ``view_from_proto`` (``tests/protocol/test_viewcache.py`` checks it at every
decision of many matches under every preset and over random option combinations, for every
seat, with match ids reused).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..rules import Decision, RulesConfig
from ..rules.errors import RulesError
from ..rules.exchange import ExchangeEvent
from ..rules.history import TrickRecord
from ..rules.view import View
from ._gen.threefiveeight.v1 import arena_pb2 as pb
from .convert import (
    CARD_CODE,
    DECISION_FROM_PB,
    ConversionError,
    actions_from_texts,
    card_from_text,
    cards_from_texts,
    event_from_proto,
    event_to_proto,
    status_from_proto,
    trick_from_proto,
    trick_to_proto,
    triple,
    view_from_proto,
    view_to_proto,
)
from .wire import dynamic_view_fields

#: fields of ``pb.View`` set on every decision (never taken from the template)
DYNAMIC_FIELDS = ("decision", "to_act", "legal_actions", "hand", "hand_sizes", "hidden_own",
                  "discards", "discard_count", "trick", "leader", "tricks_won", "exchange",
                  "placings")

K = TypeVar("K")
V = TypeVar("V")

#: templates kept per encoder (one per (match, seat) in play; the oldest goes first)
_MAX_TEMPLATES = 64


#: what a template depends on besides its tricks and events (see the module docstring)
_TemplateKey = tuple[object, ...]


def _template_key(view: View) -> _TemplateKey:
    return (view.hand_number, view.contract, view.trump, view.kitty_taken,
            view.scores, view.prev_points, len(view.hand_points), view.contracts_used,
            view.finished, view.cfg, view.kitty)


@dataclass(slots=True)
class _Template:
    """A seat's slow-changing ``View`` fields (serialised), and the tricks and events they
    hold."""

    key: _TemplateKey
    data: bytes
    tricks: tuple[TrickRecord, ...]
    events: tuple[ExchangeEvent, ...]


#: serialised ``tricks`` / ``exchange_events`` entries of a ``View``, by record: a trick or
#: event is sent again in every later view of its hand, to every seat (an event as each seat
#: sees it); cleared past :data:`_FIELDS_KEPT` entries (only the current hands' are useful)
_TRICK_FIELDS: dict[TrickRecord, bytes] = {}
_EVENT_FIELDS: dict[ExchangeEvent, bytes] = {}
_FIELDS_KEPT = 4096


def _field(cache: dict[K, bytes], record: K, make: Callable[[K], pb.View]) -> bytes:
    data = cache.get(record)
    if data is None:
        if len(cache) >= _FIELDS_KEPT:
            cache.clear()
        data = cache[record] = make(record).SerializeToString()
    return data


def _trick_view(t: TrickRecord) -> pb.View:
    return pb.View(tricks=[trick_to_proto(t)])


def _event_view(e: ExchangeEvent) -> pb.View:
    return pb.View(exchange_events=[event_to_proto(e)])


def _tricks_data(tricks: Sequence[TrickRecord]) -> bytes:
    return b"".join([_field(_TRICK_FIELDS, t, _trick_view) for t in tricks])


def _events_data(events: Sequence[ExchangeEvent]) -> bytes:
    return b"".join([_field(_EVENT_FIELDS, e, _event_view) for e in events])


def _template_data(view: View) -> bytes:
    """``view_to_proto(view)`` without its :data:`DYNAMIC_FIELDS`, serialised (its tricks and
    exchange events from the serialised entries kept for them)."""
    msg = view_to_proto(view, history=False)
    for name in DYNAMIC_FIELDS:
        msg.ClearField(name)
    return (msg.SerializeToString() + _tricks_data(view.tricks)
            + _events_data(view.exchange_events))


def _store(cache: dict[K, V], slot: K, value: V) -> V:
    """Keep ``value`` for ``slot``, dropping the oldest entry when a new slot is over the cap."""
    if slot not in cache and len(cache) >= _MAX_TEMPLATES:
        del cache[next(iter(cache))]
    cache[slot] = value
    return value


class ViewEncoder:
    """Builds serialised ``View`` messages that parse equal to ``view_to_proto(view)``,
    reusing per-(match, seat) templates (see the module docstring). Not thread-safe; one per
    bot connection is typical.
    """

    def __init__(self) -> None:
        self._templates: dict[tuple[str, int], _Template] = {}

    def __len__(self) -> int:
        """Templates kept (over all matches not forgotten)."""
        return len(self._templates)

    def forget(self, match_id: str) -> None:
        """Drop the templates of a match (call when it ends)."""
        for k in [k for k in self._templates if k[0] == match_id]:
            del self._templates[k]

    def encode_bytes(self, view: View, match_id: str) -> bytes:
        """``view`` as a serialised ``View`` message; ``match_id`` keys the template.

        Raises:
            ConversionError: when the view holds an action code that has no text form.
        """
        return self._template(view, match_id).data + dynamic_view_fields(view)

    def encode_into(self, out: pb.View, view: View, match_id: str) -> None:
        """Fill the empty message ``out`` (e.g. ``request.view`` of a new ``DecisionRequest``)
        with ``view``'s content (see :meth:`encode_bytes`)."""
        out.MergeFromString(self.encode_bytes(view, match_id))

    def encode(self, view: View, match_id: str) -> pb.View:
        """A new ``View`` message equal to ``view_to_proto(view)`` (see :meth:`encode_bytes`)."""
        return pb.View.FromString(self.encode_bytes(view, match_id))

    def _template(self, view: View, match_id: str) -> _Template:
        slot = (match_id, view.seat)
        key = _template_key(view)
        tricks, events = view.tricks, view.exchange_events
        t = self._templates.get(slot)
        if t is None or t.key != key or not _grows(t.tricks, tricks) \
                or not _grows(t.events, events):
            return _store(self._templates, slot,
                          _Template(key, _template_data(view), tricks, events))
        if len(tricks) > len(t.tricks):
            t.data += _tricks_data(tricks[len(t.tricks):])
            t.tricks = tricks
        if len(events) > len(t.events):
            t.data += _events_data(events[len(t.events):])
            t.events = events
        return t


def _grows(held: tuple[object, ...], now: tuple[object, ...]) -> bool:
    """Whether ``now`` starts with ``held`` (a hand's tricks and events only grow; the engine
    shares their records between views, so the comparison is mostly identity checks)."""
    n = len(held)
    return len(now) >= n and now[:n] == held


# ----- the bot's side ------------------------------------------------------------------------
def _decode_key(m: pb.View) -> tuple[int, int, bool, int, bool]:
    return (m.hand_number, m.contract, m.kitty_taken, m.discard_count, m.finished)


@dataclass(slots=True)
class _Decoded:
    key: tuple[int, int, bool, int, bool]
    view: View             # the last view decoded in full (its slow-changing fields are reused)
    tricks: tuple[TrickRecord, ...]
    events: tuple[ExchangeEvent, ...]


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
            d.tricks += tuple([trick_from_proto(t) for t in m.tricks[len(d.tricks):]])
        if n_events > len(d.events):
            d.events += tuple([event_from_proto(e) for e in m.exchange_events[len(d.events):]])
        decision: Decision | None = None
        if m.decision:
            decision = DECISION_FROM_PB.get(m.decision)
            if decision is None:
                raise ConversionError(f"View field 'decision': unknown value {m.decision}")
        hand_sizes = triple(m.hand_sizes, "hand_sizes")    # raises, naming the field
        tricks_won = triple(m.tricks_won, "tricks_won")
        placings = None
        if m.placings:
            placings = triple(tuple(m.placings), "placings")
        try:
            trick = tuple([(p.seat, CARD_CODE[p.card]) for p in m.trick])
        except KeyError:
            trick = tuple([(p.seat, card_from_text(p.card)) for p in m.trick])
        b = d.view
        # positional, in View's field order (the tests compare with view_from_proto)
        return View(
            b.cfg, b.seat, b.hand_number, b.dealer, b.declarer, b.roles, b.targets, b.limits,
            b.contract, b.trump, decision,
            m.to_act if m.HasField("to_act") else None,
            actions_from_texts(m.legal_actions), cards_from_texts(m.hand), hand_sizes,
            m.hidden_own,
            b.kitty, b.kitty_taken, b.discards, b.discard_count, trick,
            m.leader if m.HasField("leader") else None,
            d.tricks, tricks_won, d.events,
            status_from_proto(m.exchange) if m.HasField("exchange") else None,
            b.prev_points, b.scores, b.hand_points, b.contracts_used, b.finished, placings)
