"""``arena run CONFIG.toml [--out DIR]``: run or resume a round-robin tournament."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path

from ..tournament.config import load_config
from ..tournament.standings import format_standings


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``arena run``."""
    p = sub.add_parser("run", help="run (or resume) a tournament from a TOML config",
                       description="Run a round-robin tournament of bot processes over gRPC. "
                       "Rerunning on the same --out directory resumes it.")
    p.add_argument("config", help="tournament config (TOML), e.g. examples/sample.toml")
    p.add_argument("--out", help="output directory (default: runs/<config name>)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=run)


async def with_sigterm(coro):  # noqa: ANN001, ANN201 - any coroutine
    """Await ``coro``, turning SIGTERM into cancellation so cleanup (``finally``) runs."""
    task = asyncio.ensure_future(coro)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        return await task
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def run(args: argparse.Namespace) -> int:
    """Run the tournament and print the standings; exit 0 (130 when interrupted)."""
    from ..tournament.runner import run_tournament
    cfg = load_config(args.config)
    out = Path(args.out) if args.out else Path("runs") / Path(args.config).stem
    try:
        outcome = asyncio.run(with_sigterm(run_tournament(cfg, out, progress=not args.quiet)))
    except asyncio.CancelledError:
        print("arena: stopped; rerun the same command to resume")
        return 143
    print(format_standings(outcome.standings, "text"), end="")
    for line in outcome.disqualifications:
        print(f"arena: warning: bot {line}", file=sys.stderr)
    if outcome.disqualifications:
        print("arena: warning: their remaining matches were forfeited; after fixing the bot, "
              "run again with a fresh --out directory (this one keeps the forfeits)",
              file=sys.stderr)
    print(f"\n{outcome.played_now} matches played now, {outcome.already_done} resumed from "
          f"earlier runs, {outcome.scheduled} scheduled; results in {out}/ "
          f"(standings.md/.csv/.json, records/, logs/)")
    return 0
