"""How much any schedule can narrow the widest interval: the best allocation of blocks to
tables with the true strengths known, against a balanced schedule (a bound for "widest").

For a field of bots with known Plackett-Luce strengths, the expected information of one
duplicate block at table ``T`` is ``E_T`` (``arena.ratings.adaptive._table_information``: 6
matches, the 6 orderings weighted by their probability). A design puts a share ``w_T`` of the
blocks at each table; its information per block is ``sum_T w_T E_T`` and the model variance of
bot ``i``'s rating (centred on the field's mean) ``v_i(w)``. This script finds the shares that
minimise ``max_i v_i(w)`` over all tables (a convex problem: softmax shares, a smooth maximum
``log sum exp(beta v / v_balanced)`` with beta raised 20 -> 60 -> 200, L-BFGS) and prints
``max v`` of the balanced schedule (a Steiner triple system or covering, every pair once) over
``max v`` of the best design: the factor by which the blocks of a balanced schedule could
shrink at the same largest model variance, with the strengths known and no first round to
pay. The reported intervals add noise (block-robust variances, t factors) that this bound
leaves out; ``bench/adaptive.py`` measures the schedules themselves.

Usage::

    python bench/widest_bound.py
    python bench/widest_bound.py --fields 9:1300:1700 21:1300:1700
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bench.coverage import spread
from arena.ratings import ELO_PER_NAT
from arena.ratings.adaptive import _add, _table_information
from arena.tournament.balanced import balanced_tables


def centred_variances(w: np.ndarray, tables: np.ndarray, info: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Model variances (n,) of the centred ratings under shares ``w`` of one block, the
    inverse information (on the sum-zero space) and the contrasts."""
    n = int(tables.max()) + 1
    total = np.zeros((n, n))
    _add(total, tables, info * w[:, None, None])
    a = np.eye(n) - 1.0 / n
    cov = np.linalg.inv(total + np.ones((n, n)) / n)
    return np.einsum("ic,ij,jc->c", a, cov, a), cov, a


def best_design(tables: np.ndarray, info: np.ndarray, scale: float) -> np.ndarray:
    """Shares (T,) minimising the largest centred variance (smooth maximum, see module)."""
    x = np.zeros(len(tables))
    for beta in (20.0, 60.0, 200.0):
        def objective(x: np.ndarray, beta: float = beta) -> tuple[float, np.ndarray]:
            w = np.exp(x - x.max())
            w /= w.sum()
            v, cov, a = centred_variances(w, tables, info)
            s = beta * v / scale
            e = np.exp(s - s.max())
            value = (s.max() + np.log(e.sum())) / beta
            q = e / e.sum() / scale
            g = (cov @ a)[tables]
            dv = -np.einsum("tic,tij,tjc,c->t", g, info, g, q)
            return float(value), w * (dv - w @ dv)
        x = minimize(objective, x, jac=True, method="L-BFGS-B",
                     options={"maxiter": 3000}).x
    w = np.exp(x - x.max())
    out: np.ndarray = w / w.sum()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fields", nargs="+",
                        default=["9:1300:1700", "9:1100:1900", "21:1000:2000"],
                        help="fields as BOTS:LOW:HIGH (ratings evenly from LOW to HIGH)")
    args = parser.parse_args()
    print("| field | balanced: largest variance x blocks | best design | ratio |")
    print("|---|---:|---:|---:|")
    for field in args.fields:
        n, low, high = field.split(":")
        truth = spread(int(n), float(low), float(high))
        bots = sorted(truth)
        theta = np.array([truth[b] for b in bots]) / ELO_PER_NAT
        tables = np.array(list(itertools.combinations(range(len(bots)), 3)))
        info = _table_information(theta - theta.mean(), tables)
        row = {t: k for k, t in enumerate(map(tuple, tables.tolist()))}
        balanced = np.zeros(len(tables))
        for t in balanced_tables(bots, 1, 1):
            balanced[row[tuple(sorted(bots.index(b) for b in t))]] += 1
        balanced /= balanced.sum()
        vb = centred_variances(balanced, tables, info)[0].max()
        vo = centred_variances(best_design(tables, info, vb), tables, info)[0].max()
        print(f"| {n} bots, {float(low):g}-{float(high):g} | {vb:.3f} | {vo:.3f} | "
              f"{vb / vo:.2f} |", flush=True)


if __name__ == "__main__":
    main()
