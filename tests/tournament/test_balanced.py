"""Balanced schedules: pair balance, table counts and determinism for N = 3..40, config
validation, and a balanced tournament of real sample bots end to end."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections import Counter

import pytest

from arena.tournament.balanced import (balanced_tables, covering_design, covering_size,
                                       has_steiner_system, steiner_triple_system)
from arena.tournament.config import ConfigError, parse_config
from arena.tournament.schedule import SEATINGS, make_schedule

from .helpers import config_text, new_tag, wait_no_processes

NAMES = [f"bot-{k:02d}" for k in range(40)]


def schonheim(n: int, meetings: int) -> int:
    """Lower bound on the number of triples covering every pair ``meetings`` times."""
    return -(-n * -(-(n - 1) * meetings // 2) // 3)


def pair_counts(tables):
    return Counter(p for t in tables for p in itertools.combinations(sorted(t), 2))


@pytest.mark.parametrize("n", range(3, 41))
def test_steiner_systems_and_coverings(n):
    design = covering_design(n)
    assert len(design) == covering_size(n)
    assert all(len(set(t)) == 3 and all(0 <= x < n for x in t) for t in design)
    pairs = pair_counts(design)
    assert set(pairs) == set(itertools.combinations(range(n), 2))  # every pair meets
    load = Counter(x for t in design for x in t)
    if has_steiner_system(n):
        assert design == steiner_triple_system(n)
        assert set(pairs.values()) == {1}                        # exactly once
        assert set(load.values()) == {(n - 1) // 2}              # same tables for everyone
        assert len(design) == n * (n - 1) // 6
    else:
        with pytest.raises(ValueError, match="no Steiner triple system"):
            steiner_triple_system(n)
        assert max(load.values()) - min(load.values()) <= 1
        assert len(design) <= 1.2 * schonheim(n, 1) if n > 6 else len(design) <= 7
        if n % 6 == 4:
            assert len(design) == schonheim(n, 1)


@pytest.mark.parametrize("meetings", [1, 2, 3])
def test_balanced_tables_every_pair_meets_l_times_for_3_to_40_bots(meetings):
    for n in range(3, 41):
        bots = NAMES[:n]
        tabs = balanced_tables(bots, meetings, seed=11)
        pairs = pair_counts(tabs)
        assert len(pairs) == n * (n - 1) // 2
        assert min(pairs.values()) >= meetings
        load = Counter(b for t in tabs for b in t)
        assert set(load) == set(bots)
        if has_steiner_system(n):
            assert set(pairs.values()) == {meetings}
            assert set(load.values()) == {meetings * (n - 1) // 2}
            assert len(tabs) == meetings * n * (n - 1) // 6
        else:
            assert max(load.values()) - min(load.values()) <= 1
        # a table lists its bots in config order
        assert all(list(t) == sorted(t, key=bots.index) for t in tabs)


def test_balanced_tables_are_a_pure_function_of_bots_seed_and_meetings():
    for n in range(3, 41):
        bots = NAMES[:n]
        a = balanced_tables(bots, 2, seed=5)
        assert balanced_tables(list(bots), 2, seed=5) == a
        # config order does not decide who meets whom (bots are labelled by hash)
        rev = balanced_tables(bots[::-1], 2, seed=5)
        assert sorted(tuple(sorted(t)) for t in rev) == sorted(tuple(sorted(t)) for t in a)
    # another seed gives another (equally balanced) set of tables
    assert sorted(balanced_tables(NAMES[:9], 1, 5)) != sorted(balanced_tables(NAMES[:9], 1, 6))


def test_21_bots_play_70_tables_instead_of_1330():
    tabs = balanced_tables(NAMES[:21], 1, seed=1)
    assert len(tabs) == 70 and len(set(tabs)) == 70
    sched = make_schedule(NAMES[:21], 2, 1, schedule="balanced")
    assert len(sched) == 70 * 2 * 6
    assert len(make_schedule(NAMES[:21], 1, 1)) == 1330 * 6


def test_balanced_schedule_keeps_duplicate_blocks_and_distinct_deals():
    sched = make_schedule(NAMES[:7], 2, "s", schedule="balanced", pair_meetings=2)
    blocks: dict[str, list] = {}
    for m in sched:
        blocks.setdefault(m.block_id, []).append(m)
    assert len(blocks) == 14 * 2
    for ms in blocks.values():
        assert len(ms) == 6 and len({m.seed for m in ms}) == 1        # one deal per block
        assert {m.seats for m in ms} == set(itertools.permutations(ms[0].seats))
        assert [m.seating for m in ms] == list(range(len(SEATINGS)))
    # every block has its own deal, even when a table occurs twice (pair_meetings = 2)
    assert len({ms[0].seed for ms in blocks.values()}) == len(blocks)
    assert len({m.match_id for m in sched}) == len(sched)
    assert make_schedule(NAMES[:7], 2, "s", schedule="balanced", pair_meetings=2) == sched


def test_bad_schedule_arguments():
    with pytest.raises(ValueError, match="unknown schedule"):
        make_schedule(NAMES[:4], 1, 1, schedule="swiss")
    with pytest.raises(ValueError, match="pair_meetings must be an integer >= 1"):
        balanced_tables(NAMES[:4], 0, 1)
    with pytest.raises(ValueError, match="at least 3 distinct bots"):
        balanced_tables(["a", "b", "a"], 1, 1)


GOOD = """
[tournament]
seed = 1
{extra}
[[bots]]
name = "a"
command = ["x"]
[[bots]]
name = "b"
command = ["x"]
[[bots]]
name = "c"
command = ["x"]
"""


def test_config_schedule_fields_and_fingerprint():
    plain = parse_config(GOOD.format(extra=""))
    assert plain.tournament.schedule == "all-tables" and plain.tournament.pair_meetings == 1
    explicit = parse_config(GOOD.format(extra='schedule = "all-tables"'))
    assert explicit.fingerprint() == plain.fingerprint()   # older directories still resume
    bal = parse_config(GOOD.format(extra='schedule = "balanced"\npair_meetings = 2'))
    assert bal.tournament.pair_meetings == 2 and bal.fingerprint() != plain.fingerprint()
    bal1 = parse_config(GOOD.format(extra='schedule = "balanced"'))
    assert bal1.fingerprint() not in (plain.fingerprint(), bal.fingerprint())
    for bad, message in [
        ('schedule = "swiss"', "tournament.schedule: Input should be 'all-tables', "
         "'balanced' or 'adaptive'"),
        ("pair_meetings = 2", 'pair_meetings applies only to schedule = "balanced" or '
         '"adaptive"'),
        ('schedule = "balanced"\npair_meetings = 0', "tournament.pair_meetings: Input should "
         "be greater than or equal to 1"),
    ]:
        with pytest.raises(ConfigError) as err:
            parse_config(GOOD.format(extra=bad), "t.toml")
        assert message in str(err.value)


@pytest.mark.e2e
def test_arena_run_plays_a_balanced_tournament_of_sample_bots(tmp_path):
    """7 real bot processes, balanced (7 tables, an STS) instead of 35: every pair meets once,
    every bot plays 3 tables x 6 seatings."""
    tag = new_tag()
    text = config_text(None, tag=tag, bots=7, hand_cap=1, concurrency=2)
    text = text.replace("deals_per_table = 1", 'deals_per_table = 1\nschedule = "balanced"')
    cfg_file = tmp_path / "balanced.toml"
    cfg_file.write_text(text)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(cfg_file), "--out",
                           str(out), "--quiet"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "42 matches played now, 0 resumed from earlier runs, 42 scheduled" in proc.stdout
    assert wait_no_processes(tag) == []
    standings = json.loads((out / "standings.json").read_text())
    rows = standings["standings"]
    assert sorted(r["matches"] for r in rows) == [18] * 7
    import sqlite3
    con = sqlite3.connect(out / "results.sqlite")
    seats = con.execute("SELECT seat0, seat1, seat2 FROM schedule").fetchall()
    con.close()
    pairs = pair_counts({tuple(sorted(s)) for s in seats})
    assert len(pairs) == 21 and set(pairs.values()) == {1}
    # resuming is a no-op (same fingerprint, nothing left to play)
    again = subprocess.run([sys.executable, "-m", "arena.cli", "run", str(cfg_file), "--out",
                            str(out), "--quiet"], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "0 matches played now, 42 resumed" in again.stdout
