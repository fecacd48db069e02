"""The results store: one SQLite file per tournament output directory (``results.sqlite``).

Tables (each row declared once in :mod:`arena.tournament.rows`, which derives the SQL):

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

import secrets
import sqlite3
from datetime import datetime, UTC
from pathlib import Path

from .. import __version__
from ..errors import UserError
from .rows import (META, RESULTS, SCHEDULE, SCHEMA_VERSION, TABLES, ResultRow, RowError,
                   ScheduleRow)
from .schedule import ScheduledMatch

__all__ = ["APPLICATION_ID", "SCHEMA", "SCHEMA_VERSION", "ResultRow", "Store", "StoreError",
           "check_identity", "copy_deal_key", "open_existing"]

#: the tables of a new store (derived from the row declarations, :mod:`.rows`)
SCHEMA = ";\n".join(t.create() for t in TABLES) + ";\n"
#: ``PRAGMA application_id`` of a 358 Arena store: the bytes "358A"
APPLICATION_ID = 0x33353841
#: how long a write waits for another connection's write to end (s; SQLite's busy timeout)
BUSY_S = 30.0


class StoreError(UserError):
    """The output directory holds another tournament, or the store is unreadable."""


#: what a refusal of an existing database tells to do: the store is opened to be written by
#: ``arena run`` (its ``--out``), or to be read (``arena ratings``, ``serve``...)
WRITE_HINT = "use another --out directory"
READ_HINT = "give a tournament directory (the --out of arena run)"


def check_identity(db: sqlite3.Connection, path: Path, *, hint: str = WRITE_HINT) -> str:
    """Decide whether the SQLite database ``db`` (at ``path``) is a 358 Arena store, reading
    only. Returns ``"store"`` (marked as ours), ``"unmarked"`` (our tables, written before the
    marks existed), or ``"empty"`` (no tables: a new store may be created in it).
    ``hint``: what the refusal tells to do instead (:data:`WRITE_HINT`, :data:`READ_HINT`,
    or the caller's own, as a league's directory).

    Raises:
        StoreError: another application's database, one with other tables, or a store of a
            newer schema; one line naming the file.
    """
    app = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = sorted(r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
    refuse = f"; {hint}"
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
    for table in TABLES:
        have = tuple(r[1] for r in db.execute(f"PRAGMA table_info({table.name})"))
        if all(have != table.columns(v) for v in range(1, SCHEMA_VERSION + 1)):
            shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
            raise StoreError(f"{path}: not a 358 Arena results store (an SQLite database with "
                             f"other tables: {shown}){refuse}")
    return "unmarked"


def _create_tables(db: sqlite3.Connection, mark: bool) -> None:
    """Create the tables that are missing, add the columns an older store lacks (those of a
    later schema version) and set the identity marks (with ``mark``, or when the schema
    version is older), in one transaction."""
    with db:
        db.execute("BEGIN IMMEDIATE")
        for table in TABLES:
            db.execute(table.create())
            have = {r[1] for r in db.execute(f"PRAGMA table_info({table.name})")}
            for statement in table.add_missing(have):
                db.execute(statement)
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if mark or version < SCHEMA_VERSION:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


class Store:
    """Open (create) the store at ``path``. Use as a context manager or call :meth:`close`.
    ``hint``: what a refusal to write into another database tells to do (see
    :func:`check_identity`).

    Raises:
        StoreError: the file is not a readable SQLite database, or not a 358 Arena store.
    """

    def __init__(self, path: str | Path, *, readonly: bool = False,
                 hint: str = WRITE_HINT) -> None:
        self.path = Path(path)
        db = None
        try:
            if readonly:
                db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                     isolation_level=None)
                if check_identity(db, self.path, hint=READ_HINT) == "empty":
                    raise StoreError(f"{self.path}: not a 358 Arena results store (no tables)")
            else:
                self.path.touch(0o600)      # the deal key is in it: owner only
                # several writers share the file (a league: the API, the checker, the
                # driver): wait for another's write rather than fail after 5 s
                db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_S)
                kind = check_identity(db, self.path, hint=hint)   # before anything is written
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
            self.db.executemany(META.insert(), [
                ("fingerprint", fingerprint), ("name", name), ("arena_version", __version__),
                ("created_at", now)])
            self._schedule(matches)
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
            self._schedule(matches)
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                [("fingerprint", fingerprint), ("name", name), *meta.items()])

    def _schedule(self, matches: list[ScheduledMatch]) -> None:
        """Insert ``matches`` into ``schedule`` (inside the caller's transaction)."""
        self.db.executemany(SCHEDULE.insert(),
                            [SCHEDULE.values(ScheduleRow.of(m)) for m in matches])

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
            self._schedule(matches)
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
            f"SELECT {SCHEDULE.select('s')} FROM schedule s LEFT JOIN results r "
            "USING (match_id) WHERE r.match_id IS NULL "
            "ORDER BY s.deal_idx, s.table_idx, s.seating_idx")
        out = []
        for r in cur.fetchall():
            try:
                out.append(SCHEDULE.read(r).scheduled())
            except RowError as exc:
                raise self._damaged("scheduled match", r[0], exc) from None
        return out

    def _damaged(self, what: str, match_id: object, exc: RowError) -> StoreError:
        return StoreError(f"{self.path}: the stored {what} {match_id!r} is damaged ({exc}); "
                          "restore the file, or run again into a new --out directory")

    def save_result(self, row: ResultRow) -> None:
        """Insert a finished match (one atomic commit). A second save of the same match is
        ignored, so a match is never counted twice."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(RESULTS.insert("INSERT OR IGNORE"), RESULTS.values(row))

    def results(self) -> list[ResultRow]:
        """All finished matches in schedule order (``cpu_s`` / ``peak_mib`` are nulls in a
        store read-only opened before its upgrade to schema 2).

        Raises:
            StoreError: a stored row is damaged: one line naming its match id and column.
        """
        have = {r[1] for r in self.db.execute("PRAGMA table_info(results)")}
        cur = self.db.execute(
            f"SELECT {RESULTS.select('r', 's', have)} FROM results r "
            "JOIN schedule s USING (match_id) "
            "ORDER BY s.deal_idx, s.table_idx, s.seating_idx")
        out = []
        for r in cur.fetchall():
            try:
                out.append(RESULTS.read(r))
            except RowError as exc:
                raise self._damaged("result of match", r[0], exc) from None
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

