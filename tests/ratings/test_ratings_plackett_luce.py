"""The Plackett-Luce fit: likelihood, derivatives, invariances, extremes, Elo mapping, choix."""

from __future__ import annotations

import itertools
import math
import random

import choix
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import approx_fprime

from arena.ratings import ELO_PER_NAT, MatchResult, p_above, rate
from arena.ratings.plackett_luce import (
    elo_to_theta,
    encode,
    fit_theta,
    negative_log_posterior,
    ordering_probability,
    placing_probability,
    theta_to_elo,
)
from .ratings_synth import THREE, simulate

VALID_PLACES = sorted(
    {p for s in [(1, 2, 3), (1, 1, 3), (1, 2, 2), (1, 1, 1)] for p in itertools.permutations(s)}
)


def random_results(n_matches: int, names: str, seed: int) -> list[MatchResult]:
    rnd = random.Random(seed)
    return [
        MatchResult(tuple(rnd.sample(names, 3)), rnd.choice(VALID_PLACES), f"b{k // 6}")
        for k in range(n_matches)
    ]


def thetas(report, names) -> np.ndarray:
    return elo_to_theta(np.array([report.bot(n).rating for n in names]))


def test_placing_probabilities_sum_to_one_and_ties_sum_orderings():
    theta = [0.3, -1.2, 0.8]
    total = sum(ordering_probability(theta, o) for o in itertools.permutations(range(3)))
    assert total == pytest.approx(1.0, abs=1e-15)
    assert placing_probability(theta, (1, 1, 3)) == pytest.approx(
        ordering_probability(theta, (0, 1, 2)) + ordering_probability(theta, (1, 0, 2)), abs=1e-15
    )
    w = np.exp(theta)
    assert placing_probability(theta, (2, 1, 2)) == pytest.approx(w[1] / w.sum(), abs=1e-15)
    assert placing_probability(theta, (1, 1, 1)) == pytest.approx(1.0, abs=1e-15)
    # Strict placings from the textbook formula.
    assert placing_probability(theta, (3, 1, 2)) == pytest.approx(
        w[1] / w.sum() * w[2] / (w[2] + w[0]), abs=1e-15
    )


def test_objective_matches_brute_force_and_derivatives_match_finite_differences():
    names = "ABCDE"
    results = random_results(90, names, seed=3)
    index = {n: i for i, n in enumerate(sorted(names))}
    patterns = encode(results, index)
    theta = np.random.default_rng(0).normal(size=5)
    value, grad, hess = negative_log_posterior(theta, patterns, patterns.counts, 1.5)
    brute = 0.5 * theta @ theta / 1.5**2 - sum(
        math.log(placing_probability([theta[index[p]] for p in r.players], r.places))
        for r in results
    )
    assert value == pytest.approx(brute, rel=1e-12)

    def f(t):
        return negative_log_posterior(t, patterns, patterns.counts, 1.5, derivatives=False)

    assert np.allclose(approx_fprime(theta, f, 1e-7), grad, atol=1e-4)
    numeric_hess = np.array(
        [approx_fprime(theta, lambda t, i=i: negative_log_posterior(
            t, patterns, patterns.counts, 1.5)[1][i], 1e-7) for i in range(5)]
    )
    assert np.allclose(numeric_hess, hess, atol=1e-4)
    assert np.allclose(hess, hess.T, atol=1e-12)
    assert np.linalg.eigvalsh(hess).min() > 0  # strictly convex (prior + log-concave PL)


def test_fit_is_a_stationary_point_and_centred():
    results = random_results(60, "ABCDEF", seed=5)
    index = {n: i for i, n in enumerate("ABCDEF")}
    patterns = encode(results, index)
    theta = fit_theta(patterns, patterns.counts, 6, 1.5)
    _, grad, _ = negative_log_posterior(theta, patterns, patterns.counts, 1.5)
    assert abs(theta.mean()) < 1e-12
    assert np.max(np.abs(grad)) < 1e-7


def test_shuffling_input_order_gives_identical_report():
    results = random_results(120, "ABCDEFG", seed=11)
    baseline = rate(results, bootstrap=20, seed=4)
    rnd = random.Random(0)
    for _ in range(3):
        shuffled = []
        for r in rnd.sample(results, len(results)):
            perm = rnd.sample(range(3), 3)  # also permute the slots inside each match
            shuffled.append(MatchResult(tuple(r.players[k] for k in perm),
                                        tuple(r.places[k] for k in perm), r.block,
                                        tuple(r.forfeits[k] for k in perm)))
        assert rate(shuffled, bootstrap=20, seed=4) == baseline  # exactly equal, CIs included


def test_swapping_tied_players_gives_them_identical_ratings():
    # A and B are interchangeable in the data: every match with A has a mirror with B, and
    # when they meet they tie; their input order is swapped between the two tied matches.
    results = [
        MatchResult(("A", "B", "C"), (1, 1, 3), "b0"),
        MatchResult(("B", "A", "C"), (1, 1, 3), "b0"),
        MatchResult(("A", "C", "D"), (2, 1, 3), "b1"),
        MatchResult(("B", "C", "D"), (2, 1, 3), "b1"),
        MatchResult(("D", "A", "B"), (1, 2, 2), "b2"),
        MatchResult(("C", "D", "A"), (3, 2, 1), "b3"),
        MatchResult(("C", "D", "B"), (3, 2, 1), "b3"),
    ]
    report = rate(results, bootstrap=0)
    assert report.bot("A").rating == pytest.approx(report.bot("B").rating, abs=1e-9)
    swapped = [MatchResult((r.players[1], r.players[0], r.players[2]),
                           (r.places[1], r.places[0], r.places[2]), r.block) for r in results]
    assert rate(swapped, bootstrap=0) == report
    # A real difference is not hidden by the tie handling:
    unequal = rate([*results, MatchResult(("A", "C", "D"), (1, 2, 3), "b4")], bootstrap=0)
    assert unequal.bot("A").rating > unequal.bot("B").rating + 1.0


@pytest.mark.parametrize("n_matches", [2, 6, 60, 600])
def test_a_bot_that_always_wins_stays_finite_and_ordered(n_matches):
    # Top is always first; Mid beats Low in 2 of every 3 matches.
    results = [
        MatchResult(("Low", "Top", "Mid"), (2, 1, 3) if k % 3 == 2 else (3, 1, 2), f"b{k // 6}")
        for k in range(n_matches)
    ]
    report = rate(results, bootstrap=10 if n_matches >= 12 else 0)
    top, mid, low = (report.bot(n).rating for n in ("Top", "Mid", "Low"))
    assert all(math.isfinite(x) for x in (top, mid, low))
    assert report.names == ("Top", "Mid", "Low")
    assert top > mid + 100
    # Top (never beaten) is one-sided and left out of the anchor; so is Low when it never beat
    # Mid (n_matches = 2): the mean of the other bots is 1500
    assert report.bot("Top").one_sided == "never beaten"
    anchor = [b.rating for b in report.bots if b.one_sided is None]
    assert [b.name for b in report.bots if b.one_sided is None] == (
        ["Mid"] if n_matches == 2 else ["Mid", "Low"])
    assert sum(anchor) / len(anchor) == pytest.approx(1500.0, abs=1e-9)
    if report.bootstrap:
        for b in report.bots:
            if b.one_sided is None:      # a two-sided interval around the estimate
                assert math.isfinite(b.ci_low) and math.isfinite(b.ci_high)
                assert b.ci_low <= b.rating <= b.ci_high
        # never beaten: a finite lower bound, no upper one (it would be the prior's)
        top_bot = report.bot("Top")
        assert top_bot.ci_high is None and math.isfinite(top_bot.ci_low)
        assert top_bot.ci_low > mid  # (with 600 wins above the prior-held estimate itself)
    # A perfect record keeps climbing with more data, but only slowly (prior).
    assert top < 1500 + 6 * 1.5 * ELO_PER_NAT
    if n_matches >= 60:  # Mid vs Low is estimated, not pushed apart: P(Mid above Low) ~ 2/3
        assert p_above(mid, low) == pytest.approx(2 / 3, abs=0.06)


def test_always_last_bot_is_finite_and_last():
    rnd = random.Random(2)
    results = []
    for k in range(30):
        a, b = rnd.sample("ABCD", 2)
        results.append(MatchResult((a, "Loser", b), rnd.choice([(1, 3, 2), (2, 3, 1), (1, 3, 1)]),
                                   f"b{k // 6}"))
    report = rate(results, bootstrap=20)
    assert report.names[-1] == "Loser"
    loser = report.bot("Loser")
    assert loser.one_sided == "never beat another bot"
    assert math.isfinite(loser.rating) and loser.ci_low is None
    assert math.isfinite(loser.ci_high) and loser.ci_high > loser.rating
    assert report.los_of("A", "Loser") == 1.0


def test_pairwise_marginal_equals_elo_formula_exactly():
    results = simulate(THREE, [("A", "B", "C")], 10, np.random.default_rng(1))
    report = rate(results, bootstrap=0)
    names = ["A", "B", "C"]
    ratings = [report.bot(n).rating for n in names]
    theta = list(elo_to_theta(np.array(ratings)))
    for i, j in itertools.permutations(range(3), 2):
        enumerated = sum(
            ordering_probability(theta, order)
            for order in itertools.permutations(range(3))
            if order.index(i) < order.index(j)
        )
        assert abs(enumerated - p_above(ratings[i], ratings[j])) < 1e-12
    # And for an arbitrary known theta with large gaps.
    theta = [2.7, -0.4, -2.3]
    ratings = list(theta_to_elo(np.array(theta)))
    for i, j in itertools.permutations(range(3), 2):
        enumerated = sum(
            ordering_probability(theta, order)
            for order in itertools.permutations(range(3))
            if order.index(i) < order.index(j)
        )
        assert abs(enumerated - 1 / (1 + 10 ** (-(ratings[i] - ratings[j]) / 400))) < 1e-12
    assert p_above(1700, 1500) == pytest.approx(0.7597469, abs=1e-7)


def _tie_free(n: int, seed: int):
    names = [f"bot{k}" for k in range(n)]
    truth = {name: float(r) for name, r in zip(names, np.linspace(1750, 1250, n), strict=True)}
    rng = np.random.default_rng(seed)
    tables = [tuple(rng.choice(names, 3, replace=False)) for _ in range(15)]
    return names, simulate(truth, tables, 2, rng)


def test_point_estimates_match_choix_opt_rankings_with_the_same_prior():
    names, results = _tie_free(6, seed=7)
    index = {n: i for i, n in enumerate(names)}
    rankings = [tuple(index[p] for p, _ in sorted(zip(r.players, r.places, strict=True),
                                                  key=lambda x: x[1]))
                for r in results]
    sigma = 1.5
    # choix penalises alpha * ||theta||^2, our prior theta^2 / (2 sigma^2).
    expected = choix.opt_rankings(len(names), rankings, alpha=1 / (2 * sigma**2), tol=1e-12)
    expected -= expected.mean()
    ours = thetas(rate(results, bootstrap=0, prior_sigma=sigma), names)
    assert np.allclose(ours, expected, rtol=0, atol=1e-7)


def test_point_estimates_match_choix_ilsr_maximum_likelihood():
    names, results = _tie_free(5, seed=8)
    index = {n: i for i, n in enumerate(names)}
    rankings = [tuple(index[p] for p, _ in sorted(zip(r.players, r.places, strict=True),
                                                  key=lambda x: x[1]))
                for r in results]
    expected = choix.ilsr_rankings(len(names), rankings, alpha=0.0, tol=1e-13, max_iter=10_000)
    expected -= expected.mean()
    ours = thetas(rate(results, bootstrap=0, prior_sigma=1e4), names)
    spread = expected.max() - expected.min()
    assert spread > 1.0  # a meaningful comparison, not all zeros
    assert np.allclose(ours, expected, rtol=0, atol=1e-5 * spread)
    # The default prior shrinks only slightly with 300 matches.
    shrunk = thetas(rate(results, bootstrap=0), names)
    assert np.all(np.abs(shrunk - expected) < 0.02 * spread)
    assert np.all(np.abs(shrunk) <= np.abs(expected) + 1e-12)


@st.composite
def result_lists(draw):
    pool = ["a", "b", "<c>", "Jürgen ♠", "x,y", 'q"uote']
    n = draw(st.integers(min_value=2, max_value=14))
    results = []
    for k in range(n):
        players = draw(st.permutations(pool).map(lambda p: tuple(p[:3])))
        if k > 0:  # chain each match to the previous one so the data stay connected
            head = results[-1].players[0]
            players = (head, *[p for p in players if p != head][:2])
        places = draw(st.sampled_from(VALID_PLACES))
        results.append(MatchResult(players, places, f"blk{draw(st.integers(0, 3))}"))
    return results


@settings(max_examples=40, deadline=None)
@given(result_lists(), st.randoms(use_true_random=False))
def test_property_finite_centred_and_order_free(results, rnd):
    report = rate(results, bootstrap=0)
    ratings = np.array([b.rating for b in report.bots])
    assert np.all(np.isfinite(ratings))
    # centred on the bots that are not one-sided (all bots if every one is)
    anchor = [b.rating for b in report.bots if b.one_sided is None] or list(ratings)
    assert np.mean(anchor) == pytest.approx(1500.0, abs=1e-9)
    assert list(ratings) == sorted(ratings, reverse=True)
    assert rate(rnd.sample(results, len(results)), bootstrap=0) == report
