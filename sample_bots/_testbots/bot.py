"""A test bot with selectable misbehaviour, for tests/protocol.

Usage: ``python -m sample_bots._testbots.bot --mode MODE [--seed N] <arena.sdk.run args>``

Modes: ``random`` (uniform legal actions), ``raise`` (decide raises every time), ``illegal``
(answers an action that is never legal: ``stop`` where not allowed, else a card not held),
``slow`` (sleeps 2 s per decision), ``hang`` (never returns from its first ``decide``),
``hooks`` (random, and prints match start/end lines to stdout for the test to read), ``async``
(random, from an ``async def decide`` that awaits), ``spawner`` (random, after starting three
``sleep`` processes that would outlive it: one in its process group, one in a new session, and
one daemonized by a double fork; their pids are printed to stdout).
"""

from __future__ import annotations

import argparse
import asyncio
import faulthandler
import os
import random
import signal
import subprocess
import sys
import time

from arena.sdk import MatchEnd, MatchInfo, Player, View, run


class TestPlayer(Player):
    """Random legal play with a switchable failure mode."""

    name = "testbot"
    version = "1"

    def __init__(self, mode: str, seed: int) -> None:
        self.mode = mode
        self.rng = random.Random(seed)

    def decide(self, view: View) -> int:
        if self.mode == "raise":
            raise ValueError("deliberate failure in decide")
        if self.mode == "illegal":
            return next(c for c in range(52) if c not in view.hand
                        and c not in view.legal_actions)
        if self.mode == "slow":
            time.sleep(2.0)
        if self.mode == "hang":
            time.sleep(3600)
        return self.rng.choice(view.legal_actions)

    def on_match_start(self, info: MatchInfo) -> None:
        if self.mode == "hooks":
            print(f"start {info.match_id} seat={info.seat} preset={info.cfg.preset}", flush=True)

    def on_match_end(self, end: MatchEnd) -> None:
        if self.mode == "hooks":
            print(f"end {end.match_id} placings={list(end.placings)}", flush=True)


class AsyncTestPlayer(TestPlayer):
    """Random legal play from a coroutine (the SDK awaits ``async def decide``)."""

    # the SDK also accepts a coroutine decide (it awaits it); Player types the plain one
    async def decide(self, view: View) -> int:  # type: ignore[override]
        await asyncio.sleep(0.001)
        return self.rng.choice(view.legal_actions)


def spawn_children() -> list[int]:
    """Start the ``spawner`` mode's three ``sleep 300`` processes; returns their pids."""
    same_group = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL)
    new_session = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    read, write = os.pipe()
    if os.fork() == 0:  # double fork: the grandchild is orphaned at once, in its own session
        os.setsid()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            os.close(write)
            os.execvp("sleep", ["sleep", "300"])
        os.write(write, str(pid).encode())
        os._exit(0)
    os.close(write)
    daemon = int(os.read(read, 32))
    os.close(read)
    os.wait()
    return [same_group.pid, new_session.pid, daemon]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--mode", default="random",
                    choices=("random", "raise", "illegal", "slow", "hang", "hooks", "async",
                             "spawner"))
    ap.add_argument("--seed", type=int, default=0)
    faulthandler.register(signal.SIGUSR1)  # tests dump a hung bot's stacks with SIGUSR1
    args, rest = ap.parse_known_args(sys.argv[1:] if argv is None else argv)
    if args.mode == "spawner":
        print("children", *spawn_children(), flush=True)
    player = (AsyncTestPlayer if args.mode == "async" else TestPlayer)(args.mode, args.seed)
    run(player, rest)


if __name__ == "__main__":
    main()
