"""The store's bot-process tables: live bot instances (to end leftovers of a dead arena) and
per-bot start outcomes (to tell a bot that never started).

Tables, in the tournament's ``results.sqlite`` (:mod:`arena.tournament.store`):

- ``bot_processes(instance, bot, pgid, start_ticks, started_at)``: one row per running bot
  instance, inserted when its process starts and deleted when it has ended; rows left by an
  arena that died name the processes :func:`arena.processes.reaper.kill_leftovers` ends;
- ``bot_starts(bot, registered, failed, last_error)``: how many times each bot's instance
  registered, how many starts failed (did not start, exited or timed out before registering, a
  remote bot that did not connect) and the last failure's reason. A bot with failures and no
  registration **never started**: it is named in the standings and kept out of the ratings.

:class:`ProcessTable` implements the listener the bot pool reports to
(:class:`arena.processes.pool.BotPool`'s ``tracker``).
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, UTC

from .reaper import ProcessRecord, kill_leftovers

SCHEMA = """
CREATE TABLE IF NOT EXISTS bot_processes (
    instance TEXT PRIMARY KEY, bot TEXT NOT NULL, pgid INTEGER NOT NULL,
    start_ticks INTEGER NOT NULL, started_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bot_starts (
    bot TEXT PRIMARY KEY, registered INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0, last_error TEXT);
"""


class ProcessTable:
    """The two tables above on an open SQLite connection (autocommit, as the store's)."""

    def __init__(self, db: sqlite3.Connection, *, create: bool = True) -> None:
        self.db = db
        if create:
            db.executescript(SCHEMA)

    # ----- bot processes --------------------------------------------------------------------
    def spawned(self, instance: str, bot: str, pgid: int, start_ticks: int) -> None:
        """Record a bot instance whose process group ``pgid`` started at ``start_ticks``."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        self.db.execute("INSERT OR REPLACE INTO bot_processes VALUES (?, ?, ?, ?, ?)",
                        (instance, bot, pgid, start_ticks, now))

    def ended(self, instance: str) -> None:
        """Forget an instance whose processes have all ended."""
        self.db.execute("DELETE FROM bot_processes WHERE instance = ?", (instance,))

    def records(self) -> list[ProcessRecord]:
        """The instances recorded as running."""
        return [ProcessRecord(*r) for r in self.db.execute(
            "SELECT instance, bot, pgid, start_ticks FROM bot_processes ORDER BY rowid")]

    def end_leftovers(self) -> int:
        """Kill the processes of recorded instances still alive (an arena that died left
        them; call only while holding the directory's lock) and clear the table. Returns how
        many processes were killed."""
        killed = kill_leftovers(self.records())
        self.db.execute("DELETE FROM bot_processes")
        return killed

    # ----- start outcomes -------------------------------------------------------------------
    def forget_starts(self) -> None:
        """Forget every start outcome (a directory whose schedule is replaced before any
        result was stored starts afresh)."""
        self.db.execute("DELETE FROM bot_starts")

    def start_result(self, bot: str, ok: bool, error: str | None = None) -> None:
        """Count one start of ``bot``: registered (``ok``) or failed with ``error``."""
        self.db.execute("INSERT OR IGNORE INTO bot_starts (bot) VALUES (?)", (bot,))
        if ok:
            self.db.execute("UPDATE bot_starts SET registered = registered + 1 WHERE bot = ?",
                            (bot,))
        else:
            self.db.execute("UPDATE bot_starts SET failed = failed + 1, last_error = ? "
                            "WHERE bot = ?", (error, bot))

    def never_started(self) -> dict[str, str]:
        """Bots that failed to start every time they were started (never registered): name
        -> the last failure's reason."""
        return {bot: err or "never started" for bot, err in self.db.execute(
            "SELECT bot, last_error FROM bot_starts WHERE registered = 0 AND failed > 0 "
            "ORDER BY bot")}

    def failed_starts(self) -> dict[str, int]:
        """Bots that never registered: name -> how many of their starts failed."""
        return {bot: int(failed) for bot, failed in self.db.execute(
            "SELECT bot, failed FROM bot_starts WHERE registered = 0 AND failed > 0")}


def never_started(db: sqlite3.Connection) -> dict[str, str]:
    """:meth:`ProcessTable.never_started` of a store, read-only; {} for a store written
    before these tables existed."""
    try:
        return ProcessTable(db, create=False).never_started()
    except sqlite3.OperationalError:
        return {}
