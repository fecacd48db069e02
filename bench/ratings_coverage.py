"""Coverage of the ratings' 95% intervals in simulation (a benchmark, not a test).

Tournaments are simulated from known Plackett-Luce strengths (``arena/bench/ratings_sim.py``:
every match an exact PL draw, the 6 seatings of a block sharing luck through the cards with
probability ``--rho``, a share ``--tie`` of matches reported with a shared place), rated with
``arena.ratings.rate``, and the fraction of intervals that hold the truth is counted
(``arena/bench/coverage.py``): pooled over the bots, for the bot covered least often, and over
all differences. Settings: one table (3 bots, 1700/1500/1300), balanced schedules of 7, 9 and
21 bots (1300 to 1700 evenly) with several deals, all tables of 7 bots; from 3 to 20 blocks
per bot. Seeded: the same command prints the same figures.

Usage::

    python bench/ratings_coverage.py --reps 1000
    python bench/ratings_coverage.py --reps 300 --only balanced --rho 0

Monte Carlo error of a coverage figure: about sqrt(0.95 * 0.05 / trials): a bot's over
``reps`` tournaments (0.007 for 1000), the pooled one over ``reps x bots`` trials (a little
more, as the bots of one tournament are not independent).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bench.coverage import measure, settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=1000, help="tournaments per setting")
    parser.add_argument("--rho", type=float, default=0.5, help="share of luck in the cards")
    parser.add_argument("--tie", type=float, default=0.1,
                        help="probability of a shared first (and of a shared last) place")
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--only", default="", help="settings whose label contains this text")
    args = parser.parse_args()
    print(f"{args.reps} tournaments per setting, luck rho {args.rho:g}, ties {args.tie:g}, "
          f"seed {args.seed}")
    print("| setting | blocks per bot | coverage, bots (pooled) | worst bot | "
          "coverage, differences | mean width, bots / differences (Elo) |")
    print("|---|---:|---:|---:|---:|---:|")
    t0 = time.monotonic()
    for k, s in enumerate(settings(args.rho, args.tie)):
        if args.only not in s.label:
            continue
        c = measure(s, args.reps, args.seed + k)
        name, worst = c.worst()
        print(f"| {s.label} | {s.blocks_per_bot} | {c.pooled:.3f} | {worst:.3f} ({name}) | "
              f"{c.differences:.3f} | {c.bot_width:.0f} / {c.diff_width:.0f} |", flush=True)
    print(f"({time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    main()
