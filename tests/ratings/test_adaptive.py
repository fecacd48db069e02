"""next_tables: the warm-up covering, the information of a block against a brute-force
expectation, the Woodbury gain against a direct inverse, where the blocks go for each
target, determinism and the argument checks."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from arena.bench.coverage import spread
from arena.bench.ratings_sim import simulate_blocks

from arena.ratings import ELO_PER_NAT, adaptive, rate
from arena.ratings.adaptive import (
    _Z,
    _gains,
    _played_information,
    _reported_scale,
    _table_information,
    _weights,
    next_tables,
)
from arena.ratings.intervals import block_design, robust_intervals
from arena.ratings.plackett_luce import encode, fit_theta, ordering_probability
from arena.tournament.balanced import balanced_tables

NINE = spread(9)
BOTS = sorted(NINE)


def met_pairs(tables):
    return {frozenset(p) for t in tables for p in itertools.combinations(t, 2)}


def test_warm_up_covers_every_pair_first_with_the_preferred_tables():
    warm = balanced_tables(BOTS, 1, 1)
    first = next_tables([], BOTS, 12, warm_up=warm)
    assert first == [tuple(t) for t in warm]          # a Steiner system: all 12 in order
    assert len(met_pairs(first)) == 36
    # without a preferred covering, a greedy one: every pair met within a few more tables
    greedy = next_tables([], BOTS, 14)
    assert len(met_pairs(greedy[:12])) >= 33 and len(met_pairs(greedy)) == 36
    # blocks in flight count as met: the rest of the covering comes next
    assert next_tables([], BOTS, 3, pending=warm[:9], warm_up=warm) == [tuple(t) for t in
                                                                        warm[9:]]


def test_a_bot_added_later_meets_every_other_bot_before_anything_else():
    warm = balanced_tables(BOTS, 1, 1)
    results = simulate_blocks(NINE, warm * 2, np.random.default_rng(0))
    roster = [*BOTS, "new"]
    tables = next_tables(results, roster, 6, warm_up=warm)
    assert all("new" in t for t in tables[:5])          # 9 others, 2 per table: 5 tables
    assert met_pairs(tables[:5]) >= {frozenset(("new", b)) for b in BOTS}


def test_block_information_is_the_expected_information_of_6_matches():
    theta = np.array([0.7, -0.2, 0.3, -0.8])
    tables = np.array([[0, 1, 2], [1, 2, 3], [0, 1, 3]])
    info = _table_information(theta, tables)
    for t, table in enumerate(tables):
        local = theta[table]

        def log_p(x, order):
            return math.log(ordering_probability(x, order))

        want = np.zeros((3, 3))
        for order in itertools.permutations(range(3)):
            p = ordering_probability(local, order)
            hess = np.array([approx_fprime(local, lambda x, i=i, o=order: approx_fprime(
                x, log_p, 1e-5, o)[i], 1e-5) for i in range(3)])
            want -= 6 * p * hess
        assert info[t] == pytest.approx(want, abs=2e-4)


def test_the_gain_is_the_drop_of_the_contrasts_variances():
    rng = np.random.default_rng(2)
    n = 6
    theta = rng.normal(size=n)
    tables = np.array(list(itertools.combinations(range(n), 3)))
    info = _table_information(theta, tables)
    base = np.eye(n) * 0.5
    for t in rng.choice(len(tables), 8):
        np.add.at(base, (tables[t][:, None], tables[t][None, :]), info[t])
    cov = np.linalg.inv(base)
    a, w = _weights(theta, cov, "top", 3)
    gains = _gains(cov, info, tables, a, w)
    for t in range(0, len(tables), 5):
        after = base.copy()
        np.add.at(after, (tables[t][:, None], tables[t][None, :]), info[t])
        drop = np.einsum("ic,ij,jc->c", a, cov - np.linalg.inv(after), a)
        assert gains[t] == pytest.approx(drop @ w, rel=1e-9)


def after_warm_up(seed=0, rounds=2):
    warm = balanced_tables(BOTS, 1, 1)
    return warm, simulate_blocks(NINE, warm * rounds, np.random.default_rng(seed))


def test_top_target_spends_blocks_on_the_best_bots_and_their_close_rivals():
    warm, results = after_warm_up()
    tables = next_tables(results, BOTS, 24, warm_up=warm)
    seats = Counter(b for t in tables for b in t)
    best = sorted(BOTS, key=lambda b: -NINE[b])[:3]
    worst = sorted(BOTS, key=lambda b: NINE[b])[:3]
    assert sum(seats[b] for b in best) > 3 * sum(seats[b] for b in worst)
    assert all(set(t) & set(sorted(BOTS, key=lambda b: -NINE[b])[:4]) for t in tables)


def test_widest_target_serves_the_bot_with_the_widest_interval():
    warm, results = after_warm_up()
    lonely = [r for r in results if "b00" not in r.players or r.block in
              {r2.block for r2 in results[:6 * 12]}]          # b00 only in round one
    tables = next_tables(lonely, BOTS, 2, target="widest", warm_up=warm)
    assert all("b00" in t for t in tables)


def test_widest_batch_serves_both_bots_with_wide_intervals():
    warm, results = after_warm_up(rounds=3)
    first = {r.block for r in results[:6 * 12]}
    lonely = [r for r in results if not {"b00", "b08"} & set(r.players) or r.block in first]
    tables = next_tables(lonely, BOTS, 4, target="widest", warm_up=warm)
    # b00 and b08 (4 blocks each against 12 for the others) are the widest: every table of
    # the batch seats one of them, and both get tables
    assert all({"b00", "b08"} & set(t) for t in tables)
    assert all(any(b in t for t in tables) for b in ("b00", "b08"))


def test_reported_scale_turns_model_variances_into_the_reported_widths(monkeypatch):
    _, results = after_warm_up(rounds=2)
    index = {b: i for i, b in enumerate(BOTS)}
    patterns = encode(results, index)
    theta = fit_theta(patterns, patterns.counts, len(BOTS), 1.5)
    cov = np.linalg.inv(_played_information(theta, patterns) + np.eye(9) / 1.5**2)
    scale = _reported_scale(results, BOTS, patterns, theta, cov, 1.5)
    a = np.eye(9) - 1.0 / 9
    v = np.einsum("ic,ij,jc->c", a, cov, a)
    report = rate(results)
    half = np.array([(report.bot(b).ci_high - report.bot(b).ci_low) / 2 for b in BOTS])
    exact = half**2 / (_Z * ELO_PER_NAT) ** 2 / v           # the reported over the model
    df = robust_intervals(patterns, block_design(results, patterns).membership, theta, 1.5,
                          a).df
    assert scale == pytest.approx(exact ** (df / (df + 30.0)), rel=1e-6)
    assert np.all(np.abs(np.log(scale)) < np.abs(np.log(exact)))   # shrunk towards 1
    monkeypatch.setattr(adaptive, "_SCALE_DF", 0.0)
    unshrunk = _reported_scale(results, BOTS, patterns, theta, cov, 1.5)
    assert _Z * np.sqrt(unshrunk * v) * ELO_PER_NAT == pytest.approx(half, rel=1e-6)
    # a bot that never wins has a bound, not an interval: it gets the largest scale
    field = {**NINE, "b00": -3000.0}
    lost = simulate_blocks(field, balanced_tables(BOTS, 1, 1) * 2, np.random.default_rng(1))
    p = encode(lost, index)
    th = fit_theta(p, p.counts, 9, 1.5)
    c = np.linalg.inv(_played_information(th, p) + np.eye(9) / 1.5**2)
    s = _reported_scale(lost, BOTS, p, th, c, 1.5)
    assert rate(lost).bot("b00").one_sided is not None
    assert s[0] == s[1:].max() and np.isfinite(s).all()


def test_widest_weights_follow_the_reported_variance():
    theta = np.zeros(5)
    cov = np.eye(5) * 0.1
    _, w = _weights(theta, cov, "widest", 3)
    assert w == pytest.approx(np.ones(5))
    a, w = _weights(theta, cov, "widest", 3, np.array([1.0, 1.0, 2.0, 1.0, 1.0]))
    assert int(np.argmax(w)) == 2 and w[2] == pytest.approx(2.0)
    assert w[0] == pytest.approx(0.5**7)
    # equal strengths and information: the tables that gain most are those seating bot 2
    tables = np.array(list(itertools.combinations(range(5), 3)))
    gains = _gains(cov, _table_information(theta, tables), tables, a, w)
    best = {tuple(t) for t in tables[gains > gains.max() - 1e-12]}
    assert best == {t for t in map(tuple, tables.tolist()) if 2 in t}


@pytest.mark.parametrize("target", ["top", "widest"])
def test_deterministic_and_pending_blocks_count_as_information(target):
    warm, results = after_warm_up(rounds=1)
    a = next_tables(results, BOTS, 3, warm_up=warm, seed=4, target=target)
    assert next_tables(list(reversed(results)), BOTS, 3, warm_up=warm, seed=4,
                       target=target) == a
    # the 3 tables of one call are what 3 calls give when each sees the earlier as pending
    step = []
    for _ in range(3):
        step += next_tables(results, BOTS, 1, pending=step, warm_up=warm, seed=4,
                            target=target)
    assert step == a
    assert all(t == tuple(sorted(t, key=BOTS.index)) for t in a)   # roster order


def test_argument_checks():
    with pytest.raises(ValueError, match="at least 3 distinct bots"):
        next_tables([], ["a", "b"], 1)
    with pytest.raises(ValueError, match="unknown target"):
        next_tables([], BOTS, 1, target="bottom")
    with pytest.raises(ValueError, match="top must be"):
        next_tables([], BOTS, 1, top=1)
    with pytest.raises(ValueError, match="warm_up table"):
        next_tables([], BOTS, 1, warm_up=[("b00", "b01", "zz")])
    assert next_tables([], BOTS, 0) == []

