"""A misbehaving bot speaking the raw gRPC protocol, for tournament fault tests.

Usage: ``python tests/tournament/rawbot.py --mode MODE --arena HOST:PORT --token T``

Modes (N = ``--after``, decisions answered normally first):
``crash`` exits with status 3 after N decisions; ``segv`` writes a line to stderr and dies of
SIGSEGV after N decisions; ``hang`` stops answering after N decisions
but stays connected; ``late`` answers decision 3 of each match ``--late-ms`` too late; ``notheld``
answers a card it does not hold whenever playing; ``garbage`` first sends bytes that are not a
protobuf message, then answers every decision with a malformed action; ``disconnect`` closes its
stream after N decisions and lingers; ``noregister`` never connects.
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import signal
import sys
import time

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb
from arena.rules import card_str


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", required=True)
    ap.add_argument("--after", type=int, default=5)
    ap.add_argument("--late-ms", type=int, default=200, help="late mode: ms past time_ms")
    ap.add_argument("--arena", default=os.environ.get("ARENA_ADDRESS"))
    ap.add_argument("--token", default=os.environ.get("ARENA_TOKEN"))
    args = ap.parse_args()
    if args.mode == "noregister":
        time.sleep(3600)
        return 0
    rng = random.Random(1)
    channel = grpc.insecure_channel(args.arena)
    call = channel.stream_stream("/threefiveeight.v1.ArenaService/Play",
                                 request_serializer=lambda b: b,
                                 response_deserializer=pb.ArenaMessage.FromString)
    out: queue.Queue = queue.Queue()

    def requests():
        while True:
            item = out.get()
            if item is None:
                return
            yield item

    def send(msg: pb.BotMessage) -> None:
        out.put(msg.SerializeToString())

    responses = call(requests())
    send(pb.BotMessage(register=pb.RegisterRequest(name="rawbot", version="1",
                                                   protocol_version="1", token=args.token)))
    if args.mode == "garbage":
        out.put(b"\xff\xff\xff not a protobuf")
    answered = 0
    per_match: dict[str, int] = {}
    for msg in responses:
        if msg.WhichOneof("kind") != "decision":
            continue
        req = msg.decision
        answered += 1
        n = per_match[req.match_id] = per_match.get(req.match_id, 0) + 1
        legal = list(req.view.legal_actions)
        action = rng.choice(legal)
        if args.mode == "crash" and answered > args.after:
            os._exit(3)
        if args.mode == "segv" and answered > args.after:
            print(f"rawbot: decision {answered}: dereferencing a null pointer", file=sys.stderr,
                  flush=True)
            signal.signal(signal.SIGSEGV, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGSEGV)
        if args.mode == "hang" and answered > args.after:
            continue
        if args.mode == "disconnect" and answered > args.after:
            responses.cancel()
            time.sleep(3600)
        if args.mode == "late" and n == 3:
            time.sleep((req.time_ms + args.late_ms) / 1000)
        if args.mode == "notheld" and legal and legal[0][0].isalnum() and len(legal[0]) <= 3:
            held = set(req.view.hand)
            action = next(card_str(c) for c in range(52) if card_str(c) not in held)
        if args.mode == "garbage":
            action = "not-a-card"
        send(pb.BotMessage(decision=pb.DecisionResponse(request_id=req.request_id,
                                                        action=action)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
