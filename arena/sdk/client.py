"""The SDK's connection loop: :func:`run` connects a :class:`Player` to an arena and serves it.

Command line of a bot script that calls ``run(MyPlayer())``::

    ARENA_TOKEN=TOKEN python my_bot.py --arena HOST:PORT [--name NAME] [--log-level INFO]
                     [--connect-timeout 10] [--tls-ca CA.pem [--tls-cert C.pem --tls-key K.pem]
                     [--tls-server-name NAME]]

``--arena`` / ``--token`` default to the environment variables ``ARENA_ADDRESS`` /
``ARENA_TOKEN`` (the arena passes the token in ``ARENA_TOKEN`` only: ``--token`` is visible to
every local user in ``/proc``), the ``--tls-*`` files to ``ARENA_TLS_CA`` / ``ARENA_TLS_CERT`` /
``ARENA_TLS_KEY``. With ``--tls-ca`` the bot connects over TLS and verifies the arena's
certificate with that CA (``--tls-server-name`` when the certificate names another host than
the address); ``--tls-cert`` / ``--tls-key`` present a client certificate (mutual TLS). Logs go
to stderr (stdout is left to the bot).

Behaviour: connect (waiting up to ``--connect-timeout`` seconds for the arena), register (an
arena too busy to take the registration answers ``TRY_AGAIN_LATER``: the SDK opens a new stream
and registers again after 0.1 s, doubling up to 2 s, for up to ``--connect-timeout`` seconds),
then for every message: ``MatchStart`` -> ``player.on_match_start(info)``; ``DecisionRequest``
-> ``player.decide(view)`` and the answer as action text (if ``decide`` raises or returns
something that is not an action code, an ``ErrorReport`` is sent for that request and serving
goes on); ``Rejection`` -> a warning in the log; ``MatchEnd`` -> ``player.on_match_end(end)``;
``Goodbye`` -> the arena closes the stream and :func:`run` returns. Requests are answered one
at a time, in arrival order, even when several matches run at once.

The connection runs on its own ``grpc.aio`` event loop (``asyncio.run``) in the calling thread,
and ``decide`` is called on that thread: call :func:`run` where no event loop is running, and
do not call ``asyncio.run`` inside ``decide``; to use asyncio there, write ``async def
decide``: the SDK awaits it on its loop (still one request at a time). The
first SIGTERM / SIGINT ends the session once the current ``decide`` returns; a second one exits
at once. Views are rebuilt incrementally (:class:`arena.protocol.viewcache.ViewDecoder`).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import logging
import operator
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any, SupportsIndex

import grpc

from .. import __version__
from .types import MatchInfo
from ..protocol import PROTOCOL_VERSION
from ..protocol._gen.threefiveeight.v1 import arena_pb2 as pb
from ..protocol.convert import (
    ConversionError,
    action_to_text,
    match_end_from_proto,
    match_info_from_proto,
)
from ..protocol.viewcache import ViewDecoder
from ..rules.view import View
from .player import Player

log = logging.getLogger("arena.sdk")

PLAY_METHOD = "/threefiveeight.v1.ArenaService/Play"
#: pauses before registering again after TRY_AGAIN_LATER: the first and the longest, seconds
RETRY_FIRST_S, RETRY_MAX_S = 0.1, 2.0
#: what ``signal.signal`` returns and accepts
_Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None

#: exit statuses of a bot process (``run`` raises ``SystemExit`` with the non-zero ones)
EXIT_OK, EXIT_CONNECTION, EXIT_USAGE, EXIT_REJECTED = 0, 1, 2, 3


def _parse_args(player: Player, argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=f"Run the bot {player.name!r} against a 358 Arena server.")
    ap.add_argument("--arena", default=os.environ.get("ARENA_ADDRESS"), metavar="ADDRESS",
                    help="the arena's address: HOST:PORT, or unix:PATH for its Unix socket "
                         "(default: $ARENA_ADDRESS)")
    ap.add_argument("--token", default=os.environ.get("ARENA_TOKEN"),
                    help="the token the arena gave this bot (default: $ARENA_TOKEN)")
    ap.add_argument("--name", default=None, help=f"bot name to report (default: {player.name})")
    ap.add_argument("--log-level", default="INFO",
                    choices=("DEBUG", "INFO", "WARNING", "ERROR"), help="stderr log level")
    ap.add_argument("--connect-timeout", type=float, default=10.0, metavar="SECONDS",
                    help="how long to wait for the arena to accept the connection")
    env = os.environ.get
    ap.add_argument("--tls-ca", default=env("ARENA_TLS_CA"), metavar="CA.pem",
                    help="connect with TLS, verifying the arena with this CA certificate "
                    "(default: $ARENA_TLS_CA; none: plaintext)")
    ap.add_argument("--tls-cert", default=env("ARENA_TLS_CERT"), metavar="CERT.pem",
                    help="client certificate for mutual TLS (default: $ARENA_TLS_CERT)")
    ap.add_argument("--tls-key", default=env("ARENA_TLS_KEY"), metavar="KEY.pem",
                    help="the client certificate's key (default: $ARENA_TLS_KEY)")
    ap.add_argument("--tls-server-name", metavar="NAME",
                    help="host name to verify in the arena's certificate (default: the "
                    "--arena host)")
    args, extra = ap.parse_known_args(argv)
    if extra:
        ap.error(f"unrecognized arguments: {' '.join(extra)} (a bot's own options: parse them "
                 "first with parse_known_args() and pass the rest, run(player, argv=rest), as "
                 "sample_bots/random_bot.py does)")
    if (args.tls_cert is None) != (args.tls_key is None):
        ap.error("--tls-cert and --tls-key go together (mutual TLS needs both)")
    if (args.tls_cert or args.tls_server_name) and not args.tls_ca:
        ap.error("--tls-cert / --tls-server-name need --tls-ca (the CA of the arena's "
                 "certificate)")
    args.tls_credentials = None
    if args.tls_ca:
        from ..protocol.tls import channel_credentials
        try:
            args.tls_credentials = channel_credentials(args.tls_ca, args.tls_cert, args.tls_key)
        except ValueError as exc:
            ap.error(str(exc))
    if not 0 < args.connect_timeout <= 86_400:  # also rejects nan and inf
        ap.error("--connect-timeout must be a number of seconds in (0, 86400]")
    if not args.arena:
        ap.error("the arena address is required: --arena HOST:PORT or unix:PATH "
                 "(or set ARENA_ADDRESS)")
    if not args.token:
        ap.error("the token is required: --token TOKEN (or set ARENA_TOKEN)")
    for what, value in (("--token", args.token), ("--name", args.name or "")):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            ap.error(f"{what} must be text (UTF-8); got {value!r}")
    return args


def _channel(args: argparse.Namespace) -> grpc.aio.Channel:
    """The channel to the arena: plaintext, or TLS with ``--tls-ca`` (see module docstring;
    the files were checked by :func:`_parse_args`)."""
    if not args.tls_ca:
        return grpc.aio.insecure_channel(args.arena)
    options = [("grpc.ssl_target_name_override", args.tls_server_name)] \
        if args.tls_server_name else []
    return grpc.aio.secure_channel(args.arena, args.tls_credentials, options=options)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:2000]


class _Session:
    """One connection: the outgoing queue, the per-match rules, and message handling."""

    def __init__(self, player: Player, name: str) -> None:
        self.player = player
        self.name = name
        self.out: deque[pb.BotMessage] = deque()  # answers to write, in order
        self.matches: dict[str, MatchInfo] = {}
        self.views = ViewDecoder()
        #: (request id, time ms, view, start, coroutine) of an ``async def decide`` to await
        self.awaiting: tuple[int, int, View, float, Any] | None = None
        self.registered = False
        self.rejected = False
        #: the arena answered TRY_AGAIN_LATER: register again on a new stream
        self.busy = False
        self.goodbye = False

    def send(self, msg: pb.BotMessage) -> None:
        self.out.append(msg)

    def error(self, request_id: int, message: str) -> None:
        self.send(pb.BotMessage(error=pb.ErrorReport(request_id=request_id, message=message)))

    def handle(self, msg: pb.ArenaMessage) -> bool:
        """Handle one arena message; False when the session should end."""
        kind = msg.WhichOneof("kind")
        if kind == "register":
            r = msg.register
            if not r.accepted:
                if r.reason == pb.REGISTER_REJECT_REASON_TRY_AGAIN_LATER:
                    log.info("the arena is busy: %s", r.detail)
                    self.busy = True
                    return False
                reason = pb.RegisterRejectReason.Name(r.reason).removeprefix(
                    "REGISTER_REJECT_REASON_")
                log.error("registration rejected (%s): %s", reason, r.detail)
                self.rejected = True
                return False
            self.registered = True
            log.info("registered with the arena as %r", r.arena_name)
        elif kind == "match_start":
            self._on_match_start(msg.match_start)
        elif kind == "decision":
            self._on_decision(msg.decision)
        elif kind == "rejection":
            rejection = msg.rejection
            log.warning("arena rejected request %d (%s): %s", rejection.request_id,
                        pb.RejectionReason.Name(rejection.reason).removeprefix(
                            "REJECTION_REASON_"), rejection.detail)
        elif kind == "match_end":
            self._on_match_end(msg.match_end)
        elif kind == "goodbye":
            log.info("arena says goodbye: %s", msg.goodbye.reason)
            self.goodbye = True
        else:
            log.debug("ignoring an arena message of unknown kind")
        return True

    def _on_match_start(self, m: pb.MatchStart) -> None:
        try:
            info = match_info_from_proto(m)
        except ConversionError as exc:
            log.error("cannot read the start of match %r: %s", m.match_id, exc)
            return
        self.matches[info.match_id] = info
        self.views.forget(info.match_id)
        log.info("match %s starts: %s, seat %d, %s", info.match_id, info.cfg.preset, info.seat,
                 " / ".join(info.names))
        try:
            self.player.on_match_start(info)
        except Exception:
            log.exception("on_match_start raised")

    def _on_match_end(self, m: pb.MatchEnd) -> None:
        self.matches.pop(m.match_id, None)
        self.views.forget(m.match_id)
        try:
            end = match_end_from_proto(m)
        except ConversionError as exc:
            log.error("cannot read the end of match %r: %s", m.match_id, exc)
            return
        log.info("match %s ended (%s): scores %s, places %s", end.match_id, end.reason,
                 list(end.scores), list(end.placings))
        try:
            self.player.on_match_end(end)
        except Exception:
            log.exception("on_match_end raised")

    def _on_decision(self, req: pb.DecisionRequest) -> None:
        rid = req.request_id
        info = self.matches.get(req.match_id)
        if info is None:
            self.error(rid, f"unknown match {req.match_id!r} (no MatchStart received)")
            return
        try:
            view = self.views.decode(req.view, info.cfg, req.match_id)
        except ConversionError as exc:
            self.error(rid, f"cannot read the view: {exc}")
            return
        t0 = time.perf_counter()
        self.player.request_time_ms = req.time_ms
        try:
            action = self.player.decide(view)
        except Exception as exc:
            log.exception("decide raised on request %d", rid)
            self.error(rid, _describe(exc))
            return
        if inspect.isawaitable(action):  # an ``async def decide``: _play awaits it
            self.awaiting = (rid, req.time_ms, view, t0, action)
            return
        self._answer(rid, req.time_ms, view, t0, action)

    async def finish_awaiting(self) -> None:
        """Await the coroutine of an ``async def decide`` and send its answer (or its error)."""
        if self.awaiting is None:
            return
        rid, time_ms, view, t0, pending = self.awaiting
        self.awaiting = None
        try:
            action = await pending
        except Exception as exc:
            log.exception("decide raised on request %d", rid)
            self.error(rid, _describe(exc))
            return
        self._answer(rid, time_ms, view, t0, action)

    def _answer(self, rid: int, time_ms: int, view: View, t0: float, action: object) -> None:
        ms = (time.perf_counter() - t0) * 1000
        if ms > time_ms > 0:
            log.warning("decide took %.0f ms on request %d (time allowed %d ms)", ms, rid,
                        time_ms)
        try:
            if isinstance(action, bool) or not isinstance(action, SupportsIndex):
                raise TypeError("not an action code")
            code = operator.index(action)
            text = action_to_text(code)
        except (TypeError, ConversionError):
            log.error("decide returned %r, not an action code", action)
            self.error(rid, f"decide returned {action!r:.200}, not an action code")
            return
        if view.legal_actions and code not in view.legal_actions:
            log.warning("decide returned %s, which is not legal here", text)
        self.send(pb.BotMessage(decision=pb.DecisionResponse(request_id=rid, action=text)))


def run(player: Player, argv: Sequence[str] | None = None) -> None:
    """Connect to the arena and serve ``player`` until the arena ends the session.

    Args:
        player: the bot's policy (a :class:`Player`).
        argv: command-line arguments (default ``sys.argv[1:]``), see the module docstring.

    Returns:
        normally when the arena closes the stream, or on SIGTERM / SIGINT (exit status 0).

    Raises:
        SystemExit: with status 2 for bad arguments, 1 when the arena cannot be reached or the
            connection breaks, 3 when the registration is rejected (a one-line reason is
            logged to stderr; no traceback).
    """
    args = _parse_args(player, argv)
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, args.log_level),
                        format="%(asctime)s %(name)s %(levelname)s: %(message)s")
    status = _serve(player, args)
    if status != EXIT_OK:
        raise SystemExit(status)


_EOF = object()  # the reader's mark for the end of the stream


async def _read_ahead(call: Any, inbox: asyncio.Queue[object]) -> None:
    """Read the arena's messages into ``inbox`` as they come (a read is always pending, so
    what the arena sends while ``decide`` runs is received), then ``_EOF`` or the RpcError."""
    try:
        while (msg := await call.read()) is not grpc.aio.EOF:
            inbox.put_nowait(msg)
    except grpc.RpcError as exc:
        inbox.put_nowait(exc)
    else:
        inbox.put_nowait(_EOF)


async def _play(call: Any, session: _Session, inbox: asyncio.Queue[object]) -> None:
    """Handle the arena's messages and write the answers until the stream ends or the session
    says stop. Raises grpc.RpcError when the connection breaks."""
    while True:
        item = await inbox.get()
        if item is _EOF:
            return
        if isinstance(item, grpc.RpcError):
            raise item
        if not isinstance(item, pb.ArenaMessage):   # the reader queues nothing else
            raise TypeError(f"unexpected item in the inbox: {item!r:.80}")
        if not session.handle(item):
            return
        await session.finish_awaiting()
        while session.out:
            await call.write(session.out.popleft())


async def _ended_by_arena(reader: asyncio.Task[None], inbox: asyncio.Queue[object],
                          session: _Session) -> bool:
    """After a failed write: whether the arena had ended the session meanwhile (a Goodbye, or
    a clean end of the stream, e.g. while ``decide`` ran), looking at what the reader got."""
    try:
        await asyncio.wait_for(asyncio.shield(reader), 2.0)
    except TimeoutError:
        return False
    while not inbox.empty():
        item = inbox.get_nowait()
        if item is _EOF:
            return True
        if isinstance(item, pb.ArenaMessage) and item.WhichOneof("kind") == "goodbye":
            session.handle(item)
            return True
    return False


def _serve(player: Player, args: argparse.Namespace) -> int:
    """Serve ``player`` on one event loop (``grpc.aio``): messages are read, handled and
    answered in turn on this thread, with no hand-off between threads per message."""
    return asyncio.run(_serve_async(player, args))


class _Stopper:
    """SIGTERM / SIGINT while serving (in the main thread only): the first cancels the serving
    task, which ends once the current ``decide`` returns; a second exits at once. A context
    manager: the previous handlers are restored on exit."""

    def __init__(self) -> None:
        self.task = asyncio.current_task()
        self.loop = asyncio.get_running_loop()
        self.stopping = False
        self.saved: dict[signal.Signals, _Handler] = {}

    def __call__(self, signum: int, _frame: FrameType | None) -> None:
        if self.stopping:  # a second signal: do not wait for decide to finish
            raise SystemExit(EXIT_OK)
        self.stopping = True
        log.info("received %s: leaving", signal.Signals(signum).name)
        if self.task is not None:
            self.loop.call_soon_threadsafe(self.task.cancel)

    def __enter__(self) -> _Stopper:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                self.saved[sig] = signal.signal(sig, self)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self.saved.items():
            signal.signal(sig, handler)


async def _serve_async(player: Player, args: argparse.Namespace) -> int:
    name = args.name or player.name
    session = _Session(player, name)
    with _Stopper() as stopper:
        try:
            return await _connect(args, player, name, session)
        except asyncio.CancelledError:
            if stopper.stopping:
                return EXIT_OK
            raise


async def _connect(args: argparse.Namespace, player: Player, name: str,
                   session: _Session) -> int:
    """Connect, register and serve until the stream ends; the exit status."""
    async with _channel(args) as channel:
        try:
            await asyncio.wait_for(channel.channel_ready(), args.connect_timeout)
        except TimeoutError:
            log.error("cannot reach the arena at %s within %g s", args.arena,
                      args.connect_timeout)
            return EXIT_CONNECTION
        status = await _register_and_play(channel, args, player, name, session)
    if status is not None:
        return status
    if session.rejected:
        return EXIT_REJECTED
    if not session.registered:
        log.error("the arena closed the stream before accepting the registration")
        return EXIT_CONNECTION
    return EXIT_OK


async def _register_and_play(channel: grpc.aio.Channel, args: argparse.Namespace,
                             player: Player, name: str, session: _Session) -> int | None:
    """:func:`_stream`, again on a new stream while the arena answers TRY_AGAIN_LATER (see
    the module docstring); the exit status as :func:`_stream`'s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + args.connect_timeout
    pause = RETRY_FIRST_S
    while True:
        status = await _stream(channel, args, player, name, session)
        if not session.busy:
            return status
        if loop.time() + pause > deadline:
            log.error("the arena was too busy to take the registration within %g s",
                      args.connect_timeout)
            return EXIT_CONNECTION
        await asyncio.sleep(pause)
        pause = min(2 * pause, RETRY_MAX_S)
        session.busy = False


async def _stream(channel: grpc.aio.Channel, args: argparse.Namespace, player: Player,
                  name: str, session: _Session) -> int | None:
    """Open the Play stream, register and play; an exit status when the stream broke, None
    when it ended normally."""
    call = channel.stream_stream(
        PLAY_METHOD, request_serializer=pb.BotMessage.SerializeToString,
        response_deserializer=pb.ArenaMessage.FromString)()
    inbox: asyncio.Queue[object] = asyncio.Queue()
    reader = asyncio.create_task(_read_ahead(call, inbox))
    try:
        await call.write(pb.BotMessage(register=pb.RegisterRequest(
            name=name, version=str(player.version), protocol_version=PROTOCOL_VERSION,
            token=args.token, client=f"arena-sdk-python/{__version__}")))
        await _play(call, session, inbox)
    except grpc.RpcError as exc:
        if session.rejected:  # the status that follows a rejected registration
            return EXIT_REJECTED
        if session.busy:
            return None
        if session.goodbye or await _ended_by_arena(reader, inbox, session):
            return EXIT_OK
        log.error("connection to the arena lost: %s %s", exc.code().name, exc.details())
        return EXIT_CONNECTION
    finally:
        reader.cancel()
        call.cancel()
    return None
