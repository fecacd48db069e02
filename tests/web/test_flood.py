"""A flood of event streams against the live page, for real: 1,100 ``/events`` connections
from this test process against ``arena run --web`` limited to 1,024 file descriptors, while
its tournament runs. The page caps the streams (a plain 503 with Retry-After beyond them), the
log gets a few summary lines (no traceback, no "Too many open files"), the page keeps
answering and the tournament finishes every match. Also: the arena raises its soft
descriptor limit to the hard one at start."""

from __future__ import annotations

import os
import resource
import selectors
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

NO_WEB = "the web extra is not installed (python3 -m pip install -e '.[web]')"
pytest.importorskip("starlette", reason=NO_WEB)
pytest.importorskip("uvicorn", reason=NO_WEB)

from arena.tournament.store import open_existing  # noqa: E402 (after the importorskip)
from tests.tournament.helpers import new_tag, wait_no_processes  # noqa: E402 (after the importorskip)

from .helpers import read_url, web_config  # noqa: E402 (after the importorskip)

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

#: the arena's descriptor limit (soft and hard) and the connections the test opens
LIMIT, FLOOD = 1024, 1100


#: sets the descriptor limit, then becomes the arena (same process: /proc shows its limits)
LIMITED = ("import os, resource, sys\n"
           "resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), int(sys.argv[2])))\n"
           "os.execv(sys.executable, [sys.executable, '-m', 'arena.cli', *sys.argv[3:]])\n")


def _arena(args: list[str], limit: int, hard: int | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    return subprocess.Popen([sys.executable, "-c", LIMITED, str(limit), str(hard or limit),
                             *args], env=env, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _room_for_the_flood() -> str | None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = FLOOD + 200
    if soft < need:
        if hard != resource.RLIM_INFINITY and hard < need:
            return f"this test process may hold only {hard} descriptors (needs {need})"
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
    return None


def _flood(port: int, n: int) -> tuple[list[socket.socket], dict[str, int], int]:
    """Open ``n`` connections asking for ``/events``; returns the sockets, the count of each
    status line answered within 20 s, and how many 503s carried Retry-After."""
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET /events HTTP/1.1\r\nHost: arena\r\nAccept: text/event-stream\r\n\r\n")
        s.setblocking(False)
        socks.append(s)
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    got: dict[socket.socket, bytes] = {}
    deadline = time.monotonic() + 20
    while len(got) < n and time.monotonic() < deadline:
        for key, _ in sel.select(0.5):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except BlockingIOError:
                continue
            got[s] = got.get(s, b"") + data
            if b"\r\n\r\n" in got[s] or not data:
                sel.unregister(s)
    sel.close()
    status: dict[str, int] = {}
    retry_after = 0
    for s in socks:
        head = got.get(s, b"").split(b"\r\n\r\n")[0].decode("latin-1")
        line = head.split("\r\n")[0] or "no answer"
        status[line] = status.get(line, 0) + 1
        if line.startswith("HTTP/1.1 503") and "retry-after: " in head.lower():
            retry_after += 1
    return socks, status, retry_after


def test_a_flood_of_event_streams_is_capped_and_the_tournament_goes_on(tmp_path):
    why = _room_for_the_flood()
    if why:
        pytest.skip(why)
    tag = new_tag()
    cfg = tmp_path / "web.toml"
    # slow enough that the tournament outlasts the flood on a loaded machine: once it ends,
    # its streams end too and the cap admits new ones
    cfg.write_text(web_config(tag, sleep_ms=100, deals=2))
    out = tmp_path / "out"
    run = _arena(["run", str(cfg), "--out", str(out), "--web", "127.0.0.1:0", "--quiet"],
                 LIMIT)
    socks: list[socket.socket] = []
    try:
        url = read_url(run)
        port = urlparse(url).port
        socks, status, retry_after = _flood(port, FLOOD)
        with open_existing(out) as store:
            assert len(store.results()) < 12, "the tournament ended during the flood"
        # the per-client cap: 16 streams; every other connection a plain 503, Retry-After
        assert status.get("HTTP/1.1 200 OK") == 16, status
        assert status.get("HTTP/1.1 503 Service Unavailable") == FLOOD - 16, status
        assert retry_after == FLOOD - 16
        # with the 1,100 sockets still open on this side, the page answers
        with urllib.request.urlopen(url, timeout=20) as r:
            assert r.status == 200 and b"358 Arena" in r.read()
        with urllib.request.urlopen(url + "snapshot.json", timeout=20) as r:
            assert r.status == 200
        assert run.poll() is None
    finally:
        for s in socks:
            s.close()
    try:
        assert run.wait(timeout=300) == 0
    finally:
        if run.poll() is None:
            run.kill()
    err = run.stderr.read()
    assert wait_no_processes(tag) == []
    with open_existing(out) as store:
        rows = store.results()
    assert len(rows) == 12 and not any(any(r.forfeits) for r in rows)
    log = err + (out / "arena.log").read_text()
    assert "Traceback" not in log and "Too many open files" not in log
    warnings = [line for line in err.splitlines() if "refused" in line]
    assert 1 <= len(warnings) <= 3, err           # summaries, not one line per refusal
    assert "event streams over the per-client cap (16)" in warnings[0]
    assert len(err.splitlines()) < 20, err


def test_the_arena_raises_its_soft_descriptor_limit(tmp_path):
    """``arena serve`` started with a soft limit of 256 under a hard one of 2,048 runs with
    2,048 (read from /proc, the kernel's own account)."""
    if resource.getrlimit(resource.RLIMIT_NOFILE)[1] not in (resource.RLIM_INFINITY,) and \
            resource.getrlimit(resource.RLIMIT_NOFILE)[1] < 2048:
        pytest.skip("this process's hard descriptor limit is under 2,048")
    from arena.tournament.store import Store
    out = tmp_path / "t"
    out.mkdir()
    Store(out / "results.sqlite").close()
    serve = _arena(["serve", str(out), "--port", "0"], 256, 2048)
    try:
        read_url(serve)
        limits = Path(f"/proc/{serve.pid}/limits").read_text()
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    line = next(x for x in limits.splitlines() if x.startswith("Max open files"))
    assert line.split()[3:5] == ["2048", "2048"], line


def test_idle_connections_are_capped_and_closed(tmp_path):
    """300 connections that never send a request, against ``arena serve`` limited to 1,024
    descriptors (a connection cap of 256): the connections past the cap get a 503 at once,
    the others are closed by the server once idle for 10 s, and the page answers after."""
    why = _room_for_the_flood()
    if why:
        pytest.skip(why)
    from arena.tournament.store import Store
    out = tmp_path / "t"
    out.mkdir()
    Store(out / "results.sqlite").close()
    serve = _arena(["serve", str(out), "--port", "0"], LIMIT)
    socks: list[socket.socket] = []
    try:
        url = read_url(serve)
        port = urlparse(url).port
        t0 = time.monotonic()
        socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(300)]
        sel = selectors.DefaultSelector()
        for s in socks:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
        answers: dict[socket.socket, tuple[float, bytes]] = {}
        while len(answers) < len(socks) and time.monotonic() - t0 < 60:
            for key, _ in sel.select(1.0):
                data = key.fileobj.recv(4096)
                answers.setdefault(key.fileobj, (time.monotonic() - t0, data))
                sel.unregister(key.fileobj)
        sel.close()
        refused = [t for t, d in answers.values() if d.startswith(b"HTTP/1.1 503")]
        closed = [t for t, d in answers.values() if d == b""]
        assert len(refused) == 300 - 256 and max(refused) < 5
        assert len(closed) == 256 and min(closed) >= 9.5 and max(closed) < 30
        with urllib.request.urlopen(url, timeout=20) as r:
            assert r.status == 200
    finally:
        for s in socks:
            s.close()
        serve.terminate()
        serve.wait(timeout=30)
    err = serve.stderr.read()
    assert "Traceback" not in err
    assert "connections over the cap (256): 1" in err
