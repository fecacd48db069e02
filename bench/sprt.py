"""Operating characteristics of the gauntlet's SPRT in simulation (a benchmark, not a test).

For each luck model ``rho`` (:mod:`arena.bench.sprt_sim`: the share of a seat's performance
noise that comes with its cards and is therefore shared by the 6 seatings of a duplicate block)
and each true Elo difference (candidate minus the field's mean on the ratings' scale; elo0 and
elo1 by default), runs many simulated gauntlets and prints the fraction accepting H1
(false-positive rate at elo0, power at elo1) with its Monte Carlo standard error, the fraction
undecided at the cap, the mean / median number of blocks to a decision and the mean final
estimate. ``--field A B`` rates the two field bots A and B (default equal), ``--tie`` the
probability of a shared first (and of a shared last) place. Seeded: the same command prints
the same figures.

Usage::

    python bench/sprt.py --elo1 5 --runs 2000
    python bench/sprt.py --elo1 10 --rho 0 0.5 0.8 --truth 0 5 10
    python bench/sprt.py --elo1 20 --field -300 300 --tie 0.17
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bench.sprt_sim import simulate_sprt
from arena.ratings.sprt import SprtParameters


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=5.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--rho", type=float, nargs="+", default=[0.0, 0.5, 0.8])
    parser.add_argument("--truth", type=float, nargs="+", help="true Elo differences "
                        "(default: elo0 and elo1)")
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--max-blocks", type=int, default=100_000)
    parser.add_argument("--field", type=float, nargs=2, default=[0.0, 0.0],
                        help="ratings of the two field bots (Elo)")
    parser.add_argument("--tie", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    params = SprtParameters(args.elo0, args.elo1, args.alpha, args.beta)
    truths = args.truth or [args.elo0, args.elo1]
    print(f"elo0 {args.elo0:g}, elo1 {args.elo1:g}, alpha {args.alpha:g}, beta {args.beta:g}, "
          f"{args.runs} runs per line, cap {args.max_blocks} blocks, field "
          f"{args.field[0]:g} / {args.field[1]:g}, ties {args.tie:g}")
    print("| luck rho | true Elo | P(accept H1) | MC s.e. | undecided | mean blocks | "
          "median blocks | mean estimate |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    t0 = time.monotonic()
    for rho in args.rho:
        for k, elo in enumerate(truths):
            s = simulate_sprt(elo, rho, params, args.runs, args.max_blocks, args.seed + k,
                              field=(args.field[0], args.field[1]), tie=args.tie)
            print(f"| {rho:g} | {elo:g} | {s.h1_rate:.4f} | {s.h1_se:.4f} | {s.undecided:.4f} "
                  f"| {s.mean_blocks:.0f} | {s.median_blocks:.0f} | {s.mean_estimate:+.1f} |",
                  flush=True)
    print(f"({time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    main()
