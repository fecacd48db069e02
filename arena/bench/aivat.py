"""Does AIVAT-style variance reduction help beyond duplicate? A measurement on the sample bots
(``bench/aivat.py``), played in-process as ``bench/strength.py`` does (the same bots, rules
engine and deals as the arena, without gRPC).

AIVAT (Burch, Schmid, Moravcik, Morrill and Bowling, "AIVAT: a new variance reduction
technique for agent evaluation in imperfect information games", AAAI 2018) subtracts from a
match's outcome the part explained by a player's own random choices: at every decision of a
player whose action probabilities ``pi`` are known, it adds the control variate

    c = sum_a pi(a) V(s, a) - V(s, a_taken)

with ``V`` any value function of the full state after the action; ``E[c | history] = 0``, so
the corrected outcome ``Y + sum c`` is unbiased whatever ``V`` is, and has less variance the
better ``V`` predicts ``Y``. Of the sample bots only the random bot knows its ``pi`` (uniform
over the legal actions); greedy is deterministic (nothing to correct), Monte Carlo's choice
distribution is unknown to itself.

Measured here: ``Y`` = the random bot's pairwise score against each other bot in a match (1
above, 1/2 shared place, 0 below; the quantity a rating difference is a smooth function of),
per duplicate block (the mean over the 6 seatings, what the ratings resample); ``V(s, a)`` =
``Y`` of the match finished from ``s`` after ``a`` by greedy play in every seat, or the mean
over rollouts in which the random bot keeps playing at random (the state holds all cards: the
arena knows them). Reported: the variance of the block means with and
without the correction, and the mean correction with its standard error (unbiasedness).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..rules import MatchState, make_config
from ..rules.view import view_of

__all__ = ["BlockMeasure", "measure_block", "pairwise", "summary"]


def pairwise(places: Sequence[int], a: int, b: int) -> float:
    """Seat ``a``'s pairwise score against seat ``b``: 1 above, 1/2 shared, 0 below."""
    return 1.0 if places[a] < places[b] else 0.5 if places[a] == places[b] else 0.0


def _finish(state: MatchState, greedy: object, random_seat: int | None,
            rng: np.random.Generator) -> tuple[int, int, int]:
    """The placings after play to the end from ``state`` (copied): greedy in every seat, but
    uniformly random in ``random_seat`` (when not None)."""
    s = state.copy()
    while not s.finished:
        seat = s.current_seat
        if seat is None:
            break
        if seat == random_seat:
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
        else:
            s.apply(greedy.decide(view_of(s, seat)))  # type: ignore[attr-defined]
    placings = s.placings
    if placings is None:    # never: a finished match has placings
        raise RuntimeError("a finished match without placings")
    return placings


@dataclass(frozen=True)
class BlockMeasure:
    """One block: per other bot (by name), the random bot's mean pairwise score over the 6
    seatings, and the same with the AIVAT correction."""

    plain: dict[str, float]
    corrected: dict[str, float]


def measure_block(deal: int, others: tuple[str, str], *, preset: str, hand_cap: int,
                  seed: int, rollouts: int = 0) -> BlockMeasure:
    """Play the 6 seatings of one deal of ``random`` against the two ``others`` (names of
    sample bots: ``greedy``, ``greedy-b`` (a second greedy), ``montecarlo``). ``V``: one
    greedy rollout in every seat (``rollouts`` 0), or the mean of ``rollouts`` rollouts in
    which the random bot plays at random (its own policy) and the others greedy."""
    from sample_bots.greedy_bot import GreedyBot
    from sample_bots.montecarlo_bot import MonteCarloBot
    from sample_bots.random_bot import RandomBot

    cfg = make_config(preset, hand_cap=hand_cap)
    greedy = GreedyBot()
    rng = np.random.default_rng([seed, deal])
    names = ("random", *others)
    plain = {n: 0.0 for n in others}
    corrected = {n: 0.0 for n in others}
    for k, seating in enumerate(itertools.permutations(range(3))):
        seat_of = {names[j]: seat for seat, j in enumerate(seating)}
        bots = {}
        for name in names:
            tag = f"{seed}/{deal}/{k}/{name}"
            bots[name] = (RandomBot(seed=tag) if name == "random" else
                          MonteCarloBot(time_ms=50, seed=tag) if name == "montecarlo" else
                          GreedyBot())
        by_seat = {seat: bots[n] for n, seat in seat_of.items()}
        state = MatchState.new(cfg, seed=f"aivat/{seed}/{deal}")
        me = seat_of["random"]
        correction = {n: 0.0 for n in others}
        while not state.finished:
            seat = state.current_seat
            if seat is None:
                break
            legal = state.legal_actions()
            action = by_seat[seat].decide(view_of(state, seat))
            if seat == me and len(legal) > 1:
                value: dict[str, dict[int, float]] = {n: {} for n in others}
                for a in legal:
                    after = state.copy()
                    after.apply(a)
                    finishes = ([_finish(after, greedy, None, rng)] if rollouts == 0 else
                                [_finish(after, greedy, me, rng) for _ in range(rollouts)])
                    for n in others:
                        value[n][a] = float(np.mean([pairwise(p, me, seat_of[n])
                                                     for p in finishes]))
                for n in others:
                    v = value[n]
                    correction[n] += float(np.mean(list(v.values()))) - v[action]
            state.apply(action)
        places = state.placings
        if places is None:      # never: a finished match has placings
            raise RuntimeError("a finished match without placings")
        for n in others:
            y = pairwise(places, me, seat_of[n])
            plain[n] += y / 6
            corrected[n] += (y + correction[n]) / 6
    return BlockMeasure(plain, corrected)


def summary(blocks: Sequence[BlockMeasure], other: str) -> dict[str, float]:
    """Variances of the block means without / with the correction, their ratio with a
    bootstrap 95% interval, the mean correction and its standard error."""
    y = np.array([b.plain[other] for b in blocks])
    z = np.array([b.corrected[other] for b in blocks])
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(y), size=(2000, len(y)))
    ratios = z[idx].var(axis=1, ddof=1) / np.maximum(y[idx].var(axis=1, ddof=1), 1e-300)
    d = z - y
    return {"blocks": float(len(y)), "var_plain": float(y.var(ddof=1)),
            "var_corrected": float(z.var(ddof=1)),
            "ratio": float(z.var(ddof=1) / y.var(ddof=1)),
            "ratio_low": float(np.quantile(ratios, 0.025)),
            "ratio_high": float(np.quantile(ratios, 0.975)),
            "mean_plain": float(y.mean()), "mean_corrected": float(z.mean()),
            "correction": float(d.mean()), "correction_se": float(d.std(ddof=1) /
                                                                 np.sqrt(len(d)))}
