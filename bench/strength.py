"""Strength benchmark of the sample bots: duplicate matches, in-process (not a test).

Every deal seed is played in all 6 seatings of {montecarlo, greedy, random}: the match seed fixes
each hand's deal by role (RULES.md 6), so every bot meets the same cards from every seat. Prints
per bot the number of matches, the average placing (1 = first, shared places count as in
RULES.md 7) and the average match score with a rough standard error (sd / sqrt(n), ignoring the
correlation between the seatings of one deal), and the time per decision: mean and max wall
time, and max CPU time of the process (wall minus CPU shows waiting for a busy machine), ms.

Usage::

    python bench/strength.py --deals 12 --preset sergeant-major --hand-cap 3 --mc-ms 100

Expected: montecarlo places above greedy, greedy above random on average.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from arena.rules.view import view_of

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.rules import PRESETS, MatchState, make_config
from sample_bots.greedy_bot import GreedyBot
from sample_bots.montecarlo_bot import MonteCarloBot
from sample_bots.random_bot import RandomBot

BOTS = ("montecarlo", "greedy", "random")


def make_bot(name: str, args: argparse.Namespace, seed: str):
    """A fresh bot instance for one match (``seed`` differs per match and seat)."""
    if name == "montecarlo":
        return MonteCarloBot(time_ms=args.mc_ms, seed=seed, budget_fraction=args.budget)
    if name == "greedy":
        return GreedyBot()
    return RandomBot(seed=seed)


def play_match(job: tuple[int, tuple[str, ...], argparse.Namespace]) -> dict:
    """Play one match: ``job`` = (deal index, bot name per seat, options). Returns per bot name
    its placing, score, decision count, total and max decision time (s), and the hands played."""
    deal, seating, args = job
    cfg = make_config(args.preset, hand_cap=args.hand_cap)
    state = MatchState.new(cfg, seed=f"bench/{args.seed}/{deal}")
    bots = [make_bot(n, args, f"{args.seed}/{deal}/{'-'.join(seating)}/{s}")
            for s, n in enumerate(seating)]
    spent = [0.0, 0.0, 0.0]
    worst = [0.0, 0.0, 0.0]
    worst_cpu = [0.0, 0.0, 0.0]
    count = [0, 0, 0]
    while not state.finished:
        seat = state.current_seat
        view = view_of(state, seat)
        t0, c0 = time.perf_counter(), time.process_time()
        action = bots[seat].decide(view)
        dt = time.perf_counter() - t0
        spent[seat] += dt
        worst[seat] = max(worst[seat], dt)
        worst_cpu[seat] = max(worst_cpu[seat], time.process_time() - c0)
        count[seat] += 1
        state.apply(action)
    return {name: {"place": state.placings[s], "score": state.scores[s], "n": count[s],
                   "time": spent[s], "max": worst[s], "max_cpu": worst_cpu[s],
                   "hands": state.hand_number}
            for s, name in enumerate(seating)}


def _mean_se(xs: list[float]) -> tuple[float, float]:
    """Mean and rough standard error (0 with fewer than 2 values)."""
    m = statistics.fmean(xs)
    return m, (statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0)


def report(results: list[dict], elapsed: float, args: argparse.Namespace) -> None:
    """Print the per-bot table."""
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    hands = []
    for r in results:
        hands.append(next(iter(r.values()))["hands"])
        for name, v in r.items():
            for k in ("place", "score", "n", "time", "max", "max_cpu"):
                per[name][k].append(v[k])
    print(f"preset {args.preset}, hand cap {args.hand_cap}, {args.deals} deals x 6 seatings = "
          f"{len(results)} matches ({statistics.fmean(hands):.2f} hands/match), "
          f"MC {args.mc_ms} ms/decision (budget {args.budget:.0%}), {elapsed:.0f} s")
    print(f"{'bot':<11} {'matches':>7} {'avg place':>14} {'avg score':>15} "
          f"{'ms/decision':>11} {'max ms':>7} {'max cpu ms':>10}")
    for name in sorted(per, key=lambda n: statistics.fmean(per[n]["place"])):
        p, pse = _mean_se(per[name]["place"])
        s, sse = _mean_se(per[name]["score"])
        ms = 1000 * sum(per[name]["time"]) / max(1, sum(per[name]["n"]))
        print(f"{name:<11} {len(per[name]['place']):>7} {p:>7.2f} ± {pse:4.2f} "
              f"{s:>+8.2f} ± {sse:4.2f} {ms:>11.2f} {1000 * max(per[name]['max']):>7.1f} "
              f"{1000 * max(per[name]['max_cpu']):>10.1f}")


def main(argv: list[str] | None = None) -> int:
    """Parse options, play every deal in every seating, print the table."""
    ap = argparse.ArgumentParser(description="duplicate strength benchmark of the sample bots")
    ap.add_argument("--deals", type=int, default=12, help="deal seeds (each played 6 times)")
    ap.add_argument("--preset", default="sergeant-major", choices=sorted(PRESETS))
    ap.add_argument("--hand-cap", type=int, default=3, help="hands per match at most")
    ap.add_argument("--mc-ms", type=int, default=100, help="MonteCarloBot time per decision, ms")
    ap.add_argument("--budget", type=float, default=0.65, help="share of the time MC may use")
    ap.add_argument("--seed", type=int, default=0, help="base seed of the deals")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (timing is per "
                    "decision, so keep it at most the number of idle cores)")
    args = ap.parse_args(argv)
    jobs = [(d, seating, args) for d in range(args.deals)
            for seating in itertools.permutations(BOTS)]
    t0 = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(play_match, jobs))
    else:
        results = [play_match(j) for j in jobs]
    report(results, time.perf_counter() - t0, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
