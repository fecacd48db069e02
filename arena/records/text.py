"""Trick-by-trick text replay of a record (``arena replay RECORD``).

The match is re-simulated with the engine (:class:`~arena.records.replayer.Replayer`); lines
appear in the order things happened: hand header (dealer, declarer, contract, targets), dealt
cards, exchange events, kitty, contract, discards, each trick (leader, cards by seat name,
winner, running tricks vs target), faults, points and scores, then the final result.

With ``seat=S`` only what seat S knew at each moment is shown, taken from the engine's
``state.view(S)``: its own cards, public events, exchange cards only where S took part, the
kitty only where the rules show it, its own faults; hidden cards print as ``??``.

Bot names are printed as given except control and bidi-override characters, which are shown
as ``\\u....`` escapes (a name must not rewrite the terminal). Duplicate names get ``#seat``.
"""

from __future__ import annotations

from ..safetext import printable
from ..wording import plural
from ..rules import (MISERE, SUITS, Decision, ExchangeEvent, card_str, contract_name,
                     parse_action)
from ..rules import parse_card as _card
from ..rules.cards import cards_of, rank_of, suit_of
from .models import HandRecord, MatchRecord
from .replayer import Replayer, deal_from_seats
from .verify import rules_of, verify_record

HIDDEN = "??"


#: ``text`` with control, format (bidi) and line-separator characters escaped (the arena's one
#: helper for that, :func:`arena.safetext.printable`)
clean = printable


def seat_labels(names: tuple[str, ...]) -> tuple[str, str, str]:
    """Display labels by seat: the cleaned name, plus ``#seat`` when names repeat."""
    cleaned = [clean(n) for n in names]
    return tuple(c if cleaned.count(c) == 1 else f"{c}#{s}"  # type: ignore[return-value]
                 for s, c in enumerate(cleaned))


def show_cards(cards, hidden: int = 0) -> str:
    """Cards sorted by suit (S H D C) then rank high to low, plus ``hidden`` ``??``."""
    ordered = sorted(cards, key=lambda c: (suit_of(c), -rank_of(c)))
    return " ".join([card_str(c) for c in ordered] + [HIDDEN] * hidden) or "-"


def event_text(e: ExchangeEvent, labels: tuple[str, ...]) -> str:
    """One exchange event in words; cards a viewer may not see (None) print as ``??``."""
    card = HIDDEN if e.card is None else card_str(e.card)
    suit = "?" if e.suit is None else SUITS[e.suit]
    up, down = labels[e.up], (labels[e.down] if e.down is not None else "-")
    if e.kind == "demand":
        return f"{up} demands {suit} from {down}: gets {card}"
    if e.kind == "void":
        return f"{up} demands {suit} from {down}: void"
    if e.kind == "give":
        return f"{up} gives {card} to {down}"
    if e.kind == "return":
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
    def __init__(self, record: MatchRecord, seat: int | None) -> None:
        self.rec = record
        self.seat = seat
        self.L = seat_labels(record.names)
        self.cfg = rules_of(record)
        self.forfeit_shown: set[int] = set()

    def seats(self, values, fmt: str = "{}") -> str:
        return ", ".join(f"{self.L[s]} {fmt.format(values[s])}" for s in range(3))

    def lines(self, only: int | None) -> list[str]:
        rec = self.rec
        deals = {hr.hand: deal_from_seats(
            tuple(tuple(map(_card, hr.dealt[s])) for s in range(3)), hr.roles,
            tuple(map(_card, hr.kitty))) for hr in rec.hands}
        rep = Replayer(self.cfg, rec.header.seed.to_seed(), deals, seat=self.seat)
        out = self.header()
        for hr in rec.hands:
            lines = self.hand(rep, hr)
            if only is None or hr.hand == only:
                out += [""] + lines
        return out + [""] + self.final()

    def header(self) -> list[str]:
        h, L = self.rec.header, self.L
        out = [f"Match {clean(h.match_id)}: preset {h.preset}, seed {clean(str(h.seed))}, "
               f"deals {h.deals}, arena {clean(h.arena_version)}, record v{h.schema_version}",
               "Seats: " + ", ".join(f"{s.seat} {L[s.seat]} ({clean(s.version) or '-'})"
                                     for s in h.seats),
               f"Time: {clean(h.started_at)} to {clean(h.ended_at)}; "
               f"{plural(len(self.rec.hands), 'hand')}; termination {h.termination} "
               f"({h.end_reason})"]
        for s in h.seats:
            if s.forfeited:
                out.append(f"Forfeit: {L[s.seat]}: {clean(s.forfeit_reason or '')}")
        if any(s.faults for s in h.seats):
            out.append("Faults: " + self.seats([s.faults for s in h.seats]))
        if self.seat is not None:
            out.append(f"Seat view: {L[self.seat]} (seat {self.seat}); "
                       f"only what this seat knew is shown, hidden cards as {HIDDEN}")
        return out

    def hand(self, rep: Replayer, hr: HandRecord) -> list[str]:
        st, L, me = rep.state, self.L, self.seat
        contract = f", contract {hr.contract}" if me is None else ""
        out = [f"== Hand {hr.hand}: dealer {L[hr.dealer]}, declarer {L[hr.declarer]}"
               f"{contract} ==", "targets: " + self.seats(hr.targets)]
        if me is None:
            out += [f"dealt {L[s]}: {show_cards(map(_card, hr.dealt[s]))}" for s in range(3)]
            if hr.kitty:
                out.append(f"kitty: {show_cards(map(_card, hr.kitty))}")
        else:
            v = rep.view(me)
            # in a hand without an exchange the kitty is taken before the first decision:
            # show the dealt cards here and the kitty on its own line below
            taken = {_card(c) for c in hr.kitty} if st.kitty_taken else set()
            for s in range(3):
                if s == me:
                    cards = show_cards([c for c in v.hand if c not in taken], v.hidden_own)
                else:
                    extra = len(taken) if s == hr.declarer else 0
                    cards = show_cards((), v.hand_sizes[s] - extra)
                out.append(f"{'your cards' if s == me else 'cards of'} {L[s]}: {cards}")
            if self.cfg.kitty_size and v.kitty is None and not taken:
                out.append(f"kitty: {show_cards((), self.cfg.kitty_size)}")
        kitty_taken, play_started, need = st.kitty_taken, False, hr.targets
        if kitty_taken:
            out.append(self.kitty_line(rep, hr))
        for d in hr.decisions:
            if st.decision is Decision.PLAY and not play_started:
                play_started = True
                out += self.before_play(rep, hr)
            step = rep.step(parse_action(d.action))
            out += self.fault_lines(d, step.hand)
            events = step.events
            if me is not None and events and step.hand_end is None:
                events = rep.view(me).exchange_events[-len(events):]
            out += [self.event_line(e) for e in events]
            if step.contract is not None:
                out.append(f"contract: {contract_name(step.contract)} (chosen by "
                           f"{L[step.seat]})")
                if step.contract == MISERE:
                    need = hr.limits
                    out.append("misère limits: " + self.seats(hr.limits))
            if step.hand_end is None and st.kitty_taken and not kitty_taken:
                kitty_taken = True
                out.append(self.kitty_line(rep, hr))
            if step.trick is not None:
                k, t = step.trick
                won = step.table.tricks_won
                out.append(f"trick {k}: {L[t.leader]} leads: "
                           + ", ".join(f"{L[s]} {card_str(c)}" for s, c in t.cards)
                           + f" -> {L[t.winner]} wins; tricks: "
                           + ", ".join(f"{L[s]} {won[s]}/{need[s]}" for s in range(3)))
            if step.hand_end is not None:
                f = step.hand_end
                out.append("points: " + self.seats(f.points, "{:+d}") + "; scores: "
                           + self.seats(f.scores))
        return out

    def kitty_line(self, rep: Replayer, hr: HandRecord) -> str:
        who = self.L[hr.declarer]
        if self.seat is None:
            return f"{who} takes the kitty: {show_cards(map(_card, hr.kitty))}"
        kitty = rep.view(self.seat).kitty
        shown = show_cards(kitty) if kitty is not None else show_cards((), len(hr.kitty))
        return f"{who} takes the kitty: {shown}"

    def before_play(self, rep: Replayer, hr: HandRecord) -> list[str]:
        """Discards (where this view may see them) and the hands at the first lead."""
        st, L, me = rep.state, self.L, self.seat
        out = []
        if self.cfg.kitty_size:
            if me is None or me == hr.declarer:
                out.append(f"discards by {L[hr.declarer]}: {show_cards(st.discards)}")
            else:
                out.append(f"discards by {L[hr.declarer]}: {show_cards((), len(st.discards))}")
        if me is None:
            dealt = [sorted(map(_card, hr.dealt[s])) for s in range(3)]
            if any(cards_of(st.hands[s]) != dealt[s] for s in range(3)):
                out += [f"at the first lead {L[s]}: {show_cards(cards_of(st.hands[s]))}"
                        for s in range(3)]
        else:
            out.append(f"at the first lead your cards: {show_cards(rep.view(me).hand)}")
        return out

    def fault_lines(self, d, hand: int) -> list[str]:
        if self.seat is not None and d.seat != self.seat:
            return []
        who = self.L[d.seat]
        if d.fault is not None:
            answer = f", answered {clean(d.answer)!r}" if d.answer is not None else ""
            detail = f" ({clean(d.detail)})" if d.detail else ""
            return [f"! FAULT by {who}: {d.fault} on {d.kind}{answer}{detail}; "
                    f"fallback played {d.action}"]
        if d.fallback and d.seat not in self.forfeit_shown:
            self.forfeit_shown.add(d.seat)
            return [f"! {who} has forfeited (hand {hand}): the fallback plays for it from here, "
                    f"first {d.action}"]
        return []

    def event_line(self, e: ExchangeEvent) -> str:
        return "exchange: " + event_text(e, self.L)

    def final(self) -> list[str]:
        res, L = self.rec.result, self.L
        order = sorted(range(3), key=lambda s: (res.placings[s], s))
        out = ["== Result ==", f"end: {res.end_reason} after {plural(res.hands, 'hand')}",
               "scores: " + self.seats(res.scores),
               "placings: " + ", ".join(f"{res.placings[s]}. {L[s]}" for s in order)]
        if res.twelve_trick_winner is not None:
            out.insert(2, f"{L[res.twelve_trick_winner]} took 12+ tricks in a hand and wins")
        return out

