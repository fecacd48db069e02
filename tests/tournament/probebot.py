"""An SDK bot that reports what the arena told it, for end-to-end config tests.

Usage: ``python tests/tournament/probebot.py [--mode MODE] [--sleep-ms N] [--on N]
--arena HOST:PORT --token T`` (``--arena``/``--token`` also from the environment).

Every event is appended as one JSON line to the file named by ``$ARENA_PROBE_FILE`` (one
``write`` per line, so several bot processes can share the file): ``hello`` (pid, cwd, argv,
``$PROBE_VALUE``), ``start`` (match id, seat, names, time per decision, every rule option),
``decide`` (match id, ``time_ms`` of the request and its Python type), ``end`` (scores,
placings, reason).

Modes: ``random`` (default) plays uniformly; ``slow`` sleeps ``--sleep-ms`` before decision
``--on`` of each match (1-based; 0 = every decision); ``notheld`` answers a card it does not
hold whenever it plays a card (an illegal answer, until it forfeits); ``hostile`` prints
``--line`` to stderr and exits with status 4 before connecting.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from arena.rules import Decision
from arena.sdk import MatchEnd, MatchInfo, Player, View, run


def emit(event: str, **data: object) -> None:
    path = os.environ.get("ARENA_PROBE_FILE")
    if not path:
        return
    line = json.dumps({"event": event, "pid": os.getpid(), **data}) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


class Probe(Player):
    name = "probe"
    version = "1"

    def __init__(self, mode: str, sleep_ms: int, on: int) -> None:
        self.mode, self.sleep_ms, self.on = mode, sleep_ms, on
        self.rng = random.Random(os.getpid())
        self.count: dict[str, int] = {}
        self.current = ""

    def on_match_start(self, info: MatchInfo) -> None:
        self.current = info.match_id
        self.count[info.match_id] = 0
        emit("start", match=info.match_id, seat=info.seat, names=list(info.names),
             time_per_decision_ms=info.time_per_decision_ms,
             rules={"preset": info.cfg.preset, **info.cfg.options()})

    def decide(self, view: View) -> int:
        n = self.count[self.current] = self.count.get(self.current, 0) + 1
        t = self.request_time_ms
        emit("decide", match=self.current, n=n, time_ms=t, time_type=type(t).__name__)
        if self.mode == "slow" and self.on in (0, n):
            time.sleep(self.sleep_ms / 1000)
        if self.mode == "notheld" and view.decision is Decision.PLAY:
            held = set(view.hand)
            return next(c for c in range(52) if c not in held and c not in view.legal_actions)
        return self.rng.choice(view.legal_actions)

    def on_match_end(self, end: MatchEnd) -> None:
        emit("end", match=end.match_id, scores=list(end.scores), placings=list(end.placings),
             reason=end.reason)


def main() -> None:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--mode", default="random",
                    choices=("random", "slow", "notheld", "hostile"))
    ap.add_argument("--sleep-ms", type=int, default=0)
    ap.add_argument("--on", type=int, default=0)
    ap.add_argument("--line", default="")
    args, rest = ap.parse_known_args()
    emit("hello", cwd=os.getcwd(), argv=sys.argv, probe_value=os.environ.get("PROBE_VALUE"))
    if args.mode == "hostile":
        print(args.line, file=sys.stderr, flush=True)
        sys.exit(4)
    run(Probe(args.mode, args.sleep_ms, args.on), rest)


if __name__ == "__main__":
    main()
