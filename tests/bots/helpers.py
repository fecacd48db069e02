"""Helpers for the sample-bot tests: drive matches with in-process bots, build explicit deals."""

from __future__ import annotations

from arena.rules import Deal, MatchState, RulesConfig, parse_action, parse_card, parse_cards
from arena.rules.actions import Decision
from arena.rules.view import view_of


def drive(state: MatchState, bots, max_steps: int = 20_000) -> tuple[list[int], set[Decision]]:
    """Play ``state`` to the match end: ``view_of(state, seat)`` -> ``bots[seat].decide`` ->
    ``state.apply``. Fails the test on an illegal action. Returns the actions and the decision
    kinds met."""
    actions: list[int] = []
    kinds: set[Decision] = set()
    while not state.finished:
        if len(actions) >= max_steps:
            raise AssertionError("match did not finish")
        seat = state.current_seat
        view = view_of(state, seat)
        a = bots[seat].decide(view)
        if a not in view.legal_actions:
            raise AssertionError(f"illegal action {a!r} in {view.decision}: {view.legal_actions}")
        kinds.add(view.decision)
        actions.append(a)
        state.apply(a)
    return actions, kinds


def act(state: MatchState, *texts: str) -> None:
    """Apply actions in text form (``"AS"``, ``"trump:H"``, ``"give:2:3C"``)."""
    for t in texts:
        state.apply(parse_action(t))


def build_deal(cfg: RulesConfig, s0: str = "", s1: str = "", s2: str = "",
               kitty: str = "") -> Deal:
    """A deal with the given cards per role (S0 = dealer) and kitty; the other cards of the deck
    fill the kitty, then S1, S2 and S0, in ascending card order."""
    fixed = [parse_cards(s0), parse_cards(s1), parse_cards(s2)]
    kit = parse_cards(kitty)
    used = {c for h in fixed for c in h} | set(kit)
    if cfg.deck == 51:
        used.add(parse_card(cfg.removed_card))
    rest = [c for c in range(52) if c not in used]
    n = cfg.tricks_per_hand
    while len(kit) < cfg.kitty_size:
        kit.append(rest.pop(0))
    for role in (1, 2, 0):
        while len(fixed[role]) < n:
            fixed[role].append(rest.pop(0))
    return Deal((tuple(fixed[0]), tuple(fixed[1]), tuple(fixed[2])), tuple(kit))
