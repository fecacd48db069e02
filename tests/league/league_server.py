"""A real league for the end-to-end tests: ``arena league init|invite|revoke`` run as
commands, ``arena league serve`` as a subprocess on 127.0.0.1:0 (its URL read from its
output), an HTTP client over loopback, bot directories written as participants would."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

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


def python_bot(root: Path, name: str, module: str = "random_bot", *extra: str) -> Path:
    """A participant's Python bot directory: bot.toml and a bot.py starting a sample bot."""
    d = root / name
    d.mkdir(parents=True)
    (d / "bot.toml").write_text(f'name = "{name}"\ncommand = ["{{python}}", "bot.py"]\n')
    (d / "bot.py").write_text(f"from sample_bots.{module} import main\nmain({list(extra)!r})\n")
    return d


def remote_bot(root: Path, name: str, note: str = "") -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "bot.toml").write_text(f'name = "{name}"\nremote = true\n')
    (d / "README").write_text(f"runs elsewhere {note}\n")
    return d


class Client:
    """JSON over HTTP to the league at ``url`` (answers of any status returned, not raised)."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def call(self, path: str, data: bytes | None = None, token: str | None = None,
             content_type: str = "application/gzip") -> tuple[int, Any]:
        headers = {"Content-Type": content_type} if data is not None else {}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        req = urllib.request.Request(self.url + path, data=data, headers=headers,
                                     method="POST" if data is not None else "GET")
        try:
            with urllib.request.urlopen(req, timeout=60) as answer:
                status, raw = answer.status, answer.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode("utf-8", "replace")

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


class Server:
    """``arena league serve DIR --port 0`` in its own session; its stderr kept in ``lines``."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "league", "serve", str(directory), "--port", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            start_new_session=True)
        self.lines: list[str] = []
        self._url = threading.Event()
        self.url = ""
        threading.Thread(target=self._read, daemon=True).start()
        if not self._url.wait(60):
            self.stop()
            raise AssertionError("serve printed no URL:\n" + "".join(self.lines))
        self.client = Client(self.url)

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            found = re.search(r"served at (http://\S+/) ", line)
            if found:
                self.url = found[1]
                self._url.set()

    def kill9(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> int:
        """SIGTERM; its exit status (it must stop cleanly)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        return self.proc.returncode


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
