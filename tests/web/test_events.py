"""The event bus (arena.events): bounded per-subscriber queues, a resync marker instead of the
dropped backlog when a subscriber falls behind, listeners called first, publish never waits."""

from __future__ import annotations

import asyncio

import pytest

from arena.events import (RESYNC, DecisionApplied, DecisionFeed, DecisionsApplied, EventBus,
                          MatchFinished, MatchStarted, action_text, decision_hook)
from arena.match.runner import DecisionLog
from arena.rules import action_str


def _decision(i: int) -> DecisionsApplied:
    """A batch of one decision, index ``i``."""
    return DecisionsApplied("m1", (DecisionApplied("m1", i, 1, i % 3, "play", "AS"),))


def _index(event) -> int:
    return event.moves[0].index


def test_events_reach_every_subscriber_in_order():
    async def main():
        bus = EventBus(maxsize=8)
        a, b = bus.subscribe(), bus.subscribe()
        bus.publish(MatchStarted("m1", ("x", "y", "z")))
        bus.publish(_decision(0))
        got_a = [await a.get(1), await a.get(1)]
        got_b = [await b.get(1), await b.get(1)]
        return got_a, got_b, await a.get(0.01)
    got_a, got_b, nothing = asyncio.run(main())
    assert got_a == got_b == [MatchStarted("m1", ("x", "y", "z")), _decision(0)]
    assert nothing is None


def test_a_slow_subscriber_is_bounded_and_gets_a_resync_marker():
    async def main():
        bus = EventBus(maxsize=4)
        slow, fast = bus.subscribe(), bus.subscribe(maxsize=100)
        for i in range(4):
            bus.publish(_decision(i))
        assert slow.pending() == 4 and slow.overflows == 0
        bus.publish(_decision(4))          # the fifth does not fit: backlog dropped
        assert slow.pending() == 1 and slow.overflows == 1
        first = await slow.get(1)
        bus.publish(_decision(5))          # the stream continues after the marker
        after = await slow.get(1)
        fast_got = [await fast.get(1) for _ in range(6)]
        return first, after, fast_got
    first, after, fast_got = asyncio.run(main())
    assert first is RESYNC
    assert after == _decision(5)
    assert [_index(e) for e in fast_got] == [0, 1, 2, 3, 4, 5]   # others are unaffected


def test_publish_never_waits_and_memory_stays_bounded_without_readers():
    async def main():
        bus = EventBus(maxsize=16)
        subs = [bus.subscribe() for _ in range(50)]
        for i in range(10_000):
            bus.publish(_decision(i))
        return [s.pending() for s in subs], [s.overflows for s in subs]
    pending, overflows = asyncio.run(main())
    assert max(pending) <= 16
    assert min(overflows) >= 10_000 // 16 - 1


def test_closed_subscribers_are_forgotten_and_listeners_run_first():
    async def main():
        bus = EventBus(maxsize=4)
        seen = []
        bus.listen(lambda e: seen.append(("listener", _index(e))))
        with bus.subscribe() as sub:
            assert bus.subscribers == 1
            bus.publish(_decision(0))
            seen.append(("subscriber", _index(await sub.get(1))))
        assert bus.subscribers == 0
        bus.publish(_decision(1))
        return seen
    assert asyncio.run(main()) == [("listener", 0), ("subscriber", 0), ("listener", 1)]


def test_bad_queue_size_is_refused():
    with pytest.raises(ValueError, match="at least 2"):
        EventBus(maxsize=1)


def test_decision_hook_publishes_start_then_public_moves():
    events = []
    hook = decision_hook(events.append, "m7", ("a", "b", "c"))
    card = 12
    hook(DecisionLog(1, 2, "play", card, 3.5))       # no event loop runs: published at once
    hook(DecisionLog(1, 0, "discard", card, 1.0))
    hook(DecisionLog(2, 1, "play", card, 2.0, "timeout", "late", True))
    assert events[0] == MatchStarted("m7", ("a", "b", "c"))
    assert events[1] == DecisionsApplied("m7", (
        DecisionApplied("m7", 0, 1, 2, "play", action_str(card), None, 3.5),))
    assert events[2].moves[0].action == "a card"          # a discard stays private
    third = events[3].moves[0]
    assert (third.index, third.hand, third.fault) == (2, 2, "timeout")
    assert decision_hook(None, "m7", ("a", "b", "c")) is None
    assert action_text("exchange-give", card) == "a card"
    assert action_text("play", card) == action_str(card)


def test_a_running_match_publishes_its_decisions_in_batches():
    """One event per batch_s, not per decision; indices run on across batches; close()
    publishes what is held at once (before the runner's MatchFinished) and stops the timer."""
    async def main() -> list:
        events: list = []
        feed = DecisionFeed(events.append, "m1", batch_s=0.05)
        for k in range(5):
            feed(DecisionLog(1, k % 3, "play", 12))
        assert events == []                        # held: nothing published yet
        await asyncio.sleep(0.2)
        assert len(events) == 1                    # one batch of five
        feed(DecisionLog(1, 2, "play", 13))
        feed(DecisionLog(2, 0, "discard", 14))
        feed.close()                               # the match ended: at once
        events.append(MatchFinished("m1", ("a", "b", "c"), (1, 2, 3), (0, 0, 0), "r"))
        await asyncio.sleep(0.2)                   # the cancelled timer publishes nothing
        return events
    events = asyncio.run(main())
    assert [type(e).__name__ for e in events] == ["DecisionsApplied", "DecisionsApplied",
                                                  "MatchFinished"]
    assert [m.index for m in events[0].moves] == [0, 1, 2, 3, 4]
    assert [(m.index, m.kind, m.action) for m in events[1].moves] == [
        (5, "play", action_str(13)), (6, "discard", "a card")]


def test_log_tails_are_escaped_and_never_show_a_token(tmp_path):
    import secrets

    from arena.web.state import LiveState
    token = secrets.token_hex(16)
    (tmp_path / "logs").mkdir()
    state = LiveState(tmp_path, secrets=("a-long-remote-secret",))
    state.log_path("evil").write_bytes(
        b"x" * 5000 + b"\nmy token is " + token.encode() + b"\n\x1b[2Jcleared \xe2\x80\xaeevil\n"
        b"remote a-long-remote-secret here\n")
    tail = state.log_tail("evil")
    assert token not in tail and "a-long-remote-secret" not in tail
    assert tail.splitlines() == ["my token is [redacted]", "\\u001b[2Jcleared \\u202eevil",
                                 "remote [redacted] here"]
    assert state.log_tail("absent") == ""


def test_web_extra_missing_is_a_one_line_error(monkeypatch):
    import sys

    from arena.errors import UserError
    from arena.web import require_web
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    with pytest.raises(UserError, match=r"pip install 'arena358\[web\]'"):
        require_web()


def _feed_match(hide_cards: bool, preset: str = "sergeant-major", seed: int = 21):
    """A real 3-hand match in-process whose feed publishes after every decision (batch 0)
    with the table read from the match's state; returns (record, events)."""
    from arena.match import LocalBot, MatchSpec, run_match
    from arena.records import record_from_result
    from arena.rules import make_config
    from tests.records.helpers import RandomPolicy
    cfg = make_config(preset, hand_cap=3)
    events: list = []
    spec = MatchSpec("m1", cfg, seed=seed)

    async def main():
        hook = decision_hook(events.append, "m1", ("a", "b", "c"), hide_cards=hide_cards)
        hook.batch_s = 0
        bots = [LocalBot(RandomPolicy(i + 7), n) for i, n in enumerate("abc")]
        out = await run_match(spec, bots, on_decision=hook, watch=hook.watch)
        hook.close()
        return out
    return record_from_result(asyncio.run(main())), events


def test_each_batch_carries_the_public_table_of_the_record():
    """Batch by batch (one decision each), the table matches the record: the cards on the
    table as played, each completed trick as the last trick with its winner, tricks won so
    far, the match scores after each hand, the contract once chosen, whose turn."""
    rec, events = _feed_match(hide_cards=False)
    assert events[0] == MatchStarted("m1", ("a", "b", "c"), False)
    batches = events[1:]
    moves = [m for b in batches for m in b.moves]
    assert len(batches) == len(moves) == sum(len(hr.decisions) for hr in rec.hands)
    k = 0
    for h, hr in enumerate(rec.hands):
        plays = 0
        for j, d in enumerate(hr.decisions):
            t = batches[k].table
            k += 1
            last_of_hand = j == len(hr.decisions) - 1
            if d.kind == "play":
                plays += 1
                done, on_table = divmod(plays, 3)
                if not last_of_hand:
                    assert t.hand == hr.hand and t.contract == hr.contract
                    assert t.won == tuple(sum(tr.winner == s for tr in hr.tricks[:done])
                                          for s in range(3))
                    cur = hr.tricks[done].cards[:on_table] if on_table else []
                    assert [list(c) for c in t.trick] == [list(c) for c in cur]
                if on_table == 0:     # a trick completed: it is the last trick
                    tr = hr.tricks[done - 1]
                    assert t.last_trick == (tr.leader, tuple(tuple(c) for c in tr.cards),
                                            tr.winner)
            if last_of_hand:          # the next hand is dealt (or the match is over)
                assert t.scores == tuple(hr.scores)
                nxt = rec.hands[h + 1] if h + 1 < len(rec.hands) else None
                assert t.hand == (nxt.hand if nxt else hr.hand)
                assert t.to_act == (nxt.decisions[0].seat if nxt else None)
            else:
                assert t.to_act == hr.decisions[j + 1].seat
            assert t.need == tuple(hr.limits if hr.contract == "misere" else hr.targets) \
                or last_of_hand


def test_with_a_remote_bot_no_card_nor_choice_is_published():
    rec, events = _feed_match(hide_cards=True)
    assert events[0].hidden is True
    moves = [m for b in events[1:] for m in b.moves]
    assert {m.action for m in moves if m.kind in ("play", "discard", "exchange-give")} == \
        {"a card"}
    assert {m.action for m in moves if m.kind == "contract"} == {"a contract"}
    assert {m.action for m in moves if m.kind == "exchange-demand"} <= {"a demand"}
    cards = {c for b in events[1:] for _, c in b.table.trick} | {
        c for b in events[1:] if b.table.last_trick for _, c in b.table.last_trick[1]}
    assert cards == {"a card"}
    assert {b.table.contract for b in events[1:]} <= {None, "a contract"}
    # the counts stay: tricks won and scores as in the record
    assert events[-1].table.scores == tuple(rec.hands[-1].scores)
    text = repr(events)
    for hr in rec.hands:
        for tr in hr.tricks:
            for _, card in tr.cards:
                assert f"'{card}'" not in text
