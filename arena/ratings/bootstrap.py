"""Block bootstrap of the Plackett-Luce ratings: the likelihood of superiority.

The 6 matches of a duplicate block (one deal of one table in all 6 seatings) share their cards
and are therefore dependent; resampling single matches would understate the uncertainty. The
bootstrap therefore resamples **whole blocks** with replacement (as many draws as there are
blocks), refits the ratings on each resample (:func:`.batch_fit.fit_theta_batch`) and reports
the likelihood of superiority ``LOS[i][j]`` = fraction of resamples with ``R_i > R_j``, a tie
counting one half (so ``LOS[i][j] + LOS[j][i] == 1`` and the diagonal is 0.5). The 95%
intervals are not taken from the resamples but from the block-robust variance with its
small-sample correction (:mod:`.intervals`): with few blocks per bot the bootstrap's spread is
inflated, since a resample holding fewer of a bot's blocks rates it more noisily.

Resampling only changes how often each distinct match outcome is counted, so each refit is a
weighted fit over the :class:`~arena.ratings.plackett_luce.Patterns` of the full data, started
from the full-data estimate. A bot that drops out of a resample (or a group of bots that is no
longer connected to the rest) is held finite by the prior.

Determinism and Monte Carlo error: blocks are put in the order of their *content*
(:func:`.intervals.block_order`), not their ids, and the draws come from
``numpy.random.default_rng(seed)``; so the same matches (in any order, under any block ids)
with the same seed give identical resamples. The Monte Carlo error of a LOS from B resamples
is at most ``0.5 / sqrt(B)`` (0.016 with the default 1000).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.sparse import csr_matrix
from scipy.stats import t as student_t

from .batch_fit import fit_theta_batch
from .edges import anchored_elo
from .intervals import CI_LEVEL
from .plackett_luce import Patterns

__all__ = ["BootstrapResult", "block_bootstrap", "interval_scale", "likelihood_of_superiority"]


@dataclass(frozen=True)
class BootstrapResult:
    """Bootstrap ratings ``samples`` (resamples x bots, Elo points) and their ``los``."""

    samples: NDArray[np.float64]
    los: NDArray[np.float64]


def interval_scale(blocks: int) -> float:
    """Half-width of the 95% interval in standard errors when every one of ``blocks >= 2``
    duplicate blocks informs a quantity alike (one table): ``t_{G-1}(0.975) * sqrt(G/(G-1))``
    (8 blocks: 2.53; 25: 2.11; 100: 1.99; 1.96 in the limit). :mod:`.intervals` gives the
    factor of any design; on one table it is this one (a check of it in the tests).
    """
    g = max(int(blocks), 2)
    return float(student_t.ppf(0.5 + CI_LEVEL / 2, g - 1) * np.sqrt(g / (g - 1)))


def likelihood_of_superiority(samples: NDArray[np.float64]) -> NDArray[np.float64]:
    """``LOS[i, j]`` = fraction of rows of ``samples`` with ``R_i > R_j`` (ties count 1/2)."""
    s = np.asarray(samples, dtype=np.float64)
    greater = (s[:, :, None] > s[:, None, :]).mean(axis=0)
    equal = (s[:, :, None] == s[:, None, :]).mean(axis=0)
    los: NDArray[np.float64] = greater + 0.5 * equal
    return los


def block_bootstrap(
    membership: csr_matrix,
    patterns: Patterns,
    n_players: int,
    theta_hat: NDArray[np.float64],
    *,
    resamples: int,
    seed: int,
    prior_sigma: float,
    anchor: NDArray[np.bool_] | None = None,
) -> BootstrapResult:
    """Refit on ``resamples`` resamples of the blocks of ``membership`` (blocks x patterns
    counts, :func:`.intervals.block_design`; blocks in content order).

    ``theta_hat`` is the full-data fit, the starting point of every refit; ``anchor`` the bots
    whose mean rating is 1500 (default: all).

    Raises:
        ValueError: ``resamples < 1``.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    anchor = np.ones(n_players, dtype=bool) if anchor is None else np.asarray(anchor, bool)
    rng = np.random.default_rng(seed)
    n_blocks = membership.shape[0]
    drawn = np.stack([np.bincount(rng.integers(0, n_blocks, size=n_blocks), minlength=n_blocks)
                      for _ in range(resamples)]).astype(float)
    weights = np.asarray((membership.T @ drawn.T).T)
    samples = anchored_elo(fit_theta_batch(patterns, weights, n_players, prior_sigma,
                                           theta_hat), anchor)
    return BootstrapResult(samples=samples, los=likelihood_of_superiority(samples))
