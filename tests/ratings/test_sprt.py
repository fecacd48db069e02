"""The SPRT statistic: its unit is the ratings' (the Plackett-Luce difference), the LLR on
known data from an independent computation, bounds, degenerate and zero-variance data,
stopping on the first crossing, prefix consistency; slow: error rates and average length
under two luck models, and with an uneven field and ties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from arena.bench.ratings_sim import simulate_blocks
from arena.bench.sprt_sim import placing_patterns, simulate_block_counts, simulate_sprt
from arena.ratings import ELO_PER_NAT, MatchResult, rate
from arena.ratings.plackett_luce import (_PERMS, encode, fit_theta, negative_log_posterior,
                                         placing_probability)
from arena.ratings.sprt import (ZERO_VARIANCE, ZERO_VARIANCE_BLOCKS, ZERO_VARIANCE_BOUND,
                                BlockSequence,
                                SprtParameters, sequential_test, sprt_state)


def blocks_of(results, candidate="c"):
    seq = BlockSequence(candidate)
    for k in range(0, len(results), 6):
        seq.add(results[k:k + 6])
    return seq


def field_difference(report, candidate, field):
    return report.bot(candidate).rating - np.mean([report.bot(f).rating for f in field])


def test_wald_bounds_and_parameter_checks():
    p = SprtParameters()
    assert (p.elo0, p.elo1, p.alpha, p.beta) == (0.0, 5.0, 0.05, 0.05)
    assert p.lower == pytest.approx(math.log(0.05 / 0.95))
    assert p.upper == pytest.approx(math.log(0.95 / 0.05))
    assert SprtParameters(alpha=0.1, beta=0.2).lower == pytest.approx(math.log(0.2 / 0.9))
    for kwargs, message in [({"elo0": 5, "elo1": 5}, "elo0 must be below elo1"),
                            ({"alpha": 0.5}, r"alpha must be in \(0, 0.5\)"),
                            ({"beta": 0}, r"beta must be in \(0, 0.5\)"),
                            ({"elo1": float("nan")}, "elo1 must be a finite number"),
                            ({"elo1": 5000}, "within")]:
        with pytest.raises(ValueError, match=message):
            SprtParameters(**kwargs)


@pytest.mark.parametrize("field, tie", [((1500.0, 1500.0), 0.0), ((1200.0, 1800.0), 0.17)])
def test_the_estimate_is_the_ratings_difference_of_the_same_matches(field, tie):
    """The issue's case: a field at -300/+300 with a third of the matches tied, the candidate
    100 above the field's mean. The old score-based estimate read +54 (+27 with ties); the
    SPRT's Elo is now exactly what `rate()` reports, and near the truth."""
    truth = {"c": 1600.0, "f1": field[0], "f2": field[1]}
    results = simulate_blocks(truth, [("c", "f1", "f2")] * 300, np.random.default_rng(4),
                              rho=0.5, tie=tie)
    st = sprt_state(blocks_of(results), SprtParameters(0, 5))
    report = rate(results, bootstrap=0)
    assert st.elo == pytest.approx(field_difference(report, "c", ["f1", "f2"]), abs=1e-6)
    assert st.elo_low < 100 < st.elo_high
    assert st.elo == pytest.approx(100, abs=25)


def test_llr_on_known_data_from_an_independent_computation():
    """Pseudo-values from finite-difference block scores of the brute-force likelihood."""
    truth = {"c": 1550.0, "a": 1450.0, "b": 1500.0, "d": 1480.0}
    tables = [("c", "a", "b"), ("c", "a", "d"), ("c", "b", "d")] * 4
    results = simulate_blocks(truth, tables, np.random.default_rng(2), rho=0.3, tie=0.1)
    p = SprtParameters(-10, 40)
    st = sprt_state(blocks_of(results), p)
    names = ["c", "a", "b", "d"]
    index = {x: i for i, x in enumerate(names)}
    patterns = encode(results, index)
    theta = fit_theta(patterns, patterns.counts, 4, 1.5)
    _, _, hess = negative_log_posterior(theta, patterns, patterns.counts, 1.5)
    a = np.array([1.0, -1 / 3, -1 / 3, -1 / 3])
    u = np.linalg.solve(hess, a)

    def block_loglik(t, block):
        return sum(math.log(placing_probability([t[index[x]] for x in m.players], m.places))
                   for m in block)

    n = len(tables)
    z = np.array([u @ approx_fprime(theta, block_loglik, 1e-6, results[6 * k:6 * k + 6])
                  for k in range(n)])
    robust = n * np.sum((z - z.mean()) ** 2)
    model = n * (a @ u)
    var = (n * robust + model) / (n + 1)
    d_hat = a @ theta
    d0, d1 = -10 / ELO_PER_NAT, 40 / ELO_PER_NAT
    want = n / 2 * math.log((var + (d_hat - d0) ** 2) / (var + (d_hat - d1) ** 2))
    assert st.llr == pytest.approx(want, rel=1e-5)
    assert st.blocks == n and st.elo == pytest.approx(d_hat * ELO_PER_NAT)
    half = 1.959964 * math.sqrt(var / n) * ELO_PER_NAT
    assert (st.elo_low, st.elo_high) == pytest.approx((st.elo - half, st.elo + half), rel=1e-5)


def constant_blocks(placing, n, players=("c", "f1", "f2")):
    """``n`` blocks, each the 6 seatings of one outcome (``placing`` of ``players``)."""
    out = []
    for k in range(n):
        for perm in itertools.permutations(range(3)):
            out.append(MatchResult(tuple(players[j] for j in perm),
                                   tuple(placing[j] for j in perm), f"b{k}"))
    return out


@pytest.mark.parametrize("placing, decision, most", [((1, 2, 3), "H1", ZERO_VARIANCE_BLOCKS),
                                                     ((3, 1, 2), "H0", ZERO_VARIANCE_BLOCKS),
                                                     ((1, 1, 1), "H0", 420)])
def test_constant_blocks_end(placing, decision, most):
    """Candidate always first / always last / every match a full tie: the blocks never vary,
    the LLR stays finite and the test ends (a candidate that wins everything after
    ZERO_VARIANCE_BLOCKS; all ties once 6/k log-strength, 1042/k Elo, is below the 2.5 Elo
    between the estimate 0 and the midpoint of elo0 = 0 and elo1 = 5: k = 417)."""
    p = SprtParameters()
    seq = blocks_of(constant_blocks(placing, 500))
    for k in (1, 2, 5):
        st = sprt_state(seq, p, k)
        assert math.isfinite(st.llr) and all(math.isfinite(x) for x in
                                             (st.elo, st.elo_low, st.elo_high))
    st = sequential_test(seq, p)
    assert st.decision == decision and st.blocks <= most
    assert "accepted" in st.summary()


def test_zero_variance_between_elo0_and_elo1_stops_undecided():
    """A deterministic bot against copies of itself with elo0 = -elo1: every block scores the
    same and the LLR is exactly 0; the test stops once 1042/k Elo < 50, at k = 21, saying
    why (before, it ran to max_blocks)."""
    results = []
    for k in range(60):      # the seat decides: whoever sits in seat 0 wins, seat 2 is last
        for perm in itertools.permutations(("c", "f1", "f2")):
            results.append(MatchResult(perm, (1, 2, 3), f"b{k}"))
    p = SprtParameters(-50, 50)
    st = sequential_test(blocks_of(results), p)
    assert st.decision == ZERO_VARIANCE and st.zero_variance
    assert st.blocks == math.floor(ZERO_VARIANCE_BOUND * ELO_PER_NAT / 50) + 1 == 21
    assert st.llr == pytest.approx(0.0, abs=1e-9) and st.elo == pytest.approx(0.0, abs=1e-6)
    assert "every block alike (zero variance)" in st.summary()
    assert sequential_test(blocks_of(results), p, 20).decision is None


def test_sequential_test_stops_at_the_first_crossing_and_respects_the_cap():
    truth = {"c": 1580.0, "f1": 1500.0, "f2": 1500.0}
    results = simulate_blocks(truth, [("c", "f1", "f2")] * 400, np.random.default_rng(1),
                              rho=0.5)
    p = SprtParameters(0, 50)
    seq = blocks_of(results)
    st = sequential_test(seq, p)
    assert st.decision == "H1"
    earlier = sprt_state(seq, p, st.blocks - 1)
    assert earlier.decision is None and p.lower < earlier.llr < p.upper
    # later blocks cannot change the verdict, whatever they are
    more = blocks_of(results[:6 * st.blocks] + constant_blocks((3, 1, 2), 100))
    assert sequential_test(more, p).decision == st.decision
    assert sequential_test(more, p).llr == pytest.approx(st.llr, rel=1e-9)
    capped = sequential_test(seq, p, max_blocks=3)
    assert capped.blocks == 3 and capped.decision is None
    assert sequential_test(BlockSequence("c"), p).blocks == 0
    # block by block (as the gauntlet runner goes) gives the same states
    grown = BlockSequence("c")
    for k in range(st.blocks):
        grown.add(results[6 * k:6 * k + 6])
        assert sprt_state(grown, p).llr == pytest.approx(sprt_state(seq, p, k + 1).llr,
                                                         rel=1e-9)
    with pytest.raises(ValueError, match="did not play"):
        seq.add([MatchResult(("x", "f1", "f2"), (1, 2, 3), "bx")])


def test_a_prefix_is_tested_on_its_own_field_only():
    """With three field bots at three tables, the first block seats two of them: the field
    mean of block 1 is over those two, whatever later blocks bring."""
    truth = {"c": 1600.0, "a": 1300.0, "b": 1700.0, "d": 1500.0}
    tables = [("c", "a", "b"), ("c", "a", "d"), ("c", "b", "d")] * 3
    results = simulate_blocks(truth, tables, np.random.default_rng(3), rho=0.5)
    full = blocks_of(results)
    first = blocks_of(results[:6])
    assert sprt_state(full, SprtParameters(), 1).llr == pytest.approx(
        sprt_state(first, SprtParameters()).llr, rel=1e-9)
    report = rate(results[:6], bootstrap=0)
    assert sprt_state(first, SprtParameters()).elo == pytest.approx(
        field_difference(report, "c", ["a", "b"]), abs=1e-6)


def test_luck_model_is_exactly_plackett_luce_per_match():
    # the share of matches the candidate wins is its PL probability under every luck model
    rng = np.random.default_rng(0)
    w = np.exp(np.array([100.0, -50.0, 50.0]) / ELO_PER_NAT)
    patterns, _ = placing_patterns()
    first = [p for p in range(len(patterns.players))    # strict placings with bot 0 first
             if patterns.allowed[p].sum() == 1 and _PERMS[patterns.allowed[p].argmax()][0] == 0]
    for rho in (0.0, 0.5, 1.0):
        counts = simulate_block_counts(100.0, rho, 20_000, rng, field=(-50.0, 50.0))
        assert counts[:, first].sum() / counts.sum() == pytest.approx(w[0] / w.sum(),
                                                                      abs=0.006)


@pytest.mark.slow
@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_error_rates_and_average_length_in_simulation(rho, capsys):
    """500 simulated gauntlets each at elo = elo0 and elo = elo1 (elo0 0, elo1 20, alpha =
    beta = 0.05) under the luck model ``rho`` (:mod:`arena.bench.sprt_sim`), seeded: false
    positives <= alpha and power >= 1 - beta, each up to 2 Monte Carlo standard errors
    (0.0097); docs/sprt.md has the same with 4000 runs per line."""
    p = SprtParameters(0.0, 20.0, 0.05, 0.05)
    h0 = simulate_sprt(0.0, rho, p, runs=500, max_blocks=5000, seed=11)
    h1 = simulate_sprt(20.0, rho, p, runs=500, max_blocks=5000, seed=12)
    with capsys.disabled():
        print(f"\nrho {rho}: false positives {h0.h1_rate:.4f} +- {h0.h1_se:.4f}, "
              f"power {h1.h1_rate:.4f} +- {h1.h1_se:.4f}, mean blocks "
              f"{h0.mean_blocks:.0f} (elo0) / {h1.mean_blocks:.0f} (elo1)")
    assert h0.undecided == 0 and h1.undecided == 0
    assert h0.h1_rate <= 0.05 + 2 * h0.h1_se
    assert h1.h1_rate >= 0.95 - 2 * h1.h1_se
    assert 20 < h0.mean_blocks < 1000 and 20 < h1.mean_blocks < 1000


@pytest.mark.slow
def test_error_rates_with_an_uneven_field_and_ties(capsys):
    """The field at -300/+300 Elo and a third of the matches with a shared place: the test is
    on the ratings' difference, so elo0 and elo1 keep their error rates."""
    p = SprtParameters(0.0, 50.0, 0.05, 0.05)
    kw = {"field": (-300.0, 300.0), "tie": 0.17}
    h0 = simulate_sprt(0.0, 0.5, p, runs=500, max_blocks=5000, seed=21, **kw)
    h1 = simulate_sprt(50.0, 0.5, p, runs=500, max_blocks=5000, seed=22, **kw)
    with capsys.disabled():
        print(f"\nuneven field, ties: false positives {h0.h1_rate:.4f} +- {h0.h1_se:.4f}, "
              f"power {h1.h1_rate:.4f} +- {h1.h1_se:.4f}, mean estimate at elo1 "
              f"{h1.mean_estimate:+.1f}")
    assert h0.h1_rate <= 0.05 + 2 * h0.h1_se
    assert h1.h1_rate >= 0.95 - 2 * h1.h1_se
