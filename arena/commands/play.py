"""``arena play BOT_CMD BOT_CMD BOT_CMD [--preset P] [--seed S]``: one match, hand by hand."""

from __future__ import annotations

import argparse
import secrets
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..safetext import printable
from ._values import cli_int, play_config

if TYPE_CHECKING:
    from ..records import MatchRecord


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``arena play``."""
    p = sub.add_parser(
        "play", help="play one match between three bot commands and print it hand by hand",
        description="Each BOT_CMD is one shell-quoted command, e.g. "
        "\"python -m sample_bots.greedy_bot\"; {python} stands for this Python. "
        "Seat 0 (the first BOT_CMD) deals the first hand.")
    p.add_argument("bots", nargs=3, metavar="BOT_CMD")
    p.add_argument("--preset", default="sergeant-major",
                   help="rule preset (default %(default)s; see `arena presets`)")
    p.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                   help="rule option override, e.g. --set hand_cap=3 (repeatable)")
    p.add_argument("--seed",
                   help="match seed: an integer or a text (default: a random one, printed, "
                   "so that the bots cannot compute the deal; give it to replay the deal)")
    p.add_argument("--time-ms", default="1000", help="time per decision, ms (default %(default)s)")
    p.add_argument("--grace-ms", default="250",
                   help="margin before an answer is late, ms (default %(default)s)")
    p.add_argument("--sandbox", choices=("bwrap", "none"),
                   help="run the bots in the bubblewrap sandbox (bwrap, the default, as "
                   "`arena run`) or as plain processes (none: trusted bots only)")
    p.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                   help="a [sandbox] limit, e.g. --limit memory_mib=2048 (repeatable; "
                   "see README, Running untrusted bots)")
    p.add_argument("--record", help="also write the match record here (.jsonl or .jsonl.gz)")
    p.add_argument("--seat", type=cli_int(0, 2), help="show only what this seat (0-2) knew")
    p.add_argument("--json", action="store_true",
                   help="print a one-line JSON summary of the match instead of the replay")
    p.set_defaults(func=run)


#: exit status when a bot cannot start (as ``arena run`` when a bot never started)
EXIT_BOT_START = 3


def run(args: argparse.Namespace) -> int:
    """Play and print; exit 0, 2 on a user mistake (or a bot command that cannot start),
    3 when a bot started but failed before registering (its start error is printed)."""
    from ..protocol.errors import ServerStartError
    from ..records import record_from_result
    from ..sandbox.config import describe
    from ..tournament.play import BotStartError, entries, play_single
    from ..tournament.preflight import preflight
    from ._signals import Interrupted, run_guarded
    # one validated path: the tournament config's model
    if args.seed is None:      # unguessable: the bots know the match id and their names
        args.seed = str(secrets.randbits(63))
    cfg = play_config(args.bots, preset=args.preset, seed=args.seed, sets=args.set,
                      time_ms=args.time_ms, grace_ms=args.grace_ms, sandbox=args.sandbox,
                      limits=args.limit)
    rules, seed = cfg.rules_config(), cfg.tournament.seed
    time_ms, grace_ms = cfg.time.per_decision_ms, cfg.time.grace_ms
    if args.record:
        target = Path(args.record)
        if target.is_dir() or not target.parent.is_dir():
            raise UserError(f"--record {args.record}: not a file path in an existing directory")
    problems = preflight(entries(args.bots))    # before saying it plays (nothing is run)
    if problems:
        raise UserError("\n".join(problems))
    print(describe(cfg.sandbox), file=sys.stderr)
    print(f"playing one {rules.preset} match, {time_ms} ms per decision, seed {seed} "
          f"(output comes when it ends) ...", file=sys.stderr, flush=True)
    logs = Path(tempfile.mkdtemp(prefix="arena-play-"))
    try:
        result = run_guarded(play_single(
            rules, args.bots, seed=seed, time_ms=time_ms, grace_ms=grace_ms,
            log_dir=logs, sandbox=cfg.sandbox))
    except Interrupted as exc:
        print(f"arena: stopped by {exc}; bot logs in {logs}", file=sys.stderr)
        return exc.code
    except BotStartError as exc:
        print(f"arena: error: {printable(str(exc))}; nothing was played (bot logs in {logs})",
              file=sys.stderr)
        return EXIT_BOT_START
    except (ValueError, ServerStartError) as exc:   # nothing started: no logs to keep
        if not any(logs.iterdir()):
            logs.rmdir()
        raise UserError(str(exc)) from None
    if any(result.forfeited) or any(result.faults):
        print(f"arena: bot logs kept in {logs}", file=sys.stderr)
    else:
        shutil.rmtree(logs, ignore_errors=True)
    _show(args, record_from_result(result), logs)
    return 0


def _show(args: argparse.Namespace, record: MatchRecord, logs: Path) -> None:
    """Print the replay (or the ``--json`` summary) and write ``--record``.

    Raises:
        UserError: the record file cannot be written.
    """
    from ..records import render_text, write_record
    if not args.json:
        print(render_text(record, seat=args.seat), end="")
    if args.record:
        try:
            write_record(record, args.record)
        except OSError as exc:
            raise UserError(f"cannot write --record {args.record}: {exc.strerror or exc}") \
                from None
        if not args.json:
            print(f"record written to {args.record}")
    if args.json:
        from ._summary import dumps, record_summary
        print(dumps({**record_summary(record), "record": args.record,
                     "bot_logs": str(logs) if logs.exists() else None}), end="")
