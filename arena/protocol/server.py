"""The arena's gRPC server (``grpc.aio``): bots connect, register with a token, and become
:class:`~arena.protocol.session.RemoteBot` objects the match runner plays with.

Usage (inside the arena's event loop)::

    server = ArenaServer("127.0.0.1:0")
    port = await server.start()                 # the bound port
    server.expect("s3cret", "random-1")         # token -> the arena's name for the bot
    ...start the bot: python my_bot.py --arena 127.0.0.1:<port> --token s3cret
    bot = await server.wait_for_bot("s3cret", timeout_s=10)   # -> RemoteBot
    result = await run_match(spec, [bot, ...])
    await server.stop()

Registration (first message on a stream): the token must have been announced with
:meth:`ArenaServer.expect` (for the transport the stream came over, when it names one), the
protocol version must be supported, and no live connection may hold the token already;
otherwise the bot gets a ``RegisterResponse`` with the reason and the stream is closed. A bot
that sends nothing within ``register_timeout_s`` is dropped the same way.

Tokens (:class:`arena.protocol.tokens.Tokens`) are compared with :func:`hmac.compare_digest`
(looked up by their SHA-256). Security
events are reported through ``on_warning`` (the arena prints them, even with ``--quiet``),
rate-limited per kind (:class:`arena.protocol.admission.WarningGate`: a flood gives a few lines
and one summary per minute): a token used over the wrong transport (a remote bot's over the
Unix socket, a started bot's over TCP; refused), a second connection with a token that is in
use (refused), a registration that the token's peer check says came from another process than
the one started for it (accepted, but the token has leaked), failed registrations from an
address, and streams pushed out of a full waiting room.

Two listeners: the TCP port (``bind``; remote bots) with keepalive pings that detect dead peers,
and the Unix socket (``unix_socket``; the bots the arena starts), a second gRPC server that
never pings, so a bot process stopped between its matches keeps its connection
(:mod:`arena.protocol.limits`). Limits: each listener has a waiting room for streams that have
not registered (:class:`arena.protocol.admission.WaitingRoom`: ``max_unregistered`` places, at
most ``max_unregistered_per_peer`` per TCP address; at a cap a new stream pushes out the oldest
one, which is told ``TRY_AGAIN_LATER``, so squatters cannot keep bots out; on the Unix socket,
where gRPC tells no connection from another, a process holding more than
:data:`arena.protocol.unixpeers.MAX_CONNECTIONS_PER_PROCESS` connections, named by the kernel's
``SO_PEERCRED``, has them closed); connections that
never complete the HTTP/2 start or hold no stream are closed after ``handshake_timeout_s`` /
``idle_timeout_s``; at most ``max_connections`` connections per listener; and each failed
registration from an address delays the answers to the next failed ones from it
(:class:`arena.protocol.limits.Backoff`; a valid token is never delayed).

After a rejected ``RegisterResponse`` the stream ends with a gRPC status that matches the
reason (:data:`arena.protocol.registration.REJECT_STATUS`: UNAUTHENTICATED for a bad token,
FAILED_PRECONDITION for an unsupported protocol version, ALREADY_EXISTS for a token already
connected, INVALID_ARGUMENT / DEADLINE_EXCEEDED for a missing registration, UNAVAILABLE for "try
again later"), so generic gRPC clients see the failure too.

The Play method is served with a raw-bytes request deserializer so a message that does not parse
is answered with a rejection instead of failing the RPC (see :mod:`arena.protocol.session`).

Besides ``threefiveeight.v1.ArenaService`` the server offers the standard gRPC services: server
reflection (``grpc.reflection.v1alpha.ServerReflection``, so ``grpcurl`` / ``buf curl`` work
without the .proto) and health (``grpc.health.v1.Health``: SERVING while started, NOT_SERVING
while stopping). With ``tls`` (:class:`arena.protocol.tls.TlsConfig`) the port speaks TLS only;
without it a bind address other than loopback logs a warning (the token travels in clear).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc

from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from . import SUPPORTED_PROTOCOL_VERSIONS
from ._gen.threefiveeight.v1 import arena_pb2 as pb
from .admission import IDLE, Place, WaitingRoom, WarningGate
from .errors import BotConnectTimeout, ServerStartError, UnknownTokenError, redact
from .limits import (
    KEEPALIVE_TIME_S,
    KEEPALIVE_TIMEOUT_S,
    MAX_STREAMS_PER_CONNECTION,
    MAX_STREAMS_PER_UNIX_CONNECTION,
    MAX_UNREGISTERED,
    MAX_UNREGISTERED_PER_PEER,
    Backoff,
    peer_host,
    tcp_keepalive_options,
    transport_options,
    unix_keepalive_options,
)
from . import unixpeers
from .session import CLOSE, BotIdentity, RemoteBot, serialize
from .tls import TlsConfig, is_loopback
from .registration import (
    REJECT_STATUS,
    WRONG_TRANSPORT,
    register_request,
    reject,
    reject_message,
)
from .tokens import PeerCheck, Tokens, Transport, transport_of

__all__ = ["REJECT_STATUS", "ArenaServer", "PeerCheck", "Transport", "transport_of"]

log = logging.getLogger("arena.protocol")

SERVICE_NAME = "threefiveeight.v1.ArenaService"
_MAX_NAME = 100
#: the first message did not come: the stream was pushed out of the waiting room
_PUSHED_OUT = object()
#: seconds a stream that sent EOF is given to turn out cancelled (the transport closed it)
_CLOSE_GRACE_S = 0.2
#: what may have ended a stream that was cancelled under the server
_CLOSED_BY = ("its process ended, or the connection was closed: a message over 4 MiB, "
              "keepalive pings unanswered or sent more often than every 5 s, a network fault")


class ArenaServer:
    """The gRPC server bots connect to (see the module docstring).

    Args:
        bind: ``host:port`` to listen on; port 0 picks a free port (see :meth:`start`).
        register_timeout_s: time a new stream has to send its RegisterRequest, seconds.
        supported_versions: protocol versions accepted at registration.
        max_unregistered: streams that may wait to register at once, per listener.
        max_unregistered_per_peer: of which from one TCP address.
        max_connections: connections at once, per listener (None: no cap).
        handshake_timeout_s / idle_timeout_s: a connection that does not complete the HTTP/2
            start / holds no stream is closed after this many seconds (default: the
            registration timeout).
        keepalive_time_s / keepalive_timeout_s: the TCP port pings a connection after this
            long without traffic and closes it when the ping is not answered in time, seconds
            (the Unix socket never pings).
        backoff: the per-address back-off after failed registrations (default: 0.1 s doubling
            up to a quarter of the registration timeout, at most 5 s).
        on_warning: called with each security warning (one line); default: logged.
        warning_window_s: the warning gate's window, seconds (a summary line per window).
        tls: serve TLS (and require client certificates when it has ``client_ca``); None:
            plaintext. The Unix socket is always plaintext.
        unix_socket: also listen on this Unix domain socket path (for local, sandboxed bots;
            the caller owns its directory, see :mod:`arena.sandbox.socketdir`). Bots dial it
            as ``unix:PATH`` (:attr:`unix_address`).

    Attributes:
        bots: token -> the live :class:`RemoteBot` registered with it.
        rooms: transport -> its :class:`~arena.protocol.admission.WaitingRoom`.
    """

    def __init__(self, bind: str = "127.0.0.1:0", *, register_timeout_s: float = 10.0,
                 supported_versions: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS,
                 max_unregistered: int = MAX_UNREGISTERED,
                 max_unregistered_per_peer: int = MAX_UNREGISTERED_PER_PEER,
                 max_connections: int | None = None,
                 handshake_timeout_s: float | None = None, idle_timeout_s: float | None = None,
                 keepalive_time_s: float = KEEPALIVE_TIME_S,
                 keepalive_timeout_s: float = KEEPALIVE_TIMEOUT_S,
                 backoff: Backoff | None = None,
                 on_warning: Callable[[str], None] | None = None,
                 warning_window_s: float = 60.0,
                 tls: TlsConfig | None = None, unix_socket: str | None = None) -> None:
        self.bind = bind
        self.unix_socket = unix_socket
        self.tls = tls
        self._health = health.aio.HealthServicer()
        self.register_timeout_s = register_timeout_s
        self.supported_versions = tuple(supported_versions)
        self.max_connections = max_connections
        self.handshake_timeout_s = handshake_timeout_s or register_timeout_s
        self.idle_timeout_s = idle_timeout_s or register_timeout_s
        self.keepalive_time_s, self.keepalive_timeout_s = keepalive_time_s, keepalive_timeout_s
        self.backoff = backoff or Backoff(max_s=min(5.0, register_timeout_s / 4))
        self.on_warning = on_warning or (lambda text: log.warning("%s", text))
        self.warnings = WarningGate(self.on_warning, window_s=warning_window_s)
        self.rooms: dict[Transport, WaitingRoom] = {
            # every Unix-socket connection is the same peer to gRPC: one cap for them all
            "tcp": WaitingRoom(max_unregistered, max_unregistered_per_peer),
            "unix": WaitingRoom(max_unregistered, max_unregistered)}
        self.bots: dict[str, RemoteBot] = {}
        self.tokens = Tokens()
        #: the tasks serving registered streams (each ends once its status is sent)
        self._streams: set[asyncio.Task[Any]] = set()
        self._waiters: dict[str, list[asyncio.Future[RemoteBot]]] = {}
        self._servers: list[grpc.aio.Server] = []
        self._policed = float("-inf")    # when the Unix socket's connections were last read
        self.port: int | None = None

    @property
    def unregistered(self) -> int:
        """Streams waiting to register now (both listeners)."""
        return sum(len(room) for room in self.rooms.values())

    # ----- lifecycle -------------------------------------------------------------------------
    def _new_server(self, keepalive: list[tuple[str, int]],
                    max_streams: int = MAX_STREAMS_PER_CONNECTION) -> grpc.aio.Server:
        server = grpc.aio.server(options=[*keepalive, *transport_options(
            self.handshake_timeout_s, self.idle_timeout_s, self.max_connections, max_streams)])
        handler = grpc.method_handlers_generic_handler(SERVICE_NAME, {
            "Play": grpc.stream_stream_rpc_method_handler(
                self._play, request_deserializer=None, response_serializer=serialize)})
        server.add_generic_rpc_handlers((handler,))
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
        return server

    async def start(self) -> int:
        """Start listening; returns the bound port.

        Raises:
            ServerStartError: the address cannot be bound (in use, bad host), a TLS file cannot
                be read, or already started.
        """
        if self._servers:
            raise ServerStartError("ArenaServer.start() called twice")
        server = self._new_server(tcp_keepalive_options(self.keepalive_time_s,
                                                        self.keepalive_timeout_s))
        port: int  # what grpc's add_*_port returns (0 when it cannot listen)
        try:
            if self.tls is not None:
                port = server.add_secure_port(self.bind, self.tls.server_credentials())
            else:
                port = server.add_insecure_port(self.bind)
        except RuntimeError as exc:
            raise ServerStartError(f"cannot listen on {self.bind!r}: {exc}") from None
        if not port:
            raise ServerStartError(f"cannot listen on {self.bind!r} (address in use?)")
        servers = [server]
        if self.unix_address is not None:
            unix = self._new_server(unix_keepalive_options(), MAX_STREAMS_PER_UNIX_CONNECTION)
            try:
                ok = unix.add_insecure_port(self.unix_address)
            except RuntimeError:
                ok = 0
            if not ok:
                raise ServerStartError(f"cannot listen on {self.unix_address!r}")
            servers.append(unix)
        for srv in servers:
            await srv.start()
        self._servers, self.port = servers, port
        for name in ("", SERVICE_NAME):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        mode = "plaintext" if self.tls is None else \
            "TLS, client certificates required" if self.tls.client_ca else "TLS"
        log.info("arena server listening on %s (port %d, %s)", self.bind, port, mode)
        if self.tls is None and not is_loopback(self.bind):
            log.warning("listening on %s without TLS: bot tokens and every message travel in "
                        "clear; set [server] tls_cert and tls_key", self.bind)
        return port

    @property
    def unix_address(self) -> str | None:
        """``unix:PATH`` of the Unix-socket listener, or None without one."""
        return None if self.unix_socket is None else f"unix:{self.unix_socket}"

    async def stop(self, grace_s: float = 1.0, reason: str = "the arena is shutting down") -> None:
        """Send ``Goodbye`` to every connected bot, close their streams and stop the server.
        Waits up to ``grace_s`` seconds for the streams to send their Goodbye and status, then
        gives streams still open another ``grace_s`` before cancelling them (so at most
        ``2 * grace_s`` in all). Warnings held back by the gate are summarised. Idempotent."""
        for bot in list(self.bots.values()):
            bot.close(reason)
        for waiters in self._waiters.values():
            for fut in waiters:
                if not fut.done():
                    fut.cancel()
        self._waiters.clear()
        self.tokens.clear_peer_checks()
        if self._streams:  # let each stream send its Goodbye and status before the transport
            # goes: a bot still writing when the connection closes loses both to a broken pipe
            await asyncio.wait(set(self._streams), timeout=grace_s)
        if self._servers:
            await self._health.enter_graceful_shutdown()
            servers, self._servers = self._servers, []
            await asyncio.gather(*(srv.stop(grace_s) for srv in servers))
        self.warnings.flush()

    # ----- tokens and bots -------------------------------------------------------------------
    def expect(self, token: str, name: str, *, transport: Transport | None = None,
               peer_check: PeerCheck | None = None) -> None:
        """Allow a bot to register with ``token``; ``name`` is the arena's name for it.
        ``transport``: the only listener it may register over (``"tcp"``: a remote bot;
        ``"unix"``: a bot the arena starts and gives the Unix socket); a registration over
        the other is refused with a warning. None: either. ``peer_check`` (optional, see
        :meth:`set_peer_check`) is run on its registration.

        Raises:
            ValueError: empty token or name, or an unknown transport.
        """
        self.tokens.expect(token, name, transport=transport, peer_check=peer_check)

    def set_peer_check(self, token: str, check: PeerCheck) -> None:
        """Run ``check(peer)`` when a bot registers with ``token`` (gRPC's peer string, e.g.
        ``"ipv4:127.0.0.1:5555"``); a non-None answer (why the peer is not the expected
        process) is reported as a warning. The registration is still accepted."""
        self.tokens.set_peer_check(token, check)

    def forget(self, token: str) -> None:
        """Stop accepting ``token``; a bot connected with it is told goodbye."""
        self.tokens.forget(token)
        bot = self.bots.pop(token, None)
        if bot is not None:
            bot.close("the arena removed this bot")

    async def wait_for_bot(self, token: str, timeout_s: float) -> RemoteBot:
        """The live bot registered with ``token``, waiting up to ``timeout_s`` seconds for it
        to connect.

        Raises:
            UnknownTokenError: ``token`` was never passed to :meth:`expect`.
            BotConnectTimeout: no bot registered with it in time.
        """
        name = self.tokens.name_for(token)
        if name is None:
            raise UnknownTokenError(f"no bot is expected with token {redact(token)}: "
                                    "call expect(token, name) first")
        bot = self.bots.get(token)
        if bot is not None and bot.alive:
            return bot
        fut: asyncio.Future[RemoteBot] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(token, []).append(fut)
        try:
            return await asyncio.wait_for(fut, timeout_s)
        except TimeoutError:
            raise BotConnectTimeout(name, timeout_s) from None
        finally:
            waiters = self._waiters.get(token, [])
            if fut in waiters:
                waiters.remove(fut)

    # ----- the Play stream -------------------------------------------------------------------
    def _register(self, raw: bytes | None, peer: str) -> tuple[RemoteBot | None, pb.ArenaMessage]:
        """Check a first message; returns (bot, response) with bot None when rejected."""
        reg = register_request(raw, self.register_timeout_s)
        if isinstance(reg, str):
            return None, reject_message(pb.REGISTER_REJECT_REASON_NOT_REGISTERED, reg)
        if reg.protocol_version not in self.supported_versions:
            return None, reject_message(
                pb.REGISTER_REJECT_REASON_UNSUPPORTED_PROTOCOL_VERSION,
                f"protocol version {reg.protocol_version!r} is not supported; this arena "
                f"speaks {', '.join(self.supported_versions)}")
        name = self.tokens.name_for(reg.token)
        if name is None:
            return None, reject_message(pb.REGISTER_REJECT_REASON_BAD_TOKEN,
                                     "unknown token: check --token / ARENA_TOKEN")
        wrong = self.tokens.transport_problem(reg.token, name, transport_of(peer))
        if wrong is not None:
            self.warnings.warn(("transport", name), f"{wrong}; it was refused. The token has "
                               f"leaked (latest from {peer})", burst=3)
            return None, reject_message(pb.REGISTER_REJECT_REASON_BAD_TOKEN, WRONG_TRANSPORT)
        old = self.bots.get(reg.token)
        if old is not None and old.alive:
            self.warnings.warn(
                ("already", name), f"a second connection ({peer}) used the token of a bot "
                f"that is already connected; it was refused (a bot is already connected with "
                f"this token ({name!r})). The token may have leaked", burst=3)
            return None, reject_message(pb.REGISTER_REJECT_REASON_ALREADY_CONNECTED,
                                     f"a bot is already connected with this token ({name!r})")
        ident = BotIdentity(name=name, reported_name=reg.name[:_MAX_NAME],
                            version=reg.version[:_MAX_NAME], client=reg.client[:_MAX_NAME],
                            protocol_version=reg.protocol_version, peer=peer)
        check = self.tokens.peer_check(reg.token)
        problem = check(peer) if check is not None else None
        if problem:
            self.warnings.warn(
                ("leak", name), f"bot {name!r} registered from {peer}, but not from the "
                f"process the arena started for it: {problem}. Its token has leaked (the arena "
                "gives it to the bot's process only, in ARENA_TOKEN); this connection plays as "
                "that bot", burst=3)
        bot = RemoteBot(reg.token, ident)
        self.bots[reg.token] = bot
        for fut in self._waiters.pop(reg.token, []):
            if not fut.done():
                fut.set_result(bot)
        log.info("bot %r registered (reports %r %r, %s) from %s", name, ident.reported_name,
                 ident.version, ident.client or "unknown client", peer)
        return bot, pb.ArenaMessage(register=pb.RegisterResponse(
            accepted=True, detail=f"welcome, {name}", arena_name=name,
            supported_protocol_versions=self.supported_versions))

    async def _first_message(self, context: grpc.aio.ServicerContext,
                             place: Place) -> object:
        """The stream's first message (raw bytes, or ``grpc.aio.EOF``); None when none came
        within the registration timeout; :data:`_PUSHED_OUT` when a newer stream took its
        place first."""
        read = asyncio.ensure_future(context.read())
        try:
            await asyncio.wait({read, place.lost}, timeout=self.register_timeout_s,
                               return_when=asyncio.FIRST_COMPLETED)
            if read.done():
                return read.result()
            return _PUSHED_OUT if place.lost.done() else None
        finally:
            read.cancel()

    async def _admit(self, context: grpc.aio.ServicerContext, peer: str
                     ) -> tuple[RemoteBot, pb.ArenaMessage] | None:
        """A new stream's place in the waiting room, its registration, and its answer when it
        is refused (after the back-off); the bot and its welcome, or None when refused."""
        room, host = self.rooms[transport_of(peer)], peer_host(peer)
        place, lost = room.enter(host)
        if lost is not None:
            self._pushed_out(room, lost, host)
            if host == "unix":
                self._police_unix()
        raw: object = None
        try:
            try:
                raw = await self._first_message(context, place)
            except asyncio.CancelledError:   # the call ended under us: a message over the
                raw = grpc.aio.EOF           # size limit, a cancel, a closed connection
                raise
            finally:
                if raw is grpc.aio.EOF:
                    self._failed(peer, "the stream ended before its RegisterRequest (closed, "
                                 "cancelled, or a message over the 4 MiB limit)")
            if raw is grpc.aio.EOF:
                return None
            if raw is _PUSHED_OUT:
                detail = ("too many streams are waiting to register; open a new one and "
                          "register again after a short pause")
                await reject(context, reject_message(
                    pb.REGISTER_REJECT_REASON_TRY_AGAIN_LATER, detail))
                return None
            if raw is not None and not isinstance(raw, bytes):
                raise TypeError(f"unexpected first message {raw!r:.80}")
            bot, response = self._register(raw, peer)
            if bot is not None:
                return bot, response
            room.penalise(place)
            delay = self.backoff.delay_s(host)     # from the failures before this one
            reply = response.register    # a token used twice or over the wrong transport
            self._failed(peer, reply.detail, warn=not (   # had a warning of its own
                reply.reason == pb.REGISTER_REJECT_REASON_ALREADY_CONNECTED
                or reply.detail == WRONG_TRANSPORT))
            if delay:   # answered at once when a newer stream takes the place
                await asyncio.wait({place.lost}, timeout=delay)
            await reject(context, response, timed_out=raw is None)
            return None
        finally:
            room.leave(place)

    def _police_unix(self) -> None:
        """Under a flood on the Unix socket (at most once a second): close every connection of
        a process that holds more than :data:`~arena.protocol.unixpeers.MAX_CONNECTIONS_PER_PROCESS`
        (the kernel's ``SO_PEERCRED`` names the process; gRPC cannot)."""
        now = time.monotonic()
        if self.unix_socket is None or now - self._policed < 1.0:
            return
        self._policed = now
        me = os.getpid()
        for pid, fds in unixpeers.connections(self.unix_socket).items():
            if pid == me or len(fds) <= unixpeers.MAX_CONNECTIONS_PER_PROCESS:
                continue
            closed = unixpeers.shut_down(fds, pid, self.unix_socket)
            self.warnings.warn(("unix-hog", pid), (
                f"{unixpeers.describe(pid)} held {len(fds)} connections to the arena's Unix "
                f"socket (a bot needs one; at most {unixpeers.MAX_CONNECTIONS_PER_PROCESS}): "
                f"{closed} were closed"), burst=1)

    def _pushed_out(self, room: WaitingRoom, lost: Place, host: str) -> None:
        where = "the Unix socket" if host == "unix" else host
        whose = f"from {where}" if lost.peer == host else "in all"
        what = ("sending nothing, was told to try again later" if lost.state == IDLE else
                "refused and waiting out its back-off, was answered at once")
        log.info("waiting room %s full: a stream %s pushed out", whose, what)
        self.warnings.warn(("pushed-out", host), (
            f"too many streams waiting to register {whose} (at most "
            f"{room.per_peer if lost.peer == host else room.total}): the oldest, {what} "
            f"({room.pushed_out} pushed out so far; a bot that registers at once is never "
            "kept out)"), burst=1)

    async def _play(self, _requests: AsyncIterator[bytes],
                    context: grpc.aio.ServicerContext) -> None:
        """The Play handler: registration, then pump the bot's outbox while a reader task
        feeds incoming messages to its :class:`RemoteBot`.

        Uses ``context.read()`` / ``context.write()`` (not an async generator) so that a
        client's cancellation reaches the ``finally`` below at once instead of whenever the
        generator is garbage-collected; ``add_done_callback`` covers any other way the RPC can
        end.
        """
        peer = context.peer()
        admitted = await self._admit(context, peer)
        if admitted is None:
            return
        bot, response = admitted
        gone = "the stream ended: the bot cancelled it or its connection closed"
        context.add_done_callback(lambda _ctx: self._gone(bot, gone))
        stream = asyncio.current_task()
        if stream is not None:
            self._streams.add(stream)
            stream.add_done_callback(self._streams.discard)
        reader = asyncio.create_task(self._read(bot, context))
        bot.writer = context.write
        try:
            # under the lock: the bot is registered already, so a match may write to it now,
            # and two writes at once fail the call (GRPC_CALL_ERROR_TOO_MANY_OPERATIONS)
            async with bot.write_lock:
                await context.write(response)
            while True:
                item = await bot.outbox.get()
                if item is CLOSE:
                    break
                async with bot.write_lock:
                    await context.write(item)
        except asyncio.CancelledError:
            self._gone(bot, f"{gone} ({_CLOSED_BY})")
            raise
        finally:
            reader.cancel()
            self._gone(bot, "the stream ended")

    def _failed(self, peer: str, detail: str, *, warn: bool = True) -> None:
        """Log a failed registration, count it for the address's back-off, and warn (the gate
        passes the first per address, then a summary per window)."""
        log.info("registration from %s rejected: %s", peer, detail)
        host = peer_host(peer)
        n = self.backoff.failed(host)
        if not warn:
            return
        where = "the Unix socket" if host == "unix" else host
        self.warnings.warn(("failed", host), (
            f"{n} failed registration{'s' if n > 1 else ''} from {where} (latest from {peer}: "
            f"{detail}); the answers to further failed registrations from it now wait up to "
            f"{self.backoff.delay_s(host):g} s"), burst=1)

    def _gone(self, bot: RemoteBot, reason: str) -> None:
        bot.connection_lost(reason)
        if self.bots.get(bot.token) is bot:
            del self.bots[bot.token]

    async def _read(self, bot: RemoteBot, context: grpc.aio.ServicerContext) -> None:
        reason = "the bot closed its stream (its side of it: a half-close)"
        try:
            while True:
                raw = await context.read()
                if raw is grpc.aio.EOF:
                    # a half-close leaves the call open; anything else that ends the stream
                    # (the bot's cancel, a closed connection: GOAWAY, keepalive, a message over
                    # the size limit) ends the call too, and cancels this task within moments
                    await asyncio.sleep(_CLOSE_GRACE_S)
                    break
                try:
                    bot.feed(raw)
                except Exception:
                    log.exception("bot %r: internal error handling a message", bot.name)
                # let the runner that this answer woke go first: posting the next read costs
                # time, and this bot's next message is at least a decision away
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            reason = f"stream error: {type(exc).__name__}: {exc}"
        bot.connection_lost(reason)
        bot.outbox.put_nowait(CLOSE)
