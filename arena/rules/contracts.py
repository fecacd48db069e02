"""Contracts of a rule set and each player's cycle of declarations (RULES.md 3, decision 16).

A set of contracts is a 6-bit mask of contract indexes: 0..3 the trump suits S H D C, 4
no-trump, 5 misère (:mod:`arena.rules.actions`). With ``contract_once`` a player may choose each
contract of the rule set once per cycle; once he has chosen them all, all are open again.
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import MISERE, NO_TRUMP, contract_name
from .config import RulesConfig
from .errors import RulesError

#: contract indexes (ascending) in each 6-bit contracts mask
CONTRACTS_IN = tuple(tuple(c for c in range(6) if m >> c & 1) for m in range(64))


def contracts_mask(cfg: RulesConfig) -> int:
    """Bitmask of the contract indexes of the rule set: the four suits (0..3), no-trump (4)
    and misère (5) where enabled."""
    return 0b1111 | (1 << NO_TRUMP if cfg.no_trump else 0) | (1 << MISERE if cfg.misere else 0)


def replay_contracts(cfg: RulesConfig,
                     chosen: Sequence[Sequence[int]]) -> list[int]:
    """Per seat, the contracts mask of his current cycle after choosing ``chosen[seat]`` in
    order (RULES.md decision 16; see :meth:`MatchState.from_position`).

    Raises:
        RulesError: when ``chosen`` does not hold 3 sequences of contract indexes of the rule
            set, or with ``contract_once`` a contract repeats within a cycle.
    """
    full = contracts_mask(cfg)

    def sequence(x: object) -> bool:
        return isinstance(x, Sequence) and not isinstance(x, (str, bytes))
    if not sequence(chosen) or len(chosen) != 3 or not all(map(sequence, chosen)):
        raise RulesError("contracts_used must hold 3 sequences of contract indexes (one per "
                         f"seat), got {chosen!r}")
    out = []
    for seat, seq in enumerate(chosen):
        used = 0
        for c in seq:
            if type(c) is not int or not 0 <= c < 6 or not full >> c & 1:
                names = ", ".join(map(contract_name, CONTRACTS_IN[full]))
                raise RulesError(f"contracts_used of seat {seat}: {c!r} is not a contract of "
                                 f"these rules ({names})")
            if cfg.contract_once and used >> c & 1:
                raise RulesError(f"contracts_used of seat {seat}: {contract_name(c)} is chosen "
                                 "twice in one cycle, which contract_once forbids")
            used |= 1 << c
            if used == full:
                used = 0
        out.append(used)
    return out
