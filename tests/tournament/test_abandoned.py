"""When one match task fails, the other running matches are cancelled and
never stored (no row, no record, no "all forfeited, all 1st"); a resume plays them. End to end
with real bot processes over gRPC."""

from __future__ import annotations

import asyncio

import pytest

import arena.tournament.local as local_mod
from arena.records import read_record, verify_record
from arena.tournament.config import TournamentConfig, parse_config
from arena.tournament.runner import run_tournament
from arena.tournament.store import open_existing

from .helpers import PROBEBOT, PYTHON, bot_block, new_tag, wait_no_processes

pytestmark = pytest.mark.e2e


def slow_config(tag: str, concurrency: int, sleep_ms: int = 30) -> TournamentConfig:
    """Every decision takes ``sleep_ms``: with 30 ms a match lasts over a second. The bot
    commands are not part of the tournament's identity, so a resume may use fast bots."""
    text = (f"[tournament]\nseed = 3\nconcurrency = {concurrency}\n[rules]\nhand_cap = 1\n"
            "[time]\nper_decision_ms = 2000\n")
    for i in range(3):
        text += bot_block(f"p{i}", [PYTHON, str(PROBEBOT), "--mode", "slow", "--sleep-ms",
                                    str(sleep_ms)], tag)
    return parse_config(text, "t.toml")


def stored(out):
    with open_existing(out) as store:
        return store.results(), store.pending()


def test_failing_match_task_cancels_the_others_which_resume_replays(tmp_path, monkeypatch):
    tag = new_tag()
    cfg = slow_config(tag, 3)
    real = local_mod.run_match
    started: list[str] = []

    async def failing(spec, bots):
        started.append(spec.match_id)
        if len(started) == 3:              # the third match fails while two others play
            await asyncio.sleep(0.5)
            raise RuntimeError("injected failure")
        return await real(spec, bots)

    monkeypatch.setattr(local_mod, "run_match", failing)
    with pytest.raises(RuntimeError, match="injected failure"):
        asyncio.run(run_tournament(cfg, tmp_path, progress=False))
    assert wait_no_processes(tag) == []
    rows, pending = stored(tmp_path)
    assert rows == [] and len(pending) == 6            # nothing had finished: nothing stored
    assert list((tmp_path / "records").iterdir()) == []

    monkeypatch.setattr(local_mod, "run_match", real)
    # the same bots: a bot's command may not change within a tournament (tests/tournament/
    # test_growth.py)
    outcome = asyncio.run(run_tournament(slow_config(tag, 3), tmp_path, progress=False))
    assert outcome.played_now == 6 and outcome.already_done == 0
    rows, pending = stored(tmp_path)
    assert pending == [] and len({r.match_id for r in rows}) == 6
    for r in rows:
        # a replayed match is a normal one: nobody forfeited (a shared first place is still
        # possible: in a one-hand blato match all three can make their targets exactly);
        # verify_record checks the placings against the scores
        assert r.status == "normal" and not any(r.forfeits)
        verify_record(read_record(tmp_path / r.record))
    assert wait_no_processes(tag) == []


def test_matches_finished_before_the_failure_are_kept(tmp_path, monkeypatch):
    tag = new_tag()
    cfg = slow_config(tag, 2)
    real = local_mod.run_match
    calls: list[str] = []

    async def failing(spec, bots):
        calls.append(spec.match_id)
        if len(calls) == 4:                # two matches done, one running beside this one
            await asyncio.sleep(0.3)
            raise RuntimeError("injected failure")
        return await real(spec, bots)

    monkeypatch.setattr(local_mod, "run_match", failing)
    with pytest.raises(RuntimeError, match="injected failure"):
        asyncio.run(run_tournament(cfg, tmp_path, progress=False))
    rows, pending = stored(tmp_path)
    assert 2 <= len(rows) <= 3 and len(rows) + len(pending) == 6
    records = sorted(p.name for p in (tmp_path / "records").iterdir())
    assert records == sorted(f"{r.match_id}.jsonl.gz" for r in rows)
    for r in rows:
        assert r.status == "normal" and not any(r.forfeits)
    monkeypatch.setattr(local_mod, "run_match", real)
    outcome = asyncio.run(run_tournament(slow_config(tag, 2), tmp_path, progress=False))
    assert outcome.played_now == len(pending) and outcome.already_done == len(rows)
    assert wait_no_processes(tag) == []


def test_a_record_without_its_row_is_removed_on_resume(tmp_path, monkeypatch):
    import sqlite3
    from .helpers import config_text
    tag = new_tag()
    cfg = parse_config(config_text(None, tag=tag), "t.toml")
    asyncio.run(run_tournament(cfg, tmp_path, progress=False))
    with open_existing(tmp_path) as store:
        victim = store.results()[2]
    con = sqlite3.connect(tmp_path / "results.sqlite")
    with con:   # as if killed between writing the record and committing its row
        con.execute("DELETE FROM results WHERE match_id = ?", (victim.match_id,))
    con.close()
    assert (tmp_path / victim.record).exists()

    async def failing(spec, bots):
        raise RuntimeError("injected failure")

    monkeypatch.setattr(local_mod, "run_match", failing)
    with pytest.raises(RuntimeError, match="injected failure"):
        asyncio.run(run_tournament(cfg, tmp_path, progress=False))
    assert not (tmp_path / victim.record).exists()
    assert len(list((tmp_path / "records").iterdir())) == 5
    assert wait_no_processes(tag) == []
