"""AIVAT-style variance reduction on the sample bots, measured (a benchmark, not a test).

The random bot plays duplicate blocks (one deal in all 6 seatings) against two other sample
bots, in-process; each of its decisions adds the AIVAT control variate (its known uniform
policy, greedy-rollout values of the full state; ``arena/bench/aivat.py``) to its pairwise
score against each opponent. Printed per opponent: the variance of the block means without
and with the correction, their ratio (bootstrap 95% interval) and the mean correction with
its standard error (0 if unbiased). Seeded: the same command prints the same figures.

Usage::

    python bench/aivat.py --blocks 200 --opponents greedy greedy-b
    python bench/aivat.py --blocks 60 --opponents greedy montecarlo --hand-cap 1
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bench.aivat import measure_block, summary
from arena.rules import PRESETS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, default=200)
    parser.add_argument("--opponents", nargs=2, default=["greedy", "greedy-b"],
                        choices=["greedy", "greedy-b", "montecarlo"])
    parser.add_argument("--preset", default="sergeant-major", choices=sorted(PRESETS))
    parser.add_argument("--hand-cap", type=int, default=1)
    parser.add_argument("--rollouts", type=int, default=4,
                        help="rollouts per action of V (0: one greedy rollout)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    others = (args.opponents[0], args.opponents[1])
    job = partial(measure_block, others=others, preset=args.preset, hand_cap=args.hand_cap,
                  seed=args.seed, rollouts=args.rollouts)
    t0 = time.monotonic()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            blocks = list(pool.map(job, range(args.blocks)))
    else:
        blocks = [job(d) for d in range(args.blocks)]
    print(f"random against {others[0]} and {others[1]}: {args.blocks} blocks x 6 seatings, "
          f"preset {args.preset}, hand cap {args.hand_cap}, V from {args.rollouts} rollouts "
          f"per action, seed {args.seed}")
    print("| opponent | var of block means, plain | with AIVAT | ratio (95% CI) | "
          "mean score, plain / with | mean correction (s.e.) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in others:
        s = summary(blocks, name)
        print(f"| {name} | {s['var_plain']:.5f} | {s['var_corrected']:.5f} | "
              f"{s['ratio']:.3f} ({s['ratio_low']:.3f}-{s['ratio_high']:.3f}) | "
              f"{s['mean_plain']:.4f} / {s['mean_corrected']:.4f} | "
              f"{s['correction']:+.4f} ({s['correction_se']:.4f}) |")
    print(f"({time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    main()
