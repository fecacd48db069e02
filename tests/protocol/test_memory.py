"""Nothing kept per match outlives the match: after matches end (normally,
with faults and rejections, several at once on one connection), every per-match structure of
each bot connection is empty, and what is kept per connection stays bounded. Real SDK bot
processes over gRPC. (How much memory a long run uses is measured by ``arena bench memory``,
not here.)"""

from __future__ import annotations

import asyncio

import pytest

from arena.match import MatchSpec, run_match
from arena.protocol import convert, session, viewcache, wire
from arena.rules import make_config

from .helpers import PATIENCE_S, BotProcesses, run, started_server

pytestmark = pytest.mark.e2e

EMPTY = {"matches": 0, "request_ids": 0, "view_templates": 0}


def test_per_match_state_is_dropped_when_matches_end(procs: BotProcesses) -> None:
    async def scenario():
        server, port = await started_server()
        try:
            bots = []
            for seat, mode in enumerate(("random", "illegal", "random")):
                server.expect(f"t{seat}", f"bot{seat}")
                procs.python_bot(port, f"t{seat}", f"bot{seat}", "--seed", str(seat), mode=mode)
            for seat in range(3):
                bots.append(await server.wait_for_bot(f"t{seat}", PATIENCE_S))
            a, b, c = bots
            cfg = make_config("sergeant-major", hand_cap=2)
            # one at a time, then three at once on the same connections
            for i in range(3):
                result = await run_match(MatchSpec(f"seq{i}", cfg, seed=i, max_faults=99),
                                         bots)
                assert result.faults[1] > 0          # rejections were sent and mapped
                assert [bot.kept_per_match() for bot in bots] == [EMPTY] * 3
            results = await asyncio.gather(*(
                run_match(MatchSpec(f"par{i}", cfg, seed=10 + i, max_faults=99), seating)
                for i, seating in enumerate([(a, b, c), (b, c, a), (c, a, b)])))
            assert all(r.state.finished for r in results)
            assert [bot.kept_per_match() for bot in bots] == [EMPTY] * 3
            for bot in bots:   # per connection: bounded whatever the number of matches
                assert 0 < len(bot._recent) <= session._RECENT_KEPT
                assert all(p.future is None for p in bot._recent.values())
            assert len(convert._TRICK_CACHE) <= convert._TRICK_CACHE_MAX
            # the serialised snippets shared by all connections are bounded too
            assert 0 < len(viewcache._TRICK_FIELDS) <= viewcache._FIELDS_KEPT
            assert len(viewcache._EVENT_FIELDS) <= viewcache._FIELDS_KEPT
            assert 0 < len(wire._MATCH_FIELDS) <= wire._KEPT
            assert 0 < len(wire._PACKED) <= wire._KEPT
            assert all(len(b._wire_ids) <= session._RECENT_KEPT for b in bots)
        finally:
            await server.stop()
    run(scenario())


def test_forget_match_drops_a_match_stopped_without_its_end(procs: BotProcesses) -> None:
    async def scenario():
        server, port = await started_server()
        try:
            bots = []
            for seat in range(3):
                server.expect(f"t{seat}", f"bot{seat}")
                procs.python_bot(port, f"t{seat}", f"bot{seat}", mode="slow")
            for seat in range(3):
                bots.append(await server.wait_for_bot(f"t{seat}", PATIENCE_S))
            task = asyncio.create_task(run_match(
                MatchSpec("stopped", make_config("blato"), seed=1, time_ms=60_000), bots))
            while not any(bot.kept_per_match()["request_ids"] for bot in bots):
                await asyncio.sleep(0.02)
            task.cancel()                       # as when the arena stops a match
            with pytest.raises(asyncio.CancelledError):
                await task
            assert any(bot.kept_per_match()["matches"] for bot in bots)
            for bot in bots:
                bot.forget_match("stopped")
            assert [bot.kept_per_match() for bot in bots] == [EMPTY] * 3
        finally:
            await server.stop()
    run(scenario())
