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

The Play method is served with a raw-bytes request deserializer so a message that does not parse
is answered with a rejection instead of failing the RPC (see :mod:`arena.protocol.session`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import grpc
from google.protobuf.message import DecodeError

from . import SUPPORTED_PROTOCOL_VERSIONS
from ._gen.threefiveeight.v1 import arena_pb2 as pb
from .errors import BotConnectTimeout, ServerStartError, UnknownTokenError, redact
from .session import CLOSE, BotIdentity, RemoteBot

log = logging.getLogger("arena.protocol")

SERVICE_NAME = "threefiveeight.v1.ArenaService"
_MAX_NAME = 100


def _reg_reject(reason: int, detail: str) -> pb.ArenaMessage:
    return pb.ArenaMessage(register=pb.RegisterResponse(
        accepted=False, reason=reason, detail=detail,
        supported_protocol_versions=SUPPORTED_PROTOCOL_VERSIONS))


class ArenaServer:
    """The gRPC server bots connect to (see the module docstring).

    Args:
        bind: ``host:port`` to listen on; port 0 picks a free port (see :meth:`start`).
        register_timeout_s: time a new stream has to send its RegisterRequest, seconds.
        supported_versions: protocol versions accepted at registration.
        unix_socket: also listen on this Unix domain socket path (for local, sandboxed bots;
            the caller owns its directory, see :mod:`arena.sandbox.socketdir`). Bots dial it
            as ``unix:PATH`` (:attr:`unix_address`).

    Attributes:
        bots: token -> the live :class:`RemoteBot` registered with it.
    """

    def __init__(self, bind: str = "127.0.0.1:0", *, register_timeout_s: float = 10.0,
                 supported_versions: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS,
                 unix_socket: str | None = None) -> None:
        self.bind = bind
        self.unix_socket = unix_socket
        self.register_timeout_s = register_timeout_s
        self.supported_versions = tuple(supported_versions)
        self.bots: dict[str, RemoteBot] = {}
        self._expected: dict[str, str] = {}
        self._waiters: dict[str, list[asyncio.Future[RemoteBot]]] = {}
        self._server: grpc.aio.Server | None = None
        self.port: int | None = None

    # ----- lifecycle -------------------------------------------------------------------------
    async def start(self) -> int:
        """Start listening; returns the bound port.

        Raises:
            ServerStartError: the address cannot be bound (in use, bad host), or already started.
        """
        if self._server is not None:
            raise ServerStartError("ArenaServer.start() called twice")
        server = grpc.aio.server(options=[
            ("grpc.keepalive_time_ms", 30_000), ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.so_reuseport", 0)])
        handler = grpc.method_handlers_generic_handler(SERVICE_NAME, {
            "Play": grpc.stream_stream_rpc_method_handler(
                self._play, request_deserializer=None,
                response_serializer=pb.ArenaMessage.SerializeToString)})
        server.add_generic_rpc_handlers((handler,))
        try:
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
        log.info("arena server listening on %s (port %d)", self.bind, port)
        return port

    @property
    def unix_address(self) -> str | None:
        """``unix:PATH`` of the Unix-socket listener, or None without one."""
        return None if self.unix_socket is None else f"unix:{self.unix_socket}"

    async def stop(self, grace_s: float = 1.0, reason: str = "the arena is shutting down") -> None:
        """Send ``Goodbye`` to every connected bot, close their streams and stop the server
        (streams still open after ``grace_s`` seconds are cancelled). Idempotent."""
        for bot in list(self.bots.values()):
            bot.close(reason)
        for waiters in self._waiters.values():
            for fut in waiters:
                if not fut.done():
                    fut.cancel()
        self._waiters.clear()
        if self._server is not None:
            await self._server.stop(grace_s)
            self._server = None

    # ----- tokens and bots -------------------------------------------------------------------
    def expect(self, token: str, name: str) -> None:
        """Allow a bot to register with ``token``; ``name`` is the arena's name for it.

        Raises:
            ValueError: empty token or name.
        """
        if not token or not name:
            raise ValueError("expect() needs a non-empty token and name")
        self._expected[token] = name

    def forget(self, token: str) -> None:
        """Stop accepting ``token``; a bot connected with it is told goodbye."""
        self._expected.pop(token, None)
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
        if token not in self._expected:
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
            raise BotConnectTimeout(self._expected[token], timeout_s) from None
        finally:
            waiters = self._waiters.get(token, [])
            if fut in waiters:
                waiters.remove(fut)

    # ----- the Play stream -------------------------------------------------------------------
    def _register(self, raw: bytes | None, peer: str) -> tuple[RemoteBot | None, pb.ArenaMessage]:
        """Check a first message; returns (bot, response) with bot None when rejected."""
        if raw is None:
            return None, _reg_reject(pb.REGISTER_REJECT_REASON_NOT_REGISTERED,
                                     f"no RegisterRequest within {self.register_timeout_s:g} s")
        try:
            msg = pb.BotMessage.FromString(raw)
        except DecodeError as exc:
            return None, _reg_reject(pb.REGISTER_REJECT_REASON_NOT_REGISTERED,
                                     f"first message does not parse as a BotMessage ({exc})")
        if msg.WhichOneof("kind") != "register":
            return None, _reg_reject(pb.REGISTER_REJECT_REASON_NOT_REGISTERED,
                                     "the first message must be a RegisterRequest")
        reg = msg.register
        if reg.protocol_version not in self.supported_versions:
            return None, _reg_reject(
                pb.REGISTER_REJECT_REASON_UNSUPPORTED_PROTOCOL_VERSION,
                f"protocol version {reg.protocol_version!r} is not supported; this arena "
                f"speaks {', '.join(self.supported_versions)}")
        name = self._expected.get(reg.token)
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
        try:
            raw = await asyncio.wait_for(context.read(), self.register_timeout_s)
        except TimeoutError:
            raw = None
        if raw is grpc.aio.EOF:
            return
        bot, response = self._register(raw, peer)
        if bot is None:
            log.warning("registration from %s rejected: %s", peer, response.register.detail)
            await context.write(response)
            return
        context.add_done_callback(lambda _ctx: self._gone(bot, "the stream ended"))
        reader = asyncio.create_task(self._read(bot, context))
        bot.writer = context.write
        try:
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
                except Exception:  # noqa: BLE001 - a bug here must not end other sessions
                    log.exception("bot %r: internal error handling a message", bot.name)
                # let the runner that this answer woke go first: posting the next read costs
                # time, and this bot's next message is at least a decision away
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - transport errors end the session
            reason = f"stream error: {type(exc).__name__}: {exc}"
        bot.connection_lost(reason)
        bot.outbox.put_nowait(CLOSE)
