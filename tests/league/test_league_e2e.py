"""The league from the outside: one real ``arena league serve`` (a subprocess on 127.0.0.1:0)
that participants invited with ``arena league invite`` send real bot directories to with
``arena submit`` and a plain HTTP client; sandboxed checks, matches over gRPC, a remote bot
that connects later, hostile uploads, kill -9 during an upload and during a match, the pages
in headless Chromium.

The tests share the module's league and run in file order (the ladder grows as they go;
the kill -9 tests come last and restart the server on the same directory).
"""

from __future__ import annotations

import gzip
import importlib.util
import io
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest

from arena.league.archive import pack
from arena.records import read_record, verify_record
from arena.sandbox import which

from ..records.browser import find_chromium, playwright_browser, playwright_missing
from .league_server import (JS_BOT, LEAGUE_TOML, Server, arena, python_bot, remote_bot,
                            results, submissions)

pytestmark = [pytest.mark.slow, pytest.mark.e2e,
              pytest.mark.skipif(importlib.util.find_spec("starlette") is None,
                                 reason="the web extra is not installed (python3 -m pip "
                                        "install -e '.[web]'): a league serves its API with it"),
              pytest.mark.skipif(not which.available(),
                                 reason="no working bubblewrap: a league checks and runs "
                                        "submissions in the sandbox only")]

PEOPLE = ("alice", "bob", "erin", "carol", "dave")


# The league's directory lives for the session, its server for the module (xdist's loadfile
# runs a module's tests on one worker, in order; were another module's tests run in between,
# the server would be served again on the same directory: a resume, as after a restart).
@pytest.fixture(scope="session")
def league_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("league")
    (root / "league.toml").write_text(LEAGUE_TOML)
    directory = root / "L"
    made = arena("league", "init", str(directory), "--config", str(root / "league.toml"))
    assert "made in" in made.stdout
    tokens = {}
    for name in PEOPLE:
        done = arena("league", "invite", str(directory), name)
        tokens[name] = done.stdout.strip()
        assert len(tokens[name]) == 43 and "shown this once" in done.stderr
    return SimpleNamespace(root=root, dir=directory, tokens=tokens, server=None)


@pytest.fixture(scope="module")
def lg(league_dir):
    league_dir.server = Server(league_dir.dir)
    yield league_dir
    assert league_dir.server.stop() == 0, "".join(league_dir.server.lines)


def _submit(lg, botdir: Path, who: str, *more: str) -> subprocess.CompletedProcess[str]:
    return arena("submit", lg.server.url, str(botdir), f"--token={lg.tokens[who]}", *more,
                 check=False)


def test_python_bots_sent_with_arena_submit_are_checked_then_rated(lg) -> None:
    entries = [("alice", "rnd", "random_bot", "--seed", "1"), ("bob", "greedy", "greedy_bot"),
               ("erin", "rnd2", "random_bot", "--seed", "2")]
    for who, name, module, *extra in entries:
        done = _submit(lg, python_bot(lg.root / who, name, module, *extra), who)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"({who}/{name}): queued" in done.stdout
        assert done.stdout.rstrip().endswith(f"{who}/{name}@1: active")
    names = ["alice/rnd@1", "bob/greedy@1", "erin/rnd2@1"]
    rows = lg.server.wait_rows(
        lambda r: all(r.get(n, {}).get("matches", 0) >= 6 for n in names))
    for who, name, *_ in entries:
        row = rows[f"{who}/{name}@1"]
        assert (row["bot"], row["version"], row["owner"], row["status"]) == (name, 1, who,
                                                                             "active")
        assert row["rating"] is not None and row["blocks"] >= 1
    client = lg.server
    status, public = client.call("/api/submissions/1")
    assert status == 200 and public["state"] == "active" and public["name"] == "alice/rnd@1"
    assert "report" not in public                   # the check's report is its owner's
    status, own = client.call("/api/submissions/1", token=lg.tokens["alice"])
    assert own["report"]["passed"] is True and own["report"]["checks"]
    # the same files again: the same submission, not a new one
    again = _submit(lg, lg.root / "alice" / "rnd", "alice", "--no-wait")
    assert again.returncode == 0 and "submission 1 " in again.stdout
    assert "sent before" in again.stdout


@pytest.mark.skipif(shutil.which("node") is None or not (JS_BOT / "node_modules").is_dir(),
                    reason="the JavaScript bot needs Node.js and `npm ci --prefix "
                           "sample_bots/js_bot`")
def test_the_javascript_bot_is_submitted_and_plays(lg) -> None:
    bot = lg.root / "bob" / "js"
    shutil.copytree(JS_BOT, bot, symlinks=True)        # node_modules/.bin: npm's links
    include = arena("proto", "--include-dir").stdout.strip()
    shutil.copytree(include, bot / "proto")            # the bot ships its protocol
    (bot / "bot.toml").write_text('name = "js"\ncommand = ["node", "bot.js", "--seed", "4"]\n')
    done = _submit(lg, bot, "bob")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("bob/js@1: active")
    rows = lg.server.wait_rows(lambda r: r.get("bob/js@1", {}).get("matches", 0) >= 6)
    assert rows["bob/js@1"]["faults"] == 0 and rows["bob/js@1"]["forfeits"] == 0


def _tarball(*members: tuple[tarfile.TarInfo, bytes]) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb") as gz, tarfile.open(fileobj=gz, mode="w") as t:
        for info, data in members:
            info.size = len(data) if info.isfile() else 0
            t.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buf.getvalue()


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


def _special(name: str, kind: bytes, link: str = "") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info, b""


MANIFEST = _file("bot.toml", b'name = "evil"\ncommand = ["{python}", "bot.py"]\n')


@pytest.mark.parametrize("members,reason", [
    ([MANIFEST, _file("/etc/evil", b"x")], "archive entry '/etc/evil': an absolute path"),
    ([MANIFEST, _file("../evil", b"x")], "archive entry '../evil': climbs out with '..'"),
    ([MANIFEST, _special("link", tarfile.SYMTYPE, "/etc/passwd")],
     "archive entry 'link': a symbolic link"),
    ([MANIFEST, _special("tty", tarfile.CHRTYPE)], "archive entry 'tty': a device"),
    ([_file("bot.toml", b'name = "a b"\ncommand = ["x"]\n')], "bot.toml: name: 1-40 letters"),
    ([_file("bot.toml", b"name = \n")], "bot.toml: not valid TOML"),
    ([_file("bot.py", b"")], "the archive has no bot.toml at its top"),
], ids=["absolute", "dotdot", "symlink", "device", "bad-name", "not-toml", "no-manifest"])
def test_a_hostile_or_broken_archive_is_refused_with_the_reason(lg, members, reason) -> None:
    before = submissions(lg.dir, "carol")
    status, body = lg.server.call("/api/submissions", _tarball(*members),
                                         token=lg.tokens["carol"])
    assert status == 400, body
    assert reason in body["error"]
    assert submissions(lg.dir, "carol") == before                  # nothing stored
    assert not [p for p in (lg.dir / "archives").iterdir() if "evil" in p.name]


def test_size_tokens_and_revocation_get_their_status(lg) -> None:
    client = lg.server
    good = pack(python_bot(lg.root / "carol", "ok"))
    status, body = client.call("/api/submissions", os.urandom(5 << 20), token=lg.tokens["carol"])
    assert (status, body["error"]) == (413, "the upload is over 4 MiB")
    status, body = client.call("/api/submissions", good)
    assert status == 401 and "no token" in body["error"]
    status, body = client.call("/api/submissions", good, token="x" * 43)
    assert status == 403 and "wrong or revoked" in body["error"]
    done = arena("league", "revoke", str(lg.dir), "carol")       # while the league serves
    assert "revoked" in done.stderr
    status, body = client.call("/api/submissions", good, token=lg.tokens["carol"])
    assert status == 403 and "wrong or revoked" in body["error"]
    assert submissions(lg.dir, "carol") == []
    refused = _submit(lg, lg.root / "carol" / "ok", "carol")
    assert refused.returncode == 2
    assert "the league refused the submission (403)" in refused.stderr


def test_quotas_then_a_remote_bot_shown_offline_connects_and_plays(lg) -> None:
    client, dave = lg.server, lg.tokens["dave"]

    def send(d: Path) -> tuple[int, dict]:
        return client.call("/api/submissions", pack(d), token=dave)

    status, r1 = send(remote_bot(lg.root / "dave", "r1"))
    assert status == 201 and r1["state"] == "active" and len(r1["bot_token"]) == 43
    status, r2 = send(remote_bot(lg.root / "dave", "r2"))
    assert status == 201 and r2["name"] == "dave/r2@1"
    status, body = send(remote_bot(lg.root / "dave", "r3"))
    assert (status, body["error"]) == (429, "quota: 2 active bots per participant (r1, r2)")
    status, v2 = send(remote_bot(lg.root / "dave2", "r1", "(version 2)"))
    assert status == 201 and v2["name"] == "dave/r1@2"            # a new version: allowed
    status, body = send(remote_bot(lg.root / "dave3", "r1", "(version 3)"))
    assert (status, body["error"]) == (429, "quota: 3 submissions in 24 hours")
    assert [s[2] for s in submissions(lg.dir, "dave")] == ["retired", "active", "active"]
    rows = client.wait_rows(lambda r: "dave/r2@1" in r)
    assert rows["dave/r2@1"]["status"] == "offline" and rows["dave/r2@1"]["matches"] == 0
    # it connects with its token, to the address its owner reads
    status, own = client.call(r2["url"], token=dave)
    assert own["arena_address"] is not None
    status, public = client.call(r2["url"])
    assert "arena_address" not in public
    bot = subprocess.Popen([sys.executable, "-m", "sample_bots.random_bot", "--arena",
                            own["arena_address"], "--seed", "9"],
                           env={**os.environ, "ARENA_TOKEN": r2["bot_token"]},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        rows = client.wait_rows(lambda r: r["dave/r2@1"]["matches"] >= 6)
        assert rows["dave/r2@1"]["status"] == "active"
        assert rows["dave/r2@1"]["forfeits"] == 0
    finally:
        bot.terminate()
        bot.wait(30)
    client.wait_rows(lambda r: r["dave/r2@1"]["status"] == "offline")


def test_the_log_tail_is_its_owners_only(lg) -> None:
    client = lg.server
    status, body = client.call("/api/bots/alice/rnd/log", token=lg.tokens["alice"])
    assert status == 200 and list(body["logs"]) == ["alice/rnd@1"]
    tail = body["logs"]["alice/rnd@1"]
    assert tail.strip()
    line = tail.strip().splitlines()[-1]
    status, body = client.call("/api/bots/alice/rnd/log", token=lg.tokens["bob"])
    assert status == 403 and body["error"] == "only the bot's owner reads its log"
    status, body = client.call("/api/bots/alice/rnd/log")
    assert status == 401
    status, page = client.call("/bots/alice/rnd")
    assert status == 200 and "alice/rnd@1" in page and "Owner's token" in page
    status, snap = client.call("/snapshot.json")
    assert status == 200 and "owner reads it on the bot" in str(snap)
    for shown in (page, str(snap), client.call("/")[1]):
        assert line not in shown
    assert client.call("/bots/nobody/nothing")[0] == 404


def test_the_ladder_and_a_bot_page_in_headless_chromium(lg) -> None:
    why = playwright_missing()
    if why is not None:
        pytest.skip(why)
    exe = find_chromium()
    assert exe is not None
    pw, browser = playwright_browser(exe)
    try:
        page = browser.new_page()
        page.goto(lg.server.url)
        page.wait_for_function("document.body.innerText.includes('alice/rnd@1')"
                               " && document.body.innerText.includes('bob/greedy@1')",
                               timeout=30_000)
        page.goto(lg.server.url + "bots/alice/rnd")
        assert "alice/rnd@1" in page.inner_text("body")
        page.fill("#token", lg.tokens["bob"])
        page.click("#log-form button")
        page.wait_for_function("document.getElementById('log').innerText.length > 0")
        assert page.inner_text("#log") == "only the bot's owner reads its log"
        page.fill("#token", lg.tokens["alice"])
        page.click("#log-form button")
        page.wait_for_function(
            "document.getElementById('log').innerText.startsWith('== alice/rnd@1')")
    finally:
        browser.close()
        pw.stop()


def _records_whole(directory: Path) -> int:
    """Every stored row's record verifies against the rules engine, and no record lies
    without its row (once the server has stopped). The rows counted."""
    rows = results(directory)
    assert len({m for m, _ in rows}) == len(rows)
    for _, record in rows:
        verify_record(read_record(directory / record))
    on_disk = {p.name for p in (directory / "records").iterdir()}
    assert on_disk == {Path(r).name for _, r in rows}
    return len(rows)


def test_kill_9_during_an_upload_then_serve_again(lg) -> None:
    erin = lg.tokens["erin"]
    data = pack(python_bot(lg.root / "erin", "late", "random_bot", "--seed", "5"))
    before = submissions(lg.dir, "erin")
    address = urlsplit(lg.server.url)
    with socket.create_connection((address.hostname, address.port)) as sock:
        sock.sendall(f"POST /api/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                     f"application/gzip\r\nAuthorization: Bearer {erin}\r\nContent-Length: "
                     f"{len(data)}\r\n\r\n".encode() + data[:len(data) // 2])
        lg.server.kill9()
    lg.server = Server(lg.dir)
    assert submissions(lg.dir, "erin") == before
    for sub in ("archives", "bots"):
        assert not [p for p in (lg.dir / sub).iterdir() if p.name.startswith(".")]
    client = lg.server
    status, first = client.call("/api/submissions", data, token=erin)
    assert status == 201, (first, client.log_tail())
    status, again = client.call("/api/submissions", data, token=erin)
    assert status == 200 and again["id"] == first["id"], (again, client.log_tail())
    assert len(submissions(lg.dir, "erin")) == len(before) + 1
    rows = client.wait_rows(lambda r: r.get("erin/late@1", {}).get("matches", 0) >= 6)
    assert rows["erin/late@1"]["status"] == "active"


def test_kill_9_during_a_match_loses_nothing_and_play_resumes(lg) -> None:
    client = lg.server
    deadline = time.monotonic() + 60
    while not (inflight := client.call("/snapshot.json")[1]["inflight"]):  # a match in flight
        assert time.monotonic() < deadline, "no match in flight"
        time.sleep(0.05)
    lg.server.kill9()
    assert all(m["hidden"] for m in inflight)      # a league never shows cards in flight
    stored = len(results(lg.dir))
    lg.server = Server(lg.dir)
    client = lg.server
    names = set(client.rows())
    assert {"alice/rnd@1", "bob/greedy@1", "erin/rnd2@1", "erin/late@1"} <= names, \
        client.log_tail()
    deadline = time.monotonic() + 60
    while len(results(lg.dir)) < stored + 12:                    # play resumes
        assert time.monotonic() < deadline, "play did not resume"
        time.sleep(0.2)
    assert lg.server.stop() == 0
    assert _records_whole(lg.dir) >= stored + 12
    lg.server = Server(lg.dir)                       # the module's teardown stops it again
