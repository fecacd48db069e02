"""Helpers for rules-engine tests: drive a state with scripted and random actions."""

from __future__ import annotations

import random
from collections.abc import Iterable

from arena.rules import MatchState, cards_of, parse_action, parse_cards


def act(state: MatchState, *texts: str) -> None:
    """Apply actions given in text form (``"AS"``, ``"trump:H"``, ``"demand:2:S"``)."""
    for t in texts:
        state.apply(parse_action(t))


def hand_text(state: MatchState, seat: int) -> set[str]:
    """The seat's cards as a set of card strings."""
    from arena.rules import card_str
    return {card_str(c) for c in cards_of(state.hands[seat])}


def cards(text: str) -> set[int]:
    """Set of card ints from ``"AS 10H"``."""
    return set(parse_cards(text))


def play_random(state: MatchState, rng: random.Random, max_steps: int = 100_000) -> int:
    """Play uniformly random legal actions to the match end; returns the number applied."""
    n = 0
    while not state.finished and n < max_steps:
        state.apply(rng.choice(state.legal_actions()))
        n += 1
    return n


def first_legal(state: MatchState, script: Iterable[str] = ()) -> None:
    """Apply the scripted actions, then the lowest legal action until the match ends."""
    act(state, *script)
    while not state.finished:
        state.apply(state.legal_actions()[0])
