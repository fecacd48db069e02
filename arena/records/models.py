"""Match record format, schema version 1 (docs/records.md), as pydantic models.

A record file is JSON Lines, one JSON object per line, each with a ``"type"``:

1. ``header`` (:class:`RecordHeader`): schema version, arena version, match id, rules (preset
   + every option), match seed, time limits, seats (bot name/version, faults, forfeit), start and
   end time, termination;
2. one ``hand`` line per hand played (:class:`HandRecord`): roles, dealt cards, contract,
   exchange, discards, every decision, tricks, points;
3. ``result`` (:class:`RecordResult`): scores and placings.

:class:`MatchRecord` is the three parts together (``header``, ``hands``, ``result``). Cards and
actions are stored as text (``"10H"``, ``"trump:S"``, ``"give:2:AS"``, see
:mod:`arena.rules.actions`) and are checked and canonicalised on load; seats are match seats
0..2 (seat 0 deals hand 1); per-seat lists are indexed by seat; times are milliseconds.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from ..rules import SUITS, action_str, card_str, parse_action, parse_card
from ..rules.errors import CardParseError

#: the schema version this code writes and reads
SCHEMA_VERSION: Final = 1


def _card_text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"a card is text such as '10H', got {value!r}")
    try:
        return card_str(parse_card(value))
    except CardParseError as exc:
        raise ValueError(str(exc)) from None


def _action_text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"an action is text such as 'AS' or 'trump:H', got {value!r}")
    try:
        return action_str(parse_action(value))
    except CardParseError as exc:
        raise ValueError(str(exc)) from None


def _contract_text(value: Any) -> Any:
    if value is None:
        return None
    text = _action_text(value)
    if not text.startswith("trump:") and text not in ("no-trump", "misere"):
        raise ValueError(f"a contract is trump:S/H/D/C, no-trump or misere, got {value!r}")
    return text


def _suit_text(value: Any) -> Any:
    if value is None:
        return None
    if not isinstance(value, str) or value.upper() not in tuple(SUITS):
        raise ValueError(f"a suit is one of S, H, D, C, got {value!r}")
    return value.upper()


Card = Annotated[str, BeforeValidator(_card_text)]
ActionText = Annotated[str, BeforeValidator(_action_text)]
ContractText = Annotated[str | None, BeforeValidator(_contract_text)]
SuitText = Annotated[str | None, BeforeValidator(_suit_text)]
Seat = Annotated[int, Field(ge=0, le=2)]
Triple = tuple[int, int, int]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeedText(_Model):
    """A match seed as text with a type tag, so the exact seed (and with it the seeded deals
    and the runner's fallback choices) can be re-derived: ``{"type": "int", "value": "42"}``,
    ``{"type": "str", "value": "t1/3"}``, ``{"type": "bytes", "value": "<hex>"}``."""

    type: Literal["int", "str", "bytes"]
    value: str

    @model_validator(mode="after")
    def _check(self) -> SeedText:
        self.to_seed()
        return self

    @classmethod
    def from_seed(cls, seed: int | str | bytes) -> SeedText:
        """Tag and encode a seed (bytes as lowercase hex).

        Raises:
            TypeError: when ``seed`` is not int, str or bytes.
        """
        if isinstance(seed, bool) or not isinstance(seed, (int, str, bytes)):
            raise TypeError(f"a match seed is int, str or bytes, got {type(seed).__name__}")
        if isinstance(seed, bytes):
            return cls(type="bytes", value=seed.hex())
        return cls(type="int" if isinstance(seed, int) else "str", value=str(seed))

    def to_seed(self) -> int | str | bytes:
        """The original seed value.

        Raises:
            ValueError: when ``value`` does not decode for ``type``.
        """
        if self.type == "int":
            try:
                return int(self.value)
            except ValueError:
                raise ValueError(f"seed value {self.value!r} is not an integer") from None
        if self.type == "bytes":
            try:
                return bytes.fromhex(self.value)
            except ValueError:
                raise ValueError(f"seed value {self.value!r} is not hex") from None
        return self.value

    def __str__(self) -> str:
        return f"{self.type}:{self.value}"


class SeatInfo(_Model):
    """One seat of the match: who played it and how it behaved.

    ``think_ms`` is the total of its decisions' ``think_ms`` (the arena's clock: request sent
    to answer received, milliseconds); ``decisions_asked`` counts the
    decisions the bot was asked (fallback moves of a forfeited seat are not asked).
    """

    seat: Seat
    name: str
    version: str = ""
    faults: int = Field(0, ge=0)
    forfeited: bool = False
    forfeit_reason: str | None = None
    think_ms: float = Field(0.0, ge=0)
    decisions_asked: int = Field(0, ge=0)


class RecordHeader(_Model):
    """Line 1 of a record.

    Attributes:
        schema_version: always :data:`SCHEMA_VERSION` (1) for this model.
        arena_version: ``arena.__version__`` of the arena that played the match.
        match_id, preset: text; rules: ``RulesConfig.options()`` (every option, ``preset`` too).
        seed: the match seed (:class:`SeedText`).
        deals: ``"seeded"`` when every hand's deal is the match seed's canonical deal
            (``seeded_deal``), ``"explicit"`` otherwise (e.g. duplicate play).
        time_ms, grace_ms, time_bank_ms, max_faults: the runner's limits (``MatchSpec``).
        seats: three :class:`SeatInfo`, by seat.
        started_at, ended_at: ISO 8601 UTC times.
        termination: ``"normal"`` or ``"forfeit"`` (a seat forfeited).
        end_reason: the engine's ``end_reason`` (``"twelve-tricks"``, ``"score"``, ``"hands"``,
            ``"hand-cap"``).
    """

    type: Literal["header"] = "header"
    schema_version: Literal[1] = SCHEMA_VERSION
    arena_version: str
    match_id: str
    preset: str
    rules: dict[str, Any]
    seed: SeedText
    deals: Literal["seeded", "explicit"] = "seeded"
    time_ms: int | None = None
    grace_ms: int | None = None
    time_bank_ms: int | None = None
    max_faults: int | None = None
    seats: list[SeatInfo] = Field(min_length=3, max_length=3)
    started_at: str
    ended_at: str
    termination: Literal["normal", "forfeit"]
    end_reason: str | None

    @model_validator(mode="after")
    def _check_seats(self) -> RecordHeader:
        if [s.seat for s in self.seats] != [0, 1, 2]:
            raise ValueError("seats must be listed in order 0, 1, 2")
        return self

    @property
    def names(self) -> tuple[str, str, str]:
        """Bot names by seat."""
        return (self.seats[0].name, self.seats[1].name, self.seats[2].name)


class ExchangeRecord(_Model):
    """One exchange event (``arena.rules.ExchangeEvent``), full information: ``kind`` is
    ``demand`` / ``void`` / ``give`` / ``return`` / ``stop``; ``suit`` a letter; ``card`` text."""

    kind: Literal["demand", "void", "give", "return", "stop"]
    up: Seat
    down: Seat | None = None
    suit: SuitText = None
    card: Card | None = None
    came_back: bool = False


class DecisionRecord(_Model):
    """One decision, as applied (``arena.match.DecisionLog``).

    Attributes:
        seat: who decided; kind: ``"play"``, ``"discard"``, ``"contract"``, ``"exchange-*"``.
        action: the applied action as text (the bot's, or the fallback's when ``fallback``).
        think_ms: the arena's clock for it, milliseconds: the request sent to the answer
            received, so the bot's thinking plus the round trip (None when it was not asked).
        fault: ``illegal`` / ``timeout`` / ``malformed`` / ``error`` / ``disconnect`` or None;
        detail: its explanation; fallback: the runner's fallback chose ``action``;
        answer: what the bot answered when rejected (text, may be anything the bot sent).
    """

    seat: Seat
    kind: str
    action: ActionText
    think_ms: float | None = None
    fault: str | None = None
    detail: str | None = None
    fallback: bool = False
    answer: str | None = None


class TrickRecordModel(_Model):
    """A completed trick: ``leader`` seat, ``cards`` as ``[seat, card]`` in play order,
    ``winner`` seat."""

    leader: Seat
    cards: list[tuple[Seat, Card]] = Field(min_length=3, max_length=3)
    winner: Seat


class HandRecord(_Model):
    """One hand.

    Attributes:
        hand: hand number (1-based); dealer, declarer: seats; roles: role per seat (0 = S0
            dealer, 1 = S1, 2 = S2); targets, limits: tricks per seat this hand (limits are the
            misère maxima).
        dealt: each seat's dealt cards in dealing order (before any exchange); kitty: the
            kitty/talon (empty with 51 cards).
        contract: ``"trump:S"`` .. ``"trump:C"``, ``"no-trump"`` or ``"misere"``.
        exchange: the exchange events in order; discards: the declarer's discards in order.
        decisions: every decision of the hand, in order.
        tricks: the tricks in order; tricks_won: per seat; points: this hand's points per seat;
            scores: match scores per seat after this hand.
    """

    type: Literal["hand"] = "hand"
    hand: int = Field(ge=1)
    dealer: Seat
    declarer: Seat
    roles: Triple
    targets: Triple
    limits: Triple
    dealt: tuple[list[Card], list[Card], list[Card]]
    kitty: list[Card]
    contract: ContractText
    exchange: list[ExchangeRecord] = []
    discards: list[Card] = []
    decisions: list[DecisionRecord]
    tricks: list[TrickRecordModel]
    tricks_won: Triple
    points: Triple
    scores: Triple

    @model_validator(mode="after")
    def _check_roles(self) -> HandRecord:
        if sorted(self.roles) != [0, 1, 2]:
            raise ValueError(f"roles must be a permutation of 0, 1, 2, got {list(self.roles)}")
        return self


class RecordResult(_Model):
    """Last line: how the match ended.

    ``engine_placings`` are the engine's (by match score, 12-trick winner first); ``placings``
    put forfeiting seats last (``arena.match.placings_with_forfeits``) and are what ratings use.
    """

    type: Literal["result"] = "result"
    hands: int = Field(ge=1)
    end_reason: str | None
    twelve_trick_winner: Seat | None = None
    scores: Triple
    engine_placings: Triple
    placings: Triple


class MatchRecord(_Model):
    """A whole record: ``header``, ``hands`` (in order), ``result``."""

    header: RecordHeader
    hands: list[HandRecord]
    result: RecordResult

    @property
    def names(self) -> tuple[str, str, str]:
        """Bot names by seat."""
        return self.header.names
