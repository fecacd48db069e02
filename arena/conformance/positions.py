"""Positions for the conformance suite, found by seeded random play with the rules engine (pure,
no I/O): for each preset, the first position of every decision kind the preset has, plus the
variants a bot must handle (contracts with no-trump and misère offered, demand-suit after a
void declaration, pass-and-return with ``stop`` offered, following suit under the preset's
follow rule F1 / F2 / F3 in a trump contract, a request with a single legal action).

The same preset and seed always give the same positions.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ..rules import MatchState, RulesConfig, make_config
from ..rules.actions import Decision, action_str
from ..rules.exchange import ExchangeKind
from ..rules.view import View, view_of

#: deals searched per preset before a position counts as not reachable
MAX_DEALS = 400
#: hands per searched match (the exchange starts on hand 2: it needs the previous hand's points)
HANDS = 3


@dataclass(frozen=True)
class Position:
    """A decision for the bot to answer.

    Attributes:
        check: the suite line's name, e.g. ``"blato: play (F3, following suit)"``.
        cfg: the match's rules. view: the seat's view (``view.legal_actions`` non-empty).
    """

    check: str
    cfg: RulesConfig
    view: View

    @property
    def legal_texts(self) -> list[str]:
        """The legal actions as protocol text."""
        return [action_str(a) for a in self.view.legal_actions]


Predicate = Callable[[View], bool]


def _wants(cfg: RulesConfig) -> list[tuple[str, Predicate]]:
    """(line name, predicate) for every position wanted in a preset's matches."""
    p = cfg.preset

    def kind(d: Decision) -> Predicate:
        return lambda v: v.decision is d
    wants: list[tuple[str, Predicate]] = []
    offered = [t for t, on in (("no-trump", cfg.no_trump), ("misere", cfg.misere)) if on]

    def contract(v: View) -> bool:
        texts = {action_str(a) for a in v.legal_actions}
        return v.decision is Decision.CONTRACT and all(t in texts for t in offered)
    wants.append((f"{p}: contract" + (f" ({', '.join(offered)} offered)" if offered else ""),
                  contract))
    if cfg.deck == 52:
        wants.append((f"{p}: discard", kind(Decision.DISCARD)))
    if cfg.exchange == "demand-suit":
        wants.append((f"{p}: exchange-demand", kind(Decision.EXCHANGE_DEMAND)))
        wants.append((f"{p}: exchange-demand after a void declaration", lambda v: (
            v.decision is Decision.EXCHANGE_DEMAND
            and any(e.kind is ExchangeKind.VOID for e in v.exchange_events))))
        wants.append((f"{p}: exchange-give (give-back)", kind(Decision.EXCHANGE_GIVE)))
    elif cfg.exchange.startswith("pass-return"):
        if cfg.exchange_optional:
            wants.append((f"{p}: exchange-give (stop offered)", lambda v: (
                v.decision is Decision.EXCHANGE_GIVE
                and any(action_str(a) == "stop" for a in v.legal_actions))))
        else:
            wants.append((f"{p}: exchange-give", kind(Decision.EXCHANGE_GIVE)))
        if cfg.exchange == "pass-return-interactive":
            wants.append((f"{p}: exchange-return", kind(Decision.EXCHANGE_RETURN)))
    wants.append((f"{p}: play (leading)", lambda v: v.decision is Decision.PLAY and not v.trick))
    wants.append((f"{p}: play ({cfg.follow}, following in a trump contract)", lambda v: (
        v.decision is Decision.PLAY and bool(v.trick) and v.trump is not None
        and len(v.legal_actions) > 1)))
    if cfg.misere:
        wants.append((f"{p}: play (misère)", lambda v: (
            v.decision is Decision.PLAY and v.contract == 5)))
    return wants


def find_positions(preset: str, seed: int = 1) -> tuple[list[Position], list[str]]:
    """The positions of ``preset`` (see the module docstring).

    Returns:
        (positions in the order of the wanted lines, names of lines not reached within
        :data:`MAX_DEALS` deals).

    Raises:
        arena.rules.RulesConfigError: unknown preset.
    """
    cfg = make_config(preset, hand_cap=HANDS)
    wants = _wants(cfg)
    found: dict[str, Position] = {}
    rng = random.Random(f"{preset}/{seed}")
    for deal in range(MAX_DEALS):
        if len(found) == len(wants):
            break
        state = MatchState.new(cfg, seed=f"conformance/{preset}/{seed}/{deal}")
        while not state.finished and len(found) < len(wants):
            view = view_of(state, state.seat_to_act())
            for name, pred in wants:
                if name not in found and pred(view):
                    found[name] = Position(name, cfg, view)
            state.apply(rng.choice(state.legal_actions()))
    missing = [name for name, _ in wants if name not in found]
    return [found[name] for name, _ in wants if name in found], missing


def single_legal_action(seed: int = 1) -> Position:
    """A sergeant-major position with exactly one legal action (the last trick of a hand)."""
    cfg = make_config("sergeant-major", hand_cap=1)
    rng = random.Random(seed)
    state = MatchState.new(cfg, seed=f"conformance/single/{seed}")
    while not state.finished:
        legal = state.legal_actions()
        if len(legal) == 1 and state.decision is Decision.PLAY:
            return Position("single legal action", cfg, view_of(state, state.seat_to_act()))
        state.apply(rng.choice(legal))
    raise RuntimeError("no single-action position in a sergeant-major hand")  # never: 17 tricks
