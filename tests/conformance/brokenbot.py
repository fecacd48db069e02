"""Deliberately broken bots for the conformance checker's tests (raw protocol, no SDK).

Usage: ``ARENA_TOKEN=T python tests/conformance/brokenbot.py --mode MODE --arena HOST:PORT``

Modes: ``good`` (first legal action, a correct bot); ``illegal`` answers a card it does not
hold / an action that is not offered; ``unknown-crash`` exits with status 1 on a message with
no known kind; ``wrong-ids`` answers with its own counter instead of the request_id;
``no-exit`` never exits after the arena's Goodbye; ``reject-crash`` exits on a Rejection.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb

PLAY = "/threefiveeight.v1.ArenaService/Play"


def _illegal(legal: list[str]) -> str:
    cards = [f"{r}{s}" for s in "SHDC" for r in
             ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")]
    return next(a for a in [*cards, "stop", "misere"] if a not in legal)


async def serve(mode: str, address: str, token: str) -> int:
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(PLAY, request_serializer=pb.BotMessage.SerializeToString,
                                     response_deserializer=pb.ArenaMessage.FromString)()
        await call.write(pb.BotMessage(register=pb.RegisterRequest(
            name=f"broken-{mode}", version="0", protocol_version="1", token=token)))
        answered = 0
        try:
            while (msg := await call.read()) is not grpc.aio.EOF:
                kind = msg.WhichOneof("kind")
                if kind is None and mode == "unknown-crash":
                    print("unknown message kind: giving up", file=sys.stderr)
                    return 1
                if kind == "rejection" and mode == "reject-crash":
                    print("rejected: giving up", file=sys.stderr)
                    return 1
                if kind != "decision":
                    continue
                d = msg.decision
                answered += 1
                legal = list(d.view.legal_actions)
                action = _illegal(legal) if mode == "illegal" else legal[0]
                rid = answered if mode == "wrong-ids" else d.request_id
                await call.write(pb.BotMessage(decision=pb.DecisionResponse(
                    request_id=rid, action=action)))
        except grpc.RpcError as exc:
            print(f"stream error: {exc.code().name}", file=sys.stderr)
    if mode == "no-exit":
        time.sleep(3600)
    return 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", required=True)
    ap.add_argument("--arena", required=True)
    ap.add_argument("--token", default=os.environ.get("ARENA_TOKEN"),
                    help="default: $ARENA_TOKEN (the arena passes it there)")
    args = ap.parse_args()
    sys.exit(asyncio.run(serve(args.mode, args.arena, args.token)))


if __name__ == "__main__":
    main()
