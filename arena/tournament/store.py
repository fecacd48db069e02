"""The results store: one SQLite file per tournament output directory (``results.sqlite``).

Tables:

- ``meta(key, value)``: the config fingerprint, tournament name, arena version, created time;
- ``schedule``: every scheduled match, written in one transaction before play;
- ``results``: one row per finished match (status, placings, scores, faults, forfeits,
  timings, record file, CPU seconds and peak MiB per seat), inserted in one transaction after
  its record file is safely on disk.

Resume: a rerun plays exactly the schedule rows without a result row, so nothing is played
twice and nothing is skipped, even after ``kill -9`` (SQLite's journal makes each commit atomic;
a match killed mid-play simply has no row and is played again from its seed).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .. import __version__
from ..errors import UserError
from .schedule import ScheduledMatch

SCHEMA = """
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
#: columns added after the first release (added to older stores when opened for writing):
#: per seat, JSON lists: CPU seconds and peak resident MiB of the bot's processes in the match
#: (null where not measured, e.g. a remote bot)
ADDED_COLUMNS = {"cpu_s": "TEXT", "peak_mib": "TEXT"}
_NONE3 = (None, None, None)


class StoreError(UserError):
    """The output directory holds another tournament, or the store is unreadable."""


@dataclass(frozen=True)
class ResultRow:
    """A finished match as stored; per-seat tuples follow ``seats``."""

    match_id: str
    block_id: str
    seats: tuple[str, str, str]
    status: str
    placings: tuple[int, int, int]
    scores: tuple[int, int, int]
    faults: tuple[int, int, int]
    forfeited: tuple[bool, bool, bool]
    forfeit_reasons: tuple[str | None, str | None, str | None]
    end_reason: str | None
    hands: int
    decisions: tuple[int, int, int]
    think_ms: tuple[float, float, float]
    record: str
    cpu_s: tuple[float | None, float | None, float | None] = _NONE3
    peak_mib: tuple[float | None, float | None, float | None] = _NONE3


class Store:
    """Open (create) the store at ``path``. Use as a context manager or call :meth:`close`.

    Raises:
        StoreError: the file is not a readable SQLite database.
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        try:
            if readonly:
                self.db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                          isolation_level=None)
                tables = {r[0] for r in self.db.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'")}
                if not {"meta", "schedule", "results"} <= tables:
                    raise StoreError(f"{self.path}: not a 358 Arena results store")
                return
            self.db = sqlite3.connect(self.path, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
            have = {r[1] for r in self.db.execute("PRAGMA table_info(results)")}
            for col, kind in ADDED_COLUMNS.items():
                if col not in have:
                    self.db.execute(f"ALTER TABLE results ADD COLUMN {col} {kind}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a results store: {exc}") from None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def init_schedule(self, fingerprint: str, name: str, matches: list[ScheduledMatch]) -> bool:
        """Write the schedule once; on a rerun check it is the same tournament.

        Returns:
            True when the schedule was written now, False when it was already there (resume).

        Raises:
            StoreError: the directory holds a tournament with another fingerprint.
        """
        old = self.meta("fingerprint")
        if old is not None:
            if old != fingerprint:
                raise StoreError(
                    f"{self.path.parent} holds results of a different tournament (other bots, "
                    "seed, rules or time control); use another --out directory")
            return False
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("fingerprint", fingerprint), ("name", name), ("arena_version", __version__),
                ("created_at", now)])
            self.db.executemany(
                "INSERT INTO schedule VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(m.match_id, m.block_id, m.table, m.deal, m.seating, *m.seats, m.seed.hex())
                 for m in matches])
        return True

    def scheduled_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM schedule").fetchone()[0]

    def pending(self) -> list[ScheduledMatch]:
        """Scheduled matches without a result, in schedule order."""
        rows = self.db.execute(
            "SELECT s.match_id, block_id, table_idx, deal_idx, seating_idx, seat0, seat1, "
            "seat2, seed FROM schedule s LEFT JOIN results r USING (match_id) "
            "WHERE r.match_id IS NULL ORDER BY deal_idx, table_idx, seating_idx").fetchall()
        return [ScheduledMatch(r[0], r[1], r[2], r[3], r[4], (r[5], r[6], r[7]),
                               bytes.fromhex(r[8])) for r in rows]

    def save_result(self, row: ResultRow, started_at: str, ended_at: str) -> None:
        """Insert a finished match (one atomic commit). A second save of the same match is
        ignored, so a match is never counted twice."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(
                "INSERT OR IGNORE INTO results (match_id, status, placings, scores, faults, "
                "forfeited, forfeit_reasons, end_reason, hands, decisions, think_ms, "
                "started_at, ended_at, record, cpu_s, peak_mib) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (row.match_id, row.status, json.dumps(row.placings), json.dumps(row.scores),
                 json.dumps(row.faults), json.dumps(row.forfeited),
                 json.dumps(row.forfeit_reasons), row.end_reason, row.hands,
                 json.dumps(row.decisions), json.dumps(row.think_ms), started_at, ended_at,
                 row.record, json.dumps(row.cpu_s), json.dumps(row.peak_mib)))

    def results(self) -> list[ResultRow]:
        """All finished matches in schedule order."""
        have = {r[1] for r in self.db.execute("PRAGMA table_info(results)")}
        extra = "".join(f", r.{c}" if c in have else ", NULL" for c in ADDED_COLUMNS)
        rows = self.db.execute(
            "SELECT r.match_id, s.block_id, s.seat0, s.seat1, s.seat2, r.status, r.placings, "
            "r.scores, r.faults, r.forfeited, r.forfeit_reasons, r.end_reason, r.hands, "
            f"r.decisions, r.think_ms, r.record{extra} FROM results r "
            "JOIN schedule s USING (match_id) "
            "ORDER BY s.deal_idx, s.table_idx, s.seating_idx").fetchall()
        try:
            return [ResultRow(r[0], r[1], (r[2], r[3], r[4]), r[5], *(tuple(json.loads(x))
                              for x in r[6:11]), r[11], r[12], tuple(json.loads(r[13])),
                              tuple(json.loads(r[14])), r[15],
                              *(tuple(json.loads(x)) if x else _NONE3 for x in r[16:18]))
                    for r in rows]
        except (ValueError, TypeError) as exc:
            raise StoreError(f"{self.path}: a stored result is damaged ({exc})") from None


def open_existing(directory: str | Path) -> Store:
    """Open the store of a finished or interrupted tournament directory.

    Raises:
        StoreError: no ``results.sqlite`` in ``directory``.
    """
    path = Path(directory) / "results.sqlite"
    if not path.is_file():
        raise StoreError(f"{directory}: no tournament results here (missing results.sqlite)")
    return Store(path, readonly=True)
