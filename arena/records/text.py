"""Trick-by-trick text replay of a record (``arena replay RECORD``).

The match is re-simulated with the engine (:class:`~arena.records.replayer.Replayer`); lines
appear in the order things happened: hand header (dealer, declarer, contract, targets), dealt
cards, exchange events, kitty, contract, discards, each trick (leader, cards by seat name,
winner, running tricks vs target), faults, points and scores, then the final result.

With ``seat=S`` only what seat S knew at each moment is shown, taken from the engine's
``view_of(state, S)``: its own cards, public events, exchange cards only where S took part, the
kitty only where the rules show it, its own faults; hidden cards print as ``??``.

Bot names are printed as given except control and bidi-override characters, which are shown
as ``\\u....`` escapes (a name must not rewrite the terminal). Duplicate names get ``#seat``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..rules import (MISERE, SUITS, Decision, ExchangeEvent, ExchangeKind, TrickRecord, card_str,
                     contract_name, parse_action, parse_card)
from ..rules.cards import cards_of, rank_of, suit_of
from ..safetext import printable
from ..wording import plural
from .models import DecisionRecord, HandRecord, MatchRecord
from .replayer import Replayer, Step, deal_from_seats
from .verify import rules_of, verify_record

HIDDEN = "??"


#: ``text`` with control, format (bidi) and line-separator characters escaped (the arena's one
#: helper for that, :func:`arena.safetext.printable`)
clean = printable


def seat_labels(names: Sequence[str]) -> tuple[str, str, str]:
    """Display labels by seat: the cleaned name, plus ``#seat`` when names repeat.

    Raises:
        ValueError: not three names.
    """
    cleaned = [clean(n) for n in names]
    first, second, third = (c if cleaned.count(c) == 1 else f"{c}#{s}"
                            for s, c in enumerate(cleaned))
    return first, second, third


def show_cards(cards: Iterable[int], hidden: int = 0) -> str:
    """Cards sorted by suit (S H D C) then rank high to low, plus ``hidden`` ``??``."""
    ordered = sorted(cards, key=lambda c: (suit_of(c), -rank_of(c)))
    return " ".join([card_str(c) for c in ordered] + [HIDDEN] * hidden) or "-"


def event_text(e: ExchangeEvent, labels: tuple[str, ...]) -> str:
    """One exchange event in words; cards a viewer may not see (None) print as ``??``."""
    card = HIDDEN if e.card is None else card_str(e.card)
    suit = "?" if e.suit is None else SUITS[e.suit]
    up, down = labels[e.up], (labels[e.down] if e.down is not None else "-")
    if e.kind is ExchangeKind.DEMAND:
        return f"{up} demands {suit} from {down}: gets {card}"
    if e.kind is ExchangeKind.VOID:
        return f"{up} demands {suit} from {down}: void"
    if e.kind is ExchangeKind.GIVE:
        return f"{up} gives {card} to {down}"
    if e.kind is ExchangeKind.RETURN:
        return f"{down} returns {card} to {up}" + (" (came back)" if e.came_back else "")
    return f"{up} stops exchanging"


def render_text(record: MatchRecord, *, seat: int | None = None, hand: int | None = None,
                verify: bool = True) -> str:
    """The text replay of ``record`` (newline-terminated).

    Args:
        seat: show only what this seat (0..2) knew; None shows everything.
        hand: show only this hand (1-based) besides the match header and result.
        verify: run :func:`verify_record` first (a replay of a bad record is meaningless).

    Raises:
        RecordMismatch / RecordError: when verification fails.
        ValueError: ``seat`` not 0..2 or ``hand`` not in the record.
    """
    if seat is not None and seat not in (0, 1, 2):
        raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
    if hand is not None and not 1 <= hand <= len(record.hands):
        raise ValueError(f"hand {hand} is not in the record (hands 1..{len(record.hands)})")
    if verify:
        verify_record(record)
    return "\n".join(_Text(record, seat).lines(hand)) + "\n"


class _Text:
    """The lines of one record's replay; ``viewer`` is the seat whose knowledge is shown
    (None: everything)."""

    def __init__(self, record: MatchRecord, viewer: int | None) -> None:
        self.record = record
        self.viewer = viewer
        self.labels = seat_labels(record.names)
        self.cfg = rules_of(record)
        self.forfeit_shown: set[int] = set()

    def seats(self, values: Sequence[object], fmt: str = "{}") -> str:
        """``"label value, label value, label value"`` over the three seats."""
        return ", ".join(f"{self.labels[s]} {fmt.format(values[s])}" for s in range(3))

    def lines(self, only: int | None) -> list[str]:
        """Header, every hand (or only hand ``only``; the others are still replayed), result."""
        record = self.record
        deals = {hand_record.hand: deal_from_seats(
            tuple(tuple(map(parse_card, hand_record.dealt[s])) for s in range(3)),
            hand_record.roles, tuple(map(parse_card, hand_record.kitty)))
            for hand_record in record.hands}
        replayer = Replayer(self.cfg, record.header.seed.to_seed(), deals, seat=self.viewer)
        out = self.header()
        for hand_record in record.hands:
            lines = _HandText(self, replayer, hand_record).lines()
            if only is None or hand_record.hand == only:
                out += ["", *lines]
        return [*out, "", *self.final()]

    def header(self) -> list[str]:
        header, labels = self.record.header, self.labels
        out = [f"Match {clean(header.match_id)}: preset {header.preset}, seed "
               f"{clean(str(header.seed))}, deals {header.deals}, arena "
               f"{clean(header.arena_version)}, record v{header.schema_version}",
               "Seats: " + ", ".join(f"{s.seat} {labels[s.seat]} ({clean(s.version) or '-'})"
                                     for s in header.seats),
               f"Time: {clean(header.started_at)} to {clean(header.ended_at)}; "
               f"{plural(len(self.record.hands), 'hand')}; termination {header.termination} "
               f"({header.end_reason})"]
        for s in header.seats:
            if s.forfeited:
                out.append(f"Forfeit: {labels[s.seat]}: {clean(s.forfeit_reason or '')}")
        if any(s.faults for s in header.seats):
            out.append("Faults: " + self.seats([s.faults for s in header.seats]))
        if self.viewer is not None:
            out.append(f"Seat view: {labels[self.viewer]} (seat {self.viewer}); "
                       f"only what this seat knew is shown, hidden cards as {HIDDEN}")
        return out

    def fault_lines(self, decision: DecisionRecord, hand: int) -> list[str]:
        """A fault of ``decision``'s seat, or the first fallback move of a seat that forfeited
        (nothing for another seat than the viewer's)."""
        if self.viewer is not None and decision.seat != self.viewer:
            return []
        who = self.labels[decision.seat]
        if decision.fault is not None:
            answer = f", answered {clean(decision.answer)!r}" if decision.answer is not None else ""
            detail = f" ({clean(decision.detail)})" if decision.detail else ""
            return [f"! FAULT by {who}: {decision.fault} on {decision.kind}{answer}{detail}; "
                    f"fallback played {decision.action}"]
        if decision.fallback and decision.seat not in self.forfeit_shown:
            self.forfeit_shown.add(decision.seat)
            return [f"! {who} has forfeited (hand {hand}): the fallback plays for it from here, "
                    f"first {decision.action}"]
        return []

    def final(self) -> list[str]:
        result, labels = self.record.result, self.labels
        order = sorted(range(3), key=lambda s: (result.placings[s], s))
        out = ["== Result ==", f"end: {result.end_reason} after {plural(result.hands, 'hand')}",
               "scores: " + self.seats(result.scores),
               "placings: " + ", ".join(f"{result.placings[s]}. {labels[s]}" for s in order)]
        if result.twelve_trick_winner is not None:
            out.insert(2, f"{labels[result.twelve_trick_winner]} took 12+ tricks in a hand and "
                          "wins")
        return out


class _HandText:
    """The lines of one hand, replayed decision by decision on ``replayer`` (which must stand
    at the hand's first decision; it stands at the next hand's afterwards)."""

    def __init__(self, text: _Text, replayer: Replayer, hand_record: HandRecord) -> None:
        self.text = text
        self.labels = text.labels
        self.viewer = text.viewer
        self.replayer = replayer
        self.hand_record = hand_record
        self.kitty_shown = replayer.state.kitty_taken
        self.play_started = False
        #: tricks each seat needs (the targets; a misère contract's limits once chosen)
        self.need: Sequence[int] = hand_record.targets

    def lines(self) -> list[str]:
        hand_record, labels = self.hand_record, self.labels
        contract = f", contract {hand_record.contract}" if self.viewer is None else ""
        out = [f"== Hand {hand_record.hand}: dealer {labels[hand_record.dealer]}, declarer "
               f"{labels[hand_record.declarer]}{contract} ==",
               "targets: " + self.text.seats(hand_record.targets)]
        out += self.dealt_lines() if self.viewer is None else self.seen_lines(self.viewer)
        if self.kitty_shown:
            out.append(self.kitty_line())
        for decision in hand_record.decisions:
            out += self.decision_lines(decision)
        return out

    def dealt_lines(self) -> list[str]:
        """Every seat's dealt cards and the kitty (full view)."""
        hand_record = self.hand_record
        out = [f"dealt {self.labels[s]}: {show_cards(map(parse_card, hand_record.dealt[s]))}"
               for s in range(3)]
        if hand_record.kitty:
            out.append(f"kitty: {show_cards(map(parse_card, hand_record.kitty))}")
        return out

    def seen_lines(self, viewer: int) -> list[str]:
        """The viewer's cards and the others' card counts at the hand's start."""
        hand_record = self.hand_record
        view = self.replayer.view(viewer)
        # in a hand without an exchange the kitty is taken before the first decision: show the
        # dealt cards here and the kitty on its own line below
        taken = ({parse_card(c) for c in hand_record.kitty} if self.replayer.state.kitty_taken
                 else set())
        out = []
        for s in range(3):
            if s == viewer:
                cards = show_cards([c for c in view.hand if c not in taken], view.hidden_own)
            else:
                extra = len(taken) if s == hand_record.declarer else 0
                cards = show_cards((), view.hand_sizes[s] - extra)
            out.append(f"{'your cards' if s == viewer else 'cards of'} {self.labels[s]}: {cards}")
        if self.text.cfg.kitty_size and view.kitty is None and not taken:
            out.append(f"kitty: {show_cards((), self.text.cfg.kitty_size)}")
        return out

    def decision_lines(self, decision: DecisionRecord) -> list[str]:
        """Apply one recorded decision and describe what it did."""
        out = []
        if self.replayer.state.decision is Decision.PLAY and not self.play_started:
            self.play_started = True
            out += self.before_play()
        step = self.replayer.step(parse_action(decision.action))
        out += self.text.fault_lines(decision, step.hand)
        out += [self.event_line(e) for e in self.seen_events(step)]
        if step.contract is not None:
            out += self.contract_lines(step.contract, step.seat)
        if step.hand_end is None and self.replayer.state.kitty_taken and not self.kitty_shown:
            self.kitty_shown = True
            out.append(self.kitty_line())
        if step.trick is not None:
            out.append(self.trick_line(*step.trick, step.table.tricks_won))
        if step.hand_end is not None:
            facts = step.hand_end
            out.append("points: " + self.text.seats(facts.points, "{:+d}") + "; scores: "
                       + self.text.seats(facts.scores))
        return out

    def seen_events(self, step: Step) -> Sequence[ExchangeEvent]:
        """The step's exchange events as the viewer saw them (cards it did not see: None)."""
        events = step.events
        if self.viewer is not None and events and step.hand_end is None:
            return self.replayer.view(self.viewer).exchange_events[-len(events):]
        return events

    def contract_lines(self, contract: int, seat: int) -> list[str]:
        out = [f"contract: {contract_name(contract)} (chosen by {self.labels[seat]})"]
        if contract == MISERE:
            self.need = self.hand_record.limits
            out.append("misère limits: " + self.text.seats(self.hand_record.limits))
        return out

    def trick_line(self, number: int, trick: TrickRecord, won: Sequence[int]) -> str:
        labels = self.labels
        return (f"trick {number}: {labels[trick.leader]} leads: "
                + ", ".join(f"{labels[s]} {card_str(c)}" for s, c in trick.cards)
                + f" -> {labels[trick.winner]} wins; tricks: "
                + ", ".join(f"{labels[s]} {won[s]}/{self.need[s]}" for s in range(3)))

    def kitty_line(self) -> str:
        hand_record = self.hand_record
        who = self.labels[hand_record.declarer]
        if self.viewer is None:
            return f"{who} takes the kitty: {show_cards(map(parse_card, hand_record.kitty))}"
        kitty = self.replayer.view(self.viewer).kitty
        shown = show_cards(kitty) if kitty is not None else show_cards((), len(hand_record.kitty))
        return f"{who} takes the kitty: {shown}"

    def before_play(self) -> list[str]:
        """Discards (where this view may see them) and the hands at the first lead."""
        state, labels, viewer = self.replayer.state, self.labels, self.viewer
        declarer = self.hand_record.declarer
        out = []
        if self.text.cfg.kitty_size:
            if viewer is None or viewer == declarer:
                out.append(f"discards by {labels[declarer]}: {show_cards(state.discards)}")
            else:
                out.append(f"discards by {labels[declarer]}: "
                           f"{show_cards((), len(state.discards))}")
        if viewer is None:
            dealt = [sorted(map(parse_card, self.hand_record.dealt[s])) for s in range(3)]
            if any(cards_of(state.hands[s]) != dealt[s] for s in range(3)):
                out += [f"at the first lead {labels[s]}: {show_cards(cards_of(state.hands[s]))}"
                        for s in range(3)]
        else:
            out.append("at the first lead your cards: "
                       f"{show_cards(self.replayer.view(viewer).hand)}")
        return out

    def event_line(self, e: ExchangeEvent) -> str:
        return "exchange: " + event_text(e, self.labels)
