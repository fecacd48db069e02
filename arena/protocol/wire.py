"""The per-decision part of a ``DecisionRequest`` in protobuf's wire format, built from bytes
made once: the hot path of :class:`arena.protocol.viewcache.ViewEncoder`.

A protobuf message serialised field by field and concatenated parses as the message with all
those fields (the wire format's merge rule: repeated fields append, a singular field's last
value wins; https://protobuf.dev/programming-guides/encoding/#last-one-wins). So the encoder
keeps each seat's slow-changing ``View`` fields as serialised bytes and appends, per decision,
the fields that change with every decision, written here from snippets computed at import
(the tag and value of each card, action text, seat...). Field numbers and types come from the
generated descriptors, not from this module; a field whose type is not the one written here
fails at import (:class:`WireFormatError`). What this module writes always parses equal to
``arena.protocol.convert.view_to_proto`` (``tests/protocol/test_viewcache.py`` compares at
every decision of many matches, for every preset and seat).
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from ..rules.view import View
from ._gen.threefiveeight.v1 import arena_pb2 as pb
from .convert import ACTION_TEXT, CARD_TEXT, DECISION_TO_PB, action_to_text, status_to_proto

__all__ = ["WireFormatError", "decision_message", "dynamic_view_fields"]


class WireFormatError(RuntimeError):
    """The generated protobuf code does not have the field types this module writes."""


#: the varints of 0..127 (one byte each)
_SMALL = [bytes((i,)) for i in range(128)]
#: entries a snippet cache keeps before it is cleared (a long run must not grow)
_KEPT = 4096


def varint(n: int) -> bytes:
    """``n`` as a protobuf varint (a negative int32 as its 64-bit two's complement)."""
    if 0 <= n < 128:
        return _SMALL[n]
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_VARINT_TYPES = {FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_UINT64,
                 FieldDescriptor.TYPE_ENUM}


def _tag(message: Any, name: str, kind: int, repeated: bool = False) -> bytes:
    """The tag of field ``name`` of ``message`` (a message descriptor) for its wire type;
    checks its declared type (``kind``: a ``FieldDescriptor.TYPE_*``) and whether it is
    repeated."""
    field = message.fields_by_name[name]
    if field.type != kind or field.is_repeated != repeated:
        raise WireFormatError(f"{message.name}.{name} is not of the type arena.protocol.wire "
                              "writes; regenerate the code or update the module")
    # packed repeated scalars and strings/messages are length-delimited (2), scalars varints
    wire = 0 if kind in _VARINT_TYPES and not repeated else 2
    return varint(field.number << 3 | wire)


_VIEW, _PLAYED = pb.View.DESCRIPTOR, pb.PlayedCard.DESCRIPTOR
_T = FieldDescriptor


def _string(tag: bytes, text: str) -> bytes:
    data = text.encode()
    return tag + varint(len(data)) + data


#: (tag, values) -> a packed field: hand sizes, trick counts and placings take few values
_PACKED: dict[tuple[bytes, tuple[int, ...]], bytes] = {}


def _packed(tag: bytes, values: tuple[int, ...]) -> bytes:
    """A packed repeated int32 field (``values``: a tuple, remembered)."""
    key = (tag, values)
    field = _PACKED.get(key)
    if field is None:
        if all(0 <= v < 128 for v in values):     # counts, seats, places: one byte each
            field = tag + _SMALL[len(values)] + bytes(values)
        else:
            body = b"".join([varint(v) for v in values])
            field = tag + varint(len(body)) + body
        if len(_PACKED) >= _KEPT:
            _PACKED.clear()
        _PACKED[key] = field
    return field


_DECISION = {d: _tag(_VIEW, "decision", _T.TYPE_ENUM) + varint(v)
             for d, v in DECISION_TO_PB.items()}
_TO_ACT = [_tag(_VIEW, "to_act", _T.TYPE_INT32) + varint(s) for s in range(3)]
_LEGAL_TAG = _tag(_VIEW, "legal_actions", _T.TYPE_STRING, repeated=True)
_LEGAL = {a: _string(_LEGAL_TAG, text) for a, text in ACTION_TEXT.items()}
_HAND = [_string(_tag(_VIEW, "hand", _T.TYPE_STRING, repeated=True), t) for t in CARD_TEXT]
_DISCARDS = [_string(_tag(_VIEW, "discards", _T.TYPE_STRING, repeated=True), t)
             for t in CARD_TEXT]
_DISCARD_COUNT = _tag(_VIEW, "discard_count", _T.TYPE_INT32)
_HAND_SIZES = _tag(_VIEW, "hand_sizes", _T.TYPE_INT32, repeated=True)
_HIDDEN_OWN = _tag(_VIEW, "hidden_own", _T.TYPE_INT32)
_TRICK_TAG = _tag(_VIEW, "trick", _T.TYPE_MESSAGE, repeated=True)
_SEAT, _CARD = _tag(_PLAYED, "seat", _T.TYPE_INT32), _tag(_PLAYED, "card", _T.TYPE_STRING)
#: (seat, card) -> one ``trick`` entry (a seat 0 is not written: proto3's default)
_PLAYED_CARD = {(s, c): _TRICK_TAG + varint(len(body)) + body for s in range(3)
                for c, t in enumerate(CARD_TEXT)
                for body in [(_SEAT + varint(s) if s else b"") + _string(_CARD, t)]}
_LEADER = [_tag(_VIEW, "leader", _T.TYPE_INT32) + varint(s) for s in range(3)]
_TRICKS_WON = _tag(_VIEW, "tricks_won", _T.TYPE_INT32, repeated=True)
_EXCHANGE = _tag(_VIEW, "exchange", _T.TYPE_MESSAGE)
_PLACINGS = _tag(_VIEW, "placings", _T.TYPE_INT32, repeated=True)


def dynamic_view_fields(view: View) -> bytes:
    """The serialised ``View`` fields of ``view`` that change with every decision
    (:data:`arena.protocol.viewcache.DYNAMIC_FIELDS`).

    Raises:
        ConversionError: when a legal action has no text form.
    """
    parts = []
    if view.decision is not None:
        parts.append(_DECISION[view.decision])
    if view.to_act is not None:
        parts.append(_TO_ACT[view.to_act])
    legal = _LEGAL
    for a in view.legal_actions:
        entry = legal.get(a)
        parts.append(entry if entry is not None else _string(_LEGAL_TAG, action_to_text(a)))
    hand = _HAND
    parts += [hand[c] for c in view.hand]
    parts.append(_packed(_HAND_SIZES, view.hand_sizes))
    if view.hidden_own:
        parts.append(_HIDDEN_OWN + varint(view.hidden_own))
    if view.discards:
        discards = _DISCARDS
        parts += [discards[c] for c in view.discards]
    if view.discard_count:
        parts.append(_DISCARD_COUNT + varint(view.discard_count))
    if view.trick:
        played = _PLAYED_CARD
        parts += [played[p] for p in view.trick]
    if view.leader is not None:
        parts.append(_LEADER[view.leader])
    parts.append(_packed(_TRICKS_WON, view.tricks_won))
    if view.exchange is not None:
        status = status_to_proto(view.exchange).SerializeToString()
        parts.append(_EXCHANGE + varint(len(status)) + status)
    if view.placings:
        parts.append(_packed(_PLACINGS, view.placings))
    return b"".join(parts)


_REQUEST = pb.DecisionRequest.DESCRIPTOR
_ID = _tag(_REQUEST, "request_id", _T.TYPE_UINT64)
_MATCH = _tag(_REQUEST, "match_id", _T.TYPE_STRING)
_VIEW_FIELD = _tag(_REQUEST, "view", _T.TYPE_MESSAGE)
_TIME = _tag(_REQUEST, "time_ms", _T.TYPE_INT32)
_DECISION_FIELD = _tag(pb.ArenaMessage.DESCRIPTOR, "decision", _T.TYPE_MESSAGE)


#: per match id, its ``match_id`` field (ids of finished matches are useless: cleared past
#: :data:`_KEPT`)
_MATCH_FIELDS: dict[str, bytes] = {}


def decision_message(request_id: int, match_id: str, time_ms: int, view: bytes) -> bytes:
    """The serialised ``ArenaMessage`` holding ``DecisionRequest{request_id, match_id, view,
    time_ms}``, ``view`` being a serialised ``View``."""
    match = _MATCH_FIELDS.get(match_id)
    if match is None:
        if len(_MATCH_FIELDS) >= _KEPT:
            _MATCH_FIELDS.clear()
        match = _MATCH_FIELDS[match_id] = _string(_MATCH, match_id)
    body = b"".join((_ID, varint(request_id), match, _VIEW_FIELD, varint(len(view)), view,
                     _TIME + varint(time_ms) if time_ms else b""))
    return _DECISION_FIELD + varint(len(body)) + body
