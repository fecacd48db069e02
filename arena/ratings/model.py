"""Input model of the ratings fold: one :class:`MatchResult` per finished match.

A match result is the *placing* of the three bots of one match (who finished first, second,
third), not their scores: the rating model only uses the order. Placings follow **standard
competition ranking** ("1224" ranking): a bot's place is 1 + the number of bots that finished
strictly ahead of it. For three bots the only valid placings, up to order, are::

    (1, 2, 3)   all distinct
    (1, 1, 3)   two share first place
    (1, 2, 2)   two share last place
    (1, 1, 1)   all three tied (carries no information about relative strength)

``block`` names the duplicate block the match belongs to: one deal of one table, played in all
6 seatings (3! permutations of the 3 bots). Blocks are the resampling unit of the bootstrap
(see :mod:`arena.ratings.bootstrap`), because the 6 matches of one deal are strongly dependent.
The ratings code never interprets block ids beyond equality.

``forfeits`` flags bots that forfeited the match (timeout, crash, illegal move...). The arena
places a forfeiting bot last, so a forfeit needs no special treatment in the likelihood; the
flags are only counted for the report. Validation enforces the arena's contract that a
forfeiting bot is never placed above a bot that did not forfeit.

All validation raises :class:`RatingsInputError` (a :class:`ValueError`) with a message naming
the offending value; nothing here uses ``assert``.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "MatchResult",
    "RatingsInputError",
    "competition_places",
    "disconnected_groups",
]


class RatingsInputError(ValueError):
    """Match results (or arguments of :func:`arena.ratings.rate`) cannot be rated."""


def competition_places(places: Sequence[int]) -> tuple[int, ...]:
    """The competition ranking implied by ``places``: 1 + number of strictly better places.

    ``places`` is a valid competition ranking exactly when it equals its own
    ``competition_places``. Example: ``competition_places((5, 5, 9)) == (1, 1, 3)``.
    """
    return tuple(1 + sum(1 for q in places if q < p) for p in places)


def _as_triple(value: object, field: str) -> tuple[object, object, object]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise RatingsInputError(f"{field} must be a sequence of 3 items, got {value!r}")
    items = tuple(value)
    if len(items) != 3:
        raise RatingsInputError(f"{field} must have exactly 3 items, got {len(items)}: {items!r}")
    return items  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The placing of the three bots of one match.

    ``players[k]`` finished at ``places[k]`` (competition ranking, 1 = first) and forfeited
    iff ``forfeits[k]``. The order of the three entries carries no meaning (it is usually the
    seating order): permuting ``players``, ``places`` and ``forfeits`` together describes the
    same result and gives identical ratings.

    Lists are accepted and stored as tuples. Invalid input raises :class:`RatingsInputError`.
    """

    players: tuple[str, str, str]
    places: tuple[int, int, int]
    block: str
    forfeits: tuple[bool, bool, bool] = (False, False, False)

    def __post_init__(self) -> None:
        players = _as_triple(self.players, "players")
        for name in players:
            if not isinstance(name, str) or not name:
                raise RatingsInputError(f"player names must be non-empty strings, got {name!r}")
        if len(set(players)) != 3:
            raise RatingsInputError(f"a match needs 3 distinct players, got {players!r}")

        raw_places = _as_triple(self.places, "places")
        places: list[int] = []
        for p in raw_places:
            if isinstance(p, bool):
                raise RatingsInputError(f"places must be integers, got {p!r} in {raw_places!r}")
            try:
                places.append(operator.index(p))  # type: ignore[arg-type]
            except TypeError:
                raise RatingsInputError(
                    f"places must be integers, got {p!r} in {raw_places!r}"
                ) from None
        if tuple(places) != competition_places(places):
            raise RatingsInputError(
                f"places {tuple(places)!r} are not a competition ranking "
                "(1 + number of players placed strictly ahead, e.g. (1, 2, 3), (1, 1, 3), "
                "(1, 2, 2) or (1, 1, 1))"
            )

        if not isinstance(self.block, str) or not self.block:
            raise RatingsInputError(f"block must be a non-empty string, got {self.block!r}")

        raw_forfeits = _as_triple(self.forfeits, "forfeits")
        for f in raw_forfeits:
            if not isinstance(f, bool):
                raise RatingsInputError(f"forfeits must be booleans, got {f!r} in {raw_forfeits!r}")
        forfeits = tuple(raw_forfeits)
        worst_non_forfeit = max((p for p, f in zip(places, forfeits) if not f), default=0)
        for name, p, f in zip(players, places, forfeits):
            if f and p < worst_non_forfeit:
                raise RatingsInputError(
                    f"forfeiting player {name!r} is placed {p} above a player that did not "
                    f"forfeit (places {tuple(places)!r}, forfeits {forfeits!r}); "
                    "the arena must place forfeiting bots last"
                )

        object.__setattr__(self, "players", tuple(players))
        object.__setattr__(self, "places", tuple(places))
        object.__setattr__(self, "forfeits", forfeits)

    def place_of(self, player: str) -> int:
        """The place of ``player`` in this match (raises ``KeyError`` if absent)."""
        for name, p in zip(self.players, self.places):
            if name == player:
                return p
        raise KeyError(player)


def disconnected_groups(results: Iterable[MatchResult]) -> list[list[str]]:
    """Connected components of the "played in the same match" graph (union-find).

    Returns the groups as sorted name lists, largest group first (ties by first name).
    Ratings of bots in different groups are not comparable: no chain of matches links them.
    """
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    for result in results:
        for name in result.players:
            parent.setdefault(name, name)
        a, b, c = (find(name) for name in result.players)
        for other in (b, c):
            ra, ro = find(a), find(other)
            if ra != ro:
                # Deterministic union: the smaller name becomes the root.
                lo, hi = sorted((ra, ro))
                parent[hi] = lo

    groups: dict[str, list[str]] = {}
    for name in parent:
        groups.setdefault(find(name), []).append(name)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g[0]))
