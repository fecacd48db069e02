"""``arena bench engine|arena``: print speed figures (benchmarks are never unit tests)."""

from __future__ import annotations

import argparse

from ..errors import UserError
from ..rules import PRESETS


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``arena bench engine [--preset P] [--matches N]`` and ``arena bench arena``."""
    p = sub.add_parser("bench", help="benchmarks: engine speed, arena throughput over gRPC")
    bsub = p.add_subparsers(dest="bench", metavar="WHAT", required=True)
    e = bsub.add_parser("engine", help="random matches through the checked engine API")
    e.add_argument("--preset", default="sergeant-major", help="rule preset (default %(default)s)")
    e.add_argument("--matches", type=int, default=300, help="matches to play (default %(default)s)")
    e.add_argument("--seed", type=int, default=1)
    e.set_defaults(func=run_engine)
    a = bsub.add_parser("arena", help="decisions/s through the arena over gRPC vs raw ping-pong "
                                      "(TCP and Unix socket); bot start time with/without sandbox")
    a.add_argument("--decisions", type=int, default=3000,
                   help="round trips to time in each measurement (default %(default)s)")
    a.add_argument("--rounds", type=int, default=3,
                   help="alternating raw / arena measurements; medians compared "
                        "(default %(default)s)")
    a.set_defaults(func=run_arena)


def run_engine(args: argparse.Namespace) -> int:
    """Print the engine benchmark's figures; exit code 0."""
    from ..bench.engine import bench_engine
    if args.preset not in PRESETS:
        raise UserError(f"unknown preset {args.preset!r}; valid presets: {', '.join(PRESETS)}")
    if args.matches < 1:
        raise UserError("--matches must be at least 1")
    for line in bench_engine(args.preset, args.matches, args.seed).lines():
        print(line)
    return 0


def run_arena(args: argparse.Namespace) -> int:
    """Print the arena-vs-raw-gRPC throughput figures; exit code 0."""
    import asyncio

    from ..bench.throughput import bench_throughput
    if args.decisions < 100:
        raise UserError("--decisions must be at least 100")
    if not 1 <= args.rounds <= 50:
        raise UserError("--rounds must be between 1 and 50")
    for line in asyncio.run(bench_throughput(args.decisions, args.rounds)).lines():
        print(line)
    from ..sandbox import bwrap_path
    if bwrap_path() is None:
        print("bot start times: skipped (bubblewrap is not installed)")
        return 0
    from ..bench.sandbox_start import bench_start
    for line in asyncio.run(bench_start(max(args.rounds, 3))).lines():
        print(line)
    return 0
