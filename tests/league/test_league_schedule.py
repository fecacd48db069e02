"""The league's choice of the next table: a new version first plays its rating blocks against
settled bots it met least, then the fill keeps every pair meeting about as often."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from arena.league.schedule import History, next_table


def play(roster, history, steps, first_blocks):
    tables = list(history.tables)
    for _ in range(steps):
        t = next_table(roster, History(tuple(tables)), first_blocks=first_blocks)
        assert t is not None
        tables.append(t)
    return History(tuple(tables))


def test_fewer_than_three_bots_play_nothing() -> None:
    assert next_table(["a", "b"], History()) is None


def test_a_new_version_plays_its_rating_blocks_against_settled_bots_first() -> None:
    roster = [f"b{i}" for i in range(6)]
    h = play(roster, History(), 40, first_blocks=0)        # a settled league
    new = [*roster, "new@1"]
    after = play(new, h, 5, first_blocks=5)
    added = after.tables[len(h.tables):]
    assert all("new@1" in t for t in added)                 # 5 blocks in a row
    partners = Counter(b for t in added for b in t if b != "new@1")
    assert set(partners) <= set(roster) and max(partners.values()) <= 2   # spread out
    nxt = next_table(new, after, first_blocks=5)
    assert nxt is not None and nxt != added[-1]            # then it joins the fill


@pytest.mark.parametrize("n,steps", [(6, 40), (7, 70), (8, 56), (9, 120), (13, 104)])
def test_the_fill_balances_blocks_and_pair_meetings(n, steps) -> None:
    roster = [f"b{i}" for i in range(n)]
    h = play(roster, History(), steps, first_blocks=0)
    pairs = h.pairs()
    assert len(pairs) == n * (n - 1) // 2                   # every pair has met
    assert max(pairs.values()) - min(pairs.values()) <= 2
    per_bot = h.blocks()
    assert max(per_bot.values()) - min(per_bot.values()) <= 1


def test_the_choice_is_deterministic_and_keeps_roster_order() -> None:
    roster = ["zed", "amy", "bob", "cat"]
    a = play(roster, History(), 12, first_blocks=2)
    b = play(roster, History(), 12, first_blocks=2)
    assert a == b
    for t in a.tables:
        assert list(t) == sorted(t, key=roster.index)
    assert set(itertools.chain.from_iterable(a.tables)) == set(roster)
