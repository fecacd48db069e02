"""What a page viewer and another local user can learn of a duplicate block still being
played, tried for real: ``arena run --web`` with a remote bot (its owner may watch the page),
a reader of the page's event stream and snapshot from the first match to the last, and reads
of the tournament directory by another user (``nobody``, through util-linux's ``setpriv``).

- Nothing of a match (its listing, replay link, replay page, forfeit reasons) is served before
  its whole block (6 seatings of one deal) is stored; the standings still count it.
- With a remote bot in the tournament, no card and no choice is ever in the event stream or
  the snapshot while a match is in flight (only "a card", who played, the counts), and the
  page says why in one line; the bots' log tails wait for the tournament's end.
- records/ and live/ (the in-flight journal) are closed to other local users.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

NO_WEB = "the web extra is not installed (python3 -m pip install -e '.[web]')"
pytest.importorskip("starlette", reason=NO_WEB)
pytest.importorskip("uvicorn", reason=NO_WEB)

from arena.tournament.store import StoreError, open_existing  # noqa: E402 (after the importorskip)
from tests.tournament.helpers import PROBEBOT, bot_block, new_tag, wait_no_processes  # noqa: E402 (after the importorskip)

from .helpers import read_url  # noqa: E402 (after the importorskip)

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

TOKEN = "visitor-token-0123456789"
#: a card as the rules print it ("QD", "10H"), as a JSON string
CARD = re.compile(r'"(?:10|[2-9JQKA])[SHDC]"')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _config(tag: str, port: int) -> str:
    text = ('[sandbox]\nmode = "none"\n[tournament]\nname = "secrecy"\nseed = 5\n'
            "deals_per_table = 2\nconcurrency = 1\n[rules]\nhand_cap = 1\n"
            "[time]\nper_decision_ms = 2000\n[faults]\nregister_timeout_s = 30\n"
            f'[server]\nbind = "127.0.0.1:{port}"\n')
    text += bot_block("local", ["{python}", "-m", "sample_bots.random_bot"], tag)
    text += bot_block("slow", ["{python}", str(PROBEBOT), "--mode", "slow", "--sleep-ms", "40"],
                      tag)
    return text + f'[[bots]]\nname = "visitor"\nremote = true\ntoken = "{TOKEN}"\n'


class _Stream(threading.Thread):
    """Reads the page's event stream, keeping every event's text."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        u = urlparse(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
        self.events: list[tuple[str, str]] = []
        self.start()

    def run(self) -> None:
        self.conn.request("GET", "/events")
        resp = self.conn.getresponse()
        name = ""
        with_data = []
        try:
            for raw in resp:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    with_data.append(line[6:])
                elif not line and name:
                    self.events.append((name, "".join(with_data)))
                    name, with_data = "", []
        except OSError:
            pass


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _as_nobody(*argv: str) -> subprocess.CompletedProcess[str] | None:
    """Run ``argv`` as ``nobody`` (root only, with setpriv); None when this cannot."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    return subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534",
                           "--clear-groups", "--", *argv], capture_output=True, text=True,
                          timeout=30)


def _blocks(out: Path) -> dict[str, list[str]]:
    """block id -> its finished match ids, from the store (none while it is being made)."""
    try:
        with open_existing(out) as store:
            rows = store.results()
    except StoreError:
        return {}
    blocks: dict[str, list[str]] = {}
    for r in rows:
        blocks.setdefault(r.block, []).append(r.match_id)
    return blocks


def test_a_page_viewer_learns_nothing_of_a_block_still_being_played():
    tag = new_tag()
    port = _free_port()
    # a tournament directory as a user makes one: readable by all, under a directory others
    # can enter (so that only the arena's own modes can keep them out)
    base = Path(tempfile.mkdtemp(prefix="arena-secrecy-", dir="/tmp"))
    base.chmod(0o755)
    out = base / "out"
    out.mkdir(mode=0o755)
    out.chmod(0o755)
    cfg = base / "t.toml"
    cfg.write_text(_config(tag, port))
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    run = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(cfg), "--out",
                            str(out), "--web", "127.0.0.1:0", "--quiet"], env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    visitor = subprocess.Popen(
        [sys.executable, "-m", "sample_bots.random_bot", "--arena", f"127.0.0.1:{port}",
         "--connect-timeout", "60"], env={**env, "ARENA_TOKEN": TOKEN},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    partial = None
    try:
        url = read_url(run)
        stream = _Stream(url)
        deadline = time.monotonic() + 240
        while partial is None and time.monotonic() < deadline and run.poll() is None:
            blocks = _blocks(out)
            done = [b for b, ids in blocks.items() if len(ids) == 6]
            part = [b for b, ids in blocks.items() if 0 < len(ids) < 6]
            live = list((out / "live").glob("*.jsonl"))
            snap = json.loads(_get(url + "snapshot.json")[1]) if done and part else None
            # block 1 stored, block 2 under way, a match in flight, the page up to date
            if snap and live and snap["done"] == sum(map(len, blocks.values())):
                partial = {"blocks": blocks, "part": part[0], "done": done[0],
                           "snapshot": snap, "page": _get(url)[1],
                           "live": live[0], "replays": {
                               m: _get(url + "replay/" + m)[0]
                               for m in blocks[part[0]] + blocks[done[0]][:1]}}
                partial["nobody"] = {
                    "ls": _as_nobody("ls", str(out)),
                    "record": _as_nobody("cat", str(next((out / "records").iterdir()))),
                    "journal": _as_nobody("ls", str(out / "live")),
                    "journal-file": _as_nobody("cat", str(out / "live" / "cards.json")),
                    "records-dir": _as_nobody("ls", str(out / "records"))}
                partial["modes"] = {
                    p.name: stat.S_IMODE(p.stat().st_mode)
                    for p in [out / "records", out / "live", out / "logs",
                              *(out / "records").iterdir(), *(out / "live").iterdir()]}
            time.sleep(0.1)
        assert partial is not None, "never saw a block half played"
        assert run.wait(timeout=300) == 0, run.stderr.read()
        assert visitor.wait(30) == 0
        stream.join(10)
    finally:
        for p in (run, visitor):
            if p.poll() is None:
                p.kill()
    assert wait_no_processes(tag) == []

    # ----- while block 2 was half played --------------------------------------------------
    snap = partial["snapshot"]
    unfinished = partial["blocks"][partial["part"]]
    finished_html = snap["fragments"]["finished"]
    for m in unfinished:                     # not listed, no replay
        assert m not in finished_html, m
        assert partial["replays"][m] == 404
        assert f"replay/{m}" not in partial["page"]
    first = partial["blocks"][partial["done"]][0]
    assert first in finished_html and partial["replays"][first] == 200
    assert f"{len(unfinished)} finished match" in finished_html   # "... not listed yet"
    assert snap["done"] == 6 + len(unfinished)                   # the standings count them
    # no card, no choice: the snapshot's matches in flight and their tables
    assert not CARD.search(json.dumps(snap["inflight"])), snap["inflight"]
    assert all(m["hidden"] for m in snap["inflight"])
    assert "a remote bot plays in this tournament" in partial["page"]
    assert "logs-held" in snap["fragments"]["faults"]            # log tails wait for the end
    assert "<pre class=\"log\">" not in snap["fragments"]["faults"]
    # other local users: the directory is listed, records and journal are not readable
    if partial["nobody"]["ls"] is None:
        pytest.skip("other-user reads need root and setpriv (modes were checked)")
    assert partial["nobody"]["ls"].returncode == 0
    for what in ("record", "journal", "journal-file", "records-dir"):
        r = partial["nobody"][what]
        assert r.returncode != 0 and "Permission denied" in r.stderr, (what, r)

    # ----- the whole run, as the event stream showed it ------------------------------------
    names = [n for n, _ in stream.events]
    assert names.count("started") == 12 and "decisions" in names
    for name, data in stream.events:
        if name in ("started", "decisions"):
            assert not CARD.search(data), data[:300]
    plays = [json.loads(d) for n, d in stream.events if n == "decisions"]
    actions = {m[4] for d in plays for m in d["moves"]}
    assert actions <= {"a card", "a contract", "a demand"}, actions
    assert any(d["table"] and any(d["table"]["won"]) for d in plays)   # the counts are there
    for mode in (m for n, m in partial["modes"].items() if n in ("records", "live", "logs")):
        assert mode == 0o700
    assert {m for n, m in partial["modes"].items()
            if n not in ("records", "live", "logs")} == {0o600}
    shutil.rmtree(base, ignore_errors=True)
