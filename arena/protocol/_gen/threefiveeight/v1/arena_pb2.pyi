from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RegisterRejectReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REGISTER_REJECT_REASON_UNSPECIFIED: _ClassVar[RegisterRejectReason]
    REGISTER_REJECT_REASON_BAD_TOKEN: _ClassVar[RegisterRejectReason]
    REGISTER_REJECT_REASON_UNSUPPORTED_PROTOCOL_VERSION: _ClassVar[RegisterRejectReason]
    REGISTER_REJECT_REASON_ALREADY_CONNECTED: _ClassVar[RegisterRejectReason]
    REGISTER_REJECT_REASON_NOT_REGISTERED: _ClassVar[RegisterRejectReason]
    REGISTER_REJECT_REASON_TRY_AGAIN_LATER: _ClassVar[RegisterRejectReason]

class RejectionReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REJECTION_REASON_UNSPECIFIED: _ClassVar[RejectionReason]
    REJECTION_REASON_ILLEGAL: _ClassVar[RejectionReason]
    REJECTION_REASON_LATE: _ClassVar[RejectionReason]
    REJECTION_REASON_MALFORMED: _ClassVar[RejectionReason]
    REJECTION_REASON_ERROR: _ClassVar[RejectionReason]
    REJECTION_REASON_UNKNOWN_REQUEST: _ClassVar[RejectionReason]
    REJECTION_REASON_UNEXPECTED: _ClassVar[RejectionReason]

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_UNSPECIFIED: _ClassVar[Suit]
    SUIT_SPADES: _ClassVar[Suit]
    SUIT_HEARTS: _ClassVar[Suit]
    SUIT_DIAMONDS: _ClassVar[Suit]
    SUIT_CLUBS: _ClassVar[Suit]

class Contract(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONTRACT_UNSPECIFIED: _ClassVar[Contract]
    CONTRACT_TRUMP_SPADES: _ClassVar[Contract]
    CONTRACT_TRUMP_HEARTS: _ClassVar[Contract]
    CONTRACT_TRUMP_DIAMONDS: _ClassVar[Contract]
    CONTRACT_TRUMP_CLUBS: _ClassVar[Contract]
    CONTRACT_NO_TRUMP: _ClassVar[Contract]
    CONTRACT_MISERE: _ClassVar[Contract]

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    DECISION_KIND_EXCHANGE_DEMAND: _ClassVar[DecisionKind]
    DECISION_KIND_EXCHANGE_GIVE: _ClassVar[DecisionKind]
    DECISION_KIND_EXCHANGE_RETURN: _ClassVar[DecisionKind]
    DECISION_KIND_CONTRACT: _ClassVar[DecisionKind]
    DECISION_KIND_DISCARD: _ClassVar[DecisionKind]
    DECISION_KIND_PLAY: _ClassVar[DecisionKind]

class ExchangeEventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXCHANGE_EVENT_KIND_UNSPECIFIED: _ClassVar[ExchangeEventKind]
    EXCHANGE_EVENT_KIND_DEMAND: _ClassVar[ExchangeEventKind]
    EXCHANGE_EVENT_KIND_VOID: _ClassVar[ExchangeEventKind]
    EXCHANGE_EVENT_KIND_GIVE: _ClassVar[ExchangeEventKind]
    EXCHANGE_EVENT_KIND_RETURN: _ClassVar[ExchangeEventKind]
    EXCHANGE_EVENT_KIND_STOP: _ClassVar[ExchangeEventKind]
REGISTER_REJECT_REASON_UNSPECIFIED: RegisterRejectReason
REGISTER_REJECT_REASON_BAD_TOKEN: RegisterRejectReason
REGISTER_REJECT_REASON_UNSUPPORTED_PROTOCOL_VERSION: RegisterRejectReason
REGISTER_REJECT_REASON_ALREADY_CONNECTED: RegisterRejectReason
REGISTER_REJECT_REASON_NOT_REGISTERED: RegisterRejectReason
REGISTER_REJECT_REASON_TRY_AGAIN_LATER: RegisterRejectReason
REJECTION_REASON_UNSPECIFIED: RejectionReason
REJECTION_REASON_ILLEGAL: RejectionReason
REJECTION_REASON_LATE: RejectionReason
REJECTION_REASON_MALFORMED: RejectionReason
REJECTION_REASON_ERROR: RejectionReason
REJECTION_REASON_UNKNOWN_REQUEST: RejectionReason
REJECTION_REASON_UNEXPECTED: RejectionReason
SUIT_UNSPECIFIED: Suit
SUIT_SPADES: Suit
SUIT_HEARTS: Suit
SUIT_DIAMONDS: Suit
SUIT_CLUBS: Suit
CONTRACT_UNSPECIFIED: Contract
CONTRACT_TRUMP_SPADES: Contract
CONTRACT_TRUMP_HEARTS: Contract
CONTRACT_TRUMP_DIAMONDS: Contract
CONTRACT_TRUMP_CLUBS: Contract
CONTRACT_NO_TRUMP: Contract
CONTRACT_MISERE: Contract
DECISION_KIND_UNSPECIFIED: DecisionKind
DECISION_KIND_EXCHANGE_DEMAND: DecisionKind
DECISION_KIND_EXCHANGE_GIVE: DecisionKind
DECISION_KIND_EXCHANGE_RETURN: DecisionKind
DECISION_KIND_CONTRACT: DecisionKind
DECISION_KIND_DISCARD: DecisionKind
DECISION_KIND_PLAY: DecisionKind
EXCHANGE_EVENT_KIND_UNSPECIFIED: ExchangeEventKind
EXCHANGE_EVENT_KIND_DEMAND: ExchangeEventKind
EXCHANGE_EVENT_KIND_VOID: ExchangeEventKind
EXCHANGE_EVENT_KIND_GIVE: ExchangeEventKind
EXCHANGE_EVENT_KIND_RETURN: ExchangeEventKind
EXCHANGE_EVENT_KIND_STOP: ExchangeEventKind

class BotMessage(_message.Message):
    __slots__ = ("register", "decision", "error")
    REGISTER_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    register: RegisterRequest
    decision: DecisionResponse
    error: ErrorReport
    def __init__(self, register: _Optional[_Union[RegisterRequest, _Mapping]] = ..., decision: _Optional[_Union[DecisionResponse, _Mapping]] = ..., error: _Optional[_Union[ErrorReport, _Mapping]] = ...) -> None: ...

class RegisterRequest(_message.Message):
    __slots__ = ("name", "version", "protocol_version", "token", "client")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    protocol_version: str
    token: str
    client: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., protocol_version: _Optional[str] = ..., token: _Optional[str] = ..., client: _Optional[str] = ...) -> None: ...

class DecisionResponse(_message.Message):
    __slots__ = ("request_id", "action")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    action: str
    def __init__(self, request_id: _Optional[int] = ..., action: _Optional[str] = ...) -> None: ...

class ErrorReport(_message.Message):
    __slots__ = ("request_id", "message")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    message: str
    def __init__(self, request_id: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...

class ArenaMessage(_message.Message):
    __slots__ = ("register", "match_start", "decision", "rejection", "match_end", "goodbye")
    REGISTER_FIELD_NUMBER: _ClassVar[int]
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    REJECTION_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    GOODBYE_FIELD_NUMBER: _ClassVar[int]
    register: RegisterResponse
    match_start: MatchStart
    decision: DecisionRequest
    rejection: Rejection
    match_end: MatchEnd
    goodbye: Goodbye
    def __init__(self, register: _Optional[_Union[RegisterResponse, _Mapping]] = ..., match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., rejection: _Optional[_Union[Rejection, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., goodbye: _Optional[_Union[Goodbye, _Mapping]] = ...) -> None: ...

class RegisterResponse(_message.Message):
    __slots__ = ("accepted", "reason", "detail", "arena_name", "supported_protocol_versions")
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    ARENA_NAME_FIELD_NUMBER: _ClassVar[int]
    SUPPORTED_PROTOCOL_VERSIONS_FIELD_NUMBER: _ClassVar[int]
    accepted: bool
    reason: RegisterRejectReason
    detail: str
    arena_name: str
    supported_protocol_versions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, accepted: _Optional[bool] = ..., reason: _Optional[_Union[RegisterRejectReason, str]] = ..., detail: _Optional[str] = ..., arena_name: _Optional[str] = ..., supported_protocol_versions: _Optional[_Iterable[str]] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "rules", "seat", "names", "time_per_decision_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    TIME_PER_DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    rules: RulesConfig
    seat: int
    names: _containers.RepeatedScalarFieldContainer[str]
    time_per_decision_ms: int
    def __init__(self, match_id: _Optional[str] = ..., rules: _Optional[_Union[RulesConfig, _Mapping]] = ..., seat: _Optional[int] = ..., names: _Optional[_Iterable[str]] = ..., time_per_decision_ms: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("request_id", "match_id", "view", "time_ms")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    TIME_MS_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    match_id: str
    view: View
    time_ms: int
    def __init__(self, request_id: _Optional[int] = ..., match_id: _Optional[str] = ..., view: _Optional[_Union[View, _Mapping]] = ..., time_ms: _Optional[int] = ...) -> None: ...

class Rejection(_message.Message):
    __slots__ = ("request_id", "reason", "detail", "match_id")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    reason: RejectionReason
    detail: str
    match_id: str
    def __init__(self, request_id: _Optional[int] = ..., reason: _Optional[_Union[RejectionReason, str]] = ..., detail: _Optional[str] = ..., match_id: _Optional[str] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id", "scores", "placings", "reason")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    PLACINGS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    scores: _containers.RepeatedScalarFieldContainer[int]
    placings: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    def __init__(self, match_id: _Optional[str] = ..., scores: _Optional[_Iterable[int]] = ..., placings: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ...) -> None: ...

class Goodbye(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class RulesConfig(_message.Message):
    __slots__ = ("preset", "deck", "removed_card", "direction", "declarer", "targets", "first_lead", "no_trump", "misere", "contract_once", "declarer_view", "kitty_shown", "deal_pattern", "exchange", "exchange_timing", "exchange_order", "double_payment", "exchange_optional", "follow", "misere_limits", "twelve_trick_win", "end_score", "end_score_either_sign", "end_hands", "tie_break", "tie_extra_hands", "hand_cap")
    PRESET_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    REMOVED_CARD_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    DECLARER_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    FIRST_LEAD_FIELD_NUMBER: _ClassVar[int]
    NO_TRUMP_FIELD_NUMBER: _ClassVar[int]
    MISERE_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_ONCE_FIELD_NUMBER: _ClassVar[int]
    DECLARER_VIEW_FIELD_NUMBER: _ClassVar[int]
    KITTY_SHOWN_FIELD_NUMBER: _ClassVar[int]
    DEAL_PATTERN_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_TIMING_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_ORDER_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_PAYMENT_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_OPTIONAL_FIELD_NUMBER: _ClassVar[int]
    FOLLOW_FIELD_NUMBER: _ClassVar[int]
    MISERE_LIMITS_FIELD_NUMBER: _ClassVar[int]
    TWELVE_TRICK_WIN_FIELD_NUMBER: _ClassVar[int]
    END_SCORE_FIELD_NUMBER: _ClassVar[int]
    END_SCORE_EITHER_SIGN_FIELD_NUMBER: _ClassVar[int]
    END_HANDS_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_FIELD_NUMBER: _ClassVar[int]
    TIE_EXTRA_HANDS_FIELD_NUMBER: _ClassVar[int]
    HAND_CAP_FIELD_NUMBER: _ClassVar[int]
    preset: str
    deck: int
    removed_card: str
    direction: str
    declarer: str
    targets: _containers.RepeatedScalarFieldContainer[int]
    first_lead: str
    no_trump: bool
    misere: bool
    contract_once: bool
    declarer_view: str
    kitty_shown: bool
    deal_pattern: str
    exchange: str
    exchange_timing: str
    exchange_order: str
    double_payment: bool
    exchange_optional: bool
    follow: str
    misere_limits: _containers.RepeatedScalarFieldContainer[int]
    twelve_trick_win: bool
    end_score: int
    end_score_either_sign: bool
    end_hands: int
    tie_break: str
    tie_extra_hands: int
    hand_cap: int
    def __init__(self, preset: _Optional[str] = ..., deck: _Optional[int] = ..., removed_card: _Optional[str] = ..., direction: _Optional[str] = ..., declarer: _Optional[str] = ..., targets: _Optional[_Iterable[int]] = ..., first_lead: _Optional[str] = ..., no_trump: _Optional[bool] = ..., misere: _Optional[bool] = ..., contract_once: _Optional[bool] = ..., declarer_view: _Optional[str] = ..., kitty_shown: _Optional[bool] = ..., deal_pattern: _Optional[str] = ..., exchange: _Optional[str] = ..., exchange_timing: _Optional[str] = ..., exchange_order: _Optional[str] = ..., double_payment: _Optional[bool] = ..., exchange_optional: _Optional[bool] = ..., follow: _Optional[str] = ..., misere_limits: _Optional[_Iterable[int]] = ..., twelve_trick_win: _Optional[bool] = ..., end_score: _Optional[int] = ..., end_score_either_sign: _Optional[bool] = ..., end_hands: _Optional[int] = ..., tie_break: _Optional[str] = ..., tie_extra_hands: _Optional[int] = ..., hand_cap: _Optional[int] = ...) -> None: ...

class PlayedCard(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("leader", "cards", "winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    cards: _containers.RepeatedCompositeFieldContainer[PlayedCard]
    winner: int
    def __init__(self, leader: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[PlayedCard, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class ExchangeEvent(_message.Message):
    __slots__ = ("kind", "up", "down", "suit", "card", "came_back")
    KIND_FIELD_NUMBER: _ClassVar[int]
    UP_FIELD_NUMBER: _ClassVar[int]
    DOWN_FIELD_NUMBER: _ClassVar[int]
    SUIT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    CAME_BACK_FIELD_NUMBER: _ClassVar[int]
    kind: ExchangeEventKind
    up: int
    down: int
    suit: Suit
    card: str
    came_back: bool
    def __init__(self, kind: _Optional[_Union[ExchangeEventKind, str]] = ..., up: _Optional[int] = ..., down: _Optional[int] = ..., suit: _Optional[_Union[Suit, str]] = ..., card: _Optional[str] = ..., came_back: _Optional[bool] = ...) -> None: ...

class BatchEntry(_message.Message):
    __slots__ = ("down", "card")
    DOWN_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    down: int
    card: str
    def __init__(self, down: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class ExchangeStatus(_message.Message):
    __slots__ = ("up", "up_left", "queue", "down_left", "voids", "give_to", "return_from", "batch", "batch_count")
    UP_FIELD_NUMBER: _ClassVar[int]
    UP_LEFT_FIELD_NUMBER: _ClassVar[int]
    QUEUE_FIELD_NUMBER: _ClassVar[int]
    DOWN_LEFT_FIELD_NUMBER: _ClassVar[int]
    VOIDS_FIELD_NUMBER: _ClassVar[int]
    GIVE_TO_FIELD_NUMBER: _ClassVar[int]
    RETURN_FROM_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    BATCH_COUNT_FIELD_NUMBER: _ClassVar[int]
    up: int
    up_left: int
    queue: _containers.RepeatedScalarFieldContainer[int]
    down_left: _containers.RepeatedScalarFieldContainer[int]
    voids: _containers.RepeatedScalarFieldContainer[str]
    give_to: int
    return_from: int
    batch: _containers.RepeatedCompositeFieldContainer[BatchEntry]
    batch_count: int
    def __init__(self, up: _Optional[int] = ..., up_left: _Optional[int] = ..., queue: _Optional[_Iterable[int]] = ..., down_left: _Optional[_Iterable[int]] = ..., voids: _Optional[_Iterable[str]] = ..., give_to: _Optional[int] = ..., return_from: _Optional[int] = ..., batch: _Optional[_Iterable[_Union[BatchEntry, _Mapping]]] = ..., batch_count: _Optional[int] = ...) -> None: ...

class SeatPoints(_message.Message):
    __slots__ = ("by_seat",)
    BY_SEAT_FIELD_NUMBER: _ClassVar[int]
    by_seat: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, by_seat: _Optional[_Iterable[int]] = ...) -> None: ...

class ContractsUsed(_message.Message):
    __slots__ = ("contracts",)
    CONTRACTS_FIELD_NUMBER: _ClassVar[int]
    contracts: _containers.RepeatedScalarFieldContainer[Contract]
    def __init__(self, contracts: _Optional[_Iterable[_Union[Contract, str]]] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("seat", "hand_number", "dealer", "declarer", "roles", "targets", "limits", "contract", "trump", "decision", "to_act", "legal_actions", "hand", "hand_sizes", "hidden_own", "kitty_visible", "kitty", "kitty_taken", "discards", "discard_count", "trick", "leader", "tricks", "tricks_won", "exchange_events", "exchange", "prev_points", "scores", "hand_points", "contracts_used", "finished", "placings")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    DECLARER_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_OWN_FIELD_NUMBER: _ClassVar[int]
    KITTY_VISIBLE_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    KITTY_TAKEN_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_EVENTS_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    PREV_POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HAND_POINTS_FIELD_NUMBER: _ClassVar[int]
    CONTRACTS_USED_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    PLACINGS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    hand_number: int
    dealer: int
    declarer: int
    roles: _containers.RepeatedScalarFieldContainer[int]
    targets: _containers.RepeatedScalarFieldContainer[int]
    limits: _containers.RepeatedScalarFieldContainer[int]
    contract: Contract
    trump: Suit
    decision: DecisionKind
    to_act: int
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    hidden_own: int
    kitty_visible: bool
    kitty: _containers.RepeatedScalarFieldContainer[str]
    kitty_taken: bool
    discards: _containers.RepeatedScalarFieldContainer[str]
    discard_count: int
    trick: _containers.RepeatedCompositeFieldContainer[PlayedCard]
    leader: int
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    tricks_won: _containers.RepeatedScalarFieldContainer[int]
    exchange_events: _containers.RepeatedCompositeFieldContainer[ExchangeEvent]
    exchange: ExchangeStatus
    prev_points: SeatPoints
    scores: _containers.RepeatedScalarFieldContainer[int]
    hand_points: _containers.RepeatedCompositeFieldContainer[SeatPoints]
    contracts_used: _containers.RepeatedCompositeFieldContainer[ContractsUsed]
    finished: bool
    placings: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., hand_number: _Optional[int] = ..., dealer: _Optional[int] = ..., declarer: _Optional[int] = ..., roles: _Optional[_Iterable[int]] = ..., targets: _Optional[_Iterable[int]] = ..., limits: _Optional[_Iterable[int]] = ..., contract: _Optional[_Union[Contract, str]] = ..., trump: _Optional[_Union[Suit, str]] = ..., decision: _Optional[_Union[DecisionKind, str]] = ..., to_act: _Optional[int] = ..., legal_actions: _Optional[_Iterable[str]] = ..., hand: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., hidden_own: _Optional[int] = ..., kitty_visible: _Optional[bool] = ..., kitty: _Optional[_Iterable[str]] = ..., kitty_taken: _Optional[bool] = ..., discards: _Optional[_Iterable[str]] = ..., discard_count: _Optional[int] = ..., trick: _Optional[_Iterable[_Union[PlayedCard, _Mapping]]] = ..., leader: _Optional[int] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., tricks_won: _Optional[_Iterable[int]] = ..., exchange_events: _Optional[_Iterable[_Union[ExchangeEvent, _Mapping]]] = ..., exchange: _Optional[_Union[ExchangeStatus, _Mapping]] = ..., prev_points: _Optional[_Union[SeatPoints, _Mapping]] = ..., scores: _Optional[_Iterable[int]] = ..., hand_points: _Optional[_Iterable[_Union[SeatPoints, _Mapping]]] = ..., contracts_used: _Optional[_Iterable[_Union[ContractsUsed, _Mapping]]] = ..., finished: _Optional[bool] = ..., placings: _Optional[_Iterable[int]] = ...) -> None: ...
