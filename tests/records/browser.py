"""Headless chromium for the HTML replay tests: ``dump_dom`` (the ``--dump-dom`` flag) and
Playwright for Python driving that same chromium (``executable_path``).

Chromium is found as ``$ARENA_CHROMIUM``, ``chromium``, ``chromium-browser`` or
``google-chrome``; tests skip when none is installed (Debian: ``apt-get install -y chromium``)
or, for the Playwright tests, when the ``playwright`` package (dev extra) is missing. Every run
uses a fresh profile directory and no network features.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

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


def playwright_browser(exe: str):
    """Start Playwright and launch ``exe`` (Debian's chromium; Playwright's own browser
    download is never used). Returns ``(pw, browser)``; stop with ``browser.close();
    pw.stop()``. Raises ImportError when the ``playwright`` package is missing."""
    from playwright.sync_api import sync_playwright
    pw = sync_playwright().start()
    try:
        browser = pw.chromium.launch(executable_path=exe, headless=True,
                                     args=[f for f in FLAGS if f != "--headless"])
    except Exception:
        pw.stop()
        raise
    return pw, browser


def playwright_missing() -> str | None:
    """Why Playwright tests cannot run here (no chromium / no playwright package), or None."""
    if find_chromium() is None:
        return "chromium not installed (Debian: apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401 - imported only to see that it is installed
    except ImportError:
        return "playwright not installed (python3 -m pip install -e '.[dev]')"
    return None
