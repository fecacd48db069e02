"""``arena play BOT_CMD BOT_CMD BOT_CMD [--preset P] [--seed S]``: one match, hand by hand."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from ..errors import UserError
from ..rules import RulesConfigError, config_from_options


def add_parser(sub: argparse._SubParsersAction) -> None:
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
    p.add_argument("--seed", default="1", help="match seed (default %(default)s)")
    p.add_argument("--time-ms", type=int, default=1000, help="time per decision, ms")
    p.add_argument("--grace-ms", type=int, default=250,
                   help="margin before an answer is late, ms (default %(default)s)")
    p.add_argument("--record", help="also write the match record here (.jsonl or .jsonl.gz)")
    p.add_argument("--seat", type=int, choices=(0, 1, 2), help="show only what this seat knew")
    p.add_argument("--json", action="store_true",
                   help="print a one-line JSON summary of the match instead of the replay")
    p.set_defaults(func=run)


def parse_overrides(items: list[str]) -> dict[str, object]:
    """``["hand_cap=3", "no_trump=true", "targets=9,5,2"]`` -> typed values.

    Raises:
        UserError: an item without ``=``.
    """
    out: dict[str, object] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep:
            raise UserError(f"--set expects OPTION=VALUE, got {item!r}")
        val: object = raw
        if raw.lower() in ("true", "false"):
            val = raw.lower() == "true"
        elif raw.lstrip("-").isdigit():
            val = int(raw)
        elif "," in raw and all(p.strip().isdigit() for p in raw.split(",")):
            val = [int(p) for p in raw.split(",")]
        out[key.strip()] = val
    return out


def run(args: argparse.Namespace) -> int:
    """Play and print; exit 0."""
    from ..protocol.errors import ServerStartError
    from ..records import record_from_result, render_text, write_record
    from ..tournament.single import play_single
    from ._signals import Interrupted, run_guarded
    try:
        rules = config_from_options(args.preset, parse_overrides(args.set))
    except RulesConfigError as exc:
        raise UserError(str(exc)) from None
    if not (1 <= args.time_ms <= 3_600_000 and 0 <= args.grace_ms <= 600_000):
        raise UserError("--time-ms must be 1..3600000 and --grace-ms 0..600000")
    if args.record:
        target = Path(args.record)
        if target.is_dir() or not target.parent.is_dir():
            raise UserError(f"--record {args.record}: not a file path in an existing directory")
    seed: int | str = int(args.seed) if args.seed.lstrip("-").isdigit() else args.seed
    print(f"playing one {rules.preset} match, {args.time_ms} ms per decision "
          f"(output comes when it ends) ...", file=sys.stderr, flush=True)
    logs = Path(tempfile.mkdtemp(prefix="arena-play-"))
    try:
        result = run_guarded(play_single(
            rules, args.bots, seed=seed, time_ms=args.time_ms, grace_ms=args.grace_ms,
            log_dir=logs))
    except Interrupted as exc:
        print(f"arena: stopped by {exc}; bot logs in {logs}", file=sys.stderr)
        return exc.code
    except (ValueError, ServerStartError) as exc:
        raise UserError(str(exc)) from None
    if any(result.forfeited) or any(result.faults):
        print(f"arena: bot logs kept in {logs}", file=sys.stderr)
    else:
        shutil.rmtree(logs, ignore_errors=True)
    record = record_from_result(result)
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
    return 0
