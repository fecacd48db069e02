"""``arena run CONFIG.toml [--out DIR]``: run or resume a round-robin tournament (or, with
``[tournament] mode = "gauntlet"``, the gauntlet of ``arena gauntlet``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from ..safetext import printable
from ..wording import plural
from ._runs import (EXIT_BOT_NEVER_STARTED, add_ray_option, executors_for,
                    never_started_status, run_directory, with_ray)
from ._signals import Interrupted, run_resumable

if TYPE_CHECKING:
    from ..events import EventSink
    from ..tournament.config import TournamentConfig
    from ..tournament.runner import TournamentOutcome


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``arena run``."""
    p = sub.add_parser("run", help="run (or resume) a tournament from a TOML config",
                       description="Run a round-robin tournament of bot processes over gRPC. "
                       "Rerunning on the same --out directory resumes it; bots added to the "
                       "config since then play only their new tables (a league that grows). "
                       "With [tournament] mode = \"gauntlet\": the SPRT gauntlet of `arena "
                       "gauntlet`.")
    p.add_argument("config", help="tournament config (TOML), e.g. examples/sample.toml")
    p.add_argument("--out", help="output directory (default: runs/<config name>)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.add_argument("--deal-key-from", metavar="DIR",
                   help="a new --out directory gets the secret deal key of tournament "
                   "directory DIR, so the same config plays the same deals (reproduce DIR)")
    p.add_argument("--json", action="store_true",
                   help="print the summary (standings, match counts, disqualifications) as "
                   "one line of JSON instead of the table")
    p.add_argument("--wait-remote", type=_seconds, metavar="SECONDS",
                   help="wait up to SECONDS, before the first match, for every remote bot to "
                   "connect (default: [tournament] start_after, else register_timeout_s); a "
                   "remote bot that does not come has its matches left for a later run")
    p.add_argument("--wide", action="store_true",
                   help="standings with every column (ms/decision, CPU ms/decision, peak "
                   "MiB: wider than 100 characters); -v adds the legend")
    add_ray_option(p)
    p.add_argument("--web", metavar="[HOST:]PORT",
                   help="serve the live tournament page while it runs (default host "
                   "127.0.0.1; port 0: any free); needs the web extra")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the tournament and print the standings (``--json``: one JSON line); the arena's log
    is appended to ``OUT/arena.log``. With ``[tournament] mode = "gauntlet"`` run the gauntlet
    instead (:mod:`.gauntlet`). Exit 0, 2 on a user mistake (bad config, a bot command that
    cannot start), 3 when a bot never started (or a remote bot never connected), 128+N when
    stopped by signal N."""
    from ..tournament.config import load_config
    cfg = load_config(args.config)
    gauntlet = cfg.tournament.mode == "gauntlet"
    if cfg.gauntlet is not None and not gauntlet:
        raise UserError(f"{args.config} has a [gauntlet] section: run it with `arena gauntlet "
                        f"{args.config}`, or set [tournament] mode = \"gauntlet\"")
    if gauntlet and (args.web is not None or args.json):
        raise UserError(f"{args.config}: --web and --json are for round-robins; "
                        "mode = \"gauntlet\" prints the SPRT lines and writes OUT/sprt.json")
    cfg = with_ray(args, cfg)
    if args.wait_remote is not None:
        cfg = cfg.model_copy(update={"tournament": cfg.tournament.model_copy(
            update={"start_after": args.wait_remote})})
    web = _web_address(args.web)    # a bad --web value is refused before anything is written
    out = Path(args.out) if args.out else Path("runs") / Path(args.config).stem
    with run_directory(args, out):
        if getattr(args, "deal_key_from", None):
            from ..tournament.store import copy_deal_key
            copy_deal_key(args.deal_key_from, out)
        if gauntlet:
            from .gauntlet import play_gauntlet
            return play_gauntlet(args, cfg, out)
        return _run(args, cfg, out, web)


def _run(args: argparse.Namespace, cfg: TournamentConfig, out: Path,
         web: tuple[str, int] | None) -> int:
    from ..inflight import journaled
    from ..tournament.runner import run_tournament
    from ..tournament.standings import format_standings   # numpy/scipy: only when run

    def tournament(sink: EventSink | None = None) -> Coroutine[Any, Any, TournamentOutcome]:
        # the matches in flight go to OUT/live/ too, for arena serve in another process
        return journaled(out, lambda events: run_tournament(
            cfg, out, progress=not args.quiet, events=events, executors=executors_for(cfg)),
            also=sink)
    try:
        if web is None:
            outcome = run_resumable(tournament(), args.config, out)
        else:
            from ..web.live import run_with_page
            outcome = run_resumable(run_with_page(
                out, *web, tournament, secrets=tuple(b.token for b in cfg.bots if b.token)),
                args.config, out)
    except Interrupted as exc:
        print(f"arena: stopped by {exc}; rerun the same command to resume", file=sys.stderr)
        return exc.code

    if args.json:
        import json

        from ._summary import dumps
        print(dumps({**json.loads(format_standings(outcome.standings, "json")),
                     "played_now": outcome.played_now, "already_done": outcome.already_done,
                     "scheduled": outcome.scheduled, "faults": outcome.faults,
                     "disqualifications": list(outcome.disqualifications),
                     "left_for_later": dict(outcome.left_for_later), "out": str(out)}),
              end="")
    else:
        verbose = bool(getattr(args, "verbose", 0))
        print(format_standings(outcome.standings, "text", wide=args.wide, legend=verbose),
              end="")
        if not verbose:
            print(f"\n(legend: -v or {out / 'standings.md'}"
                  + ("" if args.wide else "; --wide adds the time and memory columns") + ")")
    for line in outcome.disqualifications:   # they may quote a bot's log line
        print(f"arena: warning: bot {printable(line)}", file=sys.stderr)
    if outcome.disqualifications:
        print("arena: warning: their remaining matches were forfeited; after fixing the bot, "
              "run again with a fresh --out directory (this one keeps the forfeits)",
              file=sys.stderr)
    left = dict(outcome.left_for_later)
    for name, count in left.items():
        print(f"arena: remote bot {printable(repr(name))} did not connect: "
              f"{plural(count, 'match')} with it {'was' if count == 1 else 'were'} not played "
              "(nothing stored); run the same command again when it can connect (--wait-remote "
              "SECONDS waits longer for it)", file=sys.stderr)
    if not args.json:
        later = sum(left.values())
        print(f"\n{plural(outcome.played_now, 'match')} played now, {outcome.already_done} "
              f"resumed from earlier runs, {outcome.scheduled} scheduled"
              + (f", {later} left for a later run" if later else "")
              + f"; results in {out}/ (standings.md/.csv/.json, los.csv, headtohead.csv, "
              "records/, logs/, arena.log)")
    code = never_started_status(tuple((n, r) for n, r in outcome.never_started
                                      if n not in left))
    return code or (EXIT_BOT_NEVER_STARTED if left else 0)


def _seconds(text: str) -> float:
    """``--wait-remote``: seconds, 0 to a week."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0 <= value <= 7 * 86_400:
        raise argparse.ArgumentTypeError(f"expected 0 to 604800 seconds, got {text}")
    return value


def _web_address(text: str | None) -> tuple[str, int] | None:
    """``--web [HOST:]PORT`` checked (and the web extra present), or None without it."""
    if text is None:
        return None
    from ..web import require_web
    from ._values import parse_web_address
    require_web()
    try:
        return parse_web_address(text)
    except ValueError as exc:
        raise UserError(str(exc)) from None
