"""``arena run CONFIG.toml [--out DIR]``: run or resume a round-robin tournament."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from ..errors import UserError
from ..tournament.config import load_config
from ..tournament.standings import format_standings
from ._signals import Interrupted, run_guarded


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``arena run``."""
    p = sub.add_parser("run", help="run (or resume) a tournament from a TOML config",
                       description="Run a round-robin tournament of bot processes over gRPC. "
                       "Rerunning on the same --out directory resumes it.")
    p.add_argument("config", help="tournament config (TOML), e.g. examples/sample.toml")
    p.add_argument("--out", help="output directory (default: runs/<config name>)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the tournament and print the standings; exit 0, 2 on a user mistake, 128+N when
    stopped by signal N."""
    from ..protocol.errors import ServerStartError
    from ..tournament.runner import run_tournament
    cfg = load_config(args.config)
    if cfg.gauntlet is not None:
        raise UserError(f"{args.config} has a [gauntlet] section: run it with `arena gauntlet "
                        f"{args.config}`")
    out = Path(args.out) if args.out else Path("runs") / Path(args.config).stem
    try:
        outcome = run_guarded(run_tournament(cfg, out, progress=not args.quiet))
    except Interrupted as exc:
        print(f"arena: stopped by {exc}; rerun the same command to resume", file=sys.stderr)
        return exc.code
    except ServerStartError as exc:
        raise UserError(f"{args.config}: [server] {exc}") from None
    except sqlite3.Error as exc:
        raise UserError(f"{out}/results.sqlite: {exc}; free space or fix the file, then rerun "
                        "to resume") from None
    except OSError as exc:
        raise UserError(f"{out}: {exc.strerror or exc}: {exc.filename or ''}; rerun to "
                        "resume once fixed") from None

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
