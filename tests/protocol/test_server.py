"""The arena server and RemoteBot against an in-process raw client (no subprocesses):
registration checks, bad input, answers, errors, late answers, disconnects, multiplexing."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from arena.match.bot import BotFault, DecisionRequest, MatchEnd, MatchInfo
from arena.match.faults import FaultKind
from arena.protocol import session
from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb
from arena.protocol.errors import BotConnectTimeout, ServerStartError, UnknownTokenError
from arena.rules import MatchState, make_config

from .helpers import PATIENCE_S, RawClient, run, started_server
from arena.rules.view import view_of

CFG = make_config("sergeant-major")


def _request(request_id: int, match_id: str = "m1") -> DecisionRequest:
    state = MatchState.new(CFG, seed=5)
    return DecisionRequest(request_id, match_id, view_of(state, state.current_seat), 1000)


async def _connected(token: str = "tok", name: str = "alpha"):
    server, port = await started_server()
    server.expect(token, name)
    client = RawClient(port)
    reply = await client.register(token)
    assert reply.accepted, reply.detail
    bot = await server.wait_for_bot(token, PATIENCE_S)
    return server, client, bot


async def _next(client: RawClient, kind: str):
    msg = await client.recv()
    assert msg is not None and msg.WhichOneof("kind") == kind, msg
    return getattr(msg, kind)


@pytest.mark.parametrize("token,version,reason,status", [
    ("nope", "1", pb.REGISTER_REJECT_REASON_BAD_TOKEN, grpc.StatusCode.UNAUTHENTICATED),
    ("tok", "2", pb.REGISTER_REJECT_REASON_UNSUPPORTED_PROTOCOL_VERSION,
     grpc.StatusCode.FAILED_PRECONDITION),
    ("tok", "", pb.REGISTER_REJECT_REASON_UNSUPPORTED_PROTOCOL_VERSION,
     grpc.StatusCode.FAILED_PRECONDITION),
])
def test_registration_rejected_with_reason_then_stream_closed(token, version, reason,
                                                              status) -> None:
    async def scenario():
        server, port = await started_server()
        server.expect("tok", "alpha")
        client = RawClient(port)
        try:
            reply = await client.register(token, version)
            assert not reply.accepted and reply.reason == reason
            assert reply.detail and list(reply.supported_protocol_versions) == ["1"]
            assert await client.status() == status  # stream closed with the matching status
            assert "tok" not in server.bots
        finally:
            await client.close()
            await server.stop()
    run(scenario())


@pytest.mark.parametrize("first", [b"\xff\xff\xff", pb.BotMessage().SerializeToString(),
                                   pb.BotMessage(error=pb.ErrorReport(message="x"))])
def test_first_message_not_a_registration(first) -> None:
    async def scenario():
        server, port = await started_server()
        client = RawClient(port)
        try:
            await client.send(first)
            reply = (await client.recv()).register
            assert not reply.accepted
            assert reply.reason == pb.REGISTER_REJECT_REASON_NOT_REGISTERED
            assert await client.status() == grpc.StatusCode.INVALID_ARGUMENT
        finally:
            await client.close()
            await server.stop()
    run(scenario())


def test_silent_client_is_dropped_after_the_registration_timeout() -> None:
    async def scenario():
        server, port = await started_server(register_timeout_s=0.2)
        client = RawClient(port)
        try:
            reply = (await client.recv()).register  # sent nothing at all
            assert reply.reason == pb.REGISTER_REJECT_REASON_NOT_REGISTERED
            assert "0.2 s" in reply.detail
            assert await client.status() == grpc.StatusCode.DEADLINE_EXCEEDED
        finally:
            await client.close()
            await server.stop()
    run(scenario())


def test_package_exports_the_server_api() -> None:
    from arena import protocol
    from arena.protocol.server import ArenaServer
    from arena.protocol.session import RemoteBot

    assert protocol.ArenaServer is ArenaServer and protocol.RemoteBot is RemoteBot
    with pytest.raises(AttributeError):
        protocol.NoSuchThing  # noqa: B018 - the lookup itself is what raises


def test_second_connection_with_same_token_rejected() -> None:
    async def scenario():
        server, client, bot = await _connected()
        other = RawClient(server.port)
        try:
            reply = await other.register("tok")
            assert reply.reason == pb.REGISTER_REJECT_REASON_ALREADY_CONNECTED
            assert await other.status() == grpc.StatusCode.ALREADY_EXISTS
            assert bot.alive
        finally:
            await other.close()
            await client.close()
            await server.stop()
    run(scenario())


def test_answer_round_trip_and_match_messages() -> None:
    async def scenario():
        server, client, bot = await _connected()
        try:
            assert bot.name == "alpha" and bot.identity.reported_name == "raw"
            info = MatchInfo("m1", CFG, 1, ("x", "alpha", "y"), 1000)
            await bot.start_match(info)
            start = await _next(client, "match_start")
            assert start.match_id == "m1" and start.seat == 1 and start.rules.preset == CFG.preset
            req = _request(7)
            task = asyncio.create_task(bot.decide(req))
            sent = await _next(client, "decision")
            assert sent.match_id == "m1" and sent.time_ms == 1000
            assert list(sent.view.legal_actions) == list(
                pb.View.FromString(sent.view.SerializeToString()).legal_actions)
            choice = sent.view.legal_actions[-1]
            await client.send(pb.BotMessage(decision=pb.DecisionResponse(
                request_id=sent.request_id, action=choice.lower())))
            action = await asyncio.wait_for(task, PATIENCE_S)
            assert action == req.view.legal_actions[-1]
            await bot.reject(7, FaultKind.ILLEGAL, "not legal here")
            rej = await _next(client, "rejection")
            assert rej.request_id == sent.request_id
            assert rej.reason == pb.REJECTION_REASON_ILLEGAL and rej.match_id == "m1"
            await bot.end_match(MatchEnd("m1", (1, 0, -1), (1, 2, 3), "score"))
            end = await _next(client, "match_end")
            assert list(end.placings) == [1, 2, 3] and list(end.scores) == [1, 0, -1]
        finally:
            await client.close()
            await server.stop()
    run(scenario())


def test_malformed_action_text_is_a_malformed_fault() -> None:
    async def scenario():
        server, client, bot = await _connected()
        try:
            await bot.start_match(MatchInfo("m1", CFG, 0, ("alpha", "b", "c"), 1000))
            await _next(client, "match_start")
            task = asyncio.create_task(bot.decide(_request(1)))
            sent = await _next(client, "decision")
            await client.send(pb.BotMessage(decision=pb.DecisionResponse(
                request_id=sent.request_id, action="the ace of spades")))
            with pytest.raises(BotFault) as err:
                await asyncio.wait_for(task, PATIENCE_S)
            assert err.value.kind == "malformed" and "not an action" in err.value.detail
        finally:
            await client.close()
            await server.stop()
    run(scenario())


def test_error_report_is_an_error_fault() -> None:
    async def scenario():
        server, client, bot = await _connected()
        try:
            task = asyncio.create_task(bot.decide(_request(1)))
            sent = await _next(client, "decision")
            await client.send(pb.BotMessage(error=pb.ErrorReport(
                request_id=sent.request_id, message="ZeroDivisionError: boom")))
            with pytest.raises(BotFault) as err:
                await asyncio.wait_for(task, PATIENCE_S)
            assert err.value.kind == "error" and "boom" in err.value.detail
        finally:
            await client.close()
            await server.stop()
    run(scenario())


def test_bad_messages_are_rejected_and_the_session_goes_on() -> None:
    async def scenario():
        server, client, bot = await _connected()
        try:
            bad = [
                (b"\x0a\xff", pb.REJECTION_REASON_MALFORMED),                 # truncated
                (pb.BotMessage(), pb.REJECTION_REASON_UNEXPECTED),             # no kind
                (b"\xf8\x06\x01", pb.REJECTION_REASON_UNEXPECTED),             # unknown field
                (pb.BotMessage(register=pb.RegisterRequest(token="tok")),
                 pb.REJECTION_REASON_UNEXPECTED),                              # 2nd register
                (pb.BotMessage(decision=pb.DecisionResponse(request_id=99, action="AS")),
                 pb.REJECTION_REASON_UNKNOWN_REQUEST),                         # never sent
            ]
            for raw, reason in bad:
                await client.send(raw)
                rej = await _next(client, "rejection")
                assert rej.reason == reason and rej.detail, rej
            assert bot.alive
            server.expect("tok2", "beta")  # another bot is served meanwhile
            other = RawClient(server.port)
            assert (await other.register("tok2")).accepted
            await other.close()
            task = asyncio.create_task(bot.decide(_request(1)))
            sent = await _next(client, "decision")
            await client.send(pb.BotMessage(decision=pb.DecisionResponse(
                request_id=sent.request_id, action=sent.view.legal_actions[0])))
            assert await asyncio.wait_for(task, PATIENCE_S) in _request(1).view.legal_actions
            # a second answer to the same request: not pending any more
            await client.send(pb.BotMessage(decision=pb.DecisionResponse(
                request_id=sent.request_id, action=sent.view.legal_actions[0])))
            rej = await _next(client, "rejection")
            assert rej.reason == pb.REJECTION_REASON_UNKNOWN_REQUEST
        finally:
            await client.close()
            await server.stop()
    run(scenario())


def test_a_flood_of_bad_messages_is_logged_and_answered_within_limits(monkeypatch, caplog):
    monkeypatch.setattr(session, "LOG_FIRST", 5)
    monkeypatch.setattr(session, "LOG_EVERY", 20)
    monkeypatch.setattr(session, "MAX_REJECTIONS", 25)

    async def scenario():
        server, client, bot = await _connected()
        try:
            for _ in range(60):
                await client.send(b"\x0a\xff")
            await client.send(pb.BotMessage(error=pb.ErrorReport(request_id=77, message="x")))
            for _ in range(2000):   # the server has read them all (else the decision below
                if bot.bad_messages == 61:      # may overtake rejections still to come)
                    break
                await asyncio.sleep(0.01)
            task = asyncio.create_task(bot.decide(_request(1)))
            rejections = 0
            while (msg := await client.recv()).WhichOneof("kind") == "rejection":
                rejections += 1
            assert msg.WhichOneof("kind") == "decision"   # the session still serves
            task.cancel()
            return rejections, bot.bad_messages
        finally:
            await client.close()
            await server.stop()

    with caplog.at_level("WARNING", logger="arena.protocol"):
        rejections, bad = run(scenario())
    assert (rejections, bad) == (25, 61)
    lines = [r.getMessage() for r in caplog.records if "alpha" in r.getMessage()]
    # 5 one by one + the switch notice + one per 20 (20, 40, 60) + the "no more rejections" notice
    assert len(lines) == 5 + 1 + 3 + 1, lines
    assert "from now on one line per 20" in lines[5]
    assert any("no more rejections" in line for line in lines)


def test_late_answer_is_discarded_and_rejected_once() -> None:
    async def scenario():
        server, client, bot = await _connected()
        try:
            # first request: expires (the runner's timeout cancels decide), answered later
            task = asyncio.create_task(bot.decide(_request(1)))
            sent = await _next(client, "decision")
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await client.send(pb.BotMessage(decision=pb.DecisionResponse(
                request_id=sent.request_id, action=sent.view.legal_actions[0])))
            rej = await _next(client, "rejection")
            assert rej.reason == pb.REJECTION_REASON_LATE and rej.request_id == sent.request_id
            # second request: the runner already rejected it as late; the late answer is
            # dropped silently (the next message the bot sees is the next request)
            task = asyncio.create_task(bot.decide(_request(2)))
            sent2 = await _next(client, "decision")
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await bot.reject(2, FaultKind.TIMEOUT, "no answer within 1000 ms + 200 ms grace")
            rej = await _next(client, "rejection")
            assert rej.reason == pb.REJECTION_REASON_LATE and rej.request_id == sent2.request_id
            await client.send(pb.BotMessage(decision=pb.DecisionResponse(
                request_id=sent2.request_id, action=sent2.view.legal_actions[0])))
            task = asyncio.create_task(bot.decide(_request(3)))
            sent3 = await _next(client, "decision")
            assert sent3.request_id > sent2.request_id
            task.cancel()
        finally:
            await client.close()
            await server.stop()
    run(scenario())


def test_client_disconnect_fails_pending_request_with_disconnect() -> None:
    async def scenario():
        server, client, bot = await _connected()
        try:
            task = asyncio.create_task(bot.decide(_request(1)))
            await _next(client, "decision")
            await client.close()
            with pytest.raises(BotFault) as err:
                await asyncio.wait_for(task, PATIENCE_S)
            assert err.value.kind == "disconnect"
            assert not bot.alive
            with pytest.raises(BotFault, match="disconnect"):
                await bot.decide(_request(2))
            # the token can register again after the disconnect
            again = RawClient(server.port)
            assert (await again.register("tok")).accepted
            await again.close()
        finally:
            await server.stop()
    run(scenario())


def test_concurrent_matches_share_a_stream() -> None:
    """Two matches on one stream, answered out of order: answers and rejections find their
    request (the runner's request ids are unique in the arena process)."""
    async def play(bot, match_id: str, rejections: list):
        await bot.start_match(MatchInfo(match_id, CFG, 0, ("alpha", "b", "c"), 1000))
        runner_id = {"mA": 1, "mB": 2}[match_id]
        action = await bot.decide(_request(runner_id, match_id))
        await bot.reject(runner_id, FaultKind.ILLEGAL, f"rejected in {match_id}")
        rejections.append(match_id)
        return action

    async def scenario():
        server, client, bot = await _connected()
        try:
            rejections: list[str] = []
            tasks = [asyncio.create_task(play(bot, m, rejections)) for m in ("mA", "mB")]
            sent = {}
            while len(sent) < 2:
                msg = await client.recv()
                if msg.WhichOneof("kind") == "decision":
                    sent[msg.decision.match_id] = msg.decision
            assert sent["mA"].request_id != sent["mB"].request_id
            for m in ("mB", "mA"):  # answer out of order
                await client.send(pb.BotMessage(decision=pb.DecisionResponse(
                    request_id=sent[m].request_id, action=sent[m].view.legal_actions[0])))
            await asyncio.wait_for(asyncio.gather(*tasks), PATIENCE_S)
            got = {}
            while len(got) < 2:
                rej = await _next(client, "rejection")
                got[rej.match_id] = rej
            for m in ("mA", "mB"):
                assert got[m].request_id == sent[m].request_id
                assert got[m].detail == f"rejected in {m}"
        finally:
            await client.close()
            await server.stop()
    run(scenario())


def test_wait_for_bot_errors() -> None:
    async def scenario():
        server, _ = await started_server()
        try:
            with pytest.raises(UnknownTokenError, match="expect"):
                await server.wait_for_bot("never", 1)
            server.expect("tok", "alpha")
            with pytest.raises(BotConnectTimeout, match="alpha"):
                await server.wait_for_bot("tok", 0.01)
            with pytest.raises(ValueError):
                server.expect("", "x")
        finally:
            await server.stop()
    run(scenario())


def test_bind_failure_is_a_clear_error() -> None:
    async def scenario():
        server, port = await started_server()
        try:
            other = type(server)(f"127.0.0.1:{port}")
            with pytest.raises(ServerStartError, match=str(port)):
                await other.start()
        finally:
            await server.stop()
    run(scenario())


def test_stop_says_goodbye() -> None:
    async def scenario():
        server, client, bot = await _connected()
        try:
            await server.stop()
            bye = await _next(client, "goodbye")
            assert bye.reason
            assert await client.recv() is None
            assert not bot.alive
        finally:
            await client.close()
    run(scenario())
