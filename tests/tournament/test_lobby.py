"""The lobby (arena/tournament/lobby.py): `arena run` waits for its remote bots before the
first match, says who is missing on the terminal and the live page, and a remote bot that
does not come has its matches left pending (nothing stored), to be played by a later run of
the same command once it connects. Real processes: the arena, sandboxed random bots, and a
remote random bot started late."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from arena.tournament.lobby import LobbyState, note_from_json
from arena.tournament.store import open_existing

from .helpers import config_text, new_tag, wait_no_processes
from .test_remote_and_play import free_port

TOKEN = "visitor-token-0123456789"


class Arena:
    """``arena run`` in a subprocess, its stderr read line by line (to wait on what it says,
    never on a clock)."""

    def __init__(self, *args: str, cwd: Path) -> None:
        env = {**os.environ}
        if env.get("PYTHONPATH"):
            env["PYTHONPATH"] = os.path.abspath(env["PYTHONPATH"])
        self.proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", *args],
                                     cwd=cwd, env=env, text=True, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, text: str, timeout_s: float = 120) -> str:
        """The first stderr line (from here on) that holds ``text``."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                continue
            if line is None:
                break
            self.seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"{text!r} never said; stderr so far:\n" + "\n".join(self.seen))

    def finish(self, timeout_s: float = 300) -> tuple[int, str, str]:
        """Exit status, stdout and the whole stderr."""
        out = self.proc.stdout.read() if self.proc.stdout else ""
        code = self.proc.wait(timeout_s)
        while (line := self.lines.get(timeout=30)) is not None:
            self.seen.append(line)
        return code, out, "\n".join(self.seen)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)


def _visitor(port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "sample_bots.random_bot", "--arena", f"127.0.0.1:{port}",
         "--connect-timeout", "60"], env={**os.environ, "ARENA_TOKEN": TOKEN},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.mark.e2e
def test_a_no_show_is_left_for_later_and_plays_when_it_connects_late(tmp_path):
    pytest.importorskip("uvicorn", reason="the live page needs the web extra")
    tag, port = new_tag(), free_port()
    cfg = tmp_path / "t.toml"
    cfg.write_text(config_text(None, tag=tag, bots=3, sandbox="bwrap", register_timeout_s=5)
                   + f'[server]\nbind = "127.0.0.1:{port}"\n[[bots]]\nname = "visitor"\n'
                   f'remote = true\ntoken = "{TOKEN}"\n')
    # 1. the visitor never comes: the lobby gives up; the table without it is played, the
    # 18 matches with it are not stored (no forfeit, no crash), exit status 3
    first = Arena(str(cfg), "--out", "o", "--wait-remote", "1", "--json", cwd=tmp_path)
    try:
        code, out, err = first.finish()
    finally:
        first.kill()
    assert code == 3, err
    assert "arena: waiting up to 1 s for 1 remote bot to connect: visitor (the matches start " \
           "when all have connected)" in err
    assert "arena: remote bot 'visitor' did not connect: 18 matches with it were not played " \
           "(nothing stored); run the same command again when it can connect" in err
    summary = json.loads(out)
    assert summary["played_now"] == 6 and summary["left_for_later"] == {"visitor": 18}
    with open_existing(tmp_path / "o") as store:
        rows = store.results()
        assert len(store.pending()) == 18
    assert len(rows) == 6 and all("visitor" not in r.players and not any(r.forfeits)
                                  for r in rows)
    visitor_row = next(r for r in summary["standings"] if r["bot"] == "visitor")
    assert visitor_row["status"] == "did not connect" and visitor_row["matches"] == 0
    # 2. the same command again, with the page: the lobby waits and says so on the terminal
    # and on the page; the visitor, started only then, connects late; its 18 matches play
    second = Arena(str(cfg), "--out", "o", "--wait-remote", "300", "--web", "0",
                   cwd=tmp_path)
    visitor = None
    try:
        url = second.wait_for(" live page at ").rsplit(" at ", 1)[1]
        second.wait_for("waiting up to 300 s for 1 remote bot to connect: visitor")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:       # the page refreshes within a second or so
            page = urllib.request.urlopen(url, timeout=30).read().decode()
            if "waiting for remote bots to connect: visitor" in page:
                break
            time.sleep(0.2)
        assert "note: waiting for remote bots to connect: visitor (up to " in page
        visitor = _visitor(port)
        assert second.wait_for("remote bot 'visitor' connected (1 of 1)")
        second.wait_for("every remote bot is connected; starting")
        code, out, err = second.finish()
        assert visitor.wait(60) == 0          # told goodbye at the end
    finally:
        second.kill()
        if visitor is not None and visitor.poll() is None:
            visitor.kill()
    assert code == 0, err
    assert "18 matches played now, 6 resumed from earlier runs, 24 scheduled;" in out
    with open_existing(tmp_path / "o") as store:
        rows = store.results()
        assert store.pending() == []
    assert len(rows) == 24 and not any(any(r.forfeits) for r in rows)
    assert sum("visitor" in r.players for r in rows) == 18
    assert wait_no_processes(tag) == []


def test_the_pages_note_while_waiting_and_after():
    now = time.time()
    waiting = LobbyState(("visitor", "guest"), ("early",), now + 30).to_json()
    note = note_from_json(waiting)
    assert note is not None and note.startswith(
        "note: waiting for remote bots to connect: visitor, guest (up to ")
    assert note_from_json(LobbyState((), ("visitor",), now + 30).to_json()) is None   # over
    assert note_from_json(LobbyState(("x",), (), now - 1).to_json()) is None   # stale entry
    assert note_from_json("") is None and note_from_json("{not json") is None
