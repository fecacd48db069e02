"""The HTML replay page: safe embedding of hostile names, and stepping in a real browser
(``--dump-dom`` for the ``#step=N`` fragment; Playwright for keys and buttons)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from arena.records import read_record, record_from_result, render_html, write_record
from arena.records.html import page_data, script_json

from .browser import dump_dom, find_chromium
from .helpers import HOSTILE, play

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium not installed (Debian: apt-get install -y chromium)")


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    path = tmp_path_factory.mktemp("html") / "h.jsonl"
    write_record(record_from_result(play("sergeant-major", seed=21, hand_cap=2, names=HOSTILE,
                                         match_id="m</script><b>1")), path)
    return read_record(path)


@pytest.fixture(scope="module")
def page(record, tmp_path_factory):
    path = tmp_path_factory.mktemp("page") / "replay.html"
    path.write_text(render_html(record), encoding="utf-8")
    return path


def test_script_json_cannot_close_the_script():
    text = str(script_json({"n": "</script><!-- & \u2028"}))
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"n": "</script><!-- & \u2028"}


def test_hostile_names_are_escaped(page, record):
    html = page.read_text(encoding="utf-8")
    assert "<script>alert" not in html and "</script><b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html       # in markup, escaped
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in html  # in the JSON data
    assert "Jürgen ♠" in html and "O&#39;Brien, &#34;Bobby&#34;" in html
    assert html.count("<script") == 2  # the data block and the page's own script
    # self-contained: nothing is fetched
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//)""", html)
    assert "@import" not in html and "url(" not in html
    blob = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html,
                     re.S).group(1)
    assert json.loads(blob) == json.loads(json.dumps(page_data(record)))


def step_of(record, hand: int, decision: int) -> int:
    """Page step shown after ``decision`` (0-based) of ``hand`` (1-based)."""
    before = sum(1 + len(hr.decisions) for hr in record.hands[:hand - 1])
    return before + 1 + decision


def play_decision(record, hand: int, trick: int, card: int) -> int:
    """0-based decision index in ``hand`` that played card ``card`` (0..2) of ``trick`` (1..)."""
    plays = [j for j, d in enumerate(record.hands[hand - 1].decisions) if d.kind == "play"]
    return plays[3 * (trick - 1) + card]


class _Dom(HTMLParser):
    """Collects the replay page's DOM hooks from a dumped document."""

    def __init__(self) -> None:
        super().__init__()
        self.body: dict = {}
        self.trick: list[tuple[int, str, bool]] = []
        self.won: dict[int, int] = {}
        self.cards: dict[int, int] = {}
        self.seat: int | None = None
        self.caption_open = False
        self.caption = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "body":
            self.body = a
        if "seat" in cls and "data-seat" in a:
            self.seat = int(a["data-seat"])
        if "tcard" in cls:
            self.trick.append((int(a["data-seat"]), a["data-card"], "win" in cls))
        if "won" in cls and self.seat is not None:
            self.won[self.seat] = int(a["data-won"])
        if "card" in cls and self.seat is not None and not self.trick:
            self.cards[self.seat] = self.cards.get(self.seat, 0) + 1
        if a.get("id") == "center":
            self.seat = None
        self.caption_open = a.get("id") == "caption"

    def handle_endtag(self, tag):
        self.caption_open = False

    def handle_data(self, data):
        if self.caption_open:
            self.caption += data


@needs_chromium
def test_page_renders_step_from_url_fragment(page, record):
    hand, trick = 2, 3
    j = play_decision(record, hand, trick, 1)
    step = step_of(record, hand, j)
    dom_text = dump_dom(CHROMIUM, page.as_uri() + f"#step={step}")
    assert "<script>alert" not in dom_text
    dom = _Dom()
    dom.feed(dom_text)
    hr = record.hands[hand - 1]
    want = hr.tricks[trick - 1].cards[:2]
    assert dom.body["data-step"] == str(step) and dom.body["data-hand"] == str(hand)
    assert [(s, c) for s, c, _ in dom.trick] == [(s, c) for s, c in want]
    assert not any(win for _, _, win in dom.trick)
    won = [sum(t.winner == s for t in hr.tricks[:trick - 1]) for s in range(3)]
    assert dom.won == dict(enumerate(won))
    # cards left in hand: 16 minus the cards each seat already played this hand
    played = [sum(who == s for t in hr.tricks[:trick - 1] for who, _ in t.cards)
              + sum(who == s for who, _ in want) for s in range(3)]
    assert dom.cards == {s: 16 - played[s] for s in range(3)}
    assert dom.caption == f"{HOSTILE[want[1][0]]} plays {want[1][1]}"

    # the step that completes the trick shows all three cards and the winner
    step3 = step_of(record, hand, play_decision(record, hand, trick, 2))
    dom = _Dom()
    dom.feed(dump_dom(CHROMIUM, page.as_uri() + f"#step={step3}"))
    done = hr.tricks[trick - 1]
    assert [(s, c) for s, c, _ in dom.trick] == [(s, c) for s, c in done.cards]
    assert [s for s, _, win in dom.trick if win] == [done.winner]
    assert dom.won[done.winner] == won[done.winner] + 1
    assert f"{HOSTILE[done.winner]} wins trick {trick}" in dom.caption


def test_keyboard_and_buttons_step_through_a_hand(browser_page, page, record):
    browser = browser_page
    start = step_of(record, 2, -1)  # the "dealt" frame of hand 2
    browser.goto(page.as_uri() + f"#step={start}")
    assert browser.get_attribute("body", "data-step") == str(start)
    hr = record.hands[1]
    first_play = play_decision(record, 2, 1, 0)
    for _ in range(first_play + 1):
        browser.keyboard.press("ArrowRight")
    assert browser.get_attribute("body", "data-step") == str(start + first_play + 1)
    assert browser.evaluate("location.hash") == f"#step={start + first_play + 1}"
    shown = browser.eval_on_selector_all("#trick .tcard",
                                         "es => es.map(e => [+e.dataset.seat, e.dataset.card])")
    assert shown == [list(hr.tricks[0].cards[0])]
    # two more cards with the button: the trick is complete, the winner highlighted
    browser.click("#b-next")
    browser.click("#b-next")
    win = browser.eval_on_selector_all("#trick .tcard.win", "es => es.map(e => +e.dataset.seat)")
    assert win == [hr.tricks[0].winner]
    browser.keyboard.press("ArrowLeft")
    assert browser.evaluate("document.querySelectorAll('#trick .tcard').length") == 2
    browser.keyboard.press("End")
    last = sum(1 + len(h.decisions) for h in record.hands) - 1
    assert browser.get_attribute("body", "data-step") == str(last)
    assert browser.text_content("#caption").endswith(
        ", ".join(f"{n} {p:+d}" for n, p in zip(HOSTILE, hr.points, strict=True)))
    names = browser.eval_on_selector_all(".seat .name", "es => es.map(e => e.textContent)")
    assert names == list(HOSTILE)
    assert browser.evaluate("document.querySelectorAll('script').length") == 2
    browser.keyboard.press("Home")
    assert browser.get_attribute("body", "data-step") == "0"


def test_frames_are_deltas_that_fill_forward(record):
    from arena.records.html_frames import delta_frames, full_frames
    data = page_data(record)
    for key in data["persp"]:
        deltas = data["views"][key]["frames"]
        full = full_frames(deltas)
        assert len(full) == len(data["steps"])
        assert all(f.keys() == full[0].keys() for f in full)
        assert delta_frames(full) == deltas
        assert sum(map(len, deltas)) < 0.6 * sum(map(len, full))  # most keys repeat
    # every play takes a card out of a hand: those deltas carry the hands; a contract does
    # not change them in sergeant-major (the kitty is taken before the contract)
    deltas = data["views"]["all"]["frames"]
    steps = list(zip(deltas, data["steps"], strict=True))
    assert all("hands" in f for f, s in steps if s["kind"] == "play")
    assert not any("hands" in f for f, s in steps if s["kind"] == "contract")
