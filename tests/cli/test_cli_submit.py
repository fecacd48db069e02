"""``arena submit`` exit statuses against a stub league (docs/league.md): a submission the
league already rejected (the same files sent again) exits 1 with ``--no-wait`` too, as the
waiting path does; the check itself is not run here (tests/league has the real league)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REASON = "conformance: bot.py exited at once (exit status 1)"


def _answer(state: str) -> dict[str, object]:
    return {"id": "s1", "owner": "alice", "bot": "mybot", "state": state, "name": "mybot",
            "url": "/api/submissions/s1", "reason": REASON if state == "rejected" else None}


@pytest.fixture
def league(request) -> Iterator[str]:
    """A stub league on 127.0.0.1 answering every submission ``200`` (the same files were
    sent before) in the state ``request.param``."""
    body = json.dumps(_answer(request.param)).encode()

    class Handler(BaseHTTPRequestHandler):
        def _send(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self._send()

        do_GET = _send

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _submit(url: str, botdir: Path, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", "submit", url, str(botdir),
                           "--token", "t" * 32, *more], capture_output=True, text=True,
                          cwd=REPO, timeout=60, check=False)


@pytest.fixture
def botdir(tmp_path) -> Path:
    (tmp_path / "bot.toml").write_text('name = "mybot"\ncommand = ["python3", "bot.py"]\n')
    (tmp_path / "bot.py").write_text("raise SystemExit(1)\n")
    return tmp_path


@pytest.mark.parametrize("league", ["rejected"], indirect=True)
@pytest.mark.parametrize("more", [(), ("--no-wait",)])
def test_a_rejected_submission_exits_1_waiting_or_not(league, botdir, more):
    done = _submit(league, botdir, *more)
    assert done.returncode == 1, done.stderr
    assert "(the same files were sent before)" in done.stdout
    assert done.stdout.splitlines()[-1] == f"rejected: {REASON}"
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("league", ["queued", "active"], indirect=True)
def test_no_wait_exits_0_unless_rejected(league, botdir):
    done = _submit(league, botdir, "--no-wait")
    assert done.returncode == 0, done.stderr
    assert "rejected" not in done.stdout
