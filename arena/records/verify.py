"""Verification of a record by re-simulation with the rules engine (pokerkit-style hand
histories that replay through the rules).

:func:`verify_record` starts the engine with the record's rules, seed and dealt cards (as
explicit deals) and applies the recorded decisions one by one, checking in match order:

- per hand, at its start: hand number, the deal (equal to the seed's canonical deal when the
  header says ``deals: "seeded"``; always a valid deal for the rules), dealer, declarer, roles,
  targets, limits;
- per decision: seat, kind, that the action is legal, that a fallback action is the runner's
  deterministic fallback choice (``arena.match.fallback_action``), that a fault had a fallback;
- the contract when chosen; exchange events and discards before the first card is played;
- every trick as it completes (leader, cards, winner) and at the end of the hand the trick
  count, tricks won, points and scores;
- at the end: hand count, end reason, 12-trick winner, scores, engine placings, placings with
  forfeits last (``arena.match.placings_with_forfeits``), termination, faults per seat.

Locations in messages are 1-based: ``hand 2, decision 7`` is the 7th decision of hand 2 (its
0-based index in the whole match is given too), ``hand 2, trick 5``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..match import FAULT_KINDS, fallback_action, placings_with_forfeits
from ..rules import (Decision, DealError, ExchangeEvent, RulesConfig, RulesError, TrickRecord,
                     action_str, card_str, contract_name, make_config, parse_action,
                     parse_card)
from ..rules.deal import seeded_deal
from ..rules.history import HandSummary
from .build import exchange_record
from .errors import RecordError, RecordMismatch
from .models import DecisionRecord, HandRecord, MatchRecord
from .replayer import Replayer, deal_by_seat, deal_from_seats


def rules_of(record: MatchRecord) -> RulesConfig:
    """The :class:`RulesConfig` of a record's header.

    Raises:
        RecordMismatch: when the stored options are not a valid configuration, or do not
            round-trip (an unknown or missing option).
    """
    opts = dict(record.header.rules)
    preset = opts.pop("preset", record.header.preset)
    try:
        cfg = make_config(preset, **opts)
    except (RulesError, TypeError) as exc:
        raise RecordMismatch("header", "rules", message=f"header: rules: {exc}") from None
    if cfg.options() != record.header.rules:
        raise RecordMismatch("header", "rules", cfg.options(), record.header.rules)
    if cfg.preset != record.header.preset:
        raise RecordMismatch("header", "preset", cfg.preset, record.header.preset)
    return cfg


def _cards(texts: Sequence[str], where: str, field: str) -> tuple[int, ...]:
    try:
        return tuple(parse_card(t) for t in texts)
    except (RulesError, AttributeError):
        raise RecordMismatch(where, field, message=f"{where}: {field}: not cards: {texts!r}"
                             ) from None


def _texts(cards: Sequence[int]) -> list[str]:
    return [card_str(c) for c in cards]


class _Verifier:
    """One verification run; see :func:`verify_record`."""

    def __init__(self, record: MatchRecord) -> None:
        self.rec = record
        self.names = record.names
        self.cfg = rules_of(record)
        try:
            self.seed = record.header.seed.to_seed()
        except ValueError as exc:
            raise RecordMismatch("header", "seed", message=f"header: seed: {exc}") from None

    def seat(self, s: object) -> str:
        return f"{s} ({self.names[s]})" if isinstance(s, int) and 0 <= s < 3 else repr(s)

    def same(self, where: str, field: str, expected: object, found: object,
             seats: bool = False) -> None:
        if expected != found:
            text = None
            if seats:
                text = (f"{where}: {field}: expected {self.seat(expected)}, "
                        f"found {self.seat(found)}")
            raise RecordMismatch(where, field, expected, found, message=text)

    def run(self) -> None:
        rec = self.rec
        deals = {}
        for k, hr in enumerate(rec.hands, start=1):
            self.same(f"hand record {k}", "hand", k, hr.hand)
            where = f"hand {k}"
            dealt = tuple(_cards(hr.dealt[s], where, f"dealt cards of seat {s}") for s in range(3))
            deals[k] = deal_from_seats(dealt, hr.roles, _cards(hr.kitty, where, "kitty"))
        try:
            rep = Replayer(self.cfg, self.seed, deals)
        except DealError as exc:
            raise RecordMismatch("hand 1", "deal", message=f"hand 1: deal: {exc}") from None
        index = 0
        for hr in rec.hands:
            index = self.hand(rep, hr, index)
        self.result(rep)

    def hand(self, rep: Replayer, hr: HandRecord, index: int) -> int:
        n = hr.hand
        where = f"hand {n}"
        st = rep.state
        if rep.finished:
            raise RecordMismatch(where, "hand", message=(
                f"{where}: recorded, but the engine ended the match after hand {n - 1} "
                f"({st.end_reason})"))
        self.same(where, "dealer", st.dealer, hr.dealer, seats=True)
        self.same(where, "declarer", st.declarer, hr.declarer, seats=True)
        self.same(where, "roles", st.roles, tuple(hr.roles))
        self.same(where, "targets", st.targets, tuple(hr.targets))
        self.same(where, "limits", st.limits, tuple(hr.limits))
        self.deal(hr, where)
        facts: HandSummary | None = None
        pre_play_checked = False
        for j, d in enumerate(hr.decisions, start=1):
            dw = f"{where}, decision {j} (match decision index {index})"
            if facts is not None:
                raise RecordMismatch(dw, "decision", message=(
                    f"{dw}: recorded after the hand's last trick"))
            if st.decision is Decision.PLAY and not pre_play_checked:
                self.pre_play(hr, list(st.events), list(st.discards), where)
                pre_play_checked = True
            code = self.decision(rep, d, dw, index)
            try:
                step = rep.step(code)
            except DealError as exc:  # the next hand's recorded deal does not fit the rules
                raise RecordMismatch(f"hand {n + 1}", "deal",
                                     message=f"hand {n + 1}: deal: {exc}") from None
            index += 1
            if step.contract is not None:
                self.same(where, "contract", contract_name(step.contract), hr.contract)
            if step.trick is not None:
                self.trick(hr, *step.trick)
            facts = step.hand_end
        if facts is None:
            waiting = "the match is over" if rep.finished or st.decision is None else (
                f"the engine waits for {st.decision.value} by seat {self.seat(st.current_seat)}")
            raise RecordMismatch(where, "decisions", message=(
                f"{where}: decisions: the hand is incomplete after {len(hr.decisions)} "
                f"recorded decisions ({waiting})"))
        self.hand_end(hr, facts, where, pre_play_checked)
        return index

    def decision(self, rep: Replayer, d: DecisionRecord, dw: str, index: int) -> int:
        """Check one recorded decision against the position before it (seat, kind, a legal
        action, a known fault, the fallback's choice); its action code. ``dw`` names it in
        messages; ``index`` is its index in the match (the fallback's seed)."""
        st = rep.state
        self.same(dw, "seat", st.current_seat, d.seat, seats=True)
        self.same(dw, "kind", "finished" if st.decision is None else st.decision.value, d.kind)
        try:
            code = parse_action(d.action)
        except (RulesError, AttributeError):
            raise RecordMismatch(dw, "action", message=f"{dw}: action: not an action: "
                                 f"{d.action!r}") from None
        legal = list(st.legal_actions())
        if not st.is_legal(code):
            shown = " ".join(action_str(a) for a in legal)
            raise RecordMismatch(dw, "action", message=(
                f"{dw}: action: {d.action} by seat {self.seat(d.seat)} is not legal in "
                f"phase {d.kind}; legal: [{shown}]"))
        if d.fault is not None and d.fault not in FAULT_KINDS:
            self.same(dw, "fault", "one of " + "/".join(FAULT_KINDS), d.fault)
        if d.fault is not None and not d.fallback:
            self.same(dw, "fallback", True, d.fallback)
        if d.fallback:
            expected = action_str(fallback_action(self.seed, index, legal))
            self.same(dw, "action (fallback's choice)", expected, d.action)
        return code

    def hand_end(self, hr: HandRecord, facts: HandSummary, where: str,
                 pre_play_checked: bool) -> None:
        """Check the recorded facts of a finished hand against the engine's summary."""
        if not pre_play_checked:
            self.pre_play(hr, list(facts.events), list(facts.discards), where)
        self.same(where, "contract", contract_name(facts.contract), hr.contract)
        if len(hr.tricks) > len(facts.tricks):
            raise RecordMismatch(f"{where}, trick {len(facts.tricks) + 1}", "trick", message=(
                f"{where}, trick {len(facts.tricks) + 1}: recorded, but the hand has "
                f"{len(facts.tricks)} tricks"))
        self.same(where, "tricks_won", facts.tricks_won, tuple(hr.tricks_won))
        self.same(where, "points", facts.points, tuple(hr.points))
        self.same(where, "scores", facts.scores, tuple(hr.scores))

    def deal(self, hr: HandRecord, where: str) -> None:
        if self.rec.header.deals != "seeded":
            return
        want = seeded_deal(self.cfg, self.seed, hr.hand)
        want_seats = deal_by_seat(want, hr.roles)
        for s in range(3):
            self._cards_same(where, f"dealt cards of seat {self.seat(s)}",
                             _texts(want_seats[s]), list(hr.dealt[s]))
        self._cards_same(where, "kitty", _texts(want.kitty), list(hr.kitty))

    def _cards_same(self, where: str, field: str, want: list[str], got: list[str]) -> None:
        if want == got:
            return
        for i, (a, b) in enumerate(zip(want, got, strict=False), start=1):
            if a != b:
                raise RecordMismatch(where, field, message=(
                    f"{where}: {field}, card {i}: expected {a}, found {b}"))
        self.same(where, f"{field} (count)", len(want), len(got))

    def pre_play(self, hr: HandRecord, events: list[ExchangeEvent], discards: list[int],
                 where: str) -> None:
        want = [exchange_record(e).model_dump(exclude_none=True) for e in events]
        got = [e.model_dump(exclude_none=True) for e in hr.exchange]
        for i, (a, b) in enumerate(zip(want, got, strict=False), start=1):
            self.same(f"{where}, exchange event {i}", "event", _ev(a), _ev(b))
        self.same(f"{where}", "exchange events (count)", len(want), len(got))
        self.same(where, "discards", _texts(discards), list(hr.discards))

    def trick(self, hr: HandRecord, number: int, tr: TrickRecord) -> None:
        where = f"hand {hr.hand}, trick {number}"
        if number > len(hr.tricks):
            raise RecordMismatch(where, "trick", message=f"{where}: missing from the record")
        got = hr.tricks[number - 1]
        self.same(where, "leader", tr.leader, got.leader, seats=True)
        self.same(where, "cards", [f"{s}:{card_str(c)}" for s, c in tr.cards],
                  [f"{s}:{c}" for s, c in got.cards])
        self.same(where, "winner", tr.winner, got.winner, seats=True)

    def result(self, rep: Replayer) -> None:
        rec, st = self.rec, rep.state
        n = len(rec.hands)
        if not rep.finished:
            raise RecordMismatch("result", "hands", message=(
                f"result: the record ends after hand {n} but the engine's match goes on"))
        res, head = rec.result, rec.header
        self.same("result", "hands", n, res.hands)
        self.same("result", "end_reason", st.end_reason, res.end_reason)
        self.same("header", "end_reason", st.end_reason, head.end_reason)
        self.same("result", "twelve_trick_winner", st.twelve_trick_winner,
                  res.twelve_trick_winner)
        placings = st.placings
        if placings is None:   # set by the engine when the match ends
            raise RecordError("result: the engine's finished match has no placings")
        self.same("result", "scores", tuple(st.scores), tuple(res.scores))
        self.same("result", "engine_placings", tuple(placings), tuple(res.engine_placings))
        forfeited = [s.forfeited for s in head.seats]
        self.same("result", "placings", placings_with_forfeits(placings, forfeited),
                  tuple(res.placings))
        self.same("header", "termination", "forfeit" if any(forfeited) else "normal",
                  head.termination)
        for s in range(3):
            faults = sum(1 for hr in rec.hands for d in hr.decisions
                         if d.seat == s and d.fault is not None)
            self.same(f"header, seat {self.seat(s)}", "faults", faults, head.seats[s].faults)


def _ev(d: dict[str, object]) -> str:
    """Compact text of an exchange event dict for messages."""
    return " ".join(f"{k}={v}" for k, v in d.items())


def verify_record(record: MatchRecord) -> None:
    """Re-simulate ``record`` with the rules engine and check everything it says.

    Raises:
        RecordMismatch: naming the first mismatch in match order (see the module docstring).
        RecordError: the record cannot be simulated at all.
    """
    if not isinstance(record, MatchRecord):
        raise RecordError(f"not a MatchRecord: {type(record).__name__}")
    _Verifier(record).run()
