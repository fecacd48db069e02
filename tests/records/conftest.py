"""Playwright fixtures for the HTML replay tests: a chromium and a page per test, and every
JavaScript console error, uncaught exception or dialog (``alert``) fails the test that caused
it.

Playwright's sync API runs an asyncio loop in the calling thread while it is started, so it is
started and stopped around each test (about a second each): a longer-lived instance would make
``asyncio.run`` fail in every test that runs after it."""

from __future__ import annotations

import pytest

from .browser import find_chromium, playwright_browser, playwright_missing


@pytest.fixture
def chromium_browser():
    why = playwright_missing()
    if why:
        pytest.skip(why)
    pw, browser = playwright_browser(find_chromium())
    yield browser
    browser.close()
    pw.stop()


@pytest.fixture
def browser_page(chromium_browser):
    """A fresh page (1280x900); yields it, then fails on any console error, page error or
    dialog seen while the test ran."""
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))

    def on_dialog(d):
        problems.append(f"dialog {d.type}: {d.message}")
        d.dismiss()
    page.on("dialog", on_dialog)
    yield page
    context.close()
    assert problems == [], problems
