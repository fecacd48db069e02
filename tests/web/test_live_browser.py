"""The live page in a real browser (Playwright for Python driving Debian's chromium):
``arena run --web`` with real bot processes; the page loads, a live match advances
(cards appear as played), the standings update within 2 s of a match ending, the page says it
is stale when the arena's server goes away and resumes when ``arena serve`` takes over on the
same port, a replay link opens the replay viewer, hostile bot names render as text, and no
JavaScript console error or dialog appears (other than the refused connections of the
deliberate outage)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from urllib.parse import urlparse

import pytest

NO_WEB = "the web extra is not installed (python3 -m pip install -e '.[web]')"
pytest.importorskip("starlette", reason=NO_WEB)
pytest.importorskip("uvicorn", reason=NO_WEB)

from arena.tournament.store import open_existing  # noqa: E402 (after the importorskip)
from tests.records.browser import find_chromium, playwright_browser, playwright_missing  # noqa: E402 (after the importorskip)
from tests.tournament.helpers import new_tag, wait_no_processes  # noqa: E402 (after the importorskip)

from .helpers import HOSTILE, read_url, web_config  # noqa: E402 (after the importorskip)

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _arena(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    return subprocess.Popen([sys.executable, "-m", "arena.cli", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _ended_ms(out: Path) -> list[float]:
    """Unix ms of each finished match's end, in order."""
    with open_existing(out) as store:
        rows = store.db.execute("SELECT ended_at FROM results ORDER BY ended_at").fetchall()
    return [datetime.fromisoformat(r[0]).timestamp() * 1000 for r in rows]


def _open_page(browser, url: str, problems: list[tuple[float, str]]):
    """A page on ``url`` that records in ``problems`` (time, text) every console error or
    warning, HTTP error, page error and dialog, and in ``window.seen[n]`` when it first showed
    ``n`` finished matches (the browser's clock, the same as ours)."""
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    page.on("console", lambda m: problems.append((time.time(), f"{m.type}: {m.text}"))
            if m.type in ("error", "warning") else None)
    page.on("response", lambda r: problems.append((time.time(), f"{r.status} {r.url}"))
            if r.status >= 400 else None)
    page.on("pageerror", lambda e: problems.append((time.time(), f"page error: {e}")))
    page.on("dialog", lambda d: (problems.append((time.time(), f"dialog {d.message}")),
                                 d.dismiss()))
    page.goto(url)
    page.evaluate("""() => { window.seen = {};
        new MutationObserver(() => { const d = document.body.dataset.done;
          if (d && !(d in window.seen)) window.seen[d] = Date.now(); })
        .observe(document.body, {attributes: true, attributeFilter: ['data-done']}); }""")
    return page


def _one_match_advances(page, tries: int = 4) -> None:
    """Wait for a match in flight with moves shown, then for THAT match's decision count to
    grow while it is still in flight (moves arrive in batches: another match's panel, new
    and empty, must not pass for it). A match that ends first proves nothing: the next one
    is watched (at most ``tries``)."""
    for _ in range(tries):
        page.wait_for_selector("#inflight .match .moves li", timeout=60_000)
        box = page.locator("#inflight .match").filter(has=page.locator(".moves li")).first
        match_id = box.get_attribute("data-match")
        before = box.locator(".status").text_content()
        page.wait_for_function(
            "([id, s]) => { const b = [...document.querySelectorAll('#inflight .match')]"
            ".find(x => x.dataset.match === id);"
            " return !b || b.querySelector('.status').textContent !== s; }",
            arg=[match_id, before], timeout=20_000)
        still = [b for b in page.locator("#inflight .match").all()
                 if b.get_attribute("data-match") == match_id]
        if still and still[0].locator(".status").text_content() != before:
            assert still[0].locator(".moves li").count() > 0
            return
    raise AssertionError(f"no match was seen advancing in flight in {tries} tries")


def test_live_page_in_a_browser(tmp_path):
    why = playwright_missing()
    if why:
        pytest.skip(why)
    tag = new_tag()
    cfg = tmp_path / "web.toml"
    cfg.write_text(web_config(tag, sleep_ms=100))
    out = tmp_path / "out"
    run = _arena("run", str(cfg), "--out", str(out), "--web", "127.0.0.1:0", "--quiet")
    serve = None
    pw, browser = playwright_browser(find_chromium())
    problems: list[tuple[float, str]] = []
    try:
        url = read_url(run)
        page = _open_page(browser, url, problems)
        page.wait_for_function("document.title === '358 Arena: web test'", timeout=30_000)

        # a live match advances: its decision count grows while it is in flight
        _one_match_advances(page)
        page.screenshot(path=str(tmp_path / "live.png"), full_page=True)

        # hostile names render as text, in the standings and the live panels
        cells = page.locator("table.standings tbody td:nth-child(2)").all_text_contents()
        assert sorted(cells) == sorted([*HOSTILE, "slow"])
        assert page.locator("img").count() == 0
        names = page.locator("#inflight .match strong.mid").first.text_content()
        assert any(n in names for n in HOSTILE) or "slow" in names

        # every standings update arrives within 2 s of its match ending
        outage = time.time()     # from here the arena's server stops: refusals expected
        assert run.wait(timeout=240) == 0, run.stderr.read()
        assert wait_no_processes(tag) == []
        ended = _ended_ms(out)
        assert len(ended) == 6
        seen = page.evaluate("window.seen")
        late = {k: v - ended[int(k) - 1] for k, v in seen.items()
                if int(k) >= 2 and v - ended[int(k) - 1] > 2000}
        assert len([k for k in seen if int(k) >= 2]) >= 3, seen
        assert late == {}, late

        # the arena's server is gone: the page says it is stale
        page.wait_for_selector("#stale", state="visible", timeout=10_000)
        # ``arena serve`` on the same port: the page reconnects and is current again
        port = str(urlparse(url).port)
        serve = _arena("serve", str(out), "--port", port)
        read_url(serve)
        page.wait_for_selector("#stale", state="hidden", timeout=15_000)
        back = time.time()
        assert page.locator("#done").text_content() == "6"
        assert "The tournament is complete." in page.locator("#progress").text_content()
        assert page.locator("#ratings svg polyline").count() == 3
        assert page.locator("#h2h svg rect").count() == 9

        # a replay link opens the replay viewer of that match
        link = page.locator("a.replay").first
        href = link.get_attribute("href")
        with page.expect_navigation():
            link.click()
        assert page.url.endswith(href)
        assert page.title().startswith("358 Arena replay: ")
        assert page.locator("body").text_content().count("onerror") >= 1  # names as text
        assert page.locator("img").count() == 0
    finally:
        browser.close()
        pw.stop()
        for proc in (run, serve):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)
    allowed = [p for t, p in problems
               if outage - 1 <= t <= back + 1 and "ERR_CONNECTION_REFUSED" in p]
    assert [p for _, p in problems if p not in allowed] == []


def test_serve_shows_the_matches_in_flight_of_an_arena_in_another_process(tmp_path):
    """``arena run`` (no page) in one process, ``arena serve`` on its directory in another:
    the page shows the matches in flight from the arena's journal (``OUT/live/``) with their
    cards appearing as they are played, and each standings update within 2 s of its match
    ending; when the run is over no match is left in flight and the journal is empty."""
    why = playwright_missing()
    if why:
        pytest.skip(why)
    tag = new_tag()
    cfg = tmp_path / "web.toml"
    cfg.write_text(web_config(tag, sleep_ms=100))
    out = tmp_path / "out"
    run = _arena("run", str(cfg), "--out", str(out), "--quiet")
    serve = None
    pw, browser = playwright_browser(find_chromium())
    problems: list[tuple[float, str]] = []
    try:
        deadline = time.monotonic() + 60
        while not (out / "results.sqlite").exists():
            assert time.monotonic() < deadline and run.poll() is None
            time.sleep(0.1)
        serve = _arena("serve", str(out), "--port", "0")
        url = read_url(serve)
        page = _open_page(browser, url, problems)
        page.evaluate("""() => { window.cards = new Set();
            new MutationObserver(() => document.querySelectorAll(
                '#inflight .match .trick .tcard').forEach(t => window.cards.add(
                    t.dataset.seat + ':' + (t.querySelector('.card').dataset.card || '?'))))
            .observe(document.getElementById('inflight'), {childList: true, subtree: true}); }""")
        assert "read-only view" in page.locator(".mode").text_content()

        # a match in flight, run by the other process, advances on the page
        _one_match_advances(page)
        names = page.locator("#inflight .match strong.mid").first.text_content()
        assert all(n in names for n in (*HOSTILE, "slow")), names   # as text
        assert page.locator("img").count() == 0

        assert run.wait(timeout=240) == 0, run.stderr.read()
        assert wait_no_processes(tag) == []
        ended = _ended_ms(out)
        assert len(ended) == 6
        page.wait_for_function("document.body.dataset.done === '6'", timeout=10_000)
        seen = page.evaluate("window.seen")
        late = {k: v - ended[int(k) - 1] for k, v in seen.items()
                if int(k) >= 2 and v - ended[int(k) - 1] > 2000}
        assert len([k for k in seen if int(k) >= 2]) >= 3, seen
        assert late == {}, late
        # cards were shown as played (several tricks' worth, "<seat>:<card>", face up)
        cards = page.evaluate("Array.from(window.cards)")
        assert len(cards) >= 6 and all(re.fullmatch(r"[0-2]:(10|[2-9JQKA])[SHDC]", c)
                                       for c in cards), cards
        page.wait_for_function("document.querySelector('#inflight').textContent"
                               ".includes('No match in flight.')", timeout=10_000)
        assert list((out / "live").glob("*.jsonl")) == []
    finally:
        browser.close()
        pw.stop()
        for proc in (run, serve):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)
    assert [p for _, p in problems] == []
