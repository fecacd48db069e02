"""95% intervals of ratings and rating differences: the cluster-robust (block) variance of the
Plackett-Luce estimate with the small-sample correction of Bell & McCaffrey, per quantity.

The 6 matches of a duplicate block share their cards, so blocks, not matches, are the
independent units. For a quantity ``a^T theta`` (a bot's anchored rating, the difference of
two), the estimate moves by ``u^T S`` with ``u = H^{-1} a`` (``H`` the Hessian of the negative
log-posterior at the fit) and ``S`` the sum of the blocks' score vectors ``g_b``. Its
cluster-robust variance (the sandwich over blocks; the bootstrap over blocks estimates the same
to first order) is::

    V0 = sum_b (z_b - mean z)^2,     z_b = u^T g_b(theta_hat)

Two corrections make it right with few blocks per bot, and they depend on which blocks inform
the quantity, not on the tournament's total (the cause of the under-coverage of balanced
schedules, where each of 21 bots plays 10 of 70 blocks):

* **bias**: the fit absorbs part of each block's score (``r_b = g_b - J_b H^{-1} S``, ``J_b``
  the block's observed information), so ``E[V0] = lambda Var`` with ``lambda < 1``;
* **degrees of freedom**: ``V0`` is estimated from the few blocks that carry the quantity.

With ``Var(g_b) = J_b`` (independent blocks; a common factor, such as the correlation of the 6
seatings, cancels), ``z = (u^T r_b)_b`` is normal with covariance
``C = diag(u^T J_b u) - Q K Q^T`` where ``Q`` has rows ``q_b = J_b u`` and
``K = 2 H^{-1} - H^{-1} J H^{-1}`` (``J = sum_b J_b``), so that::

    lambda = tr(C) / sum_b u^T J_b u          df = tr(C)^2 / tr(C^2)   (Satterthwaite)

and the interval is ``estimate +- t_df(0.975) * sqrt(V0 / lambda)``. For one table (every
block alike) ``lambda = (G-1)/G`` and ``df = G-1``: the ``t_{G-1} sqrt(G/(G-1))`` factor used
before for every design, which is right there and too narrow for balanced schedules. The
bootstrap standard deviation is not used for the interval: with few blocks per bot it is
inflated (a resample with fewer of the bot's blocks gives a noisier rating: the bot's own 10
blocks in a 21-bot schedule over-cover at 0.967-0.995), while ``V0`` is its first-order
value without that noise and without Monte Carlo error.

Sources: R. M. Bell and D. F. McCaffrey, "Bias reduction in standard errors for linear
regression with multi-stage samples", Survey Methodology 28 (2002) 169-181; G. W. Imbens and
M. Kolesar, "Robust standard errors in small samples: some practical advice", Review of
Economics and Statistics 98 (2016) 701-712; F. E. Satterthwaite, "An approximate distribution
of estimates of variance components", Biometrics Bulletin 2 (1946) 110-114; A. C. Cameron and
D. L. Miller, "A practitioner's guide to cluster-robust inference", J. Human Resources 50
(2015) 317-372. Coverage in simulation: docs/ratings.md (``bench/ratings_coverage.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.sparse import csr_matrix
from scipy.stats import t as student_t

from .model import RatedResult
from .plackett_luce import Patterns, pattern_terms

__all__ = ["CI_LEVEL", "MIN_DF", "BlockDesign", "RobustIntervals", "block_design",
           "block_order", "contrasts", "robust_intervals"]

CI_LEVEL = 0.95
#: fewest degrees of freedom used for the t factor (it grows without bound below 1)
MIN_DF = 1.0
#: contrasts handled per array operation (bounds memory for large rosters)
_CHUNK = 64


def block_order(results: Sequence[RatedResult]) -> list[str]:
    """Block ids ordered by their content (the sorted (bot, place, forfeit) triples of their
    matches), ids only breaking ties between blocks with identical content: relabelling
    blocks changes nothing downstream (the bootstrap's draws, the order of sums)."""
    content: dict[str, list[tuple[tuple[str, int, bool], ...]]] = {}
    for r in results:
        content.setdefault(r.block, []).append(tuple(sorted(zip(r.players, r.places,
                                                                r.forfeits, strict=True))))
    return sorted(content, key=lambda b: (sorted(content[b]), b))


@dataclass(frozen=True)
class BlockDesign:
    """``membership[b, p]``: how often pattern ``p`` occurs in block ``b`` (blocks in
    :func:`block_order`)."""

    blocks: list[str]
    membership: csr_matrix


def block_design(results: Sequence[RatedResult], patterns: Patterns) -> BlockDesign:
    """The blocks x patterns count matrix of ``results`` (encoded as ``patterns``)."""
    blocks = block_order(results)
    row_of = {b: k for k, b in enumerate(blocks)}
    rows = np.array([row_of[r.block] for r in results], dtype=np.intp)
    membership = csr_matrix((np.ones(len(rows)), (rows, patterns.of_match)),
                            shape=(len(blocks), len(patterns.players)))
    return BlockDesign(blocks, membership)


def contrasts(anchor: NDArray[np.bool_]) -> tuple[NDArray[np.float64], list[tuple[int, int]]]:
    """The contrast matrix (n x K) of the rated quantities: first each bot's anchored rating
    (``e_i`` minus the mean over ``anchor``), then ``e_i - e_j`` for every pair ``i < j`` (in
    the order of the returned pairs)."""
    n = len(anchor)
    weights = np.asarray(anchor, dtype=float) / float(np.sum(anchor))
    bots = np.eye(n) - np.outer(weights, np.ones(n))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    diffs = np.zeros((n, len(pairs)))
    for k, (i, j) in enumerate(pairs):
        diffs[i, k], diffs[j, k] = 1.0, -1.0
    return np.hstack([bots, diffs]), pairs


@dataclass(frozen=True)
class RobustIntervals:
    """Per contrast (column of the contrast matrix, in the contrast's units squared for
    ``variance``): the corrected variance ``V0 / lambda``, the bias ``lam`` (0 < lam <= 1),
    the degrees of freedom ``df`` and the ``half`` width of the 95% interval."""

    variance: NDArray[np.float64]
    lam: NDArray[np.float64]
    df: NDArray[np.float64]
    half: NDArray[np.float64]


class _Terms:
    """What every chunk of contrasts shares: per-pattern information, the inverse Hessian and
    the (block, bot) slots of the design."""

    def __init__(self, patterns: Patterns, membership: csr_matrix, theta: NDArray[np.float64],
                 prior_sigma: float) -> None:
        n = len(theta)
        _, grad_local, hess_local = pattern_terms(theta, patterns)
        if grad_local is None or hess_local is None:     # never: derivatives were asked for
            raise RuntimeError("no derivatives from the pattern terms")
        self.grad_local = grad_local
        self.info_local = -hess_local                    # (P, 3, 3), positive semi-definite
        idx = patterns.players
        counts = np.asarray(membership.sum(axis=0)).ravel()
        flat = (idx[:, :, None] * n + idx[:, None, :]).ravel()
        self.info = np.bincount(flat, weights=(counts[:, None, None] * self.info_local).ravel(),
                                minlength=n * n).reshape(n, n)
        self.h_inv = np.linalg.inv(self.info + np.eye(n) / prior_sigma**2)
        self.k_mat = 2.0 * self.h_inv - self.h_inv @ self.info @ self.h_inv
        self.membership = membership
        self.idx = idx
        g, p = membership.shape
        coo = membership.tocoo()
        # slots: the (block, bot) pairs of the design; q_b = J_b u lives on them
        slot_key = coo.row[:, None] * n + idx[coo.col]                  # (nnz, 3)
        keys, slot_of = np.unique(slot_key.ravel(), return_inverse=True)
        self.slot_block, self.slot_bot = keys // n, keys % n
        cols = (coo.col[:, None] * 3 + np.arange(3)[None, :]).ravel()
        self.scatter = csr_matrix((np.repeat(coo.data, 3), (slot_of, cols)),
                                  shape=(len(keys), p * 3))
        # slot pairs within a block (s, t): for q_b^T K q_b and Q^T Q
        starts = np.searchsorted(self.slot_block, np.arange(g + 1))
        per_slot = np.diff(starts)[self.slot_block]                    # slots of its block
        self.pair_s = np.repeat(np.arange(len(keys)), per_slot)
        run = np.repeat(np.cumsum(per_slot) - per_slot, per_slot)
        self.pair_t = starts[self.slot_block[self.pair_s]] + np.arange(len(self.pair_s)) - run
        self.pair_block = self.slot_block[self.pair_s]
        self.pair_k = self.k_mat[self.slot_bot[self.pair_s], self.slot_bot[self.pair_t]]
        cell = self.slot_bot[self.pair_s] * n + self.slot_bot[self.pair_t]
        self.pair_cell = csr_matrix((np.ones(len(cell)), (cell, np.arange(len(cell)))),
                                    shape=(n * n, len(cell)))
        self.n, self.g = n, g


def _chunk(terms: _Terms, a: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
    """(V0, lambda, df) of the contrasts ``a`` (n x k)."""
    n, g = terms.n, terms.g
    u = terms.h_inv @ a                                               # (n, k)
    u_local = u[terms.idx]                                            # (P, 3, k)
    ju_local = np.einsum("pij,pjk->pik", terms.info_local, u_local)   # J_p u, (P, 3, k)
    alpha = np.asarray(terms.membership @ np.einsum("pik,pik->pk", u_local, ju_local))
    z = np.asarray(terms.membership @ np.einsum("pi,pik->pk", terms.grad_local, u_local))
    v0 = ((z - z.mean(axis=0)) ** 2).sum(axis=0)
    q = np.asarray(terms.scatter @ ju_local.reshape(-1, a.shape[1]))  # (slots, k)
    prod = q[terms.pair_s] * q[terms.pair_t]                          # (slot pairs, k)
    qkq = np.zeros((g, a.shape[1]))
    np.add.at(qkq, terms.pair_block, terms.pair_k[:, None] * prod)   # q_b^T K q_b
    qtq = np.asarray(terms.pair_cell @ prod).reshape(n, n, -1)        # sum_b q_b q_b^T
    kq = np.einsum("ij,jlk->ilk", terms.k_mat, qtq)
    true_var = alpha.sum(axis=0)
    tr_c = true_var - qkq.sum(axis=0)
    tr_c2 = (alpha**2).sum(axis=0) - 2.0 * (alpha * qkq).sum(axis=0) \
        + np.einsum("ijk,jik->k", kq, kq)
    ok = (true_var > 0) & (tr_c > 0)
    lam = np.clip(np.where(ok, tr_c / np.where(ok, true_var, 1.0), 1.0), 1e-6, 1.0)
    df = np.where(ok & (tr_c2 > 0), tr_c**2 / np.where(tr_c2 > 0, tr_c2, 1.0), MIN_DF)
    return v0, lam, df


def robust_intervals(patterns: Patterns, membership: csr_matrix, theta: NDArray[np.float64],
                     prior_sigma: float, contrast: NDArray[np.float64]) -> RobustIntervals:
    """The corrected block-robust variance and the 95% half-width of each contrast (column of
    ``contrast``, n x K) at the fit ``theta``; see the module doc. ``membership``: blocks x
    patterns counts (:func:`block_design`)."""
    terms = _Terms(patterns, membership, np.asarray(theta, dtype=float), prior_sigma)
    parts = [_chunk(terms, contrast[:, k:k + _CHUNK])
             for k in range(0, contrast.shape[1], _CHUNK)]
    v0, lam, df = (np.concatenate([p[i] for p in parts]) for i in range(3))
    variance = v0 / lam
    half = student_t.ppf(0.5 + CI_LEVEL / 2, np.maximum(df, MIN_DF)) * np.sqrt(variance)
    return RobustIntervals(variance, lam, df, half)
