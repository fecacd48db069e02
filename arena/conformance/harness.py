"""The conformance suite's side of the Play stream: a one-bot gRPC server that hands the suite
raw control (any bytes may be sent, every bot message is seen as it arrives).

:class:`CheckServer` accepts ONE registration with the expected token (others are refused as
the arena would) and gives the suite a :class:`BotStream`. The stream ends with status OK when
the suite calls :meth:`BotStream.close`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

import grpc
from google.protobuf.message import DecodeError

from ..protocol import PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS
from ..protocol._gen.threefiveeight.v1 import arena_pb2 as pb
from ..protocol.errors import ServerStartError
from ..protocol.server import REJECT_STATUS, SERVICE_NAME
from ..protocol.tls import is_loopback


@dataclass(frozen=True)
class Incoming:
    """One bot message: ``msg`` (None when the bytes did not parse: then ``raw``), ``at``
    (``time.monotonic()`` when it arrived)."""

    msg: pb.BotMessage | None
    raw: bytes
    at: float


#: queued when the bot's side of the stream ends (``reason`` says how)
@dataclass(frozen=True)
class Ended:
    reason: str


class BotStream:
    """The registered bot's stream: :meth:`send` bytes or messages, :meth:`recv` what comes."""

    def __init__(self, context: grpc.aio.ServicerContext, register: pb.RegisterRequest) -> None:
        self.register = register
        self._context = context
        self.inbox: asyncio.Queue[Incoming | Ended] = asyncio.Queue()
        self.ended: Ended | None = None
        self.done = asyncio.Event()

    async def send(self, msg: pb.ArenaMessage | bytes) -> float:
        """Write one message; returns ``time.monotonic()`` just before the write.

        Raises:
            ConnectionError: the stream has ended.
        """
        sent = time.monotonic()
        data = msg if isinstance(msg, bytes) else msg.SerializeToString()
        if self.done.is_set():
            raise ConnectionError("the stream has ended")
        try:
            await self._context.write(data)
        except Exception:
            raise ConnectionError("the stream ended (the bot closed it or exited)") from None
        return sent

    async def recv(self, timeout_s: float) -> Incoming | Ended | None:
        """The next bot message, :class:`Ended`, or None when nothing came in ``timeout_s``."""
        if self.ended is not None and self.inbox.empty():
            return self.ended
        try:
            item = await asyncio.wait_for(self.inbox.get(), timeout_s)
        except TimeoutError:
            return None
        if isinstance(item, Ended):
            self.ended = item
        return item

    def close(self) -> None:
        """End the stream (status OK)."""
        self.done.set()


class CheckServer:
    """A gRPC server for one bot (see the module docstring).

    Args:
        bind: ``HOST:PORT`` (port 0: any free port), or None for no TCP port.
        token: the token the bot must present.
        unix_socket: also (or only) listen on this Unix socket path, as the arena does for
            the bots it starts (in a private directory: :class:`arena.sandbox.SocketDir`).
    """

    def __init__(self, bind: str | None, token: str, *, unix_socket: str | None = None) -> None:
        if bind is None and unix_socket is None:
            raise ValueError("CheckServer needs a TCP address or a Unix socket")
        self.bind, self.token, self.unix_socket = bind, token, unix_socket
        self.port: int | None = None
        self._server: grpc.aio.Server | None = None
        self._stream: asyncio.Future[BotStream] | None = None

    async def start(self) -> int:
        """Listen; returns the TCP port (0 without one).

        Raises:
            ServerStartError: the address cannot be bound.
        """
        self._stream = asyncio.get_running_loop().create_future()
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, {
            "Play": grpc.stream_stream_rpc_method_handler(
                self._play, request_deserializer=None, response_serializer=None)}),))
        port, where = 0, self.bind
        try:
            if self.bind is not None:
                port = server.add_insecure_port(self.bind)
            if self.unix_socket is not None:
                where = f"unix:{self.unix_socket}"
                server.add_insecure_port(where)
        except RuntimeError as exc:
            raise ServerStartError(f"cannot listen on {where!r}: {exc}") from None
        await server.start()
        self._server, self.port = server, port
        if self.bind is not None and not is_loopback(self.bind):
            logging.getLogger("arena.conformance").warning(
                "listening on %s without TLS: the token travels in clear", self.bind)
        return port

    async def wait_for_bot(self, timeout_s: float) -> BotStream:
        """The registered bot's stream.

        Raises:
            TimeoutError: no bot registered within ``timeout_s`` seconds.
        """
        if self._stream is None:
            raise RuntimeError("CheckServer.wait_for_bot() before start()")
        return await asyncio.wait_for(asyncio.shield(self._stream), timeout_s)

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop(1.0)
            self._server = None

    async def _play(self, _requests: object, context: grpc.aio.ServicerContext) -> None:
        try:
            raw = await asyncio.wait_for(context.read(), 30)
        except TimeoutError:
            return
        if raw is grpc.aio.EOF:
            return
        reason, detail = self._check(raw)
        if reason != pb.REGISTER_REJECT_REASON_UNSPECIFIED:
            await context.write(pb.ArenaMessage(register=pb.RegisterResponse(
                accepted=False, reason=reason, detail=detail,
                supported_protocol_versions=SUPPORTED_PROTOCOL_VERSIONS)).SerializeToString())
            context.set_code(REJECT_STATUS[reason])
            context.set_details(detail)
            return
        stream = BotStream(context, pb.BotMessage.FromString(raw).register)
        await context.write(pb.ArenaMessage(register=pb.RegisterResponse(
            accepted=True, detail="welcome to the conformance check", arena_name="checked-bot",
            supported_protocol_versions=SUPPORTED_PROTOCOL_VERSIONS)).SerializeToString())
        if self._stream is None or self._stream.done():   # a second bot raced the check
            context.set_code(grpc.StatusCode.ALREADY_EXISTS)
            return
        self._stream.set_result(stream)
        reader = asyncio.create_task(self._read(stream, context))
        try:
            await stream.done.wait()
        finally:
            reader.cancel()

    def _check(self, raw: bytes) -> tuple[pb.RegisterRejectReason, str]:
        """Why the first message ``raw`` is refused and the detail sent back;
        ``REGISTER_REJECT_REASON_UNSPECIFIED`` when it is accepted."""
        try:
            msg = pb.BotMessage.FromString(raw)
        except DecodeError:
            return pb.REGISTER_REJECT_REASON_NOT_REGISTERED, "the first message does not parse"
        if msg.WhichOneof("kind") != "register":
            return pb.REGISTER_REJECT_REASON_NOT_REGISTERED, \
                "the first message must be a RegisterRequest"
        if msg.register.protocol_version != PROTOCOL_VERSION:
            return pb.REGISTER_REJECT_REASON_UNSUPPORTED_PROTOCOL_VERSION, \
                f"protocol version {msg.register.protocol_version!r}; this checker speaks " \
                f"{PROTOCOL_VERSION!r}"
        if msg.register.token != self.token:
            return pb.REGISTER_REJECT_REASON_BAD_TOKEN, "unknown token"
        if self._stream is None or self._stream.done():
            return pb.REGISTER_REJECT_REASON_ALREADY_CONNECTED, "a bot is already connected"
        return pb.REGISTER_REJECT_REASON_UNSPECIFIED, ""

    @staticmethod
    async def _read(stream: BotStream, context: grpc.aio.ServicerContext) -> None:
        reason = "the bot closed its side of the stream"
        try:
            while True:
                raw = await context.read()
                if raw is grpc.aio.EOF:
                    break
                try:
                    msg: pb.BotMessage | None = pb.BotMessage.FromString(raw)
                except DecodeError:
                    msg = None
                stream.inbox.put_nowait(Incoming(msg, raw, time.monotonic()))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            reason = f"the stream broke ({type(exc).__name__})"
        stream.inbox.put_nowait(Ended(reason))
