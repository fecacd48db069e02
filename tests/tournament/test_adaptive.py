"""schedule = "adaptive": config, the first round, the store's table registry, and `arena run`
end to end with real sample bots in the bubblewrap sandbox (whole blocks, the budget, deal
seeds, resume after SIGKILL)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections import Counter

import pytest

from arena.rules.deal import derive_seed
from arena.tournament.adaptive import budget_blocks
from arena.tournament.balanced import balanced_tables, covering_size
from arena.tournament.config import ConfigError, parse_config
from arena.tournament.schedule import ScheduledMatch, keyed, make_schedule
from arena.tournament.store import Store, open_existing

from .helpers import bot_block, count_results, kill_9_when, new_tag, wait_no_processes

NAMES = ["random-0", "random-1", "greedy", "greedy-b", "random-2"]


def adaptive_text(tag: str, *, deals: int = 2, extra: str = "",
                  sandbox: str = "bwrap") -> str:
    text = (f'[sandbox]\nmode = "{sandbox}"\n[tournament]\nseed = 7\ndeals_per_table = {deals}\n'
            f'concurrency = 2\nschedule = "adaptive"\n{extra}[rules]\nhand_cap = 1\n'
            "[time]\nper_decision_ms = 300\ngrace_ms = 150\n")
    for k, name in enumerate(NAMES):
        module = "greedy_bot" if name.startswith("greedy") else "random_bot"
        args = [] if name.startswith("greedy") else ["--seed", str(k)]
        text += bot_block(name, ["{python}", "-m", f"sample_bots.{module}", *args], tag)
    return text


def test_config_and_budget():
    cfg = parse_config(adaptive_text("t"))
    assert cfg.tournament.schedule == "adaptive" and cfg.tournament.target == "top"
    assert budget_blocks(cfg) == covering_size(5) * 2 == 8
    met = parse_config(adaptive_text("t", extra='pair_meetings = 2\ntarget = "widest"\n'))
    assert budget_blocks(met) == 16 and met.tournament.target == "widest"
    assert met.fingerprint() != cfg.fingerprint()
    with pytest.raises(ConfigError, match='target applies only to schedule = "adaptive"'):
        plain = adaptive_text("t").replace('schedule = "adaptive"\n', 'target = "widest"\n')
        parse_config(plain)
    with pytest.raises(ConfigError, match=r"tournament\.target"):
        parse_config(adaptive_text("t", extra='target = "best"\n'))


def test_the_first_round_is_the_balanced_schedules_first_deal():
    first = make_schedule(NAMES, 5, 7, schedule="adaptive")
    balanced = make_schedule(NAMES, 1, 7, schedule="balanced")
    assert first == balanced and len(first) == 6 * len(balanced_tables(NAMES, 1, 7))


def test_the_store_gives_a_table_its_index_and_the_next_deal(tmp_path):
    with Store(tmp_path / "results.sqlite") as store:
        store.init_schedule("fp", "t", make_schedule(NAMES, 1, 7, schedule="adaptive"))
        first = balanced_tables(NAMES, 1, 7)[1]
        assert store.next_deal(frozenset(first)) == (1, 1)
        assert store.next_deal(frozenset(("random-0", "random-1", "random-2"))) == (4, 0)
        store.extend_schedule([ScheduledMatch("t001-d0001-s0", "t001-d0001", 1, 1, 0, first,
                                              b"\0" * 32)], {})
        assert store.next_deal(frozenset(first)) == (1, 2)


def blocks_of(db) -> dict[str, list[tuple]]:
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT s.block_id, s.table_idx, s.deal_idx, s.seat0, s.seat1, "
                           "s.seat2, s.seed, r.match_id IS NOT NULL FROM schedule s LEFT JOIN "
                           "results r USING (match_id)").fetchall()
    finally:
        con.close()
    out: dict[str, list[tuple]] = {}
    for r in rows:
        out.setdefault(r[0], []).append(r[1:])
    return out


@pytest.mark.e2e
def test_arena_run_adaptive_plays_whole_blocks_up_to_the_budget_and_resumes(tmp_path):
    tag = new_tag()
    cfg = tmp_path / "a.toml"
    cfg.write_text(adaptive_text(tag, extra='target = "widest"\n'))    # not the default
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "arena.cli", "run", str(cfg), "--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    # kill -9 once a few adaptive blocks are scheduled, some of them not finished
    kill_9_when(proc, lambda: count_results(out / "results.sqlite") >= 30)
    assert wait_no_processes(tag, 15) == []
    before = count_results(out / "results.sqlite")
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{48 - before} matches played now, {before} resumed" in again.stdout
    assert "sandbox: bwrap (" in again.stderr
    blocks = blocks_of(out / "results.sqlite")
    with open_existing(out) as store:
        key = bytes.fromhex(store.meta("deal_key") or "")
    assert len(blocks) == budget_blocks(parse_config(cfg.read_text())) == 8
    first = {frozenset(t): k for k, t in enumerate(balanced_tables(NAMES, 1, 7))}
    for block_id, rows in blocks.items():
        assert len(rows) == 6 and all(r[-1] for r in rows)           # whole and played
        tables = {frozenset(r[2:5]) for r in rows}
        assert len(tables) == 1 and len({r[2:5] for r in rows}) == 6  # all 6 seatings
        assert len({r[5] for r in rows}) == 1                        # one deal
        (table,) = tables
        index, deal = rows[0][0], rows[0][1]
        assert block_id == f"t{index:03d}-d{deal:04d}"
        if deal == 0 and table in first:
            assert index == first[table]
        else:   # an adaptive block: its seed from the table's bots and its deal
            seats = sorted(table, key=NAMES.index)
            assert rows[0][5] == keyed(key, derive_seed(7, "adaptive", *seats, "deal",
                                                        deal)).hex()
    assert Counter(len(r) for r in blocks.values()) == {6: 8}
    standings = json.loads((out / "standings.json").read_text())
    assert {r["bot"] for r in standings["standings"]} == set(NAMES)
    third = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert third.returncode == 0 and "0 matches played now, 48 resumed" in third.stdout
    assert wait_no_processes(tag) == []
