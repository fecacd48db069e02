"""A hostile bot that squats the arena's registration places: it opens ``--streams`` Play streams
that never send anything on every ``--target`` (its ``ARENA_ADDRESS``, the arena's Unix socket,
and e.g. the TCP port, where it has no token), opens a new one whenever one is pushed out, then
touches ``--flag`` and, with ``--register``, registers with its own token and plays.

Usage: ``python tests/tournament/squatbot.py --target unix:/... --target 127.0.0.1:PORT
--streams 36 [--connections 12] --flag PATH [--register]`` (the streams of a target are spread
over ``--connections`` connections of their own).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb

PLAY = "/threefiveeight.v1.ArenaService/Play"


async def squat(channel: grpc.aio.Channel, opened: list[int]) -> None:
    """Hold one stream that sends nothing; when the arena ends it, open another."""
    while True:
        call = channel.stream_stream(PLAY, request_serializer=None,
                                     response_deserializer=pb.ArenaMessage.FromString)()
        opened[0] += 1
        try:
            await call.read()       # the arena's answer: try again later (pushed out)
            await call.code()
        except grpc.RpcError:
            pass
        await asyncio.sleep(0.1)


async def play(channel: grpc.aio.Channel, token: str) -> None:
    call = channel.stream_stream(PLAY, request_serializer=pb.BotMessage.SerializeToString,
                                 response_deserializer=pb.ArenaMessage.FromString)()
    await call.write(pb.BotMessage(register=pb.RegisterRequest(
        name="squatter", version="1", protocol_version="1", token=token)))
    async for msg in call:
        if msg.WhichOneof("kind") == "decision":
            await call.write(pb.BotMessage(decision=pb.DecisionResponse(
                request_id=msg.decision.request_id,
                action=msg.decision.view.legal_actions[0])))
        elif msg.WhichOneof("kind") == "goodbye":
            return


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", action="append", default=[])
    ap.add_argument("--streams", type=int, default=36)
    ap.add_argument("--connections", type=int, default=1)
    ap.add_argument("--flag")
    ap.add_argument("--register", action="store_true")
    ap.add_argument("--arena", help="ignored (the arena appends it; ENV in --target is it)")
    args = ap.parse_args()
    targets = [t.replace("ENV", os.environ.get("ARENA_ADDRESS", "")) for t in args.target]
    # a local subchannel pool: a connection per channel, not one shared by all
    channels = {t: [grpc.aio.insecure_channel(t, options=[("grpc.use_local_subchannel_pool",
                                                            1)])
                    for _ in range(args.connections)] for t in targets}
    opened = [0]
    squatters = [asyncio.create_task(squat(channels[t][i % args.connections], opened))
                 for t in targets for i in range(args.streams)]
    while opened[0] < len(squatters):
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.5)      # the streams reach the arena
    if args.flag:
        Path(args.flag).touch()
    if args.register:
        await play(grpc.aio.insecure_channel(os.environ["ARENA_ADDRESS"]),
                   os.environ["ARENA_TOKEN"])
        for task in squatters:
            task.cancel()
        return 0
    await asyncio.gather(*squatters)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
