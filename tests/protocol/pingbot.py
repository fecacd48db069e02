"""A bot whose channel sends HTTP/2 keepalive pings every ``--ping-ms`` (0: none), the way a
remote bot keeps its connection alive through NAT: Python's ``grpc.keepalive_time_ms`` with
``grpc.keepalive_permit_without_calls`` and ``grpc.http2.max_pings_without_data = 0`` (Go,
Java and Rust clients ping on every interval by default).

Usage: ``python tests/protocol/pingbot.py --arena HOST:PORT --token T --ping-ms 10000``

It registers, answers every decision with its first legal action and exits with status 0 after
the arena's Goodbye; when the stream breaks it prints ``lost: CODE DETAILS`` on stderr and
exits with status 1.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arena", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--ping-ms", type=int, default=0)
    args = ap.parse_args()
    options = [] if not args.ping_ms else [
        ("grpc.keepalive_time_ms", args.ping_ms), ("grpc.keepalive_timeout_ms", 5000),
        ("grpc.keepalive_permit_without_calls", 1), ("grpc.http2.max_pings_without_data", 0)]
    channel = grpc.insecure_channel(args.arena, options=options)
    call = channel.stream_stream("/threefiveeight.v1.ArenaService/Play",
                                 request_serializer=pb.BotMessage.SerializeToString,
                                 response_deserializer=pb.ArenaMessage.FromString)
    out: queue.Queue[pb.BotMessage | None] = queue.Queue()

    def requests():
        while (item := out.get()) is not None:
            yield item

    out.put(pb.BotMessage(register=pb.RegisterRequest(
        name="pingbot", version="1", protocol_version="1", token=args.token)))
    try:
        for msg in call(requests()):
            kind = msg.WhichOneof("kind")
            if kind == "register" and not msg.register.accepted:
                print(f"rejected: {msg.register.detail}", file=sys.stderr, flush=True)
                return 3
            if kind == "decision":
                out.put(pb.BotMessage(decision=pb.DecisionResponse(
                    request_id=msg.decision.request_id,
                    action=msg.decision.view.legal_actions[0])))
            if kind == "goodbye":
                out.put(None)
                return 0
    except grpc.RpcError as exc:
        print(f"lost: {exc.code().name} {exc.details()}", file=sys.stderr, flush=True)
        return 1
    finally:
        out.put(None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
