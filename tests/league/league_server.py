"""A real league for the end-to-end tests: ``arena league init|invite|revoke`` run as
commands, ``arena league serve`` as a subprocess on 127.0.0.1:0 (its URL read from its
output; :class:`arena.bench.league.ServedLeague`, which ``arena bench league`` drives too),
an HTTP client over loopback, bot directories written as participants would."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from arena.bench.league import ServedLeague, python_bot

__all__ = ["JS_BOT", "LEAGUE_TOML", "Server", "arena", "python_bot", "remote_bot",
           "results", "submissions"]

REPO = Path(__file__).resolve().parents[2]
JS_BOT = REPO / "sample_bots" / "js_bot"

LEAGUE_TOML = """\
[tournament]
name = "e2e league"
seed = 3
concurrency = 2

[rules]
hand_cap = 1

[time]
per_decision_ms = 300
grace_ms = 200

[faults]
register_timeout_s = 20

[league]
max_upload_mib = 4
submissions_per_day = 3
bots_per_participant = 2
first_blocks = 1
"""


def arena(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` as a command (this checkout's code: PYTHONPATH is inherited)."""
    done = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True,
                          text=True, timeout=120, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"arena {' '.join(args)}: {done.returncode}\n{done.stderr}")
    return done


def remote_bot(root: Path, name: str, note: str = "") -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "bot.toml").write_text(f'name = "{name}"\nremote = true\n')
    (d / "README").write_text(f"runs elsewhere {note}\n")
    return d


class Server(ServedLeague):
    """The served league (:class:`arena.bench.league.ServedLeague`) and the ladder's waits."""

    def log_tail(self, lines: int = 60) -> str:
        """The last ``lines`` lines of the league's ``arena.log`` (a failed assertion's
        evidence: what the server logged of an error it answered with a 500)."""
        path = self.dir / "arena.log"
        text = path.read_text(errors="replace") if path.is_file() else ""
        return "arena.log:\n" + "\n".join(text.splitlines()[-lines:])

    def rows(self) -> dict[str, dict[str, Any]]:
        """The ladder's rows by version name (``alice/rnd@1``)."""
        status, body = self.call("/api/standings")
        assert status == 200, body
        return {r["name"]: r for r in body["standings"]}

    def wait_rows(self, ready, timeout_s: float = 60.0) -> dict[str, dict[str, Any]]:
        """The ladder once ``ready(rows)`` holds (polled; the bound outlasts a busy machine)."""
        deadline = time.monotonic() + timeout_s
        while True:
            rows = self.rows()
            if ready(rows):
                return rows
            if time.monotonic() > deadline:
                raise AssertionError(f"the ladder never got there: {rows}")
            time.sleep(0.3)


def results(directory: Path) -> list[tuple[str, str]]:
    """(match id, record path) of every stored row, read beside the running server."""
    con = sqlite3.connect(directory / "results.sqlite", timeout=10)
    try:
        return con.execute("SELECT match_id, record FROM results").fetchall()
    finally:
        con.close()


def submissions(directory: Path, owner: str) -> list[tuple[int, str, str]]:
    con = sqlite3.connect(directory / "results.sqlite", timeout=10)
    try:
        return con.execute("SELECT id, bot, state FROM league_submissions WHERE owner = ? "
                           "ORDER BY id", (owner,)).fetchall()
    finally:
        con.close()
