"""The tables derived from the row declarations (arena/tournament/rows.py) are the layout the
store has always written: a results.sqlite made with the hand-written SQL of earlier arenas
opens, reads back what was stored, and resumes (end to end, real bot processes)."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.tournament.config import parse_config
from arena.tournament.runner import run_tournament
from arena.tournament.store import APPLICATION_ID, ResultRow, Store, open_existing

from .helpers import config_text, new_tag, wait_no_processes

pytestmark = pytest.mark.e2e

#: the store's tables as the arena wrote them by hand (schema 1), verbatim
EARLIER_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS schedule (
    match_id TEXT PRIMARY KEY, block_id TEXT NOT NULL, table_idx INTEGER NOT NULL,
    deal_idx INTEGER NOT NULL, seating_idx INTEGER NOT NULL,
    seat0 TEXT NOT NULL, seat1 TEXT NOT NULL, seat2 TEXT NOT NULL, seed TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    match_id TEXT PRIMARY KEY REFERENCES schedule(match_id), status TEXT NOT NULL,
    placings TEXT NOT NULL, scores TEXT NOT NULL, faults TEXT NOT NULL,
    forfeited TEXT NOT NULL, forfeit_reasons TEXT NOT NULL, end_reason TEXT,
    hands INTEGER NOT NULL, decisions TEXT NOT NULL, think_ms TEXT NOT NULL,
    started_at TEXT NOT NULL, ended_at TEXT NOT NULL, record TEXT NOT NULL);
"""
#: and schema 2's columns, added to older stores by ALTER TABLE
EARLIER_ADDED = {"cpu_s": "TEXT", "peak_mib": "TEXT"}


def earlier_store(path: Path) -> sqlite3.Connection:
    """An empty store of schema 2 made as the earlier code made it."""
    con = sqlite3.connect(path, isolation_level=None)
    con.executescript(EARLIER_SCHEMA)
    for col, kind in EARLIER_ADDED.items():
        con.execute(f"ALTER TABLE results ADD COLUMN {col} {kind}")
    con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    con.execute("PRAGMA user_version = 2")
    return con


def earlier_save(con: sqlite3.Connection, row: ResultRow) -> None:
    """A result row inserted as the earlier ``Store.save_result`` inserted it."""
    con.execute(
        "INSERT OR IGNORE INTO results (match_id, status, placings, scores, faults, "
        "forfeited, forfeit_reasons, end_reason, hands, decisions, think_ms, "
        "started_at, ended_at, record, cpu_s, peak_mib) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (row.match_id, row.status, json.dumps(row.places), json.dumps(row.scores),
         json.dumps(row.faults), json.dumps(row.forfeits),
         json.dumps(row.forfeit_reasons), row.end_reason, row.hands,
         json.dumps(row.decisions), json.dumps(row.think_ms), row.started_at, row.ended_at,
         row.record, json.dumps(row.cpu_s), json.dumps(row.peak_mib)))


def table_info(path: Path) -> dict[str, list[tuple]]:
    con = sqlite3.connect(path)
    try:
        return {t: con.execute(f"PRAGMA table_info({t})").fetchall()
                for t in ("meta", "schedule", "results")}
    finally:
        con.close()


def test_derived_tables_are_the_earlier_layout(tmp_path):
    earlier_store(tmp_path / "old.sqlite").close()
    with Store(tmp_path / "new.sqlite"):
        pass
    old, new = table_info(tmp_path / "old.sqlite"), table_info(tmp_path / "new.sqlite")
    assert [c[1] for c in new["results"]] == [
        "match_id", "status", "placings", "scores", "faults", "forfeited", "forfeit_reasons",
        "end_reason", "hands", "decisions", "think_ms", "started_at", "ended_at", "record",
        "cpu_s", "peak_mib"]
    assert new == old          # names, types, NOT NULL, defaults and keys, column by column


def test_a_store_written_by_the_earlier_code_reads_back_and_resumes(tmp_path):
    tag = new_tag()
    text = config_text(None, tag=tag)
    first, second = tmp_path / "a", tmp_path / "b"
    outcome = asyncio.run(run_tournament(parse_config(text, "t.toml"), first, progress=False))
    assert outcome.played_now == 6
    with open_existing(first) as store:
        rows = store.results()
        meta = store.db.execute("SELECT key, value FROM meta").fetchall()
        schedule = store.db.execute("SELECT * FROM schedule").fetchall()
    # the same directory, its store rewritten by the earlier SQL with the last 2 results left
    # out (as if the run had been killed there)
    shutil.copytree(first, second, ignore=shutil.ignore_patterns("results.sqlite*"))
    kept, lost = rows[:4], rows[4:]
    for r in lost:
        (second / r.record).unlink()
    con = earlier_store(second / "results.sqlite")
    con.execute("BEGIN")
    con.executemany("INSERT INTO meta VALUES (?, ?)", meta)
    con.executemany("INSERT INTO schedule VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", schedule)
    for r in kept:
        earlier_save(con, r)
    con.execute("COMMIT")
    con.close()
    (second / "results.sqlite").chmod(0o600)

    with open_existing(second) as store:
        assert store.results() == kept
        assert [m.match_id for m in store.pending()] == [r.match_id for r in lost]
    outcome = asyncio.run(run_tournament(parse_config(text, "t.toml"), second, progress=False))
    assert (outcome.played_now, outcome.already_done) == (2, 4)
    with open_existing(second) as store:
        again = store.results()
        assert store.pending() == []
    assert again[:4] == kept                                 # the earlier rows as they were
    assert [r.match_id for r in again] == [r.match_id for r in rows]
    assert all((second / r.record).is_file() and r.status == "normal" for r in again[4:])
    assert wait_no_processes(tag) == []
