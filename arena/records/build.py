"""Build a :class:`MatchRecord` from the match runner's :class:`~arena.match.MatchOutcome`.

The per-hand facts (roles, contract, exchange, discards, tricks, points) are the engine's own
summaries (``result.state.completed_hands``) with the deals (``result.state.deals``); decisions
come from ``result.decisions`` (one per applied action, grouped by their hand number).
"""

from __future__ import annotations

from .. import __version__
from ..match import MatchOutcome
from ..rules import ExchangeEvent, SUITS, action_str, card_str, contract_name
from ..rules.deal import seeded_deal
from ..rules.history import HandSummary
from .errors import RecordError
from .models import (DecisionRecord, ExchangeRecord, HandRecord, MatchRecord, RecordHeader,
                     RecordResult, SeatInfo, SeedText, TrickRecordModel)
from .replayer import deal_by_seat


def _ms(value: float | None) -> float | None:
    return None if value is None else round(float(value), 3)


def exchange_record(e: ExchangeEvent) -> ExchangeRecord:
    """Record form of an engine exchange event (full information)."""
    return ExchangeRecord(kind=e.kind.value, up=e.up, down=e.down,
                          suit=None if e.suit is None else SUITS[e.suit],
                          card=None if e.card is None else card_str(e.card),
                          came_back=e.came_back)


def hand_record(facts: HandSummary, decisions: list[DecisionRecord]) -> HandRecord:
    """Record form of one hand's engine facts plus its decisions.

    Raises:
        RecordError: the summary has no deal (the engine keeps it for every completed hand).
    """
    if facts.deal is None:
        raise RecordError(f"hand {facts.hand_number}: the engine's summary has no deal")
    first, second, third = deal_by_seat(facts.deal, facts.roles)
    return HandRecord(
        hand=facts.hand_number, dealer=facts.dealer, declarer=facts.declarer, roles=facts.roles,
        targets=facts.targets, limits=facts.limits,
        dealt=([card_str(c) for c in first], [card_str(c) for c in second],
               [card_str(c) for c in third]),
        kitty=[card_str(c) for c in facts.deal.kitty],
        contract=None if facts.contract is None else contract_name(facts.contract),
        exchange=[exchange_record(e) for e in facts.events],
        discards=[card_str(c) for c in facts.discards],
        decisions=decisions,
        tricks=[TrickRecordModel(leader=t.leader, cards=[(s, card_str(c)) for s, c in t.cards],
                                 winner=t.winner) for t in facts.tricks],
        tricks_won=facts.tricks_won, points=facts.points, scores=facts.scores)


def record_from_result(result: MatchOutcome) -> MatchRecord:
    """The record of a finished match.

    Raises:
        RecordError: when the result is inconsistent (decision log and the state's actions
            differ, or the match did not finish) -- a runner bug, never a bot's doing.
    """
    spec, state = result.spec, result.state
    cfg = spec.cfg
    if not state.finished:
        raise RecordError(f"match {spec.match_id}: the match is not finished")
    if len(result.decisions) != len(state.actions):
        raise RecordError(f"match {spec.match_id}: {len(result.decisions)} decisions logged "
                          f"but {len(state.actions)} actions applied")
    deals = {n: d for n, d in enumerate(state.deals, start=1)}
    summaries = state.completed_hands
    if len(summaries) != len(deals):
        raise RecordError(f"match {spec.match_id}: {len(deals)} deals but "
                          f"{len(summaries)} completed hands")
    by_hand: dict[int, list[DecisionRecord]] = {n: [] for n in deals}
    for i, (log, action) in enumerate(zip(result.decisions, state.actions, strict=True)):
        if log.action != action:
            raise RecordError(f"match {spec.match_id}: decision {i} logged "
                              f"{action_str(log.action)} but {action_str(action)} was applied")
        if log.hand not in by_hand:
            raise RecordError(f"match {spec.match_id}: decision {i} logged for hand "
                              f"{log.hand}, but the match has hands 1..{len(deals)}")
        by_hand[log.hand].append(DecisionRecord(
            seat=log.seat, kind=log.kind, action=action_str(action), think_ms=_ms(log.think_ms),
            fault=log.fault, detail=log.detail, fallback=log.fallback, answer=log.answer))
    hands = [hand_record(summary, by_hand[summary.hand_number]) for summary in summaries]
    seeded = all(d == seeded_deal(cfg, spec.seed, n) for n, d in deals.items())
    seats = [SeatInfo(seat=s, name=result.names[s], version=result.versions[s] or "",
                      faults=result.faults[s], forfeited=result.forfeited[s],
                      forfeit_reason=result.forfeit_reasons[s],
                      think_ms=_ms(result.think_ms[s]) or 0.0,
                      decisions_asked=result.decisions_asked[s]) for s in range(3)]
    header = RecordHeader(
        arena_version=__version__, match_id=spec.match_id, preset=cfg.preset,
        rules=cfg.options(), seed=SeedText.from_seed(spec.seed),
        deals="seeded" if seeded else "explicit", time_ms=spec.time_ms,
        grace_ms=spec.grace_ms, time_bank_ms=spec.time_bank_ms, max_faults=spec.max_faults,
        seats=seats, started_at=result.started_at, ended_at=result.ended_at,
        termination=result.termination, end_reason=state.end_reason)
    if state.placings is None:   # set by the engine when the match ends
        raise RecordError(f"match {spec.match_id}: the finished match has no placings")
    outcome = RecordResult(
        hands=len(hands), end_reason=state.end_reason,
        twelve_trick_winner=state.twelve_trick_winner, scores=tuple(state.scores),
        engine_placings=state.placings, placings=result.placings)
    return MatchRecord(header=header, hands=hands, result=outcome)
