"""One registered bot connection as the match runner sees it: :class:`RemoteBot`.

A :class:`RemoteBot` implements :class:`arena.match.bot.Bot` over the bot's Play stream. The
server (:mod:`arena.protocol.server`) feeds it the bot's raw messages (:meth:`RemoteBot.feed`)
and sends whatever it puts in its outbox.

Request ids on the wire are the connection's own (1, 2, 3, ... per stream), so several matches
can share one stream and a bot learns nothing of the arena's other matches from them; the
runner's ``DecisionRequest.request_id`` (unique in the arena process) is mapped to the wire id
for :meth:`RemoteBot.reject`. What is kept per match (its view templates) is dropped when the
match ends (:meth:`end_match`), so a connection that plays thousands of matches does not grow;
what is kept per connection is bounded (the last :data:`_RECENT_KEPT` finished requests, and
their runner ids).

Answers: a ``DecisionResponse`` resolves the pending request (its text is parsed into an action
code; text that is not an action raises ``BotFault(FaultKind.MALFORMED)`` from :meth:`decide`);
an ``ErrorReport`` raises ``BotFault(FaultKind.ERROR)``; the stream ending raises
``BotFault(FaultKind.DISCONNECT)`` for every pending request and makes :attr:`alive` False. An
answer to a request that expired (the runner's timeout cancelled :meth:`decide`) is discarded
and, unless the runner already rejected that request, answered with a LATE rejection; an answer
to an id never sent (or sent twice) gets UNKNOWN_REQUEST. Messages that do not parse or have no
known kind get a rejection too; nothing a bot sends can raise into the server. Such bad messages
are counted (:attr:`RemoteBot.bad_messages`); a flood is logged sparingly and stops getting
rejections past :data:`MAX_REJECTIONS` (see :data:`LOG_FIRST`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError

from ..match.bot import Bot, BotFault, DecisionRequest, MatchEnd, MatchInfo
from ..match.faults import FaultKind
from ._gen.threefiveeight.v1 import arena_pb2 as pb
from .convert import (
    ConversionError,
    action_from_text,
    match_end_to_proto,
    match_start_to_proto,
)
from .viewcache import ViewEncoder
from .wire import decision_message

log = logging.getLogger("arena.protocol")

#: the rejection sent for each kind of fault (a timeout is told LATE; a disconnected bot is
#: told nothing)
_REASONS = {
    FaultKind.ILLEGAL: pb.REJECTION_REASON_ILLEGAL, FaultKind.TIMEOUT: pb.REJECTION_REASON_LATE,
    FaultKind.MALFORMED: pb.REJECTION_REASON_MALFORMED, FaultKind.ERROR: pb.REJECTION_REASON_ERROR,
}
_RECENT_KEPT = 1024           # finished requests remembered (LATE vs UNKNOWN, reject's match)
_MAX_TEXT = 2000              # characters of bot-supplied text kept in faults and logs
#: a bot flooding the arena with bad messages: the first ones are logged one by one, then one
#: line per LOG_EVERY; rejections are sent for the first MAX_REJECTIONS only (a bot that does
#: not read them would otherwise grow the outbox without bound)
LOG_FIRST, LOG_EVERY, MAX_REJECTIONS = 20, 1000, 10_000

#: put in the outbox to end the stream
CLOSE = object()
#: what the outbox holds: messages, and serialised ones (decision requests, :mod:`.wire`)
Outgoing = pb.ArenaMessage | bytes


def serialize(msg: Outgoing) -> bytes:
    """The Play stream's response serializer: ``msg`` serialised (bytes are sent as they are)."""
    return msg if isinstance(msg, bytes) else msg.SerializeToString()


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """What a bot said about itself at registration, plus the arena's name for its token.

    Attributes:
        name: the arena's name (from ``ArenaServer.expect``); reported_name / version /
        client / protocol_version: from the RegisterRequest; peer: gRPC peer address.
    """

    name: str
    reported_name: str
    version: str
    client: str
    protocol_version: str
    peer: str


def run_detached(coro: Coroutine[Any, Any, object],
                 done: Callable[[BaseException | None], None]) -> None:
    """Run ``coro`` to its end from the event loop's callbacks, with no task of its own:
    its first step runs now, each later one when the future it waits on is done (as a task
    steps it, without a task's creation and scheduling, which cost a write more than the
    write itself); then ``done(None)``, or ``done(exc)`` when it raised. Nothing can cancel
    it (no task holds it): it ends when what it waits on ends."""
    loop = asyncio.get_running_loop()

    def step(_: object = None) -> None:
        try:
            waited = coro.send(None)
        except StopIteration:
            done(None)
            return
        except BaseException as exc:           # the write failed (or the stream was closed)
            done(exc)
            return
        if isinstance(waited, asyncio.Future):
            waited._asyncio_future_blocking = False    # as a task does, taking it over
            waited.add_done_callback(step)
        elif waited is None:                   # a bare yield (``asyncio.sleep(0)``)
            loop.call_soon(step)
        else:                                  # what a task refuses too
            coro.close()
            done(RuntimeError(f"a write waited on {waited!r:.80}, not an asyncio future"))

    step()


class _Pending:
    """One decision request on the wire. ``late``: it ended without an answer (the runner's
    timeout cancelled it); ``rejected``: a Rejection was sent for it."""

    __slots__ = ("future", "late", "match_id", "rejected", "runner_id")

    def __init__(self, future: asyncio.Future[str] | None, match_id: str,
                 runner_id: int) -> None:
        self.future = future
        self.match_id = match_id
        self.runner_id = runner_id
        self.late = False
        self.rejected = False


class RemoteBot(Bot):
    """A bot connected over gRPC (one Play stream); safe for several concurrent matches.

    Attributes:
        name: the arena's name for the bot; version: the bot's reported version;
        identity: :class:`BotIdentity`; token: the token it registered with.
    """

    def __init__(self, token: str, identity: BotIdentity) -> None:
        self.token = token
        self.identity = identity
        self.name = identity.name
        self.version = identity.version
        self.outbox: asyncio.Queue[object] = asyncio.Queue()
        #: set by the server: writes one message (or a serialised one) on the stream, one
        #: write at a time: the server's pump holds ``write_lock`` too
        self.writer: Callable[[Outgoing], Coroutine[Any, Any, None]] | None = None
        self.write_lock = asyncio.Lock()
        self._alive = True
        self._closed_reason = ""
        self._next_id = 0
        self._pending: dict[int, _Pending] = {}
        self._recent: OrderedDict[int, _Pending] = OrderedDict()  # finished requests
        #: the runner's request id -> wire id, of the requests pending or in ``_recent``
        self._wire_ids: dict[int, int] = {}
        self._matches: set[str] = set()
        self._views = ViewEncoder()
        #: messages from the bot that were rejected or could not be matched to a request
        self.bad_messages = 0
        self.done = asyncio.get_running_loop().create_future()

    # ----- Bot interface ---------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        """False once the stream has ended (bot disconnected, crashed, or closed by us)."""
        return self._alive

    def _check_alive(self) -> None:
        if not self._alive:
            raise BotFault(FaultKind.DISCONNECT, f"bot {self.name!r} is disconnected "
                                                 f"({self._closed_reason})")

    async def start_match(self, info: MatchInfo) -> None:
        """Send ``MatchStart``. Raises ``BotFault(FaultKind.DISCONNECT)`` when the bot is
        gone."""
        self._check_alive()
        self._matches.add(info.match_id)
        self._views.forget(info.match_id)
        self._send(pb.ArenaMessage(match_start=match_start_to_proto(info)))

    async def decide(self, request: DecisionRequest) -> int:
        """Send a ``DecisionRequest`` and wait for the answer (no timeout here: the runner
        cancels this coroutine when time is up).

        Raises:
            BotFault: ``MALFORMED`` (answer is not an action text), ``ERROR`` (the bot
                reported an error), ``DISCONNECT`` (stream ended).
        """
        self._check_alive()
        view = self._views.encode_bytes(request.view, request.match_id)
        self._next_id += 1
        wire_id = self._next_id
        msg = decision_message(wire_id, request.match_id, request.time_ms, view)
        fut: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        pend = _Pending(fut, request.match_id, request.request_id)
        self._pending[wire_id] = pend
        self._wire_ids[request.request_id] = wire_id
        try:
            await self._send_now(msg)
            text = await fut
        finally:
            # still pending: cancelled by the runner's timeout (or the stream was lost)
            pend.late = self._pending.pop(wire_id, None) is not None
            pend.future = None  # what a finished request keeps: its match, late, rejected
            self._recent[wire_id] = pend
            if len(self._recent) > _RECENT_KEPT:
                _, old = self._recent.popitem(last=False)
                self._wire_ids.pop(old.runner_id, None)
        try:
            return action_from_text(text)
        except ConversionError as exc:
            raise BotFault(FaultKind.MALFORMED, str(exc)[:_MAX_TEXT], text[:_MAX_TEXT]) from None

    async def reject(self, request_id: int, kind: FaultKind, detail: str) -> None:
        """Send a ``Rejection`` for the runner's ``request_id`` (one of the last
        :data:`_RECENT_KEPT` requests; else it is sent with request id 0), with the reason of
        ``kind`` (``TIMEOUT`` is told LATE)."""
        if not self._alive:
            return
        wire_id = self._wire_ids.get(request_id, 0)
        pend = self._recent.get(wire_id) or self._pending.get(wire_id)
        match = ""
        if pend is not None:
            pend.rejected = True
            match = pend.match_id
        self._send_rejection(wire_id, _REASONS.get(kind, pb.REJECTION_REASON_UNSPECIFIED),
                             detail, match)

    async def end_match(self, info: MatchEnd) -> None:
        """Send ``MatchEnd`` and forget everything kept for the match."""
        self.forget_match(info.match_id)
        if self._alive:
            self._send(pb.ArenaMessage(match_end=match_end_to_proto(info)))

    def forget_match(self, match_id: str) -> None:
        """Drop everything kept for ``match_id`` (its view templates); called by
        :meth:`end_match`, and safe to call for a match that was stopped without one."""
        self._matches.discard(match_id)
        self._views.forget(match_id)

    def kept_per_match(self) -> dict[str, int]:
        """Sizes of what is kept per match (for tests and diagnostics): ``matches`` (not
        ended), ``request_ids`` (requests waiting for their answer), ``view_templates``; all
        0 once every match on this connection has ended."""
        return {"matches": len(self._matches), "request_ids": len(self._pending),
                "view_templates": len(self._views)}

    # ----- connection ------------------------------------------------------------------------
    def close(self, reason: str = "the arena closed the session") -> None:
        """Say goodbye and end the stream (idempotent). Pending requests fail with
        ``BotFault(FaultKind.DISCONNECT)``."""
        if self._alive:
            self._send(pb.ArenaMessage(goodbye=pb.Goodbye(reason=reason)))
            self.outbox.put_nowait(CLOSE)
        self.connection_lost(f"closed by the arena: {reason}")

    def connection_lost(self, reason: str) -> None:
        """Mark the bot gone and fail its pending requests (called by the server when the
        stream ends; idempotent)."""
        if not self._alive:
            return
        self._alive = False
        self._closed_reason = reason
        log.info("bot %r disconnected: %s", self.name, reason)
        for pend in self._pending.values():
            fut = pend.future
            if fut is not None and not fut.done():
                fut.set_exception(BotFault(FaultKind.DISCONNECT, f"bot {self.name!r}: {reason}"))
                fut.exception()  # no "never retrieved" warning if nobody awaits it
        if not self.done.done():
            self.done.set_result(reason)

    def _send(self, msg: Outgoing) -> None:
        self.outbox.put_nowait(msg)

    async def _send_now(self, msg: Outgoing) -> None:
        """Start writing ``msg`` on the stream at once when nothing is queued before it and
        no write is in flight; otherwise queue it for the server's pump, keeping the order.
        Returns without waiting for the write to end.

        The write runs on its own (:func:`run_detached`: no task of its own, so no task
        switch on the per-decision path, and nothing the caller's cancellation reaches) and
        holds the write lock until it has ended: the runner's time limit may cancel the
        decision while its request is being written, and gRPC's write goes on in the core
        regardless, so the next write (the LATE rejection that follows a timeout) must wait
        for it (two at once fail the call: ``GRPC_CALL_ERROR_TOO_MANY_OPERATIONS``)."""
        writer = self.writer
        if writer is None or not self.outbox.empty() or self.write_lock.locked():
            self._send(msg)
            return
        await self.write_lock.acquire()       # free: taken at once, before anyone else
        run_detached(writer(msg), self._written)

    def _written(self, exc: BaseException | None) -> None:
        self.write_lock.release()
        if exc is not None:
            self.connection_lost(f"write failed: {type(exc).__name__}: {exc}")

    def _count_bad(self, what: str) -> bool:
        """Count one bad message; log ``what`` while under :data:`LOG_FIRST`, then one line per
        :data:`LOG_EVERY`. Returns whether a rejection may still be sent."""
        self.bad_messages += 1
        n = self.bad_messages
        if n <= LOG_FIRST:
            log.warning("bot %r: %s", self.name, what)
            if n == LOG_FIRST:
                log.warning("bot %r: %d bad messages; from now on one line per %d", self.name,
                            n, LOG_EVERY)
        elif n % LOG_EVERY == 0:
            log.warning("bot %r: %d bad messages so far (latest: %s)", self.name, n, what)
        if n == MAX_REJECTIONS + 1:
            log.warning("bot %r: over %d bad messages: no more rejections are sent to it",
                        self.name, MAX_REJECTIONS)
        return n <= MAX_REJECTIONS

    def _reject_msg(self, request_id: int, reason: pb.RejectionReason, detail: str,
                    match_id: str = "") -> None:
        """Reject a bad message: counted (:meth:`_count_bad`), told while under the cap."""
        if self._count_bad(f"rejected message (request {request_id}): {detail}"):
            self._send_rejection(request_id, reason, detail, match_id)

    def _send_rejection(self, request_id: int, reason: pb.RejectionReason, detail: str,
                        match_id: str = "") -> None:
        self._send(pb.ArenaMessage(rejection=pb.Rejection(
            request_id=request_id, reason=reason, detail=detail, match_id=match_id)))

    def feed(self, raw: bytes) -> None:
        """Handle one raw message from the bot (never raises for anything the bot sent)."""
        try:
            msg = pb.BotMessage.FromString(raw)
        except DecodeError as exc:
            self._reject_msg(0, pb.REJECTION_REASON_MALFORMED,
                             f"message does not parse as a BotMessage ({exc}); "
                             "check the .proto version you generated code from")
            return
        kind = msg.WhichOneof("kind")
        if kind == "decision":
            self._on_answer(msg.decision.request_id, msg.decision.action)
        elif kind == "error":
            self._on_error(msg.error.request_id, msg.error.message)
        elif kind == "register":
            self._reject_msg(0, pb.REJECTION_REASON_UNEXPECTED,
                             "already registered: RegisterRequest is sent once, first")
        else:
            self._reject_msg(0, pb.REJECTION_REASON_UNEXPECTED,
                             "message has no known kind (expected decision or error; "
                             "a message from a newer protocol?)")

    def _on_answer(self, wire_id: int, text: str) -> None:
        pend = self._pending.pop(wire_id, None)
        if pend is not None:
            if pend.future is not None and not pend.future.done():
                pend.future.set_result(text)
            return
        pend = self._recent.get(wire_id)
        if pend is None or not pend.late:
            self._reject_msg(wire_id, pb.REJECTION_REASON_UNKNOWN_REQUEST,
                             f"request {wire_id} is not pending (never sent, or already answered); "
                             "answer discarded")
        elif not pend.rejected:
            # an answer to a request the arena stopped waiting for: its time was up (the
            # runner records the timeout) or the arena is stopping; not a bad message (one
            # per request sent, no flood), logged without a warning
            pend.rejected = True
            log.info("bot %r: answer to request %d after the arena stopped waiting for it; "
                     "discarded", self.name, wire_id)
            self._send_rejection(wire_id, pb.REJECTION_REASON_LATE,
                                 f"request {wire_id} expired before this answer arrived; "
                                 "answer discarded", pend.match_id)

    def _on_error(self, wire_id: int, message: str) -> None:
        message = message[:_MAX_TEXT]
        pend = self._pending.pop(wire_id, None)
        if pend is not None and pend.future is not None and not pend.future.done():
            pend.future.set_exception(BotFault(FaultKind.ERROR, message or "bot reported an error"))
            return
        where = f" for request {wire_id}" if wire_id else ""
        self._count_bad(f"reported an error{where}: {message}")
