"""``arena ratings DIR [--format md|csv|json]``: recompute ratings from stored results."""

from __future__ import annotations

import argparse
import sys

from ..errors import UserError
from ._values import cli_int
from ..ratings import MatchResult, RatingsInputError, format_report, rate
from ..tournament.proctable import never_started
from ..tournament.store import open_existing


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``arena ratings``."""
    p = sub.add_parser("ratings", help="ratings with 95%% intervals, LOS and head-to-head "
                       "from a tournament directory")
    p.add_argument("dir", help="a tournament output directory (holding results.sqlite)")
    p.add_argument("--format", choices=("md", "csv", "json"), default="md")
    p.add_argument("--table", choices=("ratings", "los", "headtohead"), default=None,
                   help="only this table (md, csv; csv holds one table: ratings by default)")
    p.add_argument("--bootstrap", type=cli_int(0, 100_000), default=200,
                   help="bootstrap resamples (0 = none)")
    p.add_argument("--seed", type=cli_int(0), default=0, help="bootstrap seed")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the ratings report; exit 0, or 2 with one line on a user mistake."""
    with open_existing(args.dir) as store:
        rows = store.results()
        absent = never_started(store.db)
    if absent:
        rows = [r for r in rows if not absent.keys() & set(r.seats)]
        print(f"arena: note: never started, kept out of the ratings with their matches: "
              f"{', '.join(repr(n) for n in absent)}", file=sys.stderr)
    results = [MatchResult(r.seats, tuple(r.placings), r.block_id, tuple(r.forfeited))
               for r in rows]
    blocks = len({r.block_id for r in rows})
    bootstrap = args.bootstrap if blocks >= 2 else 0   # intervals need 2+ duplicate blocks
    if bootstrap != args.bootstrap:
        print(f"arena: note: {blocks} duplicate block only: no confidence intervals",
              file=sys.stderr)
    try:
        report = rate(results, bootstrap=bootstrap, seed=args.seed)
    except RatingsInputError as exc:
        raise UserError(f"{args.dir}: {exc}") from None
    section = {None: "all", "ratings": "ratings", "los": "los",
               "headtohead": "head_to_head"}[args.table]
    print(format_report(report, args.format, section=section), end="")
    return 0
