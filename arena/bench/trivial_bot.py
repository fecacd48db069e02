"""The throughput benchmark's trivial bot: speaks the arena protocol directly (no SDK, no
:class:`~arena.rules.view.View`) and answers every decision with its first legal action, as
text copied from the request. Its per-message work is as small as the raw ping-pong's echo
client, so ``arena bench arena`` compares the arena's own cost with the transport's.

Run: ``python -m arena.bench.trivial_bot --arena HOST:PORT`` with the token in ``ARENA_TOKEN``
(or ``--token TOKEN``); exit status 0 when the arena ends the session, 1 when the connection
fails or registration is refused.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

import grpc

from ..protocol import PROTOCOL_VERSION
from ..protocol._gen.threefiveeight.v1 import arena_pb2 as pb

PLAY_METHOD = "/threefiveeight.v1.ArenaService/Play"


async def serve(address: str, token: str) -> int:
    """Register and answer until the stream ends; returns the exit status."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(PLAY_METHOD,
                                     request_serializer=pb.BotMessage.SerializeToString,
                                     response_deserializer=pb.ArenaMessage.FromString)()
        try:
            await call.write(pb.BotMessage(register=pb.RegisterRequest(
                name="trivial", version="1", protocol_version=PROTOCOL_VERSION, token=token,
                client="arena-bench-trivial")))
            while (msg := await call.read()) is not grpc.aio.EOF:
                kind = msg.WhichOneof("kind")
                if kind == "decision":
                    d = msg.decision
                    await call.write(pb.BotMessage(decision=pb.DecisionResponse(
                        request_id=d.request_id, action=d.view.legal_actions[0])))
                elif kind == "register" and not msg.register.accepted:
                    print(f"trivial bot: registration refused: {msg.register.detail}",
                          file=sys.stderr)
                    return 1
        except grpc.RpcError as exc:
            print(f"trivial bot: connection lost: {exc.code().name}", file=sys.stderr)
            return 1
    return 0


def main(argv: list[str] | None = None) -> None:
    """Command-line entry (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arena", default=os.environ.get("ARENA_ADDRESS"), metavar="HOST:PORT")
    ap.add_argument("--token", default=os.environ.get("ARENA_TOKEN"))
    args = ap.parse_args(argv)
    if not args.arena or not args.token:
        ap.error("needs --arena HOST:PORT (or ARENA_ADDRESS) and ARENA_TOKEN (or --token)")
    try:
        status = asyncio.run(serve(args.arena, args.token))
    except KeyboardInterrupt:
        status = 0
    raise SystemExit(status)


if __name__ == "__main__":
    main()
