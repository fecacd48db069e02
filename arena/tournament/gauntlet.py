"""The gauntlet: one candidate bot against a field, decided by an SPRT (pure part).

Tables are the candidate plus two field bots: every pair of field bots in config order (one
table for a field of 2, three for 3, ...). A field of one bot is seated twice: a copy of its
config entry named ``"<name>#2"`` (a second process of the same command) takes the other seat.
Block ``b`` (one deal at one table, all 6 seatings: a duplicate block) is at table ``b mod T``
with deal ``b div T``, so the tables take turns; its id is ``"t{table:03d}-d{deal:04d}"`` like
the round-robin's, and the store plays matches in schedule order (deal, table, seating).

The test (:func:`evaluate`) uses only the longest prefix of *complete* blocks in schedule order:
a block counts once all 6 of its matches are stored and every earlier block is complete, so the
decision never depends on which matches happened to finish first. The SPRT itself is
:func:`arena.ratings.sprt.sequential_test`, on the ratings' unit: the Plackett-Luce rating of
the candidate minus the mean rating of the field bots (the twin of a one-bot field counting as
a field bot, as in ``arena ratings``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..ratings.model import RatedResult
from ..ratings.sprt import BlockSequence, SprtParameters, SprtState, sequential_test
from ..rules.deal import derive_seed
from .config import BotEntry, GauntletSection, TournamentConfig
from .schedule import SEATINGS, ScheduledMatch, keyed

__all__ = ["BlockPrefix", "evaluate", "gauntlet_entries", "gauntlet_schedule",
           "gauntlet_section", "gauntlet_tables", "sprt_parameters"]


def gauntlet_section(cfg: TournamentConfig) -> GauntletSection:
    """The config's ``[gauntlet]`` section.

    Raises:
        ValueError: the config has none.
    """
    if cfg.gauntlet is None:
        raise ValueError("the config has no [gauntlet] section")
    return cfg.gauntlet


def gauntlet_entries(cfg: TournamentConfig) -> list[BotEntry]:
    """The bots to start: the config's, plus ``"<name>#2"`` when the field is one bot.

    Raises:
        ValueError: the config has no ``[gauntlet]`` section.
    """
    candidate = gauntlet_section(cfg).candidate
    entries = list(cfg.bots)
    field_bots = [b for b in entries if b.name != candidate]
    if len(field_bots) == 1:
        entries.append(field_bots[0].model_copy(update={"name": _twin(field_bots[0].name,
                                                                      entries)}))
    return entries


def _twin(name: str, entries: Sequence[BotEntry]) -> str:
    taken = {e.name.casefold() for e in entries}
    k = 2
    while f"{name}#{k}".casefold() in taken:
        k += 1
    return f"{name}#{k}"


def gauntlet_tables(candidate: str, field_bots: Sequence[str]) -> list[tuple[str, str, str]]:
    """``(candidate, f_i, f_j)`` for every pair ``i < j`` of the field (config order).

    Raises:
        ValueError: fewer than 2 field bots, a repeated name, or the candidate in the field.
    """
    if len(field_bots) < 2 or len(set(field_bots)) != len(field_bots) \
            or candidate in field_bots:
        raise ValueError("a gauntlet table needs the candidate and 2 distinct field bots")
    return [(candidate, a, b) for a, b in itertools.combinations(field_bots, 2)]


def gauntlet_schedule(candidate: str, field_bots: Sequence[str], max_blocks: int,
                      seed: int | str | bytes, deal_key: bytes | None = None
                      ) -> list[ScheduledMatch]:
    """``max_blocks`` duplicate blocks (``6 * max_blocks`` matches) in schedule order; deal
    seeds are SHA-256 of (seed, "gauntlet", table's bots, deal), keyed by the directory's
    secret ``deal_key`` (:func:`.schedule.keyed`)."""
    tabs = gauntlet_tables(candidate, field_bots)
    out = []
    for b in range(max_blocks):
        t, d = b % len(tabs), b // len(tabs)
        table = tabs[t]
        deal_seed = keyed(deal_key, derive_seed(seed, "gauntlet", *table, "deal", d))
        block = f"t{t:03d}-d{d:04d}"
        for k, perm in enumerate(SEATINGS):
            seats = (table[perm[0]], table[perm[1]], table[perm[2]])
            out.append(ScheduledMatch(f"{block}-s{k}", block, t, d, k, seats, deal_seed))
    return out


def sprt_parameters(cfg: TournamentConfig) -> SprtParameters:
    """The SPRT parameters of the config's ``[gauntlet]`` section."""
    g = gauntlet_section(cfg)
    return SprtParameters(float(g.elo0), float(g.elo1), float(g.alpha), float(g.beta))


@dataclass
class BlockPrefix:
    """The complete-block prefix, fed match by match (in any order).

    ``order`` is the list of block ids in schedule order; :meth:`add` stores a match and
    extends ``blocks`` (a :class:`~arena.ratings.sprt.BlockSequence`) while the next block in
    order is complete (6 matches). A complete block whose table seats a bot of ``excluded`` (a
    bot that never started: its matches say nothing about the candidate) is passed over;
    ``consumed`` counts the blocks of ``order`` passed, tested or not, and ``matches`` the
    matches of the tested blocks.
    """

    candidate: str
    order: Sequence[str]
    excluded: frozenset[str] = frozenset()
    consumed: int = 0
    matches: list[RatedResult] = field(default_factory=list)
    blocks: BlockSequence = field(init=False)
    _pending: dict[str, list[RatedResult]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.blocks = BlockSequence(self.candidate)

    def add(self, result: RatedResult) -> bool:
        """Store one match (a stored result, or any :class:`~arena.ratings.model.RatedResult`);
        True when the prefix grew (by a tested block)."""
        self._pending.setdefault(result.block, []).append(result)
        grew = False
        while self.consumed < len(self.order):
            nxt = self.order[self.consumed]
            matches = self._pending.get(nxt, [])
            if len(matches) < len(SEATINGS):
                break
            if not self.excluded & set(matches[0].players):
                self.blocks.add(matches)
                self.matches.extend(matches)
                grew = True
            del self._pending[nxt]
            self.consumed += 1
        return grew


def evaluate(prefix: BlockPrefix, params: SprtParameters, max_blocks: int) -> SprtState:
    """The test on the complete-block prefix (stopping at the first decision)."""
    return sequential_test(prefix.blocks, params, max_blocks)


def block_order(schedule: Iterable[ScheduledMatch]) -> list[str]:
    """Block ids in schedule order."""
    seen: dict[str, None] = {}
    for m in schedule:
        seen.setdefault(m.block_id, None)
    return list(seen)
