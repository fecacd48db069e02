"""``arena bench engine|arena [--web]|memory|cluster|league``: print speed figures
(benchmarks are never unit tests)."""

from __future__ import annotations

import argparse

from ..errors import UserError
from ._values import cli_int


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``arena bench engine [--preset P] [--matches N]``, ``arena bench arena`` and
    ``arena bench memory``."""
    p = sub.add_parser("bench", help="benchmarks: engine speed, arena throughput over gRPC, "
                       "memory over long runs")
    bsub = p.add_subparsers(dest="bench", metavar="WHAT", required=True)
    e = bsub.add_parser("engine", help="random matches through the checked engine API")
    e.add_argument("--preset", default="sergeant-major", help="rule preset (default %(default)s)")
    e.add_argument("--matches", type=cli_int(), default=300,
                   help="matches to play (default %(default)s)")
    e.add_argument("--seed", type=cli_int(), default=1)
    e.set_defaults(func=run_engine)
    a = bsub.add_parser("arena", help="decisions/s through the arena over gRPC vs raw ping-pong "
                                      "with 1 and 3 echo clients, as ratios (TCP and Unix "
                                      "socket); bot start time with/without sandbox")
    a.add_argument("--decisions", type=cli_int(), default=3000,
                   help="round trips to time in each measurement (default %(default)s)")
    a.add_argument("--rounds", type=cli_int(), default=3,
                   help="alternating raw / arena measurements; medians compared "
                        "(default %(default)s)")
    a.add_argument("--web", action="store_true",
                   help="instead: the live page's cost, the same tournament without events, "
                   "with the in-flight journal (arena run) and with the page and 3 event "
                   "streams (arena run --web), set-ups alternating; then the event stream's "
                   "memory over --cycles connections (needs the web extra)")
    a.add_argument("--deals", type=cli_int(), default=12,
                   help="with --web: deals per table, 6 full-length matches each "
                   "(default %(default)s)")
    a.add_argument("--cycles", type=cli_int(0), default=10_000,
                   help="with --web: event-stream connect/disconnect cycles (0: none; "
                   "default %(default)s)")
    a.set_defaults(func=run_arena)
    m = bsub.add_parser("memory", help="arena RSS growth over a long tournament of short "
                        "matches (target: < 10 MB from match 200 to 2,000)")
    m.add_argument("--matches", type=int, default=2000,
                   help="matches to play, rounded up to whole duplicate blocks of 6 "
                        "(default %(default)s; e.g. 400 for a quick run)")
    m.add_argument("--warmup", type=int, default=200,
                   help="matches before the first RSS figure (default %(default)s)")
    m.add_argument("--concurrency", type=int, default=2,
                   help="matches at once (default %(default)s)")
    m.set_defaults(func=run_memory)
    lg = bsub.add_parser("league", help="a served league: submission to first rated result, "
                         "server RSS over uploads and over matches")
    lg.add_argument("--uploads", type=int, default=1000,
                    help="uploads of the RSS phase (default %(default)s; 0: none)")
    lg.add_argument("--matches", type=int, default=10_000,
                    help="stored matches the RSS phase runs to (default %(default)s; 0: none)")
    lg.add_argument("--hand-cap", type=int, default=1,
                    help="hands a match (default %(default)s: the fast mode)")
    lg.set_defaults(func=run_league)
    c = bsub.add_parser("cluster", help="matches/s with the ray backend vs local, and a "
                        "projection for K nodes (needs arena358[ray])")
    c.add_argument("--hand-cap", type=cli_int(), default=5,
                   help="hands a match (default %(default)s)")
    c.add_argument("--deals", type=cli_int(), default=4,
                   help="deals per table; 3 bots play 6 matches a deal (default %(default)s)")
    c.add_argument("--slots", type=cli_int(), default=2,
                   help="matches in flight (default %(default)s)")
    c.add_argument("--rounds", type=cli_int(), default=1,
                   help="alternating local / ray runs; medians compared (default %(default)s)")
    c.add_argument("--cpus-per-bot", type=float, default=0.25,
                   help="[cluster] cpus_per_bot of the ray run (default %(default)s)")
    c.add_argument("--address", default="local",
                   help="Ray cluster to use (default: a private local instance)")
    c.add_argument("--project-bots", type=cli_int(), default=20,
                   help="bots of the projected tournament (default %(default)s)")
    c.add_argument("--node-cpus", type=cli_int(), default=8,
                   help="CPUs per node in the projection (default %(default)s)")
    c.set_defaults(func=run_cluster)


def run_engine(args: argparse.Namespace) -> int:
    """Print the engine benchmark's figures; exit code 0."""
    from ..bench.engine import bench_engine
    from ..rules import PRESETS
    if args.preset not in PRESETS:
        from ..wording import unknown_choice
        raise UserError(unknown_choice("preset", args.preset, PRESETS))
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
    if args.web:
        from ..web import require_web
        require_web()
        from ..bench.web import bench_web
        for line in bench_web(args.deals, args.rounds, args.cycles).lines():
            print(line)
        return 0
    for line in asyncio.run(bench_throughput(args.decisions, args.rounds)).lines():
        print(line)
    from ..sandbox import which
    try:
        which.find()
    except which.SandboxUnavailable as exc:
        print(f"bot start times: skipped ({exc})")
        return 0
    from ..bench.sandbox_start import bench_start
    for line in asyncio.run(bench_start(max(args.rounds, 3))).lines():
        print(line)
    return 0


def run_memory(args: argparse.Namespace) -> int:
    """Print the memory benchmark's figures; exit code 0."""
    import asyncio

    from ..bench.memory import bench_memory
    if not 1 <= args.warmup < args.matches <= 1_000_000:
        raise UserError("needs 1 <= --warmup < --matches <= 1000000")
    if not 1 <= args.concurrency <= 64:
        raise UserError("--concurrency must be between 1 and 64")
    figures = asyncio.run(bench_memory(args.matches, args.warmup, args.concurrency))
    for line in figures.lines():
        print(line)
    return 0


def run_league(args: argparse.Namespace) -> int:
    """Print the league benchmark's figures; exit code 0."""
    import sys

    from ..web import require_web
    require_web()
    from ..bench.league import bench_league
    if not (0 <= args.uploads <= 100_000 and 0 <= args.matches <= 10_000_000
            and 1 <= args.hand_cap <= 1000):
        raise UserError("needs 0 <= --uploads <= 100000, 0 <= --matches, --hand-cap >= 1")

    def progress(text: str) -> None:
        print(f"arena: {text}", file=sys.stderr, flush=True)
    for line in bench_league(args.uploads, args.matches, args.hand_cap, progress).lines():
        print(line)
    return 0


def run_cluster(args: argparse.Namespace) -> int:
    """Print the local-vs-ray figures and the projection; exit code 0."""
    from ..bench.cluster import bench_cluster
    if args.hand_cap < 1 or args.deals < 1 or args.slots < 1 or args.project_bots < 3:
        raise UserError("--hand-cap, --deals and --slots must be at least 1, --project-bots 3")
    if not 1 <= args.rounds <= 20 or args.node_cpus < 1 or args.cpus_per_bot <= 0:
        raise UserError("--rounds must be 1-20, --node-cpus >= 1 and --cpus-per-bot > 0")
    figures = bench_cluster(hand_cap=args.hand_cap, deals=args.deals, slots=args.slots,
                            rounds=args.rounds, cpus_per_bot=args.cpus_per_bot,
                            address=args.address, project_bots=args.project_bots,
                            node_cpus=args.node_cpus)
    for line in figures.lines():
        print(line)
    return 0
