"""``arena ratings DIR [--format text|md|csv|json]``: recompute ratings from stored results."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..errors import UserError
from ._values import cli_int
if TYPE_CHECKING:
    from ..ratings.formatting import Format, Section

#: ``--bootstrap`` default, the ratings module's DEFAULT_BOOTSTRAP (a test holds them equal);
#: written here so that ``arena --help`` does not import numpy/scipy
BOOTSTRAP_DEFAULT = 1000


ELO_SCALE_HELP = """\
What the Elo scale means:
  A difference of D points means: in a match, the higher bot places above the lower one
  with probability 1 / (1 + 10^(-D/400)) (100 points: 64%, 200: 76%, 400: 91%), whoever
  the third bot is. These are marginal placing odds under the Plackett-Luce model fitted
  to these matches, not a latent skill: when luck is not Gumbel-shaped (e.g. the cards
  decide much of a match) the same bots show smaller differences, and ratings from
  different tournaments (rules, time control, field) are not comparable. The mean rating
  of the bots that are not one-sided is 1500. A one-sided bot (never beaten / never beat
  another bot) has no finite estimate: its rating is set by the prior, and its interval is
  a one-sided 95% bound from the data ("> 1834", "< 1210").
  Intervals: the variance over duplicate blocks with a small-sample correction per bot and
  per difference; LOS: a bootstrap over blocks (see docs/ratings.md).
"""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``arena ratings``."""
    p = sub.add_parser("ratings", help="ratings with 95%% intervals, LOS and head-to-head "
                       "from a tournament directory",
                       description="Ratings (Plackett-Luce over match placings, Elo points) "
                       "with 95%% intervals for each bot and for each difference between two "
                       "bots (head-to-head table), likelihood of superiority and head-to-head "
                       "counts.",
                       epilog=ELO_SCALE_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="a tournament output directory (holding results.sqlite)")
    p.add_argument("--format", choices=("text", "md", "csv", "json"), default=None,
                   help="text: plain tables (the default on a terminal); md: Markdown, names "
                   "escaped (the default otherwise, e.g. piped to a file)")
    p.add_argument("--table", choices=("ratings", "los", "headtohead"), default=None,
                   help="only this table (text, md, csv; csv holds one table: ratings by default)")
    p.add_argument("--bootstrap", type=cli_int(0, 100_000), default=BOOTSTRAP_DEFAULT,
                   help="bootstrap resamples of the LOS (0 = no LOS and no intervals; "
                   "default %(default)s)")
    p.add_argument("--seed", type=cli_int(0), default=0, help="bootstrap seed")
    p.set_defaults(func=run)


def default_format() -> Format:
    """The report's format without ``--format``: plain tables on a terminal, Markdown
    otherwise (piped to a file or a page)."""
    return "text" if sys.stdout.isatty() else "md"


def run(args: argparse.Namespace) -> int:
    """Print the ratings report; exit 0, or 2 with one line on a user mistake."""
    from ..ratings import RatingsInputError, format_report, rate   # numpy/scipy: only here
    from ..processes.proctable import never_started
    from ..tournament.store import open_existing
    with open_existing(args.dir) as store:
        rows = store.results()
        absent = never_started(store.db)
    if absent:
        rows = [r for r in rows if not absent.keys() & set(r.players)]
        print(f"arena: note: never started, kept out of the ratings with their matches: "
              f"{', '.join(repr(n) for n in absent)}", file=sys.stderr)
    blocks = len({r.block for r in rows})
    bootstrap = args.bootstrap if blocks >= 2 else 0   # intervals need 2+ duplicate blocks
    if bootstrap != args.bootstrap:
        print(f"arena: note: {blocks} duplicate block only: no confidence intervals",
              file=sys.stderr)
    try:
        report = rate(rows, bootstrap=bootstrap, seed=args.seed)
    except RatingsInputError as exc:
        raise UserError(f"{args.dir}: {exc}") from None
    sections: dict[str | None, Section] = {None: "all", "ratings": "ratings", "los": "los",
                                           "headtohead": "head_to_head"}
    section = sections[args.table]
    fmt: Format = args.format or default_format()
    print(format_report(report, fmt, section=section), end="")
    return 0
