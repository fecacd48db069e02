"""The SPRT statistic: formula on known data, bounds, degenerate data, stopping on the first
crossing, block scores; slow: error rates and average length under two luck models."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.bench.sprt_sim import simulate_block_scores, simulate_sprt
from arena.ratings import MatchResult
from arena.ratings.sprt import (VAR0, SprtParameters, block_score, elo_to_score,
                                score_to_elo, sequential_test, sprt_state)


def test_elo_score_scale_is_the_ratings_scale():
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert score_to_elo(elo_to_score(37.5)) == pytest.approx(37.5)
    with pytest.raises(ValueError, match=r"score must be in \(0, 1\)"):
        score_to_elo(1.0)


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


def test_llr_formula_on_known_scores():
    scores = [0.5, 0.75, 0.25, 1.0, 0.5, 0.625]
    p = SprtParameters(0, 20)
    st = sprt_state(scores, p)
    n, mu = 6, np.mean(scores)
    var_n = (n * np.var(scores) + VAR0) / (n + 1)
    s0, s1 = 0.5, 1 / (1 + 10 ** (-20 / 400))
    want = n / 2 * math.log((var_n + (mu - s0) ** 2) / (var_n + (mu - s1) ** 2))
    assert st.llr == pytest.approx(want)
    assert st.blocks == 6 and st.score == pytest.approx(mu) and st.decision is None
    assert st.elo == pytest.approx(score_to_elo(mu))
    half = 1.959964 * math.sqrt(var_n / n)
    assert (st.elo_low, st.elo_high) == pytest.approx((score_to_elo(mu - half),
                                                       score_to_elo(mu + half)), rel=1e-5)
    # second-order agreement with fishtest's n (s1-s0)(2mu-s0-s1) / (2 var) near H0/H1
    big = np.full(4000, 0.51) + np.tile([-0.1, 0.1], 2000)
    approx = 4000 * (s1 - s0) * (2 * 0.51 - s0 - s1) / (2 * ((4000 * 0.01 + VAR0) / 4001))
    assert sprt_state(big, p).llr == pytest.approx(approx, rel=0.03)


@pytest.mark.parametrize("value, decision, most", [(0.0, "H0", 260), (1.0, "H1", 260),
                                                   (0.5, "H0", 60)])
def test_degenerate_data_give_a_finite_llr_and_end(value, decision, most):
    """Candidate always last / always first / every comparison tied."""
    p = SprtParameters()
    for n in (1, 2, 5, 50):
        st = sprt_state([value] * n, p)
        assert math.isfinite(st.llr) and all(math.isfinite(x) for x in
                                             (st.elo, st.elo_low, st.elo_high))
    st = sequential_test([value] * 10_000, p)
    assert st.decision == decision and st.blocks <= most
    assert math.isfinite(st.llr)


def test_sequential_test_stops_at_the_first_crossing_and_respects_the_cap():
    p = SprtParameters(0, 50)
    rng = np.random.default_rng(1)
    scores = list(np.clip(rng.normal(0.6, 0.1, 400), 0, 1))
    st = sequential_test(scores, p)
    assert st.decision == "H1"
    earlier = sprt_state(scores[:st.blocks - 1], p)
    assert earlier.decision is None and p.lower < earlier.llr < p.upper
    # later blocks cannot change the verdict, whatever they are
    assert sequential_test(scores[:st.blocks] + [0.0] * 500, p) == st
    capped = sequential_test(scores, p, max_blocks=3)
    assert capped.blocks == 3 and capped.decision is None
    assert sequential_test([], p).blocks == 0
    with pytest.raises(ValueError, match=r"block scores must be numbers in \[0, 1\]"):
        sequential_test([0.5, 1.5], p)


def test_block_score_counts_pairwise_places():
    block = [MatchResult(("c", "f1", "f2"), (1, 2, 3), "b"),     # 2 of 2
             MatchResult(("f1", "c", "f2"), (1, 2, 3), "b"),     # 1 of 2
             MatchResult(("f2", "f1", "c"), (1, 1, 3), "b"),     # 0 of 2
             MatchResult(("c", "f2", "f1"), (1, 1, 3), "b"),     # 1.5 of 2
             MatchResult(("f1", "f2", "c"), (1, 1, 1), "b"),     # 1 of 2
             MatchResult(("f2", "c", "f1"), (1, 2, 2), "b")]     # 0.5 of 2
    assert block_score(block, "c") == pytest.approx(6.0 / 12)
    assert block_score(block[:1], "f2") == 0.0
    with pytest.raises(ValueError, match="did not play"):
        block_score(block, "x")


def test_luck_model_is_exactly_plackett_luce_per_match():
    # the mean block score is L(elo) under every luck model (no bias from correlated seats)
    rng = np.random.default_rng(0)
    for rho in (0.0, 0.5, 1.0):
        x = simulate_block_scores(100.0, rho, 1, 40_000, rng)
        assert x.mean() == pytest.approx(elo_to_score(100.0), abs=0.004)
    # seatings are correlated: card luck (rho = 1) cancels in the duplicate block
    assert simulate_block_scores(0.0, 1.0, 1, 2000, rng).var() == 0.0
    assert simulate_block_scores(0.0, 0.0, 1, 2000, rng).var() > 0.01


@pytest.mark.slow
@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_error_rates_and_average_length_in_simulation(rho, capsys):
    """2000 simulated gauntlets each at elo = elo0 and elo = elo1 (elo0 0, elo1 20, alpha =
    beta = 0.05) under the luck model ``rho`` (:mod:`arena.bench.sprt_sim`): false positives
    <= alpha and power >= 1 - beta, each up to 2 Monte Carlo standard errors (0.0049)."""
    p = SprtParameters(0.0, 20.0, 0.05, 0.05)
    h0 = simulate_sprt(0.0, rho, p, runs=2000, max_blocks=5000, seed=11)
    h1 = simulate_sprt(20.0, rho, p, runs=2000, max_blocks=5000, seed=12)
    with capsys.disabled():
        print(f"\nrho {rho}: false positives {h0.h1_rate:.4f} +- {h0.h1_se:.4f}, "
              f"power {h1.h1_rate:.4f} +- {h1.h1_se:.4f}, mean blocks "
              f"{h0.mean_blocks:.0f} (elo0) / {h1.mean_blocks:.0f} (elo1)")
    assert h0.undecided == 0 and h1.undecided == 0
    assert h0.h1_rate <= 0.05 + 2 * h0.h1_se
    assert h1.h1_rate >= 0.95 - 2 * h1.h1_se
    assert 20 < h0.mean_blocks < 1000 and 20 < h1.mean_blocks < 1000
