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

Identity: a store carries ``PRAGMA application_id`` = :data:`APPLICATION_ID` ("358A") and
``PRAGMA user_version`` = :data:`SCHEMA_VERSION`. Any other SQLite file is refused, never
written to (see :func:`check_identity`); a store written before these marks existed (our three
tables, no application id) is ours and gets them on its next writable open.

Validation: every row read back is checked (:mod:`arena.tournament.rows`); a damaged row is a
one-line :class:`StoreError` naming its match id, never a traceback.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import datetime, UTC
from pathlib import Path

from .. import __version__
from ..errors import UserError
from .rows import RowError, result_values, schedule_values
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


#: ``PRAGMA application_id`` of a 358 Arena store: the bytes "358A"
APPLICATION_ID = 0x33353841
#: ``PRAGMA user_version``: the layout of the tables above. 1: the first tables; 2: plus
#: :data:`ADDED_COLUMNS`. Older stores are upgraded on their next writable open.
SCHEMA_VERSION = 2
#: the columns of our tables, to recognise a store written before the identity marks
_COLUMNS = {
    "meta": ("key", "value"),
    "schedule": ("match_id", "block_id", "table_idx", "deal_idx", "seating_idx", "seat0",
                 "seat1", "seat2", "seed"),
    "results": ("match_id", "status", "placings", "scores", "faults", "forfeited",
                "forfeit_reasons", "end_reason", "hands", "decisions", "think_ms", "started_at",
                "ended_at", "record"),
}


class StoreError(UserError):
    """The output directory holds another tournament, or the store is unreadable."""


def check_identity(db: sqlite3.Connection, path: Path) -> str:
    """Decide whether the SQLite database ``db`` (at ``path``) is a 358 Arena store, reading
    only. Returns ``"store"`` (marked as ours), ``"unmarked"`` (our tables, written before the
    marks existed), or ``"empty"`` (no tables: a new store may be created in it).

    Raises:
        StoreError: another application's database, one with other tables, or a store of a
            newer schema; one line naming the file.
    """
    app = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = sorted(r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
    refuse = "; use another --out directory"
    if app == APPLICATION_ID:
        if version > SCHEMA_VERSION:
            raise StoreError(f"{path}: written by a newer 358 Arena (store schema {version}, "
                             f"this arena reads up to {SCHEMA_VERSION}); upgrade the arena")
        return "store"
    if app != 0:
        raise StoreError(f"{path}: not a 358 Arena results store (an SQLite database of "
                         f"another application, application_id {app:#010x}){refuse}")
    if not tables:
        return "empty"
    for table, columns in _COLUMNS.items():
        have = tuple(r[1] for r in db.execute(f"PRAGMA table_info({table})"))
        if have != columns and not (table == "results"
                                    and have == columns + tuple(ADDED_COLUMNS)):
            shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
            raise StoreError(f"{path}: not a 358 Arena results store (an SQLite database with "
                             f"other tables: {shown}){refuse}")
    return "unmarked"


@dataclass(frozen=True)
class ResultRow:
    """A finished match as stored; per-seat tuples follow ``seats``.

    The one result of a match past the runner: written and read back by the store, rated as it
    is (it has the four attributes the ratings read, :class:`arena.ratings.model.RatedResult`:
    ``players``, ``places``, ``block``, ``forfeits``), folded into the standings.
    """

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

    @property
    def players(self) -> tuple[str, str, str]:
        """The bots by seat (the ratings' name for :attr:`seats`)."""
        return self.seats

    @property
    def places(self) -> tuple[int, int, int]:
        """The placings by seat, forfeiting seats last (the ratings' name)."""
        return self.placings

    @property
    def block(self) -> str:
        """The duplicate block (the ratings' name for :attr:`block_id`)."""
        return self.block_id

    @property
    def forfeits(self) -> tuple[bool, bool, bool]:
        """Which seats forfeited (the ratings' name for :attr:`forfeited`)."""
        return self.forfeited


def _create_tables(db: sqlite3.Connection, mark: bool) -> None:
    """Create the tables that are missing, add the :data:`ADDED_COLUMNS` an older store lacks
    and set the identity marks (with ``mark``, or when the schema version is older), in one
    transaction."""
    with db:
        db.execute("BEGIN IMMEDIATE")
        for statement in SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        have = {r[1] for r in db.execute("PRAGMA table_info(results)")}
        for col, kind in ADDED_COLUMNS.items():
            if col not in have:
                db.execute(f"ALTER TABLE results ADD COLUMN {col} {kind}")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if mark or version < SCHEMA_VERSION:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


class Store:
    """Open (create) the store at ``path``. Use as a context manager or call :meth:`close`.

    Raises:
        StoreError: the file is not a readable SQLite database.
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        db = None
        try:
            if readonly:
                db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                     isolation_level=None)
                if check_identity(db, self.path) == "empty":
                    raise StoreError(f"{self.path}: not a 358 Arena results store (no tables)")
            else:
                self.path.touch(0o600)      # the deal key is in it: owner only
                db = sqlite3.connect(self.path, isolation_level=None)
                kind = check_identity(db, self.path)   # before anything is written
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=FULL")
                _create_tables(db, mark=kind != "store")
        except (sqlite3.DatabaseError, StoreError) as exc:
            if db is not None:
                db.close()
            if isinstance(exc, StoreError):
                raise
            raise StoreError(f"{self.path}: not a 358 Arena results store: {exc}") from None
        self.db = db

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def deal_key(self) -> bytes | None:
        """The directory's secret deal key (32 bytes; :func:`.schedule.keyed`): made now, at
        random, for a store that has no schedule yet; None for a store whose schedule was
        written before deal keys existed (its stored seeds stay as they are).

        The key lives in ``meta`` (``deal_key``); the store file is readable by its owner
        only (the directory is hidden from sandboxed bots)."""
        value = self.meta("deal_key")
        if value is not None:
            return bytes.fromhex(value)
        if self.scheduled_count():
            return None
        key = secrets.token_bytes(32)
        self.set_meta({"deal_key": key.hex()})
        return key

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
        now = datetime.now(UTC).isoformat(timespec="seconds")
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

    def replace_schedule(self, fingerprint: str, name: str, matches: list[ScheduledMatch],
                         meta: dict[str, str]) -> None:
        """Replace the stored schedule of a directory that holds no result yet (an earlier
        run stopped before its first match was stored, e.g. by a pre-flight failure), with
        its fingerprint, name and ``meta`` entries, in one transaction.

        Raises:
            StoreError: a result is stored (nothing is changed).
        """
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            if self.db.execute("SELECT 1 FROM results LIMIT 1").fetchone() is not None:
                raise StoreError(f"{self.path}: holds results; its schedule is kept")
            self.db.execute("DELETE FROM schedule")
            self.db.executemany(
                "INSERT INTO schedule VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(m.match_id, m.block_id, m.table, m.deal, m.seating, *m.seats, m.seed.hex())
                 for m in matches])
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                [("fingerprint", fingerprint), ("name", name), *meta.items()])

    def played_bots(self) -> set[str]:
        """The bots with at least one stored result."""
        return {name for row in self.db.execute(
            "SELECT seat0, seat1, seat2 FROM schedule JOIN results USING (match_id)")
            for name in row}

    def set_meta(self, values: dict[str, str]) -> None:
        """Insert or replace ``meta`` entries (one commit)."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())

    def extend_schedule(self, matches: list[ScheduledMatch], meta: dict[str, str]) -> None:
        """Add ``matches`` to the schedule and set ``meta`` entries, in one transaction (a
        league that grows, :mod:`.growth`).

        Raises:
            sqlite3.IntegrityError: a match id is already scheduled (nothing is written).
        """
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany(
                "INSERT INTO schedule VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(m.match_id, m.block_id, m.table, m.deal, m.seating, *m.seats, m.seed.hex())
                 for m in matches])
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta.items())

    def scheduled_bots(self) -> list[str]:
        """The bot names of the stored schedule, sorted."""
        return sorted({name for row in self.db.execute(
            "SELECT seat0, seat1, seat2 FROM schedule") for name in row})

    def max_table(self) -> int:
        """The highest table index of the stored schedule (-1 when it is empty)."""
        value = self.db.execute("SELECT MAX(table_idx) FROM schedule").fetchone()[0]
        return -1 if value is None else int(value)

    def next_deal(self, seats: frozenset[str]) -> tuple[int, int]:
        """Where a new deal of the table seating ``seats`` goes: its table index (the lowest
        index already seating those bots, else one past the highest) and the deal index after
        the last stored at that table."""
        rows = self.db.execute(
            "SELECT table_idx, MAX(deal_idx), seat0, seat1, seat2 FROM schedule "
            "WHERE seating_idx = 0 GROUP BY table_idx ORDER BY table_idx").fetchall()
        for table, deal, *names in rows:
            if frozenset(names) == seats:
                return int(table), int(deal) + 1
        return self.max_table() + 1, 0

    def scheduled_count(self) -> int:
        """How many matches are scheduled."""
        return int(self.db.execute("SELECT COUNT(*) FROM schedule").fetchone()[0])

    def complete_blocks(self) -> set[str]:
        """The duplicate blocks (``block_id``) all of whose scheduled matches have a result
        row: only their matches may be published (a finished seating tells the deal its
        block's other seatings still play)."""
        return {r[0] for r in self.db.execute(
            "SELECT s.block_id FROM schedule s LEFT JOIN results r USING (match_id) "
            "GROUP BY s.block_id HAVING count(r.match_id) = count(*)")}

    def pending(self) -> list[ScheduledMatch]:
        """Scheduled matches without a result, in schedule order.

        Raises:
            StoreError: a schedule row is damaged (names its match id).
        """
        cur = self.db.execute(
            "SELECT s.match_id, block_id, table_idx, deal_idx, seating_idx, seat0, seat1, "
            "seat2, seed FROM schedule s LEFT JOIN results r USING (match_id) "
            "WHERE r.match_id IS NULL ORDER BY deal_idx, table_idx, seating_idx")
        out = []
        for r in cur.fetchall():
            raw = {"match_id": r[0], "block_id": r[1], "table_idx": r[2], "deal_idx": r[3],
                   "seating_idx": r[4], "seats": (r[5], r[6], r[7]), "seed": r[8]}
            try:
                v = schedule_values(raw)
            except RowError as exc:
                raise self._damaged("scheduled match", r[0], exc) from None
            out.append(ScheduledMatch(v.match_id, v.block_id, v.table_idx, v.deal_idx,
                                      v.seating_idx, v.seats, bytes.fromhex(v.seed)))
        return out

    def _damaged(self, what: str, match_id: object, exc: RowError) -> StoreError:
        return StoreError(f"{self.path}: the stored {what} {match_id!r} is damaged ({exc}); "
                          "restore the file, or run again into a new --out directory")

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
        """All finished matches in schedule order (``cpu_s`` / ``peak_mib`` are nulls in a
        store read-only opened before its upgrade to schema 2).

        Raises:
            StoreError: a stored row is damaged: one line naming its match id and column.
        """
        have = {r[1] for r in self.db.execute("PRAGMA table_info(results)")}
        extra = "".join(f", r.{c}" if c in have else ", NULL" for c in ADDED_COLUMNS)
        cur = self.db.execute(
            "SELECT r.match_id, s.block_id, s.seat0, s.seat1, s.seat2, r.status, r.placings, "
            "r.scores, r.faults, r.forfeited, r.forfeit_reasons, r.end_reason, r.hands, "
            f"r.decisions, r.think_ms, r.record{extra} FROM results r "
            "JOIN schedule s USING (match_id) "
            "ORDER BY s.deal_idx, s.table_idx, s.seating_idx")
        out = []
        for r in cur.fetchall():
            raw = {"match_id": r[0], "block_id": r[1], "seats": (r[2], r[3], r[4]),
                   "status": r[5], "placings": r[6], "scores": r[7], "faults": r[8],
                   "forfeited": r[9], "forfeit_reasons": r[10], "end_reason": r[11],
                   "hands": r[12], "decisions": r[13], "think_ms": r[14], "record": r[15],
                   "cpu_s": r[16], "peak_mib": r[17]}
            try:
                v = result_values(raw)
            except RowError as exc:
                raise self._damaged("result of match", r[0], exc) from None
            out.append(ResultRow(v.match_id, v.block_id, v.seats, v.status, v.placings,
                                 v.scores, v.faults, v.forfeited, v.forfeit_reasons,
                                 v.end_reason, v.hands, v.decisions,
                                 tuple(float(x) for x in v.think_ms),  # type: ignore[arg-type]
                                 v.record,
                                 *(_usage(x) for x in (v.cpu_s, v.peak_mib))))
        return out


def copy_deal_key(source: str | Path, target: str | Path) -> None:
    """Give a new tournament directory ``target`` the secret deal key of ``source``, so that
    the same config plays the same deals there (``arena run --deal-key-from SOURCE``; the
    operator's way to reproduce a tournament elsewhere). Nothing changes when ``target``
    already holds that key.

    Raises:
        StoreError: ``source`` has no store or no key; ``target`` already holds a schedule
            or another key.
    """
    with open_existing(source) as src:
        value = src.meta("deal_key")
    if value is None:
        raise StoreError(f"{source}: this tournament has no deal key (made before deal keys)")
    Path(target).mkdir(parents=True, exist_ok=True)
    with Store(Path(target) / "results.sqlite") as dst:
        own = dst.meta("deal_key")
        if own == value:
            return
        if own is not None or dst.scheduled_count():
            raise StoreError(f"{target} already holds a tournament with its own deals; "
                             "--deal-key-from needs a new output directory")
        dst.set_meta({"deal_key": value})


def open_existing(directory: str | Path) -> Store:
    """Open the store of a finished or interrupted tournament directory.

    Raises:
        StoreError: no ``results.sqlite`` in ``directory``.
    """
    path = Path(directory) / "results.sqlite"
    if not path.is_file():
        raise StoreError(f"{directory}: no tournament results here (missing results.sqlite)")
    return Store(path, readonly=True)


def _usage(values: tuple[float | int | None, ...] | None
           ) -> tuple[float | None, float | None, float | None]:
    """A stored accounting column as per-seat floats (None: not measured)."""
    if values is None:
        return _NONE3
    return tuple(None if x is None else float(x) for x in values)  # type: ignore[return-value]
