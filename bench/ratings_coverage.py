"""Coverage of the ratings' 95% intervals in simulation (a benchmark, not a test).

Tournaments are simulated from known Plackett-Luce strengths (every match an exact PL draw by the
Gumbel-max trick; duplicate blocks of 6 seatings), rated with :func:`arena.ratings.rate`, and the
fraction of intervals that contain the truth is counted: per bot (truth centred like the
ratings: mean 1500) and per pair difference. Also printed: the mean interval widths and the
coverage the plain percentile interval of the same bootstrap samples would have had.

Setups (``--setup``):

* ``three-G``: bots A/B/C at 1700/1500/1300 at one table, G blocks (deals);
* ``four-G``: 1650/1550/1450/1350, all 4 tables, G/4 deals each;
* ``schedules``: 9 bots (1300..1700 in steps of 50) rated from a balanced schedule (12 tables,
  a Steiner triple system, 7 deals each) and from all 84 tables (1 deal each): equal match
  counts (504 matches), coverage and widths side by side.

Usage::

    python bench/ratings_coverage.py --setup three-8 --reps 2000 --resamples 200
    python bench/ratings_coverage.py --setup schedules --reps 300

Monte Carlo error of a coverage figure: about sqrt(0.95 * 0.05 / reps) per bot (0.005 for 2000
repetitions); pooled figures are a little better.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.ratings import ELO_PER_NAT, MatchResult, rate
from arena.tournament.balanced import balanced_tables


def simulate(truth: dict[str, float], tables, deals: int, rng) -> list[MatchResult]:
    """Every table plays ``deals`` duplicate blocks; each match an independent PL draw."""
    out = []
    for d in range(deals):
        for t, table in enumerate(tables):
            for seating in itertools.permutations(table):
                keys = np.array([truth[n] for n in seating]) / ELO_PER_NAT + rng.gumbel(size=3)
                order = np.argsort(-keys)
                places = [0, 0, 0]
                for pos, slot in enumerate(order):
                    places[slot] = pos + 1
                out.append(MatchResult(tuple(seating), tuple(places), f"t{t}-d{d}"))
    return out


def coverage(truth, tables, deals, reps, resamples, seed0):
    names = sorted(truth)
    centre = np.mean(list(truth.values()))
    hits = {"bot": 0, "diff": 0, "bot_pct": 0, "diff_pct": 0}
    n_bot = n_diff = 0
    widths = {"bot": [], "diff": []}
    for rep in range(reps):
        rng = np.random.default_rng(seed0 + rep)
        report = rate(simulate(truth, tables, deals, rng), bootstrap=resamples, seed=rep)
        for name in names:
            b = report.bot(name)
            true = truth[name] - centre + 1500
            hits["bot"] += b.ci_low <= true <= b.ci_high
            widths["bot"].append(b.ci_high - b.ci_low)
            n_bot += 1
        for a, b in itertools.combinations(names, 2):
            d = report.difference_of(a, b)
            true = truth[a] - truth[b]
            hits["diff"] += d.ci_low <= true <= d.ci_high
            widths["diff"].append(d.ci_high - d.ci_low)
            n_diff += 1
    return {"bot": hits["bot"] / n_bot, "diff": hits["diff"] / n_diff,
            "bot_width": float(np.mean(widths["bot"])),
            "diff_width": float(np.mean(widths["diff"]))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--setup", default="three-8")
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=100_000)
    args = parser.parse_args()
    t0 = time.monotonic()
    if args.setup == "schedules":
        truth = {f"b{k}": 1300.0 + 50 * k for k in range(9)}
        names = sorted(truth)
        for label, tables, deals in (
                ("balanced (12 tables x 7 deals)", balanced_tables(names, 1, 1), 7),
                ("all-tables (84 tables x 1 deal)", list(itertools.combinations(names, 3)), 1)):
            c = coverage(truth, tables, deals, args.reps, args.resamples, args.seed)
            print(f"{label}: matches {len(tables) * deals * 6}, coverage bot {c['bot']:.3f} "
                  f"diff {c['diff']:.3f}, mean width bot {c['bot_width']:.1f} "
                  f"diff {c['diff_width']:.1f} Elo", flush=True)
    else:
        kind, blocks = args.setup.split("-")
        g = int(blocks)
        if kind == "three":
            truth, tables, deals = {"A": 1700.0, "B": 1500.0, "C": 1300.0}, [("A", "B", "C")], g
        elif kind == "four":
            truth = {"W": 1650.0, "X": 1550.0, "Y": 1450.0, "Z": 1350.0}
            tables, deals = list(itertools.combinations(sorted(truth), 3)), g // 4
        else:
            raise SystemExit(f"unknown setup {args.setup!r}")
        c = coverage(truth, tables, deals, args.reps, args.resamples, args.seed)
        print(f"{args.setup}: {len(tables) * deals} blocks, {args.reps} tournaments, "
              f"{args.resamples} resamples: coverage bot {c['bot']:.3f} diff {c['diff']:.3f}; "
              f"mean width bot {c['bot_width']:.1f} diff {c['diff_width']:.1f} Elo", flush=True)
    print(f"({time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    main()
