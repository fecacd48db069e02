"""The live page's ETA (arena/web/eta.py) on known data, the refusal log's rate limit and the
caps (arena/web/guard.py), and the store's complete blocks."""

from __future__ import annotations

import logging

import pytest

from arena.web.eta import MIN_FINISHED, Eta, Finished, estimate

pytest.importorskip("uvicorn", reason="the web extra is not installed")

from arena.web.guard import Refusals, caps_for

FAST, SLOW = ("f1", "f2", "f3"), ("f1", "f2", "slow")


def _match(seats, start, ms_per_decision, overhead_ms=0.2, decisions=(50, 50, 50)):
    think = tuple(ms_per_decision[b] * d for b, d in zip(seats, decisions, strict=True))
    wall = (sum(think) + overhead_ms * sum(decisions)) / 1000
    return Finished(seats, decisions, think, start, start + wall)


def test_a_slow_pending_table_is_costed_by_its_slow_bot():
    """Six quick matches of fast bots, then six of a table with a bot 100 x slower: the
    recent pace would say seconds; the ETA counts the slow bot's measured think time."""
    ms = {"f1": 0.1, "f2": 0.1, "f3": 0.1, "slow": 10.0}
    done, t = [], 0.0
    for _ in range(6):
        m = _match(FAST, t, ms)
        done.append(m)
        t = m.ended
    done.append(_match(SLOW, t, ms))          # the slow bot measured in one match
    truth = 5 * done[-1].wall_s                # five such matches left, one at a time
    eta = estimate(done, [SLOW] * 5)
    assert eta is not None and not eta.lower_bound
    assert eta.low_s <= truth * 1.01 and eta.high_s >= truth * 0.99
    naive = 5 * (done[-1].ended - done[0].started) / (len(done) - 1)   # the old pace
    assert naive < truth / 2 < eta.low_s                     # the pace says a quarter


def test_an_unmeasured_bot_makes_a_lower_bound_and_few_matches_none():
    ms = {"f1": 1.0, "f2": 1.0, "f3": 1.0}
    done = [_match(FAST, 10.0 * i, ms) for i in range(MIN_FINISHED)]
    assert estimate(done[:MIN_FINISHED - 1], [FAST]) is None
    assert estimate(done, []) == Eta(0.0, 0.0)
    eta = estimate(done, [("f1", "f2", "newcomer")])
    assert eta is not None and eta.lower_bound and eta.unmeasured == ("newcomer",)


def test_parallel_matches_divide_the_time_left():
    ms = {"f1": 2.0, "f2": 2.0, "f3": 2.0}
    one = [_match(FAST, 0.0 + i * 0.301, ms) for i in range(6)]            # one at a time
    two = [_match(FAST, (i // 2) * 0.301, ms) for i in range(6)]           # two at a time
    a, b = estimate(one, [FAST] * 4), estimate(two, [FAST] * 4)
    assert a is not None and b is not None
    assert b.high_s == pytest.approx(a.high_s / 2, rel=0.05)


def test_refusals_are_logged_once_then_summarised(caplog):
    now = [0.0]
    r = Refusals(every_s=60, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="arena.web"):
        for _ in range(1000):
            r.note("event streams over the per-client cap (16)")
        now[0] = 30.0
        r.note("connections over the cap (256)")
        now[0] = 61.0
        r.note("event streams over the per-client cap (16)")
    lines = [rec.getMessage() for rec in caplog.records]
    assert lines == [
        "live page refused event streams over the per-client cap (16): 1",
        "live page refused connections over the cap (256): 1; event streams over the "
        "per-client cap (16): 1,000 (in the last 60 s)"]
    assert r.total["event streams over the per-client cap (16)"] == 1001


def test_caps_follow_the_descriptor_limit():
    assert caps_for(1024).connections == 256 and caps_for(1024).streams == 128
    assert caps_for(100).connections == 32 and caps_for(1 << 20).connections == 1024
    assert caps_for(1024).per_client == 16


def test_complete_blocks_are_those_with_every_seating_stored(tmp_path):
    import asyncio

    from arena.tournament.config import parse_config
    from arena.tournament.runner import run_tournament
    from arena.tournament.store import Store
    from tests.tournament.helpers import config_text, new_tag
    out = tmp_path / "t"
    asyncio.run(run_tournament(parse_config(config_text(tag=new_tag(), deals=2), "t.toml"),
                               out, progress=False))
    with Store(out / "results.sqlite") as store:
        rows = store.results()
        blocks = {r.block for r in rows}
        assert len(blocks) == 2 and store.complete_blocks() == blocks
        one = next(r for r in rows if r.block == sorted(blocks)[1])
        store.db.execute("DELETE FROM results WHERE match_id = ?", (one.match_id,))
        assert store.complete_blocks() == {sorted(blocks)[0]}


def test_a_stream_whose_client_left_at_once_frees_its_place(tmp_path):
    """Streams refused or broken before their first byte never keep a place under the
    per-client cap (ASGI calls with a client that is gone on the first send)."""
    import asyncio
    import contextlib

    from arena.events import EventBus
    from arena.web.app import create_app
    from arena.web.guard import Caps
    from arena.web.state import LiveState
    app = create_app(LiveState(tmp_path), EventBus(), live=False, caps=Caps(8, 4, 2))
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"},
             "http_version": "1.1", "method": "GET", "scheme": "http", "path": "/events",
             "raw_path": b"/events", "query_string": b"", "root_path": "", "headers": [],
             "client": ("10.0.0.7", 5000), "server": ("127.0.0.1", 8358)}

    async def receive():
        await asyncio.sleep(3600)

    async def gone(message):
        raise OSError("the client has gone")

    async def main() -> list[int]:
        for _ in range(5):
            with contextlib.suppress(Exception):
                await app(scope, receive, gone)
        statuses: list[int] = []

        async def first(message):
            if message["type"] == "http.response.start":
                statuses.append(message["status"])
                raise OSError("seen enough")
        for _ in range(3):                   # the cap of 2 holds for streams kept open...
            with contextlib.suppress(Exception):
                await app(scope, receive, first)
        return statuses
    assert asyncio.run(main()) == [200, 200, 200]   # ...and each left: its place is free


def test_a_batch_of_many_moves_sends_the_last_ones_the_page_keeps():
    """A fast match's 0.1 s batch can hold hundreds of moves; the page keeps the last
    LIVE_MOVES of a match, numbered by index, so the SSE message carries just those (the
    same page, a fraction of the encoding)."""
    import json

    from arena.events import DecisionApplied, DecisionsApplied
    from arena.web.app import event_message
    from arena.web.state import LIVE_MOVES
    moves = tuple(DecisionApplied("m1", i, 1 + i // 60, i % 3, "play", "QD") for i in range(100))
    text = event_message(DecisionsApplied("m1", moves), lambda: "")
    assert text is not None and text.startswith("event: decisions\ndata: ")
    sent = json.loads(text.split("data: ", 1)[1])["moves"]
    assert [m[0] for m in sent] == list(range(100 - LIVE_MOVES, 100))
    assert sent[-1] == [99, 2, 0, "play", "QD", None]
    short = event_message(DecisionsApplied("m1", moves[:5]), lambda: "")
    assert [m[0] for m in json.loads(short.split("data: ", 1)[1])["moves"]] == [0, 1, 2, 3, 4]
