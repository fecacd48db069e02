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

Validation is a pydantic model; every failure raises :class:`RatingsInputError` (a
:class:`ValueError`) with one message naming the offending value; nothing here uses ``assert``.
Any object with the four attributes (:class:`RatedResult`) can be rated: :func:`validated`
checks it once.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Protocol, SupportsIndex, runtime_checkable

from pydantic import (BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictStr,
                      ValidationError, model_validator)
from pydantic_core import ErrorDetails

__all__ = [
    "MatchResult",
    "RatedResult",
    "RatingsInputError",
    "competition_places",
    "disconnected_groups",
    "validated",
]


class RatingsInputError(ValueError):
    """Match results (or arguments of :func:`arena.ratings.rate`) cannot be rated."""


@runtime_checkable
class RatedResult(Protocol):
    """What the ratings read of a match result: :class:`MatchResult` and the arena's stored
    result (:class:`arena.tournament.store.ResultRow`) both have it, so a tournament's results
    are rated as they are read from its store."""

    @property
    def players(self) -> tuple[str, str, str]: ...

    @property
    def places(self) -> tuple[int, int, int]: ...

    @property
    def block(self) -> str: ...

    @property
    def forfeits(self) -> tuple[bool, bool, bool]: ...


def competition_places(places: Sequence[int]) -> tuple[int, ...]:
    """The competition ranking implied by ``places``: 1 + number of strictly better places.

    ``places`` is a valid competition ranking exactly when it equals its own
    ``competition_places``. Example: ``competition_places((5, 5, 9)) == (1, 1, 3)``.
    """
    return tuple(1 + sum(1 for q in places if q < p) for p in places)


def _integer(value: object) -> int:
    """An integer place (``operator.index``: numpy integers too; not bool, float or text)."""
    if isinstance(value, bool) or not isinstance(value, SupportsIndex):
        raise ValueError("not an integer")
    return operator.index(value)


def _triple(value: object) -> object:
    """Sequences as tuples (lists are accepted); text is not a sequence of items here."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError("not a sequence")
    return tuple(value)


_Name = Annotated[StrictStr, Field(min_length=1)]
_Place = Annotated[int, BeforeValidator(_integer)]
_Triple = BeforeValidator(_triple)


class _Checked(BaseModel):
    """The pydantic model behind :class:`MatchResult`'s checks."""

    model_config = ConfigDict(frozen=True)

    players: Annotated[tuple[_Name, ...], _Triple, Field(min_length=3, max_length=3)]
    places: Annotated[tuple[_Place, ...], _Triple, Field(min_length=3, max_length=3)]
    block: _Name
    forfeits: Annotated[tuple[StrictBool, ...], _Triple, Field(min_length=3, max_length=3)]

    @model_validator(mode="after")
    def _consistent(self) -> _Checked:
        if len(set(self.players)) != 3:
            raise ValueError(f"a match needs 3 distinct players, got {self.players!r}")
        if self.places != competition_places(self.places):
            raise ValueError(
                f"places {self.places!r} are not a competition ranking "
                "(1 + number of players placed strictly ahead, e.g. (1, 2, 3), (1, 1, 3), "
                "(1, 2, 2) or (1, 1, 1))")
        worst_non_forfeit = max((p for p, f in zip(self.places, self.forfeits, strict=True)
                                 if not f), default=0)
        for name, p, f in zip(self.players, self.places, self.forfeits, strict=True):
            if f and p < worst_non_forfeit:
                raise ValueError(
                    f"forfeiting player {name!r} is placed {p} above a player that did not "
                    f"forfeit (places {self.places!r}, forfeits {self.forfeits!r}); "
                    "the arena must place forfeiting bots last")
        return self


#: per field, the message for a value of the wrong kind (the item is named where there is one)
_WRONG = {
    "players": "player names must be non-empty strings, got {item!r}",
    "places": "places must be integers, got {item!r} in {value!r}",
    "block": "block must be a non-empty string, got {value!r}",
    "forfeits": "forfeits must be booleans, got {item!r} in {value!r}",
}


def _message(err: ErrorDetails, raw: dict[str, object]) -> str:
    """One line for the first pydantic error, in the words of this module's docstring."""
    if not err["loc"]:      # the model check: its message as written
        return str(err["ctx"]["error"]) if "ctx" in err and "error" in err["ctx"] else err["msg"]
    field = str(err["loc"][0])
    value = raw[field]
    if field != "block" and len(err["loc"]) == 1:   # the sequence itself
        if err["type"] in ("too_short", "too_long") and isinstance(value, Iterable):
            items = tuple(value)
            return f"{field} must have exactly 3 items, got {len(items)}: {items!r}"
        return f"{field} must be a sequence of 3 items, got {value!r}"
    item = err["input"]
    return _WRONG[field].format(item=item, value=value)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The placing of the three bots of one match.

    ``players[k]`` finished at ``places[k]`` (competition ranking, 1 = first) and forfeited
    iff ``forfeits[k]``. The order of the three entries carries no meaning (it is usually the
    seating order): permuting ``players``, ``places`` and ``forfeits`` together describes the
    same result and gives identical ratings.

    Lists are accepted and stored as tuples; places may be any integers (``operator.index``),
    not bools. Checked by pydantic; invalid input raises :class:`RatingsInputError` naming the
    offending value.
    """

    players: tuple[str, str, str]
    places: tuple[int, int, int]
    block: str
    forfeits: tuple[bool, bool, bool] = (False, False, False)

    def __post_init__(self) -> None:
        raw: dict[str, Any] = {"players": self.players, "places": self.places,
                               "block": self.block, "forfeits": self.forfeits}
        try:
            checked = _Checked.model_validate(raw)
        except ValidationError as exc:
            raise RatingsInputError(_message(exc.errors()[0], raw)) from None
        object.__setattr__(self, "players", checked.players)
        object.__setattr__(self, "places", checked.places)
        object.__setattr__(self, "forfeits", checked.forfeits)

    def place_of(self, player: str) -> int:
        """The place of ``player`` in this match (raises ``KeyError`` if absent)."""
        for name, p in zip(self.players, self.places, strict=True):
            if name == player:
                return p
        raise KeyError(player)


def validated(result: RatedResult) -> MatchResult:
    """``result`` as a checked :class:`MatchResult`: itself if it is one, else built from its
    four attributes.

    Raises:
        RatingsInputError: they are not a valid result.
    """
    if isinstance(result, MatchResult):
        return result
    players, places, block, forfeits = (result.players, result.places, result.block,
                                        result.forfeits)
    plain = (type(players) is tuple and type(places) is tuple and type(forfeits) is tuple
             and all(type(p) is int for p in places) and all(type(f) is bool for f in forfeits))
    if plain:   # the cache's keys compare 1 == True == 1.0: only exact types go through it
        return _checked(players, places, block, forfeits)
    return MatchResult(players, places, block, forfeits)


@functools.lru_cache(maxsize=1 << 16)
def _checked(players: tuple[str, str, str], places: tuple[int, int, int], block: str,
             forfeits: tuple[bool, bool, bool]) -> MatchResult:
    """:class:`MatchResult` of these values, remembered: the standings and the live page rate
    the same stored results again after every match, and each check costs ~30 us."""
    return MatchResult(players, places, block, forfeits)


def disconnected_groups(results: Iterable[RatedResult]) -> list[list[str]]:
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
