"""The match runner with in-process bots: validation, faults, forfeits, fallback, time bank."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from arena.match import (Bot, BotFault, LocalBot, MatchSpec, fallback_action,
                         placings_with_forfeits, run_match)
from arena.rules import MatchState, make_config


class RandomPolicy:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def decide(self, view):
        return self.rng.choice(view.legal_actions)


class ScriptedPolicy(RandomPolicy):
    """Random play, but answers ``bad`` on the decision numbers in ``when`` (1-based)."""

    def __init__(self, bad, when) -> None:
        super().__init__(0)
        self.bad, self.when, self.n = bad, set(when), 0

    def decide(self, view):
        self.n += 1
        if self.n in self.when:
            if isinstance(self.bad, BaseException):
                raise self.bad
            return self.bad
        return super().decide(view)


class SleepyPolicy(RandomPolicy):
    def __init__(self, seconds: float) -> None:
        super().__init__(0)
        self.seconds = seconds

    def decide(self, view):
        time.sleep(self.seconds)
        return super().decide(view)


class GoneBot(Bot):
    name = "gone"

    def __init__(self, after: int) -> None:
        self.after, self.n = after, 0

    async def decide(self, request):
        self.n += 1
        if self.n > self.after:
            raise BotFault("disconnect", "stream closed")
        return request.view.legal_actions[0]


def play(bots, **kw):
    spec = MatchSpec("m", make_config(hand_cap=kw.pop("hand_cap", 2)), seed=kw.pop("seed", 3),
                     **kw)
    return asyncio.run(run_match(spec, bots))


def randoms(n=3):
    return [LocalBot(RandomPolicy(i), f"r{i}") for i in range(n)]


def test_clean_match_matches_a_direct_engine_replay():
    res = play(randoms())
    assert res.faults == (0, 0, 0) and res.forfeited == (False,) * 3
    assert res.placings == res.state.placings and res.termination == "normal"
    replay = MatchState.new(make_config(hand_cap=2), seed=3)
    for d in res.decisions:
        assert replay.current_seat == d.seat and replay.decision.value == d.kind
        replay.apply(d.action)
    assert replay.finished and replay.scores == res.state.scores
    assert sum(res.decisions_asked) == len(res.decisions)


def test_illegal_answers_are_faults_then_forfeit():
    bots = [*randoms(2), LocalBot(ScriptedPolicy(999, {1, 2, 3, 4}), "bad")]
    res = play(bots, max_faults=3)
    faults = [d for d in res.decisions if d.fault]
    assert [(d.seat, d.fault, d.answer, d.fallback) for d in faults] == [
        (2, "illegal", "999", True)] * 3
    assert res.forfeited == (False, False, True)
    assert res.forfeit_reasons[2] == "3 faults (last: illegal)"
    assert res.placings[2] == 3 and res.decisions_asked[2] == 3   # never asked again
    assert res.termination == "forfeit"


def test_error_and_malformed_are_faults_without_forfeit_below_the_limit():
    bots = [*randoms(2), LocalBot(ScriptedPolicy(ValueError("boom"), {2}), "err")]
    res = play(bots)
    assert [(d.fault, d.detail) for d in res.decisions if d.fault] == [
        ("error", "ValueError: boom")]
    bots = [*randoms(2), LocalBot(ScriptedPolicy("AS", {1}), "str")]
    res = play(bots)
    f = [d for d in res.decisions if d.fault]
    assert [(d.fault, d.answer) for d in f] == [("malformed", "'AS'")]
    assert res.forfeited == (False, False, False)


def test_timeout_uses_the_fallback():
    bots = [*randoms(2), LocalBot(SleepyPolicy(0.08), "slow", threaded=True)]
    res = play(bots, hand_cap=1, time_ms=10, grace_ms=20, max_faults=2)
    faults = [d for d in res.decisions if d.fault]
    assert [d.fault for d in faults] == ["timeout", "timeout"] and res.forfeited[2]
    assert "no answer within 10 ms + 20 ms grace" in faults[0].detail


def test_time_bank_absorbs_slow_decisions():
    bots = [*randoms(2), LocalBot(SleepyPolicy(0.06), "slow", threaded=True)]
    res = play(bots, hand_cap=1, time_ms=10, grace_ms=20, time_bank_ms=2000, max_faults=99)
    seat2 = [d for d in res.decisions if d.seat == 2 and d.think_ms is not None]
    assert all(d.fault is None for d in seat2[:5])       # the bank pays for the overage
    no_bank = play(bots, hand_cap=1, time_ms=10, grace_ms=20, max_faults=99)
    first = next(d for d in no_bank.decisions if d.seat == 2 and d.think_ms is not None)
    assert first.fault == "timeout"


def test_disconnect_forfeits_at_once_and_others_finish():
    res = play([*randoms(2), GoneBot(after=4)])
    assert res.forfeited == (False, False, True)
    assert res.forfeit_reasons[2].startswith("disconnect")
    assert res.faults[2] == 1 and res.state.finished and res.placings[2] == 3


def test_fallback_is_deterministic():
    legal = list(range(10))
    assert fallback_action(b"s", 7, legal) == fallback_action(b"s", 7, legal)
    picks = {fallback_action(b"s", i, legal) for i in range(60)}
    assert len(picks) > 5
    bots = [*randoms(2), LocalBot(ScriptedPolicy(999, set(range(1, 100))), "bad")]
    a = play(bots, max_faults=1)
    bots = [*randoms(2), LocalBot(ScriptedPolicy(999, set(range(1, 100))), "bad")]
    b = play(bots, max_faults=1)
    assert [d.action for d in a.decisions] == [d.action for d in b.decisions]


@pytest.mark.parametrize("placings,forfeited,expected", [
    ((1, 2, 3), (False, False, False), (1, 2, 3)),
    ((1, 2, 3), (True, False, False), (3, 1, 2)),
    ((1, 1, 3), (False, True, False), (1, 3, 2)),
    ((1, 2, 3), (True, True, False), (2, 2, 1)),
])
def test_placings_with_forfeits(placings, forfeited, expected):
    assert placings_with_forfeits(placings, forfeited) == expected


def test_wrong_number_of_bots():
    with pytest.raises(ValueError, match="a match needs 3 bots"):
        play(randoms(2))


class TimeRecorder(Bot):
    """Answers the first legal action after ``sleep_s``; records each request's ``time_ms``."""

    def __init__(self, name: str, sleep_s: float = 0.0) -> None:
        self.name, self.sleep_s, self.times = name, sleep_s, []
        self.ends = []

    async def decide(self, request):
        self.times.append(request.time_ms)
        await asyncio.sleep(self.sleep_s)
        return request.view.legal_actions[0]

    async def end_match(self, info):
        self.ends.append(info)


def test_time_bank_requests_carry_whole_milliseconds():
    """A partly used bank must still give integer ``time_ms`` (the protocol's
    int32), shrinking by the measured overrun."""
    slow = TimeRecorder("slow", 0.03)
    play([TimeRecorder("a"), TimeRecorder("b"), slow], hand_cap=1, time_ms=10, grace_ms=50,
         time_bank_ms=1000, max_faults=99)
    assert all(type(t) is int for t in slow.times)
    assert slow.times[0] == 1010 and slow.times[-1] < slow.times[1] < 1010


@pytest.mark.parametrize("bad_seat", [0, 1, 2])
def test_match_end_tells_the_recorded_placings_and_the_forfeit(bad_seat):
    """MatchEnd carries the forfeit-adjusted placings (the recorded ones) and a
    reason naming the forfeit."""
    bots = [TimeRecorder(f"r{i}") for i in range(3)]
    bots[bad_seat] = LocalBot(ScriptedPolicy(999, set(range(1, 100))), "bad")
    res = play(bots, max_faults=2)
    assert res.forfeited[bad_seat] and res.placings[bad_seat] == 3
    for i, b in enumerate(bots):
        if i == bad_seat:
            continue
        (end,) = b.ends
        assert end.placings == res.placings
        assert end.reason == f"forfeit by seat {bad_seat}; {res.state.end_reason}"
    clean = [TimeRecorder(f"r{i}") for i in range(3)]
    res = play(clean)
    assert clean[0].ends[0].reason == res.state.end_reason and \
        clean[0].ends[0].placings == res.placings


# ----- typed faults and forfeits ------------------------------------------

def test_fault_kinds_are_the_recorded_strings():
    from arena.match import FAULT_KINDS, FaultKind
    assert FAULT_KINDS == ("illegal", "timeout", "malformed", "error", "disconnect")
    assert FaultKind("timeout") is FaultKind.TIMEOUT and f"{FaultKind.ILLEGAL}" == "illegal"
    assert BotFault("disconnect", "x").kind is FaultKind.DISCONNECT
    with pytest.raises(ValueError):   # no "crash" kind: a crash is a disconnect
        BotFault("crash", "x")


def test_forfeits_are_typed_and_keep_their_recorded_text():
    from arena.match import FaultKind, Forfeit
    bots = [*randoms(2), LocalBot(ScriptedPolicy(999, {1, 2, 3}), "bad")]
    res = play(bots, max_faults=3)
    assert res.forfeits == (None, None, Forfeit(FaultKind.ILLEGAL, "3 faults (last: illegal)"))
    assert str(res.forfeits[2]) == res.forfeit_reasons[2] == "3 faults (last: illegal)"
    slow = [*randoms(2), LocalBot(SleepyPolicy(0.08), "slow", threaded=True)]
    res = play(slow, hand_cap=1, time_ms=10, grace_ms=20, max_faults=2)
    assert res.forfeits[2] == Forfeit(FaultKind.TIMEOUT, "2 faults (last: timeout)")
    res = play([*randoms(2), GoneBot(after=4)])
    assert res.forfeits[2] == Forfeit(FaultKind.DISCONNECT, "disconnect: stream closed")


class AbsentBot(Bot):
    """A bot gone before the match (as the pool's UnavailableBot): never asked."""

    name = "absent"

    def __init__(self, reason: str | None) -> None:
        self.gone_reason = reason

    @property
    def alive(self) -> bool:
        return False

    async def decide(self, request):
        raise AssertionError("never asked")


@pytest.mark.parametrize(("reason", "text"), [
    ("disqualified after 3 crashes", "disqualified after 3 crashes"),
    (None, "disconnect: bot is gone")])
def test_a_bot_gone_before_the_match_forfeits_with_its_gone_reason(reason, text):
    from arena.match import FaultKind, Forfeit
    res = play([*randoms(2), AbsentBot(reason)])
    assert res.forfeits[2] == Forfeit(FaultKind.DISCONNECT, text)
    assert res.decisions_asked[2] == 0 and res.placings[2] == 3 and res.faults[2] == 0
