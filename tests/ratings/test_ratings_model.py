"""Input validation: MatchResult, rate() arguments, connectivity."""

from __future__ import annotations

import itertools

import pytest

from arena.ratings import MatchResult, RatingsInputError, rate
from arena.ratings.model import competition_places, disconnected_groups


def m(players: str, places: tuple[int, int, int], block: str = "b0", **kw) -> MatchResult:
    return MatchResult(tuple(players), places, block, **kw)


VALID_SORTED = [(1, 2, 3), (1, 1, 3), (1, 2, 2), (1, 1, 1)]


@pytest.mark.parametrize(
    "places", sorted({p for s in VALID_SORTED for p in itertools.permutations(s)})
)
def test_every_competition_ranking_is_accepted(places):
    r = m("ABC", places)
    assert r.places == places
    assert competition_places(places) == places


@pytest.mark.parametrize(
    "places",
    [(1, 2, 4), (0, 1, 2), (1, 1, 2), (1, 3, 3), (2, 2, 2), (2, 3, 4), (1, 2, 3, 4), (1, 2),
     (-1, 1, 2)],
)
def test_invalid_places_are_rejected(places):
    with pytest.raises(RatingsInputError, match="places"):
        m("ABC", places)


@pytest.mark.parametrize("places", [(1.0, 2, 3), ("1", 2, 3), (True, 2, 3), (None, 2, 3)])
def test_non_integer_places_are_rejected(places):
    with pytest.raises(RatingsInputError, match="places must be integers"):
        m("ABC", places)


def test_lists_are_stored_as_tuples_and_the_result_is_hashable():
    r = MatchResult(["A", "B", "C"], [2, 1, 3], "b", [False, False, True])
    assert r.players == ("A", "B", "C") and r.places == (2, 1, 3)
    assert r.forfeits == (False, False, True)
    assert hash(r) == hash(MatchResult(("A", "B", "C"), (2, 1, 3), "b", (False, False, True)))
    assert r.place_of("B") == 1
    with pytest.raises(KeyError):
        r.place_of("D")


@pytest.mark.parametrize(
    ("players", "message"),
    [
        (("A", "A", "B"), "3 distinct players"),
        (("A", "B"), "exactly 3"),
        ("ABC", "sequence of 3"),
        (("A", "B", ""), "non-empty strings"),
        (("A", "B", 7), "non-empty strings"),
        (None, "sequence of 3"),
    ],
)
def test_bad_players_are_rejected(players, message):
    with pytest.raises(RatingsInputError, match=message):
        MatchResult(players, (1, 2, 3), "b")


@pytest.mark.parametrize("block", ["", None, 3])
def test_bad_block_is_rejected(block):
    with pytest.raises(RatingsInputError, match="block must be a non-empty string"):
        MatchResult(("A", "B", "C"), (1, 2, 3), block)


def test_forfeits_must_be_booleans_and_forfeiters_placed_last():
    with pytest.raises(RatingsInputError, match="forfeits must be booleans"):
        m("ABC", (1, 2, 3), forfeits=(0, 0, 1))
    with pytest.raises(RatingsInputError, match="forfeiting player 'A' is placed 1 above"):
        m("ABC", (1, 2, 3), forfeits=(True, False, False))
    # Forfeiters at the bottom are fine, also two of them, tied or ordered.
    m("ABC", (1, 2, 2), forfeits=(False, True, True))
    m("ABC", (1, 2, 3), forfeits=(False, True, True))
    m("ABC", (1, 1, 1), forfeits=(True, True, True))


def test_disconnected_groups_union_find():
    results = [m("ABC", (1, 2, 3)), m("CDE", (1, 2, 3)), m("XYZ", (1, 2, 3)), m("PQR", (1, 2, 3)),
               m("RST", (1, 2, 3))]
    assert disconnected_groups(results) == [
        ["A", "B", "C", "D", "E"], ["P", "Q", "R", "S", "T"], ["X", "Y", "Z"]
    ]
    assert disconnected_groups(results[:2]) == [["A", "B", "C", "D", "E"]]


def test_rate_rejects_fewer_than_two_matches():
    with pytest.raises(RatingsInputError, match=r"need at least 2 match results.*got 1"):
        rate([m("ABC", (1, 2, 3))])
    with pytest.raises(RatingsInputError, match=r"got 0"):
        rate([])


def test_rate_rejects_non_results():
    with pytest.raises(RatingsInputError, match=r"results\[1\] is not a MatchResult"):
        rate([m("ABC", (1, 2, 3)), ("A", "B", "C")])
    with pytest.raises(RatingsInputError, match="must be a sequence"):
        rate(m for m in [m("ABC", (1, 2, 3))])  # a generator is not a sequence


def test_rate_rejects_bot_named_in_players_without_matches():
    results = [m("ABC", (1, 2, 3), "b0"), m("ABC", (3, 2, 1), "b1")]
    with pytest.raises(RatingsInputError, match=r"no match results for these bots.*\['D'\]"):
        rate(results, players=["A", "B", "C", "D"], bootstrap=0)
    with pytest.raises(RatingsInputError, match=r"not in players: \['C'\]"):
        rate(results, players=["A", "B"], bootstrap=0)
    with pytest.raises(RatingsInputError, match=r"more than once: \['A'\]"):
        rate(results, players=["A", "A", "B", "C"], bootstrap=0)
    report = rate(results, players=["C", "B", "A"], bootstrap=0)
    assert set(report.names) == {"A", "B", "C"}


def test_rate_rejects_disconnected_groups_and_lists_them():
    results = [m("ABC", (1, 2, 3), "b0"), m("ABC", (2, 1, 3), "b1"),
               m("DEF", (1, 2, 3), "b2"), m("DEF", (3, 2, 1), "b3")]
    with pytest.raises(RatingsInputError) as info:
        rate(results)
    message = str(info.value)
    assert "2 groups" in message
    assert "{'A', 'B', 'C'}" in message and "{'D', 'E', 'F'}" in message
    # One match linking the groups makes them rateable.
    rate([*results, m("CDX", (1, 2, 3), "b4")], bootstrap=0)


def test_rate_rejects_bad_arguments():
    results = [m("ABC", (1, 2, 3), "b0"), m("ABC", (3, 2, 1), "b1")]
    with pytest.raises(RatingsInputError, match="bootstrap must be >= 0"):
        rate(results, bootstrap=-1)
    with pytest.raises(RatingsInputError, match="bootstrap must be an integer"):
        rate(results, bootstrap=2.5)
    with pytest.raises(RatingsInputError, match="seed must be"):
        rate(results, seed=-3)
    for sigma in (0, -1.0, float("inf"), float("nan"), "1", True):
        with pytest.raises(RatingsInputError, match="prior_sigma must be a finite number > 0"):
            rate(results, prior_sigma=sigma)
    with pytest.raises(RatingsInputError, match="at least 2 blocks"):
        rate([m("ABC", (1, 2, 3), "b0"), m("ABC", (3, 2, 1), "b0")], bootstrap=10)
    assert rate([m("ABC", (1, 2, 3), "b0"), m("ABC", (3, 2, 1), "b0")], bootstrap=0).los is None


def test_ratings_input_error_is_a_value_error():
    assert issubclass(RatingsInputError, ValueError)


def test_any_object_with_the_four_attributes_is_rated_and_checked_every_time():
    """rate() takes stored rows as they are; remembering checked rows never
    lets 0/1 pass for booleans or 1.0 for a place (they compare equal to True and 1)."""
    from types import SimpleNamespace

    def row(places, forfeits=(False, False, False), block="b0"):
        return SimpleNamespace(players=("A", "B", "C"), places=places, block=block,
                               forfeits=forfeits)

    good = [row((1, 2, 3), (False, False, True)), row((2, 1, 3), block="b1")]
    plain = [MatchResult(r.players, r.places, r.block, r.forfeits) for r in good]
    assert rate(good, bootstrap=0) == rate(plain, bootstrap=0)
    with pytest.raises(RatingsInputError, match=r"results\[0\]: forfeits must be booleans"):
        rate([row((1, 2, 3), (0, 0, 1)), good[1]], bootstrap=0)
    with pytest.raises(RatingsInputError, match=r"results\[1\]: places must be integers"):
        rate([good[0], row((2.0, 1, 3), block="b1")], bootstrap=0)
    with pytest.raises(RatingsInputError, match=r"results\[1\] is not a MatchResult"):
        rate([good[0], ("A", "B", "C")], bootstrap=0)
