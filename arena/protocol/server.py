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
:meth:`ArenaServer.expect`, the protocol version must be supported, and no live connection may
hold the token already; otherwise the bot gets a ``RegisterResponse`` with the reason and the
stream is closed. A bot that sends nothing within ``register_timeout_s`` is dropped the same way.

Tokens are compared with :func:`hmac.compare_digest` (looked up by their SHA-256). Security
events are reported through ``on_warning`` (the arena prints them, even with ``--quiet``): a
second connection with a token that is in use (refused), a registration that the token's peer
check (:meth:`ArenaServer.expect`) says came from another process than the one started for the
bot (accepted, but the token has leaked), and the first failed registration from an address.

Limits (:mod:`arena.protocol.limits`): at most ``max_unregistered`` streams may wait for their
RegisterRequest at once (more are refused at once); connections that never complete the HTTP/2
start or hold no stream are closed after ``handshake_timeout_s`` / ``idle_timeout_s``; at most
``max_connections`` connections; and each failed registration from an address delays the next
ones from it (:class:`arena.protocol.limits.Backoff`).

After a rejected ``RegisterResponse`` the stream ends with a gRPC status that matches the
reason (:data:`REJECT_STATUS`: UNAUTHENTICATED for a bad token, FAILED_PRECONDITION for an
unsupported protocol version, ALREADY_EXISTS for a token already connected, INVALID_ARGUMENT /
DEADLINE_EXCEEDED for a missing registration), so generic gRPC clients see the failure too.

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
import hashlib
import hmac
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from . import SUPPORTED_PROTOCOL_VERSIONS
from ._gen.threefiveeight.v1 import arena_pb2 as pb
from .errors import BotConnectTimeout, ServerStartError, UnknownTokenError, redact
from .limits import MAX_UNREGISTERED, Backoff, peer_host, transport_options
from .session import CLOSE, BotIdentity, RemoteBot
from .tls import TlsConfig, is_loopback

log = logging.getLogger("arena.protocol")

SERVICE_NAME = "threefiveeight.v1.ArenaService"
_MAX_NAME = 100
#: a token's peer check: None when the peer is the expected process, else why not
PeerCheck = Callable[[str], "str | None"]


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()

#: the gRPC status that ends the stream after a rejected registration, by reject reason
REJECT_STATUS = {
    pb.REGISTER_REJECT_REASON_BAD_TOKEN: grpc.StatusCode.UNAUTHENTICATED,
    pb.REGISTER_REJECT_REASON_UNSUPPORTED_PROTOCOL_VERSION: grpc.StatusCode.FAILED_PRECONDITION,
    pb.REGISTER_REJECT_REASON_ALREADY_CONNECTED: grpc.StatusCode.ALREADY_EXISTS,
    pb.REGISTER_REJECT_REASON_NOT_REGISTERED: grpc.StatusCode.INVALID_ARGUMENT,
}


def _reg_reject(reason: pb.RegisterRejectReason, detail: str) -> pb.ArenaMessage:
    return pb.ArenaMessage(register=pb.RegisterResponse(
        accepted=False, reason=reason, detail=detail,
        supported_protocol_versions=SUPPORTED_PROTOCOL_VERSIONS))


class ArenaServer:
    """The gRPC server bots connect to (see the module docstring).

    Args:
        bind: ``host:port`` to listen on; port 0 picks a free port (see :meth:`start`).
        register_timeout_s: time a new stream has to send its RegisterRequest, seconds.
        supported_versions: protocol versions accepted at registration.
        max_unregistered: streams that may wait for their RegisterRequest at once.
        max_connections: connections at once (None: no cap).
        handshake_timeout_s / idle_timeout_s: a connection that does not complete the HTTP/2
            start / holds no stream is closed after this many seconds (default: the
            registration timeout).
        backoff: the per-address back-off after failed registrations (default: 0.1 s doubling
            up to a quarter of the registration timeout, at most 5 s).
        on_warning: called with each security warning (one line); default: logged.
        tls: serve TLS (and require client certificates when it has ``client_ca``); None:
            plaintext.
        unix_socket: also listen on this Unix domain socket path (for local, sandboxed bots;
            the caller owns its directory, see :mod:`arena.sandbox.socketdir`). Bots dial it
            as ``unix:PATH`` (:attr:`unix_address`).

    Attributes:
        bots: token -> the live :class:`RemoteBot` registered with it.
    """

    def __init__(self, bind: str = "127.0.0.1:0", *, register_timeout_s: float = 10.0,
                 supported_versions: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS,
                 max_unregistered: int = MAX_UNREGISTERED, max_connections: int | None = None,
                 handshake_timeout_s: float | None = None, idle_timeout_s: float | None = None,
                 backoff: Backoff | None = None,
                 on_warning: Callable[[str], None] | None = None,
                 tls: TlsConfig | None = None, unix_socket: str | None = None) -> None:
        self.bind = bind
        self.unix_socket = unix_socket
        self.tls = tls
        self._health = health.aio.HealthServicer()
        self.register_timeout_s = register_timeout_s
        self.supported_versions = tuple(supported_versions)
        self.max_unregistered = max_unregistered
        self.max_connections = max_connections
        self.handshake_timeout_s = handshake_timeout_s or register_timeout_s
        self.idle_timeout_s = idle_timeout_s or register_timeout_s
        self.backoff = backoff or Backoff(max_s=min(5.0, register_timeout_s / 4))
        self.on_warning = on_warning or (lambda text: log.warning("%s", text))
        self.bots: dict[str, RemoteBot] = {}
        self._expected: dict[bytes, tuple[str, str]] = {}   # sha256(token) -> (token, name)
        self._peer_checks: dict[bytes, PeerCheck] = {}
        #: the tasks serving registered streams (each ends once its status is sent)
        self._streams: set[asyncio.Task[Any]] = set()
        self._waiters: dict[str, list[asyncio.Future[RemoteBot]]] = {}
        self._unregistered = 0
        self._server: grpc.aio.Server | None = None
        self.port: int | None = None

    # ----- lifecycle -------------------------------------------------------------------------
    async def start(self) -> int:
        """Start listening; returns the bound port.

        Raises:
            ServerStartError: the address cannot be bound (in use, bad host), a TLS file cannot
                be read, or already started.
        """
        if self._server is not None:
            raise ServerStartError("ArenaServer.start() called twice")
        server = grpc.aio.server(options=[
            ("grpc.keepalive_time_ms", 30_000), ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.so_reuseport", 0), *transport_options(
                self.handshake_timeout_s, self.idle_timeout_s, self.max_connections)])
        handler = grpc.method_handlers_generic_handler(SERVICE_NAME, {
            "Play": grpc.stream_stream_rpc_method_handler(
                self._play, request_deserializer=None,
                response_serializer=pb.ArenaMessage.SerializeToString)})
        server.add_generic_rpc_handlers((handler,))
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
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
        if self.unix_socket is not None:
            try:
                ok = server.add_insecure_port(self.unix_address)
            except RuntimeError:
                ok = 0
            if not ok:
                raise ServerStartError(f"cannot listen on {self.unix_address!r}")
        await server.start()
        self._server, self.port = server, port
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
        ``2 * grace_s`` in all). Idempotent."""
        for bot in list(self.bots.values()):
            bot.close(reason)
        for waiters in self._waiters.values():
            for fut in waiters:
                if not fut.done():
                    fut.cancel()
        self._waiters.clear()
        self._peer_checks.clear()
        if self._streams:  # let each stream send its Goodbye and status before the transport
            # goes: a bot still writing when the connection closes loses both to a broken pipe
            await asyncio.wait(set(self._streams), timeout=grace_s)
        if self._server is not None:
            await self._health.enter_graceful_shutdown()
            await self._server.stop(grace_s)
            self._server = None

    # ----- tokens and bots -------------------------------------------------------------------
    def expect(self, token: str, name: str, *, peer_check: PeerCheck | None = None) -> None:
        """Allow a bot to register with ``token``; ``name`` is the arena's name for it.
        ``peer_check`` (optional, see :meth:`set_peer_check`) is run on its registration.

        Raises:
            ValueError: empty token or name.
        """
        if not token or not name:
            raise ValueError("expect() needs a non-empty token and name")
        self._expected[_digest(token)] = (token, name)
        if peer_check is not None:
            self._peer_checks[_digest(token)] = peer_check

    def set_peer_check(self, token: str, check: PeerCheck) -> None:
        """Run ``check(peer)`` when a bot registers with ``token`` (gRPC's peer string, e.g.
        ``"ipv4:127.0.0.1:5555"``); a non-None answer (why the peer is not the expected
        process) is reported as a warning. The registration is still accepted."""
        self._peer_checks[_digest(token)] = check

    def _name_for(self, token: str) -> str | None:
        """The arena's name for ``token``, or None. Looked up by the token's SHA-256 (so the
        lookup's timing tells nothing about the expected tokens), then compared with
        :func:`hmac.compare_digest`."""
        entry = self._expected.get(_digest(token))
        if entry is None or not hmac.compare_digest(
                entry[0].encode("utf-8", "surrogatepass"),
                token.encode("utf-8", "surrogatepass")):
            return None
        return entry[1]

    def forget(self, token: str) -> None:
        """Stop accepting ``token``; a bot connected with it is told goodbye."""
        self._expected.pop(_digest(token), None)
        self._peer_checks.pop(_digest(token), None)
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
        name = self._name_for(token)
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
    def _register_request(self, raw: bytes | None) -> pb.RegisterRequest | str:
        """The RegisterRequest of a first message, or why there is none."""
        if raw is None:
            return f"no RegisterRequest within {self.register_timeout_s:g} s"
        try:
            msg = pb.BotMessage.FromString(raw)
        except DecodeError as exc:
            return f"first message does not parse as a BotMessage ({exc})"
        if msg.WhichOneof("kind") != "register":
            return "the first message must be a RegisterRequest"
        return msg.register

    def _register(self, raw: bytes | None, peer: str) -> tuple[RemoteBot | None, pb.ArenaMessage]:
        """Check a first message; returns (bot, response) with bot None when rejected."""
        reg = self._register_request(raw)
        if isinstance(reg, str):
            return None, _reg_reject(pb.REGISTER_REJECT_REASON_NOT_REGISTERED, reg)
        if reg.protocol_version not in self.supported_versions:
            return None, _reg_reject(
                pb.REGISTER_REJECT_REASON_UNSUPPORTED_PROTOCOL_VERSION,
                f"protocol version {reg.protocol_version!r} is not supported; this arena "
                f"speaks {', '.join(self.supported_versions)}")
        name = self._name_for(reg.token)
        if name is None:
            return None, _reg_reject(pb.REGISTER_REJECT_REASON_BAD_TOKEN,
                                     "unknown token: check --token / ARENA_TOKEN")
        old = self.bots.get(reg.token)
        if old is not None and old.alive:
            return None, _reg_reject(pb.REGISTER_REJECT_REASON_ALREADY_CONNECTED,
                                     f"a bot is already connected with this token ({name!r})")
        ident = BotIdentity(name=name, reported_name=reg.name[:_MAX_NAME],
                            version=reg.version[:_MAX_NAME], client=reg.client[:_MAX_NAME],
                            protocol_version=reg.protocol_version, peer=peer)
        check = self._peer_checks.get(_digest(reg.token))
        problem = check(peer) if check is not None else None
        if problem:
            self.on_warning(
                f"bot {name!r} registered from {peer}, but not from the process the arena "
                f"started for it: {problem}. Its token has leaked (the arena gives it to the "
                "bot's process only, in ARENA_TOKEN); this connection plays as that bot")
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
        if self._unregistered >= self.max_unregistered:
            log.warning("registration from %s refused: %d connections are already waiting to "
                        "register", peer, self._unregistered)
            await context.write(_reg_reject(
                pb.REGISTER_REJECT_REASON_NOT_REGISTERED,
                f"too many connections are waiting to register (at most "
                f"{self.max_unregistered}); try again later"))
            return
        self._unregistered += 1
        try:
            try:
                raw = await asyncio.wait_for(context.read(), self.register_timeout_s)
            except TimeoutError:
                raw = None
            if raw is grpc.aio.EOF:
                return
            delay = self.backoff.delay_s(peer_host(peer))
            if delay:  # failed registrations from this address: slow it down
                await asyncio.sleep(delay)
            bot, response = self._register(raw, peer)
        finally:
            self._unregistered -= 1
        if bot is None:
            self._refused(peer, response.register)
            await context.write(response)
            code = grpc.StatusCode.DEADLINE_EXCEEDED if raw is None else \
                REJECT_STATUS[response.register.reason]
            context.set_code(code)
            context.set_details(response.register.detail)
            return
        context.add_done_callback(lambda _ctx: self._gone(bot, "the stream ended"))
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
        finally:
            reader.cancel()
            self._gone(bot, "the stream ended")

    def _refused(self, peer: str, reply: pb.RegisterResponse) -> None:
        """Log a refused registration, count it for the address's back-off, and warn."""
        log.warning("registration from %s rejected: %s", peer, reply.detail)
        host = peer_host(peer)
        n = self.backoff.failed(host)
        if reply.reason == pb.REGISTER_REJECT_REASON_ALREADY_CONNECTED:
            self.on_warning(f"a second connection ({peer}) used the token of a bot that is "
                            f"already connected; it was refused ({reply.detail}). The token "
                            "may have leaked")
        elif n == 1 or n % 100 == 0:
            self.on_warning(
                f"{n} failed registration{'s' if n > 1 else ''} from {host} (latest from "
                f"{peer}: {reply.detail}); further registrations from {host} now wait up "
                f"to {self.backoff.delay_s(host):g} s before they are checked")

    def _gone(self, bot: RemoteBot, reason: str) -> None:
        bot.connection_lost(reason)
        if self.bots.get(bot.token) is bot:
            del self.bots[bot.token]

    async def _read(self, bot: RemoteBot, context: grpc.aio.ServicerContext) -> None:
        reason = "the bot closed its stream"
        try:
            while True:
                raw = await context.read()
                if raw is grpc.aio.EOF:
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
