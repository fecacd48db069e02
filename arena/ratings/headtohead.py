"""Model-free counts over match results: per-bot totals and head-to-head records.

These are plain tallies, independent of the Plackett-Luce fit, reported next to the ratings so
that a reader can check them against the raw results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .model import RatedResult

__all__ = ["BotCounts", "HeadToHead", "bot_counts", "head_to_head"]


@dataclass(frozen=True)
class BotCounts:
    """Totals of one bot: matches played, first places (shared ones included), sum of its
    places (competition ranking), forfeits and duplicate blocks played in. The one tally of
    these counts: the ratings report and the arena's standings both show it."""

    name: str
    matches: int
    firsts: int
    place_sum: int
    forfeits: int
    blocks: int = 0

    @property
    def average_place(self) -> float:
        """Mean place over the bot's matches (1 = always first, 3 = always last)."""
        return self.place_sum / self.matches if self.matches else float("nan")


@dataclass(frozen=True)
class HeadToHead:
    """Record of bot ``a`` against bot ``b`` over the matches in which both played.

    ``above`` counts matches where ``a`` placed strictly better than ``b``, ``below`` strictly
    worse and ``equal`` shared places; ``above + below + equal == matches``.
    """

    a: str
    b: str
    matches: int
    above: int
    below: int
    equal: int

    @property
    def score(self) -> float | None:
        """``(above + equal / 2) / matches``, comparable to P(a above b); None if no matches."""
        return (self.above + 0.5 * self.equal) / self.matches if self.matches else None


def bot_counts(results: Sequence[RatedResult], names: Sequence[str]) -> dict[str, BotCounts]:
    """:class:`BotCounts` for every bot in ``names`` (zeros for bots without matches)."""
    tally = {name: [0, 0, 0, 0] for name in names}
    blocks: dict[str, set[str]] = {name: set() for name in names}
    for r in results:
        for name, place, forfeit in zip(r.players, r.places, r.forfeits, strict=True):
            t = tally[name]
            t[0] += 1
            t[1] += place == 1
            t[2] += place
            t[3] += forfeit
            blocks[name].add(r.block)
    return {
        name: BotCounts(name=name, matches=m, firsts=f, place_sum=s, forfeits=ff,
                        blocks=len(blocks[name]))
        for name, (m, f, s, ff) in tally.items()
    }


def head_to_head(results: Sequence[RatedResult], names: Sequence[str]) -> list[HeadToHead]:
    """Records for every ordered pair ``(a, b)``, ``a != b``, of ``names`` in that order.

    Pairs that never met are included with zero counts, so the table is complete.
    """
    tally: dict[tuple[str, str], list[int]] = {}
    for r in results:
        for a, pa in zip(r.players, r.places, strict=True):
            for b, pb in zip(r.players, r.places, strict=True):
                if a == b:
                    continue
                t = tally.setdefault((a, b), [0, 0, 0])
                t[0 if pa < pb else 1 if pa > pb else 2] += 1
    rows = []
    for a in names:
        for b in names:
            if a == b:
                continue
            above, below, equal = tally.get((a, b), (0, 0, 0))
            rows.append(
                HeadToHead(a=a, b=b, matches=above + below + equal, above=above, below=below,
                           equal=equal)
            )
    return rows
