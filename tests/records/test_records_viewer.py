"""The HTML replay viewer in a real browser (Playwright driving Debian's chromium), checked
against the rules engine replaying the same record: exact cards at a step reached by the slider
and by the move list, trick history winners, kitty and discards per perspective, the seat
switch hiding other hands, the exchange drawn as flying cards, and no console errors (the
``browser_page`` fixture fails a test on any). Also what a ``seat=S`` file may contain."""

from __future__ import annotations

import json
import re

import pytest

from arena.records import read_record, record_from_result, render_html, write_record
from arena.records.html import page_data
from arena.records.html_frames import full_frames
from arena.records.replayer import Replayer, deal_from_seats
from arena.records.verify import rules_of
from arena.rules import card_str, parse_action, parse_card

from .helpers import HOSTILE, FaultyPolicy, RandomPolicy, play
from arena.rules.view import view_of

SUIT = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
CARD_TEXT = re.compile(r"(?:10|[2-9JQKA])[\u2660\u2665\u2666\u2663]")


def shown(card: str) -> str:
    """How the page prints a card: ``10H`` -> ``10♥``."""
    return card[:-1] + SUIT[card[-1]]


def _record(tmp_path_factory, preset: str, seed: int):
    path = tmp_path_factory.mktemp("viewer") / f"{preset}.jsonl"
    write_record(record_from_result(play(preset, seed=seed, hand_cap=3, names=HOSTILE,
                                         match_id="m</script><b>1")), path)
    return read_record(path)


@pytest.fixture(scope="module")
def sm(tmp_path_factory):
    """sergeant-major, 3 hands: a demand-suit exchange in hands 2 and 3, kitty not shown."""
    rec = _record(tmp_path_factory, "sergeant-major", 21)
    assert rec.hands[1].exchange and rec.hands[1].declarer == 1 and rec.header.rules["deck"] == 52
    return rec


@pytest.fixture(scope="module")
def sc(tmp_path_factory):
    """six-contracts, 3 hands: kitty shown to all when taken, taken after the contract."""
    return _record(tmp_path_factory, "six-contracts", 5)


def page_of(record, tmp_path_factory, seat=None):
    path = tmp_path_factory.mktemp("page") / "replay.html"
    path.write_text(render_html(record, seat=seat), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def sm_page(sm, tmp_path_factory):
    return page_of(sm, tmp_path_factory)


@pytest.fixture(scope="module")
def sc_page(sc, tmp_path_factory):
    return page_of(sc, tmp_path_factory)


# ----- the oracle: the rules engine replaying the record --------------------------------------
def hand_start(record, hand: int) -> int:
    """Page step of hand ``hand``'s (1-based) "dealt" frame."""
    return sum(1 + len(hr.decisions) for hr in record.hands[:hand - 1])


def engine_at(record, step: int):
    """The engine state the page shows at ``step`` (not at a hand's last step: the engine has
    dealt the next hand by then)."""
    deals = {hr.hand: deal_from_seats(tuple(tuple(map(parse_card, hr.dealt[s]))
                                            for s in range(3)), hr.roles,
                                      tuple(map(parse_card, hr.kitty))) for hr in record.hands}
    rep = Replayer(rules_of(record), record.header.seed.to_seed(), deals)
    n = 0
    for hr in record.hands:
        if n == step:
            return rep.state
        n += 1
        for d in hr.decisions:
            rep.step(parse_action(d.action))
            if n == step:
                assert len(rep.state.completed_hands) < hr.hand, "a hand's last step"
                return rep.state
            n += 1
    raise ValueError(step)


def hand_cards(state, seat: int) -> list[str]:
    return sorted(card_str(c) for c in range(52) if state.hands[seat] >> c & 1)


# ----- reading the page -----------------------------------------------------------------------
def seat_cards(page, seat: int) -> list[str]:
    return sorted(page.eval_on_selector_all(f'#table .seat[data-seat="{seat}"] .cards .card',
                                            "es => es.map(e => e.dataset.card || '??')"))


def pile(page, which: str) -> list[str]:
    return page.eval_on_selector_all(f"#{which} .cards .card",
                                     "es => es.map(e => e.dataset.card || '??')")


def trick_shown(page) -> list[list]:
    return page.eval_on_selector_all("#trick .tcard",
                                     "es => es.map(e => [+e.dataset.seat, e.dataset.card])")


def step_of_page(page) -> int:
    return int(page.get_attribute("body", "data-step"))


def assert_table_is(page, record, step: int) -> None:
    """The three hands and the cards on the table at ``step`` are exactly the engine's."""
    st = engine_at(record, step)
    assert step_of_page(page) == step
    for s in range(3):
        assert seat_cards(page, s) == hand_cards(st, s), f"seat {s} at step {step}"
    assert trick_shown(page) == [[s, card_str(c)]
                                 for s, c in zip(st.trick_seats, st.trick, strict=True)]


def play_step(record, hand: int, trick: int, card: int) -> int:
    """Page step after card ``card`` (0..2) of trick ``trick`` (1-based) of ``hand``."""
    plays = [j for j, d in enumerate(record.hands[hand - 1].decisions) if d.kind == "play"]
    return hand_start(record, hand) + 1 + plays[3 * (trick - 1) + card]


# ----- tests ----------------------------------------------------------------------------------
def test_slider_jumps_to_the_exact_step(browser_page, sm, sm_page):
    page = browser_page
    page.goto(sm_page.as_uri())
    target = play_step(sm, 2, 4, 1)                  # mid-trick: two cards on the table
    n = int(page.get_attribute("#slider", "max")) + 1
    assert n == sum(1 + len(hr.decisions) for hr in sm.hands)
    box = page.locator("#slider").bounding_box()
    page.mouse.click(box["x"] + box["width"] * target / (n - 1), box["y"] + box["height"] / 2)
    near = step_of_page(page)
    assert abs(near - target) <= 3, (near, target)  # a mouse click lands near the target ...
    key = "ArrowRight" if near < target else "ArrowLeft"
    for _ in range(abs(target - near)):              # ... the slider's own keys finish the job
        page.keyboard.press(key)
    assert_table_is(page, sm, target)
    assert len(trick_shown(page)) == 2
    assert page.evaluate("location.hash") == f"#step={target}"
    assert page.text_content("#pos") == f"step {target} / {n - 1}"


def test_move_list_click_jumps_and_hides_future_moves(browser_page, sm, sm_page):
    page = browser_page
    start = hand_start(sm, 2)
    page.goto(sm_page.as_uri() + f"#step={start}")
    items = page.eval_on_selector_all("#moves li", "es => es.map(e => +e.dataset.step)")
    assert items == list(range(start, start + 1 + len(sm.hands[1].decisions)))
    # no spoilers: later moves name the seat and the kind of decision, never the card
    first_play = play_step(sm, 2, 1, 0)
    label = page.text_content(f'#moves li[data-step="{first_play}"] .mv')
    card = sm.hands[1].tricks[0].cards[0][1]
    assert card not in label and shown(card) not in label and label.endswith(": play")
    target = play_step(sm, 2, 3, 2)                  # completes trick 3
    page.click(f'#moves li[data-step="{target}"]')
    assert_table_is_after_trick(page, sm, 2, 3, target)
    assert page.text_content(f'#moves li[data-step="{first_play}"] .mv').endswith(
        f"plays {card}")
    cur = page.eval_on_selector_all("#moves li.cur", "es => es.map(e => +e.dataset.step)")
    assert cur == [target]
    page.focus(f'#moves li[data-step="{first_play}"]')   # keyboard users: Tab to it, Enter
    page.keyboard.press("Enter")
    assert_table_is(page, sm, first_play)


def assert_table_is_after_trick(page, record, hand: int, trick: int, step: int) -> None:
    done = record.hands[hand - 1].tricks[trick - 1]
    assert step_of_page(page) == step
    assert trick_shown(page) == [list(c) for c in done.cards]
    assert page.eval_on_selector_all("#trick .tcard.win", "es => es.map(e => +e.dataset.seat)") \
        == [done.winner]
    st = engine_at(record, step)
    assert [seat_cards(page, s) for s in range(3)] == [hand_cards(st, s) for s in range(3)]


def test_trick_history_lists_leaders_cards_and_winners(browser_page, sm, sm_page):
    page = browser_page
    hr = sm.hands[0]
    last = hand_start(sm, 2) - 1                     # the last step of hand 1
    page.goto(sm_page.as_uri() + f"#step={last}")
    rows = page.eval_on_selector_all("#tricks li[data-step]", """es => es.map(e => ({
        w: +e.dataset.winner, lead: e.querySelector('.who').textContent,
        cards: Array.from(e.querySelectorAll('.tc')).map(t =>
            [+t.dataset.seat, t.querySelector('.card').dataset.card])}))""")
    assert [r["w"] for r in rows] == [t.winner for t in hr.tricks]
    assert [r["cards"] for r in rows] == [[list(c) for c in t.cards] for t in hr.tricks]
    assert [r["lead"] for r in rows] == [f"{HOSTILE[t.leader]} led " for t in hr.tricks]
    assert len(rows) == 16
    # mid-hand only the completed tricks are listed; a row click jumps to its trick
    mid = play_step(sm, 1, 6, 1)
    page.goto(sm_page.as_uri() + f"#step={mid}")
    winners = page.eval_on_selector_all("#tricks li[data-step]",
                                        "es => es.map(e => +e.dataset.winner)")
    assert winners == [t.winner for t in hr.tricks[:5]]
    page.click("#tricks li[data-step]:nth-child(2)")
    assert_table_is_after_trick(page, sm, 1, 2, play_step(sm, 1, 2, 2))


def test_kitty_and_discards_per_perspective(browser_page, sm, sm_page):
    """sergeant-major: the kitty is seen only by the declarer who takes it; discards only by
    him; the all-cards view shows both, and the kitty cards in the declarer's hand."""
    page = browser_page
    hr = sm.hands[1]                                 # declarer: seat 1
    after = play_step(sm, 2, 1, 0)                   # discards done, first card led
    page.goto(sm_page.as_uri() + f"#step={after}")
    assert sorted(pile(page, "kitty")) == sorted(hr.kitty)
    assert sorted(pile(page, "discards")) == sorted(hr.discards)
    kept = sorted(set(hr.kitty) - set(hr.discards))
    marked = page.eval_on_selector_all('#table .seat[data-seat="1"] .card.kc',
                                       "es => es.map(e => e.dataset.card)")
    assert sorted(marked) == kept
    page.click('#persp button[data-view="1"]')       # the declarer saw both
    assert page.get_attribute("body", "data-view") == "1"
    assert sorted(pile(page, "kitty")) == sorted(hr.kitty)
    assert sorted(pile(page, "discards")) == sorted(hr.discards)
    for seat in (0, 2):                              # the others saw neither
        page.click(f'#persp button[data-view="{seat}"]')
        assert pile(page, "kitty") == ["??"] * 4 and pile(page, "discards") == ["??"] * 4
        played = {c for t in hr.tricks[:1] for _, c in t.cards[:1]}
        held = set(hr.dealt[seat]) | {e.card for e in hr.exchange if seat in (e.up, e.down)}
        hidden = (set(hr.kitty) | set(hr.discards)) - held - played
        assert hidden
        dom_cards = set(page.eval_on_selector_all("[data-card]",
                                                  "es => es.map(e => e.dataset.card)"))
        texts = set(CARD_TEXT.findall(page.inner_text("body")))
        assert not hidden & dom_cards and not {shown(c) for c in hidden} & texts
    # the hand's "dealt" step: in sergeant-major the declarer takes the kitty before any
    # decision, so 20 cards and a caption that says so
    page.click('#persp button[data-view="all"]')
    page.goto(sm_page.as_uri() + f"#step={hand_start(sm, 1)}")
    assert len(seat_cards(page, sm.hands[0].declarer)) == 20
    assert page.text_content("#caption").endswith(f"{HOSTILE[0]} takes the kitty")


def test_kitty_shown_to_all_once_taken(browser_page, sc, sc_page):
    """six-contracts shows the kitty to everybody once the declarer takes it (after the
    contract); discards stay the declarer's."""
    page = browser_page
    hr = sc.hands[0]
    other = next(s for s in range(3) if s != hr.declarer)
    start = hand_start(sc, 1)
    page.goto(sc_page.as_uri() + f"#step={start}&view={other}")
    assert page.get_attribute("body", "data-view") == str(other)
    assert pile(page, "kitty") == ["??"] * 4      # not taken yet: face down
    page.goto(sc_page.as_uri() + f"#step={start}")
    assert sorted(pile(page, "kitty")) == sorted(hr.kitty)  # all cards: face up, on the table
    assert "not taken yet" in page.text_content("#kitty .lbl")
    # the declarer chooses from his first 6 cards only: 6 seen, 10 face down
    page.click(f'#persp button[data-view="{hr.declarer}"]')
    mine = page.eval_on_selector_all(f'#table .seat[data-seat="{hr.declarer}"] .card',
                                     "es => es.map(e => e.dataset.card || '??')")
    assert len(mine) == 16 and mine.count("??") == 10
    assert sorted(c for c in mine if c != "??") == sorted(hr.dealt[hr.declarer][:6])
    after = play_step(sc, 1, 1, 0)
    page.goto(sc_page.as_uri() + f"#step={after}&view={other}")
    assert sorted(pile(page, "kitty")) == sorted(hr.kitty)
    assert pile(page, "discards") == ["??"] * 4


def test_seat_switch_hides_the_other_hands(browser_page, sm, sm_page):
    page = browser_page
    hand = 2
    step = play_step(sm, hand, 5, 1)
    st = engine_at(sm, step)
    page.goto(sm_page.as_uri() + f"#step={step}")
    assert [seat_cards(page, s) for s in range(3)] == [hand_cards(st, s) for s in range(3)]
    for me in range(3):
        page.click(f'#persp button[data-view="{me}"]')
        assert step_of_page(page) == step            # switching keeps the step
        assert page.evaluate("location.hash") == f"#step={step}&view={me}"
        assert seat_cards(page, me) == hand_cards(st, me)
        view = view_of(st, me)
        known = {card_str(e.card) for e in view.exchange_events if e.card is not None}
        dom_cards = set(page.eval_on_selector_all("[data-card]",
                                                  "es => es.map(e => e.dataset.card)"))
        texts = set(CARD_TEXT.findall(page.inner_text("body")))
        for other in (s for s in range(3) if s != me):
            assert seat_cards(page, other) == ["??"] * len(hand_cards(st, other))
            hidden = set(hand_cards(st, other)) - known
            assert hidden, "the test needs hidden cards"
            assert not hidden & dom_cards, (me, other, hidden & dom_cards)
            assert not {shown(c) for c in hidden} & texts, (me, other)
    # the seat's own position is at the bottom of the table
    assert "pos-bottom" in page.get_attribute('#table .seat[data-seat="2"]', "class")


#: records every card put in flight (added to <body> with class "fly"), whatever the timing
WATCH_FLIGHTS = """() => {
    window.flown = [];
    if (window.watching) return;  /* a #hash navigation keeps the document and its observer */
    window.watching = new MutationObserver(ms => ms.forEach(m => m.addedNodes.forEach(n => {
        if (n.classList && n.classList.contains("fly"))
            window.flown.push([n.dataset.card || n.textContent,
                               n.classList.contains("back") ? "back" : "card"]);
    })));
    window.watching.observe(document.body, {childList: true});
}"""


def test_exchange_cards_fly_between_hands(browser_page, sm, sm_page):
    page = browser_page
    hr = sm.hands[1]
    demand = hand_start(sm, 2) + 1                   # the first exchange decision: a demand
    ev = hr.exchange[0]
    assert ev.kind == "demand" and ev.card is not None
    page.goto(sm_page.as_uri() + f"#step={demand - 1}")
    page.evaluate(WATCH_FLIGHTS)
    page.keyboard.press("ArrowRight")
    assert step_of_page(page) == demand
    assert page.evaluate("window.flown") == [[ev.card, "card"]]
    got = page.eval_on_selector_all(f'#table .seat[data-seat="{ev.up}"] .card.got',
                                    "es => es.map(e => e.dataset.card)")
    assert got == [ev.card]
    page.wait_for_function("document.querySelectorAll('.fly').length === 0", timeout=5000)
    assert ev.card in seat_cards(page, ev.up) and ev.card not in seat_cards(page, ev.down)
    log = page.eval_on_selector_all("#exlog li", "es => es.map(e => e.textContent)")
    assert log == [f"{HOSTILE[ev.up]} demands {ev.suit} from {HOSTILE[ev.down]}: gets {ev.card}"]
    # seen by the seat not involved: a face-down card flies, its text never shows
    third = 3 - ev.up - ev.down
    page.goto(sm_page.as_uri() + f"#step={demand - 1}&view={third}")
    page.evaluate(WATCH_FLIGHTS)
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.flown") == [["??", "back"]]
    assert page.eval_on_selector_all("#exlog li", "es => es.map(e => e.textContent)") == [
        f"{HOSTILE[ev.up]} demands {ev.suit} from {HOSTILE[ev.down]}: gets ??"]


def test_keyboard_buttons_chart_and_hostile_names(browser_page, sm, sm_page):
    page = browser_page
    start = hand_start(sm, 2)
    page.goto(sm_page.as_uri() + f"#step={start}")
    page.keyboard.press("PageDown")
    assert step_of_page(page) == hand_start(sm, 3)
    page.keyboard.press("PageUp")
    assert step_of_page(page) == start
    page.keyboard.press("ArrowRight")
    page.click("#b-next")
    assert step_of_page(page) == start + 2
    page.keyboard.press("End")
    last = sum(1 + len(hr.decisions) for hr in sm.hands) - 1
    assert step_of_page(page) == last
    pts = ", ".join(f"{n} {p:+d}" for n, p in zip(HOSTILE, sm.hands[-1].points, strict=True))
    assert page.text_content("#caption").endswith(f"hand over: {pts}")
    # the score chart: one line per seat through every hand's score; the marker on the last hand
    lines = page.eval_on_selector_all("#chart polyline",
                                      "es => es.map(e => e.getAttribute('points'))")
    assert len(lines) == 3 and all(len(pts.split()) == len(sm.hands) + 1 for pts in lines)
    titles = page.eval_on_selector_all("#chart circle title", "es => es.map(e => e.textContent)")
    for s in range(3):
        assert f"{HOSTILE[s]}: {sm.result.scores[s]} after hand {len(sm.hands)}" in titles
    data = page_data(sm)
    assert float(page.get_attribute("#chart-cur", "x1")) == data["chart"]["x"][-1]
    # hostile names are text, never markup
    assert page.eval_on_selector_all("#table .seat .name", "es => es.map(e => e.textContent)") \
        == list(HOSTILE)
    assert page.evaluate("document.querySelectorAll('script').length") == 2
    assert page.evaluate("document.querySelectorAll('#table b, #moves b, #tricks b').length") == 0
    assert page.text_content("h1") == "358 Arena replay: m</script><b>1"
    page.keyboard.press("Home")
    assert step_of_page(page) == 0


# ----- what the file holds (no browser) --------------------------------------------------------
def _blob(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="replay-data">(.*?)'
                                r'</script>', html, re.S).group(1))


@pytest.mark.parametrize("seat", [0, 2])
def test_seat_file_holds_only_that_seats_knowledge(sm, seat):
    """In hand 2 seat 1 declares; seat 0 and 2 never see the kitty or the discards, so a
    ``seat=S`` file never names a discard S never held, nor another seat's dealt card before
    it was played or exchanged with S."""
    html = render_html(sm, seat=seat)
    data = _blob(html)
    assert data["persp"] == [str(seat)] and list(data["views"]) == [str(seat)]
    assert 'data-view="all"' not in html
    view = data["views"][str(seat)]
    start = hand_start(sm, 2)
    hr = sm.hands[1]
    frames = full_frames(view["frames"])[start:start + 1 + len(hr.decisions)]
    text = json.dumps(frames) + json.dumps(view["moves"][start:start + len(frames)]) + \
        json.dumps(view["exchange"][1])
    held = set(hr.dealt[seat]) | {e.card for e in hr.exchange if seat in (e.up, e.down)}
    for card in set(hr.discards) - held:
        assert f'"{card}"' not in text and f" {card}" not in text, card
    # frame by frame, another seat's cards are never listed
    for f in frames:
        assert all(f["hands"][s] is None for s in range(3) if s != seat)
        assert f["kitty"] is None and f["discards"] is None


def test_no_raw_control_characters(tmp_path):
    names = ("esc\x1b[31mred", "bell\x07", "bidi\u202eevil")
    rec = record_from_result(play("sergeant-major", seed=3, hand_cap=1, names=names,
                                  match_id="id\x1b]0;title\x07"))
    html = render_html(rec)
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u202e]", html)
    assert _blob(html)["names"][0] == "esc\\u001b[31mred"


@pytest.fixture(scope="module")
def faulty():
    """One hand where seat 0 answers an illegal move (its 7th decision) and raises (9th)."""
    policies = [FaultyPolicy(1, illegal_at=[7], raise_at=[9]), RandomPolicy(2), RandomPolicy(3)]
    return record_from_result(play("sergeant-major", seed=8, hand_cap=1, names=HOSTILE,
                                   policies=policies))


def test_faults_and_think_times_in_the_move_list(browser_page, faulty, tmp_path_factory):
    """A fault shows on its move (kind, detail on hover) in the all-cards view and in the
    faulting seat's view only; every asked decision shows the bot's think time."""
    rec = faulty
    faults = [(j, d) for j, d in enumerate(rec.hands[0].decisions) if d.fault]
    assert [d.fault for _, d in faults] == ["illegal", "error"] and faults[0][1].seat == 0
    path = page_of(rec, tmp_path_factory)
    page = browser_page
    last = len(rec.hands[0].decisions)
    page.goto(path.as_uri() + f"#step={last}")
    badges = page.eval_on_selector_all("#moves li .fault", """es => es.map(e =>
        [+e.closest('li').dataset.step, e.textContent, e.title])""")
    assert badges == [[1 + j, f"FAULT {d.fault}", d.detail] for j, d in faults]
    assert "boom <b>9</b>" in badges[1][2]          # the bot's text, as text
    ms = page.eval_on_selector_all("#moves li", """es => es.map(e =>
        e.querySelector('.ms') ? e.querySelector('.ms').textContent : null)""")
    want = [None] + [f"{d.think_ms / 1000:.2f} s" if d.think_ms is not None else None
                     for d in rec.hands[0].decisions]
    assert ms == want
    page.click('#persp button[data-view="0"]')
    assert page.eval_on_selector_all("#moves li .fault", "es => es.length") == 2
    page.click('#persp button[data-view="1"]')
    assert page.eval_on_selector_all("#moves li .fault", "es => es.length") == 0
    # before the faulty decision the move list does not tell it is coming
    page.goto(path.as_uri() + f"#step={faults[0][0]}")
    assert page.eval_on_selector_all("#moves li .fault", "es => es.length") == 0


PRESETS = ("sergeant-major", "nine-five-two", "six-three-eight", "six-contracts", "blato")


@pytest.fixture(scope="module")
def preset_pages(tmp_path_factory):
    """One 2-hand match per preset (hand 2 has an exchange where the preset has one)."""
    out = {}
    for i, preset in enumerate(PRESETS):
        rec = record_from_result(play(preset, seed=30 + i, hand_cap=2, names=HOSTILE))
        out[preset] = (rec, page_of(rec, tmp_path_factory))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_every_step_of_every_perspective_renders(browser_page, preset_pages, preset):
    """Walk every step forward in each perspective (keys dispatched in the page): no script
    error, the step and the hand follow, and in a seat view the other two hands are face down
    at every step with the engine's hand sizes."""
    rec, path = preset_pages[preset]
    page = browser_page
    n = sum(1 + len(hr.decisions) for hr in rec.hands)
    hand_of = [hr.hand for hr in rec.hands for _ in range(1 + len(hr.decisions))]
    for view in ("all", "0", "1", "2"):
        page.goto(path.as_uri() + f"#step=0&view={view}")
        seen = page.evaluate("""([n, view]) => {
            const out = [];
            for (let i = 0; i < n; i++) {
              const seats = [0, 1, 2].map(s => {
                const cs = document.querySelectorAll(`#table .seat[data-seat="${s}"] .card`);
                return [cs.length, Array.from(cs).filter(c => c.dataset.card).length];
              });
              out.push([+document.body.dataset.step, +document.body.dataset.hand, seats]);
              document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight"}));
            }
            return out;
        }""", [n, view])
        assert [s for s, _, _ in seen] == list(range(n))
        assert [h for _, h, _ in seen] == hand_of
        if view != "all":
            me = int(view)
            for step, _, seats in seen:
                for s in range(3):
                    if s != me:
                        assert seats[s][1] == 0, (view, step, s)
        for step in (1, n // 2, n - 2):              # hand sizes are the engine's
            st = engine_at(rec, step)
            if seen[step][1] == hand_of[step + 1]:  # not a hand's last step
                assert [c for c, _ in seen[step][2]] == [st.hands[s].bit_count()
                                                        for s in range(3)]


# ----- no spoilers: the seats table and the score chart show only what happened so far --------
def seats_table(page) -> list[dict]:
    return page.eval_on_selector_all("#seats tr[data-seat]", """rs => rs.map(r => {
        const o = {}; r.querySelectorAll('[data-col]').forEach(c =>
            o[c.dataset.col] = c.textContent); return o; })""")


def chart_state(page) -> tuple[list[int], list[str]]:
    """Points per polyline and the dots' titles of the score chart."""
    points = page.eval_on_selector_all(
        "#chart polyline", "es => es.map(e => e.getAttribute('points').split(' ').length)")
    titles = page.eval_on_selector_all("#chart circle title", "es => es.map(e => e.textContent)")
    return points, titles


def test_seats_table_and_chart_show_nothing_of_the_future(browser_page, sm, sm_page):
    page = browser_page
    page.goto(sm_page.as_uri())                       # step 0: nothing played yet
    rows = seats_table(page)
    assert [r["place"] for r in rows] == ["-", "-", "-"]
    assert [r["score"] for r in rows] == ["0", "0", "0"]
    assert [r["think"] for r in rows] == ["0.00"] * 3 and [r["per"] for r in rows] == ["-"] * 3
    points, titles = chart_state(page)
    assert points == [1, 1, 1] and not any("after hand" in t for t in titles)
    # the score axis is scaled to what is shown (0 and 1 at the start), not to the final scores
    ticks = page.eval_on_selector_all("#chart-grid text", "es => es.map(e => e.textContent)")
    assert ticks == ["0", "1"]
    assert sm.header.end_reason not in page.text_content("#ending")   # nor how it ends

    # mid hand 3: the scores after hand 2, the think time of the decisions so far
    mid = play_step(sm, 3, 2, 0)
    page.goto(sm_page.as_uri() + f"#step={mid}")
    rows = seats_table(page)
    assert [int(r["score"]) for r in rows] == list(sm.hands[1].scores)
    assert [r["place"] for r in rows] == ["-", "-", "-"]
    done = [d for hr in sm.hands[:2] for d in hr.decisions] + \
        sm.hands[2].decisions[:mid - hand_start(sm, 3)]
    for s in range(3):
        ms = sum(d.think_ms for d in done if d.seat == s and d.think_ms is not None)
        assert rows[s]["think"] == f"{ms / 1000:.2f}"
    points, titles = chart_state(page)
    assert points == [3, 3, 3]
    assert f"{HOSTILE[0]}: {sm.hands[1].scores[0]} after hand 2" in titles
    assert not any("after hand 3" in t for t in titles)

    # the last step: the match's own totals and places
    page.keyboard.press("End")
    rows = seats_table(page)
    assert [int(r["place"]) for r in rows] == list(sm.result.placings)
    assert [int(r["score"]) for r in rows] == list(sm.result.scores)
    assert [int(r["faults"]) for r in rows] == [s.faults for s in sm.header.seats]
    assert [r["think"] for r in rows] == [f"{s.think_ms / 1000:.2f}" for s in sm.header.seats]
    assert page.text_content("#ending") == (f"termination {sm.header.termination} "
                                            f"({sm.header.end_reason})")


def test_fault_counts_grow_with_the_steps(browser_page, faulty, tmp_path_factory):
    path = page_of(faulty, tmp_path_factory)
    first = next(j for j, d in enumerate(faulty.hands[0].decisions) if d.fault)
    page = browser_page
    page.goto(path.as_uri() + f"#step={first}")      # the step before the first fault
    assert seats_table(page)[0]["faults"] == "0"
    page.keyboard.press("ArrowRight")
    assert seats_table(page)[0]["faults"] == "1"


def test_trick_list_scrolls_to_the_current_trick(browser_page, sm, sm_page):
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 700})
    last = hand_start(sm, 2) - 1                       # hand 1's last step: all 16 tricks
    page.goto(sm_page.as_uri() + f"#step={play_step(sm, 1, 2, 2)}")
    page.goto(sm_page.as_uri() + f"#step={last}")
    page.wait_for_function(f"document.body.dataset.step === '{last}'")

    def in_view(selector: str) -> bool:
        return page.evaluate("""s => { const li = document.querySelector(s);
            const l = li.parentElement.getBoundingClientRect(), r = li.getBoundingClientRect();
            return r.top >= l.top - 1 && r.bottom <= l.bottom + 1; }""", selector)

    assert page.evaluate("document.getElementById('tricks').scrollHeight > "
                         "document.getElementById('tricks').clientHeight")   # it must scroll
    assert in_view("#tricks li:last-child")
    assert page.evaluate("window.scrollY") == 0        # the list scrolled, not the window
    # back to trick 2: the list follows it
    page.goto(sm_page.as_uri() + f"#step={play_step(sm, 1, 2, 2)}")
    assert in_view("#tricks li.cur")
