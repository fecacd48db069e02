"""Headless chromium for the HTML replay tests: ``dump_dom`` and a tiny CDP-over-pipe client.

Chromium is found as ``$ARENA_CHROMIUM``, ``chromium``, ``chromium-browser`` or
``google-chrome``; tests skip when none is installed (Debian: ``apt-get install -y chromium``).
Every run uses a fresh profile directory and no network features.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-dev-shm-usage"]


def find_chromium() -> str | None:
    """Path of a chromium executable, or None."""
    env = os.environ.get("ARENA_CHROMIUM")
    if env:
        return shutil.which(env) or (env if os.path.exists(env) else None)
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def dump_dom(exe: str, url: str, timeout: float = 60) -> str:
    """The DOM of ``url`` after its scripts ran (``--dump-dom``)."""
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                              capture_output=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"chromium failed ({proc.returncode}): {proc.stderr[-2000:]!r}")
    return proc.stdout.decode("utf-8")


class Browser:
    """Chromium driven through ``--remote-debugging-pipe`` (fd 3 in, fd 4 out, NUL-framed
    JSON). ``open(url)`` attaches a page; ``eval(js)``; ``key(name)``; ``close()``."""

    def __init__(self, exe: str) -> None:
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()
        self._profile = tempfile.TemporaryDirectory()

        def child_fds() -> None:  # runs in the child before exec: fds 3 and 4 for chromium
            high_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            high_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={self._profile.name}", "--remote-debugging-pipe",
             "about:blank"], pass_fds=(3, 4), preexec_fn=child_fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0
        self.session: str | None = None

    def send(self, method: str, params: dict | None = None, timeout: float = 20,
             session: bool = True) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        end = time.monotonic() + timeout
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no reply to {method}")
            ready, _, _ = select.select([self._r], [], [], left)
            if ready:
                chunk = os.read(self._r, 1 << 16)
                if not chunk:
                    raise EOFError("chromium closed the debugging pipe")
                self._buf += chunk

    def open(self, url: str) -> None:
        target = self.send("Target.createTarget", {"url": url}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target, "flatten": True}, session=False)["sessionId"]
        end = time.monotonic() + 20
        while self.eval("document.readyState") != "complete" or \
                self.eval("document.body && document.body.getAttribute('data-step')") is None:
            if time.monotonic() > end:
                raise TimeoutError("page did not load")
            time.sleep(0.05)

    def eval(self, expression: str):  # noqa: ANN201 - any JSON value
        result = self.send("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True})["result"]
        return result.get("value")

    def key(self, name: str, code: int) -> None:
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": kind, "key": name, "code": name,
                                                 "windowsVirtualKeyCode": code})

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5, session=False)
        except (OSError, RuntimeError, TimeoutError, EOFError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)
        self._profile.cleanup()
