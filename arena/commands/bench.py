"""``arena bench engine|arena``: print speed figures (benchmarks are never unit tests)."""

from __future__ import annotations

import argparse

from ..errors import UserError
from ..rules import PRESETS


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``arena bench engine [--preset P] [--matches N]``."""
    p = sub.add_parser("bench", help="benchmarks: engine speed, arena throughput over gRPC")
    bsub = p.add_subparsers(dest="bench", metavar="WHAT", required=True)
    e = bsub.add_parser("engine", help="random matches through the checked engine API")
    e.add_argument("--preset", default="sergeant-major", help="rule preset (default %(default)s)")
    e.add_argument("--matches", type=int, default=300, help="matches to play (default %(default)s)")
    e.add_argument("--seed", type=int, default=1)
    e.set_defaults(func=run_engine)


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
