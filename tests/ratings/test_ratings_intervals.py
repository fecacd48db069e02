"""The 95% intervals: the block-robust variance, its bias and degrees of freedom against
closed forms and an independent dense computation, and the cause of the old under-coverage
(a t factor from the tournament's total blocks)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import approx_fprime
from scipy.stats import t as student_t

from arena.bench.ratings_sim import simulate_blocks
from arena.ratings import ELO_PER_NAT, MatchResult, rate
from arena.ratings.bootstrap import interval_scale
from arena.ratings.intervals import block_design, contrasts, robust_intervals
from arena.ratings.plackett_luce import encode, fit_theta, placing_probability
from arena.tournament.balanced import balanced_tables


def design(results, sigma=1.5):
    names = sorted({n for r in results for n in r.players})
    index = {n: i for i, n in enumerate(names)}
    patterns = encode(results, index)
    theta = fit_theta(patterns, patterns.counts, len(names), sigma)
    return names, index, patterns, theta, block_design(results, patterns)


@pytest.mark.parametrize("g", [2, 3, 8, 25])
def test_one_table_of_identical_blocks_gives_the_classic_factor(g):
    """Every block holds the same 6 matches: lambda = (G-1)/G and df = G-1 exactly (without a
    prior: a flat one), i.e. the factor t_{G-1}(0.975) sqrt(G/(G-1)) (Cameron & Miller) for
    every bot and difference."""
    block = [MatchResult(s, p, "x") for s, p in zip(
        itertools.permutations("ABC"), [(1, 2, 3), (2, 1, 3), (1, 3, 2), (3, 2, 1), (1, 1, 3),
                                        (2, 2, 1)], strict=True)]
    results = [MatchResult(r.players, r.places, f"b{k}") for k in range(g) for r in block]
    _, _, patterns, theta, d = design(results, sigma=1e3)
    matrix, _ = contrasts(np.ones(3, dtype=bool))
    ri = robust_intervals(patterns, d.membership, theta, 1e3, matrix)
    assert ri.lam == pytest.approx(np.full(6, (g - 1) / g), rel=1e-5)
    assert ri.df == pytest.approx(np.full(6, g - 1.0), rel=1e-5)
    factor = student_t.ppf(0.975, ri.df) / np.sqrt(ri.lam)
    assert factor == pytest.approx(np.full(6, interval_scale(g)), rel=1e-5)
    assert ri.variance == pytest.approx(np.zeros(6), abs=1e-20)   # the blocks never differ


def test_variance_bias_and_degrees_of_freedom_match_a_dense_computation():
    """5 bots at mixed tables with ties: V0, lambda and df from the definitions, with block
    scores and informations by finite differences of the brute-force likelihood and the
    G x G covariance C = diag(u^T J_b u) - Q K Q^T built in full."""
    truth = {"A": 1650.0, "B": 1550.0, "C": 1500.0, "D": 1450.0, "E": 1350.0}
    tables = [("A", "B", "C"), ("C", "D", "E"), ("A", "D", "E"), ("B", "C", "E"),
              ("A", "B", "D")] * 2
    results = simulate_blocks(truth, tables, np.random.default_rng(7), rho=0.4, tie=0.15)
    _, index, patterns, theta, d = design(results)
    anchor = np.ones(5, dtype=bool)
    matrix, _ = contrasts(anchor)
    ri = robust_intervals(patterns, d.membership, theta, 1.5, matrix)

    blocks = [[r for r in results if r.block == b] for b in d.blocks]

    def loglik(t, block):
        return sum(math.log(placing_probability([t[index[x]] for x in m.players], m.places))
                   for m in block)

    def score(t, block):
        return approx_fprime(t, loglik, 1e-6, block)

    g = np.array([score(theta, b) for b in blocks])                       # (G, n)
    j = np.array([-np.array([approx_fprime(theta, lambda t, i=i, b=b: score(t, b)[i], 1e-5)
                             for i in range(5)]) for b in blocks])        # (G, n, n)
    j = (j + j.transpose(0, 2, 1)) / 2
    info = j.sum(axis=0)
    h_inv = np.linalg.inv(info + np.eye(5) / 1.5**2)
    k_mat = 2 * h_inv - h_inv @ info @ h_inv
    for k in range(matrix.shape[1]):
        u = h_inv @ matrix[:, k]
        z = g @ u
        v0 = np.sum((z - z.mean()) ** 2)
        q = np.einsum("bij,j->bi", j, u)
        c = np.diag(np.einsum("i,bij,j->b", u, j, u)) - q @ k_mat @ q.T
        lam = np.trace(c) / np.einsum("i,bij,j->", u, j, u)
        df = np.trace(c) ** 2 / np.trace(c @ c)
        assert ri.lam[k] == pytest.approx(lam, rel=2e-4)
        assert ri.df[k] == pytest.approx(df, rel=2e-4)
        assert ri.variance[k] == pytest.approx(v0 / lam, rel=2e-4)
        half = student_t.ppf(0.975, df) * math.sqrt(v0 / lam)
        assert ri.half[k] == pytest.approx(half, rel=2e-4)


def test_rate_reports_these_intervals():
    results = simulate_blocks({"A": 1600.0, "B": 1500.0, "C": 1450.0, "D": 1400.0},
                              list(itertools.combinations("ABCD", 3)) * 3,
                              np.random.default_rng(3), rho=0.5)
    report = rate(results, bootstrap=20)
    names, _, patterns, theta, d = design(results)
    matrix, pairs = contrasts(np.ones(4, dtype=bool))
    half = robust_intervals(patterns, d.membership, theta, 1.5, matrix).half * ELO_PER_NAT
    for i, name in enumerate(names):
        b = report.bot(name)
        assert (b.ci_low, b.ci_high) == pytest.approx((b.rating - half[i], b.rating + half[i]))
    for k, (i, j) in enumerate(pairs):
        diff = report.difference_of(names[i], names[j])
        assert diff.ci_high - diff.ci_low == pytest.approx(2 * half[4 + k])


def test_a_bot_of_a_balanced_schedule_rests_on_its_own_blocks():
    """The cause of the under-coverage of balanced schedules (pooled 0.936 before): 21 bots,
    70 blocks, each bot in 10. The old factor took 69 degrees of freedom for every bot; a
    bot's rating has about 9 (its own blocks, less what the fit absorbs), so its factor is
    larger, and a difference's too."""
    truth = {f"b{k:02d}": 1300.0 + 20 * k for k in range(21)}
    tables = balanced_tables(sorted(truth), 1, 1)
    results = simulate_blocks(truth, tables, np.random.default_rng(0), rho=0.5)
    _, _, patterns, theta, d = design(results)
    matrix, _ = contrasts(np.ones(21, dtype=bool))
    ri = robust_intervals(patterns, d.membership, theta, 1.5, matrix)
    assert len(d.blocks) == 70
    bots = slice(0, 21)
    assert np.all((ri.df[bots] > 6) & (ri.df[bots] < 14))
    assert np.all((ri.lam[bots] > 0.75) & (ri.lam[bots] < 0.95))
    factor = student_t.ppf(0.975, ri.df) / np.sqrt(ri.lam)
    assert np.all(factor > interval_scale(70) * 1.1)
