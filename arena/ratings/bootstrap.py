"""Block bootstrap of the Plackett-Luce ratings: 95% intervals and likelihood of superiority.

The 6 matches of a duplicate block (one deal of one table in all 6 seatings) share their cards
and are therefore dependent; resampling single matches would understate the uncertainty. The
bootstrap therefore resamples **whole blocks** with replacement (as many draws as there are
blocks), refits the ratings on each resample and reports, per bot:

* the percentile interval ``[q_2.5%, q_97.5%]`` of its bootstrap ratings (Efron & Tibshirani,
  "An Introduction to the Bootstrap", 1993, ch. 13), in Elo points;
* the likelihood of superiority ``LOS[i][j]`` = fraction of resamples with ``R_i > R_j``,
  a tie counting one half (so ``LOS[i][j] + LOS[j][i] == 1`` and the diagonal is 0.5).

Resampling only changes how often each distinct match outcome is counted, so each refit is a
weighted fit over the :class:`~arena.ratings.plackett_luce.Patterns` of the full data, started
from the full-data estimate. A bot that drops out of a resample (or a group of bots that is no
longer connected to the rest) is held finite by the prior and simply widens its interval.

Calibration: percentile intervals from few blocks are somewhat too narrow. Measured on data
simulated from the model (300 tournaments each): coverage of the nominal 95% intervals ~0.88
with 8 blocks, ~0.91 with 25 blocks, ~0.94 with 100 blocks. When a bot's results never vary
(e.g. it won every match), every resample agrees and its interval collapses to a point: the
bootstrap cannot show uncertainty the data do not contain.

Determinism: blocks are sorted by id before drawing and the draws come from
``numpy.random.default_rng(seed)``, so the same matches (in any order) and the same seed give
identical intervals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.sparse import csr_matrix

from .model import MatchResult
from .plackett_luce import Patterns, fit_theta, theta_to_elo

__all__ = ["BootstrapResult", "block_bootstrap", "likelihood_of_superiority"]

CI_LEVEL = 0.95


@dataclass(frozen=True)
class BootstrapResult:
    """Bootstrap ratings ``samples`` (resamples x bots, Elo points) and their summaries."""

    samples: NDArray[np.float64]
    ci_low: NDArray[np.float64]
    ci_high: NDArray[np.float64]
    los: NDArray[np.float64]


def likelihood_of_superiority(samples: NDArray[np.float64]) -> NDArray[np.float64]:
    """``LOS[i, j]`` = fraction of rows of ``samples`` with ``R_i > R_j`` (ties count 1/2)."""
    s = np.asarray(samples, dtype=float)
    greater = (s[:, :, None] > s[:, None, :]).mean(axis=0)
    equal = (s[:, :, None] == s[:, None, :]).mean(axis=0)
    return greater + 0.5 * equal


def block_bootstrap(
    results: Sequence[MatchResult],
    patterns: Patterns,
    n_players: int,
    theta_hat: NDArray[np.float64],
    *,
    resamples: int,
    seed: int,
    prior_sigma: float,
) -> BootstrapResult:
    """Refit on ``resamples`` block resamples of ``results`` (encoded as ``patterns``).

    ``theta_hat`` is the full-data fit, used as the starting point of every refit.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    block_ids = sorted({r.block for r in results})
    block_of = {b: k for k, b in enumerate(block_ids)}
    rows = np.array([block_of[r.block] for r in results], dtype=np.intp)
    # blocks x patterns: how often each pattern occurs in each block
    membership = csr_matrix(
        (np.ones(len(rows)), (rows, patterns.of_match)),
        shape=(len(block_ids), len(patterns.players)),
    )
    membership_t = membership.T.tocsr()

    rng = np.random.default_rng(seed)
    n_blocks = len(block_ids)
    samples = np.empty((resamples, n_players))
    for s in range(resamples):
        drawn = np.bincount(rng.integers(0, n_blocks, size=n_blocks), minlength=n_blocks)
        weights = np.asarray(membership_t @ drawn.astype(float)).ravel()
        theta = fit_theta(patterns, weights, n_players, prior_sigma, theta0=theta_hat)
        samples[s] = theta_to_elo(theta)

    tail = 100.0 * (1.0 - CI_LEVEL) / 2.0
    low, high = np.percentile(samples, [tail, 100.0 - tail], axis=0)
    return BootstrapResult(
        samples=samples, ci_low=low, ci_high=high, los=likelihood_of_superiority(samples)
    )
