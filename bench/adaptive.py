"""Adaptive against balanced duplicate scheduling in simulation (a benchmark, not a test).

For each simulated field (known Plackett-Luce strengths, ``arena/bench/ratings_sim.py``) and
each question, runs both designs until the question is settled, checking both after every
round of as many blocks as a balanced round has (``arena/bench/adaptive_sim.py``):

* ``top``: the best 3 bots in order with 95% confidence (the 95% intervals of rank 1 - rank 2,
  rank 2 - rank 3 and rank 3 - every other bot all above 0);
* ``widest``: every bot's 95% interval at most ``--width`` Elo points wide.

Printed per field and question: mean matches of each design (with its standard error), their
ratio, how often the settled answer was right, and the coverage of the bots' intervals at the
stop. Seeded (run ``k`` of both designs uses seed ``k``): the same command prints the same
figures.

Usage::

    python bench/adaptive.py --runs 40
    python bench/adaptive.py --runs 10 --fields 9:1300:1700
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bench.adaptive_sim import run
from arena.bench.coverage import spread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="runs per design and question")
    parser.add_argument("--fields", nargs="+",
                        default=["9:1300:1700", "9:1100:1900", "21:1000:2000"],
                        help="fields as BOTS:LOW:HIGH (ratings evenly from LOW to HIGH)")
    parser.add_argument("--targets", nargs="+", default=["top", "widest"])
    parser.add_argument("--width", type=float, default=100.0)
    parser.add_argument("--rho", type=float, default=0.5)
    parser.add_argument("--tie", type=float, default=0.1)
    args = parser.parse_args()
    print(f"{args.runs} runs per design, luck rho {args.rho:g}, ties {args.tie:g}, "
          f"widest: {args.width:g} Elo")
    print("| field | question | balanced: matches | adaptive: matches | ratio | right "
          "(balanced / adaptive) | coverage at the stop (balanced / adaptive) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    t0 = time.monotonic()
    for field in args.fields:
        n, low, high = field.split(":")
        truth = spread(int(n), float(low), float(high))
        for target in args.targets:
            figures = {}
            for design in ("balanced", "adaptive"):
                outs = [run(truth, design, target, k, width=args.width, rho=args.rho,
                            tie=args.tie) for k in range(args.runs)]
                matches = np.array([o.matches for o in outs], dtype=float)
                figures[design] = (matches.mean(), matches.std(ddof=1) / np.sqrt(len(outs)),
                                   np.mean([o.right and o.settled for o in outs]),
                                   np.mean([np.mean(o.covered) for o in outs]))
            (bm, bs, br, bc), (am, as_, ar, ac) = figures["balanced"], figures["adaptive"]
            print(f"| {n} bots, {float(low):g}-{float(high):g} | {target} | {bm:.0f} +- {bs:.0f} "
                  f"| {am:.0f} +- {as_:.0f} | {bm / am:.2f} | {br:.2f} / {ar:.2f} | "
                  f"{bc:.3f} / {ac:.3f} |", flush=True)
    print(f"({time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    main()
