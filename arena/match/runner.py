"""The match runner: asks bots for decisions, validates them with the engine, enforces time
limits, records faults and plays a deterministic fallback (cutechess's game manager, ACPC dealer).

Fault handling (docs/protocol.md):

- an illegal, late (past ``time_ms`` + time bank + ``grace_ms``) or malformed answer, or an error
  the bot reports, is a **fault**: recorded in the decision log, the bot is told why
  (``Bot.reject``), and a fallback plays a legal action for that decision, drawn uniformly with
  a seed derived (SHA-256) from the match seed and the decision's index, so reruns agree;
- after ``max_faults`` faults in one match, or at once on a crash/disconnect, the bot
  **forfeits** the match: it is placed last and the fallback plays its seat to the end, so the
  other two finish their match.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, UTC
from typing import Literal, TypeVar

from ..rules import MatchState, RulesConfig, RulesError, action_str, view_of
from ..rules.deal import derive_seed
from ..rules.state import DealSource
from .bot import Bot, BotFault, DecisionRequest, MatchEnd, MatchInfo
from .clock import DecisionClock
from .faults import FaultKind, Forfeit

_T = TypeVar("_T")

#: request ids, unique across all matches of this process (a bot may play several at once)
_REQUEST_IDS = itertools.count(1)


@dataclass(frozen=True)
class MatchSpec:
    """What to play.

    Attributes:
        match_id: unique id (text) of the match.
        cfg: the rules.
        seed: match seed (deals and fallback choices derive from it).
        deals: explicit deals (see ``MatchState.new``), e.g. for duplicate play.
        time_ms: time per decision, milliseconds (> 0).
        grace_ms: extra time before an answer counts as late, milliseconds (>= 0).
        time_bank_ms: optional per-match bank drawn on when a decision takes over ``time_ms``.
        max_faults: faults in one match before the bot forfeits it (>= 1).
    """

    match_id: str
    cfg: RulesConfig
    seed: int | str | bytes = 0
    deals: DealSource = None
    time_ms: int = 1000
    grace_ms: int = 200
    time_bank_ms: int | None = None
    max_faults: int = 3


@dataclass(frozen=True, slots=True)
class DecisionLog:
    """One applied decision: who, what, how long, and any fault.

    Attributes:
        hand: hand number (1-based); seat: 0..2; kind: decision kind value (``"play"`` ...).
        action: the action code applied (the bot's, or the fallback's when ``fallback``).
        think_ms: wall time the bot took, milliseconds (None when the bot was not asked).
        fault: the :class:`FaultKind` or None; detail: explanation of the fault.
        fallback: the applied action came from the fallback.
        answer: what the bot answered when it was rejected (action text), else None.
    """

    hand: int
    seat: int
    kind: str
    action: int
    think_ms: float | None = None
    fault: FaultKind | None = None
    detail: str | None = None
    fallback: bool = False
    answer: str | None = None


@dataclass
class MatchOutcome:
    """Outcome of :func:`run_match`. ``placings`` put forfeiting seats last (shared)."""

    spec: MatchSpec
    names: tuple[str, str, str]
    versions: tuple[str, str, str]
    state: MatchState
    decisions: list[DecisionLog]
    faults: tuple[int, int, int]
    forfeits: tuple[Forfeit | None, Forfeit | None, Forfeit | None]
    placings: tuple[int, int, int]
    started_at: str
    ended_at: str
    think_ms: tuple[float, float, float] = field(default=(0.0, 0.0, 0.0))
    decisions_asked: tuple[int, int, int] = field(default=(0, 0, 0))

    @property
    def forfeited(self) -> tuple[bool, bool, bool]:
        """Whether each seat forfeited."""
        a, b, c = (f is not None for f in self.forfeits)
        return a, b, c

    @property
    def forfeit_reasons(self) -> tuple[str | None, str | None, str | None]:
        """The recorded text of each seat's forfeit (:attr:`Forfeit.detail`), or None."""
        a, b, c = (None if f is None else f.detail for f in self.forfeits)
        return a, b, c

    @property
    def scores(self) -> tuple[int, int, int]:
        """Match score per seat."""
        return _three(self.state.scores)

    @property
    def termination(self) -> Literal["normal", "forfeit"]:
        """``"normal"`` or ``"forfeit"`` (a seat forfeited)."""
        return "forfeit" if any(self.forfeited) else "normal"


def fallback_action(seed: int | str | bytes, index: int, legal: Sequence[int]) -> int:
    """The fallback's choice for decision ``index`` (0-based in the match): uniform over
    ``legal`` using SHA-256 of (seed, "fallback", index); deterministic across runs."""
    draw = int.from_bytes(derive_seed(seed, "fallback", index)[:8], "big")
    return legal[draw % len(legal)]


def placings_with_forfeits(placings: Sequence[int], forfeited: Sequence[bool]) -> tuple[int, ...]:
    """Competition ranking on (forfeited, engine placing); forfeiting seats share the last
    place (their engine order, played by the fallback, means nothing)."""
    key = [(True, 0) if f else (False, p) for f, p in zip(forfeited, placings, strict=True)]
    return tuple(1 + sum(k2 < k for k2 in key) for k in key)


def match_end_reason(engine_reason: str | None, forfeited: Sequence[bool]) -> str:
    """The ``reason`` sent in ``MatchEnd``: the engine's end reason (``"hand-cap"``,
    ``"score"``, ... RULES.md section 3), prefixed by ``"forfeit by seat 0, 2; "`` when seats
    forfeited (their placings were then moved last). Why a seat forfeited is not told to the
    other bots (it is in the record)."""
    seats = [str(s) for s, f in enumerate(forfeited) if f]
    reason = engine_reason or "ended"
    if not seats:
        return reason
    return f"forfeit by seat{'s' if len(seats) > 1 else ''} {', '.join(seats)}; {reason}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class _Seat:
    """Per-seat bookkeeping during one match."""

    def __init__(self, bot: Bot, bank_ms: int | None) -> None:
        self.bot = bot
        self.faults = 0
        self.forfeit: Forfeit | None = None
        #: the time bank left, milliseconds (a float: drawn on by measured overruns)
        self.bank_ms: float | None = bank_ms
        self.think_ms = 0.0
        self.asked = 0


async def _safe(seat: _Seat, coro: Awaitable[None]) -> None:
    """Run a notification to a bot; a failure makes it forfeit, never stops the match."""
    try:
        await coro
    except BotFault as exc:
        if exc.kind is FaultKind.DISCONNECT:
            seat.forfeit = seat.forfeit or Forfeit.disconnect(exc.detail)
    except Exception as exc:
        seat.forfeit = seat.forfeit or Forfeit.error(f"{type(exc).__name__}: {exc}")


async def _ask(spec: MatchSpec, seat: _Seat, state: MatchState, s: int, kind: str,
               index: int, clock: DecisionClock) -> DecisionLog:
    """Ask seat ``s`` (to act, deciding ``kind``) for one decision; returns the log entry of
    what was applied."""
    hand = state.hand_number
    request_id = next(_REQUEST_IDS)
    # whole milliseconds: the protocol's time_ms is an integer (int32)
    allowed_ms = spec.time_ms + int(seat.bank_ms or 0)
    req = DecisionRequest(request_id, spec.match_id, view_of(state, s), allowed_ms)
    t0 = time.perf_counter()
    fault: FaultKind | None = None
    detail: str | None = None
    answer: str | None = None
    action: int | None = None
    # one timer for the match, not one per decision (arena/match/clock.py)
    clock.start((allowed_ms + spec.grace_ms) / 1000)
    try:
        action = await seat.bot.decide(req)
    except asyncio.CancelledError:
        if not clock.stop():
            raise
        fault = FaultKind.TIMEOUT
        detail = f"no answer within {allowed_ms} ms + {spec.grace_ms} ms grace"
    except BotFault as exc:
        fault, detail, answer = exc.kind, exc.detail, exc.answer
    finally:
        clock.stop()
    think = (time.perf_counter() - t0) * 1000
    seat.think_ms += think
    seat.asked += 1
    if seat.bank_ms is not None:
        seat.bank_ms = max(0, seat.bank_ms - max(0.0, think - spec.time_ms))
    if fault is None:
        if action is not None and state.is_legal(action):
            return DecisionLog(hand, s, kind, action, think)
        answer = action_str(action) if isinstance(action, int) and _printable(action) \
            else repr(action)
        fault, detail = FaultKind.ILLEGAL, f"{answer} is not legal in phase {kind}"
    detail = detail or ""
    seat.faults += 1
    if fault is FaultKind.DISCONNECT:
        seat.forfeit = Forfeit.disconnect(detail)
    elif seat.faults >= spec.max_faults:
        seat.forfeit = Forfeit.too_many_faults(spec.max_faults, fault)
    if fault is not FaultKind.DISCONNECT:
        await _safe(seat, seat.bot.reject(request_id, fault, detail))
    chosen = fallback_action(spec.seed, index, state.legal_actions())
    return DecisionLog(hand, s, kind, chosen, think, fault, detail, True, answer)


def _pending(state: MatchState) -> tuple[int, str]:
    """The seat to act and the kind of its pending decision (``"play"``...); only called
    while the match is not finished (RulesError otherwise)."""
    decision = state.decision
    if decision is None:
        raise RulesError("no decision is pending: the match is over")
    return state.seat_to_act(), decision.value


def _printable(action: int) -> bool:
    try:
        action_str(action)
    except ValueError:
        return False
    return True


async def _play(spec: MatchSpec, state: MatchState, seats: list[_Seat],
                on_decision: Callable[[DecisionLog], None] | None) -> list[DecisionLog]:
    """Play ``state`` to its end: ask the seat to act (or play its fallback once it has
    forfeited), apply, log; returns the log."""
    log: list[DecisionLog] = []
    clock = DecisionClock()
    try:
        while not state.finished:
            s, kind = _pending(state)
            seat = seats[s]
            if seat.forfeit is not None or not seat.bot.alive:
                seat.forfeit = seat.forfeit or Forfeit.gone(seat.bot.gone_reason)
                entry = DecisionLog(state.hand_number, s, kind, fallback_action(
                    spec.seed, len(log), state.legal_actions()), fallback=True)
            else:
                entry = await _ask(spec, seat, state, s, kind, len(log), clock)
            state.apply(entry.action)
            log.append(entry)
            if on_decision is not None:
                on_decision(entry)
    finally:
        clock.close()
    return log


async def run_match(spec: MatchSpec, bots: Sequence[Bot], *,
                    on_decision: Callable[[DecisionLog], None] | None = None,
                    watch: Callable[[MatchState], None] | None = None) -> MatchOutcome:
    """Play one match between ``bots`` (by seat 0..2) and return its result.

    ``on_decision`` (optional) is called with each decision's log entry right after it is
    applied (the live page uses it); it must be quick and must not raise. ``watch``
    (optional) is called once with the match's state before the first decision: the live
    page's feed reads its public parts between decisions and must never change it.

    Never raises for a bot's misbehaviour (see the module docstring); raises only for bad
    arguments (``ValueError``: not exactly three bots) or an invalid explicit deal
    (``DealError``).
    """
    if len(bots) != 3:
        raise ValueError(f"a match needs 3 bots, got {len(bots)}")
    started = _now()
    state = MatchState.new(spec.cfg, spec.seed, spec.deals)
    seats = [_Seat(b, spec.time_bank_ms) for b in bots]
    names = _three([b.name for b in bots])
    if watch is not None:
        watch(state)
    for i, seat in enumerate(seats):
        info = MatchInfo(spec.match_id, spec.cfg, i, names, spec.time_ms)
        await _safe(seat, seat.bot.start_match(info))
    log = await _play(spec, state, seats, on_decision)
    forfeits = _three([seat.forfeit for seat in seats])
    forfeited = _three([f is not None for f in forfeits])
    engine_placings = state.placings
    if engine_placings is None:   # the loop above ends only when the match has ended
        raise RuntimeError(f"match {spec.match_id}: finished without placings")
    placings = _three(placings_with_forfeits(engine_placings, forfeited))
    # the bots are told the placings that are recorded and rated, and why they differ
    end = MatchEnd(spec.match_id, _three(state.scores), placings,
                   match_end_reason(state.end_reason, forfeited))
    for seat in seats:
        if seat.forfeit is None or seat.bot.alive:
            await _safe(seat, seat.bot.end_match(end))
    return MatchOutcome(
        spec=spec, names=names, versions=_three([b.version for b in bots]), state=state,
        decisions=log, faults=_three([seat.faults for seat in seats]), forfeits=forfeits,
        placings=placings, started_at=started, ended_at=_now(),
        think_ms=_three([seat.think_ms for seat in seats]),
        decisions_asked=_three([seat.asked for seat in seats]))


def _three(values: Sequence[_T]) -> tuple[_T, _T, _T]:
    """``values`` (one per seat) as a 3-tuple."""
    a, b, c = values
    return a, b, c
