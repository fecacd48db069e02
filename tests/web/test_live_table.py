"""The live page's card tables, featured match, reconnection and narrow layout in a real
browser (Playwright driving Debian's chromium), against ``arena run --web`` / ``arena serve``
with real bot processes:

- every card table shown while its match is in flight agrees with that match's record once
  stored (the cards on the table as played, each last trick with its winner, tricks won); the
  move list is numbered by the match's own decision numbers;
- the featured match moves on only when it ends; ``live/<match>`` shows that match alone;
- through a real proxy that answers 502 for 10 s (while ``arena serve`` restarts behind it)
  the page retries with back-off, then reconnects and takes a fresh snapshot;
- at 400 px nothing is wider than the screen (tables and charts scroll in their own box),
  the head-to-head matrix has its legend and a bot without a match shows "-".
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import subprocess
import sys
import threading
import time
from urllib.parse import urlparse

import pytest

NO_WEB = "the web extra is not installed (python3 -m pip install -e '.[web]')"
pytest.importorskip("starlette", reason=NO_WEB)
pytest.importorskip("uvicorn", reason=NO_WEB)

from arena.records import read_record  # noqa: E402 (after the importorskip)
from arena.tournament.store import open_existing  # noqa: E402 (after the importorskip)
from tests.records.browser import find_chromium, playwright_browser, playwright_missing  # noqa: E402 (after the importorskip)
from tests.tournament.helpers import new_tag, wait_no_processes  # noqa: E402 (after the importorskip)

from .helpers import read_url, web_config  # noqa: E402 (after the importorskip)

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


def _arena(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    return subprocess.Popen([sys.executable, "-m", "arena.cli", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _problems(page) -> list[tuple[float, str]]:
    """(time, text) of every console error or warning, page error and dialog of ``page``."""
    problems: list[tuple[float, str]] = []
    page.on("console", lambda m: problems.append((time.time(), f"{m.type}: {m.text}"))
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append((time.time(), f"page error: {e}")))
    page.on("dialog", lambda d: (problems.append((time.time(), f"dialog {d.message}")),
                                 d.dismiss()))
    return problems


def _unexpected(problems: list[tuple[float, str]], down_since: float = float("inf")
                ) -> list[str]:
    """The problems, but the refused connections once the server is gone (``down_since``)."""
    return [p for t, p in problems if not (t >= down_since and "ERR_CONNECTION_REFUSED" in p)]


#: records in window.seen what every card table shows, each time it changes
OBSERVE = """() => { window.seen = []; window.featured = [];
  const grab = () => document.querySelectorAll('#inflight .match, #tv .match').forEach(b => {
    const last = b.querySelector('.last');
    window.seen.push({id: b.dataset.match,
      hand: +(b.querySelector('.center .hand').textContent.match(/Hand (\\d+)/) || [0, 0])[1],
      trick: [...b.querySelectorAll('.trick .tcard')].map(t =>
        [+t.dataset.seat, t.querySelector('.card').dataset.card]),
      last: last && last.dataset.winner !== undefined ? {winner: +last.dataset.winner,
        cards: [...last.querySelectorAll('.card')].map(c => c.dataset.card)} : null,
      won: [...b.querySelectorAll('.seat .won')].map(w => +w.dataset.won),
      numbers: [...b.querySelectorAll('.moves li')].map(li => [li.value, +li.dataset.i])});
  });
  new MutationObserver(grab).observe(document.body, {childList: true, subtree: true});
  new MutationObserver(() => window.featured.push([document.body.dataset.featured,
      [...document.querySelectorAll('#inflight .match')].map(b => b.dataset.match)]))
    .observe(document.body, {attributes: true, attributeFilter: ['data-featured']});
}"""


def test_card_tables_agree_with_the_records_and_the_featured_match_moves_on(tmp_path):
    why = playwright_missing()
    if why:
        pytest.skip(why)
    tag = new_tag()
    cfg = tmp_path / "web.toml"
    # matches long enough (0.1 s a decision of the slow bot) for a busy machine to open one's
    # own page while it is in flight
    cfg.write_text(web_config(tag, sleep_ms=100).replace("hand_cap = 1", "hand_cap = 2")
                   .replace("concurrency = 1", "concurrency = 2"))
    out = tmp_path / "out"
    run = _arena("run", str(cfg), "--out", str(out), "--web", "127.0.0.1:0", "--quiet")
    pw, browser = playwright_browser(find_chromium())
    try:
        url = read_url(run)
        page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
        problems = _problems(page)
        page.goto(url)
        page.evaluate(OBSERVE)
        page.wait_for_selector("#tv .match .felt .seat .won", timeout=60_000)
        # live/<match>: that match alone, full size (the youngest match in flight; should
        # it end before the page is up, the next one)
        solo = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
        solo_problems = _problems(solo)
        for _ in range(8):
            page.wait_for_selector("#inflight .match", timeout=60_000)
            solo_id = page.evaluate("""() => [...document.querySelectorAll('#inflight .match')]
                .map(b => [+b.querySelector('.status').textContent.match(/(\\d+) decisions/)[1],
                           b.dataset.match]).sort((a, b) => a[0] - b[0])[0][1]""")
            solo.goto(url + "live/" + solo_id)
            solo.wait_for_selector("body[data-snapshots]", timeout=20_000)   # its first
            if solo.locator(f'#tv .match[data-match="{solo_id}"] .felt').count():
                break
        else:
            raise AssertionError("no match stayed in flight long enough to open its page")
        assert solo.locator("#standings").is_hidden() and solo.locator("#inflight").is_hidden()
        assert solo.title() == "358 Arena: web test"
        assert run.wait(timeout=300) == 0, run.stderr.read()
        down = time.time() - 1          # the run's page server stops with it
        solo.wait_for_selector("#tv p.note", timeout=10_000)
        assert "not in flight" in solo.text_content("#tv")
        assert solo.get_attribute("#tv-about a", "href") == "./"
        seen = page.evaluate("window.seen")
        featured = page.evaluate("window.featured")
    finally:
        browser.close()
        pw.stop()
        if run.poll() is None:
            run.kill()
    assert wait_no_processes(tag) == []
    assert _unexpected(problems, down) == [] and _unexpected(solo_problems, down) == []

    with open_existing(out) as store:
        records = {r.match_id: read_record(out / r.record) for r in store.results()}
    assert len(records) == 6
    checked = set()
    for s in seen:
        if not s["hand"]:    # no move yet: only the names
            continue
        rec = records[s["id"]]
        hands = {hr.hand: hr for hr in rec.hands}
        hr = hands[s["hand"]]
        tricks = [[list(c) for c in t.cards] for t in hr.tricks]
        if s["trick"]:       # the cards on the table: the start of one of its tricks
            assert any(t[:len(s["trick"])] == s["trick"] for t in tricks), s
            k = next(i for i, t in enumerate(tricks) if t[:len(s["trick"])] == s["trick"])
            assert s["won"] == [sum(t.winner == seat for t in hr.tricks[:k])
                                for seat in range(3)], s
            checked.add(s["id"])
        if s["last"]:        # the last trick: a trick of this hand or the hand before
            near = [*hr.tricks, *(hands[s["hand"] - 1].tricks if s["hand"] > 1 else [])]
            assert any(s["last"] == {"winner": t.winner, "cards": [c for _, c in t.cards]}
                       for t in near), s
        assert all(value == i + 1 for value, i in s["numbers"]), s   # decision numbers
        n_decisions = sum(len(h.decisions) for h in rec.hands)
        assert all(i < n_decisions for _, i in s["numbers"])
    assert len(checked) >= 4, checked           # most matches were seen mid-trick
    # the featured match changed only when it had ended (no longer in flight)
    moves = [(new, inflight) for new, inflight in featured if new]
    assert len({new for new, _ in moves}) >= 3, featured
    for (old, _), (new, inflight) in itertools.pairwise(moves):
        if new != old:
            assert old not in inflight and new in inflight, featured


class _Proxy:
    """A TCP proxy on 127.0.0.1 to ``port``, run in a thread; ``fail()`` closes every
    connection and answers each new one ``502 Bad Gateway`` until ``heal()``."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.failing = False
        self.answered_502 = 0
        self.loop = asyncio.new_event_loop()
        self._writers: set[asyncio.StreamWriter] = set()
        started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self.thread.start()
        started.wait(10)

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(
            asyncio.start_server(self._client, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        started.set()
        self.loop.run_forever()
        server.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.failing:
            with contextlib.suppress(Exception):
                await reader.readuntil(b"\r\n\r\n")
                writer.write(b"HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\n"
                             b"content-length: 12\r\nconnection: close\r\n\r\nbad gateway\n")
                await writer.drain()
                self.answered_502 += 1
            writer.close()
            return
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_w}

        async def pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await r.read(65536):
                    w.write(data)
                    await w.drain()
            w.close()
        await asyncio.gather(pipe(reader, up_w), pipe(up_r, writer))
        self._writers -= {writer, up_w}

    def fail(self) -> None:
        def go() -> None:
            self.failing = True
            for w in list(self._writers):
                w.close()
        self.loop.call_soon_threadsafe(go)

    def heal(self) -> None:
        self.loop.call_soon_threadsafe(setattr, self, "failing", False)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def finished_dir(tmp_path_factory):
    """A finished 6-match tournament directory (arena run, real bot processes)."""
    tag = new_tag()
    base = tmp_path_factory.mktemp("live")
    cfg = base / "web.toml"
    cfg.write_text(web_config(tag, sleep_ms=0))
    run = _arena("run", str(cfg), "--out", str(base / "out"), "--quiet")
    assert run.wait(timeout=300) == 0, run.stderr.read()
    assert wait_no_processes(tag) == []
    return base / "out"


def test_the_page_reconnects_through_a_proxy_answering_502(finished_dir):
    why = playwright_missing()
    if why:
        pytest.skip(why)
    serve = _arena("serve", str(finished_dir), "--port", "0")
    port = urlparse(read_url(serve)).port
    proxy = _Proxy(port)
    pw, browser = playwright_browser(find_chromium())
    try:
        page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
        page.goto(f"http://127.0.0.1:{proxy.port}/")
        page.wait_for_function("document.body.dataset.connected === '1'", timeout=20_000)
        assert page.get_attribute("body", "data-snapshots") == "1"
        attempts_before = int(page.get_attribute("body", "data-attempts"))
        t0 = time.monotonic()
        proxy.fail()              # the proxy answers 502 for 10 s while the arena restarts
        page.wait_for_selector("#stale", state="visible", timeout=10_000)
        serve.terminate()
        serve.wait(timeout=30)
        serve = _arena("serve", str(finished_dir), "--port", str(port))
        read_url(serve)
        time.sleep(max(0.0, t0 + 10 - time.monotonic()))
        attempts = int(page.get_attribute("body", "data-attempts")) - attempts_before
        assert proxy.answered_502 >= 2
        # retried, with back-off: after about 1, 3 and 7 s (1, 2, 4 s apart, +-20%)
        assert 3 <= attempts <= 4, attempts
        assert "Reconnecting in" in page.text_content("#retry")
        proxy.heal()
        page.wait_for_selector("#stale", state="hidden", timeout=40_000)
        page.wait_for_function("document.body.dataset.snapshots === '2'", timeout=10_000)
        assert page.text_content("#done") == "6"
        assert page.locator("#standings table.standings tbody tr").count() == 3
    finally:
        browser.close()
        pw.stop()
        proxy.close()
        serve.terminate()
        serve.wait(timeout=30)


def test_a_phone_sized_page_fits_and_the_matrix_has_its_legend(finished_dir, tmp_path):
    """At 400 and 412 px wide no element makes the page scroll sideways (the standings and
    the charts scroll in their own box); the head-to-head matrix is explained; a bot that
    never played (added to the schedule, no result) shows "-" in the standings."""
    why = playwright_missing()
    if why:
        pytest.skip(why)
    import shutil
    import sqlite3
    out = tmp_path / "t"
    shutil.copytree(finished_dir, out)
    with sqlite3.connect(out / "results.sqlite") as db:   # a bot scheduled, never played
        db.execute("INSERT INTO schedule SELECT 'x-' || match_id, 'x-' || block_id, "
                   "table_idx + 1, deal_idx, seating_idx, 'idle', seat1, seat2, seed "
                   "FROM schedule LIMIT 1")
    serve = _arena("serve", str(out), "--port", "0")
    url = read_url(serve)
    pw, browser = playwright_browser(find_chromium())
    try:
        for width in (400, 412):
            page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
            problems = _problems(page)
            page.goto(url)
            page.wait_for_function("document.body.dataset.connected === '1'")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            wide = page.evaluate("""w => [...document.querySelectorAll('body *')].filter(e =>
                e.getBoundingClientRect().right > w + 0.5 && !e.closest('.scroll'))
                .map(e => e.tagName + '#' + e.id + '.' + e.className)""", width)
            assert wide == [], wide
            table = page.locator("#standings .scroll")
            assert page.evaluate("e => e.scrollWidth > e.clientWidth", table.element_handle())
            assert _unexpected(problems) == []
        legend = page.text_content("#h2h-legend")
        assert "above-below-level" in legend and "never met" in legend
        row = page.locator("#standings tbody tr", has_text="idle")
        cells = row.locator("td").all_text_contents()
        assert cells[3] == "0" and set(cells[4:]) == {"-"}, cells
    finally:
        browser.close()
        pw.stop()
        serve.terminate()
        serve.wait(timeout=30)


