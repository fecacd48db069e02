"""The league's store: participants, submissions and versions, beside a tournament's results.

A league directory's ``results.sqlite`` is a tournament store (:mod:`arena.tournament.store`:
the schedule and one row per finished match, read by the standings, the ratings and the live
page as for any tournament) plus the tables below. :class:`LeagueStore` is the one interface
the league service uses; :class:`SqliteLeagueStore` implements it with the standard library's
sqlite3 (a server database would implement the same methods: docs/league.md says what would
change).

- ``league_participants(name, token_sha256, created_at, revoked_at)``: a participant's API
  token is stored as its SHA-256 only (tokens are 256 random bits: a fast hash is enough).
- ``league_submissions(id, owner, bot, digest, size, remote, state, reason, report, version,
  bot_token, created_at, updated_at)``: one row per (owner, bot, content digest), so a
  submission is stored once however often it is sent. ``state`` is one of :data:`STATES`;
  ``version`` is set when it becomes active (the owner's accepted submissions of that bot,
  counted from 1); ``bot_token``: a remote version's connection token (the arena must
  present it to its gRPC server, as a tournament config's ``token`` of a remote bot; the
  store is its owner's only).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from ..tournament.store import Store

#: a submission's states, in the order it goes through them
STATES = ("queued", "checking", "rejected", "active", "retired")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS league_participants (
    name TEXT PRIMARY KEY, token_sha256 TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
    revoked_at TEXT);
CREATE TABLE IF NOT EXISTS league_submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL REFERENCES
    league_participants(name), bot TEXT NOT NULL, digest TEXT NOT NULL, size INTEGER NOT NULL,
    remote INTEGER NOT NULL, state TEXT NOT NULL, reason TEXT, report TEXT, version INTEGER,
    bot_token TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    UNIQUE (owner, bot, digest));
"""


@dataclass(frozen=True)
class Submission:
    """One submission as stored (see the module docstring)."""

    id: int
    owner: str
    bot: str
    digest: str
    size: int
    remote: bool
    state: str
    reason: str | None
    report: str | None
    version: int | None
    created_at: str
    updated_at: str

    @property
    def full_name(self) -> str | None:
        """``owner/bot@version`` once it has a version, else None."""
        return None if self.version is None else f"{self.owner}/{self.bot}@{self.version}"


class LeagueStore(Protocol):
    """What the league service needs of its store (participants, submissions, versions)."""

    def add_participant(self, name: str, token_sha256: str) -> None: ...
    def revoke(self, name: str) -> bool: ...
    def participant(self, token_sha256: str) -> str | None: ...
    def participants(self) -> list[tuple[str, bool]]: ...
    def add_submission(self, owner: str, bot: str, digest: str, size: int,
                       remote: bool) -> tuple[Submission, bool]: ...
    def submission(self, sid: int) -> Submission | None: ...
    def submissions(self, owner: str | None = None) -> list[Submission]: ...
    def set_state(self, sid: int, state: str, *, reason: str | None = None,
                  report: str | None = None, bot_token: str | None = None
                  ) -> Submission: ...
    def activate(self, sid: int, keep_active: int) -> Submission: ...
    def next_queued(self) -> Submission | None: ...
    def submitted_since(self, owner: str, hours: float) -> int: ...
    def active(self) -> list[Submission]: ...
    def bot_token(self, sid: int) -> str | None: ...


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SqliteLeagueStore:
    """:class:`LeagueStore` in the tournament store's SQLite file (``results.sqlite``).

    Args:
        store: the league directory's open tournament :class:`~arena.tournament.store.Store`
            (its connection is shared: one transaction covers both kinds of tables).
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db
        self.db.executescript(_SCHEMA)

    @classmethod
    def open(cls, directory: Path) -> SqliteLeagueStore:
        """The league store of ``directory`` (created when new)."""
        return cls(Store(directory / "results.sqlite",
                         hint="give the league another directory (arena league init DIR)"))

    def close(self) -> None:
        self.store.close()

    # ----- participants ----------------------------------------------------------------------
    def add_participant(self, name: str, token_sha256: str) -> None:
        """Add a participant with the hash of its token.

        Raises:
            sqlite3.IntegrityError: the name is taken.
        """
        with self.db:
            self.db.execute("INSERT INTO league_participants VALUES (?, ?, ?, NULL)",
                            (name, token_sha256, _now()))

    def revoke(self, name: str) -> bool:
        """Revoke a participant's token (its active versions go on playing); False when
        there is no such participant or it is revoked already."""
        with self.db:
            cur = self.db.execute("UPDATE league_participants SET revoked_at = ? WHERE name = ? "
                                  "AND revoked_at IS NULL", (_now(), name))
        return cur.rowcount == 1

    def participant(self, token_sha256: str) -> str | None:
        """The participant whose token hashes to ``token_sha256`` and is not revoked."""
        row = self.db.execute("SELECT name FROM league_participants WHERE token_sha256 = ? AND "
                              "revoked_at IS NULL", (token_sha256,)).fetchone()
        return row[0] if row else None

    def participants(self) -> list[tuple[str, bool]]:
        """(name, revoked) of every participant, by name."""
        return [(r[0], r[1] is not None) for r in self.db.execute(
            "SELECT name, revoked_at FROM league_participants ORDER BY name")]

    # ----- submissions -----------------------------------------------------------------------
    def add_submission(self, owner: str, bot: str, digest: str, size: int,
                       remote: bool) -> tuple[Submission, bool]:
        """Store a submission once: (the submission, True) when new, (the one stored before
        with the same owner, bot and content, False) otherwise."""
        now = _now()
        with self.db:
            cur = self.db.execute(
                "INSERT OR IGNORE INTO league_submissions (owner, bot, digest, size, remote, "
                "state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)",
                (owner, bot, digest, size, int(remote), now, now))
        row = self.db.execute("SELECT id FROM league_submissions WHERE owner = ? AND bot = ? "
                              "AND digest = ?", (owner, bot, digest)).fetchone()
        sub = self.submission(row[0])
        if sub is None:       # pragma: no cover - just written
            raise RuntimeError("a submission vanished after it was stored")
        return sub, cur.rowcount == 1

    def submission(self, sid: int) -> Submission | None:
        row = self.db.execute(f"SELECT {_COLS} FROM league_submissions WHERE id = ?",
                              (sid,)).fetchone()
        return _row(row) if row else None

    def submissions(self, owner: str | None = None) -> list[Submission]:
        """Every submission (of ``owner``), oldest first."""
        if owner is None:
            rows = self.db.execute(f"SELECT {_COLS} FROM league_submissions ORDER BY id")
        else:
            rows = self.db.execute(f"SELECT {_COLS} FROM league_submissions WHERE owner = ? "
                                   "ORDER BY id", (owner,))
        return [_row(r) for r in rows]

    def set_state(self, sid: int, state: str, *, reason: str | None = None,
                  report: str | None = None, bot_token: str | None = None
                  ) -> Submission:
        """Move a submission to ``state`` (one of :data:`STATES`) with its reason / report.

        Raises:
            ValueError: an unknown state. KeyError: no such submission.
        """
        if state not in STATES:
            raise ValueError(f"unknown submission state {state!r}")
        with self.db:
            cur = self.db.execute(
                "UPDATE league_submissions SET state = ?, reason = COALESCE(?, reason), "
                "report = COALESCE(?, report), bot_token = COALESCE(?, bot_token), "
                "updated_at = ? WHERE id = ?",
                (state, reason, report, bot_token, _now(), sid))
        sub = self.submission(sid)
        if cur.rowcount != 1 or sub is None:
            raise KeyError(sid)
        return sub

    def activate(self, sid: int, keep_active: int) -> Submission:
        """Make a checked submission the next version of its bot, and retire the owner's
        older active versions of that bot beyond the newest ``keep_active`` (one
        transaction).

        Raises:
            KeyError: no such submission.
        """
        sub = self.submission(sid)
        if sub is None:
            raise KeyError(sid)
        now = _now()
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            last = self.db.execute("SELECT MAX(version) FROM league_submissions WHERE owner = ? "
                                   "AND bot = ?", (sub.owner, sub.bot)).fetchone()[0]
            version = sub.version or (last or 0) + 1
            self.db.execute("UPDATE league_submissions SET state = 'active', version = ?, "
                            "updated_at = ? WHERE id = ?", (version, now, sid))
            old = [r[0] for r in self.db.execute(
                "SELECT id FROM league_submissions WHERE owner = ? AND bot = ? AND state = "
                "'active' ORDER BY version DESC", (sub.owner, sub.bot))][max(keep_active, 1):]
            self.db.executemany("UPDATE league_submissions SET state = 'retired', updated_at "
                                "= ? WHERE id = ?", [(now, i) for i in old])
        done = self.submission(sid)
        if done is None:      # pragma: no cover - just written
            raise KeyError(sid)
        return done

    def next_queued(self) -> Submission | None:
        """The oldest submission waiting for its check (or whose check a killed server left
        unfinished: ``checking`` again after a restart)."""
        row = self.db.execute(f"SELECT {_COLS} FROM league_submissions WHERE state IN "
                              "('checking', 'queued') ORDER BY state = 'queued', id").fetchone()
        return _row(row) if row else None

    def submitted_since(self, owner: str, hours: float) -> int:
        """How many submissions ``owner`` made in the last ``hours`` hours (the daily
        quota counts them, rejected ones included)."""
        since = (datetime.now(UTC) - timedelta(hours=hours)).isoformat(timespec="seconds")
        return int(self.db.execute("SELECT COUNT(*) FROM league_submissions WHERE owner = ? "
                                   "AND created_at >= ?", (owner, since)).fetchone()[0])

    def active(self) -> list[Submission]:
        """The active versions, oldest first: the league's roster."""
        return [_row(r) for r in self.db.execute(
            f"SELECT {_COLS} FROM league_submissions WHERE state = 'active' ORDER BY id")]


    def bot_token(self, sid: int) -> str | None:
        """A remote version's connection token (None: not remote)."""
        row = self.db.execute("SELECT bot_token FROM league_submissions WHERE id = ?",
                              (sid,)).fetchone()
        return str(row[0]) if row and row[0] else None


_COLS = ("id, owner, bot, digest, size, remote, state, reason, report, version, created_at, "
         "updated_at")


def _row(r: tuple[Any, ...]) -> Submission:
    return Submission(int(r[0]), str(r[1]), str(r[2]), str(r[3]), int(r[4]), bool(r[5]),
                      str(r[6]), r[7], r[8], r[9], str(r[10]), str(r[11]))
