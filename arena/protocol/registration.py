"""The registration messages of the Play stream: reading a first message as a RegisterRequest,
and the rejected RegisterResponse with the gRPC status that ends the stream after it."""

from __future__ import annotations

import grpc
from google.protobuf.message import DecodeError

from . import SUPPORTED_PROTOCOL_VERSIONS
from ._gen.threefiveeight.v1 import arena_pb2 as pb

#: the gRPC status that ends the stream after a rejected registration, by reject reason
REJECT_STATUS = {
    pb.REGISTER_REJECT_REASON_BAD_TOKEN: grpc.StatusCode.UNAUTHENTICATED,
    pb.REGISTER_REJECT_REASON_UNSUPPORTED_PROTOCOL_VERSION: grpc.StatusCode.FAILED_PRECONDITION,
    pb.REGISTER_REJECT_REASON_ALREADY_CONNECTED: grpc.StatusCode.ALREADY_EXISTS,
    pb.REGISTER_REJECT_REASON_NOT_REGISTERED: grpc.StatusCode.INVALID_ARGUMENT,
    pb.REGISTER_REJECT_REASON_TRY_AGAIN_LATER: grpc.StatusCode.UNAVAILABLE,
}
#: the detail of a token refused on the wrong transport
WRONG_TRANSPORT = ("this token is not accepted on this address: use the address the arena "
                    "gave with it")


def reject_message(reason: pb.RegisterRejectReason, detail: str) -> pb.ArenaMessage:
    """A rejected RegisterResponse with ``reason`` and ``detail``."""
    return pb.ArenaMessage(register=pb.RegisterResponse(
        accepted=False, reason=reason, detail=detail,
        supported_protocol_versions=SUPPORTED_PROTOCOL_VERSIONS))


def register_request(raw: bytes | None, timeout_s: float) -> pb.RegisterRequest | str:
    """The RegisterRequest of a first message (None: none came within ``timeout_s``
    seconds), or why there is none."""
    if raw is None:
        return f"no RegisterRequest within {timeout_s:g} s"
    try:
        msg = pb.BotMessage.FromString(raw)
    except DecodeError as exc:
        return f"first message does not parse as a BotMessage ({exc})"
    if msg.WhichOneof("kind") != "register":
        return "the first message must be a RegisterRequest"
    return msg.register


async def reject(context: grpc.aio.ServicerContext, response: pb.ArenaMessage, *,
                 timed_out: bool = False) -> None:
    """Send a rejected RegisterResponse and end the stream with its status
    (DEADLINE_EXCEEDED when ``timed_out``: no registration came in time)."""
    await context.write(response)
    reply = response.register
    context.set_code(grpc.StatusCode.DEADLINE_EXCEEDED if timed_out
                     else REJECT_STATUS[reply.reason])
    context.set_details(reply.detail)
