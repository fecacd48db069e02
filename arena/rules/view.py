"""What one seat may know: :class:`View` and :func:`view_of` (the engine's information sets).

A view holds everything public plus the seat's own private information, and nothing else:
own hand (for a six-contracts declarer choosing the contract: only his first 6 dealt cards),
roles/targets/limits, the contract, every played card, public exchange events (names of suits
demanded, voids, stops, whether a card came back) with the cards shown only to the two players
who exchanged them, the kitty only where the preset shows it (or to the declarer who took it),
the seat's own discards, scores and contracts used. The match seed is never in a view (it would
reveal every deal). The types (:class:`View`, :class:`ExchangeStatus`) live in
:mod:`arena.rules.infoset` and are importable from here.
"""

from __future__ import annotations

from .cards import cards_of
from .contracts import CONTRACTS_IN
from .infoset import ExchangeStatus, View
from .state import MatchState

__all__ = ["ExchangeStatus", "View", "exchange_status", "kitty_visible", "view_of",
           "visible_discards", "visible_hand"]


def kitty_visible(state: MatchState, seat: int) -> bool:
    """Whether ``seat`` sees the kitty now: once taken, where the preset shows it, and always
    to the declarer who took it."""
    if not state.cfg.kitty_size or not state.kitty_taken:
        return False
    return state.cfg.kitty_shown or seat == state.declarer


def exchange_status(state: MatchState, seat: int) -> ExchangeStatus | None:
    """``seat``'s view of the exchange in progress (the batch only to the up player), or None."""
    progress = state.exchange
    if progress is None:
        return None
    down_left, voids = progress.down_left, progress.voids
    return ExchangeStatus(
        up=progress.up, up_left=progress.up_left, queue=tuple(progress.queue),
        down_left=(down_left[0], down_left[1], down_left[2]),
        voids=(voids[0], voids[1], voids[2]), give_to=progress.give_to,
        return_from=progress.return_from,
        batch=tuple(progress.batch) if seat == progress.up else (),
        batch_count=len(progress.batch))


def visible_discards(state: MatchState, seat: int) -> tuple[int, ...]:
    """The discards ``seat`` sees: all of them for the declarer who made them, else none."""
    return tuple(state.discards) if seat == state.declarer else ()


def visible_hand(state: MatchState, seat: int) -> tuple[int, int]:
    """(bitmask of the cards ``seat`` sees in its own hand, number of its cards not yet seen):
    a six-contracts declarer choosing the contract sees only his first 6 dealt cards."""
    hand = state.hands[seat]
    if (state.cfg.declarer_view == "first6" and seat == state.declarer
            and state.contract is None and not state.finished):
        return hand & state.first6, (hand & ~state.first6).bit_count()
    return hand, 0


def view_of(state: MatchState, seat: int) -> View:
    """Build ``seat``'s view of ``state``: the only way a seat's knowledge leaves the engine.

    Raises:
        ValueError: when ``seat`` is not 0, 1 or 2.
    """
    if type(seat) is not int or seat not in (0, 1, 2):
        raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
    hands = state.hands
    hand, hidden = visible_hand(state, seat)
    finished = state.finished
    won, scores, used = state.tricks_won, state.scores, state.contracts_used
    return View(
        cfg=state.cfg, seat=seat, hand_number=state.hand_number, dealer=state.dealer,
        declarer=state.declarer, roles=state.roles, targets=state.targets, limits=state.limits,
        contract=state.contract, trump=state.trump,
        decision=None if finished else state.decision,
        to_act=None if finished else state.current_seat,
        legal_actions=tuple(state.legal_actions()) if state.current_seat == seat and not finished
        else (),
        hand=tuple(cards_of(hand)),
        hand_sizes=(hands[0].bit_count(), hands[1].bit_count(), hands[2].bit_count()),
        hidden_own=hidden,
        kitty=tuple(state.kitty) if kitty_visible(state, seat) else None,
        kitty_taken=state.kitty_taken,
        discards=visible_discards(state, seat),
        discard_count=len(state.discards),
        trick=tuple(zip(state.trick_seats, state.trick, strict=True)),
        leader=state.leader, tricks=tuple(state.tricks), tricks_won=(won[0], won[1], won[2]),
        exchange_events=tuple([e.seen_by(seat) for e in state.events]),
        exchange=exchange_status(state, seat),
        prev_points=state.prev_points, scores=(scores[0], scores[1], scores[2]),
        hand_points=tuple(state.hand_points),
        contracts_used=(CONTRACTS_IN[used[0]], CONTRACTS_IN[used[1]], CONTRACTS_IN[used[2]]),
        finished=finished, placings=state.placings,
    )
